"""ARI of auto-tuned 3SMIC on the paper's six problems, at 0 links and one level.

    .venv/bin/python benchmarks/six_problems.py [--seeds 0 1]

Links are random pairs typed by the true labels (the paper's protocol); the level
is a fraction of all pairs. UCI sets are run raw and standardised (z-scores).
"""

import argparse
import time

import numpy as np
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from smiclust import SMIClustering, sample_links
from smiclust.datasets import DATASETS

LEVELS = {
    "parkinson": 0.03,
    "spam": 0.001,
    "sonar": 0.03,
    "digits500": 0.02,
    "digits5k": 0.002,
    "faces100": 0.05,
}
UCI = ("parkinson", "spam", "sonar")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--datasets", nargs="+", default=list(LEVELS))
    args = parser.parse_args(argv)
    print(
        f"{'dataset':<10} {'prep':<5} {'seed':>4} {'links':>7} {'ARI':>6} "
        f"{'t':>3} {'gamma':>6} {'eta':>5} {'seconds':>8}",
        flush=True,
    )
    for name in args.datasets:
        info = DATASETS[name]
        preps = ("raw", "std") if name in UCI else ("raw",)
        for seed in args.seeds:
            X, y = info.load(random_state=seed)
            n = X.shape[0]
            for prep in preps:
                Xp = StandardScaler().fit_transform(X) if prep == "std" else X
                for frac in (0.0, LEVELS[name]):
                    n_links = int(round(frac * n * (n - 1) / 2))
                    must, cannot = sample_links(y, n_links, random_state=seed)
                    start = time.perf_counter()
                    model = SMIClustering(np.unique(y).size, links="paper",
                                          random_state=seed)
                    model.fit(Xp, must_link=must, cannot_link=cannot)
                    sec = time.perf_counter() - start
                    ari = adjusted_rand_score(y, model.labels_)
                    print(
                        f"{name:<10} {prep:<5} {seed:>4} {n_links:>7} {ari:>6.3f} "
                        f"{model.n_neighbors_:>3} {model.gamma_:>6g} "
                        f"{model.eta_:>5g} {sec:>8.1f}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
