"""Tests for smiclust.lsmi: brute-force oracle, invariances, sharing, validation."""

import dataclasses
import math
import pickle
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_digits, make_blobs
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_info

from smiclust.lsmi import LSMIDesign, LSMIResult, lsmi_score

# ---------------------------------------------------------------------------
# Brute-force reference: explicit loops over i, j, l following the formulas of
# the Appendix "Least-Squares Mutual Information" literally.
# ---------------------------------------------------------------------------


def _kernel(x, z, kappa):
    """L(x, x') = exp(-||x - x'||^2 / (2 kappa^2))."""
    sq = 0.0
    for a, b in zip(x, z):
        sq += (a - b) ** 2
    return math.exp(-sq / (2.0 * kappa**2))


def _kernel_table(X, kappa):
    n = len(X)
    return [[_kernel(X[i], X[j], kappa) for j in range(n)] for i in range(n)]


def _ref_fit(L, y, centers, rows, delta):
    """w^(y) = (H^(y) + delta I)^{-1} h^(y) for every label, fitted on ``rows``.

    H^(y)_{ll'} = n_y / n^2 sum_i L(x_i, x_l) L(x_i, x_l'),
    h^(y)_l = 1/n sum_{i: y_i = y} L(x_i, x_l), sums over the fitting rows.
    """
    n = len(rows)
    model = {}
    for label in sorted(set(y)):
        S = [ell for ell in centers if y[ell] == label]
        n_y = sum(1 for i in rows if y[i] == label)
        H = np.zeros((len(S), len(S)))
        h = np.zeros(len(S))
        for a, ell in enumerate(S):
            for b, ell2 in enumerate(S):
                total = 0.0
                for i in rows:
                    total += L[i][ell] * L[i][ell2]
                H[a, b] = n_y / n**2 * total
            total = 0.0
            for i in rows:
                if y[i] == label:
                    total += L[i][ell]
            h[a] = total / n
        w = np.linalg.solve(H + delta * np.eye(len(S)), h) if S else np.zeros(0)
        model[label] = (S, w, H, h)
    return model


def _ref_ratio(L, model, i, label):
    """r(x_i, y) = sum_{l: y_l = y} w_l L(x_i, x_l); 0 for a class without centres."""
    S, w, _, _ = model[label]
    total = 0.0
    for a, ell in enumerate(S):
        total += w[a] * L[i][ell]
    return total


def _ref_cv(L, y, centers, folds, delta):
    """CV = mean_m CV_m, fitting on Z \\ Z_m and scoring on Z_m."""
    n = len(y)
    errors = []
    for held in folds:
        held = [int(i) for i in held]
        train = [i for i in range(n) if i not in held]
        model = _ref_fit(L, y, centers, train, delta)
        quad = 0.0  # all |Z_m|^2 combinations of a sample and a label of Z_m
        for i in held:
            for j in held:
                quad += _ref_ratio(L, model, i, y[j]) ** 2
        lin = 0.0  # the |Z_m| pairs (x_i, y_i) of Z_m
        for i in held:
            lin += _ref_ratio(L, model, i, y[i])
        m = len(held)
        errors.append(quad / (2.0 * m**2) - lin / m)
    return sum(errors) / len(errors)


def _ref_lsmi(L, y, centers, delta):
    """LSMI = -1/(2n^2) sum_{i,j} r(x_i, y_j)^2 + 1/n sum_i r(x_i, y_i) - 1/2."""
    n = len(y)
    model = _ref_fit(L, y, centers, list(range(n)), delta)
    quad = 0.0
    for i in range(n):
        for j in range(n):
            quad += _ref_ratio(L, model, i, y[j]) ** 2
    lin = 0.0
    for i in range(n):
        lin += _ref_ratio(L, model, i, y[i])
    return -quad / (2.0 * n**2) + lin / n - 0.5, model


def _ref_draws(n, n_centers, n_folds, seed, max_per_class=None, y=None):
    """Centres, then folds, from one generator (the documented order); with
    ``max_per_class`` then an order of the centres, and the centres of each
    class of ``y`` cut to the first ``max_per_class`` in that order."""
    rng = check_random_state(seed)
    if n_centers < n:
        centers = sorted(int(c) for c in rng.choice(n, n_centers, replace=False))
    else:
        centers = list(range(n))
    folds = np.array_split(rng.permutation(n), n_folds)
    if max_per_class is not None:
        rank = rng.permutation(len(centers))  # rank[j]: place of centers[j]
        kept = []
        for label in set(y[c] for c in centers):
            mine = [j for j in range(len(centers)) if y[centers[j]] == label]
            mine.sort(key=lambda j: rank[j])
            kept += [centers[j] for j in mine[:max_per_class]]
        centers = sorted(kept)
    return centers, folds


def _reference(X, y, *, widths, deltas, n_centers, n_folds, seed, max_per_class=None):
    """(LSMI, kappa, delta, CV) by grid search over (kappa, delta), kappa outer."""
    X = [list(map(float, row)) for row in X]
    y = [int(v) for v in y]
    centers, folds = _ref_draws(len(X), n_centers, n_folds, seed, max_per_class, y)
    tables = {kappa: _kernel_table(X, kappa) for kappa in widths}
    if len(widths) * len(deltas) == 1:
        best = (math.nan, widths[0], deltas[0])
    else:
        best = None
        for kappa in widths:
            for delta in deltas:
                cv = _ref_cv(tables[kappa], y, centers, folds, delta)
                if best is None or cv < best[0]:
                    best = (cv, kappa, delta)
    cv, kappa, delta = best
    score, _ = _ref_lsmi(tables[kappa], y, centers, delta)
    return score, kappa, delta, cv


def _tiny_problem(n=30, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 2)
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.3).astype(int)  # 3 classes
    return X, y


@pytest.mark.parametrize("n_centers", [30, 45, 12])
@pytest.mark.parametrize("kernel_width, regularization", [(0.8, 0.05), (2.0, 1e-3)])
def test_matches_bruteforce_without_cv(n_centers, kernel_width, regularization):
    X, y = _tiny_problem()
    expected, _, _, _ = _reference(
        X,
        y,
        widths=[kernel_width],
        deltas=[regularization],
        n_centers=n_centers,
        n_folds=5,
        seed=3,
    )
    kwargs = dict(
        kernel_width=kernel_width,
        regularization=regularization,
        n_centers=n_centers,
        random_state=3,
    )
    assert_allclose(lsmi_score(X, y, **kwargs), expected, rtol=1e-10, atol=1e-12)
    if n_centers >= len(X):  # every sample is a centre: nothing random is used
        other_seed = lsmi_score(X, y, **{**kwargs, "random_state": 99})
        assert_allclose(other_seed, expected, rtol=1e-10, atol=1e-12)
    result = LSMIDesign(X, **kwargs).evaluate(y)
    assert result.kernel_width == kernel_width
    assert result.regularization == regularization
    assert math.isnan(result.cv_error)



@pytest.mark.parametrize("regularization", [0.05, 1e-3])
def test_classes_of_more_than_32_centres_match_bruteforce(regularization):
    # blocks above the stacked solve's size take the per-matrix Cholesky
    # path: the same LSMI as the loops
    rng = np.random.RandomState(1)
    X = rng.randn(80, 2)
    y = (X[:, 0] > 0).astype(int)
    assert np.bincount(y).min() > 32
    expected, _, _, _ = _reference(X, y, widths=[0.9], deltas=[regularization],
                                   n_centers=80, n_folds=5, seed=0)
    got = lsmi_score(X, y, kernel_width=0.9, regularization=regularization,
                     n_centers=80, random_state=0)
    assert_allclose(got, expected, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("n_centers", [40, 15])
def test_median_distance_is_that_of_samples_to_other_centres(n_centers):
    # the anchor of the default width grid, by loops: every sample-centre
    # distance but a centre's own zero
    X = np.random.RandomState(0).normal(size=(40, 3))
    design = LSMIDesign(X, n_centers=n_centers, random_state=0)
    centers = [int(c) for c in design.center_indices_]
    others = [math.dist(X[i], X[c]) for i in range(len(X)) for c in centers
              if i != c]
    # (squared distances by the Gram expansion: agreement to rounding)
    assert_allclose(design.median_distance_, np.median(others), rtol=1e-7)
    assert_allclose(design.kernel_widths_,
                    np.median(others) * 2.0 ** np.arange(-4, 2), rtol=1e-7)


@pytest.mark.parametrize("size", [5, 32, 33, 60])
def test_regularized_solve_matches_a_dense_solve(size):
    # both paths (stacked below 33, Cholesky one by one above) solve
    # (H + delta I) w = h
    from smiclust.lsmi import _solve_regularized

    rng = np.random.RandomState(size)
    A = rng.rand(3, size, size)
    H = A @ A.transpose(0, 2, 1)
    h = rng.rand(3, size)
    expected = [np.linalg.solve(H[k] + 0.05 * np.eye(size), h[k]) for k in range(3)]
    assert_allclose(_solve_regularized(H, h, 0.05), expected, rtol=1e-9, atol=1e-12)

@pytest.mark.parametrize("n_centers", [30, 12])
def test_matches_bruteforce_with_cv(n_centers):
    X, y = _tiny_problem()
    widths, deltas = [0.3, 0.9, 2.5], [1e-3, 1e-1]
    expected, kappa, delta, cv = _reference(
        X, y, widths=widths, deltas=deltas, n_centers=n_centers, n_folds=5, seed=7
    )
    result = LSMIDesign(
        X,
        kernel_width=widths,
        regularization=deltas,
        n_centers=n_centers,
        n_folds=5,
        random_state=7,
    ).evaluate(y)
    assert (result.kernel_width, result.regularization) == (kappa, delta)
    assert_allclose(result.cv_error, cv, rtol=1e-10)
    assert_allclose(result.score, expected, rtol=1e-10)
    assert result.score == lsmi_score(
        X,
        y,
        kernel_width=widths,
        regularization=deltas,
        n_centers=n_centers,
        random_state=7,
    )


@pytest.mark.parametrize("n_centers, max_per_class", [(30, 4), (30, 9), (20, 3)])
def test_class_centre_cap_matches_bruteforce(n_centers, max_per_class):
    # classes of 8, 14 and 8 samples: the cap keeps part of their centres
    X, y = _tiny_problem()
    widths, deltas = [0.3, 0.9, 2.5], [1e-3, 1e-1]
    expected, kappa, delta, cv = _reference(
        X, y, widths=widths, deltas=deltas, n_centers=n_centers, n_folds=5, seed=7,
        max_per_class=max_per_class,
    )
    kwargs = dict(kernel_width=widths, regularization=deltas, n_centers=n_centers,
                  random_state=7)
    result = LSMIDesign(X, max_centers_per_class=max_per_class, **kwargs).evaluate(y)
    assert (result.kernel_width, result.regularization) == (kappa, delta)
    assert_allclose(result.cv_error, cv, rtol=1e-10)
    assert_allclose(result.score, expected, rtol=1e-10)
    uncapped = LSMIDesign(X, **kwargs).evaluate(y)
    assert not np.isclose(result.cv_error, uncapped.cv_error)
    one_shot = lsmi_score(X, y, max_centers_per_class=max_per_class, **kwargs)
    assert one_shot == result.score


def test_class_centre_cap_keeps_the_draws_and_acts_only_above_it(blobs):
    X, y = blobs  # three classes
    plain = LSMIDesign(X, n_centers=120, random_state=3)
    sizes = np.bincount(y[plain.center_indices_])
    at_largest = LSMIDesign(X, n_centers=120, random_state=3,
                            max_centers_per_class=int(sizes.max()))
    below = LSMIDesign(X, n_centers=120, random_state=3,
                       max_centers_per_class=int(sizes.max()) - 1)
    for design in (at_largest, below):
        assert_array_equal(design.center_indices_, plain.center_indices_)
        for fold, plain_fold in zip(design.fold_indices_, plain.fold_indices_):
            assert_array_equal(fold, plain_fold)
    assert at_largest.evaluate(y) == plain.evaluate(y)
    assert below.evaluate(y) != plain.evaluate(y)


def test_draws_follow_documented_order():
    X, _ = _tiny_problem()
    design = LSMIDesign(X, kernel_width=1.0, n_centers=12, n_folds=4, random_state=5)
    centers, folds = _ref_draws(30, 12, 4, 5)
    assert design.center_indices_.tolist() == centers
    assert [f.tolist() for f in design.fold_indices_] == [f.tolist() for f in folds]
    everything = LSMIDesign(X, kernel_width=1.0, n_centers=500, random_state=5)
    assert everything.n_centers_ == 30
    assert everything.center_indices_.tolist() == list(range(30))


@pytest.mark.parametrize("is_centre", [False, True])
def test_singleton_class(is_centre):
    # Without a centre the class has r = 0; as a centre it is absent from the
    # training part of one fold (n_y = 0 there, so H = 0, h = 0, w = 0).
    X, y = _tiny_problem()
    centers, _ = _ref_draws(30, 12, 5, 11)
    candidates = [i for i in range(30) if (i in centers) == is_centre]
    y = y.copy()
    y[candidates[0]] = 7
    kwargs = dict(widths=[0.5, 1.5], deltas=[1e-2], n_centers=12, n_folds=5)
    expected, kappa, _, cv = _reference(X, y, seed=11, **kwargs)
    result = LSMIDesign(
        X, kernel_width=[0.5, 1.5], regularization=1e-2, n_centers=12, random_state=11
    ).evaluate(y)
    assert result.kernel_width == kappa
    assert_allclose(result.cv_error, cv, rtol=1e-10)
    assert_allclose(result.score, expected, rtol=1e-10)


def test_lsmi_identity_with_fitted_objective():
    # -1/(2n^2) sum_ij r(x_i, y_j)^2 + 1/n sum_i r(x_i, y_i) - 1/2
    #   == sum_y [w_y^T h_y - 1/2 w_y^T H_y w_y] - 1/2  (used by the fast path)
    X, y = _tiny_problem()
    L = _kernel_table([list(row) for row in X], 0.9)
    y = [int(v) for v in y]
    for delta in (1e-3, 0.3):
        printed, model = _ref_lsmi(L, y, list(range(0, 30, 2)), delta)
        simplified = -0.5
        for S, w, H, h in model.values():
            simplified += w @ h - 0.5 * w @ H @ w
        assert_allclose(simplified, printed, rtol=1e-12)


# ---------------------------------------------------------------------------
# Behaviour on real-ish data.
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def blobs():
    return make_blobs(n_samples=300, centers=3, random_state=0)


@pytest.fixture(scope="module")
def digits():
    data = load_digits()
    return data.data[:300], data.target[:300]


@pytest.mark.parametrize("dataset, min_true", [("blobs", 0.8), ("digits", 3.0)])
def test_true_labels_beat_shuffled(dataset, min_true, request):
    # Measured over 5 seeds x 5 permutations: blobs true 0.85-0.86, shuffled
    # -0.0002..0.012; digits[:300] true 4.40, shuffled 0.015..0.028.
    X, y = request.getfixturevalue(dataset)
    design = LSMIDesign(X, random_state=0)
    true = design.score(y)
    rng = np.random.RandomState(0)
    shuffled = [design.score(rng.permutation(y)) for _ in range(3)]
    assert true > min_true
    assert max(shuffled) < 0.1
    assert true - max(shuffled) > 0.7


@pytest.mark.parametrize("n_classes", [2, 5])
def test_random_labels_score_near_zero(blobs, n_classes):
    # Independent labels: SMI = 0. Measured on these blobs over 5 seeds x 10
    # labelings (2 or 5 classes): |LSMI| <= 0.018 with 150 centres (<= 0.054
    # with all 300 samples as centres), mean 0.003.
    X, _ = blobs
    design = LSMIDesign(X, n_centers=150, random_state=1)
    rng = np.random.RandomState(n_classes)
    for _ in range(3):
        assert abs(design.score(rng.randint(n_classes, size=len(X)))) < 0.1


def test_single_class_scores_about_zero(blobs):
    X, _ = blobs
    assert abs(lsmi_score(X, np.zeros(len(X)), n_centers=100, random_state=0)) < 0.05


def test_relabelling_classes_leaves_score_unchanged(blobs):
    X, y = blobs
    design = LSMIDesign(X, n_centers=100, random_state=0)
    reference = design.evaluate(y)
    permuted = np.array([2, 0, 1])[y]
    renamed = np.array(["setosa", "b", "a"])[y]
    shifted = y * 10.0 - 3.5
    for labels in (permuted, renamed, shifted, list(renamed)):
        result = design.evaluate(labels)
        assert_allclose(result.score, reference.score, rtol=0, atol=1e-12)
        assert result.kernel_width == reference.kernel_width
        assert result.regularization == reference.regularization


def test_random_state_reproducible(blobs):
    X, y = blobs
    kwargs = dict(n_centers=50, random_state=42)
    first = lsmi_score(X, y, **kwargs)
    assert lsmi_score(X, y, **kwargs) == first
    assert lsmi_score(X, y, n_centers=50, random_state=np.random.RandomState(42)) == (
        first
    )
    assert lsmi_score(X, y, n_centers=50, random_state=43) != first


def test_design_evaluate_equals_lsmi_score(blobs):
    X, y = blobs
    kwargs = dict(kernel_width=[1.0, 3.0], n_centers=80, n_folds=4, random_state=3)
    design = LSMIDesign(X, **kwargs)
    rng = np.random.RandomState(0)
    labelings = [y, rng.permutation(y), rng.randint(4, size=len(y)), y % 2]
    for labels in labelings:
        result = design.evaluate(labels)
        assert isinstance(result, LSMIResult)
        assert result.score == lsmi_score(X, labels, **kwargs)
        assert design.score(labels) == result.score


def test_inputs_not_modified(blobs):
    X, y = blobs
    X_in, y_in = X.copy(), y.astype(np.int64)
    X_before, y_before = X_in.copy(), y_in.copy()
    lsmi_score(X_in, y_in, n_centers=60, random_state=0)
    design = LSMIDesign(X_in, n_centers=60, random_state=0)
    design.evaluate(y_in)
    assert_allclose(X_in, X_before, rtol=0, atol=0)
    assert np.array_equal(y_in, y_before)
    X_list = X[:40].tolist()
    lsmi_score(X_list, list(y[:40]), random_state=0)
    assert X_list == X[:40].tolist()


def test_design_picklable(blobs):
    X, y = blobs
    design = LSMIDesign(X, n_centers=60, random_state=0)
    clone = pickle.loads(pickle.dumps(design))
    assert clone.evaluate(y) == design.evaluate(y)
    assert clone.score(y % 2) == design.score(y % 2)


def test_design_shared_across_threads(blobs):
    X, y = blobs
    design = LSMIDesign(X, n_centers=120, random_state=0)
    rng = np.random.RandomState(0)
    labelings = [y, y % 2, rng.randint(3, size=len(y)), rng.permutation(y)] * 2
    expected = [design.evaluate(labels) for labels in labelings]
    blas_before = [info["num_threads"] for info in threadpool_info()]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(design.evaluate, labelings))
    assert results == expected
    # The temporary single-thread BLAS limit is restored afterwards.
    assert [info["num_threads"] for info in threadpool_info()] == blas_before


def test_result_and_attributes(blobs):
    X, y = blobs
    design = LSMIDesign(X, n_centers=50, random_state=0)
    result = design.evaluate(y)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.score = 0.0
    assert result.kernel_width in design.kernel_widths_
    assert result.regularization in design.regularizations_
    assert np.isfinite(result.cv_error)
    assert design.cross_validates_
    assert_allclose(
        design.kernel_widths_ / design.median_distance_, 2.0 ** np.arange(-4, 2)
    )
    assert_allclose(design.regularizations_, [1e-4, 1e-3, 1e-2, 1e-1])
    assert sum(f.size for f in design.fold_indices_) == len(X)
    assert not design._gram_held.flags.writeable


def test_default_grid_is_scale_invariant(blobs):
    X, y = blobs
    base = LSMIDesign(X, n_centers=60, random_state=0)
    scaled = LSMIDesign(X * 1000.0, n_centers=60, random_state=0)
    assert_allclose(scaled.kernel_widths_, 1000.0 * base.kernel_widths_, rtol=1e-12)
    assert_allclose(scaled.score(y), base.score(y), rtol=1e-8)


def test_zero_regularization_falls_back_to_least_squares():
    X, y = _tiny_problem()
    X = np.vstack([X, X[:5]])  # duplicated samples: singular H
    y = np.concatenate([y, y[:5]])
    result = LSMIDesign(X, kernel_width=[0.5, 1.0], regularization=0.0).evaluate(y)
    assert result.regularization == 0.0
    assert np.isfinite(result.score) and np.isfinite(result.cv_error)


# ---------------------------------------------------------------------------
# Validation.
# ---------------------------------------------------------------------------

_X = np.random.RandomState(0).randn(30, 2)
_Y = np.arange(30) % 3


@pytest.mark.parametrize(
    "X, labels, kwargs, error, match",
    [
        (
            _X,
            _Y,
            {"n_centers": 0},
            ValueError,
            r"The 'n_centers' parameter of lsmi_score must be an int in the range "
            r"\[1, inf\)\. Got 0 instead\.",
        ),
        (_X, _Y, {"n_centers": 2.5}, TypeError, r"'n_centers' parameter.*Got 2\.5"),
        (_X, _Y, {"n_folds": 1}, ValueError, r"'n_folds' parameter .* \[2, inf\)"),
        (_X, _Y, {"max_centers_per_class": 0}, ValueError,
         r"'max_centers_per_class' parameter of lsmi_score .* \[1, inf\) or None"),
        (_X, _Y, {"n_folds": 31}, ValueError, r"n_folds=31 for n_samples=30"),
        (_X, _Y, {"kernel_width": -1.0}, ValueError, r"'kernel_width'.*\(0\.0, inf\)"),
        (_X, _Y, {"kernel_width": [1.0, 0.0]}, ValueError, r"'kernel_width'.*Got \["),
        (_X, _Y, {"kernel_width": "auto"}, TypeError, r"'kernel_width'.*'auto'"),
        (_X, _Y, {"regularization": np.nan}, ValueError, r"'regularization'.*Got nan"),
        (_X, _Y, {"random_state": "a"}, TypeError, r"'random_state' parameter"),
        (_X, _Y[:-1], {}, ValueError, r"'labels'.*n_samples=30.*Got length 29"),
        (_X, _Y[:, None], {}, ValueError, r"'labels'.*1-d.*shape \(30, 1\)"),
        (_X, np.r_[_Y[:-1], np.nan], {}, ValueError, r"'labels'.*finite"),
        (
            _X,
            np.array([1, "a"] * 15, dtype=object),
            {},
            TypeError,
            r"'labels'.*mutually comparable",
        ),
        (np.where(_X > 1.5, np.nan, _X), _Y, {}, ValueError, r"Input X contains NaN"),
        (_X[:, 0], _Y, {}, ValueError, r"Expected 2D array, got 1D array"),
    ],
)
def test_parameter_validation(X, labels, kwargs, error, match):
    with pytest.raises(error, match=match):
        lsmi_score(X, labels, **kwargs)


def test_design_validation_names_its_owner():
    with pytest.raises(ValueError, match="'n_centers' parameter of LSMIDesign"):
        LSMIDesign(_X, n_centers=0)
    with pytest.raises(ValueError,
                       match=r"'max_centers_per_class' parameter of LSMIDesign.*Got 0"):
        LSMIDesign(_X, max_centers_per_class=0)
    with pytest.raises(TypeError, match=r"'max_centers_per_class'.*Got 2\.5"):
        LSMIDesign(_X, max_centers_per_class=2.5)
    design = LSMIDesign(_X, kernel_width=1.0, regularization=0.1)
    with pytest.raises(ValueError, match="'labels' parameter of LSMIDesign.evaluate"):
        design.evaluate(_Y[:10])


def test_lsmi_score_refuses_missing_values_in_object_labels():
    # each NaN was a class of its own (NaN is unequal to itself)
    X = np.random.RandomState(0).normal(size=(20, 2))
    labels = np.array([np.nan] * 10 + [1] * 10, dtype=object)
    with pytest.raises(ValueError, match="'labels' parameter of lsmi_score must "
                       "hold a label for every sample .*got 10 missing"):
        lsmi_score(X, labels)


@pytest.mark.parametrize("labels", [set(range(2)), {0: 0, 1: 1}, frozenset([0, 1])])
def test_unordered_labels_are_refused_by_type(labels):
    # a set or dict has no order to match the rows: named, not "shape ()"
    X = np.random.RandomState(0).normal(size=(2, 2))
    name = type(labels).__name__
    with pytest.raises(TypeError, match=f"Got a {name}, which has no order"):
        lsmi_score(X, labels, random_state=0)
