"""Plots of a clustering: a 2-d embedding coloured by cluster, links drawn.

matplotlib (extra ``plot``) is imported inside the functions, so importing this
module does not import it. Functions take ``ax=None`` (the current Axes then),
draw, and return the Axes; they never show or save a figure.
"""

import numbers

import numpy as np
import scipy.sparse as sp

from .utils import import_optional

__all__ = ["plot_embedding", "embedding_2d"]

#: Style of the links: thin solid green must-links, thin dashed red cannot-links.
MUST_LINK_STYLE = {"colors": "#1a9850", "linestyles": "solid", "linewidths": 0.8}
CANNOT_LINK_STYLE = {"colors": "#d7301f", "linestyles": (0, (4, 3)),
                     "linewidths": 0.8}


def _is_model(obj):
    return hasattr(obj, "labels_") and hasattr(obj, "eigenvectors_")


def _pca_2d(X):
    if sp.issparse(X):
        if min(X.shape) > 2:
            return _sparse_pca_2d(X)
        X = X.toarray()  # two rows or columns at most
    X = np.asarray(X, dtype=np.float64)
    Xc = X - X.mean(axis=0)
    _, s, vt = np.linalg.svd(Xc, full_matrices=False)
    k = min(2, vt.shape[0])
    Z = Xc @ vt[:k].T
    var = s**2
    ratio = var / var.sum() if var.sum() > 0 else np.zeros_like(var)
    names = [_pc_name(i, ratio) for i in range(k)]
    if k < 2:
        Z = np.column_stack([Z, np.zeros(Z.shape[0])])
        names.append("")
    return Z, tuple(names)


def _sparse_pca_2d(X):
    """PCA of a sparse ``X`` without densifying it: scikit-learn centres it
    implicitly (ARPACK on the covariance operator)."""
    from sklearn.decomposition import PCA

    pca = PCA(2, svd_solver="arpack", random_state=0).fit(X)
    ratio = pca.explained_variance_ratio_
    return pca.transform(X), (_pc_name(0, ratio), _pc_name(1, ratio))


def _pc_name(i, ratio):
    """Axis name of principal component ``i`` with its share of variance."""
    return f"PC {i + 1} ({100 * ratio[i]:.0f}% of variance)"


def embedding_2d(model_or_embedding, *, method="auto"):
    """Two coordinates per sample to draw a clustering in.

    Parameters
    ----------
    model_or_embedding : fitted SMIClustering or {array-like, sparse matrix} (n, d)
        A fitted model, or coordinates: ``d == 2`` is used as is, ``d == 1``
        is drawn against 0, ``d > 2`` is reduced by PCA (a sparse matrix, or
        a model fitted on one, by scikit-learn's PCA, which centres it
        without making it dense).
    method : {"auto", "eigenvectors", "pca"}, default="auto"
        ``"eigenvectors"``: the two leading (sign-fixed) eigenvectors of a
        fitted model; ``"pca"``: the first two principal components of the
        model's training data or of the given array. ``"auto"``: for a model,
        its two eigenvectors when ``n_clusters == 2``, and with more clusters
        the first two principal components of all ``n_clusters`` eigenvectors,
        each scaled to a largest magnitude of 1 (each eigenvector is close to
        the indicator of one cluster, so the clusters sit at the corners of a
        simplex; the two leading eigenvectors alone would put every other
        cluster at the origin); for arrays, PCA when they have more than two
        columns, the array itself otherwise.

    Returns
    -------
    Z : ndarray of shape (n, 2)
    axis_labels : tuple of str
    """
    if method not in ("auto", "eigenvectors", "pca"):
        raise ValueError("The 'method' parameter of embedding_2d must be 'auto', "
                         f"'eigenvectors' or 'pca'; got {method!r}.")
    if hasattr(model_or_embedding, "fit") and not _is_model(model_or_embedding):
        raise TypeError(
            "model_or_embedding must be a fitted SMIClustering (it has "
            "eigenvectors_) or a 2-d array of coordinates; got "
            f"{type(model_or_embedding).__name__}. For another estimator, pass "
            "coordinates, e.g. its embedding_ or the data.")
    if _is_model(model_or_embedding):
        model = model_or_embedding
        vectors = np.asarray(model.eigenvectors_)
        if method == "auto" and vectors.shape[1] > 2:
            peak = np.abs(vectors).max(axis=0)
            Z, _ = _pca_2d(vectors / np.where(peak > 0, peak, 1.0))
            return Z, (f"PC 1 of the {vectors.shape[1]} leading eigenvectors",
                       f"PC 2 of the {vectors.shape[1]} leading eigenvectors")
        if method == "eigenvectors" or (method == "auto" and vectors.shape[1] >= 2):
            if vectors.shape[1] < 2:
                raise ValueError("method='eigenvectors' needs a model with "
                                 f"n_clusters >= 2; it has {vectors.shape[1]}.")
            return vectors[:, :2].copy(), ("leading eigenvector 1",
                                          "leading eigenvector 2")
        X = getattr(model, "_fit_X", None)
        if X is None:
            raise ValueError("The model keeps no training data to run PCA on; pass "
                             "the data array instead.")
        return _pca_2d(X)
    if np.iscomplexobj(model_or_embedding) or (
            sp.issparse(model_or_embedding)
            and model_or_embedding.dtype.kind == "c"):
        raise TypeError("model_or_embedding must be real coordinates; got complex "
                        "numbers.")
    if sp.issparse(model_or_embedding):
        if method == "eigenvectors":
            raise ValueError("method='eigenvectors' needs a fitted model, not an "
                             "array.")
        if model_or_embedding.shape[1] > 2:
            rows = model_or_embedding.tocsr()
            finite = np.isfinite(rows.data)
            if not finite.all():
                bad = np.repeat(np.arange(rows.shape[0]), np.diff(rows.indptr))[
                    ~finite]
                raise ValueError(
                    "model_or_embedding must be finite; got NaN or infinity "
                    f"in {np.unique(bad).size} row(s).")
            return _pca_2d(model_or_embedding)
        model_or_embedding = model_or_embedding.toarray()  # two columns at most
    Z = np.asarray(model_or_embedding, dtype=np.float64)
    if Z.ndim != 2 or Z.shape[0] == 0 or Z.shape[1] == 0:
        raise ValueError("model_or_embedding must be a fitted model or a 2-d array "
                         f"of shape (n_samples, n_dims); got shape {Z.shape}.")
    if not np.all(np.isfinite(Z)):
        raise ValueError("model_or_embedding must be finite; got NaN or infinity "
                         f"in {int(np.sum(~np.isfinite(Z).all(axis=1)))} row(s).")
    if method == "eigenvectors":
        raise ValueError("method='eigenvectors' needs a fitted model, not an array.")
    if method == "pca" or Z.shape[1] > 2:
        return _pca_2d(Z)
    if Z.shape[1] == 1:
        return np.column_stack([Z[:, 0], np.zeros(Z.shape[0])]), ("feature 1", "")
    return Z.copy(), ("dimension 1", "dimension 2")


def _check_discrete_labels(labels):
    """Refuse numeric labels that are not whole finite real numbers: one
    colour per distinct value would draw probabilities as classes."""
    values = labels.tolist() if labels.dtype.kind == "O" else None
    if values is not None:
        if not all(isinstance(v, numbers.Number) for v in values):
            return  # names (strings) or a mix, which the label check judged
        labels = np.asarray(values)
    if labels.dtype.kind not in "fc":
        return
    whole = np.isfinite(labels) & (labels == np.round(labels.real))
    if not whole.all():
        raise ValueError(
            "The 'labels' parameter of plot_embedding must hold clusters or "
            "classes (integers or names), one colour each; got numbers that are "
            f"not whole and finite, e.g. {labels[~whole][0].item()!r} "
            "(probabilities? pass their argmax).")


def _palette(n):
    import matplotlib as mpl

    if n <= 10:
        return [mpl.colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [mpl.colormaps["tab20"](i) for i in range(n)]
    cmap = mpl.colormaps["turbo"]
    return [cmap(i / max(n - 1, 1)) for i in range(n)]


def _link_segments(Z, links, name, max_links, rng):
    if links is None:
        return np.empty((0, 2, 2)), 0
    pairs = np.asarray(links)
    if pairs.size == 0:
        return np.empty((0, 2, 2)), 0
    if pairs.ndim != 2 or pairs.shape[1] != 2 or pairs.dtype.kind not in "iu":
        raise ValueError(f"{name} must be an integer array of shape (n_pairs, 2); "
                         f"got shape {pairs.shape} and dtype {pairs.dtype}.")
    if pairs.min() < 0 or pairs.max() >= Z.shape[0]:
        raise ValueError(f"{name} must hold indices in [0, {Z.shape[0] - 1}].")
    total = pairs.shape[0]
    if max_links is not None and total > max_links:
        pairs = pairs[np.sort(rng.choice(total, size=max_links, replace=False))]
    return np.stack([Z[pairs[:, 0]], Z[pairs[:, 1]]], axis=1), total


def plot_embedding(model_or_embedding, labels=None, *, must_link=None,
                   cannot_link=None, method="auto", max_links=2000, ax=None):
    """Scatter a 2-d embedding coloured by cluster, with the links drawn.

    By default a fitted model is drawn in its two leading eigenvectors
    :math:`\\tilde\\phi_1, \\tilde\\phi_2` when ``n_clusters == 2``, and in
    the first two principal components of all its eigenvectors with more
    clusters (see :func:`embedding_2d`). These are
    the coordinates the labels are read from (each label is the argmax of the
    clipped, normalised eigenvector entries), and the links act on them through
    the operator :math:`U`, so the picture shows the clustering as 3SMIC sees it,
    whatever the input dimension: clusters that are non-convex or
    high-dimensional in the input (two moons, digits) appear as separate arms,
    and a must-linked pair pulled together or a cannot-linked pair pushed apart
    is visible. PCA of the input data
    (``method="pca"``) shows the input geometry instead, where clusters
    separated by the kernel may overlap.

    Parameters
    ----------
    model_or_embedding : fitted SMIClustering or {array-like, sparse matrix} (n, d)
        See :func:`embedding_2d`; e.g. the data ``X`` for a PCA view.
    labels : array-like of shape (n,), default=None
        Cluster of each sample (``-1``: none, drawn grey); by default the
        model's ``labels_``.
    must_link, cannot_link : array-like of shape (n_pairs, 2), default=None
        Links to draw: must-links as thin solid green lines, cannot-links as
        thin dashed red lines, under the points.
    method : {"auto", "eigenvectors", "pca"}, default="auto"
        See :func:`embedding_2d`.
    max_links : int or None, default=2000
        At most this many links of each kind are drawn (a fixed random
        subset; the legend gives the counts).
    ax : matplotlib Axes, default=None
        Axes to draw on; the current Axes when None.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import make_moons
    >>> from smiclust import SMIClustering
    >>> from smiclust.plotting import plot_embedding
    >>> X, y = make_moons(100, noise=0.05, random_state=0)
    >>> model = SMIClustering(2, n_neighbors=5, gamma=1.0, eta=0.0,
    ...                       random_state=0).fit(X, must_link=[[0, 1]])
    >>> ax = plot_embedding(model, must_link=[[0, 1]])
    >>> ax.get_xlabel()
    'leading eigenvector 1'
    """
    LineCollection = import_optional("matplotlib.collections", "plot",
                                     "plot_embedding").LineCollection
    from matplotlib.lines import Line2D

    if ax is not None and not hasattr(ax, "scatter"):
        raise TypeError("The 'ax' parameter of plot_embedding must be a matplotlib "
                        f"Axes or None; got {type(ax).__name__}.")
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.gca()
    Z, axis_labels = embedding_2d(model_or_embedding, method=method)
    n = Z.shape[0]
    if labels is None:
        if not _is_model(model_or_embedding):
            raise ValueError("labels are required when plotting an array.")
        labels = model_or_embedding.labels_
    labels = np.asarray(labels)
    if labels.shape != (n,):
        raise ValueError(f"labels must have shape ({n},); got {labels.shape}.")
    from .constraints import check_complete_labels

    check_complete_labels(labels, owner="plot_embedding",
                          meaning="clusters or classes")
    _check_discrete_labels(labels)
    if max_links is not None and (
        isinstance(max_links, (bool, np.bool_))
        or not isinstance(max_links, (int, np.integer)) or max_links < 0
    ):
        raise ValueError("The 'max_links' parameter of plot_embedding must be None "
                         f"or an int >= 0; got {max_links!r}.")

    rng = np.random.RandomState(0)
    handles = []
    for links, name, style, text in (
        (must_link, "must_link", MUST_LINK_STYLE, "must-link"),
        (cannot_link, "cannot_link", CANNOT_LINK_STYLE, "cannot-link"),
    ):
        segments, total = _link_segments(Z, links, name, max_links, rng)
        if total == 0:
            continue
        ax.add_collection(LineCollection(segments, alpha=0.7, zorder=1, **style))
        shown = "" if len(segments) == total else f", {len(segments)} shown"
        handles.append(Line2D([], [], color=style["colors"],
                              linestyle=style["linestyles"],
                              linewidth=1.5, label=f"{text} ({total}{shown})"))

    clusters = [c for c in np.unique(labels) if c != -1]
    colors = _palette(len(clusters))
    size = float(np.clip(3000.0 / max(n, 1), 4.0, 40.0))
    cluster_handles = []
    for c, color in zip(clusters, colors):
        mask = labels == c
        cluster_handles.append(ax.scatter(
            Z[mask, 0], Z[mask, 1], s=size, color=color, edgecolors="white",
            linewidths=0.3, zorder=2, label=f"cluster {c} (n={int(mask.sum())})",
        ))
    if (labels == -1).any():
        mask = labels == -1
        cluster_handles.append(ax.scatter(
            Z[mask, 0], Z[mask, 1], s=size, color="0.6", zorder=2,
            label=f"no cluster (n={int(mask.sum())})",
        ))
    ax.set_xlabel(axis_labels[0])
    ax.set_ylabel(axis_labels[1])
    ax.autoscale_view()
    all_handles = cluster_handles + handles
    if len(all_handles) > 30:  # too many to list: keep the links, count clusters
        all_handles = handles + [Line2D([], [], linestyle="none",
                                        label=f"{len(clusters)} clusters")]
    ax.legend(handles=all_handles, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              fontsize="small", frameon=False, borderaxespad=0.0,
              ncol=1 if len(all_handles) <= 16 else 2)
    return ax
