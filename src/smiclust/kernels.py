"""Sparse local-scaling k-nearest-neighbour kernel and its link modification.

Pure functions on validated arrays. Every kernel is cut from one neighbour
search (:class:`smiclust.neighbors.NeighborGraph`) done for the largest number
of neighbours needed; :func:`modified_kernel` gives the kernel :math:`K'` of
3SMIC, with must-linked entries set to 1 and cannot-linked entries to 0;
:func:`degree_normalized_kernel` is the same kernel degree-normalised (the
kernel of normalised spectral clustering), chosen by ``kernel_from_neighbors``.
"""

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.metrics import pairwise_distances_chunked
from sklearn.utils.extmath import row_norms

from .constraints import link_matrix
from .neighbors import nearest_neighbors, pair_distances

__all__ = [
    "local_scales",
    "local_scaling_kernel",
    "local_scaling_kernel_from_neighbors",
    "local_scaling_cross_kernel",
    "degree_normalized_kernel",
    "degree_normalized_cross_kernel",
    "kernel_from_neighbors",
    "KERNELS",
    "modified_kernel",
]

#: The kernels of a fit: the paper's local-scaling kernel, and the same kernel
#: degree-normalised (:func:`degree_normalized_kernel`).
KERNELS = ("local-scaling", "normalized")

#: The cross kernel holds a chunk of distances, its partitioned copy and three
#: boolean masks of it at once (about 2.4 chunks), so a chunk gets a third of
#: the working memory.
_CHUNK_COPIES = 3


def local_scales(graph, n_neighbors):
    """Local scale ``sigma_i``: distance to the ``t``-th nearest other sample.

    Zero scales (a sample with ``t`` or more exact duplicates) are raised to the
    smallest positive scale of the data set; if every scale is zero (all samples
    identical), every scale is 1. The rule keeps every kernel value finite and is
    invariant to a global scaling of ``X``.

    Parameters
    ----------
    graph : smiclust.neighbors.NeighborGraph
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
    Where several samples tie at the ``t``-th distance (integer features,
    copies of one row), :math:`N_t` holds the ``t`` that the neighbour search
    returns first, an order of the search's own (a permutation of the rows
    can change which): the scales do not depend on that cut, the kernel's
    entries at the tie can.

    Parameters
    ----------
    graph : smiclust.neighbors.NeighborGraph
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
        Neighbour search, see :func:`smiclust.neighbors.nearest_neighbors`.
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
    from .utils import (
        Options,
        check_random_state_param,
        n_jobs_param,
        validate_params,
    )
    from .utils._checks import (
        at_unit_scale,
        check_n_neighbors,
        check_samples,
        unit_exponent,
    )

    validate_params(
        {"algorithm": algorithm, "n_jobs": n_jobs, "random_state": random_state},
        {
            "algorithm": [Options({"auto", "exact", "approximate"})],
            "n_jobs": n_jobs_param(),
            "random_state": check_random_state_param(),
        },
        "local_scaling_kernel",
    )
    X = check_samples(X, owner="local_scaling_kernel", min_samples=2)
    t = check_n_neighbors(n_neighbors, X.shape[0], owner="local_scaling_kernel")
    # the kernel is scale-invariant; avoid overflow / underflow
    X = at_unit_scale(X, unit_exponent(X))
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
    :math:`\|x'-x_i\| \le \sigma_i`. Exact: the distances near the
    selection are computed from the differences (as the fit's,
    :func:`smiclust.neighbors.pair_distances`), so copies are at distance 0;
    distances are computed in chunks, so
    memory stays bounded by ``working_memory`` (MiB, scikit-learn's setting by
    default): a chunk of distances takes a third of it, because the
    selection of a chunk's entries needs up to twice the chunk again. A new
    sample too far away for its distances to be represented (overflow) gets an
    empty row, the limit of the kernel at infinity. A new sample with ``t``
    exact copies among the fitted samples has :math:`\sigma' = 0`, which is
    raised to the smallest fitted scale, as :func:`local_scales` raises the
    fitted ones.

    Prior validation is assumed: ``sigma_fit`` are the fitted (floored) scales.

    Returns
    -------
    K : scipy.sparse.csr_matrix of shape (n_new, n_fit)
    """
    t = int(n_neighbors)
    floor = sigma_fit.min()
    # pairwise_distances expands ||x||^2 + ||y||^2 - 2 x.y, whose error grows
    # with the norms and the number of features (copies come out 1e-7
    # apart): every entry within this bound of the selection is computed
    # again from the differences, so the kernel is the one of the exact
    # distances, as the fit's is. The bound of a pair is
    # sqrt(4 eps (d + 2) (||x||^2 + ||y||^2)) <= s(x) + s(y), with
    # s(x) = sqrt(4 eps (d + 2) ||x||^2): a pair's own norms, so that one far
    # row (an outlier, a missing-value code such as 9.99e9) widens the
    # bounds of its own pairs only, not those of every pair. The t-th
    # distance itself is off by at most the bound of one of the t pairs
    # nearest in the expansion, whose largest s(y) each row adds
    unit = 4.0 * np.finfo(np.float64).eps * (X_fit.shape[1] + 2)
    slack_new = np.sqrt(unit * row_norms(X_new, squared=True))
    slack_fit = np.sqrt(unit * row_norms(X_fit, squared=True))

    def reduce(D, start):
        n_rows = D.shape[0]
        nearest = np.argpartition(D, t - 1, axis=1)[:, :t]
        rough = np.take_along_axis(D, nearest[:, t - 1:], axis=1)[:, 0]
        margin = slack_new[start:start + n_rows]
        reach = rough + 2.0 * margin + slack_fit[nearest].max(axis=1)
        D -= slack_fit[None, :]  # in place: D_ij - s(y_j), then minus sigma_j
        candidate = D <= reach[:, None]
        D -= sigma_fit[None, :]
        candidate |= D <= margin[:, None]
        candidate &= np.isfinite(rough)[:, None]  # overflowed: too far
        rows, cols = np.nonzero(candidate)  # row-major: grouped by row
        exact = pair_distances(X_new, X_fit, rows + start, cols)
        # sigma' = the t-th smallest exact distance of each row (its t
        # nearest are among the candidates); 0 (a new sample on t fitted
        # copies) is raised as the fitted scales are (local_scales)
        order = np.lexsort((exact, rows))
        first = np.searchsorted(rows[order], np.arange(n_rows))
        has = np.isfinite(rough)
        part = np.full(n_rows, np.inf)
        part[has] = exact[order[first[has] + t - 1]]
        sigma_new = np.where(part > 0, part, floor)
        keep = (exact <= part[rows]) | (exact <= sigma_fit[cols])
        rows, cols, exact = rows[keep], cols[keep], exact[keep]
        with np.errstate(over="ignore"):  # exp(-inf) = 0 is the right limit
            values = np.exp(-(exact**2) / (2.0 * sigma_new[rows] * sigma_fit[cols]))
        return sp.csr_matrix((values, (rows, cols)), shape=D.shape)

    # Distances of far new samples overflow to inf (or inf - inf = nan in the
    # expansion); reduce() treats both as "too far", the kernel's limit.
    if working_memory is None:
        working_memory = get_config()["working_memory"]
    with np.errstate(over="ignore", invalid="ignore"):
        blocks = list(
            pairwise_distances_chunked(
                X_new, X_fit, reduce_func=reduce,
                working_memory=working_memory / _CHUNK_COPIES,
            )
        )
    return sp.vstack(blocks, format="csr")


def degree_normalized_kernel(K):
    r"""The kernel of normalised spectral clustering, and the degrees.

    .. math::

        K_{\mathrm{n}} = \bar d\, D^{-1/2} K D^{-1/2}, \qquad
        D = \mathrm{diag}(K\mathbf 1),

    the degrees counting the diagonal and :math:`\bar d` their median. Its
    leading eigenvectors are those of the normalised affinity (Ng, Jordan &
    Weiss, 2002): they do not crowd into the densest region of the data,
    which the unnormalised kernel's do when one cluster is much denser than
    another (for example a class of near-copies of one row). The factor
    :math:`\bar d` keeps the entries on the scale of ``K``'s, so that the
    kernel modification of the links (entries set to 1 or 0) weighs as much
    on either kernel.

    Parameters
    ----------
    K : scipy.sparse matrix of shape (n_samples, n_samples)
        Symmetric non-negative kernel with positive row sums (every kernel of
        :func:`local_scaling_kernel_from_neighbors` has a unit diagonal).

    Returns
    -------
    K_normalized : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Same sparsity as ``K``.
    degrees : ndarray of shape (n_samples,)
        The row sums of ``K``; :func:`degree_normalized_cross_kernel` needs
        them.
    """
    K = sp.csr_matrix(K)
    degrees = np.asarray(K.sum(axis=1), dtype=np.float64).ravel()
    inv_sqrt = 1.0 / np.sqrt(degrees)
    rows = np.repeat(np.arange(K.shape[0]), np.diff(K.indptr))
    # (s_i s_j) K_ij: the product of the two scales is the same for (i, j) and
    # (j, i), so the result is exactly symmetric
    values = np.median(degrees) * ((inv_sqrt[rows] * inv_sqrt[K.indices]) * K.data)
    K_normalized = sp.csr_matrix((values, K.indices.copy(), K.indptr.copy()),
                                 shape=K.shape)
    K_normalized.sort_indices()
    return K_normalized, degrees


def degree_normalized_cross_kernel(K_cross, degrees):
    r"""A cross kernel normalised as :func:`degree_normalized_kernel` does.

    :math:`K_{\mathrm{n}}(x', x_i) = \bar d\, K(x', x_i) / \sqrt{d' d_i}`
    with :math:`d'` the row sum of the new sample, :math:`d_i` the fitted
    degrees and :math:`\bar d` their median. A new sample with an empty row
    (far from every fitted sample) keeps its empty row.

    Parameters
    ----------
    K_cross : scipy.sparse matrix of shape (n_new, n_fit)
    degrees : ndarray of shape (n_fit,)
        Degrees returned by :func:`degree_normalized_kernel` at fit.

    Returns
    -------
    K_normalized : scipy.sparse.csr_matrix of shape (n_new, n_fit)
    """
    row_sums = np.asarray(K_cross.sum(axis=1), dtype=np.float64).ravel()
    inv_rows = np.zeros_like(row_sums)
    inv_rows[row_sums > 0] = 1.0 / np.sqrt(row_sums[row_sums > 0])
    K_normalized = sp.diags(inv_rows) @ K_cross @ sp.diags(1.0 / np.sqrt(degrees))
    return (np.median(degrees) * K_normalized).tocsr()


def kernel_from_neighbors(graph, n_neighbors, kernel="local-scaling"):
    """The kernel ``kernel`` (one of :data:`KERNELS`) for ``t = n_neighbors``:
    :func:`local_scaling_kernel_from_neighbors`, degree-normalised by
    :func:`degree_normalized_kernel` when ``kernel="normalized"``.

    Returns
    -------
    K : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    """
    K = local_scaling_kernel_from_neighbors(graph, n_neighbors)
    if kernel == "normalized":
        return degree_normalized_kernel(K)[0]
    if kernel != "local-scaling":
        raise ValueError(f"kernel must be one of {KERNELS}; got {kernel!r}.")
    return K


def modified_kernel(K, must_link, cannot_link, must_weight=None, cannot_weight=None):
    r"""Kernel modification :math:`K'`: must-linked entries 1, cannot-linked 0.

    With link weights :math:`w \ge 0` (confidence), an entry moves that far
    towards its target, capped at the whole way:
    :math:`K'_{ij} = K_{ij} + \min(w, 1)(1 - K_{ij})` for a must-link and
    :math:`K'_{ij} = (1 - \min(w, 1))K_{ij}` for a cannot-link; weight 1 (the
    default) is the paper's modification.

    Parameters
    ----------
    K : sparse matrix of shape (n, n)
        Symmetric kernel with values in [0, 1].
    must_link, cannot_link : ndarray of shape (n_pairs, 2)
        Validated pairs.
    must_weight, cannot_weight : ndarray of shape (n_pairs,), default=None
        Validated link weights; ``None`` means 1 each.

    Returns
    -------
    K_mod : scipy.sparse.csr_matrix of shape (n, n)
        A new matrix; ``K`` is not modified.
    """
    n = K.shape[0]
    K_mod = sp.csr_matrix(K, dtype=np.float64, copy=True)
    if len(cannot_link):
        C = link_matrix(cannot_link, n, _capped(cannot_weight))
        K_mod = K_mod - K_mod.multiply(C)
    if len(must_link):
        Mo = link_matrix(must_link, n, _capped(must_weight))
        K_mod = K_mod - K_mod.multiply(Mo) + Mo
    K_mod = sp.csr_matrix(K_mod)
    K_mod.eliminate_zeros()
    K_mod.sort_indices()
    return K_mod


def _capped(weights):
    return None if weights is None else np.minimum(weights, 1.0)
