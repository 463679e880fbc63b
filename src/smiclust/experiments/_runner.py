"""Runner of the reproduction: config -> runs -> tidy records appended to a CSV.

One run is ``(dataset, preprocessing, method, t, link_fraction, seed)``. Its
seed draws the sub-sample (digits500, digits5k, faces100), the links
(:func:`smiclust.constraints.sample_links`, ``round(fraction x n (n - 1) / 2)``
random pairs typed by the true labels) and the method's randomness, so every
method and every ``t`` of a seed sees the same data and the same links.

In the *labels* protocol (``label_fractions`` of a data set's spec) the
seed draws ``round(fraction x n)`` samples instead, which keep their true
labels; every pair of them is linked (:func:`smiclust.constraints.
pairs_from_labels`), and the labels themselves go to the methods that take
labels (LabelSpreading; the library default through ``partial_labels``).

Besides the ARI on all samples every run records the ARI on the samples in
no link (``ari_unlinked``, NaN when fewer than 2) and the ARI of the
labelling the links alone give (``ari_links_only``): the groups of the
must-link closure (:func:`smiclust.link_groups.link_groups`) as clusters,
every sample in no must-link a cluster of its own. That labelling uses no
feature; it says how much of the answer the links already hold.

In the *noise* protocol (``noise_link_fractions`` and ``noise_fractions`` of
a spec) a run draws the links of the pairs protocol, then flips the fraction
``noise`` of them (:func:`~smiclust.experiments._noise.flip_links`, from the
seed); its record says how many and which links were flipped and, for the
fits of :class:`~smiclust.SMIClustering` (the default and 3SMIC), how well
their ``suspect_links_`` find them.

Records are appended to ``records.csv`` in the output directory as runs
finish, one whole line at a time; they are also the cache: a new invocation
skips every run whose ``run_id`` is already there (a partial last line left by
an interruption is ignored, and cut off before the next append). What may be
written where, the lock and the atomic writes are in
:mod:`~smiclust.experiments._output`. Runs go through joblib
(``return_as="generator_unordered"``), locally with ``n_jobs`` processes
or, given a scheduler address, on a Dask cluster through
``joblib.parallel_config(backend="dask")``. A progress line per finished run
goes to stderr.
"""

import functools
import hashlib
import io
import json
import math
import sys
import time
import warnings
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from joblib import parallel_config

from ..constraints import unlinked_mask
from ..io import atomic_write
from ._config import merge_configs
from ._format import percent
from ._output import CONFIG_FILE, check_out_dir, lock_out_dir
from ._records import RECORDS_FILE, RecordWriter, read_records

__all__ = [
    "AUTO_T_METHODS",
    "FITTERS",
    "ari_unlinked",
    "draw_partial_labels",
    "links_only_labels",
    "unlinked_mask",
    "plan_runs",
    "run_one",
    "load_problem",
    "read_config",
    "run_experiment",
    "utc_time",
    "SCHEDULER_TIMEOUT",
    "SchedulerError",
    "check_scheduler",
]


_MAX_TEXT = 500

#: Warnings not recorded: raised when a library is first imported or compiled
#: during a fit (so only by the first run of a process), not by the method.
_IMPORT_TIME_WARNINGS = (DeprecationWarning, PendingDeprecationWarning,
                         SyntaxWarning, ImportWarning, FutureWarning)


#: Methods that choose ``t`` themselves (``t=auto`` in run ids and progress).
AUTO_T_METHODS = ("3smic", "smiclust", "smiclust-nolinks")


def _run_id(dataset, preprocessing, method, t, fraction, seed, params=None,
            protocol="pairs", noise=None):
    """Cache key of a run; method parameters other than the registry's add a
    hash; the labels protocol says ``labelled=`` where the paper's says
    ``links=``; the noise protocol adds ``noise=`` after the links."""
    from ._config import METHODS

    t_text = ("auto" if method in AUTO_T_METHODS
              else ("-" if t is None else str(int(t))))
    level = "labelled" if protocol == "labels" else "links"
    key = (
        f"{dataset}/{preprocessing}/{method}/t={t_text}/"
        f"{level}={format(float(fraction), '.10g')}/"
        + (f"noise={format(float(noise), '.10g')}/" if protocol == "noise" else "")
        + f"seed={int(seed)}"
    )
    default = METHODS.get(method, {}).get("params", {})
    if params is not None and dict(params) != dict(default):
        text = json.dumps(params, sort_keys=True, default=str)
        key += "/params=" + hashlib.sha1(text.encode()).hexdigest()[:8]
    return key


def plan_runs(config):
    """Every run of ``config``, in a fixed order.

    The order is data set, preprocessing, seed, protocol (pairs, labels,
    then noise), level, noise, method, ``t``: an interrupted reproduction has
    whole seeds of the first data sets.

    Returns
    -------
    runs : list of dict
        Plain dicts with ``run_id``, ``dataset``, ``preprocessing``,
        ``method``, ``kind``, ``t``, ``protocol``, ``link_fraction`` (of the
        labels protocol: the fraction of the samples labelled), ``noise``
        (noise protocol only), ``seed``, ``params`` and, for peers,
        ``time_budget``, ``max_samples``, ``max_features`` and
        ``skip_reason``.
    """
    from ._config import PROTOCOLS

    runs = []
    for dataset, spec in config["datasets"].items():
        levels = [("pairs", f, None) for f in spec["link_fractions"]]
        levels += [("labels", f, None) for f in spec.get("label_fractions", ())]
        levels += [("noise", f, e) for f in spec.get("noise_link_fractions", ())
                   for e in spec.get("noise_fractions", ())]
        for preprocessing in spec["preprocessing"]:
            for seed in config["seeds"]:
                for protocol, fraction, noise in levels:
                    for method, settings in config["methods"].items():
                        if protocol not in settings.get("protocols", PROTOCOLS):
                            continue
                        if noise and settings.get("ignores_links"):
                            continue  # the flipped links do not change it
                        for t in settings["ts"]:
                            run = {
                                "run_id": _run_id(
                                    dataset, preprocessing, method, t, fraction,
                                    seed, settings.get("params"), protocol,
                                    noise),
                                "dataset": dataset,
                                "preprocessing": preprocessing,
                                "method": method,
                                "kind": settings["kind"],
                                "t": t,
                                "protocol": protocol,
                                "link_fraction": float(fraction),
                                "seed": int(seed),
                                "params": dict(settings.get("params", {})),
                                "time_budget": settings.get("time_budget"),
                                "max_samples": settings.get("max_samples"),
                                "max_features": settings.get("max_features"),
                                "skip_reason": settings.get("skip_reason"),
                            }
                            if protocol == "noise":
                                run["noise"] = float(noise)
                            runs.append(run)
    return runs


@functools.lru_cache(maxsize=4)
def _load_cached(dataset, preprocessing, seed):
    from ..datasets import dataset_info

    X, y = dataset_info(dataset).load(random_state=seed)
    X = np.asarray(X, dtype=np.float64)
    if preprocessing == "standardized":
        scale = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(scale > 0, scale, 1.0)
    elif preprocessing != "raw":
        raise ValueError(
            "The 'preprocessing' of a run must be one of ('raw', 'standardized'). "
            f"Got {preprocessing!r} instead."
        )
    X.setflags(write=False)
    y = np.asarray(y)
    y.setflags(write=False)
    return X, y


def load_problem(dataset, preprocessing, seed):
    """``(X, y)`` of a run: the seed's draw of ``dataset`` (a name of
    :data:`~smiclust.datasets.DATASETS` or
    :data:`~smiclust.datasets.SKLEARN_DATASETS`), preprocessed.

    Fixed data sets ignore the seed. The arrays are read-only and cached per
    process.
    """
    from ..datasets import dataset_info

    info = dataset_info(dataset)
    return _load_cached(dataset, preprocessing, int(seed) if info.random_subsample
                        else None)


def _links(y, fraction, seed):
    from ..constraints import sample_links

    n = y.shape[0]
    n_links = int(round(fraction * (n * (n - 1) // 2)))
    return sample_links(y, n_links, random_state=seed)


def _draw_links(y, protocol, fraction, seed, noise=None):
    """``(must, cannot, partial_labels, flipped)`` of a run:
    ``partial_labels`` (-1: unlabelled) only in the labels protocol,
    ``flipped`` (the flip mask over the given must-links then cannot-links)
    only in the noise protocol, else None."""
    from ..constraints import pairs_from_labels
    from ._config import PROTOCOLS
    from ._noise import flip_links

    if protocol == "pairs":
        return (*_links(y, fraction, seed), None, None)
    if protocol == "noise":
        if noise is None:
            raise ValueError("A run of the noise protocol needs its 'noise' (the "
                             "fraction of the links flipped). Got None instead.")
        must, cannot, flipped = flip_links(*_links(y, fraction, seed), noise, seed)
        return must, cannot, None, flipped
    if protocol != "labels":
        raise ValueError(f"The 'protocol' of a run must be one of {PROTOCOLS}. "
                         f"Got {protocol!r} instead.")
    partial = draw_partial_labels(y, fraction, seed)
    must, cannot = pairs_from_labels(partial)
    return must, cannot, partial, None


def draw_partial_labels(y, fraction, seed):
    """The partial labels of a run of the labels protocol: ``round(fraction
    n)`` samples drawn by ``RandomState(seed)`` keep their class code
    (``0 .. c - 1``), the others get -1."""
    n = y.shape[0]
    rng = np.random.RandomState(seed)
    chosen = rng.choice(n, size=int(round(fraction * n)), replace=False)
    codes = np.unique(y, return_inverse=True)[1].astype(np.intp)
    partial = np.full(n, -1, dtype=np.intp)
    partial[chosen] = codes[chosen]
    return partial


def ari_unlinked(y, labels, must, cannot):
    """ARI of ``labels`` against ``y`` on the samples in no link; NaN when
    fewer than 2 samples are in no link."""
    from sklearn.metrics import adjusted_rand_score

    free = unlinked_mask(len(y), must, cannot)
    if free.sum() < 2:
        return float("nan")
    return float(adjusted_rand_score(np.asarray(y)[free], np.asarray(labels)[free]))


def links_only_labels(n_samples, must, cannot):
    """The labelling the links alone give: one cluster per must-link closure
    group, every sample in no must-link a cluster of its own (the cannot-links
    do not change it)."""
    from ..link_groups import link_groups

    return link_groups(np.asarray(must, dtype=np.intp).reshape(-1, 2),
                       np.asarray(cannot, dtype=np.intp).reshape(-1, 2),
                       n_samples).group


def _fit_smiclust(run, X, n_clusters, must, cannot):
    """The library's default: ``SMIClustering(n_clusters, random_state=seed)``;
    in the labels protocol through ``partial_labels`` (what a user with labels
    would call)."""
    from .. import SMIClustering

    model = SMIClustering(n_clusters, random_state=run["seed"], **run["params"])
    partial = run.get("partial_labels")
    if partial is not None:
        model.fit(X, partial_labels=partial)
    else:
        model.fit(X, must_link=must, cannot_link=cannot)
    return model.labels_, _smic_used(model)


def _smic_params(model):
    """The parameters a fit of SMIClustering chose."""
    return {"t_chosen": model.n_neighbors_, "gamma": model.gamma_,
            "eta": model.eta_}


def _smic_used(model):
    """What a fit of SMIClustering used, with its ``suspect_links_`` (under
    ``"suspects"``: scored against the flipped links in the noise protocol,
    not recorded as such)."""
    return {**_smic_params(model),
            "suspects": getattr(model, "suspect_links_", None)}


def _fit_smiclust_nolinks(run, X, n_clusters, must, cannot):
    """The default given no link (the reference of the noise protocol)."""
    from .. import SMIClustering

    model = SMIClustering(n_clusters, random_state=run["seed"], **run["params"])
    model.fit(X)
    return model.labels_, _smic_params(model)


def _fit_cobs(run, X, n_clusters, must, cannot):
    from ._cobs import cobs_labels

    labels, _ = cobs_labels(X, n_clusters, must, cannot, random_state=run["seed"])
    return labels, {}


def _fit_labelspreading(run, X, n_clusters, must, cannot):
    """sklearn's LabelSpreading on the run's partial labels (labels protocol
    only)."""
    from sklearn.semi_supervised import LabelSpreading

    partial = run.get("partial_labels")
    if partial is None:
        raise ValueError("LabelSpreading needs labels: it runs only in the "
                         "labels protocol")
    model = LabelSpreading(**run["params"]).fit(X, partial)
    return model.transduction_, {}


def _fit_3smic(run, X, n_clusters, must, cannot):
    """The paper's 3SMIC: ``links="paper"`` unless the run's params say
    otherwise (the estimator's default closes the links, beyond the paper)."""
    from .. import SMIClustering

    params = {"links": "paper", **run["params"]}
    model = SMIClustering(n_clusters, random_state=run["seed"], **params)
    model.fit(X, must_link=must, cannot_link=cannot)
    return model.labels_, _smic_used(model)


def _fit_baseline(run, X, n_clusters, must, cannot):
    from .. import baselines

    cls = {"sl": baselines.SpectralLearning,
           "csc": baselines.ConstrainedSpectralClustering}[run["method"]]
    model = cls(n_clusters, n_neighbors=run["t"], random_state=run["seed"],
                **run["params"])
    model.fit(X, must_link=must, cannot_link=cannot)
    return model.labels_, {"t_chosen": run["t"]}


def _fit_peer(run, X, n_clusters, must, cannot):
    from ._peers import fit_peer

    labels, peer_warnings = fit_peer(
        run["method"], X, n_clusters, must, cannot, n_neighbors=run["t"],
        random_state=run["seed"], params=run["params"],
        time_budget=run.get("time_budget"),
    )
    for text in peer_warnings:
        warnings.warn(text, UserWarning, stacklevel=1)
    return labels, {"t_chosen": run["t"]}


#: Method name -> ``fit(run, X, n_clusters, must, cannot) -> (labels, used)``,
#: where ``used`` holds ``t_chosen``, ``gamma``, ``eta`` where they apply, and
#: ``suspects`` (the fit's ``suspect_links_``) where the method ranks links.
FITTERS = {
    "3smic": _fit_3smic,
    "sl": _fit_baseline,
    "csc": _fit_baseline,
    "pckmeans": _fit_peer,
    "mpckmeans": _fit_peer,
    "copkmeans": _fit_peer,
    "e2cp": _fit_peer,
    "smiclust": _fit_smiclust,
    "smiclust-nolinks": _fit_smiclust_nolinks,
    "cobs": _fit_cobs,
    "labelspreading": _fit_labelspreading,
}


def _fit(run, X, n_clusters, must, cannot):
    """Fit the run's method; return labels and the parameters used."""
    return FITTERS[run["method"]](run, X, n_clusters, must, cannot)


def _one_line(text):
    text = " ".join(str(text).split())
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 3] + "..."


def _base_record(run):
    return {
        "run_id": run["run_id"],
        "dataset": run["dataset"],
        "preprocessing": run["preprocessing"],
        "method": run["method"],
        "t": run["t"],
        "protocol": run.get("protocol", "pairs"),
        "link_fraction": run["link_fraction"],
        "noise": run.get("noise"),
        "seed": run["seed"],
    }


def skipped_record(run, reason):
    """Record of a run that is not run, with the reason."""
    record = _base_record(run)
    record.update(status="skipped", error=_one_line(reason), ari=float("nan"))
    record["finished_at"] = _now()
    return record


def _now():
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def utc_time(text):
    """The timezone-aware time of ISO 8601 ``text``, read as UTC when it has
    no zone; ValueError when it is not such a time."""
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _finished(record):
    """When a record's run finished (the epoch when the record has no time;
    UTC when its time has no zone), timezone-aware."""
    try:
        return utc_time(record.get("finished_at") or "")
    except ValueError:
        return datetime.fromtimestamp(0, timezone.utc)


def _drawn_problem(run):
    """``(record, run, (X, y, must, cannot, flipped_pairs))``: the run's data
    and links, drawn from its seed, and the fields of its record that do not
    depend on the method (``run`` with its ``partial_labels`` in the labels
    protocol)."""
    from sklearn.metrics import adjusted_rand_score

    from ._noise import format_pairs

    record = _base_record(run)
    X, y = load_problem(run["dataset"], run["preprocessing"], run["seed"])
    must, cannot, partial, flipped = _draw_links(
        y, run.get("protocol", "pairs"), run["link_fraction"], run["seed"],
        run.get("noise"))
    if partial is not None:
        run = {**run, "partial_labels": partial}
    flipped_pairs = None
    if flipped is not None:
        flipped_pairs = np.concatenate([must, cannot])[flipped]
        record.update(n_flipped=len(flipped_pairs),
                      flipped_links=format_pairs(flipped_pairs))
    record.update(
        links=len(must) + len(cannot), must=len(must), cannot=len(cannot),
        n_samples=X.shape[0], n_features=X.shape[1],
        n_clusters=int(np.unique(y).size),
        unlinked=int(unlinked_mask(X.shape[0], must, cannot).sum()),
        ari_links_only=float(adjusted_rand_score(
            y, links_only_labels(X.shape[0], must, cannot))),
    )
    return record, run, (X, y, must, cannot, flipped_pairs)


def skipped_run(run, reason):
    """Record of a run that is not run (``reason``), with the fields that do
    not depend on the method (the links drawn, ``ari_links_only``)."""
    record, run, _ = _drawn_problem(run)
    record.update(skipped_record(run, reason))
    return record


def run_one(run):
    """Carry out one run and return its record (never raises for the method).

    The method's exceptions become ``status="failed"`` with the error in
    ``error``; peers that cannot run become ``status="skipped"``.

    Returns
    -------
    record : dict
        Keys of :data:`~smiclust.experiments.RECORD_FIELDS`.
    """
    from sklearn.metrics import adjusted_rand_score

    from ..constraints import count_violations
    from ._peers import PeerSkipped

    record, run, (X, y, must, cannot, flipped_pairs) = _drawn_problem(run)
    n_clusters = record["n_clusters"]
    too_large = [
        f"{name}={size} > {limit}"
        for name, size, limit in (("n", X.shape[0], run.get("max_samples")),
                                  ("d", X.shape[1], run.get("max_features")))
        if limit is not None and size > limit
    ]
    if too_large:
        reason = run.get("skip_reason") or "too slow"
        record.update(skipped_record(run, f"{', '.join(too_large)}: {reason}"))
        return record
    caught = []
    start = time.perf_counter()
    try:
        # the fit's own joblib calls run here, whatever backend carries the
        # runs (under a Dask backend they would go to the cluster, and its
        # failures would read as the method's)
        with warnings.catch_warnings(record=True) as caught, \
                parallel_config(backend="sequential"):
            warnings.simplefilter("always")
            labels, used = _fit(run, X, n_clusters, must, cannot)
        seconds = time.perf_counter() - start
        labels = np.asarray(labels)
        suspects = used.pop("suspects", None)
        if suspects is not None and flipped_pairs is not None and len(flipped_pairs):
            from ._noise import suspect_scores

            record.update(suspect_scores(suspects, flipped_pairs))
        record.update(used)
        record.update(
            ari=float(adjusted_rand_score(y, labels)),
            ari_unlinked=ari_unlinked(y, labels, must, cannot),
            violations=count_violations(labels, must, cannot),
            n_clusters_found=int(np.unique(labels).size),
            status="ok",
            error="",
        )
    except PeerSkipped as exc:
        seconds = time.perf_counter() - start
        record.update(status="skipped", error=_one_line(exc), ari=float("nan"))
    except Exception as exc:  # a failed run is a result (e.g. SL at t=1 on spam)
        seconds = time.perf_counter() - start
        record.update(status="failed", error=_one_line(f"{type(exc).__name__}: {exc}"),
                      ari=float("nan"))
    texts = []
    for w in caught:
        if issubclass(w.category, _IMPORT_TIME_WARNINGS):
            continue
        text = _one_line(f"{w.category.__name__}: {w.message}")
        if text not in texts:
            texts.append(text)
    record["warnings"] = _one_line(" | ".join(texts))
    record["seconds"] = round(seconds, 4)
    record["finished_at"] = _now()
    return record




# ---------------------------------------------------------------------------
# execution
# ---------------------------------------------------------------------------


#: Seconds to wait for the Dask scheduler to answer.
SCHEDULER_TIMEOUT = 10.0


class SchedulerError(ValueError):
    """The Dask scheduler cannot be reached; the message names its address."""


def _client(scheduler):
    """A ``distributed.Client`` of ``scheduler``, or SchedulerError."""
    try:
        from distributed import Client
    except ImportError:
        raise SchedulerError(
            f"--scheduler {scheduler}: dask.distributed is not installed "
            "(pip install 'smiclust[dask]')"
        ) from None
    try:
        _ask_identity(scheduler)
        return Client(scheduler, timeout=SCHEDULER_TIMEOUT)
    except (OSError, ValueError, TypeError) as exc:
        raise SchedulerError(
            f"cannot reach the Dask scheduler at {scheduler!r}: "
            f"{' '.join(str(exc).split()) or type(exc).__name__}"
        ) from None


def _ask_identity(scheduler):
    """Ask ``scheduler`` who it is; OSError unless a Dask scheduler answers.

    ``distributed.Client`` bounds the connection by its timeout but not the
    handshake after it, so a port that accepts connections and never answers
    (another service) would keep it waiting for ever. This asks the
    scheduler's ``identity`` under one deadline of :data:`SCHEDULER_TIMEOUT`
    seconds, in a thread of its own so that it works under a running event
    loop too (a notebook's).
    """
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from distributed.core import rpc

    async def identity():
        async with rpc(scheduler, timeout=SCHEDULER_TIMEOUT) as remote:
            return await remote.identity()

    def ask():
        # One second beyond the connection's own timeout, so that a refused
        # or unroutable address reports distributed's reason.
        return asyncio.run(asyncio.wait_for(identity(), SCHEDULER_TIMEOUT + 1))

    with ThreadPoolExecutor(max_workers=1) as pool:
        try:
            reply = pool.submit(ask).result()
        except TimeoutError:  # asyncio's, an OSError without a message
            raise OSError(
                f"no answer within {SCHEDULER_TIMEOUT + 1:g} s") from None
        except (OSError, ValueError, TypeError):
            raise
        except Exception as exc:  # noqa: BLE001 - whatever the other end said
            raise OSError("the service there is not a Dask scheduler "
                          f"({type(exc).__name__}: {exc})") from None
    kind = reply.get("type") if isinstance(reply, dict) else None
    if kind != "Scheduler":
        raise OSError(f"the service there is not a Dask scheduler ({kind!r})")


def check_scheduler(scheduler):
    """Connect to the Dask scheduler at ``scheduler`` and disconnect.

    Raises
    ------
    SchedulerError
        (a ``ValueError``) If no Dask scheduler there answers within
        :data:`SCHEDULER_TIMEOUT` seconds (one more for the handshake).
    """
    _client(scheduler).close()


@contextmanager
def _backend(scheduler):
    if scheduler is None:
        yield
        return
    import joblib

    with _client(scheduler) as client, joblib.parallel_config(backend="dask"):
        yield client


def _cluster_records(records, scheduler):
    """``records`` as they come from the Dask cluster; an error of the
    cluster itself (the scheduler or every worker gone) becomes a
    :class:`SchedulerError` naming ``scheduler``."""
    try:
        yield from records
    except Exception as exc:
        module = type(exc).__module__ or ""
        if not (module.startswith(("distributed", "tornado", "asyncio"))
                or isinstance(exc, OSError)):  # TimeoutError among them
            raise
        raise SchedulerError(
            f"the Dask cluster of --scheduler {scheduler!r} was lost during the "
            f"runs ({type(exc).__name__}: {_one_line(str(exc))}); the records "
            "written so far are kept: run the same command again to go on"
        ) from None


def _hms(seconds):
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _progress_line(i, total, record, elapsed):
    t = record.get("t")
    t_text = ("auto" if record["method"] in AUTO_T_METHODS
              else ("-" if t is None else t))
    noise = record.get("noise")
    noise_text = "" if noise is None else f" noise={percent(noise)}"
    if record["status"] == "ok":
        outcome = f"ARI {record['ari']:.3f} ({record.get('seconds', 0):.1f} s)"
    else:
        outcome = f"{record['status']}: {record.get('error', '')[:120]}"
    eta = elapsed / i * (total - i)
    return (
        f"[{i:>{len(str(total))}}/{total}] {record['dataset']}/"
        f"{record['preprocessing']} {record['method']} t={t_text} "
        f"links={record.get('links', '?')}{noise_text} seed={record['seed']}: "
        f"{outcome}"
        f" | {_hms(elapsed)} elapsed, ~{_hms(eta)} left"
    )


def _peer_key(run):
    return (run["dataset"], run["preprocessing"], run["method"], run["t"],
            run.get("protocol") or "pairs")


class _TimedOutPeers:
    """The lowest link fraction at which each peer curve exceeded its time
    budget, and the reason; later runs of that curve at that fraction or
    above are recorded as skipped without running (the peers get slower with
    more links)."""

    def __init__(self):
        self._lowest = {}  # _peer_key -> (fraction, reason)

    def note(self, record):
        """Remember ``record`` if it is a peer run stopped by its budget."""
        if not (record["status"] == "skipped"
                and record.get("error", "").startswith("exceeded the time")):
            return
        key = _peer_key(record)
        fraction = record["link_fraction"]
        if fraction < self._lowest.get(key, (math.inf,))[0]:
            self._lowest[key] = (fraction, (
                f"not run: {record['method']} on "
                f"{record['dataset']}/{record['preprocessing']}"
                f" with {percent(fraction)} of the pairs as links "
                f"{record['error']}"
            ))

    def task(self, run):
        """The joblib task of ``run``: carry it out, or record it as skipped."""
        from joblib import delayed

        fraction, reason = self._lowest.get(_peer_key(run), (math.inf, None))
        if run["link_fraction"] >= fraction:
            return delayed(skipped_run)(run, reason)
        return delayed(run_one)(run)


def _runs_to_do(runs, records, *, retry_failed, rerun_before):
    """The runs of ``runs`` whose last record in ``records`` does not count as
    done (none, failed with ``retry_failed``, older than ``rerun_before``,
    skipped because a peer was not installed that is installed now)."""
    last = {r["run_id"]: r for r in records}
    done = {run_id for run_id, record in last.items()
            if not (retry_failed and record["status"] == "failed")
            and not (rerun_before is not None
                     and _finished(record) < rerun_before)
            and not _peer_installed_since(record)}
    return [r for r in runs if r["run_id"] not in done]


def _peer_installed_since(record):
    """Whether ``record`` is a run skipped because its peer was not installed
    (:func:`~smiclust.experiments._peers.peer_unavailable_reason`) and the
    peer is installed now."""
    from ._peers import NOT_INSTALLED, PEERS, peer_unavailable_reason

    return (record["status"] == "skipped"
            and NOT_INSTALLED in (record.get("error") or "")
            and record["method"] in PEERS
            and peer_unavailable_reason(record["method"]) is None)


def read_config(out):
    """The config in ``out/config.json``, or None when there is none (the
    file is checked by :func:`~smiclust.experiments.check_out_dir`)."""
    path = Path(out) / CONFIG_FILE
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def run_experiment(config, out, *, n_jobs=1, scheduler=None, progress=None,
                   retry_failed=False, rerun_before=None):
    """Run every run of ``config`` not yet in ``out/records.csv``.

    Parameters
    ----------
    config : dict
        See :mod:`smiclust.experiments._config`.
    out : str or path
        Output directory (created); holds ``records.csv`` and ``config.json``
        (``config`` merged into the config already there,
        :func:`~smiclust.experiments.merge_configs`, so a run restricted to
        some methods, data sets or seeds does not hide the others' records).
        Checked first (:func:`~smiclust.experiments.check_out_dir`) and locked
        while the runs go (:func:`~smiclust.experiments.lock_out_dir`).
    n_jobs : int, default=1
        Runs in parallel (joblib processes); ignored with ``scheduler``, where
        every worker thread of the cluster takes runs.
    scheduler : str, default=None
        Address of a Dask scheduler (e.g. ``"tcp://127.0.0.1:8786"``).
    progress : file, default=None
        Where progress lines go (``None``: ``sys.stderr``; ``False``: nowhere).
    retry_failed : bool, default=False
        Run again the runs whose record has ``status="failed"``; the new
        record is appended and replaces the old one when the records are read
        (:func:`~smiclust.experiments.load_records`: last record wins).
    rerun_before : datetime.datetime, default=None
        Run again the runs of ``config`` whose last record finished before this
        time (timezone-aware), e.g. after a fix that changes results. Runs
        redone since count as done, so an interrupted rerun resumes.

    Returns
    -------
    summary : dict
        ``records`` (path), ``n_runs``, ``already_done``, ``new_runs``,
        ``new_failed``, ``new_skipped``, ``wall_seconds``.

    Raises
    ------
    OutputDirError
        If ``out`` holds files the reproduction did not write, or another
        process is writing to it; nothing is written then.
    SchedulerError
        If ``scheduler`` cannot be reached; nothing is written then.
    """
    stream = sys.stderr if progress is None else (progress or io.StringIO())
    out = Path(out)
    check_out_dir(out)
    path = out / RECORDS_FILE
    runs = plan_runs(config)

    def to_do():
        return _runs_to_do(runs, read_records(path), retry_failed=retry_failed,
                           rerun_before=rerun_before)

    # connect before the first write: an unreachable scheduler changes nothing
    with _backend(scheduler if to_do() else None), lock_out_dir(out):
        todo = to_do()  # again, under the lock
        merged = merge_configs(read_config(out), config)
        with atomic_write(out / CONFIG_FILE, encoding="utf-8") as f:
            f.write(json.dumps(merged, indent=2) + "\n")
        summary = {
            "records": str(path),
            "n_runs": len(runs),
            "already_done": len(runs) - len(todo),
            "new_runs": 0,
            "new_failed": 0,
            "new_skipped": 0,
        }
        print(
            f"smiclust reproduce ({config['name']}): {len(runs)} runs, "
            f"{summary['already_done']} already in {path}, {len(todo)} to do",
            file=stream, flush=True,
        )
        start = time.perf_counter()
        writer = RecordWriter(path)
        try:
            if todo:
                jobs = -1 if scheduler is not None else n_jobs
                _run_all(todo, writer, jobs, stream, summary,
                         scheduler=scheduler)
        finally:
            writer.close()
    summary["wall_seconds"] = round(time.perf_counter() - start, 2)
    return summary


def _run_all(todo, writer, n_jobs, stream, summary, *, scheduler=None):
    """Carry out ``todo`` through joblib, appending each record as it comes and
    counting it in ``summary``; a Dask cluster lost on the way ends the runs
    with :class:`SchedulerError` (the records written so far stay)."""
    from joblib import Parallel

    timed_out = _TimedOutPeers()
    start = time.perf_counter()
    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered",
                        pre_dispatch="n_jobs" if n_jobs != 1 else "1")
    tasks = (timed_out.task(run) for run in todo)
    records = parallel(tasks)
    if scheduler is not None:
        records = _cluster_records(records, scheduler)
    for i, record in enumerate(records, start=1):
        writer.write(record)
        summary["new_runs"] += 1
        if record["status"] in ("failed", "skipped"):
            summary[f"new_{record['status']}"] += 1
        timed_out.note(record)
        print(_progress_line(i, len(todo), record, time.perf_counter() - start),
              file=stream, flush=True)
