"""Input checks shared by the public functions and the estimators."""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array

__all__ = [
    "check_numeric",
    "canonical_sparse",
    "check_samples",
    "check_n_neighbors",
    "check_n_clusters",
    "unit_exponent",
    "at_unit_scale",
    "validate_training_samples",
]


def check_numeric(X, *, owner, name="X", accept_sparse=False):
    """Reject input that is not a 2-d table of real numbers, before conversion.

    Sparse matrices (unless ``accept_sparse``), string, byte, datetime and
    object arrays holding non-numbers raise ``TypeError`` naming ``name``,
    ``owner`` and the received type; complex arrays raise ``ValueError``
    (scikit-learn's convention). Booleans are accepted (as 0 / 1, like
    scikit-learn). An array that is not 2-d raises ``ValueError`` naming its
    shape (with scikit-learn's hint "Reshape your data"). Accepted sparse
    input is checked by scikit-learn's ``check_array`` afterwards.
    """
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        if accept_sparse:
            return
        raise TypeError(
            f"{owner} expects a dense array for {name!r}; got a sparse "
            f"{type(X).__name__}. Convert it with .toarray() first."
        )
    dtype = getattr(X, "dtype", None)
    shape = getattr(X, "shape", None)
    if not isinstance(dtype, np.dtype) or not isinstance(shape, tuple):
        try:
            arr = np.asarray(X)
        except (ValueError, TypeError):
            raise ValueError(
                f"{owner} expects {name!r} to be a 2-d array of numbers; got a "
                f"ragged or unreadable {type(X).__name__}."
            ) from None
        dtype, shape = arr.dtype, arr.shape
    if len(shape) != 2:
        # starts with scikit-learn's wording, which callers may already match
        raise ValueError(
            f"Expected 2D array, got {len(shape)}D array instead: {owner} expects "
            f"{name!r} of shape (n_samples, n_features); got shape {shape}. "
            f"Reshape your data with {name}.reshape(-1, 1) if it has a single "
            f"feature or {name}.reshape(1, -1) if it is a single sample."
        )
    if dtype.kind == "c":
        # ValueError, with scikit-learn's wording, as its common checks expect
        raise ValueError(
            f"Complex data not supported: {owner} expects real numbers in "
            f"{name!r}; got an array of dtype {dtype}."
        )
    if dtype.kind in "USVMm":
        raise TypeError(
            f"{owner} expects real numbers in {name!r}; got an array of dtype {dtype}."
        )
    if dtype.kind == "O":
        try:
            np.asarray(X, dtype=np.float64)
        except (ValueError, TypeError) as exc:
            missing = _first_missing(X)
            if missing is not None:
                (i, j), value = missing
                raise ValueError(
                    f"{owner} does not accept missing values in {name!r}; found "
                    f"{value!r} at row {i}, column {j}. Impute or drop them first."
                ) from None
            raise TypeError(
                f"{owner} expects real numbers in {name!r}; got an object array "
                f"holding values that are not numbers ({exc})."
            ) from None


def _first_missing(X):
    """Position and value of the first ``None`` or pandas ``NA``/``NaT`` cell."""
    arr = np.asarray(X, dtype=object)
    for index, value in np.ndenumerate(arr):
        if value is None or type(value).__name__ in ("NAType", "NaTType"):
            return index, value
    return None


def _user_stacklevel():
    """:func:`smiclust.utils.user_stacklevel` for the caller (imported here:
    the package imports this module first)."""
    from . import user_stacklevel

    return user_stacklevel() - 1


def canonical_sparse(X):
    """``X`` itself, or, for a sparse matrix with duplicate entries or
    unsorted indices, a copy with the duplicates summed and the indices
    sorted (the caller's matrix is left as it is).

    A CSR matrix may hold one entry twice; it means their sum, but
    scikit-learn's sparse Euclidean distances read such rows wrong, so the
    neighbours of the same data given dense would differ.

    Index arrays of 64-bit integers (scipy's sparse *arrays* built from
    int64 coordinates) are given as 32-bit ones, on a copy, where the
    matrix's shape and entries fit: scikit-learn's trees refuse 64-bit
    indices, so the forest of the default could not read such a matrix.
    """
    if not sp.issparse(X):
        return X
    limit = np.iinfo(np.int32).max
    narrow = (X.format in ("csr", "csc")
              and (X.indices.dtype != np.int32 or X.indptr.dtype != np.int32)
              and max(X.shape) <= limit and X.nnz <= limit)
    if X.has_canonical_format and not narrow:
        return X
    X = X.copy()  # one copy for both changes
    if not X.has_canonical_format:
        X.sum_duplicates()
    if narrow:
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
    return X


def check_samples(X, *, owner, min_samples=1, name="X", accept_sparse=False):
    """Validate a finite, real 2-d sample matrix and return it as float64.

    Raises ``TypeError`` for complex, string or object input, and for sparse
    input unless ``accept_sparse`` (then returned as CSR; see
    :func:`check_numeric`), and ``ValueError`` for NaN / inf, wrong dimensions
    or too few samples.
    """
    check_numeric(X, owner=owner, name=name, accept_sparse=accept_sparse)
    return canonical_sparse(check_array(
        X,
        accept_sparse="csr" if accept_sparse else False,
        dtype=np.float64,
        ensure_min_samples=min_samples,
        input_name=name,
        estimator=owner,
    ))


def at_unit_scale(X, exponent):
    """``X`` times ``2**-exponent`` (exact), dense or sparse; ``X`` itself
    when ``exponent`` is 0, else a new array."""
    if not exponent:
        return X
    if sp.issparse(X):
        X = X.copy()
        X.data = np.ldexp(X.data, -exponent)
        return X
    return np.ldexp(X, -exponent)


def check_n_neighbors(n_neighbors, n_samples, *, owner):
    """``n_neighbors`` must be an int with ``1 <= n_neighbors < n_samples``.

    A grid (list, tuple, range or array of ints, validated before) is checked
    value by value, and returned as a list of ints.
    """
    from ._validation import GRID_TYPES, as_grid

    grid = isinstance(n_neighbors, GRID_TYPES)
    values = as_grid(n_neighbors) if grid else (n_neighbors,)
    for value in values:
        if not isinstance(value, numbers.Integral) or isinstance(
            value, (bool, np.bool_)
        ):
            raise TypeError(
                f"The 'n_neighbors' parameter of {owner} must be an int. "
                f"Got {n_neighbors!r} instead."
            )
        if not 1 <= value < n_samples:
            what = "an int" if not grid else "ints, each"
            raise ValueError(
                f"The 'n_neighbors' parameter of {owner} must be {what} in the "
                f"range [1, n_samples - 1] = [1, {n_samples - 1}], i.e. smaller than "
                f"n_samples={n_samples}. Got {n_neighbors!r} instead."
            )
    return [int(t) for t in values] if grid else int(n_neighbors)


def check_n_clusters(n_clusters, n_samples, *, owner):
    """``n_clusters`` must be an int with ``1 <= n_clusters <= n_samples``."""
    if not isinstance(n_clusters, numbers.Integral) or isinstance(
        n_clusters, (bool, np.bool_)
    ):
        raise TypeError(
            f"The 'n_clusters' parameter of {owner} must be an int. "
            f"Got {n_clusters!r} instead."
        )
    if not 1 <= n_clusters <= n_samples:
        raise ValueError(
            f"The 'n_clusters' parameter of {owner} must be an int in the range "
            f"[1, n_samples] = [1, {n_samples}]. Got {n_clusters!r} instead."
        )
    return int(n_clusters)


def unit_exponent(X):
    """Exponent ``e`` such that ``np.ldexp(X, -e)`` has its largest magnitude in
    [0.5, 1), or 0 when ``X`` needs no rescaling.

    Prior validation is assumed (finite float array). Squared distances
    overflow above about 1e154 and underflow below about 1e-154; the
    local-scaling kernel and LSMI with its default (relative) width grid are
    invariant to a global scaling of ``X``, so data outside
    ``[2**-100, 2**100)`` is computed at unit scale. A power of two rescales
    exactly (``np.ldexp``), so results are those of the unit-scale data.
    """
    return _exponent_of_peak(_largest_magnitude(X))


def _largest_magnitude(X):
    """``max |X|`` (0 for an empty ``X``), without a copy of ``X``."""
    values = X.data if sp.issparse(X) else X
    if not values.size:
        return 0.0
    return max(float(values.max()), -float(values.min()))


def _exponent_of_peak(peak):
    """:func:`unit_exponent` of data whose largest magnitude is ``peak``."""
    if peak == 0.0 or 2.0**-100 <= peak < 2.0**100:
        return 0
    return int(np.frexp(peak)[1])


def _all_rows_equal(X):
    if sp.issparse(X):
        # every column constant (implicit zeros count), without densifying
        return bool((X.max(axis=0) != X.min(axis=0)).nnz == 0)
    return bool(np.all(X == X[0]))


def validate_training_samples(estimator, X, n_clusters, *, accept_sparse=False):
    """Validate ``X`` and ``n_clusters`` for ``estimator.fit``.

    Runs :func:`check_numeric` (clear ``TypeError`` / ``ValueError`` naming
    ``X``; sparse ``X`` only with ``accept_sparse``, as CSR), scikit-learn's
    ``validate_data`` (finite, at least 2 samples; sets
    ``n_features_in_``) and :func:`check_n_clusters`, and warns when every
    sample is identical and more than one cluster is asked for (the kernel then
    cannot tell the samples apart) and when one value dwarfs the others so
    that their distances underflow (:func:`_warn_if_distances_underflow`).

    Returns
    -------
    X : ndarray or CSR matrix of shape (n_samples, n_features), float64
        A validated copy or view; the caller's array is never modified.
        Sparse input stays sparse (CSR, :func:`canonical_sparse`).
    n_clusters : int
    exponent : int
        :func:`unit_exponent` of ``X``: ``np.ldexp(X, -exponent)`` is the
        data at unit scale, on which neighbours and kernels stay finite.
    """
    from sklearn.utils.validation import validate_data

    owner = type(estimator).__name__
    check_numeric(X, owner=owner, accept_sparse=accept_sparse)
    X = canonical_sparse(validate_data(
        estimator, X, accept_sparse="csr" if accept_sparse else False,
        dtype=np.float64, ensure_min_samples=2))
    n = X.shape[0]
    c = check_n_clusters(n_clusters, n, owner=owner)
    if c > 1 and _all_rows_equal(X):
        warnings.warn(
            f"All {n} samples of X are identical: the kernel cannot tell them "
            "apart, so the clusters follow only the links and the neighbour "
            "search's tie-breaking.",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
    peak = _largest_magnitude(X)
    _warn_if_distances_underflow(X, peak)
    return X, c, _exponent_of_peak(peak)


#: Largest ratio of ``max |X|`` to the median nonzero ``|X|`` below which the
#: squared distances of the samples at unit scale stay representable (float64
#: squares span about 1e-308 to 1e308).
DYNAMIC_RANGE_MAX = 1e150


def _warn_if_distances_underflow(X, largest):
    """Warn when one value, ``largest`` (``max |X|``), dwarfs the others by
    more than :data:`DYNAMIC_RANGE_MAX` (e.g. a missing-value code of 1e200):
    at the unit scale of :func:`unit_exponent` the squared differences of the
    other samples underflow to 0 and they all look like copies of each other.
    The median is read on about a million entries (whole rows, evenly
    spaced, for dense ``X``)."""
    values = X.data if sp.issparse(X) else X
    if not values.size:
        return
    if sp.issparse(X):
        sample = values[:: max(1, values.size // 1_000_000)]
    else:  # whole rows, evenly spaced: every column is read
        sample = X[:: max(1, X.size // 1_000_000)].ravel()
    sample = np.abs(sample)
    sample = sample[sample > 0]
    if not sample.size:
        return
    median = float(np.median(sample))
    if largest > DYNAMIC_RANGE_MAX * median:
        warnings.warn(
            f"X spans more than 150 orders of magnitude (largest |value| "
            f"{largest:.3g}, median {median:.3g}): beside it the squared "
            "distances of the other samples underflow to 0, so they look like "
            "copies of each other. Remove or clip the extreme values (a "
            "missing-value code?).",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
