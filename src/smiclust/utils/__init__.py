"""Validation, input checks, seeds, progress and thread control shared by the
package."""

import sys

import numpy as np

from ._checks import (
    at_unit_scale,
    check_n_clusters,
    check_n_neighbors,
    check_numeric,
    check_samples,
    unit_exponent,
    validate_training_samples,
)
from ._threads import (
    SingleThreadedPool,
    single_threaded,
    single_threaded_blas,
    single_threaded_openmp,
)
from ._validation import (
    GRID_TYPES,
    Grid,
    HasMethods,
    IntegerGrid,
    Interval,
    Options,
    RealGrid,
    as_grid,
    check_random_state_param,
    n_jobs_param,
    validate_params,
)

__all__ = [
    "SEED_MAX",
    "draw_seeds",
    "progress",
    "check_numeric",
    "check_samples",
    "check_n_neighbors",
    "check_n_clusters",
    "unit_exponent",
    "at_unit_scale",
    "validate_training_samples",
    "SingleThreadedPool",
    "single_threaded_blas",
    "single_threaded_openmp",
    "single_threaded",
    "GRID_TYPES",
    "Grid",
    "IntegerGrid",
    "Interval",
    "HasMethods",
    "Options",
    "RealGrid",
    "as_grid",
    "check_random_state_param",
    "n_jobs_param",
    "validate_params",
]

#: Seeds handed from one ``random_state`` to the consumers of a fit are drawn
#: below this bound (the int32 range every consumer accepts).
SEED_MAX = np.iinfo(np.int32).max


def draw_seeds(rng, n):
    """``n`` seeds drawn in order from ``rng`` (a RandomState), one per consumer."""
    return [rng.randint(SEED_MAX) for _ in range(n)]


def progress(verbose, text):
    """A progress line on standard error when ``verbose``."""
    if verbose:
        print(f"[smiclust] {text}", file=sys.stderr, flush=True)
