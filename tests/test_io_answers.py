"""smiclust.io answers files: read_answers, write_answers, answers_header,
links_of (the file ``smiclust ask`` writes and ``smiclust fit --answers``
reads)."""

import os

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from smiclust.io import (
    ANSWERS,
    answers_header,
    links_of,
    read_answers,
    write_answers,
)


def write(tmp_path, content):
    """``content`` (text, as UTF-8, or bytes) as the file answers.csv."""
    path = tmp_path / "answers.csv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def test_round_trip_with_quoted_ids(tmp_path):
    path = tmp_path / "links.csv"
    ids = np.array(["a,1", "b", 'c"q', "d"])
    answers = [(0, 1, "must"), (3, 2, "cannot"), (1, 2, "skip")]
    write_answers(path, answers, ids=ids, id_name="name")
    assert path.read_text().splitlines()[0] == "name_i,name_j,answer"
    assert read_answers(str(path), ids=ids, n_samples=4) == answers
    write_answers(path, answers)
    assert path.read_text() == "i,j,answer\n0,1,must\n3,2,cannot\n1,2,skip\n"
    assert read_answers(path, n_samples=4) == answers


@pytest.mark.parametrize("content, ids, expected", [
    ("", None, []),
    ("i,j,answer\n", None, []),
    ("0,1,MUST\n\n2,3,skip\n", None, [(0, 1, "must"), (2, 3, "skip")]),
    ("I,J,Answer\n3,0, cannot \n", None, [(3, 0, "cannot")]),
    ("\ufeffid_i,id_j,answer\nb,a,must\n", ["a", "b", "c", "d"], [(1, 0, "must")]),
    ("3,2,cannot\n", ["0", "1", "2", "3"], [(3, 2, "cannot")]),
    # a header of other names: no answer, and no row named
    ("i,j,type\n0,1,must\n", None, [(0, 1, "must")]),
    ("first,second,link\nb,a,cannot\n", ["a", "b", "c", "d"], [(1, 0, "cannot")]),
])
def test_read_answers(tmp_path, content, ids, expected):
    assert read_answers(write(tmp_path, content), ids=ids, n_samples=4) == expected


@pytest.mark.parametrize("content, ids, match", [
    ("i,j,answer\n0,4,must\n", None,
     r"line 2, column 2: row index 4 is out of range \[0, 3\]"),
    ("i,j,answer\n-1,2,must\n", None, r"line 2, column 1: row index -1 is out"),
    ("i,j,answer\nx,2,must\n", None,
     r"line 2, column 1: expected a 0-based row index \(an integer\), got 'x'"),
    ("i,j,answer\n2,2,must\n", None, r"line 2: pairs row 2 with itself"),
    # a first line that names rows is an answer, whatever its third cell
    ("0,1,type\n", None,
     r"line 1, column 3: expected must, cannot or skip, got 'type'"),
    ("a,b,link\n", ["a", "b", "c", "d"],
     r"line 1, column 3: expected must, cannot or skip, got 'link'"),
    # a first line with an answer is never a header
    ("x,y,must\n", None,
     r"line 1, column 1: expected a 0-based row index \(an integer\), got 'x'"),
    ("i,j,answer\n0,1,must\n1,0,cannot\n", None,
     r"line 3: repeats the pair of line 2 \(rows 0 and 1\)"),
    ("i,j,answer\n0,1,maybe\n", None,
     r"line 2, column 3: expected must, cannot or skip, got 'maybe'"),
    ("i,j,answer\n0,1,\n", None,
     r"line 2, column 3: expected must, cannot or skip, got an empty cell"),
    ("i,j,answer\n0,1\n", None,
     r"line 2 has 2 field\(s\); expected 3 \(row, row, answer\)"),
    ("0,1,must,x\n", None, r"line 1 has 4 field\(s\); expected 3"),
    ("id_i,id_j,answer\na,q,must\n", ["a", "b", "c", "d"],
     r"line 2, column 2: 'q' is not an id of the data"),
    ("id_i,id_j,answer\n0,1,must\n", ["a", "b", "c", "d"],
     r"line 2, column 1: '0' is not an id of the data \(when the data has an id "
     r"column, link and label files name rows by id"),
    ('i,j,answer\n0,"1,must\n', None, r"line \d+: malformed CSV"),
    (b"i,j,answer\n0,1,m\xfcst\n", None, r"line 2: not UTF-8 text"),
])
def test_read_answers_errors(tmp_path, content, ids, match):
    path = write(tmp_path, content)
    with pytest.raises(ValueError, match=match) as info:
        read_answers(path, ids=ids, n_samples=4)
    message = str(info.value)
    assert message.startswith(path + ": ") and "\n" not in message


def test_read_answers_missing_file_and_bad_n_samples(tmp_path):
    with pytest.raises(OSError):
        read_answers(tmp_path / "missing.csv", n_samples=4)
    with pytest.raises(ValueError, match="'n_samples' parameter must be a positive"):
        read_answers(write(tmp_path, ""), n_samples=0)


def test_write_answers_refuses_an_unknown_answer_and_writes_nothing(tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text("old\n")
    with pytest.raises(ValueError, match="answer 1 is 'yes'"):
        write_answers(path, [(0, 1, "must"), (1, 2, "yes")])
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["answers.csv"]


def test_answers_header_and_links_of():
    assert ANSWERS == ("must", "cannot", "skip")
    assert answers_header() == ["i", "j", "answer"]
    assert answers_header("sample") == ["sample_i", "sample_j", "answer"]
    must, cannot = links_of([(0, 1, "must"), (1, 2, "skip"), (3, 0, "cannot"),
                             (2, 3, "must")])
    assert_array_equal(must, [[0, 1], [2, 3]])
    assert_array_equal(cannot, [[3, 0]])
    assert must.dtype == np.intp and cannot.dtype == np.intp
    must, cannot = links_of([])
    assert must.shape == (0, 2) and cannot.shape == (0, 2)


@pytest.mark.parametrize("answers, ids, match", [
    ([(-1, 0, "must")], ["a", "b"], "0-based indices below 2; answer 0 names -1"),
    ([(5, 0, "must")], ["a", "b"], "below 2; answer 0 names 5"),
    ([(0, 0, "must")], None, "two different rows; answer 0 pairs row 0 with itself"),
    ([("x", 1, "skip")], None, "0-based indices; answer 0 names 'x'"),
    ([(0, 1)], None, r"\(i, j, answer\) triples; answer 0 is \(0, 1\)"),
])
def test_write_answers_refuses_rows_that_name_no_pair(tmp_path, answers, ids, match):
    # -1 wrote the last id; a self-pair wrote a file read_answers refuses
    path = tmp_path / "a.csv"
    with pytest.raises(ValueError, match="The answers of write_answers must .*"
                       + match):
        write_answers(str(path), answers, ids=ids)
    assert not path.exists()


def test_links_of_refuses_an_answer_it_would_drop():
    with pytest.raises(ValueError, match="answers of links_of must be must, cannot "
                       "or skip; answer 1 is 'MUST'"):
        links_of([(0, 1, "must"), (1, 2, "MUST")])
