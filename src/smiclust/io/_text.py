"""Delimited text: decoding, delimiter sniffing, rows with line numbers, headers.

Every function takes the file's ``path`` for its messages; line numbers are
1-based, as a text editor shows them.
"""

import csv
import io as _io
import math

from ._common import (
    TSV_SUFFIXES,
    file_suffix,
    is_integer_text,
    is_number,
    one_line,
    show,
)

#: ``delimiter`` value meaning "runs of white space".
WHITESPACE = "whitespace"


def read_text(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ValueError(
            f"{path}: line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at "
            f"offset {exc.start}); save the file as UTF-8 text"
        ) from None


def sniff_delimiter(path, text):
    if file_suffix(path) in TSV_SUFFIXES:
        return "\t"
    for line in text.splitlines():
        if line.strip():
            break
    else:
        return ","
    if "," in line:
        return ","
    if "\t" in line:
        return "\t"
    if ";" in line:
        return ";"
    if len(line.split()) > 1:
        return WHITESPACE
    return ","


def text_rows(path, delimiter=None, *, keep_blank=False):
    """Rows of a delimited text file as ``[(line_number, [cells])]``.

    Cells are stripped of surrounding white space; blank lines are skipped,
    or kept as ``[""]`` with ``keep_blank=True``. With
    ``delimiter="whitespace"`` a cell loses one pair of surrounding double
    quotes (R's ``write.table`` quotes text: ``"s0"`` is ``s0``); a quoted
    cell cannot hold white space there.
    ``delimiter=None`` sniffs it (tab for ``.tsv``; otherwise comma, tab,
    semicolon or runs of white space, from the first non-blank line).
    """
    text = read_text(path)
    if delimiter is None:
        delimiter = sniff_delimiter(path, text)
    rows = []
    if delimiter == WHITESPACE:
        for number, line in enumerate(text.splitlines(), start=1):
            cells = [_unquote(cell) for cell in line.split()]
            if cells or keep_blank:
                rows.append((number, cells or [""]))
        return rows
    reader = csv.reader(_io.StringIO(text, newline=""), delimiter=delimiter,
                        strict=True)
    start = 1
    try:
        for row in reader:
            line = start
            start = reader.line_num + 1
            cells = [cell.strip() for cell in row]
            if len(cells) == 0 or (len(cells) == 1 and cells[0] == ""):
                if not keep_blank:
                    continue
                cells = [""]
            rows.append((line, cells))
    except csv.Error as exc:
        raise ValueError(
            f"{path}: line {reader.line_num}: malformed CSV ({one_line(exc)})"
        ) from None
    return rows


def _unquote(cell):
    """``cell`` without one pair of surrounding double quotes."""
    if len(cell) >= 2 and cell[0] == cell[-1] == '"':
        return cell[1:-1]
    return cell


def check_width(path, rows, width, *, header_line=None, expected=None):
    for line, cells in rows:
        if len(cells) != width:
            if expected is not None:
                what = expected
            elif header_line is not None:
                what = f"{width} like the header (line {header_line})"
            else:
                what = f"{width} like line {rows[0][0]}"
            raise ValueError(
                f"{path}: line {line} has {len(cells)} field(s); expected {what}"
            )


#: Cells that mark a missing value in exported tables (compared in lower
#: case): text, but no column name.
MISSING_MARKERS = frozenset({"na", "n/a", "#n/a", "null", "none", "?", "missing"})


def infer_header(path, rows, skip=None):
    """Whether the first row names columns (True), is data (False), or may be
    either: a ValueError asking which.

    The column ``skip`` (the id column, whose cells are text anyway) is not
    looked at; a cell is *named* when it is text that is no missing-value
    marker (:data:`MISSING_MARKERS`: ``NA``, ``?``, ...). The first row is

    - a header when every cell is named;
    - with some cells named and some numbers, a header when a named cell sits
      over a number of the second row and every number of the first row is
      an integer (``x,1,2``); when one of them is not (``0.5,1.2o``, a row of
      data with a typo) it may be either;
    - with every cell a number, data; but integers increasing strictly from
      left to right over a non-integer number of a later row in one of those
      columns (pandas' default names ``0,1,2``, wavelengths ``400,450``,
      years) may be either;
    - otherwise data.
    """
    first = _kept(rows[0][1], skip)
    if first and all(_named(cell) for cell in first):
        return True
    if first and all(is_number(cell) for cell in first):
        if _increasing_integers(first) and _non_integer_below(rows, skip):
            _ambiguous_header(path, rows[0])
        return False
    if len(rows) < 2:
        return False
    second = _kept(rows[1][1], skip)
    if not any(_named(a) and is_number(b) for a, b in zip(first, second)):
        return False
    if all(is_integer_text(cell) for cell in first if is_number(cell)):
        return True
    _ambiguous_header(path, rows[0])


def _named(cell):
    """Whether a cell reads as a column name: text, no missing-value marker."""
    return (cell != "" and not is_number(cell)
            and cell.lower() not in MISSING_MARKERS)


def _kept(cells, skip):
    return [c for j, c in enumerate(cells) if j != skip]


def _increasing_integers(cells):
    """Whether the cells write integers increasing strictly from left to right."""
    if not all(is_integer_text(cell) for cell in cells):
        return False
    values = [int(cell) for cell in cells]
    return all(a < b for a, b in zip(values, values[1:]))


def _non_integer_below(rows, skip):
    """Whether a row after the first has a finite number written as no integer
    (``0.5``, ``1.0``) in a column other than ``skip``."""
    return any(not is_integer_text(cell) and is_number(cell)
               and math.isfinite(float(cell))
               for _, cells in rows[1:] for cell in _kept(cells, skip))


def _ambiguous_header(path, row):
    line, cells = row
    shown = ",".join(show(cell) for cell in cells)
    raise ValueError(
        f"{path}: line {line}: {shown} could be column names or a row of data; "
        "say which (command line: --header yes or --header no; Python: "
        "header=True or header=False)"
    )
