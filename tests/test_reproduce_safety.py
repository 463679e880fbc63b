"""``smiclust reproduce`` and the user's files: refusals, atomic writes, lock.

Refusals are checked on the command line in a process of their own
(``tests/cli_process.py``; exit status 2, one line on stderr naming the file,
no traceback) and on the directory afterwards, byte for byte.
"""

import csv
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from cli_process import run_cli

from smiclust.experiments import (
    RECORD_FIELDS,
    RECORDS_FILE,
    OutputDirError,
    check_out_dir,
    read_records,
)

HEADER = ",".join(RECORD_FIELDS) + "\n"
# cheap runs: one data set, one method, one seed, no links
CHEAP = ["--datasets", "faces100", "--methods", "sl", "--seeds", "1",
         "--link-levels", "0"]


def _reproduce(*args, timeout=300):
    return run_cli(["reproduce", *args], timeout=timeout)


def _snapshot(directory):
    """Every file below ``directory`` (hidden ones too) -> its bytes."""
    directory = Path(directory)
    return {str(p.relative_to(directory)): p.read_bytes()
            for p in sorted(directory.rglob("*")) if p.is_file()}


def _assert_refused(proc, *needles):
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("smiclust reproduce: error: ")
    for needle in needles:
        assert needle in lines[0]
    assert proc.stdout == ""


@pytest.mark.parametrize("content", [
    b"garbage text\nmore garbage, no line end",
    np.random.RandomState(0).bytes(4096),
    b"a,b,c\n1,2,3\n",
    HEADER.encode()[:-1].replace(b"run_id", b"run"),
], ids=["text", "random-bytes", "other-csv", "other-header"])
@pytest.mark.parametrize("mode", [[], ["--report-only"]], ids=["run", "report-only"])
def test_a_foreign_records_file_is_refused_and_left_untouched(tmp_path, content,
                                                              mode):
    (tmp_path / RECORDS_FILE).write_bytes(content)
    before = _snapshot(tmp_path)
    proc = _reproduce(*CHEAP, *mode, "--out", tmp_path)
    _assert_refused(proc, str(tmp_path / RECORDS_FILE))
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("name, content", [
    ("config.json", '{"learning_rate": 0.1}\n'),
    ("config.json", "not json at all\n"),
    ("config.json", "[1, 2, 3]\n"),
    ("config.json", '{"name": "full", "seeds": 5, "datasets": {}, "methods": {}}\n'),
    ("config.json", '{"name": "full", "seeds": [0], "datasets": [], "methods": {}}\n'),
    ("config.json", '{"name": "full", "seeds": ["x"], "datasets": {}, '
                    '"methods": {}}\n'),
    ("report.md", "# My notes on the paper\n\nKeep them.\n"),
    ("report.md", ""),
])
@pytest.mark.parametrize("with_records", [False, True],
                         ids=["alone", "beside-records"])
def test_a_config_or_report_the_tool_did_not_write_is_refused(tmp_path, name,
                                                              content,
                                                              with_records):
    (tmp_path / name).write_text(content)
    if with_records:
        (tmp_path / RECORDS_FILE).write_text(HEADER)
    before = _snapshot(tmp_path)
    proc = _reproduce(*CHEAP, "--out", tmp_path)
    _assert_refused(proc, str(tmp_path / name), "--out")
    assert _snapshot(tmp_path) == before


def test_a_directory_the_tool_wrote_is_accepted(tmp_path):
    out = tmp_path / "out"
    proc = _reproduce(*CHEAP, "--out", out)
    assert proc.returncode == 0, proc.stderr[-2000:]
    check_out_dir(out)  # its own config.json, report.md and records.csv
    again = _reproduce(*CHEAP, "--out", out)
    assert again.returncode == 0, again.stderr[-2000:]
    assert '"new_runs": 0' in again.stdout


def test_an_out_of_another_configuration_is_refused_and_left_untouched(tmp_path):
    # runs with flipped links (--config noise-quick) were averaged into the
    # paper's report of the same directory, and its config.json replaced
    out = tmp_path / "out"
    proc = _reproduce(*CHEAP, "--out", out)
    assert proc.returncode == 0, proc.stderr[-2000:]
    before = _snapshot(out)
    mixed = _reproduce("--config", "noise-quick", "--methods", "sl", "--out", out)
    _assert_refused(mixed, "holds the runs of the configuration 'full'",
                    "the configuration 'noise-quick' would mix its runs")
    # checked under the directory's lock (so a run in progress is named
    # first), whose file holds the last holder's process id
    after = _snapshot(out)
    for snapshot in (before, after):
        snapshot.pop(".smiclust-reproduce.lock")
    assert after == before


def test_a_partial_header_is_restarted(tmp_path):
    from smiclust.experiments._records import RecordWriter

    path = tmp_path / RECORDS_FILE
    path.write_text(HEADER[:10])  # killed while the header was written
    check_out_dir(tmp_path)
    assert read_records(path) == []
    RecordWriter(path).close()
    assert path.read_text() == HEADER


def test_read_records_leaves_the_file_as_it_is(tmp_path):
    path = tmp_path / RECORDS_FILE
    path.write_bytes(HEADER.encode() + b"half a rec")
    assert read_records(path) == []
    assert path.read_bytes() == HEADER.encode() + b"half a rec"
    path.write_bytes(b"not a records file\nhalf")
    with pytest.raises(OutputDirError, match="records.csv"):
        read_records(path)
    assert path.read_bytes() == b"not a records file\nhalf"


# ---------------------------------------------------------------------------
# the output location
# ---------------------------------------------------------------------------


def test_out_is_a_file(tmp_path):
    target = tmp_path / "taken"
    target.write_text("mine\n")
    _assert_refused(_reproduce(*CHEAP, "--out", target), str(target),
                    "is a file")
    assert target.read_text() == "mine\n"


def test_figures_is_a_file(tmp_path):
    (tmp_path / "figures").write_text("mine\n")
    _assert_refused(_reproduce(*CHEAP, "--out", tmp_path),
                    str(tmp_path / "figures"), "is a file")
    assert _snapshot(tmp_path) == {"figures": b"mine\n"}


def test_out_under_a_file(tmp_path):
    target = tmp_path / "taken"
    target.write_text("mine\n")
    _assert_refused(_reproduce(*CHEAP, "--out", target / "sub" / "dir"),
                    str(target), "is a file")
    assert target.read_text() == "mine\n"


def test_unreachable_scheduler(tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "out"
    proc = _reproduce(*CHEAP, "--scheduler", "tcp://127.0.0.1:1", "--out", out)
    _assert_refused(proc, "tcp://127.0.0.1:1", "scheduler")
    assert not out.exists()


# ---------------------------------------------------------------------------
# atomic writes
# ---------------------------------------------------------------------------


_LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails
resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
"""


def _run_limited(code, tmp_path):
    script = tmp_path / "limited.py"
    script.write_text(_LIMITED + textwrap.dedent(code))
    return subprocess.run([sys.executable, str(script)], capture_output=True,
                          text=True, timeout=300)


def test_a_failed_report_write_leaves_the_old_report(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with open(out / RECORDS_FILE, "w", newline="") as f:
        w = csv.DictWriter(f, RECORD_FIELDS, lineterminator="\n")
        w.writeheader()
        for seed in range(2):
            w.writerow({"run_id": f"faces100/raw/sl/t=7/links=0/seed={seed}",
                        "dataset": "faces100", "preprocessing": "raw",
                        "method": "sl", "t": 7, "link_fraction": 0.0,
                        "seed": seed, "ari": 0.5, "status": "ok",
                        "seconds": 1.0})
    old = "# Reproduction of the 3SMIC experiments\n\nthe previous report\n"
    (out / "report.md").write_text(old)
    proc = _run_limited(f"""
        from smiclust.experiments import write_report
        try:
            write_report({str(out / RECORDS_FILE)!r}, {str(out)!r}, figures=False)
        except OSError as exc:
            sys.exit(f"failed: {{exc}}")
        """, tmp_path)
    assert proc.returncode != 0 and "failed:" in proc.stderr, proc.stderr[-2000:]
    assert (out / "report.md").read_text() == old
    assert not [p for p in os.listdir(out) if p.endswith(".tmp")]


def test_a_failed_config_write_leaves_the_old_config(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    old = '{"name": "old", "seeds": [0], "datasets": {}, "methods": {}}\n'
    (out / "config.json").write_text(old)
    proc = _run_limited(f"""
        from smiclust.experiments import quick_config, run_experiment
        try:
            run_experiment(quick_config(), {str(out)!r}, progress=False)
        except OSError as exc:
            sys.exit(f"failed: {{exc}}")
        """, tmp_path)
    assert proc.returncode != 0 and "failed:" in proc.stderr, proc.stderr[-2000:]
    assert (out / "config.json").read_text() == old
    assert not [p for p in os.listdir(out) if p.endswith(".tmp")]


# ---------------------------------------------------------------------------
# one process per directory; a killed process
# ---------------------------------------------------------------------------

_SLOW_RUN = """
import sys, time
import numpy as np
from smiclust.experiments import _config, _runner, make_config, run_experiment

_config.METHODS["slow"] = {"label": "Slow", "kind": "paper", "ts": (None,),
                           "params": {}, "description": "test method"}

def fit(run, X, n_clusters, must, cannot):
    time.sleep(0.2)
    return np.arange(X.shape[0]) % n_clusters, {}

_runner.FITTERS["slow"] = fit
config = make_config(
    "slow", datasets={"faces100": {"link_fractions": (0.0,),
                                   "preprocessing": ("raw",)}},
    methods=("slow",), seeds=range(int(sys.argv[2])))
run_experiment(config, sys.argv[1], progress=False)
"""


def _start_slow_run(tmp_path, out, n_seeds):
    script = tmp_path / "slow_run.py"
    script.write_text(_SLOW_RUN)
    return subprocess.Popen([sys.executable, str(script), str(out), str(n_seeds)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_for_records(path, n, proc, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= n + 1:
            return
        if proc.poll() is not None:
            pytest.fail(f"the run ended early: {proc.stderr.read()[-2000:]}")
        time.sleep(0.05)
    pytest.fail(f"no {n} records in {path} within {timeout} s")


def test_a_second_process_on_the_same_directory_is_refused(tmp_path):
    out = tmp_path / "out"
    first = _start_slow_run(tmp_path, out, n_seeds=200)
    try:
        _wait_for_records(out / RECORDS_FILE, 1, first)
        before = (out / "config.json").read_bytes()
        proc = _reproduce(*CHEAP, "--out", out)
        _assert_refused(proc, str(out), "in use", f"process {first.pid}")
        assert (out / "config.json").read_bytes() == before
        assert all(r["method"] == "slow" for r in read_records(out / RECORDS_FILE))
    finally:
        first.kill()
        first.wait()
        first.stderr.close()


def test_a_killed_run_keeps_its_records_releases_the_lock_and_resumes(tmp_path):
    out = tmp_path / "out"
    first = _start_slow_run(tmp_path, out, n_seeds=30)
    try:
        _wait_for_records(out / RECORDS_FILE, 5, first)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
        first.stderr.close()
    kept = read_records(out / RECORDS_FILE)
    assert len(kept) >= 5
    assert all(r["status"] == "ok" and r["method"] == "slow" for r in kept)
    # the lock went with the process: the next run resumes where it stopped
    second = _start_slow_run(tmp_path, out, n_seeds=30)
    assert second.wait(timeout=300) == 0, second.stderr.read()[-2000:]
    second.stderr.close()
    records = read_records(out / RECORDS_FILE)
    assert sorted(int(r["seed"]) for r in records) == list(range(30))
    assert records[: len(kept)] == kept
    assert (out / RECORDS_FILE).read_bytes().endswith(b"\n")


def test_legacy_records_and_the_beyond_report_are_the_tool_s_own(tmp_path):
    """A records file written before the fields beyond the paper (as in
    docs/reproduction) and the report of --config beyond are accepted."""
    from smiclust.experiments._output import BEYOND_REPORT_TITLE
    from smiclust.experiments._records import LEGACY_RECORD_FIELDS

    (tmp_path / RECORDS_FILE).write_text(",".join(LEGACY_RECORD_FIELDS) + "\n")
    (tmp_path / "report.md").write_text(BEYOND_REPORT_TITLE + "\n\ntext\n")
    check_out_dir(tmp_path)
    assert read_records(tmp_path / RECORDS_FILE) == []
    (tmp_path / "report.md").write_text("# Beyond something else\n")
    with pytest.raises(OutputDirError, match="report.md"):
        check_out_dir(tmp_path)
