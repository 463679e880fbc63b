"""Must-link and cannot-link pairs: checks, link matrices, sampling, violations.

Links are data: integer arrays of shape ``(n_pairs, 2)`` whose rows are pairs of
sample indices (0-based). After :func:`check_links` every pair is stored as
``(i, j)`` with ``i < j``.
"""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.utils import check_random_state

from .utils import check_random_state_param, user_stacklevel, validate_params

__all__ = [
    "ConstraintConflictWarning",
    "check_links",
    "check_constraints",
    "conflicting_cannot_links",
    "link_matrix",
    "check_link_weights",
    "pairs_from_labels",
    "encode_partial_labels",
    "cluster_classes",
    "check_complete_labels",
    "links_against_labels",
    "pairs_from_codes",
    "sample_links",
    "count_violations",
    "link_violations",
    "link_contradictions",
    "rank_suspect_links",
    "pairs_in_both",
    "refuse_pairs_in_both",
    "unlinked_mask",
]


#: Largest link weight accepted, for gamma and eta and for each link's own
#: weight: (1 + gamma)^2 and eta^2 stay far from overflow.
MAX_LINK_WEIGHT = 1e100


class ConstraintConflictWarning(UserWarning):
    """Must-link chains join a cannot-linked pair (the links contradict each other).

    3SMIC treats links as soft, so it still returns a clustering; at least one of
    the conflicting links is violated by any labelling.
    """


def _empty_pairs():
    return np.empty((0, 2), dtype=np.intp)


def check_links(links, n_samples, *, name="must_link", owner="check_links"):
    """Validate an array of index pairs and return it canonically.

    Parameters
    ----------
    links : array-like of shape (n_pairs, 2) or None
        Pairs of 0-based sample indices. ``None`` or an empty sequence means no
        links.
    n_samples : int
        Number of samples the indices refer to.
    name : str, default="must_link"
        Parameter name used in error messages.
    owner : str, default="check_links"
        Function or estimator name used in error messages.

    Returns
    -------
    pairs : ndarray of shape (n_pairs, 2), dtype=intp
        A new array with ``pairs[:, 0] < pairs[:, 1]``, in the given order.

    Raises
    ------
    TypeError
        If the indices are not integers (floats, even integral ones, booleans,
        strings, objects other than Python / NumPy integers).
    ValueError
        If the shape is not ``(n_pairs, 2)``, an index is out of
        ``[0, n_samples - 1]``, a pair links a sample to itself, there are more
        pairs than the ``n_samples (n_samples - 1) / 2`` distinct ones, or a
        pair is given twice (in either order).

    Examples
    --------
    >>> from smiclust.constraints import check_links
    >>> check_links([[3, 1], [0, 2]], n_samples=4)
    array([[1, 3],
           [0, 2]])
    """
    if links is None:
        return _empty_pairs()
    if hasattr(links, "toarray"):
        raise TypeError(
            f"The {name!r} parameter of {owner} must be an array of index pairs of "
            f"shape (n_pairs, 2); got a sparse {type(links).__name__}."
        )
    try:
        arr = np.asarray(links)
    except (ValueError, TypeError):
        raise ValueError(
            f"The {name!r} parameter of {owner} must be an array of index pairs of "
            f"shape (n_pairs, 2); got a ragged sequence {links!r}."
        ) from None
    if arr.size == 0:
        # (0,), (0, 2) and (0, 0); (k, 0) with k > 0 is k pairs of no index
        if arr.ndim == 1 or arr.shape in ((0, 2), (0, 0)):
            return _empty_pairs()
    if arr.ndim == 0:
        raise ValueError(
            f"The {name!r} parameter of {owner} must be an array of index pairs of "
            f"shape (n_pairs, 2); got {links!r}."
        )
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(
            f"The {name!r} parameter of {owner} must be an array of index pairs of "
            f"shape (n_pairs, 2); got an array of shape {arr.shape}."
        )
    if arr.dtype.kind in "iu":
        boolean = _boolean_in(links)  # booleans alone are a bool array
        if boolean is not None:
            raise TypeError(
                f"The {name!r} parameter of {owner} must hold integer sample "
                f"indices; got the boolean {boolean!r} among them."
            )
    if arr.dtype.kind == "O" and all(_is_index(v) for v in arr.flat):
        # e.g. Python ints from an object column (checked before the cast)
        values = [tuple(int(v) for v in p) for p in arr]
        for row, pair in enumerate(values):
            if not all(0 <= v < n_samples for v in pair):
                raise _out_of_range(name, owner, n_samples, row, pair)
        arr = np.array(values, dtype=np.int64).reshape(-1, 2)
    if arr.dtype.kind == "b" or not np.issubdtype(arr.dtype, np.integer):
        bad = next((p for p in arr if not all(_is_index(v) for v in p)), arr[0])
        raise TypeError(
            f"The {name!r} parameter of {owner} must hold integer sample indices; "
            f"got an array of dtype {arr.dtype}, e.g. the pair {tuple(bad.tolist())!r}."
        )
    bad = (arr < 0) | (arr >= n_samples)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        raise _out_of_range(name, owner, n_samples, row, arr[row])
    arr = arr.astype(np.intp)
    self_pairs = arr[:, 0] == arr[:, 1]
    if self_pairs.any():
        row = int(np.flatnonzero(self_pairs)[0])
        raise ValueError(
            f"The {name!r} parameter of {owner} must link two different samples; "
            f"pair {row} is {tuple(int(v) for v in arr[row])}."
        )
    n_distinct = n_samples * (n_samples - 1) // 2
    if len(arr) > n_distinct:
        raise ValueError(
            f"The {name!r} parameter of {owner} must not repeat a pair, so it can "
            f"hold at most n_samples (n_samples - 1) / 2 = {n_distinct} pairs "
            f"(n_samples={n_samples}); got {len(arr)}."
        )
    pairs = np.sort(arr, axis=1)
    _, first, counts = np.unique(pairs, axis=0, return_index=True, return_counts=True)
    if (counts > 1).any():
        dup = pairs[first[np.argmax(counts > 1)]]
        raise ValueError(
            f"The {name!r} parameter of {owner} must not repeat a pair; "
            f"{tuple(int(v) for v in dup)} is given {int(counts.max())} times "
            "(in either order)."
        )
    return np.ascontiguousarray(pairs)


def check_constraints(must_link, cannot_link, n_samples, *, owner="check_constraints",
                      warn=True, refuse_both=True):
    """Validate must-links and cannot-links together.

    Each array is checked by :func:`check_links`. A pair given both as a must-link
    and as a cannot-link is an error (:func:`refuse_pairs_in_both`; not with
    ``refuse_both=False``, for links whose weights are not known yet: one of
    weight 0 is no link). A cannot-linked pair whose samples are
    joined by a chain of must-links is a contradiction too, but links are soft in
    3SMIC, so it is reported with a :class:`ConstraintConflictWarning` naming the
    pairs (:func:`warn_conflicting_links`; not with ``warn=False``), and the
    links are returned unchanged.

    Returns
    -------
    must_link, cannot_link : ndarray of shape (n_pairs, 2)
        Canonical copies (``i < j``).
    """
    must = check_links(must_link, n_samples, name="must_link", owner=owner)
    cannot = check_links(cannot_link, n_samples, name="cannot_link", owner=owner)
    if refuse_both:
        refuse_pairs_in_both(must, cannot, owner)
    if warn and len(must) and len(cannot):
        warn_conflicting_links(must, cannot, n_samples)
    return must, cannot


def refuse_pairs_in_both(must, cannot, owner):
    """``ValueError`` naming the first pair of the validated links ``must``
    and ``cannot`` that is both a must-link and a cannot-link, if any."""
    if not (len(must) and len(cannot)):
        return
    both = pairs_in_both(must, cannot)
    if len(both):
        first = tuple(int(v) for v in both[0])
        raise ValueError(
            f"A pair cannot be both a must-link and a cannot-link in {owner}; "
            f"{len(both)} pair(s) are, the first is {first}."
        )


def warn_conflicting_links(must_link, cannot_link, n_samples):
    """A :class:`ConstraintConflictWarning` (at the user's line) naming the
    cannot-links whose samples chains of must-links join (validated
    links)."""
    conflicts = conflicting_cannot_links(must_link, cannot_link, n_samples)
    if len(conflicts):
        shown = ", ".join(str(tuple(int(v) for v in p)) for p in conflicts[:5])
        warnings.warn(
            f"{len(conflicts)} cannot-link pair(s) join samples that chains of "
            f"must-links put together, e.g. {shown}; no labelling can satisfy "
            "every link.",
            ConstraintConflictWarning,
            stacklevel=user_stacklevel(),
        )


def conflicting_cannot_links(must_link, cannot_link, n_samples):
    """Cannot-links whose two samples chains of must-links join.

    Prior validation by :func:`check_links` is assumed.

    Returns
    -------
    conflicts : ndarray of shape (n_conflicts, 2)
        The rows of ``cannot_link`` that no labelling can satisfy together
        with every must-link, in their order.

    Examples
    --------
    >>> from smiclust.constraints import conflicting_cannot_links
    >>> conflicting_cannot_links([[0, 1], [1, 2]], [[0, 2], [2, 3]], 4).tolist()
    [[0, 2]]
    """
    cannot = np.asarray(cannot_link, dtype=np.intp).reshape(-1, 2)
    if not len(cannot) or not len(must_link):
        return cannot[:0]
    _, comp = connected_components(link_matrix(must_link, n_samples), directed=False)
    return cannot[comp[cannot[:, 0]] == comp[cannot[:, 1]]]


def _out_of_range(name, owner, n_samples, row, pair):
    return ValueError(
        f"The {name!r} parameter of {owner} must hold indices in "
        f"[0, {n_samples - 1}] (n_samples={n_samples}); pair {row} is "
        f"{tuple(int(v) for v in pair)}."
    )


def _boolean_in(values):
    """The first boolean held by the (nested) list or tuple ``values``, or
    ``None``: numpy reads ``[True, 3]`` as the numbers ``[1, 3]``, where an
    array of booleans alone is refused."""
    if not isinstance(values, (list, tuple)):
        return None
    stack = [values]
    while stack:
        for value in stack.pop():
            if isinstance(value, (bool, np.bool_)):
                return value
            if isinstance(value, (list, tuple)):
                stack.append(value)
    return None


def _is_index(value):
    """Whether ``value`` is an integer that is not a boolean."""
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(
        value, (bool, np.bool_)
    )


def pairs_in_both(a, b):
    """Rows of ``b`` that are also rows of ``a``.

    Prior validation is assumed: both ``(k, 2)`` arrays of indices >= 0 in the
    same canonical order within a pair (as :func:`check_links` returns them).
    Each pair is encoded as one integer ``i * width + j``, so the test is one
    vectorised :func:`numpy.isin`.

    Returns
    -------
    common : ndarray of shape (n_common, 2)
    """
    width = int(max(a.max(initial=0), b.max(initial=0))) + 1
    a_keys = a[:, 0].astype(np.int64) * width + a[:, 1]
    b_keys = b[:, 0].astype(np.int64) * width + b[:, 1]
    return b[np.isin(b_keys, a_keys)].astype(np.intp)


def unlinked_mask(n_samples, must, cannot):
    """Boolean mask of the samples in no link (must or cannot).

    Parameters
    ----------
    n_samples : int
    must, cannot : array-like of shape (n_pairs, 2)
        Validated links.

    Returns
    -------
    mask : ndarray of bool of shape (n_samples,)

    Examples
    --------
    >>> from smiclust.constraints import unlinked_mask
    >>> unlinked_mask(4, [[0, 1]], [[1, 2]]).tolist()
    [False, False, False, True]
    """
    linked = np.zeros(n_samples, dtype=bool)
    for pairs in (must, cannot):
        linked[np.asarray(pairs, dtype=np.intp).reshape(-1, 2).ravel()] = True
    return ~linked


def link_matrix(pairs, n_samples, weights=None):
    """Symmetric sparse matrix with the link weights at the linked pairs.

    Prior validation by :func:`check_links` (and :func:`check_link_weights`)
    is assumed. The diagonal is 0.

    Parameters
    ----------
    pairs : ndarray of shape (n_pairs, 2)
    n_samples : int
    weights : ndarray of shape (n_pairs,), default=None
        ``None`` gives a 0/1 matrix.

    Returns
    -------
    L : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Entries of zero weight are not stored.
    """
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    rows = np.concatenate([pairs[:, 0], pairs[:, 1]])
    cols = np.concatenate([pairs[:, 1], pairs[:, 0]])
    if weights is None:
        data = np.ones(rows.size, dtype=np.float64)
    else:
        data = np.tile(np.asarray(weights, dtype=np.float64), 2)
    L = sp.csr_matrix((data, (rows, cols)), shape=(n_samples, n_samples))
    L.sum_duplicates()
    if weights is None:
        L.data[:] = 1.0
    L.eliminate_zeros()
    return L


def check_link_weights(weights, n_pairs, *, name="must_link_weight", owner="fit"):
    """Validate one weight per link, in ``[0, MAX_LINK_WEIGHT]``.

    Parameters
    ----------
    weights : array-like of shape (n_pairs,) or None
        ``None`` means weight 1 for every link.
    n_pairs : int
        Number of links the weights belong to.
    name, owner : str
        Used in error messages.

    Returns
    -------
    weights : ndarray of shape (n_pairs,), float64
        A new array.
    """
    if weights is None:
        return np.ones(n_pairs)
    prefix = f"The {name!r} parameter of {owner} must be"
    if sp.issparse(weights):
        raise TypeError(f"{prefix} a dense 1-d array of real numbers; got a "
                        f"sparse matrix of shape {weights.shape}.")
    try:
        arr = np.asarray(weights)
    except (ValueError, TypeError):
        raise ValueError(f"{prefix} a 1-d array of numbers; got {weights!r}.") from None
    boolean = None if arr.dtype.kind == "b" else _boolean_in(weights)
    if boolean is not None:  # booleans alone are refused as a bool array below
        raise TypeError(f"{prefix} a 1-d array of real numbers; got the boolean "
                        f"{boolean!r} among them.")
    if arr.dtype == object and all(
            isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
            for v in arr.ravel()):
        arr = arr.astype(np.float64)  # real numbers held as Python objects
    if arr.dtype.kind == "b" or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(
            f"{prefix} a 1-d array of real numbers; got an array of dtype {arr.dtype}."
        )
    if arr.ndim != 1 or arr.shape[0] != n_pairs:
        raise ValueError(
            f"{prefix} of shape ({n_pairs},), one weight per link; got shape "
            f"{arr.shape}."
        )
    arr = arr.astype(np.float64)
    bad = ~np.isfinite(arr) | (arr < 0) | (arr > MAX_LINK_WEIGHT)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{prefix} finite, >= 0 and <= {MAX_LINK_WEIGHT:g}; weight {i} is "
            f"{float(arr[i])!r}."
        )
    return arr


def pairs_from_labels(labels, *, n_samples=None, unlabeled=-1):
    """Must-links and cannot-links from partial labels.

    Every two labelled samples are linked: by a must-link if their labels are
    equal, by a cannot-link otherwise. ``m`` labelled samples give
    ``m (m - 1) / 2`` pairs.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        Class labels: integers, strings or any mutually comparable values.
        ``unlabeled``, ``None`` and NaN mark samples without a label.
    n_samples : int, default=None
        If given, ``len(labels)`` must equal it.
    unlabeled : int or str, default=-1
        Marker of unlabelled samples (as in ``sklearn.semi_supervised``).

    Returns
    -------
    must_link, cannot_link : ndarray of shape (n_pairs, 2)

    Examples
    --------
    >>> from smiclust.constraints import pairs_from_labels
    >>> must, cannot = pairs_from_labels([0, -1, 0, 1])
    >>> must.tolist(), cannot.tolist()
    ([[0, 2]], [[0, 3], [2, 3]])
    >>> must, cannot = pairs_from_labels(["cat", None, "cat", "dog"])
    >>> must.tolist(), cannot.tolist()
    ([[0, 2]], [[0, 3], [2, 3]])
    """
    codes = encode_partial_labels(
        labels, n_samples=n_samples, unlabeled=unlabeled, owner="pairs_from_labels"
    )
    return pairs_from_codes(codes)


def pairs_from_codes(codes):
    """Every pair of labelled samples as a must-link (same code) or a
    cannot-link; prior validation is assumed (codes from
    :func:`encode_partial_labels`, ``-1`` unknown).

    Returns
    -------
    must_link, cannot_link : ndarray of shape (n_pairs, 2)
    """
    idx = np.flatnonzero(codes >= 0)
    i, j = np.triu_indices(idx.size, k=1)
    a, b = idx[i], idx[j]
    same = codes[a] == codes[b]
    must = np.stack([a[same], b[same]], axis=1).astype(np.intp)
    cannot = np.stack([a[~same], b[~same]], axis=1).astype(np.intp)
    return must.reshape(-1, 2), cannot.reshape(-1, 2)


def encode_partial_labels(
    labels, *, n_samples=None, unlabeled=-1, owner="fit", name="labels"
):
    """Partial labels as integer codes ``0 .. k-1``, ``-1`` where unknown.

    ``unlabeled``, ``None`` and NaN mark unknown labels; the known ones are
    coded in sorted order (:func:`numpy.unique`). Raises ``TypeError`` /
    ``ValueError`` naming ``labels`` and ``owner`` for anything else than a
    1-d sequence of ``n_samples`` mutually comparable labels.

    Returns
    -------
    codes : ndarray of shape (n_samples,), dtype=intp
    """
    if n_samples is not None and (
        not isinstance(n_samples, numbers.Integral)
        or isinstance(n_samples, (bool, np.bool_))
    ):
        raise TypeError(
            f"The 'n_samples' parameter of {owner} must be an int or None. "
            f"Got {n_samples!r} instead."
        )
    if n_samples is not None and n_samples < 0:
        raise ValueError(
            f"The 'n_samples' parameter of {owner} must be a non-negative int "
            f"or None. Got {n_samples!r} instead."
        )
    if not isinstance(unlabeled, (numbers.Integral, str)) or isinstance(
        unlabeled, (bool, np.bool_)
    ):
        raise TypeError(
            f"The 'unlabeled' parameter of {owner} must be an int or a str (the "
            f"marker of unknown labels). Got {unlabeled!r} instead."
        )
    prefix = f"The {name!r} parameter of {owner} must"
    if hasattr(labels, "toarray"):
        raise TypeError(f"{prefix} be a 1-d array of labels; got a sparse matrix.")
    y = np.asarray(labels)
    if y.ndim != 1:
        raise ValueError(f"{prefix} be 1-d; got an array of shape {y.shape}.")
    if n_samples is not None and y.shape[0] != n_samples:
        raise ValueError(
            f"{prefix} have one entry per sample: expected {n_samples}, "
            f"got {y.shape[0]}."
        )
    if y.dtype.kind == "b":
        raise TypeError(f"{prefix} hold class labels; got booleans.")
    boolean = _boolean_in(labels)
    if boolean is not None:
        raise TypeError(f"{prefix} hold class labels; got the boolean "
                        f"{boolean!r} among them.")
    if y.dtype.kind not in "iufUSO":
        raise TypeError(f"{prefix} hold class labels; got dtype {y.dtype}.")
    if y.dtype.kind == "f" and np.isinf(y).any():
        raise ValueError(f"{prefix} hold finite labels; got inf.")
    if y.dtype.kind in "US" and not isinstance(unlabeled, (str, type(None))) and (
        y == np.asarray(str(unlabeled)).astype(y.dtype)
    ).any():
        # np.where(known, names, -1) turns -1 into the string "-1": a class
        # name to numpy, an unknown label to the user; neither is safe to guess
        raise ValueError(
            f"{prefix} mark unknown labels with {unlabeled!r} (or None, NaN); "
            f"got the string {str(unlabeled)!r} in an array of strings, which "
            "would be a class of its own. Use an object array holding "
            f"{unlabeled!r} for unknown labels, e.g. "
            f"np.where(known, names.astype(object), {unlabeled!r})."
        )
    values = y.tolist()
    given = [v for v in values if not _is_missing(v)]
    if isinstance(unlabeled, str) and given and not any(
        isinstance(v, str) for v in given
    ):
        # a string marker equals strings only: "-1" over [0, 1, -1] (or "?"
        # over the bytes b"?") would make the marked samples a class
        kinds = sorted({type(v).__name__ for v in given})
        raise ValueError(
            f"The 'unlabeled' parameter of {owner} is the string {unlabeled!r}, "
            f"but the {name!r} hold no string ({', '.join(kinds)}), so no label "
            "is marked unknown by it; give the marker as a label is written "
            "(e.g. unlabeled=-1 for numbers) or the labels as strings."
        )
    unknown = np.array([_is_unknown(v, unlabeled) for v in values], dtype=bool)
    codes = np.full(y.shape[0], -1, dtype=np.intp)
    known = y[~unknown]
    if known.size:
        try:
            _, codes[~unknown] = np.unique(known, return_inverse=True)
        except TypeError:
            kinds = sorted({type(v).__name__ for v in known.tolist()})
            raise TypeError(
                f"{prefix} hold labels of one kind; got {', '.join(kinds)}."
            ) from None
    return codes


def cluster_classes(labels, partial_labels, n_clusters, *, owner="cluster_classes"):
    r"""The class each cluster stands for: the label most of its labelled
    samples carry.

    For cluster :math:`k`, with :math:`L_k` the labelled samples it holds
    and :math:`y_i` their known labels,

    .. math:: \mathrm{class}(k) = \arg\max_{y}\, |\{i \in L_k : y_i = y\}|,

    ties going to the first label in sorted order (:func:`numpy.unique`).
    A cluster that holds no labelled sample stands for no known class and
    gets the marker of an unknown label of the input's kind: ``-1`` for
    signed integer labels, NaN for floating-point ones, ``None`` otherwise
    (the result is then an array of dtype object). ``cluster_classes(...)
    [labels]`` names every sample by a class, as
    ``LabelSpreading.transduction_`` does.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        Cluster of each sample, integers in ``0 .. n_clusters - 1``.
    partial_labels : array-like of shape (n_samples,)
        Known labels, ``-1``, ``None`` or NaN where unknown (as
        :func:`encode_partial_labels` reads them).
    n_clusters : int
        Number of clusters (a cluster may hold no sample).
    owner : str, default="cluster_classes"
        Named in error messages.

    Returns
    -------
    classes : ndarray of shape (n_clusters,)
        Of the dtype of ``numpy.asarray(partial_labels)`` when that is a
        signed integer (marker ``-1``) or floating-point one (marker NaN; a
        pandas ``Int64`` array holding ``pd.NA`` converts to floats), of dtype
        object otherwise (marker ``None``; numpy string arrays included).

    Examples
    --------
    >>> cluster_classes([0, 0, 1, 2], ["cat", None, "dog", None], 3)
    array(['cat', 'dog', None], dtype=object)
    >>> cluster_classes([1, 1, 0], [7, -1, -1], 2)
    array([-1,  7])
    """
    if not isinstance(n_clusters, numbers.Integral) or isinstance(
        n_clusters, (bool, np.bool_)
    ):
        raise TypeError(
            f"The 'n_clusters' parameter of {owner} must be a positive int; "
            f"got {n_clusters!r}."
        )
    if n_clusters < 1:
        raise ValueError(
            f"The 'n_clusters' parameter of {owner} must be a positive int; "
            f"got {n_clusters!r}."
        )
    if hasattr(labels, "toarray"):
        raise TypeError(
            f"The 'labels' parameter of {owner} must be a 1-d array of integer "
            "clusters; got a sparse matrix."
        )
    clusters = np.asarray(labels)
    if clusters.ndim == 1 and clusters.size == 0:
        clusters = clusters.astype(np.intp)  # [] reads as floats
    if clusters.ndim != 1 or clusters.dtype.kind not in "iu":
        raise ValueError(
            f"The 'labels' parameter of {owner} must be a 1-d array of integer "
            f"clusters; got an array of shape {clusters.shape} and dtype "
            f"{clusters.dtype}."
        )
    if clusters.size and (clusters.min() < 0 or clusters.max() >= n_clusters):
        raise ValueError(
            f"The 'labels' parameter of {owner} must hold clusters in "
            f"[0, {n_clusters - 1}] (n_clusters={n_clusters}); got values in "
            f"[{clusters.min()}, {clusters.max()}]."
        )
    codes = encode_partial_labels(partial_labels, n_samples=clusters.shape[0],
                                  owner=owner, name="partial_labels")
    return classes_of_codes(clusters, codes, np.asarray(partial_labels), n_clusters)


def classes_of_codes(clusters, codes, given, n_clusters):
    """:func:`cluster_classes` on validated arrays: ``codes`` are
    :func:`encode_partial_labels` of the labels ``given``
    (``numpy.asarray(partial_labels)``)."""
    known = codes >= 0
    names = np.unique(given[known]) if known.any() else given[:0]
    n_names = names.shape[0]
    # in intp: clusters of a small integer type would wrap around
    rows = clusters[known].astype(np.intp)
    counts = np.bincount(rows * max(n_names, 1) + codes[known],
                         minlength=n_clusters * max(n_names, 1))
    counts = counts.reshape(n_clusters, max(n_names, 1))
    named = counts.sum(axis=1) > 0
    if given.dtype.kind == "i" or given.dtype.kind == "f":
        unknown = -1 if given.dtype.kind == "i" else np.nan
        classes = np.full(n_clusters, unknown, dtype=given.dtype)
    else:
        classes = np.full(n_clusters, None, dtype=object)
    classes[named] = names[np.argmax(counts[named], axis=1)]
    return classes


def _is_missing(value):
    """Whether a label is a missing-value marker: None, NaN or pandas' NA."""
    if value is None:
        return True
    if isinstance(value, float) and np.isnan(value):
        return True
    kind = type(value)
    return kind.__name__ == "NAType" and kind.__module__.startswith("pandas")


def check_complete_labels(labels, *, name="labels", owner="fit",
                          meaning="the true classes"):
    """True labels, one per sample, as a 1-d array; missing markers refused.

    ``meaning`` says in the message what the labels stand for.

    For inputs that stand for known classes (a simulated oracle, links drawn
    from the classes), where ``None``, NaN or ``pd.NA`` would otherwise
    become a class of their own (or, NaN being unequal to itself, one class
    per sample). ``-1`` is a class here, as in ``{-1, 1}`` labels.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
    """
    y = np.asarray(labels)
    if y.ndim != 1:
        raise ValueError(
            f"The {name!r} parameter of {owner} must be 1-d; got an array of "
            f"shape {y.shape}."
        )
    if y.dtype.kind == "f":
        missing = np.isnan(y)
    elif y.dtype.kind == "O":
        missing = np.array([_is_missing(v) for v in y.tolist()], dtype=bool)
    else:
        missing = np.zeros(y.shape[0], dtype=bool)
    if missing.any():
        raise ValueError(
            f"The {name!r} parameter of {owner} must hold a label for every "
            f"sample ({meaning}); got {int(missing.sum())} missing "
            "(None, NaN or NA), the first at index "
            f"{int(np.flatnonzero(missing)[0])}."
        )
    return y


def links_against_labels(codes, links, same):
    """Which ``links`` join two labelled samples, and which of those the
    labels contradict (``same``: the links are must-links, so differing
    labels contradict them; else cannot-links, which equal labels contradict).

    Prior validation is assumed: ``codes`` from :func:`encode_partial_labels`
    (``-1`` unknown), ``links`` canonical pairs.

    Returns
    -------
    labelled, contradicted : ndarray of bool, shape (n_links,)
    """
    a, b = codes[links[:, 0]], codes[links[:, 1]]
    labelled = (a >= 0) & (b >= 0)
    return labelled, labelled & ((a == b) != same)


def _is_unknown(value, unlabeled):
    if _is_missing(value):
        return True
    # a string marker matches strings only (np.str_ is a str), a number
    # numbers only: "-1" is not -1
    if isinstance(unlabeled, str):
        return isinstance(value, str) and value == unlabeled
    return isinstance(value, numbers.Number) and value == unlabeled


def sample_links(labels, n_links, random_state=None):
    """Random links typed by the true labels (the 3SMIC paper's protocol).

    ``n_links`` distinct pairs of distinct samples are drawn uniformly at random;
    a pair becomes a must-link when both samples have the same label and a
    cannot-link otherwise.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        True labels, one per sample: ``None``, NaN and ``pd.NA`` are refused
        (``-1`` is a class here, unlike in partial labels).
    n_links : int
        Number of pairs, ``0 <= n_links <= n_samples (n_samples - 1) / 2``.
    random_state : int, RandomState instance or None, default=None
        Controls the draw.

    Returns
    -------
    must_link, cannot_link : ndarray of shape (n_pairs, 2)

    Examples
    --------
    >>> from smiclust.constraints import sample_links
    >>> must, cannot = sample_links([0, 0, 1, 1], n_links=6, random_state=0)
    >>> sorted(map(tuple, must.tolist())), len(cannot)
    ([(0, 1), (2, 3)], 4)
    """
    y = check_complete_labels(labels, owner="sample_links")
    n = y.shape[0]
    n_pairs = n * (n - 1) // 2
    if not isinstance(n_links, numbers.Integral) or isinstance(n_links, bool):
        raise TypeError(
            f"The 'n_links' parameter of sample_links must be an int. Got {n_links!r} "
            "instead."
        )
    if not 0 <= n_links <= n_pairs:
        raise ValueError(
            "The 'n_links' parameter of sample_links must be an int in the range "
            f"[0, n_samples (n_samples - 1) / 2] = [0, {n_pairs}]. Got {n_links!r} "
            "instead."
        )
    validate_params(
        {"random_state": random_state},
        {"random_state": check_random_state_param()},
        "sample_links",
    )
    rng = check_random_state(random_state)
    if 2 * n_links > n_pairs:
        codes = rng.choice(n_pairs, size=int(n_links), replace=False)
    else:
        codes = _distinct_codes(rng, n, int(n_links))
    i, j = _decode_pairs(codes, n)
    pairs = np.stack([i, j], axis=1).astype(np.intp)
    same = y[i] == y[j]
    return pairs[same].reshape(-1, 2), pairs[~same].reshape(-1, 2)


def _distinct_codes(rng, n, n_links):
    """Draw ``n_links`` distinct pair codes by rejection (sparse regime)."""
    n_pairs = n * (n - 1) // 2
    chosen = np.empty(0, dtype=np.int64)
    while chosen.size < n_links:
        need = n_links - chosen.size
        draw = rng.randint(0, n_pairs, size=2 * need + 8).astype(np.int64)
        merged = np.concatenate([chosen, draw])
        _, first = np.unique(merged, return_index=True)
        chosen = merged[np.sort(first)][:n_links]
    return chosen


def _decode_pairs(codes, n):
    """Map codes ``0 .. n(n-1)/2 - 1`` to pairs ``i < j`` (row-major upper triangle)."""
    codes = np.asarray(codes, dtype=np.int64)
    # number of pairs before row i: i*n - i*(i+1)/2
    b = 2 * n - 1
    i = np.floor((b - np.sqrt(b * b - 8.0 * codes)) / 2).astype(np.int64)
    start = i * n - i * (i + 1) // 2
    # correct floating-point rounding at row boundaries
    over = codes < start
    i[over] -= 1
    start = i * n - i * (i + 1) // 2
    next_start = (i + 1) * n - (i + 1) * (i + 2) // 2
    under = codes >= next_start
    i[under] += 1
    start = i * n - i * (i + 1) // 2
    j = codes - start + i + 1
    return i, j


def count_violations(labels, must_link=None, cannot_link=None):
    """Number of links a labelling violates.

    A must-link is violated when its samples get different labels, a cannot-link
    when they get the same label. A pair given as both kinds of link (which
    ``fit`` refuses) is accepted here, and counts as one violation whatever
    the labels.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        One label per sample (``None``, NaN and ``pd.NA`` are refused).
    must_link, cannot_link : array-like of shape (n_links, 2), default=None
        Pairs of sample indices.

    Returns
    -------
    n_violations : int

    Examples
    --------
    >>> from smiclust.constraints import count_violations
    >>> count_violations([0, 0, 1], must_link=[[0, 2]], cannot_link=[[0, 1]])
    2
    """
    y = check_complete_labels(labels, owner="count_violations")
    n = y.shape[0]
    must = check_links(must_link, n, name="must_link", owner="count_violations")
    cannot = check_links(cannot_link, n, name="cannot_link", owner="count_violations")
    violated_must, violated_cannot = link_violations(y, must, cannot)
    return int(np.count_nonzero(violated_must) + np.count_nonzero(violated_cannot))


def _n_pairs(counts):
    return counts * (counts - 1) // 2


def label_pair_counts(codes):
    """``(must, cannot)``: pairs of labelled samples (``codes >= 0``) with
    the same / different labels, counted without forming them."""
    sizes = np.bincount(codes[codes >= 0]).astype(np.int64)
    same = int(_n_pairs(sizes).sum())
    return same, int(_n_pairs(sizes.sum())) - same


def violated_label_pairs(codes, labels):
    """Pairs of labelled samples (``codes >= 0``) that ``labels`` split though
    of one class, or put together though of different classes: from the
    (class, cluster) table, without forming the pairs."""
    known = codes >= 0
    if not known.any():
        return 0
    table = np.zeros((codes.max() + 1, labels.max() + 1), dtype=np.int64)
    np.add.at(table, (codes[known], labels[known]), 1)
    together = int(_n_pairs(table).sum())  # same class, same cluster
    split = int(_n_pairs(table.sum(axis=1)).sum()) - together
    merged = int(_n_pairs(table.sum(axis=0)).sum()) - together
    return split + merged


def link_violations(labels, must_link, cannot_link):
    """Which links a labelling violates; prior validation of the links is assumed.

    Returns
    -------
    violated_must : ndarray of bool, shape (n_must,)
        Must-links whose samples got different labels.
    violated_cannot : ndarray of bool, shape (n_cannot,)
        Cannot-links whose samples got the same label.
    """
    y = np.asarray(labels)
    return (
        y[must_link[:, 0]] != y[must_link[:, 1]],
        y[cannot_link[:, 0]] == y[cannot_link[:, 1]],
    )


def link_contradictions(proba, must_link, cannot_link):
    r"""How strongly a soft clustering contradicts each link, in [0, 1].

    :math:`1 - s_{ij}` for a must-link and :math:`s_{ij}` for a cannot-link,
    with :math:`s_{ij} = \sum_c p_i(c)p_j(c)` the probability that the two
    samples share a cluster (``proba``: rows summing to 1). Prior validation
    is assumed.

    Returns
    -------
    must_scores, cannot_scores : ndarray of shape (n_must,), (n_cannot,)
    """
    P = np.asarray(proba, dtype=np.float64)
    same_must = np.einsum("ij,ij->i", P[must_link[:, 0]], P[must_link[:, 1]])
    same_cannot = np.einsum("ij,ij->i", P[cannot_link[:, 0]], P[cannot_link[:, 1]])
    return np.clip(1.0 - same_must, 0.0, 1.0), np.clip(same_cannot, 0.0, 1.0)


def rank_suspect_links(proba, must_link, cannot_link):
    r"""The links ranked by how strongly a soft clustering contradicts them.

    With :math:`p_i` the class probabilities of sample ``i``, the probability
    that two samples share a cluster is :math:`s_{ij} = \sum_c p_i(c)p_j(c)`;
    a must-link is contradicted by :math:`1 - s_{ij}`, a cannot-link by
    :math:`s_{ij}`. Prior validation is assumed.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_clusters)
        Rows summing to 1 (e.g. ``SMIClustering.proba_``).
    must_link, cannot_link : ndarray of shape (n_pairs, 2)

    Returns
    -------
    suspects : dict of str to ndarray
        One entry per link, most contradicted first (ties keep must-links
        first, then the given order), ready for ``pandas.DataFrame``:
        ``i``, ``j`` (the pair), ``kind`` ("must" or "cannot"), ``index``
        (row in the given must-links or cannot-links) and ``score`` in [0, 1].
    """
    pairs = np.vstack([must_link, cannot_link]).astype(np.intp).reshape(-1, 2)
    score = np.concatenate(link_contradictions(proba, must_link, cannot_link))
    kind = np.array(["must"] * len(must_link) + ["cannot"] * len(cannot_link),
                    dtype="<U6")
    index = np.concatenate([np.arange(len(must_link)), np.arange(len(cannot_link))])
    order = np.argsort(-score, kind="stable")
    return {
        "i": pairs[order, 0],
        "j": pairs[order, 1],
        "kind": kind[order],
        "index": index[order],
        "score": score[order],
    }
