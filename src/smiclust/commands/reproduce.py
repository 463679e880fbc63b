"""``smiclust reproduce``: the experiments of the 3SMIC paper, resumable.

``--config beyond`` runs instead the comparison of the library's default with
the paper's methods and the peers (:func:`smiclust.experiments.beyond_config`)
and writes its own report (:func:`smiclust.experiments.write_beyond_report`).
``--config noise`` (and its small ``noise-quick``) runs the noise protocol, a
fraction of the links flipped (:func:`smiclust.experiments.noise_config`),
and writes its report (:func:`smiclust.experiments.write_noise_report`).

Runs 3SMIC, SL, CSC (and, when installed, the peers of the ``bench`` extra)
on the paper's data sets with more and more random links, appends one record
per run to ``OUT/records.csv``, then draws ``OUT/figures/*.png`` and writes
``OUT/report.md`` from the records. Progress goes to stderr, a JSON summary to
stdout. Interrupt at any time: the next invocation with the same ``--out``
skips the runs already recorded.
"""

import json
import sys

from ._common import UsageError

DEFAULT_OUT = "smiclust-reproduce"
DEFAULT_OUT_QUICK = "smiclust-reproduce-quick"
DEFAULT_OUT_BEYOND = "smiclust-beyond"
DEFAULT_OUT_NOISE = "smiclust-noise"
#: --config name -> (config function name, default output directory).
CONFIGS = {"full": ("full_config", DEFAULT_OUT),
           "quick": ("quick_config", DEFAULT_OUT_QUICK),
           "beyond": ("beyond_config", DEFAULT_OUT_BEYOND),
           "noise": ("noise_config", DEFAULT_OUT_NOISE),
           "noise-quick": ("noise_quick_config", DEFAULT_OUT_NOISE + "-quick")}


def add_parser(subparsers):
    p = subparsers.add_parser(
        "reproduce",
        help="reproduce the paper's experiments (records, figures, report)",
        description=(
            "Reproduce the experiments of the 3SMIC paper: random links typed "
            "by the true labels at increasing fractions of all pairs, ARI "
            "against the true labels over several seeds, for 3SMIC (auto-"
            "tuned), SL and CSC at t in (1, 4, 7, 10) and the peers PCKMeans, "
            "MPCKMeans, COPKMeans and E2CP (extra 'bench'). Records are "
            "appended to OUT/records.csv as runs finish and are the cache of a "
            "resumed run (runs of a peer skipped because it was not installed "
            "run again once it is); the figures and OUT/report.md (claims of "
            "the paper with verdicts; pandas, extra 'io', and matplotlib for "
            "the figures) are computed from them. The full run takes hours; "
            "--quick about a minute. --config beyond compares the library's "
            "default with them (win table, ARI on the samples in no link); "
            "--config noise flips 0-30 % of the links (must <-> cannot) and "
            "checks the default against the same model without links and the "
            "hard-constraint peers, with its suspect links scored "
            "(--config noise-quick: a few seconds). OUT "
            "is refused (exit 2, nothing written) when it is a file, when "
            "another 'smiclust reproduce' is writing to it, or when it holds a "
            "file this command did not write: a records.csv whose first line is"
            " not the records header, a config.json that is not a JSON object "
            "with the keys name, seeds, datasets and methods, or a report.md "
            "that does not start with the title of one of its reports. Every "
            "file is replaced whole (records are appended a line at a time), so "
            "an interrupted run leaves the previous files intact."
        ),
    )
    p.add_argument("--config", choices=tuple(CONFIGS), default=None,
                   help="full: the paper's protocol (default); quick: the same as "
                        "--quick; beyond: the library's default (smiclust) "
                        "against 3SMIC, SL, CSC, COBS, LabelSpreading and the "
                        "peers on faces100, parkinson, sonar and digits500, 5 "
                        "seeds, random pairs and partial labels, with ARI on the "
                        f"unlinked samples (default --out {DEFAULT_OUT_BEYOND}); "
                        "noise: 0, 5, 10, 20, 30 %% of the links flipped at two "
                        "link levels on those data sets (raw) and scikit-learn's "
                        "iris and wine (standardized), the default with "
                        "and without links, 3SMIC, COPKMeans, PCKMeans, CSC t=4 "
                        f"(default --out {DEFAULT_OUT_NOISE}); noise-quick: its "
                        "small version")
    p.add_argument("--quick", action="store_true",
                   help="small version: parkinson and faces100, 2 seeds, 3 link "
                        "levels, 3SMIC on a small grid, SL and CSC at t=7")
    p.add_argument("--datasets", nargs="+", metavar="NAME", default=None,
                   help="data sets to run: the paper's six or scikit-learn's "
                        "iris wine breast_cancer (these need --link-levels "
                        "outside --config noise) (default: all six; --quick: "
                        "parkinson faces100)")
    p.add_argument("--methods", nargs="+", metavar="NAME", default=None,
                   help="methods: 3smic sl csc pckmeans mpckmeans copkmeans e2cp, "
                        "and beyond the paper smiclust cobs labelspreading "
                        "smiclust-nolinks "
                        "(default: those of the config; --quick: 3smic sl csc); "
                        "with --methods, --datasets or --seeds only those runs "
                        "run, and OUT's config.json and report keep describing "
                        "every method, data set and seed already there (an OUT "
                        "of another configuration, e.g. --quick against "
                        "--config noise, is refused)")
    p.add_argument("--seeds", type=int, metavar="N", default=None,
                   help="number of seeds, 0..N-1 (default: 20; --quick: 2)")
    p.add_argument("--link-levels", type=float, nargs="+", metavar="FRACTION",
                   default=None,
                   help="link counts as fractions of all pairs, for every data set "
                        "(default: per data set, from no links to near-perfect; "
                        "with --config noise: the levels of the noise protocol)")
    p.add_argument("--noise-fractions", type=float, nargs="+", metavar="FRACTION",
                   default=None,
                   help="with --config noise or noise-quick: fractions of the "
                        "links flipped (default: 0 0.05 0.1 0.2 0.3)")
    p.add_argument("--preprocessing", nargs="+", choices=("raw", "standardized"),
                   default=None,
                   help="feature preprocessing variants (default: both for "
                        "parkinson, spam and sonar, raw for the image sets)")
    p.add_argument("--time-budget", type=float, metavar="SECONDS", default=None,
                   help="seconds per run of a peer before it is stopped and "
                        "recorded as skipped (default: 600)")
    p.add_argument("--n-jobs", type=int, metavar="N", default=1,
                   help="runs in parallel, through joblib (default: 1; -1: all "
                        "cores)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run on the Dask cluster of this scheduler (e.g. "
                        "tcp://127.0.0.1:8786) instead of local processes; "
                        "refused when it does not answer, and a cluster lost "
                        "during the runs ends them (exit 2, the records kept). "
                        "With one worker thread in all, joblib runs one job at "
                        "a time here, not on the cluster: give it two or more")
    p.add_argument("--out", metavar="DIR", default=None,
                   help=f"output directory (default: {DEFAULT_OUT}, --quick: "
                        f"{DEFAULT_OUT_QUICK}); a directory written by this "
                        "command is resumed, one holding other files named "
                        "records.csv, config.json or report.md is refused")
    p.add_argument("--retry-failed", action="store_true",
                   help="run again the runs recorded as failed (e.g. after a "
                        "fix); the new record replaces the old one in the report")
    p.add_argument("--rerun-before", metavar="TIME", type=_utc_time, default=None,
                   help="run again the selected runs recorded before TIME (ISO "
                        "8601, e.g. 2026-11-22T22:47; UTC unless a zone is "
                        "given), e.g. after a fix that changes results; the new "
                        "records replace the old ones, and an interrupted rerun "
                        "resumes")
    p.add_argument("--no-report", action="store_true",
                   help="only run; no figures or report")
    p.add_argument("--report-only", action="store_true",
                   help="only write the figures and the report from the records "
                        "and the directory's config.json (which --datasets, "
                        "--methods and --seeds then do not change)")


def _utc_time(text):
    import argparse

    from ..experiments import utc_time

    try:
        return utc_time(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an ISO 8601 time such as 2026-11-22T22:47, got {text!r}"
        ) from None


def _config_name(args):
    """A key of :data:`CONFIGS`; UsageError when --quick and --config
    disagree."""
    name = getattr(args, "config", None)
    if args.quick and name not in (None, "quick"):
        raise UsageError(f"--quick contradicts --config {name}")
    return "quick" if args.quick else (name or "full")


def build_config(args):
    """The config of the command line arguments (plain data)."""
    from .. import experiments
    from ..datasets import DATASETS, SKLEARN_DATASETS
    from ..experiments import METHODS, PREPROCESSING, full_config, make_config

    name = _config_name(args)
    quick = name == "quick"
    noise = name.startswith("noise")
    base = getattr(experiments, CONFIGS[name][0])()
    full = full_config()
    noise_fractions = getattr(args, "noise_fractions", None)
    if noise_fractions is not None and not noise:
        raise UsageError(f"--noise-fractions needs --config noise or noise-quick; "
                         f"got --config {name}")
    if noise_fractions is not None and any(not 0 <= f <= 1
                                           for f in noise_fractions):
        raise UsageError(f"--noise-fractions must lie in [0, 1]; got "
                         f"{noise_fractions}")
    if args.datasets is not None:
        unknown = [d for d in args.datasets if not _is_dataset(d)]
        if unknown:
            raise UsageError(f"--datasets must be among "
                             f"{sorted([*DATASETS, *SKLEARN_DATASETS])}; got "
                             f"{unknown}")
    if args.methods is not None:
        unknown = [m for m in args.methods if m not in METHODS]
        if unknown:
            raise UsageError(f"--methods must be among {list(METHODS)}; got "
                             f"{unknown}")
    if args.seeds is not None and args.seeds < 1:
        raise UsageError(f"--seeds must be at least 1; got {args.seeds}")
    if args.link_levels is not None and any(
        not 0 <= f <= 1 for f in args.link_levels
    ):
        raise UsageError(f"--link-levels must lie in [0, 1]; got {args.link_levels}")
    if args.time_budget is not None and not args.time_budget > 0:
        raise UsageError(f"--time-budget must be positive; got {args.time_budget}")
    if args.n_jobs == 0:
        raise UsageError("--n-jobs must not be 0")

    datasets = {}
    for d in args.datasets or list(base["datasets"]):
        if noise:
            datasets[d] = _noise_spec(args, base, full, d)
            continue
        spec = base["datasets"].get(d) or full["datasets"].get(d)
        if spec is None:  # a scikit-learn data set: no levels of the paper
            if args.link_levels is None:
                raise UsageError(f"--datasets {d}: not in --config {base['name']}; "
                                 "give its levels with --link-levels")
            spec = {"link_fractions": (), "preprocessing": PREPROCESSING}
        spec = dict(spec)
        if d not in base["datasets"] and d in full["datasets"] and quick:
            levels = full["datasets"][d]["link_fractions"]
            spec["link_fractions"] = (levels[0], levels[len(levels) // 2], levels[-1])
        if args.link_levels is not None:
            spec["link_fractions"] = tuple(sorted(set(args.link_levels)))
        if args.preprocessing is not None:
            spec["preprocessing"] = tuple(args.preprocessing)
        datasets[d] = spec
    overrides = {}
    for m in args.methods or list(base["methods"]):
        settings = dict(base["methods"].get(m) or METHODS[m])
        if args.time_budget is not None and settings["kind"] == "peer":
            settings["time_budget"] = args.time_budget
        overrides[m] = {k: settings[k] for k in
                        ("ts", "params", "time_budget", "max_samples",
                         "max_features", "protocols") if k in settings}
    seeds = range(args.seeds) if args.seeds is not None else base["seeds"]
    return make_config(base["name"], datasets=datasets, methods=list(overrides),
                           seeds=seeds, method_overrides=overrides)


def _is_dataset(name):
    """Whether ``name`` is a data set of the paper or of scikit-learn."""
    from ..datasets import dataset_info

    try:
        dataset_info(name)
    except ValueError:
        return False
    return True


def _noise_spec(args, base, full, dataset):
    """The spec of ``dataset`` in a noise config, with the command line's
    levels and fractions; a data set outside the config needs --link-levels."""
    from ..experiments import NOISE_FRACTIONS, NOISE_PREPROCESSING

    default = full["datasets"].get(dataset, {}).get(
        "preprocessing", NOISE_PREPROCESSING.get(dataset, ("raw",)))
    spec = dict(base["datasets"].get(dataset) or {
        "link_fractions": (),
        "preprocessing": default,
        "noise_fractions": NOISE_FRACTIONS})
    if args.link_levels is not None:
        spec["noise_link_fractions"] = tuple(sorted(set(args.link_levels)))
    elif "noise_link_fractions" not in spec:
        raise UsageError(f"--datasets {dataset}: not in --config {base['name']}; "
                         "give its levels with --link-levels")
    if args.noise_fractions is not None:
        spec["noise_fractions"] = tuple(sorted(set(args.noise_fractions)))
    if args.preprocessing is not None:
        spec["preprocessing"] = tuple(args.preprocessing)
    return spec


def run(args):
    import contextlib
    import importlib.util
    from pathlib import Path

    from ..datasets import DataChecksumError, dataset_info
    from ..experiments import (
        RECORDS_FILE,
        OutputDirError,
        SchedulerError,
        check_out_dir,
        check_scheduler,
        lock_out_dir,
    )
    from ..experiments._output import LOCK_FILE

    config = build_config(args)
    out = Path(args.out or CONFIGS[_config_name(args)][1])
    with contextlib.ExitStack() as stack:
        try:  # every check before the first write
            if not args.no_report and importlib.util.find_spec("pandas") is None:
                raise UsageError("the report needs pandas: pip install "
                                 "'smiclust[io]' (--no-report runs without it)")
            check_out_dir(out)
            if not args.report_only:  # a corrupted data file ends nothing midway
                for name in config["datasets"]:
                    dataset_info(name).load(0)
            if args.report_only and not (out / RECORDS_FILE).is_file():
                raise UsageError(f"--report-only: no records in {out / RECORDS_FILE}")
            if args.scheduler is not None and not args.report_only:
                check_scheduler(args.scheduler)
            new_lock = not (out / LOCK_FILE).exists()
            stack.enter_context(lock_out_dir(out))
            try:  # under the lock, so that a run in progress is named first
                _check_same_config(out, config)
            except UsageError:
                if new_lock:  # refused: nothing written, not even the lock
                    (out / LOCK_FILE).unlink(missing_ok=True)
                raise
        except (OutputDirError, SchedulerError, DataChecksumError) as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:  # e.g. permission denied
            raise UsageError(f"cannot write to {str(out)!r}: {exc}") from None
        try:
            result = _run_and_report(args, config, out)
        except SchedulerError as exc:  # the scheduler went away since the check
            raise UsageError(str(exc)) from None
    print(json.dumps(result, indent=2))
    return 0


def _check_same_config(out, config):
    """Refuse an OUT whose config.json is another configuration's: its
    records would be reported with this one's (e.g. runs with flipped links
    averaged into the paper's numbers)."""
    from ..experiments import read_config

    previous = read_config(out)
    if previous is not None and previous.get("name") != config["name"]:
        raise UsageError(
            f"{str(out)!r} holds the runs of the configuration "
            f"{previous.get('name')!r} (its config.json); the configuration "
            f"{config['name']!r} would mix its runs with them in one report: "
            "choose another --out")


def _run_and_report(args, config, out):
    """The runs and the report of the command; the caller holds the lock."""
    from .. import experiments
    from ..experiments import RECORDS_FILE, merge_configs, read_config, run_experiment

    result = {"out": str(out)}
    if not args.report_only:
        result.update(run_experiment(config, out, n_jobs=args.n_jobs,
                                     scheduler=args.scheduler,
                                     retry_failed=args.retry_failed,
                                     rerun_before=args.rerun_before))
    if not args.no_report:
        # the report covers the directory's whole config, not only this run's;
        # a report alone describes what ran, the directory's config as it is
        previous = read_config(out)
        if args.report_only and previous is not None:
            config = previous
        else:
            config = merge_configs(previous, config)
        try:
            writer = (experiments.write_beyond_report if config["name"] == "beyond"
                      else experiments.write_noise_report
                      if config["name"].startswith("noise")
                      else experiments.write_report)
            report = writer(out / RECORDS_FILE, out, config=config)
        except ImportError as exc:
            print(f"smiclust reproduce: no report: {exc}", file=sys.stderr)
        else:
            result["report"] = str(report)
            result["figures"] = sorted(str(p) for p in (out / "figures").glob("*.png"))
            print(f"report written to {report}", file=sys.stderr)
    return result
