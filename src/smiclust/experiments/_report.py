"""The Markdown report of the reproduction, computed from the records alone.

Needs pandas (extra ``io``) and, for the figures, matplotlib (extra ``plot``);
both are imported inside the functions. The tables come from
:mod:`~smiclust.experiments._summary`, the verdicts from
:mod:`~smiclust.experiments._claims`, the figures from
:mod:`~smiclust.experiments._figures`.
"""

import math
from pathlib import Path

from ..io import atomic_write
from ._claims import THRESHOLDS, evaluate_claims
from ._figures import write_figures
from ._format import percent
from ._output import (
    FIGURES_DIR,
    REPORT_FILE,
    REPORT_TITLE,
    check_out_dir,
    lock_out_dir,
)
from ._summary import (
    METHOD_LABELS,
    comparison_table,
    load_records,
    require_pandas,
    summarize,
)

__all__ = ["write_report"]

def _cell(row):
    if row.n_ok == 0:
        if row.n_failed and row.n_skipped:
            return f"{row.n_failed} failed, {row.n_skipped} skipped"
        return "skipped" if row.n_skipped else "failed"
    text = f"{row.mean:.2f} ± {row.std:.2f}"
    bad = row.n_failed + row.n_skipped
    if bad:
        text += f" ({bad}/{row.n_ok + bad} not ok)"
    return text


def _tables(summary):
    lines = []
    for (d, p), s in summary.groupby(["dataset", "preprocessing"], sort=False):
        levels = sorted(set(s["link_fraction"]))
        links = {f: s[s["link_fraction"] == f]["links"].median() for f in levels}
        lines.append(f"### {d} ({p})\n")
        head = ["curve"] + [
            f"{int(links[f]) if not math.isnan(links[f]) else '?'} ({percent(f)})"
            for f in levels]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        for curve, g in s.groupby("curve", sort=False):
            cells = {r.link_fraction: _cell(r) for r in g.itertuples(index=False)}
            lines.append("| " + " | ".join([curve] + [cells.get(f, "") for f in levels])
                         + " |")
        lines.append("")
    return lines

def _comparison_section(summary):
    lines = [
        "Mean ARI over the link levels with links (each level averaged over its "
        "seeds first), and mean seconds per fit. *Best t* and *worst t* are "
        "chosen with hindsight (a run that did not finish counts as ARI 0 in "
        "that choice, or as the level's mean where that is negative); 3SMIC "
        "chooses its own. A count in brackets is "
        "the number of levels a curve has, where it lacks some. Each level's "
        "mean is over the runs that finished: where some did not (failed or "
        "skipped), their count follows (*k of n runs not ok*), and the mean "
        "may flatter the method.",
        "",
        "| data set | 3SMIC (auto) | SL, best t | SL, worst t | CSC, best t "
        "| best peer |",
        "|---|---|---|---|---|---|",
    ]

    def cell(entry, n_levels, with_label):
        if entry is None:
            return "not run"
        label, ari, n, seconds, not_ok, runs = entry
        text = f"{ari:.2f}" + (f" [{n}]" if n < n_levels else "")
        text += f", {seconds:.2g} s"
        if not_ok:
            text += f", {not_ok} of {runs} runs not ok"
        return f"{label}: {text}" if with_label else text

    for r in comparison_table(summary):
        n = r["n_levels"]
        lines.append(
            f"| {r['dataset']} ({r['preprocessing']}) | {cell(r['3smic'], n, False)}"
            f" | {cell(r['sl_best'], n, True)} | {cell(r['sl_worst'], n, True)}"
            f" | {cell(r['csc_best'], n, True)} | {cell(r['peer_best'], n, True)} |"
        )
    lines.append("")
    return lines


def _coverage_cell(sub):
    """"20 seeds, 280 runs", with the runs that did not finish, or "not run"."""
    if not len(sub):
        return "not run"
    counts = sub["status"].value_counts()
    if counts.get("ok", 0) == 0 and counts.get("skipped", 0) == len(sub):
        return f"skipped ({sub['seed'].nunique()} seeds, {len(sub)} runs)"
    text = f"{sub['seed'].nunique()} seeds, {len(sub)} runs"
    others = [f"{counts[s]} {s}" for s in ("failed", "skipped") if counts.get(s, 0)]
    return text + (f" ({', '.join(others)})" if others else "")


def _coverage_section(df):
    """Table data set x method: seeds and runs recorded, and how many did not
    finish."""
    if not len(df):
        return ["No records.", ""]
    methods = list(dict.fromkeys(df.sort_values("method_order")["method"]))
    labels = [METHOD_LABELS.get(m, m) for m in methods]
    lines = ["| data set | " + " | ".join(labels) + " |",
             "|---|" + "---|" * len(methods)]
    for d, g in df.groupby("dataset", sort=False):
        cells = [_coverage_cell(g[g["method"] == m]) for m in methods]
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def _status_section(df):
    """Table of the runs that did not finish, grouped by method, status and
    reason (cut at 160 characters)."""
    lines = []
    bad = df[df["status"] != "ok"]
    if not len(bad):
        return ["Every run finished (status ok).", ""]
    reasons = (bad.assign(reason=bad["error"].str.slice(0, 160))
               .groupby(["method", "status", "reason"], sort=False)
               .agg(runs=("run_id", "size"),
                    datasets=("dataset", lambda x: ", ".join(sorted(set(x)))))
               .reset_index())
    lines.append("| method | status | runs | data sets | reason |")
    lines.append("|---|---|---|---|---|")
    for r in reasons.itertuples(index=False):
        reason = str(r.reason).replace("|", "/")
        lines.append(f"| {r.method} | {r.status} | {r.runs} | {r.datasets} | "
                     f"{reason} |")
    lines.append("")
    return lines


def _peers_section(df, config):
    from ._config import METHODS, PEER_METHODS
    from ._peers import peer_unavailable_reason

    wanted = [m for m in PEER_METHODS
              if config is None or m in config.get("methods", {})]
    lines = []
    if not wanted:
        return ["No peer methods were part of this run.", ""]
    for m in wanted:
        sub = df[df["method"] == m]
        reason = peer_unavailable_reason(m)
        n_ok = int((sub["status"] == "ok").sum())
        n_skip = int((sub["status"] == "skipped").sum())
        n_fail = int((sub["status"] == "failed").sum())
        where = ", ".join(sorted(set(sub[sub["status"] == "ok"]["dataset"])))
        text = (f"- **{METHOD_LABELS[m]}** ({METHODS[m]['description']}): "
                f"{n_ok} runs ok"
                + (f" on {where}" if where else "")
                + f", {n_fail} failed, {n_skip} skipped.")
        if reason:
            text += f" Not installed here: {reason}."
        skipped_sets = sorted(set(sub[sub["status"] == "skipped"]["dataset"]))
        if skipped_sets:
            text += f" Skipped on: {', '.join(skipped_sets)} (reasons below)."
        settings = (config or {}).get("methods", {}).get(m, METHODS[m])
        limits = [f"{name} > {settings[key]}"
                  for name, key in (("n", "max_samples"), ("d", "max_features"))
                  if settings.get(key) is not None]
        if limits and settings.get("skip_reason"):
            text += (f" Not run where {' or '.join(limits)}: "
                     f"{settings['skip_reason']}.")
        lines.append(text)
    lines.append("")
    return lines


def _header_section(df, records_path, config):
    """Title, config, counts of the records, run time and protocol."""
    total = float(df["seconds"].sum()) if len(df) else 0.0
    lines = [REPORT_TITLE, ""]
    if config is not None:
        lines.append(f"Config: **{config.get('name', '?')}**; the seeds and runs "
                     "actually recorded per data set and method are in *Coverage*.")
    return lines + [
        f"Records: `{Path(records_path).name}`, {len(df)} runs "
        f"({int((df['status'] == 'ok').sum())} ok, "
        f"{int((df['status'] == 'failed').sum())} failed, "
        f"{int((df['status'] == 'skipped').sum())} skipped).",
        "",
        f"Total run time (sum of the fit times of all runs): {total:,.0f} s "
        f"({total / 3600:.2f} h); by method: "
        + ", ".join(f"{m} {s:,.0f} s" for m, s in
                    df.groupby("method", sort=False)["seconds"].sum().items())
        + ".",
        "",
        "Protocol: links are random pairs typed by the true labels, "
        "round(fraction x n (n - 1) / 2) of them; ARI against the true labels; "
        "mean ± std over seeds. 3SMIC tunes t, gamma and eta by the paper's "
        "criterion; SL and CSC run at fixed t. Preprocessing: parkinson, spam and "
        "sonar raw and standardised (zero mean, unit variance per feature; the "
        "paper does not say), the image sets as loaded (pixels already scaled).",
        "",
    ]


def _claims_section(claims, thresholds):
    """Verdict table, the evidence of every claim, and the thresholds used.

    ``claims`` is the output of :func:`evaluate_claims`, ``thresholds`` the
    complete dict of thresholds it used.
    """
    variants = [p for p in ("raw", "standardized")
                if claims and f"verdict_{p}" in claims[0]]
    head = ["claim", "statement"] + [f"verdict (UCI {p})" for p in variants]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in claims:
        lines.append("| " + " | ".join(
            [c["claim"], c["text"]] + [f"**{c[f'verdict_{p}']}**" for p in variants])
            + " |")
    lines += ["", "Evidence (mean ARI over seeds; *paper curve* = 3SMIC, SL or CSC "
              "at one t; *hindsight* = the t with the best average over the "
              "link levels, a run that gave no clustering counted as ARI 0, "
              "or as the level's mean where that is negative):",
              ""]
    for c in claims:
        lines += [f"**Claim {c['claim']}.** {c['text']}", ""]
        for p in variants:
            lines.append(f"- UCI {p}: {c[f'verdict_{p}']}")
            lines += [f"  - {e}" for e in c[f"evidence_{p}"]]
        lines.append("")
    lines += ["Thresholds (ARI, or differences of mean ARI):", ""]
    lines += [f"- `{k}` = {val}" for k, val in thresholds.items()]
    return lines + [
        "", "A claim is *reproduced* when all its checks pass, *not reproduced* "
        "when none does, *partially* otherwise, *not tested* when the records "
        "lack the data sets or methods it needs.", ""]


def _figures_section(summary, out_dir, draw):
    """Draw the figures into ``out_dir/figures`` (when ``draw``) and return the
    lines that show them, or say why there are none."""
    if not (draw and len(summary)):
        return []
    try:
        paths = write_figures(summary, out_dir / FIGURES_DIR)
    except ImportError:
        return ["## Figures", "", "No figures: matplotlib is not installed "
                "(pip install 'smiclust[plot]').", ""]
    if not paths:
        return []
    lines = ["## Figures", ""]
    for path in paths:
        lines += [f"![{path.stem}]({path.relative_to(out_dir).as_posix()})", ""]
    return lines


def write_report(records_path, out_dir, *, config=None, figures=True,
                 thresholds=None):
    """Write ``report.md`` (and the figures) from the records; return its path.

    Parameters
    ----------
    records_path : str or path
    out_dir : str or path
        Receives ``report.md`` and ``figures/<dataset>-<preprocessing>.png``.
    config : dict, default=None
        The config of the run, for the report's header.
    figures : bool, default=True
        Draw the figures (needs matplotlib).
    thresholds : dict, default=None
        Overrides of :data:`THRESHOLDS`.

    Returns
    -------
    path : pathlib.Path

    Raises
    ------
    OutputDirError
        If ``out_dir`` holds files the reproduction did not write, or another
        process is writing to it; nothing is written then.
    """
    out_dir = Path(out_dir)
    check_out_dir(out_dir)
    require_pandas()  # before the folder and its lock are made
    with lock_out_dir(out_dir):
        df = load_records(records_path)
        summary = summarize(df)
        lines = _report_lines(df, summary, records_path, out_dir, config=config,
                              figures=figures, thresholds=thresholds)
        path = out_dir / REPORT_FILE
        with atomic_write(path, encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    return path


def _report_lines(df, summary, records_path, out_dir, *, config, figures,
                  thresholds):
    """The lines of the report (see :func:`write_report`); draws the figures."""
    figure_lines = _figures_section(summary, out_dir, figures)
    claims = evaluate_claims(summary, thresholds) if len(summary) else []
    lines = _header_section(df, records_path, config)
    lines += ["## Claims of the paper", ""]
    lines += _claims_section(claims, dict(THRESHOLDS, **(thresholds or {})))
    lines += ["## Methods at a glance", ""]
    lines += _comparison_section(summary)
    lines += ["## Coverage", "",
              "Seeds recorded per data set (all preprocessing variants) and "
              "method; each seed runs every link level and, for SL and CSC, "
              "every t; runs that failed or were skipped are counted in "
              "brackets, and *skipped* means none ran (reasons under *Peers*). "
              "A resumed run with more seeds fills the gaps.", ""]
    lines += _coverage_section(df)
    lines += ["## Peers (what users would otherwise pick)", ""]
    lines += _peers_section(df, config)
    lines += ["## Runs that did not finish", ""]
    lines += _status_section(df)
    lines += ["## Summary table (ARI mean ± std over seeds)", "",
              "Columns: number of links (fraction of all pairs).", ""]
    lines += _tables(summary)
    return lines + figure_lines
