"""``smiclust ask``: a person (here, the true labels) answers through stdin.

End-to-end runs are real ``python -m smiclust ask`` processes whose standard
input is a pipe: the test reads each question off stdout, answers it from the
true labels of a shipped data set, and checks the --links file after every
answer. In process, the questions are checked against those
``smiclust.ActiveSMIClustering`` asks with the same answers. One test drives a
real terminal (tmux new-session / send-keys / capture-pane).
"""

import argparse
import contextlib
import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from smiclust.commands import ask
from smiclust.datasets import DATASETS
from smiclust.io import read_answers

FIXED = ["--n-neighbors", "5", "--gamma", "1", "--eta", "1"]
QUESTION = re.compile(r"question (\d+) of (\d+): (\S+) and (\S+)")
PNG = b"\x89PNG\r\n\x1a\n"


def _env(*, terminal=None):
    """The environment of a run: no NO_COLOR, one BLAS thread; the terminal size
    ``(columns, lines)`` that ``shutil.get_terminal_size`` reports (None: the
    real one, for tmux)."""
    env = dict(os.environ)
    for name in ("NO_COLOR", "COLUMNS", "LINES"):
        env.pop(name, None)
    if terminal is not None:
        env["COLUMNS"], env["LINES"] = map(str, terminal)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, "1")
    return env


def _write_table(path, prefix, X):
    ids = [f"{prefix}{k:03d}" for k in range(len(X))]
    with open(path, "w") as f:
        f.write("id," + ",".join(f"x{k}" for k in range(X.shape[1])) + "\n")
        for i, row in zip(ids, X):
            f.write(i + "," + ",".join(repr(float(v)) for v in row) + "\n")
    return ids


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """parkinson (195 rows, 2 classes) and digits 0-2 of digits500 (150 rows,
    16 x 16 images), with an id column; the true label of every id."""
    d = tmp_path_factory.mktemp("ask")
    X, y = DATASETS["parkinson"].load(random_state=0)
    ids = _write_table(d / "parkinson.csv", "p", X)
    label = dict(zip(ids, y.tolist()))
    X, y = DATASETS["digits500"].load(random_state=0)
    keep = np.flatnonzero(y < 3)
    ids = _write_table(d / "digits.csv", "d", X[keep])
    label.update(zip(ids, y[keep].tolist()))
    return {"dir": d, "label": label, "n_parkinson": 195, "n_digits": len(keep)}


def _default_sigint():
    """Ctrl-C must reach the child as KeyboardInterrupt even when the test runs
    in a background job, whose shell starts it with SIGINT ignored (inherited,
    and Python then installs no handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Asker:
    """``smiclust ask`` in a subprocess, stdout read as it comes."""

    def __init__(self, args, cwd):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "smiclust", "ask", *map(str, args)], cwd=cwd,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=_env(terminal=(100, 40)), preexec_fn=_default_sigint)
        self.chunks = {"out": [], "err": []}
        self.readers = [threading.Thread(target=self._read, args=(stream, key),
                                         daemon=True)
                        for stream, key in ((self.proc.stdout, "out"),
                                            (self.proc.stderr, "err"))]
        for reader in self.readers:
            reader.start()

    def _read(self, stream, key):
        for chunk in iter(lambda: os.read(stream.fileno(), 65536), b""):
            self.chunks[key].append(chunk)

    @property
    def stdout(self):
        return b"".join(self.chunks["out"]).decode()

    @property
    def stderr(self):
        return b"".join(self.chunks["err"]).decode()

    def prompt(self, count, timeout=120):
        """Wait for the ``count``-th prompt; the last question shown, as
        ``(number, budget, id_a, id_b)``, or None when the process ended."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.stdout
            if text.count(ask.PROMPT) >= count:
                number, budget, a, b = QUESTION.findall(text)[-1]
                return int(number), int(budget), a, b
            if self.proc.poll() is not None:
                for reader in self.readers:
                    reader.join(5)
                if self.stdout.count(ask.PROMPT) < count:
                    return None
            time.sleep(0.02)
        raise AssertionError(f"no prompt {count} after {timeout} s:\n{self.stdout}"
                             f"\n{self.stderr}")

    def send(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def finish(self, timeout=120):
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.close()
        code = self.proc.wait(timeout)
        for reader in self.readers:
            reader.join(5)
        return code


def answers_in(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def oracle(label, a, b):
    return "y" if label[a] == label[b] else "n"


def summary_of(stderr):
    return json.loads(stderr.strip().splitlines()[-1])


# ---------------------------------------------------------------------------
# sessions through standard input
# ---------------------------------------------------------------------------


def test_session_saves_each_answer_at_once_then_fits(work):
    d, label = work["dir"], work["label"]
    links, out = d / "session-links.csv", d / "session-out.csv"
    s = Asker(["parkinson.csv", "-k", "2", "--id-column", "id", "--standardize",
               "--budget", "5", "--batch-size", "2", "--links", links.name,
               "--out", out.name, *FIXED], cwd=d)
    expected, prompts = [], 0
    while True:
        prompts += 1
        question = s.prompt(prompts)
        if question is None:
            break
        number, budget, a, b = question
        assert (number, budget) == (len(expected) + 1, 5)
        # the two rows' values side by side, one line per feature
        shown = s.stdout.rsplit(f"question {number} of 5: {a} and {b}\n", 1)[1]
        table = shown.splitlines()[:23]
        assert table[0].split() == ["feature", a, b]
        assert [line.split()[0] for line in table[1:]] == [f"x{k}" for k in
                                                           range(22)]
        assert all(len(line.split()) == 3 for line in table[1:])
        # the file holds every answer given so far, before the next question
        rows = answers_in(links) if expected else []
        assert rows[1:] == expected
        if number == 1:  # a reply that is no answer asks again
            s.send("maybe\n")
            prompts += 1
            assert s.prompt(prompts)[:2] == (1, 5)
        reply = "s" if number == 3 else oracle(label, a, b)
        s.send((reply.upper() if number == 2 else reply) + "\n")
        expected.append([a, b, {"y": "must", "n": "cannot", "s": "skip"}[reply]])
    assert s.finish() == 0, s.stderr
    assert "Please answer y, n, s or q (got 'maybe')" in s.stdout
    rows = answers_in(links)
    assert rows == [["id_i", "id_j", "answer"], *expected] and len(expected) == 5
    assert len({frozenset(r[:2]) for r in expected}) == 5  # never asked twice
    summary = summary_of(s.stderr)
    assert summary["command"] == "ask" and summary["stopped"] == "budget"
    assert summary["n_answers"] == summary["n_asked_now"] == 5
    assert summary["n_skipped"] == 1
    assert summary["n_must_link"] + summary["n_cannot_link"] == 4
    assigned = answers_in(out)
    assert assigned[0] == ["id", "cluster"] and len(assigned) == 1 + 195
    assert "5 answers in session-links.csv" in s.stdout


def test_quit_resume_end_of_input_and_fit_reads_the_answers(work):
    d, label = work["dir"], work["label"]
    links = d / "resume-links.csv"
    args = ["parkinson.csv", "-k", "2", "--id-column", "id", "--standardize",
            "--budget", "4", "--batch-size", "2", "--links", links.name, *FIXED]
    asked = []

    def answer(s, count):
        number, _, a, b = s.prompt(count)
        s.send(oracle(label, a, b) + "\n")
        asked.append((number, a, b))

    # 1. one answer, then q
    s = Asker(args, cwd=d)
    answer(s, 1)
    s.prompt(2)
    s.send("q\n")
    assert s.finish() == 0, s.stderr
    assert len(answers_in(links)) == 1 + 1
    assert summary_of(s.stderr)["stopped"] == "quit"
    assert "3 questions left of the budget of 4" in s.stdout
    # 2. resumed: asked from question 2; one answer, then end of input
    s = Asker(args, cwd=d)
    answer(s, 1)
    s.prompt(2)
    assert s.finish() == 0, s.stderr
    assert "1 answer already in resume-links.csv" in s.stdout
    assert summary_of(s.stderr)["stopped"] == "end of input"
    # 3. the last two questions
    s = Asker(args, cwd=d)
    answer(s, 1)
    answer(s, 2)
    assert s.prompt(3) is None
    assert s.finish() == 0, s.stderr
    assert [n for n, _, _ in asked] == [1, 2, 3, 4]
    assert len({frozenset((a, b)) for _, a, b in asked}) == 4
    rows = answers_in(links)
    assert [tuple(r[:2]) for r in rows[1:]] == [(a, b) for _, a, b in asked]
    assert all(r[2] == ("must" if label[r[0]] == label[r[1]] else "cannot")
               for r in rows[1:])
    # 4. the budget is spent: nothing asked, the file untouched
    before = (links.read_bytes(), os.stat(links).st_mtime_ns)
    s = Asker(args, cwd=d)
    assert s.finish() == 0, s.stderr
    assert "question" not in s.stdout
    assert (links.read_bytes(), os.stat(links).st_mtime_ns) == before
    # 5. smiclust fit takes the answers file as it is (--answers, as in --help)
    proc = subprocess.run(
        [sys.executable, "-m", "smiclust", "fit", "parkinson.csv", "-k", "2",
         "--id-column", "id", "--standardize", *FIXED, "--answers", links.name,
         "--out", "resume-fit.csv"], cwd=d, capture_output=True, text=True,
        env=_env(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    fitted = summary_of(proc.stderr)
    kinds = [r[2] for r in rows[1:]]
    assert fitted["n_must_link"] == kinds.count("must")
    assert fitted["n_cannot_link"] == kinds.count("cannot")


@pytest.mark.parametrize("how", ["kill", "interrupt"])
def test_a_killed_or_interrupted_session_keeps_every_answer(work, how):
    d, label = work["dir"], work["label"]
    links = d / f"{how}-links.csv"
    s = Asker(["parkinson.csv", "-k", "2", "--id-column", "id", "--budget", "10",
               "--batch-size", "3", "--links", links.name, *FIXED], cwd=d)
    given = []
    for count in (1, 2, 3, 4):
        _, _, a, b = s.prompt(count)
        if count == 4:
            break
        s.send(oracle(label, a, b) + "\n")
        given.append((a, b))
    s.proc.send_signal(signal.SIGKILL if how == "kill" else signal.SIGINT)
    code = s.finish()
    ids = list(label)[:work["n_parkinson"]]
    answers = read_answers(str(links), ids=ids, n_samples=len(ids))  # complete
    assert [(ids[i], ids[j]) for i, j, _ in answers] == given
    assert not [p for p in os.listdir(d) if p.startswith(f".{links.name}")]
    if how == "kill":
        assert code == -signal.SIGKILL
    else:
        assert code == 130
        assert "interrupted; 3 answers saved in interrupt-links.csv" in s.stderr
        assert "Traceback" not in s.stderr


# ---------------------------------------------------------------------------
# bad input: one line naming the option, exit status 2, no file written
# ---------------------------------------------------------------------------

DRIVER = r"""
import contextlib, io, json, sys
from smiclust.cli import main

results = []
for case in json.load(open(sys.argv[1])):
    saved = sys.modules.get("matplotlib")
    if case["no_matplotlib"]:
        sys.modules["matplotlib"] = None  # import matplotlib raises ImportError
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(case["argv"])
        except SystemExit as exc:
            rc = exc.code
    if case["no_matplotlib"]:
        sys.modules.pop("matplotlib")
        if saved is not None:
            sys.modules["matplotlib"] = saved
    results.append({"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue()})
json.dump(results, sys.stdout)
"""

BASE = ["ask", "parkinson.csv", "-k", "2", "--id-column", "id", "--budget", "3"]

#: (name, extra argv, what the error names, a part of the message)
BAD = [
    ("image shape", ["--links", "new.csv", "--image-shape", "4", "4"],
     "--image-shape", "holds 16 values; the rows of DATA have 22 features"),
    ("png without image", ["--links", "new.csv", "--png", "pair.png"],
     "--png", "needs --image-shape"),
    ("png suffix", ["--links", "new.csv", "--image-shape", "2", "11", "--png",
                    "pair.jpg"], "--png", "ending in .png; got 'pair.jpg'"),
    ("png no matplotlib", ["--links", "new.csv", "--image-shape", "2", "11",
                           "--png", "pair.png"], "--png", "needs matplotlib"),
    ("budget", ["--links", "new.csv", "--budget", "-1"], "--budget",
     "expected an integer >= 0, got '-1'"),
    ("batch size", ["--links", "new.csv", "--batch-size", "0"], "--batch-size",
     "expected an integer >= 1, got '0'"),
    ("one cluster", ["--links", "new.csv", "-k", "1"], "-k",
     "at least 2"),
    ("too many clusters", ["--links", "new.csv", "-k", "500"], "-k 500",
     "more clusters than DATA has rows (195)"),
    ("n_neighbors", ["--links", "new.csv", "--n-neighbors", "195"],
     "--n-neighbors", "smaller than the number of rows (195); got 195"),
    ("links stdout", ["--links", "-"], "--links", "needs a file name"),
    ("links is data", ["--links", "parkinson.csv"], "--links",
     "is the DATA file"),
    ("out is links", ["--links", "new.csv", "--out", "new.csv"], "--out",
     "is the --links file"),
    ("out stdout", ["--links", "new.csv", "--out", "-"], "--out",
     "needs a file name"),
    ("out directory", ["--links", "new.csv", "--out", "no/such/out.csv"], "--out",
     "does not exist"),
    # options of --out without it: nothing would take them
    ("proba without out", ["--links", "new.csv", "--proba"], "--proba",
     "needs --out FILE"),
    ("format without out", ["--links", "new.csv", "--format", "parquet"],
     "--format", "needs --out FILE"),
    # an unset shell variable: refused before the first question
    ("out empty", ["--links", "new.csv", "--out", ""], "--out",
     "needs a file name; got an empty string"),
    ("links empty", ["--links", ""], "--links",
     "needs a file name; got an empty string"),
    ("random state", ["--links", "new.csv", "--random-state", "-1"],
     "--random-state", "expected an integer in [0, 4294967295], got '-1'"),
    ("missing data", ["--links", "new.csv"], "DATA", "No such file"),
    ("bad answer", ["--links", "bad-answer.csv"], "--links",
     "line 3, column 3: expected must, cannot or skip, got 'maybe'"),
    ("unknown id", ["--links", "bad-id.csv"], "--links",
     "line 2, column 2: 'q001' is not an id of the data"),
    ("two fields", ["--links", "bad-width.csv"], "--links",
     "line 2 has 2 field(s); expected 3"),
    ("repeated pair", ["--links", "bad-repeat.csv"], "--links",
     "line 3: repeats the pair of line 2"),
]

BAD_FILES = {
    "bad-answer.csv": "id_i,id_j,answer\np000,p001,must\np002,p003,maybe\n",
    "bad-id.csv": "id_i,id_j,answer\np000,q001,must\n",
    "bad-width.csv": "id_i,id_j,answer\np000,p001\n",
    "bad-repeat.csv": "id_i,id_j,answer\np000,p001,must\np001,p000,cannot\n",
}


@pytest.fixture(scope="module")
def refused(work, tmp_path_factory):
    d = tmp_path_factory.mktemp("ask-bad")
    shutil.copy(work["dir"] / "parkinson.csv", d)
    for name, text in BAD_FILES.items():
        (d / name).write_text(text)
    cases = []
    for name, extra, _, _ in BAD:
        argv = list(BASE)
        if name == "missing data":
            argv[1] = "missing.csv"
        cases.append({"argv": argv + extra,
                      "no_matplotlib": name == "png no matplotlib"})
    (d / "cases.json").write_text(json.dumps(cases))
    before = {p: p.read_bytes() for p in d.iterdir()}
    proc = subprocess.run([sys.executable, "-c", DRIVER, "cases.json"], cwd=d,
                          capture_output=True, text=True, env=_env(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    after = {p: p.read_bytes() for p in d.iterdir()}
    return dict(zip([b[0] for b in BAD], json.loads(proc.stdout))), before, after


@pytest.mark.parametrize("name, extra, option, message", BAD,
                         ids=[b[0] for b in BAD])
def test_bad_input_is_refused_naming_the_option(refused, name, extra, option,
                                                message):
    results, _, _ = refused
    result = results[name]
    assert result["rc"] == 2, result
    assert result["stdout"] == ""
    lines = result["stderr"].strip().splitlines()
    if name not in ("budget", "batch size", "random state"):  # argparse: usage first
        assert len(lines) == 1, lines
    assert lines[-1].startswith("smiclust ask: error: "), lines
    assert option in lines[-1] and message in lines[-1], lines


def test_refused_commands_write_nothing(refused):
    _, before, after = refused
    assert after == before  # no --links, --out or --png created, none changed


# ---------------------------------------------------------------------------
# a real terminal
# ---------------------------------------------------------------------------


def test_in_a_real_terminal_with_tmux(work, tmp_path):
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    d = work["dir"]
    links, png = d / "tmux-links.csv", d / "tmux-pair.png"
    socket = f"smiclust-ask-test-{os.getpid()}"
    tmux = ["tmux", "-L", socket]
    command = " ".join([
        sys.executable, "-m", "smiclust", "ask", "digits.csv", "-k", "3",
        "--id-column", "id", "--image-shape", "16", "16", "--png", png.name,
        "--budget", "2", "--links", links.name, *FIXED, "--quiet",
        "; echo EXIT $?; sleep 120"])
    subprocess.run([*tmux, "new-session", "-d", "-x", "200", "-y", "50", "-s",
                    "ask", "-c", str(d), command], check=True, env=_env())
    try:
        def pane():
            return subprocess.run([*tmux, "capture-pane", "-p", "-t", "ask"],
                                  capture_output=True, text=True).stdout

        def wait(predicate, what, timeout=90):
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                text = pane()
                if predicate(text):
                    return text
                time.sleep(0.1)
            raise AssertionError(f"{what} did not appear:\n{pane()}")

        screen = wait(lambda t: ask.PROMPT.strip() in t, "the prompt")
        number, budget, a, b = QUESTION.findall(screen)[-1]
        assert (number, budget) == ("1", "2")
        lines = screen.splitlines()
        title = next(k for k, line in enumerate(lines)
                     if line.split() == [a, b])  # the two ids side by side
        image = lines[title + 1: title + 9]  # 16 pixel rows, 2 per line
        assert all(line.count("▀") == 32 for line in image), image
        assert png.read_bytes()[:8] == PNG
        subprocess.run([*tmux, "send-keys", "-t", "ask", "y", "Enter"], check=True)
        deadline = time.monotonic() + 30
        while not (links.exists() and len(answers_in(links)) == 2):
            assert time.monotonic() < deadline, pane()
            time.sleep(0.1)
        assert answers_in(links)[1] == [a, b, "must"]
        wait(lambda t: "question 2 of 2" in t, "question 2")
        subprocess.run([*tmux, "send-keys", "-t", "ask", "q", "Enter"], check=True)
        screen = wait(lambda t: "EXIT " in t, "the end")
        assert "EXIT 0" in screen and "1 answer in tmux-links.csv" in screen
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
        with contextlib.suppress(OSError):  # the socket file stays behind
            os.unlink(os.path.join(os.environ.get("TMUX_TMPDIR", "/tmp"),
                                   f"tmux-{os.getuid()}", socket))


# ---------------------------------------------------------------------------
# units, in process
# ---------------------------------------------------------------------------


def _args(tmp_path, data, **options):
    args = argparse.ArgumentParser()
    sub = args.add_subparsers()
    ask.add_parser(sub)
    argv = ["ask", str(data), "-k", "2", "--budget", "3", "--links",
            str(tmp_path / "links.csv"), *FIXED]
    for name, value in options.items():
        argv += [f"--{name.replace('_', '-')}", *map(str, np.atleast_1d(value))]
    return args.parse_args(argv)


ROWS = re.compile(r"question \d+ of \d+: row (\d+) and row (\d+)")


class Answering(io.StringIO):
    """Standard input of an in-process run: each line read answers the last
    question on ``stdout`` from the labels ``y`` (``s`` when ``skip(i, j)``),
    and ``q`` from question ``quit_at`` on."""

    def __init__(self, stdout, y, *, skip=lambda i, j: False, quit_at=None):
        super().__init__()
        self.stdout, self.y, self.skip, self.quit_at = stdout, y, skip, quit_at

    def readline(self, size=-1):
        asked = ROWS.findall(self.stdout.getvalue())
        if not asked:
            return ""
        i, j = map(int, asked[-1])
        if len(asked) == self.quit_at:
            return "q\n"
        return "s\n" if self.skip(i, j) else "yn"[int(self.y[i] != self.y[j])] + "\n"


def _blobs(tmp_path, n=45, c=3):
    from sklearn.datasets import make_blobs

    X, y = make_blobs(n_samples=n, centers=c, cluster_std=2.5, random_state=0)
    data = tmp_path / "data.csv"
    np.savetxt(data, X, delimiter=",")
    return data, np.loadtxt(data, delimiter=","), y


def _skip(i, j):
    return (i * j) % 7 == 3


@pytest.mark.parametrize("case", ["full", "resumed", "quit"])
def test_asks_the_questions_of_active_smiclustering(tmp_path, case):
    from smiclust import ActiveSMIClustering, StopAsking
    from smiclust.io import links_of, write_answers

    data, X, y = _blobs(tmp_path)
    budget, batch, quit_at = 14, 4, 9
    reference = []

    def oracle(i, j):
        reference.append((i, j))
        if case == "quit" and len(reference) == quit_at:
            raise StopAsking
        return None if _skip(i, j) else bool(y[i] == y[j])

    model = ActiveSMIClustering(3, budget=budget, batch_size=batch, random_state=0)
    given = {}
    if case == "resumed":  # the first 5 answers of the full run, in the file
        model.fit(X, oracle)
        first = reference[:5]
        kinds = {**{tuple(p): "must" for p in model.must_link_.tolist()},
                 **{tuple(p): "cannot" for p in model.cannot_link_.tolist()},
                 **{tuple(p): "skip" for p in model.unknown_pairs_.tolist()}}
        answers = [(i, j, kinds[i, j]) for i, j in first]
        write_answers(str(tmp_path / "links.csv"), answers)
        must, cannot = links_of(answers)
        given = dict(must_link=must, cannot_link=cannot, unknown_pairs=[
            (i, j) for i, j, a in answers if a == "skip"])
        reference = list(first)
    model.fit(X, oracle, **given)
    args = _args(tmp_path, data, n_clusters=3, budget=budget, batch_size=batch,
                 n_neighbors="auto", gamma="auto", eta="auto", random_state=0,
                 out=tmp_path / "out.csv")
    stdout, stderr = io.StringIO(), io.StringIO()
    stdin = Answering(stdout, y, skip=_skip,
                      quit_at=quit_at if case == "quit" else None)
    with contextlib.redirect_stderr(stderr):
        assert ask.run(args, stdin=stdin, stdout=stdout) == 0
    asked = [tuple(map(int, p)) for p in ROWS.findall(stdout.getvalue())]
    n_given = len(given and given["must_link"]) + len(
        given and given["cannot_link"]) + len(given and given["unknown_pairs"])
    assert asked == reference[n_given:]
    saved = answers_in(tmp_path / "links.csv")[1:]
    assert [(int(i), int(j)) for i, j, _ in saved] == reference[: model.n_queries_]
    assigned = [int(row[-1]) for row in answers_in(tmp_path / "out.csv")[1:]]
    assert assigned == model.labels_.tolist()
    summary = summary_of(stderr.getvalue())
    assert summary["n_answers"] == model.n_queries_
    assert summary["n_neighbors"] == model.estimator_.n_neighbors_
    assert summary["stopped"] == ("quit" if case == "quit" else "budget")
    progress = [line for line in stderr.getvalue().splitlines()
                if "choosing the next" in line]
    n_batches = -(-(min(model.n_queries_ + 1, budget) - n_given) // batch)
    assert len(progress) == n_batches
    # q at a batch's first question (9 = 2 * 4 + 1): the fit of the last
    # batch is the final model, nothing is fitted again
    refits = case != "quit"
    assert stderr.getvalue().count("fitting with") == int(refits)
    assert ("the model of the last batch, fitted with every answer" in
            stderr.getvalue()) is not refits
    if case == "quit":
        assert model.n_queries_ == quit_at - 1
        assert f"{budget - quit_at + 1} questions left of the budget" in (
            stdout.getvalue())


@pytest.mark.parametrize("replies", ["q\n", "y\nq\n", ""])
def test_the_final_models_warnings_are_reported_however_the_session_ends(
        tmp_path, replies):
    # answers in the file that contradict each other (0 ~ 1 ~ 2, 0 != 2):
    # the final model's warning is reported, also where the session ends at
    # a batch's first question (q, or the end of input), with no new fit
    data, X, y = _blobs(tmp_path)
    (tmp_path / "links.csv").write_text("i,j,answer\n0,1,must\n1,2,must\n0,2,cannot\n")
    stdout, stderr = io.StringIO(), io.StringIO()
    args = _args(tmp_path, data, budget=10, batch_size=1, n_neighbors=3)
    with contextlib.redirect_stderr(stderr):
        assert ask.run(args, stdin=io.StringIO(replies), stdout=stdout) == 0
    contradiction = "no labelling can satisfy every link"
    summary = summary_of(stderr.getvalue())
    assert any(contradiction in w for w in summary["warnings"])
    assert any(line.startswith("smiclust ask: warning:") and contradiction in line
               for line in stderr.getvalue().splitlines())


def test_an_answer_interrupted_while_it_is_saved_is_not_counted(tmp_path,
                                                                monkeypatch):
    # Ctrl-C inside the write of the second answer: the file keeps the first
    # (written atomically), and the message counts what the file holds
    from smiclust.io import _atomic

    data, X, y = _blobs(tmp_path)
    real_fsync, calls = os.fsync, []

    def fsync(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_fsync(fd)

    monkeypatch.setattr(_atomic.os, "fsync", fsync)
    stdout, stderr = io.StringIO(), io.StringIO()
    args = _args(tmp_path, data, budget=10, n_neighbors=3)
    with contextlib.redirect_stderr(stderr):
        code = ask.run(args, stdin=Answering(stdout, y), stdout=stdout)
    assert code == 130
    assert len(answers_in(tmp_path / "links.csv")) == 1 + 1
    assert "interrupted; 1 answer saved in" in stderr.getvalue()


def test_a_links_file_changed_during_the_session_is_left_as_it_is(tmp_path):
    from smiclust.commands._common import UsageError

    # a line added by hand (or by a second session) after the first answer:
    # the next answer is refused rather than rewrite the file without it
    data, X, y = _blobs(tmp_path)
    links = tmp_path / "links.csv"
    stdout, stderr = io.StringIO(), io.StringIO()

    class EditingAfterOne(Answering):
        def readline(self, size=-1):
            if len(ROWS.findall(self.stdout.getvalue())) == 2:
                with open(links, "a") as f:
                    f.write("5,6,must\n")
            return super().readline(size)

    args = _args(tmp_path, data, budget=10, n_neighbors=3)
    with contextlib.redirect_stderr(stderr):
        with pytest.raises(UsageError, match="changed since this session read or "
                           "wrote it .*the answer to row .* is not saved"):
            ask.run(args, stdin=EditingAfterOne(stdout, y), stdout=stdout)
    rows = answers_in(links)
    assert len(rows) == 1 + 2 and rows[-1] == ["5", "6", "must"]


def test_no_pair_left_ends_the_questions(tmp_path):
    data, X, y = _blobs(tmp_path, n=8, c=2)
    stdout, stderr = io.StringIO(), io.StringIO()
    args = _args(tmp_path, data, budget=40, n_neighbors=3)
    with contextlib.redirect_stderr(stderr):
        code = ask.run(args, stdin=Answering(stdout, y), stdout=stdout)
    assert code == 0 and "No pair is left to ask" in stdout.getvalue()
    assert "run the same command to go on" not in stdout.getvalue()
    n = len(ROWS.findall(stdout.getvalue()))
    assert 0 < n < 40 and len(answers_in(tmp_path / "links.csv")) == 1 + n
    summary = summary_of(stderr.getvalue())
    assert summary["stopped"] == "no pairs left" and summary["n_violations"] == 0


def test_feature_view_wraps_then_truncates():
    a, b = np.arange(30.0), -np.arange(30.0)
    tall = ask.feature_view(a, b, None, ("row 1", "row 2"), width=200, height=40)
    assert len(tall) == 1 + 30 and tall[0].split() == ["feature", "row", "1",
                                                       "row", "2"]
    assert tall[30].split() == ["x29", "29", "-29"]
    wide = ask.feature_view(a, b, None, ("row 1", "row 2"), width=200, height=12)
    assert len(wide) == 1 + 30 // 3  # three blocks of ten side by side
    assert wide[0].split().count("feature") == 3
    narrow = ask.feature_view(a, b, None, ("row 1", "row 2"), width=30, height=11)
    assert len(narrow) == 1 + 10 + 1 and "20 more features not shown" in narrow[-1]


@pytest.mark.parametrize("colour", [False, True])
def test_image_view_draws_both_rows(colour):
    rng = np.random.RandomState(0)
    a, b = rng.uniform(size=48), rng.uniform(size=48)
    lines = ask.image_view(a, b, (6, 8), ("left", "right"), low=0.0, high=1.0,
                           width=80, height=40, colour=colour)
    assert lines[0].split() == ["left", "right"] and len(lines) == 1 + 3
    for line in lines[1:]:
        if colour:
            assert line.count("▀") == 16 and line.endswith("\x1b[0m")
        else:
            assert len(line) == 8 + 4 + 8 and set(line) <= set(ask.SHADES)
    small = ask.image_view(a, b, (6, 8), ("l", "r"), low=0.0, high=1.0, width=12,
                           height=40, colour=False)
    assert len(small[1]) == 4 + 4 + 4  # halved to fit the width


def test_budget_zero_fits_on_the_file_and_asks_nothing(tmp_path):
    data = tmp_path / "data.csv"
    np.savetxt(data, np.arange(20.0).reshape(10, 2), delimiter=",")
    (tmp_path / "links.csv").write_text("i,j,answer\n0,1,must\n0,9,cannot\n")
    before = (tmp_path / "links.csv").read_bytes()
    stdout, stderr = io.StringIO(), io.StringIO()
    args = _args(tmp_path, data, budget=0, out=tmp_path / "out.csv")
    with contextlib.redirect_stderr(stderr):
        code = ask.run(args, stdin=io.StringIO(""), stdout=stdout)
    assert code == 0 and "question" not in stdout.getvalue()
    assert "2 answers already in" in stdout.getvalue()
    summary = summary_of(stderr.getvalue())
    assert (summary["n_must_link"], summary["n_cannot_link"]) == (1, 1)
    assert summary["n_asked_now"] == 0 and summary["n_violations"] == 0
    assert (tmp_path / "links.csv").read_bytes() == before
    assert len(answers_in(tmp_path / "out.csv")) == 1 + 10


def test_keep_cannot_links_is_passed_to_the_fit(tmp_path):
    # three blobs, a quarter of whose samples belong to another class, many
    # correct answers given before: with --keep-cannot-links the final fit
    # keeps every cannot-link (the option of SMIClustering, through
    # ActiveSMIClustering), without it the fit's confident scores break some
    from conftest import blobs_with_strays

    from smiclust import sample_links

    X, y = blobs_with_strays(0)
    data = tmp_path / "blobs.csv"
    np.savetxt(data, X, delimiter=",")
    must, cannot = sample_links(y, 300, random_state=0)
    rows = [f"{i},{j},must" for i, j in must] + [f"{i},{j},cannot" for i, j in cannot]
    summaries = {}
    for flag in ([], ["--keep-cannot-links"]):
        links = tmp_path / f"links{len(flag)}.csv"
        links.write_text("i,j,answer\n" + "\n".join(rows) + "\n")
        parser = argparse.ArgumentParser()
        ask.add_parser(parser.add_subparsers())
        args = parser.parse_args(["ask", str(data), "-k", "3", "--budget", "0",
                                  "--links", str(links), "--random-state", "0",
                                  *flag])
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            assert ask.run(args, stdin=io.StringIO(""), stdout=io.StringIO()) == 0
        summaries[bool(flag)] = summary_of(stderr.getvalue())
    assert summaries[True]["keep_cannot_links"] is True
    assert summaries[False]["keep_cannot_links"] is False
    assert summaries[True]["n_violations"] == 0 < summaries[False]["n_violations"]


class ClosedAfter(io.StringIO):
    """Standard output whose reader goes away after ``n`` writes."""

    def __init__(self, n):
        super().__init__()
        self.n = n

    def write(self, text):
        self.n -= 1
        if self.n < 0:
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


def test_closed_stdout_stops_the_session_keeping_the_answers(tmp_path):
    # a pager quit or '| head': nobody sees the questions, so the session
    # stops with status 1 and says so, the answers given kept
    data, X, y = _blobs(tmp_path)
    stdout = ClosedAfter(40)
    args = _args(tmp_path, data, budget=10, n_neighbors=3,
                 out=tmp_path / "out.csv")
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        code = ask.run(args, stdin=Answering(stdout, y), stdout=stdout)
    assert code == 1
    saved = answers_in(tmp_path / "links.csv")[1:]
    assert 0 < len(saved) < 10
    assert (f"stdout was closed, so the questions cannot be shown; stopped "
            f"without the final fit; {len(saved)} answers saved in") in (
        stderr.getvalue())
    assert not (tmp_path / "out.csv").exists()


def test_budget_zero_without_a_file_says_none_was_written(tmp_path):
    data, X, y = _blobs(tmp_path)
    stdout = io.StringIO()
    with contextlib.redirect_stderr(io.StringIO()):
        assert ask.run(_args(tmp_path, data, budget=0, n_neighbors=3),
                       stdin=io.StringIO(), stdout=stdout) == 0
    assert "0 answers (" in stdout.getvalue() and "links.csv not written)" in (
        stdout.getvalue())
    assert not (tmp_path / "links.csv").exists()


def test_a_closed_standard_input_is_the_end_of_input(work):
    # `smiclust ask ... <&-`: Python's sys.stdin is None
    d = work["dir"]
    links = d / "closed-stdin-links.csv"
    proc = subprocess.run(
        [sys.executable, "-m", "smiclust", "ask", "parkinson.csv", "-k", "2",
         "--id-column", "id", "--budget", "2", "--links", links.name, *FIXED],
        cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=_env(), preexec_fn=lambda: os.close(0), timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert summary_of(proc.stderr)["stopped"] == "end of input"
    assert "Traceback" not in proc.stderr and "unexpected" not in proc.stderr
