"""Data sets of the 3SMIC experiments: loaders of shipped files and sub-samples.

Loaders (each verifies the sha256 of its shipped file and returns fresh copies):
:func:`load_parkinson`, :func:`load_spam`, :func:`load_sonar`, :func:`load_usps`,
:func:`load_olivetti`. Random sub-samples of the paper: :func:`make_digits500`,
:func:`make_digits5k`, :func:`make_faces100`.

:data:`DATASETS` maps the six problem names of the paper to a
:class:`DatasetInfo` record; ``DATASETS[name].load(random_state)`` returns
``(X, y)``. :data:`SKLEARN_DATASETS` adds real data sets bundled with
scikit-learn (``"iris"``, ``"wine"``, ``"breast_cancer"``; each load checks a
sha256 of the arrays); :func:`dataset_info` looks a name up in both.
"""

from ._bundled import SKLEARN_DATASETS
from ._info import DataChecksumError, DatasetInfo
from ._loaders import (
    load_olivetti,
    load_parkinson,
    load_sonar,
    load_spam,
    load_usps,
)
from ._mnist import load_mnist
from ._samples import make_digits5k, make_digits500, make_faces100

__all__ = [
    "DATASETS",
    "DataChecksumError",
    "DatasetInfo",
    "SKLEARN_DATASETS",
    "dataset_info",
    "load_mnist",
    "load_olivetti",
    "load_parkinson",
    "load_sonar",
    "load_spam",
    "load_usps",
    "make_digits500",
    "make_digits5k",
    "make_faces100",
]


def _parkinson(random_state=None):
    return load_parkinson()


def _spam(random_state=None):
    return load_spam()


def _sonar(random_state=None):
    return load_sonar()


def _digits500(random_state=None):
    return make_digits500(random_state=random_state)


def _digits5k(random_state=None):
    return make_digits5k(random_state=random_state)


def _faces100(random_state=None):
    return make_faces100(random_state=random_state)


#: The six problems of the paper's experiments, by name.
DATASETS = {
    info.name: info
    for info in (
        DatasetInfo(
            "parkinson",
            _parkinson,
            195,
            22,
            2,
            "UCI Parkinsons: voice measures, Parkinson's disease vs. healthy",
            False,
        ),
        DatasetInfo(
            "spam",
            _spam,
            4601,
            57,
            2,
            "UCI Spambase: word and character frequencies, spam vs. non-spam",
            False,
        ),
        DatasetInfo(
            "sonar",
            _sonar,
            208,
            60,
            2,
            "UCI Sonar: energy in 60 frequency bands, rock vs. mine",
            False,
        ),
        DatasetInfo(
            "digits500",
            _digits500,
            500,
            256,
            10,
            "USPS digits, 50 random 16x16 images per digit, pixels in [-1, 1]",
            True,
        ),
        DatasetInfo(
            "digits5k",
            _digits5k,
            5000,
            256,
            10,
            "USPS digits, 500 random 16x16 images per digit, pixels in [-1, 1]",
            True,
        ),
        DatasetInfo(
            "faces100",
            _faces100,
            100,
            4096,
            10,
            "Olivetti faces, all 10 64x64 images of 10 random persons",
            True,
        ),
    )
}


def dataset_info(name):
    """Registry record of a problem, by name.

    Looks `name` up in :data:`DATASETS` (the paper's six), then in
    :data:`SKLEARN_DATASETS` (real data sets bundled with scikit-learn).

    Parameters
    ----------
    name : str
        Problem name, e.g. ``"sonar"`` or ``"iris"``.

    Returns
    -------
    info : DatasetInfo

    Raises
    ------
    ValueError
        When `name` is in neither registry.

    Examples
    --------
    >>> from smiclust.datasets import dataset_info
    >>> info = dataset_info("iris")
    >>> (info.n_samples, info.n_features, info.n_classes)
    (150, 4, 3)
    """
    if name in DATASETS:
        return DATASETS[name]
    if name in SKLEARN_DATASETS:
        return SKLEARN_DATASETS[name]
    raise ValueError(
        f"dataset must be one of {[*DATASETS, *SKLEARN_DATASETS]}; got {name!r}"
    )
