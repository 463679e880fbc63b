"""How well smiclust.n_clusters.choose_n_clusters finds the number of classes.

Regenerate the table of docs/n-clusters.md (about 20 minutes on one core):

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python benchmarks/choose_n_clusters.py

or in parts, e.g. on two cores, then one table from the saved records:

    ... choose_n_clusters.py --problems spam,digits5k --save big.json
    ... choose_n_clusters.py --problems iris,wine,... --save small.json
    ... choose_n_clusters.py --load small.json big.json

Protocol: the six problems of the paper (smiclust.datasets) and four of
scikit-learn's bundled real data sets (standardised); link budgets of 0, 1 %
and 5 % of all pairs drawn by smiclust.sample_links (seed s); seeds 0-4; the
kernel is the local-scaling kernel with t = 7. One call of choose_n_clusters
(candidates 2..20) gives the three criteria: "eigengap" (largest eigengap of
the normalised operator), "links" (smallest candidate within one standard
error of the lowest held-out link error) and "auto" (the function's choice:
largest eigengap among the candidates plausible by held-out links). The ARI
columns are SMIClustering(c, n_neighbors=7, gamma=1, eta=0) for the true c and
for the c chosen by "auto"; "lost" is their difference. Prints markdown on
stdout, progress on stderr.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from smiclust import SMIClustering, sample_links
from smiclust.constraints import link_matrix
from smiclust.datasets import DATASETS
from smiclust.eigensolvers import leading_eigenvectors
from smiclust.io import atomic_write
from smiclust.kernels import local_scaling_kernel_from_neighbors, modified_kernel
from smiclust.link_operator import SMICOperator
from smiclust.lsmi import LSMIDesign
from smiclust.n_clusters import choose_n_clusters
from smiclust.neighbors import nearest_neighbors

N_NEIGHBORS = 7
BUDGETS = (0.0, 0.01, 0.05)
SEEDS = range(5)
#: The rejected criteria (LSMI of 19 labellings) are measured up to this size.
REJECTED_MAX_SAMPLES = 2000
CRITERIA = (
    "auto",
    "eigengap",
    "links",
    "lsmi/(c-1)",
    "lsmi/log c",
    "U eigengap",
    "links argmin",
)


def _sklearn(loader):
    def load(random_state=None):
        X, y = loader(return_X_y=True)
        return StandardScaler().fit_transform(X), y

    return load


PROBLEMS = {name: info.load for name, info in DATASETS.items()}
PROBLEMS.update(
    iris=_sklearn(load_iris),
    wine=_sklearn(load_wine),
    breast_cancer=_sklearn(load_breast_cancer),
    sklearn_digits=_sklearn(load_digits),
)


def _fit_ari(X, y, c, must, cannot, seed):
    gamma = 1.0 if len(must) + len(cannot) else "auto"  # no links: SMIC
    model = SMIClustering(
        c, n_neighbors=N_NEIGHBORS, gamma=gamma, eta=0.0, random_state=seed
    )
    return adjusted_rand_score(
        y, model.fit(X, must_link=must, cannot_link=cannot).labels_
    )


def _rejected(X, K, must, cannot, result, seed):
    """Choices of the measured and rejected criteria."""
    cands, n = result.candidates, X.shape[0]
    design = LSMIDesign(X, n_centers=min(500, n), random_state=seed)
    lsmi = np.array([design.evaluate(lab).score for lab in result.labels.T])
    U = SMICOperator(
        modified_kernel(K, must, cannot),
        link_matrix(must, n),
        link_matrix(cannot, n),
        1.0,
        0.0,
    )
    lam, _ = leading_eigenvectors(U, int(cands[-1]) + 1, random_state=seed)
    ratio = lam[cands - 1] / np.maximum(lam[cands], np.finfo(float).tiny)
    chosen = {
        "lsmi/(c-1)": cands[np.argmax(lsmi / (cands - 1))],
        "lsmi/log c": cands[np.argmax(lsmi / np.log(cands))],
        "U eigengap": cands[np.argmax(ratio)],
    }
    if np.isfinite(result.scores["heldout_error"]).all():
        chosen["links argmin"] = cands[np.argmin(result.scores["heldout_error"])]
    return {k: int(v) for k, v in chosen.items()}


def run_one(name, budget, seed):
    """One record: the choices of every criterion and the ARIs."""
    X, y = PROBLEMS[name](seed)
    n = X.shape[0]
    c_true = int(np.unique(y).size)
    must, cannot = sample_links(y, int(round(budget * n * (n - 1) / 2)), seed)
    start = time.perf_counter()
    graph = nearest_neighbors(X, N_NEIGHBORS)
    K = local_scaling_kernel_from_neighbors(graph, N_NEIGHBORS)
    result = choose_n_clusters(K, must, cannot, random_state=seed)
    seconds = time.perf_counter() - start
    cands, scores = result.candidates, result.scores
    chosen = {
        "auto": result.n_clusters,
        "eigengap": int(cands[np.argmax(scores["eigengap"])]),
    }
    if np.isfinite(scores["heldout_error"]).all():
        chosen["links"] = int(cands[np.argmax(scores["plausible"])])
    if n <= REJECTED_MAX_SAMPLES:
        chosen.update(_rejected(X, K, must, cannot, result, seed))
    ari_true = _fit_ari(X, y, c_true, must, cannot, seed)
    c = chosen["auto"]
    ari_chosen = ari_true if c == c_true else _fit_ari(X, y, c, must, cannot, seed)
    return {
        "name": name,
        "n": n,
        "c_true": c_true,
        "budget": budget,
        "n_links": len(must) + len(cannot),
        "seed": seed,
        "chosen": chosen,
        "ari_true": ari_true,
        "ari_chosen": ari_chosen,
        "candidates": cands.tolist(),
        "ari_by_c": [adjusted_rand_score(y, lab) for lab in result.labels.T],
        "seconds": seconds,
    }


def _lost(records, criterion):
    """Mean ARI lost by the criterion's c, on the labellings of one solve."""
    lost = [
        r["ari_by_c"][r["candidates"].index(r["c_true"])]
        - r["ari_by_c"][r["candidates"].index(r["chosen"][criterion])]
        for r in records
        if criterion in r["chosen"]
    ]
    return f"{np.mean(lost):.3f}" if lost else "-"


def _rate(records, criterion):
    hits = [
        r["chosen"][criterion] == r["c_true"]
        for r in records
        if criterion in r["chosen"]
    ]
    return f"{np.mean(hits):.2f}" if hits else "-"


def table(records, criteria):
    head = (
        "| data set | n | c | links | c chosen (auto), seeds 0-4 | "
        + " | ".join(f"right ({c})" for c in criteria)
        + " | ARI (true c) | ARI (auto) | lost | s |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    groups = {}
    for r in records:
        groups.setdefault((r["name"], r["budget"]), []).append(r)
    for (name, budget), rs in groups.items():
        r0 = rs[0]
        picks = ",".join(str(r["chosen"]["auto"]) for r in rs)
        true, got = (np.mean([r[k] for r in rs]) for k in ("ari_true", "ari_chosen"))
        lines.append(
            f"| {name} | {r0['n']} | {r0['c_true']} | {budget:.0%} "
            f"({r0['n_links']}) | {picks} | "
            + " | ".join(_rate(rs, c) for c in criteria)
            + f" | {true:.3f} | {got:.3f} | {true - got:.3f} | "
            f"{np.mean([r['seconds'] for r in rs]):.1f} |"
        )
    lines += [
        "",
        "Summary over the runs: how often c is right, and the mean ARI lost by"
        " the chosen c on the labellings of the choice's own solve (gamma=1,"
        " eta=0; the fits above for auto); rejected criteria only on the"
        " problems with at most 2,000 samples:",
        "",
        "| links | runs | "
        + " | ".join(f"right, lost ({c})" for c in criteria)
        + " | lost (auto, fit) |",
        "|" + "---|" * (len(criteria) + 3),
    ]
    for budget in BUDGETS:
        rs = [r for r in records if r["budget"] == budget]
        if not rs:
            continue
        lost = np.mean([r["ari_true"] - r["ari_chosen"] for r in rs])
        lines.append(
            f"| {budget:.0%} | {len(rs)} | "
            + " | ".join(f"{_rate(rs, c)}, {_lost(rs, c)}" for c in criteria)
            + f" | {lost:.3f} |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument("--save", help="write the records to this JSON file")
    parser.add_argument(
        "--load", nargs="+", help="print the table of saved records; no runs"
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.problems.split(",")) - set(PROBLEMS))
    if unknown and not args.load:
        parser.error(f"--problems: unknown {unknown}; known: {list(PROBLEMS)}")
    if args.save and not Path(args.save).resolve().parent.is_dir():
        parser.error(f"--save {args.save}: no such directory")
    if args.load:
        records = [r for path in args.load for r in json.loads(Path(path).read_text())]
    else:
        records = []
        for name in args.problems.split(","):
            for budget in BUDGETS:
                for seed in SEEDS:
                    records.append(run_one(name, budget, seed))
                    print(name, budget, seed, records[-1]["chosen"], file=sys.stderr)
        if args.save:
            with atomic_write(args.save) as f:
                json.dump(records, f, indent=1)
    print(table(records, CRITERIA))


if __name__ == "__main__":
    main()
