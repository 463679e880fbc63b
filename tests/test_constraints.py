import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from smiclust.constraints import (
    ConstraintConflictWarning,
    _decode_pairs,
    check_constraints,
    check_links,
    count_violations,
    link_matrix,
    pairs_from_labels,
    sample_links,
)


def test_check_links_canonical_and_copy():
    links = np.array([[3, 1], [0, 2]])
    out = check_links(links, 4)
    assert_array_equal(out, [[1, 3], [0, 2]])
    assert_array_equal(links, [[3, 1], [0, 2]])  # input untouched
    assert check_links(None, 4).shape == (0, 2)
    assert check_links([], 4).shape == (0, 2)


@pytest.mark.parametrize(
    "links, error, match",
    [
        ([[0, 5]], ValueError, r"indices in \[0, 4\].*\(0, 5\)"),
        ([[-1, 2]], ValueError, r"indices in \[0, 4\]"),
        ([[1, 1]], ValueError, "two different samples.*\\(1, 1\\)"),
        ([[0, 1], [1, 0]], ValueError, "must not repeat a pair.*\\(0, 1\\)"),
        ([[0.0, 1.0]], TypeError, "integer sample indices.*float64"),
        ([[True, False]], TypeError, "integer sample indices.*bool"),
        ([0, 1, 2], ValueError, r"shape \(n_pairs, 2\).*\(3,\)"),
        ([[0, 1, 2]], ValueError, r"shape \(n_pairs, 2\).*\(1, 3\)"),
        ([["a", "b"]], TypeError, "integer sample indices"),
    ],
)
def test_check_links_errors(links, error, match):
    with pytest.raises(error, match=match):
        check_links(links, 5, name="must_link")


def test_pair_both_must_and_cannot_is_an_error():
    with pytest.raises(ValueError, match="both a must-link and a cannot-link"):
        check_constraints([[0, 1]], [[1, 0]], 3)


def test_transitive_conflict_warns():
    with pytest.warns(ConstraintConflictWarning, match=r"\(0, 2\)"):
        must, cannot = check_constraints([[0, 1], [1, 2]], [[0, 2]], 4)
    assert len(must) == 2 and len(cannot) == 1


def test_link_matrix_symmetric_zero_diagonal():
    L = link_matrix(np.array([[0, 1], [1, 3]]), 4).toarray()
    assert_array_equal(L, L.T)
    assert_array_equal(np.diag(L), 0)
    assert L.sum() == 4


def test_pairs_from_labels_all_pairs():
    y = np.array([0, -1, 0, 1, 1, -1])
    must, cannot = pairs_from_labels(y)
    labelled = [0, 2, 3, 4]
    expected_must = {
        (a, b) for a in labelled for b in labelled if a < b and y[a] == y[b]
    }
    expected_cannot = {
        (a, b) for a in labelled for b in labelled if a < b and y[a] != y[b]
    }
    assert set(map(tuple, must.tolist())) == expected_must
    assert set(map(tuple, cannot.tolist())) == expected_cannot
    with pytest.raises(ValueError, match="expected 5, got 6"):
        pairs_from_labels(y, n_samples=5)


def test_decode_pairs_bijective():
    n = 57
    codes = np.arange(n * (n - 1) // 2)
    i, j = _decode_pairs(codes, n)
    assert np.all(i < j) and np.all(j < n)
    ii, jj = np.triu_indices(n, k=1)
    assert_array_equal(i, ii)
    assert_array_equal(j, jj)


@pytest.mark.parametrize("n_links", [0, 10, 300, 1000, 1225])
def test_sample_links_distinct_typed_and_deterministic(n_links):
    y = np.repeat([0, 1, 2, 3, 4], 10)
    must, cannot = sample_links(y, n_links, random_state=0)
    pairs = np.vstack([must, cannot])
    assert len(pairs) == n_links
    assert len({tuple(p) for p in pairs.tolist()}) == n_links
    assert np.all(pairs[:, 0] < pairs[:, 1])
    assert np.all(y[must[:, 0]] == y[must[:, 1]])
    assert np.all(y[cannot[:, 0]] != y[cannot[:, 1]])
    must2, cannot2 = sample_links(y, n_links, random_state=0)
    assert_array_equal(must, must2)
    assert_array_equal(cannot, cannot2)
    assert count_violations(y, must, cannot) == 0


def test_sample_links_too_many():
    with pytest.raises(ValueError, match=r"\[0, 6\]. Got 7"):
        sample_links([0, 1, 0, 1], 7)


def test_count_violations_brute_force():
    rng = np.random.RandomState(0)
    labels = rng.randint(0, 3, size=30)
    must, cannot = sample_links(rng.randint(0, 3, size=30), 100, random_state=1)
    expected = sum(labels[i] != labels[j] for i, j in must) + sum(
        labels[i] == labels[j] for i, j in cannot
    )
    assert count_violations(labels, must, cannot) == expected


@pytest.mark.parametrize("seed", range(5))
def test_pairs_in_both_matches_brute_force(seed):
    from smiclust.constraints import pairs_in_both

    rng = np.random.RandomState(seed)
    a = np.unique(np.sort(rng.randint(0, 30, size=(60, 2)), axis=1), axis=0)
    b = np.unique(np.sort(rng.randint(0, 40, size=(80, 2)), axis=1), axis=0)
    expected = [p for p in b.tolist() if any(p == q for q in a.tolist())]
    got = pairs_in_both(a, b)
    assert got.shape == (len(expected), 2)
    assert got.tolist() == expected


@pytest.mark.parametrize("seed", range(5))
def test_conflicting_cannot_links_matches_a_brute_force_closure(seed):
    from smiclust.constraints import conflicting_cannot_links

    rng = np.random.RandomState(seed)
    n = 25
    must = np.unique(np.sort(rng.randint(0, n, size=(15, 2)), axis=1), axis=0)
    must = must[must[:, 0] != must[:, 1]]
    cannot = np.unique(np.sort(rng.randint(0, n, size=(20, 2)), axis=1), axis=0)
    cannot = cannot[cannot[:, 0] != cannot[:, 1]]
    together = np.eye(n, dtype=bool)  # transitive closure, by repeated squaring
    together[must[:, 0], must[:, 1]] = together[must[:, 1], must[:, 0]] = True
    for _ in range(n):
        together = (together.astype(int) @ together.astype(int)) > 0
    expected = [p for p in cannot.tolist() if together[p[0], p[1]]]
    assert conflicting_cannot_links(must, cannot, n).tolist() == expected


@pytest.mark.parametrize(
    "labels",
    [
        ["cat", "", "cat", "dog", "?"],
        np.array(["cat", None, "cat", "dog", None], dtype=object),
        [2.5, np.nan, 2.5, 7.0, np.nan],
        [3, -1, 3, 9, -1],
    ],
)
def test_pairs_from_labels_accepts_any_label_kind(labels):
    unlabeled = "" if isinstance(labels[1], str) else -1
    if isinstance(labels, list) and labels[-1] == "?":
        labels = labels[:-1] + [""]
    must, cannot = pairs_from_labels(labels, unlabeled=unlabeled)
    assert must.tolist() == [[0, 2]]
    assert cannot.tolist() == [[0, 3], [2, 3]]


@pytest.mark.parametrize(
    "labels, match",
    [
        ([[0, 1], [1, 0]], r"'labels' parameter of count_violations must be "
         r"1-d; got an array of shape \(2, 2\)"),
        (None, r"must be 1-d; got an array of shape \(\)"),
        (3, r"must be 1-d; got an array of shape \(\)"),
        ([0.0, np.nan], "must hold a label for every sample .*got 1 missing"),
    ],
)
def test_count_violations_refuses_labels_that_are_no_labelling(labels, match):
    # 2-d labels were compared row-wise: two violations for one link
    with pytest.raises(ValueError, match=match):
        count_violations(labels, must_link=[[0, 1]])


@pytest.mark.parametrize("missing", [np.nan, None, "pd.NA"])
def test_sample_links_refuses_missing_labels(missing):
    # NaN != NaN made every pair of unknown samples a cannot-link
    if missing == "pd.NA":
        missing = pytest.importorskip("pandas").NA
    labels = np.array([missing, missing, 0, 0], dtype=object)
    with pytest.raises(ValueError, match="'labels' parameter of sample_links "
                       r"must hold a label for every sample \(the true classes\); "
                       "got 2 missing .*first at index 0"):
        sample_links(labels, 3, random_state=0)


def test_sample_links_minus_one_is_a_class():
    # {-1, 1} labels are common: -1 is no "unknown" for true labels
    must, cannot = sample_links([-1, -1, 1, 1], 6, random_state=0)
    assert sorted(map(tuple, must.tolist())) == [(0, 1), (2, 3)]
    assert len(cannot) == 4


def test_sample_links_random_state_is_checked_by_name():
    with pytest.raises(TypeError, match="'random_state' parameter of sample_links"):
        sample_links([0, 1, 0], 1, random_state="x")


def test_links_against_labels_matches_a_loop():
    from smiclust.constraints import links_against_labels

    rng = np.random.RandomState(0)
    codes = rng.randint(-1, 3, size=30)
    links = np.array([(i, j) for i in range(30) for j in range(i + 1, 30)])
    for same in (True, False):
        labelled, contradicted = links_against_labels(codes, links, same)
        for k, (i, j) in enumerate(links):
            known = codes[i] >= 0 and codes[j] >= 0
            assert labelled[k] == known
            assert contradicted[k] == (known and (codes[i] == codes[j]) != same)
    empty = np.empty((0, 2), dtype=np.intp)
    assert [m.shape for m in links_against_labels(codes, empty, True)] == [(0,), (0,)]


def test_suspect_links_ties_keep_must_links_then_the_given_order():
    # K1: equal scores everywhere (uniform proba): must-links first, each
    # kind in its given order
    from smiclust.constraints import rank_suspect_links

    proba = np.full((6, 2), 0.5)
    must, cannot = np.array([[0, 1], [2, 3]]), np.array([[0, 5], [1, 4], [3, 5]])
    ranked = rank_suspect_links(proba, must, cannot)
    assert ranked["kind"].tolist() == ["must"] * 2 + ["cannot"] * 3
    assert ranked["index"].tolist() == [0, 1, 0, 1, 2]
    assert ranked["i"].tolist() == [0, 2, 0, 1, 3]


# ---------------------------------------------------------------------------
# cluster_classes: the class each cluster stands for
# ---------------------------------------------------------------------------


def _majority_reference(labels, partial, n_clusters, unknown):
    """Brute force: per cluster, count each known label of its samples; the
    most frequent wins, ties to the smallest label; ``unknown`` if none."""
    out = []
    for k in range(n_clusters):
        counts = {}
        for cluster, label in zip(labels, partial):
            is_unknown = label is None or (isinstance(label, float) and label != label)
            if cluster == k and not is_unknown and not (
                    isinstance(label, (int, float)) and label == -1):
                counts[label] = counts.get(label, 0) + 1
        if not counts:
            out.append(unknown)
        else:
            best = max(counts.values())
            out.append(min(name for name, n in counts.items() if n == best))
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["int", "str", "float"])
def test_cluster_classes_match_a_brute_force_majority(seed, kind):
    from smiclust.constraints import cluster_classes

    rng = np.random.default_rng(seed)
    n, c = 60, int(rng.integers(2, 7))
    labels = rng.integers(0, c, n)
    codes = rng.integers(-1, 4, n)  # -1: unknown, often enough for ties
    codes[rng.random(n) < 0.5] = -1
    if kind == "int":
        partial, unknown = np.where(codes >= 0, codes * 10 + 3, -1), -1
    elif kind == "float":
        partial, unknown = np.where(codes >= 0, codes / 4, np.nan), np.nan
    else:
        names = np.array(["ant", "bee", "cat", "dog"], dtype=object)
        partial = np.where(codes >= 0, names[np.maximum(codes, 0)], None)
        unknown = None
    before = partial.copy()
    got = cluster_classes(labels, partial, c)
    expected = _majority_reference(labels.tolist(), partial.tolist(), c, unknown)
    assert got.shape == (c,)
    assert got.dtype == (object if kind == "str" else partial.dtype)
    if kind == "float":
        assert_array_equal(got, np.array(expected, dtype=float))  # NaN == NaN here
    else:
        assert got.tolist() == expected
    assert_array_equal(partial, before)


def test_cluster_classes_of_labels_with_no_marker_of_their_own():
    from smiclust.constraints import cluster_classes

    # strings and unsigned integers cannot hold the unknown marker: None
    got = cluster_classes([0, 0, 2], np.array(["x", "y", "y"]), 4)
    assert got.dtype == object and got.tolist() == ["x", None, "y", None]
    got = cluster_classes([1, 0], np.array([7, 9], dtype=np.uint8), 3)
    assert got.tolist() == [9, 7, None]
    # a pandas missing value marks unknown, as fit reads it
    pd = pytest.importorskip("pandas")
    got = cluster_classes([0, 1, 1], pd.array([3, pd.NA, 4], dtype="Int64"), 2)
    assert got.tolist() == [3, 4]


@pytest.mark.parametrize(
    "labels, partial, n_clusters, error, match",
    [
        ([0, 1], [0, 1], 0, ValueError, "'n_clusters' parameter of cluster_classes "
         "must be a positive int; got 0"),
        ([0, 1], [0, 1], 2.0, TypeError, "must be a positive int; got 2.0"),
        ([0.0, 1.0], [0, 1], 2, ValueError, "'labels' parameter of cluster_classes "
         "must be a 1-d array of integer clusters; got an array of shape \\(2,\\) "
         "and dtype float64"),
        ([0, 2], [0, 1], 2, ValueError, r"clusters in \[0, 1\] \(n_clusters=2\); "
         r"got values in \[0, 2\]"),
        ([0, 1], [0, 1, 1], 2, ValueError, "'partial_labels' parameter of "
         "cluster_classes must have one entry per sample: expected 2, got 3"),
        ([0, 1], [True, False], 2, TypeError, "hold class labels; got booleans"),
    ],
)
def test_cluster_classes_refuses_bad_input(labels, partial, n_clusters, error, match):
    from smiclust.constraints import cluster_classes

    with pytest.raises(error, match=match):
        cluster_classes(labels, partial, n_clusters)


def test_cluster_classes_refuses_sparse_clusters():
    from smiclust.constraints import cluster_classes

    with pytest.raises(TypeError, match="'labels' parameter of cluster_classes "
                       "must be a 1-d array of integer clusters; got a sparse"):
        cluster_classes(sp.csr_matrix(np.array([[0, 1]])), [0, 1], 2)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16])
def test_cluster_classes_of_small_integer_clusters(dtype):
    from smiclust.constraints import cluster_classes

    # 20 clusters of 20 classes: the count index n_classes * cluster + class
    # passes 127 and 255, past what the clusters' own type holds
    y = np.arange(20).repeat(2)
    clusters = np.arange(20, dtype=dtype).repeat(2)
    assert_array_equal(cluster_classes(clusters, y, 20), np.arange(20))
    assert_array_equal(cluster_classes(clusters[::-1], y, 20), np.arange(20)[::-1])


def test_count_violations_of_a_pair_given_as_both_kinds_of_link():
    # fit refuses such a pair; counting accepts it, and one of its two links
    # is violated whatever the labels
    assert count_violations([0, 0], [[0, 1]], [[0, 1]]) == 1
    assert count_violations([0, 1], [[0, 1]], [[1, 0]]) == 1
