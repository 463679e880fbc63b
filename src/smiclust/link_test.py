r"""Do the links help? A held-out test of the links against the data alone.

Links can be wrong. When enough of them are, a model fitted with them
predicts the relation of two samples worse than the same model fitted
without any link. The test here measures that on the links themselves:

1. The linked samples are dealt at random into ``n_folds`` folds. In fold
   :math:`f` the model is fitted with the links between samples outside
   :math:`f` only, so every sample of :math:`f` is in no link of that fit.
2. A link :math:`(i, j)` is predicted once, by the fit of the first of its
   two samples' folds, :math:`\min(f_i, f_j)`: *right* when the fit puts
   :math:`i` and :math:`j` together for a must-link, apart for a
   cannot-link (not violated, :func:`smiclust.constraints.link_violations`).
3. The fit without links never saw a link, so its predictions of the same
   links are held out as they are.
4. The links of one sample are not independent (a held-out sample put in
   the wrong cluster gets all its links wrong at once; links from labels
   come in cliques), so the unit of the comparison is the sample: each link
   belongs to its sample in the predicting fold (the first of the two when
   both are), and a sample scores the number of its links the fit without
   links gets right minus the number the fit with links gets right.
5. An exact one-sided sign test on those scores: with :math:`d` samples of
   non-zero score, :math:`k` of them positive, the p-value is
   :math:`P(B \ge k)` for :math:`B \sim \mathrm{Binomial}(d, 1/2)`. A
   small p-value says the data alone predict the links better than the
   links do: the links disagree with each other through the data, which
   correct links do not.

Pure functions on validated arrays; the estimator supplies the fits.
"""

from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest

from .constraints import link_violations

__all__ = ["LinkFolds", "link_folds", "sign_test_pvalue", "agreement_over_chance"]


@dataclass(frozen=True)
class LinkFolds:
    """Folds of the linked samples and, per fold, the links it trains on and
    the links it predicts.

    Attributes
    ----------
    sample_fold : ndarray of shape (n_samples,)
        Fold of each linked sample, ``-1`` for the samples in no link.
    must_fold, cannot_fold : ndarray of shape (n_must,), (n_cannot,)
        Fold that predicts each link: the smaller of its samples' folds.
    must_unit, cannot_unit : ndarray of shape (n_must,), (n_cannot,)
        Sample each link belongs to in the test: its sample in the
        predicting fold (the first of the pair when both are).
    n_folds : int
    """

    sample_fold: np.ndarray
    must_fold: np.ndarray
    cannot_fold: np.ndarray
    must_unit: np.ndarray
    cannot_unit: np.ndarray
    n_folds: int

    def training_links(self, must_link, cannot_link, fold):
        """The links with neither sample in ``fold``."""
        return (
            must_link[_outside(self.sample_fold, must_link, fold)],
            cannot_link[_outside(self.sample_fold, cannot_link, fold)],
        )


def _outside(sample_fold, pairs, fold):
    return (sample_fold[pairs[:, 0]] != fold) & (sample_fold[pairs[:, 1]] != fold)


def link_folds(must_link, cannot_link, n_samples, n_folds, rng):
    """Deal the linked samples into folds at random.

    Parameters
    ----------
    must_link, cannot_link : ndarray of shape (n_pairs, 2)
        Validated links (sample indices).
    n_samples : int
    n_folds : int
        Folds wanted; fewer when there are fewer linked samples.
    rng : numpy.random.RandomState

    Returns
    -------
    folds : LinkFolds
    """
    linked = np.unique(np.concatenate([must_link.ravel(), cannot_link.ravel()]))
    n_folds = int(min(n_folds, linked.size))
    sample_fold = np.full(n_samples, -1, dtype=np.intp)
    sample_fold[linked[rng.permutation(linked.size)]] = (
        np.arange(linked.size) % max(n_folds, 1)
    )

    def predicting_fold(pairs):
        return np.minimum(sample_fold[pairs[:, 0]], sample_fold[pairs[:, 1]])

    def unit(pairs):
        first_predicts = sample_fold[pairs[:, 0]] <= sample_fold[pairs[:, 1]]
        return np.where(first_predicts, pairs[:, 0], pairs[:, 1])

    return LinkFolds(
        sample_fold, predicting_fold(must_link), predicting_fold(cannot_link),
        unit(must_link), unit(cannot_link), n_folds,
    )


def sign_test_pvalue(right_a, right_b, units):
    r"""One-sided exact sign test that predictor ``b`` is right more often
    than ``a`` on the same items, grouped into units.

    A unit scores the number of its items ``b`` gets right minus the number
    ``a`` gets right; only units of non-zero score count. With :math:`d` of
    them and :math:`k` of positive score, the p-value is :math:`P(B \ge k)`,
    :math:`B \sim \mathrm{Binomial}(d, 1/2)`; 1 when :math:`d = 0`.

    Parameters
    ----------
    right_a, right_b : ndarray of bool of shape (n_items,)
    units : ndarray of int of shape (n_items,)
        Unit of each item (non-negative).

    Returns
    -------
    p_value : float
    """
    right_a = np.asarray(right_a, dtype=bool)
    right_b = np.asarray(right_b, dtype=bool)
    units = np.asarray(units, dtype=np.intp)
    if units.size == 0:
        return 1.0
    score = np.bincount(units, weights=right_b.astype(float) - right_a, minlength=0)
    b_better = int(np.count_nonzero(score > 0))
    scored = b_better + int(np.count_nonzero(score < 0))
    if scored == 0:
        return 1.0
    return float(binomtest(b_better, scored, 0.5, alternative="greater").pvalue)


def agreement_over_chance(labels, must_link, cannot_link):
    r"""How far a labelling agrees with the links beyond chance, as a z score.

    With :math:`q_k` the share of the samples in cluster :math:`k`, two
    samples drawn at random share a cluster with probability
    :math:`r = \sum_k q_k^2`. A labelling that knows nothing of the links
    keeps a must-link with probability :math:`r` and a cannot-link with
    :math:`1 - r`. The balanced agreement :math:`a = (a_M + a_C) / 2` (the
    share of must-links kept and the share of cannot-links kept; one of them
    alone when only one kind is given) is compared with its value under that
    chance, :math:`e = (r + 1 - r) / 2`, in units of its standard deviation
    there, treating links as independent:

    .. math::

        z = \frac{a - e}{\sqrt{r (1 - r) \sum_L 1 / n_L} / m},

    with :math:`n_L` the number of links of each kind given and :math:`m`
    the number of kinds (1 or 2).

    Parameters
    ----------
    labels : ndarray of shape (n_samples,)
        Non-negative integers.
    must_link, cannot_link : ndarray of shape (n_pairs, 2)

    Returns
    -------
    z : float
        0 when the labelling has a single cluster (it cannot agree beyond
        chance) and NaN without links.
    """
    labels = np.asarray(labels)
    share = np.bincount(labels) / labels.size
    r = float(share @ share)
    broken_must, broken_cannot = link_violations(labels, must_link, cannot_link)
    parts = []
    if len(must_link):
        parts.append((np.mean(~broken_must), r, len(must_link)))
    if len(cannot_link):
        parts.append((np.mean(~broken_cannot), 1.0 - r, len(cannot_link)))
    if not parts:
        return float("nan")
    spread = r * (1.0 - r) * sum(1.0 / n for _, _, n in parts)
    if spread <= 0.0:
        return 0.0
    m = len(parts)
    gap = sum(a for a, _, _ in parts) / m - sum(e for _, e, _ in parts) / m
    return float(gap / (np.sqrt(spread) / m))
