"""The vote over n_neighbors (smiclust.consensus) and SMIClustering(consensus=True)."""

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_blobs

import smiclust._estimator as estimator_module
from smiclust import SMIClustering, sample_links
from smiclust.consensus import align_labels, best_per_neighbors, vote_scores
from smiclust.constraints import link_violations


@pytest.mark.parametrize("seed", range(6))
def test_align_labels_is_the_best_permutation(seed):
    rng = np.random.default_rng(seed)
    c = int(rng.integers(2, 5))
    reference = rng.integers(0, c, 40)
    labels = np.where(rng.random(40) < 0.7, rng.permutation(c)[reference],
                      rng.integers(0, c, 40))
    aligned = align_labels(labels, reference, c)
    best = max(np.sum(np.array(p)[labels] == reference)
               for p in itertools.permutations(range(c)))
    assert np.sum(aligned == reference) == best
    # a renumbering: the same partition
    assert len({(a, b) for a, b in zip(labels, aligned)}) == len(np.unique(labels))


def test_vote_scores_counts_aligned_labellings():
    reference = np.array([0, 0, 1, 1, 2])
    same = np.array([2, 2, 0, 0, 1])        # the reference renumbered
    moved = np.array([0, 0, 1, 2, 2])       # sample 3 moved to cluster 2
    votes = vote_scores([reference, same, moved], reference, 3)
    assert_allclose(votes.sum(axis=1), 1.0)
    assert_allclose(votes[3], [0, 2 / 3, 1 / 3])
    assert_allclose(votes[[0, 1, 2, 4]], np.eye(3)[[0, 0, 1, 2]])


def test_best_per_neighbors():
    t = np.array([1, 1, 2, 2, 2, 5])
    crit = np.array([0.1, 0.3, np.nan, 0.2, 0.2, np.nan])
    assert best_per_neighbors(t, crit).tolist() == [1, 3, 5]


def _problem(seed=0, n_links=40):
    X, y = make_blobs(n_samples=200, centers=4, cluster_std=2.5, random_state=seed)
    must, cannot = sample_links(y, n_links, random_state=seed)
    return X, y, must, cannot


def test_consensus_fit_is_the_vote_of_the_best_candidate_per_t(monkeypatch):
    """The fitted labels by hand: one fit per t at the best (gamma, eta) of
    the search's results, Spectral Learning's labelling at each of those t
    (here a stand-in that records its calls), votes, the group labelling of
    the votes, and the linked samples keep those labels. (Without the rule
    for data blind to the links, which would redo each fit by hand with its
    own test: tests/test_estimator.py tests it.)"""
    monkeypatch.setattr(estimator_module, "BLIND_DATA_Z", -np.inf)
    X, y, must, cannot = _problem()
    calls = []
    # a labelling no SMIC fit gives: the true classes, one sample moved
    stand_in_labels = y.copy()
    stand_in_labels[0] = (stand_in_labels[0] + 1) % 4

    def spectral_learning_stand_in(K, groups, n_clusters, **options):
        calls.append((K.shape, groups.n_groups, n_clusters))
        return stand_in_labels

    monkeypatch.setattr(estimator_module, "spectral_learning_labels",
                        spectral_learning_stand_in)
    kw = dict(n_neighbors=[3, 5, 8], gamma=[0.0, 1.0], random_state=0,
              link_test_level=0, spreading=0)
    model = SMIClustering(4, consensus=True, **kw).fit(
        X, must_link=must, cannot_link=cannot
    )
    # 200 samples, 4 clusters: at least SL_VOTE_MIN_CLUSTER_SIZE per cluster
    assert len(calls) == 3
    assert all(call == ((200, 200), calls[0][1], 4) for call in calls)
    assert calls[0][1] < 200  # the closed links' groups
    plain = SMIClustering(4, **kw).fit(X, must_link=must, cannot_link=cannot)
    calls.clear()
    r = plain.tuning_results_
    labellings = []
    for t in (3, 5, 8):
        at_t = np.flatnonzero(r["param_n_neighbors"] == t)
        i = at_t[np.argmax(r["criterion"][at_t])]
        fit = SMIClustering(4, n_neighbors=t, gamma=float(r["param_gamma"][i]),
                            eta=float(r["param_eta"][i]), random_state=0,
                            link_test_level=0, spreading=0)
        labellings.append(fit.fit(X, must_link=must, cannot_link=cannot).labels_)
    assert calls == []  # one n_neighbors: no vote
    labellings += [stand_in_labels] * 3
    first = vote_scores(labellings, plain.labels_, 4)
    votes = vote_scores(labellings, first.argmax(axis=1), 4)
    # the same partition as the group labelling of the votes
    from smiclust.link_groups import group_labels, link_groups

    expected = group_labels(votes, link_groups(must, cannot, len(X)), 4)
    pairs = {(a, b) for a, b in zip(model.labels_, expected)}
    assert len(pairs) == len(np.unique(expected))
    vm, _ = link_violations(model.labels_, must, cannot)
    assert vm.sum() == 0  # must-link groups stay whole


def test_spectral_learning_votes_only_with_enough_samples_per_cluster(monkeypatch):
    calls = []
    real = estimator_module.spectral_learning_labels

    def spy(K, groups, n_clusters, **options):
        calls.append(n_clusters)
        return real(K, groups, n_clusters, **options)

    monkeypatch.setattr(estimator_module, "spectral_learning_labels", spy)
    X, y = make_blobs(n_samples=200, centers=4, cluster_std=2.5, random_state=0)
    c = estimator_module.SL_VOTE_MIN_CLUSTER_SIZE
    kw = dict(n_neighbors=[3, 5, 8], random_state=0, link_test_level=0)
    # 200 / 10 = 20 samples per cluster: votes; 199 / 10: does not
    SMIClustering(200 // c, **kw).fit(X)
    assert calls and set(calls) == {200 // c}
    calls.clear()
    SMIClustering(200 // c, **kw).fit(X[:-1])
    assert calls == []
    # the paper's 3SMIC never votes
    SMIClustering(4, links="paper", **kw).fit(X)
    assert calls == []


def test_consensus_one_t_is_the_plain_fit():
    # with one n_neighbors there is nothing to vote over: the same labels as
    # consensus=False (the default is consensus=True)
    X, y, must, cannot = _problem(1)
    kw = dict(n_neighbors=5, random_state=0, link_test_level=0)
    assert SMIClustering(4).consensus is True
    a = SMIClustering(4, consensus=True, **kw).fit(X, must_link=must,
                                                    cannot_link=cannot)
    b = SMIClustering(4, consensus=False, **kw).fit(X, must_link=must,
                                                     cannot_link=cannot)
    assert_array_equal(a.labels_, b.labels_)


def test_consensus_predicts_its_own_labels_from_the_neighbours():
    X, y, must, cannot = _problem(2, n_links=20)
    model = SMIClustering(4, consensus=True, random_state=0).fit(
        X, must_link=must, cannot_link=cannot
    )
    assert np.mean(model.predict(X) == model.labels_) > 0.9
    proba = model.predict_proba(X[:10])
    assert_allclose(proba.sum(axis=1), 1.0)
    assert_array_equal(proba.argmax(axis=1), model.predict(X[:10]))


@pytest.mark.parametrize("value", [1, "yes", None])
def test_bad_consensus(value):
    X, *_ = _problem()
    with pytest.raises(TypeError, match="consensus"):
        SMIClustering(4, consensus=value).fit(X)


def test_two_clusters_never_vote():
    # with two clusters the candidates of different t are different cuts:
    # consensus=True gives the chosen candidate's labels. On this imbalanced
    # problem (75 / 25 %, 30 labels) the vote of the cuts was balanced and
    # took the ARI from 0.82 to 0.26.
    from sklearn.datasets import make_classification
    from sklearn.metrics import adjusted_rand_score

    X, y = make_classification(600, n_features=10, n_informative=5, n_classes=2,
                               weights=[0.75], class_sep=1.5,
                               n_clusters_per_class=1, random_state=2)
    partial = np.full(len(y), -1)
    known = np.random.RandomState(2).choice(len(y), 30, replace=False)
    partial[known] = y[known]
    voted = SMIClustering(2, consensus=True, random_state=2).fit(
        X, partial_labels=partial)
    plain = SMIClustering(2, consensus=False, random_state=2).fit(
        X, partial_labels=partial)
    np.testing.assert_array_equal(voted.labels_, plain.labels_)
    assert adjusted_rand_score(y, voted.labels_) > 0.8


def test_blind_data_are_decided_before_the_fit_with_the_links(monkeypatch):
    # rule DG (forced here) is decided from the search's n_neighbors alone:
    # the fit with the links runs once, keeping every cannot-link (one vote,
    # SL's labellings once per t, one forest), and nothing stays after fit
    monkeypatch.setattr(estimator_module, "BLIND_DATA_Z", np.inf)
    calls, votes, forests, kept_flags = [], [], [], []
    real_labels = estimator_module.spectral_learning_labels
    real_vote = estimator_module.SMIClustering._vote
    real_forest = estimator_module.fit_seed_classifier

    def labels_spy(K, groups, n_clusters, **options):
        calls.append(K.shape)
        return real_labels(K, groups, n_clusters, **options)

    def vote_spy(self, inputs, links, *args, **kwargs):
        votes.append(1)
        kept_flags.append(links.keep_cannot_links)
        return real_vote(self, inputs, links, *args, **kwargs)

    def forest_spy(classifier, X, labels, random_state):
        forests.append(1)
        return real_forest(classifier, X, labels, random_state)

    monkeypatch.setattr(estimator_module, "spectral_learning_labels", labels_spy)
    monkeypatch.setattr(estimator_module.SMIClustering, "_vote", vote_spy)
    monkeypatch.setattr(estimator_module, "fit_seed_classifier", forest_spy)
    X, y, must, cannot = _problem(3)
    model = SMIClustering(4, n_neighbors=[3, 5, 8], random_state=0,
                          link_test_level=0, spreading=0).fit(
        X, must_link=must, cannot_link=cannot)
    assert model.links_agreement_z_ < np.inf
    assert votes == [1] and kept_flags == [True] and len(calls) == 3
    partial = np.full(len(y), -1)
    known = np.random.RandomState(0).choice(len(y), 40, replace=False)
    partial[known] = y[known]
    forests.clear()
    model = SMIClustering(4, n_neighbors=[3, 5, 8], random_state=0,
                          link_test_level=0).fit(X, partial_labels=partial)
    assert model.links_agreement_z_ < np.inf and forests == [1]
    assert not hasattr(model, "_solves")


def test_an_eigen_solve_asked_again_is_labelled_from_the_kept_one(monkeypatch):
    # rule DG's check solves SMIC without links at the searched n_neighbors,
    # and the spreading asks for the same solve: it runs once, and the fit
    # equals the one where every solve is computed afresh (every key missed)
    monkeypatch.setattr(estimator_module, "BLIND_DATA_Z", np.inf)
    solves = []
    real_solve = estimator_module.solve_link_operator

    def solve_spy(K, links, *args, **options):
        solves.append(1)
        return real_solve(K, links, *args, **options)

    monkeypatch.setattr(estimator_module, "solve_link_operator", solve_spy)
    X, y, _, _ = _problem(3)
    partial = np.full(len(y), -1)
    known = np.random.RandomState(0).choice(len(y), 40, replace=False)
    partial[known] = y[known]
    params = dict(n_neighbors=[3, 5, 8], random_state=0, link_test_level=0)
    kept = SMIClustering(4, **params).fit(X, partial_labels=partial)
    assert kept.links_agreement_z_ < np.inf
    n_kept = len(solves)
    solves.clear()
    unique = iter(range(10**6))
    monkeypatch.setattr(estimator_module, "operator_digest",
                        lambda K, links: next(unique))
    fresh = SMIClustering(4, **params).fit(X, partial_labels=partial)
    assert len(solves) > n_kept
    assert_array_equal(fresh.labels_, kept.labels_)
    assert_allclose(fresh.proba_, kept.proba_, rtol=0, atol=0)
