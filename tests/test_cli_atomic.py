"""Every file the command line writes replaces its target only when complete.

A write that fails half-way (here: a file size limit, ``RLIMIT_FSIZE``, in a
real ``python -m smiclust`` process) ends with exit status 2 and one line on
stderr, leaves the old file byte for byte, and leaves no temporary file.
"""

import os
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import make_moons

resource = pytest.importorskip("resource")

FIXED = ["--n-neighbors", "5"]  # no links: gamma and eta do not apply
OLD = b"old content, must survive\n"
LIMIT = 1500  # bytes: every output below is larger


def _limit_file_size():
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def run_limited(args, cwd):
    return subprocess.run([sys.executable, "-m", "smiclust", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=600,
                          preexec_fn=_limit_file_size)


@pytest.fixture(scope="module")
def moons(tmp_path_factory):
    d = tmp_path_factory.mktemp("atomic")
    X, _ = make_moons(200, noise=0.05, random_state=0)
    np.savetxt(d / "moons.csv", X, delimiter=",", header="x1,x2", comments="")
    return d


@pytest.mark.parametrize("option, name", [
    ("--out", "out.csv"),
    ("--out", "out.tsv"),
    ("--out", "out.json"),
    ("--out", "out.parquet"),
    ("--save", "model.joblib"),
    ("--plot", "plot.png"),
])
def test_failed_write_keeps_the_old_file(moons, option, name):
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    if name.endswith(".png"):
        pytest.importorskip("matplotlib")
    target = moons / name
    target.write_bytes(OLD)
    before = set(os.listdir(moons))
    proc = run_limited(["fit", "moons.csv", "-k", "2", "--proba", "--quiet",
                        *FIXED, option, name], cwd=moons)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith(f"smiclust fit: error: cannot write {option}"), lines
    assert target.read_bytes() == OLD
    assert set(os.listdir(moons)) == before  # no temporary file left behind


def test_outputs_written_whole_without_a_limit(moons, tmp_path):
    """The same outputs, written normally, replace the old files."""
    outputs = {"--out": "out.csv", "--save": "model.joblib"}
    for name in outputs.values():
        (moons / name).write_bytes(OLD)
    args = ["fit", "moons.csv", "-k", "2", "--quiet", *FIXED]
    for option, name in outputs.items():
        args += [option, name]
    proc = subprocess.run([sys.executable, "-m", "smiclust", *args],
                          capture_output=True, text=True, cwd=moons, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert (moons / "out.csv").read_text().startswith("cluster\n")
    assert (moons / "model.joblib").read_bytes() != OLD
    mode = os.stat(moons / "out.csv").st_mode & 0o777
    assert mode != 0o600 or os.umask(0o022) == 0o177  # not mkstemp's 0600
