"""Link weights in link files and ``--suspect-links``, at the command line.

Weighted link files (a third column) reach ``SMIClustering.fit`` as
``must_link_weight`` / ``cannot_link_weight``: the command line gives the same
labels as the Python API on the same arrays. ``--suspect-links FILE`` writes
the estimator's ``suspect_links_``, most contradicted first. End-to-end runs
are real ``python -m smiclust`` processes; the malformed weight cells run
through one driver process (``test_cli.run_driver``).
"""

import csv
import io
import json

import numpy as np
import pytest
from sklearn.datasets import make_moons
from test_cli import FIXED, cli, run_driver

from smiclust import SMIClustering, sample_links
from smiclust.commands._fit_inputs import _combine_links

PARAMS = dict(n_neighbors=5, gamma=1.0, eta=1.0, random_state=0)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """Two moons with ids, weighted must-links (with a header), plain
    cannot-links, and the same by row index next to a .npy copy."""
    d = tmp_path_factory.mktemp("weights")
    X, y = make_moons(120, noise=0.08, random_state=1)
    ids = [f"s{k:03d}" for k in range(len(X))]
    with open(d / "moons.csv", "w") as f:
        f.write("sample,x1,x2\n")
        for i, (a, b) in zip(ids, X):
            f.write(f"{i},{float(a)!r},{float(b)!r}\n")
    np.save(d / "moons.npy", X)
    must, cannot = sample_links(y, 30, random_state=1)
    must, cannot = np.sort(must, axis=1), np.sort(cannot, axis=1)
    # three must-links and two cannot-links flipped, with low confidence
    wrong_must, wrong_cannot = cannot[:3], must[:2]
    must = np.vstack([must[2:], wrong_must])
    cannot = np.vstack([cannot[3:], wrong_cannot])
    rng = np.random.RandomState(1)
    w_must = np.round(rng.uniform(0.5, 2.0, len(must)), 3)
    w_must[-3:] = 0.05
    with open(d / "must_w.csv", "w") as f:  # a header of three names
        f.write("id1,id2,weight\n" + "".join(
            f"{ids[i]},{ids[j]},{w}\n" for (i, j), w in zip(must, w_must)))
    with open(d / "cannot.csv", "w") as f:
        f.write("".join(f"{ids[i]},{ids[j]}\n" for i, j in cannot))
    with open(d / "must_w_idx.tsv", "w") as f:
        f.write("".join(f"{i}\t{j}\t{w}\n" for (i, j), w in zip(must, w_must)))
    with open(d / "cannot_idx.csv", "w") as f:
        f.write("".join(f"{i},{j}\n" for i, j in cannot))
    model = SMIClustering(2, **PARAMS).fit(
        X, must_link=must, cannot_link=cannot, must_link_weight=w_must,
        cannot_link_weight=np.ones(len(cannot)))
    return {"dir": d, "X": X, "ids": ids, "must": must, "cannot": cannot,
            "w_must": w_must, "model": model}


def _csv(text):
    return list(csv.reader(io.StringIO(text)))


def _summary(proc):
    return json.loads(proc.stderr.strip().splitlines()[-1])


def test_weighted_files_by_id_match_the_python_api(work):
    """Weights with a header, by id; plain cannot-links weigh 1; the suspect
    links as ids, CSV, the Python API's ranking."""
    d, model, ids = work["dir"], work["model"], work["ids"]
    proc = cli("fit", "moons.csv", "-k", "2", "--id-column", "sample",
               "--must-link", "must_w.csv", "--cannot-link", "cannot.csv", *FIXED,
               "--out", "out.csv", "--suspect-links", "suspects.csv", cwd=d)
    assert proc.returncode == 0, proc.stderr
    assert "smiclust fit: using link weights (weights 0.05 to " in proc.stderr
    summary = _summary(proc)
    assert summary["link_weights"] is True and summary["links"] == "paper"
    assert summary["n_must_link"] == len(work["must"])
    assert summary["suspect_links"] == "suspects.csv"
    rows = _csv((d / "out.csv").read_text())
    assert [r[0] for r in rows[1:]] == ids
    assert [int(r[1]) for r in rows[1:]] == model.labels_.tolist()
    # not by chance: without the weights, the same links give other labels
    unweighted = SMIClustering(2, links="paper", **PARAMS).fit(
        work["X"], must_link=work["must"], cannot_link=work["cannot"])
    assert (unweighted.labels_ != model.labels_).sum() > 5

    table = _csv((d / "suspects.csv").read_text())
    assert table[0] == ["sample_i", "sample_j", "kind", "score"]
    top = model.suspect_links_
    assert [r[0] for r in table[1:]] == [ids[i] for i in top["i"]]
    assert [r[1] for r in table[1:]] == [ids[j] for j in top["j"]]
    assert [r[2] for r in table[1:]] == top["kind"].tolist()
    scores = [float(r[3]) for r in table[1:]]
    assert scores == sorted(scores, reverse=True)
    np.testing.assert_allclose(scores, top["score"], atol=1e-5)
    assert len(table) - 1 == len(work["must"]) + len(work["cannot"])


def test_weighted_files_by_index_match_the_python_api_json_suspects(work):
    """The same links by row index (TSV with weights), suspect links as JSON,
    --top 4, everything on stdout with --json."""
    d, model = work["dir"], work["model"]
    proc = cli("fit", "moons.npy", "-k", "2", "--must-link", "must_w_idx.tsv",
               "--cannot-link", "cannot_idx.csv", *FIXED, "--json", "--quiet",
               "--suspect-links", "suspects.json", "--top", "4", cwd=d)
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["summary"]["links"] == "paper"
    assert [a["cluster"] for a in document["assignments"]] == model.labels_.tolist()
    suspects = json.loads((d / "suspects.json").read_text())
    top = model.suspect_links_
    assert suspects == [
        {"i": int(i), "j": int(j), "kind": str(k), "score": float(s)}
        for i, j, k, s in zip(top["i"][:4], top["j"][:4], top["kind"][:4],
                              top["score"][:4])]
    assert [s["score"] for s in suspects] == sorted(
        (s["score"] for s in suspects), reverse=True)


def test_weighted_links_announce_the_paper_grid_and_count_links_in_effect(work):
    """With weights and the automatic search the progress line and the
    summary count the paper's grids of gamma and eta (the links are used as
    given); links of weight 0 are no links in the counts."""
    d = work["dir"]
    must, w_must = work["must"], work["w_must"].copy()
    w_must[:2] = 0.0
    with open(d / "must_w0.tsv", "w") as f:
        f.write("".join(f"{i}\t{j}\t{w}\n" for (i, j), w in zip(must, w_must)))
    proc = cli("fit", "moons.npy", "-k", "2", "--must-link", "must_w0.tsv",
               "--cannot-link", "cannot_idx.csv", "--random-state", "0",
               "--json", cwd=d)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    expected = SMIClustering(2).candidate_parameters(
        120, n_must=len(must) - 2, n_cannot=len(work["cannot"]),
        links_as_given=True)
    assert summary["n_candidates"] == len(expected) == 10 * 4 * 4
    assert (f"tuning over at most {len(expected)} candidate" in proc.stderr)
    model = SMIClustering(2, random_state=0).fit(
        np.load(d / "moons.npy"), must_link=must, cannot_link=work["cannot"],
        must_link_weight=w_must, cannot_link_weight=np.ones(len(work["cannot"])))
    assert summary["n_violations"] == model.n_violations_
    assert summary["n_must_link"] == len(must) - 2


def test_unweighted_files_keep_closed_links(work):
    """Without a weight column nothing changes: links closed, no weights."""
    d = work["dir"]
    proc = cli("fit", "moons.npy", "-k", "2", "--cannot-link", "cannot_idx.csv",
               *FIXED, "--json", "--quiet", cwd=d)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    assert summary["link_weights"] is False and summary["links"] == "closure"
    assert summary["suspect_links"] is None


def test_weights_of_zero_and_one_only_are_links_without_weights(work):
    """A weight column of 0 and 1 changes nothing, as in fit: the links of
    weight 0 are left out, the others closed as links without weights, and
    --labels stay partial labels."""
    d, must = work["dir"], work["must"]
    w_must = np.ones(len(must))
    w_must[:3] = 0.0
    with open(d / "must_01.tsv", "w") as f:
        f.write("".join(f"{i}\t{j}\t{w:g}\n" for (i, j), w in zip(must, w_must)))
    with open(d / "must_kept.csv", "w") as f:
        f.write("".join(f"{i},{j}\n" for i, j in must[3:]))
    labels = np.full(120, -1)
    labels[[5, 60]] = 0, 1
    np.savetxt(d / "labels.csv", labels, fmt="%d")
    out = {}
    for name, links in (("weights", "must_01.tsv"), ("plain", "must_kept.csv")):
        proc = cli("fit", "moons.npy", "-k", "2", "--must-link", links,
                   "--cannot-link", "cannot_idx.csv", "--labels", "labels.csv",
                   "--random-state", "0", "--json", cwd=d)
        assert proc.returncode == 0, proc.stderr
        out[name] = (json.loads(proc.stdout), proc.stderr)
    (weights, stderr), (plain, _) = out["weights"], out["plain"]
    assert "link weights of 0 and 1 only" in stderr
    assert "weighted links are used as given" not in stderr
    assert weights["summary"]["links"] == plain["summary"]["links"] == "closure"
    assert weights["summary"]["link_weights"] is False
    assert weights["summary"]["n_must_link"] == plain["summary"]["n_must_link"]
    assert weights["assignments"] == plain["assignments"]
    # a must-link of weight 0 beside the same pair cannot-linked is no conflict
    i, j = work["cannot"][0]
    with open(d / "must_0.csv", "w") as f:
        f.write(f"{j},{i},0\n{must[5][0]},{must[5][1]},0.5\n")
    proc = cli("fit", "moons.npy", "-k", "2", "--must-link", "must_0.csv",
               "--cannot-link", "cannot_idx.csv", *FIXED, "--quiet", "--out",
               "conflict.csv", cwd=d)
    assert proc.returncode == 0, proc.stderr


def test_a_link_given_twice_keeps_its_largest_weight(work):
    d, X = work["dir"], work["X"]
    (d / "dup_a.csv").write_text("0,1,0.1\n2,3,0.5\n")
    (d / "dup_b.csv").write_text("1,0,3\n4,5,0.2\n")
    (d / "dup_c.csv").write_text("3,2\n")  # no weight column: weight 1
    proc = cli("fit", "moons.npy", "-k", "2", "--must-link", "dup_a.csv",
               "--must-link", "dup_b.csv", "--must-link", "dup_c.csv", *FIXED,
               "--json", "--quiet", cwd=d)
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["summary"]["n_must_link"] == 3
    assert ("2 must-link(s) given by more than one source (link files, --labels); "
            "each counted once, with the largest of its weights"
            ) in document["summary"]["warnings"]
    with pytest.warns(UserWarning, match="eta=1.0 is ignored"):  # as the CLI
        expected = SMIClustering(2, **PARAMS).fit(
            X, must_link=[[0, 1], [2, 3], [4, 5]],
            must_link_weight=[3.0, 1.0, 0.2], cannot_link_weight=[])
    assert [a["cluster"] for a in document["assignments"]] == \
        expected.labels_.tolist()


class _Reporter:
    def __init__(self):
        self.warnings = []

    def warning(self, message):
        self.warnings.append(message)


def test_combine_links_takes_the_largest_weight_in_first_seen_order():
    rep = _Reporter()
    must, cannot, w_must, w_cannot = _combine_links(
        [(np.array([[0, 1], [2, 3]]), np.array([0.1, 0.5])),
         (np.array([[1, 0], [4, 5]]), np.array([3.0, 0.2])),
         (np.array([[3, 2]]), None)],
        [(np.array([[6, 7]]), None)], rep)
    assert must.tolist() == [[0, 1], [2, 3], [4, 5]]
    assert w_must.tolist() == [3.0, 1.0, 0.2]
    assert cannot.tolist() == [[6, 7]] and w_cannot.tolist() == [1.0]
    assert len(rep.warnings) == 1 and "largest of its weights" in rep.warnings[0]
    # no weight anywhere: no weights, and the old warning
    rep = _Reporter()
    must, cannot, w_must, w_cannot = _combine_links(
        [(np.array([[0, 1]]), None), (np.array([[1, 0]]), None)], [], rep)
    assert must.tolist() == [[0, 1]] and w_must is None and w_cannot is None
    assert rep.warnings == ["1 must-link(s) given by more than one source (link "
                            "files, --labels); each counted once"]


FIT_IDX = ["fit", "moons.npy", "-k", "2", *FIXED]
FIT_ID = ["fit", "moons.csv", "-k", "2", "--id-column", "sample", *FIXED]


def _bad_weight(where, got, name="l.csv"):
    """The one-line error of a bad weight cell at ``where`` ("line 2")."""
    return (f"{name}: {where}, column 3: expected a link weight (a number in "
            f"[0, 1e+100]), got {got}")


#: name -> (file name, content, argv before the link option, expected text)
BAD_WEIGHTS = {
    "text": ("l.csv", "0,1,0.5\n2,3,high\n", FIT_IDX, _bad_weight("line 2", "'high'")),
    "negative": ("l.csv", "0,1,-0.5\n", FIT_IDX, _bad_weight("line 1", "'-0.5'")),
    "above 1e100": ("l.csv", "0,1,2e100\n", FIT_IDX, _bad_weight("line 1", "'2e100'")),
    "nan": ("l.csv", "i,j,w\n0,1,1\n2,3,NaN\n", FIT_IDX,
            _bad_weight("line 3", "'NaN'")),
    "inf": ("l.csv", "0,1,inf\n", FIT_IDX, _bad_weight("line 1", "'inf'")),
    "empty": ("l.csv", "0,1,1\n2,3,\n", FIT_IDX,
              _bad_weight("line 2", "an empty cell")),
    "by id": ("l.csv", "a,b,weight\ns000,s001,1\ns002,s003,-2\n", FIT_ID,
              _bad_weight("line 3", "'-2'")),
    "widths differ": ("l.csv", "0,1,0.5\n2,3\n", FIT_IDX,
                      "l.csv: line 2 has 2 field(s); expected 3 like line 1"),
    "npy negative weight": ("l.npy", "NEGATIVE", FIT_IDX,
                            _bad_weight("link 1 (0-based)", "-1.0", "l.npy")),
    "npy fractional row": ("l.npy", "FRACTIONAL", FIT_IDX,
                           "l.npy: link 0 (0-based), column 2: expected an "
                           "integral row index, got 1.5"),
}


def _content(content):
    buf = io.BytesIO()
    if content == "NEGATIVE":
        np.save(buf, np.array([[0.0, 1.0, 1.0], [2.0, 3.0, -1.0]]))
    elif content == "FRACTIONAL":
        np.save(buf, np.array([[0.0, 1.5, 1.0]]))
    else:
        return content.encode()
    return buf.getvalue()


@pytest.fixture(scope="module")
def bad_results(work):
    d = work["dir"] / "bad"
    d.mkdir()
    for name in ("moons.csv", "moons.npy"):
        (d / name).write_bytes((work["dir"] / name).read_bytes())
    argvs = []
    for k, (fname, content, argv, _) in enumerate(BAD_WEIGHTS.values()):
        sub = d / f"case{k:02d}"
        sub.mkdir()
        (sub / fname).write_bytes(_content(content))
        option = "--must-link" if k % 2 else "--cannot-link"
        argvs.append([*argv, option, f"{sub.name}/{fname}"])
    return dict(zip(BAD_WEIGHTS, run_driver(argvs, d)))


@pytest.mark.parametrize("name", list(BAD_WEIGHTS))
def test_bad_weight_cell_is_one_line_exit_2(bad_results, name):
    result = bad_results[name]
    assert result["traceback"] is None, result["traceback"]
    assert result["rc"] == 2 and result["stdout"] == ""
    lines = result["stderr"].splitlines()
    assert len(lines) == 1, result["stderr"]
    assert lines[0].startswith("smiclust fit: error: --")
    assert BAD_WEIGHTS[name][3] in lines[0]


@pytest.mark.parametrize(
    "extra, match",
    [
        (["--suspect-links", "must_w_idx.tsv"],
         "--suspect-links 'must_w_idx.tsv' is the --must-link file"),
        (["--suspect-links", "./moons.npy"], "--suspect-links './moons.npy' is the "
                                             "DATA file"),
        (["--out", "o.csv", "--suspect-links", "o.csv"],
         "--suspect-links 'o.csv' is the --out file"),
        (["--top", "3"], "--top needs --suspect-links FILE"),
        (["--suspect-links", "-"], "--suspect-links needs a file name"),
        # '-' is stdout for --out only: no file named '-'
        (["--save", "-"], "--save needs a file name"),
        (["--plot", "-"], "--plot needs a file name"),
    ],
)
def test_suspect_links_never_overwrite_inputs_or_outputs(work, extra, match):
    d = work["dir"]
    before = {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()}
    proc = cli("fit", "moons.npy", "-k", "2", "--must-link", "must_w_idx.tsv",
               *FIXED, *extra, cwd=d)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and match in proc.stderr, proc.stderr
    after = {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()}
    assert after == before


# belongs to tests/test_cli_weights.py; kills M15 (commands/_fit_inputs.py: a
# link given twice keeps its last weight instead of its largest)
def test_the_largest_weight_wins_also_when_it_comes_first():
    from smiclust.commands._fit_inputs import _combine_links

    class Rep:
        warnings = []

        def warning(self, message):
            self.warnings.append(message)

    must, _, w_must, _ = _combine_links(
        [(np.array([[0, 1], [2, 3]]), np.array([3.0, 0.5])),
         (np.array([[1, 0]]), np.array([0.1])),
         (np.array([[3, 2]]), None)],  # weight 1 beside 0.5
        [], Rep())
    assert must.tolist() == [[0, 1], [2, 3]]
    assert w_must.tolist() == [3.0, 1.0]
