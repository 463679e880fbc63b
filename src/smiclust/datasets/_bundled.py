"""Real data sets bundled with scikit-learn, as experiment problems.

:data:`SKLEARN_DATASETS` maps ``"iris"``, ``"wine"`` and ``"breast_cancer"``
to a :class:`~smiclust.datasets.DatasetInfo` record. Each loader calls
``sklearn.datasets.load_<name>(return_X_y=True)`` (files shipped inside
scikit-learn, no download), checks the sha256 of the arrays against the value
recorded below and returns fresh ``float64`` / ``int64`` copies: a scikit-learn
whose copy of the data differs raises instead of silently changing results.
"""

import hashlib

import numpy as np

from ._info import DataChecksumError, DatasetInfo

__all__ = ["SKLEARN_DATASETS"]

# sha256 of ``np.ascontiguousarray(X, np.float64).tobytes()
# + np.ascontiguousarray(y, np.int64).tobytes()``, computed with scikit-learn
# 1.9.1.
_SHA256 = {
    "iris": "aa06b8008ceba42efc654be0f83fdafc786239c9e8f13146044d078f5aab8f23",
    "wine": "3a28849ef2366c4b9d4e382b3fa5624a66f693c04d7fdcf43c529bbb0bb338d7",
    "breast_cancer": (
        "25e2eb7b7a8745b1bde5ba18bc4969983d2e2f403291ecd5bde4a29ef30c3859"
    ),
}


def _digest(X, y):
    """sha256 of the bytes of contiguous ``float64`` X then ``int64`` y."""
    return hashlib.sha256(
        np.ascontiguousarray(X, np.float64).tobytes()
        + np.ascontiguousarray(y, np.int64).tobytes()
    ).hexdigest()


def _check_digest(name, X, y):
    """Raise ValueError when the sha256 of ``(X, y)`` is not the recorded one.

    ``name`` must be a key of ``_SHA256``.
    """
    expected = _SHA256[name]
    received = _digest(X, y)
    if received != expected:
        raise DataChecksumError(
            f"The data set {name!r} loaded from scikit-learn does not match the "
            f"recorded copy: expected sha256 {expected}, got {received}."
        )


def _load_sklearn(name):
    """``(X, y)`` of ``sklearn.datasets.load_<name>``, checked, as fresh
    ``float64`` and ``int64`` arrays."""
    from sklearn import datasets

    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    X = np.array(X, dtype=np.float64, order="C")
    y = np.array(y, dtype=np.int64)
    _check_digest(name, X, y)
    return X, y


def _iris(random_state=None):
    return _load_sklearn("iris")


def _wine(random_state=None):
    return _load_sklearn("wine")


def _breast_cancer(random_state=None):
    return _load_sklearn("breast_cancer")


#: Real data sets bundled with scikit-learn, by name (not in the paper).
SKLEARN_DATASETS = {
    info.name: info
    for info in (
        DatasetInfo(
            "iris",
            _iris,
            150,
            4,
            3,
            "Fisher's iris (scikit-learn): 4 flower measures, 3 species",
            False,
        ),
        DatasetInfo(
            "wine",
            _wine,
            178,
            13,
            3,
            "UCI Wine (scikit-learn): 13 chemical measures, 3 cultivars",
            False,
        ),
        DatasetInfo(
            "breast_cancer",
            _breast_cancer,
            569,
            30,
            2,
            "UCI Breast Cancer Wisconsin (scikit-learn): 30 cell-nucleus "
            "features, malignant vs. benign",
            False,
        ),
    )
}
