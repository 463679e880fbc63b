"""ARPACK's restart bound (``smiclust.eigensolvers.ARPACK_MIN_RESTARTS``):
what the default's solves use of it, and what it saves where ARPACK cannot
converge.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/eigen_restarts.py

Part 1 fits the default (seed 0) on the shipped data sets without links and
with 0.5 % of the pairs as random links, and prints the most restarts one
ARPACK solve of the fit used, against the bound ``max(1000, n)``: a solve
that needed more than the bound would now end in the LOBPCG fallback.

Part 2 fits the degree-normalised kernel on blobs with many small, far-away
clumps (each clump is a connected component of the neighbour graph, and
every component has the same largest eigenvalue, so ARPACK cannot converge
at machine precision) with SciPy's bound ``10 n`` and with this one, side by
side: seconds, their ratio, and whether the labels are identical.

The restarts of a solve are counted from its operator applications:
``(applications - ncv) / (ncv - k)`` with SciPy's ``ncv = min(n, max(2k + 1,
20))``.
"""

import os
import time

import numpy as np
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

import smiclust.eigensolvers as eigensolvers
from smiclust import SMIClustering, sample_links
from smiclust.datasets import (
    load_parkinson,
    load_sonar,
    load_spam,
    make_digits5k,
    make_digits500,
    make_faces100,
)

SHIPPED = [
    ("parkinson", load_parkinson),
    ("sonar", load_sonar),
    ("spam", load_spam),
    ("digits500", lambda: make_digits500(random_state=0)),
    ("digits5k", lambda: make_digits5k(random_state=0)),
    ("faces100", lambda: make_faces100(random_state=0)),
]


class _RestartCounter:
    """Wraps ``eigensolvers.eigsh`` and records the restarts of each call."""

    def __init__(self):
        self.restarts = []
        self.failed = 0
        self._eigsh = eigensolvers.eigsh

    def __call__(self, operator, **kwargs):
        before = getattr(operator, "n_applied", 0)
        try:
            return self._eigsh(operator, **kwargs)
        except Exception:
            self.failed += 1
            raise
        finally:
            n, k = operator.shape[0], kwargs["k"]
            ncv = min(n, max(2 * k + 1, 20))
            applied = getattr(operator, "n_applied", 0) - before
            self.restarts.append(max(0.0, (applied - ncv) / max(ncv - k, 1)))


def clumps(random_state=0, n_clumps=100):
    """Four Gaussian blobs (4,300 samples) and ``n_clumps`` tight clumps of 5-19
    samples far from them and from each other, labelled at random among the
    blobs' classes."""
    X, y = make_blobs(n_samples=[1500, 1200, 900, 700], n_features=5,
                      cluster_std=1.5, random_state=random_state)
    rng = np.random.RandomState(random_state)
    sizes = rng.randint(5, 20, n_clumps)
    parts = [0.2 * rng.normal(size=(s, 5)) + 80 * rng.uniform(-1, 1, 5) for s in sizes]
    labels = [np.full(s, rng.randint(4)) for s in sizes]
    return np.vstack([X, *parts]), np.concatenate([y, *labels])


def part1():
    print("## Part 1: restarts used by the default (seed 0)\n")
    print("| data | n | links | most restarts in one solve | bound | share "
          "| fallbacks |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for name, load in SHIPPED:
        X, y = load()
        n, c = len(y), np.unique(y).size
        for fraction in (0.0, 0.005):
            must, cannot = sample_links(y, int(round(fraction * n * (n - 1) / 2)), 0)
            counter = _RestartCounter()
            eigensolvers.eigsh = counter
            try:
                SMIClustering(c, random_state=0).fit(
                    X, must_link=must, cannot_link=cannot
                )
            finally:
                eigensolvers.eigsh = counter._eigsh
            most = max(counter.restarts, default=0.0)
            bound = max(eigensolvers.ARPACK_MIN_RESTARTS, n)
            print(f"| {name} | {n} | {fraction:.1%} | {most:.0f} | {bound} | "
                  f"{most / bound:.2f} | {counter.failed} |", flush=True)


def part2():
    print("\n## Part 2: the normalised kernel on blobs with 100 far clumps\n")
    X, y = clumps()
    n = len(y)
    print(f"n = {n}\n")
    print("| links | seconds, bound 10 n | seconds, bound max(1000, n) | ratio | "
          "same labels | ARI |")
    print("|---|---:|---:|---:|---|---:|")
    floor = eigensolvers.ARPACK_MIN_RESTARTS
    for fraction in (0.0, 0.005):
        must, cannot = sample_links(y, int(round(fraction * n * (n - 1) / 2)), 0)
        seconds, labels = [], []
        for bound_floor in (10 * n, floor):
            eigensolvers.ARPACK_MIN_RESTARTS = bound_floor
            try:
                model = SMIClustering(4, kernel="normalized", indicator_rotation=True,
                                      random_state=0)
                start = time.perf_counter()
                model.fit(X, must_link=must, cannot_link=cannot)
                seconds.append(time.perf_counter() - start)
                labels.append(model.labels_)
            finally:
                eigensolvers.ARPACK_MIN_RESTARTS = floor
        same = bool(np.array_equal(labels[0], labels[1]))
        print(f"| {fraction:.1%} | {seconds[0]:.1f} | {seconds[1]:.1f} | "
              f"{seconds[0] / seconds[1]:.1f}x | {'yes' if same else 'no'} | "
              f"{adjusted_rand_score(y, labels[1]):.3f} |", flush=True)


if __name__ == "__main__":
    import argparse
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--parts", type=int, nargs="+", choices=[1, 2],
                        default=[1, 2], metavar="N",
                        help="run only these parts (1: about 2 minutes, 2: about "
                             "8 minutes; default: both)")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}\n")
    # the fallbacks warn by design here; their count is in the tables
    warnings.simplefilter("ignore", ConvergenceWarning)
    if 1 in args.parts:
        part1()
    if 2 in args.parts:
        part2()
