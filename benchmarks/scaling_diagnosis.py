"""Why 3SMIC's ARI drops at n = 1,000,000 in benchmark 4: graph or method?

Usage (from the repository root)::

    .venv/bin/python benchmarks/scaling_diagnosis.py 1000000   # ~3 min, 2 GB

Builds the same problem as benchmark 4 (10 Gaussian blobs, d = 50, 1,000 links,
t = 10, gamma = 1), then prints the connected components of the kNN kernel, the
leading eigenvalues of U and the confusion matrix of the 3SMIC labels against
the blobs.
"""

import time

import numpy as np
from scipy.sparse.csgraph import connected_components
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score, confusion_matrix

from smiclust import sample_links
from smiclust.constraints import check_constraints
from smiclust.kernels import local_scaling_kernel_from_neighbors
from smiclust.neighbors import nearest_neighbors
from smiclust.solver import solve_smic


def main(n):
    t = 10
    X, y = make_blobs(n_samples=n, centers=10, n_features=50, cluster_std=4.0,
                      random_state=0)
    must, cannot = check_constraints(*sample_links(y, 1000, random_state=0), n)
    start = time.perf_counter()
    graph = nearest_neighbors(X, t, random_state=0)
    print(f"neighbours ({graph.algorithm}): {time.perf_counter() - start:.1f} s")
    K = local_scaling_kernel_from_neighbors(graph, t)
    n_components, component = connected_components(K, directed=False)
    sizes = np.sort(np.bincount(component))[::-1]
    print(f"kNN graph: {n_components} components, largest {sizes[:12].tolist()}")
    sol = solve_smic(K, must, cannot, 10, 1.0, 0.0, random_state=0)
    print(f"ARI {adjusted_rand_score(y, sol.labels):.3f}")
    print("eigenvalues of U:", np.round(sol.eigenvalues, 1).tolist())
    print("confusion matrix (rows: blobs, columns: clusters):")
    print(confusion_matrix(y, sol.labels))


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("n", type=int, nargs="?", default=1_000_000,
                        help="number of samples (default 1,000,000: about 3 "
                             "minutes and 2 GB)")
    main(parser.parse_args().n)
