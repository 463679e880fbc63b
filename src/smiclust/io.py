"""Read data, links and partial labels from files; write cluster assignments.

Pure readers and writers behind ``smiclust fit`` and ``smiclust predict``:

- :func:`read_table`: a data matrix from delimited text (CSV, TSV, ...), a
  ``.npy`` array, or Parquet (needs pyarrow, extra ``io``);
- :func:`read_links`: must-links or cannot-links, two row references a line;
- :func:`read_labels`: partial labels, unknown ones as ``-1``;
- :func:`write_assignments`: one cluster (and optionally the class
  probabilities) per input row, in input order, as CSV, JSON or Parquet.

Conventions. Line and column numbers in messages are 1-based, as a text editor
or a spreadsheet shows them. Row references in link and label files are either
0-based row indices or values of the data's id column. Column arguments
(``id_column``, ``columns``) are names from the header or 0-based positions.

Every malformed input raises a :class:`ValueError` whose message is one line:
the file, where (line and column, or row and column name) and what was expected.
An unreadable file (missing, a directory, no permission) raises the usual
:class:`OSError`; Parquet without pyarrow raises :class:`ImportError`.

Examples
--------
>>> import os, tempfile
>>> from smiclust.io import read_links, read_table
>>> tmp = tempfile.mkdtemp()
>>> data = os.path.join(tmp, "data.csv")
>>> with open(data, "w") as f:
...     _ = f.write("id,x,y\\na,0.0,1.0\\nb,0.5,1.5\\nc,3.0,0.0\\n")
>>> X, ids, names = read_table(data, id_column="id")
>>> X.shape, ids.tolist(), names
((3, 2), ['a', 'b', 'c'], ['x', 'y'])
>>> links = os.path.join(tmp, "must.csv")
>>> with open(links, "w") as f:
...     _ = f.write("a,b\\n")
>>> read_links(links, ids=ids, n_samples=3).tolist()
[[0, 1]]
"""

import csv
import io as _io
import json
import math
import re
from pathlib import Path

import numpy as np

__all__ = [
    "read_table",
    "read_links",
    "read_labels",
    "write_assignments",
    "assignment_columns",
    "format_from_suffix",
    "OUTPUT_FORMATS",
]

#: Formats of :func:`write_assignments`.
OUTPUT_FORMATS = ("csv", "json", "parquet")

_PARQUET_SUFFIXES = {".parquet", ".pq"}
_NPY_SUFFIXES = {".npy"}
_TSV_SUFFIXES = {".tsv", ".tab"}
_WHITESPACE = "whitespace"
_INT_RE = re.compile(r"[+-]?\d+(?:\.0*)?")
#: Cells of a label file that mean "no label" (compared case-insensitively).
UNKNOWN_LABELS = frozenset({"", "-1", "na", "n/a", "nan", "null", "none"})
_MAX_SHOWN_NAMES = 12


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _one_line(text):
    return " ".join(str(text).split())


def _show(cell, limit=40):
    """repr of a cell, shortened; control characters escaped (one line)."""
    if len(cell) > limit:
        return repr(cell[: limit - 3]) + "..."
    return repr(cell)


def _suffix(path):
    return Path(str(path)).suffix.lower()


def format_from_suffix(path, default="csv"):
    """Output format implied by a file name: ``.json``, ``.parquet``/``.pq``, else CSV.

    Examples
    --------
    >>> format_from_suffix("labels.parquet"), format_from_suffix("out.txt")
    ('parquet', 'csv')
    """
    if path is None:
        return default
    suffix = _suffix(path)
    if suffix == ".json":
        return "json"
    if suffix in _PARQUET_SUFFIXES:
        return "parquet"
    return default


def _is_number(cell):
    if cell == "":
        return False
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _parse_int(cell):
    if _INT_RE.fullmatch(cell) is None:
        return None
    return int(float(cell)) if "." in cell else int(cell)


def _import_pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(
            "Parquet files need pyarrow: pip install 'smiclust[io]'"
        ) from None
    return pa, pq


def _read_text(path):
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


def _sniff_delimiter(path, text):
    if _suffix(path) in _TSV_SUFFIXES:
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
        return _WHITESPACE
    return ","


def _text_rows(path, delimiter=None, *, keep_blank=False):
    """Rows of a delimited text file as ``[(line_number, [cells])]``.

    Cells are stripped of surrounding white space; blank lines are skipped,
    or kept as ``[""]`` with ``keep_blank=True``.
    ``delimiter=None`` sniffs it (tab for ``.tsv``; otherwise comma, tab,
    semicolon or runs of white space, from the first non-blank line).
    """
    text = _read_text(path)
    if delimiter is None:
        delimiter = _sniff_delimiter(path, text)
    rows = []
    if delimiter == _WHITESPACE:
        for number, line in enumerate(text.splitlines(), start=1):
            cells = line.split()
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
            f"{path}: line {reader.line_num}: malformed CSV ({_one_line(exc)})"
        ) from None
    return rows


def _check_width(path, rows, width, *, header_line=None, expected=None):
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


def _infer_header(rows):
    """A first row is a header when it names columns.

    That is, when every cell of it is non-empty text, or when some cell is text
    where the second row has a number.
    """
    first = rows[0][1]
    if all(cell != "" and not _is_number(cell) for cell in first):
        return True
    if len(rows) < 2:
        return False
    second = rows[1][1]
    return any(
        a != "" and not _is_number(a) and _is_number(b) for a, b in zip(first, second)
    )


def _check_header_arg(header):
    if header not in ("infer", True, False):
        raise ValueError(
            f"The 'header' parameter must be 'infer', True or False; got {header!r}."
        )


def _names_text(names):
    shown = ", ".join(repr(n) for n in names[:_MAX_SHOWN_NAMES])
    if len(names) > _MAX_SHOWN_NAMES:
        shown += f", ... ({len(names)} in all)"
    return shown


def _resolve_column(path, spec, names, width, what):
    """0-based position of a column given by name or position."""
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        index = int(spec)
    elif isinstance(spec, str):
        if names is not None and spec in names:
            return names.index(spec)
        index = _parse_int(spec.strip()) if "." not in spec else None
        if index is None:
            if names is None:
                raise ValueError(
                    f"{path}: unknown {what} {spec!r}: the file has no header line, "
                    "so columns are referred to by 0-based position"
                )
            hint = ""
            if len(names) == 1 and any(c in names[0] for c in ",;\t|"):
                hint = " (a single column: is --delimiter right?)"
            raise ValueError(
                f"{path}: unknown {what} {spec!r}; the columns are "
                f"{_names_text(names)}{hint}"
            )
    else:
        raise TypeError(f"{what} must be a column name or a 0-based position; got "
                        f"{spec!r}")
    if not 0 <= index < width:
        raise ValueError(
            f"{path}: {what} {spec!r} does not exist; the file has {width} column(s) "
            f"(0-based positions 0 to {width - 1})"
        )
    return index


def _feature_positions(path, names, width, id_index, columns):
    if columns is None:
        positions = [j for j in range(width) if j != id_index]
    else:
        if isinstance(columns, (str, int)):
            columns = [columns]
        positions = []
        for spec in columns:
            j = _resolve_column(path, spec, names, width, "column")
            if j == id_index:
                raise ValueError(
                    f"{path}: column {spec!r} is the id column; it cannot also be a "
                    "feature"
                )
            if j in positions:
                raise ValueError(f"{path}: column {spec!r} is selected twice")
            positions.append(j)
    if not positions:
        raise ValueError(f"{path}: no feature columns (only the id column)")
    return positions


def _check_ids(path, ids, where):
    """``where(i)`` describes the position of id ``i`` in the file."""
    seen = {}
    for i, value in enumerate(ids):
        if value == "":
            raise ValueError(f"{path}: {where(i)}: empty id")
        if value in seen:
            raise ValueError(
                f"{path}: {where(i)}: duplicate id {_show(value)} (also at "
                f"{where(seen[value])})"
            )
        seen[value] = i
    return np.array(ids, dtype=object)


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------


def read_table(path, *, id_column=None, header="infer", columns=None,
               delimiter=None):
    """Read a data matrix, with optional row ids, from a file.

    Parameters
    ----------
    path : str or path-like
        ``.npy`` (a 2-d numeric array), ``.parquet``/``.pq`` (numeric columns;
        needs pyarrow), anything else is read as delimited text: comma, tab,
        semicolon or white space separated, sniffed from the first line (tab
        for ``.tsv``), UTF-8, blank lines skipped.
    id_column : str or int, default=None
        Column of row ids (name or 0-based position), not a feature. Ids must
        be non-empty and unique; they are returned as strings.
    header : {"infer", True, False}, default="infer"
        Whether the first line of a text file names the columns. ``"infer"``
        takes it as a header when all its cells are text, or when a cell is
        text where the next line has a number.
    columns : list of str or int, default=None
        Feature columns to use, in this order (names or 0-based positions);
        by default every column but the id column.
    delimiter : str, default=None
        Field separator of a text file (one character, or ``"whitespace"`` for
        runs of white space); ``None`` sniffs it.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
        Finite values; one row per data line, in file order.
    ids : ndarray of shape (n_samples,), dtype object, or None
        Row ids (str), ``None`` without an id column.
    feature_names : list of str or None
        Names of the feature columns, ``None`` when the file has none
        (text without a header, ``.npy``).

    Raises
    ------
    ValueError
        Malformed content: not UTF-8, bad quoting, rows of different lengths,
        a header that does not match the rows, empty, non-numeric or
        non-finite cells, unknown column names, empty or duplicate ids,
        duplicate or missing column names, no data rows.
    OSError
        The file cannot be read.
    ImportError
        A Parquet file without pyarrow.
    """
    _check_header_arg(header)
    suffix = _suffix(path)
    if suffix in _NPY_SUFFIXES:
        return _read_npy_table(path, id_column=id_column, columns=columns)
    if suffix in _PARQUET_SUFFIXES:
        return _read_parquet_table(path, id_column=id_column, columns=columns)
    if suffix == ".npz":
        raise ValueError(f"{path}: .npz archives are not supported; save one array "
                         "with numpy.save (.npy)")
    return _read_text_table(path, id_column=id_column, header=header,
                            columns=columns, delimiter=delimiter)


def _read_text_table(path, *, id_column, header, columns, delimiter):
    rows = _text_rows(path, delimiter)
    if not rows:
        raise ValueError(f"{path}: the file is empty (no rows)")
    has_header = _infer_header(rows) if header == "infer" else header
    width = len(rows[0][1])
    _check_width(path, rows, width, header_line=rows[0][0] if has_header else None)
    names = None
    if has_header:
        header_line, names = rows[0]
        rows = rows[1:]
        seen = {}
        for j, name in enumerate(names):
            if name in seen and name != "":
                raise ValueError(
                    f"{path}: line {header_line}: duplicate column name {_show(name)} "
                    f"(columns {seen[name] + 1} and {j + 1})"
                )
            seen[name] = j
    if not rows:
        raise ValueError(f"{path}: no data rows (only a header line)")

    id_index = None
    if id_column is not None:
        id_index = _resolve_column(path, id_column, names, width, "id column")
    positions = _feature_positions(path, names, width, id_index, columns)
    if names is not None:
        for j in positions:
            if names[j] == "":
                raise ValueError(
                    f"{path}: line {header_line}, column {j + 1}: a feature column "
                    "without a name (an unnamed index column?); name it or make it "
                    "the id column"
                )

    lines = [line for line, _ in rows]
    X = np.empty((len(rows), len(positions)), dtype=np.float64)
    for k, j in enumerate(positions):
        cells = [cells[j] for _, cells in rows]
        try:
            X[:, k] = np.array(cells, dtype=np.float64)
        except ValueError:
            bad = next(i for i, cell in enumerate(cells) if not _is_number(cell))
            got = "an empty cell" if cells[bad] == "" else _show(cells[bad])
            raise ValueError(
                f"{path}: line {lines[bad]}, column {j + 1}{_col_name(names, j)}: "
                f"expected a number, got {got}" + _id_hint(id_column, j)
            ) from None
        finite = np.isfinite(X[:, k])
        if not finite.all():
            bad = int(np.flatnonzero(~finite)[0])
            raise ValueError(
                f"{path}: line {lines[bad]}, column {j + 1}{_col_name(names, j)}: "
                f"expected a finite number, got {_show(cells[bad])}"
            )
    ids = None
    if id_index is not None:
        ids = _check_ids(
            path, [cells[id_index] for _, cells in rows],
            lambda i: f"line {lines[i]}, column {id_index + 1}",
        )
    feature_names = None if names is None else [names[j] for j in positions]
    return X, ids, feature_names


def _col_name(names, j):
    return "" if names is None or names[j] == "" else f" ({_show(names[j])})"


def _id_hint(id_column, j):
    if id_column is None and j == 0:
        return " (if this column holds row ids, make it the id column)"
    return ""


def _read_npy_table(path, *, id_column, columns):
    if id_column is not None:
        raise ValueError(f"{path}: a .npy array has no id column; use a CSV or "
                         "Parquet file for row ids")
    arr = _load_npy(path)
    if arr.dtype.names is not None or arr.dtype.kind not in "biuf":
        raise ValueError(f"{path}: expected a numeric array, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(
            f"{path}: expected a 2-d array (n_samples, n_features), got shape "
            f"{arr.shape}"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{path}: the array is empty (shape {arr.shape})")
    positions = _feature_positions(path, None, arr.shape[1], None, columns)
    X = np.ascontiguousarray(arr[:, positions], dtype=np.float64)
    finite = np.isfinite(X)
    if not finite.all():
        i, k = np.argwhere(~finite)[0]
        raise ValueError(
            f"{path}: row {i}, column {positions[k]} (0-based): expected a finite "
            f"number, got {X[i, k]!r}"
        )
    return X, None, None


def _read_parquet_table(path, *, id_column, columns):
    pa, pq = _import_pyarrow()
    with open(path, "rb") as f:
        try:
            table = pq.read_table(f)
        except Exception as exc:
            raise ValueError(
                f"{path}: not a readable Parquet file ({_one_line(exc)})"
            ) from None
    names = [str(n) for n in table.column_names]
    width = len(names)
    if width == 0:
        raise ValueError(f"{path}: the table has no columns")
    for j, name in enumerate(names):
        if names.index(name) != j:
            raise ValueError(f"{path}: duplicate column name {_show(name)}")
    if table.num_rows == 0:
        raise ValueError(f"{path}: no data rows")
    id_index = None
    if id_column is not None:
        id_index = _resolve_column(path, id_column, names, width, "id column")
    positions = _feature_positions(path, names, width, id_index, columns)
    X = np.empty((table.num_rows, len(positions)), dtype=np.float64)
    for k, j in enumerate(positions):
        col = table.column(j)
        t = col.type
        if not (pa.types.is_integer(t) or pa.types.is_floating(t)
                or pa.types.is_boolean(t) or pa.types.is_decimal(t)):
            raise ValueError(
                f"{path}: column {_show(names[j])} holds {t}; expected numbers"
            )
        if col.null_count:
            bad = _first_null(col)
            raise ValueError(
                f"{path}: row {bad} (0-based), column {_show(names[j])}: missing value"
            )
        X[:, k] = np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)
        finite = np.isfinite(X[:, k])
        if not finite.all():
            bad = int(np.flatnonzero(~finite)[0])
            raise ValueError(
                f"{path}: row {bad} (0-based), column {_show(names[j])}: expected a "
                f"finite number, got {X[bad, k]!r}"
            )
    ids = None
    if id_index is not None:
        values = table.column(id_index).to_pylist()
        if any(v is None for v in values):
            bad = values.index(None)
            raise ValueError(
                f"{path}: row {bad} (0-based), column {_show(names[id_index])}: "
                "missing id"
            )
        ids = _check_ids(path, [_id_text(v) for v in values],
                         lambda i: f"row {i} (0-based)")
    return X, ids, [names[j] for j in positions]


def _first_null(col):
    offset = 0
    for chunk in col.chunks:
        mask = np.asarray(chunk.is_null().to_numpy(zero_copy_only=False))
        if mask.any():
            return offset + int(np.flatnonzero(mask)[0])
        offset += len(chunk)
    return 0


def _id_text(value):
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


# ---------------------------------------------------------------------------
# row references: links and labels
# ---------------------------------------------------------------------------


def _is_reference(cell, id_lookup):
    return (id_lookup is not None and cell in id_lookup) or _parse_int(cell) is not None


def _names_a_row(cell, ids, lookup):
    """Whether a first-line cell refers to a row (so the line is no header):
    an id, an integer, or an id but for its case (a typo, reported later)."""
    return _is_reference(cell, lookup) or (
        _matches_an_id_but_for_case(cell, ids) is not None
    )


def _matches_an_id_but_for_case(cell, ids):
    """The id equal to ``cell`` up to case and surrounding blanks, or None."""
    if ids is None or not cell:
        return None
    folded = cell.strip().casefold()
    return next((v for v in ids if str(v).strip().casefold() == folded), None)


def _reference_hint(cell, ids, lookup):
    """Why ``cell``, not an id, might be meant as one: a parenthesised hint."""
    near = _matches_an_id_but_for_case(cell, ids)
    if near is not None:
        return f" (the data has the id {_show(near)})"
    if _parse_int(cell) is not None:
        return (" (a file refers to rows either all by id or all by index; "
                "other cells of this file are ids)")
    return ""


def _resolve_references(path, entries, ids, n_samples):
    """Row indices of ``entries = [(line, column, cell)]``.

    With ids, every cell is matched as an id. Only a file in which *no* cell is
    an id and every cell is an integer is read as 0-based row indices: with
    integer ids (say, row numbers of a larger table), a file where some cells
    are ids and others are not is an error, never a silent re-reading of the
    whole file as indices.
    """
    if not entries:
        return np.empty(0, dtype=np.intp)
    if ids is not None:
        lookup = {value: i for i, value in enumerate(ids)}
        found = [lookup.get(cell) for _, _, cell in entries]
        if all(i is not None for i in found):
            return np.array(found, dtype=np.intp)
        all_integers = all(_parse_int(cell) is not None for _, _, cell in entries)
        if not all_integers or any(i is not None for i in found):
            k = next(k for k, i in enumerate(found) if i is None)
            line, column, cell = entries[k]
            raise ValueError(
                f"{path}: line {line}, column {column}: {_show(cell)} is not an id "
                f"of the data{_reference_hint(cell, ids, lookup)}"
            )
    out = np.empty(len(entries), dtype=np.intp)
    for k, (line, column, cell) in enumerate(entries):
        value = _parse_int(cell)
        if value is None:
            raise ValueError(
                f"{path}: line {line}, column {column}: expected a 0-based row "
                f"index (an integer), got {_show(cell) if cell else 'an empty cell'} "
                "(rows can be referred to by id only when the data has an id column)"
            )
        if not 0 <= value < n_samples:
            raise ValueError(
                f"{path}: line {line}, column {column}: row index {value} is out of "
                f"range [0, {n_samples - 1}] (the data has {n_samples} rows)"
            )
        out[k] = value
    return out


def _check_n_samples(n_samples):
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) \
            or n_samples < 1:
        raise ValueError(
            f"The 'n_samples' parameter must be a positive int; got {n_samples!r}."
        )


def read_links(path, *, ids=None, n_samples, header="infer", delimiter=None):
    """Read must-links or cannot-links: two row references per line.

    Parameters
    ----------
    path : str or path-like
        Delimited text with two fields a line (an optional header line), or a
        ``.npy`` integer array of shape ``(n_links, 2)`` of row indices. An
        empty file means no links.
    ids : array-like of str, default=None
        Ids of the data rows (from :func:`read_table`). When given, the cells
        are matched against them; a file whose cells are all integers and
        none of them an id is read as 0-based row indices (some ids and some
        non-ids is an error). Without ids, cells are 0-based row indices.
    n_samples : int
        Number of data rows.
    header : {"infer", True, False}, default="infer"
        ``"infer"`` takes the first line as a header when neither of its two
        cells refers to a row (not an id, not an integer, not an id up to
        case).
    delimiter : str, default=None
        Field separator; ``None`` sniffs it.

    Returns
    -------
    links : ndarray of shape (n_links, 2), dtype intp
        Row indices, in file order, as written (not sorted within a pair).

    Raises
    ------
    ValueError
        A line without exactly two fields, a cell that is neither an id nor a
        row index, an index out of range, a row linked to itself, or a link
        given twice (in either order).
    """
    _check_header_arg(header)
    _check_n_samples(n_samples)
    if _suffix(path) in _NPY_SUFFIXES:
        return _read_npy_links(path, n_samples)
    rows = _text_rows(path, delimiter)
    if not rows:
        return np.empty((0, 2), dtype=np.intp)
    _check_width(path, rows, 2, expected="2 (the two rows of a link)")
    lookup = None if ids is None else set(ids)
    if header == "infer":
        has_header = not any(_names_a_row(cell, ids, lookup) for cell in rows[0][1])
    else:
        has_header = header
    if has_header:
        rows = rows[1:]
    entries = [(line, c + 1, cells[c]) for line, cells in rows for c in (0, 1)]
    flat = _resolve_references(path, entries, ids, n_samples)
    links = flat.reshape(-1, 2)
    seen = {}
    for (line, _), (i, j) in zip(rows, links.tolist()):
        if i == j:
            raise ValueError(f"{path}: line {line}: links row {i} to itself")
        key = (min(i, j), max(i, j))
        if key in seen:
            raise ValueError(
                f"{path}: line {line}: repeats the link of line {seen[key]} "
                f"(rows {key[0]} and {key[1]})"
            )
        seen[key] = line
    return links


def _load_npy(path):
    with open(path, "rb") as f:
        try:
            arr = np.load(f, allow_pickle=False)
        except Exception as exc:
            reason = _one_line(exc) or type(exc).__name__
            if "allow_pickle" in reason:
                reason = "it holds pickled objects, which are never loaded"
            raise ValueError(f"{path}: not a readable .npy file ({reason})") from None
    if not isinstance(arr, np.ndarray):
        raise ValueError(f"{path}: expected one array saved by numpy.save")
    return arr


def _read_npy_links(path, n_samples):
    arr = _load_npy(path)
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.intp)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{path}: expected an array of shape (n_links, 2), got shape "
                         f"{arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"{path}: expected integer row indices, got dtype "
                         f"{arr.dtype}")
    links = arr.astype(np.intp)
    seen = {}
    for k, (i, j) in enumerate(links.tolist()):
        for v in (i, j):
            if not 0 <= v < n_samples:
                raise ValueError(
                    f"{path}: link {k} (0-based): row index {v} is out of range "
                    f"[0, {n_samples - 1}] (the data has {n_samples} rows)"
                )
        if i == j:
            raise ValueError(f"{path}: link {k} (0-based): links row {i} to itself")
        key = (min(i, j), max(i, j))
        if key in seen:
            raise ValueError(f"{path}: link {k} (0-based): repeats link {seen[key]}")
        seen[key] = k
    return links


def _label_key(cell):
    """Canonical text of a label, or None for unknown."""
    text = cell.strip()
    if text.lower() in UNKNOWN_LABELS:
        return None
    try:
        value = float(text)
    except ValueError:
        return text
    if math.isfinite(value) and value.is_integer():
        text = str(int(value))
        return None if text == "-1" else text
    return text


def read_labels(path, *, ids=None, n_samples, header="infer", delimiter=None):
    """Read partial labels: a label for some rows, the others unknown.

    Two layouts of delimited text are accepted:

    - one field a line: the label of every data row, in order (an optional
      header line makes it ``n_samples + 1`` lines);
    - two fields a line: a row reference (0-based index or id, as in
      :func:`read_links`) and its label, for the labelled rows only.

    A label is any text; integers written as floats (``"1.0"``) equal their
    integer. Empty cells, ``-1``, ``NA``, ``N/A``, ``NaN``, ``null`` and
    ``None`` (any case) mean unknown. A ``.npy`` file holds a 1-d integer array
    of length ``n_samples`` with ``-1`` for unknown.

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
        ``n_samples + 1`` lines; with two fields, when its first cell does not
        refer to a row.
    delimiter : str, default=None
        Field separator; ``None`` sniffs it.

    Returns
    -------
    labels : ndarray of shape (n_samples,), dtype int64
        Codes ``0, 1, ...`` of the distinct labels, numbered in row order,
        ``-1`` for unknown.

    Raises
    ------
    ValueError
        Lines of other widths, a wrong number of lines, bad row references,
        a row labelled twice.
    """
    _check_header_arg(header)
    _check_n_samples(n_samples)
    if _suffix(path) in _NPY_SUFFIXES:
        arr = _load_npy(path)
        if arr.ndim != 1 or arr.shape[0] != n_samples:
            raise ValueError(f"{path}: expected a 1-d array of {n_samples} labels, "
                             f"got shape {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise ValueError(f"{path}: expected integer labels (-1 for unknown), got "
                             f"dtype {arr.dtype}")
        keys = [None if v == -1 else str(v) for v in arr.tolist()]
        return _codes(keys)
    rows = _text_rows(path, delimiter, keep_blank=True)
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
    _check_width(path, rows, 2, expected="2 (row, label)")
    lookup = None if ids is None else set(ids)
    if header == "infer":
        has_header = not _names_a_row(rows[0][1][0], ids, lookup)
    else:
        has_header = header
    if has_header:
        rows = rows[1:]
    entries = [(line, 1, cells[0]) for line, cells in rows]
    index = _resolve_references(path, entries, ids, n_samples)
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
    return _codes(keys)


def _one_label_per_row(path, rows, n_samples, header):
    """Labels one per line; blank lines are unknown labels.

    Blank lines at the end of the file count only as far as needed to reach
    the expected number of lines. With ``header="infer"`` the first line is a
    header when it is text over numeric labels, or when the line count says so.
    """
    last = max(k for k, (_, cells) in enumerate(rows) if cells != [""])
    shortest, longest = last + 1, len(rows)
    first = rows[0][1][0]
    if header == "infer":
        others = [cells[0] for _, cells in rows[1:] if cells != [""]]
        if first != "" and not _is_number(first) and others and all(
                _is_number(cell) for cell in others):
            options = [(True, n_samples + 1)]  # a name over numeric labels
        else:
            options = [(False, n_samples)]
            if first != "":
                options.append((True, n_samples + 1))
            # both fit when blank lines end the file: prefer the exact count
            options.sort(key=lambda option: option[1] != len(rows))
    else:
        options = [(header, n_samples + (1 if header else 0))]
    for has_header, total in options:
        if shortest <= total <= longest:
            rows = rows[:total][1 if has_header else 0:]
            return _codes([_label_key(cells[0]) for _, cells in rows])
    counted = (f"{longest} lines" if shortest == longest else
               f"{longest} lines ({shortest} up to the last label, then blank "
               "lines)")
    raise ValueError(
        f"{path}: {counted}; expected one label per data row ({n_samples}), "
        "after an optional header line"
    )


def _codes(keys):
    mapping = {}
    out = np.full(len(keys), -1, dtype=np.int64)
    for i, key in enumerate(keys):
        if key is not None:
            out[i] = mapping.setdefault(key, len(mapping))
    return out


# ---------------------------------------------------------------------------
# output
# ---------------------------------------------------------------------------


def assignment_columns(labels, proba=None, ids=None, *, id_name="id"):
    """Columns of an assignment table, as an ordered dict of name -> list.

    ``id_name`` (when ``ids`` is given), ``cluster``, then ``proba_0``,
    ``proba_1``, ... (when ``proba`` is given).

    Examples
    --------
    >>> assignment_columns([0, 1], ids=["a", "b"])
    {'id': ['a', 'b'], 'cluster': [0, 1]}
    """
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise ValueError(f"labels must be 1-d; got shape {labels.shape}")
    n = labels.shape[0]
    out = {}
    if ids is not None:
        ids = [str(v) for v in ids]
        if len(ids) != n:
            raise ValueError(f"ids must have one entry per label: expected {n}, got "
                             f"{len(ids)}")
        out[id_name] = ids
    out["cluster"] = [int(v) for v in labels]
    if proba is not None:
        proba = np.asarray(proba, dtype=np.float64)
        if proba.ndim != 2 or proba.shape[0] != n:
            raise ValueError(f"proba must have shape ({n}, n_clusters); got "
                             f"{proba.shape}")
        for k in range(proba.shape[1]):
            out[f"proba_{k}"] = [float(v) for v in proba[:, k]]
    return out


def write_assignments(path, labels, proba=None, ids=None, format=None, *,
                      id_name="id"):
    """Write one cluster (and class probabilities) per row, in input order.

    Parameters
    ----------
    path : str, path-like or file object
        Destination. A text file object (e.g. ``sys.stdout``) for CSV and
        JSON; Parquet needs a path or a binary file object.
    labels : array-like of shape (n_samples,)
    proba : array-like of shape (n_samples, n_clusters), default=None
        Written as columns ``proba_0``, ``proba_1``, ...
    ids : array-like of shape (n_samples,), default=None
        Written first, as column ``id_name``.
    format : {"csv", "json", "parquet"}, default=None
        ``None``: from the suffix of ``path`` (``.json``, ``.parquet``/``.pq``,
        CSV otherwise).
    id_name : str, default="id"

    Notes
    -----
    CSV has a header line (tab-separated when ``path`` ends in ``.tsv``, as
    such input is read); JSON is a list of one object per row with the same
    keys as the CSV columns; Parquet has the same columns (ids as strings).
    Floats are written with the shortest text that reads back exactly.
    """
    if format is None:
        format = format_from_suffix(None if hasattr(path, "write") else path)
    if format not in OUTPUT_FORMATS:
        raise ValueError(f"The 'format' parameter must be one of {OUTPUT_FORMATS}; "
                         f"got {format!r}.")
    cols = assignment_columns(labels, proba, ids, id_name=id_name)
    if format == "parquet":
        pa, pq = _import_pyarrow()
        pq.write_table(pa.table(cols), path)
        return
    if hasattr(path, "write"):
        _write_text(path, cols, format)
    else:
        delimiter = "\t" if _suffix(path) == ".tsv" else ","
        with open(path, "w", newline="", encoding="utf-8") as f:
            _write_text(f, cols, format, delimiter)


def _write_text(f, cols, format, delimiter=","):
    names = list(cols)
    rows = zip(*cols.values())
    if format == "csv":
        writer = csv.writer(f, delimiter=delimiter, lineterminator="\n")
        writer.writerow(names)
        writer.writerows(rows)
        return
    f.write("[")
    for k, row in enumerate(rows):
        f.write(",\n " if k else "\n ")
        f.write(json.dumps(dict(zip(names, row))))
    f.write("\n]\n")
