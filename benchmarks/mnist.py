"""MNIST-70k with partial labels (issue 11, item 5): the protocol of PCCC.

Usage (from the repository root; the data file is found by
``smiclust.datasets.load_mnist``: ``--data-home``, ``$SMICLUST_DATA`` or
``../shared/data/mnist``)::

    nice -n 5 .venv/bin/python benchmarks/mnist.py --neighbors  # p = 1, 5 %; seeds 0-2
    nice -n 5 .venv/bin/python benchmarks/mnist.py --deskew     # deskewed images
    .venv/bin/python benchmarks/mnist.py --percents 1 --seeds 0 --methods smic-fixed

Protocol (Baumann & Hochbaum, "PCCC", arXiv 2212.14437): p % of the 70,000
objects drawn at random are labelled and every pair among them is a link. In
smiclust that is ``fit(X, partial_labels=y_partial)`` (-1 unlabelled); the
default ``links="closure"`` keeps one group per class and cannot-links between
classes, never the m^2 pairs. The score is the ARI on the *unlabelled* objects.

Preprocessing, the same for every method: pixels / 255, then PCA to 50
components fitted on all 70,000 images without labels (unsupervised; it is
timed and reported apart, with the loading). With ``--deskew`` every image is
first sheared upright by its second moments (:func:`deskew`; a standard step for
handwritten digits, LeCun et al. 1998, that nearly halves the error of a
nearest-neighbour classifier on MNIST), for every method alike; it uses no
label. Methods, each in its own process
(a clean peak memory; the runs of one method share the process, so the peak of
a row is the peak over that method's runs so far):

- ``smic-auto``: ``SMIClustering(10, random_state=seed)``, every parameter
  "auto" (n_neighbors 1..10, gamma in {0, 1} on closed links, {0, 0.1, 1, 10}
  before commit 42cd272; eta unused for c > 2).
  Above 50,000 samples the neighbour search is pynndescent; its numba JIT is
  paid once per process and is reported apart (column "JIT once").
- ``smic-fixed``: ``SMIClustering(10, n_neighbors=10, gamma=1, eta=0)``, no
  search.
- ``labelspreading``: ``sklearn.semi_supervised.LabelSpreading(kernel="knn",
  n_neighbors=7)``, the rival; its labels are ``transduction_``.

``--neighbors`` adds one process that times the neighbour search alone on the
PCA data (exact scikit-learn vs pynndescent, 10 neighbours).

Targets (issue 11): ARI >= 0.90 at 1 % and >= 0.95 at 5 %, each <= 60 s and
<= 4 GB. Published PCCC: 0.546-0.683 at 1 %, 0.744-1.0 at 5 % (about 28 s).
Results are recorded by hand in benchmarks/MNIST.md.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

METHODS = ("smic-auto", "smic-fixed", "labelspreading")
N_CLUSTERS = 10
N_COMPONENTS = 50


def peak_gb():
    """Peak resident memory of this process so far, in GB (Linux: ru_maxrss KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def deskew(images, shape):
    r"""Shear every image so that its ink's principal axis is vertical.

    With pixel intensities :math:`w` at rows :math:`r` and columns :math:`c`,
    the ink's centroid :math:`(\bar r, \bar c)`, row variance
    :math:`\sigma_{rr}` and covariance :math:`\sigma_{rc}`, the slant is
    :math:`\alpha = \sigma_{rc} / \sigma_{rr}` (columns drift by
    :math:`\alpha` per row). The output pixel :math:`(r, c)` reads the input
    at :math:`(r, c + \alpha (r - r_0)) + (\bar r, \bar c) - (r_0, c_0)`
    with :math:`(r_0, c_0)` the image centre, by bilinear interpolation:
    the slant removed and the centroid moved to the centre. An image without
    ink is returned as it is.

    Parameters
    ----------
    images : ndarray of shape (n_images, height * width)
        Non-negative intensities, row-major.
    shape : tuple of (height, width)

    Returns
    -------
    ndarray of shape (n_images, height * width)
        A new array; ``images`` is not modified.
    """
    from scipy import ndimage

    height, width = shape
    rows, cols = np.mgrid[:height, :width]
    centre = np.array([(height - 1) / 2, (width - 1) / 2])
    out = np.array(images, dtype=np.float64, copy=True)
    for k, image in enumerate(out.reshape(-1, height, width)):
        mass = image.sum()
        if mass <= 0:
            continue
        mean_r, mean_c = (rows * image).sum() / mass, (cols * image).sum() / mass
        var_r = ((rows - mean_r) ** 2 * image).sum() / mass
        cov = ((rows - mean_r) * (cols - mean_c) * image).sum() / mass
        alpha = cov / var_r if var_r > 0 else 0.0
        shear = np.array([[1.0, 0.0], [alpha, 1.0]])
        offset = np.array([mean_r, mean_c]) - shear @ centre
        out[k] = ndimage.affine_transform(
            image, shear, offset=offset, order=1
        ).ravel()
    return out


def partial_labels(y, percent, seed):
    """``y`` with all but ``round(percent % of n)`` random objects set to -1."""
    n = y.shape[0]
    rng = np.random.RandomState(seed)
    labelled = rng.choice(n, int(round(percent / 100 * n)), replace=False)
    y_partial = np.full(n, -1, dtype=np.int64)
    y_partial[labelled] = y[labelled]
    return y_partial


def fit_method(method, Z, y_partial, seed):
    """Fit `method`; return (labels, details dict)."""
    if method == "labelspreading":
        from sklearn.semi_supervised import LabelSpreading

        model = LabelSpreading(kernel="knn", n_neighbors=7).fit(Z, y_partial)
        return model.transduction_, {"n_iter": int(model.n_iter_)}
    from smiclust import SMIClustering

    if method == "smic-auto":
        model = SMIClustering(N_CLUSTERS, random_state=seed)
    elif method == "smic-fixed":
        model = SMIClustering(
            N_CLUSTERS, n_neighbors=10, gamma=1.0, eta=0.0, random_state=seed
        )
    else:
        raise ValueError(f"unknown method {method!r}")
    model.fit(Z, partial_labels=y_partial)
    details = {
        "n_neighbors": int(model.n_neighbors_),
        "gamma": float(model.gamma_),
        "eta": float(model.eta_),
        "n_candidates": int(model.n_candidates_),
        "spread_from": model.spread_from_,
        "spreading": float(model.spreading_),
        "link_agreement": float(model.link_agreement_),
    }
    return model.labels_, details


def run_child(method, data_dir, percents, seeds):
    """One process per method: one JSON line per (percent, seed) on stdout."""
    from sklearn.metrics import adjusted_rand_score

    Z = np.load(os.path.join(data_dir, "Z.npy"))
    y = np.load(os.path.join(data_dir, "y.npy"))
    jit = 0.0
    if method.startswith("smic"):
        from smiclust.neighbors import nearest_neighbors, resolve_algorithm

        if resolve_algorithm("auto", Z.shape[0]) == "approximate":
            # pynndescent compiles its numba functions once per process.
            start = time.perf_counter()
            nearest_neighbors(Z[:2000], 10, algorithm="approximate", random_state=0)
            jit = time.perf_counter() - start
    for percent in percents:
        for seed in seeds:
            y_partial = partial_labels(y, percent, seed)
            unlabelled = y_partial < 0
            start = time.perf_counter()
            labels, details = fit_method(method, Z, y_partial, seed)
            seconds = time.perf_counter() - start
            record = {
                "method": method,
                "percent": percent,
                "seed": seed,
                "n_labelled": int((~unlabelled).sum()),
                "ari_unlabelled": adjusted_rand_score(
                    y[unlabelled], labels[unlabelled]
                ),
                "ari_all": adjusted_rand_score(y, labels),
                "seconds": seconds,
                "peak_gb": peak_gb(),
                "jit_once": jit,
                **details,
            }
            print(json.dumps(record), flush=True)


def run_neighbors_child(data_dir):
    """Time the neighbour search alone (10 neighbours) on the PCA data."""
    from smiclust.neighbors import nearest_neighbors

    Z = np.load(os.path.join(data_dir, "Z.npy"))
    out = {}
    start = time.perf_counter()
    nearest_neighbors(Z[:2000], 10, algorithm="approximate", random_state=0)
    out["jit_once"] = time.perf_counter() - start
    for algorithm in ("approximate", "exact"):
        start = time.perf_counter()
        nearest_neighbors(Z, 10, algorithm=algorithm, random_state=0)
        out[algorithm] = time.perf_counter() - start
    print(json.dumps(out), flush=True)


def child(args):
    """Run this script in a new process with `args`; its JSON lines, parsed."""
    out = subprocess.run(
        [sys.executable, __file__, *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise RuntimeError(f"child {args} failed with code {out.returncode}")
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    return [json.loads(line) for line in lines]


def prepare(data_dir, data_home, deskewed=False):
    """Load, scale (and deskew) and reduce MNIST; save Z and y in `data_dir`;
    step times."""
    from sklearn.decomposition import PCA

    from smiclust.datasets import load_mnist

    times = {}
    start = time.perf_counter()
    X, y = load_mnist(data_home=data_home)
    times["load (sha256 + parse)"] = time.perf_counter() - start
    start = time.perf_counter()
    X /= 255.0
    step = "pixels/255"
    if deskewed:
        X = deskew(X, (28, 28))
        step += " + deskew"
    Z = PCA(N_COMPONENTS, random_state=0).fit_transform(X)
    times[f"{step} + PCA({N_COMPONENTS}), all 70k, no labels"] = (
        time.perf_counter() - start
    )
    np.save(os.path.join(data_dir, "Z.npy"), Z)
    np.save(os.path.join(data_dir, "y.npy"), y)
    return times, peak_gb()


def summary_table(records, prep_seconds):
    """Markdown table: mean (min-max) over seeds per method and percent."""
    lines = [
        "| method | p % | labelled | seeds | ARI unlabelled mean (min-max) "
        "| fit s mean (max) | fit + prep s | peak GB | JIT once s "
        "| chosen (t, gamma) |",
        "|---|---:|---:|---:|---|---|---:|---:|---:|---|",
    ]
    keys = sorted(
        {(r["method"], r["percent"]) for r in records},
        key=lambda k: (METHODS.index(k[0]), k[1]),
    )
    for method, percent in keys:
        rows = [r for r in records if (r["method"], r["percent"]) == (method, percent)]
        ari = np.array([r["ari_unlabelled"] for r in rows])
        sec = np.array([r["seconds"] for r in rows])
        chosen = (
            ", ".join(f"({r['n_neighbors']}, {r['gamma']:g})" for r in rows)
            if "n_neighbors" in rows[0]
            else "-"
        )
        lines.append(
            f"| {method} | {percent:g} | {rows[0]['n_labelled']} | {len(rows)} "
            f"| {ari.mean():.3f} ({ari.min():.3f}-{ari.max():.3f}) "
            f"| {sec.mean():.1f} ({sec.max():.1f}) "
            f"| {sec.max() + prep_seconds:.1f} "
            f"| {max(r['peak_gb'] for r in rows):.2f} "
            f"| {rows[0]['jit_once']:.1f} | {chosen} |"
        )
    return "\n".join(lines)


def _check_options(parser, args):
    """Refuse bad options before the minutes of loading and fitting."""
    bad = [p for p in args.percents if not 0 < p <= 100]
    if bad:
        parser.error(f"--percents must be in (0, 100]; got {bad[0]!r}")
    bad = [s for s in args.seeds if not 0 <= s < 2**32]
    if bad:
        parser.error(f"--seeds must be integers in [0, 2**32 - 1]; got {bad[0]!r}")
    if args.json is not None:
        folder = os.path.dirname(os.path.abspath(args.json))
        if not args.json or os.path.isdir(args.json):
            parser.error(f"--json {args.json!r}: expected the name of a file")
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            parser.error(f"--json {args.json!r}: the folder {folder!r} does not "
                         "exist or cannot be written")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--percents", type=float, nargs="+", default=[1.0, 5.0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=METHODS)
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--neighbors", action="store_true")
    parser.add_argument("--deskew", action="store_true",
                        help="shear every image upright first (all methods)")
    parser.add_argument("--json", default=None, help="write all records here")
    # internal: run one method in this process
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    _check_options(parser, args)

    if args.child == "neighbors":
        run_neighbors_child(args.data_dir)
        return
    if args.child is not None:
        run_child(args.child, args.data_dir, args.percents, args.seeds)
        return

    print(f"load average: {os.getloadavg()}, cpus: {os.cpu_count()}", flush=True)
    with tempfile.TemporaryDirectory() as data_dir:
        times, prep_peak = prepare(data_dir, args.data_home, args.deskew)
        for step, seconds in times.items():
            print(f"{step}: {seconds:.1f} s", flush=True)
        print(f"preparation peak memory: {prep_peak:.2f} GB", flush=True)
        prep_seconds = sum(times.values())
        if args.neighbors:
            nb = child(["--child", "neighbors", "--data-dir", data_dir])[0]
            print(
                "neighbour search, 10 neighbours on the PCA data: "
                f"pynndescent {nb['approximate']:.1f} s (+ JIT once "
                f"{nb['jit_once']:.1f} s), exact {nb['exact']:.1f} s",
                flush=True,
            )
        records = []
        for method in args.methods:
            common = ["--data-dir", data_dir, "--child", method, "--percents"]
            common += [str(p) for p in args.percents] + ["--seeds"]
            common += [str(s) for s in args.seeds]
            for record in child(common):
                print(json.dumps(record), flush=True)
                records.append(record)
    if args.json is not None:
        from smiclust.io import atomic_write

        with atomic_write(args.json) as f:
            json.dump({"prep": times, "records": records}, f, indent=1)
    print(f"\nload average at the end: {os.getloadavg()}")
    print(summary_table(records, prep_seconds))


if __name__ == "__main__":
    main()
