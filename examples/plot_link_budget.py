"""Choosing a link budget: how many links, and which kind, on UCI Sonar.

Sonar (208 samples, 60 features, 2 classes: rock or mine) is hard without side
information: the fit without links finds an unrelated split (ARI about 0). How
much help does it need, and how should it be asked for? Two ways of spending
answers of a person who knows the truth are compared, five random draws each:

* **random pairs** -- ask about ``m`` random pairs of samples, "same class or
  not?" (the paper's protocol, :func:`smiclust.sample_links`): ``m`` answers
  give ``m`` links, spread over the whole data set;
* **labelled samples** -- ask for the class of ``k`` random samples and link
  every two of them (:func:`smiclust.pairs_from_labels`): ``k`` answers give
  ``k (k - 1) / 2`` links, but all between the same ``k`` samples.

Left, per link: random pairs are worth far more. 320 random links (1.5 % of
all pairs) give ARI 0.97, the 780 links among 40 labelled samples only 0.31 --
links among few samples repeat what those samples already say. The random-pair
curve is steep between 0.2 % and 1.5 % of all pairs, where the spread over
draws is largest (+- 0.25 at 80 links: which pairs happen to be asked
matters), and flat beyond. Right, per answer: labels are cheaper up to about
a hundred answers, because ``k`` answers give ``k (k - 1) / 2`` links: 80
labels give 0.59 against 0.22 for 80 pairs; from 160 answers on the two meet
(0.87 and 0.83) and pairs go on to 1.00. So count the cost in the unit you
pay for: if links come from labelling samples, label a few dozen to a few
hundred; if each pair is a separate question, plan on one to two percent of
all pairs.

The features are standardised first (z-scores), as for any data whose features
are on different scales. Cost: tuning is not the point here, so every fit uses
the same fixed, untuned parameters from the middle of the search grids
(``n_neighbors=5, gamma=1, eta=1``), the spreading weight fixed at 0.5 and no
forest vote (nothing is chosen by held-out links), and takes about 0.2 CPU
seconds; with the default auto-tuning each fit takes about 3. (Before the score
spreading of the default, tuning raised the random-pair curve from 0.44 to
about 0.77 at 160 random links on two draws, and the labelled-sample curve
from 0.22 to 0.34 at 40 labels; the comparison stayed the same.)

Run ``python examples/plot_link_budget.py`` (``--out DIR`` to write the figure
elsewhere than ``docs/images``).
"""

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter
from sklearn.metrics import adjusted_rand_score

from smiclust import SMIClustering, pairs_from_labels, sample_links
from smiclust.datasets import load_sonar

IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--out", type=Path, default=IMAGES, help="figure directory")
args = parser.parse_args()

X, y = load_sonar()
X = (X - X.mean(axis=0)) / X.std(axis=0)
n = X.shape[0]
n_pairs = n * (n - 1) // 2
seeds = range(5)


def ari_with(must, cannot):
    # a weight is set only where there are links of its kind (it is ignored,
    # with a warning, otherwise); the spreading weight is fixed and no forest
    # votes: nothing is chosen by held-out links
    model = SMIClustering(
        2, n_neighbors=5, gamma=1.0 if len(must) else 0.0,
        eta=1.0 if len(cannot) else 0.0, spreading=0.5, classifier=None,
        random_state=0,
    )
    model.fit(X, must_link=must, cannot_link=cannot)
    return adjusted_rand_score(y, model.labels_)


def labelled_links(k, seed):
    """All links among ``k`` random samples whose class is revealed."""
    rng = np.random.RandomState(seed)
    y_partial = np.full_like(y, -1)
    chosen = rng.choice(n, size=k, replace=False)
    y_partial[chosen] = y[chosen]
    return pairs_from_labels(y_partial)


baseline = ari_with([], [])
print(f"sonar, no links: ARI = {baseline:.3f}")

# answers -> (links, ARI of every seed)
answers = {
    "random pairs": [10, 20, 40, 80, 160, 320, 640, 1280],
    "labelled samples": [5, 10, 20, 40, 80, 160],
}
results = {}
for kind, counts in answers.items():
    rows = []
    for count in counts:
        aris = []
        for seed in seeds:
            if kind == "random pairs":
                must, cannot = sample_links(y, count, random_state=seed)
            else:
                must, cannot = labelled_links(count, seed)
            aris.append(ari_with(must, cannot))
        n_links = len(must) + len(cannot)
        rows.append((count, n_links, np.mean(aris), np.std(aris)))
        print(
            f"{kind:>16}: {count:5d} answers = {n_links:6d} links "
            f"({100 * n_links / n_pairs:5.2f} % of pairs): "
            f"ARI = {np.mean(aris):.3f} +- {np.std(aris):.3f}"
        )
    results[kind] = np.array(rows)

fig = Figure(figsize=(12, 4.6), layout="constrained")
ax_links, ax_answers = fig.subplots(1, 2, sharey=True)
styles = {
    "random pairs": {"color": "C0", "marker": "o"},
    "labelled samples": {"color": "C1", "marker": "s"},
}
for kind, rows in results.items():
    count, n_links, mean, std = rows.T
    for ax, x in ((ax_links, n_links), (ax_answers, count)):
        ax.plot(x, mean, label=kind, linewidth=2, **styles[kind])
        ax.fill_between(
            x, mean - std, mean + std, alpha=0.2, color=styles[kind]["color"]
        )
for ax in (ax_links, ax_answers):
    ax.axhline(baseline, color="0.4", linestyle=":", label="no links")
    ax.set_xscale("log")
    ax.set_ylim(-0.1, 1.05)
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="upper left")
ax_links.set_xlabel("number of links (log scale)")
ax_links.set_ylabel(f"ARI against the true classes (mean ± std, {len(seeds)} draws)")
ax_links.set_title("Per link: random pairs are worth more")
ax_answers.set_xlabel("number of answers: pairs asked or samples labelled (log scale)")
ax_answers.set_title("Per answer: labelled samples are cheaper")
# top axis of the left panel: links as a percentage of all pairs
top = ax_links.secondary_xaxis(
    "top", functions=(lambda m: 100 * m / n_pairs, lambda p: p * n_pairs / 100)
)
top.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g} %"))
top.set_xlabel(f"% of all {n_pairs} pairs")
fig.suptitle(
    "smiclust on UCI Sonar (standardised; fixed n_neighbors=5, gamma=eta=1): "
    "how many links to ask for"
)

args.out.mkdir(parents=True, exist_ok=True)
path = args.out / "plot_link_budget.png"
fig.savefig(path, dpi=100)
print(f"figure written to {path}")
