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
