"""Report of the ``noise`` configs: the default when a fraction of links is wrong.

Computed from the records alone (the runs of the *noise* protocol,
:mod:`~smiclust.experiments._noise`), like the other reports. Needs pandas
and, for the figures, matplotlib, imported inside the functions.

A cell is a data set, preprocessing, link level, method and noise fraction.
Its value is the mean ± std (over seeds, ``ddof=0``) of the ARI, with a
**failed run counted as ARI 0** (a hard-constraint peer raises on
inconsistent links, and its user gets no clustering; the issue's reference
numbers count it so); skipped runs (peer not installed, over its time budget)
are left out and counted. The method that ignores the links
(``smiclust-nolinks``) runs at noise 0 only and stands for every noise
fraction of its link level.

The checks of issue 13 (:func:`noise_checks`), per data set and level:

* **no links**: at :data:`CHECK_NOLINKS_NOISE` flipped, mean ARI of the
  default ``>=`` mean ARI of the default without links ``-``
  :data:`CHECK_NOLINKS_MARGIN`;
* **peers**: at every noise ``>=`` :data:`CHECK_PEERS_FROM`, mean ARI of the
  default ``>=`` the better of COPKMeans and PCKMeans ``+``
  :data:`CHECK_PEERS_MARGIN` ("ahead": by at least what two decimals show).
"""

import math
import re
from pathlib import Path

from ._beyond import _coverage_lines, _methods_lines, write_report_file
from ._figures import save_figure
from ._format import percent
from ._output import FIGURES_DIR, NOISE_REPORT_TITLE, check_out_dir, lock_out_dir
from ._summary import METHOD_LABELS, load_records, require_pandas

__all__ = [
    "CHECK_NOLINKS_MARGIN",
    "CHECK_NOLINKS_NOISE",
    "CHECK_PEERS_FROM",
    "CHECK_PEERS_MARGIN",
    "DEFAULT_METHOD",
    "NOLINKS_METHOD",
    "PEERS",
    "noise_checks",
    "plot_noise",
    "summarize_noise",
    "write_noise_report",
]

#: The method the checks are about, and its reference without links.
DEFAULT_METHOD = "smiclust"
NOLINKS_METHOD = "smiclust-nolinks"
#: The hard-constraint peers of the second check.
PEERS = ("copkmeans", "pckmeans")
#: First check: noise fraction and margin below the default without links.
CHECK_NOLINKS_NOISE = 0.2
CHECK_NOLINKS_MARGIN = 0.02
#: Second check: from this noise fraction on, ahead of the peers by this much.
CHECK_PEERS_FROM = 0.1
CHECK_PEERS_MARGIN = 0.01

#: Table and legend order of the methods.
_ORDER = ("smiclust", "smiclust-nolinks", "3smic", "csc", "sl", "copkmeans",
          "pckmeans", "mpckmeans", "e2cp", "cobs")
_STYLE = {
    "smiclust": ("#d62728", "o", "-", 2.6),
    "smiclust-nolinks": ("0.35", "", "--", 1.6),
    "3smic": ("black", "s", "-", 1.4),
    "csc": ("#e6550d", "v", "-.", 1.4),
    "copkmeans": ("#737373", "x", ":", 1.6),
    "pckmeans": ("#6a51a3", "<", ":", 1.6),
}
_PROBLEM = ["dataset", "preprocessing", "link_fraction"]


def _stats(values):
    v = values.dropna()
    if not len(v):
        return math.nan, math.nan, 0
    return float(v.mean()), float(v.std(ddof=0)), int(len(v))


def _scored(df):
    """The runs of the noise protocol that count: skipped ones dropped, a
    failed one's ARI 0 (on the unlinked samples too, where there are 2 or
    more); the runs that ignore the links repeated at every noise fraction."""
    import pandas as pd

    from ._config import METHODS

    d = df[(df["protocol"] == "noise")].copy()
    failed = d["status"] == "failed"
    d.loc[failed, "ari"] = 0.0
    d.loc[failed & (d["unlinked"] >= 2), "ari_unlinked"] = 0.0
    fractions = sorted(d["noise"].unique())
    ignoring = d["method"].map(lambda m: bool(METHODS.get(m, {}).get(
        "ignores_links")))
    copies = [d[ignoring & (d["noise"] == 0)].assign(noise=f)
              for f in fractions if f > 0]
    return pd.concat([d] + copies, ignore_index=True)


def summarize_noise(df):
    """One row per data set, preprocessing, link level, curve and noise.

    Parameters
    ----------
    df : DataFrame
        :func:`~smiclust.experiments.load_records` (rows of other protocols
        are left out).

    Returns
    -------
    summary : DataFrame
        Columns ``dataset, preprocessing, link_fraction, method, curve,
        noise, links, unlinked, n_flipped, n_runs, n_ok, n_failed,
        n_skipped, mean, std, mean_unlinked, std_unlinked, n_unlinked``, the
        mean and std of ``suspect_precision``, ``suspect_recall_2k`` and
        ``suspect_ap`` (ok runs with flipped links) and ``seconds``; a failed
        run counts as ARI 0 (module docstring).
    """
    import pandas as pd

    d = _scored(df)
    keys = _PROBLEM + ["method", "curve", "noise"]
    rows = []
    for key, g in d.groupby(keys, sort=False):
        counted = g[g["status"] != "skipped"]
        ok = g[g["status"] == "ok"]
        mean, std, _ = _stats(counted["ari"])
        mean_u, std_u, n_u = _stats(counted["ari_unlinked"])
        row = {
            **dict(zip(keys, key)),
            "links": float(g["links"].median()),
            "unlinked": float(g["unlinked"].median()),
            "n_flipped": float(g["n_flipped"].median()),
            "n_runs": int(len(g)), "n_ok": int(len(ok)),
            "n_failed": int((g["status"] == "failed").sum()),
            "n_skipped": int((g["status"] == "skipped").sum()),
            "mean": mean, "std": std,
            "mean_unlinked": mean_u, "std_unlinked": std_u, "n_unlinked": n_u,
            "seconds": float(ok["seconds"].mean()) if len(ok) else math.nan,
        }
        for field in ("suspect_precision", "suspect_recall_2k", "suspect_ap"):
            m, s, _ = _stats(ok[field])
            row[field], row[field + "_std"] = m, s
        rows.append(row)
    summary = pd.DataFrame(rows)
    if not len(summary):
        return summary
    from ._config import NOISE_DATASETS

    rank = {m: i for i, m in enumerate(_ORDER)}
    summary["_rank"] = [rank.get(m, len(rank)) for m in summary["method"]]
    first = {d: i for i, d in enumerate(NOISE_DATASETS)}  # smallest first
    summary["_d"] = [first.get(d, len(first)) for d in summary["dataset"]]
    return (summary.sort_values(["_d"] + _PROBLEM + ["_rank", "curve", "noise"],
                                kind="stable")
            .drop(columns=["_rank", "_d"]).reset_index(drop=True))


def _cell(summary, problem, method, noise):
    s = summary[(summary["dataset"] == problem[0])
                & (summary["preprocessing"] == problem[1])
                & (summary["link_fraction"] == problem[2])
                & (summary["method"] == method) & (summary["noise"] == noise)]
    return s.iloc[0] if len(s) else None


def noise_checks(summary):
    """The checks of issue 13 per data set and level (module docstring).

    Returns
    -------
    rows : list of dict
        ``check`` (``"no links"`` or ``"peers"``), ``dataset``,
        ``preprocessing``, ``link_fraction``, ``noise``, ``default`` (mean
        ARI), ``reference`` (label), ``reference_mean``, ``difference``,
        ``threshold``, ``passed`` (bool) and ``note`` (e.g. that every peer
        run failed). A check without both means is left out.
    """
    rows = []
    if not len(summary):
        return rows
    for problem, s in summary.groupby(_PROBLEM, sort=False):
        base = dict(zip(_PROBLEM, problem))
        noises = sorted(s.loc[s["method"] == DEFAULT_METHOD, "noise"])
        for noise in noises:
            me = _cell(summary, problem, DEFAULT_METHOD, noise)
            if me is None or math.isnan(me["mean"]):
                continue
            if math.isclose(noise, CHECK_NOLINKS_NOISE):
                ref = _cell(summary, problem, NOLINKS_METHOD, noise)
                if ref is not None and not math.isnan(ref["mean"]):
                    d = me["mean"] - ref["mean"]
                    rows.append({**base, "check": "no links", "noise": noise,
                                 "default": me["mean"],
                                 "reference": METHOD_LABELS[NOLINKS_METHOD],
                                 "reference_mean": ref["mean"], "difference": d,
                                 "threshold": -CHECK_NOLINKS_MARGIN,
                                 "passed": bool(d >= -CHECK_NOLINKS_MARGIN - 1e-12),
                                 "note": ""})
            if noise >= CHECK_PEERS_FROM - 1e-12:
                peers = [c for c in (_cell(summary, problem, m, noise)
                                     for m in PEERS)
                         if c is not None and not math.isnan(c["mean"])]
                if not peers:
                    continue
                best = max(peers, key=lambda c: c["mean"])
                d = me["mean"] - best["mean"]
                n_ok = sum(int(c["n_ok"]) for c in peers)
                n_failed = sum(int(c["n_failed"]) for c in peers)
                note = ("every peer run failed (ARI 0)" if n_ok == 0 else
                        f"{n_failed} of {n_ok + n_failed} peer runs failed"
                        if n_failed else "")
                rows.append({**base, "check": "peers", "noise": noise,
                             "default": me["mean"], "reference": best["curve"],
                             "reference_mean": best["mean"], "difference": d,
                             "threshold": CHECK_PEERS_MARGIN,
                             "passed": bool(d >= CHECK_PEERS_MARGIN - 1e-12),
                             "note": note})
    return rows


def _problem_label(dataset, preprocessing, fraction, links):
    return (f"{dataset} ({preprocessing}), {percent(fraction)} of pairs "
            f"({int(links):,} links)" if not math.isnan(links) else
            f"{dataset} ({preprocessing}), {percent(fraction)} of pairs")


def _mean_std(mean, std):
    return "–" if math.isnan(mean) else f"{mean:.2f} ± {std:.2f}"


def _value_cell(r, unlinked=False):
    if r is None:
        return ""
    mean, std = ((r["mean_unlinked"], r["std_unlinked"]) if unlinked
                 else (r["mean"], r["std"]))
    if r["n_ok"] + r["n_failed"] == 0:
        return "skipped"
    text = _mean_std(mean, std)
    if r["n_failed"]:
        text += f" ({r['n_failed']}/{r['n_ok'] + r['n_failed']} failed)"
    if r["n_skipped"]:
        text += f" ({r['n_skipped']} skipped)"
    return text


def _curves(summary):
    """The curves of ``summary`` in table order, as (method, curve)."""
    return list(dict.fromkeys(zip(summary["method"], summary["curve"])))


def _noise_table(summary, unlinked=False):
    curves = _curves(summary)
    head = ["data set", "level", "links", "unlinked", "flipped", "seeds"] + [
        c for _, c in curves]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for problem, s in summary.groupby(_PROBLEM, sort=False):
        for noise in sorted(s["noise"].unique()):
            at = s[s["noise"] == noise]
            first = at.iloc[0]
            mine = at[at["method"] == DEFAULT_METHOD]
            seeds = (f"{int(mine.iloc[0]['n_ok'] + mine.iloc[0]['n_failed'])}"
                     if len(mine) else "")
            cells = []
            for method, curve in curves:
                g = at[(at["method"] == method) & (at["curve"] == curve)]
                cells.append(_value_cell(g.iloc[0] if len(g) else None, unlinked))
            lines.append(
                f"| {problem[0]} ({problem[1]}) | {percent(problem[2])} | "
                f"{first['links']:.0f} | {first['unlinked']:.0f} | "
                f"{percent(noise)} | {seeds} | " + " | ".join(cells) + " |")
    return lines + [""]


def _checks_section(rows):
    lines = []
    for check, what in (("no links", "default vs the default without links at "
                         f"{percent(CHECK_NOLINKS_NOISE)} flipped"),
                        ("peers", "default vs the better of COPKMeans and "
                         f"PCKMeans, from {percent(CHECK_PEERS_FROM)} flipped")):
        sub = [r for r in rows if r["check"] == check]
        if not sub:  # e.g. the peers skipped (not installed)
            lines += [f"**{what}: not evaluated** (no cell has the runs it "
                      "compares: see \"Runs that did not finish\").", ""]
            continue
        n_pass = sum(r["passed"] for r in sub)
        lines += [f"**{what}: {n_pass} of {len(sub)} pass.**", "",
                  "| data set | level | flipped | default | reference | "
                  "difference | needed | result | note |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in sub:
            lines.append(
                f"| {r['dataset']} ({r['preprocessing']}) | "
                f"{percent(r['link_fraction'])} | {percent(r['noise'])} | "
                f"{r['default']:.2f} | {r['reference']}: "
                f"{r['reference_mean']:.2f} | {r['difference']:+.2f} | "
                f"{r['threshold']:+.2f} | "
                f"{'pass' if r['passed'] else '**FAIL**'} | {r['note']} |")
        lines.append("")
    return lines


def _suspect_section(summary):
    s = summary[(summary["method"] == DEFAULT_METHOD) & (summary["noise"] > 0)]
    paper = summary[(summary["method"] == "3smic") & (summary["noise"] > 0)]
    lines = ["| data set | level | flipped | k (links flipped) | "
             "precision at k = recall at k | recall at 2k | average precision "
             "| chance | 3SMIC: precision at k |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in s.itertuples(index=False):
        p = paper[(paper["dataset"] == r.dataset)
                  & (paper["preprocessing"] == r.preprocessing)
                  & (paper["link_fraction"] == r.link_fraction)
                  & (paper["noise"] == r.noise)]
        p_text = (_mean_std(p.iloc[0]["suspect_precision"],
                            p.iloc[0]["suspect_precision_std"]) if len(p) else "")
        lines.append(
            f"| {r.dataset} ({r.preprocessing}) | {percent(r.link_fraction)} | "
            f"{percent(r.noise)} | {r.n_flipped:.0f} | "
            f"{_mean_std(r.suspect_precision, r.suspect_precision_std)} | "
            f"{_mean_std(r.suspect_recall_2k, r.suspect_recall_2k_std)} | "
            f"{_mean_std(r.suspect_ap, r.suspect_ap_std)} | {r.noise:.2f} | "
            f"{p_text} |")
    means = []
    for noise, g in s.groupby("noise"):
        means.append(f"{percent(noise)} flipped: precision at k "
                     f"{g['suspect_precision'].mean():.2f}, average precision "
                     f"{g['suspect_ap'].mean():.2f}")
    if means:
        lines += ["", "Means over the data sets and levels: " + "; ".join(means)
                  + "."]
    return lines + [""]


def plot_noise(summary, unlinked=False):
    """ARI against the fraction of links flipped: one panel per data set
    (row) and link level (column), one line per curve (mean ± std band); the
    default without links dashed.

    Returns
    -------
    fig : matplotlib Figure
    """
    import matplotlib.pyplot as plt

    mcol, scol = (("mean_unlinked", "std_unlinked") if unlinked
                  else ("mean", "std"))
    datasets = list(dict.fromkeys(zip(summary["dataset"],
                                      summary["preprocessing"])))
    levels = {d: sorted(summary[(summary["dataset"] == d[0])
                                & (summary["preprocessing"] == d[1])]
                        ["link_fraction"].unique()) for d in datasets}
    ncols = max(len(v) for v in levels.values())
    fig, axes = plt.subplots(len(datasets), ncols, squeeze=False, sharey=True,
                             figsize=(5.2 * ncols, 3.4 * len(datasets)))
    for row, d in enumerate(datasets):
        for col in range(ncols):
            ax = axes[row, col]
            if col >= len(levels[d]):
                ax.set_visible(False)
                continue
            fraction = levels[d][col]
            s = summary[(summary["dataset"] == d[0])
                        & (summary["preprocessing"] == d[1])
                        & (summary["link_fraction"] == fraction)]
            for method, curve in _curves(s):
                g = s[(s["method"] == method) & (s["curve"] == curve)
                      & s[mcol].notna()].sort_values("noise")
                if not len(g):
                    continue
                color, marker, ls, lw = _STYLE.get(method, ("0.5", "d", ":", 1.2))
                x = 100 * g["noise"].to_numpy()
                m, sd = g[mcol].to_numpy(), g[scol].to_numpy()
                ax.plot(x, m, color=color, marker=marker, linestyle=ls,
                        linewidth=lw, markersize=5, label=curve,
                        zorder=5 if method == DEFAULT_METHOD else 3)
                ax.fill_between(x, m - sd, m + sd, color=color, alpha=0.08,
                                linewidth=0)
            ax.set_title(_problem_label(*d, fraction, s["links"].median()),
                         fontsize=9)
            ax.set_ylim(-0.1, 1.05)
            ax.axhline(0, color="0.7", linewidth=0.6)
            ax.grid(alpha=0.3)
            ax.set_xlabel("links flipped (%)", fontsize=8)
            if col == 0:
                ax.set_ylabel("ARI, " + ("samples in no link" if unlinked
                                         else "all samples"), fontsize=8)
    legend = {}
    for ax in axes.ravel():
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    if not legend:  # e.g. no samples in no link at any level
        legend[" no data"] = axes[0, 0].plot([], [], " ")[0]
    n_cols = min(len(legend), 3 * ncols)
    fig.legend(list(legend.values()), list(legend), loc="upper center",
               ncol=n_cols, fontsize=9, frameon=False)
    legend_inches = 0.25 * math.ceil(len(legend) / n_cols) + 0.1
    fig.tight_layout(rect=(0, 0, 1, 1 - legend_inches / fig.get_figheight()))
    return fig


def write_noise_figures(summary, out_dir):
    """``noise.png`` (all samples) and ``noise-unlinked.png``; the paths."""
    import matplotlib

    matplotlib.use("Agg", force=False)

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return [save_figure(plot_noise(summary, unlinked), out_dir / name, dpi=80)
            for unlinked, name in ((False, "noise.png"),
                                   (True, "noise-unlinked.png"))]


def write_noise_report(records_path, out_dir, *, config=None, figures=True):
    """Write ``report.md`` and ``figures/noise*.png`` of a ``noise`` config
    from the records at ``records_path`` (runs of the noise protocol);
    ``config`` (the run's) names the seeds and methods, ``figures=False``
    draws none. Returns the path of the report.
    """
    out_dir = Path(out_dir)
    check_out_dir(out_dir)
    require_pandas()  # before the folder and its lock are made
    with lock_out_dir(out_dir):
        df = load_records(records_path)
        df = df[df["protocol"] == "noise"]
        summary = summarize_noise(df)
        lines = _report_lines(df, summary, config)
        draw = ((lambda: write_noise_figures(summary, out_dir / FIGURES_DIR))
                if figures and len(summary) else None)
        return write_report_file(out_dir, lines, draw)


def _not_ok_lines(df):
    """The runs that did not finish, by method, status and reason (numbers in
    the reason, e.g. the samples of an inconsistent pair, read as N)."""
    bad = df[df["status"] != "ok"]
    if not len(bad):
        return ["Every run finished.", ""]
    bad = bad.assign(reason=[re.sub(r"\d+", "N", str(e))[:140].replace("|", "/")
                             for e in bad["error"].fillna("")])
    lines = ["| method | status | runs | flipped | data sets | reason |",
             "|---|---|---|---|---|---|"]
    for (method, status, reason), g in bad.groupby(["method", "status", "reason"],
                                                   sort=False):
        noises = ", ".join(percent(f) for f in sorted(g["noise"].unique()))
        lines.append(f"| {method} | {status} | {len(g)} | {noises} | "
                     f"{', '.join(sorted(set(g['dataset'])))} | {reason} |")
    return lines + [""]


def _report_lines(df, summary, config):
    lines = [NOISE_REPORT_TITLE, ""]
    lines += _coverage_lines(df, config, paper_note="")
    lines += [
        "## What is measured", "",
        "- **Noise protocol.** The pairs protocol's links (round(fraction x "
        "n (n - 1) / 2) random pairs, typed by the true labels, drawn by the "
        "seed), then the fraction *f* of them flipped, must <-> cannot: the "
        "first round-half-up(f x links) of one permutation of the links drawn "
        "from the seed (`numpy.random.default_rng((seed, 13))`), so the links "
        "flipped at 5 % are among those flipped at 10 %. Every method of a "
        "seed sees the same links; each record names the flipped pairs "
        "(`flipped_links`).",
        "- **ARI (all)** against the true labels on every sample; **ARI "
        "(unlinked)** on the samples in no link (n/a when fewer than 2).",
        "- **A failed run counts as ARI 0** (COPKMeans and PCKMeans raise when "
        "the links are inconsistent, which flipped links soon make them); "
        "cells say how many failed. Skipped runs (not installed, over the time "
        "budget) are left out and counted.",
        "- **smiclust (no links)** is the default fitted without links, run "
        "once per level and seed (noise 0) and repeated across the noise "
        "fractions.",
        "- **Suspect links**: for every ok fit of the default with flipped "
        "links, its `suspect_links_` (the given links, most contradicted "
        "first) against the flipped ones: with k the number flipped, the "
        "fraction of the top k that were flipped (precision at k, equal to "
        "recall at k), recall among the top 2k, and average precision of the "
        "suspect score; a ranking by chance has precision about f.",
        "",
        "## Checks of issue 13", "",
        "Fixed before the numbers, per data set and link level, on the means "
        "over seeds (a failed run as ARI 0):", "",
        f"1. **No links**: at {percent(CHECK_NOLINKS_NOISE)} of the links "
        "flipped, the default's ARI is at least the default-without-links' "
        f"ARI minus {CHECK_NOLINKS_MARGIN}.",
        f"2. **Peers**: at every noise fraction of {percent(CHECK_PEERS_FROM)} "
        "or more, the default's ARI is ahead of the better of COPKMeans and "
        f"PCKMeans by at least {CHECK_PEERS_MARGIN} (what two decimals show; "
        "0.00 against a peer's 0.00 is not ahead).", "",
    ]
    lines += _checks_section(noise_checks(summary))
    lines += ["## ARI on all samples", "",
              "Mean ± std over seeds; rows are data set, link level and the "
              "fraction of the links flipped; *seeds*: runs of the default "
              "counted in the row.", ""]
    lines += _noise_table(summary)
    lines += ["## ARI on the samples in no link", ""]
    lines += _noise_table(summary, unlinked=True)
    lines += ["## Suspect links of the default", ""]
    lines += _suspect_section(summary)
    lines += ["## Methods", ""] + _methods_lines(config)
    lines += ["## Runs that did not finish", ""] + _not_ok_lines(df)
    return lines
