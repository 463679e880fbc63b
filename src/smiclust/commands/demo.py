"""``smiclust demo``: the library's auto-tuned default on digits500 with more and
more links."""

import sys
import time

from . import _common
from ._common import UsageError

DEFAULT_FRACTIONS = (0.0, 0.002, 0.005, 0.01, 0.02)
#: The figure written when --plot is not given.
DEFAULT_PLOT = "smiclust-demo.png"


def add_parser(subparsers):
    p = subparsers.add_parser(
        "demo",
        help="the default SMIClustering on the shipped USPS digits500 sample "
             "with increasing links",
        description=(
            "Runs the library's default, SMIClustering(10) (beyond the paper's "
            "3SMIC: the links closed; t, gamma and eta auto-tuned), on digits500 "
            "(50 USPS images per digit) with 0 and a few increasing numbers of "
            "random links typed by the true labels, printing the ARI, the chosen "
            "(t, gamma, eta) and the time, and writes a plot when matplotlib is "
            "installed."
        ),
    )
    p.add_argument(
        "--fractions",
        type=float,
        nargs="+",
        default=DEFAULT_FRACTIONS,
        help="link counts as fractions of all pairs (default: %(default)s)",
    )
    p.add_argument("--seed", type=_common.seed_arg, default=0,
                   help="random seed (default: 0)")
    p.add_argument(
        "--plot",
        default=None,
        help=f"figure to write (default: {DEFAULT_PLOT} when matplotlib is "
             "installed); '' for none; a file named here without matplotlib is "
             "refused (exit 2)",
    )
    p.add_argument("--n-jobs", type=_common.n_jobs_arg, default=None,
                   help="parallel jobs of each fit's search (default: 1)")


def run(args):
    from sklearn.metrics import adjusted_rand_score

    from .. import SMIClustering, sample_links
    from ..datasets import make_digits500

    if any(not 0 <= f <= 1 for f in args.fractions):
        raise UsageError(f"--fractions must lie in [0, 1]; got {args.fractions}")
    plot = _check_plot(args.plot)
    X, y = make_digits500(random_state=args.seed)
    n = X.shape[0]
    n_pairs = n * (n - 1) // 2
    print(f"digits500: n={n}, d={X.shape[1]}, c=10; seed={args.seed}")
    print(
        f"{'links':>7} {'% pairs':>8} {'ARI':>6} {'t':>3} {'gamma':>6} "
        f"{'eta':>4} {'violated':>8} {'seconds':>8}"
    )
    rows = []
    for frac in args.fractions:
        n_links = int(round(frac * n_pairs))
        must, cannot = sample_links(y, n_links, random_state=args.seed)
        start = time.perf_counter()
        model = SMIClustering(10, random_state=args.seed, n_jobs=args.n_jobs)
        model.fit(X, must_link=must, cannot_link=cannot)
        seconds = time.perf_counter() - start
        ari = adjusted_rand_score(y, model.labels_)
        rows.append((n_links, ari))
        print(
            f"{n_links:>7} {100 * frac:>8.2f} {ari:>6.3f} {model.n_neighbors_:>3} "
            f"{model.gamma_:>6g} {model.eta_:>4g} {model.n_violations_:>8} "
            f"{seconds:>8.2f}",
            flush=True,
        )
    if plot:
        _plot(rows, plot)
    return 0


def _check_plot(path):
    """The --plot file, checked before the work (format, folder, matplotlib);
    None for no plot: ``''``, or no --plot and matplotlib not installed (said
    on stderr)."""
    if path == "":
        return None
    if path is None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("matplotlib is not installed: no plot (pip install "
                  "'smiclust[plot]')", file=sys.stderr)
            return None
        path = DEFAULT_PLOT
    _common.require_matplotlib(path)
    _common.check_output_path(path, "--plot")
    return path


def _plot(rows, path):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5, 3.5), layout="constrained")
    ax = fig.add_subplot()
    ax.plot([r[0] for r in rows], [r[1] for r in rows], "o-", label="smiclust default")
    ax.set_xlabel("number of links")
    ax.set_ylabel("ARI against the true digits")
    ax.set_title("smiclust demo: digits500")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    _common.save_figure(fig, path, "--plot", dpi=120)
    print(f"plot written to {path}")
