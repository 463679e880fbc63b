"""Neighbour search: exact against brute force, approximate against exact."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from smiclust.neighbors import nearest_neighbors


def test_exact_neighbors_match_brute_force():
    X = np.random.RandomState(3).normal(size=(60, 4))
    graph = nearest_neighbors(X, 4, algorithm="exact")
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    expected = np.sort(D, axis=1)[:, :4]
    np.testing.assert_allclose(graph.distances, expected, rtol=1e-12)
    assert not np.any(graph.indices == np.arange(60)[:, None])


def test_unknown_algorithm_is_rejected():
    X = np.random.RandomState(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="'algorithm' parameter of nearest_neighbors"):
        nearest_neighbors(X, 2, algorithm="fast")


def test_approximate_neighbors_close_to_exact():
    pytest.importorskip("pynndescent")
    X = np.random.RandomState(8).normal(size=(300, 5))
    exact = nearest_neighbors(X, 5, algorithm="exact")
    approx = nearest_neighbors(X, 5, algorithm="approximate", random_state=0)
    assert approx.indices.shape == exact.indices.shape
    assert not np.any(approx.indices == np.arange(300)[:, None])
    recall = np.mean(
        [len(set(a) & set(b)) / 5 for a, b in zip(approx.indices, exact.indices)]
    )
    assert recall > 0.95


def _row_neighbors_by_loop(X, k):
    """Brute force: for every sample, whether its row is repeated, and the
    nearest other distinct rows (as tuples) with their distances."""
    keys = [tuple(row) for row in X]
    distinct = sorted(set(keys))
    out = []
    for i, key in enumerate(keys):
        repeated = keys.count(key) > 1
        others = [r for r in distinct if r != key]
        d = np.array([np.linalg.norm(np.array(r) - X[i]) for r in others])
        order = np.argsort(d, kind="stable")[: k - repeated]
        out.append((repeated, [others[o] for o in order], d[order]))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_distinct_row_neighbors_match_a_loop(seed):
    rng = np.random.RandomState(seed)
    rows = rng.normal(size=(15, 3))
    X = rows[rng.randint(0, 15, size=40)]  # about 13 distinct rows, many copies
    k = 4
    graph = nearest_neighbors(X, k, algorithm="exact", distinct_rows=True,
                              random_state=seed)
    again = nearest_neighbors(X, k, algorithm="exact", distinct_rows=True,
                              random_state=seed)
    np.testing.assert_array_equal(graph.indices, again.indices)
    for i, (repeated, near, d) in enumerate(_row_neighbors_by_loop(X, k)):
        listed = [tuple(X[j]) for j in graph.indices[i]]
        assert i not in graph.indices[i]
        if repeated:  # first one other copy of its own row, at distance 0
            assert listed[0] == tuple(X[i]) and graph.distances[i, 0] == 0
            listed = listed[1:]
        # continuous rows: no ties between distinct rows, the order is unique
        assert listed == near
        np.testing.assert_allclose(graph.distances[i, int(repeated):], d, atol=1e-12)


def test_distinct_row_joins_are_spread_over_the_copies():
    # every row 40 times: with the joins drawn at random, no copy gathers the
    # edges of whole rows (the first copy alone would have hundreds)
    X = np.repeat(np.random.RandomState(0).normal(size=(30, 2)), 40, axis=0)
    graph = nearest_neighbors(X, 5, algorithm="exact", distinct_rows=True,
                              random_state=0)
    in_degree = np.bincount(graph.indices.ravel(), minlength=len(X))
    assert in_degree.max() <= 20


def test_distinct_rows_change_nothing_without_duplicates():
    X = np.random.RandomState(0).normal(size=(60, 4))
    a = nearest_neighbors(X, 6, algorithm="exact")
    b = nearest_neighbors(X, 6, algorithm="exact", distinct_rows=True)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.distances, b.distances)


def test_distinct_rows_keep_repeated_rows_connected():
    from scipy.sparse.csgraph import connected_components

    from smiclust.kernels import local_scaling_kernel_from_neighbors

    rng = np.random.RandomState(0)
    X = np.repeat(rng.normal(size=(30, 2)), 8, axis=0)  # every row 8 times
    for distinct, expected in ((False, 30), (True, 1)):
        graph = nearest_neighbors(X, 5, algorithm="exact", distinct_rows=distinct)
        K = local_scaling_kernel_from_neighbors(graph, 5)
        assert connected_components(K, directed=False)[0] == expected
