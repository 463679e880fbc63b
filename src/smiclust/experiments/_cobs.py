"""COBS: constraint-based selection among unconstrained clusterings.

Van Craenendonck & Blockeel (2017), "Constraint-based clustering selection",
Machine Learning 106(9-10): run several unconstrained clustering algorithms
with several settings, all with the true number of clusters, and keep the
clustering that violates the fewest links; the links select, they never
change a clustering. Here with scikit-learn only (imported inside the
functions):

* k-means (``KMeans(n_init=1)``) with :data:`KMEANS_SEEDS` seeds drawn from
  the run's seed;
* spectral clustering (``SpectralClustering``) on a kNN graph with
  ``n_neighbors`` in :data:`SPECTRAL_NEIGHBORS`, and on an RBF affinity with
  ``gamma = g / median squared distance`` for ``g`` in
  :data:`SPECTRAL_GAMMAS` (the median makes the grid independent of the
  feature scale);
* agglomerative clustering (``AgglomerativeClustering``) with the linkages
  of :data:`LINKAGES`.

Candidates that raise are left out. Ties go to the first candidate in that
order.
"""

import numpy as np

__all__ = [
    "KMEANS_SEEDS",
    "SPECTRAL_NEIGHBORS",
    "SPECTRAL_GAMMAS",
    "LINKAGES",
    "cobs_candidates",
    "select_fewest_violations",
    "cobs_labels",
]

#: Number of k-means runs (one initialisation each).
KMEANS_SEEDS = 5
#: ``n_neighbors`` of the kNN spectral candidates.
SPECTRAL_NEIGHBORS = (5, 10, 20)
#: Multipliers of ``1 / median squared distance`` of the RBF spectral candidates.
SPECTRAL_GAMMAS = (0.5, 2.0, 8.0)
#: Linkages of the agglomerative candidates.
LINKAGES = ("ward", "complete", "average", "single")


def _median_sq_distance(X, rng):
    """Median squared Euclidean distance over (up to 500) sampled points."""
    from sklearn.metrics import pairwise_distances

    idx = rng.choice(X.shape[0], size=min(500, X.shape[0]), replace=False)
    D = pairwise_distances(X[idx], squared=True)
    d = D[np.triu_indices(len(idx), k=1)]
    d = d[d > 0]
    return float(np.median(d)) if d.size else 1.0


def cobs_candidates(X, n_clusters, random_state=0):
    """The unconstrained candidate clusterings of COBS, in order.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Prior validation of data is assumed.
    n_clusters : int
    random_state : int, default=0

    Returns
    -------
    candidates : list of (str, callable)
        Name and a function of no argument returning labels.
    """
    from sklearn.cluster import AgglomerativeClustering, KMeans, SpectralClustering

    rng = np.random.RandomState(random_state)
    seeds = rng.randint(np.iinfo(np.int32).max, size=KMEANS_SEEDS + 1)
    n = X.shape[0]
    scale = _median_sq_distance(X, rng)
    out = []
    for s in seeds[:-1]:
        out.append((f"kmeans(seed={s})", lambda s=s: KMeans(
            n_clusters, n_init=1, random_state=int(s)).fit_predict(X)))
    for k in SPECTRAL_NEIGHBORS:
        k = min(k, n - 1)
        out.append((f"spectral(knn, n_neighbors={k})", lambda k=k: SpectralClustering(
            n_clusters, affinity="nearest_neighbors", n_neighbors=k,
            random_state=int(seeds[-1])).fit_predict(X)))
    for g in SPECTRAL_GAMMAS:
        out.append((f"spectral(rbf, gamma={g:g}/median)", lambda g=g: (
            SpectralClustering(n_clusters, affinity="rbf", gamma=g / scale,
                               random_state=int(seeds[-1])).fit_predict(X))))
    for linkage in LINKAGES:
        out.append((f"agglomerative({linkage})", lambda linkage=linkage: (
            AgglomerativeClustering(n_clusters, linkage=linkage).fit_predict(X))))
    return out


def select_fewest_violations(candidates, must_link, cannot_link):
    """The candidate labelling violating the fewest links (ties: the first).

    Parameters
    ----------
    candidates : iterable of (str, callable)
        Name and a function returning labels; one that raises is left out.
    must_link, cannot_link : ndarray of shape (n_pairs, 2)

    Returns
    -------
    labels : ndarray of shape (n_samples,)
    info : dict
        ``chosen`` (name), ``violations`` (of the chosen), ``n_candidates``
        (that ran), ``failed`` (names of those that raised).

    Raises
    ------
    RuntimeError
        If every candidate raised.
    """
    from ..constraints import count_violations

    best, failed, n_ok = None, [], 0
    for name, fit in candidates:
        try:
            labels = np.asarray(fit())
        except Exception:  # a candidate that cannot run is not a choice
            failed.append(name)
            continue
        n_ok += 1
        v = count_violations(labels, must_link, cannot_link)
        if best is None or v < best[0]:
            best = (v, name, labels)
    if best is None:
        raise RuntimeError(f"COBS: every candidate clustering failed: {failed}")
    return best[2], {"chosen": best[1], "violations": int(best[0]),
                     "n_candidates": n_ok, "failed": failed}


def cobs_labels(X, n_clusters, must_link, cannot_link, random_state=0):
    """COBS: the unconstrained clustering of :func:`cobs_candidates` that
    violates the fewest links.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
    info : dict
        See :func:`select_fewest_violations`.
    """
    X = np.asarray(X, dtype=np.float64)
    must = np.asarray(must_link, dtype=np.intp).reshape(-1, 2)
    cannot = np.asarray(cannot_link, dtype=np.intp).reshape(-1, 2)
    return select_fewest_violations(
        cobs_candidates(X, n_clusters, random_state), must, cannot)
