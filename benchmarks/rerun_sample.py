"""Run a sample of the committed reproduction records again and compare them.

Checks that the code of today gives exactly what the committed records say:
for each sampled run, the same ARI (to the 10 digits the records keep), the
same number of violated links, clusters found and, for 3SMIC, the same chosen
``(t, gamma, eta)``. Equal ARI and violations on every run are what "the same
labels" means here: the records keep no labels.

    .venv/bin/python benchmarks/rerun_sample.py --n-runs 50 --max-seconds 6

Runs are drawn with a fixed seed among the ``ok`` records of 3SMIC, SL and
CSC whose recorded time is at most ``--max-seconds`` (the sample must run in
minutes); the exit status is 1 when any run differs.
"""

import argparse
import csv
import math
import sys
from pathlib import Path

import numpy as np

from smiclust.experiments import plan_runs, read_records, run_one

RECORDS = Path(__file__).resolve().parents[1] / "docs" / "reproduction"
COMPARED = ("ari", "violations", "n_clusters_found", "t_chosen", "gamma", "eta")


def _same(field, old, new):
    if old in ("", None) and new in ("", None):
        return True
    try:
        a, b = float(old), float(new)
    except (TypeError, ValueError):
        return str(old) == str(new)
    if math.isnan(a) and math.isnan(b):
        return True
    return abs(a - b) <= 1e-9 * max(1.0, abs(a))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-runs", type=int, default=50)
    parser.add_argument("--max-seconds", type=float, default=6.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import json

    config = json.loads((RECORDS / "config.json").read_text())
    runs = {run["run_id"]: run for run in plan_runs(config)}
    records = {r["run_id"]: r for r in read_records(RECORDS / "records.csv")}
    eligible = sorted(
        run_id
        for run_id, r in records.items()
        if r["status"] == "ok"
        and r["method"] in ("3smic", "sl", "csc")
        and float(r["seconds"]) <= args.max_seconds
        and run_id in runs
    )
    rng = np.random.RandomState(args.seed)
    sample = rng.choice(eligible, size=min(args.n_runs, len(eligible)), replace=False)
    writer = csv.writer(sys.stdout)
    writer.writerow(["run_id", "same", *(f"{f} old/new" for f in COMPARED)])
    n_diff = 0
    for run_id in sample:
        old = records[run_id]
        new = run_one(runs[run_id])
        same = all(_same(f, old.get(f), new.get(f)) for f in COMPARED)
        n_diff += not same
        writer.writerow([
            run_id, "yes" if same else "NO",
            *(f"{old.get(f)}/{new.get(f)}" for f in COMPARED),
        ])
        sys.stdout.flush()
    print(f"{len(sample) - n_diff} of {len(sample)} runs identical", file=sys.stderr)
    return 1 if n_diff else 0


if __name__ == "__main__":
    sys.exit(main())
