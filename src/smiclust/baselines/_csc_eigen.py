r"""Feasible eigenvectors of the CSC pencil, from the reduced pencil's top.

The feasible eigenvectors of smallest :math:`\lambda` are those of largest
:math:`\theta = 1/\lambda` of :class:`~._csc_pencil.ReducedPencil`
:math:`S x = \theta M x`. :func:`_largest_theta` computes them with sparse
factorisations only (ARPACK in regular-inverse mode, then shift-invert above
the spectrum located by spectrum slicing, then LOBPCG);
:func:`feasible_eigenvectors` maps them back, drops the trivial ones and ranks
the rest by cost, after the zero-cost cuts of a disconnected graph
(:func:`null_space_cuts`).
"""

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
from scipy.sparse.linalg import (
    ArpackError,
    ArpackNoConvergence,
    LinearOperator,
    eigsh,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..eigensolvers import (
    DENSE_MAX_SAMPLES,
    arpack_generator,
    leading_eigenvectors,
    lobpcg_largest,
    peak_signs,
    start_block,
)
from ..utils import user_stacklevel
from ._csc_pencil import _symmetric_operator, _theta_scale
from ._csc_slicing import _Slicer

__all__ = [
    "null_space_cuts",
    "feasible_eigenvectors",
    "FeasibleEigenvectors",
]

#: Relative thresholds: an eigenvector is trivial when its cost
#: :math:`v^\top\bar L v / v^\top v` is below ``_TRIVIAL_COST`` or when
#: :math:`u = D^{-1/2}v` has no entry of one of the two signs beyond
#: ``_SIGN_TOL * max|u|``.
_TRIVIAL_COST = 1e-10
_SIGN_TOL = 1e-8

#: :math:`\theta` below this fraction of :func:`_theta_scale` counts as 0
#: (:math:`\lambda = 1/\theta` numerically infinite, not feasible).
_POSITIVE_THETA = 1e-10


#: Up to this many samples the shift-invert stage runs first: its sparse
#: factorisation includes the links, whose fill-in grows quickly with ``n``.
_SLICING_FIRST_MAX_SAMPLES = 2000

#: Above :data:`_SLICING_FIRST_MAX_SAMPLES` it still runs first when there are at
#: most this many links per sample: the factorisation of
#: :math:`\sigma\bar L - \bar B` then has little more fill-in than the
#: Laplacian's, and shift-invert converges where stage 1 is slow (weak
#: bottlenecks). With more links the fill-in costs more than that, and stage 1,
#: which never factorises the links, goes first.
_SLICING_FIRST_MAX_LINKS_PER_SAMPLE = 2.5


def _slicing_first(pencil):
    """Whether the shift-invert stage runs before the regular-inverse one."""
    n_links = pencil.Q_bar.nnz / 2  # Q is symmetric with a zero diagonal
    return (
        pencil.n <= _SLICING_FIRST_MAX_SAMPLES
        or n_links <= _SLICING_FIRST_MAX_LINKS_PER_SAMPLE * pencil.n
    )


#: Default bounds of the ARPACK stages of the partial solver (``max_iter=None``):
#: restarts in regular-inverse mode and in shift-invert mode. LOBPCG runs at most
#: :data:`smiclust.eigensolvers.LOBPCG_MAX_ITER` iterations.
_MAX_ITER_REGULAR = 100
_MAX_ITER_SHIFT_INVERT = 1000


def _largest_theta(pencil, k, *, eigen_solver, random_state, tol, max_iter, counter):
    r"""The ``k`` largest eigenpairs ``(theta, X)`` of ``(S, M)`` (all if dense).

    ``counter`` (a one-element list) counts the vectors ``S`` is applied to.

    ``"arpack"`` runs three bounded stages, each falling back to the next with a
    :class:`~sklearn.exceptions.ConvergenceWarning` (stage 1 is skipped for
    ``n <= 2000`` or at most 2.5 links per sample, where stage 2's
    factorisation is cheap; see :func:`_slicing_first`):

    1. ARPACK, regular-inverse mode on :math:`(S, M)`, with
       :math:`M^{-1}` from a sparse LU of the grounded Laplacian (the links never
       enter a factorisation). Fast on well-connected graphs; slow when
       :math:`\bar L` has tiny eigenvalues (weak bottlenecks), which create
       huge negative :math:`\theta` that dominate the Krylov spectrum
       (:func:`_regular_inverse_stage`).
    2. ARPACK, shift-invert mode at :math:`\sigma > \theta_{\max}` found by
       spectrum slicing (:class:`~._csc_slicing._Slicer`, starting from stage
       1's largest converged :math:`\theta`): every :math:`\theta \le 0` is
       mapped into :math:`[-1/\sigma, 0)`, the largest :math:`\theta` to the
       extreme (:func:`_sliced_stages`).
    3. LOBPCG on :math:`(S, M - S/\sigma)` (positive definite for
       :math:`\sigma > \theta_{\max}`) preconditioned by its exact inverse, or on
       :math:`(S, M)` if slicing failed (:func:`_shifted_lobpcg_stage`).

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
    ops = pencil.operators(counter)
    if solver == "lobpcg":
        return _lobpcg(ops, start_block(rng, v0, k, None), tol, max_iter)
    if solver != "arpack":
        raise ValueError(
            "The 'eigen_solver' parameter must be a str among "
            f"{{'auto', 'arpack', 'lobpcg', 'dense'}}. Got {eigen_solver!r} "
            "instead."
        )
    partial_vals, partial_vecs = np.zeros(0), None
    if not _slicing_first(pencil):
        converged, theta, X = _regular_inverse_stage(ops, k, v0, tol, max_iter)
        if converged:
            return theta, X
        partial_vals, partial_vecs = theta, X
    return _sliced_stages(
        pencil, ops, k, rng, v0, partial_vals, partial_vecs, tol, max_iter
    )


def _regular_inverse_stage(ops, k, v0, tol, max_iter):
    r"""Stage 1 of :func:`_largest_theta`: ARPACK in regular-inverse mode.

    ``ops`` is ``(S, M, M^{-1})`` (:meth:`~._csc_pencil.ReducedPencil.operators`).

    Returns
    -------
    converged : bool
    theta : ndarray of shape (k,) or (m,)
        The eigenvalues; when not converged (after a
        :class:`~sklearn.exceptions.ConvergenceWarning`), the ``m`` that did.
    X : ndarray of shape (n, k) or (n, m), or None
        The eigenvectors (None when ARPACK gave none back).
    """
    S_op, M_op, Minv_op = ops
    try:
        theta, X = eigsh(
            S_op,
            k=k,
            M=M_op,
            Minv=Minv_op,
            which="LA",
            v0=v0,
            tol=tol,
            rng=arpack_generator(v0),
            maxiter=_MAX_ITER_REGULAR if max_iter is None else max_iter,
        )
    except ArpackError as err:  # includes ArpackNoConvergence
        converged = np.asarray(getattr(err, "eigenvalues", ()), dtype=np.float64)
        warnings.warn(
            f"ARPACK did not converge for the {k} feasible eigenvectors of "
            f"smallest lambda ({converged.size} converged; {_arpack_reason(err)}"
            "); falling back to shift-invert with spectrum slicing.",
            ConvergenceWarning,
            stacklevel=user_stacklevel(),
        )
        return False, converged, getattr(err, "eigenvectors", None)
    return True, theta, X


def _sliced_stages(pencil, ops, k, rng, v0, partial_vals, partial_vecs, tol, max_iter):
    r"""Stages 2 and 3 of :func:`_largest_theta`, from stage 1's partial result.

    A shift :math:`\sigma` above every :math:`\theta` is found by spectrum
    slicing, starting above the largest positive ``partial_vals``; ARPACK then
    runs in shift-invert mode at :math:`\sigma`, and LOBPCG if it fails. When
    slicing fails, LOBPCG runs on :math:`(S, M)`. The start blocks are drawn
    from ``rng`` in this order: one before the shift-invert stage, one after it
    fails.
    """
    slicer = _Slicer(pencil)
    positive = partial_vals[partial_vals > 0]
    lower = float(positive.max()) if positive.size else None
    guess = 2.0 * lower if lower is not None else _theta_scale(pencil)
    sigma, lu = slicer.upper_shift(lower, guess)
    X0 = start_block(rng, v0, k, partial_vecs)
    if sigma is None:
        warnings.warn(
            "Spectrum slicing failed (singular or pivoted factorisation); "
            "falling back to LOBPCG.",
            ConvergenceWarning,
            stacklevel=user_stacklevel(),
        )
        return _lobpcg(ops, X0, tol, max_iter)

    def shift_inverse(Y):
        return slicer.shift_inverse(lu, sigma, Y)

    S_op, M_op, _ = ops
    OPinv = _symmetric_operator(pencil.n, lambda Y: -shift_inverse(Y))
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
            rng=arpack_generator(X0[:, 0]),
            maxiter=_MAX_ITER_SHIFT_INVERT if max_iter is None else max_iter,
        )
    except ArpackError as err:  # includes ArpackNoConvergence
        converged = np.size(getattr(err, "eigenvalues", ()))
        warnings.warn(
            f"Shift-invert ARPACK did not converge ({converged} of {k} converged; "
            f"{_arpack_reason(err)}); falling back to LOBPCG.",
            ConvergenceWarning,
            stacklevel=user_stacklevel(),
        )
        X0 = start_block(rng, v0, k, getattr(err, "eigenvectors", None))
    return _shifted_lobpcg_stage(ops, sigma, shift_inverse, X0, rng, v0, tol, max_iter)


def _shifted_lobpcg_stage(ops, sigma, shift_inverse, X0, rng, v0, tol, max_iter):
    r"""Stage 3 of :func:`_largest_theta`: LOBPCG on :math:`(S, C)`,
    :math:`C = M - S/\sigma`, preconditioned by
    :math:`C^{-1} = \sigma(\sigma M - S)^{-1}` (``shift_inverse``).

    :math:`C` is positive definite for :math:`\sigma > \theta_{\max}`; the
    eigenvalues :math:`\tau = \sigma\theta / (\sigma - \theta)` are mapped back
    to :math:`\theta`. If LOBPCG cannot start (``C`` not positive definite on
    ``X0`` in floating point), it runs on :math:`(S, M)` from a new random
    block instead.
    """
    S_op, M_op, Minv_op = ops
    n = S_op.shape[0]
    C_op = _symmetric_operator(n, lambda Y: M_op @ Y - (S_op @ Y) / sigma)
    Cinv_op = _symmetric_operator(n, lambda Y: sigma * shift_inverse(Y))
    try:
        tau, X = lobpcg_largest(
            S_op, X0, B=C_op, M=Cinv_op, tol=tol, max_iter=max_iter
        )
    except (ValueError, la.LinAlgError) as err:
        # LOBPCG could not C-orthonormalise its block ("linearly dependent
        # initial approximations"): C is not positive definite on it, i.e. the
        # sliced sigma was not above theta_max in floating point.
        warnings.warn(
            f"LOBPCG on the shifted pencil failed ({err}); running it on "
            "(S, M) from a random start instead.",
            ConvergenceWarning,
            stacklevel=user_stacklevel(),
        )
        X0 = start_block(rng, v0, X0.shape[1], None)
        return _lobpcg(ops, X0, tol, max_iter)
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


def _lobpcg(ops, X0, tol, max_iter):
    """LOBPCG on :math:`(S, M)` preconditioned by :math:`M^{-1}` (``ops``)."""
    S_op, M_op, Minv_op = ops
    return lobpcg_largest(
        S_op,
        X0,
        B=M_op,
        M=Minv_op,
        tol=tol,
        max_iter=max_iter,
    )


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
    V = V * peak_signs(V / pencil.sqrt_degrees[:, None])
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
