"""Eigen-solvers shared by SMIC, Spectral Learning and CSC.

Leading eigenpairs of symmetric operators that are applied, never formed:
ARPACK with a bounded LOBPCG fallback (:func:`leading_eigenvectors`), the
LOBPCG step on its own, possibly generalised (:func:`lobpcg_largest`), and the
deterministic sign rule of eigenvectors (:func:`peak_signs`). Prior validation
of inputs is assumed.
"""

import hashlib
import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import (
    ArpackError,
    ArpackNoConvergence,
    LinearOperator,
    eigsh,
    lobpcg,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .utils import single_threaded_blas, user_stacklevel

__all__ = [
    "DENSE_MAX_SAMPLES",
    "leading_eigenvectors",
    "split_by_components",
    "lobpcg_largest",
    "start_block",
    "peak_signs",
    "sign_flip",
    "arpack_generator",
]

#: Inputs with at most this many samples are solved densely (ARPACK needs
#: ``k < n`` and is unreliable on tiny problems); ``n_samples <= 3 * k`` is
#: solved densely as well.
DENSE_MAX_SAMPLES = 20

#: LOBPCG iterations when ``max_iter`` is not given.
LOBPCG_MAX_ITER = 500

#: ARPACK restarts when ``max_iter`` is not given: ``max(ARPACK_MIN_RESTARTS,
#: n)``. Leading eigenvalues shared by more connected components than the
#: Lanczos basis holds (the degree-normalised kernel gives every component
#: the same largest eigenvalue) never converge at machine precision; SciPy's
#: bound of ``10 n`` restarts then costs ten times as long before the LOBPCG
#: fallback. On the shipped data sets no solve of the default uses more than
#: 6 % of this bound (benchmarks/eigen_restarts.py).
ARPACK_MIN_RESTARTS = 1000

#: Relative singular value below which a block's share of the given
#: eigenvectors is dropped by :func:`split_by_components`.
_SHARE_RCOND = 1e-10


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
        (reference only). ``"arpack"`` with ``k = n`` (every eigenpair, which
        ARPACK cannot give) runs the dense solver. If ARPACK does not
        converge within ``max_iter`` (or fails, e.g. ARPACK error 3), a
        :class:`~sklearn.exceptions.ConvergenceWarning` is issued and LOBPCG is
        run from ARPACK's partial result (or the start vector); if that does
        not converge either, its result is returned with a second warning.
        Every solver is bounded.
    random_state : int, RandomState instance or None, default=None
        Draws the ARPACK start vector (uniform in [-1, 1], as scikit-learn's
        spectral embedding does) and the rest of LOBPCG's start block.
        ARPACK's own draws (a new start vector for each further copy of a
        repeated eigenvalue) come from :func:`arpack_generator` of the start
        vector, so equal calls return equal eigenvectors even then.
    tol : float, default=0.0
        Relative accuracy; 0 means machine precision for ARPACK and
        ``n * sqrt(eps)`` for LOBPCG.
    max_iter : int, default=None
        ARPACK restarts (``None``: ``max(1000, n)``,
        :data:`ARPACK_MIN_RESTARTS`) and LOBPCG iterations (``None``: 500,
        :data:`LOBPCG_MAX_ITER`).
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

    Notes
    -----
    A Krylov solver can return fewer copies of a repeated eigenvalue than
    it has, and the next eigenvalue in place of the others (for instance 2
    repeated by 30 lone rows beside a larger block). Which copies it
    returns, and which basis of them, is fixed by ``random_state``.
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
    if solver == "dense" or (solver == "arpack" and k >= n):
        # ARPACK needs k < n: every eigenpair is asked, the dense solve gives it
        return _dense_eigh(operator, k)
    # The iterations are small dense operations on n x ncv blocks between
    # sparse products: BLAS threads only add hand-offs.
    with single_threaded_blas():
        return _iterative_eigenpairs(
            operator, k, solver, rng, v0, tol, max_iter, warm_start
        )


def split_by_components(operator, eigenvalues, eigenvectors, component):
    r"""Leading eigenpairs of a block-diagonal operator, with the share of
    the given eigenvectors on each cluster-sized component as its own
    direction.

    A Krylov solver (ARPACK) started from one vector sees one direction of
    each eigenspace: when two blocks of :math:`A` (connected components of
    its graph) share an eigenvalue, as every component does for the
    degree-normalised kernel, it returns one mix of their eigenvectors and
    then the next eigenvalue. The share :math:`v|_B` of such a mix on a
    union :math:`B` of components is itself an eigenvector, because
    :math:`A` is block diagonal. Components of at least ``n / (2 k)`` rows
    (``k`` eigenvectors; a cluster's size or half of it) are the blocks
    :math:`B`, the smaller ones go with the largest: a clump of a few rows
    is not a cluster, and stays in the direction that mixes it with the
    largest component. The shares of every column on the blocks are
    orthonormalised into :math:`Q`, and the Rayleigh-Ritz pairs of
    :math:`Q^\top A Q` replace the given ones. The span of :math:`Q` holds
    the given vectors, so no Ritz value is below the corresponding given
    one. With fewer than two cluster-sized components the input is
    returned as it is.

    The shares on different blocks have disjoint rows and :math:`A` maps
    each block to itself, so :math:`Q^\top A Q` is block diagonal: each
    block is orthonormalised and solved on its own rows (an SVD of its
    ``(n_B, k)`` shares, then the Ritz pairs of a matrix of at most
    ``k x k``), never an ``n x kB`` matrix. Shares whose singular value is
    below ``1e-10`` times the largest of all blocks are dropped, as
    :func:`scipy.linalg.orth` would drop them from all shares at once. The
    Ritz values are ranked in descending order; equal values keep the order
    of the blocks (by component) and of each block's solve.

    Parameters
    ----------
    operator : LinearOperator or sparse matrix of shape (n, n)
        Symmetric and block diagonal over ``component``.
    eigenvalues : ndarray of shape (k,)
    eigenvectors : ndarray of shape (n, k)
        Orthonormal columns.
    component : ndarray of shape (n,)
        Connected component of each row (``scipy.sparse.csgraph``).

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
        Descending.
    eigenvectors : ndarray of shape (n, k)
        Orthonormal columns.
    """
    n, k = eigenvectors.shape
    sizes = np.bincount(component)
    large = np.flatnonzero(2 * k * sizes >= n)
    if k == 0 or large.size < 2:
        return eigenvalues, eigenvectors
    block = np.full(sizes.size, large[np.argmax(sizes[large])])
    block[large] = large
    row_block = block[component]
    rows_of = [np.flatnonzero(row_block == b) for b in large]
    svds = [scipy.linalg.svd(eigenvectors[rows], full_matrices=False)[:2]
            for rows in rows_of]
    largest = max(float(s.max(initial=0.0)) for _, s in svds)
    bases = [U[:, s > _SHARE_RCOND * largest] for U, s in svds]
    if sum(U.shape[1] for U in bases) <= k:  # the shares span the given vectors
        return eigenvalues, eigenvectors
    values, vectors = [], []  # per block: Ritz values, Ritz vectors on its rows
    for rows, U in zip(rows_of, bases):
        Q = np.zeros((n, U.shape[1]))
        Q[rows] = U
        H = U.T @ np.asarray(operator @ Q)[rows]
        vals, Z = np.linalg.eigh(0.5 * (H + H.T))
        values.append(vals)
        vectors.append(U @ Z)
    owner = np.concatenate([np.full(v.size, b) for b, v in enumerate(values)])
    column = np.concatenate([np.arange(v.size) for v in values])
    all_values = np.concatenate(values)
    top = np.argsort(-all_values, kind="stable")[:k]
    out = np.zeros((n, k))
    for j, i in enumerate(top):
        out[rows_of[owner[i]], j] = vectors[owner[i]][:, column[i]]
    return all_values[top], out


def _iterative_eigenpairs(operator, k, solver, rng, v0, tol, max_iter, warm_start):
    """ARPACK (LOBPCG fallback) or LOBPCG; see :func:`leading_eigenvectors`."""
    if solver == "arpack":
        restarts = max_iter
        if restarts is None:
            restarts = max(ARPACK_MIN_RESTARTS, operator.shape[0])
        try:
            vals, vecs = eigsh(
                operator, k=k, which="LA", v0=v0, tol=tol, maxiter=restarts,
                rng=arpack_generator(v0),
            )
        except ArpackNoConvergence as err:
            warnings.warn(
                f"ARPACK did not converge for the {k} leading eigenvectors "
                f"({len(err.eigenvalues)} converged); falling back to LOBPCG.",
                ConvergenceWarning,
                stacklevel=user_stacklevel(),
            )
            X0 = start_block(rng, v0, k, err.eigenvectors)
            return _orthonormal_lobpcg(operator, X0, tol, max_iter)
        except ArpackError as err:  # e.g. error 3, no shifts could be applied
            warnings.warn(
                f"ARPACK failed for the {k} leading eigenvectors "
                f"({str(err).split(':')[0]}); falling back to LOBPCG.",
                ConvergenceWarning,
                stacklevel=user_stacklevel(),
            )
            return _orthonormal_lobpcg(
                operator, start_block(rng, v0, k, None), tol, max_iter
            )
        return _descending(vals, vecs)
    if solver == "lobpcg":
        X0 = start_block(rng, v0, k, warm_start)
        return _orthonormal_lobpcg(operator, X0, tol, max_iter)
    raise ValueError(
        "The 'eigen_solver' parameter must be a str among "
        f"{{'auto', 'arpack', 'lobpcg', 'dense'}}. Got {solver!r} instead."
    )


def arpack_generator(v0):
    """The generator of ARPACK's own random vectors, fixed by its start vector.

    ARPACK finds one direction of an eigenspace from each start vector; for
    every further copy of a repeated eigenvalue (equal components of a
    graph, for instance lone samples) it asks for a new random vector, which
    SciPy draws from the generator given as ``eigsh(..., rng=...)`` (from
    fresh operating-system entropy when none is given, so that two equal
    calls could return different bases of the repeated eigenspace). Seeding
    it from a hash of ``v0``, itself drawn from the caller's
    ``random_state``, makes equal calls return equal eigenvectors without
    drawing anything more from ``random_state``.

    Parameters
    ----------
    v0 : ndarray of shape (n,)
        The start vector given to ARPACK.

    Returns
    -------
    rng : numpy.random.Generator
    """
    start = np.ascontiguousarray(v0, dtype=np.float64)
    digest = hashlib.blake2b(start.tobytes(), digest_size=16).digest()
    return np.random.default_rng(int.from_bytes(digest, "little"))


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


def start_block(rng, v0, k, partial):
    """LOBPCG start block of ``k`` columns.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the Gaussian noise.
    v0 : ndarray of shape (n,)
        The first column.
    k : int
        Number of columns.
    partial : ndarray of shape (n, m) or None
        A partial result (e.g. ARPACK's, or a warm start); its first
        ``min(m, k)`` columns (real parts) overwrite the block's first ones.

    Returns
    -------
    X0 : ndarray of shape (n, k)
        The first ``min(m, k)`` columns are ``partial``'s; column 0 is ``v0``
        when ``partial`` is None or empty; every other column is Gaussian
        noise.
    """
    X0 = rng.standard_normal((v0.shape[0], k))
    X0[:, 0] = v0
    if partial is not None and np.size(partial):
        m = min(partial.shape[1], k)
        X0[:, :m] = np.real(partial[:, :m])
    return X0


def lobpcg_largest(A, X0, *, B=None, M=None, tol=0.0, max_iter=None):
    r"""Largest eigenpairs of :math:`A x = \lambda B x` by LOBPCG, bounded.

    Parameters
    ----------
    A : LinearOperator or sparse matrix of shape (n, n)
        Symmetric.
    X0 : ndarray of shape (n, k)
        Start block (:func:`start_block`).
    B : LinearOperator, default=None
        Symmetric positive definite right-hand side (``None``: identity).
    M : LinearOperator, default=None
        Preconditioner.
    tol : float, default=0.0
        0 means LOBPCG's default, ``n * sqrt(eps)``.
    max_iter : int, default=None
        ``None`` means :data:`LOBPCG_MAX_ITER`. When the tolerance is not
        reached within it, a :class:`~sklearn.exceptions.ConvergenceWarning`
        (at the first line outside smiclust) says so and the estimate is
        returned.

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
    eigenvectors : ndarray of shape (n, k)
        As LOBPCG returns them (``B``-orthonormal, in its order).
    """
    maxiter = LOBPCG_MAX_ITER if max_iter is None else int(max_iter)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vals, vecs = lobpcg(
            A, X0, B=B, M=M, largest=True, tol=tol or None, maxiter=maxiter
        )
    if any(
        "not reaching the requested tolerance" in str(w.message)
        or "did not converge" in str(w.message)
        for w in caught
    ):
        warnings.warn(
            f"LOBPCG did not reach the requested tolerance in {maxiter} "
            "iterations; returning its current estimate of the leading "
            "eigenvectors.",
            ConvergenceWarning,
            stacklevel=user_stacklevel(),
        )
    return np.asarray(vals), np.asarray(vecs)


def _orthonormal_lobpcg(operator, X0, tol, max_iter):
    """:func:`lobpcg_largest`, then orthonormalised and re-ordered by Rayleigh
    quotients (descending)."""
    _, vecs = lobpcg_largest(operator, X0, tol=tol, max_iter=max_iter)
    vecs, _ = np.linalg.qr(vecs)
    vals = np.einsum("ij,ij->j", vecs, operator @ vecs)
    return _descending(vals, vecs)


def _descending(vals, vecs):
    order = np.argsort(-vals, kind="stable")
    return np.asarray(vals)[order], np.asarray(vecs)[:, order]


def peak_signs(vectors):
    """Column signs that make each column's largest-magnitude entry positive.

    The rule of scikit-learn's private ``_deterministic_vector_sign_flip``: the
    first of several largest entries decides; a zero column gets +1.

    Parameters
    ----------
    vectors : array-like of shape (n, n_columns)

    Returns
    -------
    signs : ndarray of shape (n_columns,)
        Entries in {-1, 1}.
    """
    V = np.asarray(vectors)
    if V.shape[1] == 0:
        return np.ones(0)
    peak = V[np.argmax(np.abs(V), axis=0), np.arange(V.shape[1])]
    return np.where(peak < 0, -1.0, 1.0)


def sign_flip(vectors):
    """Columns multiplied by :func:`peak_signs`.

    Parameters
    ----------
    vectors : array-like of shape (n, n_columns)
        Not modified.

    Returns
    -------
    flipped : ndarray of shape (n, n_columns)
        A new float64 array whose every column's largest-magnitude entry is
        positive.
    """
    V = np.array(vectors, dtype=np.float64, copy=True)
    if V.size == 0:
        return V
    return V * peak_signs(V)
