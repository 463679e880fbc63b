"""Data matrices, with optional row ids, from text, ``.npy``, sparse ``.npz``
or Parquet files."""

import zipfile

import numpy as np

from ._common import (
    NPY_SUFFIXES,
    PARQUET_SUFFIXES,
    check_delimiter_arg,
    check_header_arg,
    file_suffix,
    first_repeat,
    import_pyarrow,
    is_number,
    load_npy,
    names_text,
    one_line,
    parse_int,
    show,
)
from ._text import check_width, infer_header, text_rows


def read_table(path, *, id_column=None, header="infer", columns=None,
               drop_columns=None, delimiter=None):
    """Read a data matrix, with optional row ids, from a file.

    Parameters
    ----------
    path : str or path-like
        ``.npy`` (a 2-d numeric array), ``.npz`` (a sparse matrix saved by
        :func:`scipy.sparse.save_npz`, e.g. TF-IDF rows; read as CSR and never
        made dense), ``.parquet``/``.pq`` (numeric columns; needs pyarrow;
        the pandas index a DataFrame stored, ``__index_level_0__`` or a named
        index, is no feature unless ``columns`` names it; it may be the
        ``id_column``),
        anything else is read as delimited text: comma, tab,
        semicolon or white space separated, sniffed from the first line (tab
        for ``.tsv``), UTF-8, blank lines skipped.
    id_column : str or int, default=None
        Column of row ids (name or 0-based position), not a feature. Ids must
        be non-empty and unique; they are returned as strings.
    header : {"infer", True, False}, default="infer"
        Whether the first line of a text file names the columns. ``"infer"``
        (the id column aside) takes it as a header when all its cells are
        text, or when a cell is text where the next line has a number and
        every number of the first line is an integer (``x,1,2``); as data
        when all its cells are numbers. A first line that may be either is a
        ValueError asking which (pass True or False): text over a number
        beside a number that is no integer (``0.5,1.2o``, data with a typo),
        or integers increasing from left to right over a later number that is
        no integer (pandas' default column names ``0,1``, wavelengths
        ``400,450``, years).
    columns : list of str or int, default=None
        Feature columns to use, in this order (names or 0-based positions);
        by default every column but the id column (and a Parquet file's
        pandas index).
    drop_columns : list of str or int, default=None
        Columns left out of the features (names or 0-based positions), e.g. a
        class column: each must be one of the feature columns that
        ``columns`` (or the default) selects.
    delimiter : str, default=None
        Field separator of a text file (one character, or ``"whitespace"`` for
        runs of white space); ``None`` sniffs it. Separated by white space, a
        cell loses one pair of surrounding double quotes (``"s0"`` as R's
        ``write.table`` writes it is ``s0``).

    Returns
    -------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Finite float64 values; one row per data line, in file order (CSR for a
        sparse ``.npz``).
    ids : ndarray of shape (n_samples,), dtype object, or None
        Row ids (str), ``None`` without an id column.
    feature_names : list of str or None
        Names of the feature columns, ``None`` when the file has none
        (text without a header, ``.npy``, ``.npz``).

    Raises
    ------
    ValueError
        Malformed content: not UTF-8, bad quoting, rows of different lengths,
        a first line that may be a header or data (``header="infer"``),
        a header that does not match the rows, empty, non-numeric or
        non-finite cells, unknown column names, empty or duplicate ids,
        duplicate or missing column names, no data rows.
    OSError
        The file cannot be read.
    ImportError
        A Parquet file without pyarrow.
    TypeError
        A ``delimiter`` that is not a str.
    """
    check_header_arg(header)
    check_delimiter_arg(delimiter)
    suffix = file_suffix(path)
    if suffix in NPY_SUFFIXES:
        return _read_npy_table(path, id_column=id_column, columns=columns,
                               drop_columns=drop_columns)
    if suffix in PARQUET_SUFFIXES:
        return _read_parquet_table(path, id_column=id_column, columns=columns,
                                   drop_columns=drop_columns)
    if suffix == ".npz":
        return _read_sparse_npz(path, id_column=id_column, columns=columns,
                                drop_columns=drop_columns)
    return _read_text_table(path, id_column=id_column, header=header,
                            columns=columns, drop_columns=drop_columns,
                            delimiter=delimiter)


def _read_text_table(path, *, id_column, header, columns, drop_columns,
                     delimiter):
    rows = text_rows(path, delimiter)
    if not rows:
        raise ValueError(f"{path}: the file is empty (no rows)")
    has_header = header
    if header == "infer":
        # the id column holds text anyway: it says nothing of a header, but an
        # id column given by a name the first row holds does
        skip = None
        if isinstance(id_column, (int, np.integer)) and not isinstance(id_column, bool):
            skip = int(id_column)
        elif isinstance(id_column, str) and "." not in id_column:
            skip = parse_int(id_column.strip())  # a position, as _resolve_column
        # a text that is also a valid position (the command line's
        # "--id-column 0") is that position: the same text among the first
        # row's values is then an id, not a column name
        positional = skip is not None and 0 <= skip < len(rows[0][1])
        named_id = (isinstance(id_column, str) and not positional
                    and id_column in rows[0][1])
        has_header = named_id or infer_header(path, rows, skip)
    width = len(rows[0][1])
    check_width(path, rows, width, header_line=rows[0][0] if has_header else None)
    names = None
    if has_header:
        header_line, names = rows[0]
        rows = rows[1:]
        repeat = first_repeat(names, ignore=("",))
        if repeat is not None:
            first, j = repeat
            raise ValueError(
                f"{path}: line {header_line}: duplicate column name "
                f"{show(names[j])} (columns {first + 1} and {j + 1})"
            )
    if not rows:
        raise ValueError(f"{path}: no data rows (only a header line)")

    id_index = None
    if id_column is not None:
        id_index = _resolve_column(path, id_column, names, width, "id column")
    positions = _feature_positions(path, names, width, id_index, columns,
                                   drop_columns)
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
            if any("_" in cell for cell in cells):  # float() reads 1_0 as 10
                raise ValueError
            X[:, k] = np.array(cells, dtype=np.float64)
        except ValueError:
            bad = next(i for i, cell in enumerate(cells) if not is_number(cell))
            got = "an empty cell" if cells[bad] == "" else show(cells[bad])
            raise ValueError(
                f"{path}: line {lines[bad]}, column {j + 1}{_col_name(names, j)}: "
                f"expected a number, got {got}"
                + _column_hint(id_column, columns, j)
            ) from None
        _check_finite(
            path, X[:, k],
            lambda i: f"line {lines[i]}, column {j + 1}{_col_name(names, j)}",
            lambda i: show(cells[i]),
        )
    ids = None
    if id_index is not None:
        ids = _check_ids(
            path, [cells[id_index] for _, cells in rows],
            lambda i: f"line {lines[i]}, column {id_index + 1}",
        )
    feature_names = None if names is None else [names[j] for j in positions]
    return X, ids, feature_names


def _check_finite(path, values, where, got):
    """ValueError at the first non-finite entry of ``values`` (1-d float).

    ``where(i)`` and ``got(i)`` describe entry ``i`` in the message.
    """
    finite = np.isfinite(values)
    if not finite.all():
        bad = int(np.flatnonzero(~finite)[0])
        raise ValueError(
            f"{path}: {where(bad)}: expected a finite number, got {got(bad)}"
        )


def _col_name(names, j):
    return "" if names is None or names[j] == "" else f" ({show(names[j])})"


def _column_hint(id_column, columns, j):
    """What to do about a column of text: the first may hold row ids; with
    the default choice of columns, any other may be a class or a name."""
    if id_column is None and j == 0:
        return " (if this column holds row ids, make it the id column)"
    if columns is None:
        return (" (if this column is not a feature, such as a class, a name or "
                "row ids, leave it out: --drop-columns on the command line, "
                "drop_columns= in read_table; or make it the id column)")
    return ""


def _resolve_column(path, spec, names, width, what):
    """0-based position of a column given by name or position."""
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        index = int(spec)
    elif isinstance(spec, str):
        if names is not None and spec in names:
            return names.index(spec)
        index = parse_int(spec.strip()) if "." not in spec else None
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
                f"{names_text(names)}{hint}"
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


def _feature_positions(path, names, width, id_index, columns, drop_columns,
                       hidden=()):
    """Positions of the feature columns; those in ``hidden`` (a stored index)
    are features only when ``columns`` names them."""
    positions = _selected_positions(path, names, width, id_index, columns,
                                    hidden)
    if drop_columns is not None:
        if isinstance(drop_columns, (str, int)):
            drop_columns = [drop_columns]
        dropped = []
        for spec in drop_columns:
            j = _resolve_column(path, spec, names, width, "column to drop")
            if j not in positions:
                what = ("the id column" if j == id_index
                        else "not among the columns selected")
                raise ValueError(f"{path}: column to drop {spec!r} is {what}; "
                                 "only a feature column can be dropped")
            if j in dropped:
                raise ValueError(f"{path}: column {spec!r} is dropped twice")
            dropped.append(j)
        positions = [j for j in positions if j not in dropped]
    if not positions:
        raise ValueError(f"{path}: no feature columns left (every column is the "
                         "id column or dropped)")
    return positions


def _selected_positions(path, names, width, id_index, columns, hidden=()):
    if columns is None:
        positions = [j for j in range(width)
                     if j != id_index and j not in hidden]
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
    return positions


def _check_ids(path, ids, where):
    """``where(i)`` describes the position of id ``i`` in the file."""
    if "" in ids:
        raise ValueError(f"{path}: {where(ids.index(''))}: empty id")
    repeat = first_repeat(ids)
    if repeat is not None:
        first, i = repeat
        raise ValueError(
            f"{path}: {where(i)}: duplicate id {show(ids[i])} (also at "
            f"{where(first)})"
        )
    return np.array(ids, dtype=object)


def _read_sparse_npz(path, *, id_column, columns, drop_columns):
    """A matrix saved by :func:`scipy.sparse.save_npz`, as float64 CSR."""
    import scipy.sparse as sp

    if id_column is not None:
        raise ValueError(f"{path}: a sparse .npz matrix has no id column; use a "
                         "CSV or Parquet file for row ids")
    with open(path, "rb") as f:  # a missing file is an OSError, as elsewhere
        is_zip = zipfile.is_zipfile(f)
    if not is_zip:
        raise ValueError(f"{path}: not a .npz archive (not a zip file); save a "
                         "sparse matrix with scipy.sparse.save_npz")
    try:
        archive = np.load(path, allow_pickle=False)
    except OSError:
        raise
    except Exception as exc:
        raise ValueError(f"{path}: not a readable .npz archive "
                         f"({one_line(exc) or type(exc).__name__})") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(f"{path}: expected a sparse matrix saved by "
                         "scipy.sparse.save_npz; this is a single array (name it "
                         ".npy)")
    with archive:
        keys = set(archive.files)
    if not {"format", "shape", "data"} <= keys:
        raise ValueError(
            f"{path}: expected a sparse matrix saved by scipy.sparse.save_npz; "
            f"this .npz archive holds {_keys_text(keys)} (save one dense array "
            "with numpy.save as .npy)")
    try:
        matrix = sp.load_npz(path)
    except Exception as exc:
        raise ValueError(f"{path}: not a readable sparse matrix "
                         f"({one_line(exc) or type(exc).__name__})") from None
    if matrix.dtype.kind not in "biuf":
        raise ValueError(f"{path}: expected a numeric matrix, got dtype {matrix.dtype}")
    if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise ValueError(f"{path}: the matrix is empty (shape {matrix.shape})")
    positions = _feature_positions(path, None, matrix.shape[1], None, columns,
                                   drop_columns)
    X = sp.csr_matrix(matrix, dtype=np.float64, copy=True)
    if list(positions) != list(range(matrix.shape[1])):
        X = X[:, positions]
    X.sum_duplicates()
    finite = np.isfinite(X.data)
    if not finite.all():
        k = int(np.flatnonzero(~finite)[0])
        row = int(np.searchsorted(X.indptr, k, side="right") - 1)
        raise ValueError(
            f"{path}: row {row}, column {positions[X.indices[k]]} (0-based): "
            f"expected a finite number, got {float(X.data[k])!r}"
        )
    return X, None, None


def _keys_text(keys):
    shown = sorted(keys)
    return ", ".join(show(k) for k in shown[:6]) + (" ..." if len(shown) > 6 else "")


def _read_npy_table(path, *, id_column, columns, drop_columns):
    if id_column is not None:
        raise ValueError(f"{path}: a .npy array has no id column; use a CSV or "
                         "Parquet file for row ids")
    arr = load_npy(path)
    if arr.dtype.names is not None or arr.dtype.kind not in "biuf":
        raise ValueError(f"{path}: expected a numeric array, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(
            f"{path}: expected a 2-d array (n_samples, n_features), got shape "
            f"{arr.shape}"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{path}: the array is empty (shape {arr.shape})")
    positions = _feature_positions(path, None, arr.shape[1], None, columns,
                                   drop_columns)
    X = np.ascontiguousarray(arr[:, positions], dtype=np.float64)
    finite = np.isfinite(X)
    if not finite.all():
        i, k = np.argwhere(~finite)[0]
        raise ValueError(
            f"{path}: row {i}, column {positions[k]} (0-based): expected a finite "
            f"number, got {X[i, k]!r}"
        )
    return X, None, None


def _read_parquet_table(path, *, id_column, columns, drop_columns):
    pa, pq = import_pyarrow()
    with open(path, "rb") as f:
        data = f.read()
    # from memory and on this thread: a failed read leaves no pyarrow thread
    # behind that could abort the interpreter at exit
    try:
        table = pq.read_table(pa.BufferReader(data), use_threads=False)
    except Exception as exc:
        raise ValueError(
            f"{path}: not a readable Parquet file ({one_line(exc)})"
        ) from None
    names = [str(n) for n in table.column_names]
    width = len(names)
    if width == 0:
        raise ValueError(f"{path}: the table has no columns")
    for j, name in enumerate(names):
        if names.index(name) != j:
            raise ValueError(f"{path}: duplicate column name {show(name)}")
    if table.num_rows == 0:
        raise ValueError(f"{path}: no data rows")
    id_index = None
    if id_column is not None:
        id_index = _resolve_column(path, id_column, names, width, "id column")
    positions = _feature_positions(path, names, width, id_index, columns,
                                   drop_columns, _pandas_index(table, names))
    X = np.empty((table.num_rows, len(positions)), dtype=np.float64)
    for k, j in enumerate(positions):
        col = table.column(j)
        t = col.type
        if not (pa.types.is_integer(t) or pa.types.is_floating(t)
                or pa.types.is_boolean(t) or pa.types.is_decimal(t)):
            raise ValueError(
                f"{path}: column {show(names[j])} holds {t}; expected numbers"
            )
        if col.null_count:
            bad = _first_null(col)
            raise ValueError(
                f"{path}: row {bad} (0-based), column {show(names[j])}: missing value"
            )
        X[:, k] = np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)
        _check_finite(
            path, X[:, k],
            lambda i: f"row {i} (0-based), column {show(names[j])}",
            lambda i: repr(X[i, k]),
        )
    ids = None
    if id_index is not None:
        values = table.column(id_index).to_pylist()
        if any(v is None for v in values):
            bad = values.index(None)
            raise ValueError(
                f"{path}: row {bad} (0-based), column {show(names[id_index])}: "
                "missing id"
            )
        ids = _check_ids(path, [_id_text(v) for v in values],
                         lambda i: f"row {i} (0-based)")
    return X, ids, [names[j] for j in positions]


def _pandas_index(table, names):
    """Positions of the columns that hold the pandas index of the table
    (``__index_level_0__``, or a named index), from the pandas metadata
    pyarrow stores; a range index is stored as no column."""
    try:
        metadata = table.schema.pandas_metadata or {}
        index = metadata.get("index_columns", [])
    except Exception:  # metadata pandas did not write: no index known
        return set()
    return {names.index(entry) for entry in index
            if isinstance(entry, str) and entry in names}


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
