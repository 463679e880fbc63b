"""The paper's auto-tuned 3SMIC (``links="paper"``) on its digits500 problem,
with thresholds measured.

Measured on 2026-11-22 (smiclust 0.1.0, default grids), seeds 0-4, links as in the
paper (random pairs typed by the true labels), ARI against the true digits:

    seed          0      1      2      3      4     mean
    0 links     0.480  0.472  0.356  0.490  0.521  0.464
    2 % links   0.817  0.666  0.737  0.642  0.767  0.726

The thresholds below leave a margin of about 0.05 under the worst seed measured.
"""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from smiclust import SMIClustering, sample_links
from smiclust.datasets import make_digits500

SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def digits_runs():
    runs = {}
    for seed in SEEDS:
        X, y = make_digits500(random_state=seed)
        n = X.shape[0]
        for fraction in (0.0, 0.02):
            n_links = int(round(fraction * n * (n - 1) / 2))
            must, cannot = sample_links(y, n_links, random_state=seed)
            model = SMIClustering(10, links="paper", random_state=seed).fit(
                X, must_link=must, cannot_link=cannot
            )
            runs[seed, fraction] = (adjusted_rand_score(y, model.labels_), model)
    return runs


def test_digits500_without_links(digits_runs):
    aris = np.array([digits_runs[s, 0.0][0] for s in SEEDS])
    assert aris.min() >= 0.30, aris
    assert aris.mean() >= 0.40, aris
    for seed in SEEDS:
        model = digits_runs[seed, 0.0][1]
        # without links only t is searched, by LSMI alone
        assert set(model.tuning_results_["param_gamma"]) == {0.0}
        assert model.lsmi_ == model.tuning_results_["lsmi"].max()


def test_digits500_with_two_percent_links(digits_runs):
    aris = np.array([digits_runs[s, 0.02][0] for s in SEEDS])
    base = np.array([digits_runs[s, 0.0][0] for s in SEEDS])
    assert aris.min() >= 0.60, aris
    assert aris.mean() >= 0.68, aris
    assert np.all(aris >= base + 0.15), (aris, base)
