import itertools
import pickle
import warnings

import numpy as np
import pytest
from conftest import blobs_with_strays
from numpy.testing import assert_allclose, assert_array_equal
from scipy.sparse.csgraph import connected_components
from sklearn.datasets import make_blobs, make_moons
from sklearn.metrics import adjusted_rand_score
from sklearn.model_selection import cross_validate
from sklearn.neighbors import kneighbors_graph
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import smiclust._estimator as estimator_module
from smiclust import (
    ActiveSMIClustering,
    ConstrainedSpectralClustering,
    SMIClustering,
    SpectralLearning,
    sample_links,
    smi_clustering,
)
from smiclust._estimator import BLIND_DATA_Z
from smiclust.constraints import ConstraintConflictWarning, count_violations


def test_fixed_parameters_equal_solver(blobs3):
    X, y = blobs3
    must, cannot = sample_links(y, 40, random_state=0)
    model = SMIClustering(3, n_neighbors=5, gamma=1.0, eta=0.0, random_state=0)
    model.fit(X, must_link=must, cannot_link=cannot)
    assert model.n_neighbors_ == 5 and model.gamma_ == 1.0 and model.eta_ == 0.0
    assert np.isnan(model.lsmi_)
    assert adjusted_rand_score(y, model.labels_) == 1.0
    assert model.n_violations_ == count_violations(model.labels_, must, cannot)
    assert model.eigenvectors_.shape == (90, 3)
    assert model.tuning_results_["param_n_neighbors"].tolist() == [5]


def test_auto_tuning_records_every_candidate(blobs3):
    X, y = blobs3
    must, cannot = sample_links(y, 30, random_state=1)
    model = SMIClustering(
        3, n_neighbors=[2, 5, 8], gamma=[0.0, 1.0], random_state=0
    ).fit(X, must_link=must, cannot_link=cannot)
    res = model.tuning_results_
    # eta is fixed at 0 for more than two clusters: 3 t x 2 gamma candidates
    assert len(res["param_n_neighbors"]) == 6
    assert set(res["param_eta"]) == {0.0}
    best = model.best_index_
    assert res["rank"][best] == 1
    assert res["criterion"][best] == res["criterion"].max()
    assert (model.n_neighbors_, model.gamma_) == (
        res["param_n_neighbors"][best],
        res["param_gamma"][best],
    )
    assert model.lsmi_ == res["lsmi"][best]
    # the criterion is the paper's formula over the recorded values
    nv = res["n_violations"]
    penalty = nv / nv.max() if nv.max() else 0
    assert_allclose(res["criterion"], res["lsmi"] / res["lsmi"].max() - penalty)
    pd = pytest.importorskip("pandas")
    assert len(pd.DataFrame(res)) == 6


def test_without_links_only_t_is_searched(blobs3):
    X, y = blobs3
    model = SMIClustering(3, random_state=0).fit(X)
    res = model.tuning_results_
    # the default searches the t whose kNN graph has at most 3 components
    connected = []
    for t in range(1, 11):
        A = kneighbors_graph(X, t)
        if connected_components(A, directed=False)[0] <= 3:
            connected.append(t)
    assert connected and connected != list(range(1, 11))
    assert res["param_n_neighbors"].tolist() == connected
    assert set(res["param_gamma"]) == {0.0} and set(res["param_eta"]) == {0.0}
    assert adjusted_rand_score(y, model.labels_) == 1.0


def test_two_moons_links_flip_the_answer():
    X, y = make_moons(n_samples=300, noise=0.06, random_state=0)
    base = SMIClustering(2, n_neighbors=1, random_state=0).fit(X)
    must, cannot = sample_links(y, 200, random_state=0)
    linked = SMIClustering(2, random_state=0).fit(X, must_link=must, cannot_link=cannot)
    assert adjusted_rand_score(y, linked.labels_) >= 0.9
    assert adjusted_rand_score(y, linked.labels_) > adjusted_rand_score(y, base.labels_)


def test_predict_on_training_points_and_new_points(blobs3):
    X, y = blobs3
    model = SMIClustering(3, n_neighbors=5, random_state=0).fit(X)
    assert adjusted_rand_score(model.labels_, model.predict(X)) == 1.0
    rng = np.random.RandomState(0)
    centers = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    X_new = centers[[0, 1, 2, 0]] + rng.normal(scale=0.3, size=(4, 2))
    pred = model.predict(X_new)
    mapping = {c: model.labels_[y == c][0] for c in range(3)}
    assert pred.tolist() == [mapping[0], mapping[1], mapping[2], mapping[0]]
    proba = model.predict_proba(X_new)
    assert proba.shape == (4, 3)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert proba.min() >= 0
    assert_array_equal(np.argmax(proba, axis=1), pred)


def test_predict_reproduces_fitted_responses_with_links(blobs3):
    """K' beta = phi: the out-of-sample rule applied with the fitted K'."""
    X, y = blobs3
    must, cannot = sample_links(y, 50, random_state=3)
    model = SMIClustering(3, n_neighbors=5, gamma=2.0, random_state=0).fit(
        X, must_link=must, cannot_link=cannot
    )
    responses = model.affinity_matrix_ @ model.dual_coef_
    assert_allclose(responses, model.eigenvectors_, atol=1e-8)


def test_function_twin(blobs3):
    X, y = blobs3
    labels = smi_clustering(X, 3, n_neighbors=4, random_state=0)
    model = SMIClustering(3, n_neighbors=4, random_state=0).fit(X)
    assert_array_equal(labels, model.labels_)


def test_inputs_not_modified_and_pickle(blobs3):
    X, y = blobs3
    must, cannot = sample_links(y, 30, random_state=4)
    X0, must0, cannot0 = X.copy(), must.copy(), cannot.copy()
    model = SMIClustering(3, n_neighbors=[3, 6], random_state=0).fit(
        X, must_link=must, cannot_link=cannot
    )
    assert_array_equal(X, X0)
    assert_array_equal(must, must0)
    assert_array_equal(cannot, cannot0)
    clone = pickle.loads(pickle.dumps(model))
    assert_array_equal(clone.predict(X[:10]), model.predict(X[:10]))


def test_dense_solver_same_labels(blobs3):
    X, y = blobs3
    must, cannot = sample_links(y, 30, random_state=5)
    kw = dict(n_neighbors=6, gamma=1.0, random_state=0)
    a = SMIClustering(3, eigen_solver="arpack", **kw).fit(
        X, must_link=must, cannot_link=cannot
    )
    b = SMIClustering(3, eigen_solver="dense", **kw).fit(
        X, must_link=must, cannot_link=cannot
    )
    assert adjusted_rand_score(a.labels_, b.labels_) == 1.0
    assert_allclose(np.sort(a.eigenvalues_), np.sort(b.eigenvalues_), rtol=1e-8)


def test_eta_ignored_for_more_than_two_clusters_warns(blobs3):
    X, y = blobs3
    with pytest.warns(UserWarning, match="eta=1.0 is ignored"):
        model = SMIClustering(3, n_neighbors=5, gamma=1.0, eta=1.0).fit(
            X, cannot_link=[[0, 40]]
        )
    assert model.eta_ == 0.0


def test_disconnected_graph_warns():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal(loc=10 * k, size=(10, 2)) for k in range(6)])
    with pytest.warns(UserWarning, match="connected components"):
        model = SMIClustering(2, n_neighbors=2, random_state=0).fit(X)
    assert np.all(np.isfinite(model.eigenvectors_))


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"n_clusters": 0}, ValueError, "'n_clusters' parameter of SMIClustering"),
        ({"n_clusters": 2.5}, TypeError, "'n_clusters'.*Got 2.5"),
        ({"n_neighbors": 0}, ValueError, "'n_neighbors'"),
        ({"n_neighbors": 50}, ValueError, "smaller than n_samples=30"),
        ({"n_neighbors": "many"}, ValueError, "'n_neighbors'.*Got 'many'"),
        ({"gamma": -1.0}, ValueError, "'gamma' parameter.*Got -1.0"),
        ({"gamma": float("nan")}, ValueError, "'gamma' parameter.*Got nan"),
        ({"eta": [1.0, -2.0]}, ValueError, "'eta' parameter"),
        ({"gamma": None}, TypeError, "'gamma' parameter.*Got None"),
        ({"eigen_solver": "magic"}, ValueError, "'eigen_solver'"),
        ({"n_clusters": 31}, ValueError, r"\[1, n_samples\] = \[1, 30\]"),
    ],
)
def test_parameter_errors(params, error, match):
    X = np.random.RandomState(0).normal(size=(30, 2))
    with pytest.raises(error, match=match):
        SMIClustering(**params).fit(X)


@pytest.mark.parametrize(
    "params, links, match",
    [
        (dict(gamma=1.0, eta=0.0), {}, r"gamma=1\.0 is ignored: there are no links"),
        (dict(gamma=[0.0, 1.0], eta=0.0), {}, r"gamma=\[0\.0, 1\.0\] is ignored"),
        (dict(gamma=0.0, eta=1.0), {"must_link": [[0, 1]]},
         r"eta=1\.0 is ignored: there are no cannot-links"),
    ],
)
def test_weights_without_the_links_they_weight_warn(params, links, match):
    X, y = make_moons(n_samples=60, noise=0.05, random_state=0)
    with pytest.warns(UserWarning, match=match):
        model = SMIClustering(2, n_neighbors=5, random_state=0, **params).fit(
            X, **links)
    assert model.gamma_ == (0.0 if not links else params["gamma"])
    assert model.eta_ == 0.0


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(gamma=1.0, eta=0.0), r"^gamma=1\.0 ignored: with n_clusters=1"),
        (dict(gamma=0.0, eta=2.0), r"^eta=2\.0 ignored: with n_clusters=1"),
        (dict(gamma=1.0, eta=2.0), r"^gamma=1\.0 and eta=2\.0 ignored"),
    ],
)
@pytest.mark.filterwarnings("ignore:.*more than n_clusters=1")
def test_weights_with_one_cluster_warn(params, match):
    X, _ = make_moons(n_samples=60, noise=0.05, random_state=0)
    with pytest.warns(UserWarning, match=match) as record:
        model = SMIClustering(1, n_neighbors=5, random_state=0, **params).fit(
            X, must_link=[[0, 1]], cannot_link=[[2, 3]])
    assert len([w for w in record if "ignored" in str(w.message)]) == 1
    assert np.all(model.labels_ == 0)


def test_weights_that_act_do_not_warn():
    import warnings

    X, y = make_moons(n_samples=60, noise=0.05, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        # gamma with cannot-links only still scales B = (1+gamma)^2 I + (I-eta C)^2
        SMIClustering(2, n_neighbors=5, gamma=1.0, eta=1.0, random_state=0).fit(
            X, cannot_link=[[0, 59]])
        SMIClustering(2, n_neighbors=5, random_state=0).fit(X)  # "auto": silent


def test_grids_may_be_ranges(blobs3):
    X, _ = blobs3
    model = SMIClustering(3, n_neighbors=range(3, 6), random_state=0).fit(X)
    assert model.tuning_results_["param_n_neighbors"].tolist() == [3, 4, 5]
    with pytest.raises(ValueError, match="'n_neighbors'"):
        SMIClustering(3, n_neighbors=range(0), random_state=0).fit(X)


def test_candidate_parameters_are_the_candidates_fit_tries(blobs3):
    X, y = blobs3
    must, cannot = sample_links(y, 30, random_state=2)
    model = SMIClustering(2, n_neighbors=[2, 5], random_state=0)
    expected = model.candidate_parameters(
        X.shape[0], n_must=len(must), n_cannot=len(cannot)
    )
    model.fit(X, must_link=must, cannot_link=cannot)
    res = model.tuning_results_
    tried = list(zip(res["param_n_neighbors"].tolist(), res["param_gamma"].tolist(),
                     res["param_eta"].tolist()))
    assert tried == expected
    assert model.n_candidates_ == len(expected) == 2 * 2 * 2  # closed links
    paper = SMIClustering(2, n_neighbors=[2, 5], links="paper")
    assert len(paper.candidate_parameters(60, n_must=1, n_cannot=1)) == 2 * 4 * 4
    # without links gamma and eta are not searched; one candidate when fixed
    assert len(model.candidate_parameters(X.shape[0])) == 2
    fixed = SMIClustering(2, n_neighbors=3, gamma=1.0, eta=0.0)
    assert fixed.candidate_parameters(50, n_must=3) == [(3, 1.0, 0.0)]
    with pytest.raises(ValueError, match="smaller than n_samples=3"):
        fixed.candidate_parameters(3)


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        ((0,), {}, ValueError, "'n_samples' parameter .* range \\[2, inf\\)\\. Got 0 "),
        ((-3,), {}, ValueError, "'n_samples' .* Got -3"),
        ((2.7,), {}, TypeError, "'n_samples' .* Got 2.7"),
        ((True,), {}, TypeError, "'n_samples' .* Got True"),
        (("100",), {}, TypeError, "'n_samples' .* Got '100'"),
        ((np.zeros((3, 2)),), {}, TypeError, "'n_samples' .* Got array"),
        ((300,), {"n_must": -5}, ValueError, "'n_must' .* Got -5"),
        ((300,), {"n_cannot": "x"}, TypeError, "'n_cannot' .* Got 'x'"),
        ((300,), {"links_as_given": 1}, TypeError, "'links_as_given' .* Got 1"),
    ],
)
def test_candidate_parameters_validates_its_arguments(args, kwargs, error, message):
    # before: 0 or -3 samples gave no candidate, 2.7 was cut to 2, n_must=-5
    # counted as no links, and an array or a string met a bare TypeError
    model = SMIClustering(2)
    with pytest.raises(error, match=message) as raised:
        model.candidate_parameters(*args, **kwargs)
    assert "of SMIClustering.candidate_parameters must be" in str(raised.value)
    assert len(model.candidate_parameters(np.int64(300), n_must=np.int32(3))) == 20


@pytest.mark.parametrize("case", ["weighted", "contradictory"])
def test_candidate_parameters_of_links_used_as_given(blobs3, case):
    # weighted links, and links that contradict themselves (softened), are
    # used as given: the default then searches the paper's grids of gamma
    # and eta, which links_as_given=True lists
    X, y = blobs3
    must, cannot = map(np.asarray, sample_links(y, 30, random_state=2))
    kwargs = {}
    if case == "weighted":
        kwargs = dict(must_link_weight=np.full(len(must), 0.5))
    else:  # a cannot-link between the two ends of a chain of must-links
        a, b, c = (int(v) for v in np.flatnonzero(y == 0)[[0, 1, 2]])
        must = np.vstack([must, [[a, b], [b, c]]])
        cannot = np.vstack([cannot, [[a, c]]])
        assert len(np.unique(np.sort(np.vstack([must, cannot]), 1), axis=0)) == (
            len(must) + len(cannot))
    model = SMIClustering(2, n_neighbors=[2, 5], random_state=0)
    expected = model.candidate_parameters(
        X.shape[0], n_must=len(must), n_cannot=len(cannot), links_as_given=True)
    model.fit(X, must_link=must, cannot_link=cannot, **kwargs)
    assert model.links_ == "paper"
    res = model.tuning_results_
    tried = list(zip(res["param_n_neighbors"].tolist(), res["param_gamma"].tolist(),
                     res["param_eta"].tolist()))
    assert tried == expected and len(expected) == 2 * 4 * 4
    closed = model.candidate_parameters(X.shape[0], n_must=len(must),
                                        n_cannot=len(cannot))
    assert len(closed) == 2 * 2 * 2


@pytest.mark.parametrize("spreading", [0.0, 0.5])
def test_training_proba_is_consistent_with_labels(blobs3, spreading):
    X, y = blobs3
    must, cannot = sample_links(y, 30, random_state=2)
    model = SMIClustering(
        3, n_neighbors=5, spreading=spreading, random_state=0
    ).fit(X, must_link=must, cannot_link=cannot)
    P = model.proba_
    assert P.shape == (X.shape[0], 3)
    assert_allclose(P.sum(axis=1), 1.0)
    assert np.all(P >= 0)
    assert_array_equal(np.argmax(P, axis=1), model.labels_)
    # brute force: clipped, column-normalised eigenvectors, rows normalised
    clipped = np.maximum(model.eigenvectors_, 0)
    scores = clipped / clipped.sum(axis=0)
    rows = scores.sum(axis=1)
    linked = np.zeros(len(X), dtype=bool)
    linked[np.r_[must.ravel(), cannot.ravel()]] = True
    # the samples in no link have their spread scores instead
    # (tests/test_score_spreading.py checks those against a dense solve)
    check = (rows > 0) & (linked if spreading else True)
    assert_allclose(P[check], scores[check] / rows[check, None])


def test_rejected_fit_leaves_the_estimator_unchanged():
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    model = SMIClustering(2, n_neighbors=4, random_state=0).fit(X)
    before = {k: v for k, v in vars(model).items()}
    X_bad = X[["c", "b", "a"]].rename(columns={"c": "x"})
    for bad_links in ([[0, 400]], [[0, 0]]):
        with pytest.raises(ValueError):
            model.fit(X_bad, must_link=bad_links)
        assert vars(model).keys() == before.keys()
        for key, value in before.items():
            assert vars(model)[key] is value, key
    assert list(model.feature_names_in_) == ["a", "b", "c"]
    assert_array_equal(model.predict(X), model.labels_)


class _FailingClassifier:
    """A classifier whose fit raises: the fit fails after the inputs were
    accepted and the search ran."""

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self

    def fit(self, X, y):
        raise RuntimeError("the classifier broke")

    def predict_proba(self, X):  # pragma: no cover - never fitted
        raise AssertionError


@pytest.mark.parametrize("interrupt", [RuntimeError, KeyboardInterrupt])
def test_a_fit_that_fails_late_leaves_the_estimator_as_it_was(interrupt, monkeypatch):
    rng = np.random.RandomState(0)
    X, X3 = rng.normal(size=(60, 2)), rng.normal(size=(60, 3))
    partial = np.where(np.arange(60) % 3 == 0, np.arange(60) % 2, -1)
    model = SMIClustering(2, n_neighbors=4, random_state=0).fit(X)
    predicted = model.predict(X)
    before = dict(vars(model))
    model.set_params(classifier=_FailingClassifier())
    if interrupt is KeyboardInterrupt:  # interrupted in the middle instead
        def stop(*args, **kwargs):
            raise KeyboardInterrupt
        monkeypatch.setattr(SMIClustering, "_spread_scores", stop)
    with pytest.raises(interrupt):
        model.fit(X3, partial_labels=partial)
    state = dict(vars(model))
    assert state.pop("classifier") is not before.pop("classifier")  # the new one
    assert state.keys() == before.keys()
    for key, value in before.items():
        assert state[key] is value, key
    assert model.n_features_in_ == 2
    assert_array_equal(model.predict(X), predicted)
    # a fresh estimator stays unfitted
    from sklearn.exceptions import NotFittedError

    fresh = SMIClustering(2, n_neighbors=4, classifier=_FailingClassifier(),
                          random_state=0)
    with pytest.raises(interrupt):
        fresh.fit(X3, partial_labels=partial)
    with pytest.raises(NotFittedError):
        fresh.predict(X3)
    assert not [k for k in vars(fresh) if k.endswith("_") and not k.startswith("_")]


@pytest.mark.parametrize("name", ["gamma", "eta"])
@pytest.mark.parametrize("value", [1e154, 1e300, [0.0, 1e200]])
def test_link_weights_beyond_range_are_rejected(name, value):
    X = np.random.RandomState(0).normal(size=(30, 2))
    model = SMIClustering(2, n_neighbors=3, **{name: value})
    with pytest.raises(ValueError, match=f"The '{name}' parameter of SMIClustering"):
        model.fit(X, must_link=[[0, 1]], cannot_link=[[2, 3]])


@pytest.mark.parametrize("value", [1e308, -1e308, 1e200])
def test_predict_far_away_samples_is_quiet_and_uniform(value):
    import warnings

    X = np.random.RandomState(0).normal(size=(50, 2))
    model = SMIClustering(2, n_neighbors=4, random_state=0).fit(X)
    X_new = np.array([[value, value], [value, -value]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        proba = model.predict_proba(X_new)
        labels = model.predict(X_new)
    assert_allclose(proba, 0.5)
    assert labels.shape == (2,)


def test_missing_values_are_named_with_their_position():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(np.random.RandomState(0).normal(size=(20, 2))).astype("Float64")
    X.iloc[3, 1] = pd.NA
    with pytest.raises(ValueError, match=r"missing values in 'X'; found <NA> at row 3"):
        SMIClustering(2, n_neighbors=3).fit(X)
    with pytest.raises(ValueError, match="Input X contains NaN"):  # None is NaN
        SMIClustering(2, n_neighbors=3).fit(np.array([[1.0, None]] * 20, dtype=object))


def test_indicator_rotation_only_with_closed_links_and_three_or_more_clusters():

    from smiclust import sample_links

    X, y = make_blobs(240, centers=4, n_features=5, cluster_std=2.5, random_state=1)
    must, cannot = sample_links(y, 60, random_state=1)
    kw = dict(n_neighbors=[4, 6], random_state=0)
    # two clusters, or the paper's 3SMIC: the parameter changes nothing
    y2 = (y >= 2).astype(int)
    m2, c2 = sample_links(y2, 60, random_state=1)
    for n_clusters, links, (mu, cl) in ((2, "closure", (m2, c2)),
                                        (4, "paper", (must, cannot))):
        a = SMIClustering(n_clusters, links=links, **kw).fit(X, must_link=mu,
                                                             cannot_link=cl)
        b = SMIClustering(n_clusters, links=links, indicator_rotation=True,
                          **kw).fit(X, must_link=mu, cannot_link=cl)
        np.testing.assert_array_equal(a.labels_, b.labels_)
        np.testing.assert_array_equal(a.eigenvalues_, b.eigenvalues_)
    # closed links, four clusters: the fitted columns are the rotated basis
    # (an orthonormal basis of the same span, no longer eigenvectors)
    fixed = dict(n_neighbors=6, gamma=1.0, random_state=0)
    a = SMIClustering(4, **fixed).fit(X, must_link=must, cannot_link=cannot)
    b = SMIClustering(4, indicator_rotation=True, **fixed).fit(
        X, must_link=must, cannot_link=cannot)
    # the trace of U on the span is kept, its split over the columns is not
    assert_allclose(b.eigenvalues_.sum(), a.eigenvalues_.sum(), rtol=1e-8)
    assert not np.allclose(np.sort(b.eigenvalues_), np.sort(a.eigenvalues_))
    assert (b.predict(X) == b.labels_).mean() > 0.95
    assert_allclose(b.predict_proba(X).sum(axis=1), 1.0)


def _one_typo(std, n_links, seed):
    """Blobs, correct random links, and one contradiction: a must-link chain
    a-b-c and a cannot-link a-c inside one class."""

    X, y = make_blobs(n_samples=150, centers=3, cluster_std=std, random_state=seed)
    must, cannot = sample_links(y, n_links, random_state=seed)
    a, b, c = np.flatnonzero(y == y[0])[:3]
    return X, y, np.vstack([must, [[a, b], [b, c]]]), np.vstack([cannot, [[a, c]]])


def test_repaired_contradictions_are_the_fit_on_the_kept_must_links():
    from smiclust.link_groups import repaired_must_links

    X, _, must, cannot = _one_typo(2.0, 80, 0)
    fixed = dict(n_neighbors=5, gamma=1.0, eta=0.0, link_test_level=0,
                 random_state=0)
    repaired = SMIClustering(3, contradictions="repair", **fixed).fit(
        X, must_link=must, cannot_link=cannot)
    keep = repaired_must_links(must, cannot, len(X))
    assert 0 < (~keep).sum() <= 2
    by_hand = SMIClustering(3, **fixed).fit(X, must_link=must[keep],
                                            cannot_link=cannot)
    assert repaired.links_ == by_hand.links_ == "closure"
    assert_array_equal(repaired.labels_, by_hand.labels_)
    # the violations are those of every given link
    assert repaired.n_violations_ == count_violations(repaired.labels_, must,
                                                      cannot)
    softened = SMIClustering(3, **fixed).fit(X, must_link=must, cannot_link=cannot)
    assert softened.links_ == "paper"


def test_one_typo_among_many_links_costs_little_when_repaired():
    # one contradiction among 300 correct links: softening every link leaves
    # little of their value, the repair keeps it
    X, y, must, cannot = _one_typo(4.0, 300, 2)
    soft = SMIClustering(3, random_state=0).fit(X, must_link=must, cannot_link=cannot)
    repair = SMIClustering(3, random_state=0, contradictions="repair").fit(
        X, must_link=must, cannot_link=cannot)
    assert adjusted_rand_score(y, repair.labels_) > 0.8
    assert adjusted_rand_score(y, soft.labels_) < 0.5


def test_repair_changes_nothing_without_contradictions():
    X, y = make_moons(120, noise=0.08, random_state=0)
    must, cannot = sample_links(y, 60, random_state=0)
    a = SMIClustering(2, random_state=0).fit(X, must_link=must, cannot_link=cannot)
    b = SMIClustering(2, random_state=0, contradictions="repair").fit(
        X, must_link=must, cannot_link=cannot)
    assert_array_equal(a.labels_, b.labels_)


@pytest.mark.parametrize("value", ["drop", None, 1])
def test_bad_contradictions(value):
    X, _ = make_moons(40, random_state=0)
    with pytest.raises((ValueError, TypeError), match="contradictions"):
        SMIClustering(2, contradictions=value).fit(X)


def test_keep_cannot_links_keeps_links_the_scores_contradict():
    # features that see the links (the default does not keep them all by
    # itself) but are sure and wrong about the strays: the default lets its
    # confident scores break cannot-links, the option keeps every one
    X, y = blobs_with_strays(0)
    must, cannot = sample_links(y, 300, random_state=0)
    default = SMIClustering(3, random_state=0).fit(
        X, must_link=must, cannot_link=cannot)
    assert default.links_agreement_z_ > BLIND_DATA_Z
    kept = SMIClustering(3, random_state=0, keep_cannot_links=True).fit(
        X, must_link=must, cannot_link=cannot)
    assert count_violations(kept.labels_, must, cannot) == 0 < count_violations(
        default.labels_, must, cannot)
    assert np.isnan(kept.links_agreement_z_)  # kept anyway: not computed
    # the paper's 3SMIC ignores it
    paper = dict(links="paper", random_state=0)
    assert_array_equal(
        SMIClustering(3, keep_cannot_links=True, **paper).fit(
            X, must_link=must, cannot_link=cannot).labels_,
        SMIClustering(3, **paper).fit(X, must_link=must, cannot_link=cannot).labels_)


def test_default_keeps_cannot_links_where_the_features_are_blind(monkeypatch):
    # three classes the features do not show (pure noise), many correct
    # links: SMIC without links agrees with them no better than chance, so
    # the default keeps every cannot-link and recovers more of the classes
    # than the same fit whose scores may break them
    rng = np.random.RandomState(0)
    y = np.repeat(np.arange(3), 60)
    X = rng.normal(size=(180, 4))
    must, cannot = sample_links(y, 300, random_state=0)
    default = SMIClustering(3, random_state=0).fit(
        X, must_link=must, cannot_link=cannot)
    assert default.links_agreement_z_ < BLIND_DATA_Z
    assert count_violations(default.labels_, must, cannot) == 0
    monkeypatch.setattr(estimator_module, "BLIND_DATA_Z", -np.inf)
    ungated = SMIClustering(3, random_state=0).fit(
        X, must_link=must, cannot_link=cannot)
    assert count_violations(ungated.labels_, must, cannot) > 0
    assert (adjusted_rand_score(y, default.labels_)
            > adjusted_rand_score(y, ungated.labels_) + 0.1)
    # the same search: the parameters are those of the fit that broke links
    assert (default.n_neighbors_, default.gamma_) == (ungated.n_neighbors_,
                                                      ungated.gamma_)


def test_features_that_see_the_links_keep_the_default_labels(monkeypatch):
    # where SMIC without links agrees with the links beyond chance, the
    # labels are those of the fit without the blind-data rule
    X, y = blobs_with_strays(1)
    must, cannot = sample_links(y, 200, random_state=1)
    default = SMIClustering(3, random_state=0).fit(
        X, must_link=must, cannot_link=cannot)
    monkeypatch.setattr(estimator_module, "BLIND_DATA_Z", -np.inf)
    ungated = SMIClustering(3, random_state=0).fit(
        X, must_link=must, cannot_link=cannot)
    assert default.links_agreement_z_ > BLIND_DATA_Z
    assert_array_equal(default.labels_, ungated.labels_)
    # two clusters, no cannot-link or the paper's links: not computed
    for params, m, c in [(dict(n_clusters=2), must, cannot),
                         (dict(n_clusters=3), must, cannot[:0]),
                         (dict(n_clusters=3, links="paper"), must, cannot)]:
        fit = SMIClustering(random_state=0, **params).fit(
            X, must_link=m, cannot_link=c)
        assert np.isnan(fit.links_agreement_z_)


@pytest.mark.parametrize("value", ["yes", None, 1])
def test_bad_keep_cannot_links(value):
    X, _ = make_moons(40, random_state=0)
    with pytest.raises((ValueError, TypeError), match="keep_cannot_links"):
        SMIClustering(2, keep_cannot_links=value).fit(X)


def test_numpy_booleans_are_booleans():
    # NumPy integers and floats were accepted for every numeric parameter,
    # but np.bool_ was refused for the bool ones (TypeError)
    X, _ = make_moons(40, random_state=0)
    flags = {"consensus": True, "keep_cannot_links": False,
             "indicator_rotation": False}
    plain = SMIClustering(2, random_state=0, **flags).fit(X)
    numpy = SMIClustering(2, random_state=0,
                          **{k: np.bool_(v) for k, v in flags.items()}).fit(X)
    np.testing.assert_array_equal(numpy.labels_, plain.labels_)
    active = ActiveSMIClustering(2, consensus=np.True_, keep_cannot_links=np.False_)
    assert active.fit(X).n_queries_ == 0
    with pytest.raises(TypeError, match="'consensus' parameter .* Got 1 instead"):
        SMIClustering(2, consensus=1).fit(X)


def _dense_clump(seed=0):
    """Two classes: 200 near-copies of the all-ones row (9 binary-ish
    features, one repeated dozens of times) and 100 rows spread over the
    integer grid 1..10 (the shape of the Wisconsin breast-cancer data)."""
    rng = np.random.RandomState(seed)
    clump = 1 + (rng.rand(200, 9) < 0.15).astype(float)
    spread = rng.randint(1, 11, size=(100, 9)).astype(float)
    return np.vstack([clump, spread]), np.r_[np.zeros(200), np.ones(100)]


def _dense_normalized_kernel(X, t):
    """median(d) D^(-1/2) K D^(-1/2) of the local-scaling kNN kernel, written
    out entry by entry."""
    K = kneighbors_graph(X, t, mode="distance").toarray()
    sigma = np.sort(np.where(K > 0, K, np.inf), axis=1)[:, t - 1]
    dist = np.linalg.norm(X[:, None] - X[None], axis=2)
    near = (K > 0) | (K.T > 0)
    Kd = np.where(near, np.exp(-dist**2 / (2 * sigma[:, None] * sigma[None])), 0.0)
    np.fill_diagonal(Kd, 1.0)
    d = Kd.sum(axis=1)
    return np.median(d) * Kd / np.sqrt(np.outer(d, d))


def test_normalized_kernel_fit_is_the_dense_reference():
    """kernel="normalized" with the paper's links: the eigenvectors of
    U = K'(2I + 2gM + g^2M^2 - 2eC + e^2C^2)K' built densely, with K' the
    modified median-scaled D^(-1/2) K D^(-1/2) written out entry by entry."""
    rng = np.random.RandomState(0)
    y = np.repeat([0, 1], 40)
    X = np.array([[0.0, 0.0], [4.0, 0.0]])[y] + rng.normal(size=(80, 2))
    must, cannot = sample_links(y, 30, random_state=0)
    model = SMIClustering(2, n_neighbors=5, gamma=1.0, eta=0.5, links="paper",
                          kernel="normalized", random_state=0)
    model.fit(X, must_link=must, cannot_link=cannot)
    assert model.kernel_ == "normalized"
    Kn = _dense_normalized_kernel(X, 5)
    for i, j in must:
        Kn[i, j] = Kn[j, i] = 1.0
    for i, j in cannot:
        Kn[i, j] = Kn[j, i] = 0.0
    from smiclust.link_operator import dense_smic_matrix
    vals, vecs = np.linalg.eigh(dense_smic_matrix(Kn, must, cannot, 1.0, 0.5))
    vecs = vecs[:, ::-1][:, :2]
    vecs = vecs * np.sign(vecs.sum(axis=0))
    assert_allclose(model.eigenvalues_, vals[::-1][:2], rtol=1e-8)
    assert_allclose(np.abs(model.eigenvectors_), np.abs(vecs), atol=1e-7)


@pytest.mark.parametrize("n_clusters", [2, 3])
def test_normalized_kernel_finds_every_leading_eigenvector(n_clusters):
    """Separated blobs make a kNN graph of one component per blob, and the
    normalised kernel then has one equal leading eigenvalue per component:
    the fit must return the whole leading eigenspace of U = 2 K_n^2 (ARPACK,
    from one start vector, returns one mix of equal eigenvectors and then the
    next eigenvalue; the solve splits the mix by component), and with three
    clusters the span it reads must be exact."""
    rng = np.random.RandomState(0)
    y = np.repeat(np.arange(n_clusters), 120 // n_clusters)
    centres = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])[:n_clusters]
    X = centres[y] + rng.normal(size=(len(y), 2))
    model = SMIClustering(n_clusters, n_neighbors=5, kernel="normalized",
                          consensus=False, spreading=0.0, random_state=0).fit(X)
    Kn = _dense_normalized_kernel(X, 5)
    vals, vecs = np.linalg.eigh(2 * Kn @ Kn)
    lead = vecs[:, ::-1][:, :n_clusters]
    assert_allclose(np.sort(model.eigenvalues_)[::-1], vals[::-1][:n_clusters],
                    rtol=1e-8)
    V = model.eigenvectors_ / np.linalg.norm(model.eigenvectors_, axis=0)
    assert_allclose(V @ V.T, lead @ lead.T, atol=1e-8)
    assert adjusted_rand_score(y, model.labels_) == 1.0


def test_kernel_auto_takes_the_normalized_kernel_on_a_dense_clump():
    X, y = _dense_clump()
    paper_kernel = SMIClustering(2, kernel="local-scaling", random_state=0).fit(X)
    auto = SMIClustering(2, random_state=0).fit(X)
    assert adjusted_rand_score(y, paper_kernel.labels_) < 0.1
    assert auto.kernel_ == "normalized"
    assert adjusted_rand_score(y, auto.labels_) == 1.0
    # new samples take the kernel of the fit: the training rows, passed as
    # new, and slightly moved copies of them get their clusters back
    assert np.mean(auto.predict(X) == auto.labels_) > 0.97
    proba = auto.predict_proba(X + 0.01)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert np.mean(np.argmax(proba, axis=1) == auto.labels_) > 0.95


@pytest.mark.parametrize("params, n_clusters", [
    ({}, 3),                      # three clusters: the local-scaling kernel
    ({"links": "paper"}, 2),      # the paper's 3SMIC: its kernel
])
def test_kernel_auto_is_the_paper_s_kernel_outside_two_closed_clusters(
        blobs3, params, n_clusters):
    X, y = blobs3
    must, cannot = sample_links(y, 20, random_state=0)
    auto = SMIClustering(n_clusters, random_state=0, **params).fit(
        X, must_link=must, cannot_link=cannot)
    local = SMIClustering(n_clusters, kernel="local-scaling", random_state=0,
                          **params).fit(X, must_link=must, cannot_link=cannot)
    assert auto.kernel_ == "local-scaling"
    assert_array_equal(auto.labels_, local.labels_)
    assert_allclose(auto.eigenvectors_, local.eigenvectors_)


def test_kernel_auto_keeps_the_local_scaling_kernel_without_a_clear_lsmi_gain():
    rng = np.random.RandomState(1)  # two round blobs of the same density
    X = np.vstack([rng.normal(size=(60, 2)), rng.normal(size=(60, 2)) + 6.0])
    auto = SMIClustering(2, random_state=0).fit(X)
    local = SMIClustering(2, kernel="local-scaling", random_state=0).fit(X)
    assert auto.kernel_ == "local-scaling"
    assert_array_equal(auto.labels_, local.labels_)


@pytest.mark.parametrize("value", ["rbf", None, 1])
def test_bad_kernel(value):
    X = np.random.RandomState(0).normal(size=(30, 2))
    error = ValueError if isinstance(value, str) else TypeError
    with pytest.raises(error, match=r"The 'kernel' parameter of "
                       r"SMIClustering must be a str among .*'normalized'.* "
                       f"Got {value!r} instead"):
        SMIClustering(kernel=value).fit(X)


def test_cannot_links_are_counted_after_the_search_only(monkeypatch):
    # the search labels its candidates with one penalty per cannot-linked
    # group (as it scores them); the chosen candidate's solve and the vote
    # over n_neighbors charge every given cannot-link
    import smiclust.solver as solver_module
    calls, state = [], {"search": False}
    real_group_labels = solver_module.group_labels

    def spy(*args, **kwargs):
        calls.append((state["search"], kwargs.get("count_cannot_links", False)))
        return real_group_labels(*args, **kwargs)

    real_search = SMIClustering._search

    def search(self, *args, **kwargs):
        state["search"] = True
        try:
            return real_search(self, *args, **kwargs)
        finally:
            state["search"] = False

    monkeypatch.setattr(solver_module, "group_labels", spy)
    monkeypatch.setattr(estimator_module, "group_labels", spy)
    monkeypatch.setattr(SMIClustering, "_search", search)
    X, y = make_blobs(150, centers=3, random_state=0)
    must, cannot = sample_links(y, 60, random_state=0)
    SMIClustering(3, spreading=0, random_state=0).fit(
        X, must_link=must, cannot_link=cannot)
    in_search = [counted for searching, counted in calls if searching]
    after = [counted for searching, counted in calls if not searching]
    assert in_search and not any(in_search)
    assert after and all(after)


@pytest.mark.parametrize("links, n_clusters, expected", [
    ("closure", 2, 200), ("closure", 3, 300), ("closure", 5, 500),
    ("closure", 12, 500), ("paper", 2, 500), ("paper", 7, 500),
])
def test_auto_lsmi_centres_scale_with_the_clusters_but_not_for_the_paper(
        links, n_clusters, expected):
    model = SMIClustering(n_clusters, links=links)
    assert model.lsmi_n_centers == "auto"
    assert model._lsmi_centers(n_clusters) == expected
    assert SMIClustering(n_clusters, links=links,
                         lsmi_n_centers=37)._lsmi_centers(n_clusters) == 37


def test_auto_lsmi_centres_of_the_paper_fit_as_its_500():
    # 600 samples, two clusters: the paper's 3SMIC with "auto" equals the fit
    # given the paper's 500 centres (every centre kept in every class), on a
    # grid of eight candidates
    X, y = make_blobs(600, centers=2, cluster_std=3.0, random_state=1)
    must, cannot = sample_links(y, 40, random_state=0)
    kw = dict(links="paper", n_neighbors=[4, 7], gamma=[0.5, 1.0], eta=[0.5, 1.0],
              random_state=0)
    auto = SMIClustering(2, **kw).fit(X, must_link=must, cannot_link=cannot)
    given = SMIClustering(2, lsmi_n_centers=500, **kw).fit(
        X, must_link=must, cannot_link=cannot)
    assert_array_equal(auto.labels_, given.labels_)
    assert_allclose(auto.tuning_results_["lsmi"], given.tuning_results_["lsmi"])
    other = SMIClustering(2, lsmi_n_centers=350, **kw).fit(
        X, must_link=must, cannot_link=cannot)
    assert not np.allclose(auto.tuning_results_["lsmi"], other.tuning_results_["lsmi"])


@pytest.mark.parametrize("params, centres, cap", [
    ({}, 200, 100),
    ({"lsmi_n_centers": 200}, 200, None),
    ({"links": "paper"}, 500, None),
])
def test_default_lsmi_designs_cap_the_centres_of_a_class(monkeypatch, params,
                                                        centres, cap):
    # "auto" with closed links: 100 centres per cluster and at most 100 kept
    # per class of a labelling; an integer or the paper's 3SMIC keep them all
    built = []
    real = estimator_module.LSMIDesign

    def spy(*args, **kwargs):
        built.append((kwargs["n_centers"], kwargs["max_centers_per_class"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(estimator_module, "LSMIDesign", spy)
    X, y = make_blobs(600, centers=2, cluster_std=3.0, random_state=1)
    must, cannot = sample_links(y, 40, random_state=0)
    SMIClustering(2, n_neighbors=[4, 7], random_state=0, **params).fit(
        X, must_link=must, cannot_link=cannot)
    assert (centres, cap) in built
    assert {kept for _, kept in built} == {cap}


def test_fit_and_predict_run_with_one_thread_and_restore(monkeypatch):
    # BLAS and OpenMP at one thread during fit (the neighbour search) and
    # predict (the cross kernel), whatever the caller set, and the caller's
    # limits back afterwards: the labels do not depend on the thread count
    from threadpoolctl import threadpool_info, threadpool_limits

    def threads():
        return {(i["user_api"], i["filepath"]): i["num_threads"]
                for i in threadpool_info()}

    from smiclust import base

    seen = []
    for module, name in ((base, "nearest_neighbors"),
                         (estimator_module, "local_scaling_cross_kernel")):
        real = getattr(module, name)

        def spy(*args, _real=real, **kwargs):
            seen.append(threads())
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, spy)
    X, y = make_blobs(300, centers=3, random_state=0)
    must, cannot = sample_links(y, 30, random_state=0)
    with threadpool_limits(limits=2):
        before = threads()
        model = SMIClustering(3, random_state=0).fit(
            X, must_link=must, cannot_link=cannot)
        assert threads() == before
        model.predict(X[:10] + 0.01)
        assert threads() == before
    assert len(seen) >= 2
    assert all(n == 1 for pools in seen for n in pools.values())


def test_warnings_of_fit_point_at_the_caller():
    # the one-thread limit is entered inside fit, not by a wrapper: a warning
    # of fit names the caller's line (here, three pairwise cannot-linked
    # samples and two clusters)
    import warnings

    X, _ = make_blobs(60, centers=2, random_state=0)
    cannot = np.array([[0, 1], [1, 2], [0, 2]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        SMIClustering(2, random_state=0).fit(X, cannot_link=cannot)
    conflicts = [w for w in caught if "pairwise" in str(w.message)]
    assert conflicts and all(w.filename == __file__ for w in conflicts)


@pytest.mark.parametrize("cycle, conflict", [(5, True), (4, False), (3, True)])
def test_an_odd_cycle_of_cannot_links_with_two_clusters_warns(cycle, conflict):
    # no two-cluster labelling splits every link of an odd cycle; a triangle
    # is also a clique of three, warned about as such
    import warnings

    X, _ = make_blobs(40, centers=2, random_state=1)
    cannot = np.array([[i, (i + 1) % cycle] for i in range(cycle)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SMIClustering(2, random_state=0).fit(X, cannot_link=cannot)
    conflicts = [w for w in caught if issubclass(w.category, ConstraintConflictWarning)]
    assert bool(conflicts) == conflict
    assert all(w.filename == __file__ for w in conflicts)
    assert len(conflicts) <= 1
    if cycle == 5:
        assert "odd length" in str(conflicts[0].message)
        assert "[0, 1, 2, 3, 4]" in str(conflicts[0].message)
    assert model.n_violations_ >= int(conflict)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConstraintConflictWarning)
        SMIClustering(3, random_state=0).fit(X, cannot_link=cannot)  # 3 colours do


def _three_apart(X):
    """``X``'s thirds moved far apart: a kNN graph of at least three parts."""
    return np.vstack([X[:20], X[20:40] + 50, X[40:] + 100])


@pytest.mark.parametrize("make, fit, match", [
    (lambda: SMIClustering(3), lambda m, X: m.fit(np.ones((20, 2))), "identical"),
    (lambda: SMIClustering(3, n_neighbors=5),
     lambda m, X: m.fit(X, must_link=[[0, 1], [1, 2]], cannot_link=[[0, 2]]),
     "chains of must-links"),
    (lambda: SMIClustering(2, n_neighbors=3), lambda m, X: m.fit(_three_apart(X)),
     "connected components"),
    (lambda: SMIClustering(2, n_neighbors=3),
     lambda m, X: m.fit_predict(_three_apart(X)), "connected components"),
    (lambda: make_pipeline(StandardScaler(), SMIClustering(2, n_neighbors=3)),
     lambda m, X: m.fit(_three_apart(X)), "connected components"),
    (lambda: SMIClustering(2, gamma=1.0, random_state=0),
     lambda m, X: cross_validate(m, X, cv=2, scoring=lambda e, X, y=None: 0.0),
     "gamma=1.0 is ignored"),
    (lambda: SpectralLearning(2, n_neighbors=3), lambda m, X: m.fit(_three_apart(X)),
     "connected components"),
    (lambda: ConstrainedSpectralClustering(2, n_neighbors=3),
     lambda m, X: m.fit(_three_apart(X)), "connected components"),
])
def test_warnings_from_deep_in_the_package_point_at_the_caller(make, fit, match):
    import warnings

    X, _ = make_blobs(60, centers=3, random_state=0)
    model = make()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit(model, X)
    hits = [w for w in caught if match in str(w.message)]
    assert hits
    assert all(w.filename == __file__ for w in hits), [w.filename for w in hits]


def test_one_value_that_dwarfs_the_rest_by_150_orders_warns():
    import warnings

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) + 6])
    with pytest.warns(UserWarning, match=r"more than 150 orders of magnitude "
                      r"\(largest \|value\| 1e\+200"):
        SMIClustering(2, n_neighbors=5, random_state=0).fit(
            np.vstack([X, [[1e200, 0.0]]]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a scale alone: fine
        SMIClustering(2, n_neighbors=5, random_state=0).fit(X * 1e300)
        SMIClustering(2, n_neighbors=5, random_state=0).fit(X * 1e-300)
    with warnings.catch_warnings(record=True) as caught:  # 1e100 beside 1: fine
        warnings.simplefilter("always")
        fit = SMIClustering(2, n_neighbors=5, random_state=0).fit(
            np.vstack([X, [[1e100, 0.0]]]))
    assert not [w for w in caught if "orders of magnitude" in str(w.message)]
    assert adjusted_rand_score(np.repeat([0, 1], 30), fit.labels_[:60]) == 1.0


def test_the_underflow_check_reads_every_column():
    # a stride over the raveled array would read only the tiny columns here
    import warnings

    from smiclust.utils._checks import _warn_if_distances_underflow

    Y = np.ones((20000, 100))
    Y[:, ::2] = 1e-160
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _warn_if_distances_underflow(Y, float(np.abs(Y).max()))
    Y[:, 1::2] = 1e-160
    Y[0, 1] = 1.0
    with pytest.warns(UserWarning, match="150 orders of magnitude"):
        _warn_if_distances_underflow(Y, float(np.abs(Y).max()))


def test_fewer_clusters_than_asked_warn():
    # ten clusters asked of four blobs with links: seven hold samples, and a
    # warning says so (at the caller's line); four asked, none
    import warnings

    X, y = make_blobs(500, 5, centers=4, random_state=1)
    must, cannot = sample_links(y, 1248, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SMIClustering(10, random_state=0).fit(
            X, must_link=must, cannot_link=cannot)
    found = np.unique(model.labels_).size
    assert found < 10
    empty = [w for w in caught if "hold no sample" in str(w.message)]
    assert len(empty) == 1 and empty[0].filename == __file__
    assert f"use {found} of n_clusters=10" in str(empty[0].message)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SMIClustering(4, random_state=0).fit(
            X, must_link=must, cannot_link=cannot)
    assert np.unique(model.labels_).size == 4
    assert not [w for w in caught if "hold no sample" in str(w.message)]


def test_vote_warnings_name_spectral_learnings_labelling(monkeypatch):
    # an eigen-solve of a Spectral Learning labelling in the vote that does
    # not converge reaches the user once per labelling, named as that
    # labelling's and at the caller's line; other warnings pass as they are
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    real = estimator_module.spectral_learning_labels

    def spy(*args, **kwargs):
        warnings.warn("ARPACK did not converge.", ConvergenceWarning, stacklevel=2)
        warnings.warn("an aside", UserWarning, stacklevel=2)
        return real(*args, **kwargs)

    monkeypatch.setattr(estimator_module, "spectral_learning_labels", spy)
    X, y = make_blobs(300, centers=3, random_state=0)
    must, cannot = sample_links(y, 40, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SMIClustering(3, random_state=0).fit(
            X, must_link=must, cannot_link=cannot)
    named = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    ts = sorted({int(t) for t in model.tuning_results_["param_n_neighbors"]})
    assert len(named) == len(ts)
    assert all(w.filename == __file__ for w in named)
    assert all("Spectral Learning's labelling at n_neighbors=" in str(w.message)
               and "(ARPACK did not converge)" in str(w.message) for w in named)
    asides = [w for w in caught if str(w.message) == "an aside"]
    assert len(asides) == 1 and asides[0].category is UserWarning


@pytest.mark.parametrize(
    "params",
    [{"gamma": np.array([0.0, 1.0])}, {"eta": np.logspace(-1, 1, 3)},
     {"gamma": np.array([1.0]), "eta": np.array([0.5, 2.0])}],
)
def test_gamma_and_eta_grids_as_arrays_match_lists(params):
    # a grid built by np.linspace / np.logspace is a grid like a list
    X, y = make_blobs(60, centers=2, random_state=0)
    must, cannot = sample_links(y, 20, random_state=0)
    as_lists = {name: list(value) for name, value in params.items()}
    fitted = [
        SMIClustering(2, n_neighbors=5, random_state=0, **p).fit(
            X, must_link=must, cannot_link=cannot
        )
        for p in (params, as_lists)
    ]
    assert_array_equal(fitted[0].labels_, fitted[1].labels_)
    assert fitted[0].gamma_ == fitted[1].gamma_


def test_smi_clustering_takes_partial_labels():
    X, y = make_blobs(60, centers=3, random_state=0)
    partial = np.where(np.arange(60) % 4 == 0, y, -1)
    model = SMIClustering(3, random_state=0).fit(X, partial_labels=partial)
    assert_array_equal(smi_clustering(X, 3, partial_labels=partial,
                                      random_state=0), model.labels_)


@pytest.mark.parametrize("n_jobs", [0])
def test_n_jobs_zero_is_refused_by_name(n_jobs):
    from smiclust import local_scaling_kernel
    from smiclust.baselines import ConstrainedSpectralClustering, SpectralLearning

    X, _ = make_blobs(30, centers=2, random_state=0)
    for estimator in (SMIClustering, SpectralLearning, ConstrainedSpectralClustering):
        with pytest.raises(ValueError, match=f"'n_jobs' parameter of "
                           f"{estimator.__name__} must be None or an int in the "
                           r"range \(-inf, -1\] or an int in the range \[1, inf\)"):
            estimator(2, n_jobs=n_jobs).fit(X)
    with pytest.raises(ValueError, match="'n_jobs' parameter of local_scaling_kernel"):
        local_scaling_kernel(X, 3, n_jobs=n_jobs)


def test_classifier_given_as_a_class_is_refused_by_name():
    from sklearn.linear_model import LogisticRegression

    X, y = make_blobs(30, centers=2, random_state=0)
    with pytest.raises(ValueError, match="'classifier' parameter of SMIClustering "
                       "must be .*an instance with methods 'fit', 'predict_proba'"):
        SMIClustering(2, classifier=LogisticRegression).fit(X)


def test_an_approximate_neighbour_search_is_announced(monkeypatch, capsys):
    # pynndescent compiles on its first search in a process (about half a
    # minute): a verbose fit says so before it starts; an exact one does not
    import smiclust.base as base_module

    searched = []
    real = base_module.nearest_neighbors

    def exact_instead(X, n_neighbors, **kwargs):
        searched.append(kwargs["algorithm"])
        return real(X, n_neighbors, **{**kwargs, "algorithm": "exact"})

    monkeypatch.setattr(base_module, "nearest_neighbors", exact_instead)
    X, _ = make_blobs(60, centers=2, random_state=0)
    SMIClustering(2, n_neighbors=5, neighbor_algorithm="approximate", verbose=1,
                  random_state=0).fit(X)
    assert searched == ["approximate"]
    assert ("searching 5 neighbours of 60 samples approximately (pynndescent"
            in capsys.readouterr().err)
    SMIClustering(2, n_neighbors=5, verbose=1, random_state=0).fit(X)
    assert "approximately" not in capsys.readouterr().err


class _Clock:
    """The clock StepProgress reads (``utils.time``), and no one else: it
    returns ``readings`` in turn."""

    def __init__(self, readings):
        self.readings = iter(readings)

    def perf_counter(self):
        return next(self.readings)


def _slow_clock():
    """Every reading two seconds after the last: every step of a fit then
    runs longer than a second."""
    return _Clock(itertools.count(2.0, 2.0))


def test_step_progress_speaks_only_once_the_user_waits(monkeypatch, capsys):
    import smiclust.utils as utils_module

    monkeypatch.setattr(utils_module, "time", _Clock([0.0, 0.5, 0.9, 1.5, 3.0]))
    step = utils_module.StepProgress(1, "vote")  # starts at 0.0
    step.part("first part")  # 0.5 s: quiet
    step.done("quick")  # 0.9 s: quiet
    assert capsys.readouterr().err == ""
    step.part("second part")  # 1.5 s
    step.done("vote over 3 labellings")  # 3.0 s
    assert capsys.readouterr().err.splitlines() == [
        "[smiclust] vote: second part (2 s so far)",
        "[smiclust] vote over 3 labellings (3 s)",
    ]
    monkeypatch.setattr(utils_module, "time", _Clock([0.0, 5.0]))
    quiet = utils_module.StepProgress(0, "vote")  # not verbose: never a line
    quiet.done("anything")
    assert capsys.readouterr().err == ""


def test_a_verbose_fit_reports_every_step_the_user_waits_for(monkeypatch, capsys):
    # issue 11, item 4: progress on every step that takes more than a second.
    # On a clock where every step takes seconds, each step of the default's
    # fit with labels on three clusters says what it did: none is silent.
    import smiclust.utils as utils_module

    X, y = make_blobs(150, centers=3, cluster_std=2.5, random_state=1)
    partial = np.full(150, -1)
    partial[::10] = y[::10]
    quiet = SMIClustering(3, random_state=0).fit(X, partial_labels=partial)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(utils_module, "time", _slow_clock())
    model = SMIClustering(3, random_state=0, verbose=1).fit(
        X, partial_labels=partial)
    err = capsys.readouterr().err
    for line in ("[smiclust] 10 neighbours of 150 samples searched (",
                 "[smiclust] LSMI design: 150 centres, 5 folds (",
                 "[smiclust] solved at n_neighbors=",
                 "[smiclust] vote over n_neighbors: SMIC's best labelling at "
                 "n_neighbors=",
                 "[smiclust] vote over n_neighbors: Spectral Learning's "
                 "labelling at n_neighbors=",
                 "[smiclust] SMIC without links at n_neighbors=",
                 "[smiclust] SMIC without links agrees with the closed links at ",
                 "[smiclust] classifier trained on 15 linked samples (",
                 "[smiclust] spreading weight: fold 1/5 solved and spread (",
                 "[smiclust] spreading weight: fold 5/5 solved and spread (",
                 "[smiclust] spreading 0.5 chosen by held-out seeds (p = ",
                 "[smiclust] labels of 135 samples in no link spread with weight "):
        assert line in err, line
    # reporting changes nothing
    assert_array_equal(model.labels_, quiet.labels_)
    with warnings.catch_warnings():  # c chosen here may leave a cluster empty
        warnings.simplefilter("ignore", UserWarning)
        SMIClustering("auto", random_state=0, verbose=1).fit(
            X, partial_labels=partial)
    assert "[smiclust] n_clusters=" in capsys.readouterr().err


def test_the_link_test_s_fold_fits_report_only_their_folds(monkeypatch, capsys):
    # the link test's fits are the test's parts: on a clock where every step
    # takes seconds, their inner steps (LSMI designs, final solves) stay quiet
    import smiclust.utils as utils_module

    X, y = make_blobs(150, centers=3, cluster_std=2.0, random_state=1)
    must, cannot = sample_links(y, 120, random_state=0)
    ends = [(i, j) for i, j in must if i == must[0][0] or j == must[0][0]]
    others = {int(k) for pair in ends for k in pair} - {int(must[0][0])}
    assert len(others) >= 2  # two must-links through one sample
    cannot = np.vstack([cannot, sorted(others)[:2]])  # contradicts them
    monkeypatch.setattr(utils_module, "time", _slow_clock())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstraintConflictWarning)
        model = SMIClustering(3, random_state=0, verbose=1).fit(
            X, must_link=must, cannot_link=cannot)
    assert model.link_test_pvalue_ == model.link_test_pvalue_  # it ran
    lines = capsys.readouterr().err.splitlines()
    first = lines.index("[smiclust] link test: the fit without links fitted")
    assert lines[first + 1] == "[smiclust] link test: fold 1/5 fitted"
    assert sum("LSMI design" in line for line in lines) == 1  # the fit's own
    assert sum("solved at" in line for line in lines) == 1
    assert all(line.startswith("[smiclust] link test") for line in lines[first:])


def test_the_kernel_comparison_is_announced(monkeypatch, capsys):
    # two clusters, kernel="auto": the degree-normalised kernel's fit repeats
    # the steps of the first, and a line says which fit they belong to
    import smiclust.utils as utils_module

    X, y = make_moons(120, noise=0.08, random_state=0)
    must, cannot = sample_links(y, 30, random_state=0)
    monkeypatch.setattr(utils_module, "time", _slow_clock())
    SMIClustering(2, random_state=0, verbose=1).fit(
        X, must_link=must, cannot_link=cannot)
    lines = capsys.readouterr().err.splitlines()
    announced = [i for i, line in enumerate(lines) if line.startswith(
        "[smiclust] kernel: local-scaling fitted; the degree-normalised kernel "
        "fitted next at gamma=")]
    assert len(announced) == 1
    solved = [i for i, line in enumerate(lines) if "solved at" in line]
    assert len(solved) == 2 and solved[0] < announced[0] < solved[1]
    assert lines[-1].startswith("[smiclust] kernel: LSMI ")


@pytest.mark.parametrize("kernel", ["local-scaling", "normalized"])
def test_predict_and_predict_proba_follow_the_paper_s_rule_by_loops(kernel):
    # the paper's out-of-sample rule written out (no spreading, no links):
    # K(x', x_i) = exp(-d^2 / (2 s' sigma_i)) where x_i is among the t nearest
    # of x' or x' within sigma_i, s' the t-th distance of x' (normalised: times
    # median(d) / sqrt(d' d_i), degrees d of the fit's kernel); responses
    # r = K beta, scores max(0, r_y) / sum_i max(0, [phi_y]_i), label argmax,
    # probabilities the scores scaled to sum 1 (uniform where all are 0).
    # Unbalanced clusters, so that the normaliser matters.
    X, _ = make_blobs([150, 30, 15], 2, centers=[[0, 0], [6, 0], [0, 6]],
                      cluster_std=[1.5, 0.8, 0.5], random_state=0)
    t = 5
    model = SMIClustering(3, n_neighbors=t, gamma=0.0, eta=0.0, spreading=0.0,
                          kernel=kernel, random_state=0).fit(X)
    assert model.spread_from_ == "none" and model.kernel_ == kernel
    rng = np.random.RandomState(1)
    X_new = np.vstack([rng.uniform(-4, 9, size=(300, 2)), [[1e4, 1e4]]])
    sigma = model.local_scales_
    D = np.sqrt(((X_new[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    K = np.zeros(D.shape)
    for a in range(len(X_new)):
        s_new = np.sort(D[a])[t - 1]
        for i in range(len(X)):
            if D[a, i] <= s_new or D[a, i] <= sigma[i]:
                K[a, i] = np.exp(-D[a, i] ** 2 / (2 * s_new * sigma[i]))
    if kernel == "normalized":
        D_fit = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
        K_fit = np.zeros(D_fit.shape)
        for i in range(len(X)):
            near = np.argsort(D_fit[i])[:t + 1]  # itself and its t nearest
            for j in near:
                K_fit[i, j] = K_fit[j, i] = np.exp(
                    -D_fit[i, j] ** 2 / (2 * sigma[i] * sigma[j]))
        degrees = K_fit.sum(axis=1)
        for a in range(len(X_new)):
            total = K[a].sum()
            K[a] = (np.median(degrees) * K[a] / np.sqrt(total * degrees)
                    if total > 0 else 0.0)
    R = K @ model.dual_coef_
    normalizer = np.maximum(model.eigenvectors_, 0).sum(axis=0)
    scores = np.maximum(R, 0) / normalizer
    expected = np.full(scores.shape, 1 / 3)  # no positive score: uniform
    for a in range(len(X_new)):
        if scores[a].sum() > 0:
            expected[a] = scores[a] / scores[a].sum()
    assert (expected[-1] == 1 / 3).all()  # the far sample: no kernel entry
    assert_allclose(model.predict_proba(X_new), expected, atol=1e-10)
    labels = model.predict(X_new)
    assert_array_equal(labels[:-1], np.argmax(R / normalizer, axis=1)[:-1])
    # the normaliser decides some samples here (not a bare argmax of R)
    assert (np.argmax(R[:-1], axis=1) != labels[:-1]).any()


def test_graph_components_count_cannot_links_only_where_eta_couples_them():
    # six tight blobs; cannot-links chain them into two groups of three, but
    # with eta = 0 they add nothing to U: six components, and the warning
    from sklearn.datasets import make_blobs

    centers = [[0, 0], [20, 0], [0, 20], [20, 20], [40, 40], [60, 0]]
    X, y = make_blobs(80, centers=centers, cluster_std=0.5, random_state=0)
    first = [int(np.flatnonzero(y == b)[0]) for b in range(6)]
    cannot = np.sort([(first[0], first[2]), (first[2], first[4]),
                      (first[1], first[3]), (first[3], first[5])], axis=1)
    with pytest.warns(UserWarning, match="has 6 connected components"):
        model = SMIClustering(2, n_neighbors=3, gamma=0.0, eta=0.0,
                              random_state=0).fit(X, cannot_link=cannot)
    assert model.eta_ == 0 and model.n_graph_components_ == 6
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # two components: no warning
        coupled = SMIClustering(2, n_neighbors=3, gamma=0.0, eta=1.0,
                                random_state=0).fit(X, cannot_link=cannot)
    assert coupled.eta_ == 1 and coupled.n_graph_components_ == 2
