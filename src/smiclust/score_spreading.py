r"""Spreading the final cluster scores over the kernel graph (beyond the paper).

The paper's label of a sample is the argmax of its own clipped eigenvector
scores. A sample that the eigenvectors barely cover (far from the samples the
links or labels tie down, or between two clusters) then gets its label from
round-off-sized evidence. Spreading lets every sample also hear its neighbours,
as label spreading does (Zhou et al., *Learning with local and global
consistency*, NIPS 2004), but starting from the scores instead of from labels:

.. math::

    F = (1 - \alpha)\sum_{k \ge 0} \alpha^k \hat W^k Y_0
      = (1 - \alpha)(I - \alpha \hat W)^{-1} Y_0,
    \qquad \hat W = D^{-1/2} W D^{-1/2},

with :math:`W` the kernel without its diagonal, :math:`D` its degrees, and
:math:`Y_0` the scores of the samples in no link (all scores scaled to a mean
row sum of 1) and the one-hot labels of the linked samples (the seeds, whose labels the
links decided). The new label of a sample in no link is the argmax of its row
of :math:`F`; seeds keep theirs. :math:`\alpha = 0` gives back the scores.

The series is summed term by term (matrix-vector products with the sparse
kernel only); with :math:`\|\hat W\|_2 \le 1` its tail after :math:`k` terms
is at most :math:`\alpha^k`. Prior validation of inputs is assumed.
"""

import numpy as np
import scipy.sparse as sp

__all__ = ["normalized_affinity", "spread_scores", "spread_labels"]


def normalized_affinity(K):
    r"""The symmetric degree-normalised graph :math:`D^{-1/2} W D^{-1/2}`.

    Parameters
    ----------
    K : sparse matrix of shape (n, n)
        Symmetric non-negative kernel; its diagonal is left out (:math:`W`).

    Returns
    -------
    W_hat : scipy.sparse.csr_matrix of shape (n, n)
        Rows of isolated samples (degree 0) are zero.
    """
    W = sp.csr_matrix(K, dtype=np.float64, copy=True)
    W.setdiag(0.0)
    W.eliminate_zeros()
    degree = np.asarray(W.sum(axis=1)).ravel()
    inv_sqrt = np.zeros_like(degree)
    positive = degree > 0
    inv_sqrt[positive] = 1.0 / np.sqrt(degree[positive])
    D = sp.diags(inv_sqrt)
    return (D @ W @ D).tocsr()


def spread_scores(K, scores, seed_labels, alpha, *, tol=1e-10, max_terms=1000):
    r"""Scores spread over the kernel graph.

    :math:`F = (1-\alpha)(I-\alpha\hat W)^{-1}Y_0`, see the module docstring.

    Parameters
    ----------
    K : sparse matrix of shape (n, n)
        Symmetric non-negative kernel (the fit's local-scaling kernel).
    scores : ndarray of shape (n, c)
        Non-negative cluster scores (the clipped, column-normalised scores of
        :func:`smiclust.labeling.cluster_scores`).
    seed_labels : ndarray of shape (n,)
        Cluster of each seed, ``-1`` for the other samples.
    alpha : float in [0, 1)
        Weight of the neighbours against a sample's own start row.
    tol : float, default=1e-10
        The sum stops once :math:`\alpha^k` is below ``tol``.
    max_terms : int, default=1000
        At most this many terms of the series.

    Returns
    -------
    F : ndarray of shape (n, c)
        A new array; ``alpha = 0`` returns :math:`Y_0`.
    """
    S = np.asarray(scores, dtype=np.float64)
    n, c = S.shape
    seeded = seed_labels >= 0
    mean_total = S.sum(axis=1).mean() if n else 0.0
    scale = mean_total if mean_total > 0 else 1.0
    Y0 = S / scale
    Y0[seeded] = 0.0
    Y0[np.flatnonzero(seeded), seed_labels[seeded]] = 1.0
    if alpha == 0:
        return Y0
    W_hat = normalized_affinity(K)
    F = Y0.copy()
    term = Y0
    weight = 1.0
    for _ in range(max_terms):
        weight *= alpha
        if weight < tol:
            break
        term = alpha * (W_hat @ term)
        F += term
    return (1.0 - alpha) * F


def spread_labels(K, scores, labels, seeded, alpha):
    """Labels after :func:`spread_scores`: seeds keep theirs, the others take
    the argmax of their spread row (their own label where that row is 0).

    Parameters
    ----------
    K : sparse matrix of shape (n, n)
    scores : ndarray of shape (n, c)
    labels : ndarray of shape (n,)
        Labels before spreading, ``0 .. c - 1``.
    seeded : ndarray of bool of shape (n,)
        The samples whose labels the links decided.
    alpha : float in [0, 1)

    Returns
    -------
    labels : ndarray of shape (n,)
        A new array.
    F : ndarray of shape (n, c)
        The spread scores.
    """
    F = spread_scores(K, scores, np.where(seeded, labels, -1), alpha)
    spread = np.argmax(F, axis=1)
    keep = seeded | (F.sum(axis=1) <= 0)
    return np.where(keep, labels, spread), F
