"""Reproduction harness: config -> runner -> records -> report and figures."""

import csv
import io
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from cli_process import run_cli

from smiclust.experiments import (
    RECORD_FIELDS,
    RECORDS_FILE,
    _runner,
    load_records,
    make_config,
    quick_config,
    read_records,
    run_experiment,
)
from smiclust.experiments._config import METHODS, QUICK_3SMIC_PARAMS, beyond_config


def _cli(*args, check=True):
    proc = run_cli(["reproduce", *args])
    if check:
        assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def _stable(records):
    """Records without the fields that depend on the machine or the clock."""
    return sorted(
        ({k: v for k, v in r.items() if k not in ("seconds", "finished_at")}
         for r in records),
        key=lambda r: r["run_id"],
    )


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """``smiclust reproduce --quick`` once, in a subprocess."""
    out = tmp_path_factory.mktemp("quick")
    proc = _cli("--quick", "--out", str(out))
    return out, json.loads(proc.stdout), proc.stderr


def test_quick_cli_end_to_end(quick_run):
    out, summary, stderr = quick_run
    n_runs = 2 * 2 * 3 * 3  # data sets x seeds x link levels x methods
    assert summary["n_runs"] == n_runs
    assert summary["new_runs"] == n_runs and summary["already_done"] == 0
    # progress went to stderr, one line per run
    assert stderr.count(f"/{n_runs}] ") == n_runs

    with open(out / RECORDS_FILE, newline="") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == RECORD_FIELDS
    records = [dict(zip(RECORD_FIELDS, row)) for row in rows[1:]]
    assert len(records) == n_runs
    assert len({r["run_id"] for r in records}) == n_runs
    assert {r["status"] for r in records} == {"ok"}
    assert {r["method"] for r in records} == {"3smic", "sl", "csc"}
    for r in records:
        assert -1.0 <= float(r["ari"]) <= 1.0
        assert int(r["links"]) == int(r["must"]) + int(r["cannot"])
        assert int(r["violations"]) >= 0 and float(r["seconds"]) >= 0
        if r["method"] == "3smic":
            assert r["t"] == "" and int(r["t_chosen"]) in (4, 7)
            assert float(r["gamma"]) in (0.0, 1.0)
        else:
            assert r["t"] == "7" == r["t_chosen"] and r["gamma"] == ""
    # the same seed and level give every method the same links
    by_key = {}
    for r in records:
        key = (r["dataset"], r["link_fraction"], r["seed"])
        by_key.setdefault(key, set()).add((r["links"], r["must"], r["cannot"]))
    assert all(len(v) == 1 for v in by_key.values())
    # more links at higher levels (parkinson: n=195 -> 18,915 pairs)
    park = {float(r["link_fraction"]): int(r["links"]) for r in records
            if r["dataset"] == "parkinson"}
    assert park == {0.0: 0, 0.01: 189, 0.03: 567}

    report = (out / "report.md").read_text()
    assert "## Claims of the paper" in report
    assert "Total run time" in report and "## Summary table" in report
    for claim in ("| 1 |", "| 2 |", "| 3a |", "| 3b |", "| 4a |", "| 4b |",
                  "| 4c |", "| 5 |", "| 6 |"):
        assert claim in report
    assert any(v in report for v in ("**reproduced**", "**partially**",
                                     "**not reproduced**"))
    figures = sorted(p.name for p in (out / "figures").glob("*.png"))
    assert figures == ["faces100-raw.png", "parkinson-raw.png"]
    assert summary["figures"] and summary["report"].endswith("report.md")
    for name in figures:
        assert (out / "figures" / name).read_bytes()[:4] == b"\x89PNG"


def test_quick_cli_resume_does_no_new_work(quick_run, capsys):
    from smiclust.cli import main

    out, first, _ = quick_run
    before = (out / RECORDS_FILE).read_bytes()
    assert main(["reproduce", "--quick", "--out", str(out), "--no-report"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["new_runs"] == 0
    assert summary["already_done"] == first["n_runs"]
    assert (out / RECORDS_FILE).read_bytes() == before


def test_resume_after_interruption_redoes_only_the_lost_runs(quick_run, tmp_path):
    out, first, _ = quick_run
    original = read_records(out / RECORDS_FILE)
    lines = (out / RECORDS_FILE).read_text().splitlines(keepends=True)
    # keep all but the last three records, and half of the third-to-last line
    # (an interruption in the middle of a write)
    cut = "".join(lines[:-3]) + lines[-3][: len(lines[-3]) // 2]
    target = tmp_path / "resumed"
    target.mkdir()
    (target / RECORDS_FILE).write_text(cut)

    summary = run_experiment(quick_config(), target, progress=False)
    assert summary["already_done"] == first["n_runs"] - 3
    assert summary["new_runs"] == 3
    resumed = read_records(target / RECORDS_FILE)
    assert len(resumed) == first["n_runs"]
    # recomputed runs give the same records (deterministic runs)
    assert _stable(resumed) == _stable(original)


def test_retry_failed_reruns_only_the_failed_runs(quick_run, tmp_path):
    out, first, _ = quick_run
    original = read_records(out / RECORDS_FILE)
    lines = (out / RECORDS_FILE).read_text().splitlines(keepends=True)
    # mark the last record as failed, as a run that raised before a fix would be
    failed = dict(original[-1], status="failed", ari="", error="RuntimeError: x")
    target = tmp_path / "retry"
    target.mkdir()
    buffer = io.StringIO()
    csv.DictWriter(buffer, fieldnames=RECORD_FIELDS, lineterminator="\n").writerow(
        failed
    )
    (target / RECORDS_FILE).write_text("".join(lines[:-1]) + buffer.getvalue())

    plain = run_experiment(quick_config(), target, progress=False)
    assert plain["new_runs"] == 0  # a failed run is a result: not redone
    retried = run_experiment(quick_config(), target, progress=False,
                             retry_failed=True)
    assert retried["new_runs"] == 1 and retried["new_failed"] == 0
    again = run_experiment(quick_config(), target, progress=False,
                           retry_failed=True)
    assert again["new_runs"] == 0  # the last record of the run is ok now
    df = load_records(target / RECORDS_FILE)
    assert len(df) == first["n_runs"] and set(df["status"]) == {"ok"}


def test_link_draws_are_deterministic():
    X1, y1 = _runner.load_problem("digits500", "raw", 3)
    X2, y2 = _runner.load_problem("digits500", "raw", 3)
    X3, _ = _runner.load_problem("digits500", "raw", 4)
    assert np.array_equal(X1, X2) and np.array_equal(y1, y2)
    assert not np.array_equal(X1, X3)
    assert not X1.flags.writeable
    m1, c1 = _runner._links(y1, 0.002, 3)
    m2, c2 = _runner._links(y2, 0.002, 3)
    assert np.array_equal(m1, m2) and np.array_equal(c1, c2)
    assert len(m1) + len(c1) == round(0.002 * 500 * 499 / 2)
    m3, c3 = _runner._links(y1, 0.002, 4)
    assert not (np.array_equal(m1, m3) and np.array_equal(c1, c3))
    # links are typed by the true labels
    assert np.all(y1[m1[:, 0]] == y1[m1[:, 1]])
    assert np.all(y1[c1[:, 0]] != y1[c1[:, 1]])


def test_standardized_preprocessing():
    Xr, yr = _runner.load_problem("parkinson", "raw", 0)
    Xs, ys = _runner.load_problem("parkinson", "standardized", 0)
    assert np.array_equal(yr, ys)
    np.testing.assert_allclose(Xs.mean(axis=0), 0, atol=1e-10)
    np.testing.assert_allclose(Xs.std(axis=0), 1, atol=1e-10)
    assert not np.allclose(Xr.std(axis=0), 1)


def _fake_config(monkeypatch, fit, kind="paper", fractions=(0.0, 0.02)):
    monkeypatch.setitem(METHODS, "fake", {"label": "Fake", "kind": kind,
                                          "ts": (None,), "params": {},
                                          "description": "test method"})
    monkeypatch.setitem(_runner.FITTERS, "fake", fit)
    return make_config(
        "test",
        datasets={"faces100": {"link_fractions": fractions,
                               "preprocessing": ("raw",)}},
        methods=("fake",), seeds=(0, 1),
    )


def test_failures_are_records_not_crashes(monkeypatch, tmp_path):
    def fit(run, X, n_clusters, must, cannot):
        if run["link_fraction"] > 0:
            raise np.linalg.LinAlgError("numerical problems in the eigensolver")
        return np.arange(X.shape[0]) % n_clusters, {}

    config = _fake_config(monkeypatch, fit)
    summary = run_experiment(config, tmp_path, progress=False)
    assert summary["new_runs"] == 4 and summary["new_failed"] == 2
    records = read_records(tmp_path / RECORDS_FILE)
    failed = [r for r in records if r["status"] == "failed"]
    assert len(failed) == 2
    for r in failed:
        assert r["ari"] == "" and "LinAlgError: numerical problems" in r["error"]
    ok = [r for r in records if r["status"] == "ok"]
    assert all(r["error"] == "" and r["ari"] != "" for r in ok)


def test_time_budget_skips_the_later_runs_at_as_many_links(monkeypatch, tmp_path):
    from smiclust.experiments._peers import PeerSkipped

    calls = []

    def fit(run, X, n_clusters, must, cannot):
        calls.append((run["seed"], run["link_fraction"]))
        if run["link_fraction"] >= 0.02:
            raise PeerSkipped("exceeded the time budget of 1 s")
        return np.zeros(X.shape[0], dtype=int), {}

    config = _fake_config(monkeypatch, fit, kind="peer", fractions=(0.0, 0.02, 0.05))
    summary = run_experiment(config, tmp_path, progress=False)
    assert summary["new_runs"] == 6 and summary["new_skipped"] == 4
    assert calls == [(0, 0.0), (0, 0.02), (1, 0.0)]
    records = {(int(r["seed"]), float(r["link_fraction"])): r
               for r in read_records(tmp_path / RECORDS_FILE)}
    assert records[(1, 0.0)]["status"] == "ok"
    assert records[(0, 0.02)]["error"] == "exceeded the time budget of 1 s"
    assert records[(1, 0.05)]["error"].startswith(
        "not run: fake on faces100/raw with 2 % of the pairs as links exceeded")
    # a run skipped without running still records its links and the ARI of
    # the links alone, which do not depend on the method
    for key in ((0, 0.05), (1, 0.02), (1, 0.05)):
        assert records[key]["status"] == "skipped"
        assert records[key]["links"] == records[(0, key[1])]["links"] != ""
        assert records[key]["ari_links_only"] != ""
        assert records[key]["unlinked"] != "" and records[key]["n_samples"] != ""


def test_a_runs_own_joblib_calls_stay_in_its_process(monkeypatch, tmp_path):
    # under the Dask backend that carries the runs, a run carried out in the
    # client (one worker thread) sent its fit's joblib calls to the cluster,
    # whose failures were recorded as the method's
    from joblib import parallel_config
    from joblib.parallel import get_active_backend

    seen = []

    def fit(run, X, n_clusters, must, cannot):
        seen.append(type(get_active_backend()[0]).__name__)
        return np.zeros(X.shape[0], dtype=int), {}

    config = _fake_config(monkeypatch, fit, fractions=(0.0,))
    with parallel_config(backend="threading"):  # as a Dask backend would be
        run_experiment(config, tmp_path, progress=False)
    assert seen == ["SequentialBackend"] * 2


def test_a_cluster_lost_during_the_runs_ends_them_naming_the_scheduler():
    from smiclust.experiments._runner import SchedulerError, _cluster_records

    class CommClosedError(OSError):
        pass

    CommClosedError.__module__ = "distributed.comm.core"

    def records():
        yield {"run_id": 1}
        raise CommClosedError("in <TCP (closed)>: Stream is closed")

    got = []
    with pytest.raises(SchedulerError, match="the Dask cluster of --scheduler "
                       "'tcp://127.0.0.1:8786' was lost during the runs "
                       r"\(CommClosedError: .*the records written so far are kept"):
        for record in _cluster_records(records(), "tcp://127.0.0.1:8786"):
            got.append(record)
    assert got == [{"run_id": 1}]

    def failing():
        raise KeyError("a bug of ours, not the cluster's")
        yield

    with pytest.raises(KeyError):
        list(_cluster_records(failing(), "tcp://127.0.0.1:8786"))


def test_runner_progress_lines(monkeypatch, tmp_path):
    import io

    def fit(run, X, n_clusters, must, cannot):
        return np.zeros(X.shape[0], dtype=int), {}

    config = _fake_config(monkeypatch, fit)
    stream = io.StringIO()
    run_experiment(config, tmp_path, progress=stream)
    lines = stream.getvalue().splitlines()
    assert "4 to do" in lines[0]
    assert len(lines) == 5 and all("ARI 0.000" in line for line in lines[1:])


def test_dask_local_cluster_gives_the_same_records(tmp_path):
    distributed = pytest.importorskip("distributed")
    config = make_config(
        "tiny",
        datasets={"faces100": {"link_fractions": (0.0, 0.05),
                               "preprocessing": ("raw",)}},
        methods=("3smic", "sl"), seeds=(0,),
        method_overrides={"3smic": {"params": dict(QUICK_3SMIC_PARAMS)},
                          "sl": {"ts": (4,)}},
    )
    local = run_experiment(config, tmp_path / "local", progress=False)
    assert local["new_runs"] == 4
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1,
                                  processes=False, dashboard_address=None) as cluster:
        remote = run_experiment(config, tmp_path / "dask", progress=False,
                                scheduler=cluster.scheduler_address)
    assert remote["new_runs"] == 4
    assert _stable(read_records(tmp_path / "dask" / RECORDS_FILE)) == _stable(
        read_records(tmp_path / "local" / RECORDS_FILE))


def _listening(handler):
    """A local TCP port whose every connection is passed to ``handler``."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            handler(conn)

    threading.Thread(target=serve, daemon=True).start()
    return server


def _http_reply(conn):
    conn.recv(4096)
    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    conn.close()


@pytest.mark.parametrize("handler, reason", [
    (lambda conn: None, "no answer within"),  # accepts, never answers
    (_http_reply, "not a Dask scheduler"),  # another service, e.g. Dask's dashboard
])
def test_a_port_that_is_no_scheduler_is_refused_in_bounded_time(
        monkeypatch, handler, reason):
    pytest.importorskip("distributed")
    import time


    monkeypatch.setattr(_runner, "SCHEDULER_TIMEOUT", 1.0)
    server = _listening(handler)
    address = "tcp://127.0.0.1:%d" % server.getsockname()[1]
    start = time.monotonic()
    with pytest.raises(_runner.SchedulerError, match=reason) as info:
        _runner.check_scheduler(address)
    server.close()
    assert address in str(info.value)
    assert time.monotonic() - start < 30


# ---------------------------------------------------------------------------
# peers
# ---------------------------------------------------------------------------


def test_active_semi_clustering_import_leaves_numpy_error_state(monkeypatch):
    import importlib

    from smiclust.experiments._peers import (
        import_active_semi_clustering,
        peer_unavailable_reason,
    )

    if peer_unavailable_reason("pckmeans") is not None:
        pytest.skip(peer_unavailable_reason("pckmeans"))
    for name in [m for m in sys.modules if m.startswith("active_semi_clustering")]:
        monkeypatch.delitem(sys.modules, name)
    with np.errstate(all="ignore"):
        # the package itself changes the global state when imported ...
        importlib.import_module("active_semi_clustering")
        assert np.geterr()["divide"] == "raise"
    for name in [m for m in sys.modules if m.startswith("active_semi_clustering")]:
        monkeypatch.delitem(sys.modules, name)
    before = np.geterr()
    module = import_active_semi_clustering()  # ... the adapter does not
    assert np.geterr() == before
    assert hasattr(module, "PCKMeans")


def test_peer_fit_in_process_leaves_global_state(blobs3):
    from smiclust.experiments._peers import fit_peer, peer_unavailable_reason

    if peer_unavailable_reason("pckmeans") is not None:
        pytest.skip(peer_unavailable_reason("pckmeans"))
    X, y = blobs3
    err, rand = np.geterr(), np.random.get_state()
    labels, _ = fit_peer("pckmeans", X, 3, [[0, 1]], [[0, 40]], random_state=0,
                         isolate=False)
    assert np.geterr() == err
    after = np.random.get_state()
    assert np.array_equal(rand[1], after[1]) and rand[2] == after[2]
    from sklearn.metrics import adjusted_rand_score

    assert adjusted_rand_score(y, labels) > 0.9


def test_peers_run_or_are_skipped_with_a_reason(tmp_path):
    from smiclust.experiments._peers import peer_unavailable_reason

    peers = ("pckmeans", "mpckmeans", "copkmeans", "e2cp")
    config = make_config(
        "peers",
        datasets={"parkinson": {"link_fractions": (0.01,),
                                "preprocessing": ("standardized",)}},
        methods=peers, seeds=(0,),
        method_overrides={**{m: {"time_budget": 60.0} for m in peers},
                          "mpckmeans": {"params": {"max_iter": 2}}},
    )
    run_experiment(config, tmp_path, progress=False)  # worker reused below
    records = {r["method"]: r for r in read_records(tmp_path / RECORDS_FILE)}
    assert set(records) == set(peers)
    for method, r in records.items():
        assert r["status"] in ("ok", "skipped", "failed")
        if r["status"] == "ok":
            assert -1 <= float(r["ari"]) <= 1 and r["error"] == ""
        else:
            assert r["error"] and r["ari"] == ""
        if method in ("pckmeans", "e2cp") and peer_unavailable_reason(method) is None:
            assert r["status"] == "ok"
    # MPCKMeans is skipped up front on faces100 (d = 4096), with the reason
    config["datasets"] = {"faces100": {"link_fractions": (0.02,),
                                       "preprocessing": ("raw",)}}
    run = next(r for r in _runner.plan_runs(config) if r["method"] == "mpckmeans")
    record = _runner.run_one(run)
    assert record["status"] == "skipped" and "d=4096 > 100" in record["error"]
    assert "pure Python" in record["error"]
    # the report gives the whole measured reason (the table of runs that did
    # not finish cuts reasons at 160 characters)
    from smiclust.experiments._report import _peers_section

    pd = pytest.importorskip("pandas")
    text = "\n".join(_peers_section(pd.DataFrame([record]), config))
    reason = config["methods"]["mpckmeans"]["skip_reason"]
    assert len(reason) > 160
    assert f"Not run where n > 1000 or d > 100: {reason}." in text


def test_copkmeans_labellings_respect_every_link_or_fail():
    # upstream COPKMeans skipped a must-link whose other sample was in
    # cluster 0 (labels[j] > 0): 7 of these 15 link sets came back "ok"
    # with 1-3 must-links broken
    from sklearn.datasets import make_blobs

    from smiclust.constraints import count_violations
    from smiclust.experiments._peers import (
        PeerFailed,
        fit_peer,
        peer_unavailable_reason,
    )

    if peer_unavailable_reason("copkmeans") is not None:
        pytest.skip(peer_unavailable_reason("copkmeans"))
    X, _ = make_blobs(n_samples=40, centers=3, random_state=0)
    n_ok = 0
    for seed in range(15):
        rng = np.random.RandomState(seed)
        pairs = rng.choice(40, size=(15, 2))
        pairs = np.unique(np.sort(pairs[pairs[:, 0] != pairs[:, 1]], 1), axis=0)
        truth = rng.randint(0, 3, 40)  # links of some labelling: consistent
        same = truth[pairs[:, 0]] == truth[pairs[:, 1]]
        must, cannot = pairs[same], pairs[~same]
        try:
            labels, _ = fit_peer("copkmeans", X, 3, must, cannot,
                                 random_state=0, isolate=False)
        except PeerFailed:
            continue
        n_ok += 1
        assert count_violations(labels, must, cannot) == 0, seed
    assert n_ok >= 10


def test_peer_time_budget():
    from smiclust.experiments._peers import (
        PeerSkipped,
        fit_peer,
        peer_unavailable_reason,
        shutdown_workers,
    )

    if peer_unavailable_reason("copkmeans") is not None:
        pytest.skip(peer_unavailable_reason("copkmeans"))
    X = np.random.RandomState(0).normal(size=(3000, 5))
    try:  # the worker of the previous test, if any, is killed and not reused
        with pytest.raises(PeerSkipped, match="time budget of 0.2 s"):
            fit_peer("copkmeans", X, 2, [], [], time_budget=0.2)
    finally:
        shutdown_workers()


# ---------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------


def _write_records(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(RECORD_FIELDS)
        for r in rows:
            w.writerow([r.get(k, "") for k in RECORD_FIELDS])


def _synthetic(dataset, method, t, curve, n=100, seeds=(0, 1)):
    rows = []
    for f, mean in curve.items():
        for s in seeds:
            rows.append({
                "run_id": f"{dataset}/raw/{method}/t={t}/links={f}/seed={s}",
                "dataset": dataset, "preprocessing": "raw", "method": method,
                "t": "" if t is None else t, "link_fraction": f,
                "links": round(f * n * (n - 1) / 2), "seed": s,
                "ari": mean + (0.01 if s else -0.01), "status": "ok",
                "seconds": 1.0,
            })
    return rows


def test_claims_verdicts_from_synthetic_records(tmp_path):
    from smiclust.experiments import evaluate_claims, load_records, summarize

    levels = (0.0, 0.01, 0.05)
    rows = []
    # faces100: reasonable without links, near-perfect with links
    rows += _synthetic("faces100", "3smic", None, dict(zip(levels, (0.6, 0.8, 0.95))))
    rows += _synthetic("faces100", "sl", 1, dict(zip(levels, (0.1, 0.2, 0.3))))
    rows += _synthetic("faces100", "sl", 7, dict(zip(levels, (0.6, 0.8, 0.9))))
    rows += _synthetic("faces100", "csc", 1, dict(zip(levels, (0.5, 0.3, 0.3))))
    rows += _synthetic("faces100", "csc", 7, dict(zip(levels, (0.5, 0.3, 0.35))))
    path = tmp_path / RECORDS_FILE
    _write_records(path, rows)
    claims = {c["claim"]: c for c in evaluate_claims(summarize(load_records(path)))}
    assert claims["1"]["verdict_raw"] == "reproduced"
    assert claims["3a"]["verdict_raw"] == "reproduced"   # SL range 0.5-0.6
    assert claims["3b"]["verdict_raw"] == "reproduced"   # 3SMIC >= SL t=7
    assert claims["4a"]["verdict_raw"] == "reproduced"   # CSC range <= 0.05
    assert claims["4c"]["verdict_raw"] == "reproduced"   # CSC far below
    assert claims["2"]["verdict_raw"] == "not tested"    # no binary data set
    assert claims["5"]["verdict_raw"] == "not tested"
    evidence = " ".join(claims["3b"]["evidence_raw"])
    assert "SL t=7" in evidence and "+0.02" in evidence


def test_claims_hindsight_t_is_chosen_on_the_levels_with_links(tmp_path):
    # SL t=1 is best without links, t=7 on the levels with links: the claims
    # take t=7, as the table of methods at a glance does; a peer's runs that
    # did not finish are named beside its mean
    from smiclust.experiments import evaluate_claims, load_records, summarize

    levels = (0.0, 0.01, 0.05)
    rows = _synthetic("faces100", "3smic", None, dict(zip(levels, (0.6, 0.8, 0.9))))
    rows += _synthetic("faces100", "sl", 1, dict(zip(levels, (1.0, 0.5, 0.5))))
    rows += _synthetic("faces100", "sl", 7, dict(zip(levels, (0.1, 0.7, 0.7))))
    rows += _synthetic("faces100", "copkmeans", None, dict(zip(levels, (0.5,) * 3)))
    rows[-1].update(status="failed", ari="", error="RuntimeError: no clustering")
    path = tmp_path / RECORDS_FILE
    _write_records(path, rows)
    claims = {c["claim"]: c for c in evaluate_claims(summarize(load_records(path)))}
    evidence = " ".join(claims["3b"]["evidence_raw"])
    assert "SL t=7" in evidence and "SL t=1" not in evidence
    (copk,) = [e for e in claims["6"]["evidence_raw"] if "COPKMeans" in e]
    assert "1 run at levels with links did not" in copk
    (sl,) = [e for e in claims["6"]["evidence_raw"] if "minus SL" in e]
    assert "did not" not in sl


def test_figure_circles_the_levels_with_runs_that_did_not_finish(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from smiclust.experiments import load_records, summarize
    from smiclust.experiments._figures import plot_dataset

    rows = _synthetic("sonar", "3smic", None, {0.0: 0.1, 0.01: 0.6, 0.05: 0.9})
    rows += _synthetic("sonar", "copkmeans", None, {0.0: 0.1, 0.01: 0.7, 0.05: 0.9})
    rows[-3].update(status="failed", ari="")  # seed 1 at 0.01
    _write_records(tmp_path / RECORDS_FILE, rows)
    ax = plot_dataset(summarize(load_records(tmp_path / RECORDS_FILE)), "sonar", "raw")
    circles = [line for line in ax.get_lines()
               if line.get_markerfacecolor() == "none" and len(line.get_xdata())]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(ax.figure)
    (circle,) = circles
    links = round(0.01 * 100 * 99 / 2)
    assert list(circle.get_xdata()) == [links]
    assert list(circle.get_ydata()) == [pytest.approx(0.69)]  # seed 0 alone
    assert "some runs failed or skipped" in legend


def test_report_from_records(tmp_path):
    from smiclust.experiments import write_report

    rows = _synthetic("parkinson", "3smic", None, {0.0: 0.0, 0.03: 0.7})
    rows += _synthetic("parkinson", "sl", 4, {0.0: 0.05, 0.03: 0.6})
    rows.append({"run_id": "parkinson/raw/pckmeans/t=-/links=0.03/seed=0",
                 "dataset": "parkinson", "preprocessing": "raw",
                 "method": "pckmeans", "link_fraction": 0.03, "seed": 0,
                 "status": "skipped", "error": "exceeded the time budget of 1 s"})
    _write_records(tmp_path / RECORDS_FILE, rows)
    report = write_report(tmp_path / RECORDS_FILE, tmp_path, figures=False)
    report = report.read_text()
    assert "| 3SMIC (auto) | 0.00 ± 0.01 | 0.70 ± 0.01 |" in report
    assert "| PCKMeans |  | skipped |" in report
    assert "exceeded the time budget of 1 s" in report
    assert "| 2 | parkinson, spam, sonar" in report


@pytest.mark.parametrize("args, message", [
    (["--datasets", "nope"], "--datasets must be among"),
    (["--methods", "kmeans"], "--methods must be among"),
    (["--seeds", "0"], "--seeds must be at least 1"),
    (["--link-levels", "1.5"], "--link-levels must lie in"),
    (["--time-budget", "0"], "--time-budget must be positive"),
])
def test_cli_usage_errors(args, message, capsys, tmp_path):
    from smiclust.cli import main

    assert main(["reproduce", "--out", str(tmp_path), *args]) == 2
    assert message in capsys.readouterr().err


def test_cli_config_selection():
    from smiclust.cli import build_parser
    from smiclust.commands.reproduce import build_config

    args = build_parser().parse_args(
        ["reproduce", "--datasets", "spam", "--methods", "3smic", "sl",
         "--seeds", "3", "--link-levels", "0", "0.001"])
    config = build_config(args)
    assert config["seeds"] == (0, 1, 2)
    assert config["datasets"] == {"spam": {"link_fractions": (0.0, 0.001),
                                           "preprocessing": ("raw", "standardized")}}
    assert config["methods"]["sl"]["ts"] == (1, 4, 7, 10)
    assert config["methods"]["3smic"]["params"] == {}  # full grids ("auto")
    full = build_config(build_parser().parse_args(["reproduce"]))
    assert len(full["seeds"]) == 20 and len(full["datasets"]) == 6
    # the paper's seven: the methods beyond the paper are not in its protocol
    assert set(full["methods"]) == {"3smic", "sl", "csc", "pckmeans", "mpckmeans",
                                    "copkmeans", "e2cp"}
    assert math.isclose(full["datasets"]["spam"]["link_fractions"][-2], 0.001)


def _sl_level(t, fraction, mean, n_ok, n_failed):
    """One summary row of SL at ``t`` on raw parkinson (pairs protocol)."""
    return dict(dataset="parkinson", preprocessing="raw", method="sl",
                t=float(t), curve=f"SL t={t}", link_fraction=fraction, links=10.0,
                mean=mean, std=0.0, n_ok=n_ok, n_failed=n_failed, n_skipped=0,
                protocol="pairs", seconds=1.0)


def test_hindsight_t_counts_runs_that_gave_no_clustering_as_zero():
    # SL t=1 finished only at the easiest level (0.90) and failed every run
    # at the two others; t=7 finished everywhere at 0.85: the claims and the
    # beyond report pick t=7 (0.30 against 0.85 with failures as ARI 0)
    pd = pytest.importorskip("pandas")
    from smiclust.experiments._beyond import _best_t
    from smiclust.experiments._claims import _View

    summary = pd.DataFrame([
        _sl_level(t, fraction, float("nan") if mean is None else mean,
                  0 if mean is None else 5, 5 if mean is None else 0)
        for t, means in ((1, (0.9, None, None)), (7, (0.85, 0.85, 0.85)))
        for fraction, mean in zip((0.01, 0.05, 0.1), means)
    ])
    t, curve = _View(summary, "raw").hindsight("parkinson", "sl")
    assert t == 7 and curve == {0.01: 0.85, 0.05: 0.85, 0.1: 0.85}
    assert _best_t(summary, "sl") == {("parkinson", "raw", "pairs"): 7.0}
    # with 4 of the 5 runs failed at the two harder levels t=1 is still out
    # ((0.9 + 0.18 + 0.18) / 3 = 0.42), though each level's mean is 0.9
    summary.loc[summary["t"] == 1, ["mean", "n_ok", "n_failed"]] = (0.9, 1, 4)
    summary.loc[(summary["t"] == 1) & (summary["link_fraction"] == 0.01),
                ["n_ok", "n_failed"]] = (5, 0)
    assert _View(summary, "raw").hindsight("parkinson", "sl")[0] == 7
    assert _best_t(summary, "sl") == {("parkinson", "raw", "pairs"): 7.0}


def test_a_failed_run_never_raises_a_curves_ranking():
    # two t at chance level, -0.05 at both levels; t=2 failed half of its
    # runs: counted as ARI 0 those failures would rank it first (-0.025)
    pd = pytest.importorskip("pandas")
    from smiclust.experiments._beyond import _best_t
    from smiclust.experiments._claims import _View
    from smiclust.experiments._summary import comparison_table, ranking_mean

    summary = pd.DataFrame([_sl_level(t, fraction, -0.05, n_ok, 6 - n_ok)
                            for t, n_ok in ((1, 6), (2, 3))
                            for fraction in (0.01, 0.05)])
    assert _View(summary, "raw").hindsight("parkinson", "sl")[0] == 1
    assert _best_t(summary, "sl") == {("parkinson", "raw", "pairs"): 1.0}
    (row,) = comparison_table(summary)
    assert row["sl_best"][0] == "SL t=1"  # a tie at -0.05: t=2 not above
    # the rule: a failure counts as 0, or as the level's mean below 0
    assert ranking_mean(0.6, 3, 6) == pytest.approx(0.3)
    assert ranking_mean(-0.05, 3, 6) == pytest.approx(-0.05)
    assert ranking_mean(float("nan"), 0, 5) == 0.0


def test_comparison_table_averages_levels_with_links_and_picks_by_hindsight():
    pd = pytest.importorskip("pandas")
    from smiclust.experiments._summary import comparison_table

    rows = []

    def add(method, t, curve, means, seconds=1.0):
        for fraction, mean in means.items():
            rows.append(dict(dataset="sonar", preprocessing="raw", method=method,
                             t=t, curve=curve, link_fraction=fraction, mean=mean,
                             n_ok=0 if mean is None else 3,
                             n_failed=3 if mean is None else 0, n_skipped=0,
                             seconds=seconds))

    add("3smic", None, "3SMIC (auto)", {0.0: 0.1, 0.01: 0.5, 0.02: 0.9}, 2.0)
    add("sl", 1, "SL t=1", {0.0: 0.9, 0.01: 0.2, 0.02: 0.4})
    add("sl", 4, "SL t=4", {0.0: 0.0, 0.01: 0.6, 0.02: 0.8})
    add("pckmeans", None, "PCKMeans", {0.0: 0.3, 0.01: 0.7, 0.02: None})
    add("copkmeans", None, "COPKMeans", {0.0: 0.3, 0.01: 0.5, 0.02: 0.5})
    (row,) = comparison_table(pd.DataFrame(rows))
    assert row["n_levels"] == 2  # the level without links is left out
    assert row["3smic"] == ("3SMIC (auto)", pytest.approx(0.7), 2, 2.0, 0, 6)
    assert row["sl_best"][:3] == ("SL t=4", pytest.approx(0.7), 2)
    assert row["sl_worst"][:3] == ("SL t=1", pytest.approx(0.3), 2)
    # PCKMeans finished at one level of two (0.7) and failed at the other:
    # ranked as (0.7 + 0) / 2 it is below COPKMeans's 0.5 at both levels
    assert row["peer_best"] == ("COPKMeans", pytest.approx(0.5), 2, 1.0, 0, 6)
    assert row["csc_best"] is None
    from smiclust.experiments._report import _comparison_section

    (line,) = [x for x in _comparison_section(pd.DataFrame(rows))
               if x.startswith("| sonar")]
    assert line.endswith("| COPKMeans: 0.50, 1 s |")
    assert "3SMIC (auto)" not in line and "| 0.70, 2 s |" in line
    # alone, PCKMeans is shown with its mean over the level it finished and
    # its three runs that did not finish counted
    rows = [r for r in rows if r["method"] != "copkmeans"]
    (row,) = comparison_table(pd.DataFrame(rows))
    assert row["peer_best"] == ("PCKMeans", pytest.approx(0.7), 1, 1.0, 3, 6)
    (line,) = [x for x in _comparison_section(pd.DataFrame(rows))
               if x.startswith("| sonar")]
    assert line.endswith("| PCKMeans: 0.70 [1], 1 s, 3 of 6 runs not ok |")


def test_rerun_before_redoes_older_runs_once_and_resumes(quick_run, tmp_path):
    from datetime import datetime, timedelta, timezone

    out, first, _ = quick_run
    target = tmp_path / "rerun"
    target.mkdir()
    (target / RECORDS_FILE).write_text((out / RECORDS_FILE).read_text())
    cutoff = datetime.now(timezone.utc) + timedelta(seconds=1)
    before = _stable(read_records(target / RECORDS_FILE))
    redone = run_experiment(quick_config(), target, progress=False,
                            rerun_before=cutoff)
    assert redone["new_runs"] == first["n_runs"]  # every run predates the cutoff
    again = run_experiment(quick_config(), target, progress=False,
                           rerun_before=cutoff - timedelta(days=1))
    assert again["new_runs"] == 0  # the redone records are newer: resumable
    records = read_records(target / RECORDS_FILE)
    assert len(records) == 2 * first["n_runs"]  # appended, not rewritten
    latest = {r["run_id"]: r for r in records}  # last record wins
    assert len(load_records(target / RECORDS_FILE)) == first["n_runs"]
    # deterministic runs: the redone records equal the old ones but for timing
    assert _stable(latest.values()) == before


def test_rerun_before_command_line_time(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "smiclust", "reproduce", "--quick",
                           "--rerun-before", "yesterday", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "expected an ISO 8601 time" in proc.stderr


def test_finished_time_of_records_without_zone_or_time():
    from datetime import datetime, timezone

    from smiclust.experiments._runner import _finished

    utc = timezone.utc
    assert _finished({"finished_at": "2026-11-22T10:00:00"}) == datetime(
        2026, 11, 22, 10, tzinfo=utc)
    assert _finished({"finished_at": ""}) == datetime.fromtimestamp(0, utc)
    assert _finished({"finished_at": "2026-11-22T10:00:00+00:00"}) < datetime(
        2026, 11, 22, 11, tzinfo=utc)


def test_coverage_cells_count_the_runs_that_did_not_finish():
    from smiclust.experiments._report import _coverage_cell

    pd = pytest.importorskip("pandas")

    def cell(statuses, seeds):
        return _coverage_cell(pd.DataFrame({"status": statuses, "seed": seeds}))

    assert cell([], []) == "not run"
    assert cell(["ok"] * 4, [0, 0, 1, 1]) == "2 seeds, 4 runs"
    assert (cell(["ok", "failed", "skipped", "failed"], [0, 1, 2, 2])
            == "3 seeds, 4 runs (2 failed, 1 skipped)")
    assert cell(["skipped"] * 3, [0, 1, 2]) == "skipped (3 seeds, 3 runs)"


# ---------------------------------------------------------------------------
# beyond the paper: measures, COBS, labels protocol, win table, old records
# ---------------------------------------------------------------------------


def test_ari_unlinked_uses_only_the_samples_in_no_link():
    from smiclust.experiments._runner import ari_unlinked, unlinked_mask

    y = np.array([0, 0, 1, 1, 0, 1])
    labels = np.array([1, 0, 0, 1, 0, 1])  # wrong on the linked 0..3
    must, cannot = np.array([[0, 1]]), np.array([[2, 3]])
    assert unlinked_mask(6, must, cannot).tolist() == [False] * 4 + [True] * 2
    assert ari_unlinked(y, labels, must, cannot) == 1.0  # samples 4, 5
    # fewer than 2 samples in no link: no score
    assert math.isnan(ari_unlinked(y, labels, must, np.array([[2, 3], [4, 5]])))
    assert math.isnan(ari_unlinked(y, labels, np.array([[0, 1], [2, 3]]),
                                   np.array([[4, 0]])))
    # no links at all: the ARI on every sample
    from sklearn.metrics import adjusted_rand_score

    empty = np.empty((0, 2), dtype=int)
    assert ari_unlinked(y, labels, empty, empty) == adjusted_rand_score(y, labels)


def test_links_only_labelling_is_the_must_link_closure_and_singletons():
    from smiclust.experiments._runner import links_only_labels

    labels = links_only_labels(7, np.array([[0, 1], [1, 2], [4, 5]]),
                               np.array([[2, 4], [3, 6]]))
    # groups {0,1,2}, {4,5}; 3 and 6 alone; cannot-links change nothing
    assert labels[0] == labels[1] == labels[2]
    assert labels[4] == labels[5] != labels[0]
    assert len({labels[3], labels[6], labels[0], labels[4]}) == 4
    assert np.unique(links_only_labels(4, np.empty((0, 2), int),
                                       np.empty((0, 2), int))).size == 4


def test_cobs_keeps_the_candidate_with_fewest_violations():
    from smiclust.experiments._cobs import select_fewest_violations

    must = np.array([[0, 1], [2, 3]])
    cannot = np.array([[0, 2]])

    def boom():
        raise ValueError("cannot run")

    candidates = [
        ("bad", lambda: np.array([0, 1, 0, 1])),     # 3 violations
        ("fails", boom),
        ("good", lambda: np.array([0, 0, 1, 1])),    # 0
        ("also-good", lambda: np.array([1, 1, 0, 0])),  # 0, later: tie -> first
    ]
    labels, info = select_fewest_violations(candidates, must, cannot)
    assert labels.tolist() == [0, 0, 1, 1]
    assert info == {"chosen": "good", "violations": 0, "n_candidates": 3,
                    "failed": ["fails"]}
    with pytest.raises(RuntimeError, match="every candidate"):
        select_fewest_violations([("fails", boom)], must, cannot)


def test_cobs_on_moons_picks_a_clustering_that_respects_the_links():
    from sklearn.datasets import make_moons
    from sklearn.metrics import adjusted_rand_score

    from smiclust.constraints import count_violations, sample_links
    from smiclust.experiments._cobs import cobs_candidates, cobs_labels

    X, y = make_moons(200, noise=0.04, random_state=0)
    must, cannot = sample_links(y, 200, random_state=0)
    labels, info = cobs_labels(X, 2, must, cannot, random_state=0)
    fewest = min(count_violations(fit(), must, cannot)
                 for _, fit in cobs_candidates(X, 2, random_state=0))
    assert info["violations"] == fewest == count_violations(labels, must, cannot)
    assert not info["chosen"].startswith("kmeans")  # k-means cuts the moons
    assert adjusted_rand_score(y, labels) > 0.9


def test_labels_protocol_links_every_pair_of_the_labelled_samples():
    from smiclust.experiments._runner import _draw_links

    y = np.repeat([0, 1, 2], 10)
    must, cannot, partial, flipped = _draw_links(y, "labels", 0.2, seed=3)
    assert flipped is None
    labelled = np.flatnonzero(partial >= 0)
    assert labelled.size == 6
    assert len(must) + len(cannot) == 6 * 5 // 2
    assert all(y[i] == y[j] for i, j in must)
    assert all(y[i] != y[j] for i, j in cannot)
    # the same seed draws the same samples; the pairs protocol has no labels
    assert np.array_equal(_draw_links(y, "labels", 0.2, seed=3)[2], partial)
    assert _draw_links(y, "pairs", 0.1, seed=3)[2] is None
    with pytest.raises(ValueError, match="'protocol'"):
        _draw_links(y, "triples", 0.1, seed=3)


def test_beyond_config_and_its_runs():
    from smiclust.cli import build_parser
    from smiclust.commands.reproduce import build_config
    from smiclust.experiments import beyond_config, plan_runs

    config = beyond_config()
    assert config["name"] == "beyond" and config["seeds"] == tuple(range(5))
    assert list(config["datasets"]) == ["faces100", "parkinson", "sonar",
                                        "digits500"]
    assert config["datasets"]["sonar"]["preprocessing"] == ("raw", "standardized")
    assert config["methods"]["smiclust"]["params"] == {}  # the library default
    runs = plan_runs(config)
    protocols = {(r["method"], r["protocol"]) for r in runs}
    assert ("labelspreading", "pairs") not in protocols
    assert ("labelspreading", "labels") in protocols
    assert ("pckmeans", "labels") not in protocols
    ids = [r["run_id"] for r in runs]
    assert len(set(ids)) == len(ids)
    assert "faces100/raw/smiclust/t=auto/links=0.01/seed=0" in ids
    assert "faces100/raw/smiclust/t=auto/labelled=0.1/seed=0" in ids
    args = build_parser().parse_args(["reproduce", "--config", "beyond",
                                      "--seeds", "2", "--datasets", "faces100"])
    cli = build_config(args)
    assert cli["seeds"] == (0, 1) and list(cli["datasets"]) == ["faces100"]
    assert cli["methods"]["e2cp"]["protocols"] == ("pairs",)
    assert cli["datasets"]["faces100"]["label_fractions"] == (0.05, 0.1, 0.2)


def test_beyond_runs_record_the_new_measures(tmp_path):
    config = make_config(
        "beyond",
        datasets={"faces100": {"link_fractions": (0.0, 0.2),
                               "preprocessing": ("raw",),
                               "label_fractions": (0.5,)}},
        methods=("cobs", "labelspreading"), seeds=(0,))
    run_experiment(config, tmp_path, progress=False)
    records = {(r["method"], r["protocol"], float(r["link_fraction"])): r
               for r in read_records(tmp_path / RECORDS_FILE)}
    assert set(records) == {("cobs", "pairs", 0.0), ("cobs", "pairs", 0.2),
                            ("cobs", "labels", 0.5),
                            ("labelspreading", "labels", 0.5)}
    assert {r["status"] for r in records.values()} == {"ok"}
    none = records[("cobs", "pairs", 0.0)]
    assert none["ari_unlinked"] == none["ari"] and none["unlinked"] == "100"
    assert float(none["ari_links_only"]) == 0.0  # every sample alone
    top = records[("cobs", "pairs", 0.2)]
    assert top["ari_unlinked"] == "" and top["unlinked"] == "0"
    assert float(top["ari_links_only"]) > 0.5
    half = records[("labelspreading", "labels", 0.5)]
    assert half["unlinked"] == "50" and half["links"] == str(50 * 49 // 2)


def test_win_tie_loss_rule_on_a_hand_made_summary():
    pd = pytest.importorskip("pandas")
    from smiclust.experiments._beyond import win_table, win_tie_loss

    assert win_tie_loss(0.80, 0.05, 0.70, 0.02) == "win"
    assert win_tie_loss(0.70, 0.05, 0.74, 0.02) == "tie"
    assert win_tie_loss(0.60, 0.05, 0.70, 0.08) == "loss"   # 0.10 > 0.08
    assert win_tie_loss(0.60, 0.05, 0.70, 0.12) == "tie"    # the larger std
    assert win_tie_loss(0.995, 0.0, 1.0, 0.0) == "tie"      # floor 0.01
    assert win_tie_loss(float("nan"), 0.0, 1.0, 0.0) is None

    def row(method, t, curve, f, mean, std, mean_u, std_u, n_ok=3, bad=0):
        return dict(dataset="sonar", preprocessing="raw", protocol="pairs",
                    method=method, t=t, curve=curve, link_fraction=f, links=10 * f,
                    unlinked=50.0 if f < 2 else 5.0, mean=mean, std=std,
                    mean_unlinked=mean_u, std_unlinked=std_u, links_only=0.1,
                    n_ok=n_ok, n_failed=bad, n_skipped=0, seconds=1.0)

    nan = float("nan")
    summary = pd.DataFrame([
        row("smiclust", nan, "smiclust (default)", 1, 0.90, 0.02, 0.80, 0.05),
        row("sl", 4, "SL t=4", 1, 0.70, 0.05, 0.85, 0.01),
        row("sl", 7, "SL t=7", 1, 0.75, 0.03, 0.60, 0.01),
        # best on paper, but one run failed: does not compete
        row("cobs", nan, "COBS", 1, 0.99, 0.0, 0.99, 0.0, bad=1),
        # 5 samples in no link: too few for the unlinked comparison
        row("smiclust", nan, "smiclust (default)", 2, 0.50, 0.05, 0.0, 0.0),
        row("csc", 1, "CSC t=1", 2, 0.65, 0.04, 1.0, 0.0),
        # level 0 (no links; no default there, so no cell) does not choose t
        row("csc", 1, "CSC t=1", 0, 0.95, 0.0, 0.95, 0.0),
        row("sl", 4, "SL t=4", 0, 0.9, 0.0, 0.9, 0.0),
        row("sl", 7, "SL t=7", 0, 0.2, 0.0, 0.2, 0.0),
        row("cobs", nan, "COBS", 0, 0.2, 0.0, 0.2, 0.0),
    ])
    first, second = win_table(summary)
    assert first["best"][:2] == ("SL t=7", 0.75) and first["verdict"] == "win"
    # SL competes at its best t over the levels with links (t=7), not at t=4,
    # which is better on the unlinked samples only
    assert first["best_unlinked"][:2] == ("SL t=7", 0.60)
    assert first["verdict_unlinked"] == "win"  # 0.20 above, larger std 0.05
    assert second["verdict"] == "loss"  # 0.15 below, larger std 0.05
    assert second["verdict_unlinked"] is None and second["best_unlinked"] is None


def test_beyond_report_from_records(tmp_path):
    from smiclust.experiments import write_beyond_report

    rows = []
    for method, curve in (("smiclust", (0.5, 0.9)), ("sl", (0.6, 0.6))):
        for f, mean in zip((0.0, 0.03), curve):
            for s in (0, 1):
                rows.append({
                    "run_id": f"parkinson/raw/{method}/links={f}/seed={s}",
                    "dataset": "parkinson", "preprocessing": "raw",
                    "method": method, "t": 4 if method == "sl" else "",
                    "link_fraction": f, "links": round(f * 18915), "seed": s,
                    "n_samples": 195, "ari": mean + (0.01 if s else -0.01),
                    "ari_unlinked": mean, "unlinked": 195 if f == 0 else 10,
                    "ari_links_only": 0.3 * f, "status": "ok", "seconds": 1.0,
                    "protocol": "pairs"})
    rows.append({"run_id": "parkinson/raw/cobs/links=0.03/seed=0",
                 "dataset": "parkinson", "preprocessing": "raw", "method": "cobs",
                 "link_fraction": 0.03, "seed": 0, "status": "failed",
                 "error": "RuntimeError: every candidate failed"})
    _write_records(tmp_path / RECORDS_FILE, rows)
    report = write_beyond_report(tmp_path / RECORDS_FILE, tmp_path,
                                 figures=False).read_text()
    assert report.startswith("# Beyond the 3SMIC paper")
    assert "all samples: **1 win, 0 tie, 1 loss** (of 2 cells)" in report
    assert ("| parkinson (raw) | 567 (3 %) | 2 | 10 | 0.01 | 0.90 ± 0.01 | n/a | "
            "SL t=4: 0.60 ± 0.01 | win |") in report
    assert "0.50 vs SL t=4 0.60 (-0.10)" in report  # the loss is listed
    assert "RuntimeError: every candidate failed" in report
    check = _cli("--config", "beyond", "--report-only", "--out", str(tmp_path))
    assert json.loads(check.stdout)["report"].endswith("report.md")


def test_report_only_describes_the_directory_s_config_as_it_is(tmp_path):
    # a directory where a restricted run went (seeds 0-1, two methods): the
    # report written from its records alone must not plan the config's
    # default seeds or list methods that never ran
    rows = [{"run_id": f"parkinson/raw/{m}/links=0.03/seed={s}",
             "dataset": "parkinson", "preprocessing": "raw", "method": m,
             "t": 4 if m == "sl" else "", "link_fraction": 0.03, "links": 567,
             "seed": s, "n_samples": 195, "ari": 0.5, "ari_unlinked": 0.5,
             "unlinked": 10, "ari_links_only": 0.1, "status": "ok",
             "seconds": 1.0, "protocol": "pairs"}
            for m in ("smiclust", "sl") for s in (0, 1)]
    _write_records(tmp_path / RECORDS_FILE, rows)
    config = json.loads(json.dumps(beyond_config()))
    config["seeds"] = [0, 1]
    config["methods"] = {m: config["methods"][m] for m in ("smiclust", "sl")}
    (tmp_path / "config.json").write_text(json.dumps(config))
    before = (tmp_path / "config.json").read_bytes()
    _cli("--config", "beyond", "--report-only", "--out", str(tmp_path))
    report = (tmp_path / "report.md").read_text()
    assert "seeds 0, 1 planned" in report
    methods = report.split("## Methods", 1)[1]
    assert "(`sl`)" in methods and "(`smiclust`)" in methods
    assert "(`csc`)" not in methods and "(`copkmeans`)" not in methods
    assert (tmp_path / "config.json").read_bytes() == before


def test_legacy_records_read_with_the_new_fields_empty(tmp_path):
    from smiclust.experiments._records import LEGACY_RECORD_FIELDS, RecordWriter

    path = tmp_path / RECORDS_FILE
    row = {k: "" for k in LEGACY_RECORD_FIELDS}
    row.update(run_id="a", dataset="sonar", preprocessing="raw", method="sl",
               link_fraction="0", seed="0", ari="0.5", status="ok")
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(LEGACY_RECORD_FIELDS)
        w.writerow([row[k] for k in LEGACY_RECORD_FIELDS])
    (record,) = read_records(path)
    assert record["ari"] == "0.5" and record["ari_unlinked"] == ""
    df = load_records(path)
    assert math.isnan(df["ari_unlinked"][0]) and df["protocol"][0] == "pairs"
    # appending keeps the file's own columns
    writer = RecordWriter(path)
    writer.write({**row, "run_id": "b", "ari_unlinked": 0.3})
    writer.close()
    lines = path.read_text().splitlines()
    assert lines[0] == ",".join(LEGACY_RECORD_FIELDS)
    assert len(next(csv.reader([lines[2]]))) == len(LEGACY_RECORD_FIELDS)
    assert [r["run_id"] for r in read_records(path)] == ["a", "b"]


def test_the_committed_paper_report_regenerates_byte_identical(tmp_path):
    """docs/reproduction: its records stay readable, its report unchanged."""
    import shutil
    from pathlib import Path

    from smiclust.experiments import write_report

    docs = Path(__file__).resolve().parents[1] / "docs" / "reproduction"
    for name in (RECORDS_FILE, "config.json"):
        shutil.copy(docs / name, tmp_path / name)
    config = json.loads((docs / "config.json").read_text())
    report = write_report(tmp_path / RECORDS_FILE, tmp_path, config=config)
    assert report.read_bytes() == (docs / "report.md").read_bytes()


def test_merge_configs_keeps_what_the_directory_holds():
    from smiclust.experiments import make_config, merge_configs

    spec = {"link_fractions": (0.0, 0.1), "preprocessing": ("raw",)}
    previous = json.loads(json.dumps(make_config(
        "quick", datasets={"sonar": spec, "faces100": spec},
        methods=("3smic", "sl"), seeds=range(2))))
    narrower = {"link_fractions": (0.1,), "preprocessing": ("raw",)}
    now = make_config("quick", datasets={"faces100": narrower, "parkinson": spec},
                      methods=("csc", "sl"), seeds=(1, 3))
    merged = merge_configs(previous, now)
    assert merged["name"] == "quick"
    assert merged["seeds"] == [0, 1, 3]
    assert list(merged["datasets"]) == ["sonar", "faces100", "parkinson"]
    # a data set in both keeps the levels of either (its records stay)
    assert merged["datasets"]["faces100"]["link_fractions"] == [0.0, 0.1]
    assert merged["datasets"]["faces100"]["preprocessing"] == ["raw"]
    assert list(merged["methods"]) == ["3smic", "sl", "csc"]
    assert merged == json.loads(json.dumps(merged))  # plain JSON data
    # another config's directory, or none: the new config as it is
    other = make_config("full", datasets={"sonar": spec}, methods=("sl",), seeds=(0,))
    assert merge_configs(previous, other) == json.loads(json.dumps(other))
    assert merge_configs(None, now) == json.loads(json.dumps(now))
    assert previous["methods"] and list(previous["methods"]) == ["3smic", "sl"]


@pytest.mark.parametrize("change, match", [
    (dict(methods=["nope"]), "'methods' parameter of make_config must be a sequence "
     "of method names"),
    (dict(methods="sl"), "'methods' parameter"),
    (dict(seeds=[1.7]), "'seeds' parameter of make_config must be a sequence of "
     "ints >= 0"),
    (dict(seeds="12"), "'seeds' parameter"),
    (dict(datasets={"nope": {"link_fractions": [0.1], "preprocessing": ["raw"]}}),
     "'datasets' parameter of make_config: dataset must be one of"),
    (dict(datasets={"sonar": {"link_fractions": [0.1], "preprocessing": "raw"}}),
     r"datasets\['sonar'\]\['preprocessing'\]"),
    (dict(datasets={"sonar": {"link_fractions": [5], "preprocessing": ["raw"]}}),
     r"datasets\['sonar'\]\['link_fractions'\].* fractions in \[0, 1\]; got \[5\]"),
    (dict(datasets={"sonar": {"preprocessing": ["raw"]}}),
     r"\['link_fractions'\]"),
    (dict(method_overrides={"sl": {"time_budjet": 3}}),
     r"method_overrides\['sl'\].* got \['time_budjet'\]"),
    (dict(method_overrides={"csc": {"ts": [3]}}), "'method_overrides' parameter"),
])
def test_make_config_refuses_what_no_run_can_use(change, match):
    # nonsense was kept and failed later, once per run, or raised KeyError
    parts = dict(datasets={"sonar": {"link_fractions": [0.1],
                                     "preprocessing": ["raw"]}},
                 methods=["sl"], seeds=[0])
    parts.update(change)
    with pytest.raises(ValueError, match=match):
        make_config("x", **parts)


def test_runs_skipped_as_not_installed_are_redone_once_the_peer_is(monkeypatch):
    # "pip install 'smiclust[bench]'", as the skip says, and run again: the
    # peer's runs are done then, not kept as skipped for ever
    from smiclust.experiments import _peers

    runs = [{"run_id": name} for name in ("a", "b", "c", "d")]
    records = [
        {"run_id": "a", "status": "ok", "method": "smic", "error": ""},
        {"run_id": "b", "status": "skipped", "method": "pckmeans",
         "error": "active-semi-supervised-clustering is not installed "
                  "(pip install 'smiclust[bench]')"},
        {"run_id": "c", "status": "skipped", "method": "pckmeans",
         "error": "exceeded the time budget of 120 s"},
    ]

    def to_do():
        return [r["run_id"] for r in _runner._runs_to_do(
            runs, records, retry_failed=False, rerun_before=None)]

    monkeypatch.setattr(_peers, "peer_unavailable_reason", lambda name: None)
    assert to_do() == ["b", "d"]
    monkeypatch.setattr(_peers, "peer_unavailable_reason",
                        lambda name: f"{name} is not installed")
    assert to_do() == ["d"]


def _beyond_row(method, t, curve, f, mean, std, mean_u=0.5, std_u=0.0, n_ok=3,
                failed=0, skipped=0, unlinked=50.0):
    return dict(dataset="sonar", preprocessing="raw", protocol="pairs",
                method=method, t=t, curve=curve, link_fraction=f, links=10.0,
                unlinked=unlinked, mean=mean, std=std, mean_unlinked=mean_u,
                std_unlinked=std_u, links_only=0.1, n_ok=n_ok, n_failed=failed,
                n_skipped=skipped, seconds=1.0)


def test_a_difference_equal_to_the_spread_is_a_tie():
    # E1: d = s exactly (binary-exact values) is neither win nor loss
    from smiclust.experiments._beyond import win_tie_loss

    assert win_tie_loss(0.5, 0.25, 0.25, 0.0) == "tie"
    assert win_tie_loss(0.25, 0.0, 0.5, 0.25) == "tie"
    assert win_tie_loss(0.5, 0.0, 0.25, 0.125) == "win"


@pytest.mark.parametrize("kw", [dict(n_ok=1), dict(skipped=1), dict(failed=1)])
def test_a_curve_competes_only_with_enough_seeds_all_finished(kw):
    # E2, E5: one finished seed (< MIN_SEEDS), or a skipped / failed run at
    # the level, keeps a better curve out of the comparison
    pd = pytest.importorskip("pandas")
    from smiclust.experiments._beyond import win_table

    nan = float("nan")
    summary = pd.DataFrame([
        _beyond_row("smiclust", nan, "smiclust (default)", 1, 0.6, 0.01),
        _beyond_row("cobs", nan, "COBS", 1, 0.9, 0.01, **kw),
        _beyond_row("e2cp", nan, "E2CP", 1, 0.5, 0.01),
    ])
    (row,) = win_table(summary)
    assert row["best"][0] == "E2CP" and row["verdict"] == "win"


def test_unlinked_comparison_from_exactly_min_unlinked_samples():
    # E3: a median of MIN_UNLINKED (10) samples in no link is enough
    pd = pytest.importorskip("pandas")
    from smiclust.experiments._beyond import MIN_UNLINKED, win_table

    nan = float("nan")
    summary = pd.DataFrame([
        _beyond_row("smiclust", nan, "smiclust (default)", 1, 0.6, 0.01,
                    0.9, 0.01, unlinked=float(MIN_UNLINKED)),
        _beyond_row("e2cp", nan, "E2CP", 1, 0.5, 0.01, 0.5, 0.01,
                    unlinked=float(MIN_UNLINKED)),
    ])
    (row,) = win_table(summary)
    assert row["verdict_unlinked"] == "win"


def test_report_cell_counts_skipped_runs_as_not_ok():
    # E12: a level with 2 finished seeds and 1 skipped one says 1/3 not ok
    from types import SimpleNamespace

    from smiclust.experiments._report import _cell

    row = SimpleNamespace(n_ok=2, n_failed=0, n_skipped=1, mean=0.5, std=0.01)
    assert _cell(row) == "0.50 ± 0.01 (1/3 not ok)"
    row = SimpleNamespace(n_ok=2, n_failed=1, n_skipped=1, mean=0.5, std=0.01)
    assert _cell(row) == "0.50 ± 0.01 (2/4 not ok)"
    assert _cell(SimpleNamespace(n_ok=0, n_failed=0, n_skipped=2)) == "skipped"
    assert _cell(SimpleNamespace(n_ok=0, n_failed=2, n_skipped=0)) == "failed"
    # a failure beside a skip is not hidden by it
    assert _cell(SimpleNamespace(n_ok=0, n_failed=1, n_skipped=1)) == (
        "1 failed, 1 skipped")
