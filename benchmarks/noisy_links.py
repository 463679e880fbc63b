"""Wrong links: ARI against the fraction of flipped links, suspect links, weights.

Regenerate the tables of ``docs/noisy-links.md`` (and its figure) with::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/noisy_links.py --seeds 5 \\
        --jobs 2 --records /tmp/noisy_links.csv \\
        --plot docs/images/noisy_links.png

(about an hour of CPU on a loaded 2-core machine). ``--from-records PATH
[PATH ...]`` prints the tables (and draws the figure) from the records of
earlier runs without fitting anything; ``--problems`` and ``--levels`` split a
run into parts (every (problem, seed, level) is computed on its own, so the
parts give the same records as one run).

Protocol (project issue 13, items 2 and 3). For each problem, seed ``s``
(``--seed``, ``--seed + 1``, ...) and link level (a fraction of all
``n (n - 1) / 2`` pairs), links are drawn by ``smiclust.sample_links(y,
n_links, random_state=s)`` (sub-sampled sets are drawn with the same seed),
then a fraction ``f`` of them is flipped (must <-> cannot, :func:`flip_links`
with ``RandomState(s)``: the same permutation for every ``f``, so the links
flipped at 5 % are among those flipped at 10 %). Methods:

``default``
    ``SMIClustering(n_clusters, random_state=s)``: whatever the estimator's
    defaults are when the script runs (they are printed).
``default + weights``
    The same, with a confidence weight per link from a simulated annotator:
    ``U(0.2, 0.6)`` for a flipped link, ``U(0.5, 1.0)`` for a correct one
    (:func:`simulate_weights`, ``RandomState([s, 1])``).
``no links``
    The same model fitted without links (one fit per problem and seed).
``COPKMeans``, ``PCKMeans``
    ``active-semi-supervised-clustering`` (extra ``bench``) with its defaults,
    called directly: both close the links transitively and raise
    ``InconsistentConstraintsException`` when a must-link chain joins a
    cannot-linked pair, which flipped links soon cause. A failed run counts as
    ARI 0 and the tables say how many failed; a peer whose package is not
    installed is not run (no ARI, no part in the targets).
``k-means``
    ``sklearn.cluster.KMeans(n_clusters, n_init=10, random_state=s)``, no links.

ARI is computed on all points and on the points in no link (NaN when fewer
than 2). For every ``default`` fit with flipped links, the ranking
``suspect_links_`` is scored against the flip mask: precision at ``k`` (the
number of flipped links; equal to recall there), precision and recall at
``2 k``, and average precision (``sklearn.metrics.average_precision_score``
with the score).
"""

import argparse
import csv
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

import numpy as np
from sklearn.metrics import adjusted_rand_score, average_precision_score

from smiclust.constraints import unlinked_mask

#: Fractions of the links that are flipped.
FLIP_FRACTIONS = (0.0, 0.05, 0.10, 0.20, 0.30)

#: Problems: name -> (data set, preprocessing, link levels as fractions of pairs).
#: The paper's sets with n <= 1,000 with the reproduction's preprocessing
#: (docs/reproduction/config.json), and two scikit-learn sets, standardised.
PROBLEMS = {
    "parkinson (raw)": ("parkinson", "raw", (0.01, 0.05)),
    "parkinson (standardized)": ("parkinson", "standardized", (0.01, 0.05)),
    "sonar (raw)": ("sonar", "raw", (0.01, 0.05)),
    "sonar (standardized)": ("sonar", "standardized", (0.01, 0.05)),
    "digits500 (raw)": ("digits500", "raw", (0.01, 0.05)),
    "faces100 (raw)": ("faces100", "raw", (0.01, 0.05)),
    "iris (standardized)": ("iris", "standardized", (0.01, 0.05)),
    "wine (standardized)": ("wine", "standardized", (0.01, 0.05)),
}

#: Method names in table order.
METHODS = ("default", "default + weights", "no links", "COPKMeans", "PCKMeans",
           "k-means")

#: Simulated annotator confidence: uniform ranges for flipped and correct links.
FLIPPED_WEIGHTS = (0.2, 0.6)
CORRECT_WEIGHTS = (0.5, 1.0)

FIELDS = ("problem", "dataset", "preprocessing", "link_fraction", "n_links",
          "n_unlinked", "flip_fraction", "n_flipped", "seed", "method", "status",
          "error", "ari", "ari_unlinked", "seconds", "p_at_k", "p_at_2k",
          "r_at_2k", "ap", "default_params")

_PEER_CLASSES = {"COPKMeans": "COPKMeans", "PCKMeans": "PCKMeans"}


# ---------------------------------------------------------------------------
# pure functions
# ---------------------------------------------------------------------------


def flip_links(must, cannot, fraction, rng):
    """Flip ``round(fraction * n_links)`` links, must <-> cannot.

    The flipped links are the first ones of ``rng.permutation(n_links)`` over
    the must-links followed by the cannot-links, so one seed gives nested sets
    for growing fractions.

    Parameters
    ----------
    must, cannot : ndarray of shape (n_pairs, 2)
    fraction : float in [0, 1]
    rng : numpy.random.RandomState

    Returns
    -------
    must, cannot : ndarray of shape (n_pairs, 2)
        The kept must-links then the flipped cannot-links; the kept
        cannot-links then the flipped must-links.
    flipped : ndarray of bool, shape (len(must) + len(cannot),)
        Whether each returned link (must-links first) was flipped.
    """
    must = np.asarray(must, dtype=np.intp).reshape(-1, 2)
    cannot = np.asarray(cannot, dtype=np.intp).reshape(-1, 2)
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(
            f"The 'fraction' parameter of flip_links must be in [0, 1]. Got "
            f"{fraction!r} instead."
        )
    n_must, n_links = len(must), len(must) + len(cannot)
    chosen = rng.permutation(n_links)[: int(round(fraction * n_links))]
    hit = np.zeros(n_links, dtype=bool)
    hit[chosen] = True
    hit_must, hit_cannot = hit[:n_must], hit[n_must:]
    new_must = np.concatenate([must[~hit_must], cannot[hit_cannot]])
    new_cannot = np.concatenate([cannot[~hit_cannot], must[hit_must]])
    flipped = np.concatenate([
        np.zeros((~hit_must).sum(), dtype=bool), np.ones(hit_cannot.sum(), dtype=bool),
        np.zeros((~hit_cannot).sum(), dtype=bool), np.ones(hit_must.sum(), dtype=bool),
    ])
    return new_must.reshape(-1, 2), new_cannot.reshape(-1, 2), flipped


def simulate_weights(flipped, rng, flipped_range=FLIPPED_WEIGHTS,
                     correct_range=CORRECT_WEIGHTS):
    """Annotator confidence per link: lower, on average, for flipped links.

    Returns
    -------
    weights : ndarray of shape (len(flipped),)
        ``U(*flipped_range)`` where ``flipped``, ``U(*correct_range)`` elsewhere.
    """
    flipped = np.asarray(flipped, dtype=bool)
    u = rng.uniform(size=flipped.shape[0])
    lo = np.where(flipped, flipped_range[0], correct_range[0])
    hi = np.where(flipped, flipped_range[1], correct_range[1])
    return lo + u * (hi - lo)


def suspect_scores(suspects, flipped, n_must):
    """How well a suspect ranking finds the flipped links.

    Parameters
    ----------
    suspects : dict of str to ndarray
        ``SMIClustering.suspect_links_`` (``kind``, ``index``, ``score``; most
        suspect first).
    flipped : ndarray of bool
        Flip mask over the must-links followed by the cannot-links.
    n_must : int

    Returns
    -------
    scores : dict
        ``p_at_k`` (precision at k = number of flipped links, which is also
        the recall there), ``p_at_2k``, ``r_at_2k`` and ``ap`` (average
        precision); NaN when no link is flipped.
    """
    flipped = np.asarray(flipped, dtype=bool)
    k = int(flipped.sum())
    if k == 0:
        return {"p_at_k": math.nan, "p_at_2k": math.nan, "r_at_2k": math.nan,
                "ap": math.nan}
    position = np.asarray(suspects["index"]) + np.where(
        np.asarray(suspects["kind"]) == "cannot", n_must, 0)
    truth = flipped[position]
    top2k = truth[: 2 * k].sum()
    return {
        "p_at_k": float(truth[:k].sum() / k),
        "p_at_2k": float(top2k / min(2 * k, truth.size)),
        "r_at_2k": float(top2k / k),
        "ap": float(average_precision_score(truth, np.asarray(suspects["score"]))),
    }


def ari_pair(y, labels, mask):
    """ARI on all points and on ``mask`` (NaN when fewer than 2 points)."""
    all_points = float(adjusted_rand_score(y, labels))
    if mask.sum() < 2:
        return all_points, math.nan
    return all_points, float(adjusted_rand_score(y[mask], labels[mask]))


# ---------------------------------------------------------------------------
# data and fits
# ---------------------------------------------------------------------------


def load_problem(dataset, preprocessing, seed):
    """``(X, y)``: the seed's draw of the data set, preprocessed as the
    reproduction does (z-scores, constant features left at 0)."""
    if dataset not in ("iris", "wine"):
        from smiclust.experiments import load_problem as reproduction_problem

        X, y = reproduction_problem(dataset, preprocessing, seed)
        return np.array(X, dtype=np.float64), np.array(y, dtype=np.int64)
    from sklearn import datasets
    from sklearn.preprocessing import StandardScaler

    X, y = getattr(datasets, f"load_{dataset}")(return_X_y=True)
    if preprocessing == "standardized":
        X = StandardScaler().fit_transform(X)
    elif preprocessing != "raw":
        raise ValueError(f"Unknown preprocessing {preprocessing!r}.")
    return np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64)


@contextmanager
def _peer_state(seed, n_samples):
    """Global NumPy state the peers need (seeded RNG, raising errstate, deep
    recursion for their closure), restored on exit."""
    saved = np.random.get_state()
    old_limit = sys.getrecursionlimit()
    np.random.seed(seed)
    sys.setrecursionlimit(max(old_limit, 2 * n_samples + 1000))
    try:
        with np.errstate(all="raise"):
            yield
    finally:
        np.random.set_state(saved)
        sys.setrecursionlimit(old_limit)


def _import_asc():
    old = np.geterr()
    try:
        import active_semi_clustering
    finally:
        np.seterr(**old)  # the package calls np.seterr('raise') on import
    return active_semi_clustering


def fit_peer(name, X, n_clusters, must, cannot, seed):
    """Labels of COPKMeans or PCKMeans; raises on failure."""
    asc = _import_asc()
    model = getattr(asc, _PEER_CLASSES[name])(n_clusters=n_clusters)
    with _peer_state(seed, X.shape[0]):
        model.fit(X, ml=[tuple(map(int, p)) for p in must],
                  cl=[tuple(map(int, p)) for p in cannot])
    return np.asarray(model.labels_, dtype=np.int64)


def _timed(fit):
    start = time.perf_counter()
    try:
        return fit(), "ok", "", time.perf_counter() - start
    except ImportError as exc:  # a peer not installed: no result at all
        return None, "not run", f"{type(exc).__name__}: {exc}"[:200], \
            time.perf_counter() - start
    except Exception as exc:  # a failed peer run is a result
        text = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
        return None, "failed", " ".join(text.split())[:200], \
            time.perf_counter() - start


def run_task(problem, seed, levels=None):
    """All records of one problem and seed (every level, fraction, method);
    ``levels`` replaces the problem's link levels."""
    from sklearn.cluster import KMeans

    from smiclust import SMIClustering, sample_links

    dataset, preprocessing, own_levels = PROBLEMS[problem]
    levels = own_levels if levels is None else levels
    X, y = load_problem(dataset, preprocessing, seed)
    n, n_clusters = len(y), int(np.unique(y).size)
    base = {"problem": problem, "dataset": dataset, "preprocessing": preprocessing,
            "seed": seed}
    records = []

    def record(labels, status, error, seconds, mask, **extra):
        if status == "ok":
            ari, ari_u = ari_pair(y, labels, mask)
        else:  # a failed run scores 0; a run that could not start, nothing
            ari = ari_u = 0.0 if status == "failed" else math.nan
        if mask.sum() < 2:
            ari_u = math.nan
        row = {**base, "method": extra.pop("method"), "status": status,
               "error": error, "ari": ari, "ari_unlinked": ari_u,
               "seconds": seconds, **extra}
        records.append(row)

    plain = _timed(lambda: SMIClustering(n_clusters, random_state=seed)
                   .fit(X).labels_)
    kmeans = _timed(lambda: KMeans(n_clusters, n_init=10, random_state=seed)
                    .fit(X).labels_)
    for level in levels:
        n_links = int(round(level * (n * (n - 1) // 2)))
        must0, cannot0 = sample_links(y, n_links, random_state=seed)
        mask = unlinked_mask(n, must0, cannot0)
        for f in FLIP_FRACTIONS:
            must, cannot, flipped = flip_links(must0, cannot0, f,
                                               np.random.RandomState(seed))
            common = {"link_fraction": level, "n_links": n_links,
                      "n_unlinked": int(mask.sum()), "flip_fraction": f,
                      "n_flipped": int(flipped.sum())}
            for name, result in (("no links", plain), ("k-means", kmeans)):
                record(*result, mask, method=name, **common)

            def fit_default(**weights):
                model = SMIClustering(n_clusters, random_state=seed)
                return model.fit(X, must_link=must, cannot_link=cannot, **weights)

            model, *rest = _timed(fit_default)
            params = json.dumps(_default_params(), sort_keys=True)
            if model is None:
                record(None, *rest, mask, method="default", default_params=params,
                       **common)
            else:
                record(model.labels_, *rest, mask, method="default", **common,
                       default_params=params,
                       **suspect_scores(model.suspect_links_, flipped, len(must)))
            w = simulate_weights(flipped, np.random.RandomState([seed, 1]))
            model, *rest = _timed(lambda: fit_default(
                must_link_weight=w[: len(must)], cannot_link_weight=w[len(must):]))
            record(None if model is None else model.labels_, *rest, mask,
                   method="default + weights", **common)
            for name in ("COPKMeans", "PCKMeans"):
                record(*_timed(lambda: fit_peer(name, X, n_clusters, must, cannot,
                                                seed)),
                       mask, method=name, **common)
    print(f"done: {problem}, seed {seed}", file=sys.stderr, flush=True)
    return records


def run_all(problems, seeds, jobs=1, levels=None):
    tasks = [(p, s, levels) for p in problems for s in seeds]
    if jobs <= 1:
        results = [run_task(*task) for task in tasks]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(run_task, *zip(*tasks)))
    return [r for rs in results for r in rs]


# ---------------------------------------------------------------------------
# records on disk
# ---------------------------------------------------------------------------


def write_records(records, path):
    from smiclust.io import atomic_write

    with atomic_write(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, restval="")
        writer.writeheader()
        for row in records:
            writer.writerow({k: row.get(k, "") for k in FIELDS})


def read_records(path):
    numeric = {"link_fraction", "flip_fraction", "ari", "ari_unlinked", "seconds",
               "p_at_k", "p_at_2k", "r_at_2k", "ap"}
    integer = {"n_links", "n_unlinked", "n_flipped", "seed"}
    rows = []
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            for key in numeric:
                row[key] = float(row[key]) if row[key] not in ("", None) else math.nan
            for key in integer:
                row[key] = int(row[key])
            rows.append(row)
    return rows


# ---------------------------------------------------------------------------
# tables and figure
# ---------------------------------------------------------------------------


def _group(records, *keys):
    out = {}
    for row in records:
        out.setdefault(tuple(row[k] for k in keys), []).append(row)
    return out


def _mean_std(values):
    v = np.asarray([x for x in values if not math.isnan(x)], dtype=float)
    if v.size == 0:
        return math.nan, math.nan, 0
    return float(v.mean()), float(v.std()), int(v.size)


def _cell(rows, field):
    mean, std, count = _mean_std([r[field] for r in rows])
    if count == 0:
        return "–"
    text = f"{mean:.2f} ± {std:.2f}"
    failed = sum(r["status"] == "failed" for r in rows)
    if failed:
        text += f" ({failed}/{len(rows)} failed)"
    if count < len(rows) and field == "ari_unlinked":
        text += f" [{count}]"
    return text


def _order(records):
    problems = [p for p in PROBLEMS if any(r["problem"] == p for r in records)]
    problems += sorted({r["problem"] for r in records} - set(problems))
    return problems


def ari_tables(records, field="ari"):
    """One Markdown table per link level: rows problem x method, columns f."""
    fractions = sorted({r["flip_fraction"] for r in records})
    groups = _group(records, "problem", "link_fraction", "method", "flip_fraction")
    lines = []
    for level in sorted({r["link_fraction"] for r in records}):
        lines += [f"**{level:.0%} of the pairs linked** "
                  f"({'all points' if field == 'ari' else 'points in no link'})",
                  "",
                  "| problem | links | method | "
                  + " | ".join(f"{f:.0%} flipped" for f in fractions) + " |",
                  "|---|---|---|" + "---|" * len(fractions)]
        for problem in _order(records):
            for method in METHODS:
                cells = [groups.get((problem, level, method, f), []) for f in fractions]
                if not any(cells):
                    continue
                first = next(c for c in cells if c)[0]
                links = f"{first['n_links']}"
                if field == "ari_unlinked":
                    links += f" ({first['n_unlinked']} unlinked)"
                lines.append(f"| {problem} | {links} | {method} | "
                             + " | ".join(_cell(c, field) if c else "–"
                                          for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)


def target_table(records):
    """The issue's targets per problem and level, from mean ARI over seeds."""
    groups = _group(records, "problem", "link_fraction", "method", "flip_fraction")

    def mean(problem, level, method, f):
        return _mean_std([r["ari"] for r in groups.get((problem, level, method, f),
                                                       [])])[0]

    fractions = [f for f in sorted({r["flip_fraction"] for r in records}) if f >= 0.1]
    head = ["| problem | level | default − no links at 20 % (≥ −0.02) | "
            + " | ".join(f"default − best of COPK/PCK at {f:.0%} (≥ +0.01)"
                         for f in fractions) + " |",
            "|---|---|---|" + "---|" * len(fractions)]
    lines, met, total = list(head), 0, 0
    for problem in _order(records):
        for level in sorted({r["link_fraction"] for r in records
                             if r["problem"] == problem}):
            d20 = mean(problem, level, "default", 0.2) - mean(problem, level,
                                                                "no links", 0.2)
            cells = []
            if not math.isnan(d20):
                ok = d20 >= -0.02
                met, total = met + ok, total + 1
                cells.append(f"{d20:+.2f} {'met' if ok else '**missed**'}")
            else:
                cells.append("–")
            for f in fractions:
                peers = [mean(problem, level, m, f) for m in ("COPKMeans", "PCKMeans")]
                if all(math.isnan(x) for x in peers):
                    cells.append("–")
                    continue
                d = mean(problem, level, "default", f) - np.nanmax(peers)
                if math.isnan(d):
                    cells.append("–")
                    continue
                ok = d >= 0.01  # ahead: by at least 0.01
                met, total = met + ok, total + 1
                peer_rows = [r for m in ("COPKMeans", "PCKMeans")
                             for r in groups.get((problem, level, m, f), [])]
                note = (" (peers failed)" if peer_rows and all(
                    r["status"] == "failed" for r in peer_rows) else "")
                cells.append(f"{d:+.2f} {'met' if ok else '**missed**'}{note}")
            lines.append(f"| {problem} | {level:.0%} | " + " | ".join(cells) + " |")
    lines += ["", f"Targets met: {met} of {total} cells.", ""]
    return "\n".join(lines)


def suspect_table(records):
    """Suspect-link ranking of the default fit against the truly flipped links."""
    rows = [r for r in records if r["method"] == "default" and r["n_flipped"] > 0
            and r["status"] == "ok"]
    groups = _group(rows, "problem", "link_fraction", "flip_fraction")
    lines = ["| problem | level | flipped | k | precision = recall at k | "
             "precision at 2k | recall at 2k | average precision |",
             "|---|---|---|---|---|---|---|---|"]
    for problem in _order(records):
        for (p, level, f), g in sorted(groups.items()):
            if p != problem:
                continue
            k = int(np.median([r["n_flipped"] for r in g]))
            cells = []
            for field in ("p_at_k", "p_at_2k", "r_at_2k", "ap"):
                m, s, _ = _mean_std([r[field] for r in g])
                cells.append(f"{m:.2f} ± {s:.2f}")
            lines.append(f"| {problem} | {level:.0%} | {f:.0%} | {k} | "
                         + " | ".join(cells) + " |")
    overall = []
    for f in sorted({r["flip_fraction"] for r in rows}):
        m = [_mean_std([r[k] for r in rows if r["flip_fraction"] == f])[0]
             for k in ("p_at_k", "ap")]
        overall.append(f"{f:.0%} flipped: precision at k {m[0]:.2f}, AP {m[1]:.2f}")
    lines += ["", "Means over all problems and levels: " + "; ".join(overall) + ".",
              ""]
    return "\n".join(lines)


def summary_table(records):
    """Mean ARI over every problem and level, per method and fraction."""
    fractions = sorted({r["flip_fraction"] for r in records})
    groups = _group(records, "method", "flip_fraction", "problem", "link_fraction")
    lines = ["| method | " + " | ".join(f"{f:.0%} flipped" for f in fractions)
             + " |", "|---|" + "---|" * len(fractions)]
    for method in METHODS:
        cells = []
        for f in fractions:
            cell_means = [_mean_std([r["ari"] for r in g])[0]
                          for (m, ff, _, _), g in groups.items()
                          if m == method and ff == f]
            cells.append(f"{np.mean(cell_means):.2f}" if cell_means else "–")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(records, path):
    """ARI against the fraction flipped; one panel per problem and level."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from smiclust.io import atomic_write

    panels = [(p, lv) for p in _order(records)
              for lv in sorted({r["link_fraction"] for r in records
                                if r["problem"] == p})]
    ncols = 4
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4 * ncols, 3.2 * nrows),
                             sharex=True, squeeze=False)
    groups = _group(records, "problem", "link_fraction", "method", "flip_fraction")
    fractions = sorted({r["flip_fraction"] for r in records})
    styles = {"default": ("C0", "o", "-"), "default + weights": ("C0", "s", "--"),
              "no links": ("C7", "", ":"), "COPKMeans": ("C3", "^", "-"),
              "PCKMeans": ("C1", "v", "-"), "k-means": ("C2", "", ":")}
    for ax, (problem, level) in zip(axes.ravel(), panels):
        for method in METHODS:
            stats = [_mean_std([r["ari"] for r in groups.get((problem, level, method,
                                                              f), [])])
                     for f in fractions]
            if all(c == 0 for _, _, c in stats):
                continue
            color, marker, ls = styles[method]
            ax.errorbar(np.array(fractions) * 100, [m for m, _, _ in stats],
                        yerr=[s for _, s, _ in stats], label=method, color=color,
                        marker=marker, linestyle=ls, capsize=2, markersize=4)
        ax.set_title(f"{problem}, {level:.0%} of pairs", fontsize=9)
        ax.set_ylim(-0.05, 1.02)
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(panels):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("links flipped (%)")
    for ax in axes[:, 0]:
        ax.set_ylabel("ARI (all points)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=9,
               bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=80)
    plt.close(fig)


def report(records):
    seeds = sorted({r["seed"] for r in records})
    failed = [r for r in records if r["status"] == "failed"]
    errors = sorted({r["error"].split(":")[0] for r in failed})
    not_run = sorted({r["method"] for r in records if r["status"] == "not run"})
    defaults = sorted({r.get("default_params", "") for r in records
                       if r["method"] == "default"})
    parts = [
        "Defaults of SMIClustering in the records (get_params() of "
        "SMIClustering()): " + "; ".join(f"`{d}`" for d in defaults) + ".", "",
        f"Seeds: {len(seeds)} ({', '.join(map(str, seeds))}); cells are mean ± std "
        "over seeds of the adjusted Rand index. A failed run counts as ARI 0 "
        f"({len(failed)} failed run(s): {', '.join(errors) or 'none'}); a method "
        "whose package is not installed is not run and takes no part in the "
        "targets (" + (", ".join(not_run) or "none") + ").",
        "",
        "### Mean over all problems and levels (ARI, all points)", "",
        summary_table(records),
        "### ARI on all points", "", ari_tables(records, "ari"),
        "### ARI on the points in no link", "",
        "[n] after a cell: seeds with at least 2 unlinked points, when fewer than "
        "all.", "",
        ari_tables(records, "ari_unlinked"),
        "### Targets of issue 13", "", target_table(records),
        "### Suspect links of the default fit", "", suspect_table(records),
    ]
    return "\n".join(parts)


def _default_params():
    from smiclust import SMIClustering

    params = SMIClustering().get_params()
    return {k: v for k, v in params.items() if k not in ("n_clusters",
                                                          "random_state")}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="number of seeds")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--problems", nargs="+", default=list(PROBLEMS),
                        choices=list(PROBLEMS), metavar="PROBLEM")
    parser.add_argument("--levels", type=float, nargs="+", default=None,
                        help="link levels (fractions of pairs) instead of the "
                             "problems' own")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--records", help="write the records (CSV) here")
    parser.add_argument("--from-records", nargs="+",
                        help="read records (one or more CSV) instead of fitting")
    parser.add_argument("--plot", help="write the figure (PNG) here")
    args = parser.parse_args(argv)
    if args.from_records:
        records = [r for path in args.from_records for r in read_records(path)]
    else:
        print(f"SMIClustering defaults at run time: {_default_params()}",
              file=sys.stderr, flush=True)
        start = time.perf_counter()
        records = run_all(args.problems,
                          list(range(args.seed, args.seed + args.seeds)), args.jobs,
                          None if args.levels is None else tuple(args.levels))
        print(f"wall time {time.perf_counter() - start:.0f} s", file=sys.stderr)
        if args.records:
            write_records(records, args.records)
    print(report(records))
    if args.plot:
        os.makedirs(os.path.dirname(os.path.abspath(args.plot)), exist_ok=True)
        plot(records, args.plot)


if __name__ == "__main__":
    main()
