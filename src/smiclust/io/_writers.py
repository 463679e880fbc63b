"""Cluster assignments (and class probabilities) to CSV, JSON or Parquet."""

import csv
import json

import numpy as np

from ._atomic import atomic_write
from ._common import PARQUET_SUFFIXES, file_suffix, import_pyarrow

#: Formats of :func:`write_assignments`.
OUTPUT_FORMATS = ("csv", "json", "parquet")


def format_from_suffix(path, default="csv"):
    """Output format implied by a file name: ``.json``, ``.parquet``/``.pq``, else CSV.

    Parameters
    ----------
    path : str, path-like or None
        File name; only its suffix matters (case-insensitive).
    default : str, default="csv"
        Format of any other suffix, and of ``path=None``.

    Returns
    -------
    format : str
        ``"json"``, ``"parquet"`` or ``default``.

    Examples
    --------
    >>> format_from_suffix("labels.parquet"), format_from_suffix("out.txt")
    ('parquet', 'csv')
    """
    if path is None:
        return default
    suffix = file_suffix(path)
    if suffix == ".json":
        return "json"
    if suffix in PARQUET_SUFFIXES:
        return "parquet"
    return default


def assignment_columns(labels, proba=None, ids=None, *, id_name="id", classes=None):
    """Columns of an assignment table, as an ordered dict of name -> list.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        Cluster of each row.
    proba : array-like of shape (n_samples, n_clusters), default=None
        Class probabilities of each row.
    ids : array-like of shape (n_samples,), default=None
        Row ids, written as strings.
    id_name : str, default="id"
        Name of the id column.
    classes : array-like of shape (n_samples,), default=None
        The class each row's cluster stands for (str, or None for a cluster
        no labelled row names), written last as column ``class``.

    Returns
    -------
    columns : dict of str to list
        ``id_name`` (when ``ids`` is given), ``cluster``, then ``proba_0``,
        ``proba_1``, ... (when ``proba`` is given), then ``class`` (when
        ``classes`` is given); plain Python values.

    Raises
    ------
    ValueError
        ``labels`` not 1-d integers, ``ids`` not 1-d, ``ids`` / ``proba`` /
        ``classes`` of another length, ``proba`` not finite, ``classes``
        holding other than text or None, or ``id_name`` the name of another
        column (``cluster``, ``proba_k``, ``class``).

    Examples
    --------
    >>> assignment_columns([0, 1], ids=["a", "b"])
    {'id': ['a', 'b'], 'cluster': [0, 1]}
    """
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise ValueError(f"labels must be 1-d; got shape {labels.shape}")
    if labels.dtype.kind not in "iu" and not (
        labels.dtype.kind == "f" and np.all(np.isfinite(labels))
        and np.all(labels == np.round(labels))
    ):
        raise ValueError(f"labels must hold integer cluster labels; got dtype "
                         f"{labels.dtype} ({labels[:3].tolist()} ...)")
    n = labels.shape[0]
    if proba is not None:
        proba = np.asarray(proba, dtype=np.float64)
        if proba.ndim != 2 or proba.shape[0] != n:
            raise ValueError(f"proba must have shape ({n}, n_clusters); got "
                             f"{proba.shape}")
        if not np.all(np.isfinite(proba)):
            raise ValueError("proba must be finite (JSON has no NaN or inf)")
    if classes is not None:
        shape = np.shape(np.asarray(classes, dtype=object))
        if len(shape) != 1:
            raise ValueError(f"classes must be 1-d; got shape {shape}")
        classes = list(classes)
        if len(classes) != n:
            raise ValueError(f"classes must have one entry per label: expected {n}, "
                             f"got {len(classes)}")
        bad = [v for v in classes if not (v is None or isinstance(v, str))]
        if bad:
            raise ValueError(f"classes must hold text or None; got {bad[0]!r}")
    out = {}
    if ids is not None:
        shape = np.shape(np.asarray(ids, dtype=object))
        if len(shape) != 1:
            raise ValueError(f"ids must be 1-d; got shape {shape}")
        ids = [str(v) for v in ids]
        if len(ids) != n:
            raise ValueError(f"ids must have one entry per label: expected {n}, got "
                             f"{len(ids)}")
        taken = ["cluster"] + ([f"proba_{k}" for k in range(proba.shape[1])]
                               if proba is not None else [])
        taken += ["class"] if classes is not None else []
        if id_name in taken:
            raise ValueError(
                f"id_name {id_name!r} is the name of another output column "
                f"({', '.join(taken)}): the ids would be lost; choose another")
        out[id_name] = ids
    out["cluster"] = [int(v) for v in labels]
    if proba is not None:
        for k in range(proba.shape[1]):
            out[f"proba_{k}"] = [float(v) for v in proba[:, k]]
    if classes is not None:
        out["class"] = classes
    return out


def write_assignments(path, labels, proba=None, ids=None, format=None, *,
                      id_name="id", classes=None):
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
    classes : array-like of shape (n_samples,), default=None
        Written last, as column ``class`` (text; empty in CSV, null in JSON
        and Parquet, where None).

    Notes
    -----
    CSV has a header line (tab-separated when ``path`` ends in ``.tsv``, as
    such input is read); JSON is a list of one object per row with the same
    keys as the CSV columns; Parquet has the same columns (ids as strings).
    In CSV, probabilities are written with at most 6 significant digits
    (``0.999987``, ``1.23457e-05``); JSON and Parquet keep every digit.
    A file named by ``path`` is replaced only once it is complete (see
    :func:`atomic_write`): a failed write leaves the old file as it was.
    """
    write_columns(path, assignment_columns(labels, proba, ids, id_name=id_name,
                                           classes=classes), format)


def write_columns(path, columns, format=None):
    """Write a table given as named columns to CSV, JSON or Parquet.

    Parameters
    ----------
    path : str, path-like or file object
        Destination. A text file object (e.g. ``sys.stdout``) for CSV and
        JSON; Parquet needs a path or a binary file object.
    columns : dict of str to list
        Column name -> values (plain Python values, all of one length), in
        output order, as :func:`assignment_columns` returns them.
    format : {"csv", "json", "parquet"}, default=None
        ``None``: from the suffix of ``path`` (:func:`format_from_suffix`).

    Notes
    -----
    As for :func:`write_assignments`: CSV has a header line (tab-separated
    when ``path`` ends in ``.tsv``) and floats with at most 6 significant
    digits; JSON is a list of one object per row; a file named by ``path`` is
    replaced only once complete (:func:`atomic_write`).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "table.csv")
    >>> write_columns(path, {"i": [3, 0], "score": [0.25, 1 / 3]})
    >>> print(open(path).read(), end="")
    i,score
    3,0.25
    0,0.333333
    """
    if format is None:
        format = format_from_suffix(None if hasattr(path, "write") else path)
    if format not in OUTPUT_FORMATS:
        raise ValueError(f"The 'format' parameter must be one of {OUTPUT_FORMATS}; "
                         f"got {format!r}.")
    cols = dict(columns)
    lengths = {name: len(values) for name, values in cols.items()}
    if len(set(lengths.values())) > 1:
        first = next(iter(lengths))
        other = next(k for k, v in lengths.items() if v != lengths[first])
        raise ValueError(
            f"The columns must be of one length; column {first!r} has "
            f"{lengths[first]} values and column {other!r} {lengths[other]}.")
    if format == "parquet":
        pa, pq = import_pyarrow()
        # a column of None only (text none of whose rows has a value, as a
        # class column can be) is text, not pyarrow's null type: files of one
        # kind keep one schema
        table = pa.table({name: pa.array(values, type=pa.string())
                          if values and all(v is None for v in values) else values
                          for name, values in cols.items()})
        if hasattr(path, "write"):
            pq.write_table(table, path)
        else:
            with atomic_write(path, "wb") as f:
                pq.write_table(table, f)
        return
    if hasattr(path, "write"):
        _write_text(path, cols, format)
    else:
        delimiter = "\t" if file_suffix(path) == ".tsv" else ","
        with atomic_write(path, "w", newline="", encoding="utf-8") as f:
            _write_text(f, cols, format, delimiter)


def _write_text(f, cols, format, delimiter=","):
    names = list(cols)
    rows = zip(*cols.values())
    if format == "csv":
        writer = csv.writer(f, delimiter=delimiter, lineterminator="\n")
        writer.writerow(names)
        writer.writerows([_csv_cell(v) for v in row] for row in rows)
        return
    f.write("[")
    for k, row in enumerate(rows):
        f.write(",\n " if k else "\n ")
        f.write(json.dumps(dict(zip(names, row))))
    f.write("\n]\n")


def _csv_cell(value):
    """A float with at most 6 significant digits; other values as they are."""
    return f"{value:.6g}" if isinstance(value, float) else value
