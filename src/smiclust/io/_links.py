"""Must-links and cannot-links from files; row references by index or by id."""

import re

import numpy as np

from ..constraints import MAX_LINK_WEIGHT
from ._common import (
    ANSWERS,
    NPY_SUFFIXES,
    check_delimiter_arg,
    check_header_arg,
    check_n_samples,
    file_suffix,
    is_number,
    load_npy,
    parse_int,
    show,
    text_ids,
)
from ._text import check_width, text_rows


def read_links(path, *, ids=None, n_samples, header="infer", delimiter=None):
    """Read must-links or cannot-links: two row references per line.

    Parameters
    ----------
    path : str or path-like
        Delimited text with two fields a line (an optional header line), or a
        ``.npy`` integer array of shape ``(n_links, 2)`` of row indices. An
        empty file means no links.
    ids : array-like of str, default=None
        Ids of the data rows (from :func:`read_table`). When given, every cell
        must be one of them, compared as text: ``"1"`` does not name the id
        ``"001"``, and integers are never read as row indices. Without ids,
        cells are 0-based row indices.
    n_samples : int
        Number of data rows.
    header : {"infer", True, False}, default="infer"
        ``"infer"`` takes the first line as a header when neither of its two
        cells refers to a row (not an id, not an integer, not an id up to
        case). A first line of two ids that also reads as column names (the
        same word with the suffixes 1/2 or a/b, as ``id1,id2``, or a pair
        such as ``from,to``, ``source,target``) is an error under
        ``"infer"``: pass ``header=True`` or ``header=False``; so is a first
        line ``0,1`` (``0,1,2`` with a weight column), the header pandas
        writes for unnamed columns or a link between rows 0 and 1.
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

    See Also
    --------
    read_weighted_links : The same files with an optional third column, the
        weight of each link.
    """
    links, _ = _read(path, ids, n_samples, header, delimiter, weighted=False)
    return links


def read_weighted_links(path, *, ids=None, n_samples, header="infer",
                        delimiter=None):
    """Read links with an optional weight column: ``row, row[, weight]`` a line.

    The weight of a link is its confidence, one non-negative finite number
    (``SMIClustering.fit(..., must_link_weight=...)``). Every line of a file
    has the same number of fields: two (no weights) or three (a weight on every
    line). Row references, headers and errors are those of :func:`read_links`.

    Parameters
    ----------
    path : str or path-like
        Delimited text with two or three fields a line (an optional header
        line), or a ``.npy`` array: of shape ``(n_links, 2)`` with integer row
        indices, or of shape ``(n_links, 3)`` whose first two columns are
        integral row indices and whose third column holds the weights. An
        empty file means no links.
    ids : array-like of str, default=None
        Ids of the data rows, as for :func:`read_links`.
    n_samples : int
        Number of data rows.
    header : {"infer", True, False}, default="infer"
        As for :func:`read_links`, judged on the first two cells. In a file of
        three fields, a third cell that is not a number settles a first line
        of two ids that read as column names as a header (``id1,id2,weight``
        even when the data has the ids ``id1`` and ``id2``); a first line of
        two other ids and no number is an error under ``"infer"`` (a header,
        or a link with a bad weight?).
    delimiter : str, default=None
        Field separator; ``None`` sniffs it.

    Returns
    -------
    links : ndarray of shape (n_links, 2), dtype intp
        Row indices, in file order, as written.
    weights : ndarray of shape (n_links,), dtype float64, or None
        The third column; ``None`` when the file has two fields a line (or is
        empty, or a ``.npy`` array of shape ``(n_links, 2)``).

    Raises
    ------
    ValueError
        Everything :func:`read_links` rejects (but a third field), lines of
        different widths, a line of neither two nor three fields, and a weight
        that is not a finite number ``>= 0`` (text, empty, negative, NaN, inf),
        named with the file, line and value.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "must.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("i,j,weight\\n0,1,0.5\\n2,3,2\\n")
    >>> links, weights = read_weighted_links(path, n_samples=4)
    >>> links.tolist(), weights.tolist()
    ([[0, 1], [2, 3]], [0.5, 2.0])
    """
    return _read(path, ids, n_samples, header, delimiter, weighted=True)


_WIDTHS = "2 (the two rows of a link) or 3 (the two rows and the link's weight)"


def _read(path, ids, n_samples, header, delimiter, *, weighted):
    """``(links, weights or None)`` of a link file; ``weighted=False`` accepts
    two fields a line only."""
    check_header_arg(header)
    check_delimiter_arg(delimiter)
    check_n_samples(n_samples)
    ids = text_ids(ids, n_samples)
    if file_suffix(path) in NPY_SUFFIXES:
        return _read_npy_links(path, n_samples, weighted)
    rows = text_rows(path, delimiter)
    if not rows:
        return np.empty((0, 2), dtype=np.intp), None
    if not weighted:
        check_width(path, rows, 2, expected="2 (the two rows of a link; "
                    "smiclust.io.read_weighted_links reads a third, the weight)")
        width = 2
    else:
        first_line, first = rows[0]
        width = len(first)
        if width not in (2, 3):
            raise ValueError(f"{path}: line {first_line} has {width} field(s); "
                             f"expected {_WIDTHS}")
        check_width(path, rows, width)
    if header == "infer":
        header = _infer_links_header(path, *rows[0], ids)
    if header:
        rows = rows[1:]
    entries = [(line, c + 1, cells[c]) for line, cells in rows for c in (0, 1)]
    flat = resolve_references(path, entries, ids, n_samples)
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
    if width == 2:
        return links, None
    weights = np.array([_parse_weight(path, line, cells[2]) for line, cells in rows],
                       dtype=np.float64)
    return links, weights


def _parse_weight(path, line, cell):
    """The weight a cell writes: a number in [0, MAX_LINK_WEIGHT], else a
    ValueError."""
    try:
        value = float(cell) if is_number(cell) else None
    except ValueError:  # pragma: no cover - is_number said it parses
        value = None
    if value is None or not 0 <= value <= MAX_LINK_WEIGHT:
        got = show(cell) if cell else "an empty cell"
        hint = ""
        if cell.strip().lower() in ANSWERS:
            hint = (" (a file of i,j,answer lines with must / cannot / skip "
                    "answers is read by --answers)")
        raise ValueError(
            f"{path}: line {line}, column 3: expected a link weight (a number "
            f"in [0, {MAX_LINK_WEIGHT:g}]), got {got}{hint}"
        )
    return value


#: Pairs of column names that head a link file (compared case-insensitively).
_HEADER_PAIRS = frozenset({
    ("from", "to"), ("source", "target"), ("src", "dst"), ("left", "right"),
    ("first", "second"),
})
#: The same word (letters, optional separator) with suffixes 1/2 or a/b.
_NUMBERED_NAMES = re.compile(r"([^\W\d_]+[ _.-]?)(?:(1)|(a))", re.IGNORECASE)


def _looks_like_column_names(cells):
    """Whether two cells read as the names of a link file's two columns."""
    a, b = (cell.strip().casefold() for cell in cells)
    if (a, b) in _HEADER_PAIRS:
        return True
    match = _NUMBERED_NAMES.fullmatch(a)
    if match is None:
        return False
    stem = match.group(1)
    return b == stem + ("2" if match.group(2) else "b")


def _infer_links_header(path, line, cells, ids):
    """Whether the first line ``cells`` of a link file is a header.

    A header when neither of its first two cells refers to a row. A line of two
    ids that also read as column names is ambiguous: an error asking which it
    is, unless a third cell that is not a number (no weight) settles it as a
    header; so is a line of two ids and a third cell that is not a number, and
    a line ``0,1`` (``0,1,2`` with a weight) that may link rows 0 and 1:
    pandas' default column names.
    """
    pair = cells[:2]
    lookup = None if ids is None else set(ids)
    if not any(names_a_row(cell, ids, lookup) for cell in pair):
        return True
    if lookup is not None and not all(cell in lookup for cell in pair):
        return False
    if cells == ["0", "1", "2"][:len(cells)]:
        _ambiguous(path, line, cells, "between rows 0 and 1 (pandas writes the "
                   "header 0,1 for unnamed columns)")
    if lookup is None:
        return False
    no_weight = len(cells) == 3 and not is_number(cells[2])
    names = _looks_like_column_names(pair)
    if names and no_weight:
        return True
    if names or no_weight:
        _ambiguous(path, line, cells, "between two ids of the data")
    return False


def _ambiguous(path, line, cells, link):
    """A first line that reads both as a header and as a link (``link`` says
    which)."""
    shown = ",".join(show(cell) for cell in cells)
    raise ValueError(
        f"{path}: line {line}: {shown} reads both as a header and as a link "
        f"{link}; say which (command line: --links-header yes|no; Python: "
        "header=True|False)"
    )


def _read_npy_links(path, n_samples, weighted):
    arr = load_npy(path)
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.intp), None
    widths = (2, 3) if weighted else (2,)
    if arr.ndim != 2 or arr.shape[1] not in widths:
        expected = "(n_links, 2) or (n_links, 3)" if weighted else "(n_links, 2)"
        raise ValueError(f"{path}: expected an array of shape {expected}, got "
                         f"shape {arr.shape}")
    weights = None
    if arr.shape[1] == 3:
        if arr.dtype.kind not in "iuf":
            raise ValueError(f"{path}: expected numbers (row, row, weight), got "
                             f"dtype {arr.dtype}")
        weights = arr[:, 2].astype(np.float64)
        rows = arr[:, :2]
        if rows.dtype.kind == "f":
            bad = ~np.isfinite(rows) | (rows != np.round(rows))
            if bad.any():
                k, c = (int(v) for v in np.argwhere(bad)[0])
                raise ValueError(
                    f"{path}: link {k} (0-based), column {c + 1}: expected an "
                    f"integral row index, got {float(rows[k, c])!r}")
            outside = (rows < 0) | (rows >= n_samples)
            if outside.any():  # before the cast: 1e30 does not fit an intp
                k, c = (int(v) for v in np.argwhere(outside)[0])
                raise ValueError(
                    f"{path}: link {k} (0-based): row index {int(rows[k, c])} is "
                    f"out of range [0, {n_samples - 1}] (the data has "
                    f"{n_samples} rows)")
        arr = rows
        invalid = ~((weights >= 0) & (weights <= MAX_LINK_WEIGHT))
        if invalid.any():
            k = int(np.flatnonzero(invalid)[0])
            raise ValueError(
                f"{path}: link {k} (0-based), column 3: expected a link weight (a "
                f"number in [0, {MAX_LINK_WEIGHT:g}]), got {float(weights[k])!r}")
    elif arr.dtype.kind not in "iu":
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
    return links, weights


def _is_reference(cell, id_lookup):
    return (id_lookup is not None and cell in id_lookup) or parse_int(cell) is not None


def names_a_row(cell, ids, lookup):
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


def _reference_hint(cell, ids):
    """Why ``cell``, not an id, might be meant as one: a parenthesised hint."""
    near = _matches_an_id_but_for_case(cell, ids)
    if near is None:
        near = _matches_an_id_as_integer(cell, ids)
    if near is not None:
        return f" (the data has the id {show(near)})"
    return (" (when the data has an id column, link and label files name rows by "
            "id, never by row index)")


def _matches_an_id_as_integer(cell, ids):
    """The id that writes the same integer as ``cell`` (``'001'`` for ``'1'``)."""
    value = parse_int(cell)
    if value is None:
        return None
    return next((v for v in ids if parse_int(str(v).strip()) == value), None)


def resolve_references(path, entries, ids, n_samples):
    """Row indices of ``entries = [(line, column, cell)]``.

    With ids (the data has an id column), every cell must be an id: a cell
    that is not one is an error naming it, also when it is an integer (row
    indices are never mixed with ids, nor guessed). Without ids, every cell
    must be a 0-based row index.
    """
    if not entries:
        return np.empty(0, dtype=np.intp)
    if ids is not None:
        lookup = {value: i for i, value in enumerate(ids)}
        out = np.empty(len(entries), dtype=np.intp)
        for k, (line, column, cell) in enumerate(entries):
            i = lookup.get(cell)
            if i is None:
                got = show(cell) if cell else "an empty cell"
                raise ValueError(
                    f"{path}: line {line}, column {column}: {got} is not an id "
                    f"of the data{_reference_hint(cell, ids)}"
                )
            out[k] = i
        return out
    out = np.empty(len(entries), dtype=np.intp)
    for k, (line, column, cell) in enumerate(entries):
        value = parse_int(cell)
        if value is None:
            raise ValueError(
                f"{path}: line {line}, column {column}: expected a 0-based row "
                f"index (an integer), got {show(cell) if cell else 'an empty cell'} "
                "(rows can be referred to by id only when the data has an id column)"
            )
        if not 0 <= value < n_samples:
            raise ValueError(
                f"{path}: line {line}, column {column}: row index {value} is out of "
                f"range [0, {n_samples - 1}] (the data has {n_samples} rows)"
            )
        out[k] = value
    return out
