r"""A classifier trained on the linked samples votes on the others (beyond the paper).

After the fit, every sample in a link has the label its links decided (the
seeds of :mod:`smiclust.score_spreading`), and the samples in no link take
theirs from the scores spread over the kernel graph. The graph sees the
data's own cluster structure; on data whose classes are not well separated
clusters (most classification tables: UCI Pima, Vehicle, Ionosphere,
Segment) a classifier trained on the seeds sees the class boundaries the
graph misses. Here the two vote: the label of a sample in no link is

.. math::

    \hat y_i = \arg\max_c \; (1 - w)\,\frac{F_{ic}}{\sum_{c'} F_{ic'}}
        + w\,\hat p(c \mid x_i),

with :math:`F` the spread scores (:func:`smiclust.score_spreading.spread_scores`),
:math:`\hat p` the classifier's class probabilities (a random forest by
default) and :math:`w` the classifier's share: :math:`\tfrac12`
(:data:`VOTE_WEIGHT`, the vote) or 1 (the classifier alone). A row of
:math:`F` that is all zero counts as uniform.

The classifier does not always help: where the graph is right and the
classifier weaker (MNIST digits on 50 principal components, two moons), it
overrules correct spread scores. So ``classifier="auto"`` is used only when
held-out linked samples show it better: the forest's out-of-bag
probabilities (:func:`out_of_bag_probabilities`) stand for its held-out
predictions, alone and in the vote with the spread scores of the folds of
``spreading="auto"`` (their clusters matched to the forest's by
:func:`matching_columns`); :func:`chosen_weight` takes the option that
labels the held-out samples right most often, the spread scores alone on
a tie. A classifier learns little from a handful of samples per class
(the project's faces100: 100 images of 4,096 pixels, ten people, two
labelled images each), so it is not tried with fewer than
:data:`MIN_SEEDS_PER_CLUSTER` seeds per cluster on average (research notes,
"A classifier on the linked samples votes on the others", "The classifier's
vote chosen by held-out linked samples", "The classifier alone as a third
choice of the held-out seeds"). Nor is it tried when fewer than
:data:`MIN_UNLINKED_SHARE` of the samples are in no link: its vote could
change no more labels than that, and its forest, trained on every linked
sample, would cost most of the fit (rule FS).

Prior validation of inputs is assumed.
"""

import contextlib
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier

from .consensus import cluster_mapping

__all__ = [
    "MIN_SEEDS_PER_CLUSTER",
    "MIN_UNLINKED_SHARE",
    "VOTE_WEIGHT",
    "default_classifier",
    "uses_classifier",
    "training_order",
    "fit_seed_classifier",
    "classifier_probabilities",
    "out_of_bag_probabilities",
    "matching_columns",
    "vote_probabilities",
    "chosen_weight",
]

#: Seeds per cluster (on average) below which ``classifier="auto"`` leaves
#: the samples in no link to the spread scores alone.
MIN_SEEDS_PER_CLUSTER = 3

#: Share of the samples in no link below which ``classifier="auto"`` leaves
#: them to the spread scores alone: its vote could change at most this share
#: of the labels, and its forest is trained on all the others.
MIN_UNLINKED_SHARE = 0.01

#: Trees of the default random forest.
N_TREES = 100

#: The classifier's share of the vote on a sample in no link (the spread
#: scores have the rest); the classifier alone has share 1.
VOTE_WEIGHT = 0.5


def default_classifier(random_state):
    """The classifier of ``classifier="auto"``: a random forest of
    :data:`N_TREES` trees, single-threaded, seeded by ``random_state``, with
    out-of-bag predictions (:func:`out_of_bag_probabilities`)."""
    return RandomForestClassifier(n_estimators=N_TREES, random_state=random_state,
                                  oob_score=True, n_jobs=1)


def uses_classifier(classifier, n_seeds, n_unlinked, n_clusters):
    """Whether a classifier is tried on a fit with ``n_seeds`` seeds and
    ``n_unlinked`` samples in no link.

    ``None`` never; ``"auto"`` when ``n_seeds >= MIN_SEEDS_PER_CLUSTER *
    n_clusters`` and ``n_unlinked >= MIN_UNLINKED_SHARE * (n_seeds +
    n_unlinked)`` (held-out seeds then decide whether it votes); a
    classifier given by the user always (and it always votes).
    """
    if classifier is None:
        return False
    if isinstance(classifier, str):
        return (n_seeds >= MIN_SEEDS_PER_CLUSTER * n_clusters
                and n_unlinked >= MIN_UNLINKED_SHARE * (n_seeds + n_unlinked))
    return True


def training_order(X, labels):
    """An order of the seeds' rows that does not depend on the order they
    came in: by two fixed random projections of the rows, then by label.

    A forest draws its bootstrap samples by row position, so training it on
    the rows as given would make the fit depend on the order of the samples;
    in this order, permuting the samples permutes the labels and nothing
    else (exact duplicate rows with one label are interchangeable).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_seeds, n_features)
    labels : ndarray of shape (n_seeds,)

    Returns
    -------
    order : ndarray of shape (n_seeds,)
        ``X[order]`` is the training order.
    """
    directions = np.random.RandomState(0).standard_normal((2, X.shape[1]))
    if sp.issparse(X):
        keys = [np.asarray(X.multiply(v).sum(axis=1)).ravel() for v in directions]
    else:
        keys = [(np.asarray(X) * v).sum(axis=1) for v in directions]
    return np.lexsort((np.asarray(labels), keys[1], keys[0]))


def fit_seed_classifier(classifier, X, labels, random_state):
    """A fitted copy of ``classifier`` (``"auto"``: :func:`default_classifier`)
    on the seeds' rows ``X`` and ``labels``, taken in :func:`training_order`;
    the caller's estimator is cloned, never fitted in place, and the clone's
    ``random_state`` parameters left at ``None`` get ``random_state``.

    Returns
    -------
    model : classifier
    order : ndarray of shape (n_seeds,)
        The training order: row ``k`` of the model's out-of-bag predictions
        is seed ``order[k]``.
    """
    order = training_order(X, labels)
    X, labels = X[order], np.asarray(labels)[order]
    if not isinstance(classifier, str):
        model = _seeded_clone(classifier, random_state)
        with _naming_the_classifier(classifier, X, "be fitted on the linked "
                                    "samples' rows", " with the labels the fit "
                                    "gave them"):
            return model.fit(X, labels), order
    with warnings.catch_warnings():
        # rows no tree left out are uniform (out_of_bag_probabilities)
        warnings.filterwarnings("ignore", message="Some inputs do not have OOB")
        return default_classifier(random_state).fit(X, labels), order


@contextlib.contextmanager
def _naming_the_classifier(classifier, X, action, detail=""):
    """A ``TypeError`` / ``ValueError`` that a user's ``classifier`` raises on
    the rows ``X`` inside the block, raised again (of its own kind) naming
    the ``classifier`` parameter, the ``action`` it could not do and the
    rows."""
    try:
        yield
    except (TypeError, ValueError) as exc:
        rows = "a sparse matrix" if sp.issparse(X) else "an array"
        raise _same_kind(exc, (
            f"The 'classifier' parameter ({type(classifier).__name__}) could not "
            f"{action} ({rows} of shape {X.shape}){detail}: {exc}"
        )) from exc


def _same_kind(exc, message):
    """An exception of ``exc``'s own type (``np.linalg.LinAlgError`` stays
    one) with ``message``, or a plain ``TypeError`` / ``ValueError`` where
    that type takes no message alone."""
    try:
        return type(exc)(message)
    except Exception:
        return (TypeError if isinstance(exc, TypeError) else ValueError)(message)


def _seeded_clone(classifier, random_state):
    """A clone of ``classifier`` whose ``random_state`` parameters left at
    ``None`` (its own and its members', as ``get_params(deep=True)`` lists
    them) are set to ``random_state``, so that the fit's seed decides them;
    those the user set are kept."""
    model = clone(classifier)
    unset = {key: random_state for key, value in model.get_params(deep=True).items()
             if (key == "random_state" or key.endswith("__random_state"))
             and value is None}
    return model.set_params(**unset) if unset else model


def _by_cluster(model, proba, n_clusters):
    """A classifier's probability columns (one per ``model.classes_``) placed
    by cluster number; clusters the seeds never held get 0."""
    P = np.zeros((proba.shape[0], n_clusters))
    P[:, np.asarray(model.classes_, dtype=np.intp)] = proba
    return P


def classifier_probabilities(model, X, n_clusters):
    """``(n, n_clusters)`` class probabilities of a fitted classifier, columns
    by cluster number (clusters the seeds never held get 0). A classifier
    that cannot take ``X`` (a dense-only one given sparse rows) raises its
    error with the ``classifier`` parameter named."""
    with _naming_the_classifier(model, X, "predict these rows",
                                " (it was fitted on the linked samples)"):
        proba = model.predict_proba(X)
    return _by_cluster(model, proba, n_clusters)


def out_of_bag_probabilities(forest, n_clusters):
    """``(n_seeds, n_clusters)`` out-of-bag class probabilities of a fitted
    forest on its own training rows, columns by cluster number; a row no
    tree left out (possible with few trees) is uniform."""
    P = _by_cluster(forest, forest.oob_decision_function_, n_clusters)
    missing = ~np.isfinite(P).all(axis=1) | (np.nan_to_num(P).sum(axis=1) <= 0)
    P[missing] = 1.0 / n_clusters
    return P


def matching_columns(labels, reference, n_clusters):
    """The column order that carries probabilities over the clusters of
    ``labels`` to those of ``reference``: ``P[:, order]``, with ``order`` the
    inverse of :func:`smiclust.consensus.cluster_mapping`.

    Returns
    -------
    order : ndarray of shape (n_clusters,)
        ``order[r]`` is the cluster of ``labels`` matched to cluster ``r`` of
        ``reference``.
    """
    return np.argsort(cluster_mapping(labels, reference, n_clusters))


def chosen_weight(spread_right, vote_right, alone_right):
    """The classifier's share chosen by held-out seeds: ``1.0`` (the
    classifier alone) when it labels strictly more held-out items right than
    both the spread labels and the vote, else :data:`VOTE_WEIGHT` when the
    vote labels strictly more right than the spread labels, else ``None``
    (the spread labels alone). Ties keep the option listed later, the one
    that leans less on the classifier."""
    if alone_right > max(spread_right, vote_right):
        return 1.0
    if vote_right > spread_right:
        return VOTE_WEIGHT
    return None


def vote_probabilities(F, P, weight=VOTE_WEIGHT):
    r"""The vote :math:`(1 - w)\, F/\sum F + w\, P` of the spread scores and
    the classifier's probabilities.

    Parameters
    ----------
    F : ndarray of shape (n, c)
        Non-negative spread scores; a zero row counts as uniform.
    P : ndarray of shape (n, c)
        Class probabilities, rows summing to 1.
    weight : float in [0, 1], default=VOTE_WEIGHT
        The classifier's share :math:`w` (1: the classifier alone).

    Returns
    -------
    V : ndarray of shape (n, c)
        Rows summing to 1 (a new array).
    """
    F = np.asarray(F, dtype=np.float64)
    total = F.sum(axis=1, keepdims=True)
    uniform = np.full_like(F, 1.0 / F.shape[1])
    spread = np.where(total > 0, F / np.where(total > 0, total, 1.0), uniform)
    return (1.0 - weight) * spread + weight * np.asarray(P, dtype=np.float64)
