"""What other learners make of the samples the active loop has placed
(issue 12: digits500 at 200 questions, target ARI 0.85).

    .venv/bin/python benchmarks/active_placed_learners.py --seeds 0 1 2

``ActiveSMIClustering(10, budget=200)`` runs on digits500 with the oracle of
the true labels. The samples it has placed (those in a neighbourhood of the
answers' closure: their cluster is known) become partial labels, given to
the default at several fixed ``n_neighbors``, to Spectral Learning on every
pair of them, and to three supervised or semi-supervised learners of
scikit-learn (an RBF support vector machine on the placed samples, one
nearest neighbour, and ``LabelSpreading`` with an RBF kernel). The placed
samples keep their known labels in every row. If no learner reaches the
target from these samples, the questions, not the model, would have to
place more samples.
"""

import argparse
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import warnings  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.semi_supervised import LabelSpreading  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from smiclust import ActiveSMIClustering, SMIClustering  # noqa: E402
from smiclust.active import link_closure  # noqa: E402
from smiclust.baselines import SpectralLearning  # noqa: E402
from smiclust.constraints import pairs_from_labels  # noqa: E402
from smiclust.datasets import make_digits500  # noqa: E402

BUDGET = 200


def placed_labels(model, n_samples, n_clusters):
    """Partial labels (-1: not placed) from the answers of an active fit:
    the neighbourhood of each sample the closure places."""
    closure = link_closure(model.must_link_, model.cannot_link_, n_samples,
                           n_clusters)
    partial = np.full(n_samples, -1)
    for label, hood in enumerate(closure.hoods):
        partial[closure.group == hood] = label
    return partial


def scores(X, y, partial, seed):
    """ARI on all samples of every learner given ``partial``."""
    known = partial >= 0

    def completed(predicted):
        return adjusted_rand_score(y, np.where(known, partial, predicted))

    out = {}
    for t in (3, 4, 6, 10):
        model = SMIClustering(10, n_neighbors=t, random_state=seed)
        out[f"default t={t}"] = adjusted_rand_score(
            y, model.fit(X, partial_labels=partial).labels_)
    must, cannot = pairs_from_labels(partial)
    for t in (4, 7):
        model = SpectralLearning(10, n_neighbors=t, random_state=seed)
        out[f"SL t={t}"] = adjusted_rand_score(
            y, model.fit(X, must_link=must, cannot_link=cannot).labels_)
    out["SVC (RBF, C=10)"] = completed(
        SVC(C=10, gamma="scale").fit(X[known], partial[known]).predict(X))
    out["1-NN"] = completed(
        KNeighborsClassifier(1).fit(X[known], partial[known]).predict(X))
    out["LabelSpreading (RBF)"] = completed(
        LabelSpreading(kernel="rbf", gamma=0.02, max_iter=300)
        .fit(X, partial).transduction_)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rows = {}
    for seed in args.seeds:
        X, y = make_digits500(random_state=seed)
        active = ActiveSMIClustering(10, budget=BUDGET, random_state=seed).fit(
            X, lambda i, j: y[i] == y[j])
        partial = placed_labels(active, len(y), 10)
        row = {"active (the loop's own fit)": adjusted_rand_score(y, active.labels_)}
        row.update(scores(X, y, partial, seed))
        print(f"seed {seed}: {int((partial >= 0).sum())} samples placed", flush=True)
        for name, value in row.items():
            rows.setdefault(name, []).append(value)
    print(f"\n| learner | ARI at {BUDGET} questions (mean ± std over "
          f"{len(args.seeds)} seeds) |")
    print("|---|---|")
    for name, values in rows.items():
        print(f"| {name} | {np.mean(values):.3f} ± {np.std(values):.3f} |")


if __name__ == "__main__":
    main()
