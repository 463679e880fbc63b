"""Must-links and cannot-links from files; row references by index or by id."""

import numpy as np

from ._common import (
    NPY_SUFFIXES,
    check_header_arg,
    check_n_samples,
    file_suffix,
    load_npy,
    parse_int,
    show,
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
    check_header_arg(header)
    check_n_samples(n_samples)
    if file_suffix(path) in NPY_SUFFIXES:
        return _read_npy_links(path, n_samples)
    rows = text_rows(path, delimiter)
    if not rows:
        return np.empty((0, 2), dtype=np.intp)
    check_width(path, rows, 2, expected="2 (the two rows of a link)")
    lookup = None if ids is None else set(ids)
    if header == "infer":
        has_header = not any(names_a_row(cell, ids, lookup) for cell in rows[0][1])
    else:
        has_header = header
    if has_header:
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


def _reference_hint(cell, ids, lookup):
    """Why ``cell``, not an id, might be meant as one: a parenthesised hint."""
    near = _matches_an_id_but_for_case(cell, ids)
    if near is not None:
        return f" (the data has the id {show(near)})"
    if parse_int(cell) is not None:
        return (" (a file refers to rows either all by id or all by index; "
                "other cells of this file are ids)")
    return ""


def resolve_references(path, entries, ids, n_samples):
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
        all_integers = all(parse_int(cell) is not None for _, _, cell in entries)
        if not all_integers or any(i is not None for i in found):
            k = next(k for k, i in enumerate(found) if i is None)
            line, column, cell = entries[k]
            raise ValueError(
                f"{path}: line {line}, column {column}: {show(cell)} is not an id "
                f"of the data{_reference_hint(cell, ids, lookup)}"
            )
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
