"""The registry record of one experiment problem."""

from dataclasses import dataclass
from typing import Callable

__all__ = ["DataChecksumError", "DatasetInfo"]


class DataChecksumError(OSError, ValueError):
    """A data file or data set whose sha256 is not the recorded one (an
    ``OSError`` for the shipped files, a ``ValueError`` for the bundled and
    MNIST arrays, as documented by their loaders); the message names it and
    both digests."""


@dataclass(frozen=True)
class DatasetInfo:
    """Registry record of one experiment problem.

    Parameters
    ----------
    name : str
        Problem name as in the paper, e.g. ``"digits500"``.
    loader : callable
        ``loader(random_state) -> (X, y)``; ignores `random_state` when
        `random_subsample` is False.
    n_samples : int
        Number of rows of ``X``.
    n_features : int
        Number of columns of ``X``.
    n_classes : int
        Number of classes; ``y`` takes the values ``0..n_classes-1``.
    description : str
        One-line description.
    random_subsample : bool
        Whether the problem is a random draw that depends on `random_state`.

    Examples
    --------
    >>> from smiclust.datasets import DATASETS
    >>> info = DATASETS["sonar"]
    >>> (info.n_samples, info.n_features, info.n_classes)
    (208, 60, 2)
    >>> X, y = info.load(random_state=0)
    >>> X.shape
    (208, 60)
    """

    name: str
    loader: Callable
    n_samples: int
    n_features: int
    n_classes: int
    description: str
    random_subsample: bool

    def load(self, random_state=None):
        """Return ``(X, y)`` of the problem.

        Parameters
        ----------
        random_state : int, RandomState instance or None, default=None
            Seed of the draw for random sub-samples; ignored otherwise.

        Returns
        -------
        X : ndarray of shape (n_samples, n_features), dtype float64
        y : ndarray of shape (n_samples,), dtype int64
        """
        return self.loader(random_state)

    def __call__(self, random_state=None):
        """Same as :meth:`load`."""
        return self.load(random_state)
