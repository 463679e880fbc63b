import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from scipy.spatial.distance import cdist

from smiclust import local_scaling_kernel
from smiclust.kernels import (
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
