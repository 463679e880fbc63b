"""Adapter to COBRAS (``cobras_ts``), the active clustering peer of issue 12.

COBRAS (van Craenendonck, Dumančić, Van Wolputte & Blockeel, IJCAI 2018)
asks "same cluster?" questions about super-instance representatives, splitting
super-instances top-down with k-means and merging them bottom-up from the
answers. It needs no number of clusters; it stops at a question budget and
keeps, after every question, the last *valid* clustering (the one of the last
completed merging phase), so one run gives the clustering at every budget up
to its own.

``cobras_ts`` 0.1.3 (optional ``bench`` extra) is used as published, with two
adaptations made here rather than by copying its code:

* its k-means split calls ``labels_.astype(np.int)``, an alias NumPy removed
  in 1.24: :func:`_numpy_int_alias` sets ``np.int = int`` for the duration of
  a run and removes it afterwards;
* its ``cobras_ts.querier`` package imports tornado and bokeh (for its web
  queriers) on import: the adapter does not import it, and answers with its
  own :class:`_LabelOracle`, which has the three methods COBRAS calls.

Its k-means splits are ``KMeans(k)`` without a seed, so they draw from NumPy's
*global* random state: a run seeds it and restores it afterwards.
"""

import importlib.util
import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ._peers import _global_random_state

__all__ = ["CobrasResult", "cobras_unavailable_reason", "fit_cobras"]


def cobras_unavailable_reason():
    """Why COBRAS cannot run here, or None if it can (imports nothing).

    Returns
    -------
    reason : str or None
    """
    if importlib.util.find_spec("cobras_ts") is None:
        return "cobras_ts is not installed (pip install 'smiclust[bench]')"
    return None


@dataclass(frozen=True)
class CobrasResult:
    """One COBRAS run with a question budget.

    Attributes
    ----------
    labels : ndarray of shape (n_samples,)
        The final clustering (the last valid one).
    history : ndarray of shape (n_queries, n_samples)
        ``history[q - 1]`` is the clustering COBRAS reports after ``q``
        questions (its intermediate results).
    pairs : ndarray of shape (n_queries, 2)
        The questions in the order they were asked.
    answers : ndarray of bool, shape (n_queries,)
        The oracle's answers (True: same cluster).
    seconds : float
        Wall time of the run.
    """

    labels: np.ndarray
    history: np.ndarray
    pairs: np.ndarray
    answers: np.ndarray
    seconds: float

    @property
    def n_queries(self):
        """Number of questions asked (at most the budget; fewer when COBRAS
        has nothing left to split)."""
        return int(self.pairs.shape[0])

    def labels_at(self, n_questions):
        """The clustering after ``n_questions`` questions.

        Past :attr:`n_queries` (COBRAS stopped early) it is the final one.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        """
        n_questions = int(n_questions)
        if n_questions < 1:
            raise ValueError(
                "The 'n_questions' parameter of CobrasResult.labels_at must be "
                f"at least 1. Got {n_questions!r} instead."
            )
        if n_questions >= self.n_queries:
            return self.labels
        return self.history[n_questions - 1]

    def asked_at(self, n_questions):
        """Boolean mask of the samples in one of the first ``n_questions``
        questions.

        Returns
        -------
        mask : ndarray of bool, shape (n_samples,)
        """
        mask = np.zeros(self.labels.shape[0], dtype=bool)
        mask[self.pairs[: int(n_questions)].ravel()] = True
        return mask


class _LabelOracle:
    """Answers COBRAS's questions from the true labels and records them.

    COBRAS calls ``query_points``, ``continue_cluster_process`` and
    ``update_clustering``; the ``cobras_ts.querier`` base class is not
    imported (its package imports tornado and bokeh).
    """

    def __init__(self, y):
        self.y = y
        self.pairs = []
        self.answers = []

    def query_points(self, i, j):
        answer = bool(self.y[i] == self.y[j])
        self.pairs.append((int(i), int(j)))
        self.answers.append(answer)
        return answer

    def continue_cluster_process(self):
        return True

    def update_clustering(self, clustering):
        pass


@contextmanager
def _numpy_int_alias():
    """Provide ``np.int`` (removed in NumPy 1.24) and remove it on exit.

    Process-wide while active; left alone if NumPy has it already.
    """
    present = "int" in vars(np)
    if not present:
        np.int = int
    try:
        yield
    finally:
        if not present:
            del np.int


def _labelling(labels, n_samples):
    """A COBRAS labelling (list, or None before its first valid clustering:
    everything in one cluster) as an int array."""
    if labels is None:
        return np.zeros(n_samples, dtype=np.int32)
    return np.asarray(labels, dtype=np.int32)


def fit_cobras(X, y, max_questions, *, random_state=0):
    """Run COBRAS (k-means super-instances) with an oracle answering from ``y``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        True labels; the question "are ``i`` and ``j`` in the same cluster?"
        is answered ``y[i] == y[j]``.
    max_questions : int
        Question budget (COBRAS may stop earlier).
    random_state : int, default=0
        Seed of NumPy's global random state during the run (restored
        afterwards); COBRAS's k-means splits draw from it.

    Returns
    -------
    result : CobrasResult

    Raises
    ------
    ImportError
        If ``cobras_ts`` is not installed.
    """
    reason = cobras_unavailable_reason()
    if reason is not None:
        raise ImportError(f"COBRAS needs the optional 'bench' extra: {reason}.")
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(
            f"X must be 2-D and y of length X.shape[0]; got X of shape "
            f"{X.shape} and y of shape {y.shape}."
        )
    max_questions = int(max_questions)
    if max_questions < 1:
        raise ValueError(
            "The 'max_questions' parameter of fit_cobras must be at least 1. "
            f"Got {max_questions!r} instead."
        )
    n = X.shape[0]
    oracle = _LabelOracle(y)
    start = time.perf_counter()
    with _numpy_int_alias(), _global_random_state(int(random_state)):
        from cobras_ts.cobras_kmeans import COBRAS_kmeans

        model = COBRAS_kmeans(X, oracle, max_questions,
                              store_intermediate_results=True)
        clustering, intermediate, _, _, _ = model.cluster()
    seconds = time.perf_counter() - start
    history = np.stack([_labelling(lab, n) for lab in intermediate]) \
        if intermediate else np.empty((0, n), dtype=np.int32)
    pairs = np.asarray(oracle.pairs, dtype=np.intp).reshape(-1, 2)
    if history.shape[0] != pairs.shape[0]:
        raise RuntimeError(
            f"COBRAS reported {history.shape[0]} intermediate clusterings for "
            f"{pairs.shape[0]} questions."
        )
    return CobrasResult(
        labels=_labelling(clustering.construct_cluster_labeling(), n),
        history=history,
        pairs=pairs,
        answers=np.asarray(oracle.answers, dtype=bool),
        seconds=seconds,
    )
