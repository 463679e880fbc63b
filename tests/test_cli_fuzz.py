"""Fuzz ``smiclust fit`` with malformed files of every input format.

Each input format (CSV, TSV, ``.npy``, sparse ``.npz``, Parquet, link file,
label file) is broken in the usual ways: truncated, random bytes, wrong widths,
NaN, huge numbers, empty, header only. Every case must end with status 0 or 2
(never an unexpected error, status 1), never print a traceback, and leave every
input file byte for byte as it was. The cases run through one driver process
that calls ``smiclust.cli.main`` (``test_cli.run_driver``; about 20 s in all),
and a sample of them as real ``python -m smiclust`` processes."""

import hashlib
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import npy_bytes, npz_bytes, sparse_npz_bytes
from test_cli import run_driver

N = 30
FIT = ["-k", "2", "--n-neighbors", "5", "--gamma", "1", "--eta", "1", "--quiet"]

def _text_table(X, ids, delimiter):
    lines = [delimiter.join(["id", "x1", "x2"])]
    lines += [delimiter.join([i, repr(float(a)), repr(float(b))])
              for i, (a, b) in zip(ids, X)]
    return "\n".join(lines) + "\n"


def _text_mutations(text, rng):
    """name -> bytes: the usual ways a delimited text file is broken."""
    raw = text.encode()
    lines = text.splitlines(keepends=True)
    sep = "\t" if "\t" in lines[0] else ","
    cells = lines[2].rstrip("\n").split(sep)
    # the first numeric cell of line 3, else its first cell (an id, a label)
    first_number = next((k for k, c in enumerate(cells)
                         if c.replace(".", "").replace("-", "").isdigit()), 0)

    def replace_cell(value):
        changed = list(cells)
        changed[first_number] = value
        return "".join(lines[:2] + [sep.join(changed) + "\n"] + lines[3:]).encode()

    return {
        "truncated": raw[: len(raw) // 2],
        "random bytes": rng.bytes(len(raw)),
        "extra field": "".join(lines[:2] + [lines[2].rstrip("\n") + sep + "7\n"]
                               + lines[3:]).encode(),
        "missing field": "".join(lines[:2] + [sep.join(cells[:-1]) + "\n"]
                                 + lines[3:]).encode(),
        "NaN": replace_cell("nan"),
        "huge": replace_cell("1e308"),
        "overflow": replace_cell("1e309"),
        "empty": b"",
        "header only": lines[0].encode(),
        "NUL bytes": raw[:20] + b"\x00" * 8 + raw[20:],
    }


def _binary_mutations(raw, rng):
    return {
        "truncated": raw[: len(raw) // 2],
        "random bytes": rng.bytes(len(raw)),
        "empty": b"",
        "flipped": bytes(b ^ 0xFF if k % 97 == 50 else b for k, b in enumerate(raw)),
    }


def _parquet_bytes(columns):
    import io

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf)
    return buf.getvalue()


def _cases(d):
    """(name, argv, files) for every malformed input; writes the files."""
    rng = np.random.RandomState(0)
    X = rng.rand(N, 2)
    ids = [f"r{i:02d}" for i in range(N)]
    good = {
        "data.csv": _text_table(X, ids, ","),
        "data.tsv": _text_table(X, ids, "\t"),
        "links.csv": "a,b\n" + "".join(f"{ids[i]},{ids[i + 1]}\n"
                                       for i in range(0, 10, 2)),
        "labels.csv": "label\n" + "".join(f"{i % 2 if i % 3 == 0 else ''}\n"
                                          for i in range(N)),
    }
    for name, text in good.items():
        (d / name).write_text(text)
    np.save(d / "data.npy", X)
    cases = []

    def add(name, content, argv):
        path = d / name
        path.write_bytes(content)
        cases.append((name, [a if a != "@" else name for a in argv]))

    for fmt in ("csv", "tsv"):
        for kind, content in _text_mutations(good[f"data.{fmt}"], rng).items():
            add(f"{kind.replace(' ', '_')}.{fmt}", content,
                ["fit", "@", "--id-column", "id", *FIT])
    npy_variants = {
        **_binary_mutations(npy_bytes(X), rng),
        "NaN": npy_bytes(np.where(np.arange(N * 2).reshape(N, 2) == 5, np.nan, X)),
        "huge": npy_bytes(X * 1e308),
        "1-d": npy_bytes(X[:, 0]),
        "strings": npy_bytes(X.astype(str)),
        "header only": npy_bytes(np.empty((0, 2))),
    }
    for kind, content in npy_variants.items():
        add(f"{kind.replace(' ', '_')}.npy", content, ["fit", "@", *FIT])
    sparse = sp.csr_matrix(np.where(X > 0.5, X, 0.0))
    bad_indptr = sparse.copy()
    bad_indptr.indptr = bad_indptr.indptr[::-1].copy()
    npz_variants = {
        **_binary_mutations(sparse_npz_bytes(sparse), rng),
        "NaN": sparse_npz_bytes(sparse.multiply(np.nan).tocsr()),
        "huge": sparse_npz_bytes(sparse * 1e308),
        "dense arrays": npz_bytes(x=X),
        "bad indptr": sparse_npz_bytes(bad_indptr, check=False),
        "strings": npz_bytes(format=np.array("csr"), shape=np.array([N, 2]),
                              data=np.array(["a"] * 3), indices=np.arange(3),
                              indptr=np.r_[0, np.full(N, 3)]),
    }
    for kind, content in npz_variants.items():
        add(f"{kind.replace(' ', '_')}.npz", content, ["fit", "@", *FIT])
    try:
        parquet = _parquet_bytes({"id": ids, "x1": X[:, 0], "x2": X[:, 1]})
    except pytest.skip.Exception:
        parquet = None
    if parquet is not None:
        pq_variants = {
            **_binary_mutations(parquet, rng),
            "NaN": _parquet_bytes({"id": ids, "x1": np.where(
                np.arange(N) == 3, np.nan, X[:, 0]), "x2": X[:, 1]}),
            "huge": _parquet_bytes({"id": ids, "x1": X[:, 0] * 1e308,
                                    "x2": X[:, 1]}),
            "text column": _parquet_bytes({"id": ids, "x1": ids, "x2": X[:, 1]}),
            "header only": _parquet_bytes({"id": ids[:0], "x1": X[:0, 0],
                                           "x2": X[:0, 1]}),
        }
        for kind, content in pq_variants.items():
            add(f"{kind.replace(' ', '_')}.parquet", content,
                ["fit", "@", "--id-column", "id", *FIT])
    for option, base in (("--must-link", "links.csv"), ("--labels", "labels.csv")):
        for kind, content in _text_mutations(good[base], rng).items():
            add(f"{base[:-4]}_{kind.replace(' ', '_')}.csv", content,
                ["fit", "data.csv", "--id-column", "id", option, "@", *FIT])
    return cases


def _digests(d):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(d.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz")
    cases = _cases(d)
    before = _digests(d)
    results = run_driver([argv + ["--out", "out.csv"] for _, argv in cases], d)
    after = _digests(d)
    return {"dir": d, "cases": cases, "results": results, "before": before,
            "after": after}


def test_fuzz_has_every_format_and_mutation(fuzz):
    names = [name for name, _ in fuzz["cases"]]
    for suffix in (".csv", ".tsv", ".npy", ".npz"):
        assert sum(n.endswith(suffix) for n in names) >= 7
    assert sum(n.startswith("links_") for n in names) >= 7
    assert sum(n.startswith("labels_") for n in names) >= 7


def test_fuzz_no_traceback_no_unexpected_error(fuzz):
    bad = []
    for (name, argv), result in zip(fuzz["cases"], fuzz["results"]):
        stderr = result["stderr"]
        lines = stderr.strip().splitlines()
        ok = (result["traceback"] is None and "Traceback" not in stderr
              and result["rc"] in (0, 2)
              and (result["rc"] == 0 or (lines and lines[-1].startswith(
                  "smiclust fit: error: "))))
        if not ok:
            bad.append((name, result["rc"], result["traceback"] or stderr[-300:]))
    assert bad == []


def test_fuzz_changes_no_input_file(fuzz):
    before, after = fuzz["before"], fuzz["after"]
    assert {k: after.get(k) for k in before} == before


def test_fuzz_sample_in_real_processes(fuzz):
    """A few cases as real processes: exit status, stderr, at process exit."""
    d = fuzz["dir"]
    sample = [argv for name, argv in fuzz["cases"]
              if name in ("truncated.csv", "random_bytes.npy", "truncated.parquet",
                          "links_random_bytes.csv", "labels_header_only.csv")]
    before = _digests(d)
    assert len(sample) >= 4
    for argv in sample:
        proc = subprocess.run([sys.executable, "-m", "smiclust", *argv],
                              capture_output=True, text=True, cwd=d, timeout=600)
        assert proc.returncode in (0, 2), (argv, proc.stderr)
        assert "Traceback" not in proc.stderr
        if proc.returncode == 2:
            lines = proc.stderr.strip().splitlines()
            assert lines[-1].startswith("smiclust fit: error: "), proc.stderr
    assert _digests(d) == before
