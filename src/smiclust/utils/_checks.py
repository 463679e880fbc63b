"""Input checks shared by the public functions (estimators use ``validate_data``)."""

import numbers

import numpy as np
from sklearn.utils import check_array

__all__ = ["check_samples", "check_n_neighbors", "check_n_clusters"]


def check_samples(X, *, owner, min_samples=1, name="X"):
    """Validate a finite, real, dense 2-d sample matrix and return it as float64.

    Raises ``TypeError`` for sparse, complex, object or boolean input and
    ``ValueError`` for NaN / inf, wrong dimensions or too few samples.
    """
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise TypeError(
            f"{owner} expects a dense array for {name!r}; got a sparse "
            f"{type(X).__name__}. Convert it with .toarray() first."
        )
    dtype = getattr(X, "dtype", None)
    if dtype is None:
        try:
            dtype = np.asarray(X).dtype
        except (ValueError, TypeError) as exc:
            raise ValueError(
                f"{owner} expects {name!r} to be a 2-d array of numbers; it could "
                f"not be read as an array ({exc})."
            ) from None
    if isinstance(dtype, np.dtype) and dtype.kind in "bcUSVMm":
        raise TypeError(
            f"{owner} expects real numbers in {name!r}; got an array of dtype "
            f"{dtype}."
        )
    if isinstance(dtype, np.dtype) and dtype.kind == "O":
        try:
            np.asarray(X, dtype=np.float64)
        except (ValueError, TypeError):
            raise TypeError(
                f"{owner} expects real numbers in {name!r}; got an object array "
                "holding values that are not numbers."
            ) from None
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
