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
from model_family_selection import compare_option


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["mnist1k", "spam1k"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    rows = compare_option(args.datasets, args.seeds, "consensus")
    rows = np.array([pair for pairs in rows.values() for pair in pairs])
    diff = rows[:, 1] - rows[:, 0]
    print(f"mean ARI without the vote {rows[:, 0].mean():.4f}, with it "
          f"{rows[:, 1].mean():.4f}; difference mean {diff.mean():+.4f}, "
          f"worst {diff.min():+.4f}")


if __name__ == "__main__":
    main()
