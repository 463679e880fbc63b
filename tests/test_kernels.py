import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from scipy.spatial.distance import cdist

from smiclust import local_scaling_kernel
from smiclust.kernels import (
    degree_normalized_cross_kernel,
    degree_normalized_kernel,
    kernel_from_neighbors,
    local_scales,
    local_scaling_cross_kernel,
    local_scaling_kernel_from_neighbors,
)
from smiclust.neighbors import nearest_neighbors


def brute_force_kernel(X, t):
    """The paper's formula, literally, with explicit loops (reference)."""
    n = X.shape[0]
    D = cdist(X, X)
    neighbors = []
    sigma = np.empty(n)
    for i in range(n):
        order = [j for j in np.argsort(D[i], kind="stable") if j != i]
        neighbors.append(set(order[:t]))
        sigma[i] = D[i, order[t - 1]]
    K = np.eye(n)
    for i in range(n):
        for j in range(n):
            if i != j and (j in neighbors[i] or i in neighbors[j]):
                K[i, j] = np.exp(-(D[i, j] ** 2) / (2 * sigma[i] * sigma[j]))
    return K


@pytest.mark.parametrize("t", [1, 2, 5, 9])
@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_matches_brute_force(t, seed):
    X = np.random.RandomState(seed).normal(size=(40, 3))
    K = local_scaling_kernel(X, t)
    assert sp.issparse(K)
    assert_allclose(K.toarray(), brute_force_kernel(X, t), atol=1e-12)


def test_kernel_symmetric_range_diagonal_and_sparsity():
    X = np.random.RandomState(3).normal(size=(200, 5))
    t = 4
    K = local_scaling_kernel(X, t)
    assert abs(K - K.T).max() == 0
    assert K.data.min() > 0 and K.data.max() <= 1.0
    assert_allclose(K.diagonal(), 1.0)
    # every row holds itself, its t neighbours, and the samples that chose it
    row_counts = np.diff(K.indptr)
    assert row_counts.min() >= t + 1
    assert K.nnz <= 200 * (2 * t + 1)


def test_kernel_invariant_to_global_scaling():
    X = np.random.RandomState(4).normal(size=(60, 4))
    K1 = local_scaling_kernel(X, 5).toarray()
    for scale in (1e-3, 7.5, 1e4):
        assert_allclose(local_scaling_kernel(X * scale, 5).toarray(), K1, atol=1e-12)


def test_smaller_t_from_one_search_equals_separate_search():
    X = np.random.RandomState(5).normal(size=(80, 3))
    graph = nearest_neighbors(X, 10)
    for t in (1, 3, 10):
        assert_allclose(
            local_scaling_kernel_from_neighbors(graph, t).toarray(),
            local_scaling_kernel(X, t).toarray(),
        )


def test_duplicates_give_finite_values():
    rng = np.random.RandomState(6)
    base = rng.normal(size=(10, 2))
    X = np.vstack([base, base, base, base[:3]])  # every point has >= 2 duplicates
    for t in (1, 2, 3, 5):
        K = local_scaling_kernel(X, t)
        assert np.all(np.isfinite(K.data))
        assert K.data.max() <= 1.0 and K.data.min() >= 0.0
        sigma = local_scales(nearest_neighbors(X, t), t)
        assert np.all(sigma > 0)


def test_all_identical_rows():
    X = np.ones((12, 3))
    K = local_scaling_kernel(X, 3)
    assert_allclose(K.data, 1.0)


def test_cross_kernel_matches_union_rule():
    rng = np.random.RandomState(7)
    X = rng.normal(size=(50, 2))
    X_new = rng.normal(size=(8, 2))
    t = 3
    graph = nearest_neighbors(X, t)
    sigma = local_scales(graph, t)
    K = local_scaling_cross_kernel(X_new, X, sigma, t, working_memory=0.001).toarray()
    D = cdist(X_new, X)
    for a in range(len(X_new)):
        order = np.argsort(D[a])
        s_new = D[a, order[t - 1]]
        for i in range(len(X)):
            inside = D[a, i] <= s_new or D[a, i] <= sigma[i]
            expected = np.exp(-(D[a, i] ** 2) / (2 * s_new * sigma[i])) if inside else 0
            assert K[a, i] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_cross_kernel_of_copies_in_many_dimensions_is_exact(sparse):
    # 60 features and an offset: distances from norms and dot products put
    # copies about 1e-7 apart; the kernel is that of the exact distances, so a
    # new sample on t fitted copies has sigma' = 0, raised to the floor
    import scipy.sparse as sp

    rng = np.random.RandomState(9)
    X = np.vstack([rng.rand(40, 60), rng.rand(2, 60)[[0, 0, 1, 1]]]) + 1e3
    X_new = np.vstack([X[40], X[42], rng.rand(3, 60) + 1e3])
    t = 2
    sigma = local_scales(nearest_neighbors(X, t), t)
    fit, new = (sp.csr_matrix(X), sp.csr_matrix(X_new)) if sparse else (X, X_new)
    K = local_scaling_cross_kernel(new, fit, sigma, t, working_memory=0.001).toarray()
    D = cdist(X_new, X)
    for a in range(len(X_new)):
        s_new = np.sort(D[a])[t - 1]
        s_new = s_new if s_new > 0 else sigma.min()
        # a new copy of a fitted neighbour ties with it: within rounding
        tie = 1 + 1e-12
        inside = (D[a] <= np.sort(D[a])[t - 1] * tie) | (D[a] <= sigma * tie)
        expected = np.where(inside, np.exp(-D[a] ** 2 / (2 * s_new * sigma)), 0)
        assert_allclose(K[a], expected, rtol=1e-9, atol=1e-12)
    assert K[0, 40] == K[0, 41] == 1.0 and K[1, 42] == 1.0


@pytest.mark.parametrize("far", [1e9, 9.99e9])
def test_cross_kernel_with_a_far_row_is_exact_and_recomputes_few_pairs(
        monkeypatch, far):
    # one fitted row far away (an outlier, a missing-value code) widens the
    # rounding bound of its own pairs only: the kernel is the exact one, and
    # the distances computed again from the differences are a few per new
    # row, not every pair (before: all 60 x 400 of them)
    import smiclust.kernels as kernels_module

    rng = np.random.RandomState(3)
    X = rng.normal(size=(400, 5))
    X[7, 0] = far
    X_new = np.vstack([rng.normal(size=(59, 5)), X[7] + 1.0])
    t = 4
    sigma = local_scales(nearest_neighbors(X, t), t)
    computed = []
    real = kernels_module.pair_distances

    def spy(A, B, rows, cols):
        computed.append(len(rows))
        return real(A, B, rows, cols)

    monkeypatch.setattr(kernels_module, "pair_distances", spy)
    K = local_scaling_cross_kernel(X_new, X, sigma, t).toarray()
    assert sum(computed) < 60 * 40
    D = np.sqrt(((X_new[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    for a in range(len(X_new)):
        s_new = np.sort(D[a])[t - 1]
        inside = (D[a] <= s_new) | (D[a] <= sigma)
        expected = np.where(inside, np.exp(-D[a] ** 2 / (2 * s_new * sigma)), 0)
        assert_allclose(K[a], expected, rtol=1e-12, atol=1e-300)
    assert K[59, 7] > 0  # the far new row's own neighbour is the far fitted row


def test_cross_kernel_new_scale_below_every_fitted_scale_is_the_paper_s():
    # sigma' is the distance to the t-th nearest fitted sample, even when it
    # is below every fitted scale (it was raised to the smallest of them:
    # 0.667 for the paper's 0.017 here); only sigma' = 0 is raised
    X = np.arange(8.0)[:, None]  # every fitted scale is 1 (t = 1)
    sigma = local_scales(nearest_neighbors(X, 1), 1)
    assert_allclose(sigma, 1.0)
    K = local_scaling_cross_kernel(np.array([[1.1], [3.0]]), X, sigma, 1).toarray()
    near = 0.1  # sigma' of 1.1: its nearest fitted sample is 1
    assert K[0, 1] == pytest.approx(np.exp(-0.01 / (2 * near)), abs=1e-12)
    assert K[0, 2] == pytest.approx(np.exp(-0.81 / (2 * near)), abs=1e-12)
    # a new sample on a fitted one: sigma' = 0, raised to the smallest scale
    assert K[1, 3] == 1.0
    assert K[1, 2] == pytest.approx(np.exp(-1.0 / 2.0), abs=1e-12)


def test_degree_normalized_kernel_matches_loops():
    X = np.random.RandomState(8).normal(size=(30, 3))
    K = local_scaling_kernel(X, 4)
    Kn, degrees = degree_normalized_kernel(K)
    dense = K.toarray()
    d = [sum(dense[i]) for i in range(30)]
    median = float(np.median(d))
    for i in range(30):
        for j in range(30):
            assert Kn[i, j] == pytest.approx(
                median * dense[i, j] / np.sqrt(d[i] * d[j]), abs=1e-13)
    assert_allclose(degrees, d)
    assert (Kn != Kn.T).nnz == 0 and Kn.nnz == K.nnz
    assert K.toarray() == pytest.approx(dense)  # the input is not modified


def test_degree_normalized_eigenvectors_are_the_normalized_affinity_s():
    """Up to the factor, K_n is the normalised affinity of spectral
    clustering: its leading eigenvector is D^(1/2) 1 with eigenvalue the
    median degree."""
    X = np.random.RandomState(9).normal(size=(40, 2))
    K = local_scaling_kernel(X, 5)
    Kn, degrees = degree_normalized_kernel(K)
    vals, vecs = np.linalg.eigh(Kn.toarray())
    assert vals[-1] == pytest.approx(np.median(degrees), rel=1e-10)
    top = vecs[:, -1] * np.sign(vecs[0, -1])
    assert_allclose(top, np.sqrt(degrees) / np.linalg.norm(np.sqrt(degrees)),
                    atol=1e-10)


def test_kernel_from_neighbors_names_the_kernel():
    X = np.random.RandomState(10).normal(size=(25, 2))
    graph = nearest_neighbors(X, 4)
    K = local_scaling_kernel_from_neighbors(graph, 4)
    assert (kernel_from_neighbors(graph, 4) != K).nnz == 0
    assert_allclose(kernel_from_neighbors(graph, 4, "normalized").toarray(),
                    degree_normalized_kernel(K)[0].toarray())
    with pytest.raises(ValueError, match="kernel must be one of"):
        kernel_from_neighbors(graph, 4, "rbf")


def test_degree_normalized_cross_kernel_matches_loops():
    rng = np.random.RandomState(11)
    X = rng.normal(size=(40, 2))
    X_new = np.vstack([rng.normal(size=(5, 2)), [[1e6, 1e6]]])  # the last: far
    t = 3
    graph = nearest_neighbors(X, t)
    sigma = local_scales(graph, t)
    _, degrees = degree_normalized_kernel(local_scaling_kernel_from_neighbors(graph, t))
    Kx = local_scaling_cross_kernel(X_new, X, sigma, t)
    Kn = degree_normalized_cross_kernel(Kx, degrees).toarray()
    dense = Kx.toarray()
    median = float(np.median(degrees))
    for a in range(len(X_new)):
        row_sum = sum(dense[a])
        for i in range(len(X)):
            expected = (median * dense[a, i] / np.sqrt(row_sum * degrees[i])
                        if row_sum > 0 else 0.0)
            assert Kn[a, i] == pytest.approx(expected, abs=1e-13)
    assert not Kn[-1].any()


def test_local_scaling_kernel_names_itself_for_its_search_options():
    X = np.random.RandomState(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="'algorithm' parameter of "
                       "local_scaling_kernel must be a str among"):
        local_scaling_kernel(X, 3, algorithm="x")
    with pytest.raises(TypeError, match="'random_state' parameter of "
                       "local_scaling_kernel"):
        local_scaling_kernel(X, 3, random_state="x")
