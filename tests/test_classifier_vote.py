"""The classifier's vote on the samples in no link: the pure functions against
written-out formulas, and their use by the estimator."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_moons
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import smiclust._estimator as estimator_module
from smiclust import SMIClustering
from smiclust.classifier_vote import (
    MIN_SEEDS_PER_CLUSTER,
    MIN_UNLINKED_SHARE,
    VOTE_WEIGHT,
    chosen_weight,
    classifier_probabilities,
    fit_seed_classifier,
    matching_columns,
    out_of_bag_probabilities,
    training_order,
    uses_classifier,
    vote_probabilities,
)


def test_vote_probabilities_is_the_mean_of_the_normalised_rows():
    rng = np.random.RandomState(0)
    F = rng.rand(6, 3)
    F[2] = 0.0  # a sample no score reached: uniform
    P = rng.dirichlet(np.ones(3), size=6)
    V = vote_probabilities(F, P)
    for i in range(6):
        spread = F[i] / F[i].sum() if F[i].sum() > 0 else np.full(3, 1 / 3)
        np.testing.assert_allclose(V[i], 0.5 * spread + 0.5 * P[i])
    np.testing.assert_allclose(V.sum(axis=1), 1.0)


@pytest.mark.parametrize("weight", [0.0, 0.25, 1.0])
def test_vote_probabilities_weighs_the_classifier_by_its_share(weight):
    rng = np.random.RandomState(1)
    F = rng.rand(5, 4)
    P = rng.dirichlet(np.ones(4), size=5)
    V = vote_probabilities(F, P, weight)
    for i in range(5):
        expected = (1 - weight) * F[i] / F[i].sum() + weight * P[i]
        np.testing.assert_allclose(V[i], expected)
    if weight == 1.0:  # the classifier alone
        np.testing.assert_allclose(V, P)


def test_chosen_weight_takes_the_best_option_and_the_spread_on_ties():
    # brute force over every ordering of three small counts: the option with
    # the most right, the earlier of (spread, vote, alone) on a tie
    for spread, vote, alone in itertools.product(range(4), repeat=3):
        options = [(spread, None), (vote, VOTE_WEIGHT), (alone, 1.0)]
        best = max(right for right, _ in options)
        expected = next(weight for right, weight in options if right == best)
        assert chosen_weight(spread, vote, alone) == expected, (spread, vote, alone)


def test_vote_probabilities_leaves_its_inputs_alone():
    F = np.array([[2.0, 0.0], [0.0, 0.0]])
    P = np.array([[0.2, 0.8], [0.5, 0.5]])
    F0, P0 = F.copy(), P.copy()
    vote_probabilities(F, P)
    np.testing.assert_array_equal(F, F0)
    np.testing.assert_array_equal(P, P0)


@pytest.mark.parametrize("n_clusters", [2, 3, 10])
def test_auto_uses_the_classifier_from_the_gate_of_seeds_per_cluster(n_clusters):
    threshold = MIN_SEEDS_PER_CLUSTER * n_clusters
    assert not uses_classifier("auto", threshold - 1, 100, n_clusters)
    assert uses_classifier("auto", threshold, 100, n_clusters)
    assert not uses_classifier(None, 10 * threshold, 100, n_clusters)
    assert uses_classifier(LogisticRegression(), 1, 0, n_clusters)


def test_auto_uses_the_classifier_from_one_percent_of_samples_in_no_link():
    # 990 seeds: 10 samples in no link are 1 % of 1,000, 9 are less
    assert MIN_UNLINKED_SHARE == 0.01
    assert uses_classifier("auto", 990, 10, 3)
    assert not uses_classifier("auto", 990, 9, 3)
    assert not uses_classifier("auto", 990, 0, 3)
    # a classifier the user gives is used whatever the share
    assert uses_classifier(LogisticRegression(), 990, 1, 3)


def test_classifier_probabilities_place_columns_by_cluster_number():
    # seeds of clusters 0 and 2 only: cluster 1 gets probability 0
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    model = DecisionTreeClassifier(random_state=0).fit(X, [0, 0, 2, 2])
    P = classifier_probabilities(model, np.array([[0.05], [5.05]]), 3)
    np.testing.assert_array_equal(P, [[1, 0, 0], [0, 0, 1]])


@pytest.mark.parametrize("seed", range(5))
def test_matching_columns_maximise_agreement_like_a_brute_force_search(seed):
    rng = np.random.RandomState(seed)
    c = 4
    reference = rng.randint(c, size=60)
    labels = np.where(rng.rand(60) < 0.7, rng.permutation(c)[reference],
                      rng.randint(c, size=60))
    order = matching_columns(labels, reference, c)
    assert sorted(order) == list(range(c))
    # P[:, order] over the reference's clusters: one-hot rows of labels
    moved = np.eye(c)[labels][:, order].argmax(axis=1)
    best = max(np.sum(np.asarray(perm)[labels] == reference)
               for perm in itertools.permutations(range(c)))
    assert np.sum(moved == reference) == best


def test_out_of_bag_rows_by_cluster_and_uniform_where_no_tree_left_a_row_out():
    rng = np.random.RandomState(0)
    X = rng.randn(12, 2)
    forest = RandomForestClassifier(3, oob_score=True, random_state=0)
    with pytest.warns(UserWarning, match="OOB"):
        forest.fit(X, np.where(np.arange(12) % 2, 3, 1))  # clusters 1 and 3 of 4
    P = out_of_bag_probabilities(forest, 4)
    raw = forest.oob_decision_function_
    for i in range(12):
        if raw[i].sum() > 0:
            np.testing.assert_allclose(P[i], [0, raw[i, 0], 0, raw[i, 1]])
        else:
            np.testing.assert_allclose(P[i], 0.25)
    assert (raw.sum(axis=1) == 0).any()  # the case this test is about


@pytest.mark.parametrize("sparse", [False, True])
def test_training_order_does_not_depend_on_the_order_rows_come_in(sparse):
    rng = np.random.RandomState(3)
    X = rng.randn(40, 5)
    X[7] = X[3]  # an exact duplicate row with another label
    labels = rng.randint(3, size=40)
    labels[7] = (labels[3] + 1) % 3
    perm = rng.permutation(40)
    as_given = sp.csr_matrix(X) if sparse else X
    permuted = sp.csr_matrix(X[perm]) if sparse else X[perm]
    first = training_order(as_given, labels)
    second = training_order(permuted, labels[perm])
    np.testing.assert_array_equal(X[first], X[perm][second])
    np.testing.assert_array_equal(labels[first], labels[perm][second])


def test_permuting_the_samples_permutes_the_labels_when_the_forest_labels():
    # the forest draws its bootstrap samples by position: trained in
    # training_order, it gives the same answer for any order of the samples
    X, y = _one_informative_feature(n=200, seed=2)
    partial = _labelled(y, 0.2, seed=3)
    perm = np.random.RandomState(0).permutation(len(y))
    kw = dict(eigen_solver="dense", random_state=0)
    a = SMIClustering(2, **kw).fit(X, partial_labels=partial)
    b = SMIClustering(2, **kw).fit(X[perm], partial_labels=partial[perm])
    assert a.classifier_weight_ > 0 and b.classifier_weight_ == a.classifier_weight_
    assert adjusted_rand_score(a.labels_[perm], b.labels_) == 1.0
    np.testing.assert_allclose(b.proba_, a.proba_[perm], atol=1e-12)


def test_fit_seed_classifier_fits_a_copy_of_the_users_classifier():
    user = LogisticRegression()
    X = np.array([[0.0], [1.0], [4.0], [5.0]])
    model, order = fit_seed_classifier(user, X, [0, 0, 1, 1], random_state=0)
    assert sorted(order) == [0, 1, 2, 3]
    assert model is not user
    assert not hasattr(user, "coef_")
    assert hasattr(model, "coef_")


def _one_informative_feature(n=300, n_noise=20, seed=0):
    """Classes split by the sign of one feature among many noise features: the
    neighbour graph hears mostly the noise, a forest finds the feature."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, n_noise + 1)
    y = (X[:, 0] > 0).astype(int)
    return X, y


def _labelled(y, fraction, seed):
    rng = np.random.RandomState(seed)
    partial = np.full(len(y), -1)
    chosen = rng.choice(len(y), int(fraction * len(y)), replace=False)
    partial[chosen] = y[chosen]
    return partial


def test_the_vote_finds_the_feature_the_graph_misses():
    X, y = _one_informative_feature()
    partial = _labelled(y, 0.2, seed=1)
    free = partial < 0
    spread_only = SMIClustering(2, classifier=None, random_state=0).fit(
        X, partial_labels=partial)
    voted = SMIClustering(2, random_state=0).fit(X, partial_labels=partial)
    assert spread_only.classifier_ is None and spread_only.classifier_weight_ == 0
    assert voted.classifier_ is not None
    before = adjusted_rand_score(y[free], spread_only.labels_[free])
    after = adjusted_rand_score(y[free], voted.labels_[free])
    assert before < 0.3 and after > before + 0.3, (before, after)
    # the labelled samples keep their labels' clusters either way
    for model in (spread_only, voted):
        assert adjusted_rand_score(y[~free], model.labels_[~free]) == 1.0


def test_the_vote_labels_follow_the_written_out_vote():
    X, y = _one_informative_feature(seed=2)
    partial = _labelled(y, 0.2, seed=3)
    model = SMIClustering(2, random_state=0).fit(X, partial_labels=partial)
    free = ~model._spread.seeded
    P = classifier_probabilities(model.classifier_, X[free], 2)
    V = vote_probabilities(model._spread.F[free],
                           P[:, model._spread.classifier_columns],
                           model._spread.classifier_weight)
    np.testing.assert_array_equal(model.labels_[free], np.argmax(V, axis=1))
    np.testing.assert_allclose(model.proba_[free], V)


def test_held_out_seeds_choose_the_forest_alone_where_the_graph_is_blind():
    # one informative feature among 20 noise features: on held-out seeds the
    # forest alone beats the vote, and then labels the samples in no link
    X, y = _one_informative_feature(seed=2)
    partial = _labelled(y, 0.2, seed=3)
    model = SMIClustering(2, random_state=0).fit(X, partial_labels=partial)
    assert model.classifier_weight_ == 1.0
    free = partial < 0
    P = classifier_probabilities(model.classifier_, X[free], 2)
    forest = P[:, model._spread.classifier_columns]
    np.testing.assert_array_equal(model.labels_[free], np.argmax(forest, axis=1))
    np.testing.assert_allclose(model.proba_[free], forest)
    np.testing.assert_allclose(model.predict_proba(X[free][:20]),
                               model.proba_[free][:20], atol=1e-12)


def test_held_out_seeds_turn_the_vote_off_where_the_graph_is_right():
    # two moons, every tenth sample labelled, t = 5: the spread labels every
    # held-out seed right, a forest on 20 labels does not
    X, y = make_moons(200, noise=0.05, random_state=0)
    partial = np.where(np.arange(200) % 10 == 0, y, -1)
    fixed = dict(n_neighbors=5, gamma=1.0, eta=1.0, random_state=0)
    auto = SMIClustering(2, **fixed).fit(X, partial_labels=partial)
    off = SMIClustering(2, classifier=None, **fixed).fit(X, partial_labels=partial)
    assert auto.classifier_ is None and auto.classifier_weight_ == 0
    np.testing.assert_array_equal(auto.labels_, off.labels_)
    assert adjusted_rand_score(y, auto.labels_) > 0.95


def test_a_fixed_spreading_weight_leaves_auto_untested_and_unused():
    X, y = _one_informative_feature(seed=11)
    partial = _labelled(y, 0.2, seed=12)
    fixed = SMIClustering(2, spreading=0.5, random_state=0).fit(
        X, partial_labels=partial)
    off = SMIClustering(2, spreading=0.5, classifier=None, random_state=0).fit(
        X, partial_labels=partial)
    assert fixed.classifier_ is None
    np.testing.assert_array_equal(fixed.labels_, off.labels_)


def test_too_few_seeds_per_cluster_leave_the_spread_scores_alone():
    X, y = _one_informative_feature(seed=4)
    partial = np.full(len(y), -1)
    per_cluster = MIN_SEEDS_PER_CLUSTER - 1  # one seed per cluster too few
    partial[np.flatnonzero(y == 0)[:per_cluster]] = 0
    partial[np.flatnonzero(y == 1)[:per_cluster]] = 1
    auto = SMIClustering(2, random_state=0).fit(X, partial_labels=partial)
    off = SMIClustering(2, classifier=None, random_state=0).fit(
        X, partial_labels=partial)
    assert auto.classifier_ is None
    np.testing.assert_array_equal(auto.labels_, off.labels_)


def test_a_users_classifier_is_used_and_left_unfitted():
    X, y = _one_informative_feature(seed=5)
    partial = _labelled(y, 0.05, seed=6)  # 15 seeds: below the forest's gate
    user = LogisticRegression()
    model = SMIClustering(2, classifier=user, random_state=0).fit(
        X, partial_labels=partial)
    assert isinstance(model.classifier_, LogisticRegression)
    assert model.classifier_weight_ == VOTE_WEIGHT  # a user's classifier votes
    assert not hasattr(user, "coef_")
    assert model.get_params()["classifier"] is user
    clone(model)  # the estimator's parameters stay clonable


def test_a_users_random_classifier_draws_its_seed_from_the_fit():
    from sklearn.datasets import make_blobs

    X, y = make_blobs(300, centers=3, cluster_std=3, random_state=0)
    partial = np.where(np.random.RandomState(0).rand(300) < 0.2, y, -1)
    user = RandomForestClassifier(n_estimators=5)
    fits = [SMIClustering(3, classifier=user, random_state=0).fit(
        X, partial_labels=partial) for _ in range(3)]
    for fit in fits[1:]:
        np.testing.assert_array_equal(fit.labels_, fits[0].labels_)
        np.testing.assert_array_equal(fit.predict_proba(X[:20]),
                                      fits[0].predict_proba(X[:20]))
    assert isinstance(fits[0].classifier_.random_state, int)
    assert user.random_state is None  # the user's classifier as it was
    fixed = SMIClustering(3, classifier=RandomForestClassifier(5, random_state=7),
                          random_state=0).fit(X, partial_labels=partial)
    assert fixed.classifier_.random_state == 7  # a seed the user set is kept


def test_a_users_classifier_that_refuses_the_rows_is_named_in_the_error():
    from sklearn.naive_bayes import GaussianNB

    X, y = _one_informative_feature(n=90, seed=11)
    partial = _labelled(y, 0.2, seed=12)
    X_sparse = sp.csr_matrix(X)
    with pytest.raises(TypeError, match=r"'classifier' parameter \(GaussianNB\)"
                       r".*sparse matrix.*dense data is required"):
        SMIClustering(2, classifier=GaussianNB(), random_state=0).fit(
            X_sparse, partial_labels=partial)
    assert sp.issparse(X_sparse) and X_sparse.shape == X.shape  # left as given
    # fitted on dense rows, it meets sparse new ones in predict
    model = SMIClustering(2, classifier=GaussianNB(), random_state=0).fit(
        X, partial_labels=partial)
    assert model.classifier_ is not None
    with pytest.raises(TypeError, match=r"'classifier' parameter \(GaussianNB\) "
                       r"could not predict these rows \(a sparse matrix of "
                       r"shape \(5, \d+\)\) \(it was fitted on the linked "
                       r"samples\): .*dense data is required"):
        model.predict(X_sparse[:5])


class _SingularClassifier(LogisticRegression):
    """Fails as a quadratic discriminant does on singular data."""

    def fit(self, X, y):
        raise np.linalg.LinAlgError("singular covariance")


def test_a_users_classifier_error_keeps_its_type_and_names_the_parameter():
    X, y = _one_informative_feature(n=90, seed=11)
    partial = _labelled(y, 0.2, seed=12)
    with pytest.raises(np.linalg.LinAlgError,
                       match=r"'classifier' parameter \(_SingularClassifier\).*"
                             r"singular covariance"):
        SMIClustering(2, classifier=_SingularClassifier(), random_state=0).fit(
            X, partial_labels=partial)


def test_a_users_classifier_left_unused_says_so_at_the_callers_line():
    import warnings

    X, _ = _one_informative_feature(n=60, seed=13)
    chain = [[0, 1], [1, 2], [2, 3]]  # the linked samples hold one cluster
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SMIClustering(2, classifier=LogisticRegression(),
                              random_state=0).fit(X, must_link=chain)
    unused = [w for w in caught if "was not used" in str(w.message)]
    assert len(unused) == 1 and unused[0].filename == __file__
    assert "'classifier' parameter (LogisticRegression)" in str(unused[0].message)
    assert model.classifier_ is None and model.classifier_weight_ == 0.0
    with warnings.catch_warnings(record=True) as caught:  # two clusters: used
        warnings.simplefilter("always")
        model = SMIClustering(2, classifier=LogisticRegression(),
                              random_state=0).fit(X, must_link=chain,
                                                  cannot_link=[[0, 30]])
    assert not [w for w in caught if "was not used" in str(w.message)]
    assert isinstance(model.classifier_, LogisticRegression)


def test_predict_uses_the_vote_for_new_samples():
    X, y = _one_informative_feature(seed=7)
    partial = _labelled(y, 0.2, seed=8)
    model = SMIClustering(2, random_state=0).fit(X, partial_labels=partial)
    X_new, y_new = _one_informative_feature(n=200, seed=9)
    proba = model.predict_proba(X_new)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.predict(X_new), np.argmax(proba, axis=1))
    assert adjusted_rand_score(y_new, model.predict(X_new)) > 0.3
    # a training sample passed as new keeps its label
    free = ~model._spread.seeded
    assert np.mean(model.predict(X[free]) == model.labels_[free]) > 0.95


@pytest.mark.parametrize("value, error", [("forest", ValueError), (3, TypeError),
                                          (object(), ValueError)])
def test_bad_classifier_is_refused_by_name(value, error):
    X, y = _one_informative_feature(n=60, seed=10)
    with pytest.raises(error, match="'classifier'"):
        SMIClustering(2, classifier=value).fit(X)


def test_a_fit_with_every_sample_linked_predicts_by_the_forest_where_it_sees_more():
    # rule PF4: every training sample labelled, one informative feature
    # among noise features: the forest's out-of-bag labels beat the paper's
    # rule and the neighbours' vote held out, so new samples take the forest
    # (trained on every sample with its label, seeded from the fit)
    X, y = _one_informative_feature(n=400, seed=6)
    train, new = slice(0, 300), slice(300, None)
    model = SMIClustering(2, random_state=0).fit(X[train], partial_labels=y[train])
    assert model.spread_from_ == "none"
    kind, forest = model._linked_fit_rule  # chosen by fit
    assert kind == "forest"
    fitted = dict(vars(model))
    proba = model.predict_proba(X[new])
    assert vars(model).keys() == fitted.keys()  # predict changes nothing
    assert all(vars(model)[key] is value for key, value in fitted.items())
    order = training_order(X[train], model.labels_)
    by_hand = RandomForestClassifier(n_estimators=100, oob_score=True, n_jobs=1,
                                     random_state=model._new_sample_seed)
    by_hand.fit(X[train][order], model.labels_[order])
    np.testing.assert_allclose(proba, classifier_probabilities(by_hand, X[new], 2))
    np.testing.assert_array_equal(model.predict(X[new]), proba.argmax(axis=1))
    assert model._linked_fit_rule[1] is forest  # kept
    # parameters set after the fit do not reach its predictions
    model.set_params(classifier=None, spreading=0.0)
    np.testing.assert_array_equal(model.predict_proba(X[new]), proba)
    model.set_params(classifier="auto", spreading="auto")
    # the paper's rule (no classifier) hears the noise features
    plain = SMIClustering(2, classifier=None, random_state=0).fit(
        X[train], partial_labels=y[train])
    np.testing.assert_array_equal(plain.labels_, model.labels_)
    by_forest = adjusted_rand_score(y[new], model.predict(X[new]))
    by_response = adjusted_rand_score(y[new], plain.predict(X[new]))
    assert by_forest > 0.8 and by_forest > by_response + 0.3
    # a new fit chooses again, with its own parameters
    model.fit(X[train], partial_labels=y[train])
    assert model._linked_fit_rule[1] is not forest
    model.set_params(classifier=None).fit(X[train], partial_labels=y[train])
    assert model._linked_fit_rule == (None, None)
    np.testing.assert_array_equal(model.predict(X[new]), plain.predict(X[new]))


def test_a_fit_with_every_sample_linked_takes_the_option_best_held_out():
    # rule PF4 by hand on two moons with every sample labelled: the paper's
    # rule with each training sample passed as new without its own kernel
    # entry, the neighbours' vote of the others, the forest's out-of-bag
    # labels, by ARI against the fitted labels; the first of the highest
    from smiclust.kernels import local_scaling_cross_kernel
    from smiclust.score_spreading import left_out_neighbour_labels

    X, y = make_moons(260, noise=0.05, random_state=1)
    train, new = slice(0, 200), slice(200, None)
    model = SMIClustering(2, n_neighbors=7, random_state=0).fit(
        X[train], partial_labels=y[train])
    labels = model.predict(X[new])
    kind, _ = model._linked_fit_rule
    K = local_scaling_cross_kernel(X[train], X[train], model.local_scales_, 7)
    off = K.toarray() - np.diag(K.toarray().diagonal())
    safe = np.where(model._normalizer > 0, model._normalizer, 1.0)
    paper = [np.argmax(off[i] @ model.dual_coef_ / safe) for i in range(200)]
    left_out, _ = left_out_neighbour_labels(K, model.labels_, 2)
    forest, order = fit_seed_classifier("auto", X[train], model.labels_,
                                        model._new_sample_seed)
    oob = out_of_bag_probabilities(forest, 2).argmax(axis=1)
    agreement = [adjusted_rand_score(model.labels_, paper),
                 adjusted_rand_score(model.labels_, left_out),
                 adjusted_rand_score(model.labels_[order], oob)]
    assert kind == ["paper", "neighbours", "forest"][int(np.argmax(agreement))]
    assert kind == "paper" and agreement[0] == 1.0  # the paper's rule: all right
    plain = SMIClustering(2, n_neighbors=7, classifier=None, random_state=0).fit(
        X[train], partial_labels=y[train])
    np.testing.assert_array_equal(labels, plain.predict(X[new]))
    assert adjusted_rand_score(y[new], labels) == 1.0
    # fits with samples in no link, classifier=None or spreading=0 keep today's
    partial = np.where(np.arange(200) % 2 == 0, y[train], -1)
    assert not SMIClustering(2, random_state=0).fit(
        X[train], partial_labels=partial)._predicts_by_choice()
    for params in (dict(classifier=None), dict(spreading=0.0),
                   dict(links="paper")):
        fit = SMIClustering(2, random_state=0, **params).fit(
            X[train], partial_labels=y[train])
        assert not fit._predicts_by_choice()


@pytest.mark.parametrize("data", ["forest", "moons"])
def test_a_large_fit_with_every_sample_linked_judges_the_rules_on_a_sample(
        monkeypatch, data):
    # above NEW_SAMPLE_RULE_MAX_SAMPLES training samples rule PF4 is judged
    # on m of them drawn from the fit's seed (here the bound set to 150 and
    # the distances to 300 * 120: m = 120), between the paper's rule (each
    # passed as new without its own kernel entry) and a forest trained on
    # those m (out-of-bag labels), by ARI against their labels_; the kernel
    # is computed for those m rows only
    monkeypatch.setattr(estimator_module, "NEW_SAMPLE_RULE_MAX_SAMPLES", 150)
    monkeypatch.setattr(estimator_module, "NEW_SAMPLE_RULE_MIN_SAMPLES", 100)
    monkeypatch.setattr(estimator_module, "NEW_SAMPLE_RULE_MAX_DISTANCES", 300 * 120)
    if data == "forest":
        X, y = _one_informative_feature(n=400, seed=6)
        params = {}
    else:  # the paper's rule labels every held-out sample right
        X, y = make_moons(400, noise=0.05, random_state=1)
        params = {"n_neighbors": 7}
    train, new = slice(0, 300), slice(300, None)
    rows_seen = []
    real_kernel = estimator_module.local_scaling_cross_kernel

    def kernel_spy(X_new, X_fit, *args, **kwargs):
        rows_seen.append(X_new.shape[0])
        return real_kernel(X_new, X_fit, *args, **kwargs)

    monkeypatch.setattr(estimator_module, "local_scaling_cross_kernel", kernel_spy)
    model = SMIClustering(2, random_state=0, **params).fit(
        X[train], partial_labels=y[train])
    assert model._predicts_by_choice() and rows_seen == [120]
    kind, fitted = model._linked_fit_rule
    # by hand: the rows, the paper's rule row by row, the forest on the rows
    rows = np.sort(np.random.RandomState(model._new_sample_seed).choice(
        300, 120, replace=False))
    e = model._x_exponent
    X_unit = X[train] / 2.0**e
    K = real_kernel(X_unit[rows], X_unit, model.local_scales_ / 2.0**e,
                    model.n_neighbors_).toarray()
    K[np.arange(120), rows] = 0.0  # each row without its own entry
    safe = np.where(model._normalizer > 0, model._normalizer, 1.0)
    paper = [np.argmax(K[r] @ model.dual_coef_ / safe) for r in range(120)]
    forest, order = fit_seed_classifier("auto", X[train][rows],
                                        model.labels_[rows], model._new_sample_seed)
    oob = out_of_bag_probabilities(forest, 2).argmax(axis=1)
    agreement = [adjusted_rand_score(model.labels_[rows], paper),
                 adjusted_rand_score(model.labels_[rows][order], oob)]
    assert kind == ["paper", "forest"][int(np.argmax(agreement))]
    if data == "forest":
        assert kind == "forest"
        np.testing.assert_allclose(model.predict_proba(X[new]),
                                   classifier_probabilities(forest, X[new], 2))
    else:
        assert kind == "paper" and fitted is None and agreement[0] == 1.0
        plain = SMIClustering(2, classifier=None, random_state=0, **params).fit(
            X[train], partial_labels=y[train])
        np.testing.assert_array_equal(model.predict(X[new]), plain.predict(X[new]))
    # the same random_state, the same rule and predictions
    again = SMIClustering(2, random_state=0, **params).fit(
        X[train], partial_labels=y[train])
    assert again._linked_fit_rule[0] == kind
    np.testing.assert_array_equal(again.predict_proba(X[new]),
                                  model.predict_proba(X[new]))


def test_a_long_rule_choice_is_announced_before_it_starts(monkeypatch, capsys):
    # from _ANNOUNCED_RULE_SAMPLES training samples (here set to 100) a
    # verbose fit says what it is doing before the seconds of the choice
    monkeypatch.setattr(estimator_module, "_ANNOUNCED_RULE_SAMPLES", 100)
    X, y = _one_informative_feature(n=300, seed=6)
    SMIClustering(2, random_state=0, verbose=1).fit(X, partial_labels=y)
    err = capsys.readouterr().err
    assert ("new samples: every sample is linked, so the rule for new ones is "
            "chosen on 300 training samples held out in turn") in err
    monkeypatch.setattr(estimator_module, "_ANNOUNCED_RULE_SAMPLES", 301)
    SMIClustering(2, random_state=0, verbose=1).fit(X, partial_labels=y)
    assert "every sample is linked" not in capsys.readouterr().err


@pytest.mark.parametrize("n, m", [(5001, 5000), (20000, 5000), (50000, 2000),
                                  (100000, 1000), (10**6, 1000)])
def test_the_samples_judging_a_large_fits_rule_are_bounded(n, m):
    rows = estimator_module._new_sample_rule_rows(n, 7)
    assert rows.shape == (m,) and np.all(np.diff(rows) > 0)
    assert rows[0] >= 0 and rows[-1] < n
    np.testing.assert_array_equal(rows, estimator_module._new_sample_rule_rows(n, 7))


def test_fewer_than_one_percent_in_no_link_predict_by_the_choice_too():
    # rule PF5: where rule FS trains no forest (0 < samples in no link < 1 %)
    # new samples take the same held-out choice as when every sample is linked
    X, y = _one_informative_feature(n=400, seed=6)
    train, new = slice(0, 300), slice(300, None)
    for n_unlabelled, chosen in ((2, True), (3, False)):  # 0.7 % and 1 %
        partial = y[train].copy()
        partial[:n_unlabelled] = -1
        model = SMIClustering(2, random_state=0).fit(X[train], partial_labels=partial)
        assert model.spread_from_ != "none"  # the few were spread to
        assert model._predicts_by_choice() is chosen
        if chosen:
            assert model._linked_fit_rule[0] == "forest"
            assert adjusted_rand_score(y[new], model.predict(X[new])) > 0.8


def test_two_kernels_of_one_fit_train_one_forest_per_seed_labelling(monkeypatch):
    # with two clusters kernel="auto" spreads on both kernels; where their
    # seed labels agree the second takes the first's forest, which is the
    # same forest (rows, labels and seed equal), and nothing stays after fit
    trained, asked = [], []
    real_fit = estimator_module.fit_seed_classifier
    real_seed_classifier = SMIClustering._seed_classifier

    def fit_spy(classifier, X, labels, random_state):
        trained.append(np.asarray(labels).tobytes())
        return real_fit(classifier, X, labels, random_state)

    def seed_classifier_spy(self, inputs, seeded, labels, seed):
        asked.append(np.asarray(labels).tobytes())
        return real_seed_classifier(self, inputs, seeded, labels, seed)

    monkeypatch.setattr(estimator_module, "fit_seed_classifier", fit_spy)
    monkeypatch.setattr(SMIClustering, "_seed_classifier", seed_classifier_spy)
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    partial = np.full(len(y), -1)
    known = np.random.RandomState(0).choice(len(y), 30, replace=False)
    partial[known] = y[known]
    model = SMIClustering(2, random_state=0).fit(X, partial_labels=partial)
    assert len(asked) == 2 and asked[0] == asked[1]
    assert trained == asked[:1]
    assert not hasattr(model, "_classifiers")


def test_unlinked_share_is_of_all_samples():
    # V1: 1 sample in no link of 101 is below 1 %; 1 of 100 is 1 %
    from smiclust.classifier_vote import uses_classifier

    assert not uses_classifier("auto", 100, 1, 3)
    assert uses_classifier("auto", 99, 1, 3)
