r"""From eigenvectors to clusters: the post-processing of SMIC / 3SMIC.

The paper's rule: signs :math:`\tilde\phi_y = \phi_y\,\mathrm{sign}(\phi_y^\top 1)`
(:func:`fix_signs`), negative entries clipped to 0 and each column normalised to
sum 1 (:func:`cluster_scores`), label = row-wise argmax (:func:`argmax_labels`).
Rows that are scaled to sum 1 give class probabilities (:func:`row_probabilities`).
Beyond the paper, :func:`indicator_rotation` turns the eigenvectors, within
their span, towards cluster indicators before that rule. Prior validation of
inputs is assumed.
"""

import numpy as np
import scipy.linalg

from .eigensolvers import peak_signs

__all__ = [
    "fix_signs",
    "indicator_rotation",
    "cluster_scores",
    "row_probabilities",
    "uncovered_rows",
    "argmax_labels",
    "cluster_order",
]


def fix_signs(vectors):
    r"""Sign rule of SMIC: :math:`\tilde\phi_y = \phi_y\,\mathrm{sign}(\phi_y^\top 1)`.

    A vector whose entries sum to (numerically) zero gets the sign that makes its
    largest-magnitude entry positive (:func:`smiclust.eigensolvers.peak_signs`),
    so the rule is deterministic.

    Returns
    -------
    signed : ndarray of the same shape
        A new array.
    """
    V = np.array(vectors, dtype=np.float64, copy=True)
    sums = V.sum(axis=0)
    scale = np.abs(V).sum(axis=0)
    signs = np.sign(sums)
    tiny = np.abs(sums) <= 1e-12 * np.maximum(scale, np.finfo(float).tiny)
    if tiny.any():
        signs[tiny] = peak_signs(V)[tiny]
    return V * signs


def indicator_rotation(vectors):
    r"""Rotation of ``vectors`` towards cluster indicators (CPQR).

    The relaxed SMIC problem is solved by any orthonormal basis :math:`VR` of
    the span of its :math:`c` leading eigenvectors :math:`V` (:math:`R`
    orthogonal): the objective :math:`\mathrm{tr}(A^\top K U K A)` does not
    change. Of these bases, the one wanted is closest to the indicators of
    :math:`c` clusters. Following Damle, Minden & Ying (2019; scikit-learn's
    ``cluster_qr``): a QR factorisation with column pivoting of
    :math:`V^\top` picks :math:`c` rows of :math:`V`, samples that are as
    far apart in the embedding as possible, one per cluster; :math:`R` is the
    orthogonal matrix nearest to :math:`V_{\text{picked}}^\top` (its
    polar factor :math:`R = PQ^\top`, from the SVD :math:`P \Sigma Q^\top`),
    which takes the picked samples' rows as near to the axes, one each, as an
    orthogonal map can.

    Parameters
    ----------
    vectors : ndarray of shape (n_samples, c)
        Orthonormal columns, ``c <= n_samples``.

    Returns
    -------
    rotation : ndarray of shape (c, c)
        Orthogonal; ``vectors @ rotation`` is the rotated basis. The row-wise
        argmax of ``abs(vectors @ rotation)`` is ``cluster_qr(vectors)``.
    """
    c = vectors.shape[1]
    _, _, pivots = scipy.linalg.qr(vectors.T, pivoting=True)
    P, _, Qt = scipy.linalg.svd(vectors[pivots[:c], :].T)
    return P @ Qt


def cluster_scores(signed_vectors, normalizer=None):
    r"""Clipped, normalised class scores of the SMIC post-processing.

    .. math::

        s_{iy} = \frac{\max(0, [\tilde\phi_y]_i)}{\sum_j \max(0, [\tilde\phi_y]_j)}

    Parameters
    ----------
    signed_vectors : ndarray of shape (n, c)
        Sign-fixed vectors (or out-of-sample responses).
    normalizer : ndarray of shape (c,), default=None
        Column normalisers; by default the column sums of the clipped input.

    Returns
    -------
    scores : ndarray of shape (n, c)
    normalizer : ndarray of shape (c,)
    """
    clipped = np.maximum(signed_vectors, 0.0)
    if normalizer is None:
        normalizer = clipped.sum(axis=0)
    safe = np.where(normalizer > 0, normalizer, 1.0)
    return clipped / safe, normalizer


def row_probabilities(scores, fallback):
    """Rows of non-negative ``scores`` scaled to sum 1.

    Parameters
    ----------
    scores : ndarray of shape (n, c)
        Clipped, normalised scores (:func:`cluster_scores`).
    fallback : ndarray of shape (n, c)
        Used for the rows whose scores are all 0 (e.g. uniform, or one-hot at
        the sample's label).

    Returns
    -------
    proba : ndarray of shape (n, c)
    """
    total = scores.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, scores / np.where(total > 0, total, 1.0), fallback)


#: A graph component whose squared mass is at most this in every eigenvector
#: (unit norm) is not covered by them: its entries are round-off.
_UNCOVERED_MASS = 1e-12


def uncovered_rows(component, vectors):
    r"""Rows whose eigenvector entries are round-off, as a boolean mask.

    :math:`U` couples samples only within the connected components of its
    graph (the pattern of :math:`K'`, plus the cannot-links when
    :math:`\eta > 0`; ``component`` labels them, as
    ``scipy.sparse.csgraph.connected_components`` does), so each eigenvector
    lives on the components whose block it belongs to; in exact arithmetic
    the other components' entries are 0. The caller sets the masked entries
    to 0: labels read from round-off would change with a rescaling of ``X``,
    and the paper's rule gives exact zeros the first cluster.
    """
    n_components = int(component.max()) + 1 if component.size else 0
    if n_components <= 1:
        return np.zeros(vectors.shape[0], dtype=bool)
    mass = np.column_stack([
        np.bincount(component, weights=column**2, minlength=n_components)
        for column in vectors.T
    ])
    return (mass.max(axis=1) <= _UNCOVERED_MASS)[component]


def argmax_labels(signed, normalizer):
    """Argmax of the normalised scores; equals the paper's rule wherever some
    score is positive, and stays defined where all are clipped to zero."""
    safe = np.where(normalizer > 0, normalizer, 1.0)
    return np.argmax(signed / safe, axis=1)


def cluster_order(labels, n_clusters):
    """Cluster numbers with the clusters that win samples first (stable)."""
    counts = np.bincount(labels, minlength=n_clusters)
    return np.argsort(counts == 0, kind="stable")
