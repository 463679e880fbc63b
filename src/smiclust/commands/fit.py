"""``smiclust fit``: cluster a data file, with links and labels from files."""

import argparse
import math
import re
import sys
import time

from . import _common
from ._fit_inputs import check_options, read_inputs

DESCRIPTION = """\
Cluster the rows of DATA into N clusters with smiclust's default (SMIC, or
3SMIC when must-links, cannot-links or partial labels are given, each with the
library's steps beyond the paper), and write one cluster per input row, in
input order.

DATA is delimited text (CSV, TSV, white space; with or without a header line),
a .npy array, a sparse matrix saved by scipy.sparse.save_npz (.npz, e.g. TF-IDF
rows; kept sparse, so --standardize is refused), or Parquet (needs pyarrow).
An id column (--id-column) is not a
feature: it is copied to the output, and link and label files may refer to rows
by id instead of by 0-based row index.
"""

EPILOG = """\
link and label files:
  --must-link / --cannot-link FILE: two cells a line, the rows of one link,
  with an optional header line ("a,b"), or three cells a line, the third the
  link's weight (its confidence, a number in [0, 1e100]; header "a,b,weight");
  every line of a file has the same number of cells. When DATA has an id
  column, the cells are ids of DATA, compared as text ("1" is not the id
  "001"); an integer is never taken for a row index then. Without an id
  column, they are 0-based row indices. A first line of two ids that also read as column
  names (id1,id2; from,to) is an error until --links-header says which; so is
  a first line 0,1 (0,1,2 with weights), the header pandas writes for unnamed
  columns or the link of rows 0 and 1.
  --answers FILE: the answers file 'smiclust ask' writes (i,j,answer a line,
  answer must, cannot or skip; rows as in the link files): must answers are
  must-links, cannot answers cannot-links, skipped pairs are no link. A
  first line of column names (i,j,answer, or any names with no answer
  beside two cells that name no row, such as i,j,type) is a header.
  --labels FILE: one label per DATA row (in order; the line count must be
  the row count, after an optional header line), or two cells a line (row,
  label) for the labelled rows only. Unknown labels: an empty cell, -1, ?,
  unknown, NA, N/A, NaN, null, none (any case). At most N distinct labels.
  Every two labelled rows are a must-link (same label) or a cannot-link
  (different labels), used as SMIClustering.fit(partial_labels=...) uses
  them: one group per label, the pairs counted, not formed, and no link test.
  With a weighted link file they are formed as pairs of weight 1.
  Weights: when any link file has a weight column, the links of files
  without one and of --labels weigh 1, and a link given more than once keeps
  its largest weight (said in a warning). Weighted links are used as given,
  the paper's 3SMIC (the summary's "links" is then "paper"), not closed into
  must-link groups; weights of 0 and 1 only change nothing (links of weight
  0 are left out, the others are links without weights).

suspect links:
  --suspect-links FILE writes the given links, the most contradicted by the
  fit first (the estimator's suspect_links_): columns i,j (0-based rows) or
  <id>_i,<id>_j (ids, with an id column), kind (must/cannot), score in
  [0, 1] (1 minus the probability that the fit puts a must-linked pair
  together; that probability for a cannot-link). CSV, TSV, JSON or Parquet
  from the suffix; --top K keeps the K first.

output:
  Without --out, the assignments go to stdout as CSV (header 'cluster', or
  '<id>,cluster', then proba_0, proba_1, ... with --proba, then 'class' with
  --labels: the label most of the cluster's labelled rows carry, empty where
  none), and progress and a one-line JSON summary (chosen
  n_neighbors/gamma/eta, LSMI, violated links, cluster sizes, the clusters'
  labels, seconds) go to stderr. With --out FILE they go to
  FILE (format from the suffix) and stdout stays empty. With --json, stdout
  is one JSON object {"summary": {...}, "assignments": [...]} (no
  "assignments" with --out). --quiet silences progress and summary.

parameters:
  'auto' (default) chooses n_neighbors in 1..10 (those whose graph, joined
  by the must-links, has at most N components), and gamma and eta in {0, 1}
  (smiclust.model_selection.CLOSURE_GAMMAS, CLOSURE_ETAS), by the 3SMIC
  criterion (LSMI, then violated links): at most 40 candidates. Links with
  a weight column, or links that contradict themselves (with --contradictions
  soften), are used as given: gamma and eta then in {0, 0.1, 1, 10}, at
  most 160 candidates. Fixed values,
  or short comma-separated lists, are faster. gamma matters only with
  must-links, eta only with cannot-links and N = 2; the summary's "tuned"
  lists what was searched.

exit status: 0 on success, 2 on bad input (one line on stderr), 1 when the
  solver fails.

examples:
  smiclust fit data.csv -k 3 --id-column sample --must-link same.csv \\
      --cannot-link different.csv --out clusters.csv --plot clusters.png
  smiclust fit data.npy -k 2 --labels partial.csv --n-neighbors 7 > labels.csv
  smiclust fit data.csv -k 4 --standardize --save model.joblib --json
  smiclust fit data.csv -k 2 --id-column id --must-link weighted.csv \\
      --suspect-links suspects.csv --top 20 --out clusters.csv
"""


positive_int = _common.number_arg(int, "an integer", lambda n: n >= 1,
                                  "an integer >= 1")


non_negative_float = _common.number_arg(
    float, "a number", lambda x: 0 <= x < float("inf"), "a finite number >= 0")


fraction_arg = _common.number_arg(float, "a number", lambda x: 0 <= x < 1,
                                  "a number in [0, 1)")


def spreading_arg(value):
    """``auto`` or a number in [0, 1)."""
    return "auto" if value.strip().lower() == "auto" else fraction_arg(value)


def _grid_arg(kind, convert, low):
    def parse(value):
        text = value.strip().lower()
        if text == "auto":
            return "auto"
        try:
            values = [convert(v) for v in text.split(",") if v.strip() != ""]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected 'auto', {kind} or a comma-separated list, got {value!r}"
            ) from None
        if not values or any(not (low <= v < float("inf")) for v in values):
            raise argparse.ArgumentTypeError(
                f"expected 'auto' or finite {kind.split(' ', 1)[1]}s >= {low}, "
                f"got {value!r}"
            )
        return values[0] if len(values) == 1 else values
    parse.__name__ = kind
    return parse


n_neighbors_arg = _grid_arg("an integer", int, 1)


weight_arg = _grid_arg("a number", float, 0.0)


def add_data_arguments(parser, *, k_help):
    """DATA and -k/--n-clusters (shared by fit and ask)."""
    parser.add_argument("data", metavar="DATA",
                        help="data file: .csv/.tsv/.txt, .npy, sparse .npz or .parquet")
    parser.add_argument("-k", "--n-clusters", type=positive_int, required=True,
                        metavar="N", help=k_help)


def add_input_arguments(parser, *, standardize_help):
    """The "input" group: how DATA is read (shared by fit and ask)."""
    inp = parser.add_argument_group("input")
    _common.add_table_arguments(inp)
    inp.add_argument(
        "--columns", metavar="NAMES", default=None,
        help="comma-separated feature columns (names or 0-based positions), in "
             "this order (default: every column but the id column)")
    inp.add_argument(
        "--drop-columns", metavar="NAMES", default=None,
        help="comma-separated columns left out of the features, e.g. a class "
             "column (names or 0-based positions)")
    inp.add_argument("--standardize", action="store_true", help=standardize_help)
    return inp


def add_model_arguments(parser):
    """The "model" group with --n-neighbors, --gamma, --eta and
    --keep-cannot-links (shared by fit and ask); the caller adds the rest."""
    model = parser.add_argument_group("model")
    model.add_argument("--n-neighbors", type=n_neighbors_arg, default="auto",
                       metavar="auto|INT[,INT...]",
                       help="kernel neighbours t (default: auto, 1..10)")
    model.add_argument("--gamma", type=weight_arg, default="auto",
                       metavar="auto|FLOAT[,FLOAT...]",
                       help="must-link weight >= 0 (default: auto)")
    model.add_argument("--eta", type=weight_arg, default="auto",
                       metavar="auto|FLOAT[,FLOAT...]",
                       help="cannot-link weight >= 0, used when N = 2 (default: "
                            "auto)")
    model.add_argument("--keep-cannot-links", action="store_true",
                       help="with 3 or more clusters and closed links, keep "
                            "every cannot-link in the labels where a colouring "
                            "allows, whatever the data say (for links you "
                            "trust; off by default, which lets sure data break "
                            "a wrong cannot-link)")
    return model


def add_parser(subparsers):
    p = subparsers.add_parser(
        "fit",
        help="cluster a data file (CSV, .npy, sparse .npz, Parquet), with links "
             "from files",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_arguments(p, k_help="number of clusters")
    add_input_arguments(
        p, standardize_help="z-score every feature (subtract the mean, divide by "
        "the standard deviation); constant columns become 0 (they carry no "
        "information) and are named in a warning. Stored with --save, applied by "
        "predict")
    links = p.add_argument_group("links")
    links.add_argument("--must-link", metavar="FILE", action="append", default=[],
                       help="pairs of rows that belong together (repeatable)")
    links.add_argument("--cannot-link", metavar="FILE", action="append", default=[],
                       help="pairs of rows that belong apart (repeatable)")
    links.add_argument("--answers", metavar="FILE", action="append", default=[],
                       help="answers file of 'smiclust ask' (CSV i,j,answer): "
                            "its must and cannot answers are links, skips are "
                            "ignored (repeatable)")
    links.add_argument("--labels", metavar="FILE", default=None,
                       help="partial labels (fit's partial_labels); unknown labels "
                            "are written as an empty cell, -1, ?, unknown, NA "
                            "(or N/A, NaN, null, none; any case)")
    for option, files, rule in (
            ("--links-header", "the link files", "when neither cell names a row; "
             "an error when two ids read as column names too (id1,id2)"),
            ("--labels-header", "--labels", "see 'link and label files' below")):
        links.add_argument(option, choices=("infer", "yes", "no"), default="infer",
                           help=f"whether the first line of {files} is a header; "
                                f"'infer' (default): {rule}")
    model = add_model_arguments(p)
    model.add_argument("--violation-penalty", type=non_negative_float, default=1.0,
                       metavar="W",
                       help="how much violated links count when the auto "
                            "parameters are chosen: LSMI / max LSMI - W x "
                            "violations / max violations (default: 1, the "
                            "paper's; larger trusts the links more, 0 ignores "
                            "them)")
    model.add_argument("--spreading", type=spreading_arg, default="auto",
                       metavar="A",
                       help="weight of the neighbours when the rows in no link "
                            "take their labels: the final scores are spread "
                            "over the kernel graph (default: auto, 0.5 or 0.9 "
                            "where held-out linked rows show 0.9 better; 0 "
                            "keeps the eigenvector scores as they are)")
    model.add_argument("--no-classifier", dest="classifier", action="store_const",
                       const=None, default="auto",
                       help="rows in no link take the spread scores' labels "
                            "alone (default: a random forest trained on the "
                            "linked rows votes with them, or labels them "
                            "alone, where held-out linked rows show it "
                            "better; tried from a few linked rows per cluster, "
                            "smiclust.classifier_vote.MIN_SEEDS_PER_CLUSTER, "
                            "when at least 1%% of the rows are in no link)")
    model.add_argument("--no-consensus", dest="consensus", action="store_false",
                       help="label by the chosen candidate alone, not by the "
                            "vote of the best candidate of every n_neighbors")
    model.add_argument("--indicator-rotation", action="store_true",
                       help="with 3 or more clusters, rotate the leading "
                            "eigenvectors within their span towards cluster "
                            "indicators before labelling (often better with "
                            "many clusters; off by default)")
    model.add_argument("--contradictions", choices=("soften", "repair"),
                       default="soften",
                       help="links that contradict themselves (a cannot-link "
                            "inside a chain of must-links): 'soften' uses every "
                            "link softly as given (default; for many wrong "
                            "links), 'repair' leaves out the fewest must-links "
                            "that resolve each contradiction and closes the "
                            "rest (for a few typos among many right links)")
    model.add_argument("--kernel", choices=("auto", "local-scaling", "normalized"),
                       default="auto",
                       help="'local-scaling' is the paper's kernel, "
                            "'normalized' the same degree-normalised (its "
                            "eigenvectors do not crowd into the densest "
                            "cluster); 'auto' (default) fits both for two "
                            "clusters and keeps the normalised one when LSMI "
                            "prefers it clearly")
    model.add_argument("--link-test-level", type=fraction_arg, default=0.05,
                       metavar="A",
                       help="significance level at which the links are set "
                            "aside as wrong, when the fit without links "
                            "predicts held-out links better (default: 0.05; "
                            "0 never tests)")
    model.add_argument("--random-state", type=_common.seed_arg, default=0,
                       metavar="INT",
                       help="seed of every random choice (default: 0)")
    model.add_argument("--n-jobs", type=_common.n_jobs_arg, default=None,
                       metavar="INT",
                       help="parallel jobs of the search (default: 1)")
    out = _common.add_output_arguments(p, fit=True)
    out.add_argument("--save", metavar="MODEL", default=None,
                     help="save the fitted model (joblib) for 'smiclust predict'")
    out.add_argument("--plot", metavar="FILE.png", default=None,
                     help="draw the clusters and the links in 2-d (needs "
                          "matplotlib)")
    out.add_argument("--suspect-links", metavar="FILE", default=None,
                     help="write the given links, most contradicted by the fit "
                          "first, with their score (CSV, TSV, JSON or Parquet "
                          "from the suffix); see 'suspect links' below")
    out.add_argument("--top", type=positive_int, default=None, metavar="K",
                     help="with --suspect-links: only the K most contradicted "
                          "links (default: all)")
    out.add_argument("--plot-embedding", choices=("auto", "eigenvectors", "pca"),
                     default="auto",
                     help="coordinates of --plot: 'auto' (default) is the two "
                          "leading eigenvectors when N = 2 and PCA of all N "
                          "eigenvectors when N > 2 (every cluster visible); "
                          "'eigenvectors' the two leading ones; 'pca' PCA of "
                          "DATA")


def _count(number, noun):
    """``"1 row"``, ``"2 rows"``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _count_candidates(model, inputs, contradictions):
    """How many (n_neighbors, gamma, eta) settings fit will try at most, for
    the progress line and the summary; None when the parameters are invalid
    (fit then says why)."""
    n_must, n_cannot = inputs.n_links
    as_given = inputs.weighted or (contradictions == "soften"
                                   and inputs.contradictory)
    try:
        return len(model.candidate_parameters(
            inputs.X.shape[0], n_must=n_must, n_cannot=n_cannot,
            links_as_given=as_given))
    except (ValueError, TypeError):
        return None


def run(args):
    from ..io import atomic_writes

    start = time.perf_counter()
    rep = _common.Reporter("fit", quiet=args.quiet, json_mode=args.json)
    options = check_options(args)
    # Every input is read and checked before anything is printed, so that a
    # bad file ends with exactly one line on stderr.
    inputs = read_inputs(args, options, rep)
    id_name = _id_name(args.id_column, inputs.names, inputs.ids,
                       labelled=inputs.label_names is not None)
    model = _make_model(args)
    n_candidates = _announce(args, model, inputs, rep)
    fit_seconds = _fit(model, inputs, rep)
    if fit_seconds is None:
        return 1
    classes = cluster_class_names(model, inputs)
    _say_cluster_classes(classes, rep)
    proba = model.proba_ if args.proba else None
    summary = _summary(args, model, inputs, options.fmt, n_candidates,
                       fit_seconds, start, rep, classes)
    # all or nothing: where one output cannot be written, none replaces its file
    with atomic_writes():
        _write_model_and_plot(args, model, inputs, options, id_name, rep, classes)
        _common.write_result(args, rep, model.labels_, proba, inputs.ids, id_name,
                             options.fmt, summary,
                             classes=_common.row_classes(classes, model.labels_))
    return 0


def _make_model(args):
    from .. import SMIClustering

    return SMIClustering(
        args.n_clusters, n_neighbors=args.n_neighbors, gamma=args.gamma,
        eta=args.eta, violation_penalty=args.violation_penalty,
        spreading=args.spreading, consensus=args.consensus,
        classifier=args.classifier,
        indicator_rotation=args.indicator_rotation,
        contradictions=args.contradictions,
        keep_cannot_links=args.keep_cannot_links,
        kernel=args.kernel,
        link_test_level=args.link_test_level,
        random_state=args.random_state,
        n_jobs=args.n_jobs,
        verbose=0 if args.quiet else 1,
    )


def _announce(args, model, inputs, rep):
    """Progress lines before the fit; returns the number of candidates."""
    n, d = inputs.X.shape
    n_must, n_cannot = inputs.n_links
    n_candidates = _count_candidates(model, inputs, args.contradictions)
    labelled = ("" if inputs.n_labeled is None else
                f" (with {_count(inputs.n_labeled, 'labelled row')})")
    rep.progress(f"{args.data}: {_count(n, 'row')}, {_count(d, 'feature')}; "
                 f"{_count(n_must, 'must-link')}, "
                 f"{_count(n_cannot, 'cannot-link')}{labelled}")
    if inputs.weighted:
        import numpy as np

        weights = np.concatenate([inputs.must_weight, inputs.cannot_weight])
        spread = (f"weights {weights.min():g} to {weights.max():g}"
                  if len(weights) else "no links")
        rep.progress(f"using link weights ({spread}; links without a weight "
                     "column weigh 1); weighted links are used as given "
                     "(links='paper'), not closed")
    if n_candidates and n_candidates > 1:
        # at most: n_neighbors whose graph has more pieces than clusters
        # are left out by the fit
        rep.progress(f"tuning over at most {n_candidates} candidate "
                     "(n_neighbors, gamma, eta) settings by LSMI; this can "
                     "take a while",
                     n_candidates=n_candidates)
    else:
        rep.progress(f"solving for {args.n_clusters} clusters")
    return n_candidates


def _fit(model, inputs, rep):
    """Fit; the seconds it took, or None when the solver failed (said on stderr)."""
    fit_start = time.perf_counter()
    with _common.captured_warnings(rep, already_reported=inputs.said_conflicts), \
            rep.estimator_output():
        try:
            model.fit(inputs.X, must_link=inputs.must, cannot_link=inputs.cannot,
                      must_link_weight=inputs.must_weight,
                      cannot_link_weight=inputs.cannot_weight,
                      partial_labels=inputs.partial_labels)
        except (ValueError, TypeError) as exc:
            raise _common.usage_error(f"cannot fit: {exc}") from None
        except (ArithmeticError, RuntimeError, MemoryError) as exc:
            print(f"smiclust fit: error: the solver failed: "
                  f"{type(exc).__name__}: {_common.one_line(exc)}",
                  file=sys.stderr)
            return None
    fit_seconds = time.perf_counter() - fit_start
    rep.progress(f"fitted in {fit_seconds:.2f} s: n_neighbors={model.n_neighbors_}, "
                 f"gamma={model.gamma_:g}, eta={model.eta_:g}, "
                 f"{inputs.n_violated(model.labels_)} of {sum(inputs.n_links)} "
                 "links violated")
    if model.links_ == "ignored":
        rep.progress(f"links set aside: the fit without links predicts held-out "
                     f"links better (p = {model.link_test_pvalue_:.3g} < "
                     f"{model.link_test_level:g}); check the links, e.g. with "
                     f"--suspect-links")
    if model.spread_from_ == "links":
        rep.progress(f"rows in no link labelled by spreading the linked rows' "
                     f"labels alone: the clusters found without links agree "
                     f"with the links at {model.link_agreement_:.2f} (balanced "
                     f"accuracy, 0.5 = chance)")
    if model.classifier_ is not None:
        how = ("labelled by it alone instead of the spread"
               if model.classifier_weight_ == 1.0 else "voting with the spread")
        rep.progress(f"rows in no link: a {type(model.classifier_).__name__} "
                     f"trained on the linked rows, {how} (held-out linked rows "
                     f"show it better; --no-classifier turns it off)")
    return fit_seconds


def _say_cluster_classes(classes, rep):
    """The clusters' --labels names on stderr (nothing without --labels)."""
    if classes is not None:
        named = ", ".join(f"{k} = " + ("(no labelled row)" if name is None
                                       else repr(name))
                          for k, name in enumerate(classes))
        rep.progress(f"clusters named by --labels (the label most of their "
                     f"labelled rows carry): {named}")


def cluster_class_names(model, inputs):
    """The --labels label each cluster stands for (None: it holds no labelled
    row; :func:`smiclust.constraints.cluster_classes`), or None without
    --labels."""
    import numpy as np

    from ..constraints import cluster_classes

    if inputs.label_names is None:
        return None
    codes, names = inputs.label_names
    # by the labels' text, not their codes (numbered in file order), so that
    # ties go to the first label in sorted order, as in fit(partial_labels=...)
    text = np.array([None, *names], dtype=object)[codes + 1]
    return cluster_classes(model.labels_, text, model.n_clusters_).tolist()


def _write_model_and_plot(args, model, inputs, options, id_name, rep, classes):
    # the plot first: drawing can still fail after the checks of the paths
    # (e.g. a LaTeX error), and then no other output is written
    if args.plot:
        _plot(args, model, inputs)
        rep.progress(f"plot written to {args.plot}")
    if args.suspect_links:
        n_written = _write_suspect_links(args, model, inputs.ids, id_name)
        rep.progress(f"{_count(n_written, 'link')}, most contradicted first, "
                     f"written to {args.suspect_links}")
    if args.save:
        _save(args, model, inputs, options, id_name, classes)
        rep.progress(f"model saved to {args.save}")


def _summary(args, model, inputs, fmt, n_candidates, fit_seconds, start, rep,
             classes):
    """The JSON summary of a fit (stderr, or the "summary" of --json);
    ``classes``: :func:`cluster_class_names`."""
    import numpy as np

    n, d = inputs.X.shape
    labels = model.labels_
    # parameters the search actually varied (gamma needs must-links, eta
    # cannot-links and two clusters; others are fixed by the estimator)
    results = model.tuning_results_
    tuned = [p for p in ("n_neighbors", "gamma", "eta")
             if len(np.unique(results[f"param_{p}"])) > 1]
    return {
        "command": "fit",
        "data": args.data,
        "n_samples": n,
        "n_features": d,
        "standardized": bool(args.standardize),
        "n_clusters": args.n_clusters,
        "n_clusters_found": int(np.unique(labels).size),
        "cluster_sizes": _common.cluster_sizes(labels, args.n_clusters),
        "cluster_classes": classes,
        "n_must_link": inputs.n_links[0],
        "n_cannot_link": inputs.n_links[1],
        "n_labeled": inputs.n_labeled,
        "link_weights": inputs.weighted,
        "links": model.links_,
        "n_neighbors": int(model.n_neighbors_),
        "neighbor_algorithm": model.neighbor_algorithm_,
        "gamma": float(model.gamma_),
        "eta": float(model.eta_),
        "violation_penalty": float(args.violation_penalty),
        "spreading": float(model.spreading_),
        "consensus": bool(args.consensus),
        "classifier": (None if model.classifier_ is None
                       else type(model.classifier_).__name__),
        "classifier_weight": float(model.classifier_weight_),
        "contradictions": args.contradictions,
        "keep_cannot_links": bool(args.keep_cannot_links),
        "kernel": model.kernel_,
        "indicator_rotation": bool(args.indicator_rotation),
        "spread_from": model.spread_from_,
        "link_test_level": float(args.link_test_level),
        "link_test_pvalue": (None if math.isnan(model.link_test_pvalue_)
                             else float(model.link_test_pvalue_)),
        "link_agreement": (None if math.isnan(model.link_agreement_)
                           else round(float(model.link_agreement_), 6)),
        "links_agreement_z": (None if math.isnan(model.links_agreement_z_)
                              else round(float(model.links_agreement_z_), 6)),
        "tuned": tuned,
        "n_candidates": n_candidates,
        "lsmi": float(model.lsmi_),
        "n_violations": inputs.n_violated(model.labels_),
        "random_state": args.random_state,
        "fit_seconds": round(fit_seconds, 4),
        "seconds": round(time.perf_counter() - start, 4),
        "out": None if args.out in (None, "-") else args.out,
        "format": fmt,
        "model": args.save,
        "plot": args.plot,
        "suspect_links": args.suspect_links,
        "warnings": rep.warnings,
    }


def _id_name(id_column, names, ids, labelled=False):
    """The name of the id column of the outputs: DATA's, or ``id``; a name
    the assignments use for another column is refused (the ids would go):
    ``class`` too when ``labelled`` (--labels: the class column)."""
    if ids is None:
        return "id"
    if isinstance(id_column, str) and not id_column.lstrip("-").isdigit():
        if (id_column == "cluster" or re.fullmatch(r"proba_\d+", id_column)
                or (labelled and id_column == "class")):
            others = "cluster, proba_0, proba_1, ..." + (", class" if labelled else "")
            raise _common.usage_error(
                f"--id-column {id_column!r} is also the name of a column of the "
                f"assignments ({others}), which would overwrite the ids; rename "
                "that column of DATA")
        return id_column
    return "id"


def suspect_link_columns(suspects, ids=None, *, id_name="id", top=None):
    """Columns of the --suspect-links table, most contradicted first.

    ``suspects`` is ``SMIClustering.suspect_links_``; the two rows are written
    as ids (columns ``<id_name>_i``, ``<id_name>_j``) when ``ids`` is given,
    else as 0-based indices (``i``, ``j``); then ``kind`` and ``score``.
    """
    rows_i = suspects["i"][:top].tolist()
    rows_j = suspects["j"][:top].tolist()
    if ids is None:
        columns = {"i": rows_i, "j": rows_j}
    else:
        columns = {f"{id_name}_i": [str(ids[i]) for i in rows_i],
                   f"{id_name}_j": [str(ids[j]) for j in rows_j]}
    columns["kind"] = [str(k) for k in suspects["kind"][:top]]
    columns["score"] = [float(v) for v in suspects["score"][:top]]
    return columns


def _write_suspect_links(args, model, ids, id_name):
    """--suspect-links FILE (atomically); returns the number of links written."""
    from .. import io

    columns = suspect_link_columns(model.suspect_links_, ids, id_name=id_name,
                                   top=args.top)
    try:
        io.write_columns(args.suspect_links, columns,
                         _common.suspect_links_format(args.suspect_links))
    except OSError as exc:
        raise _common.usage_error(f"cannot write --suspect-links "
                                  f"{args.suspect_links!r}: "
                                  f"{exc.strerror or exc}") from None
    return len(columns["kind"])


def _save(args, model, inputs, options, id_name, classes):
    import joblib

    from .. import __version__
    from ..io import atomic_write

    bundle = {
        "format": _common.MODEL_FORMAT,
        "format_version": _common.MODEL_FORMAT_VERSION,
        "smiclust_version": __version__,
        "model": model,
        "feature_names": inputs.names,
        "n_features": inputs.X.shape[1],
        "columns": options.columns,
        "drop_columns": options.drop_columns,
        "id_column": args.id_column,
        "id_name": id_name,
        "header": options.header,
        "delimiter": options.delimiter,
        "standardize": inputs.scaler,
        "data": args.data,
        "cluster_classes": classes,
    }
    try:
        with atomic_write(args.save, "wb") as f:
            joblib.dump(bundle, f)
    except OSError as exc:
        raise _common.usage_error(f"cannot write --save {args.save!r}: "
                                  f"{exc.strerror or exc}") from None


def _plot(args, model, inputs):
    from pathlib import Path

    from matplotlib.figure import Figure

    from ..plotting import plot_embedding

    fig = Figure(figsize=(7.5, 5.5), layout="constrained")
    ax = fig.add_subplot()
    source = model if args.plot_embedding != "pca" else inputs.X
    try:
        plot_embedding(source, model.labels_, must_link=inputs.must,
                       cannot_link=inputs.cannot,
                       method=args.plot_embedding, ax=ax)
    except ValueError as exc:
        raise _common.usage_error(f"--plot: {exc}") from None
    ax.set_title(
        f"{Path(args.data).name}: {args.n_clusters} clusters\n"
        f"n_neighbors={model.n_neighbors_}, gamma={model.gamma_:g}, "
        f"eta={model.eta_:g}; {inputs.n_violated(model.labels_)} of "
        f"{sum(inputs.n_links)} links violated",
        fontsize="medium",
    )
    ax.grid(alpha=0.25)
    _common.save_figure(fig, args.plot, "--plot", dpi=150)
