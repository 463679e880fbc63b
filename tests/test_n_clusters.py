import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.metrics import adjusted_rand_score

from smiclust.constraints import link_violations, sample_links
from smiclust.kernels import local_scaling_kernel, modified_kernel
from smiclust.link_groups import link_groups
from smiclust.link_operator import dense_smic_matrix
from smiclust.n_clusters import (
    DEFAULT_CANDIDATES,
    _heldout_error,
    _Solver,
    choose_n_clusters,
)
from smiclust.solver import LinkSet, solve_links, solve_smic


def _blobs(n_centers, n_per=40, seed=0, spread=10.0):
    """Well-separated Gaussian blobs on a circle of radius ``spread``."""
    rng = np.random.RandomState(seed)
    angles = 2 * np.pi * np.arange(n_centers) / n_centers
    centers = spread * np.column_stack([np.cos(angles), np.sin(angles)])
    y = np.repeat(np.arange(n_centers), n_per)
    return centers[y] + rng.normal(scale=0.6, size=(y.size, 2)), y


def _quadrants(n, seed):
    """Uniform square (no cluster structure); labels are the four quadrants."""
    X = np.random.RandomState(seed).uniform(-1, 1, size=(n, 2))
    return X, (X[:, 0] > 0).astype(int) * 2 + (X[:, 1] > 0).astype(int)


@pytest.mark.parametrize("n_centers", [3, 5])
@pytest.mark.parametrize("with_links", [False, True])
def test_well_separated_blobs_give_their_number(n_centers, with_links):
    X, y = _blobs(n_centers)
    K = local_scaling_kernel(X, n_neighbors=7)
    n_links = 200 if with_links else 0
    must, cannot = sample_links(y, n_links, random_state=0)
    result = choose_n_clusters(K, must, cannot, candidates=range(2, 11), random_state=0)
    assert result.n_clusters == n_centers
    assert result.method == ("links+eigengap" if with_links else "eigengap")
    j = n_centers - 2
    assert adjusted_rand_score(y, result.labels[:, j]) == 1.0
    if with_links:
        assert result.scores["heldout_error"][j] == 0.0


def _strips(X, n_strips):
    return np.digitize(X[:, 0], np.linspace(-1, 1, n_strips + 1)[1:-1])


@pytest.mark.parametrize("method", ["auto", "links"])
@pytest.mark.parametrize(
    "groups, n_groups",
    [
        (lambda X: (X[:, 0] > 0) * 2 + (X[:, 1] > 0), 4),
        (lambda X: _strips(X, 3), 3),
        (lambda X: _strips(X, 5), 5),
    ],
    ids=["quadrants", "3-strips", "5-strips"],
)
def test_links_decide_on_data_without_clusters(method, groups, n_groups):
    # One uniform square: the data alone give no number of clusters; links
    # drawn from a partition into quadrants or strips say how many.
    X = np.random.RandomState(0).uniform(-1, 1, size=(200, 2))
    K = local_scaling_kernel(X, n_neighbors=7)
    must, cannot = sample_links(groups(X), 1000, random_state=0)
    result = choose_n_clusters(
        K, must, cannot, candidates=range(2, 9), method=method, random_state=0
    )
    assert result.n_clusters == n_groups
    assert result.scores["plausible"][n_groups - 2]


def test_eigenvalues_match_dense_reference_on_disconnected_graph():
    # Three blobs: the kNN graph has three components, so 1 is a triple
    # eigenvalue of N, which one Krylov run would find only once.
    X, y = _blobs(3, n_per=25)
    K = local_scaling_kernel(X, n_neighbors=5)
    must, cannot = sample_links(y, 60, random_state=1)
    gamma = 0.5
    result = choose_n_clusters(
        K, must, cannot, candidates=range(2, 7), gamma=gamma, random_state=0
    )
    U = dense_smic_matrix(modified_kernel(K, must, cannot), must, cannot, gamma, 0.0)
    d = U.sum(axis=1)
    N = U / np.sqrt(np.outer(d, d))
    expected = np.linalg.eigvalsh(N)[::-1][:7]
    assert_allclose(result.eigenvalues, expected, atol=1e-8)
    assert_allclose(result.eigenvalues[:3], 1.0, atol=1e-10)
    gap = expected[1:6] - expected[2:7]
    assert_allclose(result.scores["eigengap"], gap, atol=1e-8)


def test_labels_are_those_of_solve_smic():
    X, y = _quadrants(n=120, seed=3)
    K = local_scaling_kernel(X, n_neighbors=6)
    must, cannot = sample_links(y, 150, random_state=0)
    result = choose_n_clusters(
        K,
        must,
        cannot,
        candidates=[2, 4, 6],
        gamma=1.0,
        eigen_solver="dense",
        random_state=0,
    )
    for j, c in enumerate(result.candidates):
        solution = solve_smic(K, must, cannot, int(c), 1.0, 0.0, eigen_solver="dense")
        assert_array_equal(result.labels[:, j], solution.labels)


def test_heldout_error_counts_links_and_one_se_rule():
    X, y = _blobs(4)
    K = local_scaling_kernel(X, n_neighbors=7)
    must, cannot = sample_links(y, 101, random_state=2)
    result = choose_n_clusters(
        K, must, cannot, candidates=range(2, 8), method="links", random_state=0
    )
    error = result.scores["heldout_error"]
    assert np.all((error >= 0) & (error <= 1))
    assert_allclose(error * 101, np.round(error * 101), atol=1e-9)
    # one-standard-error rule, recomputed
    best = error.min()
    se = np.sqrt(best * (1 - best) / 101)
    assert_array_equal(result.scores["plausible"], error <= best + se + 1e-12)
    # "links" takes the smallest plausible candidate
    assert result.n_clusters == result.candidates[result.scores["plausible"]][0]
    assert result.n_clusters == 4


def test_scores_are_dataframe_ready():
    X, y = _blobs(3, n_per=20)
    K = local_scaling_kernel(X, n_neighbors=5)
    result = choose_n_clusters(K, random_state=0)
    n_cand = len(DEFAULT_CANDIDATES)
    assert_array_equal(result.candidates, DEFAULT_CANDIDATES)
    assert set(result.scores) == {
        "n_clusters",
        "eigengap",
        "heldout_error",
        "plausible",
    }
    assert all(np.shape(v) == (n_cand,) for v in result.scores.values())
    assert np.isnan(result.scores["heldout_error"]).all()
    assert result.labels.shape == (X.shape[0], n_cand)
    assert result.eigenvalues.shape == (max(DEFAULT_CANDIDATES) + 1,)
    assert np.all(np.diff(result.eigenvalues) <= 1e-12)


def test_same_random_state_same_result():
    X, y = _quadrants(n=150, seed=1)
    K = local_scaling_kernel(X, n_neighbors=7)
    must, cannot = sample_links(y, 300, random_state=0)
    runs = [
        choose_n_clusters(K, must, cannot, candidates=range(2, 9), random_state=rs)
        for rs in (7, 7, np.random.RandomState(7))
    ]
    for other in runs[1:]:
        assert other.n_clusters == runs[0].n_clusters
        assert_array_equal(other.labels, runs[0].labels)
        for key in runs[0].scores:
            assert_array_equal(other.scores[key], runs[0].scores[key])


def test_too_few_links_fall_back_to_eigengap():
    X, y = _blobs(3, n_per=20)
    K = local_scaling_kernel(X, n_neighbors=5)
    result = choose_n_clusters(K, [[0, 1], [2, 3]], [[0, 30]], random_state=0)
    assert result.method == "eigengap"
    assert result.n_clusters == 3


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"candidates": []}, "'candidates' parameter"),
        ({"candidates": [1, 2]}, "'candidates' parameter"),
        ({"candidates": [2, 60]}, "'candidates' parameter.*n_samples=60"),
        ({"candidates": [2, 10**20]}, "'candidates' parameter.*n_samples=60"),
        ({"method": "bic"}, "'method' parameter"),
        ({"gamma": -1.0}, "'gamma' parameter"),
        ({"n_folds": 1}, "'n_folds' parameter"),
        ({"eigen_solver": "qr"}, "'eigen_solver' parameter"),
        ({"links": "closed"}, "'links' parameter"),
        ({"random_state": -1}, "'random_state' parameter"),
        ({"must_link": [[0, 60]]}, "must_link"),
        ({"method": "links"}, "method='links'.*n_folds=5.*Got 0"),
        ({"K": np.ones((60, 59))}, "'K' parameter"),
    ],
)
def test_bad_inputs_raise_value_error_naming_the_parameter(kwargs, match):
    X, _ = _blobs(3, n_per=20)
    params = {"K": local_scaling_kernel(X, n_neighbors=5), **kwargs}
    K = params.pop("K")
    with pytest.raises(ValueError, match=match):
        choose_n_clusters(K, **params)


def test_more_components_than_candidates_warns():
    X, _ = _blobs(12, n_per=6, spread=100.0)
    K = local_scaling_kernel(X, n_neighbors=3)
    with pytest.warns(UserWarning, match="12 connected components"):
        result = choose_n_clusters(K, candidates=range(2, 8), random_state=0)
    assert_allclose(result.scores["eigengap"], 0.0, atol=1e-10)


def _blind(n_per=50, seed=0):
    """Gaussian noise in 5-D and three equal classes the features do not see."""
    X = np.random.RandomState(seed).normal(size=(3 * n_per, 5))
    return X, np.repeat(np.arange(3), n_per)


def test_closure_links_change_nothing_where_the_paper_predicts_the_links():
    X, y = _blobs(4)
    K = local_scaling_kernel(X, n_neighbors=7)
    must, cannot = sample_links(y, 150, random_state=0)
    paper = choose_n_clusters(K, must, cannot, candidates=range(2, 8), random_state=0)
    closure = choose_n_clusters(K, must, cannot, candidates=range(2, 8),
                                links="closure", random_state=0)
    assert closure.n_clusters == paper.n_clusters == 4
    for name in paper.scores:
        assert_array_equal(closure.scores[name], paper.scores[name])


@pytest.mark.parametrize("n_links", [300, 560])
def test_closure_links_find_the_classes_features_do_not_see(n_links):
    # The paper's labelling predicts held-out links no better than calling
    # them all cannot-links; the closed links' labelling does, and the
    # links say three groups.
    X, y = _blind()
    K = local_scaling_kernel(X, n_neighbors=7)
    must, cannot = sample_links(y, n_links, random_state=0)
    share = len(must) / n_links
    paper = choose_n_clusters(K, must, cannot, candidates=range(2, 9), random_state=0)
    assert paper.scores["heldout_error"].min() >= min(share, 1 - share)
    closure = choose_n_clusters(K, must, cannot, candidates=range(2, 9),
                                links="closure", random_state=0)
    assert closure.n_clusters == 3
    assert closure.scores["heldout_error"].min() < paper.scores["heldout_error"].min()
    # the eigengap reads the paper's operator either way
    assert_array_equal(closure.scores["eigengap"], paper.scores["eigengap"])


def test_closed_heldout_error_counts_every_link_of_every_fold():
    # loop reference: the same folds, each held-out pair checked one by one
    X, y = _blind(n_per=30, seed=1)
    K = local_scaling_kernel(X, n_neighbors=6)
    must, cannot = sample_links(y, 200, random_state=3)
    cands = np.arange(2, 7)
    solve = _Solver(K, 1.0, "dense", 0)
    error = _heldout_error(solve, must, cannot, cands, 4, 11, closed=True)
    pairs = np.vstack([must, cannot])
    is_must = np.r_[np.ones(len(must), bool), np.zeros(len(cannot), bool)]
    folds = np.array_split(np.random.RandomState(11).permutation(len(pairs)), 4)
    count = np.zeros(cands.size)
    for held in folds:
        train = np.ones(len(pairs), bool)
        train[held] = False
        labels = solve.closed_labels(pairs[train & is_must], pairs[train & ~is_must],
                                     cands)
        for k in held:
            i, j = pairs[k]
            for col in range(cands.size):
                same = labels[i, col] == labels[j, col]
                count[col] += same != is_must[k]
    assert_allclose(error, count / len(pairs))


def test_closed_labels_keep_groups_whole_and_match_solve_links():
    X, y = _blind(n_per=30, seed=2)
    K = local_scaling_kernel(X, n_neighbors=6)
    must, cannot = sample_links(y, 250, random_state=1)
    cands = np.array([2, 3, 5])
    solve = _Solver(K, 1.0, "dense", 0)
    labels = solve.closed_labels(must, cannot, cands)
    assert labels.shape == (X.shape[0], cands.size)
    for col, c in enumerate(cands):
        assert labels[:, col].max() < c
        bad_must, _ = link_violations(labels[:, col], must, cannot)
        assert not bad_must.any()
    # the largest candidate is the closed links' solve of that many clusters
    links = LinkSet(must, cannot, groups=link_groups(must, cannot, X.shape[0]))
    reference = solve_links(K, links, 5, 1.0, 0.0, eigen_solver="dense",
                            random_state=0).labels
    assert adjusted_rand_score(reference, labels[:, -1]) == 1.0


def test_closed_labels_give_way_to_the_paper_on_contradictory_links():
    X, _ = _blind(n_per=10)
    K = local_scaling_kernel(X, n_neighbors=5)
    solve = _Solver(K, 1.0, "dense", 0)
    must = np.array([[0, 1], [1, 2]])
    cannot = np.array([[0, 2], [3, 4]])
    assert solve.closed_labels(must, cannot, np.array([2, 3])) is None


def _nc_problem():
    from sklearn.datasets import make_blobs

    from smiclust.kernels import local_scaling_kernel

    X, y = make_blobs(60, centers=3, cluster_std=0.5, random_state=0)
    return local_scaling_kernel(X, n_neighbors=5), y


def test_one_standard_error_rule_with_hand_made_errors(monkeypatch):
    # N1: e* = 0.1 over 100 links: se = sqrt(0.1 * 0.9 / 100) = 0.03, so
    # 0.12 is plausible and 0.2 is not
    from smiclust import n_clusters as nc

    K, y = _nc_problem()
    pairs = np.array(list(itertools.combinations(range(60), 2)))[:100]
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    monkeypatch.setattr(nc, "_heldout_error",
                        lambda *a, **k: np.array([0.2, 0.1, 0.12, 0.2]))
    result = nc.choose_n_clusters(K, pairs[same], pairs[~same],
                                  candidates=[2, 3, 4, 5], method="links",
                                  random_state=0)
    assert result.scores["plausible"].tolist() == [False, True, True, False]


def test_auto_uses_the_links_from_exactly_n_folds_links():
    # N3: n_links == n_folds is enough for the link criterion
    K, y = _nc_problem()
    pairs = np.array(list(itertools.combinations(range(0, 60, 7), 2)))[:5]
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    result = choose_n_clusters(K, pairs[same], pairs[~same],
                               candidates=range(2, 6), random_state=0)
    assert result.method == "links+eigengap"
    assert not np.isnan(result.scores["heldout_error"]).any()


def test_closure_fallback_when_no_better_than_the_majority_kind(monkeypatch):
    # N4: the paper's labels predict the held-out links exactly as well as
    # calling them all the common kind (error == min(s, 1 - s)): closed
    from smiclust import n_clusters as nc

    K, y = _nc_problem()
    pairs = np.array(list(itertools.combinations(range(0, 60, 3), 2)))
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    must, cannot = pairs[same][:5], pairs[~same][:5]   # share 0.5
    calls = []

    def fake(solve, must, cannot, cands, n_folds, seed, closed=False):
        calls.append(closed)
        return np.full(cands.size, 0.1 if closed else 0.5)

    monkeypatch.setattr(nc, "_heldout_error", fake)
    result = nc.choose_n_clusters(K, must, cannot, candidates=range(2, 5),
                                  links="closure", random_state=0)
    assert calls == [False, True]
    assert np.allclose(result.scores["heldout_error"], 0.1)


def test_arpack_on_a_component_smaller_than_the_eigenvalues_asked():
    # a separate group of 4 samples and candidates up to 5: each component
    # is asked min(6, its size) eigenvalues, which ARPACK cannot give for the
    # small one; the dense solve does, and the choices agree
    X, _ = _blobs(3, n_per=30)
    X = np.vstack([X, [[50, 50], [50.1, 50], [50, 50.1], [50.1, 50.1]]])
    K = local_scaling_kernel(X, n_neighbors=3)
    arpack = choose_n_clusters(K, candidates=range(2, 6), eigen_solver="arpack",
                               random_state=0)
    dense = choose_n_clusters(K, candidates=range(2, 6), eigen_solver="dense",
                              random_state=0)
    assert arpack.n_clusters == dense.n_clusters
    assert_allclose(arpack.eigenvalues, dense.eigenvalues, atol=1e-8)
