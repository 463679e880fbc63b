"""``smiclust predict``: clusters of new rows with a model saved by ``fit --save``."""

import argparse
import time

from . import _common

DESCRIPTION = """\
Assign the rows of DATA to the clusters of a model saved by
'smiclust fit --save MODEL', by the out-of-sample rule of SMIC/3SMIC, and write
one cluster per input row, in input order.

DATA is read like the training data: the same feature columns (by header name
when both files have a header, in any order, other columns ignored; otherwise
by count), the same id column (--id-column '' for none), --header,
--delimiter and --standardize transformation as at fit time. MODEL is a
pickle (joblib): only load model files you trust.
"""

EPILOG = """\
output:
  As for 'smiclust fit': without --out, assignments as CSV on stdout and a
  one-line JSON summary on stderr; --out FILE (format from the suffix);
  --json makes stdout one JSON object {"summary": ..., "assignments": [...]}.
  A model fitted with --labels adds a last column 'class' (the label of the
  row's cluster, empty where its cluster holds no labelled row).

exit status: 0 on success, 2 on bad input (one line on stderr).
"""


def add_parser(subparsers):
    p = subparsers.add_parser(
        "predict",
        help="assign new rows to the clusters of a model saved by 'fit --save'",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("model", metavar="MODEL", help="model file from 'fit --save'")
    p.add_argument("data", metavar="DATA",
                   help="data file: .csv/.tsv/.txt, .npy, sparse .npz or .parquet")
    inp = p.add_argument_group("input")
    _common.add_table_arguments(
        inp, id_default_help="the one used at fit time; '' for none",
        links=False, header_default_help="the one used at fit time")
    _common.add_output_arguments(p, fit=False)


def _load_model(path):
    import joblib

    _common.check_readable_file("MODEL", path)
    try:
        with open(path, "rb") as f:
            bundle = joblib.load(f)
    except OSError as exc:
        raise _common.usage_error(
            f"cannot read MODEL {path!r}: {exc.strerror or type(exc).__name__}"
        ) from None
    except Exception as exc:  # unpickling fails in many ways on a bad file
        raise _common.usage_error(
            f"MODEL: {path}: not a model saved by 'smiclust fit --save' "
            f"({type(exc).__name__})") from None
    if not isinstance(bundle, dict) or bundle.get("format") != _common.MODEL_FORMAT:
        raise _common.usage_error(
            f"MODEL: {path}: not a model saved by 'smiclust fit --save'")
    if bundle.get("format_version") != _common.MODEL_FORMAT_VERSION:
        raise _common.usage_error(
            f"MODEL: {path}: model file version {bundle.get('format_version')!r}; "
            f"this smiclust reads version {_common.MODEL_FORMAT_VERSION}")
    return bundle


def _features_only(path, bundle, read):
    """``read_table``'s result for a file without a header and with exactly
    the model's number of features, when the model drops columns; else
    ``None``."""
    from .. import io

    if not bundle.get("drop_columns") or bundle.get("columns") is not None:
        return None
    try:
        X, ids, names = io.read_table(path, **read)
    except (ValueError, OSError):
        return None
    if names is not None or X.shape[1] != bundle["n_features"]:
        return None
    return X, ids, names


def _names_text(names):
    shown = ", ".join(repr(n) for n in names[:8])
    return shown + (", ..." if len(names) > 8 else "")


def run(args):
    import numpy as np

    from .. import io

    start = time.perf_counter()
    rep = _common.Reporter("predict", quiet=args.quiet, json_mode=args.json)
    fmt = _common.output_format(args.out, args.format, json_mode=args.json)
    _common.check_output_path(args.out, "--out",
                              [("DATA", args.data), ("MODEL", args.model)])
    _common.check_readable_file("DATA", args.data)
    bundle = _load_model(args.model)
    model = bundle["model"]
    header = (bundle.get("header", "infer") if args.header is None
              else _common.header_arg(args.header))
    delimiter = _common.delimiter_arg(args.delimiter)
    if delimiter is None:
        delimiter = bundle.get("delimiter")
    id_column = args.id_column if args.id_column is not None else bundle["id_column"]
    if id_column == "":
        id_column = None
    fitted_names = bundle.get("feature_names")
    read = dict(id_column=id_column, header=header, delimiter=delimiter)
    X = None
    if bundle.get("columns") is None and fitted_names is not None and header:
        # by header name: the model's columns, in its order; others ignored
        try:
            X, ids, names = io.read_table(args.data, columns=list(fitted_names),
                                          **read)
        except (ValueError, OSError, ImportError):
            X = None  # no header, not those names, no pyarrow: the plain read says why
    if X is None:
        try:
            X, ids, names = _common.read_input(
                "DATA", io.read_table, args.data, reporter=rep,
                columns=bundle.get("columns"),
                drop_columns=bundle.get("drop_columns"), **read)
        except _common.UsageError:
            # a file without a header holding just the model's features, in
            # its order, has none of the columns to drop: matched by count
            plain = _features_only(args.data, bundle, read)
            if plain is None:
                raise
            X, ids, names = plain
    n, d = X.shape
    if names is not None and fitted_names is not None and names != fitted_names:
        missing = [f for f in fitted_names if f not in names]
        found = (f"no column(s) {_names_text(missing)}" if missing else
                 f"the feature columns are {_names_text(names)}")
        raise _common.usage_error(
            f"DATA: {args.data}: header mismatch: {found}; the model was fitted "
            f"on {_names_text(fitted_names)}")
    if d != bundle["n_features"]:
        raise _common.usage_error(
            f"DATA: {args.data}: {d} feature column(s); the model was fitted on "
            f"{bundle['n_features']}")
    scaler = bundle.get("standardize")
    if scaler is not None:  # as fit's --standardize did (no "peak": 1)
        X = (X / scaler.get("peak", 1.0) - scaler["mean"]) / scaler["scale"]
    with _common.captured_warnings(rep):
        try:
            labels = model.predict(X)
            proba = model.predict_proba(X) if args.proba else None
        except (ValueError, TypeError) as exc:
            raise _common.usage_error(f"cannot predict: {exc}") from None
    n_clusters = int(model.n_clusters)
    summary = {
        "command": "predict",
        "model": args.model,
        "data": args.data,
        "n_samples": n,
        "n_features": d,
        "n_clusters": n_clusters,
        "cluster_sizes": _common.cluster_sizes(labels, n_clusters),
        # the --labels label of each cluster, as fit named them (None: a model
        # fitted without --labels, or saved before the names were)
        "cluster_classes": bundle.get("cluster_classes"),
        "n_neighbors": int(model.n_neighbors_),
        "gamma": float(model.gamma_),
        "eta": float(model.eta_),
        "seconds": round(time.perf_counter() - start, 4),
        "out": None if args.out in (None, "-") else args.out,
        "format": fmt,
        "warnings": rep.warnings,
    }
    id_name = bundle.get("id_name", "id")
    labels = np.asarray(labels)
    # a model holding both an id column named "class" and cluster names
    # (fit refuses the pair; an earlier version saved it) keeps its ids: the
    # names are in the summary only
    names = None if id_name == "class" else summary["cluster_classes"]
    _common.write_result(args, rep, labels, proba, ids, id_name, fmt, summary,
                         classes=_common.row_classes(names, labels))
    return 0
