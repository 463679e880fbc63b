"""Partial labels as a first-class input of SMIClustering, and the two ways
of using links (closed, the default, and the paper's)."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from smiclust import SMIClustering, pairs_from_labels, sample_links
from smiclust.link_groups import closed_links, groups_from_labels, link_groups
from smiclust.n_clusters import choose_n_clusters


def _partial(seed, n=90, c=3, n_labelled=12):
    X, y = make_blobs(n_samples=n, centers=c, cluster_std=2.5, random_state=seed)
    rng = np.random.RandomState(seed)
    y_partial = np.full(n, -1)
    known = rng.choice(n, size=n_labelled, replace=False)
    y_partial[known] = y[known]
    return X, y, y_partial


@pytest.mark.parametrize("seed", range(3))
def test_paper_partial_labels_equal_their_pairs(seed):
    X, _, y_partial = _partial(seed)
    must, cannot = pairs_from_labels(y_partial)
    kw = dict(n_neighbors=[3, 6], gamma=[0.0, 1.0], links="paper", random_state=0)
    a = SMIClustering(3, **kw).fit(X, partial_labels=y_partial)
    b = SMIClustering(3, **kw).fit(X, must_link=must, cannot_link=cannot)
    assert_array_equal(a.labels_, b.labels_)
    assert_array_equal(a.tuning_results_["criterion"], b.tuning_results_["criterion"])


@pytest.mark.parametrize("seed", range(3))
def test_closed_partial_labels_equal_the_closure_of_their_pairs(seed):
    X, y, y_partial = _partial(seed)
    must, cannot = pairs_from_labels(y_partial)
    # links given as pairs are tested against the data alone, partial labels
    # are not (link_test_level): with the test off the two are the same fit
    kw = dict(n_neighbors=[3, 6], gamma=[0.0, 1.0], random_state=0)
    a = SMIClustering(3, **kw).fit(X, partial_labels=y_partial)
    b = SMIClustering(3, **kw, link_test_level=0).fit(
        X, must_link=must, cannot_link=cannot
    )
    assert a.links_ == b.links_ == "closure"
    assert np.isnan(a.link_test_pvalue_) and np.isnan(b.link_test_pvalue_)
    assert_array_equal(a.labels_, b.labels_)
    # the labelled samples keep their classes apart and together
    known = y_partial >= 0
    assert adjusted_rand_score(y_partial[known], a.labels_[known]) == 1.0
    # few links for the fit: the chain and class-pair links, not m^2 pairs
    m = known.sum()
    assert len(a.suspect_links_["i"]) < m * (m - 1) // 2


def test_string_labels_and_none():
    X, y, y_partial = _partial(1)
    names = np.array(["a", "b", "c"], dtype=object)
    labels = np.where(y_partial >= 0, names[np.maximum(y_partial, 0)], None)
    a = SMIClustering(3, n_neighbors=5, random_state=0).fit(X, partial_labels=labels)
    b = SMIClustering(3, n_neighbors=5, random_state=0).fit(X, partial_labels=y_partial)
    assert_array_equal(a.labels_, b.labels_)


def test_cluster_classes_name_each_cluster_by_its_labelled_samples():
    X, y, y_partial = _partial(2)
    names = np.array(["ant", "bee", "cat"], dtype=object)
    labels = np.where(y_partial >= 0, names[np.maximum(y_partial, 0)], None)
    given = labels.copy()
    model = SMIClustering(4, n_neighbors=5, random_state=0)
    model.fit(X, partial_labels=labels)
    assert_array_equal(labels, given)
    classes = model.cluster_classes_
    assert classes.shape == (4,) and classes.dtype == object
    # every labelled sample is named by its own class (the labels hold), and
    # the class of a cluster is that of its labelled samples
    known = y_partial >= 0
    assert_array_equal(classes[model.labels_][known], labels[known])
    # one class per cluster, and a cluster no labelled sample is in names none
    occupied = np.unique(model.labels_[known])
    assert sorted(classes[occupied]) == ["ant", "bee", "cat"]
    assert all(classes[k] is None for k in set(range(4)) - set(occupied))
    # integer labels: the same clusters, named by the integers, -1 for none
    by_code = SMIClustering(4, n_neighbors=5, random_state=0).fit(
        X, partial_labels=y_partial)
    assert_array_equal(by_code.labels_, model.labels_)
    code_of = {"ant": 0, "bee": 1, "cat": 2, None: -1}
    assert by_code.cluster_classes_.tolist() == [code_of[v] for v in classes]
    assert by_code.cluster_classes_.dtype == y_partial.dtype
    # without partial labels there is nothing to name the clusters by
    alone = SMIClustering(3, n_neighbors=5, random_state=0).fit(X)
    assert alone.cluster_classes_ is None


def test_labels_and_links_together_and_their_contradictions():
    X, y, y_partial = _partial(2)
    known = np.flatnonzero(y_partial >= 0)
    same = [(i, j) for i in known for j in known if i < j and y[i] == y[j]]
    model = SMIClustering(3, n_neighbors=5, random_state=0)
    model.fit(X, must_link=[[0, 1]], partial_labels=y_partial)  # both: fine
    with pytest.raises(ValueError, match="both a must-link and a cannot-link"):
        model.fit(X, cannot_link=[same[0]], partial_labels=y_partial)


@pytest.mark.parametrize(
    "labels, error, match",
    [
        (np.zeros(5), ValueError, "'partial_labels' parameter of SMIClustering must "
         "have one entry per sample: expected 90, got 5"),
        (np.ones((90, 2)), ValueError, "'partial_labels'.*1-d"),
        (np.array([True] * 90), TypeError, "'partial_labels'.*booleans"),
        # "-1" among strings is a class name to numpy: refused, not guessed
        (np.array(["a", "b", "-1"] * 30), ValueError,
         "'partial_labels'.*mark unknown labels with -1.*the string '-1'"),
        (np.repeat(np.arange(-1, 5), 15), ValueError,
         "partial_labels in SMIClustering name 5 classes, more than n_clusters=3"),
    ],
)
def test_bad_partial_labels(labels, error, match):
    X, _, _ = _partial(0)
    with pytest.raises(error, match=match):
        SMIClustering(3, n_neighbors=5).fit(X, partial_labels=labels)


def test_partial_labels_with_link_weights_is_refused():
    X, _, y_partial = _partial(0)
    with pytest.raises(ValueError, match="partial_labels cannot be combined"):
        SMIClustering(3, n_neighbors=5).fit(
            X, must_link=[[0, 1]], must_link_weight=[0.5], partial_labels=y_partial
        )


def test_without_links_both_ways_are_smic():
    # without links and without the vote over n_neighbors, the closure
    # default is SMIC too
    X, _, _ = _partial(3)
    a = SMIClustering(3, n_neighbors=[3, 6], consensus=False, random_state=0).fit(X)
    b = SMIClustering(3, n_neighbors=[3, 6], links="paper", random_state=0).fit(X)
    assert_array_equal(a.labels_, b.labels_)
    assert a.links_ == b.links_ == "paper"


def test_closed_labels_satisfy_consistent_links():
    X, y = make_blobs(n_samples=120, centers=2, cluster_std=4.0, random_state=4)
    must, cannot = sample_links(y, 40, random_state=4)
    model = SMIClustering(2, random_state=0).fit(X, must_link=must, cannot_link=cannot)
    assert model.links_ == "closure"
    assert model.n_violations_ == 0


def test_groups_from_labels_match_link_groups_of_the_spanning_links():
    X, y, y_partial = _partial(5)
    from smiclust._estimator import _spanning_label_links
    from smiclust.constraints import encode_partial_labels

    codes = encode_partial_labels(y_partial)
    must, cannot = _spanning_label_links(codes)
    a = closed_links(link_groups(must, cannot, codes.size))
    b = closed_links(groups_from_labels(codes))
    assert_array_equal(a[0], b[0])
    assert_array_equal(a[1], b[1])


def test_n_clusters_auto_finds_separated_blobs():
    X, y = make_blobs(n_samples=160, centers=4, cluster_std=0.6, random_state=0)
    model = SMIClustering("auto", n_neighbors=5, random_state=0).fit(X)
    assert model.n_clusters_ == 4
    assert adjusted_rand_score(y, model.labels_) > 0.9
    assert model.n_clusters_scores_["n_clusters"].tolist() == list(range(2, 21))
    fixed = SMIClustering(4, n_neighbors=5, random_state=0).fit(X)
    assert fixed.n_clusters_ == 4 and fixed.n_clusters_scores_ is None
    assert_array_equal(fixed.labels_, model.labels_)


def test_n_clusters_auto_follows_the_links():
    X, y = make_blobs(n_samples=200, centers=3, cluster_std=0.8, random_state=1)
    must, cannot = sample_links(y, 200, random_state=1)
    model = SMIClustering("auto", random_state=0).fit(
        X, must_link=must, cannot_link=cannot
    )
    assert model.n_clusters_ == 3
    assert model.eigenvectors_.shape == (200, 3)
    with pytest.raises(ValueError, match="needs more than 7 samples"):
        SMIClustering("auto", n_neighbors=2).fit(X[:6])


@pytest.mark.parametrize("links", ["closure", "paper"])
def test_n_clusters_auto_reads_links_as_the_fit_does(monkeypatch, links):
    # the default's closed links are what the held-out links are predicted
    # by (where the paper's labelling predicts them no better than chance)
    import smiclust._estimator as estimator

    seen = []

    def spy(*args, **kwargs):
        seen.append(kwargs["links"])
        return choose_n_clusters(*args, **kwargs)

    monkeypatch.setattr(estimator, "choose_n_clusters", spy)
    X = np.random.RandomState(0).normal(size=(150, 5))
    y = np.repeat(np.arange(3), 50)
    must, cannot = sample_links(y, 560, random_state=0)
    model = SMIClustering("auto", links=links, random_state=0).fit(
        X, must_link=must, cannot_link=cannot)
    assert seen == [links]
    if links == "closure":
        # features blind to the classes: the closed links say three
        assert model.n_clusters_ == 3
        assert adjusted_rand_score(y, model.labels_) > 0.95


def test_contradictory_links_are_used_as_given():
    """A cannot-link inside a must-link group means some links are wrong:
    closing them would chain classes together, so the fit uses them as the
    paper does, each with weight 0.3 (same result as links='paper' with
    those weights)."""
    X, y = make_blobs(n_samples=120, centers=2, cluster_std=1.0, random_state=6)
    must, cannot = sample_links(y, 80, random_state=6)
    a_, b_ = cannot[0]
    m = next(i for i in range(120) if y[i] == y[a_] and i not in (a_, b_))
    wrong = np.array([[min(m, b_), max(m, b_)]])  # joins a_ and b_ through m
    known = np.vstack([must, [[min(a_, m), max(a_, m)]]])
    flipped_must = np.unique(np.vstack([known, wrong]), axis=0)
    kw = dict(n_neighbors=[3, 6], gamma=[0.0, 1.0], eta=[0.0, 1.0], random_state=0)
    with pytest.warns(UserWarning, match="no labelling can satisfy every link"):
        a = SMIClustering(2, **kw).fit(X, must_link=flipped_must, cannot_link=cannot)
    b = SMIClustering(2, links="paper", **kw).fit(
        X, must_link=flipped_must, cannot_link=cannot,
        must_link_weight=np.full(len(flipped_must), 0.3),
        cannot_link_weight=np.full(len(cannot), 0.3))
    assert a.links_ == "paper"
    assert_array_equal(a.labels_, b.labels_)
    assert adjusted_rand_score(y, a.labels_) > 0.9


def test_string_labels_with_minus_one_in_an_object_array():
    X, _, y_partial = _partial(5)
    names = np.array(["red", "green", "blue"])
    as_objects = np.where(y_partial >= 0, names[y_partial].astype(object), -1)
    ref = SMIClustering(3, n_neighbors=5, random_state=0).fit(
        X, partial_labels=y_partial)
    model = SMIClustering(3, n_neighbors=5, random_state=0).fit(
        X, partial_labels=as_objects)
    assert_array_equal(model.labels_, ref.labels_)
    # a string marker that is not -1 is a class name: every sample is known,
    # four classes for three clusters
    as_strings = np.where(y_partial >= 0, names[y_partial], "?")
    with pytest.raises(ValueError, match="name 4 classes, more than n_clusters=3"):
        SMIClustering(3, n_neighbors=5).fit(X, partial_labels=as_strings)


def test_auto_n_clusters_is_at_least_the_number_of_labelled_classes():
    # four blobs in two tight pairs: with the labels but no lower bound the
    # eigengap chose two clusters, merging labelled classes
    centers = [[0, 0], [0, 1.2], [9, 9], [9, 10.2]]
    X, y = make_blobs(n_samples=240, centers=centers, cluster_std=0.4,
                      random_state=0)
    y_partial = np.full(len(y), -1)
    for k in range(4):
        known = np.flatnonzero(y == k)[:3]
        y_partial[known] = k
    model = SMIClustering("auto", random_state=0).fit(X, partial_labels=y_partial)
    assert model.n_clusters_ >= 4
    known = y_partial >= 0
    assert adjusted_rand_score(y[known], model.labels_[known]) == 1.0


def test_more_pairwise_cannot_linked_samples_than_clusters_warns():
    from smiclust.constraints import ConstraintConflictWarning

    X, _, _ = _partial(0)
    triangle = [[0, 1], [1, 2], [0, 2]]
    with pytest.warns(ConstraintConflictWarning, match="3 samples.*pairwise "
                      "cannot-linked.*more than n_clusters=2"):
        SMIClustering(2, n_neighbors=5).fit(X, cannot_link=triangle)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConstraintConflictWarning)
        SMIClustering(3, n_neighbors=5).fit(X, cannot_link=triangle)


def test_auto_n_clusters_with_every_sample_cannot_linked_warns_not_fails():
    import itertools

    from smiclust.constraints import ConstraintConflictWarning

    X = np.random.RandomState(0).normal(size=(10, 2))
    every_pair = np.array(list(itertools.combinations(range(10), 2)))
    with pytest.warns(ConstraintConflictWarning, match="10 samples .* more "
                      "than n_clusters=9"):
        model = SMIClustering("auto", random_state=0).fit(X, cannot_link=every_pair)
    assert model.n_clusters_ == 9


@pytest.mark.parametrize("links", ["closure", "paper"])
@pytest.mark.parametrize("kind", ["must_link", "cannot_link"])
def test_a_link_the_labels_contradict_is_refused_in_both_modes(links, kind):
    # the default used to soften every link when a given must-link joined two
    # classes (or a cannot-link two members of one class off the labels' chain)
    X, y, y_partial = _partial(2)
    known = np.flatnonzero(y_partial >= 0)
    if kind == "must_link":
        pair = next((i, j) for i in known for j in known if y[i] != y[j])
    else:  # the first and last of 3+ members: no link of the labels' chain
        members = known[y[known] == y[known[0]]]
        assert members.size >= 3
        pair = (members[0], members[-1])
    with pytest.raises(ValueError, match="both a must-link and a cannot-link .*"
                       f"1 given {kind.replace('_', '-')}.* the first is "
                       rf"\({pair[0]}, {pair[1]}\)"):
        SMIClustering(3, n_neighbors=5, links=links, random_state=0).fit(
            X, partial_labels=y_partial, **{kind: [pair]}
        )


def test_pd_na_marks_unknown_string_labels():
    pd = pytest.importorskip("pandas")
    X, y, y_partial = _partial(0)
    names = np.array(["a", "b", "c"])
    strings = pd.Series(
        [names[v] if v >= 0 else pd.NA for v in y_partial], dtype="string"
    )
    fitted = SMIClustering(3, n_neighbors=5, random_state=0)
    assert_array_equal(fitted.fit(X, partial_labels=strings).labels_,
                       SMIClustering(3, n_neighbors=5, random_state=0).fit(
                           X, partial_labels=y_partial).labels_)


@pytest.mark.parametrize("links", ["closure", "paper"])
def test_suspect_links_rank_the_given_links_and_violations_count_label_pairs(links):
    # suspect_links_ ranks the links the user gave (index: their rows); the
    # links the labels imply are not ranked. n_violations_ counts the given
    # links and every two labelled samples, each pair once (brute force).
    X, y, y_partial = _partial(1)
    labelled = np.flatnonzero(y_partial >= 0)
    y_partial[labelled[:2]] = (y_partial[labelled[:2]] + 1) % 3  # two wrong labels
    free = np.flatnonzero(y_partial < 0)
    must = np.array([[free[0], free[1]], [labelled[2], free[2]]])
    cannot = np.array([[free[3], free[4]]])
    model = SMIClustering(3, n_neighbors=[4, 8], links=links, random_state=0).fit(
        X, must_link=must, cannot_link=cannot, partial_labels=y_partial)
    suspects = model.suspect_links_
    assert len(suspects["i"]) == 3
    rows = {"must": must, "cannot": cannot}
    for i, j, kind, index in zip(suspects["i"], suspects["j"], suspects["kind"],
                                 suspects["index"]):
        assert (i, j) == tuple(sorted(rows[kind][index]))
    label_must, label_cannot = pairs_from_labels(y_partial)
    pairs = {}
    for kind, part in (("must", must), ("cannot", cannot),
                       ("must", label_must), ("cannot", label_cannot)):
        for i, j in part:
            pairs[(min(i, j), max(i, j))] = kind
    labels = model.labels_
    violated = sum((labels[i] == labels[j]) != (kind == "must")
                   for (i, j), kind in pairs.items())
    assert model.n_violations_ == violated


# belongs to tests/test_partial_labels.py; kills M35 (_estimator.py: a given
# must-link between two labelled samples counted again beside the labels' pairs)
def test_a_given_link_between_labelled_samples_is_one_violation():
    from sklearn.datasets import make_blobs

    from smiclust.constraints import pairs_from_labels

    X, y = make_blobs(n_samples=90, centers=[[0, 0], [10, 0], [0, 10]],
                      cluster_std=0.5, random_state=0)
    partial = np.full(90, -1)
    z, w = np.flatnonzero(y == 0), np.flatnonzero(y == 1)
    partial[z[:3]] = 0
    partial[w[0]] = 0  # a wrong label: w[0] sits in another blob
    partial[z[3:6]] = 1  # a second class inside z's blob
    must = np.array([[z[0], w[0]]])  # links the labels imply too
    cannot = np.array([[z[0], z[3]]])
    # links weighing nothing in the solve: the data decide
    model = SMIClustering(3, n_neighbors=5, gamma=0.0, eta=0.0, spreading=0.0,
                          classifier=None, consensus=False, links="paper",
                          random_state=0).fit(X, must_link=must, cannot_link=cannot,
                                              partial_labels=partial)
    labels = model.labels_
    assert labels[z[0]] != labels[w[0]]  # the given must-link is violated
    assert labels[z[0]] == labels[z[3]]  # and so is the given cannot-link
    label_must, label_cannot = pairs_from_labels(partial)
    brute = (sum(labels[i] != labels[j] for i, j in label_must)
             + sum(labels[i] == labels[j] for i, j in label_cannot))
    assert model.n_violations_ == brute  # each pair once


def test_partial_labels_are_split_with_x_in_cross_validation():
    # the user guide's advice: partial labels (one per sample) reach each
    # fold's fit as that fold's rows; each fold's fit equals a fit on its rows
    from sklearn.model_selection import KFold, cross_validate

    X, y = make_blobs(n_samples=60, centers=3, random_state=0)
    y_partial = np.where(np.arange(60) % 4 == 0, y, -1)
    model = SMIClustering(3, n_neighbors=5, random_state=0)
    folds = KFold(3, shuffle=True, random_state=0)
    result = cross_validate(model, X, y, cv=folds, params={"partial_labels": y_partial},
                            return_estimator=True, scoring="adjusted_rand_score")
    for fitted, (train, _) in zip(result["estimator"], folds.split(X)):
        alone = SMIClustering(3, n_neighbors=5, random_state=0).fit(
            X[train], partial_labels=y_partial[train])
        assert_array_equal(fitted.labels_, alone.labels_)
