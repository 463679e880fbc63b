"""Sparse local-scaling k-nearest-neighbour kernel of the 3SMIC experiments.

Pure functions on validated arrays. The neighbour search is done once, for the
largest number of neighbours that will be needed, and every kernel with a smaller
``n_neighbors`` is cut from that one search (:class:`NeighborGraph`).
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import pairwise_distances_chunked
from sklearn.neighbors import NearestNeighbors

__all__ = [
    "NeighborGraph",
    "APPROXIMATE_THRESHOLD",
    "nearest_neighbors",
    "local_scales",
    "local_scaling_kernel",
    "local_scaling_kernel_from_neighbors",
    "local_scaling_cross_kernel",
]

#: Above this many samples, ``algorithm="auto"`` uses approximate neighbours
#: (pynndescent) when it is installed; below it, the exact search is used.
APPROXIMATE_THRESHOLD = 50_000


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


def _resolve_algorithm(algorithm, n_samples):
    if algorithm != "auto":
        return algorithm
    if n_samples < APPROXIMATE_THRESHOLD:
        return "exact"
    try:
        import pynndescent  # noqa: F401
    except ImportError:
        return "exact"
    return "approximate"


def nearest_neighbors(
    X, n_neighbors, *, algorithm="auto", n_jobs=None, random_state=None
):
    """Search the ``n_neighbors`` nearest other samples of every sample.

    Prior validation of ``X`` (finite 2-d float array) and of ``n_neighbors``
    (``1 <= n_neighbors < n_samples``) is assumed.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Samples.
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

    Returns
    -------
    graph : NeighborGraph
        Memory ``O(n_samples * n_neighbors)``.
    """
    n_samples = X.shape[0]
    algorithm = _resolve_algorithm(algorithm, n_samples)
    if algorithm == "exact":
        nn = NearestNeighbors(n_neighbors=n_neighbors, n_jobs=n_jobs).fit(X)
        # X=None: each sample's own entry is left out, duplicates are kept.
        distances, indices = nn.kneighbors()
        return NeighborGraph(distances, indices, "exact")
    if algorithm == "approximate":
        distances, indices = _approximate_neighbors(
            X, n_neighbors, n_jobs=n_jobs, random_state=random_state
        )
        return NeighborGraph(distances, indices, "approximate")
    raise ValueError(
        "The 'algorithm' parameter of nearest_neighbors must be a str among "
        f"{{'auto', 'exact', 'approximate'}}. Got {algorithm!r} instead."
    )


def _approximate_neighbors(X, n_neighbors, *, n_jobs=None, random_state=None):
    try:
        from pynndescent import NNDescent
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "algorithm='approximate' needs pynndescent: pip install 'smiclust[ann]'"
        ) from exc
    from sklearn.utils import check_random_state

    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    index = NNDescent(
        X,
        n_neighbors=n_neighbors + 1,
        random_state=seed,
        n_jobs=-1 if n_jobs is None else n_jobs,
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


def local_scales(graph, n_neighbors):
    """Local scale ``sigma_i``: distance to the ``t``-th nearest other sample.

    Zero scales (a sample with ``t`` or more exact duplicates) are raised to the
    smallest positive scale of the data set; if every scale is zero (all samples
    identical), every scale is 1. The rule keeps every kernel value finite and is
    invariant to a global scaling of ``X``.

    Parameters
    ----------
    graph : NeighborGraph
        Neighbours with at least ``n_neighbors`` columns.
    n_neighbors : int
        The kernel parameter ``t``.

    Returns
    -------
    sigma : ndarray of shape (n_samples,)
        Positive local scales.
    """
    sigma = graph.distances[:, n_neighbors - 1].astype(np.float64, copy=True)
    return _floor_scales(sigma)


def _floor_scales(sigma):
    positive = sigma[sigma > 0]
    floor = positive.min() if positive.size else 1.0
    if positive.size == 0:
        return np.ones_like(sigma)
    return np.maximum(sigma, floor)


def local_scaling_kernel_from_neighbors(graph, n_neighbors):
    r"""Sparse local-scaling kernel for ``t = n_neighbors`` from a neighbour graph.

    .. math::

        K_{ij} = \exp\left(-\frac{\|x_i - x_j\|^2}{2\sigma_i\sigma_j}\right)
        \quad\text{if } x_i \in N_t(x_j) \text{ or } x_j \in N_t(x_i),
        \qquad K_{ij} = 0 \text{ otherwise},

    with :math:`N_t(x)` the ``t`` nearest other samples of ``x`` and
    :math:`\sigma_i` the distance from :math:`x_i` to its ``t``-th nearest other
    sample (see :func:`local_scales` for zero distances). The diagonal is 1
    (a sample is at distance 0 from itself), so every value lies in [0, 1].

    Parameters
    ----------
    graph : NeighborGraph
        Neighbours with at least ``n_neighbors`` columns.
    n_neighbors : int
        The kernel parameter ``t``, ``1 <= t <= graph.max_neighbors``.

    Returns
    -------
    K : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, at most ``n_samples * (2 t + 1)`` stored entries.
    """
    t = int(n_neighbors)
    n = graph.n_samples
    sigma = local_scales(graph, t)
    dist = graph.distances[:, :t]
    cols = graph.indices[:, :t].ravel()
    rows = np.repeat(np.arange(n), t)
    values = np.exp(-(dist.ravel() ** 2) / (2.0 * sigma[rows] * sigma[cols]))
    A = sp.csr_matrix((values, (rows, cols)), shape=(n, n))
    K = A.maximum(A.T) + sp.identity(n, format="csr")
    K.sort_indices()
    return K.tocsr()


def local_scaling_kernel(
    X, n_neighbors, *, algorithm="auto", n_jobs=None, random_state=None
):
    """Sparse local-scaling kNN kernel of the 3SMIC experiments.

    See :func:`local_scaling_kernel_from_neighbors` for the formula.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Samples; must be finite.
    n_neighbors : int
        The kernel parameter ``t``, ``1 <= t < n_samples``.
    algorithm : {"auto", "exact", "approximate"}, default="auto"
        Neighbour search, see :func:`nearest_neighbors`.
    n_jobs : int, default=None
        Parallel jobs of the neighbour search.
    random_state : int, RandomState instance or None, default=None
        Seed of the approximate search.

    Returns
    -------
    K : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, values in [0, 1], unit diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> from smiclust import local_scaling_kernel
    >>> X = np.array([[0.0], [1.0], [2.0], [10.0]])
    >>> K = local_scaling_kernel(X, n_neighbors=1)
    >>> K.toarray().round(3)
    array([[1.   , 0.607, 0.   , 0.   ],
           [0.607, 1.   , 0.607, 0.   ],
           [0.   , 0.607, 1.   , 0.018],
           [0.   , 0.   , 0.018, 1.   ]])
    """
    from .utils._checks import check_n_neighbors, check_samples, unit_exponent

    X = check_samples(X, owner="local_scaling_kernel", min_samples=2)
    t = check_n_neighbors(n_neighbors, X.shape[0], owner="local_scaling_kernel")
    exponent = unit_exponent(X)
    if exponent:  # the kernel is scale-invariant; avoid overflow / underflow
        X = np.ldexp(X, -exponent)
    graph = nearest_neighbors(
        X, t, algorithm=algorithm, n_jobs=n_jobs, random_state=random_state
    )
    return local_scaling_kernel_from_neighbors(graph, t)


def local_scaling_cross_kernel(
    X_new, X_fit, sigma_fit, n_neighbors, *, working_memory=None
):
    r"""Local-scaling kernel between new samples and the fitted samples.

    A new sample :math:`x'` is treated as if it were added to the fitted set:
    :math:`\sigma'` is its distance to its ``t``-th nearest fitted sample, and
    :math:`K(x', x_i) = \exp(-\|x'-x_i\|^2 / (2\sigma'\sigma_i))` when
    :math:`x_i` is among the ``t`` nearest fitted samples of :math:`x'` or
    :math:`x'` would be among the ``t`` nearest of :math:`x_i`, i.e.
    :math:`\|x'-x_i\| \le \sigma_i`. Exact; distances are computed in chunks, so
    memory stays bounded by ``working_memory`` (MiB, scikit-learn's setting by
    default). A new sample too far away for its distances to be represented
    (overflow) gets an empty row, the limit of the kernel at infinity.

    Prior validation is assumed: ``sigma_fit`` are the fitted (floored) scales.

    Returns
    -------
    K : scipy.sparse.csr_matrix of shape (n_new, n_fit)
    """
    t = int(n_neighbors)
    floor = sigma_fit.min()

    def reduce(D, start):
        part = np.partition(D, t - 1, axis=1)[:, t - 1]
        sigma_new = np.maximum(part, floor)
        mask = (D <= part[:, None]) | (D <= sigma_fit[None, :])
        mask &= np.isfinite(part)[:, None]  # overflowed distances: too far
        rows, cols = np.nonzero(mask)
        with np.errstate(over="ignore"):  # exp(-inf) = 0 is the right limit
            values = np.exp(
                -(D[rows, cols] ** 2) / (2.0 * sigma_new[rows] * sigma_fit[cols])
            )
        return sp.csr_matrix((values, (rows, cols)), shape=D.shape)

    blocks = list(
        pairwise_distances_chunked(
            X_new, X_fit, reduce_func=reduce, working_memory=working_memory
        )
    )
    return sp.vstack(blocks, format="csr")
