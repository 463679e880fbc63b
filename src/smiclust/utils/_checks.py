"""Input checks shared by the public functions (estimators use ``validate_data``)."""

import numbers

import numpy as np
from sklearn.utils import check_array

__all__ = [
    "check_numeric",
    "check_samples",
    "check_n_neighbors",
    "check_n_clusters",
]


def check_numeric(X, *, owner, name="X"):
    """Reject input that is not made of real numbers, before any conversion.

    Sparse matrices, string, byte, datetime and object arrays holding
    non-numbers raise ``TypeError`` naming ``name``, ``owner`` and the received
    type; complex arrays raise ``ValueError`` (scikit-learn's convention).
    Booleans are accepted (as 0 / 1, like scikit-learn).
    """
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise TypeError(
            f"{owner} expects a dense array for {name!r}; got a sparse "
            f"{type(X).__name__}. Convert it with .toarray() first."
        )
    dtype = getattr(X, "dtype", None)
    if not isinstance(dtype, np.dtype):
        try:
            dtype = np.asarray(X).dtype
        except (ValueError, TypeError):
            raise ValueError(
                f"{owner} expects {name!r} to be a 2-d array of numbers; got a "
                f"ragged or unreadable {type(X).__name__}."
            ) from None
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
            raise TypeError(
                f"{owner} expects real numbers in {name!r}; got an object array "
                f"holding values that are not numbers ({exc})."
            ) from None


def check_samples(X, *, owner, min_samples=1, name="X"):
    """Validate a finite, real, dense 2-d sample matrix and return it as float64.

    Raises ``TypeError`` for sparse, complex, string or object input (see
    :func:`check_numeric`) and ``ValueError`` for NaN / inf, wrong dimensions or
    too few samples.
    """
    check_numeric(X, owner=owner, name=name)
    return check_array(
        X,
        dtype=np.float64,
        ensure_min_samples=min_samples,
        input_name=name,
        estimator=owner,
    )


def check_n_neighbors(n_neighbors, n_samples, *, owner):
    """``n_neighbors`` must be an int with ``1 <= n_neighbors < n_samples``."""
    if not isinstance(n_neighbors, numbers.Integral) or isinstance(
        n_neighbors, (bool, np.bool_)
    ):
        raise TypeError(
            f"The 'n_neighbors' parameter of {owner} must be an int. "
            f"Got {n_neighbors!r} instead."
        )
    if not 1 <= n_neighbors < n_samples:
        raise ValueError(
            f"The 'n_neighbors' parameter of {owner} must be an int in the range "
            f"[1, n_samples - 1] = [1, {n_samples - 1}]. Got {n_neighbors!r} instead."
        )
    return int(n_neighbors)


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
