"""Validation, input checks, seeds, progress and thread control shared by the
package."""

import hashlib
import importlib
import os
import sys
import time

import numpy as np

from ._checks import (
    at_unit_scale,
    canonical_sparse,
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
    "arrays_digest",
    "draw_seeds",
    "progress",
    "StepProgress",
    "WAITED_SECONDS",
    "import_optional",
    "user_stacklevel",
    "check_numeric",
    "canonical_sparse",
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


def arrays_digest(parts, digest_size=20):
    """A BLAKE2b digest of the arrays ``parts``, in order: each one's dtype,
    shape and bytes (C order), so that arrays of equal values but another
    dtype or shape digest differently.

    Returns
    -------
    digest : bytes
    """
    h = hashlib.blake2b(digest_size=digest_size)
    for part in parts:
        part = np.ascontiguousarray(part)
        h.update(str((part.dtype.str, part.shape)).encode())
        h.update(part.tobytes())
    return h.digest()


def progress(verbose, text):
    """A progress line on standard error when ``verbose``."""
    if verbose:
        print(f"[smiclust] {text}", file=sys.stderr, flush=True)


#: A step of a fit that runs longer than this (seconds) is one the user
#: waits for: a verbose fit reports it (:class:`StepProgress`).
WAITED_SECONDS = 1.0


class StepProgress:
    """Progress of one step of a fit, reported only once the user waits.

    Quick fits stay quiet: :meth:`part` (after each part of a step made of
    several, e.g. a fold) and :meth:`done` (at its end) print a line when
    ``verbose`` and the step has run for more than :data:`WAITED_SECONDS`.
    A step wrapped in parts is then silent for at most one part.

    Parameters
    ----------
    verbose : int or bool
    step : str
        The step's name, which starts every line of :meth:`part` (a
        :meth:`done` line is its own text).
    """

    def __init__(self, verbose, step):
        self.verbose = verbose
        self.step = step
        self.start = time.perf_counter()

    @property
    def seconds(self):
        """Seconds since the step started."""
        return time.perf_counter() - self.start

    def part(self, text):
        """``"<step>: <text> (<s> s so far)"`` once the user waits."""
        seconds = self.seconds
        if seconds > WAITED_SECONDS:
            progress(self.verbose, f"{self.step}: {text} ({seconds:.0f} s so far)")

    def done(self, text):
        """``"<text> (<s> s)"`` once the user waits."""
        seconds = self.seconds
        if seconds > WAITED_SECONDS:
            progress(self.verbose, f"{text} ({seconds:.0f} s)")


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _library_dirs():
    """The folders of smiclust, scikit-learn (whose ``fit_predict`` and
    ``Pipeline`` call smiclust's ``fit``) and joblib (through which
    scikit-learn's searches and cross-validation call it), each with a
    trailing separator."""
    import joblib
    import sklearn

    return (_PACKAGE_DIR + os.sep,
            *(os.path.dirname(os.path.abspath(module.__file__)) + os.sep
              for module in (sklearn, joblib)))


def user_stacklevel():
    """The ``stacklevel`` with which a warning issued by the caller of this
    function points at the user's line: the first frame outside smiclust,
    scikit-learn and joblib (through ``fit_predict``, a ``Pipeline`` or a
    search, the line that called them), however deep in the package it is
    issued."""
    libraries = _library_dirs()
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            libraries):
        frame, level = frame.f_back, level + 1
    return level


def import_optional(module, extra, owner):
    """Import ``module`` of the optional extra ``extra`` for ``owner`` (what
    needs it, named in the message), or raise an ImportError that says how to
    install it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{owner} needs {module.split('.')[0]}: pip install "
            f"'smiclust[{extra}]'"
        ) from exc
