"""Report of the ``beyond`` config: the library's default against the rest.

Computed from the records alone, like the paper's report
(:mod:`~smiclust.experiments._report`), which it leaves as it is. Needs
pandas and, for the figures, matplotlib, imported inside the functions.

The **win table** compares, per data set, preprocessing, protocol and level,
the library's default (method ``smiclust``) with the best *other* curve at
that level: the highest mean ARI among all other curves, SL and CSC each at
its best ``t`` in hindsight (the ``t`` with the best mean ARI over the levels
with links of that data set, preprocessing and protocol, a run that gave no
clustering counted as ARI 0 (or as the level's mean where that is
negative), as in the paper's report; one ``t`` per data
set, as a user would fix it). A curve competes
at a level when all its runs there finished and at least :data:`MIN_SEEDS`
did. With ``d`` the default's mean minus the best other's and
``s = max(std_default, std_other, TIE_FLOOR)`` (:func:`win_tie_loss`):

* **win** when ``d > s``;
* **loss** when ``d < -s``;
* **tie** otherwise.

The same rule is applied to the ARI on the samples in no link
(``ari_unlinked``), among the curves that have it, at the levels where the
median number of such samples is at least :data:`MIN_UNLINKED` (with two or
three of them the ARI is 0 or 1 by chance); elsewhere there is no such
comparison (``n/a``).
"""

import math
from pathlib import Path

from ..io import atomic_write
from ._figures import save_figure
from ._format import percent
from ._output import (
    BEYOND_REPORT_TITLE,
    FIGURES_DIR,
    REPORT_FILE,
    check_out_dir,
    lock_out_dir,
)
from ._summary import METHOD_LABELS, load_records, ranking_mean, require_pandas

__all__ = [
    "DEFAULT_METHOD",
    "TIE_FLOOR",
    "MIN_SEEDS",
    "MIN_UNLINKED",
    "win_tie_loss",
    "summarize_beyond",
    "win_table",
    "plot_beyond",
    "write_beyond_report",
]

#: The method the win table is about.
DEFAULT_METHOD = "smiclust"
#: The paper's method, shown beside the default for reference.
PAPER_METHOD = "3smic"
#: Smallest difference of mean ARI that can be a win or a loss.
TIE_FLOOR = 0.01
#: Fewest samples in no link (median over seeds) for the unlinked comparison.
MIN_UNLINKED = 10
#: Fewest finished seeds for a curve to compete at a level.
MIN_SEEDS = 2

#: Methods of the left panel (the paper's) and of the right one (peers).
_PAPER_PANEL = ("3smic", "sl", "csc")
_PEER_PANEL = ("cobs", "labelspreading", "e2cp", "pckmeans", "mpckmeans",
               "copkmeans")
_COLORS = {
    "smiclust": "#d62728", "3smic": "black", "sl": "#2171b5", "csc": "#e6550d",
    "cobs": "#31a354", "labelspreading": "#756bb1", "e2cp": "#238b45",
    "pckmeans": "#6a51a3", "mpckmeans": "#ae017e", "copkmeans": "#737373",
}
_MARKERS = {"smiclust": "o", "3smic": "s", "sl": "^", "csc": "v", "cobs": "D",
            "labelspreading": "P", "e2cp": "d", "pckmeans": "<", "mpckmeans": ">",
            "copkmeans": "x"}


def win_tie_loss(mean, std, best_mean, best_std, floor=TIE_FLOOR):
    """``"win"``, ``"tie"`` or ``"loss"`` of (mean, std) against the best other.

    Loss when ``mean`` is below ``best_mean`` by more than
    ``max(std, best_std, floor)``, win when above by more, tie otherwise;
    ``None`` when a mean is NaN.

    Examples
    --------
    >>> win_tie_loss(0.80, 0.05, 0.70, 0.02)
    'win'
    >>> win_tie_loss(0.70, 0.05, 0.74, 0.02)
    'tie'
    >>> win_tie_loss(0.60, 0.05, 0.70, 0.02)
    'loss'
    """
    if any(math.isnan(v) for v in (mean, best_mean)):
        return None
    spread = max(_nan0(std), _nan0(best_std), floor)
    d = mean - best_mean
    return "win" if d > spread else ("loss" if d < -spread else "tie")


def _nan0(x):
    return 0.0 if x is None or math.isnan(x) else float(x)


def _stats(values):
    v = values.dropna()
    if not len(v):
        return float("nan"), float("nan"), 0
    return float(v.mean()), float(v.std(ddof=0)), int(len(v))


def summarize_beyond(df):
    """One row per data set, preprocessing, protocol, curve and level.

    Returns
    -------
    summary : DataFrame
        Columns ``dataset, preprocessing, protocol, method, t, curve,
        link_fraction, links, n_samples, unlinked, mean, std, mean_unlinked,
        std_unlinked, n_unlinked, links_only, n_ok, n_failed, n_skipped,
        seconds``; ``links_only`` is the mean ARI of the links alone (the same
        links for every method of a seed).
    """
    import pandas as pd

    keys = ["dataset", "preprocessing", "protocol", "method", "t", "curve",
            "link_fraction"]
    rows = []
    for key, g in df.groupby(keys, dropna=False, sort=False):
        ok = g[g["status"] == "ok"]
        mean, std, _ = _stats(ok["ari"])
        mean_u, std_u, n_u = _stats(ok["ari_unlinked"])
        rows.append({
            **dict(zip(keys, key)),
            "links": float(g["links"].median()),
            "n_samples": float(g["n_samples"].median()),
            "unlinked": float(g["unlinked"].median()),
            "mean": mean, "std": std,
            "mean_unlinked": mean_u, "std_unlinked": std_u, "n_unlinked": n_u,
            "links_only": _stats(g["ari_links_only"])[0],
            "n_ok": int(len(ok)),
            "n_failed": int((g["status"] == "failed").sum()),
            "n_skipped": int((g["status"] == "skipped").sum()),
            "seconds": float(ok["seconds"].mean()) if len(ok) else float("nan"),
        })
    return pd.DataFrame(rows)


def win_table(summary, default=DEFAULT_METHOD):
    """The default against the best other curve per data set, preprocessing,
    protocol and level (rule in the module docstring).

    Returns
    -------
    rows : list of dict
        ``dataset, preprocessing, protocol, link_fraction, links, unlinked,
        n_seeds, links_only``, ``paper`` (3SMIC's curve, mean, std: the
        paper's method, for reference); ``default`` and ``best`` (curve, mean, std) on
        all samples, ``verdict``; ``default_unlinked``, ``best_unlinked``,
        ``verdict_unlinked`` the same on the samples in no link (``None``
        where there is no comparison).
    """
    rows = []
    keys = ["dataset", "preprocessing", "protocol", "link_fraction"]
    summary = _at_best_t(summary)
    for key, g in summary.groupby(keys, sort=False):
        mine = g[g["method"] == default]
        if not len(mine) or mine.iloc[0]["n_ok"] == 0:
            continue
        me = mine.iloc[0]
        others = g[(g["method"] != default) & (g["n_ok"] >= MIN_SEEDS)
                   & (g["n_failed"] + g["n_skipped"] == 0)]
        paper = g[(g["method"] == PAPER_METHOD) & (g["n_ok"] > 0)]
        row = {**dict(zip(keys, key)), "links": me["links"],
               "unlinked": me["unlinked"], "n_seeds": int(me["n_ok"]),
               "links_only": me["links_only"],
               "paper": (METHOD_LABELS[PAPER_METHOD], paper.iloc[0]["mean"],
                         paper.iloc[0]["std"]) if len(paper) else None}
        for suffix, mcol, scol in (("", "mean", "std"),
                                   ("_unlinked", "mean_unlinked", "std_unlinked")):
            cand = others[others[mcol].notna()]
            mine_value = (me[mcol], me[scol])
            too_few = suffix and not me["unlinked"] >= MIN_UNLINKED
            if math.isnan(me[mcol]) or not len(cand) or too_few:
                row["default" + suffix] = None if math.isnan(me[mcol]) else (
                    METHOD_LABELS[default], *mine_value)
                row["best" + suffix] = None
                row["verdict" + suffix] = None
                continue
            best = cand.loc[cand[mcol].idxmax()]
            row["default" + suffix] = (METHOD_LABELS[default], *mine_value)
            row["best" + suffix] = (best["curve"], best[mcol], best[scol])
            row["verdict" + suffix] = win_tie_loss(*mine_value, best[mcol],
                                                   best[scol])
        rows.append(row)
    return rows


def _counts(rows, suffix=""):
    out = {"win": 0, "tie": 0, "loss": 0}
    for r in rows:
        if r["verdict" + suffix]:
            out[r["verdict" + suffix]] += 1
    return out


def _at_best_t(summary):
    """``summary`` with SL and CSC only at their best ``t`` (:func:`_best_t`)."""
    keep = []
    best = {m: _best_t(summary, m) for m in ("sl", "csc")}
    for r in summary.itertuples(index=False):
        if r.method in best:
            keep.append(best[r.method].get((r.dataset, r.preprocessing,
                                             r.protocol)) == r.t)
        else:
            keep.append(True)
    return summary[keep]


def _best_t(summary, method):
    """The ``t`` of ``method`` with the best mean ARI over the levels with
    links (hindsight), per data set, preprocessing and protocol; a run that
    gave no clustering counts as ARI 0, or as its level's mean where that is
    negative (:func:`~smiclust.experiments._summary.ranking_mean`), so that
    a ``t`` that finished only at some levels is not ranked by those alone."""
    best = {}
    s = summary[(summary["method"] == method) & (summary["link_fraction"] > 0)]
    n_runs = s["n_ok"] + s["n_failed"] + s["n_skipped"]
    s = s.assign(zeroed=ranking_mean(s["mean"], s["n_ok"], n_runs))
    for key, g in s.groupby(["dataset", "preprocessing", "protocol"], sort=False):
        means = g.groupby("t")["zeroed"].mean().dropna()
        if len(means):
            best[key] = float(means.idxmax())
    return best


def _level_label(protocol, fraction, links):
    if protocol == "labels":
        return f"{percent(fraction)} labelled"
    return f"{int(links):,} ({percent(fraction)})" if not math.isnan(links) else "?"


def plot_beyond(summary, dataset, preprocessing, protocol, axes=None):
    """Mean ARI against the level: paper's methods (best t) | peers, on all
    samples (top) and on the samples in no link (bottom).

    The default is in every panel (red, thick), the links alone as a grey
    dashed line; a level where some runs of a curve did not finish is marked
    with a hollow circle, a curve that never finished is listed as such.

    Returns
    -------
    axes : ndarray of matplotlib Axes, shape (2, 2)
    """
    import matplotlib.pyplot as plt

    if axes is None:
        _, axes = plt.subplots(2, 2, figsize=(12, 8), sharex=True, sharey=True)
    s = summary[(summary["dataset"] == dataset)
                & (summary["preprocessing"] == preprocessing)
                & (summary["protocol"] == protocol)]
    best_t = {m: _best_t(summary, m).get((dataset, preprocessing, protocol))
              for m in ("sl", "csc")}
    levels = s.groupby("link_fraction")["links"].median().sort_index()
    x_of = {f: i for i, f in enumerate(levels.index)}
    panels = [(0, ("smiclust",) + _PAPER_PANEL), (1, ("smiclust",) + _PEER_PANEL)]
    for row, (mcol, scol, what) in enumerate((
            ("mean", "std", "all samples"),
            ("mean_unlinked", "std_unlinked", "samples in no link"))):
        for col, methods in panels:
            ax = axes[row, col]
            for m in methods:
                g = s[s["method"] == m]
                if m in best_t:
                    g = g[g["t"] == best_t[m]] if best_t[m] is not None else g[:0]
                if not len(g):
                    continue
                label = g["curve"].iloc[0]
                if m in best_t:
                    label += " (best t)"
                gg = g[g["n_ok"] > 0].sort_values("link_fraction")
                gg = gg[gg[mcol].notna()]
                if not len(gg):
                    why = "skipped" if g["n_skipped"].sum() else "failed"
                    ax.plot([], [], " ", label=f"{label}: {why}")
                    continue
                xs = [x_of[f] for f in gg["link_fraction"]]
                thick = m == DEFAULT_METHOD
                ax.plot(xs, gg[mcol], color=_COLORS.get(m, "0.4"),
                        marker=_MARKERS.get(m, "o"), markersize=5,
                        linewidth=2.8 if thick else 1.4,
                        zorder=5 if thick else 3, label=label)
                ax.fill_between(xs, gg[mcol] - gg[scol], gg[mcol] + gg[scol],
                                color=_COLORS.get(m, "0.4"), alpha=0.08,
                                linewidth=0)
                bad = gg[(gg["n_failed"] + gg["n_skipped"]) > 0]
                if len(bad):
                    ax.plot([x_of[f] for f in bad["link_fraction"]], bad[mcol],
                            "o", markersize=11, markerfacecolor="none",
                            markeredgecolor=_COLORS.get(m, "0.4"))
            lo = s[s["method"] == DEFAULT_METHOD].sort_values("link_fraction")
            if row == 0 and len(lo):
                ax.plot([x_of[f] for f in lo["link_fraction"]], lo["links_only"],
                        color="0.5", linestyle="--", linewidth=1.2,
                        label="links alone")
            ax.set_ylim(-0.1, 1.05)
            ax.axhline(0, color="0.7", linewidth=0.6)
            ax.grid(alpha=0.3)
            ax.set_title(("paper's methods" if col == 0 else "peers")
                         + f": ARI on {what}", fontsize=10)
            if col == 0:
                ax.set_ylabel("ARI (mean ± std)")
            if row == 1:
                ax.set_xticks(range(len(levels)))
                ax.set_xticklabels([_level_label(protocol, f, v).replace(" (", "\n(")
                                    for f, v in levels.items()], fontsize=8)
            if row == 0:
                ax.legend(fontsize=7, loc="lower right", frameon=False)
    n_seeds = int(s[s["method"] == DEFAULT_METHOD]["n_ok"].max()) if len(s) else 0
    fig = axes[0, 0].figure
    fig.suptitle(
        f"{dataset} ({preprocessing}), {protocol} protocol: {n_seeds} seeds "
        "(paper: 20); hollow circle = some runs failed or skipped", fontsize=11)
    return axes


def write_beyond_figures(summary, out_dir):
    """One PNG per data set, preprocessing and protocol; return the paths."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    keys = summary[["dataset", "preprocessing", "protocol"]].drop_duplicates()
    for d, p, proto in keys.itertuples(index=False):
        fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharex=True, sharey=True)
        plot_beyond(summary, d, p, proto, axes=axes)
        fig.tight_layout(rect=(0, 0, 1, 0.96))
        paths.append(save_figure(fig, out_dir / f"{d}-{p}-{proto}.png", dpi=90))
    return paths


def _fmt(entry, with_curve=True):
    if entry is None:
        return "n/a"
    curve, mean, std = entry
    text = f"{mean:.2f} ± {std:.2f}"
    return f"{curve}: {text}" if with_curve else text


def _count(x):
    return "?" if math.isnan(x) else f"{x:.0f}"


def _verdict_cell(v):
    return {"win": "win", "tie": "tie", "loss": "**LOSS**", None: "n/a"}[v]


def _win_section(rows):
    lines = []
    for proto in ("pairs", "labels"):
        sub = [r for r in rows if r["protocol"] == proto]
        if not sub:
            continue
        c_all, c_free = _counts(sub), _counts(sub, "_unlinked")
        lines += [
            f"### {proto} protocol",
            "",
            f"- all samples: **{c_all['win']} win, {c_all['tie']} tie, "
            f"{c_all['loss']} loss** (of {sum(c_all.values())} cells)",
            f"- samples in no link: **{c_free['win']} win, {c_free['tie']} tie, "
            f"{c_free['loss']} loss** (of {sum(c_free.values())} cells with "
            f"at least {MIN_UNLINKED} such samples, median over seeds)",
            "",
            "| data set | level | seeds | samples in no link | links alone | "
            "default (all) | 3SMIC, paper (all) | best other (all) | verdict | "
            "default (unlinked) | best other (unlinked) | verdict |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in sub:
            lines.append(
                f"| {r['dataset']} ({r['preprocessing']}) | "
                f"{_level_label(proto, r['link_fraction'], r['links'])} | "
                f"{r['n_seeds']} | {_count(r['unlinked'])} | "
                f"{r['links_only']:.2f} | "
                f"{_fmt(r['default'], False)} | {_fmt(r['paper'], False)} | "
                f"{_fmt(r['best'])} | "
                f"{_verdict_cell(r['verdict'])} | "
                f"{_fmt(r['default_unlinked'], False)} | "
                f"{_fmt(r['best_unlinked'])} | "
                f"{_verdict_cell(r['verdict_unlinked'])} |")
        lines.append("")
    return lines


def _losses_section(rows):
    lines = []
    for r in rows:
        for suffix, what in (("", "all samples"), ("_unlinked", "unlinked")):
            if r["verdict" + suffix] == "loss":
                _, m, _ = r["default" + suffix]
                curve, b, _ = r["best" + suffix]
                lines.append(
                    f"- {r['dataset']} ({r['preprocessing']}), {r['protocol']}, "
                    f"{_level_label(r['protocol'], r['link_fraction'], r['links'])}"
                    f", {what}: {m:.2f} vs {curve} {b:.2f} ({m - b:+.2f})")
    return (lines or ["No losses."]) + [""]


def _coverage_lines(df, config, paper_note=" (the paper used 20)"):
    lines = []
    if config is not None:
        planned = config.get("seeds", [])
        lines.append(f"Config **{config.get('name', '?')}**: seeds "
                     f"{', '.join(map(str, planned))} planned per data set"
                     f"{paper_note}.")
    counts = df["status"].value_counts()
    lines.append(
        f"Records: {len(df)} runs ({int(counts.get('ok', 0))} ok, "
        f"{int(counts.get('failed', 0))} failed, "
        f"{int(counts.get('skipped', 0))} skipped).")
    lines += ["", "Coverage (seeds with at least one finished run of the "
              "default, per data set and protocol; a cell of the tables below "
              "shows its own seed count):", ""]
    for (d, p, proto), g in df.groupby(["dataset", "preprocessing", "protocol"],
                                       sort=False):
        mine = g[(g["method"] == DEFAULT_METHOD) & (g["status"] == "ok")]
        seeds = sorted(int(s) for s in mine["seed"].unique())
        methods = ", ".join(sorted(set(g["method"])))
        lines.append(f"- {d} ({p}), {proto}: seeds {seeds or 'none'}; "
                     f"{len(g)} runs of {methods}")
    return lines + [""]


def _not_ok_lines(df):
    bad = df[df["status"] != "ok"]
    if not len(bad):
        return ["Every run finished.", ""]
    lines = ["| method | status | runs | data sets | reason |", "|---|---|---|---|---|"]
    grouped = (bad.assign(reason=bad["error"].fillna("").str.slice(0, 140))
               .groupby(["method", "status", "reason"], sort=False)
               .agg(runs=("run_id", "size"),
                    datasets=("dataset", lambda x: ", ".join(sorted(set(x)))))
               .reset_index())
    for r in grouped.itertuples(index=False):
        lines.append(f"| {r.method} | {r.status} | {r.runs} | {r.datasets} | "
                     f"{str(r.reason).replace('|', '/')} |")
    return lines + [""]


def _methods_lines(config):
    from ._config import METHODS

    names = list((config or {}).get("methods", METHODS))
    return [f"- **{METHOD_LABELS.get(m, m)}** (`{m}`): "
            f"{METHODS[m]['description']}." for m in names if m in METHODS] + [""]


def _tables(summary):
    lines = []
    for (d, p, proto), s in summary.groupby(["dataset", "preprocessing",
                                             "protocol"], sort=False):
        levels = sorted(set(s["link_fraction"]))
        links = {f: s[s["link_fraction"] == f]["links"].median() for f in levels}
        lines += [f"### {d} ({p}), {proto} protocol", "",
                  "ARI on all samples / on the samples in no link; "
                  "mean over the seeds that finished.", ""]
        head = ["curve"] + [_level_label(proto, f, links[f]) for f in levels]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for curve, g in s.groupby("curve", sort=False):
            cells = {}
            for r in g.itertuples(index=False):
                if r.n_ok == 0:
                    cells[r.link_fraction] = "skipped" if r.n_skipped else "failed"
                    continue
                free = "–" if math.isnan(r.mean_unlinked) else f"{r.mean_unlinked:.2f}"
                text = f"{r.mean:.2f} / {free}"
                if r.n_failed + r.n_skipped:
                    text += f" ({r.n_failed + r.n_skipped} not ok)"
                cells[r.link_fraction] = text
            lines.append("| " + " | ".join([curve] + [cells.get(f, "")
                                                      for f in levels]) + " |")
        first = s.drop_duplicates("link_fraction").set_index("link_fraction")
        lines.append("| *links alone* | " + " | ".join(
            f"{first.loc[f, 'links_only']:.2f}" for f in levels) + " |")
        lines.append("")
    return lines


def _order(df):
    from ._config import BEYOND_DATASETS

    rank = {d: i for i, d in enumerate(BEYOND_DATASETS)}
    df = df.assign(_d=[rank.get(d, len(rank)) for d in df["dataset"]],
                   _p=[0 if p == "pairs" else 1 for p in df["protocol"]])
    return df.sort_values(["_d", "dataset", "preprocessing", "_p", "method_order",
                           "t", "link_fraction"], na_position="first",
                          kind="stable").drop(columns=["_d", "_p"])


def write_beyond_report(records_path, out_dir, *, config=None, figures=True):
    """Write ``report.md`` and ``figures/*.png`` of the ``beyond`` config.

    Parameters
    ----------
    records_path : str or path
    out_dir : str or path
    config : dict, default=None
        The config of the run, for the coverage line.
    figures : bool, default=True

    Returns
    -------
    path : pathlib.Path
    """
    out_dir = Path(out_dir)
    check_out_dir(out_dir)
    require_pandas()  # before the folder and its lock are made
    with lock_out_dir(out_dir):
        df = _order(load_records(records_path))
        summary = summarize_beyond(df)
        rows = win_table(summary) if len(summary) else []
        lines = _report_lines(df, summary, rows, config)
        draw = ((lambda: write_beyond_figures(summary, out_dir / FIGURES_DIR))
                if figures and len(summary) else None)
        return write_report_file(out_dir, lines, draw)


def write_report_file(out_dir, lines, draw=None):
    """Write ``out_dir/report.md`` whole from ``lines`` and a figures section.

    ``draw()`` draws the figures and returns their paths (listed under
    "Figures"; an ImportError says that matplotlib is missing); ``draw``
    None: no figures section. Returns the path of the report.
    """
    out_dir = Path(out_dir)
    lines = list(lines)
    if draw is not None:
        try:
            paths = draw()
        except ImportError:
            paths = []
            lines += ["## Figures", "", "No figures: matplotlib is not "
                      "installed.", ""]
        if paths:
            lines += ["## Figures", ""]
            lines += [f"![{p.stem}]({p.relative_to(out_dir).as_posix()})\n"
                      for p in paths]
    path = out_dir / REPORT_FILE
    with atomic_write(path, encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def _report_lines(df, summary, rows, config):
    lines = [BEYOND_REPORT_TITLE, ""]
    lines += _coverage_lines(df, config)
    lines += [
        "## What is measured", "",
        "- **Protocols.** *pairs*: the paper's: round(fraction x n (n - 1) / 2) "
        "random pairs, typed by the true labels. *labels*: round(fraction x n) "
        "random samples keep their labels and every pair of them is linked; "
        "LabelSpreading (which needs labels) runs only here, since must-link "
        "groups of random pairs are not classes and naming them after the "
        "classes would need the answer; the default gets the labels through "
        "`fit(X, partial_labels=...)`, the others the pairs.",
        "- **ARI (all)**: against the true labels, on every sample.",
        "- **ARI (unlinked)**: on the samples in no link (in the labels "
        "protocol: the unlabelled ones), the ones the method has to place "
        "itself; n/a when fewer than 2.",
        "- **Links alone**: ARI of the labelling the links give without any "
        "feature: one cluster per group of the must-link closure, every "
        "sample in no must-link a cluster of its own (no nearest-centroid "
        "assignment: it says how much of the answer the links already hold).",
        "- **Violations** of the links are in the records (`violations`).",
        "",
        "## Win table: the default against the best other method", "",
        f"Rule, fixed before the numbers: per cell, *best other* is the curve "
        f"other than the default with the highest mean ARI at that level, SL "
        f"and CSC each at its best t in hindsight (the t with the best mean "
        f"ARI over the levels with links of that data set, preprocessing and "
        f"protocol, a run that gave no clustering counted as ARI 0 (or as the "
        f"level's mean where that is negative), as in the "
        f"paper's report, and as in the figures); a curve "
        f"competes when all its runs at that "
        f"level finished and at least {MIN_SEEDS} did. With d = mean(default) "
        f"- mean(best other) and s = max(std(default), std(best other), "
        f"{TIE_FLOOR}): **win** if d > s, **loss** if d < -s, **tie** "
        "otherwise. The same on the unlinked samples where the median number "
        f"of them is at least {MIN_UNLINKED} (with 2 or 3 the ARI is 0 or 1 by "
        "chance). std is over seeds (ddof=0).", "",
    ]
    lines += _win_section(rows)
    lines += ["## Losses", ""] + _losses_section(rows)
    lines += ["## Methods", ""] + _methods_lines(config)
    lines += ["## Runs that did not finish", ""] + _not_ok_lines(df)
    lines += ["## All curves", ""] + _tables(summary)
    return lines
