"""Neighbour graph: the ``k`` nearest other samples of every sample.

The search is done once per fit, for the largest number of neighbours any
kernel will need; every kernel with fewer neighbours is cut from it
(:mod:`smiclust.kernels`). Exact search by scikit-learn, approximate search by
pynndescent (extra ``ann``) for large inputs. Prior validation is assumed.
Callers that fit many models to the same samples run the exact searches once
within :func:`reuse_exact_searches`.
"""

import contextlib
import contextvars
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from .utils import arrays_digest, import_optional

__all__ = [
    "NeighborGraph",
    "APPROXIMATE_THRESHOLD",
    "DISTINCT_ROWS_FRACTION",
    "unique_rows",
    "nearest_neighbors",
    "reuse_exact_searches",
    "pair_distances",
    "resolve_algorithm",
    "approximate_search_missing",
]


#: Above this many samples, ``algorithm="auto"`` uses approximate neighbours
#: (pynndescent) when it is installed; below it, the exact search is used.
APPROXIMATE_THRESHOLD = 50_000

#: The exact search centres dense ``X`` first where the squared norm of its
#: mean row exceeds this many times its total variance (an offset a thousand
#: times the spread; the shipped and scikit-learn data sets are at 0.2-20):
#: see :func:`_centred_for_search`.
OFFSET_SPREAD_RATIO = 1e6

#: With ``distinct_rows=True``, neighbours are searched among distinct rows
#: only when at most this fraction of the samples are distinct rows (the data
#: are mostly copies: discrete features, repeated records). On data with a
#: minority of copies (spam: 91 % of its rows distinct) the samples' own kNN
#: measured better (docs/beyond-the-paper/research-notes.md, "Neighbours
#: among distinct rows").
DISTINCT_ROWS_FRACTION = 0.5


@dataclass(frozen=True)
class NeighborGraph:
    """The ``k`` nearest *other* samples of every sample, nearest first.

    Attributes
    ----------
    distances : ndarray of shape (n_samples, k)
        Euclidean distances, ascending along each row.
    indices : ndarray of shape (n_samples, k)
        Indices of the neighbours; a sample is never its own neighbour, but an
        exact duplicate of it can be (at distance 0).
    algorithm : {"exact", "approximate"}
        How the graph was searched.
    """

    distances: np.ndarray
    indices: np.ndarray
    algorithm: str = "exact"

    @property
    def n_samples(self):
        return self.indices.shape[0]

    @property
    def max_neighbors(self):
        return self.indices.shape[1]


def resolve_algorithm(algorithm, n_samples):
    """The search ``algorithm="auto"`` picks for ``n_samples`` ("exact" or
    "approximate"); any other value is returned as given."""
    if algorithm != "auto":
        return algorithm
    if n_samples < APPROXIMATE_THRESHOLD or not _has_pynndescent():
        return "exact"
    return "approximate"


def approximate_search_missing(algorithm, n_samples):
    """Whether ``algorithm="auto"`` would search ``n_samples`` approximately
    but pynndescent is not installed (the search then is exact)."""
    return (algorithm == "auto" and n_samples >= APPROXIMATE_THRESHOLD
            and not _has_pynndescent())


def _has_pynndescent():
    try:
        import pynndescent  # noqa: F401
    except ImportError:
        return False
    return True


#: The exact searches kept within :func:`reuse_exact_searches` (``None``
#: outside it), by the searched samples' digest and the number of neighbours.
_kept_searches = contextvars.ContextVar("smiclust_kept_searches", default=None)


@contextlib.contextmanager
def reuse_exact_searches():
    """Within the block, each exact search of :func:`nearest_neighbors` runs once.

    A later call for the same samples (equal dtype, shape and bytes: a
    digest, not the object's identity) and the same ``n_neighbors`` returns
    the graph of the first call, whose arrays are read-only. The exact search
    depends on neither ``random_state`` nor ``n_jobs``, so the graph is the
    one a new search would find; approximate searches (seeded) are never
    kept. For callers that fit many models to the same samples, such as
    :class:`~smiclust.ActiveSMIClustering`, which refits after every batch of
    answers. The graphs are kept until the block ends (``O(n k)`` memory
    each), in the current thread and context only.
    """
    token = _kept_searches.set({})
    try:
        yield
    finally:
        _kept_searches.reset(token)


def nearest_neighbors(
    X, n_neighbors, *, algorithm="auto", n_jobs=None, random_state=None,
    distinct_rows=False,
):
    """Search the ``n_neighbors`` nearest other samples of every sample.

    Prior validation of ``X`` (finite 2-d float array) and of ``n_neighbors``
    (``1 <= n_neighbors < n_samples``) is assumed.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        Samples (sparse: scikit-learn's brute-force search, or pynndescent's
        sparse one).
    n_neighbors : int
        Number of neighbours to return per sample; the largest ``t`` needed.
    algorithm : {"auto", "exact", "approximate"}, default="auto"
        ``"exact"`` uses :class:`sklearn.neighbors.NearestNeighbors`;
        ``"approximate"`` uses pynndescent (extra ``ann``). ``"auto"`` picks the
        approximate search for ``n_samples >= APPROXIMATE_THRESHOLD`` (50,000)
        when pynndescent is installed, the exact one otherwise.
    n_jobs : int, default=None
        Parallel jobs of the search (``None`` means 1).
    random_state : int, RandomState instance or None, default=None
        Seed of the approximate search.
    distinct_rows : bool, default=False
        When at most :data:`DISTINCT_ROWS_FRACTION` of the samples are
        distinct rows, search among distinct rows: every copy of a repeated
        row takes one copy of its own row first (the row's first sample, or
        the second for the first), then the nearest *other rows*, each by its
        first sample, so a row repeated ``n_neighbors`` times or more is not
        cut off from the rest by its own copies. Otherwise (more than that
        fraction of the samples distinct, which includes data without exact
        duplicates, or at most ``n_neighbors`` distinct rows) the graph is
        that of the samples. Dense and sparse ``X`` find the same distinct
        rows in the same order (:func:`unique_rows`).

    Returns
    -------
    graph : NeighborGraph
        Memory ``O(n_samples * n_neighbors)``.
    """
    if distinct_rows:
        first, inverse = unique_rows(
            X, max_rows=int(DISTINCT_ROWS_FRACTION * X.shape[0]))
        if first is not None and n_neighbors < first.size:
            rows = nearest_neighbors(
                X[first], n_neighbors, algorithm=algorithm, n_jobs=n_jobs,
                random_state=random_state,
            )
            return _expand_rows(rows, first, inverse)
    n_samples = X.shape[0]
    algorithm = resolve_algorithm(algorithm, n_samples)
    if algorithm == "exact":
        kept = _kept_searches.get()
        if kept is None:
            return _exact_neighbors(X, n_neighbors, n_jobs)
        parts = (X.indptr, X.indices, X.data) if sp.issparse(X) else (X,)
        key = (type(X).__name__, X.shape, n_neighbors, arrays_digest(parts))
        if key not in kept:
            graph = _exact_neighbors(X, n_neighbors, n_jobs)
            graph.distances.flags.writeable = False
            graph.indices.flags.writeable = False
            kept[key] = graph
        return kept[key]
    if algorithm == "approximate":
        distances, indices = _approximate_neighbors(
            X, n_neighbors, n_jobs=n_jobs, random_state=random_state
        )
        return NeighborGraph(distances, indices, "approximate")
    raise ValueError(
        "The 'algorithm' parameter of nearest_neighbors must be a str among "
        f"{{'auto', 'exact', 'approximate'}}. Got {algorithm!r} instead."
    )


def unique_rows(X, max_rows=None):
    """The distinct rows of ``X``, as :func:`numpy.unique` with ``axis=0``
    finds them, for dense and sparse ``X`` alike.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        Finite samples.
    max_rows : int, default=None
        With more distinct rows than this, ``(None, None)`` (sparse ``X``
        then skips ordering them).

    Returns
    -------
    first : ndarray of shape (n_distinct,) or None
        Index of the first sample of each distinct row, the rows in
        lexicographic order of their values.
    inverse : ndarray of shape (n_samples,) or None
        Position in ``first`` of the row of every sample.

    Notes
    -----
    Dense ``X`` is passed to ``numpy.unique(X, axis=0, return_index=True,
    return_inverse=True)``. Sparse ``X`` is never densified: rows are grouped
    by their canonical entries (sorted columns, no stored zeros) in one pass,
    and the groups are ordered as dense rows compare, column after column.
    For two rows, the first column where they differ decides; where only one
    of them stores a value :math:`v` there, the other holds 0, so that row
    is the larger one when :math:`v > 0`. Each row is read as the sequence of
    its entries :math:`(j, v)` followed by an end mark, each item keyed
    :math:`(0, j, v)` when :math:`v < 0`, :math:`(2, -j, v)` when
    :math:`v > 0` and :math:`(1, 0, 0)` for the end, and the sequences are
    sorted lexicographically: by :func:`numpy.lexsort` on the sequences
    padded to the longest (memory ``O(n_distinct * max_nnz_per_row)``, at
    most :data:`_PADDED_SORT_MAX` items), else by Python's sort of the
    sequences (memory ``O(nnz)`` objects).
    """
    if not sp.issparse(X):
        _, first, inverse = np.unique(
            X, axis=0, return_index=True, return_inverse=True
        )
        if max_rows is not None and first.size > max_rows:
            return None, None
        return first, inverse.ravel()
    X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    X.sum_duplicates()  # sorts the columns of every row, too
    X.eliminate_zeros()  # -0.0 too, as dense rows compare it equal to 0
    groups = {}
    group = np.empty(X.shape[0], dtype=np.intp)
    for i, (start, stop) in enumerate(zip(X.indptr[:-1], X.indptr[1:])):
        key = (X.indices[start:stop].tobytes(), X.data[start:stop].tobytes())
        group[i] = groups.setdefault(key, len(groups))
    if max_rows is not None and len(groups) > max_rows:
        return None, None
    # groups are numbered by their first sample
    _, representatives = np.unique(group, return_index=True)
    order = _lexicographic_order(X[representatives])
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    return representatives[order], rank[group]


#: Largest number of items (rows times the longest row) that
#: :func:`unique_rows` sorts padded with :func:`numpy.lexsort` (about 280 MB).
_PADDED_SORT_MAX = 1 << 24


def _lexicographic_order(X):
    """Order of the rows of the canonical CSR ``X`` by the lexicographic order
    of their dense values (see :func:`unique_rows`)."""
    n = X.shape[0]
    counts = np.diff(X.indptr)
    width = int(counts.max(initial=0)) + 1  # + the end mark
    if n * width > _PADDED_SORT_MAX:
        return np.array(sorted(range(n), key=lambda i: _row_key(X, i)),
                        dtype=np.intp)
    kind = np.ones((n, width), dtype=np.int8)
    column = np.zeros((n, width), dtype=np.int64)
    value = np.zeros((n, width))
    rows = np.repeat(np.arange(n), counts)
    place = np.arange(X.nnz) - np.repeat(X.indptr[:-1], counts)
    negative = X.data < 0
    kind[rows, place] = np.where(negative, 0, 2)
    column[rows, place] = np.where(negative, X.indices, -X.indices.astype(np.int64))
    value[rows, place] = X.data
    # np.lexsort sorts by its last key first
    keys = [k[:, j] for j in range(width - 1, -1, -1) for k in (value, column, kind)]
    return np.lexsort(keys)


def _row_key(X, i):
    """The sort key of row ``i`` of the canonical CSR ``X`` (see
    :func:`unique_rows`): its items, then the end mark."""
    start, stop = X.indptr[i], X.indptr[i + 1]
    return tuple((0, int(j), float(v)) if v < 0 else (2, -int(j), float(v))
                 for j, v in zip(X.indices[start:stop], X.data[start:stop])
                 ) + ((1, 0, 0.0),)


#: Largest number of float64 values one block of :func:`_exact_distances`
#: holds (64 MB).
_DISTANCE_BLOCK = 1 << 23


#: Sparse rows with at most this many features are subtracted as dense rows
#: by :func:`pair_distances`, so that their distances equal those of the
#: same rows given dense, to the bit; wider ones are summed sparse.
_DENSE_DIFFERENCES_MAX = 4096


def _exact_distances(X, indices):
    r"""Distances to the neighbours found, computed as
    :math:`\lVert x_i - x_j\rVert` from the differences (:func:`pair_distances`),
    each row sorted again (stably).

    The search's own distances depend on the method it picks: its
    brute-force search (more than 15 features, or sparse ``X``) computes
    :math:`\lVert x_i\rVert^2 + \lVert x_j\rVert^2 - 2 x_i^\top x_j`,
    whose rounding error is relative to the norms, not to the distance: two
    copies of one row can be 1e-7 apart, and a constant added to ``X``
    changes the distances. The local scale :math:`\sigma_i` is one of these
    distances, and a sample with ``t`` copies must get :math:`\sigma_i = 0`
    (then the floor of :func:`smiclust.kernels.local_scales`). Computed
    here for every search, the distances of the same rows are the same
    whether ``X`` is dense or sparse.
    """
    n, k = indices.shape
    distances = pair_distances(X, X, np.repeat(np.arange(n), k),
                               indices.ravel()).reshape(n, k)
    order = np.argsort(distances, axis=1, kind="stable")
    return (np.take_along_axis(distances, order, axis=1),
            np.take_along_axis(indices, order, axis=1))


def pair_distances(A, B, rows, cols):
    r""":math:`\lVert a_{r_k} - b_{c_k}\rVert` for every pair ``k``, computed
    from the differences (dense or CSR rows), in blocks of at most
    :data:`_DISTANCE_BLOCK` values: exact where the expansion
    :math:`\lVert a\rVert^2 + \lVert b\rVert^2 - 2 a^\top b` of a distance
    matrix is not (copies at distance 0, not 1e-7). ``O(len(rows) d)``."""
    rows = np.asarray(rows, dtype=np.intp)
    cols = np.asarray(cols, dtype=np.intp)
    out = np.empty(rows.size)
    step = max(1, _DISTANCE_BLOCK // max(1, A.shape[1]))
    for start in range(0, rows.size, step):
        r, c = rows[start:start + step], cols[start:start + step]
        diff = B[c] - A[r]
        if sp.issparse(diff) and A.shape[1] <= _DENSE_DIFFERENCES_MAX:
            diff = diff.toarray()  # summed as dense rows are, to the bit
        if sp.issparse(diff):
            squared = np.asarray(diff.multiply(diff).sum(axis=1)).ravel()
        else:
            squared = np.einsum("ij,ij->i", diff, diff)
        out[start:start + step] = np.sqrt(squared)
    return out


def _expand_rows(rows, first, inverse):
    """Sample graph from the graph of the distinct rows (see
    :func:`nearest_neighbors`, ``distinct_rows``)."""
    distances = rows.distances[inverse]
    indices = first[rows.indices[inverse]]
    n = inverse.size
    # the copy each sample of a repeated row takes first: the row's first
    # sample, and for that one the row's second
    order = np.argsort(inverse, kind="stable")
    starts = np.r_[0, np.flatnonzero(np.diff(inverse[order])) + 1]
    counts = np.diff(np.r_[starts, n])
    own = np.empty(n, dtype=np.intp)
    own[order] = order[starts[np.repeat(np.arange(counts.size), counts)]]
    repeated = np.flatnonzero(counts > 1)
    own[order[starts[repeated]]] = order[starts[repeated] + 1]
    has_copy = counts[inverse] > 1
    distances = np.where(
        has_copy[:, None],
        np.column_stack([np.zeros(n), distances[:, :-1]]),
        distances,
    )
    indices = np.where(
        has_copy[:, None], np.column_stack([own, indices[:, :-1]]), indices
    )
    return NeighborGraph(distances, indices, rows.algorithm)


def _exact_neighbors(X, n_neighbors, n_jobs):
    nn = NearestNeighbors(n_neighbors=n_neighbors, n_jobs=n_jobs).fit(
        _centred_for_search(X))
    # X=None: each sample's own entry is left out, duplicates are kept.
    distances, indices = nn.kneighbors()
    # every search's distances in one arithmetic: exact for copies, and
    # the same for the same rows whether X is dense or sparse
    distances, indices = _exact_distances(X, indices)
    return NeighborGraph(distances, indices, "exact")


def _centred_for_search(X):
    r"""``X``, or, where its rows sit far from the origin for their spread
    (dense ``X`` with :math:`\|\bar x\|^2 > ` :data:`OFFSET_SPREAD_RATIO`
    times the total variance), ``X`` with its column means taken off.

    Distances do not change under a translation, but scikit-learn's
    brute-force search ranks neighbours by
    :math:`\|x\|^2 + \|y\|^2 - 2x^\top y`, whose rounding error grows with
    :math:`\|x\|^2`: with an offset a million times the spread it picks
    wrong neighbours. The exact distances of the chosen ones are computed
    from ``X`` itself afterwards. Sparse ``X`` is left as it is (centring
    would fill it)."""
    if sp.issparse(X) or not X.size:
        return X
    # total variance as mean square minus squared mean, without a copy of X:
    # it cancels only where the offset dwarfs the spread, which centres
    # anyway (beyond float range, inf or nan: left as it is)
    with np.errstate(over="ignore", invalid="ignore"):
        mean = X.mean(axis=0)
        offset = float(mean @ mean)
        variance = float(np.einsum("ij,ij->", X, X)) / X.shape[0] - offset
    if offset > OFFSET_SPREAD_RATIO * variance:
        return X - mean
    return X


def _approximate_neighbors(X, n_neighbors, *, n_jobs=None, random_state=None):
    NNDescent = import_optional("pynndescent", "ann",
                                "algorithm='approximate'").NNDescent
    from sklearn.utils import check_random_state

    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    index = NNDescent(
        X,
        n_neighbors=n_neighbors + 1,
        random_state=seed,
        # None is one thread, as documented: pynndescent's graph for a seed
        # depends on its thread count, so every core would make the graph
        # depend on the machine.
        n_jobs=1 if n_jobs is None else n_jobs,
        low_memory=True,
        compressed=True,
    )
    indices, distances = index.neighbor_graph
    return _drop_self(np.asarray(indices), np.asarray(distances, dtype=np.float64))


def _drop_self(indices, distances):
    """Remove each row's own index; where it is absent, drop the farthest entry."""
    n, k = indices.shape
    is_self = indices == np.arange(n)[:, None]
    missing = ~is_self.any(axis=1)
    is_self[missing, k - 1] = True
    # keep only the first self entry per row
    first = np.argmax(is_self, axis=1)
    keep = np.ones_like(is_self)
    keep[np.arange(n), first] = False
    indices = indices[keep].reshape(n, k - 1)
    distances = distances[keep].reshape(n, k - 1)
    order = np.argsort(distances, axis=1, kind="stable")
    return (
        np.take_along_axis(distances, order, axis=1),
        np.take_along_axis(indices, order, axis=1),
    )
