"""Reproduction of the experiments of the 3SMIC paper.

Config (plain data, :mod:`~smiclust.experiments._config`) -> runs
(:func:`run_experiment`, records appended to ``records.csv``) -> tables
(:func:`load_records`, :func:`summarize`; ``_summary``) -> verdicts on the
paper's claims (:func:`evaluate_claims`; ``_claims``), figures
(:func:`write_figures`; ``_figures``) and a Markdown report
(:func:`write_report`; ``_report``), all computed from the records alone. The
command line is ``smiclust reproduce``.

Beyond the paper (``smiclust reproduce --config beyond``,
:func:`beyond_config`): the library's default against the paper's methods,
COBS (:mod:`~smiclust.experiments._cobs`) and LabelSpreading, with the ARI on
the samples in no link and of the links alone; its report is
:func:`write_beyond_report` (``_beyond``).

Wrong links (``smiclust reproduce --config noise``, :func:`noise_config`):
the *noise* protocol flips a fraction of the pairs protocol's links
(:func:`flip_links`, ``_noise``); its report (:func:`write_noise_report`,
``_noise_report``) checks the default against the same model without links
and the hard-constraint peers, and scores its suspect links.

The adapters to other libraries' methods (PCKMeans, MPCKMeans, COPKMeans,
E2CP; extra ``bench``) live in :mod:`smiclust.experiments._peers` and are
imported only when a peer runs. Importing this package imports neither
matplotlib, pandas, dask nor those libraries.
"""

from ._beyond import write_beyond_report
from ._claims import CLAIMS, THRESHOLDS, evaluate_claims
from ._config import (
    BEYOND_METHODS,
    LINK_FRACTIONS,
    METHODS,
    NOISE_PREPROCESSING,
    PAPER_METHODS,
    PAPER_TS,
    PEER_METHODS,
    PREPROCESSING,
    PROTOCOLS,
    REPRODUCTION_METHODS,
    beyond_config,
    full_config,
    make_config,
    merge_configs,
    noise_config,
    noise_quick_config,
    quick_config,
)
from ._figures import plot_dataset, write_figures
from ._noise import NOISE_FRACTIONS, flip_links, suspect_scores
from ._noise_report import write_noise_report
from ._output import (
    CONFIG_FILE,
    REPORT_FILE,
    OutputDirError,
    check_out_dir,
    lock_out_dir,
)
from ._records import RECORD_FIELDS, RECORDS_FILE, read_records
from ._report import write_report
from ._runner import (
    SchedulerError,
    check_scheduler,
    load_problem,
    plan_runs,
    read_config,
    run_experiment,
    run_one,
    utc_time,
)
from ._summary import load_records, summarize

__all__ = [
    "BEYOND_METHODS",
    "LINK_FRACTIONS",
    "METHODS",
    "NOISE_PREPROCESSING",
    "PAPER_METHODS",
    "PAPER_TS",
    "PEER_METHODS",
    "PREPROCESSING",
    "PROTOCOLS",
    "REPRODUCTION_METHODS",
    "beyond_config",
    "full_config",
    "make_config",
    "merge_configs",
    "noise_config",
    "noise_quick_config",
    "quick_config",
    "NOISE_FRACTIONS",
    "flip_links",
    "suspect_scores",
    "RECORD_FIELDS",
    "RECORDS_FILE",
    "load_problem",
    "plan_runs",
    "read_records",
    "read_config",
    "run_experiment",
    "run_one",
    "utc_time",
    "SchedulerError",
    "check_scheduler",
    "CONFIG_FILE",
    "REPORT_FILE",
    "OutputDirError",
    "check_out_dir",
    "lock_out_dir",
    "CLAIMS",
    "THRESHOLDS",
    "evaluate_claims",
    "load_records",
    "plot_dataset",
    "summarize",
    "write_figures",
    "write_report",
    "write_beyond_report",
    "write_noise_report",
]
