"""The documentation runs as written: examples, README quick start, doc commands.

What is run, each in a subprocess with ``MPLBACKEND=Agg`` and the virtualenv's
``bin`` first on ``PATH`` (so ``smiclust`` and ``python`` are the installed ones):

- every ``examples/plot_*.py``, with ``--out`` pointing to a temporary
  directory (the committed figures in ``docs/images`` are not overwritten, but
  each must exist and have the size of the one the script draws now);
- the fenced ``python`` blocks of README.md and docs/user-guide.md, verbatim and
  in order, as one program (``python -c``) in a temporary directory;
- every command in a fenced ``bash`` block of README.md or docs/*.md that starts
  with ``smiclust `` or ``python -m smiclust``, verbatim, in the same temporary
  directory after that page's ``python`` blocks (which create the files the
  commands read, e.g. the CLI walkthrough's ``moons.csv``). A command must exit
  with status 0, unless its last line ends with a comment ``# exit status N``;
  the files it names after ``--out``/``-o``, ``--save`` and ``--plot`` must exist
  afterwards.

These jobs are slow (tens of seconds each, mostly auto-tuning) and independent,
so they are all started at once, on first use, and each test waits for its own.

Also checked: docs/api.md is what ``python docs/build_api.py`` generates now,
and every image a page shows exists.
"""

import functools
import os
import re
import shlex
import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
#: Pages whose python blocks are run even when they have no command to set up.
PYTHON_PAGES = [ROOT / "README.md", DOCS / "user-guide.md"]
TIMEOUT = 600  # seconds per job; the whole module takes about two minutes

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
_EXIT = re.compile(r"#\s*exit status (\d+)\s*$")
_OUTPUTS = ("--out", "-o", "--save", "--plot")


def fenced(page, language):
    """The fenced blocks of ``page`` in ``language``, in order."""
    text = page.read_text(encoding="utf-8")
    return [body for lang, body in _FENCE.findall(text) if lang == language]


def commands(page):
    """The smiclust commands of the bash blocks of ``page``, continuations joined."""
    found = []
    for block in fenced(page, "bash"):
        logical, current = [], ""
        for line in block.splitlines():
            if line.rstrip().endswith("\\"):
                current += line.rstrip()[:-1] + " "
                continue
            logical.append(current + line)
            current = ""
        for line in logical:
            line = line.strip()
            if line.startswith(("smiclust ", "python -m smiclust")) or line in (
                "smiclust",
                "python -m smiclust",
            ):
                found.append(line)
    return found


def expected_status(command):
    match = _EXIT.search(command)
    return int(match.group(1)) if match else 0


def named_outputs(command):
    words = shlex.split(command.split("#")[0])
    return [b for a, b in zip(words, words[1:]) if a in _OUTPUTS and b != "-"]


def _env():
    env = dict(os.environ)
    env["MPLBACKEND"] = "Agg"
    # the jobs run side by side: one BLAS thread each, no oversubscription
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, "1")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env["PATH"]
    return env


def _run(args, cwd, **kwargs):
    return subprocess.run(
        args,
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        **kwargs,
    )


def _run_example(script, out):
    return _run([sys.executable, str(script), "--out", str(out)], cwd=ROOT)


def _run_page(page, workdir):
    """Run the page's python blocks, then its commands; one record per step."""
    workdir.mkdir(parents=True, exist_ok=True)
    steps = []
    blocks = fenced(page, "python")
    cmds = commands(page)
    if blocks and (cmds or page in PYTHON_PAGES):
        code = "\n".join(blocks)
        steps.append(("python blocks", 0, _run([sys.executable, "-c", code], workdir)))
    for command in cmds:
        steps.append(
            (command, expected_status(command), _run(command, workdir, shell=True))
        )
    return steps


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    """Start every slow job at once; map a job name to its future."""
    pool = ThreadPoolExecutor(max_workers=len(EXAMPLES) + len(PAGES))
    futures = {}
    for script in EXAMPLES:
        out = tmp_path_factory.mktemp(script.stem)
        futures[script.name] = (pool.submit(_run_example, script, out), out)
    for page in PAGES:
        workdir = tmp_path_factory.mktemp(page.stem)
        futures[page.name] = (pool.submit(_run_page, page, workdir), workdir)
    yield futures
    pool.shutdown(wait=True)


def _png_size(path):
    data = Path(path).read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def _explain(proc):
    return (
        f"exit status {proc.returncode}\n--- stdout ---\n{proc.stdout[-3000:]}"
        f"\n--- stderr ---\n{proc.stderr[-3000:]}"
    )


def test_there_is_something_to_run():
    assert len(EXAMPLES) >= 4
    assert fenced(ROOT / "README.md", "python"), "README has no python quick start"
    assert any(commands(page) for page in PAGES)


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_and_draws_its_committed_figure(jobs, script):
    future, out = jobs[script.name]
    proc = future.result()
    assert proc.returncode == 0, _explain(proc)
    assert "ARI" in proc.stdout
    drawn = out / f"{script.stem}.png"
    committed = DOCS / "images" / f"{script.stem}.png"
    assert drawn.stat().st_size > 20_000
    assert committed.exists(), f"{committed} is not committed"
    assert _png_size(drawn) == _png_size(committed), (
        f"{committed.name} differs in size from what the script draws now; "
        f"rerun python examples/{script.name}"
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page_code_runs_as_written(jobs, page):
    future, workdir = jobs[page.name]
    for what, status, proc in future.result():
        assert proc.returncode == status, f"{page.name}: {what}\n{_explain(proc)}"
        if what != "python blocks" and status == 0:
            for name in named_outputs(what):
                assert (workdir / name).exists(), f"{what}: {name} not written"


def test_readme_quick_start_prints_a_good_ari(jobs):
    future, _ = jobs["README.md"]
    (what, _, proc), *_ = future.result()
    assert what == "python blocks"
    ari = float(proc.stdout.split()[0])
    assert ari > 0.7, proc.stdout
    # then the partial labels: the clusters' classes right on most unlabelled
    accuracy = float(proc.stdout.split()[-1])
    assert 0.6 < accuracy <= 1.0, proc.stdout


def test_walkthrough_writes_clusters_and_probabilities(jobs):
    future, workdir = jobs["user-guide.md"]
    future.result()
    clusters = (workdir / "clusters.csv").read_text().splitlines()
    assert clusters[0] == "id,cluster" and len(clusters) == 201
    new = (workdir / "new-clusters.csv").read_text().splitlines()
    assert new[0] == "id,cluster,proba_0,proba_1" and len(new) == 101


def test_api_reference_is_up_to_date(tmp_path):
    out = tmp_path / "api.md"
    proc = _run(
        [sys.executable, str(DOCS / "build_api.py"), "--out", str(out)], cwd=ROOT
    )
    assert proc.returncode == 0, _explain(proc)
    assert out.read_text() == (DOCS / "api.md").read_text(), (
        "docs/api.md is out of date: run python docs/build_api.py"
    )


LINKED_PAGES = [*PAGES, *sorted((DOCS / "reproduction").glob("*.md"))]


def heading_anchor(heading):
    """The anchor GitHub gives a Markdown heading: lower case, punctuation
    other than hyphens and underscores dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@functools.cache
def page_anchors(path):
    """Anchors of the headings of a Markdown page (outside code fences); a
    repeated heading's copies get ``-1``, ``-2``, ... as on GitHub. Read once
    per page: many links point into the same long page."""
    anchors, count = set(), {}
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    for heading in re.findall(r"^#{1,6} (.*)$", text, re.M):
        anchor = heading_anchor(heading)
        copies = count.get(anchor, 0)
        count[anchor] = copies + 1
        anchors.add(anchor if copies == 0 else f"{anchor}-{copies}")
    return frozenset(anchors)


def test_heading_anchor_follows_github():
    assert heading_anchor("The default against the peers on F30 (2026-11-27 "
                          "20:5x-21:5x UTC; a measurement, nothing to adopt)") == (
        "the-default-against-the-peers-on-f30-2026-11-27-205x-215x-utc-"
        "a-measurement-nothing-to-adopt")
    assert heading_anchor("`fit` and `predict` at one thread") == (
        "fit-and-predict-at-one-thread")


@pytest.mark.parametrize("page", LINKED_PAGES, ids=lambda p: p.name)
def test_links_and_images_resolve(page):
    """Every relative link or image of a page points to a committed file,
    and every anchor of a link to a Markdown page to one of its headings."""
    text = page.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        file, _, anchor = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        assert path.exists(), f"{page.name}: {target} does not exist"
        if anchor and path.suffix == ".md":
            assert anchor in page_anchors(path), (
                f"{page.name}: {target}: no heading of {path.name} has that anchor")
