"""The vote over n_neighbors (``SMIClustering(consensus=...)``) on the rows
of ``model_family_selection.py``: the default with and without the vote.

The rule that made the vote the default used the two data sets held out from
every tuning, mnist1k and spam1k, seeds 0-2, every scenario (no links, 0.2 %
and 1 % of the pairs, 5 / 10 / 20 % labelled)::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/consensus.py \\
        --datasets mnist1k spam1k --seeds 0 1 2

(about 3 minutes per data set on one core). Prints one line per fit (data
set, scenario, seed, ARI without the vote, ARI with it) and the means.
"""

import argparse
import warnings

import numpy as np
from model_family_selection import SCENARIOS, links_of, load
from sklearn.metrics import adjusted_rand_score

from smiclust import SMIClustering


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["mnist1k", "spam1k"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    rows = []
    for name in args.datasets:
        for scenario in SCENARIOS:
            for seed in args.seeds:
                X, y = load(name, seed)
                fit_links, _, _ = links_of(scenario, y, seed)
                aris = []
                for consensus in (False, True):
                    model = SMIClustering(len(np.unique(y)), consensus=consensus,
                                          random_state=seed)
                    model.fit(X, **fit_links)
                    aris.append(adjusted_rand_score(y, model.labels_))
                rows.append(aris)
                print(f"{name} {scenario} seed {seed}: without the vote "
                      f"{aris[0]:.4f}, with it {aris[1]:.4f}", flush=True)
    rows = np.array(rows)
    diff = rows[:, 1] - rows[:, 0]
    print(f"mean ARI without the vote {rows[:, 0].mean():.4f}, with it "
          f"{rows[:, 1].mean():.4f}; difference mean {diff.mean():+.4f}, "
          f"worst {diff.min():+.4f}")


if __name__ == "__main__":
    main()
