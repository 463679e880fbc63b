"""Figures of the reproduction: mean ARI against the number of links.

Drawn from the output of :func:`~smiclust.experiments.summarize`; matplotlib
(extra ``plot``) is imported inside the functions.
"""

import math
from pathlib import Path

from ..io import atomic_write
from ..utils import import_optional
from ._format import percent

__all__ = ["plot_dataset", "write_figures", "save_figure"]

_SL_COLORS = ("#9ecae1", "#4292c6", "#08519c", "#08306b")
_CSC_COLORS = ("#fdae6b", "#f16913", "#d94801", "#7f2704")
_PEER_STYLE = {
    "e2cp": ("#238b45", "--"),
    "pckmeans": ("#6a51a3", ":"),
    "mpckmeans": ("#ae017e", ":"),
    "copkmeans": ("#737373", ":"),
}


def _style(method, rank):
    if method == "3smic":
        return {"color": "black", "linestyle": "-", "linewidth": 2.6, "marker": "o",
                "zorder": 5}
    if method == "sl":
        return {"color": _SL_COLORS[rank % 4], "linestyle": "-", "linewidth": 1.4,
                "marker": "s", "markersize": 4}
    if method == "csc":
        return {"color": _CSC_COLORS[rank % 4], "linestyle": "-.", "linewidth": 1.4,
                "marker": "^", "markersize": 4}
    color, ls = _PEER_STYLE.get(method, ("#525252", ":"))
    return {"color": color, "linestyle": ls, "linewidth": 1.6, "marker": "d",
            "markersize": 4}


def plot_dataset(summary, dataset, preprocessing, ax=None):
    """Mean ARI ± std against the number of links, one line per curve.

    A level where some runs of a curve failed or were skipped (its mean is
    over the runs that finished) is circled.

    Parameters
    ----------
    summary : DataFrame
        Output of :func:`summarize`.
    dataset, preprocessing : str
    ax : matplotlib Axes, default=None
        Drawn into; a new figure when None.

    Returns
    -------
    ax : matplotlib Axes
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8.5, 5))
    s = summary[(summary["dataset"] == dataset)
                & (summary["preprocessing"] == preprocessing)]
    ranks, not_run, marked = {}, [], False
    for (method, t), g in s.groupby(["method", "t"], dropna=False, sort=False):
        label = g["curve"].iloc[0]
        g = g[g["n_ok"] > 0].sort_values("link_fraction")
        if not len(g):
            not_run.append(label)
            continue
        rank = ranks.setdefault(method, 0)
        ranks[method] += 1
        if method in ("sl", "csc") and not math.isnan(t):
            rank = (1, 4, 7, 10).index(int(t)) if int(t) in (1, 4, 7, 10) else rank
        style = _style(method, rank)
        x, m, sd = g["links"].to_numpy(), g["mean"].to_numpy(), g["std"].to_numpy()
        ax.plot(x, m, label=label, **style)
        ax.fill_between(x, m - sd, m + sd, color=style["color"], alpha=0.10,
                        linewidth=0)
        bad = (g["n_failed"] + g["n_skipped"]).to_numpy() > 0
        if bad.any():  # a mean over the runs that finished only
            marked = True
            ax.plot(x[bad], m[bad], "o", markersize=11, markerfacecolor="none",
                    markeredgecolor=style["color"], zorder=6)
    for label in not_run:  # listed, so that a missing line is explained
        ax.plot([], [], " ", label=f"{label}: not run")
    if marked:
        ax.plot([], [], "o", markersize=11, markerfacecolor="none",
                markeredgecolor="0.3", label="some runs failed or skipped")
    levels = s.groupby("link_fraction")["links"].median().dropna()
    positive = [v for v in levels if v > 0]
    if positive:
        ax.set_xscale("symlog", linthresh=min(positive), linscale=0.5)
        ax.set_xticks(list(levels))
        ax.set_xticklabels([f"{int(v):,}\n{percent(f)}" for f, v in levels.items()],
                           fontsize=8)
        ax.minorticks_off()
    xlabel = "number of links (fraction of all pairs)"
    n = s["n_samples"].dropna()
    if len(n):
        n = int(n.median())
        xlabel = (f"number of links (fraction of all {n * (n - 1) // 2:,} pairs, "
                  f"n={n}; symlog scale)")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("ARI (mean ± std over seeds)")
    ax.set_ylim(-0.1, 1.05)
    ax.axhline(0, color="0.6", linewidth=0.6)
    ax.grid(alpha=0.3)
    ax.set_title(f"{dataset} ({preprocessing} features)")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8,
              frameon=False)
    return ax


def write_figures(summary, out_dir):
    """One PNG per data set and preprocessing in ``out_dir``; return the paths.

    Each file is written whole or not at all (a failed write leaves the
    previous figure).
    """
    matplotlib = import_optional("matplotlib", "plot", "write_figures")
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    pairs = summary[["dataset", "preprocessing"]].drop_duplicates()
    for dataset, preprocessing in pairs.itertuples(index=False):
        fig, ax = plt.subplots(figsize=(8.5, 5))
        plot_dataset(summary, dataset, preprocessing, ax=ax)
        fig.tight_layout()
        paths.append(save_figure(fig, out_dir / f"{dataset}-{preprocessing}.png",
                                 dpi=110))
    return paths


def save_figure(fig, path, *, dpi):
    """Write ``fig`` to ``path`` as PNG, whole or not at all, and close it;
    return ``path``."""
    import matplotlib.pyplot as plt

    try:
        with atomic_write(path, "wb") as f:
            fig.savefig(f, format="png", dpi=dpi)
    finally:
        plt.close(fig)
    return path
