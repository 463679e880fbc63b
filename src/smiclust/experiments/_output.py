"""The output directory of a reproduction: what may be written there, and how.

``smiclust reproduce --out DIR`` writes ``DIR/records.csv`` (appended),
``DIR/config.json``, ``DIR/report.md`` and ``DIR/figures/*.png``. It writes
into ``DIR`` only when :func:`check_out_dir` accepts it, before anything is
written:

* ``DIR`` is a directory, or does not exist and its nearest existing parent
  is a directory;
* ``DIR/records.csv``, if present, is a records file: UTF-8 text whose first
  line is the header of :data:`~smiclust.experiments.RECORD_FIELDS`, or the
  legacy header written before the fields beyond the paper (or a part of
  the header, left by an interruption before the first record);
* ``DIR/config.json``, if present, is a reproduction config: a JSON object
  with the keys ``name``, ``seeds``, ``datasets`` and ``methods``;
* ``DIR/report.md``, if present, starts with the report's title line
  (:data:`REPORT_TITLE`, or :data:`BEYOND_REPORT_TITLE` for ``--config
  beyond``, :data:`NOISE_REPORT_TITLE` for ``--config noise``);
* ``DIR/figures``, if present, is a directory (its ``<dataset>-<preprocessing>
  .png`` files are replaced).

Anything else is a file the tool did not write, and the directory is refused
with :class:`OutputDirError`, naming the file. While it writes, a process
holds an exclusive ``fcntl.flock`` on ``DIR/.smiclust-reproduce.lock``
(:func:`lock_out_dir`); a second process is refused instead of writing beside
it. The lock is released when the process ends, however it ends.

Every file but the records is written whole or not at all
(:func:`smiclust.io.atomic_write`: a temporary file in the same directory,
then :func:`os.replace`). The records file only grows, one line per
:func:`append_line` call (a single ``write`` in append mode); a process
killed in the middle of a line leaves a partial last line, which readers
ignore and the next writer cuts off before appending.
"""

import contextlib
import errno
import json
import os
from pathlib import Path

__all__ = [
    "CONFIG_FILE",
    "REPORT_FILE",
    "REPORT_TITLE",
    "BEYOND_REPORT_TITLE",
    "NOISE_REPORT_TITLE",
    "FIGURES_DIR",
    "LOCK_FILE",
    "OutputDirError",
    "check_out_dir",
    "read_records_text",
    "lock_out_dir",
    "append_line",
    "cut_partial_last_line",
]

#: Name of the config file in the output directory.
CONFIG_FILE = "config.json"
#: Name of the report in the output directory.
REPORT_FILE = "report.md"
#: First line of every report (how a report of the tool is recognised).
REPORT_TITLE = "# Reproduction of the 3SMIC experiments"
#: First line of the report of the ``beyond`` config.
BEYOND_REPORT_TITLE = "# Beyond the 3SMIC paper: the library default and its peers"
#: First line of the report of the ``noise`` configs.
NOISE_REPORT_TITLE = "# Wrong links: the library default when links are flipped"
_REPORT_TITLES = (REPORT_TITLE, BEYOND_REPORT_TITLE, NOISE_REPORT_TITLE)
#: Name of the directory of the figures in the output directory.
FIGURES_DIR = "figures"
#: Name of the lock file in the output directory.
LOCK_FILE = ".smiclust-reproduce.lock"

_CONFIG_KEYS = ("name", "seeds", "datasets", "methods")


class OutputDirError(ValueError):
    """The output directory cannot be written: the message names the file and
    says how to proceed."""


def _refuse(path, problem):
    return OutputDirError(
        f"{str(path)!r} {problem}; choose another output directory"
        " (--out) or move the file away"
    )


def _check_location(out):
    """``out`` is a directory, or can be created as one."""
    if out.exists() and not out.is_dir():
        raise OutputDirError(
            f"{str(out)!r} is a file, not a directory; choose another output "
            "directory (--out)"
        )
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise OutputDirError(
                    f"{str(out)!r} cannot be created: {str(parent)!r} is a file, "
                    "not a directory; choose another output directory (--out)"
                )
            break


def _check_config(path):
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = None
    if not (isinstance(config, dict) and all(k in config for k in _CONFIG_KEYS)):
        raise _refuse(path, "is not a config written by smiclust reproduce (a JSON "
                            f"object with the keys {', '.join(_CONFIG_KEYS)})")
    seeds = config["seeds"]
    wrong = [key for key, ok in (
        ("name", isinstance(config["name"], str)),
        ("seeds", isinstance(seeds, list) and all(
            isinstance(s, int) and not isinstance(s, bool) for s in seeds)),
        ("datasets", isinstance(config["datasets"], dict) and all(
            isinstance(spec, dict) for spec in config["datasets"].values())),
        ("methods", isinstance(config["methods"], dict)),
    ) if not ok]
    if wrong:
        raise _refuse(path, "is not a config written by smiclust reproduce: "
                            f"{', '.join(repr(k) for k in wrong)} of the wrong "
                            "type (expected a string for 'name', a list of "
                            "integers for 'seeds', objects for 'datasets', "
                            "each data set's settings and 'methods')")


def _check_report(path):
    try:
        with open(path, "rb") as f:
            first = f.readline(max(map(len, _REPORT_TITLES)) + 2)
    except OSError:
        first = b""
    if first.rstrip(b"\n") not in [t.encode() for t in _REPORT_TITLES]:
        raise _refuse(path, "is not a report written by smiclust reproduce (its "
                            f"first line is not {REPORT_TITLE!r})")


def check_out_dir(out):
    """Raise :class:`OutputDirError` unless ``out`` may be written (see the
    module docstring); read only, write nothing.

    Parameters
    ----------
    out : str or path
    """
    from ._records import RECORDS_FILE

    out = Path(out)
    _check_location(out)
    records = out / RECORDS_FILE
    if records.exists() or records.is_symlink():
        read_records_text(records)
    figures = out / FIGURES_DIR
    if figures.exists() and not figures.is_dir():
        raise _refuse(figures, "is a file, not the directory of the figures")
    for name, check in ((CONFIG_FILE, _check_config), (REPORT_FILE, _check_report)):
        path = out / name
        if path.exists() or path.is_symlink():
            if not path.is_file():
                raise _refuse(path, "is not a regular file")
            check(path)


def read_records_text(path):
    """The complete lines of the records file ``path`` after its header.

    Reads only. A partial last line (no line end) is left out; a file holding
    only a part of the header has no lines.

    Raises
    ------
    OutputDirError
        If ``path`` is not a UTF-8 text file whose first line is one of the
        headers of :data:`~smiclust.experiments._records.HEADERS`.
    """
    from ._records import HEADERS

    headers = [",".join(fields) for fields in HEADERS]
    header = headers[0]
    path = Path(path)
    if not path.is_file():
        raise _refuse(path, "is not a regular file")
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    try:
        text = complete.decode("utf-8")
        partial = data[len(complete):].decode("utf-8")
    except UnicodeDecodeError:
        raise _refuse(path, "is not a records file of smiclust reproduce (not UTF-8 "
                            "text)") from None
    if not complete:
        if any(h.startswith(partial) for h in headers):
            return ""
        raise _refuse(path, "is not a records file of smiclust reproduce (its first "
                            "line is not the header of the records)")
    first, _, rest = text.partition("\n")
    if first.rstrip("\r") not in headers:
        start = ",".join(header.split(",")[:2])
        raise _refuse(path, "is not a records file of smiclust reproduce (its "
                            f"first line is {first[:60]!r}, not the header "
                            f"'{start},...')")
    return rest


# ---------------------------------------------------------------------------
# lock
# ---------------------------------------------------------------------------

_held = {}  # real path of a directory -> [file descriptor, depth]


@contextlib.contextmanager
def lock_out_dir(out):
    """Create ``out`` and hold its lock for the duration of the block.

    Re-entrant within a process. Another process holding the lock makes it
    raise :class:`OutputDirError` at once; the lock goes with the process, so
    a killed process leaves nothing to clean up.
    """
    import fcntl

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    key = os.path.realpath(out)
    if key in _held:
        _held[key][1] += 1
        try:
            yield out
        finally:
            _held[key][1] -= 1
        return
    fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            raise OutputDirError(
                f"{str(out)!r} is in use by another smiclust reproduce"
                + (f" (process {holder})" if holder.isdigit() else "")
                + "; wait for it to finish or choose another output directory "
                "(--out)"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        _held[key] = [fd, 1]
        try:
            yield out
        finally:
            del _held[key]
    finally:
        os.close(fd)  # releases the lock


# ---------------------------------------------------------------------------
# writes
# ---------------------------------------------------------------------------


def cut_partial_last_line(path):
    """Cut a partial last line (no line end), left by a killed writer, off
    ``path``."""
    with open(path, "rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def append_line(fd, line):
    """Append ``line`` (str ending with a line end) with a single ``write`` on
    ``fd``, opened with ``O_APPEND``."""
    data = line.encode("utf-8")
    written = os.write(fd, data)
    while written < len(data):  # a short write (e.g. a signal); finish it
        written += os.write(fd, data[written:])
