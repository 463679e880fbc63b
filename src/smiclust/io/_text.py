"""Delimited text: decoding, delimiter sniffing, rows with line numbers, headers.

Every function takes the file's ``path`` for its messages; line numbers are
1-based, as a text editor shows them.
"""

import csv
import io as _io

from ._common import TSV_SUFFIXES, file_suffix, is_number, one_line

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


def infer_header(rows, skip=None):
    """A first row is a header when it names columns.

    That is, when every cell of it is non-empty text, or when some cell is text
    where the second row has a number. A missing-value marker
    (:data:`MISSING_MARKERS`: ``NA``, ``?``, ...) is no name, and the column
    ``skip`` (the id column, whose cells are text anyway) is not looked at.
    """
    def named(cell):
        return (cell != "" and not is_number(cell)
                and cell.lower() not in MISSING_MARKERS)

    def kept(cells):
        return [c for j, c in enumerate(cells) if j != skip]

    first = kept(rows[0][1])
    if first and all(named(cell) for cell in first):
        return True
    if len(rows) < 2:
        return False
    second = kept(rows[1][1])
    return any(named(a) and is_number(b) for a, b in zip(first, second))
