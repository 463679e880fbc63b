"""``smiclust fit``: read DATA, the link files and --labels, and check them.

Everything here runs before any work and before any output, so that a bad
input ends the command with one line on stderr (a ``UsageError``).
"""

import dataclasses
import functools

from . import _common


def _split_names(text, option):
    if text is None:
        return None
    names = [c.strip() for c in text.split(",")]
    if any(c == "" for c in names):
        raise _common.usage_error(f"{option} has an empty name: {text!r}")
    return names


def column_choice(args):
    """``read_table``'s ``columns`` and ``drop_columns`` from --columns and
    --drop-columns."""
    return dict(columns=_split_names(args.columns, "--columns"),
                drop_columns=_split_names(args.drop_columns, "--drop-columns"))


def _combine_links(must_parts, cannot_parts, rep):
    """Links of every file and of the labels, each pair once (in first-seen
    order); a pair given by more than one source is reported, then kept once
    (within one file a repeat is an error of that file).

    Each part is ``(pairs, weights or None)``. When any part has weights, every
    link gets one (1 where its source has none) and a pair given more than once
    keeps the largest. Returns ``(must, cannot, must_weight, cannot_weight)``,
    the weights None when no part has any.
    """
    import numpy as np

    weighted = any(w is not None for _, w in (*must_parts, *cannot_parts))

    def unique_pairs(parts, kind):
        if not parts:
            empty = np.empty(0) if weighted else None
            return np.empty((0, 2), dtype=np.intp), empty
        pairs = np.sort(np.concatenate([p for p, _ in parts]).reshape(-1, 2), axis=1)
        weights = np.concatenate([np.ones(len(p)) if w is None else w
                                  for p, w in parts]).astype(np.float64)
        _, first, inverse = np.unique(pairs, axis=0, return_index=True,
                                      return_inverse=True)
        inverse = inverse.reshape(-1)
        if len(first) < len(pairs):
            largest = (", with the largest of its weights" if weighted else "")
            rep.warning(f"{len(pairs) - len(first)} {kind}(s) given by more than "
                        "one source (link files, --labels); each counted once"
                        f"{largest}")
        best = np.zeros(len(first))
        np.maximum.at(best, inverse, weights)
        order = np.sort(first)  # first-seen order
        unique = np.ascontiguousarray(pairs[order], dtype=np.intp)
        return unique, (best[inverse[order]] if weighted else None)

    must, must_weight = unique_pairs(must_parts, "must-link")
    cannot, cannot_weight = unique_pairs(cannot_parts, "cannot-link")
    return must, cannot, must_weight, cannot_weight


def _describe_rows(i, j, ids):
    if ids is None:
        return f"rows {i} and {j}"
    return f"rows {i} and {j} (ids {ids[i]!r} and {ids[j]!r})"


@dataclasses.dataclass
class Options:
    """How the inputs are read and the outputs written, checked up front."""

    header: object  # "infer", True or False
    delimiter: object  # one character, "whitespace" or None (sniffed)
    columns: object  # list of feature column names/positions, or None
    drop_columns: object  # list of columns left out of those, or None
    fmt: str  # format of the assignments


@dataclasses.dataclass
class Inputs:
    """DATA and its links, read and checked before any work."""

    X: object  # (n_samples, n_features) float64, standardized with --standardize
    ids: object  # row ids (str), or None without --id-column
    names: object  # feature names, or None
    must: object  # (n_must, 2) row indices, sorted within a pair
    cannot: object  # (n_cannot, 2), likewise
    n_labeled: object  # rows with a known label in --labels, or None
    said_conflicts: tuple  # warning categories fit reports in its own words
    scaler: object = None  # {"mean", "scale"} with --standardize
    must_weight: object = None  # (n_must,) float64 when a link file has weights
    cannot_weight: object = None  # (n_cannot,), likewise (None: no weights)
    # --labels as codes (-1 unknown), given to fit as partial_labels; None
    # without --labels and when a link file has weights (the labels are then
    # pairs in must / cannot, weighing 1)
    partial_labels: object = None
    # --labels as (codes, the label of every code), or None: what names the
    # clusters (with or without link weights)
    label_names: object = None

    @property
    def weighted(self):
        """Whether the link files had weights other than 0 and 1 (then both
        weights are set)."""
        return self.must_weight is not None

    def _present(self):
        """The files' must-links and cannot-links of positive weight (a link
        of weight 0 is no link, as in ``fit``)."""
        from ..base import positive_weight_rows

        return (self.must[positive_weight_rows(self.must, self.must_weight)],
                self.cannot[positive_weight_rows(self.cannot, self.cannot_weight)])

    @functools.cached_property
    def n_links(self):
        """``(n_must, n_cannot)``: the links in effect, each pair once: those
        of the files of positive weight and every pair of labelled rows (not
        formed); counted once (the links do not change after reading)."""
        from ..constraints import label_pair_counts

        must, cannot = self._present()
        n_must, n_cannot = len(must), len(cannot)
        if self.partial_labels is not None:
            label_must, label_cannot = label_pair_counts(self.partial_labels)
            n_must, n_cannot = n_must + label_must, n_cannot + label_cannot
        return n_must, n_cannot

    @functools.cached_property
    def contradictory(self):
        """Whether the files' links contradict themselves (a cannot-link
        inside a chain of must-links)."""
        from ..link_groups import link_groups

        must, cannot = self._present()
        if not len(must) or not len(cannot):
            return False
        return link_groups(must, cannot, self.X.shape[0]).n_contradictions > 0

    def n_violated(self, labels):
        """Links in effect (:attr:`n_links`) that ``labels`` violate."""
        from ..constraints import count_violations, violated_label_pairs

        n = count_violations(labels, *self._present())
        if self.partial_labels is not None:
            n += violated_label_pairs(self.partial_labels, labels)
        return int(n)


def check_options(args):
    """Options and output paths, checked before any file is read."""
    options = Options(
        header=_common.header_arg(args.header),
        delimiter=_common.delimiter_arg(args.delimiter),
        **column_choice(args),
        fmt=_common.output_format(args.out, args.format, json_mode=args.json),
    )
    inputs = [("DATA", args.data), ("--labels", args.labels),
              *(("--must-link", p) for p in args.must_link),
              *(("--cannot-link", p) for p in args.cannot_link),
              *(("--answers", p) for p in args.answers)]
    for option, path in (("--save", args.save), ("--plot", args.plot),
                         ("--suspect-links", args.suspect_links)):
        if path == "-":  # a file named '-' would surprise: '-' is stdout
            raise _common.usage_error(f"{option} needs a file name (stdout "
                                      "holds the assignments)")
    for option, path in (("--out", args.out), ("--save", args.save),
                         ("--plot", args.plot),
                         ("--suspect-links", args.suspect_links)):
        _common.check_output_path(path, option, inputs)
        inputs.append((option, path))
    if args.plot:
        _common.require_matplotlib(args.plot)
        if args.plot_embedding == "eigenvectors" and args.n_clusters < 2:
            raise _common.usage_error(
                "--plot-embedding eigenvectors needs -k 2 or more (the two "
                f"leading eigenvectors); got -k {args.n_clusters}. Use "
                "--plot-embedding pca")
    if args.top is not None and args.suspect_links is None:
        raise _common.usage_error("--top needs --suspect-links FILE (it limits "
                                  "the links written there)")
    if (args.suspect_links is not None
            and _common.suspect_links_format(args.suspect_links) == "parquet"):
        _common.require_pyarrow()
    return options


def read_inputs(args, options, rep):
    """DATA, the link files and --labels: read, checked, links combined."""
    import numpy as np

    from .. import io
    from ..base import positive_weight_rows

    X, ids, names = _common.read_input(
        "DATA", io.read_table, args.data, reporter=rep, id_column=args.id_column,
        header=options.header, columns=options.columns,
        drop_columns=options.drop_columns,
        delimiter=options.delimiter)
    n = X.shape[0]
    if n < 2:
        raise _common.usage_error(f"DATA: {args.data}: needs at least 2 rows; got {n}")
    if args.n_clusters > n:
        raise _common.usage_error(
            f"-k {args.n_clusters} is more clusters than DATA has rows ({n})")
    must, cannot, must_weight, cannot_weight, n_labeled, partial, label_names = (
        _read_links(args, ids, n, rep))
    # a link of weight 0 is no link: it contradicts nothing
    said_conflicts = _check_link_conflicts(
        must[positive_weight_rows(must, must_weight)],
        cannot[positive_weight_rows(cannot, cannot_weight)], ids, n, rep)
    t_values = [] if args.n_neighbors == "auto" else np.atleast_1d(args.n_neighbors)
    if any(t >= n for t in t_values):
        raise _common.usage_error(
            f"--n-neighbors must be smaller than the number of rows ({n}); got "
            f"{max(t_values)}")
    inputs = Inputs(X, ids, names, must, cannot, n_labeled, said_conflicts,
                    must_weight=must_weight, cannot_weight=cannot_weight,
                    partial_labels=partial, label_names=label_names)
    if args.standardize:
        _standardize(inputs, rep)
    else:
        _warn_about_scales(X, names, rep)
    if args.n_clusters == 1:
        rep.warning("-k 1: one cluster is trivial (every row gets cluster 0); "
                    "ask for 2 or more to find structure")
    return inputs


#: Ratio of the largest to the smallest positive feature standard deviation
#: above which fit suggests --standardize.
SCALE_RATIO_WARNING = 1e3


def column_std(X):
    """Standard deviation of every column of a dense or sparse ``X`` (never
    densified: scikit-learn's ``mean_variance_axis`` for sparse input)."""
    import numpy as np
    import scipy.sparse as sp
    from sklearn.utils.sparsefuncs import mean_variance_axis

    if not sp.issparse(X):
        return X.std(axis=0)
    return np.sqrt(mean_variance_axis(X, axis=0)[1])


def _warn_about_scales(X, names, rep):
    """Suggest --standardize when feature scales differ by orders of magnitude:
    the distances of the kernel are then those of the widest features."""
    import numpy as np

    std = column_std(X)
    positive = np.flatnonzero(std > 0)
    if len(positive) < 2:
        return
    small = positive[np.argmin(std[positive])]
    large = positive[np.argmax(std[positive])]
    ratio = std[large] / std[small]
    if ratio > SCALE_RATIO_WARNING:
        def name(j):
            return repr(names[j]) if names else str(j)
        rep.warning(
            f"feature scales differ by a factor of {ratio:.2g} (standard "
            f"deviation {std[small]:.3g} of column {name(small)}, {std[large]:.3g} "
            f"of column {name(large)}); the distances are those of the widest "
            "features: consider --standardize")


def _read_links(args, ids, n, rep):
    """Links of the --must-link / --cannot-link files, of the --answers files
    (must and cannot answers; skips are no link) and of --labels.

    Returns ``(must, cannot, must_weight, cannot_weight, n_labeled,
    partial, label_names)``; the weights are None unless a link file has a
    weight column with a weight other than 0 and 1 (links without one, and
    those of --labels, weigh 1; with weights of 0 and 1 only, the links of
    weight 0 are left out and the others are unweighted, as in ``fit``);
    ``n_labeled`` is None without --labels. Without weights the labels are
    ``partial`` (codes, -1 unknown; fit's ``partial_labels``: one group per
    label, not every pair) and ``must`` / ``cannot`` hold only the file links
    they do not give; with weights ``partial`` is None and their pairs are in
    ``must`` / ``cannot``.
    ``label_names`` is ``(codes, names)``, ``names[k]`` the label of code
    ``k``, or None without --labels.
    """
    import numpy as np

    from .. import io
    from ..base import positive_weight_rows, weights_act
    from ..constraints import pairs_from_labels

    must_parts, cannot_parts = [], []
    for option, paths, parts in (("--must-link", args.must_link, must_parts),
                                 ("--cannot-link", args.cannot_link, cannot_parts)):
        for path in paths:
            links, weights = _common.read_input(
                option, io.read_weighted_links, path, reporter=rep, ids=ids,
                n_samples=n, header=_common.header_arg(args.links_header))
            if not len(links):
                rep.warning(f"{option} {path}: no links in the file (empty, or "
                            "one line read as a header)")
            parts.append((links, weights))
    for path in args.answers:
        answers = _common.read_input("--answers", io.read_answers, path,
                                     reporter=rep, ids=ids, n_samples=n)
        must, cannot = io.links_of(answers)
        if not len(must) and not len(cannot):
            rep.warning(f"--answers {path}: no must or cannot answer in the file")
        must_parts.append((must, None))
        cannot_parts.append((cannot, None))
    n_labeled = partial = label_names = None
    if args.labels:
        y, names = _common.read_input(
            "--labels", io.read_labels, args.labels, return_names=True,
            reporter=rep, ids=ids, n_samples=n,
            header=_common.header_arg(args.labels_header))
        label_names = y, names
        n_classes = int(y.max()) + 1
        if n_classes > args.n_clusters:
            raise _common.usage_error(
                f"--labels: {args.labels} has {n_classes} distinct labels, more "
                f"than -k {args.n_clusters} clusters")
        n_labeled = int(np.count_nonzero(y >= 0))
        weighted = any(weights_act(w) for _, w in (*must_parts, *cannot_parts))
        if weighted:  # weighted links are used as given: so are the labels'
            lab_must, lab_cannot = pairs_from_labels(y)
            must_parts.append((lab_must, None))
            cannot_parts.append((lab_cannot, None))
        else:
            partial = y
    must, cannot, must_weight, cannot_weight = _combine_links(
        must_parts, cannot_parts, rep)
    if (must_weight is not None and not weights_act(must_weight)
            and not weights_act(cannot_weight)):
        must = must[positive_weight_rows(must, must_weight)]
        cannot = cannot[positive_weight_rows(cannot, cannot_weight)]
        must_weight = cannot_weight = None
        rep.progress("link weights of 0 and 1 only: the links of weight 0 are "
                     "left out, the others used as links without weights")
    if partial is not None:
        must, cannot = _outside_labels(must, cannot, partial, ids, rep)
    return must, cannot, must_weight, cannot_weight, n_labeled, partial, label_names


def _outside_labels(must, cannot, codes, ids, rep):
    """The file links that the labels do not already give; a file link that
    contradicts the labels is an error (as a pair both must- and cannot-linked
    is), one they repeat is reported and kept once."""
    import numpy as np

    from ..constraints import links_against_labels

    implied = []
    for pairs, same in ((must, True), (cannot, False)):
        both, wrong = links_against_labels(codes, pairs, same)
        if wrong.any():
            i, j = pairs[np.flatnonzero(wrong)[0]]
            raise _common.usage_error(
                f"{int(wrong.sum())} pair(s) are both a must-link and a "
                f"cannot-link, e.g. {_describe_rows(i, j, ids)} (a link file "
                "against --labels)")
        implied.append(both)
    for kind, both in (("must-link", implied[0]), ("cannot-link", implied[1])):
        if both.any():
            rep.warning(f"{int(both.sum())} {kind}(s) given by more than one "
                        "source (link files, --labels); each counted once")
    return must[~implied[0]], cannot[~implied[1]]


def _check_link_conflicts(must, cannot, ids, n, rep):
    """A pair both must- and cannot-linked is an error; a cannot-link inside a
    chain of must-links is a warning, said here with ids when DATA has ids.

    Returns the warning categories the estimator need not repeat.
    """
    from ..constraints import (
        ConstraintConflictWarning,
        conflicting_cannot_links,
        pairs_in_both,
    )

    if len(must) and len(cannot):
        common = pairs_in_both(must, cannot)  # both sorted within a pair
        if len(common):
            i, j = min(map(tuple, common.tolist()))
            raise _common.usage_error(
                f"{len(common)} pair(s) are both a must-link and a cannot-link, "
                f"e.g. {_describe_rows(i, j, ids)}")
    if ids is None:
        return ()
    conflicts = conflicting_cannot_links(must, cannot, n)
    if len(conflicts):
        shown = "; ".join(_describe_rows(i, j, ids) for i, j in conflicts[:3])
        rep.warning(f"{len(conflicts)} cannot-link(s) join rows that chains of "
                    f"must-links put together, e.g. {shown}; no clustering "
                    "can satisfy every link")
    return (ConstraintConflictWarning,)


#: Columns of a larger magnitude are divided by it before ``--standardize``:
#: the squares of their deviations could overflow (above about 1.3e154).
_SAFE_PEAK = 1e150


def _standardize(inputs, rep):
    """z-score the features of ``inputs.X`` in place of it, as scikit-learn's
    ``StandardScaler`` does (the same values); constant ones -> 0.

    A column whose largest magnitude (``peak``) exceeds :data:`_SAFE_PEAK` is
    first divided by it, so that its variance stays finite (a column near
    1e308 overflowed to a zero column); its z-scores do not change beyond
    rounding. Other columns are left as they are.
    """
    import numpy as np
    import scipy.sparse as sp
    from sklearn.preprocessing import StandardScaler

    X, names = inputs.X, inputs.names
    if sp.issparse(X):
        raise _common.usage_error(
            "--standardize centres every column, which would make the sparse "
            "DATA dense; scale it before saving it (TF-IDF rows are already "
            "normalised) or give a dense file")
    peak = np.abs(X).max(axis=0)
    peak = np.where(peak > _SAFE_PEAK, peak, 1.0)
    X = X / peak
    scaler = StandardScaler().fit(X)
    mean, scale = scaler.mean_, scaler.scale_
    constant = np.ptp(X, axis=0) == 0
    X = scaler.transform(X)
    X[:, constant] = 0.0
    inputs.X = X
    inputs.scaler = {"peak": peak, "mean": mean, "scale": scale}
    if constant.any():
        which = [names[j] if names else str(j) for j in np.flatnonzero(constant)]
        rep.warning(f"--standardize: constant column(s) {', '.join(which)} "
                    "set to 0")
