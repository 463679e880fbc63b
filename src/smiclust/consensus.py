r"""The vote of the best candidate of every ``n_neighbors``.

The parameter search keeps one candidate, the maximiser of the paper's
criterion, but on many-class data the criterion is a noisy guide to the
labelling's quality, while the candidates' errors differ from one ``t`` to
the next. Their vote averages the errors out:

1. For every ``t`` of the search, the candidate of the largest criterion at
   that ``t`` (:func:`best_per_neighbors`) gives a labelling.
2. Cluster numbers are arbitrary, so each labelling is matched to a reference
   (:func:`align_labels`: the one-to-one map of its clusters onto the
   reference's that keeps the most samples in place, by
   :func:`scipy.optimize.linear_sum_assignment`).
3. The vote of sample :math:`i` for cluster :math:`k` is the fraction of the
   labellings that put it in :math:`k` (:func:`vote_scores`). It is taken
   twice: against the search's choice, then against the argmax of that
   first vote, so that the reference is the consensus itself.

The votes are scores in :math:`[0, 1]` with rows summing to 1: the closed
links' group labelling and the score spreading read them as they read the
paper's clipped scores. Pure functions on validated arrays.
"""

import numpy as np
from scipy.optimize import linear_sum_assignment

__all__ = ["best_per_neighbors", "cluster_mapping", "align_labels", "vote_scores"]


def best_per_neighbors(n_neighbors, criterion):
    """Index of the candidate of the largest criterion at each ``t``.

    Parameters
    ----------
    n_neighbors : ndarray of shape (n_candidates,)
        ``t`` of each candidate.
    criterion : ndarray of shape (n_candidates,)
        The search's criterion (larger is better; NaN never wins unless a
        ``t`` has nothing else).

    Returns
    -------
    indices : ndarray of int
        One candidate per distinct ``t``, in increasing ``t``; the first of
        equal criteria.
    """
    n_neighbors = np.asarray(n_neighbors)
    crit = np.nan_to_num(np.asarray(criterion, dtype=np.float64), nan=-np.inf)
    best = []
    for t in np.unique(n_neighbors):
        at_t = np.flatnonzero(n_neighbors == t)
        best.append(at_t[np.argmax(crit[at_t])])
    return np.asarray(best, dtype=np.intp)


def cluster_mapping(labels, reference, n_clusters):
    r"""The one-to-one map of the clusters of ``labels`` onto those of
    ``reference`` that keeps the most samples in place
    (:func:`scipy.optimize.linear_sum_assignment` on the :math:`c \times c`
    overlap counts).

    Parameters
    ----------
    labels, reference : ndarray of int of shape (n_samples,)
        Clusters ``0 .. n_clusters - 1``.
    n_clusters : int

    Returns
    -------
    mapping : ndarray of shape (n_clusters,)
        ``mapping[k]`` is the cluster of ``reference`` matched to cluster
        ``k`` of ``labels``.
    """
    overlap = np.zeros((n_clusters, n_clusters))
    np.add.at(overlap, (labels, reference), 1.0)
    rows, cols = linear_sum_assignment(overlap, maximize=True)
    mapping = np.empty(n_clusters, dtype=np.intp)
    mapping[rows] = cols
    return mapping


def align_labels(labels, reference, n_clusters):
    """``labels`` renumbered to agree with ``reference`` on the most samples.

    Parameters
    ----------
    labels, reference : ndarray of int of shape (n_samples,)
        Clusters ``0 .. n_clusters - 1``.
    n_clusters : int

    Returns
    -------
    aligned : ndarray of shape (n_samples,)
        ``mapping[labels]`` for the :func:`cluster_mapping` ``mapping``.
    """
    return cluster_mapping(labels, reference, n_clusters)[labels]


def vote_scores(labellings, reference, n_clusters):
    r"""Fraction of the aligned labellings that put each sample in each
    cluster.

    Parameters
    ----------
    labellings : sequence of ndarray of shape (n_samples,)
    reference : ndarray of shape (n_samples,)
    n_clusters : int

    Returns
    -------
    votes : ndarray of shape (n_samples, n_clusters)
        :math:`V_{ik} = \frac1m \#\{l : \pi_l(y^{(l)}_i) = k\}`, with
        :math:`\pi_l` the alignment of labelling :math:`l` to ``reference``.
    """
    n = reference.shape[0]
    votes = np.zeros((n, n_clusters))
    rows = np.arange(n)
    for labels in labellings:
        votes[rows, align_labels(labels, reference, n_clusters)] += 1.0
    return votes / max(len(labellings), 1)
