"""Active link selection against random links and COBRAS at the same budget.

Project issue 12, item 4. A simulated oracle answers "are ``i`` and ``j`` in
the same cluster?" from the true labels. For each data set, seed and budget
(number of questions asked) the methods are

``active``
    ``smiclust.ActiveSMIClustering(n_clusters, budget=B, random_state=seed)``
    with its defaults, ``fit(X, oracle)``. When its ``history_`` gives the
    clustering after each batch, one run to the largest budget gives every
    budget (the clustering after the last batch that fits in ``B``
    questions); otherwise one run per budget.
``random``
    ``smiclust.SMIClustering(n_clusters, random_state=seed)`` (defaults) with
    ``B`` random pairs answered by the oracle (must-link when the labels
    agree, cannot-link otherwise). The pairs are distinct, uniform over all
    pairs of distinct samples, drawn with ``RandomState(seed)`` and nested:
    the pairs of a smaller budget are the first ones of a larger budget.
``cobras``
    COBRAS with k-means super-instances (``cobras_ts``, extra ``bench``,
    :mod:`smiclust.experiments._cobras`), its own seed set to ``seed``. One
    run to the largest budget: COBRAS reports its clustering after every
    question. It needs no number of clusters and may stop before the budget
    when nothing is left to split (then the final clustering counts).

Data: the six data sets of the paper (:data:`smiclust.datasets.DATASETS`),
raw for the image sets and standardised for the UCI sets (the ``beyond``
configuration runs the UCI sets both ways; ``--uci-preprocessing raw``
selects the other). The seed draws the sample where the data set is a random
sample (digits500, digits5k, faces100). ARI on all points and on the points
in no question asked ("never asked"; NaN when fewer than 2).

Run, resume and report (the CSV is rewritten atomically after every finished
run, and runs already in it are skipped)::

    OMP_NUM_THREADS=1 nice .venv/bin/python benchmarks/active_learning.py \\
        --methods cobras random active --seeds 10 \\
        --out benchmarks/active_learning.csv
    .venv/bin/python benchmarks/active_learning.py \\
        --out benchmarks/active_learning.csv --report docs/active-learning.md

``--report`` writes the tables between the markers of the Markdown file
(or prints them when the file has none) and draws
``docs/images/active-learning.png`` beside it.
"""

import argparse
import csv
import math
import os
import subprocess
import sys
import time
import warnings
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager

import numpy as np
from sklearn.metrics import adjusted_rand_score

#: Data sets, smallest first (an interrupted run has the small ones).
DATASETS = ("faces100", "parkinson", "sonar", "digits500", "spam", "digits5k")
UCI = ("parkinson", "sonar", "spam")

BUDGETS = (20, 50, 100, 200, 400, 800)
METHODS = ("active", "random", "cobras", "npu")
LABELS = {"active": "smiclust active", "random": "smiclust, random links",
          "cobras": "COBRAS", "npu": "NPU + PCKMeans"}

FIELDS = ("dataset", "preprocessing", "n_samples", "n_clusters", "method",
          "seed", "budget", "n_queries", "n_never_asked", "ari",
          "ari_never_asked", "seconds", "run_budget", "run_seconds", "status",
          "error", "commit")

BEGIN, END = "<!-- active-learning report: begin -->", \
    "<!-- active-learning report: end -->"


# ---------------------------------------------------------------------------
# oracle, pairs, scores
# ---------------------------------------------------------------------------


class Oracle:
    """Answers from the true labels and records the questions in order."""

    def __init__(self, y):
        self.y = np.asarray(y)
        self.pairs = []

    def __call__(self, i, j):
        self.pairs.append((int(i), int(j)))
        return bool(self.y[i] == self.y[j])


def random_pairs(n_samples, n_pairs, rng):
    """``n_pairs`` distinct pairs ``i < j`` drawn uniformly, in draw order."""
    total = n_samples * (n_samples - 1) // 2
    if n_pairs > total:
        raise ValueError(f"{n_pairs} pairs asked of {n_samples} samples "
                         f"({total} pairs).")
    seen, out = set(), []
    while len(out) < n_pairs:
        i, j = rng.randint(n_samples, size=2)
        key = (min(i, j), max(i, j))
        if i != j and key not in seen:
            seen.add(key)
            out.append(key)
    return np.asarray(out, dtype=np.intp).reshape(-1, 2)


def never_asked(n_samples, pairs):
    mask = np.ones(n_samples, dtype=bool)
    mask[np.asarray(pairs, dtype=np.intp).ravel()] = False
    return mask


def scores(y, labels, mask):
    """ARI on all points and on ``mask`` (NaN when fewer than 2 points)."""
    labels = np.asarray(labels)
    ari = float(adjusted_rand_score(y, labels))
    if mask.sum() < 2:
        return ari, math.nan
    return ari, float(adjusted_rand_score(y[mask], labels[mask]))


# ---------------------------------------------------------------------------
# runs
# ---------------------------------------------------------------------------


def load(dataset, preprocessing, seed):
    from smiclust.experiments import load_problem

    X, y = load_problem(dataset, preprocessing, seed)
    y = np.unique(np.asarray(y), return_inverse=True)[1]
    return np.array(X, dtype=np.float64), y.astype(np.int64)


def _run_cobras(X, y, budgets, seed):
    from smiclust.experiments._cobras import fit_cobras

    result = fit_cobras(X, y, max(budgets), random_state=seed)
    rows = []
    for b in budgets:
        q = min(b, result.n_queries)
        mask = ~result.asked_at(q)
        ari, ari_u = scores(y, result.labels_at(b), mask)
        rows.append({"budget": b, "n_queries": q, "n_never_asked": int(mask.sum()),
                     "ari": ari, "ari_never_asked": ari_u,
                     "seconds": result.seconds})
    return rows, max(budgets), result.seconds


def _run_random(X, y, budget, seed, n_clusters):
    from smiclust import SMIClustering

    pairs = random_pairs(len(y), budget, np.random.RandomState(seed))
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    start = time.perf_counter()
    model = SMIClustering(n_clusters, random_state=seed)
    model.fit(X, must_link=pairs[same], cannot_link=pairs[~same])
    seconds = time.perf_counter() - start
    mask = never_asked(len(y), pairs)
    ari, ari_u = scores(y, model.labels_, mask)
    return [{"budget": budget, "n_queries": budget,
             "n_never_asked": int(mask.sum()), "ari": ari,
             "ari_never_asked": ari_u, "seconds": seconds}], budget, seconds


def _run_npu(X, y, budgets, seed, python):
    """NPU of scikit-query with PCKMeans, run by ``python`` (an interpreter
    with ``scikit-query``: it pins NumPy and SciPy below this project's) on
    this file's ``--skquery-worker`` entry point."""
    import tempfile

    if not python:
        raise ImportError("NPU needs --skquery-python (an interpreter with "
                          "scikit-query)")
    with tempfile.TemporaryDirectory() as tmp:
        inp, out = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
        np.savez(inp, X=X, y=y)
        done = subprocess.run(
            [python, os.path.abspath(__file__), "--skquery-worker", inp, out,
             str(max(budgets)), str(seed)], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(" ".join(done.stderr.split()[-40:]))
        result = np.load(out)
        pairs, steps, labels = result["pairs"], result["steps"], result["labels"]
        seconds = float(result["seconds"])
    # steps[s] = (questions asked when fit s ran, its labels...)
    rows = []
    for b in budgets:
        before = [s for s in steps if s[0] <= b]
        q = min(b, len(pairs))
        current = labels if b >= len(pairs) else before[-1][1:]
        mask = never_asked(len(y), pairs[:q])
        ari, ari_u = scores(y, current, mask)
        rows.append({"budget": b, "n_queries": q, "n_never_asked": int(mask.sum()),
                     "ari": ari, "ari_never_asked": ari_u, "seconds": seconds})
    return rows, max(budgets), seconds


def _skquery_worker(inp, out, budget, seed):
    """Run NPU (scikit-query) with PCKMeans on ``inp`` and save the questions,
    the clustering of every PCKMeans fit with the questions asked before it,
    and the final clustering (PCKMeans on NPU's constraints) to ``out``.
    Runs in the scikit-query interpreter: NumPy, scikit-learn, skquery and
    active_semi_clustering only."""
    saved = np.geterr()
    from active_semi_clustering.semi_supervised.pairwise_constraints import (
        PCKMeans,
    )
    np.seterr(**saved)
    from skquery.exceptions import EmptyBudgetError
    from skquery.pairwise import NPU

    data = np.load(inp)
    X, y = data["X"], data["y"]
    k = int(np.unique(y).size)

    class Oracle:
        def __init__(self):
            self.queries, self.pairs = 0, []

        def query(self, i, j):
            if self.queries >= budget:
                raise EmptyBudgetError
            self.queries += 1
            self.pairs.append((int(i), int(j)))
            return bool(y[i] == y[j])

    oracle, steps = Oracle(), []

    class Recording(PCKMeans):
        def fit(self, X, y=None, ml=(), cl=()):
            super().fit(X, y, ml=list(ml), cl=list(cl))
            steps.append(np.concatenate([[oracle.queries], self.labels_]))
            return self

    np.random.seed(seed)
    start = time.perf_counter()
    constraints = NPU(cc_alg=Recording(n_clusters=k)).fit(X, oracle)
    final = Recording(n_clusters=k).fit(X, ml=constraints["ml"],
                                        cl=constraints["cl"])
    seconds = time.perf_counter() - start
    np.savez(out, pairs=np.asarray(oracle.pairs, dtype=np.int64).reshape(-1, 2),
             steps=np.asarray(steps[:-1], dtype=np.int64),
             labels=np.asarray(final.labels_), seconds=seconds)


def _active_class():
    """``ActiveSMIClustering`` with each fit's labels and time kept in its
    ``history_`` entries (through its per-fit ``_record`` hook), so that one
    run gives the clustering after every batch."""
    try:
        from smiclust import ActiveSMIClustering
    except ImportError:
        from smiclust.active import ActiveSMIClustering

    if not hasattr(ActiveSMIClustering, "_record"):
        return ActiveSMIClustering

    class Recording(ActiveSMIClustering):
        def _record(self, model, *args, **kwargs):
            entry = super()._record(model, *args, **kwargs)
            if isinstance(entry, dict):
                entry = {**entry, "labels_at_step": np.array(model.labels_),
                         "clock": time.perf_counter()}
            return entry

    Recording.__name__ = Recording.__qualname__ = ActiveSMIClustering.__name__
    return Recording


def _history_steps(model, start):
    """``[(n_queries, labels, seconds), ...]`` from ``history_``, or None when
    it does not hold the clustering of every fit."""
    steps = []
    for entry in getattr(model, "history_", None) or []:
        if not isinstance(entry, dict) or "labels_at_step" not in entry:
            return None
        steps.append((int(entry["n_queries"]), entry["labels_at_step"],
                      entry["clock"] - start))
    return steps or None


def _fit_active(X, y, budget, seed, n_clusters):
    oracle = Oracle(y)
    start = time.perf_counter()
    model = _active_class()(n_clusters, budget=budget, random_state=seed)
    model.fit(X, oracle=oracle)
    return model, oracle, start, time.perf_counter() - start


def _run_active(X, y, budgets, seed, n_clusters, per_budget):
    """Rows of the active method; ``per_budget`` runs one fit per budget."""
    rows = []
    if not per_budget:
        top = max(budgets)
        model, oracle, start, seconds = _fit_active(X, y, top, seed, n_clusters)
        steps = _history_steps(model, start)
        if steps is not None:
            for b in budgets:
                q, labels, secs = [s for s in steps if s[0] <= b][-1]
                mask = never_asked(len(y), oracle.pairs[:q])
                ari, ari_u = scores(y, labels, mask)
                rows.append({"budget": b, "n_queries": q,
                             "n_never_asked": int(mask.sum()), "ari": ari,
                             "ari_never_asked": ari_u, "seconds": secs})
            return rows, top, seconds
    total = 0.0
    for b in budgets:
        model, oracle, _, seconds = _fit_active(X, y, b, seed, n_clusters)
        total += seconds
        mask = never_asked(len(y), oracle.pairs)
        ari, ari_u = scores(y, model.labels_, mask)
        rows.append({"budget": b, "n_queries": int(model.n_queries_),
                     "n_never_asked": int(mask.sum()), "ari": ari,
                     "ari_never_asked": ari_u, "seconds": seconds,
                     "run_budget": b, "run_seconds": seconds})
    return rows, None, total


def run_unit(unit):
    """All rows of one unit of work ``(dataset, preprocessing, method, seed,
    budgets, options)``; a failure becomes rows with status ``failed``."""
    dataset, preprocessing, method, seed, budgets, options = unit
    X, y = load(dataset, preprocessing, seed)
    n_clusters = int(np.unique(y).size)
    base = {"dataset": dataset, "preprocessing": preprocessing,
            "n_samples": len(y), "n_clusters": n_clusters, "method": method,
            "seed": seed, "commit": options.get("commit", "")}
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if method == "cobras":
                rows, run_budget, run_seconds = _run_cobras(X, y, budgets, seed)
            elif method == "random":
                rows, run_budget, run_seconds = _run_random(X, y, budgets[0], seed,
                                                            n_clusters)
            elif method == "npu":
                rows, run_budget, run_seconds = _run_npu(
                    X, y, budgets, seed, options.get("skquery_python"))
            elif method == "active":
                rows, run_budget, run_seconds = _run_active(
                    X, y, budgets, seed, n_clusters, options.get("per_budget"))
            else:
                raise ValueError(f"Unknown method {method!r}.")
        status, error = "ok", ""
    except ImportError as exc:  # the method is not available: no record
        print(f"{method} not run: {exc}", file=sys.stderr, flush=True)
        return []
    except Exception as exc:  # a failed run is a result
        text = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        rows = [{"budget": b, "ari": math.nan, "ari_never_asked": math.nan}
                for b in budgets]
        run_budget, run_seconds = max(budgets), time.perf_counter() - start
        status, error = "failed", text
    out = []
    for row in rows:
        row = {**base, "run_budget": run_budget, "run_seconds": run_seconds,
               "status": status, "error": error, **row}
        for key, value in list(row.items()):
            if isinstance(value, float):
                row[key] = round(value, 6)
        out.append(row)
    return out


def units(datasets, methods, seeds, budgets, preprocessing, options):
    """Units of work, smallest data set first; ``random`` is one unit per
    budget (one fit each), the others one run to the largest budget."""
    for dataset in datasets:
        prep = preprocessing if dataset in UCI else "raw"
        for seed in seeds:
            for method in methods:
                if method == "random" or (method == "active"
                                          and options.get("per_budget")):
                    for b in budgets:
                        yield (dataset, prep, method, seed, (b,), options)
                else:
                    yield (dataset, prep, method, seed, tuple(budgets), options)


# ---------------------------------------------------------------------------
# records on disk
# ---------------------------------------------------------------------------


def read_records(path):
    if not os.path.exists(path):
        return []
    numeric = ("ari", "ari_never_asked", "seconds", "run_seconds")
    integer = ("n_samples", "n_clusters", "seed", "budget", "n_queries",
               "n_never_asked", "run_budget")
    rows = []
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            for key in numeric:
                row[key] = float(row[key]) if row.get(key) not in ("", None) \
                    else math.nan
            for key in integer:
                row[key] = int(row[key]) if row.get(key) not in ("", None) else 0
            rows.append(row)
    return rows


def write_records(rows, path):
    from smiclust.io import atomic_write

    with atomic_write(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, restval="",
                                extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow(row)


@contextmanager
def _locked(path):
    """Hold an exclusive lock for the CSV ``path`` (several runs may share
    it): a lock on the folder that holds it, so no lock file is left behind
    and runs that share the folder on another machine's mount wait too."""
    import fcntl

    folder = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        yield
    finally:
        os.close(folder)


def merge_records(new, path):
    """Put ``new`` rows into the CSV at ``path`` (replacing rows of the same
    data set, method, seed and budget), re-reading it under a lock."""
    keys = {_key(r) for r in new}
    with _locked(path):
        rows = [r for r in read_records(path) if _key(r) not in keys]
        write_records(rows + list(new), path)


def _key(row):
    return (row["dataset"], row["preprocessing"], row["method"], int(row["seed"]),
            int(row["budget"]))


def _commit():
    """Short hash of HEAD, ``+dirty`` when ``src`` has uncommitted changes
    (run from a clean export with ``PYTHONPATH`` and ``--commit`` then)."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True,
                              cwd=here).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "../src"],
                               capture_output=True, text=True, check=True,
                               cwd=here).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""
    return head + ("+dirty" if dirty else "")


def run(args):
    budgets = tuple(sorted(args.budgets))
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    options = {"per_budget": args.active_per_budget,
               "commit": args.commit or _commit(),
               "skquery_python": args.skquery_python}
    if args.redo:
        with _locked(args.out):
            rows = [r for r in read_records(args.out)
                    if r["method"] not in args.redo
                    or r["dataset"] not in args.datasets]
            write_records(rows, args.out)
    rows = read_records(args.out)
    done = {_key(r) for r in rows}
    todo = [u for u in units(args.datasets, args.methods, seeds, budgets,
                             args.uci_preprocessing, options)
            if any((u[0], u[1], u[2], u[3], b) not in done for b in u[4])]
    print(f"{len(todo)} runs to do ({len(rows)} rows in {args.out})",
          file=sys.stderr, flush=True)

    def finished(unit, new):
        if not new:
            return
        merge_records(new, args.out)
        ok = [r for r in new if r["status"] == "ok"]
        text = ", ".join(f"{r['budget']}: {r['ari']:.2f}" for r in ok) \
            or new[0]["error"]
        secs = new[0]["run_seconds"]
        print(f"[{time.strftime('%H:%M:%S')}] {unit[0]} {unit[2]} seed {unit[3]}"
              f" ({secs:.1f} s): {text}", file=sys.stderr, flush=True)

    if args.jobs <= 1:
        for unit in todo:
            finished(unit, run_unit(unit))
        return
    with ProcessPoolExecutor(args.jobs) as pool:
        pending = {pool.submit(run_unit, u): u for u in todo}
        while pending:
            done_now, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done_now:
                finished(pending.pop(future), future.result())


# ---------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------


def _stats(rows, field):
    v = np.asarray([r[field] for r in rows if r["status"] == "ok"
                    and not math.isnan(r[field])], dtype=float)
    if v.size == 0:
        return math.nan, math.nan, 0
    return float(v.mean()), float(v.std()), int(v.size)


def _group(rows):
    out = {}
    for r in rows:
        out.setdefault((r["dataset"], r["method"], r["budget"]), []).append(r)
    return out


def _datasets(rows):
    return [d for d in DATASETS if any(r["dataset"] == d for r in rows)]


def _methods(rows):
    return [m for m in METHODS if any(r["method"] == m for r in rows)]


def _cell(group, field):
    """``mean ± std``; for the never-asked ARI also the mean number of
    never-asked points, and the seeds counted when some had fewer than 2."""
    if not group:
        return "–"
    mean, std, count = _stats(group, field)
    ok = [r for r in group if r["status"] == "ok"]
    text = "–" if count == 0 else f"{mean:.2f} ± {std:.2f}"
    if field == "ari_never_asked" and count:
        left = np.mean([r["n_never_asked"] for r in ok])
        text += f" ({left:.0f} left" + (
            f", {count} seeds" if count < len(ok) else "") + ")"
    if len(ok) < len(group):
        text += f" ({len(group) - len(ok)} failed)"
    return text


def ari_table(rows, field):
    groups = _group(rows)
    methods = _methods(rows)
    budgets = sorted({r["budget"] for r in rows})
    lines = ["| data set | questions | "
             + " | ".join(LABELS[m] for m in methods) + " |",
             "|---|---:|" + "---|" * len(methods)]
    for d in _datasets(rows):
        for b in budgets:
            cells = [_cell(groups.get((d, m, b), []), field) for m in methods]
            if all(c == "–" for c in cells):
                continue
            lines.append(f"| {d} | {b} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def setup_table(rows):
    """Per data set: preprocessing, n, k, seeds and seconds per run by method."""
    methods = _methods(rows)
    lines = ["| data set | preprocessing | n | k | "
             + " | ".join(f"{LABELS[m]}: seeds, s per run" for m in methods)
             + " |", "|---|---|---:|---:|" + "---|" * len(methods)]
    for d in _datasets(rows):
        rs = [r for r in rows if r["dataset"] == d]
        cells = []
        for m in methods:
            mr = [r for r in rs if r["method"] == m]
            if not mr:
                cells.append("–")
                continue
            seeds = len({r["seed"] for r in mr})
            runs = {(r["seed"], r["run_budget"], r["budget"] if m == "random"
                     else 0): r["run_seconds"] for r in mr}
            secs = [s for s in runs.values() if not math.isnan(s)]
            top = max(r["run_budget"] or r["budget"] for r in mr)
            what = "per fit" if m == "random" else f"per run to {top}"
            cells.append(f"{seeds}, {np.mean(secs):.1f} s {what}")
        lines.append(f"| {d} | {rs[0]['preprocessing']} | {rs[0]['n_samples']} | "
                     f"{rs[0]['n_clusters']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def done_check(rows):
    """Issue 12's "done means": active >= COBRAS and >= random within one std
    (the larger of the two), digits500 >= 0.85 at 200 questions."""
    groups = _group(rows)
    budgets = sorted({r["budget"] for r in rows})
    lines = ["| data set | questions | active − COBRAS | active − random |",
             "|---|---:|---|---|"]
    met = total = 0
    losses = []
    for d in _datasets(rows):
        for b in budgets:
            a = _stats(groups.get((d, "active", b), []), "ari")
            if a[2] == 0:
                continue
            cells = []
            for other in ("cobras", "random"):
                o = _stats(groups.get((d, other, b), []), "ari")
                if o[2] == 0:
                    cells.append("–")
                    continue
                diff, tol = a[0] - o[0], max(a[1], o[1])
                total += 1
                if diff >= 0:
                    verdict = "ahead"
                    met += 1
                elif diff >= -tol:
                    verdict = f"behind within one std ({tol:.2f}): met"
                    met += 1
                else:
                    verdict = f"**loss** (one std {tol:.2f})"
                    losses.append(f"{d} at {b} questions: active {a[0]:.2f} "
                                  f"against {LABELS[other]} {o[0]:.2f} "
                                  f"({diff:+.2f}, one std {tol:.2f})")
                cells.append(f"{diff:+.2f} {verdict}")
            lines.append(f"| {d} | {b} | " + " | ".join(cells) + " |")
    lines += ["", f"Comparisons met: {met} of {total}."]
    target = _stats(groups.get(("digits500", "active", 200), []), "ari")
    if target[2]:
        ok = target[0] >= 0.85
        lines.append(f"digits500 at 200 questions: active {target[0]:.2f} ± "
                     f"{target[1]:.2f} against the target 0.85: "
                     f"{'met' if ok else '**missed** (a loss)'}.")
    if losses:
        lines += ["", "Losses (active behind by more than one std):", ""]
        lines += [f"- {x}" for x in losses]
    return "\n".join(lines)


def plot(rows, path):
    """ARI against questions asked, one panel per data set, mean ± std band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from smiclust.experiments._figures import save_figure

    datasets = _datasets(rows)
    groups = _group(rows)
    ncols = 3
    nrows = math.ceil(len(datasets) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.3 * nrows),
                             squeeze=False)
    colors = {"active": "C0", "random": "C7", "cobras": "C3", "npu": "C2"}
    markers = {"active": "o", "random": "s", "cobras": "^", "npu": "D"}
    for ax, d in zip(axes.ravel(), datasets):
        seeds = {}
        for m in _methods(rows):
            budgets = sorted({r["budget"] for r in rows if r["dataset"] == d
                              and r["method"] == m})
            stats = [_stats(groups[(d, m, b)], "ari") for b in budgets]
            keep = [(b, s) for b, s in zip(budgets, stats) if s[2]]
            if not keep:
                continue
            x = np.array([b for b, _ in keep])
            mean = np.array([s[0] for _, s in keep])
            std = np.array([s[1] for _, s in keep])
            ax.plot(x, mean, color=colors[m], marker=markers[m], markersize=4,
                    label=LABELS[m])
            ax.fill_between(x, mean - std, mean + std, color=colors[m],
                            alpha=0.18, linewidth=0)
            counts = sorted({s[2] for _, s in keep})
            short = {"cobras": "COBRAS", "npu": "NPU"}.get(m, m)
            seeds[short] = "/".join(map(str, counts))
        first = next(r for r in rows if r["dataset"] == d)
        counts = set(seeds.values())
        seeds_text = (f"{counts.pop()} seeds" if len(counts) == 1 else "seeds "
                      + ", ".join(f"{m} {c}" for m, c in seeds.items()))
        ax.set_title(f"{d} (n={first['n_samples']}, k={first['n_clusters']}), "
                     f"{seeds_text}", fontsize=9)
        ax.set_xscale("log")
        ax.set_xticks(BUDGETS)
        ax.set_xticklabels([str(b) for b in BUDGETS])
        ax.minorticks_off()
        ax.set_ylim(-0.12, 1.02)
        ax.grid(alpha=0.3)
        ax.set_xlabel("questions asked")
        ax.set_ylabel("ARI (all points)")
    for ax in axes.ravel()[len(datasets):]:
        ax.set_visible(False)
    legend = {}
    for ax in axes.ravel():
        legend.update(zip(*reversed(ax.get_legend_handles_labels())))
    fig.legend(list(legend.values()), list(legend), loc="upper center",
               ncol=len(legend), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    save_figure(fig, path, dpi=80)


def report_text(rows, source="benchmarks/active_learning.csv"):
    commits = sorted({(r["method"], r["commit"]) for r in rows
                      if r["method"] in ("active", "random")})
    return "\n".join([
        "Generated by `benchmarks/active_learning.py --report` from "
        f"`{source}`; mean ± std over seeds.",
        "",
        "Runs (seeds per method and wall seconds per run, single thread, "
        "loaded 2-core machine):",
        "",
        setup_table(rows),
        "",
        "smiclust code measured (git commit): "
        + ", ".join(f"{LABELS[m]} {c or '?'}" for m, c in commits)
        + " (COBRAS and NPU use none of it).",
        "",
        "**ARI on all points**",
        "",
        ari_table(rows, "ari"),
        "",
        "**ARI on the points never asked about** (in no question; in brackets "
        "the mean number of such points, and the seeds counted when some had "
        "fewer than 2)",
        "",
        ari_table(rows, "ari_never_asked"),
        "",
        "**Done means (issue 12)**: active ≥ COBRAS and ≥ random links within "
        "one std (the larger std of the two) at every budget and data set, "
        "digits500 ≥ 0.85 at 200 questions.",
        "",
        done_check(rows),
        "",
    ])


def report(args):
    rows = read_records(args.out)
    if not rows:
        raise SystemExit(f"No records in {args.out}.")
    text = report_text(rows, os.path.relpath(args.out))
    image = os.path.join(os.path.dirname(os.path.abspath(args.report)),
                         "images", "active-learning.png")
    os.makedirs(os.path.dirname(image), exist_ok=True)
    plot(rows, image)
    print(f"figure: {image}", file=sys.stderr)
    doc = open(args.report, encoding="utf-8").read() \
        if os.path.exists(args.report) else ""
    if BEGIN in doc and END in doc:
        from smiclust.io import atomic_write

        head, rest = doc.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        with atomic_write(args.report, "w", encoding="utf-8") as fh:
            fh.write(f"{head}{BEGIN}\n\n{text}\n{END}{tail}")
        print(f"report: {args.report}", file=sys.stderr)
    else:
        print(text)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--skquery-worker"]:
        inp, out, budget, seed = argv[1:5]
        _skquery_worker(inp, out, int(budget), int(seed))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS),
                        choices=DATASETS)
    parser.add_argument("--budgets", nargs="+", type=int, default=list(BUDGETS))
    parser.add_argument("--seeds", type=int, default=10,
                        help="number of seeds (default 10)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--methods", nargs="+", default=list(METHODS),
                        choices=METHODS)
    parser.add_argument("--uci-preprocessing", default="standardized",
                        choices=("raw", "standardized"))
    parser.add_argument("--active-per-budget", action="store_true",
                        help="one active run per budget, even when its history "
                             "gives every budget from one run")
    parser.add_argument("--redo", nargs="+", default=(), choices=METHODS,
                        help="drop these methods' records first (re-measure)")
    parser.add_argument("--commit", default="",
                        help="code version recorded with the runs (default: "
                             "git HEAD of this checkout, +dirty when src/ has "
                             "uncommitted changes)")
    parser.add_argument("--skquery-python", metavar="PYTHON", default="",
                        help="interpreter with scikit-query installed (its own "
                             "environment), for the method npu")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default="benchmarks/active_learning.csv")
    parser.add_argument("--report", metavar="MARKDOWN",
                        help="regenerate the tables (between the report "
                             "markers of MARKDOWN) and the figure from --out; "
                             "runs nothing")
    args = parser.parse_args(argv)
    if args.report:
        report(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
