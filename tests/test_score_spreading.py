"""Score spreading: the series against the dense closed form, and its use by
the estimator."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_links
from sklearn.datasets import make_blobs, make_moons

from smiclust import SMIClustering, local_scaling_kernel
from smiclust.score_spreading import normalized_affinity, spread_labels, spread_scores


def _random_kernel(rng, n, density=0.2):
    A = sp.random(n, n, density=density, random_state=rng, format="csr")
    K = (A + A.T) / 2
    K.setdiag(1.0)
    return K.tocsr()


def _dense_spread(K, scores, seed_labels, alpha):
    """(1 - alpha) (I - alpha W_hat)^-1 Y0 by a dense solve, written out."""
    W = K.toarray()
    np.fill_diagonal(W, 0.0)
    d = W.sum(axis=1)
    inv = np.where(d > 0, 1.0 / np.sqrt(np.where(d > 0, d, 1.0)), 0.0)
    W_hat = inv[:, None] * W * inv[None, :]
    Y0 = scores / scores.sum(axis=1).mean()
    for i, label in enumerate(seed_labels):
        if label >= 0:
            Y0[i] = 0.0
            Y0[i, label] = 1.0
    n = len(W)
    return (1 - alpha) * np.linalg.solve(np.eye(n) - alpha * W_hat, Y0)


@pytest.mark.parametrize("alpha", [0.2, 0.5, 0.9])
def test_spread_scores_equals_the_dense_closed_form(alpha):
    rng = np.random.RandomState(0)
    K = _random_kernel(rng, 30)
    scores = rng.rand(30, 3)
    seeds = np.full(30, -1)
    seeds[[0, 5, 9]] = [2, 0, 1]
    F = spread_scores(K, scores, seeds, alpha, tol=1e-14)
    np.testing.assert_allclose(F, _dense_spread(K, scores, seeds, alpha), atol=1e-10)


def test_normalized_affinity_matches_dense_and_ignores_the_diagonal():
    rng = np.random.RandomState(1)
    K = _random_kernel(rng, 12, density=0.3).tolil()
    K[3, :] = 0.0  # an isolated sample (only its diagonal)
    K[:, 3] = 0.0
    K[3, 3] = 1.0
    K = K.tocsr()
    K.eliminate_zeros()
    W = K.toarray()
    np.fill_diagonal(W, 0.0)
    d = W.sum(axis=1)
    inv = np.where(d > 0, 1 / np.sqrt(np.where(d > 0, d, 1)), 0.0)
    expected = inv[:, None] * W * inv[None, :]
    got = normalized_affinity(K).toarray()
    np.testing.assert_allclose(got, expected, atol=1e-14)
    assert not got[3].any()
    assert np.linalg.norm(got, 2) <= 1 + 1e-12


def test_alpha_zero_returns_the_scaled_scores_and_inputs_are_untouched():
    rng = np.random.RandomState(2)
    K = _random_kernel(rng, 10)
    scores = rng.rand(10, 2)
    seeds = np.full(10, -1)
    seeds[4] = 1
    K_before, scores_before = K.copy(), scores.copy()
    F = spread_scores(K, scores, seeds, 0.0)
    np.testing.assert_allclose(F[seeds < 0], (scores / scores.sum(1).mean())[seeds < 0])
    np.testing.assert_array_equal(F[4], [0.0, 1.0])
    np.testing.assert_array_equal(scores, scores_before)
    assert (K != K_before).nnz == 0


def test_spread_labels_keeps_seeds_and_fills_an_empty_row_from_its_neighbours():
    # a chain 0 - 1 - 2 - 3: sample 1 has no score at all, its neighbours do
    K = sp.diags([np.ones(3), np.ones(4), np.ones(3)], [-1, 0, 1], format="csr")
    scores = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    labels = np.array([0, 1, 0, 1])  # 1: the label an all-zero row fell to
    seeded = np.array([False, False, False, True])
    new, F = spread_labels(K, scores, labels, seeded, 0.5)
    assert new[1] == 0  # both neighbours say cluster 0
    assert new[3] == 1  # a seed keeps its label
    assert F.shape == (4, 2)
    # with no neighbours at all, an empty row keeps its label
    lonely, _ = spread_labels(sp.identity(4, format="csr"), scores, labels, seeded, 0.5)
    np.testing.assert_array_equal(lonely, labels)


def test_estimator_spreading_zero_is_the_unspread_fit():
    X, y = make_blobs(n_samples=120, centers=3, cluster_std=2.5, random_state=0)
    must = np.array([[0, 1], [2, 3]])
    kw = dict(n_neighbors=5, gamma=1.0, random_state=0)
    plain = SMIClustering(3, spreading=0.0, **kw).fit(X, must_link=must)
    spread = SMIClustering(3, spreading=0.5, **kw).fit(X, must_link=must)
    # the same solve underneath
    np.testing.assert_allclose(
        np.sort(plain.eigenvalues_), np.sort(spread.eigenvalues_), rtol=1e-12
    )
    # and the spread labels are those of spread_labels on that solve
    K = local_scaling_kernel(X, 5)
    seeded = np.zeros(120, bool)
    seeded[must.ravel()] = True
    from smiclust.labeling import cluster_scores

    scores, _ = cluster_scores(plain.eigenvectors_, plain._normalizer)
    expected, _ = spread_labels(K, scores, plain.labels_, seeded, 0.5)
    from sklearn.metrics import adjusted_rand_score

    assert adjusted_rand_score(expected, spread.labels_) == pytest.approx(1.0)
    # linked samples keep their labels (up to the renumbering of the clusters)
    assert spread.labels_[0] == spread.labels_[1]
    assert spread.labels_[2] == spread.labels_[3]


def test_estimator_proba_rows_of_free_samples_follow_their_labels():
    X, _ = make_moons(n_samples=150, noise=0.1, random_state=1)
    must = np.array([[0, 1]])
    cannot = np.array([[0, 2]])
    model = SMIClustering(2, random_state=0).fit(X, must_link=must, cannot_link=cannot)
    free = np.ones(150, bool)
    free[[0, 1, 2]] = False
    np.testing.assert_array_equal(model.proba_[free].argmax(1), model.labels_[free])
    np.testing.assert_allclose(model.proba_.sum(1), 1.0)
    assert set(np.unique(model.labels_)) == {0, 1}
    assert model.n_violations_ == 0


def test_paper_links_are_not_spread():
    X, _ = make_blobs(n_samples=80, centers=2, random_state=3)
    must = np.array([[0, 1]])
    kw = dict(n_neighbors=4, gamma=1.0, links="paper", random_state=0)
    a = SMIClustering(2, spreading=0.0, **kw).fit(X, must_link=must)
    b = SMIClustering(2, spreading=0.9, **kw).fit(X, must_link=must)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.proba_, b.proba_)


@pytest.mark.parametrize("bad", [-0.1, 1.0, 2])
def test_spreading_out_of_range_is_refused_by_name(bad):
    X, _ = make_blobs(n_samples=30, centers=2, random_state=0)
    with pytest.raises(ValueError, match="spreading"):
        SMIClustering(2, spreading=bad).fit(X)


def test_spreading_of_the_wrong_type_is_refused_by_name():
    X, _ = make_blobs(n_samples=30, centers=2, random_state=0)
    with pytest.raises((TypeError, ValueError), match="spreading"):
        SMIClustering(2, spreading="lots").fit(X)


def _brute_force_agreement(labels, must, cannot, n):
    """Balanced accuracy over the explicit list of every implied pair."""
    from itertools import combinations

    from smiclust.link_groups import link_groups

    g = link_groups(must, cannot, n)
    members = [np.flatnonzero(g.group == a) for a in range(g.n_groups)]
    same = [labels[i] == labels[j] for m in members for i, j in combinations(m, 2)]
    apart = [labels[i] != labels[j] for a, b in g.cannot_pairs
             for i in members[a] for j in members[b]]
    parts = [np.mean(x) for x in (same, apart) if len(x)]
    return float(np.mean(parts)) if parts else float("nan")


@pytest.mark.parametrize("seed", range(6))
def test_closed_link_agreement_equals_counting_every_implied_pair(seed):
    from smiclust import sample_links
    from smiclust.link_groups import link_groups
    from smiclust.score_spreading import closed_link_agreement

    rng = np.random.RandomState(seed)
    n, c = 40, 3
    y = rng.randint(c, size=n)
    must, cannot = sample_links(y, 25, random_state=seed)
    labels = rng.randint(c, size=n)
    got = closed_link_agreement(labels, link_groups(must, cannot, n), c)
    assert got == pytest.approx(_brute_force_agreement(labels, must, cannot, n))
    # labels that satisfy every link score 1
    assert closed_link_agreement(y, link_groups(must, cannot, n), c) == 1.0


def test_closed_link_agreement_without_pairs_is_nan():
    from smiclust.link_groups import link_groups
    from smiclust.score_spreading import closed_link_agreement

    empty = np.empty((0, 2), dtype=int)
    groups = link_groups(empty, empty, 5)
    assert np.isnan(closed_link_agreement(np.zeros(5, int), groups, 2))


def _columns_against_rows(random_state):
    """Two clear clusters (left, right); the classes are top and bottom."""
    rng = np.random.RandomState(random_state)
    centres = np.array([[0, 0], [0, 3], [20, 0], [20, 3]], dtype=float)
    X = np.vstack([c + rng.normal(scale=0.8, size=(40, 2)) for c in centres])
    y = np.repeat([0, 1, 0, 1], 40)
    return X, y


def _fit_columns_against_rows(**params):
    """The default (fixed t, gamma, eta) on :func:`_columns_against_rows`
    with 40 of its 160 samples labelled: ``(X, y, partial, model)``."""
    X, y = _columns_against_rows(0)
    partial = np.full(len(y), -1)
    labelled = np.random.RandomState(1).choice(len(y), 40, replace=False)
    partial[labelled] = y[labelled]
    model = SMIClustering(2, n_neighbors=7, gamma=1.0, eta=1.0, random_state=0,
                          **params)
    return X, y, partial, model.fit(X, partial_labels=partial)


def test_seeds_alone_when_the_clusters_are_not_the_links():
    # the spreading alone: here the classifier's vote would relabel some of
    # the samples in no link (tests/test_classifier_vote.py)
    X, y, partial, model = _fit_columns_against_rows(classifier=None)
    assert model.spread_from_ == "links"
    assert model.link_agreement_ < 0.6
    # the same as spreading the seeds' labels alone over the kernel
    plain = _fit_columns_against_rows(spreading=0.0, classifier=None)[3]
    seeded = partial >= 0
    expected, _ = spread_labels(local_scaling_kernel(X, 7),
                                np.zeros((len(y), 2)), plain.labels_, seeded, 0.5)
    from sklearn.metrics import adjusted_rand_score

    assert adjusted_rand_score(expected, model.labels_) == pytest.approx(1.0)
    assert plain.spread_from_ == "none" and np.isnan(plain.link_agreement_)


def test_spread_scores_when_the_clusters_are_the_links():
    X, y = _columns_against_rows(0)
    y = np.repeat([0, 0, 1, 1], 40)  # now the classes are the columns
    partial = np.full(len(y), -1)
    partial[::8] = y[::8]
    model = SMIClustering(2, n_neighbors=7, gamma=1.0, eta=1.0, random_state=0)
    model.fit(X, partial_labels=partial)
    assert model.spread_from_ == "scores"
    assert model.link_agreement_ > 0.95


def test_seeds_missing_a_cluster_keep_the_scores():
    X, y = make_blobs(n_samples=90, centers=3, random_state=2)
    must = np.array([[0, 1]])  # one group: the seeds hold one cluster of three
    model = SMIClustering(3, n_neighbors=5, gamma=1.0, random_state=0)
    model.fit(X, must_link=must)
    assert model.spread_from_ == "scores"
    assert np.isnan(model.link_agreement_)


def test_nothing_is_spread_when_every_sample_is_linked_or_one_cluster():
    X, y = make_blobs(n_samples=60, centers=3, random_state=0)
    everyone = SMIClustering(3, random_state=0).fit(X, partial_labels=y)
    assert everyone.spread_from_ == "none" and np.isnan(everyone.link_agreement_)
    plain = SMIClustering(3, spreading=0.0, random_state=0).fit(X, partial_labels=y)
    from sklearn.metrics import adjusted_rand_score

    # the same partition (numbering of exactly tied eigenvalues aside)
    assert adjusted_rand_score(everyone.labels_, plain.labels_) == 1.0
    one = SMIClustering(1, random_state=0).fit(X, must_link=[[0, 1]])
    assert one.spread_from_ == "none" and set(one.labels_) == {0}


def test_a_training_row_passed_as_new_gets_its_spread_row():
    from smiclust.score_spreading import kernel_degrees, spread_new_rows, start_scale

    rng = np.random.RandomState(5)
    K = _random_kernel(rng, 25)
    scores = rng.rand(25, 3)
    seeds = np.full(25, -1)
    seeds[[1, 7]] = [0, 2]
    F = spread_scores(K, scores, seeds, 0.6, tol=1e-15)
    free = np.flatnonzero(seeds < 0)
    K_rows = K[free].tolil()
    K_rows[np.arange(free.size), free] = 0.0  # the fixed point has no self-loop
    got = spread_new_rows(K_rows.tocsr(), scores[free], F, kernel_degrees(K),
                          start_scale(scores), 0.6)
    np.testing.assert_allclose(got, F[free], rtol=1e-9, atol=1e-12)


def test_predict_follows_the_spread_labels_on_the_training_samples():
    X, _, _, model = _fit_columns_against_rows()
    assert model.spread_from_ == "links"
    predicted = model.predict(X)
    assert np.mean(predicted == model.labels_) >= 0.95
    np.testing.assert_array_equal(model.predict_proba(X).argmax(axis=1), predicted)
    # new samples near the data (moved copies): predict_proba is the spread
    # scores scaled, so its argmax is predict's label there too (the paper's
    # probabilities, which predict does not follow here, disagree on some)
    rng = np.random.RandomState(3)
    rows = rng.choice(len(X), 200)
    moved = X[rows] + rng.normal(scale=0.3 * X.std(axis=0), size=(200, X.shape[1]))
    proba = model.predict_proba(moved)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(proba.argmax(axis=1), model.predict(moved))
    # without spreading, predict is the paper's rule on the responses
    plain = _fit_columns_against_rows(spreading=0.0)[3]
    responses = plain.predict(X)
    assert plain._spread is None and model._spread is not None
    assert np.mean(responses == plain.labels_) < np.mean(predicted == model.labels_)


@pytest.mark.parametrize("seed", range(5))
def test_held_out_seed_agreement_equals_a_loop_over_the_relations(seed):
    from smiclust.link_groups import link_groups
    from smiclust.score_spreading import held_out_seed_agreement

    rng = np.random.RandomState(seed)
    n = 40
    groups = link_groups(*random_links(rng, n, 25, 15), n)
    labels = rng.randint(0, 3, size=n)
    held = rng.rand(n) < 0.3
    train = ~held & (rng.rand(n) < 0.8)
    right, unit = held_out_seed_agreement(labels, groups, held, train)
    expected = []
    for i in np.flatnonzero(held):
        a = groups.group[i]
        own = [j for j in range(n) if train[j] and groups.group[j] == a]
        if own:
            expected.append((i, labels[i] == labels[own[0]]))
        for x, y in groups.cannot_pairs:
            if a not in (x, y):
                continue
            b = y if a == x else x
            other = [j for j in range(n) if train[j] and groups.group[j] == b]
            if other:
                expected.append((i, labels[i] != labels[other[0]]))
    assert sorted(zip(unit.tolist(), right.tolist())) == sorted(
        (int(i), bool(r)) for i, r in expected
    )


def test_held_out_seed_agreement_scores_stacked_labellings_column_by_column():
    from smiclust.link_groups import link_groups
    from smiclust.score_spreading import held_out_seed_agreement

    rng = np.random.RandomState(0)
    n = 40
    groups = link_groups(*random_links(rng, n, 25, 15), n)
    labels = rng.randint(0, 3, size=(n, 2))
    held = rng.rand(n) < 0.3
    train = ~held
    right, unit = held_out_seed_agreement(labels, groups, held, train)
    assert right.shape == (unit.size, 2)
    for k in range(2):
        right_k, unit_k = held_out_seed_agreement(labels[:, k], groups, held, train)
        np.testing.assert_array_equal(right[:, k], right_k)
        np.testing.assert_array_equal(unit, unit_k)


def _three_blobs_with_labels():
    X, y = make_blobs(n_samples=150, centers=3, cluster_std=2.0, random_state=4)
    partial = np.full(len(y), -1)
    partial[::5] = y[::5]
    return X, partial


@pytest.mark.parametrize("level, alpha", [(1.01, 0.9), (0.0, 0.5)])
def test_auto_spreading_is_the_fit_at_the_weight_it_chose(monkeypatch, level, alpha):
    import smiclust._estimator as est

    X, partial = _three_blobs_with_labels()
    kw = dict(n_neighbors=6, gamma=1.0, random_state=0)
    # a level above 1 takes 0.9 whatever the p-value, 0 never
    monkeypatch.setattr(est, "AUTO_LEVEL", level)
    auto = SMIClustering(3, **kw).fit(X, partial_labels=partial)
    fixed = SMIClustering(3, spreading=alpha, **kw).fit(X, partial_labels=partial)
    assert auto.spreading_ == alpha and fixed.spreading_ == alpha
    assert 0.0 <= auto.spreading_pvalue_ <= 1.0
    assert np.isnan(fixed.spreading_pvalue_)
    np.testing.assert_array_equal(auto.labels_, fixed.labels_)
    np.testing.assert_allclose(auto.predict_proba(X), fixed.predict_proba(X))


def test_auto_spreading_without_links_spreads_at_the_first_weight():
    X, _ = _three_blobs_with_labels()
    model = SMIClustering(3, n_neighbors=6, random_state=0).fit(X)
    assert model.spreading_ == 0.5 and np.isnan(model.spreading_pvalue_)
    plain = SMIClustering(3, n_neighbors=6, spreading=0.0, random_state=0).fit(X)
    assert plain.spreading_ == 0.0 and plain.spread_from_ == "none"


def test_auto_spreading_takes_the_larger_weight_where_held_out_seeds_need_it():
    # twelve overlapping blobs, a fifth of the samples labelled: spreading the
    # labels further (0.9) labels the held-out seeds better, and the rest too
    from sklearn.metrics import adjusted_rand_score

    X, y = make_blobs(3000, centers=12, cluster_std=3.0, random_state=0)
    partial = np.full(len(y), -1)
    labelled = np.random.RandomState(0).choice(len(y), 600, replace=False)
    partial[labelled] = y[labelled]
    free = partial < 0
    kw = dict(n_neighbors=10, random_state=0)
    auto = SMIClustering(12, **kw).fit(X, partial_labels=partial)
    assert auto.spreading_ == 0.9 and auto.spreading_pvalue_ < 0.05
    half = SMIClustering(12, spreading=0.5, **kw).fit(X, partial_labels=partial)
    assert (adjusted_rand_score(y[free], auto.labels_[free])
            > adjusted_rand_score(y[free], half.labels_[free]) + 0.01)


@pytest.mark.parametrize("seed", range(4))
def test_left_out_neighbour_labels_equal_a_loop_over_the_samples(seed):
    from smiclust.score_spreading import left_out_neighbour_labels

    rng = np.random.RandomState(seed)
    n, c = 30, 3
    dense = rng.rand(n, n) * (rng.rand(n, n) < 0.2)
    dense[rng.rand(n) < 0.1] = 0.0  # rows no other sample reaches
    labels = rng.randint(0, c, size=n)
    left_out, degree = left_out_neighbour_labels(sp.csr_matrix(dense), labels, c)
    off = dense - np.diag(np.diag(dense))
    d = off.sum(axis=1)
    np.testing.assert_allclose(degree, d)
    for i in range(n):
        votes = np.zeros(c)
        for j in range(n):
            if j != i and off[i, j] > 0 and d[j] > 0:  # d_j = 0: weight 0
                votes[labels[j]] += off[i, j] / np.sqrt(d[j])
        expected = np.argmax(votes) if votes.sum() > 0 else -1
        assert left_out[i] == expected


@pytest.mark.parametrize("agreement, source", [(0.69, "links"), (0.72, "scores")])
def test_seed_only_threshold_is_0_7(monkeypatch, agreement, source):
    # S4: the estimator spreads from the seeds alone below 0.7 balanced
    # accuracy of the fit without links on the closed links, not above
    from sklearn.datasets import make_blobs

    import smiclust._estimator as est

    X, y = make_blobs(n_samples=90, centers=3, random_state=2)
    partial = np.full(90, -1)
    partial[::6] = y[::6]
    monkeypatch.setattr(est, "closed_link_agreement", lambda *a: agreement)
    model = SMIClustering(3, n_neighbors=5, gamma=1.0, spreading=0.5,
                          classifier=None, random_state=0).fit(
        X, partial_labels=partial)
    assert model.spread_from_ == source
