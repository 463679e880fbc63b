"""Spectral Learning and constrained spectral clustering against dense references.

The references are the papers' algorithms written the slow, obvious way: dense
matrices filled entry by entry, ``numpy.linalg.eigh`` of :math:`N` for Spectral
Learning and the complete generalised eigenproblem for CSC. For CSC the complete
problem is solved by QZ (``scipy.linalg.eig``), as the authors' ``eig`` in
MATLAB does: ``scipy.linalg.eigh(L, Q - beta/vol I)`` itself cannot be used,
since it needs a positive definite right-hand matrix and neither matrix of the
CSC pencil is definite.
"""

import functools
import time
import warnings

import numpy as np
import pytest
import scipy.linalg as la
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from scipy.sparse.linalg import ArpackError, ArpackNoConvergence
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score

from smiclust import eigensolvers
from smiclust.baselines import (
    ConstrainedSpectralClustering,
    SpectralLearning,
    constrained_spectral_clustering,
    spectral_learning,
)
from smiclust.baselines import _csc_eigen as csc_module
from smiclust.baselines._csc_eigen import feasible_eigenvectors
from smiclust.baselines._csc_pencil import (
    constraint_matrix,
    dense_csc_pencil,
    reduced_pencil,
)
from smiclust.baselines._csc_slicing import _Slicer
from smiclust.baselines._spectral_learning import (
    drop_negligible_edges,
    normalize_rows,
    spectral_learning_embedding,
    spectral_learning_group_embedding,
    spectral_learning_labels,
)
from smiclust.constraints import count_violations, sample_links
from smiclust.kernels import local_scaling_kernel, modified_kernel
from smiclust.link_groups import closed_links, link_groups, off_group_kernel

ESTIMATORS = [SpectralLearning, ConstrainedSpectralClustering]


# --------------------------------------------------------------------------
# problems and dense references
# --------------------------------------------------------------------------


def _moons(seed=0, n=200):
    return make_moons(n_samples=n, noise=0.05, random_state=seed)


def _overlapping_blobs(seed=0):
    # connected kNN graph (the blobs touch), three classes
    return make_blobs(n_samples=150, centers=3, random_state=seed)


def _separated_blobs():
    rng = np.random.RandomState(0)
    centers = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    y = np.repeat(np.arange(3), 30)
    return centers[y] + rng.normal(scale=0.7, size=(90, 2)), y


def _dense_links(must, cannot, n):
    Q = np.zeros((n, n))
    for i, j in must:
        Q[i, j] = Q[j, i] = 1.0
    for i, j in cannot:
        Q[i, j] = Q[j, i] = -1.0
    return Q


def dense_sl_reference(K, must, cannot):
    """Kamvar et al. written out: A with links, N = (A + d_max I - D) / d_max."""
    A = K.toarray().copy()
    for i, j in must:
        A[i, j] = A[j, i] = 1.0
    for i, j in cannot:
        A[i, j] = A[j, i] = 0.0
    d = A.sum(axis=1)
    N = (A + d.max() * np.eye(len(d)) - np.diag(d)) / d.max()
    w, V = np.linalg.eigh(N)
    return w[::-1], V[:, ::-1], A


def dense_csc_reference(K, must, cannot, beta=None):
    """Wang & Davidson with the complete eigenproblem (QZ).

    Returns the beta used (half of lambda_max(Q_bar) vol when None), the
    feasible non-trivial eigenvalues, vectors v (v^T v = vol) and costs, lowest
    cost first, and the degrees.
    """
    A = K.toarray()
    n = A.shape[0]
    Q = _dense_links(must, cannot, n)
    d = A.sum(axis=1)
    vol = d.sum()
    s = 1.0 / np.sqrt(d)
    L_bar = np.eye(n) - s[:, None] * A * s[None, :]
    Q_bar = s[:, None] * Q * s[None, :]
    if beta is None:
        beta = 0.5 * np.linalg.eigvalsh(Q_bar).max() * vol
    w, V = la.eig(L_bar, Q_bar - beta / vol * np.eye(n))
    real = np.isfinite(w) & (np.abs(w.imag) <= 1e-8 * np.maximum(1, np.abs(w)))
    feasible = real & (w.real > 1e-9)
    w, V = w.real[feasible], V.real[:, feasible]
    V = V / np.linalg.norm(V, axis=0) * np.sqrt(vol)
    costs = np.einsum("ij,ij->j", V, L_bar @ V)
    U = V * s[:, None]
    cut = (U > 1e-8 * np.abs(U).max(axis=0)).any(axis=0) & (
        U < -1e-8 * np.abs(U).max(axis=0)
    ).any(axis=0)
    keep = (costs > 1e-10 * vol) & cut
    w, V, costs = w[keep], V[:, keep], costs[keep]
    order = np.argsort(costs)
    return beta, w[order], V[:, order], costs[order], d


def _auto_beta(K, must, cannot, c):
    """Half of lambda_{c-1}(Q_bar) vol, Q_bar formed densely."""
    A = K.toarray()
    d = A.sum(axis=1)
    s = 1.0 / np.sqrt(d)
    Q_bar = s[:, None] * _dense_links(must, cannot, len(d)) * s[None, :]
    return 0.5 * np.sort(np.linalg.eigvalsh(Q_bar))[::-1][c - 2] * d.sum()


def _abs_cos(a, b):
    return abs(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b))


def _subspace_distance(V, W):
    """Spectral norm of the difference of the orthogonal projectors."""
    Qv, _ = np.linalg.qr(V)
    Qw, _ = np.linalg.qr(W)
    return np.linalg.norm(Qv @ Qv.T - Qw @ Qw.T, 2)


# --------------------------------------------------------------------------
# scikit-learn compatibility
# --------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_sparse_input_rejected_with_type_error(cls):
    X = sp.random(30, 3, density=0.5, random_state=0, format="csr")
    with pytest.raises(TypeError, match="[Ss]parse"):
        cls().fit(X)
    assert cls().__sklearn_tags__().input_tags.sparse is False


# --------------------------------------------------------------------------
# Spectral Learning
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "problem, t, c, n_links",
    [
        ("moons", 10, 2, 0),
        ("moons", 10, 2, 30),
        ("blobs", 7, 3, 20),
        ("blobs", 7, 3, 0),
    ],
)
@pytest.mark.parametrize("solver", ["arpack", "lobpcg"])
def test_sl_embedding_matches_dense_eigh(problem, t, c, n_links, solver):
    X, y = _moons() if problem == "moons" else _overlapping_blobs()
    must, cannot = sample_links(y, n_links, random_state=1)
    K = local_scaling_kernel(X, t)
    w, V_ref, A_ref = dense_sl_reference(K, must, cannot)
    model = SpectralLearning(
        c,
        n_neighbors=t,
        eigen_solver=solver,
        tol=1e-10 if solver == "lobpcg" else 0.0,
        random_state=0,
    ).fit(X, must_link=must, cannot_link=cannot)
    assert_allclose(model.affinity_matrix_.toarray(), A_ref, atol=1e-14)
    assert_allclose(model.eigenvalues_, w[:c], rtol=1e-8, atol=1e-10)
    result = spectral_learning_embedding(
        model.affinity_matrix_, c, eigen_solver=solver, tol=1e-10, random_state=0
    )
    # compare subspaces: well defined because of the gap after the c-th value
    assert w[c - 1] - w[c] > 1e-4
    assert _subspace_distance(result.eigenvectors, V_ref[:, :c]) < 1e-5
    # row-normalised; equal up to column signs, so compare Gram matrices
    Y = normalize_rows(result.eigenvectors)
    assert_allclose(model.embedding_ @ model.embedding_.T, Y @ Y.T, atol=1e-6)
    assert_allclose(np.linalg.norm(model.embedding_, axis=1), 1.0)


def test_sl_many_components_uses_component_indicators():
    X, y = _separated_blobs()
    model = SpectralLearning(2, n_neighbors=4, random_state=0).fit(X)
    assert model.n_graph_components_ == 3
    w, V_ref, A = dense_sl_reference(local_scaling_kernel(X, 4), [], [])
    # eigenvalue 1 three times: the choice within it is free; ours are the
    # indicators of the two largest components (ties: lowest sample index)
    assert_allclose(w[:3], 1.0)
    assert_allclose(model.eigenvalues_, [1.0, 1.0])
    result = spectral_learning_embedding(model.affinity_matrix_, 2)
    assert result.n_operator_applications == 0
    N = (A + A.sum(1).max() * np.eye(90) - np.diag(A.sum(1))) / A.sum(1).max()
    assert_allclose(N @ result.eigenvectors, result.eigenvectors, atol=1e-12)
    expected = np.zeros((90, 2))
    expected[y == 0, 0] = expected[y == 1, 1] = 1 / np.sqrt(30)
    assert_allclose(result.eigenvectors, expected, atol=1e-12)
    # three clusters: exactly the components
    model3 = SpectralLearning(3, n_neighbors=4, random_state=0).fit(X)
    assert adjusted_rand_score(y, model3.labels_) == 1.0


@pytest.mark.parametrize(
    "problem, t, c, n_links",
    [("moons", 10, 2, 40), ("blobs", 7, 3, 30), ("blobs", 7, 5, 60),
     ("blobs", 7, 3, 0)],
)
@pytest.mark.parametrize("solver", ["arpack", "dense"])
def test_sl_group_embedding_matches_the_closed_pairs_written_out(
    problem, t, c, n_links, solver
):
    # Kamvar et al.'s affinity with every pair the closure implies, dense,
    # against the operator that never forms the groups' blocks
    X, y = _moons() if problem == "moons" else _overlapping_blobs()
    must, cannot = sample_links(y, n_links, random_state=2)
    K = local_scaling_kernel(X, t)
    groups = link_groups(must, cannot, len(y))
    closed_must, closed_cannot = closed_links(groups)
    w, V_ref, _ = dense_sl_reference(K, closed_must, closed_cannot)
    result = spectral_learning_group_embedding(
        off_group_kernel(K, groups), groups, c, eigen_solver=solver, tol=1e-12,
        random_state=0,
    )
    assert_allclose(result.eigenvalues, w[:c], rtol=1e-8, atol=1e-10)
    assert w[c - 1] - w[c] > 1e-4
    assert _subspace_distance(result.eigenvectors, V_ref[:, :c]) < 1e-6


def test_sl_group_embedding_components_join_through_groups():
    # three separated blobs, must-links joining blob 0 and blob 1: the
    # explicit affinity has two components, so must the operator's
    X, y = _separated_blobs()
    K = local_scaling_kernel(X, 4)
    must = np.array([[0, 30], [1, 31]])
    groups = link_groups(must, np.empty((0, 2), dtype=int), 90)
    result = spectral_learning_group_embedding(off_group_kernel(K, groups), groups, 2)
    explicit = spectral_learning_embedding(
        modified_kernel(K, *closed_links(groups)), 2
    )
    assert result.n_components == explicit.n_components == 2
    assert result.n_operator_applications == 0
    assert_allclose(result.eigenvectors, explicit.eigenvectors, atol=1e-12)
    expected = np.zeros((90, 2))
    expected[y < 2, 0] = 1 / np.sqrt(60)
    expected[y == 2, 1] = 1 / np.sqrt(30)
    assert_allclose(result.eigenvectors, expected, atol=1e-12)


def test_sl_labels_match_the_explicit_affinity():
    X, y = _overlapping_blobs()
    K = local_scaling_kernel(X, 7)
    # without links: steps 1-4 of the estimator on the same kernel
    labels = spectral_learning_labels(K, None, 3, random_state=0)
    embedding = normalize_rows(
        spectral_learning_embedding(K, 3, random_state=0).eigenvectors)
    reference = KMeans(3, n_init=10, random_state=0).fit_predict(embedding)
    assert adjusted_rand_score(reference, labels) == 1.0
    assert set(labels) == {0, 1, 2}
    # with closed links: the labels of the explicit affinity of every
    # implied pair (the slow reference)
    must, cannot = sample_links(y, 40, random_state=3)
    groups = link_groups(must, cannot, len(y))
    linked = spectral_learning_labels(K, groups, 3, random_state=0)
    explicit = spectral_learning_embedding(
        modified_kernel(K, *closed_links(groups)), 3, random_state=0
    )
    reference = KMeans(3, n_init=10, random_state=0).fit_predict(
        normalize_rows(explicit.eigenvectors))
    assert adjusted_rand_score(reference, linked) == 1.0
    assert not np.array_equal(linked, labels)


def test_sl_labels_run_k_means_at_one_openmp_thread(monkeypatch):
    # the vote's small k-means: OpenMP threads only contend; restored after
    from threadpoolctl import threadpool_info, threadpool_limits

    from smiclust.baselines import _spectral_learning as sl_module

    def openmp_threads():
        return [i["num_threads"] for i in threadpool_info()
                if i["user_api"] == "openmp"]

    seen = []
    real = sl_module.embedding_labels

    def spy(*args, **kwargs):
        seen.append(openmp_threads())
        return real(*args, **kwargs)

    monkeypatch.setattr(sl_module, "embedding_labels", spy)
    X, _ = _overlapping_blobs()
    K = local_scaling_kernel(X, 7)
    with threadpool_limits(limits=2, user_api="openmp"):
        before = openmp_threads()
        labels = spectral_learning_labels(K, None, 3, random_state=0)
        assert openmp_threads() == before
    assert seen and seen[0] and all(n == 1 for n in seen[0])
    unlimited = real(normalize_rows(
        spectral_learning_embedding(K, 3, random_state=0).eigenvectors), 3,
        random_state=0)
    assert_array_equal(labels, unlimited)


def test_sl_arpack_non_convergence_falls_back(monkeypatch):
    def failing_eigsh(*args, **kwargs):
        raise ArpackNoConvergence("no", np.empty(0), np.empty((args[0].shape[0], 0)))

    monkeypatch.setattr(eigensolvers, "eigsh", failing_eigsh)
    X, y = _overlapping_blobs()
    must, cannot = sample_links(y, 20, random_state=0)
    with pytest.warns(ConvergenceWarning, match="falling back to LOBPCG"):
        model = SpectralLearning(
            3, n_neighbors=7, eigen_solver="arpack", random_state=0
        ).fit(X, must_link=must, cannot_link=cannot)
    w, _, _ = dense_sl_reference(local_scaling_kernel(X, 7), must, cannot)
    assert_allclose(model.eigenvalues_, w[:3], rtol=1e-6)
    assert np.all(np.isfinite(model.embedding_))


def test_sl_spam_one_neighbor_many_components_bounded_time():
    from smiclust.datasets import load_spam

    X, y = load_spam()
    start = time.perf_counter()
    model = SpectralLearning(2, n_neighbors=1, random_state=0).fit(X)
    elapsed = time.perf_counter() - start
    assert elapsed < 30
    # hundreds of components: the eigenvalue 1 of N is highly degenerate
    assert model.n_graph_components_ > 500
    assert_allclose(model.eigenvalues_, 1.0)
    assert np.all(np.isfinite(model.embedding_))
    assert_array_equal(np.unique(model.labels_), [0, 1])


def test_sl_two_moons_with_links():
    X, y = _moons()
    must, cannot = sample_links(y, 20, random_state=0)
    model = SpectralLearning(2, n_neighbors=10, random_state=0)
    labels = model.fit(X, must_link=must, cannot_link=cannot).labels_
    assert adjusted_rand_score(y, labels) >= 0.9


def test_sl_links_modify_the_affinity_only_where_linked():
    X, y = _moons()
    must, cannot = sample_links(y, 40, random_state=3)
    K = local_scaling_kernel(X, 5)
    A = (
        SpectralLearning(2, n_neighbors=5)
        .fit(X, must_link=must, cannot_link=cannot)
        .affinity_matrix_
    )
    for i, j in must:
        assert A[i, j] == A[j, i] == 1.0
    for i, j in cannot:
        assert A[i, j] == A[j, i] == 0.0
    touched = np.zeros((200, 200), dtype=bool)
    for i, j in np.vstack([must, cannot]):
        touched[i, j] = touched[j, i] = True
    assert_allclose(A.toarray()[~touched], K.toarray()[~touched])


# --------------------------------------------------------------------------
# constrained spectral clustering: the solver against the complete problem
# --------------------------------------------------------------------------


def _csc_case(problem, t, n_links, seed=0):
    X, y = _moons(seed) if problem == "moons" else _overlapping_blobs(seed)
    must, cannot = sample_links(y, n_links, random_state=seed)
    return X, y, must, cannot, local_scaling_kernel(X, t)


@functools.lru_cache(maxsize=None)
def _cached_reference(problem, t, n_links, c):
    """``dense_csc_reference`` of a ``_csc_case`` with the auto beta for ``c``
    (the QZ solve is the slow part of these tests; share it)."""
    X, y, must, cannot, K = _csc_case(problem, t, n_links)
    return dense_csc_reference(K, must, cannot, _auto_beta(K, must, cannot, c))


@pytest.mark.parametrize(
    "problem, t, n_links, c",
    [
        ("moons", 10, 20, 2),
        ("moons", 10, 100, 2),
        ("moons", 12, 60, 2),
        ("blobs", 7, 10, 3),
        ("blobs", 7, 150, 3),
    ],
)
@pytest.mark.parametrize("solver", ["arpack", "dense"])
def test_csc_feasible_eigenvectors_match_complete_problem(
    problem, t, n_links, c, solver
):
    X, y, must, cannot, K = _csc_case(problem, t, n_links)
    beta, lam_ref, V_ref, cost_ref, d = _cached_reference(problem, t, n_links, c)
    pencil = reduced_pencil(K, constraint_matrix(must, cannot, len(y)), beta)
    assert pencil.Z.shape[1] == 1  # connected: the papers' setting
    found = feasible_eigenvectors(
        pencil, 60, n_vectors=c - 1, eigen_solver=solver, random_state=0
    )
    # every feasible eigenvector was found (fewer than the 60 candidates)
    assert found.n_feasible == len(lam_ref) < 60
    order = np.argsort(found.eigenvalues)
    assert_allclose(found.eigenvalues[order], np.sort(lam_ref), rtol=1e-7)
    assert_allclose(found.costs, cost_ref, rtol=1e-7)
    for j in range(min(5, len(lam_ref))):
        assert _abs_cos(found.vectors[:, j], V_ref[:, j]) > 1 - 1e-8
    assert_allclose(np.sum(found.vectors**2, axis=0), pencil.vol)


@pytest.mark.parametrize(
    "problem, t, n_links, c",
    [("moons", 10, 20, 2), ("moons", 10, 100, 2), ("blobs", 7, 150, 3)],
)
def test_csc_estimator_matches_complete_problem(problem, t, n_links, c):
    X, y, must, cannot, K = _csc_case(problem, t, n_links)
    beta, lam_ref, V_ref, cost_ref, d = _cached_reference(problem, t, n_links, c)
    model = ConstrainedSpectralClustering(c, n_neighbors=t, random_state=0)
    model.fit(X, must_link=must, cannot_link=cannot)
    assert model.constrained_
    assert_allclose(model.beta_, beta, rtol=1e-10)
    assert_allclose(model.costs_, cost_ref[: c - 1], rtol=1e-7)
    assert_allclose(model.eigenvalues_, lam_ref[: c - 1], rtol=1e-7)
    U_ref = V_ref[:, : c - 1] / np.sqrt(d)[:, None]
    for j in range(c - 1):
        assert _abs_cos(model.embedding_[:, j], U_ref[:, j]) > 1 - 1e-8
    if c == 2:
        # Shi-Malik thresholding of the best u at 0
        assert adjusted_rand_score(model.labels_, U_ref[:, 0] > 0) == 1.0
    else:
        ref = KMeans(c, n_init=10, random_state=0).fit_predict(U_ref)
        assert adjusted_rand_score(model.labels_, ref) == 1.0


def test_csc_threshold_puts_a_components_round_off_in_the_rest_cluster():
    # kNN components without links are 0 in the cheapest vector; the solvers
    # leave round-off there (1e-23 dense, 1e-16 ARPACK) whose sign split them
    # differently per solver; now they all join the u <= 0 cluster
    rs = np.random.RandomState(0)
    X = np.vstack([rs.randn(20, 2), rs.randn(20, 2) + [3, 0]])
    y = np.repeat([0, 1], 20)
    pairs = rs.randint(0, 40, (8, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    fits = {
        solver: ConstrainedSpectralClustering(
            2, n_neighbors=2, eigen_solver=solver, random_state=0
        ).fit(X, must_link=pairs[same], cannot_link=pairs[~same])
        for solver in ("dense", "arpack")
    }
    for model in fits.values():
        u = model.embedding_[:, 0]
        tiny = np.abs(u) <= 1e-12 * np.abs(u).max()
        assert tiny.sum() >= 5  # the case: a component the links miss
        assert_array_equal(model.labels_, u > 1e-10 * np.abs(u).max())
    assert_array_equal(fits["dense"].labels_, fits["arpack"].labels_)


def test_csc_reduced_pencil_identities():
    X, y, must, cannot, K = _csc_case("moons", 5, 40)
    pencil = reduced_pencil(K, constraint_matrix(must, cannot, 200), 3.0)
    rng = np.random.RandomState(0)
    Y = rng.normal(size=(200, 3))
    assert_allclose(pencil.M(pencil.M_inv(Y)), Y, atol=1e-9)
    assert_allclose(pencil.S(pencil.Z.toarray()), 0.0, atol=1e-12)
    L_bar, B_bar, vol = dense_csc_pencil(K, constraint_matrix(must, cannot, 200), 3.0)
    assert_allclose(pencil.L_bar.toarray(), L_bar, atol=1e-14)
    assert_allclose(pencil.B(np.eye(200)), B_bar, atol=1e-14)
    # every eigenpair of (S, M) with theta != 0 maps to one of (L_bar, B_bar)
    S, M = pencil.dense()
    theta, X_ = la.eigh(S, M)
    big = np.abs(theta) > 1e-8
    V = pencil.back(X_[:, big])
    assert_allclose(L_bar @ V * theta[big], B_bar @ V, atol=1e-8)
    # spectrum slicing: #{theta > sigma} from the inertia of a sparse factorisation
    slicer = _Slicer(pencil)
    for sigma in [1e-3, 0.1, 1.0, 5.0, theta.max() * 1.01]:
        count, lu, sigma = slicer.factor(sigma)
        assert count == np.count_nonzero(theta > sigma)
        Yv = rng.normal(size=200)
        assert_allclose(
            (sigma * M - S) @ slicer.shift_inverse(lu, sigma, Yv), Yv, atol=1e-8
        )


def test_csc_slicing_fallback_after_arpack_failure(monkeypatch):
    real_eigsh = csc_module.eigsh

    def regular_mode_fails(A, *args, **kwargs):
        if kwargs.get("sigma") is None:
            raise ArpackNoConvergence("no", np.empty(0), np.empty((A.shape[0], 0)))
        return real_eigsh(A, *args, **kwargs)

    monkeypatch.setattr(csc_module, "eigsh", regular_mode_fails)
    # run the regular-inverse stage first even on a small problem
    monkeypatch.setattr(csc_module, "_SLICING_FIRST_MAX_SAMPLES", 0)
    monkeypatch.setattr(csc_module, "_SLICING_FIRST_MAX_LINKS_PER_SAMPLE", 0)
    X, y, must, cannot, K = _csc_case("moons", 10, 100)
    beta, lam_ref, V_ref, cost_ref, d = _cached_reference("moons", 10, 100, 2)
    with pytest.warns(ConvergenceWarning, match="spectrum slicing"):
        model = ConstrainedSpectralClustering(2, n_neighbors=10, random_state=0)
        model.fit(X, must_link=must, cannot_link=cannot)
    assert_allclose(model.costs_, cost_ref[:1], rtol=1e-7)
    assert adjusted_rand_score(model.labels_, V_ref[:, 0] > 0) == 1.0


def _fit_moons_with_warnings():
    """CSC (n_candidates=8) on the cached moons case, which must warn.

    Returns the model, the warning messages and the dense reference.
    """
    X, y, must, cannot, K = _csc_case("moons", 10, 100)
    reference = _cached_reference("moons", 10, 100, 2)
    with pytest.warns(ConvergenceWarning) as record:
        model = ConstrainedSpectralClustering(
            2, n_neighbors=10, n_candidates=8, tol=1e-8, random_state=0
        ).fit(X, must_link=must, cannot_link=cannot)
    return model, [str(w.message) for w in record], reference


def test_csc_lobpcg_fallback_when_arpack_always_fails(monkeypatch):
    def failing(A, *args, **kwargs):
        raise ArpackNoConvergence("no", np.empty(0), np.empty((A.shape[0], 0)))

    monkeypatch.setattr(csc_module, "eigsh", failing)
    monkeypatch.setattr(csc_module, "_SLICING_FIRST_MAX_SAMPLES", 0)
    monkeypatch.setattr(csc_module, "_SLICING_FIRST_MAX_LINKS_PER_SAMPLE", 0)
    model, messages, (beta, lam_ref, V_ref, cost_ref, d) = _fit_moons_with_warnings()
    assert any("spectrum slicing" in m for m in messages)
    assert any("Shift-invert ARPACK" in m and "LOBPCG" in m for m in messages)
    assert np.all(np.isfinite(model.embedding_))
    assert _abs_cos(model.embedding_[:, 0], V_ref[:, 0] / np.sqrt(d)) > 0.999
    assert adjusted_rand_score(model.labels_, V_ref[:, 0] > 0) == 1.0


@pytest.mark.parametrize("error", ["no shifts", "no convergence"])
def test_csc_lobpcg_fallback_on_any_arpack_error(monkeypatch, error):
    """ARPACK error 3 ("No shifts could be applied") is not an
    ArpackNoConvergence; it must fall back like one, not escape from fit."""

    def failing(A, *args, **kwargs):
        if error == "no shifts":
            raise ArpackError(3)
        raise ArpackNoConvergence("no", np.empty(0), np.empty((A.shape[0], 0)))

    monkeypatch.setattr(csc_module, "eigsh", failing)
    model, messages, (beta, lam_ref, V_ref, cost_ref, d) = _fit_moons_with_warnings()
    assert any("Shift-invert ARPACK did not conv" in m for m in messages)
    assert adjusted_rand_score(model.labels_, V_ref[:, 0] > 0) == 1.0


def test_csc_lobpcg_on_shifted_pencil_failing_falls_back_to_s_m(monkeypatch):
    """When LOBPCG cannot start on (S, M - S / sigma) ("linearly dependent
    initial approximations": the block is not C-positive, e.g. after ARPACK
    error 3), the fit goes on with LOBPCG on (S, M) and still finds the
    cheapest feasible eigenvector."""
    real_lobpcg = eigensolvers.lobpcg
    calls = []

    def eigsh_fails(A, *args, **kwargs):
        raise ArpackError(3)

    def first_lobpcg_fails(A, X, *args, **kwargs):
        calls.append(kwargs["B"])
        if len(calls) == 1:
            raise ValueError("Linearly dependent initial approximations")
        return real_lobpcg(A, X, *args, **kwargs)

    monkeypatch.setattr(csc_module, "eigsh", eigsh_fails)
    monkeypatch.setattr(eigensolvers, "lobpcg", first_lobpcg_fails)
    model, messages, (beta, lam_ref, V_ref, cost_ref, d) = _fit_moons_with_warnings()
    assert any("shifted pencil failed (Linearly dependent" in m for m in messages)
    assert len(calls) == 2 and calls[0] is not calls[1]  # (S, C), then (S, M)
    assert_allclose(model.costs_, cost_ref[:1], rtol=1e-6)
    assert adjusted_rand_score(model.labels_, V_ref[:, 0] > 0) == 1.0


def test_csc_arpack_error_in_shift_invert_falls_back_and_agrees_with_dense():
    """parkinson, t=1, 10 % of the pairs as links, seed 3: the shift-invert
    stage stops with ARPACK error 3 ("No shifts could be applied"); the
    fallback must give the labels of the complete (dense) solve."""
    from smiclust.datasets import load_parkinson

    X, y = load_parkinson()
    n = len(y)
    must, cannot = sample_links(y, round(0.1 * n * (n - 1) / 2), random_state=3)
    fits = {}
    for solver in ("arpack", "dense"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            warnings.filterwarnings("ignore", category=ConvergenceWarning)
            warnings.filterwarnings("ignore", "No feasible", UserWarning)
            warnings.filterwarnings("ignore", "The kNN graph", UserWarning)
            fits[solver] = ConstrainedSpectralClustering(
                2, n_neighbors=1, eigen_solver=solver, random_state=3
            ).fit(X, must_link=must, cannot_link=cannot)
    assert_array_equal(fits["arpack"].labels_, fits["dense"].labels_)


def test_csc_bottleneck_graph_runs_through_slicing():
    # a chain of two dense clusters joined by one feeble edge: L_bar has a tiny
    # eigenvalue, so the regular-inverse mode sees huge negative theta
    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal(size=(60, 2)), rng.normal(size=(60, 2)) + 30.0])
    y = np.repeat([0, 1], 60)
    K = local_scaling_kernel(X, 6).tolil()
    K[0, 60] = K[60, 0] = 1e-7
    K = K.tocsr()
    must, cannot = sample_links(y, 30, random_state=0)
    Q = constraint_matrix(must, cannot, 120)
    beta, lam_ref, V_ref, cost_ref, d = dense_csc_reference(K, must, cannot)
    pencil = reduced_pencil(K, Q, beta)
    found = feasible_eigenvectors(pencil, 10, eigen_solver="arpack", random_state=0)
    assert_allclose(found.costs[:3], cost_ref[:3], rtol=1e-6)


def test_csc_without_links_is_normalized_spectral_clustering():
    X, y = _moons(n=150)
    K = local_scaling_kernel(X, 10)
    with pytest.warns() as record:
        model = ConstrainedSpectralClustering(2, n_neighbors=10, random_state=0)
        model.fit(X)
        import warnings

        warnings.warn("sentinel", UserWarning)
    assert [str(w.message) for w in record] == ["sentinel"]
    A = K.toarray()
    d = A.sum(axis=1)
    w, U = la.eigh(np.diag(d) - A, np.diag(d))  # Shi-Malik: L u = lambda D u
    assert w[1] > 1e-8  # connected
    assert not model.constrained_
    assert model.beta_ == -d.sum()
    assert _abs_cos(model.embedding_[:, 0], U[:, 1]) > 1 - 1e-8
    assert_allclose(model.embedding_[:, 0] @ (d * model.embedding_[:, 0]), d.sum())
    assert adjusted_rand_score(model.labels_, U[:, 1] > 0) == 1.0
    assert np.all(np.isfinite(model.embedding_))


def test_csc_disconnected_graph_uses_zero_cost_cuts():
    # two moons are two components at t=6: the perfect cut has cost 0
    X, y = _moons()
    must, cannot = sample_links(y, 200, random_state=0)
    model = ConstrainedSpectralClustering(2, n_neighbors=6, random_state=0)
    model.fit(X, must_link=must, cannot_link=cannot)
    assert model.eigenvalues_[0] == 0.0
    assert abs(model.costs_[0]) < 1e-8
    assert adjusted_rand_score(y, model.labels_) == 1.0
    # and without links: normalised spectral clustering, components first
    X3, y3 = _separated_blobs()
    for c in (2, 3):
        labels = (
            ConstrainedSpectralClustering(c, n_neighbors=4, random_state=0)
            .fit(X3)
            .labels_
        )
        if c == 3:
            assert adjusted_rand_score(y3, labels) == 1.0
        else:
            # the largest-volume component against the second one, the third
            # (u = 0) with the non-positive side
            assert len(np.unique(labels)) == 2


# --------------------------------------------------------------------------
# known answers
# --------------------------------------------------------------------------


def test_two_moons():
    X, y = _moons()
    must, cannot = sample_links(y, 60, random_state=0)
    for model in (
        SpectralLearning(2, n_neighbors=10, random_state=0),
        ConstrainedSpectralClustering(2, n_neighbors=10, random_state=0),
    ):
        labels = model.fit(X, must_link=must, cannot_link=cannot).labels_
        assert adjusted_rand_score(y, labels) >= 0.9, type(model).__name__


@pytest.mark.parametrize("n_links", [0, 120])
def test_three_blobs(n_links):
    X, y = _separated_blobs()
    must, cannot = sample_links(y, n_links, random_state=0)
    for model in (
        SpectralLearning(3, n_neighbors=7, random_state=0),
        ConstrainedSpectralClustering(3, n_neighbors=7, random_state=0),
    ):
        labels = model.fit(X, must_link=must, cannot_link=cannot).labels_
        assert adjusted_rand_score(y, labels) == 1.0, type(model).__name__
        assert_array_equal(np.unique(labels), [0, 1, 2])


@pytest.mark.parametrize(
    "cls, problem, t, c",
    [
        (SpectralLearning, "moons", 4, 2),
        (ConstrainedSpectralClustering, "blobs3", 4, 3),
    ],
)
def test_more_links_are_respected_more(cls, problem, t, c):
    X, y = _moons() if problem == "moons" else _separated_blobs()
    aris, rates = [], []
    for n_links in (5, 40, 150):
        ari, rate = [], []
        for seed in range(3):
            must, cannot = sample_links(y, n_links, random_state=seed)
            labels = (
                cls(c, n_neighbors=t, random_state=0)
                .fit(X, must_link=must, cannot_link=cannot)
                .labels_
            )
            ari.append(adjusted_rand_score(y, labels))
            rate.append(count_violations(labels, must, cannot) / n_links)
        aris.append(np.mean(ari))
        rates.append(np.mean(rate))
    assert aris[0] < aris[-1]
    assert aris[-1] >= 0.95
    assert rates[-1] <= rates[0]
    assert rates[-1] <= 0.02


# --------------------------------------------------------------------------
# API: determinism, inputs, validation
# --------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_determinism_with_random_state(cls):
    X, y = _overlapping_blobs()
    must, cannot = sample_links(y, 30, random_state=0)
    a = cls(3, random_state=7).fit(X, must_link=must, cannot_link=cannot)
    b = cls(3, random_state=7).fit(X, must_link=must, cannot_link=cannot)
    assert_array_equal(a.labels_, b.labels_)
    assert_array_equal(a.embedding_, b.embedding_)
    assert_array_equal(np.unique(a.labels_), np.arange(3))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_inputs_not_modified(cls):
    X, y = _moons()
    must, cannot = sample_links(y, 30, random_state=0)
    must = must[:, ::-1].copy()  # (j, i) order is accepted and kept
    for a in (X, must, cannot):
        a.setflags(write=False)
    copies = [a.copy() for a in (X, must, cannot)]
    cls(2, random_state=0).fit(X, must_link=must, cannot_link=cannot)
    for a, b in zip((X, must, cannot), copies):
        assert_array_equal(a, b)


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize(
    "must, cannot, error, match",
    [
        ([[0, 200]], None, ValueError, "indices in"),
        ([[3, 3]], None, ValueError, "two different samples"),
        ([[0, 1], [1, 0]], None, ValueError, "must not repeat"),
        ([[0, 1]], [[1, 0]], ValueError, "both a must-link and a cannot-link"),
        ([[0, 1, 2]], None, ValueError, "shape"),
        (None, [[0.0, 1.0]], TypeError, "integer"),
    ],
)
def test_bad_links(cls, must, cannot, error, match):
    X, _ = _moons()
    with pytest.raises(error, match=match) as info:
        cls(2).fit(X, must_link=must, cannot_link=cannot)
    assert cls.__name__ in str(info.value)


@pytest.mark.parametrize(
    "cls, params, error, match",
    [
        (SpectralLearning, {"n_neighbors": 0}, ValueError, "n_neighbors"),
        (SpectralLearning, {"n_neighbors": 200}, ValueError, "n_samples - 1"),
        (SpectralLearning, {"eigen_solver": "qr"}, ValueError, "eigen_solver"),
        (SpectralLearning, {"n_clusters": 2.5}, TypeError, "n_clusters"),
        (ConstrainedSpectralClustering, {"beta": "big"}, ValueError, "beta"),
        (
            ConstrainedSpectralClustering,
            {"n_candidates": 0},
            ValueError,
            "n_candidates",
        ),
        (
            ConstrainedSpectralClustering,
            {"n_clusters": 3, "assign_labels": "threshold"},
            ValueError,
            "threshold",
        ),
        (ConstrainedSpectralClustering, {"beta": 1e9}, ValueError, "feasibility bound"),
    ],
)
def test_bad_parameters(cls, params, error, match):
    X, y = _moons()
    must, cannot = sample_links(y, 20, random_state=0)
    with pytest.raises(error, match=match):
        cls(**params).fit(X, must_link=must, cannot_link=cannot)


def test_csc_auto_beta_is_half_the_feasibility_bound():
    X, y, must, cannot, K = _csc_case("blobs", 7, 60)
    A = K.toarray()
    d = A.sum(axis=1)
    s = 1 / np.sqrt(d)
    lam = np.sort(
        np.linalg.eigvalsh(s[:, None] * _dense_links(must, cannot, 150) * s[None, :])
    )[::-1]
    assert lam[2] > 0
    for c in (2, 3, 4):
        model = ConstrainedSpectralClustering(c, random_state=0)
        model.fit(X, must_link=must, cannot_link=cannot)
        assert_allclose(model.beta_, 0.5 * lam[c - 2] * d.sum(), rtol=1e-8)
        assert_allclose(model.beta_, _auto_beta(K, must, cannot, c), rtol=1e-8)
    # a given beta is used as is
    model = ConstrainedSpectralClustering(2, beta=1.0, random_state=0)
    assert model.fit(X, must_link=must, cannot_link=cannot).beta_ == 1.0


def test_function_twins():
    X, y = _moons()
    must, cannot = sample_links(y, 30, random_state=0)
    assert_array_equal(
        spectral_learning(X, 2, must_link=must, cannot_link=cannot, random_state=0),
        SpectralLearning(2, random_state=0)
        .fit(X, must_link=must, cannot_link=cannot)
        .labels_,
    )
    assert_array_equal(
        constrained_spectral_clustering(
            X, 2, must_link=must, cannot_link=cannot, random_state=0
        ),
        ConstrainedSpectralClustering(2, random_state=0)
        .fit(X, must_link=must, cannot_link=cannot)
        .labels_,
    )


def test_negligible_edges_are_dropped():
    K = sp.csr_matrix(
        np.array([[1.0, 1e-300, 0.5], [1e-300, 1.0, 0.0], [0.5, 0.0, 1.0]])
    )
    pruned = drop_negligible_edges(K)
    assert pruned[0, 1] == 0 and pruned[0, 2] == 0.5
    assert_allclose(pruned.diagonal(), 1.0)


@pytest.mark.parametrize(
    "n, n_links, first",
    [
        (2000, 10**5, True),  # small: always shift-invert first
        (5000, 12500, True),  # 2.5 links per sample
        (5000, 12501, False),
        (5000, 0, True),
    ],
)
def test_csc_stage_order_depends_on_size_and_links(n, n_links, first):
    from types import SimpleNamespace

    rows = np.arange(n_links) % n
    cols = (rows + 1 + np.arange(n_links) // n) % n
    Q = sp.csr_matrix(
        (np.ones(2 * n_links), (np.r_[rows, cols], np.r_[cols, rows])), shape=(n, n)
    )
    assert Q.nnz == 2 * n_links  # distinct pairs in this construction
    assert csc_module._slicing_first(SimpleNamespace(n=n, Q_bar=Q)) is first


@pytest.mark.parametrize("estimator", [SpectralLearning, ConstrainedSpectralClustering])
def test_baselines_warn_when_the_graph_has_more_components_than_clusters(estimator):
    # every row eight times: with n_neighbors=7 each row's copies are all its
    # neighbours, the graph is 50 cliques, and the clusters follow them
    X, _ = make_blobs(200, centers=3, random_state=0)
    repeated = np.repeat(X[:50], 8, axis=0)
    with pytest.warns(UserWarning, match="The kNN graph has 50 connected "
                      "components, more than n_clusters=3.*n_neighbors of at "
                      "least 8 joins them") as record:
        model = estimator(3, random_state=0).fit(repeated)
    assert model.n_graph_components_ == 50
    assert record[0].filename == __file__  # at the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        joined = estimator(3, n_neighbors=24, random_state=0).fit(repeated)
    assert joined.n_graph_components_ <= 3


def test_csc_beta_on_the_singular_hyperplane_warns():
    # beta = 1^T Q 1 (one must-link, one cannot-link, beta = 0) makes the
    # pencil projected on the trivial eigenvector singular: a 1 x 1 G of
    # round-off size (-4e-19) was inverted without a word
    X, y = make_blobs(200, centers=3, random_state=0)
    must, cannot = sample_links(y, 2, random_state=0)
    assert len(must) == len(cannot) == 1
    with pytest.warns(UserWarning, match="beta / vol is .numerically. an "
                      "eigenvalue .* move beta slightly"):
        ConstrainedSpectralClustering(3, beta=0.0, random_state=0).fit(
            X, must_link=must, cannot_link=cannot)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        moved = ConstrainedSpectralClustering(3, beta=1e-3, random_state=0).fit(
            X, must_link=must, cannot_link=cannot)
    assert not any("numerically" in str(w.message) for w in caught)
    assert moved.n_feasible_ >= 1 and moved.constrained_
