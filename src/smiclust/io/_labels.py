"""Partial labels from files: one label per row, or (row, label) pairs."""

import re

import numpy as np

from ._common import (
    NPY_SUFFIXES,
    check_delimiter_arg,
    check_header_arg,
    check_n_samples,
    file_suffix,
    is_integer_text,
    is_number,
    load_npy,
    show,
    text_ids,
)
from ._links import names_a_row, resolve_references
from ._text import check_width, text_rows

#: Cells of a label file that mean "no label" (compared case-insensitively).
UNKNOWN_LABELS = frozenset(
    {"", "-1", "?", "na", "n/a", "nan", "null", "none", "unknown"}
)


#: An integer written as a float: ``1.0``, ``-2.00`` (no leading zero, no
#: exponent); group 1 is the integer.
_FLOAT_OF_INT = re.compile(r"(-?(?:0|[1-9][0-9]*))\.0+")


def _label_key(cell):
    """Canonical text of a label, or None for unknown: the text as written,
    but an integer written as a float (``"1.0"``) is that integer (``"1"``)."""
    text = cell.strip()
    if text.lower() in UNKNOWN_LABELS:
        return None
    match = _FLOAT_OF_INT.fullmatch(text)
    if match is not None:
        text = str(int(match.group(1)))
        return None if text == "-1" else text
    return text


def read_labels(path, *, ids=None, n_samples, header="infer", delimiter=None,
                return_names=False):
    """Read partial labels: a label for some rows, the others unknown.

    Two layouts of delimited text are accepted:

    - one field a line: the label of every data row, in order (an optional
      header line makes it ``n_samples + 1`` lines);
    - two fields a line: a row reference (0-based index or id, as in
      :func:`read_links`) and its label, for the labelled rows only.

    A label is any text, compared as written (``01``, ``1`` and ``1e0`` are
    three labels), but for integers written as floats: ``"1.0"`` and
    ``"1.00"`` equal ``1``. Empty cells, ``-1``, ``?``, ``unknown``, ``NA``,
    ``N/A``, ``NaN``, ``null`` and ``None`` (any case;
    :data:`UNKNOWN_LABELS`) mean unknown. A ``.npy`` file holds a 1-d
    integer array of length ``n_samples`` with ``-1`` for unknown.

    Parameters
    ----------
    path : str or path-like
    ids : array-like of str, default=None
        Ids of the data rows.
    n_samples : int
        Number of data rows.
    header : {"infer", True, False}, default="infer"
        With one field a line, ``"infer"`` takes the first line as a header
        when it is text over numeric labels, or else when the file has
        ``n_samples + 1`` lines; a text first line that no other row has as
        its label, in a file of ``n_samples`` lines, is an error (a header
        with a label missing, or a label? pass True or False); so is an
        integer over labels written as floats (``0`` over ``1.0``, as pandas
        writes an unnamed Series) when the line count allows a header. With two
        fields, the first line is a header when its first cell does not refer
        to a row.
    delimiter : str, default=None
        Field separator; ``None`` sniffs it.
    return_names : bool, default=False
        Also return the label of every code.

    Returns
    -------
    labels : ndarray of shape (n_samples,), dtype int64
        Codes ``0, 1, ...`` of the distinct labels, numbered in row order,
        ``-1`` for unknown.
    names : list of str
        With ``return_names=True``: ``names[k]`` is the label of code ``k``,
        as written in the file (an integer written as a float in its integer
        form).

    Raises
    ------
    ValueError
        Lines of other widths, a wrong number of lines, bad row references,
        a row labelled twice.
    """
    check_header_arg(header)
    check_delimiter_arg(delimiter)
    check_n_samples(n_samples)
    ids = text_ids(ids, n_samples)
    codes, names = _codes(_label_keys(path, ids, n_samples, header, delimiter))
    return (codes, names) if return_names else codes


def _label_keys(path, ids, n_samples, header, delimiter):
    """The canonical label of every data row (None: unknown)."""
    if file_suffix(path) in NPY_SUFFIXES:
        return _npy_labels(path, n_samples)
    rows = text_rows(path, delimiter, keep_blank=True)
    width = max((len(cells) for _, cells in rows), default=0)
    if width == 0 or all(cells == [""] for _, cells in rows):
        raise ValueError(f"{path}: the file is empty (no labels)")
    if width == 1:
        return _one_label_per_row(path, rows, n_samples, header)
    rows = [(line, cells) for line, cells in rows if cells != [""]]
    if width != 2:
        line = next(line for line, cells in rows if len(cells) == width)
        raise ValueError(
            f"{path}: line {line} has {width} fields; expected 1 (a label for "
            "every row) or 2 (row, label)"
        )
    return _row_label_pairs(path, rows, ids, n_samples, header)


def _npy_labels(path, n_samples):
    """Labels of a ``.npy`` file of ``n_samples`` integer labels, -1 unknown."""
    arr = load_npy(path)
    if arr.ndim != 1 or arr.shape[0] != n_samples:
        raise ValueError(f"{path}: expected a 1-d array of {n_samples} labels, "
                         f"got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"{path}: expected integer labels (-1 for unknown), got "
                         f"dtype {arr.dtype}")
    return [None if v == -1 else str(v) for v in arr.tolist()]


def _row_label_pairs(path, rows, ids, n_samples, header):
    """Labels of ``(row reference, label)`` lines; rows not named are unknown.

    ``rows`` are the non-blank lines of the file, ``[(line, [cells])]``.
    """
    check_width(path, rows, 2, expected="2 (row, label)")
    lookup = None if ids is None else set(ids)
    if header == "infer":
        has_header = not names_a_row(rows[0][1][0], ids, lookup)
    else:
        has_header = header
    if has_header:
        rows = rows[1:]
    entries = [(line, 1, cells[0]) for line, cells in rows]
    index = resolve_references(path, entries, ids, n_samples)
    keys = [None] * n_samples
    first_line = {}
    for (line, cells), i in zip(rows, index.tolist()):
        if i in first_line:
            raise ValueError(
                f"{path}: line {line}: labels row {i} again (first on line "
                f"{first_line[i]})"
            )
        first_line[i] = line
        keys[i] = _label_key(cells[1])
    return keys


def _one_label_per_row(path, rows, n_samples, header):
    """Labels one per line; blank lines are unknown labels.

    Blank lines at the end of the file count only as far as needed to reach
    the expected number of lines. With ``header="infer"`` the first line is a
    header when it is text over numeric labels, or when the line count says
    so; a first line that the count makes a label, but that no other row has
    as its label, may be a header with one label missing: an error. So is an
    integer over labels written as floats (``0`` over ``1.0``, as pandas
    writes an unnamed Series) when the count allows a header too.
    """
    last = max(k for k, (_, cells) in enumerate(rows) if cells != [""])
    shortest, longest = last + 1, len(rows)
    first = rows[0][1][0]
    candidates = _header_candidates(rows, n_samples) if header == "infer" else [
        bool(header)]
    fitting = [h for h in candidates if shortest <= n_samples + h <= longest]
    if not fitting:
        raise ValueError(_count_message(path, shortest, longest, n_samples,
                                        candidates == [True]))
    has_header = fitting[0]
    # a number may be a header only over labels written as floats
    # (_header_candidates), and the count allows both
    if len(fitting) == 2 and is_number(first):
        raise ValueError(
            f"{path}: line 1 {show(first)} is either a header over labels "
            "written as floats (as pandas writes an unnamed Series: 0, then "
            f"1.0, 0.0, ...) or the label of the first row; say which{_SAY_WHICH}"
        )
    if candidates == [False, True] and fitting == [False]:
        others = {_label_key(cells[0]) for _, cells in rows[1:]}
        if _label_key(first) not in others:
            raise ValueError(
                f"{path}: line 1 {show(first)} is either a header, leaving "
                f"{n_samples - 1} labels for the {n_samples} data rows, or the "
                f"label of the first row (a label no other row has); say "
                f"which{_SAY_WHICH}"
            )
    rows = rows[:n_samples + has_header][int(has_header):]
    return [_label_key(cells[0]) for _, cells in rows]


_SAY_WHICH = " (command line: --labels-header yes|no; Python: header=True|False)"


def _integer_over_floats(rows):
    """Whether the first line is an integer and every other label a number
    written as a float (``1.0``): a header, or a label?"""
    others = [cells[0] for _, cells in rows[1:] if cells != [""]]
    return (is_integer_text(rows[0][1][0]) and bool(others)
            and all(is_number(cell) and not is_integer_text(cell)
                    for cell in others))


def _header_candidates(rows, n_samples):
    """Whether the first line may be a header (True) or a label (False), the
    likelier first."""
    first = rows[0][1][0]
    if first == "" or first.casefold() in UNKNOWN_LABELS:
        return [False]
    if is_number(first):
        return [False, True] if _integer_over_floats(rows) else [False]
    others = [cells[0] for _, cells in rows[1:] if cells != [""]]
    if others and all(is_number(cell) for cell in others):
        return [True]  # a name over numeric labels
    # both fit when blank lines end the file: prefer the exact count
    return sorted([False, True], key=lambda h: n_samples + h != len(rows))


def _count_message(path, shortest, longest, n_samples, has_header):
    """The file's line count does not give one label per data row."""
    skip = 1 if has_header else 0
    lines = f"{longest - skip} line{'' if longest - skip == 1 else 's'}"
    counted = (lines if shortest == longest else
               f"{lines} ({shortest - skip} up to the last label, then blank "
               "lines)")
    if has_header:
        return (f"{path}: {counted} after the header line; expected one label "
                f"per data row ({n_samples})")
    return (f"{path}: {counted}; expected one label per data row ({n_samples}), "
            "after an optional header line")


def _codes(keys):
    """Codes of the labels in order of first appearance (-1: unknown), and
    the label of every code."""
    mapping = {}
    out = np.full(len(keys), -1, dtype=np.int64)
    for i, key in enumerate(keys):
        if key is not None:
            out[i] = mapping.setdefault(key, len(mapping))
    return out, list(mapping)
