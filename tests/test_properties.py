"""Property-based tests (hypothesis) of SMIClustering, lsmi_score and the kernel.

Hypothesis draws seeds, sizes and parameters; the data are generated from those
seeds with NumPy (continuous, so without ties) except in the "no NaN" property,
where hypothesis draws the raw values to produce duplicates, constants and
extreme magnitudes. Every test uses a derandomized, database-free profile with a
small number of examples, so CI runs are fast and reproducible.
"""

import warnings
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score

from smiclust import (
    SMIClustering,
    local_scaling_kernel,
    lsmi_score,
    pairs_from_labels,
    sample_links,
)
from smiclust.lsmi import LSMIDesign


def _profile(max_examples):
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


seeds = st.integers(0, 2**16)


def _blobs(seed, n, c, spread=4.0):
    """``c`` Gaussian blobs in 2-d with random centres: continuous, no ties."""
    rng = np.random.RandomState(seed)
    y = np.arange(n) % c
    centers = rng.uniform(-spread * c, spread * c, size=(c, 2))
    return centers[y] + rng.normal(size=(n, 2)), y


@contextmanager
def _quiet():
    """Known, documented warnings are not the subject here; RuntimeWarnings
    (overflow, invalid value) are errors."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("error", RuntimeWarning)
        yield


# ---------------------------------------------------------------------------
# Equivariance and invariance
# ---------------------------------------------------------------------------


@_profile(20)
@given(
    seed=seeds,
    n=st.integers(20, 50),
    c=st.sampled_from([2, 3]),
    n_links=st.integers(0, 30),
    t=st.integers(3, 8),
)
def test_permuting_samples_permutes_labels(seed, n, c, n_links, t):
    """fit(X[p], links mapped by p) gives labels_[p] up to renaming.

    eigen_solver="dense", and the default's held-out choices fixed
    (``spreading``, ``classifier``, ``kernel``; ``n_neighbors``, ``gamma``,
    ``eta``):
    the random choices that depend on the sample order are ARPACK's start
    vector and the held-out folds of those choices, drawn per position.
    Without them every step is order-equivariant (the forest reads its
    training rows in an order of their own), so on continuous data (no
    distance ties, no exactly repeated eigenvalue, no two cannot-linked
    samples with equal scores, which the labelling of the links' groups
    splits by position) the property is exact, not approximate. The ARPACK
    variant is tested on well-separated data below.
    """
    X, y = _blobs(seed, n, c)
    must, cannot = sample_links(y, n_links, random_state=seed)
    perm = np.random.RandomState(seed + 1).permutation(n)
    new_index = np.argsort(perm)  # old sample i is at new_index[i]
    kw = dict(n_neighbors=t, gamma=1.0, eta=0.5 if c == 2 else 0.0)
    kw.update(eigen_solver="dense", random_state=0, spreading=0.5,
              kernel="local-scaling",
              classifier=RandomForestClassifier(n_estimators=20, random_state=0))
    with _quiet():
        a = SMIClustering(c, **kw).fit(X, must_link=must, cannot_link=cannot)
        b = SMIClustering(c, **kw).fit(
            X[perm], must_link=new_index[must], cannot_link=new_index[cannot]
        )
    assert adjusted_rand_score(a.labels_[perm], b.labels_) == 1.0
    assert_allclose(b.eigenvalues_, a.eigenvalues_, rtol=1e-9)
    assert b.n_violations_ == a.n_violations_


@_profile(8)
@given(seed=seeds, n=st.integers(40, 60))
def test_permutation_with_arpack_on_separated_data(seed, n):
    """ARPACK's start vector does not follow the permutation, so its result
    agrees only up to its tolerance: labels are compared on well-separated
    blobs, where no sample is near a decision boundary."""
    X, y = _blobs(seed, n, 3, spread=12.0)
    perm = np.random.RandomState(seed).permutation(n)
    kw = dict(n_neighbors=5, eigen_solver="arpack", random_state=seed)
    with _quiet():
        a = SMIClustering(3, **kw).fit(X)
        b = SMIClustering(3, **kw).fit(X[perm])
    assert adjusted_rand_score(a.labels_[perm], b.labels_) == 1.0


@_profile(20)
@given(
    seed=seeds,
    c=st.integers(1, 5),
    kind=st.sampled_from(["int", "str", "float", "negative"]),
)
def test_relabelling_classes_leaves_lsmi_unchanged(seed, c, kind):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(40, 3))
    labels = rng.randint(c, size=40)
    names = rng.permutation(c)  # a random bijection of the class names
    renamed = {
        "int": names * 7 + 3,
        "str": np.array([f"class-{k}" for k in names]),
        "float": names / 3.0 + 0.25,
        "negative": -names - 1,
    }[kind][labels]
    design = LSMIDesign(X, n_centers=30, n_folds=4, random_state=seed)
    reference = design.evaluate(labels)
    result = design.evaluate(renamed)
    assert_allclose(result.score, reference.score, rtol=0, atol=1e-12)
    assert result.kernel_width == reference.kernel_width
    assert result.regularization == reference.regularization
    one_shot = lsmi_score(X, renamed, n_centers=30, n_folds=4, random_state=seed)
    assert_allclose(one_shot, reference.score, rtol=0, atol=1e-12)


@_profile(25)
@given(
    seed=seeds,
    t=st.integers(1, 9),
    exponent=st.floats(-300, 300),
    d=st.integers(1, 4),
)
def test_scaling_X_leaves_local_scaling_kernel_unchanged(seed, t, exponent, d):
    X = np.random.RandomState(seed).normal(size=(30, d))
    scale = 10.0**exponent
    K = local_scaling_kernel(X, t)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        K_scaled = local_scaling_kernel(X * scale, t)
    assert_array_equal(K_scaled.indices, K.indices)
    assert_array_equal(K_scaled.indptr, K.indptr)
    assert_allclose(K_scaled.data, K.data, rtol=0, atol=1e-12)


@_profile(4)
@given(seed=seeds, random_state=st.integers(0, 2**31 - 1))
def test_same_random_state_same_result_with_parallel_jobs(seed, random_state):
    """The parameter search (LSMI centres and folds, ARPACK start vectors) is
    random; one random_state fixes it, whatever n_jobs. The first example
    pays for starting joblib's worker processes."""
    X, y = _blobs(seed, 45, 2)
    must, cannot = sample_links(y, 12, random_state=seed)
    kw = dict(
        n_neighbors=[3, 6],
        gamma=[0.0, 1.0],
        eta=[0.0, 1.0],
        lsmi_n_centers=25,
        random_state=random_state,
    )
    results = []
    for n_jobs in (None, 2, None):
        with _quiet():
            model = SMIClustering(2, n_jobs=n_jobs, **kw)
            results.append(model.fit(X, must_link=must, cannot_link=cannot))
    first = results[0]
    for other in results[1:]:
        assert_array_equal(other.labels_, first.labels_)
        assert_array_equal(other.eigenvectors_, first.eigenvectors_)
        assert other.lsmi_ == first.lsmi_
        for key, column in first.tuning_results_.items():
            if key != "solve_seconds":
                assert_array_equal(other.tuning_results_[key], column, err_msg=key)


# ---------------------------------------------------------------------------
# Inputs are never modified
# ---------------------------------------------------------------------------


@_profile(15)
@given(
    seed=seeds,
    dtype=st.sampled_from([np.float64, np.float32, np.int64]),
    fortran=st.booleans(),
    reversed_pairs=st.booleans(),
    links_as=st.sampled_from(["array", "list"]),
)
def test_inputs_are_never_modified(seed, dtype, fortran, reversed_pairs, links_as):
    X, y = _blobs(seed, 30, 2)
    X = (10 * X).astype(dtype)
    if fortran:
        X = np.asfortranarray(X)
    must, cannot = sample_links(y, 15, random_state=seed)
    if reversed_pairs:  # canonicalisation (i < j) must happen on a copy
        must, cannot = must[:, ::-1].copy(), cannot[:, ::-1].copy()
    if links_as == "list":
        must, cannot = must.tolist(), cannot.tolist()
    partial = np.where(np.arange(30) % 4 == 0, y, -1)
    snapshot = [np.array(X, copy=True), _copy(must), _copy(cannot), partial.copy()]

    with _quiet():
        model = SMIClustering(2, n_neighbors=[3, 5], gamma=1.0, eta=1.0)
        model.set_params(lsmi_n_centers=20, random_state=seed)
        model.fit(X, must_link=must, cannot_link=cannot)
        model.predict(X)
        model.predict_proba(X)
        lsmi_score(X, partial, n_centers=20, random_state=0)
        local_scaling_kernel(X, 4)
        pairs_from_labels(partial, n_samples=30)

    assert_array_equal(X, snapshot[0])
    assert X.dtype == dtype and X.flags.f_contiguous == fortran
    for links, before in ((must, snapshot[1]), (cannot, snapshot[2])):
        assert type(links) is type(before)
        assert_array_equal(np.asarray(links), np.asarray(before))
    assert_array_equal(partial, snapshot[3])


def _copy(links):
    return [list(p) for p in links] if isinstance(links, list) else links.copy()


# ---------------------------------------------------------------------------
# Outputs: distributions, and no NaN ever
# ---------------------------------------------------------------------------


@_profile(20)
@given(
    seed=seeds,
    c=st.integers(2, 4),
    X_new=hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 8), st.just(2)),
        elements=st.floats(-1e200, 1e200, allow_nan=False, allow_infinity=False),
    ),
)
def test_predict_proba_rows_are_distributions(seed, c, X_new):
    X, _ = _blobs(seed, 40, c)
    X_new = np.vstack([X_new, X[:3]])  # far-away and training points
    with _quiet():
        model = SMIClustering(c, n_neighbors=4, gamma=0.0, random_state=seed).fit(X)
        proba = model.predict_proba(X_new)
        labels = model.predict(X_new)
    assert proba.shape == (len(X_new), c)
    assert np.all(np.isfinite(proba))
    assert np.all(proba >= 0)
    assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all((labels >= 0) & (labels < c))
    # where some cluster responds, predict is the most probable cluster
    decided = proba.max(axis=1) > 1.0 / c + 1e-9
    assert_array_equal(labels[decided], proba[decided].argmax(axis=1))


# raw values: few distinct ones (duplicates, constant columns) and extreme ones
_values = st.one_of(
    st.sampled_from([0.0, 1.0, -1.0, 2.5]),
    st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False),
    st.floats(-1e-300, 1e-300, allow_nan=False, allow_infinity=False),
)


@st.composite
def _problems(draw):
    n = draw(st.integers(2, 24))
    d = draw(st.integers(1, 3))
    X = draw(hnp.arrays(np.float64, (n, d), elements=_values))
    c = draw(st.integers(1, min(n, 4)))
    t = draw(st.one_of(st.just("auto"), st.integers(1, n - 1)))
    gamma = draw(st.sampled_from([0.0, 0.1, 1.0, 10.0]))
    eta = draw(st.sampled_from([0.0, 1.0, 10.0]))
    pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)])
    chosen = draw(st.lists(st.integers(0, len(pairs) - 1), max_size=12, unique=True))
    kinds = draw(st.lists(st.booleans(), min_size=len(chosen), max_size=len(chosen)))
    links = pairs[chosen].reshape(-1, 2)
    must = links[np.array(kinds, dtype=bool)]
    cannot = links[~np.array(kinds, dtype=bool)]
    solver = draw(st.sampled_from(["auto", "dense", "lobpcg"]))
    return X, c, t, gamma, eta, must, cannot, solver


@_profile(25)
@given(problem=_problems(), seed=seeds)
def test_no_nan_leaves_fit_predict_or_lsmi(problem, seed):
    X, c, t, gamma, eta, must, cannot, solver = problem
    model = SMIClustering(
        c,
        n_neighbors=t,
        gamma=gamma,
        eta=eta if c == 2 else 0.0,
        eigen_solver=solver,
        lsmi_n_centers=20,
        random_state=seed,
    )
    with _quiet():
        model.fit(X, must_link=must, cannot_link=cannot)
        proba = model.predict_proba(X)
        labels = model.predict(X[::-1])
        score = lsmi_score(X, model.labels_, n_folds=2, n_centers=20, random_state=0)
    for name in ("eigenvalues_", "eigenvectors_", "dual_coef_", "local_scales_"):
        assert np.all(np.isfinite(getattr(model, name))), name
    assert np.all(model.local_scales_ > 0)
    assert np.all(np.isfinite(model.affinity_matrix_.data))
    assert np.all((model.labels_ >= 0) & (model.labels_ < c))
    assert np.all(np.isfinite(proba)) and np.all(np.isfinite(labels))
    assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-9)
    assert np.isfinite(score)
    if model.tuning_results_["lsmi"].size > 1:  # a search ran: lsmi_ is defined
        assert np.isfinite(model.lsmi_)
    else:  # documented: NaN means "no search was run", not a numerical failure
        assert np.isnan(model.lsmi_)


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_tuning_is_reproducible_for_a_random_state_instance(n_jobs):
    """random_state given as a RandomState: two equal instances, equal results."""
    X, y = _blobs(0, 40, 2)
    kw = dict(n_neighbors=[3, 6], lsmi_n_centers=20, n_jobs=n_jobs)
    with _quiet():
        a = SMIClustering(2, random_state=np.random.RandomState(5), **kw).fit(X)
        b = SMIClustering(2, random_state=np.random.RandomState(5), **kw).fit(X)
    assert_array_equal(a.labels_, b.labels_)
    assert a.lsmi_ == b.lsmi_
