"""``smiclust ask``: a person answers "same cluster?" questions; answers become links.

The questions are those :class:`smiclust.ActiveSMIClustering` asks, with the
person as its oracle (:meth:`Session.oracle`): each pair chosen from the
answers so far, the model refitted after every batch. Every answer is saved
at once (the whole answers file rewritten atomically), so that Ctrl-C, a crash
or a closed terminal loses nothing and running the same command again resumes.
A file changed by someone else during the session (an editor, a second
session) is left as it is: the answer is refused and the session ends.
"""

import argparse
import os
import sys
import time

from . import _common
from .fit import (
    _id_name,
    add_data_arguments,
    add_input_arguments,
    add_model_arguments,
    positive_int,
)

DESCRIPTION = """\
Ask which rows of DATA belong together, a pair at a time, and fit with the
answers. Each question shows two rows side by side (their feature values, or
with --image-shape H W the two rows drawn as images) and reads one answer:
y (same cluster: a must-link), n (different clusters: a cannot-link), s (skip:
not sure; not asked again) or q (quit; end of input quits too). Each answer is
saved to the --links file at once. The questions are those of
smiclust.ActiveSMIClustering: each pair chosen from the answers so far, the
model refitted after every --batch-size answers. After the last question
(--budget reached, q, end of input, or no pair left to ask) the model is
fitted on every answer, the assignments are written to --out, and a summary
is printed.

DATA, --id-column, --columns, --standardize, -k and the model options are those
of 'smiclust fit'.
"""

EPILOG = """\
the --links file:
  CSV with a header line and one answer a line, in the order given:
      i,j,answer            (0-based row indices; with an id column:
      17,342,must            <id>_i,<id>_j,answer and ids, e.g. id_i,id_j)
      5,88,cannot
      40,41,skip
  answer is must (y), cannot (n) or skip (s). The file is rewritten after each
  answer through a temporary file and a rename, so it always holds every
  answer given, complete (if the file changes under the session, the session
  stops, leaving it as it is). Running the command again with the same file
  resumes: answers already in it are not asked again and count against
  --budget (--budget 0 fits on the answers in the file and asks nothing).

using the answers with 'smiclust fit':
  smiclust fit DATA -k K --answers links.csv
  (must answers are must-links, cannot answers cannot-links, skips no link;
  give the --id-column of the session when the file names rows by id)

output:
  The questions go to stdout; progress, warnings and the fit's one-line JSON
  summary to stderr (--quiet: none). With --out FILE, the assignments of the
  final fit go to FILE as in 'smiclust fit' (CSV, JSON or Parquet from the
  suffix). With --png FILE.png, each pair is also drawn to FILE.png (needs
  matplotlib), rewritten for every question.

exit status: 0 when the questions end (budget, q, end of input), 2 on bad
  input (one line on stderr, no file written), 130 on Ctrl-C (the answers
  given are in the --links file), 1 when stdout is closed while asking (a
  pager quit, '| head'): no final fit, the answers given are in the --links
  file.

examples:
  smiclust ask data.csv -k 3 --id-column sample --budget 50 --links links.csv \\
      --out clusters.csv
  smiclust ask digits.csv -k 10 --budget 200 --links links.csv \\
      --image-shape 16 16 --png pair.png
"""

PROMPT = "Same cluster? [y]es / [n]o / [s]kip / [q]uit: "

#: What a typed answer means (compared after strip and lower-case).
REPLIES = {"y": "must", "yes": "must", "n": "cannot", "no": "cannot",
           "s": "skip", "skip": "skip", "q": "quit", "quit": "quit"}


_non_negative_int = _common.number_arg(int, "an integer", lambda n: n >= 0,
                                       "an integer >= 0")


def add_parser(subparsers):
    p = subparsers.add_parser(
        "ask",
        help="ask a person whether pairs of rows belong together, then fit",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_arguments(p, k_help="number of clusters (>= 2)")
    p.add_argument("--budget", type=_non_negative_int, required=True, metavar="N",
                   help="questions in all, the answers already in --links "
                        "included")
    p.add_argument("--links", metavar="FILE", required=True,
                   help="answers file (CSV i,j,answer), created or resumed; "
                        "see 'the --links file' below")
    add_input_arguments(
        p, standardize_help="z-score every feature for the model (the questions "
        "show the values as read)")
    show = p.add_argument_group("questions")
    show.add_argument(
        "--image-shape", type=positive_int, nargs=2, metavar=("H", "W"),
        default=None,
        help="draw each row as an H x W grey image (row-major; H x W must be "
             "the number of features) instead of listing its values")
    show.add_argument(
        "--png", metavar="FILE.png", default=None,
        help="with --image-shape: also draw each pair to FILE.png (needs "
             "matplotlib)")
    show.add_argument(
        "--batch-size", type=positive_int, default=10, metavar="B",
        help="questions chosen per refit of the model (default: 10)")
    model = add_model_arguments(p)
    model.add_argument("--random-state", type=_common.seed_arg, default=0,
                       metavar="INT",
                       help="seed of the fits and of the choice of pairs "
                            "(default: 0)")
    out = p.add_argument_group("output")
    out.add_argument("--out", "-o", metavar="FILE", default=None,
                     help="write the assignments of the final fit to FILE")
    out.add_argument("--format", choices=("csv", "json", "parquet"), default=None,
                     help="format of --out (default: from its suffix: .json, "
                          ".parquet/.pq, otherwise csv)")
    out.add_argument("--proba", action="store_true",
                     help="add the class probabilities to --out")
    out.add_argument("--quiet", "-q", action="store_true",
                     help="no progress and no summary on stderr")


# ---------------------------------------------------------------------------
# checks, before anything is read or written
# ---------------------------------------------------------------------------


def _check_options(args):
    """Options and paths; returns the format of --out (None without --out)."""
    if args.n_clusters < 2:
        raise _common.usage_error(
            f"-k must be at least 2 (with one cluster there is nothing to ask); "
            f"got {args.n_clusters}")
    if args.links == "-":
        raise _common.usage_error("--links needs a file name (the answers are "
                                  "saved to it after each question)")
    if args.out == "-":
        raise _common.usage_error("--out needs a file name (stdout shows the "
                                  "questions)")
    if args.out is None:
        for option, given in (("--proba", args.proba),
                              ("--format", args.format is not None)):
            if given:
                raise _common.usage_error(
                    f"{option} needs --out FILE (the final fit's clusters are "
                    "written only there)")
    if args.png is not None:
        if args.image_shape is None:
            raise _common.usage_error("--png needs --image-shape H W (it draws "
                                      "the two rows as images)")
        if os.path.splitext(args.png)[1].lower() != ".png":
            raise _common.usage_error(f"--png expects a file name ending in .png; "
                                      f"got {args.png!r}")
    inputs = [("DATA", args.data)]
    for option, path in (("--links", args.links), ("--out", args.out),
                         ("--png", args.png)):
        _common.check_output_path(path, option, inputs)
        inputs.append((option, path))
    if os.path.exists(args.links):
        _common.check_readable_file("--links", args.links)
        if not os.access(args.links, os.W_OK):
            raise _common.usage_error(f"--links {args.links!r} is not writable")
    if args.png is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise _common.usage_error("--png needs matplotlib: pip install "
                                      "'smiclust[plot]'") from None
    if args.out is None:
        return None
    return _common.output_format(args.out, args.format, json_mode=False)


def _read_data(args, rep):
    """``(X for the model, X as read, ids, names)``, checked."""
    import numpy as np
    import scipy.sparse as sp

    from .. import io
    from ._fit_inputs import _standardize, column_choice

    X, ids, names = _common.read_input(
        "DATA", io.read_table, args.data, reporter=rep, id_column=args.id_column,
        header=_common.header_arg(args.header), **column_choice(args),
        delimiter=_common.delimiter_arg(args.delimiter))
    n, d = X.shape
    if n < 2:
        raise _common.usage_error(f"DATA: {args.data}: needs at least 2 rows; got {n}")
    if args.n_clusters > n:
        raise _common.usage_error(
            f"-k {args.n_clusters} is more clusters than DATA has rows ({n})")
    if args.image_shape is not None:
        h, w = args.image_shape
        if h * w != d:
            raise _common.usage_error(
                f"--image-shape {h} {w} holds {h * w} values; the rows of DATA "
                f"have {d} features")
    t_values = [] if args.n_neighbors == "auto" else np.atleast_1d(args.n_neighbors)
    if any(t >= n for t in t_values):
        raise _common.usage_error(
            f"--n-neighbors must be smaller than the number of rows ({n}); got "
            f"{max(t_values)}")
    shown = _DenseRows(X) if sp.issparse(X) else X
    if args.standardize:
        scaled = argparse.Namespace(X=X, names=names, scaler=None)
        _standardize(scaled, rep)
        X = scaled.X
    return X, shown, ids, names


class _DenseRows:
    """The rows of a sparse ``X``, each made dense when it is shown (one row
    at a time; the matrix stays sparse)."""

    def __init__(self, X):
        self.X = X

    def __getitem__(self, i):
        return self.X[i].toarray().ravel()


# ---------------------------------------------------------------------------
# showing a pair
# ---------------------------------------------------------------------------


def _terminal_size():
    import shutil

    return shutil.get_terminal_size(fallback=(100, 40))


def _is_tty(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _use_colour(stream):
    """Grey levels by terminal colours: a terminal that is not dumb, no NO_COLOR."""
    return (_is_tty(stream) and "NO_COLOR" not in os.environ
            and os.environ.get("TERM", "") not in ("", "dumb"))


def _label(k, ids):
    return f"row {k}" if ids is None else str(ids[k])


def feature_view(a, b, names, titles, *, width, height):
    """Two rows' feature values as aligned columns (several blocks side by side
    when they are many); lines of text."""
    d = len(a)
    names = [str(v) for v in names] if names else [f"x{k}" for k in range(d)]

    def fmt(v):
        return f"{v:.6g}"

    name_w = max(len("feature"), *(len(v) for v in names))
    col_w = max(len(titles[0]), len(titles[1]),
                *(len(fmt(v)) for v in (*a, *b)))
    cell = name_w + 2 * (col_w + 2)
    gap = 4
    rows_max = max(4, height - 1)
    # as few blocks as the height allows, as many as the width holds
    n_blocks = min(max(1, (width + gap) // (cell + gap)), -(-d // rows_max))
    per_block = min(-(-d // n_blocks), rows_max)
    shown = min(d, per_block * n_blocks)

    def line(name, x, y):
        return f"{name:<{name_w}}  {x:>{col_w}}  {y:>{col_w}}"

    blocks = []
    for block in range(n_blocks):
        rows = range(block * per_block, min(shown, (block + 1) * per_block))
        lines = [line("feature", *titles)]
        lines += [line(names[k], fmt(a[k]), fmt(b[k])) for k in rows]
        blocks.append(lines)
    out = []
    for r in range(per_block + 1):
        parts = [blk[r] if r < len(blk) else " " * cell for blk in blocks]
        out.append((" " * gap).join(parts).rstrip())
    if shown < d:
        out.append(f"... {d - shown} more features not shown (--image-shape H W "
                   "draws the rows as images)")
    return out


#: Grey ramp from dark to light when the terminal shows no colours.
SHADES = " ░▒▓█"


def _downsample(image, factor):
    """Mean over ``factor x factor`` blocks (the edges padded by repetition)."""
    import numpy as np

    if factor == 1:
        return image
    h, w = image.shape
    H, W = -(-h // factor) * factor, -(-w // factor) * factor
    padded = np.pad(image, ((0, H - h), (0, W - w)), mode="edge")
    return padded.reshape(H // factor, factor, W // factor, factor).mean(axis=(1, 3))


def image_view(a, b, shape, titles, *, low, high, width, height, colour):
    """Two rows drawn as grey images side by side; lines of text.

    With ``colour``, each character cell is an upper half block whose
    foreground is the upper pixel and whose background is the lower one
    (256-colour grey ramp); without, one shade character of ``SHADES`` per
    pixel column, averaging two pixel rows. Values are scaled from
    ``[low, high]`` (the range of the whole data) to dark..light.
    """
    import numpy as np

    h, w = shape
    gap = 4
    factor = 1
    while (2 * -(-w // factor) + gap > width
           or -(-h // factor) // 2 + 2 > max(height, 8)) and factor < max(h, w):
        factor += 1
    span = high - low if high > low else 1.0
    images = [_downsample((np.asarray(v, float).reshape(h, w) - low) / span, factor)
              for v in (a, b)]
    images = [np.clip(im, 0, 1) for im in images]
    ih, iw = images[0].shape
    if ih % 2:
        images = [np.vstack([im, im[-1:]]) for im in images]
    lines = []
    title = "".join(t[:iw].ljust(iw) + " " * gap for t in titles).rstrip()
    lines.append(title)
    for r in range(0, images[0].shape[0], 2):
        parts = [_cells(im[r], im[r + 1], colour) for im in images]
        lines.append((" " * gap).join(parts))
    return lines


def _grey(v):
    """256-colour index of grey level ``v`` in [0, 1]: 16 (black), 232..255, 231."""
    level = int(round(float(v) * 25))
    return 16 if level == 0 else 231 if level == 25 else 231 + level


def _cells(top, bottom, colour):
    if colour:
        cells = "".join(f"\x1b[38;5;{_grey(t)}m\x1b[48;5;{_grey(u)}m▀"
                        for t, u in zip(top, bottom))
        return cells + "\x1b[0m"
    mean = (top + bottom) / 2
    idx = [min(len(SHADES) - 1, int(v * len(SHADES))) for v in mean]
    return "".join(SHADES[k] for k in idx)


def _draw_png(path, a, b, shape, titles, heading, *, low, high):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3.4), layout="constrained")
    for k, (row, title) in enumerate(zip((a, b), titles)):
        ax = fig.add_subplot(1, 2, k + 1)
        ax.imshow(row.reshape(shape), cmap="gray", vmin=low, vmax=high,
                  interpolation="nearest")
        ax.set_title(title)
        ax.set_axis_off()
    fig.suptitle(heading)
    _common.save_figure(fig, path, "--png", dpi=100)


# ---------------------------------------------------------------------------
# the session
# ---------------------------------------------------------------------------


class Session:
    """State of one run: data, answers, the file, the screen; its
    :meth:`oracle` answers :class:`smiclust.ActiveSMIClustering`'s
    questions."""

    def __init__(self, args, X, shown, ids, id_name, names, answers, rep, *,
                 stdin=None, stdout=None):
        self.args = args
        self.X, self.shown, self.ids, self.id_name = X, shown, ids, id_name
        self.names = names
        self.answers = list(answers)
        self.n_resumed = len(self.answers)
        self.links_stamp = _stamp(args.links)  # the file as read
        self.rep = rep
        self.stdin = sys.stdin if stdin is None else stdin
        self.stdout = sys.stdout if stdout is None else stdout
        source = shown.X if isinstance(shown, _DenseRows) else shown
        self.low, self.high = float(source.min()), float(source.max())
        self.stopped = "budget"
        self.answered = None  # when the model's turn began (the last answer)
        self.fit_start = None  # when the final fit began (set by wrap_up)
        self.caught = []  # warnings of the fits since the last question
        self.fit_warnings = []  # those of the fit before the batch's first question
        self.refits_at_end = True  # False: the session ends with the last fit
        self.asking = False  # in the oracle (its errors are not the fit's)

    # -- output ----------------------------------------------------------
    def say(self, text=""):
        print(text, file=self.stdout, flush=True)

    # -- the loop --------------------------------------------------------
    def run(self):
        """Ask through ActiveSMIClustering; the fitted model."""
        import warnings

        from .. import ActiveSMIClustering
        from ..io import links_of

        args = self.args
        budget = args.budget
        # the batches of ActiveSMIClustering (the whole budget when larger)
        self.batch_size = args.batch_size
        if self.n_resumed:
            self.say(f"{_count(self.n_resumed, 'answer')} already in "
                     f"{args.links}; not asked again")
        must, cannot = links_of(self.answers)
        skipped = [(i, j) for i, j, a in self.answers if a == "skip"]
        model = ActiveSMIClustering(
            args.n_clusters, budget=max(budget, 1), batch_size=self.batch_size,
            n_neighbors=args.n_neighbors, gamma=args.gamma, eta=args.eta,
            keep_cannot_links=args.keep_cannot_links,
            random_state=args.random_state)
        if len(self.answers) < budget:
            self._choosing()
        else:
            self.wrap_up()
        self.answered = time.perf_counter()
        with warnings.catch_warnings(record=True) as self.caught:
            warnings.simplefilter("always")
            try:
                model.fit(self.X, oracle=self.oracle if budget else None,
                          must_link=must, cannot_link=cannot, unknown_pairs=skipped)
            except (ValueError, TypeError) as exc:
                if self.asking:  # not the fit's: a bug of the oracle
                    raise
                raise _common.usage_error(f"cannot fit: {exc}") from None
        # the final fit's warnings, reported by the caller
        for w in self.caught if self.refits_at_end else self.fit_warnings:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if self.fit_start is None:  # neither q nor the budget: nothing left
            skipped = self.counts()["skip"]
            self.say("No pair is left to ask: the answers decide every pair"
                     + (" but, maybe, pairs of the samples answered \"don't "
                        "know\" (they are not asked about again)."
                        if skipped else "."))
            self.stopped = "no pairs left"
            self.wrap_up()
            self.fit_start = self.answered  # the final fit followed that answer
        return model

    def oracle(self, i, j):
        """Show the pair, read the reply, save it at once: True (same), False
        (different), None (skip); q or the end of input raise StopAsking."""
        from .. import StopAsking

        first_of_batch = (len(self.answers) - self.n_resumed) % self.batch_size == 0
        if first_of_batch:  # a fit ran before this question: keep its warnings
            self.fit_warnings = list(self.caught)
        del self.caught[:]
        self.asking = True
        self.show(i, j, len(self.answers) + 1)
        answer = self.read_reply()
        if answer == "quit":
            # at a batch's first question nothing is fitted again: the model
            # is the fit of the last batch, which has every answer
            self.refits_at_end = not first_of_batch
            self.wrap_up()
            self.asking = False
            raise StopAsking
        self.save(i, j, answer)
        self.answered = time.perf_counter()
        self.asking = False
        n, budget = len(self.answers), self.args.budget
        if n >= budget:
            self.wrap_up()
        elif (n - self.n_resumed) % self.batch_size == 0:
            self._choosing()
        return {"must": True, "cannot": False, "skip": None}[answer]

    def _choosing(self):
        want = min(self.args.batch_size, self.args.budget - len(self.answers))
        self.rep.progress(f"choosing the next {_count(want, 'question')}")

    # -- one question ----------------------------------------------------
    def show(self, i, j, number):
        args = self.args
        titles = (_label(i, self.ids), _label(j, self.ids))
        heading = f"question {number} of {args.budget}: {titles[0]} and {titles[1]}"
        width, height = _terminal_size()
        self.say()
        self.say(heading)
        if args.image_shape is not None:
            lines = image_view(self.shown[i], self.shown[j], args.image_shape,
                               titles, low=self.low, high=self.high, width=width,
                               height=height - 4,
                               colour=_use_colour(self.stdout))
        else:
            lines = feature_view(self.shown[i], self.shown[j], self.names, titles,
                                 width=width, height=height - 4)
        for line in lines:
            self.say(line)
        if args.png is not None:
            _draw_png(args.png, self.shown[i], self.shown[j], args.image_shape,
                      titles, heading, low=self.low, high=self.high)
            self.say(f"(drawn to {args.png})")

    def read_reply(self):
        """'must', 'cannot', 'skip' or 'quit' (also at the end of input)."""
        while True:
            self.stdout.write(PROMPT)
            self.stdout.flush()
            # no standard input at all (closed: sys.stdin is None) is its end
            line = "" if self.stdin is None else self.stdin.readline()
            if line and not _is_tty(self.stdin):
                self.stdout.write(line if line.endswith("\n") else line + "\n")
            if not line:
                self.say()
                self.stopped = "end of input"
                return "quit"
            reply = REPLIES.get(line.strip().lower())
            if reply is not None:
                if reply == "quit":
                    self.stopped = "quit"
                return reply
            self.say(f"Please answer y, n, s or q (got {line.strip()!r}).")

    def save(self, i, j, answer):
        from ..io import write_answers

        if _stamp(self.args.links) != self.links_stamp:
            # another session or an editor changed it: rewriting it from the
            # answers read would drop that change
            raise _common.usage_error(
                f"--links {self.args.links!r} changed since this session read "
                f"or wrote it (another session, or an editor?); the answer to "
                f"{_label(i, self.ids)} and {_label(j, self.ids)} is not saved, "
                "and the file is left as it is: run the command again to go on "
                "from it")
        self.answers.append((i, j, answer))
        try:
            write_answers(self.args.links, self.answers, ids=self.ids,
                          id_name=self.id_name)
        except BaseException as exc:  # also Ctrl-C: the file keeps what it had
            self.answers.pop()
            if isinstance(exc, OSError):
                raise _common.usage_error(
                    f"cannot write --links {self.args.links!r}: "
                    f"{exc.strerror or exc}") from None
            raise
        self.links_stamp = _stamp(self.args.links)

    # -- the end ---------------------------------------------------------
    def wrap_up(self):
        """Where the answers stand, before the final fit."""
        args = self.args
        counts = self.counts()
        n = len(self.answers)
        where = (f"in {args.links}" if os.path.exists(args.links)
                 else f"({args.links} not written)")
        go_on = (self.stopped != "no pairs left" and n < args.budget)
        self.say()
        self.say(
            f"{_count(n, 'answer')} {where} ({counts['must']} same, "
            f"{counts['cannot']} different, {counts['skip']} skipped; "
            f"{n - self.n_resumed} this session)" + (
                f"; {_count(args.budget - n, 'question')} left of the budget of "
                f"{args.budget}: run the same command to go on"
                if go_on else ""))
        if self.refits_at_end:
            self.rep.progress(f"fitting with {_count(counts['must'], 'must-link')} "
                              f"and {_count(counts['cannot'], 'cannot-link')}")
        self.fit_start = time.perf_counter()

    def counts(self):
        from ..io import ANSWERS

        kinds = [a for _, _, a in self.answers]
        return {a: kinds.count(a) for a in ANSWERS}


def _stamp(path):
    """What tells whether a file changed: its inode, size and modification
    time (``None`` while it does not exist)."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns


def _count(number, noun):
    return f"{number} {noun}{'' if number == 1 else 's'}"


def run(args, *, stdin=None, stdout=None):
    start = time.perf_counter()
    rep = _common.Reporter("ask", quiet=args.quiet)
    fmt = _check_options(args)
    X, shown, ids, names = _read_data(args, rep)
    answers = _read_answers(args.links, ids, X.shape[0])
    id_name = _id_name(args.id_column, names, ids)
    session = Session(args, X, shown, ids, id_name, names, answers, rep,
                      stdin=stdin, stdout=stdout)
    try:
        with _common.captured_warnings(rep):
            model = session.run()
        _finish(session, model, fmt, start)
    except KeyboardInterrupt:
        print(f"\nsmiclust ask: interrupted; {_kept(session)}", file=sys.stderr,
              flush=True)
        return 130
    except BrokenPipeError:
        # the reader of the questions went away: nobody sees them any more
        _common.silence_stdout()
        print("smiclust ask: stdout was closed, so the questions cannot be "
              f"shown; stopped without the final fit; {_kept(session)}",
              file=sys.stderr, flush=True)
        return 1
    return 0


def _kept(session):
    n = len(session.answers)
    return (f"{_count(n, 'answer')} saved in {session.args.links} (run the "
            "same command to go on)" if n else "no answer given")


def _read_answers(path, ids, n_samples):
    """The answers already in the --links file; none when it does not exist."""
    from .. import io

    if not os.path.exists(path):
        return []
    return _common.read_input("--links", io.read_answers, path, ids=ids,
                              n_samples=n_samples)


def _finish(session, model, fmt, start):
    """--out and the summary, after the final fit (``model``)."""
    from ..constraints import count_violations
    from ..io import links_of

    args, rep = session.args, session.rep
    counts = session.counts()
    n = len(session.answers)
    fitted = model.estimator_
    n_violations = count_violations(model.labels_, *links_of(session.answers))
    fit_seconds = time.perf_counter() - session.fit_start
    fitted_when = (f"fitted in {fit_seconds:.2f} s" if session.refits_at_end
                   else "the model of the last batch, fitted with every answer")
    rep.progress(f"{fitted_when}: n_neighbors={fitted.n_neighbors_}, "
                 f"gamma={fitted.gamma_:g}, eta={fitted.eta_:g}, "
                 f"{n_violations} of {counts['must'] + counts['cannot']} "
                 "links violated")
    if args.out is not None:
        from .. import io

        proba = fitted.proba_ if args.proba else None
        try:
            io.write_assignments(args.out, model.labels_, proba, session.ids, fmt,
                                 id_name=session.id_name)
        except OSError as exc:
            raise _common.usage_error(f"cannot write --out {args.out!r}: "
                                      f"{exc.strerror or exc}") from None
        rep.progress(f"assignments written to {args.out} ({fmt})")
    n_samples, n_features = session.X.shape
    rep.summary({
        "command": "ask",
        "data": args.data,
        "links": args.links,
        "n_samples": n_samples,
        "n_features": n_features,
        "n_clusters": args.n_clusters,
        "budget": args.budget,
        "n_answers": n,
        "n_asked_now": n - session.n_resumed,
        "n_must_link": counts["must"],
        "n_cannot_link": counts["cannot"],
        "n_skipped": counts["skip"],
        "stopped": session.stopped,
        "cluster_sizes": _common.cluster_sizes(model.labels_, args.n_clusters),
        "n_neighbors": int(fitted.n_neighbors_),
        "gamma": float(fitted.gamma_),
        "eta": float(fitted.eta_),
        "keep_cannot_links": bool(args.keep_cannot_links),
        "n_violations": n_violations,
        "random_state": args.random_state,
        "out": args.out,
        "format": fmt,
        "seconds": round(time.perf_counter() - start, 4),
        "warnings": rep.warnings,
    })
