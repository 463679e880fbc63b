"""Active link selection (select_pairs) and the active loop
(ActiveSMIClustering), against slow obvious references on tiny problems."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import blobs_with_strays
from numpy.testing import assert_array_equal
from sklearn.exceptions import NotFittedError
from sklearn.metrics import adjusted_rand_score

from smiclust import ActiveSMIClustering, SMIClustering, StopAsking, select_pairs
from smiclust.active import link_closure


def _tiny(n=8, c=3, seed=0):
    """``n`` samples in ``c`` loose blobs, a fitted model and the labels."""
    rng = np.random.RandomState(seed)
    y = np.arange(n) % c
    rng.shuffle(y)
    X = 3.0 * np.eye(c)[y][:, :2] + rng.normal(scale=0.8, size=(n, 2))
    model = SMIClustering(c, n_neighbors=3, gamma=0.0, random_state=0).fit(X)
    return X, y, model


def _random_links(y, n_links, rng):
    """Random pairs answered by the labels ``y`` (so consistent)."""
    n = len(y)
    pairs = np.array(list(itertools.combinations(range(n), 2)))
    pairs = pairs[rng.choice(len(pairs), n_links, replace=False)]
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    return pairs[same].reshape(-1, 2), pairs[~same].reshape(-1, 2)


def _entailed(must, cannot, n, c):
    """Pairs whose answer every labelling with ``c`` labels satisfying the
    links shares (exhaustive enumeration of the ``c ** n`` labellings)."""
    agree = None
    for labels in itertools.product(range(c), repeat=n):
        y = np.array(labels)
        if np.any(y[must[:, 0]] != y[must[:, 1]]):
            continue
        if np.any(y[cannot[:, 0]] == y[cannot[:, 1]]):
            continue
        same = y[:, None] == y[None, :]
        if agree is None:
            first, agree = same, np.ones((n, n), dtype=bool)
        agree &= same == first
    return {(i, j) for i in range(n) for j in range(i + 1, n) if agree[i, j]}


def _closed_by_paths(must, cannot, n):
    """Pairs decided by transitivity of must-links and lifting of cannot-links,
    by breadth-first search on the must-link graph."""
    neighbours = {i: set() for i in range(n)}
    for i, j in must:
        neighbours[i].add(j)
        neighbours[j].add(i)
    component = {}
    for start in range(n):
        if start in component:
            continue
        stack = [start]
        component[start] = start
        while stack:
            u = stack.pop()
            for v in neighbours[u]:
                if v not in component:
                    component[v] = start
                    stack.append(v)
    cannot_groups = {frozenset((component[i], component[j])) for i, j in cannot}
    return {
        (i, j)
        for i in range(n)
        for j in range(i + 1, n)
        if component[i] == component[j]
        or frozenset((component[i], component[j])) in cannot_groups
    }


def _as_set(pairs):
    return {(int(i), int(j)) for i, j in pairs}


@pytest.mark.parametrize("seed", range(6))
def test_select_pairs_never_asks_a_pair_the_links_decide(seed):
    # random consistent links, 3 clusters: never a pair the closure decides
    X, y, model = _tiny(8, 3, seed)
    rng = np.random.RandomState(seed)
    must, cannot = _random_links(y, 9, rng)
    pairs = select_pairs(model, X, 20, must_link=must, cannot_link=cannot,
                         random_state=seed)
    assert pairs.shape[1] == 2 and len(pairs) >= 1
    assert np.all(pairs[:, 0] < pairs[:, 1])
    assert not _as_set(pairs) & _closed_by_paths(must, cannot, len(y))


@pytest.mark.parametrize("seed", range(6))
def test_select_pairs_two_clusters_exact_against_enumeration(seed):
    # with two clusters the links' consequences are a 2-colouring: every
    # entailed pair, found by enumerating all labellings, is left out
    X, y, model = _tiny(9, 2, seed)
    rng = np.random.RandomState(seed)
    must, cannot = _random_links(y, 6, rng)
    pairs = select_pairs(model, X, 20, must_link=must, cannot_link=cannot,
                         random_state=seed)
    entailed = _entailed(must, cannot, len(y), 2)
    assert not _as_set(pairs) & entailed
    askable = {(i, j) for i in range(9) for j in range(i + 1, 9)} - entailed
    assert (len(pairs) > 0) == bool(askable)


@pytest.mark.parametrize("seed", range(4))
def test_select_pairs_loop_links_exact_against_enumeration(seed):
    # links gathered by the selection itself, 3 clusters: never an entailed
    # pair (n_clusters rule included), and pairs are proposed while any pair
    # is undecided
    X, y, model = _tiny(8, 3, seed)
    must, cannot = np.empty((0, 2), int), np.empty((0, 2), int)
    while True:
        pairs = select_pairs(model, X, 1, must_link=must, cannot_link=cannot,
                             random_state=seed)
        entailed = _entailed(must, cannot, len(y), 3)
        undecided = {(i, j) for i in range(8) for j in range(i + 1, 8)} - entailed
        assert not _as_set(pairs) & entailed
        if not len(pairs):
            assert not undecided
            break
        i, j = pairs[0]
        if y[i] == y[j]:
            must = np.vstack([must, pairs])
        else:
            cannot = np.vstack([cannot, pairs])
    assert len(must) + len(cannot) < 8 * 7 // 2


def test_link_closure_n_clusters_rule():
    # 0, 1, 2 pairwise different; 3 differs from 0 and 1, so it is with 2
    closure = link_closure(
        np.empty((0, 2), int), np.array([[0, 1], [0, 2], [1, 2], [0, 3], [1, 3]]),
        5, 3,
    )
    assert closure.group[3] == closure.group[2]
    assert closure.inferred_must.tolist() == [[2, 3]]
    assert closure.known(0, 3) and closure.known(2, 3) and not closure.known(3, 4)
    # with four clusters nothing more is implied
    closure = link_closure(
        np.empty((0, 2), int), np.array([[0, 1], [0, 2], [1, 2], [0, 3], [1, 3]]),
        5, 4,
    )
    assert closure.group[3] != closure.group[2] and not closure.known(2, 3)


def _n_clusters_rule_fixpoint(must, cannot, n, c):
    """Pairs decided by the rule as documented, applied with every set of
    ``c`` pairwise different groups (all ``c``-subsets of the groups tried)
    until nothing changes, on a union-find over the samples."""
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for i, j in must:
        parent[find(i)] = find(j)
    while True:
        groups = sorted({find(i) for i in range(n)})
        differ = {frozenset((find(i), find(j))) for i, j in cannot}
        merged = False
        for clique in itertools.combinations(groups, c):
            pairs = itertools.combinations(clique, 2)
            if not all(frozenset(p) in differ for p in pairs):
                continue
            for g in groups:
                open_ = [h for h in clique if frozenset((g, h)) not in differ]
                if g not in clique and len(open_) == 1:
                    parent[g] = open_[0]
                    merged = True
                    break
            if merged:
                break
        if not merged:
            break
    differ = {frozenset((find(i), find(j))) for i, j in cannot}
    return {(i, j) for i in range(n) for j in range(i + 1, n)
            if find(i) == find(j) or frozenset((find(i), find(j))) in differ}


def test_link_closure_applies_the_rule_with_every_clique():
    # A = {0, 1, 2} differs from B = {3, 4}; 5, 6, 7 pairwise differ; A and 8
    # each differ from 5 and 6. The greedy neighbourhoods {A, B} are fewer
    # than c = 3; the triangle {5, 6, 7} puts A and 8 with 7.
    must = np.array([[0, 1], [1, 2], [3, 4]])
    cannot = np.array([[0, 3], [5, 6], [5, 7], [6, 7], [0, 5], [0, 6], [8, 5], [8, 6]])
    closure = link_closure(must, cannot, 12, 3)
    assert closure.group[0] == closure.group[7] == closure.group[8]
    assert closure.known(3, 7) and not closure.known(3, 9)
    assert len(closure.hoods) == 3
    assert _as_set(closure.inferred_must) == {(0, 7), (0, 8)}
    rng = np.random.RandomState(0)
    n_differ = 0
    for c in (3, 4):
        for trial in range(60):
            y = rng.randint(c, size=10)
            must, cannot = _random_links(y, rng.randint(4, 20), rng)
            closure = link_closure(must, cannot, 10, c)
            decided = {(i, j) for i, j in itertools.combinations(range(10), 2)
                       if closure.known(i, j)}
            expected = _n_clusters_rule_fixpoint(must, cannot, 10, c)
            assert decided == expected, (c, must.tolist(), cannot.tolist())
            # sound: every decided pair is entailed by the links
            n_differ += decided != _closed_by_paths(must, cannot, 10)
            assert all((y[i] == y[j]) == (closure.group[i] == closure.group[j])
                       for i, j in decided)
    assert n_differ >= 5  # the rule decided more than the closure in some draws


def test_link_closure_bounded_clique_search_stays_sound(monkeypatch):
    # with the search cut short the rule decides less, never something wrong
    from smiclust import active

    must = np.array([[0, 1], [1, 2], [3, 4]])
    cannot = np.array([[0, 3], [5, 6], [5, 7], [6, 7], [0, 5], [0, 6], [8, 5], [8, 6]])
    monkeypatch.setattr(active, "CLIQUE_SEARCH_STEPS", 3)
    closure = link_closure(must, cannot, 12, 3)
    decided = {(i, j) for i, j in itertools.combinations(range(12), 2)
               if closure.known(i, j)}
    assert _closed_by_paths(must, cannot, 12) <= decided
    assert decided <= _n_clusters_rule_fixpoint(must, cannot, 12, 3)


def test_select_pairs_batch_has_no_near_duplicates():
    X, y, model = _tiny(30, 3, 1)
    must = np.array([[0, 1], [1, 2]])
    cannot = np.array([[0, 3], [3, 4]])
    pairs = select_pairs(model, X, 12, must_link=must, cannot_link=cannot,
                         random_state=0)
    assert len(pairs) == 12
    assert len(_as_set(pairs)) == len(pairs)
    # one question per pair of groups (the closure puts 0, 1, 2 together)
    closure = link_closure(must, cannot, 30, 3)
    group = closure.group
    group_pairs = {frozenset((group[i], group[j])) for i, j in pairs}
    assert len(group_pairs) == len(pairs)
    # each sample outside the neighbourhoods asked about once; a neighbourhood
    # spreads its questions over its members (3 members here: 0, 1, 2)
    values, counts = np.unique(pairs, return_counts=True)
    in_hood = np.isin(group[values], closure.hoods)
    assert np.all(counts[~in_hood] == 1)
    assert set(closure.hoods) == {group[0], group[3]}
    big = np.isin(values, [0, 1, 2])
    assert counts[big].max() - counts[big].min() <= 1


def test_select_pairs_caps_the_density_of_near_duplicates():
    # two blobs, and six near-copies of a sample next to a linked sample:
    # their local scale is ~1e-4, thousands of times below the median, but
    # they count as at most 10 times denser, so samples far from every link
    # come first
    rng = np.random.RandomState(0)
    y = np.repeat([0, 1], 40)
    X = np.where(y[:, None] == 0, 0.0, 20.0) + 2.0 * rng.normal(size=(80, 2))
    near = np.argsort(np.linalg.norm(X[:40], axis=1))[:2]
    clump = X[near[0]] + [0.1, 0.0] + 1e-4 * rng.normal(size=(6, 2))
    X = np.vstack([X, clump])
    must = np.array([near])
    cannot = np.array([[near[0], 40]])
    model = SMIClustering(2, n_neighbors=3, gamma=0.0, random_state=0).fit(
        X, must_link=must, cannot_link=cannot
    )
    ratio = np.median(model.local_scales_) / model.local_scales_[80:]
    assert ratio.min() > 100
    pairs = select_pairs(model, X, 4, must_link=must, cannot_link=cannot,
                         random_state=0)
    assert len(pairs) == 4
    assert not np.isin(pairs, np.arange(80, 86)).any()


def test_select_pairs_deterministic_and_inputs_unchanged():
    X, y, model = _tiny(30, 3, 2)
    must = np.array([[0, 1]])
    cannot = np.array([[0, 2]])
    X0, must0, cannot0 = X.copy(), must.copy(), cannot.copy()
    proba0 = model.proba_.copy()
    a = select_pairs(model, X, 5, must_link=must, cannot_link=cannot,
                     random_state=3)
    b = select_pairs(model, X, 5, must_link=must, cannot_link=cannot,
                     random_state=np.random.RandomState(3))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(must, must0)
    np.testing.assert_array_equal(cannot, cannot0)
    np.testing.assert_array_equal(model.proba_, proba0)


def test_select_pairs_fewer_rows_when_little_is_left():
    X, y, model = _tiny(6, 2, 0)
    # everything decided: 0..2 one group, 3..5 the other
    must = np.array([[0, 1], [1, 2], [3, 4], [4, 5]])
    cannot = np.array([[0, 3]])
    pairs = select_pairs(model, X, 4, must_link=must, cannot_link=cannot)
    assert pairs.shape == (0, 2)


def test_select_pairs_validation():
    X, y, model = _tiny(10, 2, 0)
    cases = [
        (dict(estimator=object()), TypeError, "'estimator' parameter of "
         "select_pairs must be a fitted SMIClustering; got object"),
        (dict(X=X[:5]), ValueError, "'X' parameter of select_pairs must hold "
         "the 10 training samples .* got 5 samples"),
        (dict(X=X[:, 0]), ValueError, "select_pairs expects 'X' of shape "
         r"\(n_samples, n_features\); got shape \(10,\)"),
        (dict(n_pairs=0), ValueError, "'n_pairs' parameter of select_pairs must "
         "be an int in the range"),
        (dict(n_pairs=1.5), TypeError, "'n_pairs' parameter of select_pairs"),
        (dict(must_link=[[0, 10]]), ValueError, "'must_link' parameter of "
         "select_pairs"),
        (dict(cannot_link=[[0, 0]]), ValueError, "'cannot_link' parameter of "
         "select_pairs must link two different samples"),
        (dict(random_state="a"), TypeError, "'random_state' parameter of "
         "select_pairs"),
        # other data than the estimator's: the coverage distances would be
        # taken in another space
        (dict(X=np.c_[X, X]), ValueError, "'X' parameter of select_pairs must "
         "hold the estimator's 2 training features; got 4 features"),
        (dict(X=np.where(np.arange(10)[:, None] == 3, np.nan, X)), ValueError,
         "Input X contains NaN.\nselect_pairs does not accept"),
        # the same shape, other samples or another order
        (dict(X=X[::-1]), ValueError, "'X' parameter of select_pairs must hold "
         "the training samples of the estimator, in the order it was fitted on; "
         r"got other values in 10 of its 10 rows \(the first: row 0\)"),
        (dict(X=np.where(np.arange(10)[:, None] == 7, X + 1e-9, X)), ValueError,
         r"got other values in 1 of its 10 rows \(the first: row 7\)"),
    ]
    for change, error, match in cases:
        kwargs = dict(estimator=model, X=X, n_pairs=2)
        kwargs.update(change)
        est, X_, n = kwargs.pop("estimator"), kwargs.pop("X"), kwargs.pop("n_pairs")
        with pytest.raises(error, match=match):
            select_pairs(est, X_, n, **kwargs)
    with pytest.raises(NotFittedError):
        select_pairs(SMIClustering(2), X, 2)
    # the training samples in the other format (sparse) are the same samples
    assert_array_equal(select_pairs(model, sp.csr_matrix(X), 2, random_state=0),
                       select_pairs(model, X, 2, random_state=0))


@pytest.fixture
def four_blobs():
    rng = np.random.RandomState(0)
    centers = 6.0 * np.array([[0, 0], [1, 0], [0, 1], [1, 1]])
    y = np.repeat(np.arange(4), 25)
    X = centers[y] + rng.normal(scale=1.2, size=(100, 2))
    return X, y


def test_active_loop_reaches_the_labels(four_blobs):
    X, y = four_blobs
    X0 = X.copy()
    asked = []

    def oracle(i, j):
        asked.append((i, j))
        return y[i] == y[j]  # np.bool_ is accepted

    model = ActiveSMIClustering(4, budget=30, batch_size=10, random_state=0)
    model.fit(X, oracle)
    np.testing.assert_array_equal(X, X0)
    assert model.n_queries_ == len(asked) <= 30
    assert adjusted_rand_score(y, model.labels_) >= 0.95
    assert len(set(asked)) == len(asked)
    # the links are the answers, and the model respects them
    assert np.all(y[model.must_link_[:, 0]] == y[model.must_link_[:, 1]])
    assert np.all(y[model.cannot_link_[:, 0]] != y[model.cannot_link_[:, 1]])
    assert len(model.must_link_) + len(model.cannot_link_) == model.n_queries_
    assert [h["n_queries"] for h in model.history_][-1] == model.n_queries_
    np.testing.assert_array_equal(model.labels_, model.estimator_.labels_)
    np.testing.assert_array_equal(model.predict(X[:7]),
                                  model.estimator_.predict(X[:7]))
    np.testing.assert_allclose(model.predict_proba(X[:7]),
                               model.estimator_.predict_proba(X[:7]))
    # labels as the oracle: the same run
    again = ActiveSMIClustering(4, budget=30, batch_size=10, random_state=0)
    np.testing.assert_array_equal(again.fit(X, y).labels_, model.labels_)


def test_active_dont_know_is_never_asked_again(four_blobs):
    X, y = four_blobs
    asked = []

    def oracle(i, j):
        asked.append((i, j))
        return None if (i + j) % 3 == 0 else bool(y[i] == y[j])

    model = ActiveSMIClustering(4, budget=40, batch_size=8, random_state=1)
    model.fit(X, oracle=oracle)
    unknown = _as_set(model.unknown_pairs_)
    assert unknown and len(asked) == len(set(asked)) == model.n_queries_ <= 40
    assert not unknown & (_as_set(model.must_link_) | _as_set(model.cannot_link_))
    assert model.n_queries_ == len(unknown) + len(model.must_link_) + len(
        model.cannot_link_
    )


def test_active_stops_when_nothing_is_left():
    X, y, _ = _tiny(8, 2, 0)
    model = ActiveSMIClustering(2, budget=100, batch_size=5, n_neighbors=3,
                                random_state=0).fit(X, y)
    assert model.n_queries_ < 100
    assert adjusted_rand_score(y, model.labels_) == 1


def test_active_no_oracle_is_the_plain_fit(four_blobs):
    X, y = four_blobs
    model = ActiveSMIClustering(4, random_state=0).fit(X)
    assert model.n_queries_ == 0 and model.must_link_.shape == (0, 2)


def test_active_link_test_off_by_default_and_passed_on(four_blobs):
    X, y = four_blobs
    oracle = lambda i, j: bool(y[i] == y[j])  # noqa: E731
    model = ActiveSMIClustering(4, budget=20, random_state=0).fit(X, oracle)
    assert model.estimator_.link_test_level == 0.0
    assert np.isnan(model.estimator_.link_test_pvalue_)
    tested = ActiveSMIClustering(4, budget=20, link_test_level=0.05,
                                 random_state=0).fit(X, oracle)
    assert tested.estimator_.link_test_level == 0.05
    # a truthful oracle's answers contradict nothing: not tested
    assert np.isnan(tested.estimator_.link_test_pvalue_)
    # answers given first that contradict themselves (0-1-2 joined, 0-2
    # apart) are tested at the level passed on
    tested = ActiveSMIClustering(4, budget=20, link_test_level=0.05,
                                 random_state=0).fit(
        X, oracle, must_link=[[0, 1], [1, 2]], cannot_link=[[0, 2]]
    )
    assert 0 <= tested.estimator_.link_test_pvalue_ <= 1


def test_a_batch_larger_than_the_budget_asks_the_budget_in_one_batch(four_blobs):
    # ActiveSMIClustering(4, budget=5) with the default batch_size=10
    X, y = four_blobs
    oracle = lambda i, j: bool(y[i] == y[j])  # noqa: E731
    large = ActiveSMIClustering(4, budget=5, random_state=0).fit(X, oracle)
    exact = ActiveSMIClustering(4, budget=5, batch_size=5, random_state=0).fit(
        X, oracle)
    assert large.n_queries_ == exact.n_queries_ == 5
    assert_array_equal(large.labels_, exact.labels_)
    assert_array_equal(large.must_link_, exact.must_link_)


def test_warnings_of_the_searchs_trial_fits_do_not_reach_the_user(four_blobs,
                                                                   monkeypatch):
    # the trials that choose n_neighbors on two thirds of the answers are
    # not the model returned: their warnings are not the user's
    from smiclust import SMIClustering

    X, y = four_blobs
    in_trials, fits = [False], {"trial": 0, "main": 0}
    real_fit, real_choose = SMIClustering.fit, ActiveSMIClustering._choose_parameters

    def fit(self, *args, **kwargs):
        kind = "trial" if in_trials[0] else "main"
        fits[kind] += 1
        warnings.warn(f"a {kind} fit", UserWarning)
        return real_fit(self, *args, **kwargs)

    def choose(self, *args, **kwargs):
        in_trials[0] = True
        try:
            return real_choose(self, *args, **kwargs)
        finally:
            in_trials[0] = False

    monkeypatch.setattr(SMIClustering, "fit", fit)
    monkeypatch.setattr(ActiveSMIClustering, "_choose_parameters", choose)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ActiveSMIClustering(4, budget=60, batch_size=10, search_every=2,
                            random_state=0).fit(X, lambda i, j: bool(y[i] == y[j]))
    messages = [str(w.message) for w in caught]
    assert fits["trial"] > 0 and fits["main"] > 1
    assert messages.count("a main fit") == fits["main"]
    assert "a trial fit" not in messages


def test_active_names_itself_for_an_n_neighbors_grid_too_large():
    X = np.random.RandomState(0).normal(size=(60, 2))
    asked = []

    def oracle(i, j):
        asked.append((i, j))
        return True

    with pytest.raises(ValueError, match=r"'n_neighbors' parameter of "
                       r"ActiveSMIClustering must be ints, each in the range "
                       r"\[1, n_samples - 1\] = \[1, 59\].*Got \[3, 100\]"):
        ActiveSMIClustering(3, n_neighbors=[3, 100], budget=5,
                            random_state=0).fit(X, oracle)
    assert not asked  # refused before any question


@pytest.mark.parametrize(
    "params, oracle, error, match",
    [
        (dict(budget=0), None, ValueError, "'budget' parameter of "
         "ActiveSMIClustering must be an int in the range"),
        (dict(batch_size=1.0), None, TypeError, "'batch_size' parameter of "
         "ActiveSMIClustering"),
        (dict(links="x"), None, ValueError, "'links' parameter of "
         "ActiveSMIClustering"),
        (dict(link_test_level=1.5), None, ValueError, "'link_test_level' "
         "parameter of ActiveSMIClustering"),
        (dict(keep_cannot_links="yes"), None, TypeError, "'keep_cannot_links' "
         "parameter of ActiveSMIClustering must be an instance of 'bool'"),
        ({}, 3, TypeError, "'oracle' parameter of ActiveSMIClustering.fit must "
         "be a callable"),
        ({}, np.zeros(3), ValueError, "given as labels, must have shape "
         r"\(100,\) .* got shape \(3,\)"),
        ({}, lambda i, j: 1, TypeError, r"oracle of ActiveSMIClustering.fit must "
         r"return True, False or None; oracle\(\d+, \d+\) returned 1 of type int"),
        ({}, lambda i, j: "yes", TypeError, "returned 'yes' of type str"),
    ],
)
def test_active_validation(four_blobs, params, oracle, error, match):
    X, y = four_blobs
    with pytest.raises(error, match=match):
        ActiveSMIClustering(4, **params).fit(X, oracle)


def test_select_pairs_refuses_other_feature_names():
    pd = pytest.importorskip("pandas")
    X, _, _ = _tiny(10, 2, 0)
    model = SMIClustering(2, n_neighbors=3, gamma=0.0, random_state=0).fit(
        pd.DataFrame(X, columns=["a", "b"])
    )
    assert select_pairs(model, pd.DataFrame(X, columns=["a", "b"]), 2,
                        random_state=0).shape == (2, 2)
    with pytest.raises(ValueError, match="feature names should match"):
        select_pairs(model, pd.DataFrame(X, columns=["b", "a"]), 2)


@pytest.mark.parametrize(
    "params, error, match",
    [
        # the model's parameters are validated as ActiveSMIClustering's
        (dict(n_jobs=0), ValueError, "'n_jobs' parameter of ActiveSMIClustering "
         r"must be None or an int in the range \(-inf, -1\] or an int in the "
         r"range \[1, inf\). Got 0"),
        (dict(gamma=-1.0), ValueError, "'gamma' parameter of ActiveSMIClustering"),
        (dict(n_clusters=101), ValueError, "'n_clusters' parameter of "
         r"ActiveSMIClustering must be an int in the range \[1, n_samples\] = "
         r"\[1, 100\]. Got 101"),
    ],
)
def test_active_errors_name_the_active_estimator(four_blobs, params, error, match):
    X, y = four_blobs
    with pytest.raises(error, match=match):
        ActiveSMIClustering(**{"n_clusters": 4, **params}).fit(X, y)


@pytest.mark.parametrize(
    "missing", [np.nan, None, "pd.NA"], ids=["nan", "none", "pd.NA"]
)
def test_active_label_oracle_refuses_missing_labels(four_blobs, missing):
    # "unknown" would otherwise be a class of its own (or, NaN being unequal
    # to itself, one class per sample): links made up between such samples
    X, y = four_blobs
    if missing == "pd.NA":
        pd = pytest.importorskip("pandas")
        missing = pd.NA
    labels = y.astype(object)
    labels[[5, 7]] = missing
    with pytest.raises(ValueError, match="'oracle' parameter of "
                       "ActiveSMIClustering.fit must hold a label for every "
                       r"sample .*got 2 missing .*first at index 5"):
        ActiveSMIClustering(4, budget=10).fit(X, labels)


def test_active_fit_predict_passes_the_oracle_on(four_blobs):
    # ClusterMixin.fit_predict drops y: the loop would ask nothing
    X, y = four_blobs
    params = dict(budget=10, batch_size=5, n_neighbors=5, random_state=0)
    fitted = ActiveSMIClustering(4, **params).fit(X, y)
    model = ActiveSMIClustering(4, **params)
    labels = model.fit_predict(X, y)
    assert model.n_queries_ == fitted.n_queries_ == 10
    assert_array_equal(labels, fitted.labels_)
    assert_array_equal(
        ActiveSMIClustering(4, **params).fit_predict(X, oracle=y), labels
    )


def test_active_feature_names_and_new_samples_are_checked(four_blobs):
    pd = pytest.importorskip("pandas")
    X, y = four_blobs
    frame = pd.DataFrame(X, columns=["a", "b"])
    model = ActiveSMIClustering(4, budget=5, batch_size=5, n_neighbors=5,
                                random_state=0).fit(frame, y)
    assert list(model.feature_names_in_) == ["a", "b"]
    assert model.n_features_in_ == 2
    assert_array_equal(model.predict(frame), model.estimator_.predict(frame))
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(pd.DataFrame(np.c_[X, X[:, :1]], columns=["a", "b", "c"]))
    with pytest.raises(ValueError, match="Input X contains NaN.\nActiveSMIClustering"):
        model.predict_proba(pd.DataFrame(np.full((2, 2), np.nan), columns=["a", "b"]))
    model.fit(X, y)  # refitted on an array: the old names go
    assert not hasattr(model, "feature_names_in_")
    with pytest.raises(ValueError, match="X has 3 features, but "
                       "ActiveSMIClustering is expecting 2"):
        model.predict(np.c_[X, X[:, :1]])


def test_active_oracle_given_twice(four_blobs):
    X, y = four_blobs
    with pytest.raises(TypeError, match="takes the oracle once"):
        ActiveSMIClustering(4).fit(X, y, oracle=lambda i, j: True)


def test_active_three_clusters_uses_implied_links():
    # tiny problem, budget to spare: every pair ends decided, the implied
    # must-links are true, and no question was spent on them
    X, y, _ = _tiny(12, 3, 4)
    model = ActiveSMIClustering(3, budget=60, batch_size=4, n_neighbors=3,
                                random_state=0).fit(X, y)
    must, cannot = model.must_link_, model.cannot_link_
    inferred = model.inferred_must_link_
    assert np.all(y[inferred[:, 0]] == y[inferred[:, 1]])
    assert not _as_set(inferred) & (_as_set(must) | _as_set(cannot))
    closure = link_closure(must, cannot, 12, 3)
    assert all(closure.known(i, j) for i, j in itertools.combinations(range(12), 2))
    assert adjusted_rand_score(y, model.labels_) == 1
    assert model.n_queries_ < 12 * 11 // 2


def test_active_parameters_chosen_by_held_out_answers(four_blobs):
    X, y = four_blobs
    model = ActiveSMIClustering(4, budget=40, batch_size=10, search_every=2,
                                random_state=0).fit(X, y)
    searched = [h for h in model.history_ if h["searched"]]
    assert len(searched) >= 3
    # after enough answers the held-out search runs on its own grid
    assert {h["n_neighbors"] for h in model.history_[3:]} <= {3, 5, 8, 12}
    assert model.estimator_.gamma_ == 1.0
    # a fixed n_neighbors is kept
    fixed = ActiveSMIClustering(4, budget=20, n_neighbors=6, random_state=0)
    assert {h["n_neighbors"] for h in fixed.fit(X, y).history_} == {6}


def _recording(y, asked, stop_at=None, error=StopAsking):
    """The oracle of labels ``y`` that appends each question to ``asked`` and
    raises ``error`` at question ``stop_at`` (1-based)."""

    def oracle(i, j):
        asked.append((i, j))
        if len(asked) == stop_at:
            raise error
        return None if (i * j) % 11 == 5 else bool(y[i] == y[j])

    return oracle


def test_active_resumed_fit_never_reasks_and_keeps_the_budget(four_blobs):
    X, y = four_blobs
    first = []
    full = ActiveSMIClustering(4, budget=30, batch_size=6, random_state=0)
    full.fit(X, _recording(y, first))
    assert full.n_queries_ == len(first) == 30
    # the first half of the answers given, the rest from the oracle
    given = first[:15]
    must = [p for p in given if p in _as_set(full.must_link_)]
    cannot = [p for p in given if p in _as_set(full.cannot_link_)]
    unknown = [p for p in given if p in _as_set(full.unknown_pairs_)]
    assert unknown and len(must) + len(cannot) + len(unknown) == 15
    asked = []
    model = ActiveSMIClustering(4, budget=30, batch_size=6, random_state=0)
    model.fit(X, oracle=_recording(y, asked), must_link=must,
              cannot_link=[(j, i) for i, j in cannot], unknown_pairs=unknown)
    assert len(asked) == 15 and model.n_queries_ == 30
    assert not set(asked) & set(given) and len(set(asked)) == 15
    # never a pair the given answers decide
    closure = link_closure(np.array(must), np.array(cannot), len(X), 4)
    assert not [p for p in asked if closure.known(*p)]
    # the given answers come first and enter the first fit
    assert _as_set(model.must_link_[: len(must)]) == set(must)
    assert _as_set(model.cannot_link_[: len(cannot)]) == set(cannot)
    assert _as_set(model.unknown_pairs_[: len(unknown)]) == set(unknown)
    start = model.history_[0]
    assert (start["n_queries"], start["n_must"], start["n_cannot"],
            start["n_unknown"]) == (15, len(must), len(cannot), len(unknown))
    # every fit is timed, the first too (it was recorded as 0.0 s)
    assert all(entry["fit_seconds"] > 0 for entry in model.history_)
    assert start["select_seconds"] == 0.0
    assert adjusted_rand_score(y, model.labels_) >= 0.9
    # as many answers as the budget: nothing asked, the fit uses them
    spent = ActiveSMIClustering(4, budget=10, random_state=0)
    spent.fit(X, oracle=_recording(y, asked), must_link=must, cannot_link=cannot,
              unknown_pairs=unknown)
    assert len(asked) == 15 and spent.n_queries_ == 15
    assert len(spent.history_) == 1 and spent.estimator_.n_violations_ == 0
    # no oracle: the plain fit with the answers given
    plain = ActiveSMIClustering(4, random_state=0).fit(X, must_link=must)
    assert plain.n_queries_ == len(must) and len(plain.history_) == 1


def test_active_stop_asking_fits_on_the_answers_so_far(four_blobs):
    X, y = four_blobs
    asked = []
    model = ActiveSMIClustering(4, budget=30, batch_size=5, random_state=0)
    assert model.fit(X, _recording(y, asked, stop_at=13)) is model
    assert len(asked) == 13 and model.n_queries_ == 12
    answered = _as_set(model.must_link_) | _as_set(model.cannot_link_) | _as_set(
        model.unknown_pairs_)
    assert answered == set(asked[:12])
    # the last fit has every answer: two batches of 5, then 2 more
    last = model.history_[-1]
    assert len(model.history_) == 4 and last["n_queries"] == 12
    assert last["n_must"] + last["n_cannot"] + last["n_unknown"] == 12
    np.testing.assert_array_equal(model.labels_, model.estimator_.labels_)
    # stopped at the first question of a batch: no refit for nothing
    asked = []
    model = ActiveSMIClustering(4, budget=30, batch_size=5, random_state=0)
    model.fit(X, _recording(y, asked, stop_at=11))
    assert model.n_queries_ == 10 and len(model.history_) == 3
    # at the very first question: the fit without links
    model = ActiveSMIClustering(4, budget=30, random_state=0)
    model.fit(X, _recording(y, [], stop_at=1))
    assert model.n_queries_ == 0 and len(model.history_) == 1


@pytest.mark.parametrize("error", [KeyboardInterrupt(), RuntimeError("oracle down")],
                         ids=["KeyboardInterrupt", "RuntimeError"])
def test_active_other_oracle_errors_propagate(four_blobs, error):
    X, y = four_blobs
    asked = []
    model = ActiveSMIClustering(4, budget=30, batch_size=5, random_state=0)
    with pytest.raises(type(error)) as caught:
        model.fit(X, _recording(y, asked, stop_at=7, error=error))
    assert caught.value is error
    assert len(asked) == 7
    assert not hasattr(model, "labels_") and not hasattr(model, "estimator_")
    with pytest.raises(NotFittedError):
        model.predict(X)


@pytest.mark.parametrize(
    "given, error, match",
    [
        (dict(must_link=[(0, 100)]), ValueError,
         r"'must_link' parameter of ActiveSMIClustering.fit must hold indices in "
         r"\[0, 99\]"),
        (dict(cannot_link=[(0, 1, 2)]), ValueError,
         "'cannot_link' parameter of ActiveSMIClustering.fit"),
        (dict(unknown_pairs=[(3, 3)]), ValueError,
         "'unknown_pairs' parameter of ActiveSMIClustering.fit"),
        (dict(unknown_pairs=[(0.0, 1.0)]), TypeError,
         "'unknown_pairs' parameter of ActiveSMIClustering.fit"),
        (dict(must_link=[(0, 1)], cannot_link=[(1, 0)]), ValueError,
         "both a must-link and a cannot-link in ActiveSMIClustering.fit"),
        (dict(cannot_link=[(2, 5)], unknown_pairs=[(5, 2)]), ValueError,
         r"'unknown_pairs' parameter of ActiveSMIClustering.fit must hold pairs "
         r"not answered otherwise; 1 pair\(s\) are also in cannot_link, the first "
         r"is \(2, 5\)"),
    ],
)
def test_active_given_answers_validation(four_blobs, given, error, match):
    X, y = four_blobs
    asked = []
    with pytest.raises(error, match=match):
        ActiveSMIClustering(4, budget=10).fit(X, _recording(y, asked), **given)
    assert not asked


def test_active_verbose_reports_each_fit(four_blobs, capsys):
    X, y = four_blobs
    ActiveSMIClustering(4, budget=20, batch_size=10, verbose=1,
                        random_state=0).fit(X, y)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3 and all(s.startswith("[smiclust] active:") for s in lines)
    assert "n_queries=20" in lines[-1]


def test_the_loop_keeps_the_paper_s_kernel_unless_asked():
    """ActiveSMIClustering refits with kernel="local-scaling" by default (each
    refit would fit a second kernel with "auto"); kernel= reaches the model."""
    from smiclust import ActiveSMIClustering

    rng = np.random.RandomState(0)
    y = np.repeat([0, 1], 30)
    X = np.array([[0.0, 0.0], [5.0, 0.0]])[y] + rng.normal(size=(60, 2))

    def oracle(i, j):
        return bool(y[i] == y[j])

    default = ActiveSMIClustering(2, budget=10, batch_size=5, random_state=0)
    default.fit(X, oracle)
    assert default.estimator_.kernel == "local-scaling"
    assert default.estimator_.kernel_ == "local-scaling"
    normalized = ActiveSMIClustering(2, budget=10, batch_size=5,
                                     kernel="normalized", random_state=0)
    normalized.fit(X, oracle)
    assert normalized.estimator_.kernel_ == "normalized"
    with pytest.raises(ValueError, match="'kernel' parameter of ActiveSMIClustering"):
        ActiveSMIClustering(2, kernel="rbf").fit(X, oracle)


def test_active_keep_cannot_links_passed_on():
    # three blobs, a quarter of whose samples belong to another class: the
    # features see the links (the default does not keep every cannot-link
    # by itself) but are sure and wrong about those samples. 150 correct
    # answers given before and 10 asked: with keep_cannot_links the final
    # fit keeps every cannot-link, as SMIClustering's option does; the
    # default lets confident scores break some
    from smiclust import sample_links
    from smiclust.constraints import count_violations

    X, y = blobs_with_strays(seed=0)
    must, cannot = sample_links(y, 150, random_state=0)
    oracle = lambda i, j: bool(y[i] == y[j])  # noqa: E731
    fits = {
        keep: ActiveSMIClustering(3, budget=160, keep_cannot_links=keep,
                                  random_state=0).fit(
            X, oracle, must_link=must, cannot_link=cannot)
        for keep in (False, True)
    }
    for keep, model in fits.items():
        assert model.estimator_.keep_cannot_links is keep
    broken = {keep: count_violations(m.labels_, m.must_link_, m.cannot_link_)
              for keep, m in fits.items()}
    assert broken[True] == 0 < broken[False]


def test_active_a_sample_nobody_can_judge_does_not_take_every_question():
    # "don't know" about one sample (s in smiclust ask): it was the seed of
    # the first neighbourhood, and every one of the 60 questions paired it
    # with another sample (ARI 0.87 -> 0.73); now it counts as asked
    from sklearn.datasets import make_blobs

    X, y = make_blobs(n_samples=90, centers=3, random_state=0)
    asked = []

    def oracle(i, j):
        asked.append((i, j))
        return bool(y[i] == y[j])

    ActiveSMIClustering(3, budget=10, random_state=0).fit(X, oracle)
    for unsure in (asked[0][0], asked[0][1]):
        seen = []

        def unsure_oracle(i, j, unsure=unsure, seen=seen):
            seen.append((i, j))
            return None if unsure in (i, j) else bool(y[i] == y[j])

        model = ActiveSMIClustering(3, budget=60, random_state=0).fit(
            X, unsure_oracle)
        assert sum(unsure in pair for pair in seen) <= 2
        assert model.n_queries_ == 60 and len(set(seen)) == 60
        assert adjusted_rand_score(y, model.labels_) > 0.85


def test_every_answer_dont_know_asks_each_sample_once_then_stops():
    # before: one sample, the top explorer of its model cluster, was in 26
    # of the 50 questions (against a new neighbourhood seed each time), and
    # once every sample had a "don't know" every question was about it
    from collections import Counter

    from sklearn.datasets import make_blobs

    X, _ = make_blobs(n_samples=60, centers=3, random_state=0)
    model = ActiveSMIClustering(3, budget=50, random_state=0).fit(
        X, lambda i, j: None)
    counts = Counter(model.unknown_pairs_.ravel().tolist())
    assert model.n_queries_ == 30 and len(model.unknown_pairs_) == 30
    assert set(counts) == set(range(60)) and max(counts.values()) == 1
    assert len(model.must_link_) == len(model.cannot_link_) == 0


@pytest.mark.parametrize("seed", range(6))
def test_a_batch_spreads_its_questions_over_the_members_of_a_neighbourhood(seed):
    # A4: a 3-member neighbourhood asked 20 questions in one batch: each
    # member is used within one of the others (documented in select_pairs)
    X, y, model = _tiny(40, 3, seed)
    a = np.flatnonzero(y == 0)[:3]
    b = np.flatnonzero(y == 1)[0]
    must = np.array([[a[0], a[1]], [a[1], a[2]]])
    cannot = np.array([[a[0], b]])
    pairs = select_pairs(model, X, 20, must_link=must, cannot_link=cannot,
                         random_state=0)
    uses = [int((pairs == m).sum()) for m in a]
    assert sum(uses) > 0 and max(uses) - min(uses) <= 1, uses


def test_searched_exactly_every_search_every_batches(four_blobs):
    # A7: the first fit, the first batch (nothing fixed yet), then every
    # search_every-th batch
    X, y = four_blobs
    model = ActiveSMIClustering(4, budget=60, batch_size=10, search_every=2,
                                random_state=0).fit(X, y)
    assert [h["searched"] for h in model.history_] == [
        True, True, True, False, True, False, True]


def _spy_trial_fits(monkeypatch):
    calls = []
    real = SMIClustering.fit

    def fit(self, X, y=None, **kw):
        calls.append((self.n_neighbors, len(kw.get("must_link", [])),
                      len(kw.get("cannot_link", []))))
        return real(self, X, y, **kw)

    monkeypatch.setattr(SMIClustering, "fit", fit)
    return calls


def test_held_out_search_holds_out_a_third(four_blobs, monkeypatch):
    # A8: 15 "same" answers: 5 held out, every trial fit trains on 10
    X, y = four_blobs
    must = [(i, j) for i, j in itertools.combinations(np.flatnonzero(y == 0)[:6], 2)]
    assert len(must) == 15
    est = ActiveSMIClustering(4, random_state=0)
    model = SMIClustering(4, n_neighbors=5, random_state=0).fit(X)
    calls = _spy_trial_fits(monkeypatch)
    est._choose_parameters(X, must, [], len(X), model, np.random.RandomState(0))
    assert [c[0] for c in calls] == [3, 5, 8, 12]
    assert {(c[1], c[2]) for c in calls} == {(10, 0)}


def test_held_out_search_breaks_ties_to_the_smaller_n_neighbors(monkeypatch):
    # A9: four far-apart tight blobs: every n_neighbors reproduces every
    # held-out answer, so the smallest (3) is kept
    rng = np.random.RandomState(0)
    y = np.repeat(np.arange(4), 20)
    X = 100.0 * np.eye(4)[y][:, :3] + 0.1 * rng.normal(size=(80, 3))
    pairs = list(itertools.combinations(range(80), 2))
    pick = [pairs[k] for k in rng.choice(len(pairs), 30, replace=False)]
    must = [p for p in pick if y[p[0]] == y[p[1]]]
    cannot = [p for p in pick if y[p[0]] != y[p[1]]]
    est = ActiveSMIClustering(4, random_state=0)
    model = SMIClustering(4, n_neighbors=5, random_state=0).fit(X)
    fixed = est._choose_parameters(X, must, cannot, 80, model,
                                   np.random.RandomState(0))
    assert fixed["n_neighbors"] == 3


def test_a_unit_with_one_open_neighbourhood_is_never_asked(monkeypatch):
    # A1: with the clique search cut to nothing, the closure does not merge
    # 3 into the group of 2, but the three neighbourhoods 0, 1, 2 are known
    # and 3 differs from 0 and 1: (2, 3) is implied and must not be asked
    from smiclust import active

    X, y, model = _tiny(8, 3, 0)
    cannot = np.array([[0, 1], [0, 2], [1, 2], [0, 3], [1, 3]])
    must = np.empty((0, 2), int)
    monkeypatch.setattr(active, "CLIQUE_SEARCH_STEPS", 0)
    closure = active.link_closure(must, cannot, 8, 3)
    assert not closure.known(2, 3) and len(closure.hoods) == 3
    pairs = select_pairs(model, X, 20, must_link=must, cannot_link=cannot,
                         random_state=0)
    assert len(pairs)
    entailed = _entailed(must, cannot, 8, 3)
    assert not {(int(i), int(j)) for i, j in pairs} & entailed


def test_two_colouring_merges_only_bipartite_components():
    # A10: a cannot-link triangle (contradictory with two clusters) plus 3
    # apart from 0: the component is not 2-colourable, nothing is merged
    from smiclust.active import link_closure

    closure = link_closure(np.empty((0, 2), int),
                           np.array([[0, 1], [1, 2], [0, 2], [0, 3]]), 6, 2)
    assert closure.inferred_must.shape == (0, 2)
    assert len(set(closure.group.tolist())) == 6
    # a bipartite component next to it is still merged
    closure = link_closure(np.empty((0, 2), int),
                           np.array([[0, 1], [1, 2], [0, 2], [3, 4], [4, 5]]), 6, 2)
    assert closure.inferred_must.tolist() == [[3, 5]]


def test_history_counts_the_implied_must_links_and_neighbourhoods():
    # A12: the last history entry describes the closure of the final answers
    from smiclust.active import link_closure

    X, y, _ = _tiny(12, 3, 4)
    model = ActiveSMIClustering(3, budget=60, batch_size=4, n_neighbors=3,
                                random_state=0).fit(X, y)
    closure = link_closure(model.must_link_, model.cannot_link_, 12, 3)
    last = model.history_[-1]
    assert last["n_inferred"] == len(model.inferred_must_link_)
    assert last["n_neighbourhoods"] == len(closure.hoods)
    assert (last["n_must"], last["n_cannot"]) == (len(model.must_link_),
                                                  len(model.cannot_link_))


def test_refits_search_each_graph_once_and_label_as_fresh_searches(
        four_blobs, monkeypatch):
    # the refits after each batch reuse the exact neighbour searches of the
    # same X (smiclust.neighbors.reuse_exact_searches): one search per number
    # of neighbours, and every question, fit and label as with a new search
    # in every fit
    import contextlib

    from test_neighbors import _count_calls

    from smiclust import active

    X, y = four_blobs
    searched = _count_calls(monkeypatch, "_exact_neighbors")
    fits = _spy_trial_fits(monkeypatch)
    params = dict(budget=30, batch_size=10, search_every=2, random_state=0)
    kept = ActiveSMIClustering(4, **params).fit(X, y)
    n_kept = len(searched)
    assert sorted(searched) == sorted(set(searched))
    monkeypatch.setattr(active, "reuse_exact_searches", contextlib.nullcontext)
    fits.clear()
    fresh = ActiveSMIClustering(4, **params).fit(X, y)
    assert len(searched) - n_kept == len(fits) > n_kept
    assert_array_equal(kept.labels_, fresh.labels_)
    assert_array_equal(kept.must_link_, fresh.must_link_)
    assert_array_equal(kept.cannot_link_, fresh.cannot_link_)
    np.testing.assert_allclose(kept.estimator_.proba_, fresh.estimator_.proba_,
                               rtol=0, atol=0)
    assert ([{k: v for k, v in h.items() if not k.endswith("_seconds")}
             for h in kept.history_]
            == [{k: v for k, v in h.items() if not k.endswith("_seconds")}
                for h in fresh.history_])


def test_select_pairs_never_proposes_a_pair_answered_dont_know():
    from sklearn.datasets import make_blobs

    X, _ = make_blobs(60, centers=3, random_state=0)
    model = SMIClustering(3, n_neighbors=5, random_state=0).fit(X)
    (first,) = select_pairs(model, X, 1, random_state=0)
    (second,) = select_pairs(model, X, 1, unknown_pairs=[first], random_state=0)
    assert tuple(second) != tuple(first)
    # in a batch too, given in either order
    batch = select_pairs(model, X, 20, unknown_pairs=[first[::-1]], random_state=0)
    assert tuple(first) not in {tuple(p) for p in batch}
    with pytest.raises(ValueError, match="'unknown_pairs' parameter of select_pairs"):
        select_pairs(model, X, 1, must_link=[first], unknown_pairs=[first])
