"""The command line, run as ``python -m smiclust`` runs it, in processes.

Starting Python and importing scikit-learn takes seconds, so each end-to-end
run is a child of a fork server that paid the imports once
(``tests/cli_process.py``; checked against a new interpreter below), while
the many malformed-input and fuzz cases run through one driver process that
calls ``smiclust.cli.main`` (what ``python -m smiclust`` runs) once per case,
capturing stdout, stderr and any uncaught exception.
"""

import csv
import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from cli_process import drive_cli, run_cli
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_moons
from sklearn.metrics import adjusted_rand_score

from smiclust import SMIClustering, sample_links
from smiclust.cli import main
from smiclust.datasets import DATASETS, SKLEARN_DATASETS, make_digits500

FIXED = ["--n-neighbors", "5", "--gamma", "1", "--eta", "1"]


def cli(*args, cwd):
    return run_cli(args, cwd=cwd)


def run_driver(cases, cwd):
    """Run every argv of ``cases`` through smiclust.cli.main in one process."""
    results = drive_cli(cases, cwd=cwd)
    assert len(results) == len(cases)
    return results


def _csv_rows(text):
    return list(csv.reader(io.StringIO(text)))


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """Two moons (200 rows, shuffled ids), links by id, labels, a .npy copy."""
    d = tmp_path_factory.mktemp("cli")
    X, y = make_moons(200, noise=0.05, random_state=0)
    rng = np.random.RandomState(0)
    ids = [f"m{v:04d}" for v in rng.permutation(10000)[:200]]
    with open(d / "moons.csv", "w") as f:
        f.write("x1,sample,x2\n")  # the id column need not be first
        for i, (a, b) in zip(ids, X):
            f.write(f"{float(a)!r},{i},{float(b)!r}\n")
    np.save(d / "moons.npy", X)
    must, cannot = sample_links(y, 40, random_state=0)
    with open(d / "must.csv", "w") as f:
        f.write("a,b\n" + "".join(f"{ids[i]},{ids[j]}\n" for i, j in must))
    with open(d / "cannot.csv", "w") as f:
        f.write("".join(f"{ids[i]},{ids[j]}\n" for i, j in cannot))
    with open(d / "must_idx.csv", "w") as f:
        f.write("".join(f"{i},{j}\n" for i, j in must))
    labels = ["" if k % 10 else str(v) for k, v in enumerate(y)]
    (d / "labels.csv").write_text("label\n" + "\n".join(labels) + "\n")
    return {"dir": d, "X": X, "y": y, "ids": ids, "n_links": len(must) + len(cannot)}


@pytest.fixture(scope="module")
def fitted(work):
    """fit by id with --out, --proba, --save and --plot."""
    proc = cli("fit", "moons.csv", "-k", "2", "--id-column", "sample",
               "--must-link", "must.csv", "--cannot-link", "cannot.csv", *FIXED,
               "--out", "out.csv", "--proba", "--save", "model.joblib",
               "--plot", "moons.png", cwd=work["dir"])
    return proc


# ---------------------------------------------------------------------------
# end to end
# ---------------------------------------------------------------------------


def test_fit_by_id_end_to_end(work, fitted):
    assert fitted.returncode == 0, fitted.stderr
    assert fitted.stdout == ""  # assignments went to --out
    summary = json.loads(fitted.stderr.strip().splitlines()[-1])
    assert summary["n_samples"] == 200 and summary["n_features"] == 2
    assert summary["n_neighbors"] == 5 and summary["gamma"] == 1.0
    assert summary["n_must_link"] + summary["n_cannot_link"] == work["n_links"]
    assert summary["n_violations"] == 0 and summary["lsmi"] is None
    assert summary["cluster_sizes"] == [100, 100] and summary["seconds"] > 0
    rows = _csv_rows((work["dir"] / "out.csv").read_text())
    assert rows[0] == ["sample", "cluster", "proba_0", "proba_1"]
    body = rows[1:]
    assert [r[0] for r in body] == work["ids"]  # every row, in input order
    labels = np.array([int(r[1]) for r in body])
    assert adjusted_rand_score(work["y"], labels) == pytest.approx(1.0)
    proba = np.array([[float(v) for v in r[2:]] for r in body])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-5)  # 6 digits
    assert (proba.argmax(axis=1) == labels).all()
    png = (work["dir"] / "moons.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_predict_saved_model(work, fitted):
    assert fitted.returncode == 0, fitted.stderr
    d = work["dir"]
    rows = (d / "moons.csv").read_text().splitlines()
    picked = [rows[0]] + rows[1:][::-1][:50]  # new order, 50 rows
    (d / "new.csv").write_text("\n".join(picked) + "\n")
    proc = cli("predict", "model.joblib", "new.csv", "--proba", "--json",
               cwd=d)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["summary"]["n_samples"] == 50
    assert doc["summary"]["cluster_classes"] is None  # fitted without --labels
    got = doc["assignments"]
    expected_ids = [r.split(",")[1] for r in picked[1:]]
    assert [a["sample"] for a in got] == expected_ids
    fit_rows = _csv_rows((d / "out.csv").read_text())[1:]
    fit_label = {r[0]: int(r[1]) for r in fit_rows}
    agree = np.mean([a["cluster"] == fit_label[a["sample"]] for a in got])
    assert agree >= 0.95
    for a in got:
        assert a["proba_0"] + a["proba_1"] == pytest.approx(1.0)


def test_fit_stdout_csv_from_npy_and_labels(work):
    proc = cli("fit", "moons.npy", "-k", "2", "--labels", "labels.csv", *FIXED,
               cwd=work["dir"])
    assert proc.returncode == 0, proc.stderr
    rows = _csv_rows(proc.stdout)
    assert rows[0] == ["cluster", "class"] and len(rows) == 201
    labels = np.array([int(r[0]) for r in rows[1:]])
    assert adjusted_rand_score(work["y"], labels) > 0.9
    # the class column names each row by its cluster's labels ("0" / "1")
    assert {r[1] for r in rows[1:]} == {"0", "1"}
    assert adjusted_rand_score(labels, [int(r[1]) for r in rows[1:]]) == 1.0
    lines = proc.stderr.strip().splitlines()
    # the fit's own progress ("[smiclust] ...") shows where a step takes over
    # a second: on a loaded machine even here
    assert all(line.startswith(("smiclust fit: ", "[smiclust] "))
               for line in lines[:-1])
    assert lines[-2].startswith("smiclust fit: clusters named by --labels")
    summary = json.loads(lines[-1])
    # --labels are fit's partial_labels: the same labels as in Python, one
    # group per label (no pairs formed) and no link test
    from smiclust import SMIClustering

    partial = np.where(np.arange(200) % 10 == 0, work["y"], -1)
    model = SMIClustering(2, n_neighbors=5, gamma=1.0, eta=1.0, random_state=0)
    model.fit(work["X"], partial_labels=partial)
    np.testing.assert_array_equal(labels, model.labels_)
    assert summary["link_test_pvalue"] is None
    assert summary["links"] == "closure"
    assert summary["n_labeled"] == 20
    # the links in effect are still every pair of labelled rows, counted
    n_same = sum(k * (k - 1) // 2 for k in np.bincount(partial[partial >= 0]))
    assert summary["n_must_link"] == n_same
    assert summary["n_must_link"] + summary["n_cannot_link"] == 20 * 19 // 2


def test_fit_json_with_tuning_progress(work):
    proc = cli("fit", "moons.csv", "-k", "2", "--id-column", "sample",
               "--must-link", "must.csv", "--n-neighbors", "4,5", "--gamma", "1",
               "--proba", "--json", cwd=work["dir"])
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["summary"]["tuned"] == ["n_neighbors"]
    assert doc["summary"]["n_candidates"] == 2
    assert doc["summary"]["n_neighbors"] in (4, 5)
    assert len(doc["assignments"]) == 200
    assert [a["sample"] for a in doc["assignments"]] == work["ids"]
    for a in doc["assignments"]:
        assert a["proba_0"] + a["proba_1"] == pytest.approx(1.0)
    events = [json.loads(line) for line in proc.stderr.strip().splitlines()]
    assert all(e["event"] == "progress" for e in events)
    assert any("solved 2/2 candidates" in e["message"] for e in events)


def test_datasets_listing(tmp_path):
    proc = cli("datasets", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    listing = json.loads(proc.stdout)
    assert [d["name"] for d in listing] == [*DATASETS, "iris", "wine",
                                            "breast_cancer"]
    sonar = next(d for d in listing if d["name"] == "sonar")
    assert (sonar["n_samples"], sonar["n_features"], sonar["n_classes"]) == (208, 60, 2)
    assert sonar["source"] == "shipped"
    wine = next(d for d in listing if d["name"] == "wine")
    assert (wine["n_samples"], wine["n_classes"], wine["source"]) == (
        178, 3, "scikit-learn")
    # the sets reproduce --datasets accepts export too
    proc = cli("datasets", "wine", "--out", "wine.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = (tmp_path / "wine.csv").read_text().splitlines()
    assert rows[0].split(",")[-1] == "label" and len(rows) == 179
    X, y = SKLEARN_DATASETS["wine"].load()
    first = rows[1].split(",")
    assert [float(v) for v in first[:-1]] == X[0].tolist() and int(first[-1]) == y[0]


def test_malformed_file_in_a_real_process(work):
    d = work["dir"]
    (d / "ragged_real.csv").write_text("x,y\n1,2\n3\n")
    proc = cli("fit", "ragged_real.csv", "-k", "2", cwd=d)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(
        "smiclust fit: error: DATA: ragged_real.csv: line 3 has 1 field(s)")


# ---------------------------------------------------------------------------
# malformed inputs and fuzz: one driver process
# ---------------------------------------------------------------------------

DATA = ["--id-column", "sample"]
FIT = ["fit", "moons.csv", "-k", "2", *DATA, *FIXED]
#: without an id column: links and labels name rows by 0-based index
FIT_IDX = ["fit", "moons.npy", "-k", "2", *FIXED]

#: name -> (files to write, argv, text the one-line error must contain)
MALFORMED = {
    "missing data file": ({}, ["fit", "nope.csv", "-k", "2"],
                          "cannot read DATA 'nope.csv': No such file"),
    "data is a directory": ({}, ["fit", ".", "-k", "2"], "cannot read DATA '.'"),
    "ragged csv": ({"d.csv": "x,y\n1,2\n3,4\n5\n"}, ["fit", "d.csv", "-k", "2"],
                   "d.csv: line 4 has 1 field(s); expected 2 like the header"),
    "header mismatch": ({"d.csv": "x,y\n1,2,3\n4,5,6\n"}, ["fit", "d.csv", "-k", "2"],
                        "line 2 has 3 field(s); expected 2 like the header (line 1)"),
    "non-numeric cell": ({"d.csv": "x,y\n1,2\n3,four\n"}, ["fit", "d.csv", "-k", "2"],
                         "line 3, column 2 ('y'): expected a number, got 'four'"),
    # the ids were overwritten by the cluster column of the output
    "id column named cluster": (
        {"d.csv": "cluster,x,y\na,1,2\nb,3,4\nc,5,6\nd,7,8\n"},
        ["fit", "d.csv", "-k", "2", "--id-column", "cluster", "--n-neighbors", "2"],
        "--id-column 'cluster' is also the name of a column of the assignments"),
    # an unset shell variable as a file name: refused before the fit
    "empty --out": ({}, [*FIT, "--out", ""],
                    "--out needs a file name; got an empty string"),
    "empty --save": ({}, [*FIT, "--save", ""],
                     "--save needs a file name; got an empty string"),
    "empty --suspect-links": ({}, [*FIT, "--suspect-links", ""],
                              "--suspect-links needs a file name; got an empty"),
    "eigenvector plot of one cluster": (
        {}, ["fit", "moons.csv", "-k", "1", *DATA, *FIXED, "--plot", "p.png",
             "--plot-embedding", "eigenvectors"],
        "--plot-embedding eigenvectors needs -k 2 or more"),
    "empty cell": ({"d.csv": "x,y\n1,2\n,4\n"}, ["fit", "d.csv", "-k", "2"],
                   "line 3, column 1 ('x'): expected a number, got an empty cell"),
    "non-finite cell": ({"d.csv": "1,2\n3,inf\n"}, ["fit", "d.csv", "-k", "2"],
                        "line 2, column 2: expected a finite number, got 'inf'"),
    "text ids without --id-column": ({}, ["fit", "moons.csv", "-k", "2"],
                                     "column 2 ('sample'): expected a number"),
    "class column": ({"d.csv": "x,y,cls\n1,2,a\n3,4,b\n"}, ["fit", "d.csv", "-k", "2"],
                     "got 'a' (if this column is not a feature, such as a class, a "
                     "name or row ids, leave it out: --drop-columns on the command "
                     "line"),
    "drop unknown column": ({}, ["fit", "moons.csv", "-k", "2", *DATA,
                                "--drop-columns", "x3"],
                            "unknown column to drop 'x3'"),
    "drop the id column": ({}, ["fit", "moons.csv", "-k", "2", *DATA,
                               "--drop-columns", "sample"],
                           "column to drop 'sample' is the id column"),
    "drop every feature": ({}, ["fit", "moons.csv", "-k", "2", *DATA,
                               "--drop-columns", "x1,x2"],
                           "no feature columns left"),
    "drop empty name": ({}, ["fit", "moons.csv", "-k", "2", *DATA,
                            "--drop-columns", "x1,"],
                        "--drop-columns has an empty name"),
    "unknown id column": ({}, ["fit", "moons.csv", "-k", "2", "--id-column", "id"],
                          "unknown id column 'id'; the columns are 'x1'"),
    "unknown column name": ({}, ["fit", "moons.csv", "-k", "2", *DATA, "--columns",
                                 "x1,x3"], "unknown column 'x3'"),
    "duplicate ids": ({"d.csv": "id,x\na,1\nb,2\na,3\n"},
                      ["fit", "d.csv", "-k", "2", "--id-column", "id"],
                      "line 4, column 1: duplicate id 'a'"),
    "empty file": ({"d.csv": ""}, ["fit", "d.csv", "-k", "2"], "the file is empty"),
    "header only": ({"d.csv": "x,y\n"}, ["fit", "d.csv", "-k", "2"], "no data rows"),
    "not utf-8": ({"d.csv": b"x,y\n1,2\n\xff\xfe,3\n"}, ["fit", "d.csv", "-k", "2"],
                  "line 3: not UTF-8 text"),
    "bad quoting": ({"d.csv": 'x,y\n1,"2"x\n'}, ["fit", "d.csv", "-k", "2"],
                    "line 2: malformed CSV"),
    "corrupt npy": ({"d.npy": b"\x93NUMPY\x01\x00garbage"}, ["fit", "d.npy", "-k",
                                                           "2"],
                    "not a readable .npy file"),
    "1-d npy": ({"d.npy": "NPY1D"}, ["fit", "d.npy", "-k", "2"],
                "expected a 2-d array"),
    "corrupt parquet": ({"d.parquet": b"PAR1\x00\x01garbagePAR1"},
                        ["fit", "d.parquet", "-k", "2"], "not a readable Parquet"),
    "pandas header of a data file": ({"d.csv": "0,1\n0.5,1.5\n2.5,3.5\n"},
                                     ["fit", "d.csv", "-k", "2"],
                                     "d.csv: line 1: '0','1' could be column names "
                                     "or a row of data; say which (command line: "
                                     "--header yes or --header no;"),
    "pandas header of a link file": ({"l.csv": "0,1\n5,9\n"},
                                     [*FIT_IDX, "--must-link", "l.csv"],
                                     "l.csv: line 1: '0','1' reads both as a header "
                                     "and as a link between rows 0 and 1 (pandas "
                                     "writes the header 0,1 for unnamed columns); "
                                     "say which (command line: --links-header "
                                     "yes|no; Python: header=True|False)"),
    "link index out of range": ({"l.csv": "0,2\n2,500\n"},
                                [*FIT_IDX, "--must-link", "l.csv"],
                                "l.csv: line 2, column 2: row index 500 is out of "
                                "range [0, 199] (the data has 200 rows)"),
    "negative link index": ({"l.csv": "0,-3\n"}, [*FIT_IDX, "--cannot-link", "l.csv"],
                            "row index -3 is out of range"),
    "link line with four fields": ({"l.csv": "0,1,2,3\n"},
                                   [*FIT, "--must-link", "l.csv"],
                                   "line 1 has 4 field(s); expected 2 (the two "
                                   "rows of a link) or 3"),
    "link lines of two widths": ({"l.csv": "0,1,0.5\n2,3\n"},
                                 [*FIT_IDX, "--must-link", "l.csv"],
                                 "l.csv: line 2 has 2 field(s); expected 3 like "
                                 "line 1"),
    "unknown link id": ({"l.csv": "a,b\nm_nope,m_nada\nx,y\n"},
                        [*FIT, "--must-link", "l.csv"],
                        "line 2, column 1: 'm_nope' is not an id of the data"),
    "link to itself": ({"l.csv": "3,3\n"}, [*FIT_IDX, "--must-link", "l.csv"],
                       "line 1: links row 3 to itself"),
    "duplicate link": ({"l.csv": "1,2\n2,1\n"}, [*FIT_IDX, "--must-link", "l.csv"],
                       "line 2: repeats the link of line 1"),
    "missing link file": ({}, [*FIT, "--must-link", "nope.csv"],
                          "cannot read --must-link 'nope.csv'"),
    "answers file as link file": ({"l.csv": "1,2,must\n"},
                                  [*FIT_IDX, "--must-link", "l.csv"],
                                  "got 'must' (a file of i,j,answer lines with "
                                  "must / cannot / skip answers is read by "
                                  "--answers)"),
    "labels of wrong length": ({"lab.csv": "0\n1\n"}, [*FIT, "--labels", "lab.csv"],
                               "2 lines; expected one label per data row (200)"),
    "labels with unknown row": ({"lab.csv": "row,label\n0,a\n900,b\n"},
                                [*FIT_IDX, "--labels", "lab.csv"],
                                "row index 900 is out of range"),
    "must and cannot on one pair": ({"l.csv": "2,1\n", "l2.csv": "1,2\n"},
                                    [*FIT_IDX, "--must-link", "l.csv", "--cannot-link",
                                     "l2.csv"],
                                    "both a must-link and a cannot-link"),
    "more clusters than rows": ({"d.csv": "1\n2\n3\n"},
                                ["fit", "d.csv", "-k", "5"],
                                "more clusters than DATA has rows"),
    "n_neighbors too large": ({"d.csv": "1\n2\n3\n"},
                              ["fit", "d.csv", "-k", "2", "--n-neighbors", "3"],
                              "--n-neighbors must be smaller than the number of rows"),
    "unknown plot format": ({}, [*FIT, "--plot", "p.xyz"], "unknown image format"),
    "plot without suffix": ({}, [*FIT, "--plot", "plot"],
                            "needs a suffix naming the image format, e.g. .png"),
    "wrong delimiter": ({"d.csv": "name,a,b\nx,1,2\ny,3,4\nz,5,6\n"},
                        ["fit", "d.csv", "-k", "2", "--delimiter", ";",
                         "--id-column", "name"],
                        "the columns are 'name,a,b' (a single column: is "
                        "--delimiter right?)"),
    "parquet to stdout": ({}, [*FIT, "--format", "parquet"], "needs --out FILE"),
    "output directory missing": ({}, [*FIT, "--out", "nodir/out.csv"],
                                 "does not exist"),
    "predict: header mismatch": ({"p.csv": "x1,sample,x3\n0.1,q,0.2\n"},
                                 ["predict", "model.joblib", "p.csv"],
                                 "header mismatch: no column(s) 'x2'; the model "
                                 "was fitted on 'x1', 'x2'"),
    "predict: wrong column count": ({"p.csv": "0.1,q,0.2,0.3\n"},
                                    ["predict", "model.joblib", "p.csv",
                                     "--id-column", "1"],
                                    "3 feature column(s); the model was fitted on 2"),
    "predict: model is garbage": ({"m.joblib": b"\x80\x04garbage\x00\xff" * 5},
                                  ["predict", "m.joblib", "moons.csv"],
                                  "not a model saved by 'smiclust fit --save'"),
    "predict: model is another pickle": ({"m.joblib": "PICKLED_LIST"},
                                         ["predict", "m.joblib", "moons.csv"],
                                         "not a model saved by 'smiclust fit"),
    "predict: missing model": ({}, ["predict", "nope.joblib", "moons.csv"],
                               "cannot read MODEL 'nope.joblib'"),
}


def _materialise(content):
    if content == "NPY1D":
        buf = io.BytesIO()
        np.save(buf, np.arange(5.0))
        return buf.getvalue()
    if content == "PICKLED_LIST":
        import joblib

        buf = io.BytesIO()
        joblib.dump([1, 2, 3], buf)
        return buf.getvalue()
    return content.encode() if isinstance(content, str) else content


FUZZ_ALPHABET = b"0123456789.,,,-+e\n\n\"; \tabrnx\r\x00"


def _fuzz_cases(d, rng, n_cases=30):
    """Random-byte, truncated and byte-flipped versions of valid input files."""
    X, y = make_moons(40, noise=0.05, random_state=1)
    good = {
        "csv": ("id,a,b\n" + "".join(f"r{i},{a:.4f},{b:.4f}\n"
                                     for i, (a, b) in enumerate(X))).encode(),
        "links": ("a,b\n" + "".join(f"r{i},r{i + 1}\n" for i in range(0, 20, 2))
                  ).encode(),
        "labels": ("label\n" + "".join(f"{v if i % 4 == 0 else ''}\n"
                                       for i, v in enumerate(y))).encode(),
    }
    buf = io.BytesIO()
    np.save(buf, X)
    good["npy"] = buf.getvalue()
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq

        buf = io.BytesIO()
        pq.write_table(pa.table({"a": X[:, 0], "b": X[:, 1]}), buf)
        good["parquet"] = buf.getvalue()
    except ImportError:
        pass
    good["model"] = (d / "model.joblib").read_bytes()
    (d / "fz_data.csv").write_bytes(good["csv"])
    fixed = ["-k", "2", "--n-neighbors", "3", "--gamma", "1", "--eta", "1", "-q"]
    kinds = sorted(good)
    cases = []
    for k in range(n_cases):
        kind = kinds[k % len(kinds)]
        base = good[kind]
        text = kind in ("csv", "links", "labels")
        mode = ("bytes", "text", "truncate", "flip")[rng.randint(4)]
        if kind == "model" and mode == "flip":
            mode = "truncate"  # a flipped pickle may build arbitrary objects
        if mode == "bytes":
            blob = rng.randint(0, 256, size=rng.randint(0, 300)).astype(np.uint8)
            blob = blob.tobytes()
        elif mode == "text":  # CSV-like characters in random order
            blob = bytes(rng.choice(list(FUZZ_ALPHABET), size=rng.randint(0, 300)))
        elif mode == "truncate":
            blob = base[: rng.randint(0, len(base))]
        else:
            blob = bytearray(base)
            for pos in rng.randint(0, len(blob), size=rng.randint(1, 6)):
                blob[pos] = rng.choice(list(FUZZ_ALPHABET)) if text else \
                    rng.randint(0, 256)
            blob = bytes(blob)
        suffix = {"csv": ".csv", "links": ".csv", "labels": ".csv", "npy": ".npy",
                  "parquet": ".parquet", "model": ".joblib"}[kind]
        name = f"fz_{k:02d}_{kind}_{mode}{suffix}"
        (d / name).write_bytes(blob)
        if kind in ("csv", "npy", "parquet"):
            argv = ["fit", name, *fixed]
            if kind == "csv" and mode in ("truncate", "flip"):
                argv += ["--id-column", "id"]
        elif kind == "links":
            argv = ["fit", "fz_data.csv", "--id-column", "id", "--must-link", name,
                    *fixed]
        elif kind == "labels":
            argv = ["fit", "fz_data.csv", "--id-column", "id", "--labels", name,
                    *fixed]
        else:
            argv = ["predict", name, "moons.csv", "-q"]
        cases.append((name, argv))
    return cases


@pytest.fixture(scope="module")
def driver_results(work, fitted):
    assert fitted.returncode == 0, fitted.stderr
    d = work["dir"] / "bad"
    d.mkdir()
    (d / "model.joblib").write_bytes((work["dir"] / "model.joblib").read_bytes())
    for name in ("moons.csv", "moons.npy"):
        (d / name).write_bytes((work["dir"] / name).read_bytes())
    # each malformed case reads its files from its own sub-directory
    argvs = []
    for k, (files, argv, _) in enumerate(MALFORMED.values()):
        sub = d / f"case{k:02d}"
        sub.mkdir()
        for fname, content in files.items():
            (sub / fname).write_bytes(_materialise(content))
        argvs.append([f"{sub.name}/{a}" if a in files else a for a in argv])
    fuzz = _fuzz_cases(d, np.random.RandomState(20240601))
    extra = {"datasets table": ["datasets"], "fit help": ["fit", "--help"]}
    results = run_driver(argvs + [a for _, a in fuzz] + list(extra.values()), d)
    n, m = len(argvs), len(fuzz)
    return {
        "malformed": dict(zip(MALFORMED, results[:n])),
        "fuzz": list(zip([name for name, _ in fuzz], results[n:n + m])),
        "extra": dict(zip(extra, results[n + m:])),
    }


def test_options_are_taken_in_full_only(capsys):
    # with argparse's abbreviations, "--links" would be read as
    # "--links-header" and refused with a message about that option
    from smiclust.cli import build_parser

    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(["fit", "d.csv", "-k", "2", "--links", "l.csv"])
    assert exc.value.code == 2
    message = capsys.readouterr().err.splitlines()[-1]
    assert message.endswith("unrecognized arguments: --links l.csv")
    args = build_parser().parse_args(["fit", "d.csv", "-k", "2",
                                      "--links-header", "no"])
    assert args.links_header == "no"


def test_pgf_plot_without_latex_is_refused_before_the_fit(monkeypatch):
    # the pgf backend needs LaTeX: it failed after --save and --suspect-links
    # were written, as an "unexpected RuntimeError"
    import shutil

    pytest.importorskip("matplotlib")
    from smiclust.commands import _common

    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(_common.UsageError, match="--plot 'p.pgf': the pgf format "
                       "needs xelatex .LaTeX., which is not installed"):
        _common.require_matplotlib("p.pgf")


@pytest.mark.parametrize("argv, message", [
    (["demo", "--n-jobs", "0"], "argument --n-jobs: expected a non-zero integer"),
    (["demo", "--seed", "-1"], "argument --seed: expected an integer in "
     "[0, 4294967295], got '-1'"),
    (["datasets", "sonar", "--out", "s.csv", "--random-state", "4294967296"],
     "argument --random-state: expected an integer in [0, 4294967295]"),
    (["fit", "d.csv", "-k", "2", "--gamma", "inf"],
     "argument --gamma: expected 'auto' or finite numbers >= 0.0, got 'inf'"),
    (["fit", "d.csv", "-k", "2", "--n-jobs", "0"], "argument --n-jobs"),
    (["fit", "d.csv", "-k", "2", "--random-state", "-1"], "argument --random-state"),
])
def test_bad_numbers_are_refused_by_the_parser_naming_the_option(argv, message,
                                                                 capsys):
    # before: "unexpected ValueError" with status 1 (demo, datasets), or the
    # estimator's parameter named instead of the option (fit, ask)
    from smiclust.cli import build_parser

    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err.splitlines()[-1]


def test_a_refused_fit_leaves_existing_outputs_untouched(work, tmp_path):
    for name in ("m.joblib", "s.csv"):
        (tmp_path / name).write_bytes(b"old\n")
    proc = cli(*FIT, "--must-link", work["dir"] / "must.csv", "--save",
               tmp_path / "m.joblib", "--suspect-links", tmp_path / "s.csv",
               "--out", "", cwd=work["dir"])
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith("--out needs a file name; got an empty "
                                        "string")
    assert all((tmp_path / name).read_bytes() == b"old\n"
               for name in ("m.joblib", "s.csv"))


def test_a_fit_whose_last_output_fails_leaves_every_output_untouched(
        work, tmp_path, monkeypatch, capsys):
    # --out cannot be written (a full disk) after --plot, --suspect-links and
    # --save were: none of them replaces its file, no temporary file stays
    import errno

    import smiclust.io
    from smiclust.cli import main

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    outputs = ("m.joblib", "s.csv", "p.png", "o.csv")
    for name in outputs:
        (tmp_path / name).write_bytes(b"old\n")
    monkeypatch.chdir(work["dir"])
    monkeypatch.setattr(smiclust.io, "write_assignments", full_disk)
    code = main([*map(str, FIT), "--must-link", str(work["dir"] / "must.csv"),
                 "--save", str(tmp_path / "m.joblib"), "--suspect-links",
                 str(tmp_path / "s.csv"), "--plot", str(tmp_path / "p.png"),
                 "--out", str(tmp_path / "o.csv")])
    assert code == 2
    assert capsys.readouterr().err.strip().endswith(
        f"cannot write --out '{tmp_path / 'o.csv'}': No space left on device")
    assert all((tmp_path / name).read_bytes() == b"old\n" for name in outputs)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(outputs)


@pytest.mark.parametrize("option", ["--out", "--save", "--suspect-links"])
def test_an_output_that_is_no_regular_file_is_refused_before_the_fit(work, tmp_path,
                                                                     option):
    # a named pipe (or a device such as /dev/null) would be replaced by the
    # rename of the new file: refused in one line, left as it is
    import os
    import stat

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    proc = cli(*FIT, "--must-link", work["dir"] / "must.csv", option, pipe,
               cwd=work["dir"])
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith(
        f"{option} '{pipe}' is a named pipe (FIFO): smiclust writes its outputs to "
        "a regular file (a new one replaces it whole), so it would be replaced; "
        "give the name of a file")
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)
    # through a symbolic link, the directory of its target must exist
    link = tmp_path / "link.csv"
    os.symlink(tmp_path / "gone" / "out.csv", link)
    proc = cli(*FIT, option, link, cwd=work["dir"])
    assert proc.returncode == 2
    assert f"directory '{tmp_path / 'gone'}' does not exist" in proc.stderr


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_input_one_line_exit_2(driver_results, name):
    result = driver_results["malformed"][name]
    command = MALFORMED[name][1][0]
    expected = MALFORMED[name][2]
    assert result["traceback"] is None, result["traceback"]
    assert result["rc"] == 2, result
    assert result["stdout"] == ""
    lines = result["stderr"].splitlines()
    assert len(lines) == 1, result["stderr"]
    assert lines[0].startswith(f"smiclust {command}: error: ")
    assert expected in lines[0]
    assert "Traceback" not in result["stderr"]


def test_fuzz_random_and_truncated_files(driver_results):
    outcomes = {0: 0, 2: 0}
    for name, result in driver_results["fuzz"]:
        assert result["traceback"] is None, (name, result["traceback"])
        assert result["rc"] in (0, 2), (name, result)
        assert "Traceback" not in result["stderr"]
        lines = result["stderr"].splitlines()
        command = "predict" if name.endswith(".joblib") else "fit"
        # with --quiet: at most one-line warnings, and the error last
        assert all(line.startswith(f"smiclust {command}: ") for line in lines), name
        errors = [line for line in lines if line.startswith(
            f"smiclust {command}: error: ")]
        assert len(errors) == (1 if result["rc"] == 2 else 0), (name, lines)
        if result["rc"] == 2:
            assert lines[-1] == errors[0]
        outcomes[result["rc"]] += 1
    assert len(driver_results["fuzz"]) == 30
    assert outcomes[2] > 0  # most mutations are rejected


def test_datasets_table_and_fit_help(driver_results):
    table = driver_results["extra"]["datasets table"]
    assert table["rc"] == 0
    for name in DATASETS:
        assert name in table["stdout"]
    help_text = driver_results["extra"]["fit help"]
    assert help_text["rc"] == 0
    assert "Without --out, the assignments go to stdout as CSV" in help_text["stdout"]
    assert "--standardize" in help_text["stdout"]


def test_demo_prints_its_table_and_writes_the_plot(tmp_path):
    """The README's main job, on fewer link levels: each row is the default
    fit on digits500 with that many links drawn by sample_links at the seed
    (recomputed here), and the links help."""
    proc = cli("demo", "--fractions", "0", "0.02", "--plot", "demo.png",
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("digits500: n=500, d=256, c=10; seed=0")
    header, *rows = lines[1:4]
    assert header.split() == ["links", "%", "pairs", "ARI", "t", "gamma", "eta",
                              "violated", "seconds"]
    table = [row.split() for row in rows]
    assert [int(r[0]) for r in table] == [0, 2495]
    ari = [float(r[2]) for r in table]
    X, y = make_digits500(random_state=0)
    for row, n_links in zip(table, (0, 2495)):
        must, cannot = sample_links(y, n_links, random_state=0)
        model = SMIClustering(10, random_state=0).fit(X, must_link=must,
                                                      cannot_link=cannot)
        assert row[2] == f"{adjusted_rand_score(y, model.labels_):.3f}"
        assert int(row[3]) == model.n_neighbors_ and 1 <= model.n_neighbors_ <= 10
        assert int(row[6]) == model.n_violations_
    assert ari[1] > ari[0] + 0.2  # 2 % of the pairs as links help a lot
    assert (tmp_path / "demo.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert lines[-1] == "plot written to demo.png"


def test_demo_rejects_fractions_outside_zero_one(tmp_path):
    proc = cli("demo", "--fractions", "1.5", cwd=tmp_path)
    assert proc.returncode == 2
    assert "--fractions must lie in [0, 1]" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("weight", ["0", "50"])
def test_fit_violation_penalty_reaches_the_search(work, weight):
    from smiclust import SMIClustering

    grids = ["--n-neighbors", "1,2,4,7,10", "--gamma", "0,1", "--eta", "0,1"]
    proc = cli("fit", "moons.csv", "-k", "2", "--id-column", "sample",
               "--must-link", "must.csv", "--cannot-link", "cannot.csv", *grids,
               "--violation-penalty", weight, "--json", "--quiet",
               cwd=work["dir"])
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    assert summary["violation_penalty"] == float(weight)
    must, cannot = sample_links(work["y"], 40, random_state=0)  # as in `work`
    model = SMIClustering(2, n_neighbors=[1, 2, 4, 7, 10], gamma=[0.0, 1.0],
                          eta=[0.0, 1.0], violation_penalty=float(weight),
                          random_state=0)
    model.fit(work["X"], must_link=must, cannot_link=cannot)
    assert (summary["n_neighbors"], summary["gamma"], summary["eta"]) == (
        model.n_neighbors_, model.gamma_, model.eta_)
    assert summary["n_violations"] == model.n_violations_


@pytest.mark.parametrize(
    "option, value",
    [("--violation-penalty", v) for v in ("-1", "inf", "nan", "lots")]
    + [("--spreading", v) for v in ("-0.1", "1", "nan", "lots")]
    + [("--link-test-level", v) for v in ("-0.1", "1", "nan", "lots")],
)
def test_fit_rejects_a_bad_number(work, option, value):
    proc = cli("fit", "moons.csv", "-k", "2", "--id-column", "sample",
               option, value, cwd=work["dir"])
    assert proc.returncode == 2
    assert option in proc.stderr and "Traceback" not in proc.stderr


def test_fit_sets_flipped_links_aside_and_says_so(tmp_path):
    from test_link_test import _blobs, _flipped_links

    from smiclust import SMIClustering

    X, y = _blobs()
    must, cannot = _flipped_links(y, 200, 0.2, 0)  # self-contradicting
    np.save(tmp_path / "blobs.npy", X)
    np.savetxt(tmp_path / "must.csv", must, fmt="%d", delimiter=",")
    np.savetxt(tmp_path / "cannot.csv", cannot, fmt="%d", delimiter=",")
    links = ("--must-link", "must.csv", "--cannot-link", "cannot.csv")
    proc = cli("fit", "blobs.npy", "-k", "3", *links, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    summary = json.loads(lines[-1])
    model = SMIClustering(3, random_state=0).fit(X, must_link=must,
                                                 cannot_link=cannot)
    assert summary["links"] == model.links_ == "ignored"
    assert summary["link_test_pvalue"] == pytest.approx(model.link_test_pvalue_)
    assert any("links set aside" in line for line in lines)
    labels = np.array([int(r[0]) for r in _csv_rows(proc.stdout)[1:]])
    np.testing.assert_array_equal(labels, model.labels_)
    # the level reaches the estimator: 0 never tests
    proc = cli("fit", "blobs.npy", "-k", "3", *links, "--link-test-level", "0",
               "--json", "--quiet", cwd=tmp_path)
    summary = json.loads(proc.stdout)["summary"]
    assert summary["links"] != "ignored" and summary["link_test_pvalue"] is None


def test_fit_no_consensus_reaches_the_estimator(work):
    from smiclust import SMIClustering

    links = ("--must-link", "must.csv", "--cannot-link", "cannot.csv")
    proc = cli("fit", "moons.csv", "-k", "2", "--id-column", "sample", *links,
               "--n-neighbors", "3,5,8", "--no-consensus", "--json", "--quiet",
               cwd=work["dir"])
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["summary"]["consensus"] is False
    must, cannot = sample_links(work["y"], 40, random_state=0)  # as in `work`
    model = SMIClustering(2, n_neighbors=[3, 5, 8], consensus=False,
                          random_state=0)
    model.fit(work["X"], must_link=must, cannot_link=cannot)
    got = np.array([a["cluster"] for a in doc["assignments"]])
    np.testing.assert_array_equal(got, model.labels_)


def test_fit_indicator_rotation_reaches_the_estimator(tmp_path):
    from sklearn.datasets import make_blobs

    from smiclust import SMIClustering

    X, y = make_blobs(300, centers=12, n_features=8, cluster_std=4.0,
                      random_state=0)
    np.save(tmp_path / "blobs12.npy", X)
    argv = ["fit", "blobs12.npy", "-k", "12", "--n-neighbors", "5", "--json",
            "--quiet"]
    flags = (False, True)
    results = run_driver(
        [argv + (["--indicator-rotation"] if flag else []) for flag in flags],
        tmp_path)
    got = {}
    for flag, result in zip(flags, results):
        assert result["rc"] == 0, result["stderr"] + str(result["traceback"])
        doc = json.loads(result["stdout"])
        assert doc["summary"]["indicator_rotation"] is flag
        got[flag] = np.array([a["cluster"] for a in doc["assignments"]])
        model = SMIClustering(12, n_neighbors=5, indicator_rotation=flag,
                              random_state=0).fit(X)
        np.testing.assert_array_equal(got[flag], model.labels_)
    assert not np.array_equal(got[False], got[True])


def test_fit_spreading_reaches_the_estimator(tmp_path):
    from smiclust import SMIClustering

    # noisy moons, where the spreading changes labels (10-14 of 200 rows)
    X, y = make_moons(200, noise=0.3, random_state=0)
    np.save(tmp_path / "noisy.npy", X)
    must, cannot = sample_links(y, 20, random_state=0)
    np.savetxt(tmp_path / "must.csv", must, fmt="%d", delimiter=",")
    np.savetxt(tmp_path / "cannot.csv", cannot, fmt="%d", delimiter=",")
    values = ("0", "0.5", "0.9", "auto")
    runs = run_driver(
        [["fit", "noisy.npy", "-k", "2", "--must-link", "must.csv",
          "--cannot-link", "cannot.csv", *FIXED, "--spreading", value,
          "--json", "--quiet"] for value in values], tmp_path)
    got = {}
    for value, run in zip(values, runs):
        assert run["rc"] == 0, run["stderr"] + str(run["traceback"])
        result = json.loads(run["stdout"])
        got[value] = [a["cluster"] for a in result["assignments"]]
        model = SMIClustering(2, n_neighbors=5, gamma=1.0, eta=1.0,
                              spreading=value if value == "auto" else float(value),
                              random_state=0)
        model.fit(X, must_link=must, cannot_link=cannot)
        assert got[value] == model.labels_.tolist()
        # the weight used: the one given, or the one "auto" chose
        assert result["summary"]["spreading"] == model.spreading_
        assert model.spreading_ in ((0.5, 0.9) if value == "auto" else (float(value),))
    assert got["0"] != got["0.5"] != got["0.9"]


def test_fit_says_when_the_rows_in_no_link_follow_the_links_alone(tmp_path):
    # two clear clusters (left, right) whose classes are top and bottom
    rng = np.random.RandomState(0)
    centres = np.array([[0, 0], [0, 3], [20, 0], [20, 3]], dtype=float)
    X = np.vstack([c + rng.normal(scale=0.8, size=(40, 2)) for c in centres])
    y = np.repeat([0, 1, 0, 1], 40)
    np.save(tmp_path / "square.npy", X)
    labels = ["" if k % 4 else str(v) for k, v in enumerate(y)]
    (tmp_path / "labels.csv").write_text("label\n" + "\n".join(labels) + "\n")
    proc = cli("fit", "square.npy", "-k", "2", "--labels", "labels.csv",
               "--n-neighbors", "7", "--gamma", "1", "--eta", "1", "--json",
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    assert summary["spread_from"] == "links"
    assert 0.4 < summary["link_agreement"] < 0.7
    assert "labelled by spreading the linked rows' labels alone" in proc.stderr
    assert f"agree with the links at {summary['link_agreement']:.2f}" in proc.stderr


def test_fit_says_when_the_classifier_labels_the_rows_in_no_link(tmp_path):
    # classes split by one feature among twenty noise features: the forest
    # trained on the labelled rows labels the others alone
    rng = np.random.RandomState(0)
    X = rng.randn(300, 21)
    y = (X[:, 0] > 0).astype(int)
    np.save(tmp_path / "table.npy", X)
    chosen = set(rng.choice(300, 60, replace=False).tolist())
    labels = [str(v) if k in chosen else "" for k, v in enumerate(y)]
    (tmp_path / "labels.csv").write_text("label\n" + "\n".join(labels) + "\n")
    proc = cli("fit", "table.npy", "-k", "2", "--labels", "labels.csv", "--json",
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    assert summary["classifier"] == "RandomForestClassifier"
    assert summary["classifier_weight"] == 1.0
    assert ("a RandomForestClassifier trained on the linked rows, labelled by it "
            "alone instead of the spread") in proc.stderr
    off = cli("fit", "table.npy", "-k", "2", "--labels", "labels.csv", "--json",
              "--no-classifier", cwd=tmp_path)
    assert off.returncode == 0, off.stderr
    assert json.loads(off.stdout)["summary"]["classifier_weight"] == 0.0
    assert "trained on the linked rows" not in off.stderr


def test_fit_warns_when_a_link_file_holds_no_links(work):
    (work["dir"] / "header_only.csv").write_text("s000,s001\n")
    proc = cli("fit", "moons.npy", "-k", "2", "--must-link", "header_only.csv",
               *FIXED, cwd=work["dir"])
    assert proc.returncode == 0, proc.stderr
    assert ("--must-link header_only.csv: no links in the file (empty, or one "
            "line read as a header)") in proc.stderr


@pytest.mark.parametrize(
    "args, match",
    [
        (["fit", "moons_copy.csv", "-k", "2", "--id-column", "sample", "-o",
          "moons_copy.csv"], "--out 'moons_copy.csv' is the DATA file"),
        (["fit", "moons.npy", "-k", "2", "--must-link", "must_idx.csv", "--save",
          "must_idx.csv"], "--save 'must_idx.csv' is the --must-link file"),
        (["fit", "moons.npy", "-k", "2", "-o", "same.png", "--plot", "same.png"],
         "--plot 'same.png' is the --out file"),
        (["predict", "model.joblib", "moons.csv", "-o", "./model.joblib"],
         "--out './model.joblib' is the MODEL file"),
    ],
)
def test_outputs_never_overwrite_inputs(work, fitted, args, match):
    import shutil

    assert fitted.returncode == 0, fitted.stderr  # model.joblib exists
    shutil.copy(work["dir"] / "moons.csv", work["dir"] / "moons_copy.csv")
    before = {p.name: p.read_bytes() for p in work["dir"].iterdir() if p.is_file()}
    proc = cli(*args, *FIXED[:2] if args[0] == "fit" else (), cwd=work["dir"])
    assert proc.returncode == 2
    assert match in proc.stderr and "Traceback" not in proc.stderr
    after = {p.name: p.read_bytes() for p in work["dir"].iterdir() if p.is_file()}
    assert after == before


@pytest.mark.parametrize("args", [["datasets"], ["datasets", "--json"]])
def test_closed_stdout_pipe_is_not_an_error(tmp_path, args):
    """'smiclust datasets | head -c 10': the reader leaves before the output."""
    proc = subprocess.Popen([sys.executable, "-m", "smiclust", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=tmp_path)
    proc.stdout.close()  # before the interpreter has even started
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0
    assert b"Traceback" not in err and b"BrokenPipeError" not in err


def test_predict_matches_columns_by_name_and_can_drop_the_id(work, fitted):
    """Columns reordered, an extra column, or no id column at all: the same
    clusters as the fit gave these rows."""
    assert fitted.returncode == 0, fitted.stderr
    d = work["dir"]
    X, ids = work["X"], work["ids"]
    fit_labels = [int(r[1]) for r in _csv_rows((d / "out.csv").read_text())[1:]]
    rows = [f"{float(b)!r},extra{k},{i},{float(a)!r}"
            for k, (i, (a, b)) in enumerate(zip(ids, X))]
    (d / "reordered.csv").write_text("x2,other,sample,x1\n" + "\n".join(rows) + "\n")
    proc = cli("predict", "model.joblib", "reordered.csv", cwd=d)
    assert proc.returncode == 0, proc.stderr
    table = _csv_rows(proc.stdout)
    assert table[0][:2] == ["sample", "cluster"]
    assert [r[0] for r in table[1:]] == ids
    assert [int(r[1]) for r in table[1:]] == fit_labels
    # features only: the fit's id column is switched off with --id-column ''
    proc = cli("predict", "model.joblib", "moons.npy", "--id-column", "", cwd=d)
    assert proc.returncode == 0, proc.stderr
    assert [int(r[0]) for r in _csv_rows(proc.stdout)[1:]] == fit_labels


def test_drop_columns_leaves_a_class_column_out_of_fit_and_predict(work):
    """A file without a header whose middle column is a class: the fit with
    --drop-columns is the fit on the features alone, and predict drops the
    same column of a new file."""
    d, X, y = work["dir"], work["X"], work["y"]
    rows = [f"{float(a)!r},{int(c)},{float(b)!r}" for (a, b), c in zip(X, y)]
    (d / "with_class.csv").write_text("\n".join(rows) + "\n")
    proc = cli("fit", "with_class.csv", "-k", "2", "--drop-columns", "1", *FIXED,
               "--save", "dropped.joblib", cwd=d)
    assert proc.returncode == 0, proc.stderr
    plain = cli("fit", "moons.npy", "-k", "2", *FIXED, cwd=d)
    assert plain.returncode == 0, plain.stderr
    assert _csv_rows(proc.stdout) == _csv_rows(plain.stdout)
    again = cli("predict", "dropped.joblib", "with_class.csv", cwd=d)
    assert again.returncode == 0, again.stderr
    assert [r[0] for r in _csv_rows(again.stdout)[1:]] == [
        r[0] for r in _csv_rows(proc.stdout)[1:]]


def test_predict_matches_a_headerless_file_of_the_features_by_count(work):
    """A model fitted on a file with a header and --drop-columns label
    predicts a file without a header holding just its features (in its
    order), matched by count as --help says, not refused for the name."""
    d, X, y = work["dir"], work["X"], work["y"]
    rows = [f"{float(a)!r},{float(b)!r},{int(c)}" for (a, b), c in zip(X, y)]
    (d / "named.csv").write_text("x1,x2,label\n" + "\n".join(rows) + "\n")
    (d / "bare.csv").write_text("\n".join(f"{float(a)!r},{float(b)!r}"
                                          for a, b in X) + "\n")
    proc = cli("fit", "named.csv", "-k", "2", "--drop-columns", "label", *FIXED,
               "--save", "named.joblib", cwd=d)
    assert proc.returncode == 0, proc.stderr
    bare = cli("predict", "named.joblib", "bare.csv", cwd=d)
    assert bare.returncode == 0, bare.stderr
    named = cli("predict", "named.joblib", "named.csv", cwd=d)
    assert _csv_rows(bare.stdout) == _csv_rows(named.stdout)
    # a file without a header and another number of columns is still refused
    (d / "short.csv").write_text("\n".join(f"{float(a)!r}" for a in X[:, 0]) + "\n")
    short = cli("predict", "named.joblib", "short.csv", cwd=d)
    assert short.returncode == 2
    assert "unknown column to drop 'label'" in short.stderr


def test_link_conflicts_are_named_by_id_once(work):
    ids = work["ids"]
    d = work["dir"]
    (d / "chain.csv").write_text(f"{ids[0]},{ids[1]}\n{ids[1]},{ids[2]}\n")
    (d / "apart.csv").write_text(f"{ids[0]},{ids[2]}\n")
    proc = cli("fit", "moons.csv", "-k", "2", "--id-column", "sample",
               "--must-link", "chain.csv", "--cannot-link", "apart.csv", *FIXED,
               cwd=d)
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines()
                if line.startswith("smiclust fit: warning:")
                and "must-links put" in line]
    assert len(warnings) == 1, proc.stderr
    assert f"(ids '{ids[0]}' and '{ids[2]}')" in warnings[0]


def test_a_link_in_two_sources_is_counted_once_and_said(work):
    proc = cli("fit", "moons.npy", "-k", "2", "--must-link", "must_idx.csv",
               "--must-link", "must_idx.csv", *FIXED, "--json", "--quiet",
               cwd=work["dir"])
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    n_must = len(sample_links(work["y"], 40, random_state=0)[0])
    assert summary["n_must_link"] == n_must
    assert (f"{n_must} must-link(s) given by more than one source (link files, "
            "--labels); each counted once") in summary["warnings"]


@pytest.mark.parametrize("seed", range(6))
def test_label_pair_counts_and_violations_against_every_pair(seed):
    from smiclust.constraints import (
        count_violations,
        label_pair_counts,
        pairs_from_labels,
        violated_label_pairs,
    )

    rng = np.random.RandomState(seed)
    codes = np.where(rng.rand(60) < 0.4, rng.randint(0, 4, 60), -1)
    clusters = rng.randint(0, 3, 60)
    must, cannot = pairs_from_labels(codes)
    assert label_pair_counts(codes) == (len(must), len(cannot))
    assert violated_label_pairs(codes, clusters) == count_violations(
        clusters, must, cannot)


def test_labels_and_link_files_together(work):
    d, y = work["dir"], work["y"]
    labelled = np.flatnonzero(np.arange(200) % 10 == 0)
    a, b = labelled[y[labelled] == 0][:2]  # two rows labelled alike
    c = labelled[y[labelled] == 1][0]
    free = np.flatnonzero(np.arange(200) % 10)[:2]  # two unlabelled rows
    (d / "lab_must.csv").write_text(f"{a},{b}\n{free[0]},{free[1]}\n")
    # (rows 1 and 0: a first line 0,1 would be pandas' header or a link)
    (d / "lab_cannot.csv").write_text(f"{free[0]},{a}\n")
    proc = cli("fit", "moons.npy", "-k", "2", "--labels", "labels.csv",
               "--must-link", "lab_must.csv", "--cannot-link", "lab_cannot.csv",
               *FIXED, "--json", "--quiet", cwd=d)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    # (a, b) repeats the labels: said and counted once; the others are new
    assert ("1 must-link(s) given by more than one source (link files, "
            "--labels); each counted once") in summary["warnings"]
    from smiclust.constraints import count_violations, pairs_from_labels

    partial = np.where(np.arange(200) % 10 == 0, y, -1)
    must, cannot = pairs_from_labels(partial)
    assert summary["n_must_link"] == len(must) + 1
    assert summary["n_cannot_link"] == len(cannot) + 1
    # violations are counted over every link in effect, pairs of labels too
    clusters = np.array([r["cluster"] for r in json.loads(proc.stdout)["assignments"]])
    file_must = np.array([[free[0], free[1]]])
    file_cannot = np.array([[a, free[0]]])
    assert summary["n_violations"] == count_violations(
        clusters, np.vstack([must, file_must]), np.vstack([cannot, file_cannot]))
    # a file link that contradicts the labels is refused, nothing written
    (d / "lab_bad.csv").write_text(f"{a},{c}\n")
    proc = cli("fit", "moons.npy", "-k", "2", "--labels", "labels.csv",
               "--must-link", "lab_bad.csv", *FIXED, cwd=d)
    assert proc.returncode == 2
    assert "1 pair(s) are both a must-link and a cannot-link" in proc.stderr
    assert "(a link file against --labels)" in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("weighted", [False, True])
def test_fit_names_the_clusters_by_the_labels(work, weighted):
    d, y = work["dir"], work["y"]
    (d / "named.csv").write_text("label\n" + "".join(
        "\n" if k % 10 else ("upper\n" if v == 0 else "lower\n")
        for k, v in enumerate(y)))
    (d / "weighted.csv").write_text("1,2,0.5\n")
    extra = ["--must-link", "weighted.csv"] if weighted else []
    proc = cli("fit", "moons.npy", "-k", "3", "--labels", "named.csv", *extra,
               *FIXED, "--json", "--save", "named.joblib", cwd=d)
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout.splitlines()[0])
    summary = document["summary"]
    clusters = np.array([r["cluster"] for r in document["assignments"]])
    classes = summary["cluster_classes"]
    # each cluster named by the label of its labelled rows, None for none
    labelled = np.arange(200) % 10 == 0
    names = np.where(y == 0, "upper", "lower")
    for k in range(3):
        mine = names[labelled & (clusters == k)]
        assert classes[k] == (None if not mine.size else
                              max(set(mine), key=list(mine).count))
    assert sorted(c for c in classes if c is not None) == ["lower", "upper"]
    said = [json.loads(line)["message"] for line in proc.stderr.splitlines()]
    line = next(m for m in said if m.startswith("clusters named by --labels"))
    assert all(f"{k} = {classes[k]!r}" in line or classes[k] is None
               for k in range(3))
    # each row of the assignments carries its cluster's name
    assert [r["class"] for r in document["assignments"]] == [
        classes[k] for k in clusters]
    # a saved model keeps the names for predict's summary and rows
    proc = cli("predict", "named.joblib", "moons.npy", "--json", cwd=d)
    assert proc.returncode == 0, proc.stderr
    predicted = json.loads(proc.stdout)
    assert predicted["summary"]["cluster_classes"] == classes
    assert [r["class"] for r in predicted["assignments"]] == [
        classes[r["cluster"]] for r in predicted["assignments"]]
    # an id column named "class" would be overwritten: refused with --labels
    (d / "named_ids.csv").write_text("class,x1,x2\n" + "".join(
        f"r{k},{a!r},{b!r}\n" for k, (a, b) in enumerate(work["X"].tolist())))
    proc = cli("fit", "named_ids.csv", "-k", "2", "--id-column", "class",
               "--labels", "named.csv", *FIXED, cwd=d)
    assert proc.returncode == 2 and proc.stdout == ""
    assert ("--id-column 'class' is also the name of a column of the "
            "assignments (cluster, proba_0, proba_1, ..., class)") in proc.stderr
    proc = cli("fit", "named_ids.csv", "-k", "2", "--id-column", "class",
               *FIXED, "--quiet", "--save", "class_ids.joblib", cwd=d)
    assert proc.returncode == 0, proc.stderr
    assert _csv_rows(proc.stdout)[0] == ["class", "cluster"]
    # a model holding both (fit refuses the pair; an earlier version saved
    # it) predicts: the ids keep their column, the names stay in the summary
    import joblib

    bundle = joblib.load(d / "class_ids.joblib")
    bundle["cluster_classes"] = ["upper", "lower"]
    joblib.dump(bundle, d / "class_ids.joblib")
    proc = cli("predict", "class_ids.joblib", "named_ids.csv", "--json", cwd=d)
    assert proc.returncode == 0, proc.stderr
    predicted = json.loads(proc.stdout)
    assert predicted["summary"]["cluster_classes"] == ["upper", "lower"]
    assert list(predicted["assignments"][0]) == ["class", "cluster"]
    assert predicted["assignments"][0]["class"] == "r0"
    # without --labels there is nothing to name the clusters by
    proc = cli("fit", "moons.npy", "-k", "2", *FIXED, "--json", "--quiet", cwd=d)
    assert json.loads(proc.stdout)["summary"]["cluster_classes"] is None


def test_the_names_of_the_clusters_break_ties_as_fit_does():
    from types import SimpleNamespace

    from smiclust.commands.fit import cluster_class_names
    from smiclust.constraints import cluster_classes

    # the file names "bee" first (code 0), one cluster holds one of each: the
    # first in sorted order wins, as with partial_labels=["bee", "ant", None]
    model = SimpleNamespace(labels_=np.array([0, 0, 1]), n_clusters_=3)
    inputs = SimpleNamespace(label_names=(np.array([0, 1, -1]), ["bee", "ant"]))
    expected = cluster_classes([0, 0, 1], ["bee", "ant", None], 3).tolist()
    assert cluster_class_names(model, inputs) == expected == ["ant", None, None]


def test_labels_with_a_weighted_link_file_are_pairs_used_as_given(work):
    d = work["dir"]
    (d / "weighted.csv").write_text("0,5,0.5\n")
    proc = cli("fit", "moons.npy", "-k", "2", "--labels", "labels.csv",
               "--must-link", "weighted.csv", *FIXED, "--json", "--quiet", cwd=d)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    assert summary["links"] == "paper" and summary["link_weights"] is True
    assert summary["n_must_link"] + summary["n_cannot_link"] == 20 * 19 // 2 + 1


# ---------------------------------------------------------------------------
# --answers: the answers file of 'smiclust ask'
# ---------------------------------------------------------------------------


def _answers_text(ids, must, cannot, skips):
    """An answers file by id: must and cannot answers interleaved, skips
    among them."""
    rows = [(i, j, "must") for i, j in must] + [(i, j, "cannot") for i, j in cannot]
    rows.sort(key=lambda r: (r[0] * 7 + r[1]) % 11)  # interleaved kinds
    for k, (i, j) in enumerate(skips):
        rows.insert(3 * k, (i, j, "skip"))
    return "sample_i,sample_j,answer\n" + "".join(
        f"{ids[i]},{ids[j]},{a}\n" for i, j, a in rows)


def test_fit_answers_give_the_labels_of_the_equivalent_link_files(work):
    d, ids = work["dir"], work["ids"]
    must, cannot = sample_links(work["y"], 40, random_state=0)
    linked = {frozenset(p) for p in np.r_[must, cannot].tolist()}
    skips = [(i, i + 100) for i in range(20) if {i, i + 100} not in linked][:3]
    (d / "answers.csv").write_text(_answers_text(ids, must, cannot, skips))
    half = len(must) // 2  # the same answers in two files, --answers twice
    (d / "answers1.csv").write_text(_answers_text(ids, must[:half], cannot, []))
    (d / "answers2.csv").write_text(_answers_text(ids, must[half:], [], skips))
    common = ["fit", "moons.csv", "-k", "2", "--id-column", "sample", *FIXED,
              "--json", "--quiet"]
    runs = {
        "links": cli(*common, "--must-link", "must.csv", "--cannot-link",
                     "cannot.csv", cwd=d),
        "answers": cli(*common, "--answers", "answers.csv", cwd=d),
        "two answers files": cli(*common, "--answers", "answers1.csv",
                                 "--answers", "answers2.csv", cwd=d),
    }
    results = {}
    for name, proc in runs.items():
        assert proc.returncode == 0, (name, proc.stderr)
        assert "warning" not in proc.stderr, (name, proc.stderr)
        results[name] = json.loads(proc.stdout)
    expected = results["links"]
    for name in ("answers", "two answers files"):
        got = results[name]
        assert got["assignments"] == expected["assignments"], name
        for key in ("n_must_link", "n_cannot_link", "n_violations", "cluster_sizes"):
            assert got["summary"][key] == expected["summary"][key], (name, key)
    assert expected["summary"]["n_must_link"] == len(must)
    assert expected["summary"]["n_cannot_link"] == len(cannot)


#: name -> (answers file, extra argv, the one-line error after "error: ")
BAD_ANSWERS = {
    "not an answer": ("sample_i,sample_j,answer\n{0},{1},must\n{2},{3},maybe\n", [],
                      "--answers: a.csv: line 3, column 3: expected must, cannot "
                      "or skip, got 'maybe'"),
    "unknown id": ("sample_i,sample_j,answer\n{0},m_nope,cannot\n", [],
                   "--answers: a.csv: line 2, column 2: 'm_nope' is not an id of "
                   "the data"),
    "row index with ids": ("i,j,answer\n0,1,must\n", [],
                           "--answers: a.csv: line 2, column 1: '0' is not an id "
                           "of the data"),
    "two fields": ("sample_i,sample_j,answer\n{0},{1}\n", [],
                   "--answers: a.csv: line 2 has 2 field(s); expected 3 (row, "
                   "row, answer)"),
    "repeated pair": ("{0},{1},must\n{1},{0},skip\n", [],
                      "--answers: a.csv: line 2: repeats the pair of line 1"),
    "pair with itself": ("{0},{0},must\n", [],
                         "--answers: a.csv: line 1: pairs row 0 with itself"),
    "missing file": (None, [], "cannot read --answers 'a.csv': No such file"),
    "out is the answers file": ("{0},{1},must\n", ["--out", "a.csv"],
                                "--out 'a.csv' is the --answers file"),
    "answer against a link file": ("{0},{1},cannot\n", ["--must-link", "m.csv"],
                                   "1 pair(s) are both a must-link and a "
                                   "cannot-link"),
}


def test_fit_refuses_a_malformed_answers_file_in_one_line(work, tmp_path):
    ids = work["ids"]
    (tmp_path / "moons.csv").write_bytes((work["dir"] / "moons.csv").read_bytes())
    argvs = []
    for k, (text, extra, _) in enumerate(BAD_ANSWERS.values()):
        sub = tmp_path / f"case{k}"
        sub.mkdir()
        if text is not None:
            (sub / "a.csv").write_text(text.format(*ids))
        (sub / "m.csv").write_text(f"{ids[0]},{ids[1]}\n")
        argvs.append(["fit", "moons.csv", "-k", "2", "--id-column", "sample",
                      *FIXED, "--answers", f"{sub.name}/a.csv", "--out",
                      f"{sub.name}/out.csv",
                      *[f"{sub.name}/{a}" if a.endswith(".csv") else a
                        for a in extra]])
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    results = run_driver(argvs, tmp_path)
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before  # no --out written, no input changed
    for k, ((name, (_, _, message)), result) in enumerate(
            zip(BAD_ANSWERS.items(), results)):
        assert result["traceback"] is None, (name, result["traceback"])
        assert result["rc"] == 2 and result["stdout"] == "", (name, result)
        lines = result["stderr"].splitlines()
        assert len(lines) == 1, (name, result["stderr"])
        assert lines[0].startswith("smiclust fit: error: "), (name, lines)
        if name != "answer against a link file":  # a conflict of two sources
            assert "--answers" in lines[0], (name, lines)
        assert message.replace("a.csv", f"case{k}/a.csv") in lines[0], (name, lines)


def test_fit_warns_when_an_answers_file_holds_no_link(work):
    d, ids = work["dir"], work["ids"]
    (d / "skips.csv").write_text(f"sample_i,sample_j,answer\n{ids[0]},{ids[1]},"
                                 "skip\n")
    proc = cli("fit", "moons.csv", "-k", "2", "--id-column", "sample", *FIXED,
               "--answers", "skips.csv", cwd=d)
    assert proc.returncode == 0, proc.stderr
    assert ("smiclust fit: warning: --answers skips.csv: no must or cannot answer "
            "in the file") in proc.stderr
    assert json.loads(proc.stderr.strip().splitlines()[-1])["n_must_link"] == 0


def test_sparse_npz_data_is_read_sparse_and_clustered_as_dense(tmp_path):
    # a scipy.sparse.save_npz file: fit, --save and predict, the PCA plot and
    # ask give what the same matrix gives dense; --standardize is refused
    # (centring would make it dense) and writes nothing
    import scipy.sparse as sp
    from sklearn.datasets import make_blobs

    X, y = make_blobs(120, n_features=8, centers=2, random_state=1)
    X = np.clip(X - np.median(X), 0, None)  # half of the entries 0
    sp.save_npz(tmp_path / "rows.npz", sp.csr_matrix(X))
    np.save(tmp_path / "rows.npy", X)
    (tmp_path / "must.csv").write_text("1,0\n")
    fit = ["fit", "-k", "2", *FIXED, "--must-link", "must.csv", "--quiet"]
    cases = [
        [*fit[:1], "rows.npz", *fit[1:], "-o", "sparse.csv", "--save", "m.joblib",
         "--plot", "p.png", "--plot-embedding", "pca"],
        [*fit[:1], "rows.npy", *fit[1:], "-o", "dense.csv", "--save", "d.joblib"],
        ["predict", "m.joblib", "rows.npz", "-o", "predicted.csv", "--quiet"],
        ["predict", "d.joblib", "rows.npy", "-o", "predicted_dense.csv", "--quiet"],
        [*fit[:1], "rows.npz", *fit[1:], "-o", "refused.csv", "--standardize"],
    ]
    results = run_driver(cases, tmp_path)
    for result in results[:4]:
        assert result["rc"] == 0 and result["traceback"] is None, result
    sparse = (tmp_path / "sparse.csv").read_text()
    assert sparse == (tmp_path / "dense.csv").read_text()
    labels = np.array([int(v) for v in sparse.split()[1:]])
    assert adjusted_rand_score(y, labels) > 0.7  # a clustering, not noise
    predicted = (tmp_path / "predicted.csv").read_text()
    assert predicted == (tmp_path / "predicted_dense.csv").read_text()
    assert adjusted_rand_score(labels, [int(v) for v in predicted.split()[1:]]) > 0.9
    assert (tmp_path / "p.png").stat().st_size > 0
    assert results[4]["rc"] == 2 and results[4]["traceback"] is None
    assert "--standardize centres every column" in results[4]["stderr"]
    assert not (tmp_path / "refused.csv").exists()
    # ask shows sparse rows one at a time, as dense ones
    answers = "y\nn\n"
    ask = ["ask", "-k", "2", "--budget", "2", *FIXED, "--random-state", "0"]
    out = {}
    for name in ("rows.npz", "rows.npy"):
        links = f"links_{name}.csv"
        proc = subprocess.run(
            [sys.executable, "-m", "smiclust", ask[0], name, *ask[1:], "--links",
             links, "--quiet"],
            input=answers, capture_output=True, text=True, cwd=tmp_path,
            timeout=600)
        assert proc.returncode == 0, proc.stderr
        out[name] = (proc.stdout.replace(links, "LINKS"),
                     (tmp_path / links).read_text())
    assert out["rows.npz"] == out["rows.npy"]
    assert "Same cluster?" in out["rows.npz"][0]


def test_keep_cannot_links_on_the_command_line(tmp_path):
    # features that do not show the three classes: the flag keeps every
    # cannot-link (the library's test checks the default breaks some)
    rng = np.random.RandomState(0)
    y = np.repeat(np.arange(3), 40)
    np.save(tmp_path / "x.npy", rng.normal(size=(120, 3)))
    must, cannot = sample_links(y, 200, random_state=0)
    np.savetxt(tmp_path / "must.csv", must, fmt="%d", delimiter=",")
    np.savetxt(tmp_path / "cannot.csv", cannot, fmt="%d", delimiter=",")
    fit = ["fit", "x.npy", "-k", "3", "--must-link", "must.csv",
           "--cannot-link", "cannot.csv", "--quiet", "--json"]
    kept, default = run_driver(
        [fit + ["-o", "kept.csv", "--keep-cannot-links"], fit + ["-o", "default.csv"]],
        tmp_path)
    assert kept["rc"] == 0 and default["rc"] == 0, (kept, default)
    summary = [json.loads(r["stdout"].strip().splitlines()[-1])["summary"]
               for r in (kept, default)]
    assert summary[0]["keep_cannot_links"] is True
    assert summary[1]["keep_cannot_links"] is False
    # kept anyway: the test of data blind to the links is not computed
    assert summary[0]["links_agreement_z"] is None
    assert isinstance(summary[1]["links_agreement_z"], float)
    labels = np.loadtxt(tmp_path / "kept.csv", delimiter=",", skiprows=1,
                        usecols=-1).astype(int)
    assert np.all(labels[cannot[:, 0]] != labels[cannot[:, 1]])
    assert np.all(labels[must[:, 0]] == labels[must[:, 1]])


def test_contradictions_repair_on_the_command_line(tmp_path):
    # a must-link chain 0-1-2 and a cannot-link 0-2: softened by default,
    # repaired (closed again) with --contradictions repair
    X, _ = make_moons(80, noise=0.05, random_state=0)
    np.save(tmp_path / "x.npy", X)
    (tmp_path / "must.csv").write_text("1,0\n1,2\n")
    (tmp_path / "cannot.csv").write_text("0,2\n")
    fit = ["fit", "x.npy", "-k", "2", *FIXED, "--must-link", "must.csv",
           "--cannot-link", "cannot.csv", "--quiet", "--json"]
    results = run_driver([fit + ["-o", "soft.csv"],
                          fit + ["-o", "repair.csv", "--contradictions", "repair"],
                          fit + ["-o", "bad.csv", "--contradictions", "drop"]],
                         tmp_path)
    soft, repair, bad = results
    assert soft["rc"] == 0 and repair["rc"] == 0, (soft, repair)
    summary = [json.loads(r["stdout"].strip().splitlines()[-1])["summary"]
               for r in (soft, repair)]
    assert summary[0]["links"] == "paper" and summary[0]["contradictions"] == "soften"
    assert summary[1]["links"] == "closure" and summary[1]["contradictions"] == "repair"
    assert bad["rc"] == 2 and "--contradictions" in bad["stderr"]
    assert not (tmp_path / "bad.csv").exists()


def test_kernel_on_the_command_line(tmp_path):
    """--kernel reaches SMIClustering and the summary says which kernel the
    fit used; a kernel outside the choices is refused (exit 2), nothing
    written."""
    X, _ = make_moons(80, noise=0.05, random_state=0)
    np.save(tmp_path / "x.npy", X)
    fit = ["fit", "x.npy", "-k", "2", "--n-neighbors", "5", "--quiet", "--json"]
    results = run_driver([fit + ["-o", "auto.csv"],
                          fit + ["-o", "norm.csv", "--kernel", "normalized"],
                          fit + ["-o", "bad.csv", "--kernel", "rbf"]], tmp_path)
    auto, norm, bad = results
    assert auto["rc"] == 0 and norm["rc"] == 0, (auto, norm)
    summary = [json.loads(r["stdout"].strip().splitlines()[-1])["summary"]
               for r in (auto, norm)]
    assert summary[0]["kernel"] == "local-scaling"  # two moons: no clear gain
    assert summary[1]["kernel"] == "normalized"
    from smiclust import SMIClustering

    expected = SMIClustering(2, n_neighbors=5, kernel="normalized",
                             random_state=0).fit(X).labels_
    written = np.loadtxt(tmp_path / "norm.csv", delimiter=",", skiprows=1)
    np.testing.assert_array_equal(written.astype(int), expected)
    assert bad["rc"] == 2 and "--kernel" in bad["stderr"]
    assert not (tmp_path / "bad.csv").exists()


def _two_blobs_csv(path, n=40):
    rng = np.random.RandomState(0)
    X = np.r_[rng.normal(0, 0.3, (n // 2, 2)), rng.normal(4, 0.3, (n // 2, 2))]
    np.savetxt(path, X, delimiter=",", header="a,b", comments="")
    return X


def _fit_json(capsys, argv):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, (json.loads(out) if status == 0 else None), err


# belongs to tests/test_cli.py; kills M16 (commands/_fit_inputs.py: with a
# weighted link file, the pairs of --labels go in as the wrong kind)
def test_labels_beside_a_weighted_link_file_give_must_and_cannot_pairs(
        tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _two_blobs_csv("data.csv")
    labels = [""] * 40
    for row in (0, 1, 2):
        labels[row] = "a"
    for row in (20, 21):
        labels[row] = "b"
    (tmp_path / "labels.csv").write_text("label\n" + "\n".join(labels) + "\n")
    (tmp_path / "weighted.csv").write_text("5,6,0.5\n")
    status, doc, err = _fit_json(capsys, [
        "fit", "data.csv", "-k", "2", "--labels", "labels.csv", "--must-link",
        "weighted.csv", "--n-neighbors", "5", "--gamma", "1", "--eta", "1",
        "--json", "--quiet"])
    assert status == 0, err
    summary = doc["summary"]
    assert summary["link_weights"] is True
    # 3 + 1 pairs within a label and the weighted link; 3 * 2 pairs across
    assert (summary["n_must_link"], summary["n_cannot_link"]) == (5, 6)
    clusters = [a["cluster"] for a in doc["assignments"]]
    assert clusters[0] == clusters[1] == clusters[2] != clusters[20] == clusters[21]


# belongs to tests/test_cli.py; kills M18 (commands/_fit_inputs.py: -k equal
# to the number of rows refused)
def test_fit_with_as_many_clusters_as_rows(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "four.csv").write_text("0,0\n0,1\n5,5\n5,6\n")
    status, doc, err = _fit_json(capsys, ["fit", "four.csv", "-k", "4",
                                          "--n-neighbors", "1", "--json", "-q"])
    assert status == 0, err
    assert sorted(a["cluster"] for a in doc["assignments"]) == [0, 1, 2, 3]
    status, _, err = _fit_json(capsys, ["fit", "four.csv", "-k", "5", "-q"])
    assert status == 2 and "more clusters than DATA has rows (4)" in err


# belongs to tests/test_cli.py; kills M20 (commands/_fit_inputs.py: the
# features centred but not divided by their standard deviation)
def test_standardize_saves_z_scores_of_every_column(tmp_path, monkeypatch,
                                                          capsys):
    import joblib

    monkeypatch.chdir(tmp_path)
    rng = np.random.RandomState(1)
    X = np.c_[rng.normal(100, 50, 30), rng.normal(-3, 0.01, 30), np.full(30, 7.0)]
    np.savetxt("wide.csv", X, delimiter=",", header="a,b,c", comments="")
    status, _, err = _fit_json(capsys, [
        "fit", "wide.csv", "-k", "2", "--standardize", "--n-neighbors", "5",
        "--save", "m.joblib", "--json", "-q", "-o", "out.csv"])
    assert status == 0, err
    scaler = joblib.load("m.joblib")["standardize"]
    Z = (X / scaler["peak"] - scaler["mean"]) / scaler["scale"]
    expected = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0)
    assert_allclose(Z, expected, atol=1e-9)
    assert_allclose(Z[:, :2].std(0), 1.0)
    assert np.all(Z[:, 2] == 0)  # the constant column
    # the values of scikit-learn's StandardScaler, to the bit
    from sklearn.preprocessing import StandardScaler

    assert_array_equal(Z[:, :2], StandardScaler().fit_transform(X)[:, :2])


def test_standardize_clusters_as_a_standard_scaler_pipeline(tmp_path, monkeypatch,
                                                            capsys):
    # iris: a division of every column by its largest value first moved the
    # values by 1e-16 and the search's choice of n_neighbors (ARI 0.57
    # between the two labellings)
    from sklearn.datasets import load_iris
    from sklearn.preprocessing import StandardScaler

    monkeypatch.chdir(tmp_path)
    X, _ = load_iris(return_X_y=True)
    np.savetxt("iris.csv", X, delimiter=",")
    status, doc, err = _fit_json(capsys, [
        "fit", "iris.csv", "-k", "3", "--standardize", "--random-state", "0",
        "--json", "-q"])
    assert status == 0, err
    model = SMIClustering(3, random_state=0).fit(StandardScaler().fit_transform(X))
    assert doc["summary"]["n_neighbors"] == model.n_neighbors_
    assert [row["cluster"] for row in doc["assignments"]] == model.labels_.tolist()


# belongs to tests/test_cli.py; kills M29 (commands/_common.py: --json turns
# the format of --out FILE.csv into JSON)
def test_json_with_out_csv_writes_csv_to_the_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _two_blobs_csv("data.csv")
    status, doc, err = _fit_json(capsys, [
        "fit", "data.csv", "-k", "2", "--n-neighbors", "5", "--json", "-q",
        "--out", "out.csv"])
    assert status == 0, err
    assert "assignments" not in doc and doc["summary"]["format"] == "csv"
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[0] == "cluster" and len(lines) == 41
    assert {int(v) for v in lines[1:]} == {0, 1}


# belongs to tests/test_cli.py (datasets command); kills M33
# (commands/datasets.py: --out checked only when written, after loading)
def test_datasets_export_refuses_a_bad_out_before_loading(tmp_path, monkeypatch,
                                                              capsys):
    import dataclasses

    from smiclust.datasets import DATASETS

    def not_loaded(random_state=None):
        raise AssertionError("loaded before --out was checked")

    monkeypatch.setitem(DATASETS, "sonar",
                        dataclasses.replace(DATASETS["sonar"], loader=not_loaded))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    assert main(["datasets", "sonar", "--out", "adir"]) == 2
    assert "--out 'adir' is a directory" in capsys.readouterr().err
    assert os.listdir(tmp_path) == ["adir"] and os.listdir(tmp_path / "adir") == []


@pytest.mark.parametrize("argv", [
    ["datasets"],
    ["fit", "missing.csv", "-k", "2"],
    ["fit", "moons.npy", "-k", "2", "--quiet", *FIXED],
])
def test_the_fork_servers_command_answers_as_a_new_interpreter(work, argv):
    # cli() runs the command in a child of tests/cli_process.py's fork server;
    # it must see what `python -m smiclust` gives: status, stdout, stderr
    fresh = subprocess.run([sys.executable, "-m", "smiclust", *argv],
                           capture_output=True, text=True, cwd=work["dir"],
                           timeout=600)
    forked = cli(*argv, cwd=work["dir"])
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        fresh.returncode, fresh.stdout, fresh.stderr)
    assert fresh.stdout or fresh.stderr


def _write_environment_variable(name, cwd, environ, path):
    """A fork server child that writes ``$name`` to ``path``."""
    import cli_process

    cli_process._enter(cwd, environ)
    with open(path, "w") as f:
        f.write(os.environ.get(name, "<unset>"))
    os._exit(0)


def test_the_fork_servers_command_sees_the_callers_environment(tmp_path,
                                                                monkeypatch):
    # the fork server started long before: a variable set now still reaches
    # the command, as it would reach a new interpreter
    import cli_process

    cli("--version", cwd=tmp_path)  # the server is running
    monkeypatch.setenv("SMICLUST_TEST_VARIABLE", "set after the server")
    path = tmp_path / "seen.txt"
    status = cli_process._run_child(
        _write_environment_variable,
        ("SMICLUST_TEST_VARIABLE", os.fspath(tmp_path), dict(os.environ), path),
        60, ["write"])
    assert status == 0 and path.read_text() == "set after the server"


def test_without_a_fork_server_the_commands_run_in_new_interpreters(
        work, monkeypatch):
    # where multiprocessing has no fork server (Windows), cli() and
    # run_driver() start a new interpreter: the same results
    import cli_process

    argv = ["fit", "moons.npy", "-k", "2", "--quiet", *FIXED]
    forked = cli(*argv, cwd=work["dir"]), run_driver([argv, ["-k"]], work["dir"])
    monkeypatch.setattr(cli_process, "_CONTEXT", None)
    fresh = cli(*argv, cwd=work["dir"]), run_driver([argv, ["-k"]], work["dir"])
    assert (forked[0].returncode, forked[0].stdout, forked[0].stderr) == (
        fresh[0].returncode, fresh[0].stdout, fresh[0].stderr)
    assert forked[1] == fresh[1]
    assert fresh[1][0]["rc"] == 0 and fresh[1][1]["rc"] == 2


def test_a_dangling_symbolic_link_is_the_output_it_points_to(tmp_path,
                                                             monkeypatch, capsys):
    # --out l.csv, a link to the model file a.csv that --save is about to
    # write: the two outputs would be one file (the model lost)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base.csv").write_text("id,x\na,0\nb,1\nc,5\nd,6\n")
    os.symlink("a.csv", tmp_path / "l.csv")
    argv = ["fit", "base.csv", "-k", "2", "--id-column", "id", *FIXED]
    assert main([*argv, "--out", "l.csv", "--save", "a.csv"]) == 2
    assert "--save 'a.csv' is the --out file" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["base.csv", "l.csv"]


@pytest.mark.parametrize("name, got", [("s.parquet", ".parquet"),
                                       ("s.json", ".json"), ("s", "no suffix")])
def test_datasets_export_refuses_a_suffix_other_than_csv(tmp_path, monkeypatch,
                                                         capsys, name, got):
    # the export writes CSV only: CSV under another name would be misread
    monkeypatch.chdir(tmp_path)
    assert main(["datasets", "sonar", "--out", name]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"--out '{name}': expected a file name ending in .csv "
                        f"(data sets are exported as CSV only), got {got}")
    assert os.listdir(tmp_path) == []
    assert main(["datasets", "sonar", "--out", "S.CSV"]) == 0
    assert (tmp_path / "S.CSV").read_text().startswith("x0,x1,")


@pytest.mark.parametrize("argv", [["sonar", "--out", "s.csv"], ["sonar"],
                                  ["--out", "s.csv"]])
def test_datasets_json_is_for_the_listing_only(tmp_path, monkeypatch, capsys, argv):
    # before: exit 0 with the CSV written and --json silently ignored
    monkeypatch.chdir(tmp_path)
    assert main(["datasets", *argv, "--json"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("--json lists the data sets; it cannot be combined with "
                        "NAME or --out (an export writes CSV)")
    assert os.listdir(tmp_path) == []


def test_predict_reads_data_with_the_header_choice_of_fit(tmp_path, monkeypatch):
    # pandas' header "0,1" over the features: --header yes at fit time; predict
    # reads the new rows the same way unless told otherwise
    monkeypatch.chdir(tmp_path)
    X, _ = make_moons(40, noise=0.05, random_state=0)
    text = "0,1\n" + "".join(f"{a:.6f},{b:.6f}\n" for a, b in X)
    (tmp_path / "train.csv").write_text(text)
    (tmp_path / "new.csv").write_text(text)
    assert main(["fit", "train.csv", "-k", "2", *FIXED, "--header", "yes",
                 "--save", "m.joblib", "--quiet", "-o", "fit.csv"]) == 0
    assert main(["predict", "m.joblib", "new.csv", "--quiet", "-o", "p.csv"]) == 0
    fitted = (tmp_path / "fit.csv").read_text().splitlines()
    predicted = (tmp_path / "p.csv").read_text().splitlines()
    assert len(predicted) == 41 and predicted == fitted
    # an explicit --header still wins: the header line is then a row
    assert main(["predict", "m.joblib", "new.csv", "--header", "no", "--quiet",
                 "-o", "p2.csv"]) == 0
    assert len((tmp_path / "p2.csv").read_text().splitlines()) == 42
