r"""The CSC pencil and its symmetric-definite reduction.

With the affinity :math:`A`, :math:`D` its degree matrix, :math:`\mathrm{vol} =
\sum_i D_{ii}`, the normalised Laplacian :math:`\bar L = I - D^{-1/2} A D^{-1/2}`
and the normalised constraint matrix :math:`\bar Q = D^{-1/2} Q D^{-1/2}`, the
pencil of constrained spectral clustering is

.. math::

    \bar L v = \lambda \left(\bar Q - \frac{\beta}{\mathrm{vol}} I\right) v.

Neither side is definite; :func:`reduced_pencil` rewrites it exactly as the
symmetric-definite :class:`ReducedPencil` :math:`S x = \theta M x`,
:math:`\theta = 1/\lambda`. Also here: :math:`Q` from the links
(:func:`constraint_matrix`), the eigenvalues of :math:`\bar Q` and the
``beta="auto"`` rule, and the dense pencil used as a test reference.
"""

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import LinearOperator, splu

from ..constraints import link_matrix
from ..eigensolvers import leading_eigenvectors
from ..utils import user_stacklevel
from ._spectral_learning import drop_negligible_edges

__all__ = [
    "constraint_matrix",
    "constraint_eigenvalues",
    "auto_beta",
    "ReducedPencil",
    "reduced_pencil",
    "dense_csc_pencil",
]


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
    # the scale G is projected from: with one component G is 1 x 1, and its
    # own scale would call only an exact 0 singular
    G_solve = _small_solver(G, _constraint_scale(Q_bar, beta_scaled))

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


def _small_solver(G, scale=0.0):
    """``Y -> G^{-1} Y`` for the ``p x p`` symmetric ``G``.

    Dense inverse (pseudo-inverse with a warning if numerically singular:
    an eigenvalue at most ``1e-12`` times the larger of ``G``'s largest and
    ``scale``) for ``p <= 200``, sparse LU beyond (pseudo-inverse if exactly
    singular).
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
    scale = max(float(np.abs(w).max()), float(scale), np.finfo(float).tiny)
    if np.abs(w).min() <= 1e-12 * scale:
        warnings.warn(
            "beta / vol is (numerically) an eigenvalue of the constraint matrix "
            "projected on the graph's trivial eigenvectors (e.g. beta = 0 with "
            "as many must-links as cannot-links); the pencil is nearly "
            "singular and a pseudo-inverse is used, which can miss feasible "
            "eigenvectors: move beta slightly.",
            UserWarning,
            stacklevel=user_stacklevel(),
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


def _theta_scale(pencil):
    r"""Row-sum bound of :math:`\|\bar B\|`, the scale of :math:`\theta`."""
    return _constraint_scale(pencil.Q_bar, pencil.beta_scaled)


def _constraint_scale(Q_bar, beta_scaled):
    r"""Row-sum bound of :math:`\|\bar Q - \beta/\mathrm{vol}\,I\|`
    (positive)."""
    q = float(abs(Q_bar).sum(axis=1).max()) if Q_bar.nnz else 0.0
    return max(q + abs(beta_scaled), np.finfo(float).tiny)


def _symmetric_operator(n, f):
    return LinearOperator(
        (n, n), matvec=f, matmat=f, rmatvec=f, rmatmat=f, dtype=np.float64
    )
