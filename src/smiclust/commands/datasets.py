"""``smiclust datasets``: the data sets shipped with smiclust."""


def add_parser(subparsers):
    p = subparsers.add_parser(
        "datasets",
        help="list the shipped data sets",
        description=(
            "Lists the data sets of the 3SMIC experiments shipped with smiclust "
            "(load them in Python with smiclust.datasets.DATASETS[name].load()). "
            "A table on stdout; with --json, a JSON list of objects."
        ),
    )
    p.add_argument("--json", action="store_true",
                   help="print a JSON list (name, n_samples, n_features, "
                        "n_classes, random_subsample, description)")


def run(args):
    import json

    from ..datasets import DATASETS

    records = [
        {
            "name": info.name,
            "n_samples": info.n_samples,
            "n_features": info.n_features,
            "n_classes": info.n_classes,
            "random_subsample": info.random_subsample,
            "description": info.description,
        }
        for info in DATASETS.values()
    ]
    if args.json:
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
