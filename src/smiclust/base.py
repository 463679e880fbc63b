"""Set-up shared by the estimators that cluster with links.

:class:`BaseLinkClustering` validates every input of ``fit`` before the
estimator is touched, draws the seeds of a fit from one ``random_state`` and
runs the neighbour search at unit scale; SMIClustering, SpectralLearning and
ConstrainedSpectralClustering build on it.
"""

import copy
import warnings
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state

from . import neighbors
from .constraints import (
    check_constraints,
    check_link_weights,
    link_matrix,
    refuse_pairs_in_both,
    warn_conflicting_links,
)
from .neighbors import (
    approximate_search_missing,
    nearest_neighbors,
    resolve_algorithm,
)
from .utils import (
    StepProgress,
    at_unit_scale,
    draw_seeds,
    progress,
    user_stacklevel,
    validate_params,
    validate_training_samples,
)

__all__ = [
    "BaseLinkClustering",
    "FitInputs",
    "accept_feature_attributes",
    "feature_attributes",
    "graph_components",
    "warn_graph_components",
]

#: Attributes that scikit-learn's ``validate_data`` sets on an estimator.
_FEATURE_ATTRIBUTES = ("n_features_in_", "feature_names_in_")


def feature_attributes(proxy):
    """The feature attributes ``validate_data`` set on ``proxy`` (a copy of
    the estimator that takes them until every input has passed)."""
    return {name: proxy.__dict__[name] for name in _FEATURE_ATTRIBUTES
            if name in proxy.__dict__}


def accept_feature_attributes(estimator, features):
    """Set ``features`` on ``estimator``; one it lacks now is removed (a refit
    on an array drops the names of an earlier fit on a DataFrame)."""
    for name in _FEATURE_ATTRIBUTES:
        if name in features:
            setattr(estimator, name, features[name])
        elif name in estimator.__dict__:
            delattr(estimator, name)


@dataclass(frozen=True)
class FitInputs:
    """Validated inputs of one ``fit``.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features), float64
        A validated copy or view; the caller's array is never modified.
    n_clusters : int
    exponent : int
        ``np.ldexp(X, -exponent)`` is ``X`` at unit scale
        (:func:`smiclust.utils.unit_exponent`).
    must_link, cannot_link : ndarray of shape (n_pairs, 2)
        Canonical links (:func:`smiclust.constraints.check_constraints`).
    must_weight, cannot_weight : ndarray of shape (n_pairs,) or None
        Validated link weights; ``None`` when not given (weight 1 each).
    feature_attributes : dict
        ``n_features_in_`` and, for named columns, ``feature_names_in_``, set on
        the estimator by :meth:`BaseLinkClustering._accept_inputs`.
    """

    X: np.ndarray
    n_clusters: int
    exponent: int
    must_link: np.ndarray
    cannot_link: np.ndarray
    feature_attributes: dict
    must_weight: np.ndarray | None = None
    cannot_weight: np.ndarray | None = None

    @property
    def n_samples(self):
        return self.X.shape[0]


class BaseLinkClustering(ClusterMixin, BaseEstimator):
    """Base class of the estimators of this package; not for direct use.

    A subclass defines ``_parameter_constraints`` and the parameters
    ``n_clusters``, ``neighbor_algorithm``, ``random_state`` and ``n_jobs``.
    Its ``fit`` calls :meth:`_validate_fit`, then its own checks, then
    :meth:`_accept_inputs`: an input rejected anywhere before leaves the
    estimator exactly as it was (a refitted estimator keeps its old feature
    names, so ``predict`` still reads columns the old way).
    """

    #: Whether ``fit`` and ``predict`` take sparse ``X`` (kept sparse).
    _accepts_sparse = False

    def _validate_fit(
        self, X, must_link, cannot_link, must_link_weight=None, cannot_link_weight=None
    ):
        """Validate the parameters, ``X``, the links and their weights; change
        nothing on self.

        Returns
        -------
        inputs : FitInputs
        """
        owner = type(self).__name__
        validate_params(self.get_params(deep=False), self._parameter_constraints, owner)
        # validate_data records the features on the estimator it is given: a
        # shallow copy takes them until every input has passed.
        proxy = copy.copy(self)
        # n_clusters="auto" (SMIClustering) is chosen later, from at least 2
        n_clusters = 2 if isinstance(self.n_clusters, str) else self.n_clusters
        X, c, exponent = validate_training_samples(
            proxy, X, n_clusters, accept_sparse=self._accepts_sparse
        )
        # a pair both must- and cannot-linked is refused below, among the
        # links of positive weight (one of weight 0 is no link)
        must, cannot = check_constraints(
            must_link, cannot_link, X.shape[0], owner=owner, warn=False,
            refuse_both=False,
        )
        weights = [
            None if w is None else check_link_weights(w, len(links), name=name,
                                                      owner=owner)
            for w, links, name in (
                (must_link_weight, must, "must_link_weight"),
                (cannot_link_weight, cannot, "cannot_link_weight"),
            )
        ]
        inputs = FitInputs(X, c, exponent, must, cannot, feature_attributes(proxy),
                           *weights)
        if len(must) and len(cannot):
            present = links_present(inputs)
            refuse_pairs_in_both(present.must_link, present.cannot_link, owner)
            warn_conflicting_links(present.must_link, present.cannot_link,
                                   X.shape[0])
        return inputs

    def _accept_inputs(self, inputs):
        """Record the validated features on the estimator (after every check)."""
        accept_feature_attributes(self, inputs.feature_attributes)

    def _draw_seeds(self, n):
        """``n`` seeds from ``random_state``, in order (one per consumer)."""
        return draw_seeds(check_random_state(self.random_state), n)

    def _neighbor_graph(self, inputs, n_neighbors, seed):
        """Neighbour search for ``n_neighbors``, on ``X`` at unit scale.

        The kernels are invariant to a global scaling of ``X``, and squared
        distances of extreme values would overflow or underflow.
        """
        n = inputs.X.shape[0]
        if approximate_search_missing(self.neighbor_algorithm, n):
            warnings.warn(
                f"n_samples={n} >= {neighbors.APPROXIMATE_THRESHOLD}: "
                "neighbor_algorithm='auto' searches approximately with "
                "pynndescent, which is not installed (pip install "
                "'smiclust[ann]'); searching exactly instead, which is slower "
                "and can give other labels than a fit with the extra. "
                "neighbor_algorithm='exact' searches exactly without this "
                "warning.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        if resolve_algorithm(self.neighbor_algorithm, n) == "approximate":
            progress(getattr(self, "verbose", 0),
                     f"searching {n_neighbors} neighbours of {n} samples "
                     "approximately (pynndescent; its first search in a "
                     "process compiles for about half a minute)")
        step = StepProgress(getattr(self, "verbose", 0), "neighbours")
        graph = nearest_neighbors(
            at_unit_scale(inputs.X, inputs.exponent),
            n_neighbors,
            algorithm=self.neighbor_algorithm,
            n_jobs=self.n_jobs,
            random_state=seed,
            distinct_rows=self._neighbors_among_distinct_rows(),
        )
        step.done(f"{n_neighbors} neighbours of {n} samples searched")
        return graph

    def _neighbors_among_distinct_rows(self):
        """Whether the neighbour search runs among distinct rows (see
        :func:`~smiclust.neighbors.nearest_neighbors`); the samples' own kNN
        here, as the published methods define it."""
        return False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accepts_sparse
        return tags


def positive_weight_rows(links, weights):
    """Rows of ``links`` whose weight is positive (all when ``weights`` is
    ``None``): a link of weight 0 is no link (the same fit as without it)."""
    return np.arange(len(links)) if weights is None else np.flatnonzero(weights > 0)


def weights_act(weights):
    """Whether link ``weights`` (``None``: 1 each) hold one other than 0 and
    1: a link of weight 0 is no link and 1 is the default, so only such
    weights make a fit use its links as given (:func:`links_present`)."""
    return weights is not None and bool(np.any((weights != 0) & (weights != 1)))


def present_link_rows(inputs):
    """Rows of the must-links and of the cannot-links of ``inputs`` whose
    weight is positive (:func:`positive_weight_rows`)."""
    return (positive_weight_rows(inputs.must_link, inputs.must_weight),
            positive_weight_rows(inputs.cannot_link, inputs.cannot_weight))


def links_present(inputs):
    """``inputs`` without its links of weight 0 (:func:`present_link_rows`),
    so that nothing reads such a link as one, and without the weights of a
    kind of link whose remaining links all weigh 1, the default (so with no
    link left, without weights either): weights make the fit use the links
    as given, and weights that change nothing must not."""
    keep_m, keep_c = present_link_rows(inputs)
    must_weight = _weights_of_rows(inputs.must_weight, keep_m)
    cannot_weight = _weights_of_rows(inputs.cannot_weight, keep_c)
    if (len(keep_m) == len(inputs.must_link)
            and len(keep_c) == len(inputs.cannot_link)
            and must_weight is inputs.must_weight
            and cannot_weight is inputs.cannot_weight):
        return inputs
    return replace(
        inputs,
        must_link=inputs.must_link[keep_m],
        cannot_link=inputs.cannot_link[keep_c],
        must_weight=must_weight,
        cannot_weight=cannot_weight,
    )


def _weights_of_rows(weights, rows):
    """``weights`` of the links in ``rows``; ``None`` (the default, 1 each)
    when there are none or every one is 1, ``weights`` itself when every row
    is kept."""
    if not weights_act(None if weights is None else weights[rows]):
        return None
    return weights if len(rows) == len(weights) else weights[rows]


def graph_components(graph, inputs, *, cannot_links=True):
    """Number of connected components of a sparse graph of the samples
    (a kernel) joined by the must-links of ``inputs`` and, with
    ``cannot_links``, by its cannot-links (which couple the samples of
    3SMIC's operator only through ``eta > 0``)."""
    n = graph.shape[0]
    pattern = graph + link_matrix(inputs.must_link, n, inputs.must_weight)
    if cannot_links:
        pattern = pattern + link_matrix(inputs.cannot_link, n, inputs.cannot_weight)
    n_components, _ = connected_components(sp.csr_matrix(pattern), directed=False)
    return int(n_components)


def warn_graph_components(n_components, inputs, n_neighbors):
    """A ``UserWarning`` (at the user's line) when the kNN graph joined by
    the links has more connected components than clusters, saying what joins
    them."""
    c = inputs.n_clusters
    if c > 1 and n_components > c:
        linked = len(inputs.must_link) + len(inputs.cannot_link) > 0
        with_links = " (with links)" if linked else ""
        warnings.warn(
            f"The kNN graph{with_links} has {n_components} connected components, "
            f"more than n_clusters={c}; clusters may follow the components. "
            + _components_remedy(inputs.X, n_neighbors),
            UserWarning,
            stacklevel=user_stacklevel(),
        )


def _components_remedy(X, n_neighbors):
    """What joins the components: more neighbours, or, when some row has more
    copies than ``n_neighbors`` (they are then all each other's
    neighbours), at least as many neighbours as it has copies."""
    if not sp.issparse(X):
        _, counts = np.unique(X, axis=0, return_counts=True)
        if counts.max() > n_neighbors:
            return (
                f"{int(np.sum(counts > 1))} rows of X are repeated, up to "
                f"{int(counts.max())} times, and the copies of a row are each "
                "other's nearest neighbours: n_neighbors of at least "
                f"{int(counts.max())} joins them, or keep one copy of each row."
            )
    return "A larger n_neighbors joins them."
