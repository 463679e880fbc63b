"""Records as tables: one row per run, then one row per curve and link level.

Needs pandas (extra ``io``), imported inside the functions.

A *curve* is one line of a figure: a method at one configured ``t`` (3SMIC
tunes ``t`` itself and is one curve). Its value at a link level is the mean
ARI over the seeds whose run finished (``status == "ok"``).
"""

import math

from ..utils import import_optional
from ._records import RECORD_FIELDS, read_records

__all__ = [
    "METHOD_LABELS",
    "METHOD_ORDER",
    "load_records",
    "curve_label",
    "summarize",
    "comparison_table",
    "ranking_mean",
]

#: Method name -> its name in figures and tables.
METHOD_LABELS = {
    "3smic": "3SMIC (auto)",
    "sl": "SL",
    "csc": "CSC",
    "pckmeans": "PCKMeans",
    "mpckmeans": "MPCKMeans",
    "copkmeans": "COPKMeans",
    "e2cp": "E2CP",
    "smiclust": "smiclust (default)",
    "cobs": "COBS",
    "labelspreading": "LabelSpreading",
    "smiclust-nolinks": "smiclust (no links)",
}
#: Order of the methods in figures and tables.
METHOD_ORDER = ("3smic", "sl", "csc", "e2cp", "pckmeans", "mpckmeans", "copkmeans",
                "smiclust", "cobs", "labelspreading", "smiclust-nolinks")
_DATASET_ORDER = ("parkinson", "spam", "sonar", "digits500", "digits5k", "faces100")


def require_pandas():
    """pandas, or an ImportError that says how to install it (the reports
    need it)."""
    return import_optional("pandas", "io", "The reproduction report")


def load_records(path):
    """The records file as a DataFrame, one row per run (last record wins).

    The columns of :data:`~smiclust.experiments.RECORD_FIELDS`, numbers
    parsed (empty fields are NaN; records written before the fields beyond
    the paper have them empty, ``protocol`` then read as ``"pairs"``; outside
    the noise protocol ``noise`` and ``n_flipped`` are read as 0), plus
    ``curve`` (e.g. ``"SL t=4"``) and ``method_order`` (rank in :data:`METHOD_ORDER`).
    """
    pd = require_pandas()
    rows = read_records(path)
    df = pd.DataFrame(rows, columns=list(RECORD_FIELDS))
    df = df.drop_duplicates("run_id", keep="last").reset_index(drop=True)
    numeric = ("t", "link_fraction", "links", "must", "cannot", "seed",
               "n_samples", "n_features", "n_clusters", "t_chosen", "gamma", "eta",
               "ari", "violations", "n_clusters_found", "seconds",
               "unlinked", "ari_unlinked", "ari_links_only", "noise",
               "n_flipped", "suspect_precision", "suspect_recall",
               "suspect_recall_2k", "suspect_ap")
    for col in numeric:
        df[col] = pd.to_numeric(df[col].replace("", None), errors="coerce")
    df["protocol"] = df["protocol"].replace("", "pairs").fillna("pairs")
    df["noise"] = df["noise"].fillna(0.0)
    df["n_flipped"] = df["n_flipped"].fillna(0).astype(int)
    df["curve"] = [curve_label(m, t) for m, t in zip(df["method"], df["t"])]
    df["method_order"] = [_rank(m, METHOD_ORDER) for m in df["method"]]
    return df


def _rank(name, order):
    """Position of ``name`` in ``order``; after all of them when absent."""
    return order.index(name) if name in order else len(order)


def curve_label(method, t):
    """Legend label of a curve: ``"3SMIC (auto)"``, ``"SL t=4"``, ``"PCKMeans"``."""
    label = METHOD_LABELS.get(method, method)
    if (method in ("3smic", "smiclust") or t is None
            or (isinstance(t, float) and math.isnan(t))):
        return label
    return f"{label} t={int(t)}"


def summarize(df):
    """Mean, std and counts of ARI per data set, preprocessing, curve and level.

    Returns
    -------
    summary : DataFrame
        Columns ``dataset, preprocessing, method, t, curve, link_fraction,
        links, mean, std, n_ok, n_failed, n_skipped, seconds`` (mean fit time).
    """
    pd = require_pandas()
    keys = ["dataset", "preprocessing", "method", "t", "curve", "link_fraction"]
    rows = []
    for key, g in df.groupby(keys, dropna=False, sort=False):
        ok = g[g["status"] == "ok"]
        rows.append({
            **dict(zip(keys, key)),
            "links": float(g["links"].median()) if g["links"].notna().any()
            else float("nan"),
            "n_samples": float(g["n_samples"].median())
            if g["n_samples"].notna().any() else float("nan"),
            "mean": float(ok["ari"].mean()) if len(ok) else float("nan"),
            "std": float(ok["ari"].std(ddof=0)) if len(ok) else float("nan"),
            "n_ok": int(len(ok)),
            "n_failed": int((g["status"] == "failed").sum()),
            "n_skipped": int((g["status"] == "skipped").sum()),
            "seconds": float(ok["seconds"].mean()) if len(ok) else float("nan"),
            "method_order": int(g["method_order"].iloc[0]),
        })
    out = pd.DataFrame(rows)
    if len(out):
        out["dataset_order"] = [_rank(d, _DATASET_ORDER) for d in out["dataset"]]
        out = out.sort_values(["dataset_order", "dataset", "preprocessing",
                               "method_order", "t", "link_fraction"],
                              na_position="first")
    return out.reset_index(drop=True)


def ranking_mean(mean, n_ok, n_runs):
    """A level's mean ARI for ranking curves, with the runs that gave no
    clustering counted: each as ARI 0, or as the finished runs' mean where
    that is below 0, so that a failed run never raises a level's value
    (0 when no run finished).

    Works on scalars and on pandas Series alike (NumPy operations).
    """
    import numpy as np

    finished = np.nan_to_num(mean, nan=0.0)
    failed_as = np.minimum(finished, 0.0)
    return (finished * n_ok + failed_as * (n_runs - n_ok)) / n_runs


def comparison_table(summary):
    """Per data set and method, mean ARI over the link levels with links.

    For SL and CSC the best and the worst ``t`` (with hindsight) are given,
    for the peers the best one; curves are ranked by their mean over the
    levels with links with the runs that did not finish counted as ARI 0
    (:func:`ranking_mean`; the ranking of the claims' hindsight ``t``). A
    curve lacking some of the levels (a peer skipped or failed there) is
    shown averaged over the levels it has, and the count is kept so that
    the reader can tell; so are the runs that did not finish (failed or
    skipped) at the levels with links, since each level's shown mean is
    over the runs that finished.

    Returns
    -------
    rows : list of dict
        ``dataset, preprocessing, n_levels`` and, per entry, ``(label,
        mean_ari, n_levels_of_curve, seconds_per_fit, n_runs_not_ok,
        n_runs)``: keys ``3smic``, ``sl_best``, ``sl_worst``, ``csc_best``,
        ``peer_best`` (``None`` when the method was not run).
    """
    rows = []
    with_links = summary[summary["link_fraction"] > 0]
    with_links = (with_links.assign(not_ok=with_links["n_failed"]
                                    + with_links["n_skipped"])
                  .assign(runs=lambda f: f["n_ok"] + f["not_ok"]))
    # the mean with the runs not ok counted (ranking_mean): what ranks the t
    with_links = with_links.assign(zeroed=ranking_mean(
        with_links["mean"], with_links["n_ok"], with_links["runs"]))
    by_curve = with_links.groupby(["dataset", "preprocessing", "method", "curve"],
                                  sort=False)
    runs = by_curve[["not_ok", "runs"]].sum()
    zeroed = by_curve["zeroed"].mean()
    linked = with_links[with_links["n_ok"] > 0]
    for (d, p), s in linked.groupby(["dataset", "preprocessing"], sort=False):
        curves = []
        for (m, curve), g in s.groupby(["method", "curve"], sort=False):
            n_not_ok, n_runs = runs.loc[(d, p, m, curve)]
            curves.append((m, curve, float(g["mean"].mean()), int(len(g)),
                           float(g["seconds"].mean()), int(n_not_ok), int(n_runs),
                           float(zeroed.loc[(d, p, m, curve)])))

        def pick(methods, best=True, curves=curves):
            found = [c for c in curves if c[0] in methods]
            if not found:
                return None
            chosen = (max if best else min)(found, key=lambda c: c[-1])
            return chosen[1:-1]

        rows.append({
            "dataset": d, "preprocessing": p,
            "n_levels": int(s["link_fraction"].nunique()),
            "3smic": pick(("3smic",)),
            "sl_best": pick(("sl",)), "sl_worst": pick(("sl",), best=False),
            "csc_best": pick(("csc",)),
            "peer_best": pick(tuple(m for m in METHOD_ORDER
                                    if m not in ("3smic", "sl", "csc"))),
        })
    return rows
