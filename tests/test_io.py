import io
import json
import os

import numpy as np
import pytest
from conftest import npy_bytes, npz_bytes, sparse_npz_bytes
from numpy.testing import assert_allclose, assert_array_equal

from smiclust.io import (
    assignment_columns,
    format_from_suffix,
    read_labels,
    read_links,
    read_table,
    read_weighted_links,
    write_assignments,
    write_columns,
)


def write(tmp_path, name, content):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------------------
# read_table
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, content, kwargs, X, ids, names",
    [
        ("a.csv", "x,y\n1,2\n3,4\n", {}, [[1, 2], [3, 4]], None, ["x", "y"]),
        ("a.csv", "1,2\n3,4\n", {}, [[1, 2], [3, 4]], None, None),
        ("a.csv", "1,2\n\n3,4\n\n", {}, [[1, 2], [3, 4]], None, None),
        ("a.csv", "id,x,y\na,1,2\nb,3,4\n", {"id_column": "id"}, [[1, 2], [3, 4]],
         ["a", "b"], ["x", "y"]),
        ("a.csv", "a,1,2\nb,3,4\n", {"id_column": 0}, [[1, 2], [3, 4]],
         ["a", "b"], None),
        ("a.csv", "a,1,2\nb,3,4\n", {"id_column": "0"}, [[1, 2], [3, 4]],
         ["a", "b"], None),
        ("a.csv", "x,id,y\n1,7,2\n3,8,4\n", {"id_column": "id"}, [[1, 2], [3, 4]],
         ["7", "8"], ["x", "y"]),
        ("a.csv", "x,y,z\n1,2,3\n4,5,6\n", {"columns": ["z", "x"]},
         [[3, 1], [6, 4]], None, ["z", "x"]),
        ("a.csv", "1,2\n3,4\n", {"header": False, "columns": [1]}, [[2], [4]], None,
         None),
        ("a.tsv", "x\ty\n1\t2\n3\t4\n", {}, [[1, 2], [3, 4]], None, ["x", "y"]),
        ("a.txt", "1 2\n3   4\n", {}, [[1, 2], [3, 4]], None, None),
        ("a.csv", "x;y\n1;2\n3;4\n", {}, [[1, 2], [3, 4]], None, ["x", "y"]),
        ("a.csv", "\ufeffx,y\r\n1,2\r\n3,4\r\n", {}, [[1, 2], [3, 4]], None,
         ["x", "y"]),
        ("a.csv", '"id","x"\n"a, b", 1.5e0\n"c",-2\n', {"id_column": "id"},
         [[1.5], [-2]], ["a, b", "c"], ["x"]),
        ("a.csv", "1\n2\n", {}, [[1], [2]], None, None),
        ("a.csv", "10,20\n1,2\n", {"header": True}, [[1, 2]], None, ["10", "20"]),
        # drop_columns: by name, by position, after an id column, from columns
        ("a.csv", "x,cls,y\n1,a,2\n3,b,4\n", {"drop_columns": ["cls"]},
         [[1, 2], [3, 4]], None, ["x", "y"]),
        ("a.csv", "1,9,2\n3,9,4\n", {"drop_columns": 1}, [[1, 2], [3, 4]], None,
         None),
        ("a.csv", "id,x,y,z\na,1,2,3\n", {"id_column": "id", "drop_columns": "y"},
         [[1, 3]], ["a"], ["x", "z"]),
        ("a.csv", "x,y,z\n1,2,3\n", {"columns": ["z", "y", "x"],
                                      "drop_columns": ["y"]},
         [[3, 1]], None, ["z", "x"]),
    ],
)
def test_read_table_text(tmp_path, name, content, kwargs, X, ids, names):
    path = write(tmp_path, name, content)
    got_X, got_ids, got_names = read_table(path, **kwargs)
    assert got_X.dtype == np.float64 and got_X.flags.c_contiguous
    if X is not None:
        assert_allclose(got_X, X)
    assert got_names == names
    if ids is None:
        assert got_ids is None
    else:
        assert got_ids.tolist() == ids


def test_read_table_header_row_is_not_data(tmp_path):
    # a header is recognised with an id column of text too
    path = write(tmp_path, "a.csv", "sample,x\ns1,0.5\ns2,0.7\n")
    X, ids, names = read_table(path, id_column="sample")
    assert X.shape == (2, 1) and names == ["x"]
    # and not mistaken when the first data row has text ids
    path = write(tmp_path, "b.csv", "s1,0.5\ns2,0.7\n")
    X, ids, names = read_table(path, id_column=0)
    assert X.shape == (2, 1) and names is None and ids.tolist() == ["s1", "s2"]


def test_read_table_npy(tmp_path):
    path = str(tmp_path / "a.npy")
    arr = np.arange(12, dtype=np.int32).reshape(4, 3)
    np.save(path, arr)
    X, ids, names = read_table(path)
    assert_array_equal(X, arr)
    assert X.dtype == np.float64 and ids is None and names is None
    X, _, _ = read_table(path, columns=[2, 0])
    assert_array_equal(X, arr[:, [2, 0]])
    X, _, _ = read_table(path, drop_columns=[1])
    assert_array_equal(X, arr[:, [0, 2]])


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_read_table_sparse_npz(tmp_path, fmt):
    import scipy.sparse as sp

    path = str(tmp_path / "a.npz")
    dense = np.array([[0, 2, 0, 1], [3, 0, 0, 0], [0, 0, 5, 4]], dtype=np.int64)
    matrix = sp.csr_matrix(dense).asformat(fmt)
    sp.save_npz(path, matrix)
    X, ids, names = read_table(path)
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64
    assert_array_equal(X.toarray(), dense)
    assert ids is None and names is None
    X, _, _ = read_table(path, columns=[3, 0])
    assert_array_equal(X.toarray(), dense[:, [3, 0]])
    X, _, _ = read_table(path, drop_columns=[0, 2])
    assert_array_equal(X.toarray(), dense[:, [1, 3]])
    assert_array_equal(sp.load_npz(path).toarray(), dense)  # file as it was


def _sparse_with(value):
    import scipy.sparse as sp

    m = sp.csr_matrix(np.array([[0.0, 1.0], [2.0, 0.0]]))
    m.data[1] = value
    return m


def test_read_table_parquet(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = str(tmp_path / "a.parquet")
    pq.write_table(pa.table({"id": [10, 11, 12], "x": [1.0, 2.0, 3.0],
                             "n": [1, 2, 3]}), path)
    X, ids, names = read_table(path, id_column="id")
    assert_array_equal(X, [[1, 1], [2, 2], [3, 3]])
    assert ids.tolist() == ["10", "11", "12"] and names == ["x", "n"]
    X, _, names = read_table(path, id_column="id", drop_columns=["x"])
    assert_array_equal(X, [[1], [2], [3]])
    assert names == ["n"]


@pytest.mark.parametrize(
    "name, content, kwargs, match",
    [
        ("ragged.csv", "1,2\n3,4,5\n", {}, r"line 2 has 3 field\(s\); expected 2"),
        ("hdr.csv", "x,y\n1,2,3\n", {}, r"line 2 has 3 .*like the header \(line 1\)"),
        ("text.csv", "x,y\n1,2\n3,abc\n", {},
         r"line 3, column 2 \('y'\): expected a number, got 'abc'"),
        ("empty_cell.csv", "x,y\n1,\n", {}, r"line 2, column 2 .*an empty cell"),
        ("nan.csv", "1,2\nnan,4\n", {}, r"line 2, column 1: expected a finite"),
        ("inf.csv", "1,2\n3,inf\n", {}, r"line 2, column 2: expected a finite"),
        ("ids.csv", "s1,1\ns2,2\n", {}, r"got 's1' \(if this column holds row ids"),
        ("class.csv", "x,y,cls\n1,2,a\n", {},
         r"column 3 \('cls'\): expected a number, got 'a' \(if this column is not a "
         r"feature, such as a class, a name or row ids, leave it out: "
         r"--drop-columns on the command line, drop_columns= in read_table"),
        ("drop_unk.csv", "x,y,c\n1,2,3\n", {"drop_columns": ["q"]},
         r"unknown column to drop 'q'"),
        ("drop_id.csv", "id,x,y\na,1,2\n", {"id_column": "id", "drop_columns": "id"},
         r"column to drop 'id' is the id column"),
        ("drop_unchosen.csv", "x,y,c\n1,2,3\n",
         {"columns": ["x", "y"], "drop_columns": ["c"]},
         r"column to drop 'c' is not among the columns selected"),
        ("drop_twice.csv", "x,y,c\n1,2,3\n", {"drop_columns": ["c", 2]},
         r"column 2 is dropped twice"),
        ("drop_all.csv", "x,y\n1,2\n", {"drop_columns": ["x", "y"]},
         r"no feature columns left"),
        ("class_chosen.csv", "x,y,cls\n1,2,a\n", {"columns": ["x", "cls"]},
         r"column 3 \('cls'\): expected a number, got 'a'$"),
        ("unk.csv", "x,y\n1,2\n", {"id_column": "id"},
         r"unknown id column 'id'; the columns are 'x', 'y'"),
        ("unk2.csv", "x,y\n1,2\n", {"columns": ["x", "q"]}, r"unknown column 'q'"),
        ("nohdr.csv", "1,2\n3,4\n", {"id_column": "id"},
         r"unknown id column 'id': the file has no header"),
        ("range.csv", "1,2\n", {"id_column": 5}, r"id column 5 does not exist"),
        ("dupid.csv", "a,1\nb,2\na,3\n", {"id_column": 0},
         r"line 3, column 1: duplicate id 'a' \(also at line 1, column 1\)"),
        ("emptyid.csv", "id,x\na,1\n,2\n", {"id_column": "id"},
         r"line 3, column 1: empty id"),
        ("dupname.csv", "x,x\n1,2\n", {}, r"duplicate column name 'x'"),
        ("unnamed.csv", ",x\n0,1.5\n1,2.5\n", {}, r"without a name"),
        ("idonly.csv", "id\na\nb\n", {"id_column": "id"}, r"no feature columns"),
        ("idfeat.csv", "id,x\na,1\n", {"id_column": "id", "columns": ["id"]},
         r"is the id column"),
        ("empty.csv", "", {}, r"the file is empty"),
        ("blank.csv", "\n\n  \n", {}, r"the file is empty"),
        ("hdronly.csv", "x,y\n", {}, r"no data rows"),
        ("latin1.csv", b"x,y\n1,2\n\xe9,3\n", {}, r"line 3: not UTF-8 text"),
        ("quote.csv", 'x,y\n1,"2\n', {}, r"malformed CSV"),
        ("quote2.csv", 'x,y\n1,"2"3\n', {}, r"line 2: malformed CSV"),
        ("bad.npy", b"\x93NUMPY garbage", {}, r"not a readable \.npy file"),
        ("trunc.npy", npy_bytes(np.ones((5, 3)))[:-7], {},
         r"not a readable \.npy file"),
        ("oned.npy", npy_bytes(np.ones(5)), {}, r"expected a 2-d array"),
        ("str.npy", npy_bytes(np.array([["a", "b"]])), {}, r"expected a numeric"),
        ("nan.npy", npy_bytes(np.array([[1.0, np.nan]])), {},
         r"row 0, column 1 \(0-based\): expected a finite"),
        ("ids.npy", npy_bytes(np.ones((2, 2))), {"id_column": 0}, r"no id column"),
        ("a.npz", b"PK\x03\x04", {}, r"not a \.npz archive \(not a zip file\)"),
        ("dense.npz", npz_bytes(x=np.ones((2, 2))), {},
         r"expected a sparse matrix saved by scipy\.sparse\.save_npz; this \.npz "
         r"archive holds 'x'"),
        ("one.npz", npy_bytes(np.ones((2, 2))), {}, r"not a \.npz archive"),
        ("ids.npz", sparse_npz_bytes(_sparse_with(1.0)), {"id_column": 0},
         r"a sparse \.npz matrix has no id column"),
        ("inf.npz", sparse_npz_bytes(_sparse_with(np.inf)), {},
         r"row 1, column 0 \(0-based\): expected a finite number, got inf"),
        ("cols.npz", sparse_npz_bytes(_sparse_with(1.0)), {"columns": ["x"]},
         r"unknown column .x.: .* 0-based position"),
        ("bad.parquet", b"PAR1 not really", {}, r"not a readable Parquet file"),
    ],
)
def test_read_table_errors(tmp_path, name, content, kwargs, match):
    path = write(tmp_path, name, content)
    with pytest.raises(ValueError, match=match) as info:
        read_table(path, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(path + ":")


def test_read_table_parquet_errors(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = str(tmp_path / "s.parquet")
    pq.write_table(pa.table({"x": [1.0, 2.0], "s": ["a", "b"]}), path)
    with pytest.raises(ValueError, match="column 's' holds string; expected numbers"):
        read_table(path)
    pq.write_table(pa.table({"x": [1.0, None]}), path)
    with pytest.raises(ValueError, match=r"row 1 \(0-based\), column 'x': missing"):
        read_table(path)


def test_read_table_missing_file_is_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_table(str(tmp_path / "nope.csv"))


def test_read_table_bad_header_parameter(tmp_path):
    path = write(tmp_path, "a.csv", "1\n")
    with pytest.raises(ValueError, match="'header' parameter"):
        read_table(path, header="yes")


# ---------------------------------------------------------------------------
# read_links
# ---------------------------------------------------------------------------

IDS = np.array(["a", "b", "c", "d"], dtype=object)


@pytest.mark.parametrize(
    "content, ids, expected",
    [
        ("1,0\n3,2\n", None, [[1, 0], [3, 2]]),
        ("i,j\n0,1\n", None, [[0, 1]]),
        ("a,b\nd,c\n", IDS, [[0, 1], [3, 2]]),
        ("first,second\na,b\n", IDS, [[0, 1]]),
        ("0\t3\n", None, [[0, 3]]),
        ("1.0,2.0\n", None, [[1, 2]]),
        ("", None, np.empty((0, 2))),
        ("a,b\n", None, np.empty((0, 2))),  # a header alone
    ],
)
def test_read_links(tmp_path, content, ids, expected):
    path = write(tmp_path, "links.csv", content)
    links = read_links(path, ids=ids, n_samples=4)
    assert links.shape[1] == 2 and links.dtype == np.intp
    assert_array_equal(links, np.asarray(expected).reshape(-1, 2))


def test_read_links_ids_win_over_indices(tmp_path):
    ids = np.array(["1", "2", "3"], dtype=object)
    path = write(tmp_path, "links.csv", "1,2\n")
    assert read_links(path, ids=ids, n_samples=3).tolist() == [[0, 1]]


@pytest.mark.parametrize("header, expected", [(True, [[2, 3]]),
                                              (False, [[0, 1], [2, 3]])])
def test_read_links_explicit_header_settles_column_names(tmp_path, header,
                                                         expected):
    ids = np.array(["id1", "id2", "id3", "id4"], dtype=object)
    path = write(tmp_path, "links.csv", "id1,id2\nid3,id4\n")
    assert read_links(path, ids=ids, n_samples=4, header=header).tolist() == expected


def test_read_links_npy(tmp_path):
    path = str(tmp_path / "links.npy")
    np.save(path, np.array([[0, 3], [1, 2]]))
    assert read_links(path, n_samples=4).tolist() == [[0, 3], [1, 2]]
    np.save(path, np.array([[0, 4]]))
    with pytest.raises(ValueError, match="row index 4 is out of range"):
        read_links(path, n_samples=4)


@pytest.mark.parametrize(
    "content, ids, match",
    [
        ("0,2\n2,9\n", None,
         r"line 2, column 2: row index 9 is out of range \[0, 3\] \(the data has 4"),
        ("0,-1\n", None, r"line 1, column 2: row index -1 is out of range"),
        ("0,2\n0,x\n", None, r"line 2, column 2: expected a 0-based row index"),
        ("0,1.5\n", None, r"expected a 0-based row index \(an integer\), got '1.5'"),
        ("0,1,2\n", None, r"line 1 has 3 field\(s\); expected 2"),
        ("0,1\n3\n", None, r"line 2 has 1 field\(s\); expected 2"),
        ("0,\n", None, r"line 1, column 2: .*an empty cell"),
        ("2,2\n", None, r"line 1: links row 2 to itself"),
        ("0,2\n2,0\n", None, r"line 2: repeats the link of line 1"),
        ("a,b\nb,z\n", IDS, r"line 2, column 2: 'z' is not an id of the data"),
        ("a,b\nc,1\n", IDS, r"'1' is not an id .*name rows by id, never by row"),
        # with ids, integers are never row indices
        ("0,1\n2,3\n", IDS, r"line 1, column 1: '0' is not an id of the data"),
        # ids compared as text: '1' is not '001'
        ("1,2\n", np.array(["001", "002", "003", "004"], dtype=object),
         r"line 1, column 1: '1' is not an id of the data \(the data has the id "
         r"'001'\)"),
        # two ids that also read as column names: header or link? say which
        ("id1,id2\nid3,id4\n", np.array(["id1", "id2", "id3", "id4"], dtype=object),
         r"line 1: 'id1','id2' reads both as a header and as a link"),
        ("from,to\nto,x\n", np.array(["from", "to", "x", "y"], dtype=object),
         r"line 1: 'from','to' reads both"),
        ("a,b\n", None, None),  # a header, not an error
        # integer ids (row numbers of a larger table): one non-id among ids is
        # an error, not a reason to read the whole file as row indices
        ("4,6\n2,3\n", np.array(["0", "2", "4", "6"], dtype=object),
         r"line 2, column 2: '3' is not an id of the data"),
        # an id typed in the wrong case is a typo, not a header line
        ("A,B\nc,d\n", IDS,
         r"line 1, column 1: 'A' is not an id of the data \(the data has the id "
         r"'a'\)"),
    ],
)
def test_read_links_errors(tmp_path, content, ids, match):
    path = write(tmp_path, "links.csv", content)
    if match is None:
        assert read_links(path, ids=ids, n_samples=4).shape == (0, 2)
        return
    with pytest.raises(ValueError, match=match) as info:
        read_links(path, ids=ids, n_samples=4)
    assert "\n" not in str(info.value) and str(info.value).startswith(path + ":")


# ---------------------------------------------------------------------------
# read_weighted_links
# ---------------------------------------------------------------------------

NAMED = np.array(["id1", "id2", "id3", "id4"], dtype=object)


@pytest.mark.parametrize(
    "content, ids, links, weights",
    [
        ("1,0\n3,2\n", None, [[1, 0], [3, 2]], None),
        ("0,1,0.5\n3,2,2\n", None, [[0, 1], [3, 2]], [0.5, 2.0]),
        ("i,j,weight\n0,1,0\n", None, [[0, 1]], [0.0]),
        ("i,j,w\nd,c,1e-3\n", IDS, [[3, 2]], [1e-3]),
        ("0\t1\t0.25\n", None, [[0, 1]], [0.25]),
        # a header of three names: the third (no number) settles that
        # id1,id2 are column names, although the data has those ids
        ("id1,id2,weight\nid3,id4,0.5\n", NAMED, [[2, 3]], [0.5]),
        ("i,j,weight\n", None, np.empty((0, 2)), []),
        ("", None, np.empty((0, 2)), None),
    ],
)
def test_read_weighted_links(tmp_path, content, ids, links, weights):
    path = write(tmp_path, "links.csv", content)
    got, got_weights = read_weighted_links(path, ids=ids, n_samples=4)
    assert got.dtype == np.intp
    assert_array_equal(got, np.asarray(links).reshape(-1, 2))
    if weights is None:
        assert got_weights is None
    else:
        assert got_weights.dtype == np.float64
        assert_array_equal(got_weights, weights)
    if weights is None:  # two columns: exactly what read_links reads
        assert_array_equal(read_links(path, ids=ids, n_samples=4), got)


@pytest.mark.parametrize(
    "content, ids, match",
    [
        ("0,1,x\n", None, r"line 1, column 3: expected a link weight \(a number "
                          r"in \[0, 1e\+100\]\), got 'x'"),
        ("0,1,2e100\n", None, r"line 1, column 3: .*got '2e100'"),
        ("0,1,1\n2,3,-0.5\n", None, r"line 2, column 3: .*got '-0.5'"),
        ("0,1,nan\n", None, r"line 1, column 3: .*got 'nan'"),
        ("0,1,inf\n", None, r"line 1, column 3: .*got 'inf'"),
        ("0,1,1\n2,3,\n", None, r"line 2, column 3: .*got an empty cell"),
        ("0,1,0.5\n2,3\n", None, r"line 2 has 2 field\(s\); expected 3 like line 1"),
        ("0,1\n2,3,0.5\n", None, r"line 2 has 3 field\(s\); expected 2 like line 1"),
        ("0,1,2,3\n", None, r"line 1 has 4 field\(s\); expected 2 .* or 3"),
        ("0,1,1\n1,0,2\n", None, r"line 2: repeats the link of line 1"),
        ("a,b,1\nb,z,1\n", IDS, r"line 2, column 2: 'z' is not an id"),
        # two ids that read as column names, then a number: still ambiguous
        ("id1,id2,1\nid3,id4,1\n", NAMED, r"line 1: 'id1','id2','1' reads both"),
        # two ids and no number: a header, or a link with a bad weight?
        ("a,b,w\nd,c,1\n", IDS, r"line 1: 'a','b','w' reads both as a header"),
    ],
)
def test_read_weighted_links_errors(tmp_path, content, ids, match):
    path = write(tmp_path, "links.csv", content)
    with pytest.raises(ValueError, match=match) as info:
        read_weighted_links(path, ids=ids, n_samples=4)
    assert "\n" not in str(info.value) and str(info.value).startswith(path + ":")


def test_read_links_refuses_a_weight_column_and_names_the_weighted_reader(
        tmp_path):
    path = write(tmp_path, "links.csv", "0,1,0.5\n")
    with pytest.raises(ValueError, match="line 1 has 3 field.*read_weighted_links"):
        read_links(path, n_samples=4)


@pytest.mark.parametrize(
    "array, links, weights, match",
    [
        (np.array([[0, 3], [1, 2]]), [[0, 3], [1, 2]], None, None),
        (np.array([[0.0, 3.0, 0.5], [1.0, 2.0, 4.0]]), [[0, 3], [1, 2]],
         [0.5, 4.0], None),
        (np.array([[0, 3, 2]]), [[0, 3]], [2.0], None),
        (np.array([[0.0, 1.5, 1.0]]), None, None,
         r"link 0 \(0-based\), column 2: expected an integral row index, got 1.5"),
        (np.array([[0.0, 1e30, 1.0]]), None, None, r"row index 1000.* out of range"),
        (np.array([[0.0, 1.0, -1.0]]), None, None,
         r"link 0 \(0-based\), column 3: expected a link weight .* got -1.0"),
        (np.array([[0.0, 1.0, np.nan]]), None, None, r"column 3: .* got nan"),
        (np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 2.0]]), None, None,
         r"link 1 \(0-based\): repeats link 0"),
        (np.array([[0.0, 1.0]]), None, None, "expected integer row indices"),
        (np.zeros((2, 4), dtype=int), None, None,
         r"shape \(n_links, 2\) or \(n_links, 3\)"),
    ],
)
def test_read_weighted_links_npy(tmp_path, array, links, weights, match):
    path = str(tmp_path / "links.npy")
    np.save(path, array)
    if match is not None:
        with pytest.raises(ValueError, match=match):
            read_weighted_links(path, n_samples=4)
        return
    got, got_weights = read_weighted_links(path, n_samples=4)
    assert got.dtype == np.intp
    assert_array_equal(got, links)
    if weights is None:
        assert got_weights is None
    else:
        assert_array_equal(got_weights, weights)


# ---------------------------------------------------------------------------
# read_labels
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content, ids, expected",
    [
        ("0\n1\n-1\n0\n", None, [0, 1, -1, 0]),
        ("label\n0\n1\n\n0\n", None, [0, 1, -1, 0]),
        ("label\ncat\ndog\nNA\ncat\n", None, [0, 1, -1, 0]),
        ("1.0\n\n2.0\n-1.0\n", None, [0, -1, 1, -1]),
        ("0\n1\n\n\n", None, [0, 1, -1, -1]),  # trailing blank lines are labels
        ("0\n1\n\n\n\n\n", None, [0, 1, -1, -1]),  # extra blank lines dropped
        ("row,label\n3,x\n0,y\n", None, [0, -1, -1, 1]),  # codes in row order
        ("label\n0\n1\n\n\n", None, [0, 1, -1, -1]),  # header by content
        ("a,x\nd,x\n\n", IDS, [0, -1, -1, 0]),
        ("id,label\nb,1\nc,\n", IDS, [-1, 0, -1, -1]),
        # unknown markers
        ("cat\n?\nunknown\ncat\n", None, [0, -1, -1, 0]),
        ("label\ncat\nNA\nUNKNOWN\n-1\n", None, [0, -1, -1, -1]),
        ("0\n\n?\nN/A\n", None, [0, -1, -1, -1]),
        # a text first line that other rows share is a label
        ("cat\ndog\ncat\ndog\n", None, [0, 1, 0, 1]),
    ],
)
def test_read_labels(tmp_path, content, ids, expected):
    path = write(tmp_path, "labels.csv", content)
    labels = read_labels(path, ids=ids, n_samples=4)
    assert labels.dtype == np.int64
    assert_array_equal(labels, expected)


@pytest.mark.parametrize(
    "content, ids, expected_names",
    [
        ("label\ncat\ndog\nNA\ncat\n", None, ["cat", "dog"]),
        ("1.0\n\n2.0\n-1.0\n", None, ["1", "2"]),
        ("row,label\n3,x\n0,y\n", None, ["y", "x"]),  # codes in row order
        ("-1\n?\n\nNA\n", None, []),
    ],
)
def test_read_labels_returns_the_label_of_every_code(
        tmp_path, content, ids, expected_names):
    path = write(tmp_path, "labels.csv", content)
    codes, names = read_labels(path, ids=ids, n_samples=4, return_names=True)
    assert_array_equal(codes, read_labels(path, ids=ids, n_samples=4))
    assert names == expected_names
    assert max(codes) == len(names) - 1


def test_read_labels_names_of_a_npy_file(tmp_path):
    np.save(tmp_path / "labels.npy", np.array([5, -1, 3, 5]))
    codes, names = read_labels(tmp_path / "labels.npy", n_samples=4,
                               return_names=True)
    assert_array_equal(codes, [0, -1, 1, 0])
    assert names == ["5", "3"]


@pytest.mark.parametrize(
    "content, match",
    [
        ("0\n1\n2\n", r": 3 lines; expected one label per data row \(4\)"),
        ("0\n1\n2\n3\n4\n5\n", r": 6 lines;"),
        # trailing blank lines (unknown labels) are counted, and said apart
        ("0\n1\n2\n3\n4\n5\n\n\n", r": 8 lines \(6 up to the last label, then "
         r"blank lines\); expected one label per data row \(4\)"),
        ("0,1,2\n", r"line 1 has 3 fields; expected 1 .* or 2"),
        ("0,a\n9,b\n", r"line 2, column 1: row index 9 is out of range"),
        ("0,a\n0,b\n", r"line 2: labels row 0 again \(first on line 1\)"),
        ("", r"the file is empty"),
        # a header over numeric labels, one label short
        ("label\n0\n1\n0\n", r": 3 lines after the header line; expected one "
         r"label per data row \(4\)"),
        # text labels, one short: a header with a label missing, or a label?
        ("label\ncat\ndog\ncat\n", r"line 1 'label' is either a header, leaving "
         r"3 labels for the 4 data rows, or the label of the first row"),
    ],
)
def test_read_labels_errors(tmp_path, content, match):
    path = write(tmp_path, "labels.csv", content)
    with pytest.raises(ValueError, match=match) as info:
        read_labels(path, n_samples=4)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("header, expected", [
    (False, [0, 1, 2, 1]),
    (True, r"3 lines after the header line; expected one label per data row"),
])
def test_read_labels_explicit_header(tmp_path, header, expected):
    path = write(tmp_path, "labels.csv", "label\ncat\ndog\ncat\n")
    if isinstance(expected, str):
        with pytest.raises(ValueError, match=expected):
            read_labels(path, n_samples=4, header=header)
    else:
        assert_array_equal(read_labels(path, n_samples=4, header=header), expected)


def test_read_labels_npy(tmp_path):
    path = str(tmp_path / "y.npy")
    np.save(path, np.array([3, -1, 3, 5]))
    assert_array_equal(read_labels(path, n_samples=4), [0, -1, 0, 1])
    with pytest.raises(ValueError, match="1-d array of 5 labels"):
        read_labels(path, n_samples=5)


# ---------------------------------------------------------------------------
# write_assignments
# ---------------------------------------------------------------------------


def test_write_csv_roundtrip(tmp_path):
    path = str(tmp_path / "out.csv")
    proba = np.array([[0.25, 0.75], [1.0, 0.0], [1 / 3, 2 / 3]])
    write_assignments(path, [1, 0, 1], proba, ["a", "b", "c"], id_name="sample")
    lines = open(path).read().splitlines()
    assert lines[0] == "sample,cluster,proba_0,proba_1"
    assert lines[1] == "a,1,0.25,0.75"
    assert lines[3] == "c,1,0.333333,0.666667"  # at most 6 significant digits
    back = np.loadtxt(path, delimiter=",", skiprows=1, usecols=(2, 3))
    assert_allclose(back, proba, rtol=5e-6)


def test_write_csv_probabilities_have_at_most_6_significant_digits(tmp_path):
    buf = io.StringIO()
    proba = np.array([[0.123456789, 0.876543211], [1.2345678e-05, 0.99998765432]])
    write_assignments(buf, [1, 1], proba)
    assert buf.getvalue().splitlines()[1:] == ["1,0.123457,0.876543",
                                               "1,1.23457e-05,0.999988"]
    buf = io.StringIO()
    write_assignments(buf, [1, 1], proba, format="json")
    assert json.loads(buf.getvalue())[0]["proba_0"] == 0.123456789  # every digit


def test_write_json_and_file_object(tmp_path):
    path = str(tmp_path / "out.json")
    write_assignments(path, np.array([0, 1]))
    assert json.load(open(path)) == [{"cluster": 0}, {"cluster": 1}]
    buf = io.StringIO()
    write_assignments(buf, [2, 0], ids=["x", "y"], format="json")
    assert json.loads(buf.getvalue()) == [{"id": "x", "cluster": 2},
                                          {"id": "y", "cluster": 0}]
    buf = io.StringIO()
    write_assignments(buf, [2, 0])
    assert buf.getvalue() == "cluster\n2\n0\n"


def test_write_parquet(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    path = str(tmp_path / "out.parquet")
    write_assignments(path, [0, 1], [[0.9, 0.1], [0.2, 0.8]], ["a", "b"])
    table = pq.read_table(path).to_pydict()
    assert table == {"id": ["a", "b"], "cluster": [0, 1], "proba_0": [0.9, 0.2],
                     "proba_1": [0.1, 0.8]}


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"format": "xml"}, "'format' parameter"),
        ({"ids": ["a"]}, "one entry per label"),
        ({"proba": np.ones((3, 2))}, r"proba must have shape \(2, n_clusters\)"),
    ],
)
def test_write_errors(tmp_path, kwargs, match):
    with pytest.raises(ValueError, match=match):
        write_assignments(str(tmp_path / "o.csv"), [0, 1], **kwargs)


def test_format_from_suffix_and_columns():
    assert format_from_suffix("a.JSON") == "json"
    assert format_from_suffix("a.pq") == "parquet"
    assert format_from_suffix("a.tsv") == "csv"
    assert format_from_suffix(None) == "csv"
    cols = assignment_columns(np.array([1]), np.array([[0.5, 0.5]]))
    assert cols == {"cluster": [1], "proba_0": [0.5], "proba_1": [0.5]}


def test_write_assignments_tsv_is_tab_separated_and_reads_back(tmp_path):
    path = str(tmp_path / "out.tsv")
    write_assignments(path, np.array([1, 0]), np.array([[0.25, 0.75], [1.0, 0.0]]),
                      ids=np.array(["a b", "c"], dtype=object), id_name="name")
    assert open(path).read() == (
        "name\tcluster\tproba_0\tproba_1\na b\t1\t0.25\t0.75\nc\t0\t1\t0\n")
    X, ids, names = read_table(path, id_column="name")
    assert ids.tolist() == ["a b", "c"] and names == ["cluster", "proba_0", "proba_1"]


def test_read_links_accepts_ids_that_are_not_strings(tmp_path):
    """Ids are compared as text: the integer id 1 is named by the cell "1"."""
    path = write(tmp_path, "links.csv", "A,B\n1,2\n")
    links = read_links(path, ids=np.array([1, 2, 3]), n_samples=3)
    assert links.tolist() == [[0, 1]]  # a header, then ids


# ---------------------------------------------------------------------------
# atomic_write
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode, old, new", [("w", "old\n", "new\n"),
                                            ("wb", b"old\n", b"new\n")])
def test_atomic_write_replaces_only_when_complete(tmp_path, mode, old, new):
    from smiclust.io import atomic_write

    path = tmp_path / "out.txt"
    path.write_bytes(old if isinstance(old, bytes) else old.encode())
    with pytest.raises(OSError, match="disk full"):
        with atomic_write(path, mode) as f:
            f.write(new)
            raise OSError("disk full")
    assert os.listdir(tmp_path) == ["out.txt"]
    assert path.read_bytes() == (old if isinstance(old, bytes) else old.encode())
    with atomic_write(path, mode) as f:
        f.write(new)
    assert os.listdir(tmp_path) == ["out.txt"]
    assert path.read_bytes() == (new if isinstance(new, bytes) else new.encode())


def test_write_assignments_failure_keeps_the_old_file(tmp_path, monkeypatch):
    import smiclust.io._writers as writers

    path = tmp_path / "out.csv"
    path.write_text("old\n")

    def failing(f, cols, format, delimiter=","):
        f.write("cluster\n0\n")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writers, "_write_text", failing)
    with pytest.raises(OSError, match="No space left"):
        write_assignments(str(path), [0, 1])
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["out.csv"]


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".json"])
def test_write_columns_any_table(tmp_path, suffix):
    path = tmp_path / f"t{suffix}"
    write_columns(str(path), {"a_i": ["x", "y"], "kind": ["must", "cannot"],
                              "score": [0.5, 1 / 3]})
    text = path.read_text()
    if suffix == ".json":
        assert json.loads(text) == [
            {"a_i": "x", "kind": "must", "score": 0.5},
            {"a_i": "y", "kind": "cannot", "score": 1 / 3}]
    else:
        sep = "\t" if suffix == ".tsv" else ","
        assert text == sep.join(["a_i", "kind", "score"]) + "\n" + \
            sep.join(["x", "must", "0.5"]) + "\n" + \
            sep.join(["y", "cannot", "0.333333"]) + "\n"


# ---------------------------------------------------------------------------
# found by the review of 2026-11-27: silent losses in the writers and readers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, match", [
    # the ids were overwritten by the labels or probabilities
    (dict(ids=["a", "b"], id_name="cluster"), "id_name 'cluster' is the name of "
     "another output column .cluster.: the ids would be lost"),
    (dict(ids=["a", "b"], id_name="proba_1", proba=[[1.0, 0.0], [0.0, 1.0]]),
     "id_name 'proba_1' is the name of another output column"),
    (dict(ids=np.array([["a"], ["b"]])), r"ids must be 1-d; got shape \(2, 1\)"),
    (dict(proba=[[np.nan, 1.0], [0.0, 1.0]]), "proba must be finite"),
    (dict(ids=["a", "b"], id_name="class", classes=["x", None]),
     "id_name 'class' is the name of another output column"),
    (dict(classes=["x"]), "classes must have one entry per label: expected 2, "
     "got 1"),
    (dict(classes=["x", 3]), "classes must hold text or None; got 3"),
    (dict(classes=[["x"], ["y"]]), r"classes must be 1-d; got shape \(2, 1\)"),
])
def test_assignment_columns_refuse_what_would_be_lost(kwargs, match):
    from smiclust.io import assignment_columns

    with pytest.raises(ValueError, match=match):
        assignment_columns([0, 1], **kwargs)


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_assignments_with_classes_write_them_last(tmp_path, fmt):
    from smiclust.io import assignment_columns

    cols = assignment_columns([1, 0, 2], [[0.5, 0.5, 0], [1, 0, 0], [0, 0, 1]],
                              ids=["r1", "r2", "r3"], classes=["dog", "cat", None])
    assert list(cols) == ["id", "cluster", "proba_0", "proba_1", "proba_2", "class"]
    assert cols["class"] == ["dog", "cat", None]
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    path = tmp_path / f"out.{fmt}"
    write_assignments(path, [1, 0, 2], ids=["r1", "r2", "r3"],
                      classes=["dog", "cat", None])
    if fmt == "csv":
        assert path.read_text() == "id,cluster,class\nr1,1,dog\nr2,0,cat\nr3,2,\n"
    elif fmt == "json":
        assert [r["class"] for r in json.loads(path.read_text())] == [
            "dog", "cat", None]
    else:
        import pyarrow.parquet as pq

        assert pq.read_table(path).column("class").to_pylist() == [
            "dog", "cat", None]
        # rows of unnamed clusters only: still a text column, as above
        write_assignments(path, [2, 2], classes=[None, None])
        assert str(pq.read_table(path).schema.field("class").type) == "string"


@pytest.mark.parametrize("labels", [[0.7, 1.9], [0, np.nan], ["a", "b"]])
def test_assignment_columns_need_integer_labels(labels):
    from smiclust.io import assignment_columns

    with pytest.raises(ValueError, match="labels must hold integer cluster labels"):
        assignment_columns(labels)
    assert assignment_columns([0.0, 2.0])["cluster"] == [0, 2]


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_write_columns_refuses_columns_of_other_lengths(tmp_path, fmt):
    from smiclust.io import write_columns

    path = tmp_path / f"u.{fmt}"
    with pytest.raises(ValueError, match="columns must be of one length; column "
                       "'a' has 3 values and column 'b' 1"):
        write_columns(path, {"a": [1, 2, 3], "b": [1]})
    assert not path.exists()


@pytest.mark.parametrize("text, kwargs, expected", [
    # a missing-value marker in line 1 made it a header of numbers, the row lost
    ("NA,1.5\n2,3\n4,5\n", {}, "line 1, column 1: expected a number, got 'NA'"),
    ("?,1.5,2\n2,3,4\n", {}, "line 1, column 1: expected a number, got '?'"),
    # Python's float() reads 1_0 as 10
    ("1,2\n1_0,3\n", {}, "line 2, column 1: expected a number, got '1_0'"),
])
def test_read_table_refuses_rows_it_used_to_drop_or_misread(tmp_path, text,
                                                            kwargs, expected):
    path = tmp_path / "t.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=expected.replace("?", r"\?")):
        read_table(str(path), **kwargs)


def test_read_table_id_column_does_not_make_a_header(tmp_path):
    # the ids are text anyway: 's1' over '2' in the id column is no header
    path = tmp_path / "f.csv"
    path.write_text("s1,1\ns2,2\n")
    X, ids, names = read_table(str(path), id_column=0)
    assert_array_equal(X, [[1.0], [2.0]])
    assert list(ids) == ["s1", "s2"] and names is None
    named = tmp_path / "g.csv"
    named.write_text("id,x\ns1,1\ns2,2\n")
    for spec in ("id", 0):
        X, ids, names = read_table(str(named), id_column=spec)
        assert list(ids) == ["s1", "s2"] and names == ["x"]


def test_readers_check_the_ids_against_n_samples(tmp_path):
    from smiclust.io import read_labels, read_links

    links = tmp_path / "l.csv"
    links.write_text("a,e\n")
    with pytest.raises(ValueError, match="'ids' parameter must hold one id per "
                       "sample: expected 3, got 5"):
        read_links(str(links), ids=list("abcde"), n_samples=3)
    with pytest.raises(ValueError, match="'ids' parameter must hold distinct ids; "
                       "rows 0 and 1 are both 'a'"):
        read_links(str(links), ids=list("aabcd"), n_samples=5)
    labels = tmp_path / "lab.csv"
    labels.write_text("e,1\na,2\n")
    with pytest.raises(ValueError, match="expected 3, got 5"):
        read_labels(str(labels), ids=list("abcde"), n_samples=3)


def test_atomic_write_through_a_symbolic_link_replaces_its_target(tmp_path):
    from smiclust.io import atomic_write

    target = tmp_path / "real.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    os.symlink(target, link)
    with atomic_write(link) as f:
        f.write("new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "real.csv"]


def test_atomic_write_leaves_a_file_that_is_no_regular_file_as_it_is(tmp_path):
    # the rename would replace a named pipe or a device (such as /dev/null)
    import stat

    from smiclust.io import atomic_write

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(OSError, match="not a regular file"):
        with atomic_write(pipe) as f:
            f.write("new\n")
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit])
def test_atomic_write_interrupted_keeps_the_old_file_and_no_temporary(tmp_path,
                                                                        error):
    # I4: an interrupt (not an Exception) inside the block is cleaned up too
    from smiclust.io import atomic_write

    path = tmp_path / "out.txt"
    path.write_text("old\n")
    with pytest.raises(error):
        with atomic_write(path) as f:
            f.write("new\n")
            raise error()
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_positional_id_column_given_as_text_never_makes_a_data_line_a_header(
        tmp_path):
    # the command line passes --id-column 0 as the string "0"; the first data
    # line holds the id "0", which read_table took for the name of the id
    # column: the first row was silently dropped as a header
    path = tmp_path / "data.csv"
    path.write_text("0,1.5,2.5\n1,3.5,4.5\n2,5,6\n3,7,8\n")
    X, ids, names = read_table(path, id_column="0")
    X_int, ids_int, _ = read_table(path, id_column=0)
    assert X.shape == (4, 2) and ids.tolist() == ["0", "1", "2", "3"]
    np.testing.assert_array_equal(X, X_int)


def test_a_positional_id_column_given_as_text_is_the_column_at_that_position(
        tmp_path):
    # --id-column 2 on a headerless file whose first line holds the value 2
    # in column 1: column 1 became the ids and the first line a header
    path = tmp_path / "pos.csv"
    path.write_text("5,2,7\n6,3,8\n9,4,1\n")
    X, ids, names = read_table(path, id_column="2")
    assert ids.tolist() == ["7", "8", "1"]
    assert X.tolist() == [[5.0, 2.0], [6.0, 3.0], [9.0, 4.0]] and names is None


# belongs to tests/test_io.py; kills M09 (io/_tables.py: `0 <= index <= width`)
def test_read_table_column_position_equal_to_the_width_is_refused(tmp_path):
    text = tmp_path / "t.csv"
    text.write_text("1,2\n3,4\n")
    for kwargs in ({"id_column": 2}, {"columns": [2]}, {"drop_columns": [2]}):
        with pytest.raises(ValueError, match="does not exist"):
            read_table(text, **kwargs)
    npy = tmp_path / "t.npy"
    np.save(npy, np.ones((3, 2)))
    with pytest.raises(ValueError, match="does not exist"):
        read_table(npy, columns=[2])


# belongs to tests/test_io.py; kills M10 (io/_tables.py: header inference
# forgets an id column named in the first line)
def test_read_table_id_column_named_in_the_first_line_makes_it_a_header(tmp_path):
    path = tmp_path / "t.csv"
    # the feature column's name reads as a number: only the id's name says
    # that the first line is a header
    path.write_text("sample,3\nr1,1\nr2,2\n")
    X, ids, names = read_table(path, id_column="sample")
    assert X.tolist() == [[1.0], [2.0]]
    assert ids.tolist() == ["r1", "r2"]
    assert names == ["3"]


def test_white_space_separated_cells_lose_their_double_quotes(tmp_path):
    # R's write.table: text quoted, cells separated by a space
    path = write(tmp_path, "r.txt", '"id" "x" "y"\n"s0" 1 2\n"s1" 3 4\n')
    X, ids, names = read_table(path, id_column="id")
    assert_array_equal(X, [[1, 2], [3, 4]])
    assert ids.tolist() == ["s0", "s1"] and names == ["x", "y"]
    links = write(tmp_path, "m.txt", '"s1" "s0"\n')
    assert read_links(links, ids=ids, n_samples=2).tolist() == [[1, 0]]


@pytest.mark.parametrize("reader", ["table", "links", "weighted", "labels"])
@pytest.mark.parametrize("delimiter, error, got", [
    ("ab", ValueError, "'ab'"), ("", ValueError, "''"), ('"', ValueError, "'\"'"),
    ("\n", ValueError, "'\\\\n'"), (1, TypeError, r"1 \(int\)"),
])
def test_readers_check_the_delimiter_parameter(tmp_path, reader, delimiter, error,
                                               got):
    path = write(tmp_path, "a.csv", "0,1\n1,2\n")
    call = {
        "table": lambda: read_table(path, delimiter=delimiter),
        "links": lambda: read_links(path, n_samples=3, delimiter=delimiter),
        "weighted": lambda: read_weighted_links(path, n_samples=3,
                                                delimiter=delimiter),
        "labels": lambda: read_labels(path, n_samples=2, delimiter=delimiter),
    }[reader]
    with pytest.raises(error, match=r"The 'delimiter' parameter must be (a str: )?"
                       r"one character \(not a line break nor '\"'\), "
                       rf"'whitespace' or None; got {got}"):
        call()


@pytest.mark.parametrize("content, codes, names", [
    # text labels are kept as written: three classes, named as in the file
    ("01\n1\n10\n1\n", [0, 1, 2, 1], ["01", "1", "10"]),
    ("02\n002\n2\n2.0\n", [0, 1, 2, 2], ["02", "002", "2"]),
    ("1e3\n1000\n1000.00\n+1\n", [0, 1, 1, 2], ["1e3", "1000", "+1"]),
    # an integer written as a float is that integer; -1.0 is unknown
    ("1.0\n1\n-1.0\n0.5\n", [0, 0, -1, 1], ["1", "0.5"]),
])
def test_read_labels_compares_labels_as_written(tmp_path, content, codes, names):
    path = write(tmp_path, "labels.csv", content)
    got_codes, got_names = read_labels(path, n_samples=4, return_names=True)
    assert_array_equal(got_codes, codes)
    assert got_names == names


def test_read_table_parquet_pandas_index_is_no_feature(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [5.0, 6.0, 7.0, 8.0]})
    kept = df.iloc[[3, 1, 2]]  # as df.sample() leaves it: an index, stored
    path = str(tmp_path / "f.parquet")
    kept.to_parquet(path)
    X, ids, names = read_table(path)
    assert_array_equal(X, [[4, 8], [2, 6], [3, 7]])
    assert ids is None and names == ["x", "y"]
    # a named index: no feature, but still a column to choose
    named = str(tmp_path / "n.parquet")
    kept.rename_axis("sample").to_parquet(named)
    assert read_table(named)[2] == ["x", "y"]
    X, ids, names = read_table(named, id_column="sample")
    assert ids.tolist() == ["3", "1", "2"] and names == ["x", "y"]
    X, _, names = read_table(named, columns=["sample", "y"])
    assert_array_equal(X, [[3, 8], [1, 6], [2, 7]])
    assert names == ["sample", "y"]


@pytest.mark.parametrize("content, reader", [
    ("0,1\n5,9\n", read_links),  # pd.DataFrame([[5, 9]]).to_csv(index=False)
    ("0,1,2\n5,9,0.5\n", read_weighted_links),
])
def test_a_first_line_0_1_may_be_pandas_header_or_a_link(tmp_path, content,
                                                        reader):
    path = write(tmp_path, "m.csv", content)
    with pytest.raises(ValueError, match=r"line 1: '0','1'(,'2')? reads both as a "
                       r"header and as a link between rows 0 and 1 \(pandas "
                       r"writes the header 0,1 for unnamed columns\); say which "
                       r"\(command line: --links-header yes\|no; Python: "
                       r"header=True\|False\)"):
        reader(path, n_samples=10)
    for header, expected in [(True, [[5, 9]]), (False, [[0, 1], [5, 9]])]:
        links = reader(path, n_samples=10, header=header)
        links = links[0] if isinstance(links, tuple) else links
        assert links.tolist() == expected


def test_read_labels_integer_over_float_labels_is_header_or_label(tmp_path):
    # pd.Series([1., 0., 1.] + [nan] * 27).to_csv(path, index=False): the
    # header "0", the labels as floats, unknowns as empty cells
    content = '0\n1.0\n0.0\n1.0\n' + '""\n' * 27
    path = write(tmp_path, "l.csv", content)
    with pytest.raises(ValueError, match=r"line 1 '0' is either a header over "
                       r"labels written as floats .* or the label of the first "
                       r"row; say which \(command line: --labels-header yes\|no; "
                       r"Python: header=True\|False\)"):
        read_labels(path, n_samples=30)
    assert_array_equal(read_labels(path, n_samples=30, header=True),
                       [0, 1, 0] + [-1] * 27)
    assert_array_equal(read_labels(path, n_samples=30, header=False)[:5],
                       [0, 1, 0, 1, -1])
    # the count leaves no room for a header, or the labels are integers
    path = write(tmp_path, "l.csv", "0\n1.0\n0.0\n1.0\n")
    assert_array_equal(read_labels(path, n_samples=4), [0, 1, 0, 1])
    path = write(tmp_path, "l.csv", "0\n1\n0\n1\n\n")
    assert_array_equal(read_labels(path, n_samples=4), [0, 1, 0, 1])


@pytest.mark.parametrize("content, kwargs, line", [
    # pd.DataFrame(X).to_csv(index=False): pandas' default column names
    ("0,1\n0.5,1.5\n2.5,3.5\n", {}, "'0','1'"),
    # wavelengths beside an id column given by position
    ("id,400,450\na,0.1,0.2\nb,0.3,0.4\n", {"id_column": 0}, "'id','400','450'"),
    ("id,400,450\na,0.1,0.2\nb,0.3,0.4\n", {"id_column": "0"}, "'id','400','450'"),
    # a row of data with a typo: text over a number, beside a decimal
    ("0.5,1.2o\n0.3,1.1\n0.2,0.9\n", {}, "'0.5','1.2o'"),
])
def test_read_table_asks_about_a_first_line_that_may_be_a_header(
        tmp_path, content, kwargs, line):
    path = write(tmp_path, "a.csv", content)
    with pytest.raises(ValueError, match=rf"a.csv: line 1: {line} could be column "
                       r"names or a row of data; say which \(command line: "
                       r"--header yes or --header no; Python: header=True or "
                       r"header=False\)"):
        read_table(path, **kwargs)
    if "1.2o" not in content:
        X, _, names = read_table(path, header=True, **kwargs)
        assert X.shape == (2, 2) and names[-2:] == line.replace("'", "").split(
            ",")[-2:]
        assert read_table(path, header=False, **kwargs)[0].shape == (3, 2)


@pytest.mark.parametrize("content, header", [
    ("x,1,2\n0.5,0.1,0.2\n", True),       # text over numbers, integers beside
    ("0,1\n5,9\n", False),                # integers below: data
    ("2,1\n0.5,1.5\n", False),            # not increasing: data
    ("1.0,2.0\n0.5,1.5\n", False),        # not written as integers: data
    ("x,y\n0.5,1.5\n", True),             # all text
])
def test_read_table_first_lines_that_are_clear(tmp_path, content, header):
    path = write(tmp_path, "a.csv", content)
    _, _, names = read_table(path)
    assert (names is not None) == header
