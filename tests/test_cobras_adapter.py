"""COBRAS adapter (smiclust.experiments._cobras): labels, budget, seed."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

pytest.importorskip("cobras_ts")

from smiclust.experiments._cobras import fit_cobras  # noqa: E402


@pytest.fixture
def blobs():
    return make_blobs(n_samples=60, centers=3, cluster_std=0.6, random_state=0)


@pytest.mark.parametrize("budget", [1, 5, 30])
def test_cobras_returns_labels_within_budget(blobs, budget):
    X, y = blobs
    result = fit_cobras(X, y, budget, random_state=0)
    assert result.labels.shape == (60,)
    assert 1 <= result.n_queries <= budget
    assert result.history.shape == (result.n_queries, 60)
    assert result.pairs.shape == (result.n_queries, 2)
    assert np.array_equal(result.answers,
                          y[result.pairs[:, 0]] == y[result.pairs[:, 1]])
    assert np.array_equal(result.labels_at(budget), result.labels)
    assert result.asked_at(result.n_queries).sum() >= 2


def test_cobras_recovers_separated_blobs(blobs):
    X, y = blobs
    result = fit_cobras(X, y, 100, random_state=0)
    assert adjusted_rand_score(y, result.history[0]) < 0.5
    assert adjusted_rand_score(y, result.labels) > 0.9


def test_cobras_is_deterministic_for_a_seed_and_leaves_numpy_alone(blobs):
    X, y = blobs
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    first = fit_cobras(X, y, 20, random_state=3)
    second = fit_cobras(X, y, 20, random_state=3)
    assert np.array_equal(first.pairs, second.pairs)
    assert np.array_equal(first.history, second.history)
    assert np.array_equal(first.labels, second.labels)
    assert np.array_equal(np.random.get_state()[1], before)
    assert "int" not in vars(np)


@pytest.mark.parametrize("budget", [0, -3])
def test_cobras_rejects_an_empty_budget(blobs, budget):
    X, y = blobs
    with pytest.raises(ValueError, match="max_questions"):
        fit_cobras(X, y, budget)
