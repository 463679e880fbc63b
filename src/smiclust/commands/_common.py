"""Helpers shared by ``smiclust fit`` and ``smiclust predict``.

The exception of bad command-line input (``UsageError``), argument
definitions, reading files with one-line errors, progress reporting, output
writing.
"""

import argparse
import contextlib
import json
import math
import os
import stat
import sys
import warnings

MODEL_FORMAT = "smiclust-cli-model"
MODEL_FORMAT_VERSION = 1


def one_line(text):
    """Collapse a message onto one line."""
    return " ".join(str(text).split())


class UsageError(Exception):
    """Bad input from the command line: reported in one line, exit status 2.

    Raised by the commands' ``run``; ``smiclust.cli.main`` catches it.
    """


def usage_error(message):
    """A :class:`UsageError` whose message is ``message`` on one line."""
    return UsageError(one_line(message))


# ---------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------


def add_table_arguments(group, *, id_default_help="none", links=True,
                        header_default_help=None):
    """--id-column, --header and --delimiter; with ``header_default_help``,
    --header defaults to None (the command chooses; the help says how)."""
    usable = ", usable in link and label files" if links else ""
    header_default = header_default_help or "infer"
    group.add_argument(
        "--id-column", metavar="NAME|INDEX", default=None,
        help="column of row ids (header name or 0-based position): not a "
             f"feature, copied to the output{usable} "
             f"(default: {id_default_help})")
    group.add_argument(
        "--header", choices=("infer", "yes", "no"),
        default="infer" if header_default_help is None else None,
        help="whether the first line of a text DATA file names the columns; "
             "'infer' takes it as a header when it holds text where the next "
             "line has numbers, and asks when unsure (column names 0,1 or "
             f"400,450 over decimals) (default: {header_default})")
    group.add_argument(
        "--delimiter", metavar="CHAR", default=None,
        help="field separator of text files (default: sniffed from the first "
             "line: comma, tab, semicolon or white space; tab for .tsv)")


def add_output_arguments(parser, *, fit):
    out = parser.add_argument_group("output")
    out.add_argument(
        "--out", "-o", metavar="FILE", default=None,
        help="write the assignments to FILE instead of stdout ('-': stdout)")
    out.add_argument(
        "--format", choices=("csv", "json", "parquet"), default=None,
        help="format of the assignments (default: from the --out suffix: .json, "
             ".parquet/.pq, otherwise csv; csv on stdout)")
    out.add_argument(
        "--proba", action="store_true",
        help="add the class probabilities, columns proba_0, proba_1, ... (rows "
             "sum to 1)")
    out.add_argument(
        "--quiet", "-q", action="store_true",
        help="no progress and no summary on stderr (warnings and errors are "
             "still printed)")
    out.add_argument(
        "--json", action="store_true",
        help="machine-readable: stdout is one JSON object {\"summary\": ..., "
             "\"assignments\": [...]} (no \"assignments\" when --out is given), "
             "and progress lines on stderr are JSON objects too")
    return out


def header_arg(value):
    return {"infer": "infer", "yes": True, "no": False}[value]


def delimiter_arg(value):
    if value is None:
        return None
    if value.lower() in ("tab", "\\t", "\t"):
        return "\t"
    if value.lower() in ("space", "whitespace"):
        return "whitespace"
    if len(value) != 1:
        raise usage_error(f"--delimiter must be one character, 'tab' or "
                          f"'whitespace'; got {value!r}")
    return value


def output_format(out, fmt, *, json_mode):
    """Format of the assignments; parquet needs a file."""
    to_stdout = out is None or out == "-"
    if fmt is None:
        fmt = "csv" if to_stdout else _format_from_suffix(out)
    if fmt == "parquet":
        if to_stdout:
            raise usage_error("--format parquet needs --out FILE (Parquet is "
                              "binary)")
        require_pyarrow()
    if json_mode and to_stdout:
        fmt = "json"
    return fmt


def suspect_links_format(path):
    """Format of --suspect-links FILE, from its suffix (CSV unless .json,
    .parquet or .pq; tab-separated CSV for .tsv)."""
    return _format_from_suffix(path)


def _format_from_suffix(path):
    from ..io import format_from_suffix

    return format_from_suffix(path)


def require_pyarrow():
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise usage_error("Parquet needs pyarrow: pip install 'smiclust[io]'") from None


def require_matplotlib(path):
    """matplotlib is installed and can write ``path`` (judged by its suffix)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise usage_error("--plot needs matplotlib: pip install 'smiclust[plot]'") \
            from None
    suffix = os.path.splitext(path)[1].lower().lstrip(".")
    supported = Figure().canvas.get_supported_filetypes()
    if not suffix:
        raise usage_error(f"--plot {path!r}: the file name needs a suffix naming "
                          "the image format, e.g. .png")
    if suffix not in supported:
        raise usage_error(
            f"--plot {path!r}: unknown image format {suffix!r}; use one of "
            f"{', '.join(sorted(supported))}")
    if suffix == "pgf":
        import shutil

        from matplotlib import rcParams

        tex = rcParams["pgf.texsystem"]
        if shutil.which(tex) is None:
            raise usage_error(
                f"--plot {path!r}: the pgf format needs {tex} (LaTeX), which is "
                "not installed; use pdf, svg or png")


def save_figure(fig, path, option, *, dpi):
    """Write a matplotlib figure to ``path`` (format from its suffix), atomically."""
    from ..io import atomic_write

    fmt = os.path.splitext(path)[1].lower().lstrip(".")
    try:
        with atomic_write(path, "wb") as f:
            fig.savefig(f, format=fmt, dpi=dpi)
    except (OSError, ValueError, RuntimeError) as exc:  # RuntimeError: LaTeX
        raise usage_error(f"cannot write {option} {path!r}: {one_line(exc)}") \
            from None


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:  # either does not exist (yet): where each would be written
        # (a dangling symbolic link writes its target)
        return os.path.realpath(a) == os.path.realpath(b)


def number_arg(convert, kind, accept, requirement):
    """argparse type: ``convert(value)``, which must satisfy ``accept``."""
    def parse(value):
        try:
            x = convert(value)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected {kind}, got {value!r}") from None
        if not accept(x):
            raise argparse.ArgumentTypeError(
                f"expected {requirement}, got {value!r}")
        return x
    parse.__name__ = kind
    return parse


seed_arg = number_arg(int, "an integer", lambda n: 0 <= n <= 2**32 - 1,
                      "an integer in [0, 4294967295]")


n_jobs_arg = number_arg(int, "an integer", lambda n: n != 0,
                        "a non-zero integer (-1: every core)")


def check_output_path(path, option, inputs=()):
    """Fail before any work when an output file cannot be created, or when it
    is one of ``inputs`` (pairs ``(option, path)``): outputs never overwrite
    what the user gave, nor each other."""
    if path is None or path == "-":
        return
    if path == "":
        raise usage_error(f"{option} needs a file name; got an empty string")
    for other_option, other in inputs:
        if other is not None and other != "-" and _same_file(path, other):
            raise usage_error(
                f"{option} {path!r} is the {other_option} file; choose another "
                "name (smiclust never overwrites its inputs)")
    if os.path.isdir(path):
        raise usage_error(f"{option} {path!r} is a directory")
    # the file is written beside the one it replaces, through a symbolic link
    # beside its target (smiclust.io.atomic_write): that directory must be
    # writable, and the target a regular file, which the rename replaces
    target = os.path.realpath(path)
    kind = _special_kind(path, _SPECIAL_FILES + (
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (lambda mode: not stat.S_ISREG(mode), "not a file")))
    if kind is not None:
        raise usage_error(
            f"{option} {path!r} is {kind}: smiclust writes its outputs to a "
            "regular file (a new one replaces it whole), so it would be "
            "replaced; give the name of a file")
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        raise usage_error(f"{option} {path!r}: directory {parent!r} does not exist")
    if not os.access(parent, os.W_OK):
        raise usage_error(f"{option} {path!r}: directory {parent!r} is not writable")


# ---------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------


def _os_message(what, path, exc):
    reason = exc.strerror or type(exc).__name__
    return f"cannot read {what} {str(path)!r}: {reason}"


#: Files larger than this get a progress line while they are read.
LARGE_FILE_BYTES = 20_000_000


_SPECIAL_FILES = ((stat.S_ISCHR, "a character device"),
                  (stat.S_ISBLK, "a block device"),
                  (stat.S_ISSOCK, "a socket"))


def _special_kind(path, kinds):
    """The name of the first of ``kinds`` (pairs of a test of ``st_mode`` and
    a name) that ``path`` is, following links (also /proc's, such as
    /dev/stdout); None when none is, or the path does not exist."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return next((kind for test, kind in kinds if test(mode)), None)


def check_readable_file(what, path):
    """Refuse devices and sockets (``/dev/zero`` never ends); files, pipes and
    missing paths pass (a missing file is reported by its reader)."""
    kind = _special_kind(path, _SPECIAL_FILES)
    if kind is not None:
        raise usage_error(f"cannot read {what} {str(path)!r}: it is {kind}, "
                          "not a file")


def read_input(what, reader, path, *, reporter=None, **kwargs):
    """Call an io reader; turn every reading problem into a one-line UsageError.

    Nothing is printed unless the file is large (reading it takes seconds).
    """
    check_readable_file(what, path)
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    if reporter is not None and size > LARGE_FILE_BYTES:
        reporter.progress(f"reading {path} ({size / 1e6:.0f} MB)")
    try:
        return reader(path, **kwargs)
    except OSError as exc:
        raise usage_error(_os_message(what, path, exc)) from None
    except (ValueError, TypeError, ImportError) as exc:
        raise usage_error(f"{what}: {exc}") from None


# ---------------------------------------------------------------------------
# progress and output
# ---------------------------------------------------------------------------


class Reporter:
    """Progress, warnings and the summary on stderr; text or JSON lines."""

    def __init__(self, command, *, quiet=False, json_mode=False):
        self.command = command
        self.quiet = quiet
        self.json_mode = json_mode
        self.warnings = []

    def _emit(self, event, message, **fields):
        if self.json_mode:
            record = {"event": event, "command": self.command, "message": message}
            record.update(fields)
            line = json.dumps(jsonable(record))
        else:
            prefix = f"smiclust {self.command}: "
            if event == "warning":
                prefix += "warning: "
            line = prefix + message
        print(line, file=sys.stderr, flush=True)

    def progress(self, message, **fields):
        if not self.quiet:
            self._emit("progress", message, **fields)

    def warning(self, message):
        message = one_line(message)
        self.warnings.append(message)
        self._emit("warning", message)

    def summary(self, summary):
        """The summary on stderr, one JSON line (text mode, unless quiet)."""
        if not self.quiet and not self.json_mode:
            print(json.dumps(jsonable(summary)), file=sys.stderr, flush=True)

    @contextlib.contextmanager
    def estimator_output(self):
        """Turn lines the estimator prints on stderr into JSON lines (JSON mode)."""
        if not self.json_mode or self.quiet:
            yield
            return
        stream = _JsonLineStream(self, sys.stderr)
        with contextlib.redirect_stderr(stream):
            try:
                yield
            finally:
                stream.flush_rest()


class _JsonLineStream:
    def __init__(self, reporter, target):
        self.reporter = reporter
        self.target = target
        self.buffer = ""

    def write(self, text):
        self.buffer += text
        while "\n" in self.buffer:
            line, self.buffer = self.buffer.split("\n", 1)
            self._line(line)
        return len(text)

    def _line(self, line):
        line = line.strip()
        if line:
            record = {"event": "progress", "command": self.reporter.command,
                      "message": line}
            print(json.dumps(record), file=self.target, flush=True)

    def flush(self):
        pass

    def flush_rest(self):
        if self.buffer:
            self._line(self.buffer)
            self.buffer = ""


@contextlib.contextmanager
def captured_warnings(reporter, *, already_reported=()):
    """Report warnings raised inside as one line each (and keep them).

    Warnings of the categories in ``already_reported`` are dropped: the command
    has said the same in its own words (e.g. with ids instead of row indices).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    seen = set()
    for w in caught:
        if issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning,
                                   FutureWarning, *already_reported)):
            continue
        message = one_line(w.message)
        if message not in seen:
            seen.add(message)
            reporter.warning(message)


def jsonable(value):
    """Plain JSON types; NaN and infinities become null."""
    import numpy as np

    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    return value


def write_result(args, reporter, labels, proba, ids, id_name, fmt, summary,
                 classes=None):
    """Assignments to --out or stdout, then the summary (stderr or --json);
    ``classes``: the --labels label of each row's cluster (column ``class``),
    or None."""
    from .. import io

    to_stdout = args.out is None or args.out == "-"
    if not to_stdout:
        try:
            io.write_assignments(args.out, labels, proba, ids, fmt, id_name=id_name,
                                 classes=classes)
        except OSError as exc:
            raise usage_error(f"cannot write --out {args.out!r}: "
                              f"{exc.strerror or exc}") from None
        reporter.progress(f"assignments written to {args.out} ({fmt})")
    try:
        if args.json:
            document = {"summary": summary}
            if to_stdout:
                cols = io.assignment_columns(labels, proba, ids, id_name=id_name,
                                             classes=classes)
                names = list(cols)
                document["assignments"] = [dict(zip(names, row))
                                           for row in zip(*cols.values())]
            json.dump(jsonable(document), sys.stdout)
            sys.stdout.write("\n")
        elif to_stdout:
            io.write_assignments(sys.stdout, labels, proba, ids, fmt, id_name=id_name,
                                 classes=classes)
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader went away (e.g. '| head'): not an error of ours
        silence_stdout()
    reporter.summary(summary)


def silence_stdout():
    """Point stdout at the null device (its reader went away), so that later
    writes and the interpreter's final flush stay quiet; nothing to do for a
    stream without a file descriptor."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)


def row_classes(cluster_classes, labels):
    """The --labels label of each row's cluster (the assignments' column
    ``class``; None for a cluster no labelled row names), or None when the
    clusters have no names."""
    if cluster_classes is None:
        return None
    return [cluster_classes[k] for k in labels.tolist()]


def cluster_sizes(labels, n_clusters):
    import numpy as np

    return np.bincount(np.asarray(labels), minlength=n_clusters).tolist()
