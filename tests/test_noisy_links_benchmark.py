"""Smoke tests of the pure functions of benchmarks/noisy_links.py."""

import math

import numpy as np
import pytest
from conftest import load_benchmark

from smiclust.constraints import rank_suspect_links, sample_links


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("noisy_links")


def _as_set(pairs):
    return {tuple(sorted(p)) for p in np.asarray(pairs).tolist()}


@pytest.mark.parametrize("fraction", [0.0, 0.05, 0.2, 0.3, 1.0])
def test_flip_links_flips_the_masked_links_only(bench, fraction):
    y = np.repeat([0, 1, 2], 10)
    must, cannot = sample_links(y, 120, random_state=0)
    new_must, new_cannot, flipped = bench.flip_links(
        must, cannot, fraction, np.random.RandomState(0))
    n_links = len(must) + len(cannot)
    assert len(new_must) + len(new_cannot) == n_links
    assert flipped.shape == (n_links,)
    assert flipped.sum() == round(fraction * n_links)
    # a flipped link contradicts the true labels, a kept one agrees with them
    links = np.vstack([new_must, new_cannot])
    is_must = np.arange(n_links) < len(new_must)
    same = y[links[:, 0]] == y[links[:, 1]]
    np.testing.assert_array_equal(same != is_must, flipped)
    assert _as_set(links) == _as_set(np.vstack([must, cannot]))


def test_flip_links_nested_for_one_seed(bench):
    y = np.repeat([0, 1], 15)
    must, cannot = sample_links(y, 100, random_state=1)
    flipped_sets = []
    for fraction in (0.05, 0.1, 0.2):
        m, c, f = bench.flip_links(must, cannot, fraction, np.random.RandomState(3))
        flipped_sets.append(_as_set(np.vstack([m, c])[f]))
    assert flipped_sets[0] <= flipped_sets[1] <= flipped_sets[2]


def test_flip_links_rejects_a_fraction_out_of_range(bench):
    with pytest.raises(ValueError, match="'fraction' parameter of flip_links"):
        bench.flip_links(np.zeros((1, 2), int), np.zeros((0, 2), int), 1.5,
                         np.random.RandomState(0))


def test_simulate_weights_ranges(bench):
    flipped = np.arange(1000) % 3 == 0
    w = bench.simulate_weights(flipped, np.random.RandomState(0))
    assert np.all((w[flipped] >= 0.2) & (w[flipped] <= 0.6))
    assert np.all((w[~flipped] >= 0.5) & (w[~flipped] <= 1.0))


def test_suspect_scores_perfect_and_empty(bench):
    y = np.array([0, 0, 1, 1])
    proba = np.eye(2)[y]
    must = np.array([[0, 1], [0, 2]])  # the second one is wrong
    cannot = np.array([[1, 3], [2, 3]])  # the second one is wrong
    flipped = np.array([False, True, False, True])
    scores = bench.suspect_scores(rank_suspect_links(proba, must, cannot), flipped,
                                  len(must))
    assert scores == {"p_at_k": 1.0, "p_at_2k": 0.5, "r_at_2k": 1.0, "ap": 1.0}
    none = bench.suspect_scores(rank_suspect_links(proba, must, cannot),
                                np.zeros(4, bool), len(must))
    assert all(math.isnan(v) for v in none.values())


def test_ari_on_unlinked_points(bench):
    y = np.array([0, 0, 1, 1, 0, 1])
    labels = np.array([1, 1, 0, 0, 0, 0])
    mask = bench.unlinked_mask(6, np.array([[0, 1]]), np.array([[1, 2]]))
    np.testing.assert_array_equal(mask, [False, False, False, True, True, True])
    all_points, unlinked = bench.ari_pair(y, labels, mask)
    assert unlinked == pytest.approx(0.0) and all_points < 1
    assert math.isnan(bench.ari_pair(y, labels, np.eye(6, dtype=bool)[0])[1])
