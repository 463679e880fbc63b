r"""Constrained spectral clustering for a fixed affinity and links.

:func:`solve_csc` chooses :math:`\beta`, solves the pencil
(:func:`~._csc_eigen.feasible_eigenvectors` of :func:`~._csc_pencil.reduced_pencil`),
falls back to the unconstrained problem when no feasible eigenvector is left,
and assigns labels by thresholding or k-means; the result is a
:class:`CSCSolution`.
"""

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state

from ..utils import draw_seeds, user_stacklevel
from ._csc_eigen import feasible_eigenvectors
from ._csc_pencil import (
    _degrees,
    _normalize,
    auto_beta,
    constraint_eigenvalues,
    reduced_pencil,
)
from ._spectral_learning import drop_negligible_edges

__all__ = ["CSCSolution", "solve_csc"]

#: Entries of the chosen eigenvector within this fraction of its largest
#: magnitude are 0 for the two-way threshold: on kNN components that carry
#: no link the lowest-cost vector is 0 in exact arithmetic, and the solvers
#: leave round-off there (1e-23 to 1e-14 of the largest entry on parkinson at
#: t = 1, against 1e-4 and above for every other entry) whose sign would
#: split those components at random.
ZERO_ENTRY = 1e-10


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
    ``Q`` from :func:`~._csc_pencil.constraint_matrix`, ``n_clusters >= 2``,
    ``beta`` "auto" or a float, ``n_candidates`` None (``max(20, 4 (K - 1))``)
    or int ``>= 1``.

    ``random_state`` gives two seeds, in this order: the eigen-solvers' and
    k-means'.

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
    c = int(n_clusters)
    rng = check_random_state(random_state)
    solver_seed, kmeans_seed = draw_seeds(rng, 2)
    n_vectors = max(c - 1, 1)
    if n_candidates is None:
        n_candidates = max(20, 4 * n_vectors)
    Q = sp.csr_matrix(Q, dtype=np.float64)
    beta_value = _beta_value(A, Q, beta, n_vectors, random_state=solver_seed)
    solver_options = dict(
        n_candidates=n_candidates,
        n_vectors=n_vectors,
        eigen_solver=eigen_solver,
        random_state=solver_seed,
        tol=tol,
        max_iter=max_iter,
    )
    found, beta_value, constrained, n_applied = _feasible_or_unconstrained(
        A, Q, beta_value, solver_options
    )
    lam, V, costs = found.eigenvalues, found.vectors, found.costs
    if V.shape[1] < n_vectors and V.shape[1] > 0:
        warnings.warn(
            f"Only {V.shape[1]} feasible non-trivial eigenvector(s) found, "
            f"fewer than n_clusters - 1 = {n_vectors}; all of them are used.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    lam, V, costs = lam[:n_vectors], V[:, :n_vectors], costs[:n_vectors]
    U = V / np.sqrt(_degrees(A))[:, None]
    return CSCSolution(
        labels=_assign_labels(U, c, assign_labels, n_init, kmeans_seed),
        embedding=U,
        eigenvalues=lam,
        costs=costs,
        beta=float(beta_value),
        n_feasible=int(found.n_feasible),
        constrained=bool(constrained),
        n_operator_applications=int(n_applied),
    )


def _beta_value(A, Q, beta, n_vectors, *, random_state):
    r""":math:`\beta` for the links ``Q`` (``beta`` as given to :func:`solve_csc`).

    Without links, the unconstrained :math:`-\mathrm{vol}`; ``"auto"``:
    :func:`~._csc_pencil.auto_beta`; a float is checked against the feasibility
    bound :math:`\lambda_{\max}(\bar Q)\,\mathrm{vol}` (``ValueError``).
    """
    vol = float(_degrees(A).sum())
    if Q.nnz == 0:
        return _unconstrained_beta(vol)
    Q_bar = _normalize(Q, 1.0 / np.sqrt(_degrees(A)))
    q_vals = constraint_eigenvalues(Q_bar, n_vectors, random_state=random_state)
    if isinstance(beta, str):
        return auto_beta(q_vals, vol)
    beta_value = float(beta)
    bound = float(q_vals[0]) * vol
    if beta_value >= bound:
        raise ValueError(
            "The 'beta' parameter of ConstrainedSpectralClustering must be "
            "below the feasibility bound lambda_max(Q_bar) * vol = "
            f"{bound!r} for these links. Got {beta!r} instead."
        )
    return beta_value


def _feasible_or_unconstrained(A, Q, beta_value, solver_options):
    r"""Feasible eigenvectors of the pencil of ``(A, Q, beta_value)``; if the
    links leave none, those of the unconstrained problem, with a
    ``UserWarning``.

    Returns
    -------
    found : FeasibleEigenvectors
    beta_value : float
        The :math:`\beta` of ``found``.
    constrained : bool
        Whether ``found`` solves the problem with the links.
    n_operator_applications : int
        Summed over both solves.
    """
    constrained = Q.nnz > 0
    pencil = reduced_pencil(A, Q, beta_value, drop_negligible=False)
    found = feasible_eigenvectors(pencil, constrained=constrained, **solver_options)
    n_applied = found.n_operator_applications
    if constrained and found.vectors.shape[1] == 0:
        warnings.warn(
            f"No feasible non-trivial eigenvector for beta={beta_value!r}; "
            "falling back to unconstrained normalised spectral clustering.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        n = A.shape[0]
        constrained = False
        beta_value = _unconstrained_beta(float(_degrees(A).sum()))
        pencil = reduced_pencil(
            A, sp.csr_matrix((n, n)), beta_value, drop_negligible=False
        )
        found = feasible_eigenvectors(pencil, constrained=False, **solver_options)
        n_applied += found.n_operator_applications
    return found, beta_value, constrained, n_applied


def _assign_labels(U, n_clusters, assign_labels, n_init, random_state):
    """Labels from the embedding ``U``, contiguous from 0.

    ``"threshold"``: the sign of the first column, entries within
    :data:`ZERO_ENTRY` times its largest magnitude counting as 0 (the rest
    cluster); ``"kmeans"``: k-means; ``"auto"``: threshold for two clusters,
    k-means otherwise. An empty embedding puts every sample in cluster 0.
    """
    mode = assign_labels
    if mode == "auto":
        mode = "threshold" if n_clusters == 2 else "kmeans"
    if U.shape[1] == 0:
        labels = np.zeros(U.shape[0], dtype=np.intp)
    elif mode == "threshold":
        u = U[:, 0]
        labels = (u > ZERO_ENTRY * np.abs(u).max(initial=0.0)).astype(np.intp)
    else:
        km = KMeans(n_clusters=n_clusters, n_init=n_init, random_state=random_state)
        labels = km.fit_predict(U)
    _, labels = np.unique(labels, return_inverse=True)
    return labels.astype(np.intp).ravel()
