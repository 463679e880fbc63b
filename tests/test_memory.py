"""No dense n x n matrix in the default code paths (the project's ground rule).

Every public entry point that a user reaches without asking for a dense
reference is run on ``n = 5,000`` samples, where one dense ``n x n`` float64
array takes 200 MB, and the peak of the memory that NumPy and SciPy allocate
(``tracemalloc``: every ndarray buffer is traced) must stay below an eighth of
that. The LSMI design is given 50 centres instead of 500: its ``n x centres``
blocks are linear in ``n`` but large, and would hide a quadratic allocation at
a size that a unit test can afford. Out-of-sample prediction computes the
distances to the fitted samples in chunks of scikit-learn's
``working_memory``, which is set small here as a user on a small machine would.

The ranking of suspect links is part of ``fit``. The first test shows that
the measurement sees a dense ``n x n`` array, so that the others can fail.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.datasets import make_blobs

from smiclust import (
    ActiveSMIClustering,
    SMIClustering,
    SpectralLearning,
    sample_links,
    select_pairs,
)

N = 5000
DENSE_BYTES = N * N * 8
LIMIT = DENSE_BYTES // 8
SMALL_LSMI = {"lsmi_n_centers": 50}


def _peak_bytes(func):
    """``func()`` and the peak of the traced allocations during the call."""
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = func()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, peak


@pytest.fixture(scope="module")
def problem():
    X, y = make_blobs(2 * N, n_features=5, centers=4, cluster_std=1.5,
                      random_state=0)
    X_fit, y_fit, X_new = X[:N], y[:N], X[N:]
    must, cannot = sample_links(y_fit, 300, random_state=0)
    partial = np.full(N, -1)
    partial[::100] = y_fit[::100]
    return X_fit, y_fit, X_new, must, cannot, partial


@pytest.fixture(scope="module")
def fit_with_links(problem):
    """The default fitted with links, and the peak of its fit."""
    X, _, _, must, cannot, _ = problem
    model = SMIClustering(4, random_state=0, **SMALL_LSMI)
    return _peak_bytes(lambda: model.fit(X, must_link=must, cannot_link=cannot))


@pytest.fixture(scope="module")
def fitted(fit_with_links):
    return fit_with_links[0]


def test_the_measurement_sees_a_dense_n_by_n_array():
    _, peak = _peak_bytes(lambda: np.ones((N, N)).sum())
    assert peak >= DENSE_BYTES
    assert peak > LIMIT


@pytest.mark.parametrize(
    "entry",
    ["no links", "partial labels", "auto number of clusters",
     "paper's 3SMIC", "normalised kernel"],
)
def test_fit_stays_far_below_a_dense_n_by_n_array(problem, entry):
    X, y, _, must, cannot, partial = problem
    links = {"must_link": must, "cannot_link": cannot}
    model, fit = {
        "no links": (SMIClustering(4), {}),
        "partial labels": (SMIClustering(4), {"partial_labels": partial}),
        "auto number of clusters": (SMIClustering("auto"), links),
        "paper's 3SMIC": (SMIClustering(4, links="paper"), links),
        "normalised kernel": (SMIClustering(4, kernel="normalized"), links),
    }[entry]
    model.set_params(random_state=0, **SMALL_LSMI)
    fitted, peak = _peak_bytes(lambda: model.fit(X, **fit))
    assert peak < LIMIT, f"{entry}: peak {peak / 1e6:.0f} MB"
    assert fitted.labels_.shape == (N,)
    assert len(np.unique(fitted.labels_)) >= 2


def test_fit_with_links_stays_far_below_a_dense_n_by_n_array(fit_with_links):
    fitted, peak = fit_with_links
    assert peak < LIMIT, f"links: peak {peak / 1e6:.0f} MB"
    assert fitted.labels_.shape == (N,)
    assert len(np.unique(fitted.labels_)) >= 2


@pytest.mark.parametrize("working_memory", [4, 16])
def test_prediction_stays_within_the_working_memory(problem, fitted,
                                                   working_memory):
    X_new = problem[2]
    with sklearn.config_context(working_memory=working_memory):
        proba, peak = _peak_bytes(lambda: fitted.predict_proba(X_new))
    assert peak < LIMIT, f"peak {peak / 1e6:.0f} MB"
    # the chunks of distances stay within the setting (MiB); the rest (the
    # sparse cross kernel, the scores) is a few MB at this size
    assert peak < (working_memory + 4) * 2**20, f"peak {peak / 2**20:.1f} MiB"
    assert proba.shape == (N, 4)
    assert np.allclose(proba.sum(axis=1), 1.0)


def test_pair_selection(problem, fitted):
    X, _, _, must, cannot, _ = problem
    pairs, peak = _peak_bytes(
        lambda: select_pairs(fitted, X, 20, must_link=must, cannot_link=cannot,
                             random_state=0)
    )
    assert peak < LIMIT, f"peak {peak / 1e6:.0f} MB"
    assert pairs.shape == (20, 2)


def test_active_loop_and_spectral_learning(problem):
    X, y, _, must, cannot, _ = problem
    active = ActiveSMIClustering(4, budget=20, batch_size=10, random_state=0,
                                 **SMALL_LSMI)
    active, peak = _peak_bytes(
        lambda: active.fit(X, oracle=lambda i, j: bool(y[i] == y[j]))
    )
    assert peak < LIMIT, f"active: peak {peak / 1e6:.0f} MB"
    assert active.n_queries_ == 20
    sl = SpectralLearning(4, n_neighbors=7, random_state=0)
    sl, peak = _peak_bytes(lambda: sl.fit(X, must_link=must, cannot_link=cannot))
    assert peak < LIMIT, f"SL: peak {peak / 1e6:.0f} MB"
