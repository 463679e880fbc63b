r"""Constrained spectral clustering (Wang & Davidson, KDD 2010; K-way: Wang, Qian &
Davidson, DMKD 2014): numerics and estimator.

With the affinity :math:`A` (sparse local-scaling kernel), :math:`D` its degree
matrix, :math:`\mathrm{vol} = \sum_i D_{ii}`, the normalised Laplacian
:math:`\bar L = I - D^{-1/2} A D^{-1/2}` and the normalised constraint matrix
:math:`\bar Q = D^{-1/2} Q D^{-1/2}`, CSC solves

.. math::

    \bar L v = \lambda \left(\bar Q - \frac{\beta}{\mathrm{vol}} I\right) v,

keeps the feasible eigenvectors (:math:`\lambda > 0`), normalises them to
:math:`v^\top v = \mathrm{vol}` and ranks them by the cost :math:`v^\top \bar L v`.

Neither matrix of the pencil is definite (:math:`\bar L` is singular, the right
side indefinite), so the papers solve the *complete* generalised eigenproblem.
Here the pencil is turned exactly into a symmetric-definite one (see
:func:`reduced_pencil`) whose largest eigenvalues :math:`\theta = 1/\lambda` are
the feasible eigenvectors with the smallest :math:`\lambda`; ARPACK computes only
those, with sparse factorisations only: of a grounded Laplacian (regular-inverse
mode) or of :math:`\sigma\bar L - \bar Q + \beta/\mathrm{vol}\, I`
(shift-invert above the spectrum, located by spectrum slicing).
"""

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import (
    ArpackError,
    ArpackNoConvergence,
    LinearOperator,
    eigsh,
    lobpcg,
    splu,
)
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..constraints import check_constraints, link_matrix
from ..eigensolvers import leading_eigenvectors
from ..kernels import local_scaling_kernel_from_neighbors
from ..neighbors import nearest_neighbors
from ..utils._checks import check_n_neighbors, validate_training_samples
from ..utils._validation import (
    Interval,
    Options,
    check_random_state_param,
    validate_params,
)
from ._spectral_learning import drop_negligible_edges

__all__ = [
    "ConstrainedSpectralClustering",
    "constrained_spectral_clustering",
    "constraint_matrix",
    "constraint_eigenvalues",
    "auto_beta",
    "ReducedPencil",
    "reduced_pencil",
    "CSCSolution",
    "null_space_cuts",
    "feasible_eigenvectors",
    "solve_csc",
    "dense_csc_pencil",
]

_SEED_MAX = np.iinfo(np.int32).max

#: Inputs with at most this many samples are solved densely (as in
#: :data:`smiclust._solver.DENSE_MAX_SAMPLES`); so is ``n <= 3 n_candidates``.
DENSE_MAX_SAMPLES = 20

#: Relative thresholds: an eigenvector is trivial when its cost
#: :math:`v^\top\bar L v / v^\top v` is below ``_TRIVIAL_COST`` or when
#: :math:`u = D^{-1/2}v` has no entry of one of the two signs beyond
#: ``_SIGN_TOL * max|u|``.
_TRIVIAL_COST = 1e-10
_SIGN_TOL = 1e-8

#: :math:`\theta` below this fraction of :func:`_theta_scale` counts as 0
#: (:math:`\lambda = 1/\theta` numerically infinite, not feasible).
_POSITIVE_THETA = 1e-10


def constraint_matrix(must_link, cannot_link, n_samples):
    r"""Constraint matrix :math:`Q`: +1 at must-links, -1 at cannot-links.

    Prior validation by :func:`smiclust.constraints.check_constraints` is
    assumed. The diagonal is 0 (no self-links).

    Returns
    -------
    Q : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, entries in {-1, 0, 1}.
    """
    Q = link_matrix(must_link, n_samples) - link_matrix(cannot_link, n_samples)
    Q = sp.csr_matrix(Q)
    Q.eliminate_zeros()
    return Q


def _degrees(A):
    return np.asarray(A.sum(axis=1)).ravel()


def _normalize(M, scale):
    S = sp.diags(scale)
    return sp.csr_matrix(S @ M @ S)


def constraint_eigenvalues(Q_bar, k, *, random_state=None):
    r"""The ``k`` largest eigenvalues of :math:`\bar Q`, descending.

    Only the rows and columns of linked samples are non-zero, so the problem is
    solved on that block: densely when it has at most 500 rows, otherwise by
    :func:`~smiclust.eigensolvers.leading_eigenvectors` on the block shifted by its
    Gershgorin bound (ARPACK, LOBPCG fallback). Eigenvalues beyond the block
    size are 0.

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
    """
    Q_bar = sp.csr_matrix(Q_bar)
    rows = np.flatnonzero(np.diff(Q_bar.indptr))
    out = np.zeros(k)
    if rows.size == 0:
        return out
    block = Q_bar[rows][:, rows]
    m = block.shape[0]
    if m <= max(500, 3 * k):
        vals = np.linalg.eigvalsh(block.toarray())[::-1]
    else:
        shift = float(abs(block).sum(axis=1).max())
        shifted = sp.csr_matrix(block + shift * sp.identity(m))
        vals, _ = leading_eigenvectors(shifted, k, random_state=random_state)
        vals = np.sort(vals)[::-1] - shift
    kk = min(k, vals.size)
    out[:kk] = vals[:kk]
    if kk < k:
        # the remaining eigenvalues of Q_bar include the zeros off the block
        out[kk:] = 0.0
        out = np.sort(out)[::-1]
    return out


def auto_beta(Q_eigenvalues, vol):
    r"""The ``beta="auto"`` rule: half the feasibility bound.

    .. math::

        \beta = \tfrac12\,\mathrm{vol}\,\min\{\lambda_j(\bar Q) :
        j \le K - 1,\ \lambda_j(\bar Q) > 0\},

    with :math:`\lambda_1 \ge \lambda_2 \ge \dots` the eigenvalues of
    :math:`\bar Q` (``Q_eigenvalues``, the ``K - 1`` largest). For ``K = 2`` it
    is :math:`\tfrac12 \lambda_{\max}(\bar Q)\,\mathrm{vol}`, the rule of the
    authors' ``csp.m``; for ``K > 2`` it keeps at least ``K - 1`` eigenvalues of
    :math:`\bar Q - \beta/\mathrm{vol}\,I` positive whenever :math:`\bar Q` has
    ``K - 1`` positive eigenvalues (the DMKD condition
    :math:`\beta < \lambda_{K-1}\mathrm{vol}`).

    Prior validation is assumed: at least one eigenvalue is positive (true as
    soon as there is one link, since :math:`Q` has zero trace).
    """
    vals = np.asarray(Q_eigenvalues, dtype=np.float64)
    positive = vals[vals > 0]
    return 0.5 * float(vol) * float(positive.min())


@dataclass(frozen=True)
class ReducedPencil:
    r"""Symmetric-definite form :math:`S x = \theta M x` of the CSC pencil.

    Let :math:`Z` (``n x p``) be the orthonormal basis of the null space of
    :math:`\bar L` (one column :math:`D^{1/2}1_C/\sqrt{\mathrm{vol}_C}` per
    connected component :math:`C`), :math:`\bar B = \bar Q - \beta/\mathrm{vol}\,I`
    and :math:`G = Z^\top \bar B Z` (``p x p``, assumed invertible). Then

    .. math::

        S = \bar B - \bar B Z G^{-1} Z^\top \bar B, \qquad
        M = \bar L + Z Z^\top \succ 0.

    Every eigenpair of :math:`(S, M)` with :math:`\theta \ne 0` gives the
    eigenpair :math:`\lambda = 1/\theta`,
    :math:`v = x - Z G^{-1} Z^\top \bar B x` of
    :math:`\bar L v = \lambda \bar B v`, and conversely; :math:`\theta = 0` only
    on :math:`\mathrm{span}(Z)`. Feasible (:math:`\lambda > 0`) means
    :math:`\theta > 0`, and the smallest :math:`\lambda` are the largest
    :math:`\theta`.

    Proof sketch: :math:`Z^\top S = 0`, so :math:`S x = \theta M x` with
    :math:`\theta \ne 0` forces :math:`Z^\top x = 0`, hence :math:`M x = \bar L x`;
    with :math:`v` as above, :math:`\bar B v = S x` and
    :math:`\bar L v = \bar L x`.

    Attributes
    ----------
    L_bar, Q_bar : scipy.sparse.csr_matrix of shape (n, n)
    beta_scaled : float
        :math:`\beta / \mathrm{vol}`.
    vol : float
    sqrt_degrees : ndarray of shape (n,)
    Z : scipy.sparse.csr_matrix of shape (n, p)
    BZ : scipy.sparse.csr_matrix of shape (n, p)
        :math:`\bar B Z`.
    G : scipy.sparse.csr_matrix of shape (p, p)
        :math:`G = Z^\top \bar B Z`.
    G_solve : callable
        :math:`Y \mapsto G^{-1} Y`.
    components : ndarray of shape (n,)
        Connected component of each sample.
    component_volumes : ndarray of shape (p,)
        :math:`\mathrm{vol}_C = \sum_{i \in C} D_{ii}`.
    grounded : SuperLU
        Sparse LU of the grounded Laplacian :math:`D - A + \sum_C d_{r_C}
        e_{r_C} e_{r_C}^\top` (one root :math:`r_C` per component).
    """

    L_bar: sp.csr_matrix
    Q_bar: sp.csr_matrix
    beta_scaled: float
    vol: float
    sqrt_degrees: np.ndarray
    Z: sp.csr_matrix
    BZ: sp.csr_matrix
    G: sp.csr_matrix
    G_solve: object
    grounded: object
    components: np.ndarray
    component_volumes: np.ndarray

    @property
    def n(self):
        return self.L_bar.shape[0]

    def B(self, X):
        r""":math:`\bar B X`."""
        return self.Q_bar @ X - self.beta_scaled * X

    def S(self, X):
        """:math:`S X` for a vector or block."""
        return self.B(X) - self.BZ @ self.G_solve(self.BZ.T @ X)

    def M(self, X):
        """:math:`M X` for a vector or block."""
        return self.L_bar @ X + self.Z @ (self.Z.T @ X)

    def M_inv(self, X):
        r""":math:`M^{-1} X = \bar L^{+}(I - ZZ^\top)X + ZZ^\top X`.

        :math:`\bar L^{+} c` for :math:`c \perp Z` is :math:`(I - ZZ^\top)
        D^{1/2} y` with :math:`y` solving the grounded system
        :math:`(D - A) y = D^{1/2} c` (consistent, and exact at the roots).
        """
        X = np.asarray(X, dtype=np.float64)
        par = self.Z @ (self.Z.T @ X)
        perp = X - par
        rhs = self.sqrt_degrees[:, None] * perp.reshape(self.n, -1)
        y = self.grounded.solve(rhs)
        w = self.sqrt_degrees[:, None] * y
        w = w - self.Z @ (self.Z.T @ w)
        return w.reshape(X.shape) + par

    def back(self, X):
        r"""Map eigenvectors :math:`x` of :math:`(S, M)` to :math:`v` of the pencil."""
        return X - self.Z @ self.G_solve(self.BZ.T @ X)

    def operators(self, counter=None):
        """``(S, M, M^{-1})`` as symmetric :class:`LinearOperator` objects.

        ``counter``, a one-element list, is increased by the number of vectors
        ``S`` is applied to.
        """
        n = self.n

        def S(Y):
            if counter is not None:
                counter[0] += 1 if np.ndim(Y) == 1 else np.shape(Y)[1]
            return self.S(Y)

        return (
            _symmetric_operator(n, S),
            _symmetric_operator(n, self.M),
            _symmetric_operator(n, self.M_inv),
        )

    def dense(self):
        """Dense ``(S, M)``: a reference for small problems only."""
        eye = np.eye(self.n)
        S = self.S(eye)
        M = self.M(eye)
        return 0.5 * (S + S.T), 0.5 * (M + M.T)


def reduced_pencil(A, Q, beta, *, drop_negligible=True):
    r"""Build the :class:`ReducedPencil` of the CSC problem.

    Prior validation is assumed: ``A`` symmetric sparse, non-negative, every
    degree positive (the local-scaling kernel has a unit diagonal); ``Q``
    symmetric sparse; ``beta`` a float (not necessarily feasible).

    Parameters
    ----------
    A : sparse matrix of shape (n, n)
        Affinity.
    Q : sparse matrix of shape (n, n)
        Constraint matrix (:func:`constraint_matrix`).
    beta : float
        :math:`\beta` of the pencil :math:`\bar L v = \lambda(\bar Q -
        \beta/\mathrm{vol}\,I)v`.
    drop_negligible : bool, default=True
        Apply :func:`~smiclust.baselines._spectral_learning.drop_negligible_edges`
        to ``A`` first (pass False if already done).

    Returns
    -------
    pencil : ReducedPencil
    """
    if drop_negligible:
        A = drop_negligible_edges(A)
    A = sp.csr_matrix(A, dtype=np.float64)
    n = A.shape[0]
    d = _degrees(A)
    vol = float(d.sum())
    sqrt_d = np.sqrt(d)
    inv_sqrt_d = 1.0 / sqrt_d
    L_bar = sp.csr_matrix(sp.identity(n) - _normalize(A, inv_sqrt_d))
    Q_bar = _normalize(sp.csr_matrix(Q, dtype=np.float64), inv_sqrt_d)
    beta_scaled = float(beta) / vol

    p, comp = connected_components(A, directed=False)
    vol_c = np.bincount(comp, weights=d, minlength=p)
    Z = sp.csr_matrix(
        (sqrt_d / np.sqrt(vol_c[comp]), (np.arange(n), comp)), shape=(n, p)
    )
    BZ = sp.csr_matrix(Q_bar @ Z - beta_scaled * Z)
    G = sp.csr_matrix(Z.T @ BZ)
    G = sp.csr_matrix(0.5 * (G + G.T))
    G_solve = _small_solver(G)

    # grounded Laplacian: the first sample of each component is the root
    roots = np.unique(comp, return_index=True)[1]
    ground = np.zeros(n)
    ground[roots] = d[roots]
    grounded = sp.csc_matrix(sp.diags(d + ground) - A)
    lu = splu(grounded)
    return ReducedPencil(
        L_bar=L_bar,
        Q_bar=Q_bar,
        beta_scaled=beta_scaled,
        vol=vol,
        sqrt_degrees=sqrt_d,
        Z=Z,
        BZ=BZ,
        G=G,
        G_solve=G_solve,
        grounded=lu,
        components=comp,
        component_volumes=vol_c,
    )


#: Up to this many components, G is inverted densely (with a singularity check);
#: beyond, by sparse LU (G is mostly diagonal: components without links).
_DENSE_G_MAX = 200


def _small_solver(G):
    """``Y -> G^{-1} Y`` for the ``p x p`` symmetric ``G``.

    Dense inverse (pseudo-inverse with a warning if numerically singular) for
    ``p <= 200``, sparse LU beyond (pseudo-inverse if exactly singular).
    """
    p = G.shape[0]
    if p == 0:
        return lambda Y: Y
    if p > _DENSE_G_MAX:
        try:
            lu = splu(sp.csc_matrix(G))
        except RuntimeError:
            pass
        else:

            def solve(Y):
                Y = np.asarray(Y)
                return lu.solve(Y.reshape(p, -1)).reshape(Y.shape)

            return solve
    Gd = G.toarray()
    w = np.linalg.eigvalsh(Gd)
    scale = max(float(np.abs(w).max()), np.finfo(float).tiny)
    if np.abs(w).min() <= 1e-12 * scale:
        warnings.warn(
            "beta / vol is (numerically) an eigenvalue of the constraint matrix "
            "projected on the graph's trivial eigenvectors; the pencil is "
            "nearly singular and a pseudo-inverse is used.",
            UserWarning,
            stacklevel=3,
        )
        G_inv = np.linalg.pinv(Gd, hermitian=True)
    else:
        G_inv = np.linalg.inv(Gd)
    return lambda Y: G_inv @ Y


def dense_csc_pencil(A, Q, beta):
    r"""Dense :math:`(\bar L,\ \bar Q - \beta/\mathrm{vol}\,I)` and ``vol``.

    The pencil of the papers, formed term by term: a reference for tests only
    (``O(n^2)`` memory).

    Returns
    -------
    L_bar, B_bar : ndarray of shape (n, n)
    vol : float
    """
    Ad = A.toarray() if sp.issparse(A) else np.asarray(A, dtype=np.float64)
    Qd = Q.toarray() if sp.issparse(Q) else np.asarray(Q, dtype=np.float64)
    d = Ad.sum(axis=1)
    vol = float(d.sum())
    s = 1.0 / np.sqrt(d)
    n = Ad.shape[0]
    L_bar = np.eye(n) - s[:, None] * Ad * s[None, :]
    B_bar = s[:, None] * Qd * s[None, :] - (beta / vol) * np.eye(n)
    return L_bar, B_bar, vol


def _symmetric_lu(K):
    """Sparse LU of the symmetric ``K`` with symmetric permutation and no row
    pivoting, so that ``diag(U)`` has the inertia of ``K`` (Sylvester); None when
    ``K`` is singular or SuperLU had to pivot."""
    try:
        lu = splu(
            sp.csc_matrix(K),
            permc_spec="MMD_AT_PLUS_A",
            diag_pivot_thresh=0.0,
            options=dict(SymmetricMode=True),
        )
    except RuntimeError:
        return None
    if not np.array_equal(lu.perm_r, lu.perm_c):
        return None
    d = lu.U.diagonal()
    if not np.all(np.isfinite(d)) or np.any(d == 0):
        return None
    return lu


def _n_negative(lu):
    return int(np.count_nonzero(lu.U.diagonal() < 0))


class _Slicer:
    r"""Spectrum slicing of the reduced pencil.

    With :math:`K_\sigma = \sigma\bar L - \bar B` (sparse), Haynsworth's
    inertia formula in the basis :math:`[Z, Z_\perp]` gives

    .. math::

        \#\{\theta > \sigma\} = \#\mathrm{neg}(K_\sigma) - \#\mathrm{pos}(G),

    since :math:`Z^\top K_\sigma Z = -G` and the Schur complement is
    :math:`\sigma \bar L - S` on :math:`Z_\perp`. The same factorisation applies
    :math:`(\sigma M - S)^{-1} y = (I - ZZ^\top) K_\sigma^{-1} (I - ZZ^\top) y
    + ZZ^\top y / \sigma` (:meth:`shift_inverse`).
    """

    def __init__(self, pencil):
        self.pencil = pencil
        G = pencil.G
        p = G.shape[0]
        lu = _symmetric_lu(-G) if p else None
        if lu is not None:
            self.n_pos_G = _n_negative(lu)
        elif p <= 2000:
            w = np.linalg.eigvalsh(G.toarray()) if p else np.zeros(0)
            self.n_pos_G = int(np.count_nonzero(w > 0))
        else:
            self.n_pos_G = None
        self.n_factorizations = 0

    def factor(self, sigma):
        """``(count, lu, sigma)``; sigma nudged if the factorisation fails."""
        pen = self.pencil
        n = pen.n
        for attempt in range(3):
            K = sigma * pen.L_bar - pen.Q_bar + pen.beta_scaled * sp.identity(n)
            lu = _symmetric_lu(K)
            self.n_factorizations += 1
            if lu is not None and self.n_pos_G is not None:
                return _n_negative(lu) - self.n_pos_G, lu, sigma
            sigma = sigma * (1.0 + 1e-6 * 10**attempt)
        return None, None, sigma

    def shift_inverse(self, lu, sigma, Y):
        r""":math:`(\sigma M - S)^{-1} Y`, using ``lu`` of :math:`K_\sigma`."""
        Z = self.pencil.Z
        Y = np.asarray(Y, dtype=np.float64)
        par = Z @ (Z.T @ Y)
        perp = (Y - par).reshape(self.pencil.n, -1)
        V = lu.solve(perp).reshape(Y.shape)
        V = V - Z @ (Z.T @ V)
        return V + par / sigma

    def upper_shift(self, lower, guess):
        r"""A shift :math:`\sigma > \theta_{\max}`: ``(sigma, lu)`` or
        ``(None, None)``.

        ``lower`` is a known eigenvalue (so :math:`\theta_{\max} \ge` it) or
        None; ``guess`` the first shift tried. Shifts grow by 4 until none of the
        :math:`\theta` lies above; without ``lower``, they then shrink by 4 until
        one does, so :math:`\sigma \le 4\,\theta_{\max}`.
        """
        sigma = float(guess)
        hi = hi_lu = None
        lo = lower
        for _ in range(80):
            count, lu, sigma = self.factor(sigma)
            if count is None:
                return None, None
            if count > 0:
                lo = sigma
                if hi is not None:
                    break
                sigma *= 4.0
            else:
                hi, hi_lu = sigma, lu
                if lo is not None:
                    break
                sigma /= 4.0
        if hi is None:
            return None, None
        return hi, hi_lu


def _theta_scale(pencil):
    r"""Row-sum bound of :math:`\|\bar B\|`, the scale of :math:`\theta`."""
    q = float(abs(pencil.Q_bar).sum(axis=1).max()) if pencil.Q_bar.nnz else 0.0
    return max(q + abs(pencil.beta_scaled), np.finfo(float).tiny)


#: Up to this many samples the shift-invert stage runs first: its sparse
#: factorisation includes the links, whose fill-in grows quickly with ``n``.
_SLICING_FIRST_MAX_SAMPLES = 2000

#: Above :data:`_SLICING_FIRST_MAX_SAMPLES` it still runs first when there are at
#: most this many links per sample, where the fill-in stays small. Measured at
#: n = 4,601 (spam) and 5,000 (digits5k), seconds with stage 1 first -> shift-invert
#: first, same labels: 0.07 links per sample 6.7 -> 1.7 and 13.8 -> 4.6, 2.3
#: 10.5 -> 7.2, 2.5 15.1 -> 14.5; but 6.9 links per sample 40.5 -> 53.9 and 25
#: 10.6 -> 50.2.
_SLICING_FIRST_MAX_LINKS_PER_SAMPLE = 2.5


def _slicing_first(pencil):
    """Whether the shift-invert stage runs before the regular-inverse one."""
    n_links = pencil.Q_bar.nnz / 2  # Q is symmetric with a zero diagonal
    return (
        pencil.n <= _SLICING_FIRST_MAX_SAMPLES
        or n_links <= _SLICING_FIRST_MAX_LINKS_PER_SAMPLE * pencil.n
    )


#: Default bounds of the three stages of the partial solver (``max_iter=None``):
#: ARPACK restarts in regular-inverse mode, ARPACK restarts in shift-invert mode,
#: LOBPCG iterations.
_MAX_ITER_REGULAR = 100
_MAX_ITER_SHIFT_INVERT = 1000
_MAX_ITER_LOBPCG = 500


def _largest_theta(pencil, k, *, eigen_solver, random_state, tol, max_iter, counter):
    r"""The ``k`` largest eigenpairs ``(theta, X)`` of ``(S, M)`` (all if dense).

    ``counter`` (a one-element list) counts the vectors ``S`` is applied to.

    ``"arpack"`` runs three bounded stages, each falling back to the next with a
    :class:`~sklearn.exceptions.ConvergenceWarning` (stage 1 is skipped for
    ``n <= 2000`` or at most 2.5 links per sample, where stage 2's
    factorisation is cheap; see :data:`_SLICING_FIRST_MAX_LINKS_PER_SAMPLE`):

    1. ARPACK, regular-inverse mode on :math:`(S, M)`, with
       :math:`M^{-1}` from a sparse LU of the grounded Laplacian (the links never
       enter a factorisation). Fast on well-connected graphs; slow when
       :math:`\bar L` has tiny eigenvalues (weak bottlenecks), which create
       huge negative :math:`\theta` that dominate the Krylov spectrum.
    2. ARPACK, shift-invert mode at :math:`\sigma > \theta_{\max}` found by
       spectrum slicing (:class:`_Slicer`, starting from stage 1's largest
       converged :math:`\theta`): every :math:`\theta \le 0` is mapped into
       :math:`[-1/\sigma, 0)`, the largest :math:`\theta` to the extreme.
    3. LOBPCG on :math:`(S, M - S/\sigma)` (positive definite for
       :math:`\sigma > \theta_{\max}`) preconditioned by its exact inverse, or on
       :math:`(S, M)` if slicing failed.

    ``"lobpcg"`` runs stage 3 on :math:`(S, M)` with :math:`M^{-1}` as
    preconditioner.
    """
    n = pencil.n
    rng = check_random_state(random_state)
    v0 = rng.uniform(-1.0, 1.0, size=n)
    solver = eigen_solver
    if solver == "auto":
        solver = "dense" if n <= max(DENSE_MAX_SAMPLES, 3 * k) else "arpack"
    if solver == "dense":
        counter[0] += n
        S, M = pencil.dense()
        return la.eigh(S, M)
    S_op, M_op, Minv_op = pencil.operators(counter)
    if solver == "lobpcg":
        return _lobpcg(
            S_op, M_op, Minv_op, _start_block(rng, v0, k, None), tol, max_iter
        )
    if solver != "arpack":
        raise ValueError(
            "The 'eigen_solver' parameter must be a str among "
            f"{{'auto', 'arpack', 'lobpcg', 'dense'}}. Got {eigen_solver!r} "
            "instead."
        )
    partial_vals, partial_vecs = np.zeros(0), None
    if not _slicing_first(pencil):
        try:
            return eigsh(
                S_op,
                k=k,
                M=M_op,
                Minv=Minv_op,
                which="LA",
                v0=v0,
                tol=tol,
                maxiter=_MAX_ITER_REGULAR if max_iter is None else max_iter,
            )
        except ArpackError as err:  # includes ArpackNoConvergence
            converged = np.asarray(getattr(err, "eigenvalues", ()), dtype=np.float64)
            warnings.warn(
                f"ARPACK did not converge for the {k} feasible eigenvectors of "
                f"smallest lambda ({converged.size} converged; {_arpack_reason(err)}"
                "); falling back to shift-invert with spectrum slicing.",
                ConvergenceWarning,
                stacklevel=4,
            )
            partial_vals = converged
            partial_vecs = getattr(err, "eigenvectors", None)
    slicer = _Slicer(pencil)
    positive = partial_vals[partial_vals > 0]
    lower = float(positive.max()) if positive.size else None
    guess = 2.0 * lower if lower is not None else _theta_scale(pencil)
    sigma, lu = slicer.upper_shift(lower, guess)
    X0 = _start_block(rng, v0, k, partial_vecs)
    if sigma is None:
        warnings.warn(
            "Spectrum slicing failed (singular or pivoted factorisation); "
            "falling back to LOBPCG.",
            ConvergenceWarning,
            stacklevel=4,
        )
        return _lobpcg(S_op, M_op, Minv_op, X0, tol, max_iter)

    def shift_inverse(Y):
        return slicer.shift_inverse(lu, sigma, Y)

    OPinv = _symmetric_operator(n, lambda Y: -shift_inverse(Y))
    try:
        return eigsh(
            S_op,
            k=k,
            M=M_op,
            sigma=sigma,
            which="LM",
            OPinv=OPinv,
            v0=X0[:, 0],
            tol=tol,
            maxiter=_MAX_ITER_SHIFT_INVERT if max_iter is None else max_iter,
        )
    except ArpackError as err:  # includes ArpackNoConvergence
        converged = np.size(getattr(err, "eigenvalues", ()))
        warnings.warn(
            f"Shift-invert ARPACK did not converge ({converged} of {k} converged; "
            f"{_arpack_reason(err)}); falling back to LOBPCG.",
            ConvergenceWarning,
            stacklevel=4,
        )
        X0 = _start_block(rng, v0, k, getattr(err, "eigenvectors", None))
    # (S, C), C = M - S / sigma: tau = sigma theta / (sigma - theta)
    C_op = _symmetric_operator(n, lambda Y: M_op @ Y - (S_op @ Y) / sigma)
    Cinv_op = _symmetric_operator(n, lambda Y: sigma * shift_inverse(Y))
    try:
        tau, X = _lobpcg(S_op, C_op, Cinv_op, X0, tol, max_iter)
    except (ValueError, la.LinAlgError) as err:
        # LOBPCG could not C-orthonormalise its block ("linearly dependent
        # initial approximations"): C is not positive definite on it, i.e. the
        # sliced sigma was not above theta_max in floating point.
        warnings.warn(
            f"LOBPCG on the shifted pencil failed ({err}); running it on "
            "(S, M) from a random start instead.",
            ConvergenceWarning,
            stacklevel=4,
        )
        X0 = _start_block(rng, v0, k, None)
        return _lobpcg(S_op, M_op, Minv_op, X0, tol, max_iter)
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = sigma * tau / (sigma + tau)
    # tau = -sigma (theta = +-inf) is impossible for sigma > theta_max: it marks
    # a vector LOBPCG did not resolve; -inf makes it infeasible (dropped).
    theta[~np.isfinite(theta)] = -np.inf
    return theta, X


def _arpack_reason(err):
    """Short reason of an ARPACK failure, for the ConvergenceWarning."""
    if isinstance(err, ArpackNoConvergence):
        return "iteration limit reached"
    return str(err).split(":")[0]  # "ARPACK error 3"


def _symmetric_operator(n, f):
    return LinearOperator(
        (n, n), matvec=f, matmat=f, rmatvec=f, rmatmat=f, dtype=np.float64
    )


def _start_block(rng, v0, k, partial):
    X0 = rng.standard_normal((v0.shape[0], k))
    X0[:, 0] = v0
    if partial is not None and np.size(partial):
        m = min(partial.shape[1], k)
        X0[:, :m] = np.real(partial[:, :m])
    return X0


def _lobpcg(A_op, B_op, T_op, X0, tol, max_iter):
    maxiter = _MAX_ITER_LOBPCG if max_iter is None else int(max_iter)
    tol_ = None if not tol else tol
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vals, vecs = lobpcg(
            A_op, X0, B=B_op, M=T_op, largest=True, tol=tol_, maxiter=maxiter
        )
    if any(
        "not reaching the requested tolerance" in str(w.message)
        or "did not converge" in str(w.message)
        for w in caught
    ):
        warnings.warn(
            f"LOBPCG did not reach the requested tolerance in {maxiter} "
            "iterations; returning its current estimate.",
            ConvergenceWarning,
            stacklevel=5,
        )
    return np.asarray(vals), np.asarray(vecs)


def _is_cut(V, sqrt_degrees):
    """Columns whose ``u = D^{-1/2} v`` has entries of both signs."""
    U = V / sqrt_degrees[:, None]
    if U.shape[1] == 0:
        return np.zeros(0, dtype=bool)
    peak = np.abs(U).max(axis=0)
    return (U > _SIGN_TOL * peak).any(axis=0) & (U < -_SIGN_TOL * peak).any(axis=0)


def _normalize_columns(V, vol):
    """Scale columns to ``v^T v = vol``; drop (numerically) zero columns."""
    norms = np.linalg.norm(V, axis=0)
    ok = norms > 1e-12 * max(float(norms.max(initial=0.0)), np.finfo(float).tiny)
    return V[:, ok] * (np.sqrt(vol) / norms[ok]), ok


def _helmert_coefficients(volumes, k):
    r"""First ``k`` weighted Helmert contrasts of the components, in ``Z``
    coordinates.

    Components sorted by decreasing volume :math:`C_1, C_2, \dots`; contrast
    ``j`` is :math:`u_j = 1_{C_{j+1}} - \mathrm{vol}_{C_{j+1}}/
    (\sum_{i\le j}\mathrm{vol}_{C_i})\, 1_{C_1\cup\dots\cup C_j}`, so the
    :math:`u_j` are :math:`D`-orthogonal to each other and to :math:`1`.
    """
    p = volumes.shape[0]
    order = np.argsort(-volumes, kind="stable")
    k = min(k, p - 1)
    H = np.zeros((p, k))
    cumulative = 0.0
    for j in range(k):
        cumulative += volumes[order[j]]
        nxt = order[j + 1]
        coef = np.zeros(p)
        coef[order[: j + 1]] = -volumes[nxt] / cumulative
        coef[nxt] = 1.0
        H[:, j] = coef * np.sqrt(volumes)  # v = D^{1/2} u in Z coordinates
        H[:, j] /= np.linalg.norm(H[:, j])
    return H


def null_space_cuts(pencil, k, *, constrained=True, random_state=None):
    r"""Zero-cost cuts: eigenvectors of the pencil for :math:`\lambda = 0` that
    satisfy the constraint, when the graph has several components.

    Every :math:`v = Z a` in the null space of :math:`\bar L` solves
    :math:`\bar L v = 0\cdot\bar B v` with cost 0. Excluding the trivial
    :math:`D^{1/2}1` (:math:`a \propto \zeta`, :math:`\zeta_C =
    \sqrt{\mathrm{vol}_C/\mathrm{vol}}`), the canonical basis is the
    eigenvectors of :math:`P G P` (:math:`P = I - \zeta\zeta^\top`,
    :math:`G = Z^\top\bar B Z`): they are :math:`\bar B`-orthogonal to each
    other and to every :math:`\lambda \ne 0` eigenvector, and those with
    eigenvalue :math:`g > 0` satisfy :math:`v^\top\bar B v > 0`, the
    feasibility test of the authors' ``csp_K.m``. Without constraints
    (:math:`G \propto I`, every direction ties) the weighted Helmert contrasts
    of the components by decreasing volume are used.

    Prior validation is assumed.

    Returns
    -------
    g : ndarray of shape (m,)
        Constraint satisfaction :math:`v^\top\bar B v / v^\top v`, descending.
    vectors : ndarray of shape (n, m)
        :math:`v = Z a`, normalised to :math:`v^\top v = \mathrm{vol}`, cuts only.
    """
    p = pencil.Z.shape[1]
    n = pencil.n
    if p < 2 or k < 1:
        return np.zeros(0), np.zeros((n, 0))
    zeta = np.sqrt(pencil.component_volumes / pencil.vol)
    if not constrained:
        H = _helmert_coefficients(pencil.component_volumes, k)
        g = np.full(H.shape[1], -pencil.beta_scaled)
    else:
        G = pencil.G
        shift = float(abs(G).sum(axis=1).max()) + 1.0

        def project(Y):
            Y = np.asarray(Y, dtype=np.float64)
            if Y.ndim == 1:
                return Y - zeta * (zeta @ Y)
            return Y - np.outer(zeta, zeta @ Y)

        def apply(Y):
            return project(G @ project(Y)) + shift * np.asarray(Y)

        op = LinearOperator(
            (p, p),
            matvec=apply,
            matmat=apply,
            rmatvec=apply,
            rmatmat=apply,
            dtype=np.float64,
        )
        kk = min(p, k + 1)
        solver = "dense" if p <= 500 else "auto"
        vals, H = leading_eigenvectors(
            op, kk, eigen_solver=solver, random_state=random_state
        )
        g = vals - shift
        H = project(H)
    scale = max(float(np.abs(g).max(initial=0.0)), np.finfo(float).tiny)
    good = g > 1e-10 * scale
    g, H = g[good], H[:, good]
    V, ok = _normalize_columns(pencil.Z @ H, pencil.vol)
    g = g[ok]
    cut = _is_cut(V, pencil.sqrt_degrees)
    return g[cut][:k], V[:, cut][:, :k]


def feasible_eigenvectors(
    pencil,
    n_candidates,
    *,
    n_vectors=1,
    constrained=True,
    eigen_solver="auto",
    random_state=None,
    tol=0.0,
    max_iter=None,
):
    r"""Feasible, non-trivial eigenvectors of the CSC pencil, lowest cost first.

    Prior validation is assumed (``pencil`` from :func:`reduced_pencil`,
    ``n_candidates >= 1``).

    The ``n_candidates`` largest eigenvalues :math:`\theta` of the reduced pencil
    are computed (all of them with ``eigen_solver="dense"``); those with
    :math:`\theta > 0` give the feasible eigenvectors with the smallest
    :math:`\lambda = 1/\theta`. Each is mapped back to :math:`v`, normalised to
    :math:`v^\top v = \mathrm{vol}`, and its cost :math:`v^\top\bar L v` computed.
    Trivial vectors are dropped: numerically zero cost
    (:math:`v^\top \bar L v \le 10^{-10}\,\mathrm{vol}`, as in the authors'
    ``csp.m``) or :math:`u = D^{-1/2}v` without both signs, i.e. no cut (as in
    ``csp_K.m``). On a disconnected graph, up to ``n_vectors`` zero-cost cuts of
    :func:`null_space_cuts` come first (:math:`\lambda = 0`).

    Returns
    -------
    result : FeasibleEigenvectors
    """
    n = pencil.n
    p = pencil.Z.shape[1]
    k = int(min(n_candidates, max(n - 1, 1)))
    counter = [0]
    theta, X = _largest_theta(
        pencil,
        k,
        eigen_solver=eigen_solver,
        random_state=random_state,
        tol=tol,
        max_iter=max_iter,
        counter=counter,
    )
    theta = np.asarray(theta, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64).reshape(n, -1)
    positive = theta > _POSITIVE_THETA * _theta_scale(pencil)
    n_positive = int(np.count_nonzero(positive))
    theta, X = theta[positive], X[:, positive]
    V = pencil.back(X) if p and X.shape[1] else X
    V, ok = _normalize_columns(V, pencil.vol)
    theta = theta[ok]
    costs = np.einsum("ij,ij->j", V, pencil.L_bar @ V)
    keep = (costs > _TRIVIAL_COST * pencil.vol) & _is_cut(V, pencil.sqrt_degrees)
    theta, V, costs = theta[keep], V[:, keep], costs[keep]
    order = np.argsort(costs, kind="stable")
    lam, V, costs = 1.0 / theta[order], V[:, order], costs[order]

    _, V0 = null_space_cuts(
        pencil, n_vectors, constrained=constrained, random_state=random_state
    )
    if V0.shape[1]:
        costs0 = np.einsum("ij,ij->j", V0, pencil.L_bar @ V0)
        lam = np.concatenate([np.zeros(V0.shape[1]), lam])
        V = np.hstack([V0, V])
        costs = np.concatenate([costs0, costs])
    V = V * _sign_rule(V / pencil.sqrt_degrees[:, None])
    return FeasibleEigenvectors(
        eigenvalues=lam,
        vectors=V,
        costs=costs,
        n_feasible=n_positive,
        n_operator_applications=counter[0],
    )


@dataclass(frozen=True)
class FeasibleEigenvectors:
    r"""Result of :func:`feasible_eigenvectors`.

    Attributes
    ----------
    eigenvalues : ndarray of shape (m,)
        :math:`\lambda` of the kept vectors (0 for zero-cost cuts), in the order
        of ``costs``.
    vectors : ndarray of shape (n, m)
        :math:`v`, normalised to :math:`v^\top v = \mathrm{vol}`, sign-fixed
        (largest-magnitude entry of :math:`u = D^{-1/2}v` positive).
    costs : ndarray of shape (m,)
        :math:`v^\top \bar L v`, ascending (zero-cost cuts first).
    n_feasible : int
        Number of :math:`\lambda > 0` eigenvectors among the computed
        candidates; below ``n_candidates`` it is the number of the whole pencil.
    n_operator_applications : int
        Vectors the solver multiplied by :math:`S` (``n`` for the dense path).
    """

    eigenvalues: np.ndarray
    vectors: np.ndarray
    costs: np.ndarray
    n_feasible: int
    n_operator_applications: int


def _sign_rule(U):
    """Column signs that :func:`._spectral_learning.sign_flip` applies to ``U``."""
    if U.shape[1] == 0:
        return np.ones(0)
    peak = U[np.argmax(np.abs(U), axis=0), np.arange(U.shape[1])]
    return np.where(peak < 0, -1.0, 1.0)


@dataclass(frozen=True)
class CSCSolution:
    r"""Result of :func:`solve_csc`.

    Attributes
    ----------
    labels : ndarray of shape (n,)
        Clusters, contiguous from 0.
    embedding : ndarray of shape (n, n_vectors)
        :math:`u = D^{-1/2} v` of the selected eigenvectors (lowest cost first).
    eigenvalues : ndarray of shape (n_vectors,)
        :math:`\lambda` of the selected eigenvectors.
    costs : ndarray of shape (n_vectors,)
        Their costs :math:`v^\top \bar L v` with :math:`v^\top v = \mathrm{vol}`.
    beta : float
        :math:`\beta` used.
    n_feasible : int
        Feasible eigenvectors (:math:`\lambda > 0`) among the computed
        candidates; below ``n_candidates``, all of the problem's.
    constrained : bool
        False when the unconstrained (normalised spectral clustering) problem
        was solved: no links, or no feasible non-trivial eigenvector.
    n_operator_applications : int
        Vectors the eigen-solver multiplied by :math:`S`.
    """

    labels: np.ndarray
    embedding: np.ndarray
    eigenvalues: np.ndarray
    costs: np.ndarray
    beta: float
    n_feasible: int
    constrained: bool
    n_operator_applications: int = 0


def _unconstrained_beta(vol):
    # Q = 0: every beta < 0 gives B_bar = |beta|/vol I and the same eigenvectors
    return -float(vol)


def solve_csc(
    A,
    Q,
    n_clusters,
    *,
    beta="auto",
    n_candidates=None,
    assign_labels="auto",
    eigen_solver="auto",
    n_init=10,
    random_state=None,
    tol=0.0,
    max_iter=None,
):
    r"""Constrained spectral clustering for a fixed affinity and constraints.

    Prior validation is assumed: ``A`` symmetric sparse with positive degrees,
    ``Q`` from :func:`constraint_matrix`, ``n_clusters >= 2``, ``beta`` "auto"
    or a float, ``n_candidates`` None (``max(20, 4 (K - 1))``) or int ``>= 1``.

    Raises
    ------
    ValueError
        If a given ``beta`` is not below the feasibility bound
        :math:`\lambda_{\max}(\bar Q)\,\mathrm{vol}` (the KDD algorithm returns
        no solution then).

    Returns
    -------
    solution : CSCSolution
    """
    A = drop_negligible_edges(A)
    n = A.shape[0]
    c = int(n_clusters)
    rng = check_random_state(random_state)
    solver_seed = rng.randint(_SEED_MAX)
    kmeans_seed = rng.randint(_SEED_MAX)
    n_vectors = max(c - 1, 1)
    if n_candidates is None:
        n_candidates = max(20, 4 * n_vectors)
    vol = float(_degrees(A).sum())
    Q = sp.csr_matrix(Q, dtype=np.float64)
    constrained = Q.nnz > 0
    if constrained:
        Q_bar = _normalize(Q, 1.0 / np.sqrt(_degrees(A)))
        q_vals = constraint_eigenvalues(Q_bar, n_vectors, random_state=solver_seed)
        if isinstance(beta, str):
            beta_value = auto_beta(q_vals, vol)
        else:
            beta_value = float(beta)
            bound = float(q_vals[0]) * vol
            if beta_value >= bound:
                raise ValueError(
                    "The 'beta' parameter of ConstrainedSpectralClustering must be "
                    "below the feasibility bound lambda_max(Q_bar) * vol = "
                    f"{bound!r} for these links. Got {beta!r} instead."
                )
    else:
        beta_value = _unconstrained_beta(vol)

    def solve(Q_used, beta_used, with_links):
        pencil = reduced_pencil(A, Q_used, beta_used, drop_negligible=False)
        return feasible_eigenvectors(
            pencil,
            n_candidates,
            n_vectors=n_vectors,
            constrained=with_links,
            eigen_solver=eigen_solver,
            random_state=solver_seed,
            tol=tol,
            max_iter=max_iter,
        )

    found = solve(Q, beta_value, constrained)
    n_applied = found.n_operator_applications
    if constrained and found.vectors.shape[1] == 0:
        warnings.warn(
            f"No feasible non-trivial eigenvector for beta={beta_value!r}; "
            "falling back to unconstrained normalised spectral clustering.",
            UserWarning,
            stacklevel=3,
        )
        constrained = False
        beta_value = _unconstrained_beta(vol)
        found = solve(sp.csr_matrix((n, n)), beta_value, False)
        n_applied += found.n_operator_applications
    lam, V, costs = found.eigenvalues, found.vectors, found.costs
    if V.shape[1] < n_vectors and V.shape[1] > 0:
        warnings.warn(
            f"Only {V.shape[1]} feasible non-trivial eigenvector(s) found, "
            f"fewer than n_clusters - 1 = {n_vectors}; all of them are used.",
            UserWarning,
            stacklevel=3,
        )
    lam, V, costs = lam[:n_vectors], V[:, :n_vectors], costs[:n_vectors]
    d = _degrees(A)
    U = V / np.sqrt(d)[:, None]

    mode = assign_labels
    if mode == "auto":
        mode = "threshold" if c == 2 else "kmeans"
    if U.shape[1] == 0:
        labels = np.zeros(n, dtype=np.intp)
    elif mode == "threshold":
        labels = (U[:, 0] > 0).astype(np.intp)
    else:
        km = KMeans(n_clusters=c, n_init=n_init, random_state=kmeans_seed)
        labels = km.fit_predict(U)
    _, labels = np.unique(labels, return_inverse=True)
    return CSCSolution(
        labels=labels.astype(np.intp).ravel(),
        embedding=U,
        eigenvalues=lam,
        costs=costs,
        beta=float(beta_value),
        n_feasible=int(found.n_feasible),
        constrained=bool(constrained),
        n_operator_applications=int(n_applied),
    )


class ConstrainedSpectralClustering(ClusterMixin, BaseEstimator):
    r"""Constrained spectral clustering (Wang & Davidson, 2010; K-way 2014).

    The constraints enter through a matrix :math:`Q` (:math:`Q_{ij} = Q_{ji} =
    +1` for a must-link, :math:`-1` for a cannot-link, 0 otherwise, zero
    diagonal) and the problem

    .. math::

        \min_v\ v^\top \bar L v \quad\text{s.t.}\quad
        v^\top \bar Q v \ge \alpha,\ v^\top v = \mathrm{vol},\
        v \ne D^{1/2}1,

    whose KKT points solve the generalised eigenproblem

    .. math::

        \bar L v = \lambda\left(\bar Q - \frac{\beta}{\mathrm{vol}} I\right)v,
        \qquad \bar L = I - D^{-1/2}AD^{-1/2},\quad
        \bar Q = D^{-1/2}QD^{-1/2},\quad \mathrm{vol} = \sum_i D_{ii}.

    :math:`A` is the sparse local-scaling kNN kernel (unmodified by the links).
    Feasible eigenvectors (:math:`\lambda > 0`, non-trivial) are normalised to
    :math:`v^\top v = \mathrm{vol}` and ranked by the cost :math:`v^\top\bar L v`,
    lowest first. Two clusters: the sign of :math:`u = D^{-1/2}v^*` of the best
    one (Shi-Malik thresholding, as the 3SMIC paper does); ``K`` clusters:
    k-means on :math:`D^{-1/2}V^*`, :math:`V^*` the ``K - 1`` best (DMKD paper).

    The complete eigenproblem is never solved in the default path: the pencil is
    rewritten exactly as a symmetric-definite one (:func:`reduced_pencil`) and
    ARPACK computes its ``n_candidates`` largest eigenvalues
    :math:`\theta = 1/\lambda`, i.e. the feasible eigenvectors of smallest
    :math:`\lambda`, among which the lowest-cost ones are chosen. No dense
    ``n x n`` matrix is formed (except with ``eigen_solver="dense"``).

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters ``K``.
    n_neighbors : int, default=7
        Kernel parameter ``t``.
    beta : "auto" or float, default="auto"
        :math:`\beta`; must be below :math:`\lambda_{\max}(\bar Q)\,\mathrm{vol}`.
        ``"auto"`` is :math:`\tfrac12\,\mathrm{vol}\,\min\{\lambda_j(\bar Q) > 0 :
        j \le K-1\}` (:func:`auto_beta`): half the feasibility bound, which for
        ``K = 2`` is the authors' ``csp.m`` rule. Ignored without links.
    n_candidates : "auto" or int, default="auto"
        Number of eigenpairs of the reduced pencil computed (largest
        :math:`\theta`); the lowest-cost feasible eigenvectors are chosen among
        them. ``"auto"`` is ``max(20, 4 (K - 1))``. Every feasible eigenvector is
        considered when there are fewer than ``n_candidates`` of them, or with
        ``eigen_solver="dense"``.
    assign_labels : {"auto", "threshold", "kmeans"}, default="auto"
        ``"threshold"``: sign of the best :math:`u` (``K = 2`` only);
        ``"kmeans"``: k-means on the ``K - 1`` best; ``"auto"``: threshold for
        ``K = 2``, k-means otherwise (the 3SMIC paper's protocol).
    neighbor_algorithm : {"auto", "exact", "approximate"}, default="auto"
        Neighbour search (see :func:`smiclust.kernels.nearest_neighbors`).
    eigen_solver : {"auto", "arpack", "lobpcg", "dense"}, default="auto"
        ``"auto"`` is ``"arpack"``, dense only for tiny inputs
        (``n <= max(20, 3 n_candidates)``). ``"arpack"`` runs bounded stages,
        each falling back to the next with a
        :class:`~sklearn.exceptions.ConvergenceWarning`: (1) regular-inverse
        mode with a sparse LU of the grounded Laplacian (skipped for
        ``n <= 2000``); (2) shift-invert at a shift above every :math:`\theta`
        found by spectrum slicing (sparse :math:`LDL^\top` inertia counts),
        robust to weak graph bottlenecks; (3) LOBPCG. ``"lobpcg"`` runs LOBPCG
        on the reduced pencil directly. ``"dense"`` solves the complete problem
        (every feasible eigenvector), as the papers do: a reference.
    tol : float, default=0.0
        Eigen-solver tolerance (0: machine precision).
    max_iter : int, default=None
        Bound of every eigen-solver stage (ARPACK restarts, LOBPCG iterations);
        ``None``: 100 restarts in stage 1, 1000 in stage 2, 500 LOBPCG
        iterations.
    n_init : int, default=10
        k-means initialisations.
    random_state : int, RandomState instance or None, default=None
        Seeds the eigen-solver start vector, k-means and the approximate
        neighbour search.
    n_jobs : int, default=None
        Parallel jobs of the neighbour search (``None`` means 1).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each sample, contiguous from 0.
    embedding_ : ndarray of shape (n_samples, max(1, K - 1))
        :math:`u = D^{-1/2}v` of the selected eigenvectors, lowest cost first
        (fewer columns if fewer feasible eigenvectors exist). With
        ``n_clusters=1`` nothing is solved: every sample is in cluster 0,
        ``embedding_`` has shape ``(n_samples, 0)``, ``beta_`` is NaN and
        ``n_iter_`` is 1 (scikit-learn's convention for an estimator with
        ``n_iter_``).
    eigenvalues_ : ndarray of shape (n_vectors,)
        :math:`\lambda` of the selected eigenvectors.
    costs_ : ndarray of shape (n_vectors,)
        Their costs :math:`v^\top \bar L v` (:math:`v^\top v = \mathrm{vol}`).
    beta_ : float
        :math:`\beta` used (``-vol`` when the unconstrained problem is solved).
    n_feasible_ : int
        Feasible eigenvectors (:math:`\lambda > 0`) among the computed
        candidates. When it is below ``n_candidates``, every feasible
        eigenvector of the problem was found and the cost ranking is the
        complete one of the papers.
    n_iter_ : int
        Number of vectors the eigen-solver multiplied by the reduced
        constraint operator :math:`S` (its cost in operator applications;
        ``max_iter`` bounds the iterations).
    constrained_ : bool
        False when normalised spectral clustering was used (no links, or no
        feasible eigenvector).
    affinity_matrix_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The kernel :math:`A`.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string feature names.

    See Also
    --------
    SpectralLearning : The other baseline of the 3SMIC paper.
    smiclust.SMIClustering : SMIC / 3SMIC.

    Notes
    -----
    Choices the papers leave open, and ours:

    * **Diagonal of Q**: 0. A link is a pair of distinct samples; a unit
      diagonal on linked samples (as the authors' demo builds :math:`Q` from
      labels) would add :math:`\sum_{i\ \mathrm{linked}} v_i^2` to the
      satisfaction :math:`v^\top\bar Q v` whatever the links say.
    * **Affinity**: the kernel keeps its unit diagonal (self-similarity), so
      every degree is at least 1 and :math:`D^{-1/2}` always exists.
    * **beta**: see the parameter; a given value at or above the bound raises
      ``ValueError`` (the KDD algorithm returns no solution).
    * **No links**: :math:`Q = 0`, feasibility needs :math:`\beta < 0` and every
      such :math:`\beta` gives :math:`\bar L v = \lambda|\beta|/\mathrm{vol}\, v`:
      normalised spectral clustering (Shi-Malik). That is what is computed
      (``beta_ = -vol``, ``constrained_ = False``), without a warning; ``beta``
      is ignored.
    * **Trivial eigenvectors**: :math:`\lambda < 0` is infeasible; a feasible
      vector with zero cost or whose :math:`u` does not change sign is dropped
      (the authors' ``csp.m`` / ``csp_K.m``). If none is left, a ``UserWarning``
      is issued and the unconstrained solution is returned; if fewer than
      ``K - 1`` are left, all are used with a ``UserWarning``.
    * **Disconnected graphs** (the papers' dense RBF graph is always
      connected; the kNN kernel need not be): the null space of :math:`\bar L`
      then holds cuts of cost 0 besides the excluded :math:`D^{1/2}1`. They are
      eigenvectors for :math:`\lambda = 0`, and those with
      :math:`v^\top\bar B v > 0` pass the feasibility test of ``csp_K.m``; the
      canonical, :math:`\bar B`-orthogonal ones (:func:`null_space_cuts`) come
      first, by decreasing :math:`v^\top\bar B v`. Without links, where every
      such cut ties, the components are contrasted by decreasing volume. On a
      connected graph nothing changes.
    * **Negligible edges**: kernel values below :math:`10^{-10}\sqrt{d_i d_j}`
      (underflow between samples of very different local scales) are dropped
      before solving, so that the components are exact
      (:func:`~smiclust.baselines._spectral_learning.drop_negligible_edges`);
      ``affinity_matrix_`` keeps them.
    * **Scaling of u**: :math:`u = D^{-1/2}v` unweighted (DMKD paper); the
      authors' ``csp_K.m`` additionally weights column ``i`` by
      :math:`1 - v_i^\top\bar L v_i/\mathrm{vol}`, not done here.
    * **Candidates**: the papers rank *every* feasible eigenvector by cost. Here
      the ranking runs over the ``n_candidates`` feasible eigenvectors of
      smallest :math:`\lambda` (cost :math:`= \lambda\, v^\top\bar B v`, so small
      :math:`\lambda` means small cost unless the constraint term is tiny); it
      is the complete ranking whenever fewer than ``n_candidates`` feasible
      eigenvectors exist, and ``eigen_solver="dense"`` always gives it. On the
      small problems we compared with the complete solve (moons, blobs,
      parkinson, sonar, digits500; 10 to 5000 links) the ``K - 1`` cheapest
      were always among the ``2 (K - 1)`` smallest :math:`\lambda`;
      ``"auto"`` computes ``max(20, 4 (K - 1))``.
    * **Thresholding**: samples with :math:`u_i > 0` form one cluster, the
      rest (including :math:`u_i = 0`) the other; the sign of :math:`u` is fixed
      by its largest-magnitude entry, made positive. The DMKD paper uses
      k-means for every ``K``; the 3SMIC paper thresholds for ``K = 2``, which
      is the default here (``assign_labels="kmeans"`` restores k-means).

    References
    ----------
    X. Wang, I. Davidson. Flexible constrained spectral clustering. KDD 2010.

    X. Wang, B. Qian, I. Davidson. On constrained spectral clustering and its
    applications. Data Mining and Knowledge Discovery 28 (2014).

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from smiclust.baselines import ConstrainedSpectralClustering
    >>> X, y = make_moons(n_samples=200, noise=0.05, random_state=0)
    >>> model = ConstrainedSpectralClustering(n_clusters=2, random_state=0)
    >>> model.fit(X, must_link=[[0, 1]], cannot_link=[[0, 2]]).labels_.shape
    (200,)
    """

    _parameter_constraints = {
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_neighbors": [Interval(numbers.Integral, 1, None, closed="left")],
        "beta": [Options({"auto"}), Interval(numbers.Real, None, None)],
        "n_candidates": [
            Options({"auto"}),
            Interval(numbers.Integral, 1, None, closed="left"),
        ],
        "assign_labels": [Options({"auto", "threshold", "kmeans"})],
        "neighbor_algorithm": [Options({"auto", "exact", "approximate"})],
        "eigen_solver": [Options({"auto", "arpack", "lobpcg", "dense"})],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "max_iter": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "n_init": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": check_random_state_param(),
        "n_jobs": [None, Interval(numbers.Integral, None, None)],
    }

    def __init__(
        self,
        n_clusters=2,
        *,
        n_neighbors=7,
        beta="auto",
        n_candidates="auto",
        assign_labels="auto",
        neighbor_algorithm="auto",
        eigen_solver="auto",
        tol=0.0,
        max_iter=None,
        n_init=10,
        random_state=None,
        n_jobs=None,
    ):
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.beta = beta
        self.n_candidates = n_candidates
        self.assign_labels = assign_labels
        self.neighbor_algorithm = neighbor_algorithm
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y=None, *, must_link=None, cannot_link=None):
        """Cluster ``X`` under soft must-link and cannot-link constraints.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples (dense, finite).
        y : Ignored
            Not used, present for API consistency.
        must_link : array-like of shape (n_must, 2), default=None
            Pairs of sample indices that should share a cluster.
        cannot_link : array-like of shape (n_cannot, 2), default=None
            Pairs of sample indices that should be in different clusters.

        Returns
        -------
        self : ConstrainedSpectralClustering
        """
        owner = type(self).__name__
        validate_params(self.get_params(deep=False), self._parameter_constraints, owner)
        X, c, exponent = validate_training_samples(self, X, self.n_clusters)
        n = X.shape[0]
        t = check_n_neighbors(self.n_neighbors, n, owner=owner)
        if self.assign_labels == "threshold" and c != 2:
            raise ValueError(
                f"The 'assign_labels' parameter of {owner} can be 'threshold' only "
                f"when n_clusters == 2. Got n_clusters={c!r}."
            )
        must, cannot = check_constraints(must_link, cannot_link, n, owner=owner)

        rng = check_random_state(self.random_state)
        solver_seed = rng.randint(_SEED_MAX)
        neighbor_seed = rng.randint(_SEED_MAX)
        graph = nearest_neighbors(
            np.ldexp(X, -exponent) if exponent else X,  # extreme scales at unit scale
            t,
            algorithm=self.neighbor_algorithm,
            n_jobs=self.n_jobs,
            random_state=neighbor_seed,
        )
        A = local_scaling_kernel_from_neighbors(graph, t)
        self.affinity_matrix_ = A
        if c == 1:
            self.labels_ = np.zeros(n, dtype=np.intp)
            self.embedding_ = np.zeros((n, 0))
            self.eigenvalues_ = np.zeros(0)
            self.costs_ = np.zeros(0)
            self.beta_ = float("nan")
            self.n_feasible_ = 0
            self.constrained_ = False
            self.n_iter_ = 1
            return self
        Q = constraint_matrix(must, cannot, n)
        solution = solve_csc(
            A,
            Q,
            c,
            beta=self.beta,
            n_candidates=None if self.n_candidates == "auto" else self.n_candidates,
            assign_labels=self.assign_labels,
            eigen_solver=self.eigen_solver,
            n_init=self.n_init,
            random_state=solver_seed,
            tol=self.tol,
            max_iter=self.max_iter,
        )
        self.labels_ = solution.labels
        self.embedding_ = solution.embedding
        self.eigenvalues_ = solution.eigenvalues
        self.costs_ = solution.costs
        self.beta_ = solution.beta
        self.n_feasible_ = solution.n_feasible
        self.constrained_ = solution.constrained
        self.n_iter_ = max(solution.n_operator_applications, 1)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


def constrained_spectral_clustering(
    X, n_clusters=2, *, must_link=None, cannot_link=None, **params
):
    """Cluster ``X`` with :class:`ConstrainedSpectralClustering`; return labels.

    Returns
    -------
    labels : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from smiclust.baselines import constrained_spectral_clustering
    >>> X, _ = make_blobs(n_samples=60, centers=3, random_state=0)
    >>> constrained_spectral_clustering(X, 3, random_state=0).shape
    (60,)
    """
    model = ConstrainedSpectralClustering(n_clusters, **params)
    return model.fit(X, must_link=must_link, cannot_link=cannot_link).labels_
