"""Catalogue of bad and degenerate inputs: each row is one case of a table below.

The tables mirror docs/bad-inputs.md (input -> outcome -> test). Rejections name
the parameter, the expected and the received value; accepted degenerate inputs
give a finite result, with a warning where the result deserves one.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics import adjusted_rand_score

from smiclust import (
    ConstrainedSpectralClustering,
    SMIClustering,
    SpectralLearning,
    local_scaling_kernel,
    lsmi_score,
    pairs_from_labels,
)
from smiclust.constraints import ConstraintConflictWarning
from smiclust.kernels import nearest_neighbors

# Fixed parameters: a single candidate, so no LSMI search and fast fits.
FIXED = dict(n_neighbors=3, gamma=1.0, eta=1.0, random_state=0)

_RNG = np.random.RandomState(0)
X30 = _RNG.normal(size=(30, 2))
Y30 = np.arange(30) % 2


def _blobs(n_per=20, scale=0.4, seed=0):
    rng = np.random.RandomState(seed)
    centers = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0]])
    y = np.repeat(np.arange(3), n_per)
    return centers[y] + rng.normal(scale=scale, size=(3 * n_per, 2)), y


def _with(value, row=3, col=1):
    X = X30.copy()
    X[row, col] = value
    return X


def _read_only(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


def _assert_finite_model(model, X):
    for name in ("eigenvalues_", "eigenvectors_", "dual_coef_", "local_scales_"):
        assert np.all(np.isfinite(getattr(model, name))), name
    assert np.all(np.isfinite(model.affinity_matrix_.data))
    assert np.all(model.local_scales_ > 0)
    assert model.labels_.shape == (X.shape[0],)
    assert set(np.unique(model.labels_)) <= set(range(model.n_clusters))
    proba = model.predict_proba(X)
    assert np.all(np.isfinite(proba))


# ---------------------------------------------------------------------------
# X given to fit: rejected
# ---------------------------------------------------------------------------

BAD_X = {
    "NaN in X": (_with(np.nan), ValueError, "Input X contains NaN"),
    "inf in X": (_with(np.inf), ValueError, "Input X contains infinity"),
    "-inf in X": (_with(-np.inf), ValueError, "Input X contains infinity"),
    "None in object X": (
        np.array([[1.0, None]] * 30, dtype=object),
        ValueError,
        "Input X contains NaN",
    ),
    "empty X (0, 2)": (
        np.empty((0, 2)),
        ValueError,
        r"0 sample\(s\) \(shape=\(0, 2\)\) while a minimum of 2 is required by "
        "SMIClustering",
    ),
    "X without features (30, 0)": (
        np.empty((30, 0)),
        ValueError,
        r"0 feature\(s\) \(shape=\(30, 0\)\) while a minimum of 1",
    ),
    "empty list": ([], ValueError, r"SMIClustering expects 'X' of shape .*\(0,\)"),
    "one sample": (
        X30[:1],
        ValueError,
        r"1 sample\(s\) \(shape=\(1, 2\)\) while a minimum of 2",
    ),
    "1-d X": (
        X30[:, 0],
        ValueError,
        r"expects 'X' of shape \(n_samples, n_features\); got shape \(30,\)\. "
        "Reshape your data",
    ),
    "3-d X": (X30.reshape(30, 2, 1), ValueError, r"got shape \(30, 2, 1\)"),
    "string X": (
        np.array([["a", "b"]] * 30),
        TypeError,
        "SMIClustering expects real numbers in 'X'; got an array of dtype <U1",
    ),
    "object X with text": (
        np.array([[1, "a"]] * 30, dtype=object),
        TypeError,
        "real numbers in 'X'; got an object array holding values that are not numbers",
    ),
    "datetime X": (
        np.array([["2020-01-01"] * 2] * 30, dtype="datetime64[D]"),
        TypeError,
        "dtype datetime64",
    ),
    "complex X": (
        X30 + 1j,
        ValueError,
        "Complex data not supported: SMIClustering expects real numbers in 'X'",
    ),
    # sparse X is accepted (tests/test_sparse_input.py), its values checked
    "sparse CSR X with NaN": (
        sp.csr_matrix(_with(np.nan)),
        ValueError,
        "Input X contains NaN",
    ),
    "sparse COO X with inf": (sp.coo_matrix(_with(np.inf)), ValueError,
                              "Input X contains infinity"),
    "ragged X": (
        [[1.0, 2.0], [3.0]],
        ValueError,
        "expects 'X' to be a 2-d array of numbers; got a ragged",
    ),
}


@pytest.mark.parametrize("name", list(BAD_X))
def test_fit_rejects_bad_X(name):
    X, error, match = BAD_X[name]
    with pytest.raises(error, match=match):
        SMIClustering(2, **FIXED).fit(X)


# ---------------------------------------------------------------------------
# X given to fit: accepted (a defined conversion, the same result)
# ---------------------------------------------------------------------------

ACCEPTED_X = {
    "boolean X (as 0 / 1)": lambda X: X > 0,
    "integer X": lambda X: np.round(3 * X).astype(np.int64),
    "float32 X": lambda X: X.astype(np.float32),
    "object X of numbers": lambda X: X.astype(object),
    "Fortran-ordered X": np.asfortranarray,
    "read-only X": _read_only,
    "list of lists": lambda X: X.tolist(),
}


@pytest.mark.parametrize("name", list(ACCEPTED_X))
def test_fit_accepts_convertible_X(name):
    X, _ = _blobs()
    converted = ACCEPTED_X[name](X)
    reference = np.asarray(converted, dtype=np.float64)
    kw = dict(n_neighbors=6, gamma=0.0, eta=0.0, random_state=0)
    with warnings.catch_warnings():
        # boolean / rounded data has ties and may split the kNN graph
        warnings.filterwarnings("ignore", "The kNN graph", UserWarning)
        model = SMIClustering(3, **kw).fit(converted)
        expected = SMIClustering(3, **kw).fit(reference).labels_
    assert_array_equal(model.labels_, expected)
    _assert_finite_model(model, reference)


# ---------------------------------------------------------------------------
# Degenerate X: finite results, documented rules, warnings where due
# ---------------------------------------------------------------------------


def test_duplicated_rows_zero_scale_is_floored():
    """sigma_i = 0 (t or more exact copies) is raised to the smallest positive
    scale; every kernel value stays finite."""
    base = np.random.RandomState(1).normal(size=(30, 2))
    X = np.vstack([base, base[:5], base[:5], base[:5]])  # 5 rows with 3 copies
    model = SMIClustering(2, n_neighbors=3, gamma=0.0, eta=0.0, random_state=0)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The kNN graph", UserWarning)
        model.fit(X)
    _assert_finite_model(model, X)
    raw = nearest_neighbors(X, 3).distances[:, 2]
    assert np.any(raw == 0)
    assert model.local_scales_.min() == raw[raw > 0].min()


def test_every_row_duplicated_gives_components_warning():
    # the paper's 3SMIC keeps the samples' kNN: each row's copies are its
    # neighbours, the graph falls apart, and the fit says why
    base = np.random.RandomState(2).normal(size=(20, 2))
    X = np.vstack([base, base, base])
    with pytest.warns(
        UserWarning,
        match=r"The kNN graph has 20 connected components.* 20 rows of X are "
        r"repeated, up to 3 times.*n_neighbors of at least 3 joins them",
    ):
        model = SMIClustering(2, n_neighbors=2, gamma=0.0, eta=0.0,
                              links="paper").fit(X)
    _assert_finite_model(model, X)


def test_every_row_duplicated_keeps_the_default_graph_whole():
    # a third of the rows distinct: the default searches neighbours among
    # distinct rows, the graph is one component and copies share a cluster
    base = np.random.RandomState(2).normal(size=(20, 2))
    X = np.vstack([base, base, base])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = SMIClustering(2, n_neighbors=5, gamma=0.0, eta=0.0).fit(X)
    assert model.n_graph_components_ == 1
    assert np.array_equal(model.labels_[:20], model.labels_[20:40])
    assert np.array_equal(model.labels_[:20], model.labels_[40:])
    _assert_finite_model(model, X)


@pytest.mark.parametrize("links", [False, True])
def test_all_identical_rows_warn_and_give_a_result(links):
    X = np.ones((30, 2))
    kw = dict(must_link=[[0, 1]], cannot_link=[[0, 2]]) if links else {}
    with pytest.warns(UserWarning, match="All 30 samples of X are identical"):
        model = SMIClustering(2, n_neighbors=3, random_state=0).fit(X, **kw)
    _assert_finite_model(model, X)


def test_constant_feature_changes_nothing():
    X, y = _blobs()
    kw = dict(n_neighbors=5, gamma=0.0, eta=0.0, random_state=0)
    plain = SMIClustering(3, **kw).fit(X)
    padded = SMIClustering(3, **kw).fit(np.c_[X, np.full(len(X), 7.0)])
    assert_array_equal(padded.labels_, plain.labels_)
    assert adjusted_rand_score(y, padded.labels_) == 1.0


@pytest.mark.parametrize(
    "scale",
    [1e150, 1e-150, 1e300, 1e-300, 2.0**700, "mixed"],
    ids=["1e150", "1e-150", "1e300", "1e-300", "2**700", "mixed"],
)
def test_huge_and_tiny_scales(scale):
    """The kernel is scale-invariant; data beyond 2**+-100 is computed at unit
    scale (an exact power-of-two rescaling), so squared distances never
    overflow or underflow."""
    X, y = _blobs()
    if scale == "mixed":  # one feature huge, one tiny: the tiny one is invisible
        Xs = np.c_[X[:, 0] * 1e150, X[:, 1] * 1e-150]
        expect = None
    else:
        Xs = X * scale
        expect = y
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow, no NaN
        warnings.filterwarnings("ignore", "The kNN graph", UserWarning)
        # two candidates: the LSMI search runs at the extreme scale too
        model = SMIClustering(3, n_neighbors=[4, 6], random_state=0).fit(Xs)
        proba = model.predict_proba(Xs[:5])
    _assert_finite_model(model, Xs)
    assert np.isfinite(model.lsmi_)
    if expect is not None:
        assert adjusted_rand_score(expect, model.labels_) == 1.0
        assert_array_equal(model.predict(Xs), model.labels_)
        assert np.all(proba.max(axis=1) > 0.5)


# ---------------------------------------------------------------------------
# n_clusters, n_neighbors, gamma, eta and friends
# ---------------------------------------------------------------------------

BAD_PARAMS = {
    "n_clusters=-1": ({"n_clusters": -1}, ValueError, r"'n_clusters'.*Got -1"),
    "n_clusters=2.0": ({"n_clusters": 2.0}, TypeError, r"'n_clusters'.*Got 2\.0"),
    "n_clusters='2'": ({"n_clusters": "2"}, ValueError, r"'n_clusters'.*Got '2'"),
    "n_clusters=True": ({"n_clusters": True}, TypeError, r"'n_clusters'.*Got True"),
    "n_clusters=None": ({"n_clusters": None}, TypeError, r"'n_clusters'.*Got None"),
    "n_neighbors=n_samples": (
        {"n_neighbors": 30},
        ValueError,
        r"'n_neighbors' parameter of SMIClustering must be an int in the range "
        r"\[1, n_samples - 1\] = \[1, 29\], i.e. smaller than n_samples=30. Got 30",
    ),
    "n_neighbors grid reaching n_samples": (
        {"n_neighbors": [3, 30]},
        ValueError,
        r"'n_neighbors' parameter of SMIClustering must be ints, each in the "
        r"range \[1, n_samples - 1\].*smaller than n_samples=30. Got \[3, 30\]",
    ),
    "n_neighbors=2.5": ({"n_neighbors": 2.5}, TypeError, r"'n_neighbors'.*Got 2\.5"),
    "n_neighbors=True": ({"n_neighbors": True}, TypeError, "'n_neighbors'.*Got True"),
    "n_neighbors=[]": ({"n_neighbors": []}, ValueError, r"'n_neighbors'.*Got \[\]"),
    "gamma=inf": (
        {"gamma": float("inf")},
        ValueError,
        r"'gamma' parameter of SMIClustering must be .*\[0, 1e\+100\].*Got inf",
    ),
    "gamma='1'": ({"gamma": "1"}, ValueError, r"'gamma'.*among \{'auto'\}.*Got '1'"),
    "gamma=True": ({"gamma": True}, TypeError, "'gamma'.*Got True"),
    "gamma=1j": ({"gamma": 1j}, TypeError, r"'gamma'.*Got 1j"),
    "gamma=[1, nan]": ({"gamma": [1.0, np.nan]}, ValueError, r"'gamma'.*nan\]"),
    "gamma=[]": ({"gamma": []}, ValueError, r"'gamma'.*Got \[\]"),
    "eta=-0.5": ({"eta": -0.5}, ValueError, r"'eta' parameter.*Got -0\.5"),
    "eta=nan": ({"eta": np.nan}, ValueError, "'eta' parameter.*Got nan"),
    "eta=inf": ({"eta": np.inf}, ValueError, "'eta' parameter.*Got inf"),
    "eta='x'": ({"eta": "x"}, ValueError, "'eta'.*Got 'x'"),
    "eta=None": ({"eta": None}, TypeError, "'eta'.*Got None"),
    "eta=[[1.0]]": ({"eta": [[1.0]]}, ValueError, r"'eta'.*1-d list.*\[\[1\.0\]\]"),
    "tol=-1": ({"tol": -1.0}, ValueError, r"'tol'.*\[0, inf\)"),
    "max_iter=0": ({"max_iter": 0}, ValueError, "'max_iter'.*Got 0"),
    "random_state=-1": ({"random_state": -1}, ValueError, "'random_state'.*Got -1"),
    "n_jobs=1.5": ({"n_jobs": 1.5}, TypeError, r"'n_jobs'.*Got 1\.5"),
    "violation_penalty=-1": (
        {"violation_penalty": -1},
        ValueError,
        r"'violation_penalty' parameter of SMIClustering must be a float in the "
        r"range \[0, inf\)\. Got -1",
    ),
    "violation_penalty=nan": (
        {"violation_penalty": np.nan}, ValueError, "'violation_penalty'.*Got nan"),
    "violation_penalty='2'": (
        {"violation_penalty": "2"}, TypeError, "'violation_penalty'.*Got '2'"),
    "violation_penalty=True": (
        {"violation_penalty": True}, TypeError, "'violation_penalty'.*Got True"),
}


@pytest.mark.parametrize("name", list(BAD_PARAMS))
def test_fit_rejects_bad_parameters(name):
    params, error, match = BAD_PARAMS[name]
    params = {"n_clusters": 2, "n_neighbors": 3, **params}
    with pytest.raises(error, match=match):
        SMIClustering(**params).fit(X30)


def test_fewer_samples_than_clusters():
    with pytest.raises(ValueError, match=r"\[1, n_samples\] = \[1, 3\]. Got 5"):
        SMIClustering(5, n_neighbors=1).fit(X30[:3])


def test_n_clusters_equal_to_n_samples_is_allowed():
    model = SMIClustering(5, n_neighbors=2, random_state=0).fit(X30[:5])
    _assert_finite_model(model, X30[:5])


# ---------------------------------------------------------------------------
# Links given to fit
# ---------------------------------------------------------------------------

_ALL_ORDERED = np.array([[i, j] for i in range(30) for j in range(30) if i != j])

BAD_LINKS = {
    "index out of range": (
        {"must_link": [[0, 30]]},
        ValueError,
        r"'must_link' parameter of SMIClustering must hold indices in \[0, 29\] "
        r"\(n_samples=30\); pair 0 is \(0, 30\)",
    ),
    "negative index": (
        {"cannot_link": [[2, 5], [-1, 3]]},
        ValueError,
        r"'cannot_link'.*\[0, 29\].*pair 1 is \(-1, 3\)",
    ),
    "uint64 index beyond int64": (
        {"must_link": np.array([[0, 2**63]], dtype=np.uint64)},
        ValueError,
        r"pair 0 is \(0, 9223372036854775808\)",
    ),
    "Python int index beyond int64": (
        {"cannot_link": np.array([[0, 2**70]], dtype=object)},
        ValueError,
        r"'cannot_link'.*pair 0 is \(0, 1180591620717411303424\)",
    ),
    "float indices": (
        {"must_link": [[0.0, 3.0]]},
        TypeError,
        r"'must_link'.*integer sample indices; got an array of dtype float64, "
        r"e\.g\. the pair \(0\.0, 3\.0\)",
    ),
    "non-integer float index": (
        {"must_link": [[1, 2], [0.5, 3]]},
        TypeError,
        r"dtype float64, e\.g\. the pair \(1\.0, 2\.0\)",
    ),
    "NaN index": ({"cannot_link": [[np.nan, 3]]}, TypeError, r"\(nan, 3\.0\)"),
    "string indices": (
        {"must_link": [["0", "3"]]},
        TypeError,
        r"dtype <U1, e\.g\. the pair \('0', '3'\)",
    ),
    "boolean indices": ({"must_link": [[True, False]]}, TypeError, "dtype bool"),
    "object array with text": (
        {"must_link": np.array([[0, "a"]], dtype=object)},
        TypeError,
        r"dtype object, e\.g\. the pair \(0, 'a'\)",
    ),
    "1-d pair": ({"must_link": [0, 3]}, ValueError, r"\(n_pairs, 2\).*shape \(2,\)"),
    "three columns": (
        {"must_link": [[0, 3, 4]]},
        ValueError,
        r"\(n_pairs, 2\); got an array of shape \(1, 3\)",
    ),
    "3-d array": (
        {"cannot_link": np.zeros((2, 2, 2), dtype=int)},
        ValueError,
        r"'cannot_link'.*shape \(2, 2, 2\)",
    ),
    "scalar": ({"must_link": 3}, ValueError, r"\(n_pairs, 2\); got 3\."),
    "text": ({"must_link": "0,3"}, ValueError, r"\(n_pairs, 2\); got '0,3'"),
    "empty with three columns": (
        {"must_link": np.empty((0, 3), dtype=int)},
        ValueError,
        r"shape \(0, 3\)",
    ),
    "ragged pairs": (
        {"must_link": [[0, 3], [1]]},
        ValueError,
        r"got a ragged sequence \[\[0, 3\], \[1\]\]",
    ),
    "sparse matrix": (
        {"must_link": sp.csr_matrix([[0, 3]])},
        TypeError,
        "got a sparse csr_matrix",
    ),
    "self-link": (
        {"must_link": [[1, 2], [4, 4]]},
        ValueError,
        r"must link two different samples; pair 1 is \(4, 4\)",
    ),
    "duplicated link": (
        {"must_link": [[0, 3], [0, 3]]},
        ValueError,
        r"'must_link'.*must not repeat a pair; \(0, 3\) is given 2 times",
    ),
    "duplicated link, reversed": (
        {"cannot_link": [[0, 3], [3, 0]]},
        ValueError,
        r"'cannot_link'.*\(0, 3\) is given 2 times \(in either order\)",
    ),
    "more links than pairs": (
        {"must_link": _ALL_ORDERED},
        ValueError,
        r"at most n_samples \(n_samples - 1\) / 2 = 435 pairs \(n_samples=30\); "
        "got 870",
    ),
    # numpy reads [True, 3] as [1, 3]: a boolean among integers is refused as
    # booleans alone are
    "boolean among integer indices": (
        {"must_link": [[True, 3]]},
        TypeError,
        "'must_link' parameter of SMIClustering must hold integer sample "
        "indices; got the boolean True among them",
    ),
    "boolean among weights": (
        {"must_link": [[0, 3], [1, 4]], "must_link_weight": [True, 2.0]},
        TypeError,
        "'must_link_weight' parameter of SMIClustering must be a 1-d array of "
        "real numbers; got the boolean True among them",
    ),
    "boolean among partial labels": (
        {"partial_labels": [True, 0] + [-1] * 28},
        TypeError,
        "hold class labels; got the boolean True among them",
    ),
    "pairs of no index": (
        {"must_link": [[], []]},
        ValueError,
        r"shape \(n_pairs, 2\); got an array of shape \(2, 0\)",
    ),
    "pair both must and cannot": (
        {"must_link": [[0, 3]], "cannot_link": [[3, 0]]},
        ValueError,
        r"both a must-link and a cannot-link in SMIClustering; 1 pair\(s\) are, "
        r"the first is \(0, 3\)",
    ),
}


@pytest.mark.parametrize("name", list(BAD_LINKS))
def test_fit_rejects_bad_links(name):
    links, error, match = BAD_LINKS[name]
    with pytest.raises(error, match=match):
        SMIClustering(2, **FIXED).fit(X30, **links)


ACCEPTED_LINKS = {
    "None": None,
    "empty list": [],
    "empty (0, 2) array": np.empty((0, 2), dtype=int),
    "empty float array": np.empty(0),
    "list of tuples": [(0, 3), (5, 4)],
    "reversed pairs": [[3, 0], [5, 4]],
    "uint8 array": np.array([[0, 3], [4, 5]], dtype=np.uint8),
    "object array of ints": np.array([[0, 3], [4, np.int64(5)]], dtype=object),
    "read-only array": _read_only([[0, 3], [4, 5]]),
}


@pytest.mark.parametrize("name", list(ACCEPTED_LINKS))
def test_fit_accepts_link_forms(name):
    links = ACCEPTED_LINKS[name]
    model = SMIClustering(2, **FIXED).fit(X30, must_link=links)
    expected = [[0, 3], [4, 5]] if links is not None and len(links) else None
    reference = SMIClustering(2, **FIXED).fit(X30, must_link=expected)
    assert_array_equal(model.labels_, reference.labels_)


def test_all_pairs_linked_is_allowed():
    """n (n - 1) / 2 distinct must-links: U has rank 1, which is reported."""
    i, j = np.triu_indices(12, k=1)
    X = X30[:12]
    with pytest.warns(UserWarning, match="clearly non-zero leading eigenvalue"):
        model = SMIClustering(2, n_neighbors=3, gamma=1.0).fit(X, must_link=np.c_[i, j])
    _assert_finite_model(model, X)


def test_must_link_chain_joining_a_cannot_link_warns():
    """Links are soft in 3SMIC: a conflict is reported, and a result returned."""
    must = [[0, 3], [3, 5], [5, 7]]
    cannot = [[0, 7], [1, 2]]
    with pytest.warns(ConstraintConflictWarning, match=r"1 cannot-link.*\(0, 7\)"):
        model = SMIClustering(2, **FIXED).fit(X30, must_link=must, cannot_link=cannot)
    assert model.n_violations_ >= 1
    _assert_finite_model(model, X30)


# ---------------------------------------------------------------------------
# pairs_from_labels
# ---------------------------------------------------------------------------

BAD_LABELS = {
    "labels shorter than n_samples": (
        ([0, 1, -1], {"n_samples": 4}),
        ValueError,
        "'labels' parameter of pairs_from_labels must have one entry per sample: "
        "expected 4, got 3",
    ),
    "labels longer than n_samples": (
        ([0, 1, -1, 1, 0], {"n_samples": 4}),
        ValueError,
        "expected 4, got 5",
    ),
    "2-d labels": (([[0, 1]], {}), ValueError, r"must be 1-d.*shape \(1, 2\)"),
    "labels of mixed kinds": (
        (np.array(["a", 1, None], dtype=object), {}),
        TypeError,
        "labels of one kind; got int, str",
    ),
    "infinite label": (([0.0, np.inf, 1.0], {}), ValueError, "finite labels; got inf"),
    "boolean labels": (([True, False], {}), TypeError, "class labels; got booleans"),
    "n_samples of the wrong type": (
        ([0, 1], {"n_samples": "2"}),
        TypeError,
        "'n_samples' parameter of pairs_from_labels must be an int or None. Got '2'",
    ),
    # before: the next five gave links silently, -1 a class of its own
    # (cannot-linked to every other sample) or, with True, the samples
    # labelled 1 dropped; n_samples=-1 blamed the labels
    "negative n_samples": (
        ([0, 1], {"n_samples": -1}),
        ValueError,
        "'n_samples' parameter of pairs_from_labels must be a non-negative int",
    ),
    "string marker over numeric labels": (
        ([0, 0, 1, -1], {"unlabeled": "-1"}),
        ValueError,
        "'unlabeled' parameter of pairs_from_labels is the string '-1', but the "
        r"'labels' hold no string \(int\)",
    ),
    "string marker over bytes labels": (
        (np.array([b"a", b"a", b"?", b"?"]), {"unlabeled": "?"}),
        ValueError,
        r"is the string '\?', but the 'labels' hold no string \(bytes\)",
    ),
    "marker in a list": (
        ([0, 0, 1, -1], {"unlabeled": [-1]}),
        TypeError,
        r"'unlabeled' parameter of pairs_from_labels must be an int or a str "
        r"\(the marker of unknown labels\). Got \[-1\]",
    ),
    "boolean marker": (
        ([0, 0, 1, 1], {"unlabeled": True}),
        TypeError,
        "'unlabeled' parameter .* Got True",
    ),
    "float marker": (
        ([0, 0, 1, 1], {"unlabeled": 2.5}),
        TypeError,
        "'unlabeled' parameter .* Got 2.5",
    ),
}


@pytest.mark.parametrize("name", list(BAD_LABELS))
def test_pairs_from_labels_rejects(name):
    (labels, kwargs), error, match = BAD_LABELS[name]
    with pytest.raises(error, match=match):
        pairs_from_labels(labels, **kwargs)


def test_pairs_from_labels_markers_that_match_the_labels():
    # a NumPy integer marker over integers, a string one over strings, and a
    # string marker when every label is unknown anyway
    must, cannot = pairs_from_labels([0, 0, 1, 7], unlabeled=np.int64(7))
    assert must.tolist() == [[0, 1]] and cannot.tolist() == [[0, 2], [1, 2]]
    must, cannot = pairs_from_labels(["a", "a", "b", "?"], unlabeled=np.str_("?"))
    assert must.tolist() == [[0, 1]] and cannot.tolist() == [[0, 2], [1, 2]]
    must, cannot = pairs_from_labels([None, np.nan], unlabeled="?")
    assert must.shape == cannot.shape == (0, 2)


def test_pairs_from_labels_too_long_caught_at_fit():
    """Without n_samples, labels longer than X give links that fit rejects."""
    labels = np.full(31, -1)
    labels[[0, 30]] = 1
    must, cannot = pairs_from_labels(labels)
    with pytest.raises(ValueError, match=r"'must_link'.*pair 0 is \(0, 30\)"):
        SMIClustering(2, **FIXED).fit(X30, must_link=must, cannot_link=cannot)


# ---------------------------------------------------------------------------
# predict / predict_proba
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fitted():
    return SMIClustering(2, **FIXED).fit(X30)


BAD_PREDICT = {
    "different number of features": (
        np.zeros((4, 3)),
        ValueError,
        "X has 3 features, but SMIClustering is expecting 2 features",
    ),
    "single sample as 1-d": (X30[0], ValueError, r"got shape \(2,\)\. Reshape"),
    "NaN": (np.array([[np.nan, 1.0]]), ValueError, "Input X contains NaN"),
    "inf": (np.array([[np.inf, 1.0]]), ValueError, "Input X contains infinity"),
    "empty": (np.empty((0, 2)), ValueError, r"0 sample\(s\)"),
    "sparse with NaN": (sp.csr_matrix([[np.nan, 1.0]]), ValueError,
                        "Input X contains NaN"),
    "complex": (X30 + 1j, ValueError, "Complex data not supported"),
    "strings": (np.array([["a", "b"]]), TypeError, "real numbers in 'X'"),
}


@pytest.mark.parametrize("method", ["predict", "predict_proba"])
@pytest.mark.parametrize("name", list(BAD_PREDICT))
def test_predict_rejects_bad_X(fitted, name, method):
    X, error, match = BAD_PREDICT[name]
    with pytest.raises(error, match=match):
        getattr(fitted, method)(X)


def test_predict_before_fit():
    with pytest.raises(NotFittedError, match="SMIClustering instance is not fitted"):
        SMIClustering().predict(X30)


@pytest.mark.parametrize("far", [1e6, 1e200, -1e300])
def test_predict_far_away_sample_is_uniform(fitted, far):
    """A sample beyond every neighbourhood (even one whose distances overflow)
    gets an empty kernel row: the uniform distribution, never NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        proba = fitted.predict_proba(np.array([[far, far], [0.0, 0.0]]))
        labels = fitted.predict(np.array([[far, far]]))
    assert_array_equal(proba[0], [0.5, 0.5])
    assert np.all(np.isfinite(proba)) and labels.shape == (1,)


# ---------------------------------------------------------------------------
# lsmi_score and local_scaling_kernel
# ---------------------------------------------------------------------------

BAD_LSMI = {
    "sparse X with NaN": (sp.csr_matrix(_with(np.nan)), Y30, {}, ValueError,
                          "Input X contains NaN"),
    "complex X": (X30 + 1j, Y30, {}, ValueError, "Complex data not supported"),
    "string X": (
        np.array([["a", "b"]] * 30),
        Y30,
        {},
        TypeError,
        "lsmi_score expects real numbers in 'X'",
    ),
    "inf in X": (_with(np.inf), Y30, {}, ValueError, "Input X contains infinity"),
    "empty X": (np.empty((0, 2)), [], {}, ValueError, r"0 sample\(s\)"),
    "one sample": (
        X30[:1],
        [0],
        {},
        ValueError,
        "'n_folds' parameter of lsmi_score cannot exceed the number of samples: "
        "got n_folds=5 for n_samples=1",
    ),
    "labels None": (X30, None, {}, TypeError, "'labels'.*Got None"),
    "kernel_width=inf": (X30, Y30, {"kernel_width": np.inf}, ValueError, "Got inf"),
}


@pytest.mark.parametrize("name", list(BAD_LSMI))
def test_lsmi_score_rejects(name):
    X, labels, kwargs, error, match = BAD_LSMI[name]
    with pytest.raises(error, match=match):
        lsmi_score(X, labels, **kwargs)


@pytest.mark.parametrize(
    "X, kwargs",
    [
        (X30 * 1e200, {}),
        (X30 * 1e-300, {}),
        (np.ones((30, 2)), {}),
        (np.vstack([X30[:10]] * 3), {}),
        (X30, {"kernel_width": 1e-300, "regularization": 0.1}),
        (X30, {"kernel_width": 1e300, "regularization": 0.1}),
    ],
    ids=["1e200", "1e-300", "identical", "duplicates", "tiny width", "huge width"],
)
def test_lsmi_score_degenerate_inputs_stay_finite(X, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        score = lsmi_score(X, Y30, random_state=0, **kwargs)
    assert np.isfinite(score)


def test_lsmi_score_extreme_scale_equals_unit_scale():
    base = lsmi_score(X30, Y30, random_state=0)
    for scale in (2.0**600, 2.0**-900):
        assert lsmi_score(X30 * scale, Y30, random_state=0) == base


BAD_KERNEL = {
    "1-d X": (X30[:, 0], 1, ValueError, "local_scaling_kernel expects 'X' of shape"),
    "n_neighbors=n_samples": (
        X30, 30, ValueError, r"\[1, 29\], i.e. smaller than n_samples=30. Got 30"
    ),
    "n_neighbors=2.0": (X30, 2.0, TypeError, r"'n_neighbors'.*int. Got 2\.0"),
    "one sample": (X30[:1], 1, ValueError, r"1 sample\(s\)"),
}


@pytest.mark.parametrize("name", list(BAD_KERNEL))
def test_local_scaling_kernel_rejects(name):
    X, t, error, match = BAD_KERNEL[name]
    with pytest.raises(error, match=match):
        local_scaling_kernel(X, t)


@pytest.mark.parametrize("scale", [1e200, 1e-300])
def test_local_scaling_kernel_extreme_scale(scale):
    K = local_scaling_kernel(X30 * scale, 3)
    np.testing.assert_allclose(
        K.toarray(), local_scaling_kernel(X30, 3).toarray(), atol=1e-12
    )


# ---------------------------------------------------------------------------
# Graph and eigen-solver
# ---------------------------------------------------------------------------


def test_many_graph_components_warn_and_give_a_result():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal(loc=20 * k, size=(5, 2)) for k in range(12)])
    X[1] = X[0]  # a repeated row that is not the cause: only 2 copies, t = 2
    with pytest.warns(UserWarning,
                      match="12 connected components, more than.*A larger n_neighbors"):
        model = SMIClustering(2, n_neighbors=2, eigen_solver="arpack").fit(X)
    assert model.n_graph_components_ == 12
    _assert_finite_model(model, X)


def test_arpack_failure_falls_back_with_bounded_work(monkeypatch):
    """ARPACK never converges: a ConvergenceWarning, a bounded LOBPCG run."""
    from scipy.sparse.linalg import ArpackNoConvergence

    import smiclust.eigensolvers as solver

    calls = []

    def failing_eigsh(A, k, **kwargs):
        calls.append(kwargs.get("maxiter"))
        raise ArpackNoConvergence("no", np.empty(0), np.empty((A.shape[0], 0)))

    monkeypatch.setattr(solver, "eigsh", failing_eigsh)
    X, y = _blobs()
    with pytest.warns(ConvergenceWarning) as record:
        model = SMIClustering(
            3, n_neighbors=5, gamma=0.0, eigen_solver="arpack", max_iter=3
        ).fit(X)
    messages = [str(w.message) for w in record]
    assert any("ARPACK did not converge" in m for m in messages)
    assert any("falling back to LOBPCG" in m for m in messages)
    assert calls == [3]
    # LOBPCG with 3 iterations: a few blocks of 3 vectors, never an endless loop
    assert model.n_iter_ <= 3 * 3 * (3 + 3)
    _assert_finite_model(model, X)


def test_lobpcg_iteration_bound_warns():
    X, _ = _blobs()
    with pytest.warns(ConvergenceWarning, match="LOBPCG did not reach"):
        model = SMIClustering(
            3, n_neighbors=5, gamma=0.0, eigen_solver="lobpcg", max_iter=1, tol=1e-15
        ).fit(X)
    _assert_finite_model(model, X)


# ---------------------------------------------------------------------------
# The baselines share the X checks and the degenerate-X rules
# ---------------------------------------------------------------------------

BASELINES = [SpectralLearning, ConstrainedSpectralClustering]


@pytest.mark.parametrize("name", list(BAD_X))
@pytest.mark.parametrize("cls", BASELINES, ids=lambda c: c.__name__)
def test_baselines_reject_bad_X(cls, name):
    X, error, match = BAD_X[name]
    if sp.issparse(X):  # the baselines take no sparse X at all
        error, match = TypeError, "expects a dense array for 'X'; got a sparse"
    with pytest.raises(error, match=match.replace("SMIClustering", cls.__name__)):
        cls(2, n_neighbors=3, random_state=0).fit(X)


@pytest.mark.parametrize("scale", [1e200, 1e-300, 2.0**700])
@pytest.mark.parametrize("cls", BASELINES, ids=lambda c: c.__name__)
def test_baselines_extreme_scales_equal_unit_scale(cls, scale):
    X, y = _blobs()
    X, y = X[y < 2], y[y < 2]  # two blobs: CSC thresholds one eigenvector
    kw = dict(n_neighbors=5, random_state=0)
    must, cannot = [[0, 1], [20, 21]], [[0, 20]]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow, no NaN
        scaled = cls(2, **kw).fit(X * scale, must_link=must, cannot_link=cannot)
    unit = cls(2, **kw).fit(X, must_link=must, cannot_link=cannot)
    assert np.all(np.isfinite(scaled.affinity_matrix_.data))
    assert adjusted_rand_score(y, scaled.labels_) == 1.0
    assert adjusted_rand_score(unit.labels_, scaled.labels_) == 1.0


@pytest.mark.parametrize("cls", BASELINES, ids=lambda c: c.__name__)
def test_baselines_identical_rows_warn(cls):
    X = np.ones((30, 2))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=ConvergenceWarning)
        warnings.filterwarnings("ignore", "The kNN graph", UserWarning)
        with pytest.warns(UserWarning, match="All 30 samples of X are identical"):
            model = cls(2, n_neighbors=3, random_state=0).fit(X)
    assert model.labels_.shape == (30,)
    assert np.all(np.isfinite(model.affinity_matrix_.data))
