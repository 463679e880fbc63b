r"""Eigendecomposition core of SMIC / 3SMIC. Prior validation of inputs is assumed.

3SMIC maximises

.. math::

    \widetilde{\mathrm{SMI}} = \frac{c}{2n}\sum_{y=1}^{c}\alpha_y^\top U\alpha_y
    - \frac12,\qquad
    U = K'\left(2I + 2\gamma M + \gamma^2 M^2 - 2\eta C + \eta^2 C^2\right)K'
      = K'\,B\,K',\quad B = (I + \gamma M)^2 + (I - \eta C)^2,

under orthonormal :math:`\alpha_y`; the maximiser is the ``c`` leading
eigenvectors of the positive semi-definite :math:`U`. :math:`M` is the must-link
matrix with unit diagonal, :math:`C` the cannot-link matrix with zero diagonal and
:math:`K'` the kernel with must-linked entries set to 1 and cannot-linked entries
set to 0. Without links, :math:`U = 2K^2`, whose leading eigenvectors are those of
the SMIC kernel :math:`K` (by eigenvalue magnitude).

:math:`U` is never formed: :class:`SMICOperator` applies it to vectors with two
sparse products by :math:`K'` and four by the link matrices.
"""

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh, lobpcg
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .constraints import link_matrix
from .utils._threads import single_threaded_blas

__all__ = [
    "modified_kernel",
    "SMICOperator",
    "leading_eigenvectors",
    "fix_signs",
    "SMICSolution",
    "solve_smic",
    "dense_smic_matrix",
    "cluster_scores",
]

#: Inputs with at most this many samples are solved densely (ARPACK needs
#: ``k < n`` and is unreliable on tiny problems); ``n_samples <= 3 * n_clusters``
#: is solved densely as well.
DENSE_MAX_SAMPLES = 20


def modified_kernel(K, must_link, cannot_link):
    """Kernel modification :math:`K'`: must-linked entries 1, cannot-linked 0.

    Parameters
    ----------
    K : sparse matrix of shape (n, n)
        Symmetric kernel with values in [0, 1].
    must_link, cannot_link : ndarray of shape (n_pairs, 2)
        Validated pairs.

    Returns
    -------
    K_mod : scipy.sparse.csr_matrix of shape (n, n)
        A new matrix; ``K`` is not modified.
    """
    n = K.shape[0]
    K_mod = sp.csr_matrix(K, dtype=np.float64, copy=True)
    if len(cannot_link):
        C = link_matrix(cannot_link, n)
        K_mod = K_mod - K_mod.multiply(C)
    if len(must_link):
        Mo = link_matrix(must_link, n)
        K_mod = K_mod - K_mod.multiply(Mo) + Mo
    K_mod = sp.csr_matrix(K_mod)
    K_mod.eliminate_zeros()
    K_mod.sort_indices()
    return K_mod


class SMICOperator(LinearOperator):
    r"""Matrix-free :math:`U = K' B K'` with :math:`B=(I+\gamma M)^2+(I-\eta C)^2`.

    Parameters
    ----------
    K_mod : sparse matrix of shape (n, n)
        The modified kernel :math:`K'`.
    must_matrix, cannot_matrix : sparse matrix of shape (n, n)
        Off-diagonal 0/1 link matrices (:func:`smiclust.constraints.link_matrix`);
        the unit diagonal of :math:`M` is added implicitly.
    gamma, eta : float
        Link weights, both ``>= 0``.
    """

    def __init__(self, K_mod, must_matrix, cannot_matrix, gamma, eta):
        n = K_mod.shape[0]
        super().__init__(dtype=np.float64, shape=(n, n))
        self.K_mod = K_mod
        self.must_matrix = must_matrix
        self.cannot_matrix = cannot_matrix
        self.gamma = float(gamma)
        self.eta = float(eta)
        #: number of vectors U has been applied to (a block of k counts k)
        self.n_applied = 0

    def apply_middle(self, W):
        """Return :math:`B W` for a vector or block ``W``."""
        g, e = self.gamma, self.eta
        A = (1.0 + g) * W
        if g and self.must_matrix.nnz:
            A = A + g * (self.must_matrix @ W)
        Z = (1.0 + g) * A
        if g and self.must_matrix.nnz:
            Z = Z + g * (self.must_matrix @ A)
        if e and self.cannot_matrix.nnz:
            Bc = W - e * (self.cannot_matrix @ W)
            Z = Z + Bc - e * (self.cannot_matrix @ Bc)
        else:
            Z = Z + W
        return Z

    def _matvec(self, v):
        self.n_applied += 1
        return self.K_mod @ self.apply_middle(self.K_mod @ v)

    def _matmat(self, V):
        self.n_applied += V.shape[1]
        return self.K_mod @ self.apply_middle(self.K_mod @ V)

    def _adjoint(self):
        return self


def dense_smic_matrix(K_mod, must_link, cannot_link, gamma, eta):
    """Dense :math:`U` formed term by term from the paper's formula.

    A reference for tests and benchmarks only: ``O(n^2)`` memory.
    """
    n = K_mod.shape[0]
    Kd = K_mod.toarray() if sp.issparse(K_mod) else np.asarray(K_mod)
    M = np.eye(n)
    for i, j in np.asarray(must_link).reshape(-1, 2):
        M[i, j] = M[j, i] = 1.0
    C = np.zeros((n, n))
    for i, j in np.asarray(cannot_link).reshape(-1, 2):
        C[i, j] = C[j, i] = 1.0
    middle = (
        2 * np.eye(n) + 2 * gamma * M + gamma**2 * M @ M - 2 * eta * C + eta**2 * C @ C
    )
    return Kd @ middle @ Kd


def leading_eigenvectors(
    operator,
    n_components,
    *,
    eigen_solver="auto",
    random_state=None,
    tol=0.0,
    max_iter=None,
    warm_start=None,
):
    """Leading eigenpairs of a symmetric positive semi-definite operator.

    Parameters
    ----------
    operator : LinearOperator or sparse matrix of shape (n, n)
    n_components : int
        Number of eigenpairs ``k``.
    eigen_solver : {"auto", "arpack", "lobpcg", "dense"}, default="auto"
        ``"auto"`` is ARPACK, or the dense solver when
        ``n <= max(DENSE_MAX_SAMPLES, 3 k)``. ``"dense"`` forms the matrix
        (reference only). If ARPACK does not converge within ``max_iter``, a
        :class:`~sklearn.exceptions.ConvergenceWarning` is issued and LOBPCG is
        run from ARPACK's partial result; if that does not converge either, its
        result is returned with a second warning. Every solver is bounded.
    random_state : int, RandomState instance or None, default=None
        Draws the ARPACK start vector (uniform in [-1, 1], as scikit-learn's
        spectral embedding does) and the rest of LOBPCG's start block.
    tol : float, default=0.0
        Relative accuracy; 0 means machine precision for ARPACK and
        ``n * sqrt(eps)`` for LOBPCG.
    max_iter : int, default=None
        ARPACK restarts (``None``: ``10 n``) and LOBPCG iterations (``None``: 500).
    warm_start : ndarray of shape (n, k), default=None
        Eigenvectors of a nearby problem (e.g. the previous candidate of a
        parameter search). ARPACK starts from their sum plus the random start
        vector scaled by 1e-3; LOBPCG from the block itself.

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
        Descending.
    eigenvectors : ndarray of shape (n, k)
        Orthonormal columns.
    """
    n = operator.shape[0]
    k = int(n_components)
    rng = check_random_state(random_state)
    v0 = rng.uniform(-1.0, 1.0, size=n)
    if warm_start is not None:
        v0 = warm_start.sum(axis=1) + 1e-3 * v0 / np.sqrt(n)
    solver = eigen_solver
    if solver == "auto":
        solver = "dense" if n <= max(DENSE_MAX_SAMPLES, 3 * k) else "arpack"
    if solver == "dense":
        return _dense_eigh(operator, k)
    # The iterations are small dense operations on n x ncv blocks between
    # sparse products: BLAS threads only add hand-offs (see SingleThreadedBLAS).
    with single_threaded_blas():
        return _iterative_eigenpairs(
            operator, k, solver, rng, v0, tol, max_iter, warm_start
        )


def _iterative_eigenpairs(operator, k, solver, rng, v0, tol, max_iter, warm_start):
    """ARPACK (LOBPCG fallback) or LOBPCG; see :func:`leading_eigenvectors`."""
    if solver == "arpack":
        try:
            vals, vecs = eigsh(
                operator, k=k, which="LA", v0=v0, tol=tol, maxiter=max_iter
            )
        except ArpackNoConvergence as err:
            warnings.warn(
                f"ARPACK did not converge for the {k} leading eigenvectors "
                f"({len(err.eigenvalues)} converged); falling back to LOBPCG.",
                ConvergenceWarning,
                stacklevel=3,
            )
            X0 = _start_block(rng, v0, k, err.eigenvectors)
            return _lobpcg(operator, X0, tol, max_iter)
        return _descending(vals, vecs)
    if solver == "lobpcg":
        return _lobpcg(operator, _start_block(rng, v0, k, warm_start), tol, max_iter)
    raise ValueError(
        "The 'eigen_solver' parameter must be a str among "
        f"{{'auto', 'arpack', 'lobpcg', 'dense'}}. Got {solver!r} instead."
    )


def _dense_eigh(operator, k):
    n = operator.shape[0]
    if isinstance(operator, LinearOperator):
        A = operator @ np.eye(n)
    elif sp.issparse(operator):
        A = operator.toarray()
    else:
        A = np.asarray(operator)
    A = 0.5 * (A + A.T)
    vals, vecs = np.linalg.eigh(A)
    return vals[::-1][:k].copy(), vecs[:, ::-1][:, :k].copy()


def _start_block(rng, v0, k, partial):
    X0 = rng.standard_normal((v0.shape[0], k))
    X0[:, 0] = v0
    if partial is not None and partial.size:
        m = min(partial.shape[1], k)
        X0[:, :m] = np.real(partial[:, :m])
    return X0


def _lobpcg(operator, X0, tol, max_iter):
    n, k = X0.shape
    tol_ = None if not tol else tol
    maxiter = 500 if max_iter is None else int(max_iter)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vals, vecs = lobpcg(operator, X0, largest=True, tol=tol_, maxiter=maxiter)
    if any(
        "not reaching the requested tolerance" in str(w.message)
        or "did not converge" in str(w.message)
        for w in caught
    ):
        warnings.warn(
            f"LOBPCG did not reach the requested tolerance in {maxiter} iterations; "
            "returning its current estimate of the leading eigenvectors.",
            ConvergenceWarning,
            stacklevel=4,
        )
    vecs, _ = np.linalg.qr(vecs)
    vals = np.einsum("ij,ij->j", vecs, operator @ vecs)
    return _descending(vals, vecs)


def _descending(vals, vecs):
    order = np.argsort(-vals, kind="stable")
    return np.asarray(vals)[order], np.asarray(vecs)[:, order]


def fix_signs(vectors):
    r"""Sign rule of SMIC: :math:`\tilde\phi_y = \phi_y\,\mathrm{sign}(\phi_y^\top 1)`.

    A vector whose entries sum to (numerically) zero gets the sign that makes its
    largest-magnitude entry positive, so the rule is deterministic.

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
        peak = V[np.argmax(np.abs(V), axis=0), np.arange(V.shape[1])]
        signs[tiny] = np.sign(peak[tiny])
    signs[signs == 0] = 1.0
    return V * signs


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


@dataclass(frozen=True)
class SMICSolution:
    """Result of :func:`solve_smic`.

    Attributes
    ----------
    labels : ndarray of shape (n,)
        Cluster of each sample, ``0 .. n_clusters - 1``; clusters that win
        samples are numbered first (in eigenvalue order), empty ones last.
    eigenvalues : ndarray of shape (c,)
        Eigenvalue of :math:`U` behind each cluster.
    eigenvectors : ndarray of shape (n, c)
        Sign-fixed eigenvectors :math:`\\tilde\\phi_y`, one column per cluster.
    dual_coef : ndarray of shape (n, c)
        :math:`\\beta_y = B K' \\tilde\\phi_y / \\lambda_y`, so that
        :math:`K'\\beta_y = \\tilde\\phi_y`; out-of-sample responses are
        :math:`k(x')^\\top\\beta_y`.
    normalizer : ndarray of shape (c,)
        :math:`\\sum_i \\max(0, [\\tilde\\phi_y]_i)`.
    n_operator_applications : int
        How many vectors the eigen-solver multiplied by :math:`U`.
    """

    labels: np.ndarray
    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    dual_coef: np.ndarray
    normalizer: np.ndarray
    n_operator_applications: int = 0


def solve_smic(
    K,
    must_link,
    cannot_link,
    n_clusters,
    gamma,
    eta,
    *,
    eigen_solver="auto",
    random_state=None,
    tol=0.0,
    max_iter=None,
    K_mod=None,
    warm_start=None,
):
    """Solve SMIC (no links) or 3SMIC for fixed parameters.

    ``warm_start`` is passed to :func:`leading_eigenvectors`.

    Prior validation is assumed: ``K`` symmetric sparse with values in [0, 1],
    links canonical and consistent, ``gamma, eta >= 0`` (``eta`` is used as given;
    the caller fixes it at 0 when ``n_clusters > 2``).

    Returns
    -------
    solution : SMICSolution
    """
    n = K.shape[0]
    if K_mod is None:
        K_mod = modified_kernel(K, must_link, cannot_link)
    op = SMICOperator(
        K_mod, link_matrix(must_link, n), link_matrix(cannot_link, n), gamma, eta
    )
    vals, vecs = leading_eigenvectors(
        op,
        n_clusters,
        eigen_solver=eigen_solver,
        random_state=random_state,
        tol=tol,
        max_iter=max_iter,
        warm_start=warm_start,
    )
    signed = fix_signs(vecs)
    signed[_uncovered_rows(op, signed)] = 0.0
    # beta_y = B K' phi_y / lambda_y; tiny eigenvalues (rank-deficient U) get beta 0
    middle = op.apply_middle(K_mod @ signed)
    lam_max = max(float(vals.max()), np.finfo(float).tiny)
    keep = vals > 1e-12 * lam_max
    dual = np.zeros_like(signed)
    dual[:, keep] = middle[:, keep] / vals[keep]
    scores, normalizer = cluster_scores(signed)
    labels = _argmax_labels(signed, normalizer)
    order = _cluster_order(labels, n_clusters)
    rank = np.empty_like(order)
    rank[order] = np.arange(n_clusters)
    return SMICSolution(
        labels=rank[labels],
        eigenvalues=vals[order],
        eigenvectors=signed[:, order],
        dual_coef=dual[:, order],
        normalizer=normalizer[order],
        n_operator_applications=max(op.n_applied, 1),
    )


#: A graph component whose squared mass is at most this in every eigenvector
#: (unit norm) is not covered by them: its entries are round-off.
_UNCOVERED_MASS = 1e-12


def _uncovered_rows(op, vectors):
    r"""Rows whose eigenvector entries are round-off, as a boolean mask.

    :math:`U` couples samples only within the connected components of the graph
    of :math:`K'` (plus the cannot-links when :math:`\eta > 0`), so each
    eigenvector lives on the components whose block it belongs to; in exact
    arithmetic the other components' entries are 0. Those entries are set to 0
    (they were round-off, and labels read from them changed with a rescaling of
    ``X``); the paper's rule then gives those samples the first cluster, as it
    does for exact zeros.
    """
    graph = op.K_mod
    if op.eta and op.cannot_matrix.nnz:
        graph = graph + op.cannot_matrix
    n_components, component = connected_components(graph, directed=False)
    if n_components == 1:
        return np.zeros(vectors.shape[0], dtype=bool)
    mass = np.column_stack([
        np.bincount(component, weights=column**2, minlength=n_components)
        for column in vectors.T
    ])
    return (mass.max(axis=1) <= _UNCOVERED_MASS)[component]


def _argmax_labels(signed, normalizer):
    """Argmax of the normalised scores; equals the paper's rule wherever some
    score is positive, and stays defined where all are clipped to zero."""
    safe = np.where(normalizer > 0, normalizer, 1.0)
    return np.argmax(signed / safe, axis=1)


def _cluster_order(labels, n_clusters):
    counts = np.bincount(labels, minlength=n_clusters)
    return np.argsort(counts == 0, kind="stable")
