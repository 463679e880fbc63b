"""k-means of the vote's Spectral Learning labellings: OpenMP threads or one.

    .venv/bin/python benchmarks/kmeans_threads.py [--trials 20]

The vote over ``n_neighbors`` runs k-means (ten restarts) on small
row-normalised embeddings, ``n <= 2,000`` rows and ``c`` columns
(:func:`smiclust.baselines._spectral_learning.spectral_learning_labels`).
For embeddings of that shape this prints the CPU seconds of scikit-learn's
k-means with its default OpenMP threads and with one thread, side by side in
one run, their ratio, the load average (two busy cores make the threads
contend), and how many labellings differ (scikit-learn's k-means gives the
same labels with any number of threads, so none should).
"""

import argparse
import os
import time

import numpy as np
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_limits


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    args = parser.parse_args()
    rng = np.random.RandomState(0)
    cpu = {"default threads": 0.0, "one thread": 0.0}
    differ = 0
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    for trial in range(args.trials):
        n, c = int(rng.choice([300, 1000, 2000])), int(rng.choice([3, 5, 11, 26]))
        X = rng.normal(size=(n, c))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        start = time.process_time()
        a = KMeans(c, n_init=10, random_state=trial).fit_predict(X)
        cpu["default threads"] += time.process_time() - start
        start = time.process_time()
        with threadpool_limits(1, user_api="openmp"):
            b = KMeans(c, n_init=10, random_state=trial).fit_predict(X)
        cpu["one thread"] += time.process_time() - start
        differ += int(not np.array_equal(a, b))
    print("| k-means threads | CPU s | ratio to one thread |")
    print("|---|---:|---:|")
    for name, seconds in cpu.items():
        print(f"| {name} | {seconds:.2f} | {seconds / cpu['one thread']:.1f} |")
    print(f"labellings that differ: {differ} of {args.trials}")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
