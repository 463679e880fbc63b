"""smiclust benchmarks: every target is a ratio measured side by side in one run.

Usage (from the repository root, after ``make test`` or ``make demo`` created .venv)::

    .venv/bin/python benchmarks/run_benchmarks.py            # benchmarks 1-6, ~10 min
    .venv/bin/python benchmarks/run_benchmarks.py --only 1 3
    .venv/bin/python benchmarks/run_benchmarks.py --million  # adds n = 1,000,000 to 4

Each benchmark prints a table; the summary at the end lists every ratio with its
target. Results recorded by hand in benchmarks/RESULTS.md with machine and date.

1. fixed-theta 3SMIC on digits5k vs a dense reference (forms U, numpy.linalg.eigh)
2. full auto-tuning on digits5k vs the same tuning with LSMI recomputed from
   scratch for every candidate (no shared design, no de-duplication)
3. unsupervised SMIC (fixed t) vs sklearn SpectralClustering(nearest_neighbors)
   on the same 20,000 points
4. scaling of 3SMIC with 1,000 links at fixed theta on Gaussian blobs (d = 50):
   wall time, peak memory and where the time goes
5. constrained peers (PCKMeans, COPKMeans, ...) on the same data at n = 5,000
6. the active loop on digits5k (100 questions): refits that reuse the exact
   neighbour searches of X vs a new search in every fit (the same labels)
"""

import argparse
import contextlib
import os
import platform
import subprocess
import sys
import time

import numpy as np
from sklearn.metrics import adjusted_rand_score

from smiclust import (
    ActiveSMIClustering,
    ConstrainedSpectralClustering,
    SMIClustering,
    SpectralLearning,
    lsmi_score,
    sample_links,
)
from smiclust.constraints import check_constraints
from smiclust.datasets import make_digits5k
from smiclust.kernels import (
    local_scaling_kernel_from_neighbors,
    modified_kernel,
    nearest_neighbors,
)
from smiclust.link_operator import dense_smic_matrix
from smiclust.solver import solve_smic

SUMMARY = []


def record(name, value, target, unit="x", higher_is_better=True):
    met = value >= target if higher_is_better else value <= target
    SUMMARY.append((name, value, target, unit, met))


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def header(title):
    print(f"\n=== {title}", flush=True)


# ---------------------------------------------------------------------- 1
def bench_dense_reference(seed=0):
    header("1. fixed-theta 3SMIC on digits5k: matrix-free vs dense eigh")
    X, y = make_digits5k(random_state=seed)
    n = X.shape[0]
    must, cannot = sample_links(y, int(0.001 * n * (n - 1) / 2), random_state=seed)
    t, gamma = 7, 1.0

    def fast():
        model = SMIClustering(
            10, n_neighbors=t, gamma=gamma, eta=0.0, links="paper", random_state=seed
        )
        return model.fit(X, must_link=must, cannot_link=cannot).labels_

    def dense():
        graph = nearest_neighbors(X, t)
        K = local_scaling_kernel_from_neighbors(graph, t)
        K_mod = modified_kernel(K, must, cannot)
        U = dense_smic_matrix(K_mod, must, cannot, gamma, 0.0)
        vals, vecs = np.linalg.eigh(U)
        vecs = vecs[:, ::-1][:, :10]
        signed = vecs * np.sign(vecs.sum(axis=0))
        clipped = np.maximum(signed, 0)
        return np.argmax(signed / clipped.sum(axis=0), axis=1)

    labels_fast, t_fast = timed(fast)
    labels_dense, t_dense = timed(dense)
    agreement = adjusted_rand_score(labels_fast, labels_dense)
    print(f"matrix-free fit (neighbours + kernel + eigsh): {t_fast:8.2f} s")
    print(f"dense reference (form U, numpy eigh)          : {t_dense:8.2f} s")
    print(
        f"speed-up {t_dense / t_fast:.0f}x; ARI between the two labelings "
        f"{agreement:.4f}; ARI vs truth {adjusted_rand_score(y, labels_fast):.3f}"
    )
    record("1 matrix-free vs dense eigh (digits5k)", t_dense / t_fast, 100)
    record("1 ARI(fast, dense)", agreement, 0.99, unit="")


# ---------------------------------------------------------------------- 2
def bench_tuning(seed=0):
    header("2. full auto-tuning on digits5k: shared LSMI design vs from scratch")
    X, y = make_digits5k(random_state=seed)
    n = X.shape[0]
    must, cannot = sample_links(y, int(0.001 * n * (n - 1) / 2), random_state=seed)
    model, t_shared = timed(
        SMIClustering(10, links="paper", random_state=seed).fit,
        X,
        must_link=must,
        cannot_link=cannot,
    )
    res = model.tuning_results_
    n_cand = len(res["param_n_neighbors"])
    solve_time = float(np.sum(res["solve_seconds"]))
    print(
        f"shared design: {t_shared:.2f} s for {n_cand} candidates "
        f"(eigen-solves {solve_time:.2f} s), "
        f"ARI {adjusted_rand_score(y, model.labels_):.3f}"
    )

    # the naive way: every candidate solved and scored by lsmi_score from scratch
    must_c, cannot_c = check_constraints(must, cannot, n)
    graph = nearest_neighbors(X, 10)
    start = time.perf_counter()
    lsmis, nvs = [], []
    for t, gamma, eta in zip(
        res["param_n_neighbors"], res["param_gamma"], res["param_eta"]
    ):
        K = local_scaling_kernel_from_neighbors(graph, int(t))
        sol = solve_smic(K, must_c, cannot_c, 10, gamma, eta, random_state=seed)
        lsmis.append(lsmi_score(X, sol.labels, random_state=seed))
        nvs.append(
            np.count_nonzero(sol.labels[must_c[:, 0]] != sol.labels[must_c[:, 1]])
        )
    t_naive = time.perf_counter() - start
    print(f"from scratch : {t_naive:.2f} s")
    print(f"speed-up {t_naive / t_shared:.1f}x")
    record("2 tuning: shared vs from-scratch LSMI (digits5k)", t_naive / t_shared, 20)
    record(
        "2 tuning absolute time (digits5k), s",
        t_shared,
        20,
        unit="s",
        higher_is_better=False,
    )


# ---------------------------------------------------------------------- 3
def bench_sklearn_spectral(seed=0, n=20_000):
    header(f"3. unsupervised SMIC vs sklearn SpectralClustering, n = {n}")
    from sklearn.cluster import SpectralClustering
    from sklearn.datasets import make_blobs

    X, y = make_blobs(
        n_samples=n, centers=5, n_features=10, cluster_std=2.0, random_state=seed
    )
    t = 10
    smic, t_smic = timed(SMIClustering(5, n_neighbors=t, random_state=seed).fit, X)
    sc = SpectralClustering(
        5, affinity="nearest_neighbors", n_neighbors=t, random_state=seed, n_jobs=1
    )
    labels_sc, t_sc = timed(sc.fit_predict, X)
    print(
        f"smiclust SMIC   : {t_smic:7.2f} s  "
        f"ARI {adjusted_rand_score(y, smic.labels_):.3f}"
    )
    print(
        f"sklearn spectral: {t_sc:7.2f} s  ARI {adjusted_rand_score(y, labels_sc):.3f}"
    )
    record(
        "3 SMIC time / sklearn SpectralClustering time (n=20k)",
        t_smic / t_sc,
        0.5,
        unit="",
        higher_is_better=False,
    )


# ---------------------------------------------------------------------- 4
_SCALING_CHILD = r"""
import sys, time, json, resource
import numpy as np
from sklearn.datasets import make_blobs
from smiclust import sample_links
from smiclust.kernels import modified_kernel
from smiclust.solver import solve_smic
from smiclust.constraints import check_constraints
from smiclust.kernels import local_scaling_kernel_from_neighbors
from smiclust.neighbors import nearest_neighbors
n = int(sys.argv[1]); t = 10
X, y = make_blobs(n_samples=n, centers=10, n_features=50, cluster_std=4.0,
                  random_state=0)
must, cannot = sample_links(y, 1000, random_state=0)
must, cannot = check_constraints(must, cannot, n)
times = {}
from smiclust.neighbors import resolve_algorithm
algorithm = resolve_algorithm("auto", n)
# pynndescent compiles its numba functions in every new process (about 30 s,
# not all of it is cached on disk): paid once per process, reported apart.
s = time.perf_counter()
if algorithm == "approximate":
    nearest_neighbors(X[:2000], t, algorithm="approximate", random_state=0)
jit = time.perf_counter() - s
s = time.perf_counter(); graph = nearest_neighbors(X, t, random_state=0)
times["neighbours"] = time.perf_counter() - s
s = time.perf_counter(); K = local_scaling_kernel_from_neighbors(graph, t)
times["kernel"] = time.perf_counter() - s
s = time.perf_counter()
sol = solve_smic(K, must, cannot, 10, 1.0, 0.0, random_state=0)
times["eigen-solve + post-processing"] = time.perf_counter() - s
from sklearn.metrics import adjusted_rand_score
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2
print(json.dumps({"n": n, "times": times, "total": sum(times.values()),
                  "jit_warmup": jit,
                  "peak_gb": peak, "ari": adjusted_rand_score(y, sol.labels),
                  "algorithm": graph.algorithm}))
"""


def bench_scaling(sizes):
    header("4. scaling: 3SMIC, 1,000 links, fixed theta, blobs d = 50")
    import json

    print(
        f"{'n':>9} {'search':>11} {'neighbours':>10} {'kernel':>7} {'eigen':>7} "
        f"{'total s':>8} {'peak GB':>8} {'ARI':>6} {'+ JIT once':>10}"
    )
    for n in sizes:
        # the child's stderr (warnings, a failure's traceback) passes through
        out = subprocess.run(
            [sys.executable, "-c", _SCALING_CHILD, str(n)],
            stdout=subprocess.PIPE,
            text=True,
            check=True,
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        tm = r["times"]
        print(
            f"{n:>9} {r['algorithm']:>11} {tm['neighbours']:>10.2f} "
            f"{tm['kernel']:>7.2f} {tm['eigen-solve + post-processing']:>7.2f} "
            f"{r['total']:>8.2f} {r['peak_gb']:>8.2f} {r['ari']:>6.3f} "
            f"{r['jit_warmup']:>10.2f}",
            flush=True,
        )
        if n == 100_000:
            record(
                "4 3SMIC n=100k total (JIT apart), s",
                r["total"],
                30,
                unit="s",
                higher_is_better=False,
            )
        if n == 1_000_000:
            record(
                "4 3SMIC n=1M total (JIT apart), s",
                r["total"],
                300,
                unit="s",
                higher_is_better=False,
            )
            record(
                "4 3SMIC n=1M peak memory, GB",
                r["peak_gb"],
                8,
                unit="GB",
                higher_is_better=False,
            )


# ---------------------------------------------------------------------- 5
def bench_peers(seed=0, time_budget=600):
    """3SMIC, the paper's baselines and the installed peers on the same links.

    The peers run through the reproduction's adapters (a worker process, so
    active-semi-supervised-clustering's ``np.seterr`` stays there); a peer that
    is not installed, exceeds ``time_budget`` seconds or raises is reported as
    such, never silently dropped.
    """
    from smiclust.experiments._config import PEER_METHODS
    from smiclust.experiments._peers import PeerFailed, PeerSkipped, fit_peer

    header("5. constrained clustering at n = 5,000 (digits5k, 0.1 % links)")
    X, y = make_digits5k(random_state=seed)
    n = X.shape[0]
    must, cannot = sample_links(y, int(0.001 * n * (n - 1) / 2), random_state=seed)
    print(f"n = {n}, {len(must)} must-links, {len(cannot)} cannot-links")
    rows = []
    fits = [
        ("3SMIC (auto-tuned t, gamma)",
         SMIClustering(10, links="paper", random_state=seed)),
        ("3SMIC (fixed t=7, gamma=1)",
         SMIClustering(10, n_neighbors=7, gamma=1.0, links="paper",
                       random_state=seed)),
        ("smiclust default", SMIClustering(10, random_state=seed)),
        ("SL (t=7)", SpectralLearning(10, n_neighbors=7, random_state=seed)),
        ("CSC (t=7)",
         ConstrainedSpectralClustering(10, n_neighbors=7, random_state=seed)),
    ]
    for name, model in fits:
        _, seconds = timed(model.fit, X, must_link=must, cannot_link=cannot)
        rows.append((name, seconds, adjusted_rand_score(y, model.labels_), ""))
    fixed_seconds = rows[1][1]
    # the peers run here whatever the reproduction's size limit
    # (experiments' max_samples), each within time_budget seconds, but for
    # MPCKMeans: pure Python and quadratic in n, it would take the whole budget
    for name in PEER_METHODS:
        if name == "mpckmeans":
            rows.append((name, float("nan"), float("nan"),
                         "not run: n > 1,000 (pure Python, quadratic in n)"))
            continue
        start = time.perf_counter()
        try:
            labels, _ = fit_peer(name, X, 10, must, cannot, n_neighbors=7,
                                 random_state=seed, time_budget=time_budget)
        except (PeerSkipped, PeerFailed) as exc:
            rows.append((name, time.perf_counter() - start, float("nan"),
                         f"{type(exc).__name__}: {str(exc)[:70]}"))
            continue
        rows.append((name, time.perf_counter() - start,
                     adjusted_rand_score(y, labels), ""))
    print(f"{'method':<30} {'seconds':>9} {'x 3SMIC fixed':>14} {'ARI':>6}")
    for name, seconds, ari, note in rows:
        ratio = seconds / fixed_seconds if seconds == seconds else float("nan")
        print(f"{name:<30} {seconds:9.2f} {ratio:14.1f} {ari:6.3f}  {note}")


# ---------------------------------------------------------------------- 6
def bench_active_refits(seed=0, budget=100):
    header(f"6. active loop on digits5k ({budget} questions): reused vs new "
           "neighbour searches")
    import smiclust.active

    X, y = make_digits5k(random_state=seed)

    def run():
        model = ActiveSMIClustering(10, budget=budget, random_state=seed)
        start = time.process_time()
        model.fit(X, y)
        return model, time.process_time() - start

    reused, t_reused = run()
    kept = smiclust.active.reuse_exact_searches
    smiclust.active.reuse_exact_searches = contextlib.nullcontext
    try:
        fresh, t_fresh = run()
    finally:
        smiclust.active.reuse_exact_searches = kept
    same = bool(np.array_equal(reused.labels_, fresh.labels_)
                and np.array_equal(reused.must_link_, fresh.must_link_)
                and np.array_equal(reused.cannot_link_, fresh.cannot_link_))
    print(f"{len(reused.history_)} fits; reused searches {t_reused:.1f} CPU s, "
          f"a new search in every fit {t_fresh:.1f} CPU s; the same questions "
          f"and labels: {same}; ARI {adjusted_rand_score(y, reused.labels_):.3f}")
    record("6 active refits: new vs reused searches (digits5k)",
           t_fresh / t_reused, 1.15)
    record("6 the same questions and labels", float(same), 1, unit="")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", type=int, nargs="+",
                        default=[1, 2, 3, 4, 5, 6], choices=[1, 2, 3, 4, 5, 6],
                        metavar="N",
                        help="run only these benchmarks (1-6; default: all)")
    parser.add_argument(
        "--million",
        action="store_true",
        help="add n = 1,000,000 to the scaling benchmark",
    )
    args = parser.parse_args(argv)
    print(
        f"smiclust benchmarks — {time.strftime('%Y-%m-%d %H:%M')} — "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )
    if 1 in args.only:
        bench_dense_reference()
    if 2 in args.only:
        bench_tuning()
    if 3 in args.only:
        bench_sklearn_spectral()
    if 4 in args.only:
        sizes = [10_000, 100_000] + ([1_000_000] if args.million else [])
        bench_scaling(sizes)
    if 5 in args.only:
        bench_peers()
    if 6 in args.only:
        bench_active_refits()
    header("summary")
    for name, value, target, unit, met in SUMMARY:
        print(
            f"{'MET ' if met else 'MISS'} {name:<55} {value:10.3f}{unit} "
            f"(target {target}{unit})"
        )


if __name__ == "__main__":
    main()
