"""Answers files: "same cluster?" answers, ``row, row, answer`` a line.

``smiclust ask`` writes one after each answer; ``smiclust fit --answers`` reads
its must and cannot answers as links.
"""

import csv

import numpy as np

from ._atomic import atomic_write
from ._common import ANSWERS, check_delimiter_arg, check_n_samples, show, text_ids
from ._links import names_a_row, resolve_references
from ._text import check_width, text_rows


def answers_header(id_name=None):
    """Column names of an answers file.

    Parameters
    ----------
    id_name : str, default=None
        Name of the data's id column; ``None`` when rows are 0-based indices.

    Returns
    -------
    header : list of str
        ``["i", "j", "answer"]``, or ``[f"{id_name}_i", f"{id_name}_j",
        "answer"]`` when ``id_name`` is given.

    Examples
    --------
    >>> answers_header(), answers_header("sample")
    (['i', 'j', 'answer'], ['sample_i', 'sample_j', 'answer'])
    """
    if id_name is None:
        return ["i", "j", "answer"]
    return [f"{id_name}_i", f"{id_name}_j", "answer"]


def read_answers(path, *, ids=None, n_samples, delimiter=","):
    """Read an answers file: two row references and an answer a line.

    Parameters
    ----------
    path : str or path-like
        Delimited text, three fields a line: the two rows of a pair and the
        answer, ``must``, ``cannot`` or ``skip`` (any case), in the order the
        answers were given. A first line whose third cell is ``answer`` (any
        case) is a header, and so is one whose third cell is no answer and
        whose row cells name no row (``i,j,type``); it may be left out. Blank
        lines are skipped; an empty file holds no answers.
    ids : array-like of str, default=None
        Ids of the data rows (from :func:`read_table`). When given, every row
        cell must be one of them, compared as text, as in :func:`read_links`
        (an integer is never read as a row index then). Without ids, row cells
        are 0-based row indices.
    n_samples : int
        Number of data rows.
    delimiter : str, default=","
        Field separator (:func:`write_answers` writes commas); ``None`` sniffs
        it as :func:`read_links` does.

    Returns
    -------
    answers : list of tuple (int, int, str)
        ``(i, j, answer)`` a line, in file order: row indices as written (not
        sorted within a pair) and the answer in lower case.

    Raises
    ------
    ValueError
        A line without exactly three fields, a row cell that is neither an id
        nor a row index, an index out of range, an answer other than must,
        cannot or skip, a row paired with itself, or a pair given twice (in
        either order); the message is one line naming the file, the line and,
        for a bad cell, the column.

    See Also
    --------
    write_answers : Write such a file (atomically).
    links_of : The must-links and cannot-links of the answers.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "answers.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("id_i,id_j,answer\\na,b,must\\nb,c,cannot\\na,c,skip\\n")
    >>> read_answers(path, ids=["a", "b", "c"], n_samples=3)
    [(0, 1, 'must'), (1, 2, 'cannot'), (0, 2, 'skip')]
    """
    check_delimiter_arg(delimiter)
    check_n_samples(n_samples)
    ids = text_ids(ids, n_samples)
    rows = text_rows(path, delimiter)
    if rows and _is_header(rows[0][1], ids):
        rows = rows[1:]
    check_width(path, rows, 3, expected="3 (row, row, answer)")
    entries = [(line, c + 1, cells[c]) for line, cells in rows for c in (0, 1)]
    pairs = resolve_references(path, entries, ids, n_samples).reshape(-1, 2)
    answers, seen = [], {}
    for (line, cells), (i, j) in zip(rows, pairs.tolist()):
        answer = cells[2].lower()
        if answer not in ANSWERS:
            got = show(cells[2]) if cells[2] else "an empty cell"
            raise ValueError(f"{path}: line {line}, column 3: expected must, "
                             f"cannot or skip, got {got}")
        if i == j:
            raise ValueError(f"{path}: line {line}: pairs row {i} with itself")
        key = (min(i, j), max(i, j))
        if key in seen:
            raise ValueError(f"{path}: line {line}: repeats the pair of line "
                             f"{seen[key]} (rows {key[0]} and {key[1]})")
        seen[key] = line
        answers.append((i, j, answer))
    return answers


def _is_header(cells, ids):
    """Whether the first line ``cells`` of an answers file names its columns:
    three cells, the third ``answer``, or no answer beside two cells that
    name no row."""
    if len(cells) != 3:
        return False
    answer = cells[2].lower()
    if answer == "answer":
        return True
    lookup = None if ids is None else set(ids)
    return answer not in ANSWERS and not any(
        names_a_row(cell, ids, lookup) for cell in cells[:2])


def write_answers(path, answers, *, ids=None, id_name="id"):
    """Write an answers file, replacing ``path`` only once it is complete.

    Parameters
    ----------
    path : str or path-like
        The file; written through :func:`atomic_write`, so that it holds
        either its old content or every answer, never part of them.
    answers : sequence of tuple (int, int, str)
        ``(i, j, answer)``: 0-based row indices and ``must``, ``cannot`` or
        ``skip``, in the order given.
    ids : array-like, default=None
        Ids of the data rows; when given, the rows are written as ids under
        the header ``<id_name>_i,<id_name>_j,answer``, else as 0-based indices
        under ``i,j,answer``. Cells are quoted as CSV needs (an id with a
        comma).
    id_name : str, default="id"
        Name of the id column, for the header; unused without ``ids``.

    Raises
    ------
    ValueError
        An answer other than must, cannot or skip, or rows that are not two
        different 0-based indices (below ``len(ids)`` when ``ids`` is given):
        nothing is written.

    See Also
    --------
    read_answers : Read it back.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "answers.csv")
    >>> write_answers(path, [(0, 1, "must"), (2, 0, "cannot")])
    >>> print(open(path).read(), end="")
    i,j,answer
    0,1,must
    2,0,cannot
    """
    answers = _checked_answers(answers, "write_answers",
                               None if ids is None else len(ids))

    def ref(i):
        return str(i) if ids is None else str(ids[i])

    with atomic_write(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(answers_header(None if ids is None else id_name))
        writer.writerows([ref(i), ref(j), a] for i, j, a in answers)


def links_of(answers):
    """The must-links and cannot-links of answers; skipped pairs are left out.

    Parameters
    ----------
    answers : sequence of tuple (int, int, str)
        ``(i, j, answer)``, as :func:`read_answers` returns.

    Returns
    -------
    must_link : ndarray of shape (n_must, 2), dtype intp
        The pairs answered ``must``, in order.
    cannot_link : ndarray of shape (n_cannot, 2), dtype intp
        The pairs answered ``cannot``, in order.

    Examples
    --------
    >>> must, cannot = links_of([(0, 1, "must"), (1, 2, "skip"), (0, 3, "cannot")])
    >>> must.tolist(), cannot.tolist()
    ([[0, 1]], [[0, 3]])
    """
    answers = _checked_answers(answers, "links_of")

    def pairs(kind):
        return np.array([(i, j) for i, j, a in answers if a == kind],
                        dtype=np.intp).reshape(-1, 2)

    return pairs("must"), pairs("cannot")


def _checked_answers(answers, owner, n_rows=None):
    """``answers`` as a list of ``(i, j, answer)``: two different
    non-negative integer rows (below ``n_rows`` when given) and one of
    :data:`ANSWERS`, or a ValueError naming the first bad one."""
    checked = []
    for k, entry in enumerate(answers):
        if len(entry) != 3:
            raise ValueError(f"The answers of {owner} must be (i, j, answer) "
                             f"triples; answer {k} is {entry!r}.")
        i, j, answer = entry
        if answer not in ANSWERS:
            raise ValueError(f"The answers of {owner} must be must, cannot or "
                             f"skip; answer {k} is {answer!r}.")
        rows = []
        for row in (i, j):
            if isinstance(row, (bool, np.bool_)) or not isinstance(
                    row, (int, np.integer)) or row < 0 or (
                    n_rows is not None and row >= n_rows):
                bound = "" if n_rows is None else f" below {n_rows}"
                raise ValueError(
                    f"The answers of {owner} must name rows by 0-based indices"
                    f"{bound}; answer {k} names {row!r}.")
            rows.append(int(row))
        if rows[0] == rows[1]:
            raise ValueError(f"The answers of {owner} must pair two different "
                             f"rows; answer {k} pairs row {rows[0]} with itself.")
        checked.append((rows[0], rows[1], answer))
    return checked
