"""Helpers shared by the readers and writers of :mod:`smiclust.io`.

Message formatting (one line, shortened cell text), file suffixes, number
parsing, checks of common arguments, and loaders of ``.npy`` and pyarrow.
"""

import re
from pathlib import Path

import numpy as np

PARQUET_SUFFIXES = {".parquet", ".pq"}
NPY_SUFFIXES = {".npy"}
TSV_SUFFIXES = {".tsv", ".tab"}
_INT_RE = re.compile(r"[+-]?\d+(?:\.0*)?")
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_MAX_SHOWN_NAMES = 12
#: The answers an answers file holds: a must-link, a cannot-link, or a pair
#: skipped (not sure; not asked again, not a link).
ANSWERS = ("must", "cannot", "skip")


def one_line(text):
    """``text`` with every run of white space (newlines too) made one space."""
    return " ".join(str(text).split())


def show(cell, limit=40):
    """repr of a cell, shortened; control characters escaped (one line)."""
    if len(cell) > limit:
        return repr(cell[: limit - 3]) + "..."
    return repr(cell)


def file_suffix(path):
    """Lower-case suffix of a path (``".csv"``), ``""`` without one."""
    return Path(str(path)).suffix.lower()


def is_number(cell):
    """Whether a (stripped) text cell parses as a float; ``""`` does not, nor
    Python's digit grouping (``1_0``)."""
    if cell == "" or "_" in cell:
        return False
    try:
        float(cell)
    except ValueError:
        return False
    return True


def is_integer_text(cell):
    """Whether a cell writes an integer as an integer: ``400``, ``-3`` (not
    ``1.0``, which pandas writes for a float column)."""
    return _INTEGER_TEXT.fullmatch(cell) is not None


def parse_int(cell):
    """The int a cell writes (``"3"``, ``"+3"``, ``"3.0"``), or None."""
    if _INT_RE.fullmatch(cell) is None:
        return None
    return int(float(cell)) if "." in cell else int(cell)


def import_pyarrow():
    """``(pyarrow, pyarrow.parquet)``; ImportError naming the extra without it."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(
            "Parquet files need pyarrow: pip install 'smiclust[io]'"
        ) from None
    return pa, pq


def check_header_arg(header):
    """The ``header`` argument of the readers is "infer", True or False."""
    if header not in ("infer", True, False):
        raise ValueError(
            f"The 'header' parameter must be 'infer', True or False; got {header!r}."
        )


def check_delimiter_arg(delimiter):
    """The ``delimiter`` argument of the readers: None, one character (no line
    break, no double quote) or ``"whitespace"``."""
    if delimiter is None or delimiter == "whitespace":
        return
    expected = ("one character (not a line break nor '\"'), 'whitespace' or "
                "None")
    if not isinstance(delimiter, str):
        raise TypeError(f"The 'delimiter' parameter must be a str: {expected}; "
                        f"got {delimiter!r} ({type(delimiter).__name__}).")
    if len(delimiter) != 1 or delimiter in '\r\n"':
        raise ValueError(f"The 'delimiter' parameter must be {expected}; got "
                         f"{delimiter!r}.")


def names_text(names):
    """Column names for a message: the first few, quoted, and how many in all."""
    shown = ", ".join(repr(n) for n in names[:_MAX_SHOWN_NAMES])
    if len(names) > _MAX_SHOWN_NAMES:
        shown += f", ... ({len(names)} in all)"
    return shown


def check_n_samples(n_samples):
    """The ``n_samples`` argument of the readers is a positive int."""
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) \
            or n_samples < 1:
        raise ValueError(
            f"The 'n_samples' parameter must be a positive int; got {n_samples!r}."
        )


def load_npy(path):
    """The one array of a ``.npy`` file; never unpickles (ValueError instead)."""
    with open(path, "rb") as f:
        try:
            arr = np.load(f, allow_pickle=False)
        except Exception as exc:
            reason = one_line(exc) or type(exc).__name__
            if "allow_pickle" in reason:
                reason = "it holds pickled objects, which are never loaded"
            raise ValueError(f"{path}: not a readable .npy file ({reason})") from None
    if not isinstance(arr, np.ndarray):
        raise ValueError(f"{path}: expected one array saved by numpy.save")
    return arr


def text_ids(ids, n_samples=None):
    """Row ids as a list of str (ids are compared as text), or None; with
    ``n_samples``, one distinct id per sample or a ValueError."""
    if ids is None:
        return None
    ids = [str(v) for v in ids]
    if n_samples is not None:
        if len(ids) != n_samples:
            raise ValueError(f"The 'ids' parameter must hold one id per sample: "
                             f"expected {n_samples}, got {len(ids)}.")
        repeat = first_repeat(ids)
        if repeat is not None:
            first, k = repeat
            raise ValueError(f"The 'ids' parameter must hold distinct ids; "
                             f"rows {first} and {k} are both {ids[k]!r}.")
    return ids


def first_repeat(values, ignore=()):
    """``(i, k)``: the positions of the first value equal to an earlier one,
    ``k``, and of that earlier one, ``i``; None if the values (those not in
    ``ignore``) are distinct."""
    seen = {}
    for k, value in enumerate(values):
        if value in ignore:
            continue
        if value in seen:
            return seen[value], k
        seen[value] = k
    return None
