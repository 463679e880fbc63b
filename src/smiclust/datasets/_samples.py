"""Random sub-samples of USPS and Olivetti used in the experiments of the paper.

Calandriello, Niu & Sugiyama, "Semi-Supervised Information-Maximization
Clustering", section Experiments: ``digits500`` (50 USPS images per digit),
``digits5k`` (500 per digit) and ``faces100`` (10 Olivetti persons, all 10
images of each).
"""

import numpy as np
from sklearn.utils import check_random_state

from ..utils import check_random_state_param, validate_params
from ._loaders import _OLIVETTI_FILE, _USPS_FILE, _read

__all__ = ["make_digits500", "make_digits5k", "make_faces100"]


def _per_class_indices(y, n_per_class, random_state):
    """Draw `n_per_class` indices of each class of `y` without replacement.

    `y` holds the classes ``0..c-1``, each with at least `n_per_class`
    members; `random_state` is a ``RandomState`` instance. The classes are
    visited in increasing order, one draw from `random_state` per class.
    Returns the indices sorted by class, then by index.
    """
    chosen = []
    for label in range(int(y.max()) + 1):
        members = np.flatnonzero(y == label)
        draw = random_state.choice(members.size, size=n_per_class, replace=False)
        chosen.append(np.sort(members[draw]))
    return np.concatenate(chosen)


def _checked_random_state(random_state, owner):
    """A ``RandomState`` for ``random_state``, validated by name."""
    validate_params({"random_state": random_state},
                    {"random_state": check_random_state_param()}, owner)
    return check_random_state(random_state)


def _digits(n_per_class, random_state, owner):
    rng = _checked_random_state(random_state, owner)
    usps = _read(_USPS_FILE)
    index = _per_class_indices(usps["y"], n_per_class, rng)
    X = np.ascontiguousarray(usps["X"][index], dtype=np.float64)
    y = usps["y"][index].astype(np.int64)
    return X, y


def make_digits500(*, random_state=None):
    """Draw the ``digits500`` problem: 50 random USPS images of each digit.

    For every digit 0..9 (in this order), 50 of its images are drawn without
    replacement from all 9298 USPS images (training and test parts, see
    :func:`~smiclust.datasets.load_usps`). Pixels are in [-1, 1].

    Parameters
    ----------
    random_state : int, RandomState instance or None, default=None
        Determines the draw. Pass an int for reproducible output.

    Returns
    -------
    X : ndarray of shape (500, 256), dtype float64
        The images, C-contiguous.
    y : ndarray of shape (500,), dtype int64
        The digits; 50 of each of 0..9.

    See Also
    --------
    make_digits5k : The same with 500 images per digit.
    smiclust.datasets.load_usps : The full USPS set.

    Notes
    -----
    The samples are sorted by class, then by their index in
    :func:`~smiclust.datasets.load_usps`, so ``y`` is ``[0]*50 + [1]*50 + ...``
    and the order carries no information beyond the draw.

    Examples
    --------
    >>> import numpy as np
    >>> from smiclust.datasets import make_digits500
    >>> X, y = make_digits500(random_state=0)
    >>> X.shape
    (500, 256)
    >>> np.bincount(y).tolist()
    [50, 50, 50, 50, 50, 50, 50, 50, 50, 50]
    """
    return _digits(50, random_state, "make_digits500")


def make_digits5k(*, random_state=None):
    """Draw the ``digits5k`` problem: 500 random USPS images of each digit.

    For every digit 0..9 (in this order), 500 of its images are drawn without
    replacement from all 9298 USPS images (training and test parts, see
    :func:`~smiclust.datasets.load_usps`; every digit has at least 708).
    Pixels are in [-1, 1].

    Parameters
    ----------
    random_state : int, RandomState instance or None, default=None
        Determines the draw. Pass an int for reproducible output.

    Returns
    -------
    X : ndarray of shape (5000, 256), dtype float64
        The images, C-contiguous.
    y : ndarray of shape (5000,), dtype int64
        The digits; 500 of each of 0..9.

    See Also
    --------
    make_digits500 : The same with 50 images per digit.
    smiclust.datasets.load_usps : The full USPS set.

    Notes
    -----
    The samples are sorted by class, then by their index in
    :func:`~smiclust.datasets.load_usps`.

    Examples
    --------
    >>> import numpy as np
    >>> from smiclust.datasets import make_digits5k
    >>> X, y = make_digits5k(random_state=0)
    >>> X.shape
    (5000, 256)
    >>> np.unique(np.bincount(y)).tolist()
    [500]
    """
    return _digits(500, random_state, "make_digits5k")


def make_faces100(*, random_state=None):
    """Draw the ``faces100`` problem: all images of 10 random Olivetti persons.

    10 of the 40 persons of :func:`~smiclust.datasets.load_olivetti` are drawn
    without replacement and all 10 images of each are kept. The drawn person
    ids, sorted ascending, are relabelled 0..9: the person with the smallest
    id gets label 0. Values are in [0, 1].

    Parameters
    ----------
    random_state : int, RandomState instance or None, default=None
        Determines the draw. Pass an int for reproducible output.

    Returns
    -------
    X : ndarray of shape (100, 4096), dtype float64
        The images, C-contiguous.
    y : ndarray of shape (100,), dtype int64
        The new labels 0..9, 10 images each.

    See Also
    --------
    smiclust.datasets.load_olivetti : The full Olivetti set.

    Notes
    -----
    The samples are sorted by class, then by their index in
    :func:`~smiclust.datasets.load_olivetti`; as the classes follow the sorted
    person ids, this is the order of the full set restricted to the drawn
    persons.

    Examples
    --------
    >>> import numpy as np
    >>> from smiclust.datasets import make_faces100
    >>> X, y = make_faces100(random_state=0)
    >>> X.shape
    (100, 4096)
    >>> np.bincount(y).tolist()
    [10, 10, 10, 10, 10, 10, 10, 10, 10, 10]
    """
    rng = _checked_random_state(random_state, "make_faces100")
    faces = _read(_OLIVETTI_FILE)
    persons = np.sort(rng.choice(int(faces["y"].max()) + 1, size=10, replace=False))
    index = np.concatenate([np.flatnonzero(faces["y"] == p) for p in persons])
    X = np.ascontiguousarray(faces["X"][index], dtype=np.float64)
    y = np.searchsorted(persons, faces["y"][index]).astype(np.int64)
    return X, y
