"""Must-links and cannot-links from files; row references by index or by id."""

import re

import numpy as np

from ._common import (
    NPY_SUFFIXES,
    check_header_arg,
    check_n_samples,
    file_suffix,
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
        ``"infer"``: pass ``header=True`` or ``header=False``.
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
    check_header_arg(header)
    check_n_samples(n_samples)
    ids = text_ids(ids)
    if file_suffix(path) in NPY_SUFFIXES:
        return _read_npy_links(path, n_samples)
    rows = text_rows(path, delimiter)
    if not rows:
        return np.empty((0, 2), dtype=np.intp)
    check_width(path, rows, 2, expected="2 (the two rows of a link)")
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
    return links


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

    A header when neither cell refers to a row. A line of two ids that also
    reads as column names is ambiguous: an error asking which it is.
    """
    lookup = None if ids is None else set(ids)
    if not any(names_a_row(cell, ids, lookup) for cell in cells):
        return True
    if lookup is not None and all(cell in lookup for cell in cells) and \
            _looks_like_column_names(cells):
        raise ValueError(
            f"{path}: line {line}: {show(cells[0])},{show(cells[1])} reads both as "
            "a header and as a link between two ids of the data; say which "
            "(command line: --links-header yes|no; Python: header=True|False)"
        )
    return False


def _read_npy_links(path, n_samples):
    arr = load_npy(path)
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
