r"""A classifier trained on the linked samples votes on the others (beyond the paper).

After the fit, every sample in a link has the label its links decided (the
seeds of :mod:`smiclust.score_spreading`), and the samples in no link take
theirs from the scores spread over the kernel graph. The graph sees the
data's own cluster structure; on data whose classes are not well separated
clusters (most classification tables: UCI Pima, Vehicle, Ionosphere,
Segment) a classifier trained on the seeds sees the class boundaries the
graph misses. Here the two vote with equal weight: the label of a sample in
no link is

.. math::

    \hat y_i = \arg\max_c \; \tfrac12\,\frac{F_{ic}}{\sum_{c'} F_{ic'}}
        + \tfrac12\,\hat p(c \mid x_i),

with :math:`F` the spread scores (:func:`smiclust.score_spreading.spread_scores`)
and :math:`\hat p` the classifier's class probabilities (a random forest by
default). A row of :math:`F` that is all zero counts as uniform.

A classifier learns little from a handful of samples per class (the
project's faces100: 100 images of 4,096 pixels, ten people, two labelled
images each), so the default uses it only when the seeds number at least
:data:`MIN_SEEDS_PER_CLUSTER` per cluster on average (research notes, "A
classifier on the linked samples votes on the others").

Prior validation of inputs is assumed.
"""

import numpy as np
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier

__all__ = [
    "MIN_SEEDS_PER_CLUSTER",
    "default_classifier",
    "uses_classifier",
    "fit_seed_classifier",
    "classifier_probabilities",
    "vote_probabilities",
]

#: Seeds per cluster (on average) below which ``classifier="auto"`` leaves
#: the samples in no link to the spread scores alone.
MIN_SEEDS_PER_CLUSTER = 5

#: Trees of the default random forest.
N_TREES = 100


def default_classifier(random_state):
    """The classifier of ``classifier="auto"``: a random forest of
    :data:`N_TREES` trees, single-threaded, seeded by ``random_state``."""
    return RandomForestClassifier(n_estimators=N_TREES, random_state=random_state,
                                  n_jobs=1)


def uses_classifier(classifier, n_seeds, n_clusters):
    """Whether the samples in no link take a classifier's vote.

    ``None`` never; ``"auto"`` when ``n_seeds >= MIN_SEEDS_PER_CLUSTER *
    n_clusters``; a classifier given by the user always.
    """
    if classifier is None:
        return False
    if isinstance(classifier, str):
        return n_seeds >= MIN_SEEDS_PER_CLUSTER * n_clusters
    return True


def fit_seed_classifier(classifier, X, labels, random_state):
    """A fitted copy of ``classifier`` (``"auto"``: :func:`default_classifier`)
    on the seeds' rows ``X`` and ``labels``; the caller's estimator is cloned,
    never fitted in place."""
    if isinstance(classifier, str):
        model = default_classifier(random_state)
    else:
        model = clone(classifier)
    return model.fit(X, labels)


def classifier_probabilities(model, X, n_clusters):
    """``(n, n_clusters)`` class probabilities of a fitted classifier, columns
    by cluster number (clusters the seeds never held get 0)."""
    P = np.zeros((X.shape[0], n_clusters))
    P[:, np.asarray(model.classes_, dtype=np.intp)] = model.predict_proba(X)
    return P


def vote_probabilities(F, P):
    r"""The equal-weight vote :math:`\tfrac12 F/\sum F + \tfrac12 P`.

    Parameters
    ----------
    F : ndarray of shape (n, c)
        Non-negative spread scores; a zero row counts as uniform.
    P : ndarray of shape (n, c)
        Class probabilities, rows summing to 1.

    Returns
    -------
    V : ndarray of shape (n, c)
        Rows summing to 1 (a new array).
    """
    F = np.asarray(F, dtype=np.float64)
    total = F.sum(axis=1, keepdims=True)
    uniform = np.full_like(F, 1.0 / F.shape[1])
    spread = np.where(total > 0, F / np.where(total > 0, total, 1.0), uniform)
    return 0.5 * spread + 0.5 * np.asarray(P, dtype=np.float64)
