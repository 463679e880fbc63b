"""The command line refuses inputs that could pass for something else.

Each case is a process of its own (``tests/cli_process.py``, or a new
``python -m smiclust`` where the case needs one): the outcome is judged at
process exit (status, stderr, stdout, files).
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from cli_process import run_cli
from sklearn.datasets import make_moons

FIXED = ["--n-neighbors", "5", "--gamma", "1", "--eta", "1"]


def cli(*args, cwd, timeout=600, **kwargs):
    """``python -m smiclust *args``; with ``kwargs`` of :func:`subprocess.run`
    (a standard output of its own, a function run before the command) a new
    interpreter, otherwise a child of the test worker's fork server."""
    if not kwargs:
        return run_cli(args, cwd=cwd, timeout=timeout)
    if "stdout" not in kwargs:
        kwargs["capture_output"] = True
    return subprocess.run([sys.executable, "-m", "smiclust", *map(str, args)],
                          text=True, cwd=cwd, timeout=timeout, **kwargs)


def one_error_line(proc):
    """The process failed with status 2 and exactly one line on stderr."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """40 rows of two moons with zero-padded ids 001..040, and labels."""
    d = tmp_path_factory.mktemp("trust")
    X, y = make_moons(40, noise=0.05, random_state=0)
    ids = [f"{i + 1:03d}" for i in range(40)]
    with open(d / "padded.csv", "w") as f:
        f.write("id,x1,x2\n")
        for i, (a, b) in zip(ids, X):
            f.write(f"{i},{float(a)!r},{float(b)!r}\n")
    named = [f"id{i + 1}" for i in range(40)]
    with open(d / "named.csv", "w") as f:
        f.write("name,x1,x2\n")
        for i, (a, b) in zip(named, X):
            f.write(f"{i},{float(a)!r},{float(b)!r}\n")
    np.save(d / "moons.npy", X)
    proc = cli("fit", "moons.npy", "-k", "2", "--quiet", *FIXED, "--save",
               "model.joblib", cwd=d)
    assert proc.returncode == 0, proc.stderr
    return {"dir": d, "y": y}


def test_links_name_ids_when_data_has_ids(work):
    d = work["dir"]
    (d / "by_number.csv").write_text("1,2\n")
    proc = cli("fit", "padded.csv", "-k", "2", "--id-column", "id",
               "--must-link", "by_number.csv", *FIXED, cwd=d)
    line = one_error_line(proc)
    assert "'1' is not an id of the data (the data has the id '001')" in line
    (d / "by_id.csv").write_text("001,002\n")
    proc = cli("fit", "padded.csv", "-k", "2", "--id-column", "id",
               "--must-link", "by_id.csv", "--json", "--quiet", *FIXED, cwd=d)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["n_must_link"] == 1


def test_link_header_that_reads_as_ids_must_be_settled(work):
    d = work["dir"]
    (d / "links.csv").write_text("id1,id2\nid3,id4\n")
    args = ["fit", "named.csv", "-k", "2", "--id-column", "name", "--must-link",
            "links.csv", "--json", "--quiet", *FIXED]
    line = one_error_line(cli(*args, cwd=d))
    assert "'id1','id2' reads both as a header and as a link" in line
    assert "--links-header yes|no" in line
    for header, n_links in (("yes", 1), ("no", 2)):
        proc = cli(*args, "--links-header", header, cwd=d)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["summary"]["n_must_link"] == n_links


def test_labels_one_row_short_with_a_header(work):
    d = work["dir"]
    y = work["y"]
    (d / "short.csv").write_text("label\n" + "".join(f"{v}\n" for v in y[:-1]))
    line = one_error_line(cli("fit", "moons.npy", "-k", "2", "--labels",
                              "short.csv", *FIXED, cwd=d))
    assert "39 lines after the header line; expected one label per data row (40)" \
        in line
    names = ["cat" if v else "dog" for v in y]
    (d / "short_text.csv").write_text("class\n" + "\n".join(names[:-1]) + "\n")
    line = one_error_line(cli("fit", "moons.npy", "-k", "2", "--labels",
                              "short_text.csv", *FIXED, cwd=d))
    assert "leaving 39 labels for the 40 data rows" in line


@pytest.mark.parametrize("marker", ["unknown", "?", "NA", "", "-1"])
def test_unknown_label_markers(work, marker):
    d = work["dir"]
    y = work["y"]
    cells = [str(v) if k % 4 == 0 else marker for k, v in enumerate(y)]
    (d / "partial.csv").write_text("\n".join(cells) + "\n")
    proc = cli("fit", "moons.npy", "-k", "2", "--labels", "partial.csv", "--json",
               "--quiet", *FIXED, cwd=d)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["n_labeled"] == 10


def test_more_distinct_labels_than_clusters(work):
    d = work["dir"]
    cells = [str(k % 3) if k % 2 == 0 else "" for k in range(40)]
    (d / "three.csv").write_text("\n".join(cells) + "\n")
    line = one_error_line(cli("fit", "moons.npy", "-k", "2", "--labels",
                              "three.csv", *FIXED, cwd=d))
    assert "has 3 distinct labels, more than -k 2 clusters" in line


def test_help_lists_the_unknown_label_markers(work):
    proc = cli("fit", "--help", cwd=work["dir"])
    text = " ".join(proc.stdout.split())
    assert "-1, ?, unknown, NA" in text
    assert "--links-header" in text and "--labels-header" in text


# ---------------------------------------------------------------------------
# no tracebacks: errors end in one line, checked before the work
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [["datasets"], ["fit", "moons.npy", "-k", "2",
                                                 "--quiet", "--n-neighbors", "5"]])
def test_full_stdout_is_one_line_exit_2(work, argv):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "w") as full:
        proc = cli(*argv, cwd=work["dir"], stdout=full, stderr=subprocess.PIPE)
    line = one_error_line(proc)
    assert line.endswith("error: cannot write to stdout: No space left on device")


@pytest.mark.parametrize("argv, message", [
    (["fit", "/dev/zero", "-k", "2"],
     "cannot read DATA '/dev/zero': it is a character device, not a file"),
    (["fit", "moons.npy", "-k", "2", "--labels", "/dev/zero"],
     "cannot read --labels '/dev/zero': it is a character device"),
    (["predict", "/dev/zero", "moons.npy"],
     "cannot read MODEL '/dev/zero': it is a character device"),
    (["predict", "model.joblib", "/dev/zero"],
     "cannot read DATA '/dev/zero': it is a character device"),
])
def test_devices_are_refused(work, argv, message):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero on this system")
    resource = pytest.importorskip("resource")

    def cap_memory():  # should the refusal fail, reading stops at 3 GB
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    line = one_error_line(cli(*argv, cwd=work["dir"], timeout=60,
                              preexec_fn=cap_memory))
    assert message in line


@pytest.mark.parametrize("plot, message", [
    ("missing/demo.png", "directory"),
    ("demo.xyz", "unknown image format 'xyz'"),
])
def test_demo_plot_is_checked_before_the_work(work, plot, message):
    pytest.importorskip("matplotlib")
    proc = cli("demo", "--fractions", "0", "--plot", plot, cwd=work["dir"])
    line = one_error_line(proc)
    assert message in line
    assert proc.stdout == ""  # no data set loaded, no fit run


def test_corrupt_parquet_exits_2_in_a_real_process(work):
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    d = work["dir"]
    pq.write_table(pa.table({"a": np.arange(50.0), "b": np.arange(50.0)}),
                   d / "good.parquet")
    data = (d / "good.parquet").read_bytes()
    (d / "half.parquet").write_bytes(data[: len(data) // 2])
    line = one_error_line(cli("fit", "half.parquet", "-k", "2", cwd=d))
    assert "not a readable Parquet file" in line


UNEXPECTED = """
import sys
import smiclust.commands.datasets as datasets
from smiclust.cli import main

def boom(args):
    raise KeyError("no such thing")

datasets.run = boom
sys.exit(main(sys.argv[1:]))
"""


def test_unexpected_errors_are_one_line_without_debug(work):
    proc = subprocess.run([sys.executable, "-c", UNEXPECTED, "datasets"],
                          capture_output=True, text=True, cwd=work["dir"])
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert lines == ["smiclust datasets: error: unexpected KeyError: 'no such "
                     "thing' (run 'smiclust --debug ...' for the traceback)"]
    proc = subprocess.run([sys.executable, "-c", UNEXPECTED, "--debug",
                           "datasets"], capture_output=True, text=True,
                          cwd=work["dir"])
    assert proc.returncode == 1
    assert "Traceback" in proc.stderr and "KeyError" in proc.stderr


# ---------------------------------------------------------------------------
# new users: warnings and conveniences
# ---------------------------------------------------------------------------


def test_feature_scales_orders_of_magnitude_apart_suggest_standardize(work):
    d = work["dir"]
    X = np.load(d / "moons.npy") * [1e4, 1.0]
    np.savetxt(d / "scales.csv", X, delimiter=",", header="big,small",
               comments="")
    proc = cli("fit", "scales.csv", "-k", "2", "--quiet", "--n-neighbors", "5",
               cwd=d)
    assert proc.returncode == 0, proc.stderr
    assert ("warning: feature scales differ by a factor of" in proc.stderr
            and "column 'small'" in proc.stderr and "--standardize" in proc.stderr)
    proc = cli("fit", "scales.csv", "-k", "2", "--quiet", "--n-neighbors", "5",
               "--standardize", cwd=d)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


def test_column_std_of_sparse_data_equals_the_dense_std():
    # the scale warning reads sparse DATA without making it dense
    import scipy.sparse as sp

    from smiclust.commands._fit_inputs import column_std

    rng = np.random.RandomState(0)
    dense = rng.normal(size=(30, 5)) * [1e4, 1.0, 0.0, 3.0, 1e-3]
    dense[rng.random_sample(dense.shape) < 0.6] = 0.0
    np.testing.assert_allclose(column_std(sp.csr_matrix(dense)),
                               dense.std(axis=0), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(column_std(dense), dense.std(axis=0))


def test_one_cluster_is_trivial_warning(work):
    proc = cli("fit", "moons.npy", "-k", "1", "--quiet", "--n-neighbors", "5",
               cwd=work["dir"])
    assert proc.returncode == 0, proc.stderr
    assert "warning: -k 1: one cluster is trivial" in proc.stderr


def test_datasets_exports_csv(work):
    d = work["dir"]
    proc = cli("datasets", "sonar", "--out", "sonar.csv", cwd=d)
    assert proc.returncode == 0, proc.stderr
    lines = (d / "sonar.csv").read_text().splitlines()
    assert len(lines) == 209
    assert lines[0].split(",")[:2] == ["x0", "x1"] and lines[0].endswith(",label")
    assert all(len(line.split(",")) == 61 for line in lines)
    line = one_error_line(cli("datasets", "nope", "--out", "x.csv", cwd=d))
    assert "unknown data set 'nope'" in line


def test_csv_probabilities_have_at_most_6_significant_digits(work):
    proc = cli("fit", "moons.npy", "-k", "2", "--quiet", "--n-neighbors", "5",
               "--proba", cwd=work["dir"])
    assert proc.returncode == 0, proc.stderr
    rows = [line.split(",") for line in proc.stdout.splitlines()[1:]]
    for cell in (c for row in rows for c in row[1:]):
        mantissa = cell.split("e")[0].replace(".", "").replace("-", "").lstrip("0")
        assert len(mantissa) <= 6, cell


def test_standardize_keeps_a_feature_near_the_float_limit(work):
    """A column near 1e308 kept its information (its std overflowed to inf and
    the column became zeros); fit and predict agree with the rescaled data."""
    d = work["dir"]
    X = np.load(d / "moons.npy")
    np.savetxt(d / "huge.csv", X * [1e307, 1.0], delimiter=",", header="a,b",
               comments="")
    np.savetxt(d / "unit.csv", X, delimiter=",", header="a,b", comments="")
    common = ("-k", "2", "--quiet", "--n-neighbors", "5", "--standardize",
              "--random-state", "0")
    huge = cli("fit", "huge.csv", *common, "--save", "huge.joblib", "-o",
               "huge_labels.csv", cwd=d)
    unit = cli("fit", "unit.csv", *common, "-o", "unit_labels.csv", cwd=d)
    assert huge.returncode == 0 and unit.returncode == 0, huge.stderr + unit.stderr
    assert (d / "huge_labels.csv").read_text() == (d / "unit_labels.csv").read_text()
    pred = cli("predict", "huge.joblib", "huge.csv", "-o", "pred.csv", cwd=d)
    assert pred.returncode == 0, pred.stderr
    fitted = [line.split(",")[-1] for line in
              (d / "huge_labels.csv").read_text().splitlines()[1:]]
    predicted = [line.split(",")[-1] for line in
                 (d / "pred.csv").read_text().splitlines()[1:]]
    agree = np.mean(np.array(fitted) == np.array(predicted))
    assert agree > 0.95, agree
