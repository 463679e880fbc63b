"""Partial labels as a classifier's user reads them: accuracy on the unlabelled.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/partial_label_accuracy.py
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/partial_label_accuracy.py \\
        --seeds 0 1 2 3 4 --fractions 0.02 0.05

A user who gives partial labels reads the result as classes:
``model.cluster_classes_[model.labels_]`` names every sample by the label most
of its cluster's labelled samples carry, as
``LabelSpreading.transduction_`` does. This script measures that reading:
the share of the unlabelled samples given their true class, beside
``LabelSpreading(kernel="knn", n_neighbors=7)`` on the same labels, and the
ARI of both on the unlabelled samples.

Data: scikit-learn's bundled iris, wine, breast_cancer and digits
(standardised) and the shipped USPS digits500 (as stored). Each run labels
``max(c, round(f n))`` samples drawn at random (``numpy.random.default_rng
(seed)``); a cluster that holds no labelled sample names no class, so its
samples count as wrong. These sets have all been seen by the project's
choices, so the table is a check of the reading, not evidence on fresh data.
"""

import argparse
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler
from sklearn.semi_supervised import LabelSpreading

from smiclust import SMIClustering
from smiclust.datasets import make_digits500


def data_sets():
    """``{name: (X, y)}``: the bundled sets standardised, digits500 as stored."""
    sets = {}
    for name, loader in (("iris", load_iris), ("wine", load_wine),
                         ("breast_cancer", load_breast_cancer),
                         ("digits", load_digits)):
        X, y = loader(return_X_y=True)
        sets[name] = (StandardScaler().fit_transform(X), y)
    sets["digits500"] = make_digits500(random_state=0)
    return sets


def run(X, y, fraction, seed):
    """Accuracy and ARI on the unlabelled samples: smiclust, LabelSpreading."""
    c = int(np.unique(y).size)
    rng = np.random.default_rng(seed)
    partial = np.full(len(y), -1)
    labelled = rng.choice(len(y), max(c, round(fraction * len(y))), replace=False)
    partial[labelled] = y[labelled]
    free = partial == -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SMIClustering(c, random_state=seed).fit(X, partial_labels=partial)
    named = model.cluster_classes_[model.labels_]
    spread = LabelSpreading(kernel="knn", n_neighbors=7).fit(X, partial).transduction_
    return (float(np.mean(named[free] == y[free])),
            float(np.mean(spread[free] == y[free])),
            float(adjusted_rand_score(y[free], model.labels_[free])),
            float(adjusted_rand_score(y[free], spread[free])))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--fractions", nargs="+", type=float, default=[0.05, 0.1])
    args = parser.parse_args(argv)
    print(f"seeds {args.seeds}; accuracy and ARI on the unlabelled samples, "
          "mean ± std over the seeds")
    print("| data | labelled | smiclust accuracy | LabelSpreading accuracy "
          "| smiclust ARI | LabelSpreading ARI |")
    print("|---|---:|---|---|---:|---:|")
    for name, (X, y) in data_sets().items():
        for fraction in args.fractions:
            r = np.array([run(X, y, fraction, seed) for seed in args.seeds])
            mean, std = r.mean(axis=0), r.std(axis=0)
            print(f"| {name} | {fraction:.0%} | {mean[0]:.3f} ± {std[0]:.3f} "
                  f"| {mean[1]:.3f} ± {std[1]:.3f} | {mean[2]:.3f} | {mean[3]:.3f} |",
                  flush=True)


if __name__ == "__main__":
    main()
