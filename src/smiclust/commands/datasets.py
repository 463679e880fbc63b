"""``smiclust datasets``: the data sets shipped with smiclust and those of
scikit-learn the experiments use; export one to CSV."""

from . import _common


def add_parser(subparsers):
    p = subparsers.add_parser(
        "datasets",
        help="list the shipped data sets, or export one to CSV",
        description=(
            "Lists the data sets of the 3SMIC experiments shipped with smiclust "
            "and the real data sets bundled with scikit-learn that the "
            "experiments also use (iris, wine, breast_cancer; load any of them "
            "in Python with smiclust.datasets.dataset_info(name).load()). "
            "A table on stdout; with --json, a JSON list of objects. With NAME "
            "and --out FILE.csv, writes that data set as CSV: a header line, "
            "columns x0, x1, ... and the true class in the last column, 'label' "
            "(leave it out of a fit with --drop-columns label; to give some of it to "
            "fit --labels, write it to a file of its own, one label per line "
            "and -1 where unknown)."
        ),
    )
    p.add_argument("name", metavar="NAME", nargs="?", default=None,
                   help="a data set to export (with --out)")
    p.add_argument("--out", "-o", metavar="FILE.csv", default=None,
                   help="write data set NAME to FILE.csv ('-': stdout)")
    p.add_argument("--random-state", type=_common.seed_arg, default=0,
                   metavar="INT",
                   help="seed of the draw for randomly sub-sampled data sets "
                        "(default: 0)")
    p.add_argument("--json", action="store_true",
                   help="print a JSON list (name, n_samples, n_features, "
                        "n_classes, random_subsample, source: shipped or "
                        "scikit-learn, description); not with NAME or --out")


def run(args):
    from ..datasets import DATASETS, SKLEARN_DATASETS

    if args.name is not None or args.out is not None:
        if args.json:
            raise _common.usage_error(
                "--json lists the data sets; it cannot be combined with NAME or "
                "--out (an export writes CSV)")
        return _export(args, {**DATASETS, **SKLEARN_DATASETS})
    records = [
        {
            "name": info.name,
            "n_samples": info.n_samples,
            "n_features": info.n_features,
            "n_classes": info.n_classes,
            "random_subsample": info.random_subsample,
            "source": source,
            "description": info.description,
        }
        for source, registry in (("shipped", DATASETS),
                                 ("scikit-learn", SKLEARN_DATASETS))
        for info in registry.values()
    ]
    if args.json:
        import json

        print(json.dumps(records, indent=2))
        return 0
    width = max(len(r["name"]) for r in records)
    print(f"{'name':<{width}}  {'samples':>7}  {'features':>8}  {'classes':>7}  "
          "description")
    for r in records:
        note = " (random sub-sample)" if r["random_subsample"] else ""
        print(f"{r['name']:<{width}}  {r['n_samples']:>7}  {r['n_features']:>8}  "
              f"{r['n_classes']:>7}  {r['description']}{note}")
    return 0


def _check_csv_suffix(path):
    """--out names a CSV file (or stdout, '-'): the one format written."""
    from ..io._common import file_suffix

    suffix = file_suffix(path)
    if path != "-" and suffix != ".csv":
        raise _common.usage_error(
            f"--out {path!r}: expected a file name ending in .csv (data sets are "
            f"exported as CSV only), got {suffix or 'no suffix'}")


def _export(args, datasets):
    """Data set NAME as CSV to --out: x0, x1, ..., label."""
    import csv
    import sys

    if args.name is None or args.out is None:
        raise _common.usage_error("export needs both NAME and --out FILE.csv "
                                  "(e.g. smiclust datasets sonar --out sonar.csv)")
    if args.name not in datasets:
        raise _common.usage_error(f"unknown data set {args.name!r}; the data sets "
                                  f"are {', '.join(datasets)}")
    _common.check_output_path(args.out, "--out")
    _check_csv_suffix(args.out)
    X, y = datasets[args.name].load(random_state=args.random_state)
    header = [f"x{j}" for j in range(X.shape[1])] + ["label"]
    rows = ([repr(float(v)) for v in row] + [int(label)]
            for row, label in zip(X, y))

    def write(f):
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)

    if args.out == "-":
        write(sys.stdout)
        return 0
    from ..io import atomic_write

    try:
        with atomic_write(args.out, "w", newline="", encoding="utf-8") as f:
            write(f)
    except OSError as exc:
        raise _common.usage_error(f"cannot write --out {args.out!r}: "
                                  f"{exc.strerror or exc}") from None
    print(f"{args.name}: {X.shape[0]} rows, {X.shape[1]} features and the label "
          f"written to {args.out}", file=sys.stderr)
    return 0
