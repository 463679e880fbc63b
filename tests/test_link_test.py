"""The held-out link test (smiclust.link_test) and its use by SMIClustering."""

import warnings
from math import comb

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

import smiclust._estimator as estimator_module
from smiclust import SMIClustering, sample_links
from smiclust.constraints import link_violations
from smiclust.link_groups import link_groups
from smiclust.link_test import agreement_over_chance, link_folds, sign_test_pvalue


def _brute_sign_test(right_a, right_b, units):
    """Per unit: items b gets right minus items a gets right; P(B >= k)."""
    scores = {}
    for a, b, u in zip(right_a, right_b, units):
        scores[u] = scores.get(u, 0) + int(b) - int(a)
    k = sum(s > 0 for s in scores.values())
    d = sum(s != 0 for s in scores.values())
    if d == 0:
        return 1.0
    return sum(comb(d, i) for i in range(k, d + 1)) / 2**d


@pytest.mark.parametrize("seed", range(8))
def test_sign_test_matches_the_binomial_tail(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 40))
    a, b = rng.random(n) < 0.6, rng.random(n) < rng.uniform(0.3, 0.9)
    units = rng.integers(0, 12, n)
    assert sign_test_pvalue(a, b, units) == pytest.approx(
        _brute_sign_test(a, b, units), rel=1e-12
    )


def test_sign_test_counts_units_not_items():
    # b wins 10 items, all in one unit; a wins one item in each of 3 units
    a = np.r_[np.zeros(10, bool), np.ones(3, bool)]
    b = ~a
    units = np.r_[np.zeros(10, int), 1, 2, 3]
    assert sign_test_pvalue(a, b, units) == pytest.approx(15 / 16)  # 1 of 4
    assert sign_test_pvalue(a, b, np.arange(13)) == pytest.approx(
        sum(comb(13, i) for i in range(10, 14)) / 2**13
    )
    assert sign_test_pvalue(a, a, units) == 1.0  # no unit differs


@pytest.mark.parametrize("seed", range(4))
def test_folds_hold_out_every_link_once(seed):
    rng = np.random.default_rng(seed)
    n = 60
    pairs = np.unique(np.sort(rng.integers(0, n, (50, 2)), axis=1), axis=0)
    pairs = pairs[pairs[:, 0] < pairs[:, 1]]
    must, cannot = pairs[::3], np.delete(pairs, np.s_[::3], axis=0)
    folds = link_folds(must, cannot, n, 5, np.random.RandomState(seed))
    linked = np.unique(pairs)
    assert (folds.sample_fold[linked] >= 0).all()
    assert (np.delete(folds.sample_fold, linked) == -1).all()
    assert np.bincount(folds.sample_fold[linked]).tolist() == [
        len(range(f, linked.size, 5)) for f in range(5)
    ]
    for links, fold_of, unit in ((must, folds.must_fold, folds.must_unit),
                                 (cannot, folds.cannot_fold, folds.cannot_unit)):
        for (i, j), f, u in zip(links, fold_of, unit):
            fi, fj = folds.sample_fold[i], folds.sample_fold[j]
            assert f == min(fi, fj)
            assert u == (i if fi <= fj else j) and folds.sample_fold[u] == f
    for f in range(5):
        train_must, train_cannot = folds.training_links(must, cannot, f)
        expected = [(i, j) for i, j in map(tuple, must)
                    if folds.sample_fold[i] != f and folds.sample_fold[j] != f]
        assert list(map(tuple, train_must)) == expected
        held = np.isin(folds.sample_fold[train_cannot], f)
        assert not held.any()


def test_a_held_out_link_is_right_when_not_violated():
    labels = np.array([0, 0, 1, 1])
    must = np.array([[0, 1], [1, 2]])
    cannot = np.array([[0, 2], [2, 3]])
    right_m, right_c = (~v for v in link_violations(labels, must, cannot))
    assert right_m.tolist() == [True, False]
    assert right_c.tolist() == [True, False]


def _blobs(seed=0):
    X, y = make_blobs(n_samples=150, centers=3, cluster_std=1.0, random_state=seed)
    return X, y


def _flipped_links(y, n_links, fraction, seed):
    """``n_links`` random links typed by ``y``, ``fraction`` of them flipped."""
    must, cannot = sample_links(y, n_links, random_state=seed)
    pairs = np.vstack([must, cannot])
    is_must = np.r_[np.ones(len(must), bool), np.zeros(len(cannot), bool)]
    flipped = np.random.default_rng(seed).permutation(len(pairs))
    flipped = flipped[: round(fraction * len(pairs))]
    is_must[flipped] = ~is_must[flipped]
    return pairs[is_must], pairs[~is_must]


def _with_contradiction(must, cannot, n_samples):
    """``cannot`` and one cannot-link between two samples of one must-link
    group that no must-link joins directly (the links then contradict
    themselves)."""
    group = link_groups(must, cannot, n_samples).group
    direct = {tuple(sorted(p)) for p in must.tolist()}
    for g in np.flatnonzero(np.bincount(group) >= 3):
        members = np.flatnonzero(group == g)
        for a in members:
            for b in members:
                if a < b and (a, b) not in direct:
                    return np.vstack([cannot, [[a, b]]])
    raise AssertionError("no must-link group of three samples")


def test_wrong_links_are_set_aside_for_the_fit_without_links():
    # 20 % of 200 links flipped: two cannot-links fall inside must-link
    # groups, so the links are tested
    X, y = _blobs()
    must, cannot = _flipped_links(y, 200, 0.2, 0)
    assert link_groups(must, cannot, len(X)).n_contradictions > 0
    model = SMIClustering(3, random_state=0).fit(X, must_link=must, cannot_link=cannot)
    assert model.links_ == "ignored" and model.link_test_pvalue_ < 0.05
    alone = SMIClustering(3, random_state=0).fit(X)
    assert_array_equal(model.labels_, alone.labels_)
    assert np.isnan(alone.link_test_pvalue_)
    # violations and suspects are those of the given links
    vm, vc = link_violations(model.labels_, must, cannot)
    assert model.n_violations_ == vm.sum() + vc.sum() > 0
    assert len(model.suspect_links_["i"]) == len(must) + len(cannot)
    # predict follows the returned fit
    assert_array_equal(model.predict(X[:20]), alone.predict(X[:20]))
    # with the test off the wrong links are used
    used = SMIClustering(3, random_state=0, link_test_level=0).fit(
        X, must_link=must, cannot_link=cannot
    )
    assert used.links_ != "ignored" and np.isnan(used.link_test_pvalue_)


def test_set_aside_links_do_not_choose_the_number_of_clusters():
    X, y = _blobs()
    must, cannot = _flipped_links(y, 300, 0.2, 0)
    model = SMIClustering("auto", random_state=0).fit(
        X, must_link=must, cannot_link=cannot
    )
    alone = SMIClustering("auto", random_state=0).fit(X)
    assert model.links_ == "ignored"
    assert model.n_clusters_ == alone.n_clusters_
    assert_array_equal(model.labels_, alone.labels_)
    for name in alone.n_clusters_scores_:
        assert_array_equal(model.n_clusters_scores_[name],
                           alone.n_clusters_scores_[name])


def test_correct_links_are_not_tested():
    X, y = _blobs(1)
    must, cannot = sample_links(y, 60, random_state=0)
    model = SMIClustering(3, random_state=0).fit(X, must_link=must, cannot_link=cannot)
    assert model.links_ == "closure" and np.isnan(model.link_test_pvalue_)


def test_pvalue_equals_a_brute_force_refit_per_fold(monkeypatch):
    """The estimator's p-value from fits by hand: the fit without links, and
    per fold the estimator with the chosen gamma and eta fixed on the links
    outside the fold, both with the test's LSMI centres and no vote over
    n_neighbors (the same solver seed, from the same random_state). The
    folds' fits are searches, not whole fits, so the fits by hand leave out
    the rule for data blind to the links too."""
    monkeypatch.setattr(estimator_module, "BLIND_DATA_Z", -np.inf)
    X, y = _blobs(2)
    must, cannot = _flipped_links(y, 40, 0.3, 1)
    cannot = _with_contradiction(must, cannot, len(X))  # the links are tested
    # one gamma grid for the fit's softened links and the folds' closed ones
    # (their default grids differ), so the folds search n_neighbors only
    grid = dict(gamma=[0.0, 1.0])
    model = SMIClustering(3, random_state=3, **grid).fit(
        X, must_link=must, cannot_link=cannot
    )
    small = dict(random_state=3, link_test_level=0, lsmi_n_centers=100,
                 consensus=False)
    alone = SMIClustering(3, **small).fit(X).labels_
    # the parameters the fit with links chose (before any setting aside)
    chosen = SMIClustering(3, random_state=3, link_test_level=0, **grid).fit(
        X, must_link=must, cannot_link=cannot
    )
    # the folds: the fifth seed drawn from random_state is the test's
    rs = np.random.RandomState(3)
    seeds = [rs.randint(np.iinfo(np.int32).max) for _ in range(5)]
    folds = link_folds(must, cannot, len(X), 5, np.random.RandomState(seeds[4]))
    fold_labels = []
    for f in range(folds.n_folds):
        train_m, train_c = folds.training_links(must, cannot, f)
        fold_fit = SMIClustering(3, gamma=chosen.gamma_, eta=chosen.eta_, **small)
        with warnings.catch_warnings():  # as the test's own fold fits
            warnings.simplefilter("ignore")
            fold_fit.fit(X, must_link=train_m, cannot_link=train_c)
        fold_labels.append(fold_fit.labels_)
    right_with, right_without, units = [], [], []
    for pairs, same, fold_of, unit_of in (
        (must, True, folds.must_fold, folds.must_unit),
        (cannot, False, folds.cannot_fold, folds.cannot_unit),
    ):
        for (i, j), f, u in zip(pairs, fold_of, unit_of):
            labels = fold_labels[f]
            right_with.append((labels[i] == labels[j]) == same)
            right_without.append((alone[i] == alone[j]) == same)
            units.append(u)
    expected = _brute_sign_test(right_with, right_without, units)
    assert model.link_test_pvalue_ == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("level", [-0.1, 1.0, np.nan, "0.05"])
def test_bad_levels(level):
    X, _ = _blobs()
    with pytest.raises((ValueError, TypeError), match="link_test_level"):
        SMIClustering(3, link_test_level=level).fit(X)


def test_consistent_links_are_used_even_where_the_data_do_not_predict_them():
    # features unrelated to the classes: held-out links are not predicted by
    # the data, with the links or without; the links are correct, so they
    # contradict nothing and must be used, not set aside (their closure
    # alone labels most samples)
    rng = np.random.RandomState(0)
    y = np.repeat(np.arange(3), 60)
    X = rng.normal(size=(y.size, 4))
    must, cannot = sample_links(y, 800, random_state=0)
    assert link_groups(must, cannot, y.size).n_contradictions == 0
    model = SMIClustering(3, random_state=0).fit(X, must_link=must, cannot_link=cannot)
    assert model.links_ == "closure" and np.isnan(model.link_test_pvalue_)
    assert adjusted_rand_score(y, model.labels_) > 0.9
    # one wrong link that contradicts the others brings the test back
    model = SMIClustering(3, random_state=0).fit(
        X, must_link=must, cannot_link=_with_contradiction(must, cannot, y.size)
    )
    assert np.isfinite(model.link_test_pvalue_)


def _agreement_z_by_loops(labels, must, cannot):
    """The z of agreement_over_chance, counted pair by pair."""
    n = len(labels)
    same = sum(labels[i] == labels[j] for i in range(n) for j in range(n))
    r = same / n**2
    kept, expected, inverse = [], [], 0.0
    if len(must):
        kept.append(sum(labels[i] == labels[j] for i, j in must) / len(must))
        expected.append(r)
        inverse += 1 / len(must)
    if len(cannot):
        kept.append(sum(labels[i] != labels[j] for i, j in cannot) / len(cannot))
        expected.append(1 - r)
        inverse += 1 / len(cannot)
    m = len(kept)
    return (sum(kept) / m - sum(expected) / m) / (np.sqrt(r * (1 - r) * inverse) / m)


@pytest.mark.parametrize("seed", range(6))
def test_agreement_over_chance_equals_a_pair_by_pair_count(seed):
    rng = np.random.RandomState(seed)
    n, c = 40, 2 + seed % 3
    labels = rng.randint(c, size=n)
    y = rng.randint(c, size=n)
    must, cannot = sample_links(y, 30, random_state=seed)
    kinds = [(must, cannot), (must, cannot[:0]), (must[:0], cannot)]
    for m, cl in kinds:
        if len(m) + len(cl) == 0:
            continue
        assert agreement_over_chance(labels, m, cl) == pytest.approx(
            _agreement_z_by_loops(labels, m, cl), rel=1e-12)


def test_agreement_over_chance_separates_seeing_from_blind_labels():
    rng = np.random.RandomState(0)
    y = np.repeat(np.arange(4), 50)
    must, cannot = sample_links(y, 300, random_state=0)
    assert agreement_over_chance(y, must, cannot) > 10  # the classes themselves
    blind = [agreement_over_chance(rng.permutation(y), must, cannot)
             for _ in range(200)]
    # about a standard normal when the labels know nothing of the links
    assert abs(np.mean(blind)) < 0.3 and 0.7 < np.std(blind) < 1.3
    assert agreement_over_chance(np.zeros(200, dtype=int), must, cannot) == 0.0
    empty = np.zeros((0, 2), dtype=int)
    assert np.isnan(agreement_over_chance(y, empty, empty))
