"""Tests of smiclust.model_selection: the paper's criterion, the candidate grid,
the shared scoring of labellings, and the Dask path of the parameter search."""

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from smiclust import SMIClustering, sample_links
from smiclust.constraints import check_constraints
from smiclust.lsmi import LSMIDesign
from smiclust.model_selection import (
    candidate_grid,
    connected_neighbors_grid,
    search_parameters,
    selection_criterion,
)
from smiclust.neighbors import nearest_neighbors


def _criterion_by_hand(lsmi, nv):
    """The paper's Eq. (EXP:PriorPenalty), one candidate at a time."""
    top = max(lsmi)
    top_nv = max(nv)
    return [
        s / top - (v / top_nv if top_nv > 0 else 0.0) for s, v in zip(lsmi, nv)
    ]


@pytest.mark.parametrize("seed", range(10))
def test_selection_criterion_is_the_papers_formula(seed):
    rng = np.random.RandomState(seed)
    size = rng.randint(1, 30)
    lsmi = rng.uniform(0.01, 2.0, size=size)
    nv = rng.randint(0, 50, size=size)
    assert_allclose(selection_criterion(lsmi, nv), _criterion_by_hand(lsmi, nv))


def test_selection_criterion_without_violations_is_lsmi_over_its_max():
    assert_allclose(selection_criterion([0.5, 1.0, 0.25], [0, 0, 0]), [0.5, 1, 0.25])


def test_selection_criterion_never_reverses_the_lsmi_order():
    # every LSMI negative: dividing by max LSMI (< 0) would flip the order
    lsmi = np.array([-0.3, -0.1, -0.2])
    crit = selection_criterion(lsmi, [0, 0, 0])
    assert np.argmax(crit) == 1
    assert_array_equal(np.argsort(crit), np.argsort(lsmi))


def test_candidate_grid_drops_parameters_that_cannot_matter():
    ts, gs, es = (1, 2), (0.0, 1.0), (0.0, 0.5)
    full = candidate_grid(ts, gs, es, n_must=3, n_cannot=2, n_clusters=2)
    assert full == list(itertools.product((1, 2), (0.0, 1.0), (0.0, 0.5)))
    # no links at all: only t is searched
    assert candidate_grid(ts, gs, es, n_must=0, n_cannot=0, n_clusters=2) == [
        (1, 0.0, 0.0),
        (2, 0.0, 0.0),
    ]
    # eta fixed at 0 for c > 2 (the paper) and without cannot-links
    for kwargs in (
        dict(n_must=3, n_cannot=2, n_clusters=3),
        dict(n_must=3, n_cannot=0, n_clusters=2),
    ):
        grid = candidate_grid(ts, gs, es, **kwargs)
        assert {e for _, _, e in grid} == {0.0} and len(grid) == 4


class _CountingDesign:
    """An LSMI design that records every labelling it is asked to score."""

    def __init__(self, design):
        self.design = design
        self.seen = []

    def evaluate(self, labels):
        self.seen.append(np.asarray(labels).copy())
        return self.design.evaluate(labels)


def test_search_scores_each_distinct_labelling_once(blobs3):
    X, y = blobs3
    must, cannot = check_constraints(*sample_links(y, 30, random_state=0), 90)
    graph = nearest_neighbors(X, 8)
    design = _CountingDesign(LSMIDesign(X, random_state=0))
    candidates = candidate_grid(
        (4, 6, 8), (0.0, 0.1, 1.0), (0.0,), n_must=len(must), n_cannot=len(cannot),
        n_clusters=3,
    )
    result = search_parameters(
        graph, must, cannot, 3, candidates, design, solver_seed=0
    )
    res = result.results
    assert len(res["lsmi"]) == len(candidates) == 9
    # well-separated blobs: many candidates give the same partition, scored once
    partitions = {
        tuple(np.unique(lab, return_inverse=True)[1]) for lab in design.seen
    }
    assert len(design.seen) == len(partitions) < len(candidates)
    # every candidate's LSMI is that of its own labelling, scored from scratch
    for i, (t, g, e) in enumerate(candidates):
        assert res["param_n_neighbors"][i] == t and res["param_gamma"][i] == g
    assert result.best_index == int(np.argmax(res["criterion"]))
    assert_allclose(res["criterion"], selection_criterion(res["lsmi"],
                                                          res["n_violations"]))


def test_fit_on_a_dask_local_cluster_equals_the_local_fit(blobs3):
    """The documented way to send the candidates to a Dask cluster."""
    distributed = pytest.importorskip("distributed")
    import joblib

    X, y = blobs3
    must, cannot = sample_links(y, 30, random_state=3)
    params = dict(n_neighbors=[3, 6, 9], gamma=[0.0, 1.0], random_state=0)
    local = SMIClustering(3, **params).fit(X, must_link=must, cannot_link=cannot)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        with joblib.parallel_config(backend="dask"), distributed.get_task_stream(
            client
        ) as stream:
            remote = SMIClustering(3, n_jobs=2, **params).fit(
                X, must_link=must, cannot_link=cannot
            )
    # the candidates really ran on the cluster's workers: one task per t (3)
    # and the LSMI batches, at least
    assert len(stream.data) >= 4
    assert_array_equal(local.labels_, remote.labels_)
    for key, value in local.tuning_results_.items():
        if key != "solve_seconds":
            assert_array_equal(value, remote.tuning_results_[key])


@pytest.mark.parametrize("weight", [0.0, 0.5, 2.0, 7.0])
def test_selection_criterion_weights_the_violation_term(weight):
    rng = np.random.RandomState(0)
    lsmi = rng.uniform(0.01, 2.0, size=12)
    nv = rng.randint(0, 50, size=12)
    expected = lsmi / lsmi.max() - weight * nv / nv.max()
    assert_allclose(
        selection_criterion(lsmi, nv, violation_penalty=weight), expected
    )


def test_violation_penalty_moves_the_choice_between_lsmi_and_the_links():
    """w = 0 chooses by LSMI alone, a huge w the fewest violations, and the
    recorded criterion is always the weighted formula over the recorded values."""
    from sklearn.datasets import make_moons

    # a problem where the candidate of largest LSMI violates 10 of 40 links
    X, y = make_moons(n_samples=200, noise=0.1, random_state=0)
    must, cannot = sample_links(y, 40, random_state=0)
    grids = dict(n_neighbors=[1, 2, 4, 7, 10], gamma=[0.0, 1.0], eta=[0.0, 1.0])
    chosen = {}
    for weight in (0.0, 1.0, 1e6):
        model = SMIClustering(
            2, violation_penalty=weight, links="paper", random_state=0, **grids
        )
        model.fit(X, must_link=must, cannot_link=cannot)
        res = model.tuning_results_
        assert_allclose(res["criterion"], selection_criterion(
            res["lsmi"], res["n_violations"], violation_penalty=weight))
        assert model.best_index_ == int(np.argmax(res["criterion"]))
        chosen[weight] = (model.lsmi_, model.n_violations_, res)
    lsmi0, _, res0 = chosen[0.0]
    assert lsmi0 == res0["lsmi"].max()
    _, nv_big, res_big = chosen[1e6]
    assert nv_big == res_big["n_violations"].min()
    # the candidates differ, so the weight really matters on this problem
    assert res0["n_violations"].min() < res0["n_violations"][
        int(np.argmax(res0["lsmi"]))]


def test_candidate_grid_with_one_cluster_is_a_single_candidate():
    # every labelling is the same: nothing to search, eta not at all
    grid = candidate_grid((3, 5), (0.0, 1.0), (0.0, 1.0), n_must=2, n_cannot=2,
                          n_clusters=1)
    assert grid == [(3, 0.0, 0.0)]


def test_repeated_grid_values_are_solved_once():
    from sklearn.datasets import make_blobs

    X, _ = make_blobs(80, centers=2, random_state=0)
    model = SMIClustering(2, n_neighbors=[5, 5, 3, 5], random_state=0).fit(X)
    assert model.tuning_results_["param_n_neighbors"].tolist() == [5, 3]


def test_connected_grid_keeps_the_t_with_few_components_or_the_fewest():
    """Four blobs of 12 points: no t <= 10 joins them, so for 2 clusters the
    largest t with the fewest components is kept; a must-link chain joining
    the blobs makes every t with connected blobs acceptable."""
    rng = np.random.RandomState(0)
    X = np.repeat(np.arange(4) * 100.0, 12)[:, None] + rng.normal(size=(48, 1))
    graph = nearest_neighbors(X, 10, random_state=0)
    none = np.empty((0, 2), dtype=int)
    assert connected_neighbors_grid(graph, list(range(1, 11)), none, 2) == [10]
    chain = np.array([[0, 12], [12, 24], [24, 36]])
    # brute force: components of the t-NN graph plus the links
    from scipy.sparse.csgraph import connected_components
    from sklearn.neighbors import kneighbors_graph

    def brute(links, n_clusters):
        expected = []
        for t in range(1, 11):
            A = kneighbors_graph(X, t).tolil()
            for i, j in links:
                A[i, j] = 1
            if connected_components(A.tocsr(), directed=False)[0] <= n_clusters:
                expected.append(t)
        return expected

    # four clusters: every t whose graph has at most four components (the
    # whole list: a t at exactly n_clusters components is kept)
    four = connected_neighbors_grid(graph, list(range(1, 11)), none, 4)
    assert four == brute(none, 4) and len(four) > 1 and four[-1] == 10
    kept = connected_neighbors_grid(graph, list(range(1, 11)), chain, 2)
    assert kept == brute(chain, 2) and 10 in kept


def test_default_grids_are_the_documented_ones():
    from smiclust.model_selection import (
        CLOSURE_ETAS,
        CLOSURE_GAMMAS,
        DEFAULT_ETAS,
        DEFAULT_GAMMAS,
        DEFAULT_N_NEIGHBORS,
    )

    assert DEFAULT_N_NEIGHBORS == tuple(range(1, 11))
    assert DEFAULT_GAMMAS == DEFAULT_ETAS == (0.0, 0.1, 1.0, 10.0)
    assert CLOSURE_GAMMAS == CLOSURE_ETAS == (0.0, 1.0)


@pytest.mark.parametrize(
    "lsmi, n_violations, penalty, error, match",
    [
        ([0.2, 0.4], [1, 0], np.inf, ValueError,
         "'violation_penalty'.*finite and >= 0"),
        ([0.2, 0.4], [1, 0], -1.0, ValueError, "'violation_penalty'.*finite and >= 0"),
        ([0.2, 0.4], [1, 0], np.nan, ValueError, "'violation_penalty'.*Got nan"),
        ([0.2, 0.4], [1, 0], "1", TypeError, "'violation_penalty'.*a real number"),
        ([0.2, 0.4, 0.3], [1, 0], 1.0, ValueError,
         "one value per candidate each. Got 3 and 2 values"),
        ([], [], 1.0, ValueError, "'lsmi'.*non-empty 1-d array"),
        ([0.2, 0.4], [np.nan, 0], 1.0, ValueError, "'n_violations'.*Got nan"),
        ([0.2, 0.4], [-1, 0], 1.0, ValueError, "'n_violations'.*>= 0"),
        ([[0.2, 0.4]], [[1, 0]], 1.0, ValueError, r"shape \(1, 2\)"),
        (["a", "b"], [1, 0], 1.0, TypeError, "'lsmi'.*real numbers"),
    ],
)
def test_selection_criterion_refuses_bad_input_by_name(lsmi, n_violations, penalty,
                                                       error, match):
    with pytest.raises(error, match=match):
        selection_criterion(lsmi, n_violations, violation_penalty=penalty)


def test_selection_criterion_ranks_an_unscored_labelling_last():
    # LSMI may be -inf or NaN (a labelling it could not score): ranked last
    crit = selection_criterion([0.2, np.nan, -np.inf, 0.4], [0, 0, 0, 1])
    assert np.argmax(crit) == 0 and np.isneginf(crit[[1, 2]]).all()
