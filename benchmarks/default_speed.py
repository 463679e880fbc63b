"""Speed of the default fit with links (issue 11, item 4), side by side with
the paper's 3SMIC on the same problems.

    .venv/bin/python benchmarks/default_speed.py

Targets: n <= 1,000 with links in <= 2 s on one core, spam (4,601 x 57) in
<= 10 s. Few links cost more than many (more distinct labellings to score),
so breast cancer is also fitted with 0.1 % of its pairs linked and with 5 %
of its samples labelled (``partial_labels``). Two synthetic sets show two
other costs: three imbalanced classes, labellings with a dominant cluster
(it holds most LSMI centres); 30 blobs, many clusters whose neighbour graph
falls apart into components (every eigen-solve is split by them). BLAS and
OpenMP are limited to one thread here, and both CPU seconds (what one free
core takes) and wall seconds (what this machine gave, shared or not) are
printed with the load average, so a loaded run can be read. The last case,
20,000 samples with every one labelled, has no target in the issue: it
shows the cost of choosing the rule for new samples on a large fit with
every sample linked (bounded above 5,000 samples); the paper's 3SMIC is
not run there (every pair of 20,000 labelled samples would be a link).

    .venv/bin/python benchmarks/default_speed.py --sweep

fits the default alone on a grid of generic synthetic problems instead
(:func:`sklearn.datasets.make_classification`, 10 features of which 6
informative, one cluster per class: 300 / 600 / 1,000 samples x 2, 3, 4,
6, 10 classes x 0.1 % or 1 % of the pairs or 5 % of the samples labelled,
45 fits, about 80 s) and counts the fits over the 2 s target: the cases
above were chosen for particular costs, the grid shows how common the
misses are.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.datasets import (  # noqa: E402
    load_breast_cancer,
    make_blobs,
    make_classification,
)
from sklearn.metrics import adjusted_rand_score  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from smiclust import SMIClustering  # noqa: E402
from smiclust.datasets import (  # noqa: E402
    load_parkinson,
    load_sonar,
    load_spam,
    make_digits500,
)
from smiclust.experiments._runner import (  # noqa: E402
    _draw_links,
    draw_partial_labels,
)


def _standardized(X, y):
    return StandardScaler().fit_transform(X), y


def _many_clusters():
    """900 samples in 30 Gaussian blobs of 10 features: a neighbour graph of
    about 30 cluster-sized components (every eigen-solve is split by them)."""
    return make_blobs(900, 10, centers=30, cluster_std=2.0, random_state=0)


def _large_labelled():
    """20,000 samples of 20 features in 10 overlapping Gaussian blobs."""
    return make_blobs(20000, 20, centers=10, cluster_std=4.0, random_state=0)


def _imbalanced():
    """900 samples, 20 features (6 informative), classes of 90 / 7 / 3 %."""
    return make_classification(900, 20, n_informative=6, n_classes=3,
                               n_clusters_per_class=1, weights=[0.9, 0.07, 0.03],
                               random_state=0)


CASES = [
    ("sonar raw, 1 %", lambda: load_sonar(), "pairs", 0.01, 2.0),
    ("parkinson std, 1 %", lambda: _standardized(*load_parkinson()), "pairs", 0.01,
     2.0),
    ("digits500, 1 %", lambda: make_digits500(random_state=0), "pairs", 0.01, 2.0),
    ("breast cancer std, 1 %",
     lambda: _standardized(*load_breast_cancer(return_X_y=True)), "pairs", 0.01, 2.0),
    ("breast cancer std, 0.1 %",
     lambda: _standardized(*load_breast_cancer(return_X_y=True)), "pairs", 0.001,
     2.0),
    ("breast cancer std, 5 % labelled",
     lambda: _standardized(*load_breast_cancer(return_X_y=True)), "labels", 0.05,
     2.0),
    ("3 imbalanced classes (synthetic), 0.5 %", _imbalanced, "pairs", 0.005, 2.0),
    ("30 blobs (synthetic), 0.1 %", _many_clusters, "pairs", 0.001, 2.0),
    ("spam std, 0.1 %", lambda: _standardized(*load_spam()), "pairs", 0.001, 10.0),
    ("20,000 in 10 blobs (synthetic), every sample labelled", _large_labelled,
     "labels", 1.0, None),
]


def _side_information(y, protocol, fraction):
    """The fit's keyword arguments and the number of links (or labels) they
    hold, drawn as the reproduction harness draws a run of seed 0: a
    ``fraction`` of the pairs as links, or of the samples labelled."""
    if protocol == "labels":  # not the pairs of the labels (n^2 / 2 of them)
        partial = draw_partial_labels(y, fraction, 0)
        return {"partial_labels": partial}, f"{int((partial >= 0).sum())} labels"
    must, cannot, _, _ = _draw_links(y, protocol, fraction, 0)
    return {"must_link": must, "cannot_link": cannot}, str(len(must) + len(cannot))


def _timed_fit(X, y, side, **params):
    """The default (with ``params``) fitted on ``X`` with ``side``: the
    model, its CPU and wall seconds, and its ARI against ``y``."""
    model = SMIClustering(np.unique(y).size, random_state=0, **params)
    cpu, wall = time.process_time(), time.perf_counter()
    model.fit(X, **side)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return model, cpu, wall, adjusted_rand_score(y, model.labels_)


SWEEP_SAMPLES = (300, 600, 1000)
SWEEP_CLASSES = (2, 3, 4, 6, 10)
SWEEP_SIDE = (("pairs", 0.001), ("pairs", 0.01), ("labels", 0.05))


def sweep(target=2.0):
    """The default on the grid of synthetic problems of ``--sweep``."""
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    print("| samples | classes | links | candidates | CPU s | ARI |")
    print("|---:|---:|---|---:|---:|---:|")
    times = {}
    for n in SWEEP_SAMPLES:
        for c in SWEEP_CLASSES:
            X, y = make_classification(n, 10, n_informative=6, n_redundant=2,
                                       n_classes=c, n_clusters_per_class=1,
                                       class_sep=1.5, random_state=n + c)
            for protocol, fraction in SWEEP_SIDE:
                side, given = _side_information(y, protocol, fraction)
                model, cpu, _, ari = _timed_fit(X, y, side)
                times.setdefault(n, []).append(cpu)
                print(f"| {n} | {c} | {given} | {model.n_candidates_} | {cpu:.2f} | "
                      f"{ari:.3f} |", flush=True)
    for n, cpus in times.items():
        cpus = np.array(cpus)
        print(f"{n} samples: median {np.median(cpus):.2f} CPU s, max {cpus.max():.2f}, "
              f"{int((cpus > target).sum())} of {cpus.size} fits over {target:g} s")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


def main():
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    print("| problem | links | method | candidates | CPU s | wall s | target | ARI |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for name, load, protocol, fraction, target in CASES:
        X, y = load()
        side, given = _side_information(np.asarray(y), protocol, fraction)
        for links in ("closure", "paper") if target is not None else ("closure",):
            model, cpu, wall, ari = _timed_fit(X, y, side, links=links)
            label = "default (closure)" if links == "closure" else "paper's 3SMIC"
            print(f"| {name} | {given} | {label} | "
                  f"{model.n_candidates_} | {cpu:.2f} | {wall:.2f} | "
                  f"{'—' if target is None else f'{target:g}'} | {ari:.3f} |",
                  flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "),
        epilog="Takes about 3 minutes (--sweep: about 80 s).")
    parser.add_argument("--sweep", action="store_true",
                        help="the default alone on a grid of synthetic problems")
    if parser.parse_args().sweep:
        sweep()
    else:
        main()
