"""The noise protocol of the harness: flipped links, their records, the report."""

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from cli_process import run_cli

from smiclust.experiments import (
    NOISE_FRACTIONS,
    RECORDS_FILE,
    flip_links,
    load_records,
    make_config,
    noise_config,
    noise_quick_config,
    plan_runs,
    read_records,
    run_experiment,
    suspect_scores,
)
from smiclust.experiments._config import NOISE_METHODS
from smiclust.experiments._noise import flip_count, format_pairs, parse_pairs
from smiclust.experiments._runner import _draw_links, _links, load_problem

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _pairs(array):
    return {tuple(sorted(p)) for p in np.asarray(array).reshape(-1, 2).tolist()}


@pytest.fixture
def drawn():
    y = np.repeat([0, 1, 2], 20)
    must, cannot = _links(y, 0.1, seed=4)  # 177 links
    return y, must, cannot


def test_flip_count_rounds_half_up():
    assert flip_count(0.1, 25) == 3
    assert flip_count(0.05, 100) == 5
    assert flip_count(0.3, 10) == 3
    assert flip_count(0.0, 1000) == 0
    assert flip_count(1.0, 7) == 7


@pytest.mark.parametrize("noise", NOISE_FRACTIONS)
def test_the_flip_is_exact(drawn, noise):
    y, must0, cannot0 = drawn
    n_links = len(must0) + len(cannot0)
    must, cannot, flipped = flip_links(must0, cannot0, noise, seed=4)
    given = np.concatenate([must, cannot])
    # the same pairs, the right number of them flipped
    assert len(given) == n_links == flipped.size
    assert _pairs(given) == _pairs(np.concatenate([must0, cannot0]))
    assert int(flipped.sum()) == flip_count(noise, n_links)
    # a link is flagged flipped exactly when its type contradicts the labels
    wrong = np.concatenate([y[must[:, 0]] != y[must[:, 1]],
                            y[cannot[:, 0]] == y[cannot[:, 1]]])
    assert np.array_equal(flipped, wrong)
    # deterministic per seed
    again = flip_links(must0, cannot0, noise, seed=4)
    for a, b in zip(again, (must, cannot, flipped)):
        assert np.array_equal(a, b)


def test_flipped_sets_are_nested_and_depend_on_the_seed(drawn):
    _, must0, cannot0 = drawn

    def flipped_pairs(noise, seed):
        must, cannot, flipped = flip_links(must0, cannot0, noise, seed)
        return _pairs(np.concatenate([must, cannot])[flipped])

    sets = [flipped_pairs(f, 4) for f in NOISE_FRACTIONS]
    assert all(a < b for a, b in zip(sets, sets[1:]))
    assert flipped_pairs(0.3, 4) != flipped_pairs(0.3, 5)


@pytest.mark.parametrize("noise", [1.5, -0.1, "a lot", None, True, float("nan")])
def test_bad_noise_is_named(drawn, noise):
    _, must0, cannot0 = drawn
    with pytest.raises(ValueError, match=r"'noise'.*\[0, 1\]. Got"):
        flip_links(must0, cannot0, noise, seed=0)


def test_draw_links_of_a_noise_run_needs_its_noise():
    y = np.repeat([0, 1], 10)
    with pytest.raises(ValueError, match="'noise'"):
        _draw_links(y, "noise", 0.2, 0, None)
    must, cannot, partial, flipped = _draw_links(y, "noise", 0.2, 0, 0.3)
    assert partial is None and len(must) + len(cannot) == 38  # 20 % of 190
    assert flipped.sum() == flip_count(0.3, 38) == 11
    assert _draw_links(y, "pairs", 0.2, 0)[3] is None


def test_pairs_text_round_trip():
    pairs = np.array([[3, 10], [0, 2]])
    assert format_pairs(pairs) == "3-10 0-2"
    assert np.array_equal(parse_pairs("3-10 0-2"), pairs)
    assert parse_pairs("").shape == (0, 2)
    with pytest.raises(ValueError, match="'flipped_links'"):
        parse_pairs("3-10-2")


def test_suspect_scores_on_a_hand_made_ranking():
    suspects = {"i": np.array([5, 1, 2, 7, 0]), "j": np.array([6, 0, 3, 8, 9]),
                "score": np.array([0.9, 0.8, 0.5, 0.2, 0.1])}
    flipped = np.array([[0, 1], [9, 0]])  # any order of the pair
    scores = suspect_scores(suspects, flipped)
    assert scores["suspect_precision"] == scores["suspect_recall"] == 0.5
    assert scores["suspect_recall_2k"] == 0.5
    # average precision: hits at ranks 2 and 5 -> (1/2 + 2/5) / 2
    assert math.isclose(scores["suspect_ap"], (0.5 + 0.4) / 2)
    none = suspect_scores(suspects, np.empty((0, 2)))
    assert all(math.isnan(v) for v in none.values())


def test_noise_config_and_its_runs():
    config = noise_config()
    assert config["name"] == "noise" and config["seeds"] == tuple(range(5))
    assert list(config["datasets"]) == ["faces100", "iris", "wine", "parkinson",
                                        "sonar", "digits500"]
    spec = config["datasets"]["parkinson"]
    assert spec["link_fractions"] == () and spec["preprocessing"] == ("raw",)
    assert spec["noise_link_fractions"] == (0.01, 0.05)
    assert spec["noise_fractions"] == NOISE_FRACTIONS
    assert config["methods"]["csc"]["ts"] == (4,)
    runs = plan_runs(config)
    # data sets x levels x seeds x (5 methods x 5 fractions + no links once)
    assert len(runs) == 6 * 2 * 5 * (5 * 5 + 1)
    ids = [r["run_id"] for r in runs]
    assert len(set(ids)) == len(ids)
    assert "sonar/raw/smiclust/t=auto/links=0.05/noise=0.2/seed=3" in ids
    nolinks = [r for r in runs if r["method"] == "smiclust-nolinks"]
    assert {r["noise"] for r in nolinks} == {0.0}
    assert {r["protocol"] for r in runs} == {"noise"}


def test_noise_specs_are_checked():
    with pytest.raises(ValueError, match="'noise_link_fractions'.*'noise_fractions'"):
        make_config("noise", datasets={"sonar": {
            "link_fractions": (), "preprocessing": ("raw",),
            "noise_fractions": (0.1,)}}, methods=("smiclust",), seeds=(0,))
    with pytest.raises(ValueError, match="'noise_fractions' of data set 'sonar'.*1.5"):
        make_config("noise", datasets={"sonar": {
            "link_fractions": (), "preprocessing": ("raw",),
            "noise_link_fractions": (0.01,), "noise_fractions": (0.1, 1.5)}},
            methods=("smiclust",), seeds=(0,))


def test_noise_command_line_config():
    from smiclust.cli import build_parser
    from smiclust.commands.reproduce import build_config

    args = build_parser().parse_args([
        "reproduce", "--config", "noise", "--seeds", "2", "--datasets",
        "faces100", "spam", "--link-levels", "0.02", "--noise-fractions", "0",
        "0.1", "--methods", "smiclust", "smiclust-nolinks"])
    config = build_config(args)
    assert config["name"] == "noise" and config["seeds"] == (0, 1)
    assert config["datasets"]["faces100"]["noise_link_fractions"] == (0.02,)
    assert config["datasets"]["spam"]["noise_fractions"] == (0.0, 0.1)
    assert config["datasets"]["spam"]["preprocessing"] == ("raw", "standardized")
    assert list(config["methods"]) == ["smiclust", "smiclust-nolinks"]
    quick = build_config(build_parser().parse_args(
        ["reproduce", "--config", "noise-quick"]))
    assert quick == noise_quick_config()


@pytest.mark.parametrize("args, message", [
    (["--config", "beyond", "--noise-fractions", "0.1"],
     "--noise-fractions needs --config noise"),
    (["--config", "noise", "--noise-fractions", "2"],
     "--noise-fractions must lie in [0, 1]"),
    (["--config", "noise", "--datasets", "spam"], "give its levels with"),
])
def test_noise_cli_usage_errors(args, message, capsys, tmp_path):
    from smiclust.cli import main

    assert main(["reproduce", "--out", str(tmp_path), *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / RECORDS_FILE).exists()


def test_noise_runs_record_the_flipped_links(tmp_path):
    config = make_config(
        "noise-quick",
        datasets={"faces100": {"link_fractions": (), "preprocessing": ("raw",),
                               "noise_link_fractions": (0.02,),
                               "noise_fractions": (0.0, 0.3)}},
        methods=("smiclust", "smiclust-nolinks"), seeds=(1,))
    run_experiment(config, tmp_path, progress=False)
    records = {(r["method"], float(r["noise"])): r
               for r in read_records(tmp_path / RECORDS_FILE)}
    assert set(records) == {("smiclust", 0.0), ("smiclust", 0.3),
                            ("smiclust-nolinks", 0.0)}
    assert {r["status"] for r in records.values()} == {"ok"}
    _, y = load_problem("faces100", "raw", 1)
    noisy = records[("smiclust", 0.3)]
    n_links = int(noisy["links"])
    assert n_links == round(0.02 * 4950)
    assert int(noisy["n_flipped"]) == flip_count(0.3, n_links) == 30
    recorded = parse_pairs(noisy["flipped_links"])
    must, cannot, _, flipped = _draw_links(y, "noise", 0.02, 1, 0.3)
    assert np.array_equal(recorded, np.concatenate([must, cannot])[flipped])
    # a recorded pair is given as a must-link exactly when its labels differ
    given_must = _pairs(must)
    assert all((tuple(sorted(p)) in given_must) == (y[p[0]] != y[p[1]])
               for p in recorded.tolist())
    for field in ("suspect_precision", "suspect_recall", "suspect_recall_2k",
                  "suspect_ap"):
        assert 0.0 <= float(noisy[field]) <= 1.0
    assert noisy["suspect_precision"] == noisy["suspect_recall"]
    clean = records[("smiclust", 0.0)]
    assert clean["n_flipped"] == "0" and clean["flipped_links"] == ""
    assert clean["suspect_precision"] == ""
    # the model without links: the same links drawn, none used
    nolinks = records[("smiclust-nolinks", 0.0)]
    assert nolinks["links"] == clean["links"]
    assert nolinks["unlinked"] == clean["unlinked"]
    assert nolinks["suspect_precision"] == ""
    df = load_records(tmp_path / RECORDS_FILE)
    assert sorted(df["noise"]) == [0.0, 0.0, 0.3]


def _write(path, rows):
    from smiclust.experiments import RECORD_FIELDS

    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, RECORD_FIELDS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in RECORD_FIELDS})


def test_noise_report_checks_from_hand_made_records(tmp_path):
    from smiclust.experiments import write_noise_report
    from smiclust.experiments._noise_report import noise_checks, summarize_noise

    rows = []

    def add(method, noise, seed, ari, status="ok", t=""):
        rows.append({
            "run_id": f"sonar/raw/{method}/links=0.01/noise={noise}/seed={seed}",
            "dataset": "sonar", "preprocessing": "raw", "method": method,
            "t": t, "protocol": "noise", "link_fraction": 0.01, "noise": noise,
            "n_flipped": round(noise * 215), "links": 215, "unlinked": 20,
            "n_samples": 208, "seed": seed, "status": status,
            "ari": ari if status == "ok" else "", "ari_unlinked": ari,
            "suspect_precision": 0.5 if method == "smiclust" and noise else "",
            "suspect_recall": 0.5 if method == "smiclust" and noise else "",
            "suspect_ap": 0.6 if method == "smiclust" and noise else "",
            "suspect_recall_2k": 0.9 if method == "smiclust" and noise else "",
            "seconds": 1.0,
            "error": "" if status == "ok" else "PeerFailed: Inconsistent"})

    for seed in (0, 1):
        add("smiclust-nolinks", 0.0, seed, 0.60)
        for noise, ari in ((0.0, 0.9), (0.1, 0.7), (0.2, 0.55)):
            add("smiclust", noise, seed, ari + 0.02 * seed)
            add("copkmeans", noise, seed, 0.8 if noise == 0 else 0.0,
                status="ok" if noise == 0 else "failed")
            add("pckmeans", noise, seed, 0.8 if noise < 0.2 else 0.6)
    _write(tmp_path / RECORDS_FILE, rows)
    summary = summarize_noise(load_records(tmp_path / RECORDS_FILE))
    nolinks = summary[summary["method"] == "smiclust-nolinks"]
    assert sorted(nolinks["noise"]) == [0.0, 0.1, 0.2]  # repeated at each noise
    failed = summary[(summary["method"] == "copkmeans") & (summary["noise"] == 0.1)]
    assert failed.iloc[0]["mean"] == 0.0 and failed.iloc[0]["n_failed"] == 2
    checks = {(c["check"], c["noise"]): c for c in noise_checks(summary)}
    assert set(checks) == {("no links", 0.2), ("peers", 0.1), ("peers", 0.2)}
    # 0.56 - 0.60 = -0.04 < -0.02
    assert not checks[("no links", 0.2)]["passed"]
    assert math.isclose(checks[("no links", 0.2)]["difference"], -0.04)
    # 0.71 - 0.8 (PCKMeans) < 0.01; 0.56 - 0.6 < 0.01
    assert not checks[("peers", 0.1)]["passed"]
    assert checks[("peers", 0.1)]["reference"] == "PCKMeans"
    assert "2 of 4 peer runs failed" in checks[("peers", 0.1)]["note"]
    report = write_noise_report(tmp_path / RECORDS_FILE, tmp_path,
                                figures=False).read_text()
    assert report.startswith("# Wrong links")
    assert report.index("## Checks of issue 13") < report.index("## ARI on all")
    assert "default vs the default without links at 20 % flipped: 0 of 1 pass" \
        in report
    assert ("| sonar (raw) | 1 % | 20 % | 0.56 | smiclust (no links): 0.60 | "
            "-0.04 | -0.02 | **FAIL** |") in report
    assert "0.00 ± 0.00 (2/2 failed)" in report
    assert "| sonar (raw) | 1 % | 10 % | 22 | 0.50 ± 0.00 | 0.90 ± 0.00 |" in report



def test_a_check_without_cells_is_not_evaluated(tmp_path):
    # the peers skipped (not installed): their check is not "0 of 0 pass"
    from smiclust.experiments import write_noise_report

    rows = []
    for seed in (0, 1):
        for method, noise, ari, status in (
                ("smiclust-nolinks", 0.0, 0.6, "ok"), ("smiclust", 0.0, 0.9, "ok"),
                ("smiclust", 0.2, 0.7, "ok"), ("pckmeans", 0.2, "", "skipped")):
            rows.append({
                "run_id": f"sonar/raw/{method}/noise={noise}/seed={seed}",
                "dataset": "sonar", "preprocessing": "raw", "method": method,
                "t": "", "protocol": "noise", "link_fraction": 0.01,
                "noise": noise, "n_flipped": round(noise * 215), "links": 215,
                "unlinked": 20, "n_samples": 208, "seed": seed, "status": status,
                "ari": ari, "ari_unlinked": ari, "seconds": 1.0,
                "error": "" if status == "ok" else
                "active-semi-supervised-clustering is not installed"})
    _write(tmp_path / RECORDS_FILE, rows)
    report = write_noise_report(tmp_path / RECORDS_FILE, tmp_path,
                                figures=False).read_text()
    assert "default vs the default without links at 20 % flipped: 1 of 1 pass" \
        in report
    assert ("default vs the better of COPKMeans and PCKMeans, from 10 % "
            "flipped: not evaluated**") in report
    assert "0 of 0 pass" not in report

def test_noise_quick_command_end_to_end(tmp_path):
    out = tmp_path / "noise"
    cmd = ["reproduce", "--config", "noise-quick", "--out", out]
    proc = run_cli(cmd)
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads(proc.stdout)
    assert summary["n_runs"] == summary["new_runs"] == 6 + 5
    report = (out / "report.md").read_text()
    assert report.startswith("# Wrong links")
    assert "**default vs the better of COPKMeans and PCKMeans, from 10 % flipped:" \
        in report
    assert (out / "figures" / "noise.png").read_bytes()[:4] == b"\x89PNG"
    again = run_cli(cmd)
    assert json.loads(again.stdout)["new_runs"] == 0
    assert (out / "report.md").read_text() == report
    # a run restricted to one method keeps the directory's whole config and
    # report: the other methods' records stay described
    config = (out / "config.json").read_text()
    one = run_cli([*cmd, "--methods", "smiclust"])
    assert one.returncode == 0, one.stderr[-2000:]
    assert json.loads(one.stdout)["new_runs"] == 0
    assert (out / "config.json").read_text() == config
    assert list(json.loads(config)["methods"]) == list(NOISE_METHODS)
    assert (out / "report.md").read_text() == report


@pytest.mark.parametrize("name", ["reproduction", "beyond-the-paper"])
def test_committed_records_load_with_the_noise_fields_at_their_defaults(name):
    df = load_records(DOCS / name / RECORDS_FILE)
    assert len(df) > 1000
    assert (df["noise"] == 0).all() and (df["n_flipped"] == 0).all()
    assert df["suspect_precision"].isna().all()
    assert set(df["protocol"]) <= {"pairs", "labels"}


def test_the_committed_beyond_report_regenerates_unchanged(tmp_path):
    """docs/beyond-the-paper: its report, up to the figure links (figures=False
    leaves them out), comes out the same from its records."""
    import shutil

    from smiclust.experiments import write_beyond_report

    docs = DOCS / "beyond-the-paper"
    for name in (RECORDS_FILE, "config.json"):
        shutil.copy(docs / name, tmp_path / name)
    config = json.loads((docs / "config.json").read_text())
    report = write_beyond_report(tmp_path / RECORDS_FILE, tmp_path, config=config,
                                 figures=False).read_text(encoding="utf-8")
    committed = (docs / "report.md").read_text(encoding="utf-8")
    body, figures = committed[: len(report) - 1], committed[len(report) - 1:]
    assert body + "\n" == report
    assert figures.startswith("\n## Figures\n")


def test_appending_to_a_beyond_records_file_keeps_its_columns(tmp_path):
    from smiclust.experiments._records import BEYOND_RECORD_FIELDS, RecordWriter

    path = tmp_path / RECORDS_FILE
    path.write_text(",".join(BEYOND_RECORD_FIELDS) + "\n")
    writer = RecordWriter(path)
    writer.write({"run_id": "a", "method": "smiclust", "status": "ok",
                  "noise": 0.2, "n_flipped": 3})
    writer.close()
    lines = path.read_text().splitlines()
    assert len(next(csv.reader([lines[1]]))) == len(BEYOND_RECORD_FIELDS)
    (record,) = read_records(path)
    assert record["run_id"] == "a" and record["noise"] == ""
    assert load_records(path)["noise"][0] == 0.0


def test_the_committed_noise_report_regenerates_byte_identical(tmp_path):
    """docs/noisy-links: its records load, its report comes out the same."""
    import shutil

    from smiclust.experiments import write_noise_report

    docs = DOCS / "noisy-links"
    for name in (RECORDS_FILE, "config.json"):
        shutil.copy(docs / name, tmp_path / name)
    config = json.loads((docs / "config.json").read_text())
    report = write_noise_report(tmp_path / RECORDS_FILE, tmp_path, config=config)
    assert report.read_bytes() == (docs / "report.md").read_bytes()
    records = read_records(tmp_path / RECORDS_FILE)
    assert len(records) == len(plan_runs(noise_config()))
    assert {r["protocol"] for r in records} == {"noise"}


def test_noise_config_runs_iris_and_wine_standardized():
    config = noise_config()
    for name in ("iris", "wine"):
        spec = config["datasets"][name]
        assert spec["preprocessing"] == ("standardized",)
        assert spec["noise_link_fractions"] == (0.01, 0.05)
        assert spec["noise_fractions"] == NOISE_FRACTIONS
    for name in ("faces100", "parkinson", "sonar", "digits500"):
        assert config["datasets"][name]["preprocessing"] == ("raw",)
    ids = {r["run_id"] for r in plan_runs(config)}
    assert "iris/standardized/smiclust/t=auto/links=0.01/noise=0.1/seed=0" in ids
    assert "wine/standardized/csc/t=4/links=0.05/noise=0.3/seed=4" in ids
    assert not any(i.startswith(("iris/raw/", "wine/raw/")) for i in ids)


def test_the_committed_noise_records_are_the_whole_noise_config():
    # one record per planned run, under the planned run ids: the committed
    # report covers the config (iris and wine included) and nothing else
    with open(DOCS / "noisy-links" / RECORDS_FILE, newline="") as f:
        committed = [row["run_id"] for row in csv.DictReader(f)]
    planned = {r["run_id"] for r in plan_runs(noise_config())}
    assert len(committed) == len(set(committed))
    assert set(committed) == planned
    assert {tuple(i.split("/")[:2]) for i in planned} >= {
        ("iris", "standardized"), ("wine", "standardized")}


def test_load_problem_standardizes_iris():
    X, y = load_problem("iris", "standardized", 0)
    assert X.shape == (150, 4) and y.shape == (150,)
    np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(X.std(axis=0), 1.0, rtol=1e-12)
    X_raw, y_raw = load_problem("iris", "raw", 0)
    assert not np.allclose(X_raw.std(axis=0), 1.0)
    np.testing.assert_array_equal(y_raw, y)
    # a fixed data set: the seed does not change it
    X_other, _ = load_problem("iris", "standardized", 3)
    np.testing.assert_array_equal(X_other, X)


def test_cli_accepts_sklearn_datasets():
    from smiclust.cli import build_parser
    from smiclust.commands._common import UsageError
    from smiclust.commands.reproduce import build_config

    def config(*argv):
        return build_config(build_parser().parse_args(["reproduce", *argv]))

    noise = config("--config", "noise", "--datasets", "wine", "iris")
    assert list(noise["datasets"]) == ["wine", "iris"]
    assert noise["datasets"]["wine"]["preprocessing"] == ("standardized",)
    assert noise["datasets"]["iris"]["noise_link_fractions"] == (0.01, 0.05)
    pairs = config("--datasets", "breast_cancer", "--link-levels", "0.01")
    assert pairs["datasets"]["breast_cancer"]["link_fractions"] == (0.01,)
    # no levels of the paper for a scikit-learn data set: --link-levels needed
    with pytest.raises(UsageError, match="--datasets iris: not in --config full"):
        config("--datasets", "iris")
    with pytest.raises(UsageError, match=r"--datasets must be among \[.*'wine'\]; "
                       r"got \['iriss'\]"):
        config("--datasets", "iriss")


nan_ = float("nan")


def _noise_summary(rows):
    pd = pytest.importorskip("pandas")
    base = dict(dataset="sonar", preprocessing="raw", link_fraction=0.01,
                links=100.0, unlinked=20.0, n_flipped=0.0, n_runs=2, n_ok=2,
                n_failed=0, n_skipped=0, std=0.0, mean_unlinked=nan_,
                std_unlinked=nan_, n_unlinked=0, seconds=1.0)
    return pd.DataFrame([{**base, "method": m, "curve": c, "noise": f, "mean": v}
                         for m, c, f, v in rows])


def test_peers_check_passes_at_what_two_decimals_show():
    # E7: 0.06 against a peer's 0.05 is ahead by 0.01 (the float difference
    # is 0.0099999...)
    from smiclust.experiments._noise_report import noise_checks

    summary = _noise_summary([("smiclust", "smiclust (default)", 0.1, 0.06),
                              ("pckmeans", "PCKMeans", 0.1, 0.05)])
    (check,) = noise_checks(summary)
    assert check["check"] == "peers" and check["passed"]


def test_no_links_check_passes_within_its_margin():
    # E8: 0.58 against 0.60 without links is within the 0.02 margin; 0.57 not
    from smiclust.experiments._noise_report import noise_checks

    for mean, passed in ((0.585, True), (0.57, False)):
        summary = _noise_summary([("smiclust", "smiclust (default)", 0.2, mean),
                                  ("smiclust-nolinks", "smiclust (no links)",
                                   0.2, 0.60)])
        checks = [c for c in noise_checks(summary) if c["check"] == "no links"]
        assert [c["passed"] for c in checks] == [passed]


def test_a_failed_run_scores_0_on_the_unlinked_samples_only_where_there_are_two():
    # E6: ARI on the samples in no link is undefined below 2 of them, also
    # for a failed run
    pd = pytest.importorskip("pandas")
    from smiclust.experiments._noise_report import _scored

    df = pd.DataFrame([
        dict(protocol="noise", status="failed", unlinked=u, ari=nan_,
             ari_unlinked=nan_, noise=0.1, method="copkmeans")
        for u in (0, 1, 2)])
    out = _scored(df)
    assert out["ari"].tolist() == [0.0, 0.0, 0.0]
    assert np.isnan(out["ari_unlinked"][:2]).all() and out["ari_unlinked"][2] == 0.0


def test_committed_noise_records_redraw_their_flipped_links():
    # E16: the flips of a committed iris record (numpy.random.default_rng
    # ((seed, 13)), the documented stream) are drawn again exactly
    import csv
    from pathlib import Path

    from smiclust.experiments._noise import parse_pairs
    from smiclust.experiments._runner import _draw_links, load_problem

    path = Path(__file__).resolve().parents[1] / "docs" / "noisy-links" / "records.csv"
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["dataset"] == "iris"
                and r["method"] == "smiclust" and float(r["noise"]) > 0][:4]
    assert rows
    for r in rows:
        _, y = load_problem(r["dataset"], r["preprocessing"], int(r["seed"]))
        must, cannot, _, flipped = _draw_links(y, "noise", float(r["link_fraction"]),
                                               int(r["seed"]), float(r["noise"]))
        drawn = np.concatenate([must, cannot])[flipped]
        assert sorted(map(tuple, drawn.tolist())) == sorted(
            map(tuple, parse_pairs(r["flipped_links"]).tolist()))
