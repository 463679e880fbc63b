"""The matrix-free solver against a slow dense reference (U formed, numpy eigh)."""

from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score

from smiclust.constraints import link_matrix, sample_links
from smiclust.eigensolvers import leading_eigenvectors
from smiclust.kernels import local_scaling_kernel, modified_kernel
from smiclust.labeling import cluster_scores, fix_signs
from smiclust.link_groups import link_groups
from smiclust.link_operator import SMICOperator, dense_smic_matrix
from smiclust.solver import (
    LinkSet,
    closed_link_labels,
    operator_digest,
    solve_link_operator,
    solve_links,
    solve_smic,
)


def _problem(seed, n=120, c=3, n_links=60):
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(c), n // c)
    centers = rng.normal(scale=3.0, size=(c, 4))
    X = centers[y] + rng.normal(size=(n, 4))
    must, cannot = sample_links(y, n_links, random_state=seed)
    return X, y, must, cannot


def paper_u(K_mod, must, cannot, gamma, eta):
    """U = K'(2I + 2 gamma M + gamma^2 M^2 - 2 eta C + eta^2 C^2)K' of the
    paper, entry by entry: M_ij = 1 for a must-link and M_ii = 1, C_ij = 1
    for a cannot-link and C_ii = 0; the squares as sums over k."""
    n = K_mod.shape[0]
    M = [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]
    C = [[0.0] * n for _ in range(n)]
    for i, j in must:
        M[i][j] = M[j][i] = 1.0
    for i, j in cannot:
        C[i][j] = C[j][i] = 0.0 if i == j else 1.0
    middle = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            middle[i, j] = 2.0 * (i == j) + 2 * gamma * M[i][j] - 2 * eta * C[i][j]
    for A, weight in ((M, gamma**2), (C, eta**2)):  # (A^2)_ij = sum_k A_ik A_kj
        for i in range(n):
            for k in (k for k in range(n) if A[i][k]):
                for j in (j for j in range(n) if A[k][j]):
                    middle[i, j] += weight * A[i][k] * A[k][j]
    return K_mod @ middle @ K_mod


def dense_reference(K, must, cannot, c, gamma, eta):
    """Form U by the paper's formula, eigh, then the paper's post-processing."""
    K_mod = modified_kernel(K, must, cannot).toarray()
    # K' built entry by entry as a cross-check of modified_kernel
    K_loop = K.toarray().copy()
    for i, j in must:
        K_loop[i, j] = K_loop[j, i] = 1.0
    for i, j in cannot:
        K_loop[i, j] = K_loop[j, i] = 0.0
    assert_allclose(K_mod, K_loop)
    U = paper_u(K_loop, must, cannot, gamma, eta)
    # the library's dense reference (used by other tests) is the same matrix
    assert_allclose(dense_smic_matrix(K_loop, must, cannot, gamma, eta), U,
                    rtol=1e-12, atol=1e-12)
    vals, vecs = np.linalg.eigh(U)
    vals, vecs = vals[::-1][:c], vecs[:, ::-1][:, :c]
    signed = vecs * np.sign(vecs.sum(axis=0))
    clipped = np.maximum(signed, 0)
    labels = np.argmax(clipped / clipped.sum(axis=0), axis=1)
    return vals, signed, labels


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    "gamma, eta, c", [(0.0, 0.0, 3), (1.0, 0.0, 3), (0.3, 2.0, 2), (5.0, 0.5, 2)]
)
@pytest.mark.parametrize("solver", ["arpack", "lobpcg"])
def test_fast_path_matches_dense_reference(seed, gamma, eta, c, solver):
    X, y, must, cannot = _problem(seed, c=c)
    K = local_scaling_kernel(X, 5)
    sol = solve_smic(
        K,
        must,
        cannot,
        c,
        gamma,
        eta,
        eigen_solver=solver,
        random_state=seed,
        tol=1e-10 if solver == "lobpcg" else 0.0,
    )
    vals, signed, labels = dense_reference(K, must, cannot, c, gamma, eta)
    # clusters may be renumbered (non-empty first); undo it through the eigenvalues
    order = np.argsort(-sol.eigenvalues, kind="stable")
    assert_allclose(sol.eigenvalues[order], vals, rtol=1e-7)
    assert_allclose(sol.eigenvectors[:, order], signed, atol=1e-5)
    # The paper's argmax over clipped scores; where every score is clipped to 0
    # it is undefined (argmax of zeros), and smiclust uses the unclipped
    # normalised scores there instead. Everywhere else the labels agree.
    defined = (signed > 0).any(axis=1)
    assert defined.mean() > 0.5
    assert adjusted_rand_score(sol.labels[defined], labels[defined]) == 1.0


def test_operator_equals_dense_matrix():
    X, y, must, cannot = _problem(3)
    K = local_scaling_kernel(X, 4)
    K_mod = modified_kernel(K, must, cannot)
    n = K.shape[0]
    op = SMICOperator(K_mod, link_matrix(must, n), link_matrix(cannot, n), 0.7, 1.3)
    U = dense_smic_matrix(K_mod, must, cannot, 0.7, 1.3)
    V = np.random.RandomState(0).normal(size=(n, 3))
    assert_allclose(op @ V, U @ V, rtol=1e-10)
    assert_allclose(op @ V[:, 0], U @ V[:, 0], rtol=1e-10)
    # U is symmetric positive semi-definite
    w = np.linalg.eigvalsh(U)
    assert w.min() > -1e-8 * w.max()


def test_modified_kernel_does_not_touch_input():
    X, y, must, cannot = _problem(4)
    K = local_scaling_kernel(X, 3)
    before = K.copy()
    K_mod = modified_kernel(K, must, cannot)
    assert (K != before).nnz == 0
    for i, j in must:
        assert K_mod[i, j] == 1.0 and K_mod[j, i] == 1.0
    for i, j in cannot:
        assert K_mod[i, j] == 0.0


def test_without_links_eigenvectors_are_those_of_K():
    X, y, must, cannot = _problem(5)
    K = local_scaling_kernel(X, 6)
    empty = np.empty((0, 2), dtype=int)
    sol = solve_smic(K, empty, empty, 3, 0.0, 0.0, random_state=0)
    w, V = np.linalg.eigh(K.toarray())
    order = np.argsort(-sol.eigenvalues)
    assert_allclose(np.sqrt(sol.eigenvalues[order] / 2), w[::-1][:3], rtol=1e-8)
    # the paper's out-of-sample coefficients: beta = phi / lambda(K)
    assert_allclose(
        sol.dual_coef,
        sol.eigenvectors / np.sqrt(sol.eigenvalues / 2),
        rtol=1e-6,
        atol=1e-10,
    )


def test_dual_coef_reproduces_fitted_vectors():
    X, y, must, cannot = _problem(6)
    K = local_scaling_kernel(X, 5)
    sol = solve_smic(K, must, cannot, 3, 1.0, 0.0, random_state=0)
    K_mod = modified_kernel(K, must, cannot)
    assert_allclose(K_mod @ sol.dual_coef, sol.eigenvectors, atol=1e-8)


def test_fix_signs_rule():
    V = np.array([[1.0, -2.0, 1.0], [-3.0, 1.0, -1.0], [1.0, 0.5, 0.0]])
    S = fix_signs(V)
    assert np.all(S.sum(axis=0)[:2] > 0)
    # third column sums to zero: largest-magnitude entry made positive
    assert S[np.argmax(np.abs(S[:, 2])), 2] > 0
    assert_allclose(np.abs(S), np.abs(V))


def test_cluster_scores_columns_sum_to_one():
    V = np.random.RandomState(0).normal(size=(20, 3))
    scores, norm = cluster_scores(fix_signs(V))
    assert_allclose(scores.sum(axis=0), 1.0)
    assert scores.min() >= 0


def test_labels_contiguous_when_a_cluster_is_empty():
    X, y, must, cannot = _problem(7, c=2)
    K = local_scaling_kernel(X, 5)
    empty = np.empty((0, 2), dtype=int)
    sol = solve_smic(K, empty, empty, 6, 0.0, 0.0, random_state=0)
    found = np.unique(sol.labels)
    assert_allclose(found, np.arange(found.size))


def test_arpack_non_convergence_falls_back(monkeypatch):
    from scipy.sparse.linalg import ArpackNoConvergence

    import smiclust.eigensolvers as solver

    def failing_eigsh(*args, **kwargs):
        raise ArpackNoConvergence("no", np.empty(0), np.empty((args[0].shape[0], 0)))

    monkeypatch.setattr(solver, "eigsh", failing_eigsh)
    X, y, must, cannot = _problem(8)
    K = local_scaling_kernel(X, 5)
    with pytest.warns(ConvergenceWarning, match="falling back to LOBPCG"):
        sol = solve_smic(
            K, must, cannot, 3, 1.0, 0.0, eigen_solver="arpack", random_state=0
        )
    vals, _, labels = dense_reference(K, must, cannot, 3, 1.0, 0.0)
    assert_allclose(np.sort(sol.eigenvalues)[::-1], vals, rtol=1e-5)


def test_leading_eigenvectors_bounded_iterations_warn():
    A = sp.diags(np.linspace(1.0, 1.0 + 1e-9, 300))  # nearly degenerate spectrum
    with pytest.warns(ConvergenceWarning):
        vals, vecs = leading_eigenvectors(
            A, 5, eigen_solver="lobpcg", max_iter=2, tol=1e-15, random_state=0
        )
    assert vecs.shape == (300, 5) and np.all(np.isfinite(vecs))


@pytest.mark.parametrize("eigen_solver", ["arpack", "lobpcg"])
def test_iterative_solve_runs_with_one_blas_thread_and_restores(
    monkeypatch, eigen_solver
):
    from threadpoolctl import threadpool_info, threadpool_limits

    from smiclust import eigensolvers as _solver

    def blas_threads():
        return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]

    seen = []
    name = "eigsh" if eigen_solver == "arpack" else "lobpcg"
    real = getattr(_solver, name)

    def spy(*args, **kwargs):
        seen.append(blas_threads())
        return real(*args, **kwargs)

    monkeypatch.setattr(_solver, name, spy)
    X, _, must, cannot = _problem(0)
    K = local_scaling_kernel(X, 5)
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        solve_smic(K, must, cannot, 3, 1.0, 0.0, eigen_solver=eigen_solver,
                   random_state=0)
        assert blas_threads() == before
    assert seen and all(n == 1 for n in seen[0])


def test_rows_no_eigenvector_covers_are_exact_zeros():
    """Components of the graph outside the blocks of the c leading eigenvectors
    get exact zeros (round-off before), hence the first cluster, as in exact
    arithmetic."""
    from scipy.sparse.csgraph import connected_components

    from smiclust.constraints import check_constraints

    rng = np.random.RandomState(0)
    X = np.concatenate([rng.normal(size=(30, 2)) + 10 * k for k in range(5)])
    K = local_scaling_kernel(X, 3)
    n_components, component = connected_components(K, directed=False)
    assert n_components >= 5  # more components than clusters
    must, cannot = check_constraints(None, None, len(X))
    sol = solve_smic(K, must, cannot, 2, 0.0, 0.0, random_state=0)
    covered = np.zeros(n_components, dtype=bool)
    for comp in range(n_components):
        rows = component == comp
        if np.any(sol.eigenvectors[rows] != 0):
            covered[comp] = True
            # a covered component carries real mass, not round-off
            assert np.sum(sol.eigenvectors[rows] ** 2) > 1e-6
    assert 1 <= covered.sum() <= 2 and not covered.all()
    uncovered = ~covered[component]
    # every uncovered sample is in the cluster of the leading eigenvector
    leading = int(np.argmax(sol.eigenvalues))
    assert np.all(sol.labels[uncovered] == leading)


@pytest.mark.parametrize("t", [1, 3])
def test_fragmented_graph_labels_do_not_change_with_a_rescaling(t):
    from sklearn.datasets import make_moons

    from smiclust import SMIClustering

    X, y = make_moons(150, noise=0.1, random_state=2)
    must, cannot = sample_links(y, 10, random_state=0)
    kw = dict(n_neighbors=t, gamma=1.0, eta=0.0, links="paper", random_state=0)
    a = SMIClustering(2, **kw).fit(X, must_link=must, cannot_link=cannot)
    b = SMIClustering(2, **kw).fit(X * 1000, must_link=must, cannot_link=cannot)
    np.testing.assert_array_equal(a.labels_, b.labels_)


def test_arpack_error_falls_back_to_lobpcg(monkeypatch):
    from scipy.sparse.linalg import ArpackError

    import smiclust.eigensolvers as solver

    def failing_eigsh(*args, **kwargs):
        raise ArpackError(3)

    monkeypatch.setattr(solver, "eigsh", failing_eigsh)
    X, y, must, cannot = _problem(9)
    K = local_scaling_kernel(X, 5)
    with pytest.warns(ConvergenceWarning, match="ARPACK failed .*ARPACK error 3"):
        sol = solve_smic(
            K, must, cannot, 3, 1.0, 0.0, eigen_solver="arpack", random_state=0
        )
    vals, _, _ = dense_reference(K, must, cannot, 3, 1.0, 0.0)
    assert_allclose(np.sort(sol.eigenvalues)[::-1], vals, rtol=1e-5)


# ---------------------------------------------------------------------------
# The indicator rotation (beyond the paper; SMIClustering(indicator_rotation))
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_indicator_rotation_is_scikit_learns_cluster_qr(seed):
    from sklearn.cluster._spectral import cluster_qr

    from smiclust.labeling import indicator_rotation

    rng = np.random.RandomState(seed)
    V, _ = np.linalg.qr(rng.normal(size=(60, 4)))
    R = indicator_rotation(V)
    assert_allclose(R @ R.T, np.eye(4), atol=1e-12)
    np.testing.assert_array_equal(np.abs(V @ R).argmax(axis=1), cluster_qr(V))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("gamma", [0.0, 1.0])
def test_rotated_solution_spans_the_eigenvectors_and_keeps_the_objective(seed, gamma):
    X, y, must, cannot = _problem(seed, n=150, c=5)
    K = local_scaling_kernel(X, 6)
    plain = solve_smic(K, must, cannot, 5, gamma, 0.0, random_state=0)
    rotated = solve_smic(K, must, cannot, 5, gamma, 0.0, random_state=0,
                         rotate=True)
    V, W = plain.eigenvectors, rotated.eigenvectors
    # the same span (equal projections), an orthonormal basis of it
    assert_allclose(W @ W.T, V @ V.T, atol=1e-8)
    assert_allclose(W.T @ W, np.eye(5), atol=1e-8)
    # the relaxed objective tr(Psi^T U Psi) is unchanged, and the eigenvalues
    # became the Rayleigh quotients of the new columns (dense U as reference)
    K_mod = modified_kernel(K, must, cannot).toarray()
    U = dense_smic_matrix(K_mod, must, cannot, gamma, 0.0)
    assert_allclose(np.diag(W.T @ U @ W), rotated.eigenvalues, rtol=1e-6)
    assert_allclose(rotated.eigenvalues.sum(), plain.eigenvalues.sum(), rtol=1e-8)
    # out-of-sample coefficients still reproduce the fitted columns
    assert_allclose(K_mod @ rotated.dual_coef, W, atol=1e-8)
    # each column is sign-fixed by the paper's rule
    assert np.all(W.sum(axis=0) > 0)


@pytest.mark.parametrize("seed", [0, 1])
def test_rotation_separates_many_overlapping_clusters_better(seed):
    # 20 overlapping blobs (std 4 in 10 dimensions), t = 7: the argmax of the
    # eigenvectors themselves reaches 0.67 / 0.78, the rotated basis 0.84 / 0.91
    from sklearn.datasets import make_blobs

    X, y = make_blobs(400, centers=20, n_features=10, cluster_std=4.0,
                      random_state=seed)
    K = local_scaling_kernel(X, 7)
    empty = np.empty((0, 2), dtype=int)
    plain = solve_smic(K, empty, empty, 20, 0.0, 0.0, random_state=0)
    rotated = solve_smic(K, empty, empty, 20, 0.0, 0.0, random_state=0,
                         rotate=True)
    assert adjusted_rand_score(y, rotated.labels) > adjusted_rand_score(
        y, plain.labels) + 0.1


def _closed_problem(seed=0):
    X, y = make_blobs(n_samples=150, centers=3, cluster_std=2.0, random_state=seed)
    must, cannot = sample_links(y, 60, random_state=seed)
    K = local_scaling_kernel(X, n_neighbors=5)
    groups = link_groups(must, cannot, len(y))
    return K, must, cannot, groups


def test_operator_solve_does_not_read_how_closed_links_label_it():
    K, must, cannot, groups = _closed_problem()
    links = LinkSet(must, cannot, groups=groups)
    kept = replace(links, keep_cannot_links=True, count_cannot_links=True)
    a = solve_link_operator(K, links, 3, 0.5, 0.5, random_state=0)
    b = solve_link_operator(K, kept, 3, 0.5, 0.5, random_state=0)
    assert_allclose(a.eigenvectors, b.eigenvectors, rtol=0, atol=0)
    for link_set in (links, kept):
        expected = solve_links(K, link_set, 3, 0.5, 0.5, random_state=0)
        got = closed_link_labels(a, link_set, 3)
        np.testing.assert_array_equal(got.labels, expected.labels)
        assert_allclose(got.eigenvectors, expected.eigenvectors, rtol=0, atol=0)
    # the paper's links are not relabelled
    paper = LinkSet(must, cannot)
    solved = solve_link_operator(K, paper, 3, 0.5, 0.5, random_state=0)
    assert closed_link_labels(solved, paper, 3) is solved


def test_operator_digest_reads_the_kernel_and_the_links_only():
    K, must, cannot, groups = _closed_problem()
    links = LinkSet(must, cannot, groups=groups)
    digest = operator_digest(K, links)
    # equal content in other objects, and the labelling flags: the same
    same = LinkSet(must.copy(), cannot.copy(),
                   groups=link_groups(must.copy(), cannot.copy(), K.shape[0]))
    assert operator_digest(K.copy(), same) == digest
    assert operator_digest(K, replace(links, keep_cannot_links=True,
                                      count_cannot_links=True)) == digest
    # one kernel entry, one cannot-link, the paper's links: different
    K2 = K.copy()
    K2.data[0] *= 1.5
    assert operator_digest(K2, links) != digest
    fewer = link_groups(must, cannot[1:], K.shape[0])
    assert operator_digest(K, replace(links, groups=fewer)) != digest
    paper = LinkSet(must, cannot)
    assert operator_digest(K, paper) != digest
    weighted = LinkSet(must, cannot, np.full(len(must), 0.5), None)
    assert operator_digest(K, weighted) != operator_digest(K, paper)
