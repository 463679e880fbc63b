"""Command-line front-end: ``smiclust <command> ...`` or ``python -m smiclust``.

Results go to stdout (JSON where machine-readable output is asked for),
diagnostics and progress to stderr. Exit status: 0 on success; 2 on bad input
or an output that cannot be written (one line on stderr); 1 when a command
fails unexpectedly (one line on stderr, the traceback with ``--debug``); 130
when interrupted.
"""

import argparse
import importlib
import sys

from .commands import COMMANDS
from .commands._common import UsageError, one_line, silence_stdout

__all__ = ["main", "build_parser", "UsageError"]


class _ExactOptionParser(argparse.ArgumentParser):
    """An argument parser that takes option names only in full: with
    abbreviations, ``fit --links FILE`` would be read as ``--links-header FILE``
    and refused with a message about the wrong option."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)


def build_parser():
    parser = _ExactOptionParser(
        prog="smiclust",
        description="Clustering with must-links and cannot-links (SMIC / 3SMIC).",
    )
    from . import __version__

    parser.add_argument(
        "--version", action="version", version=f"smiclust {__version__}"
    )
    parser.add_argument(
        "--debug", action="store_true",
        help="print the traceback of an unexpected error (without it: one line "
             "on stderr and exit status 1)")
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=_ExactOptionParser
    )
    sub.required = True
    for name, module in COMMANDS.items():
        importlib.import_module(module).add_parser(sub)
    return parser


class _WatchedStream:
    """A text stream that remembers the OSError its writes raised."""

    def __init__(self, stream):
        self._stream = stream
        self.error = None

    def write(self, text):
        try:
            return self._stream.write(text)
        except OSError as exc:
            self.error = exc
            raise

    def flush(self):
        try:
            return self._stream.flush()
        except OSError as exc:
            self.error = exc
            raise

    def __getattr__(self, name):
        return getattr(self._stream, name)


def main(argv=None):
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    module = importlib.import_module(COMMANDS[args.command])
    prefix = f"smiclust {args.command}: "
    stdout = sys.stdout = _WatchedStream(sys.stdout)
    try:
        return _run(module, args, prefix, stdout)
    finally:
        sys.stdout = stdout._stream


def _run(module, args, prefix, stdout):
    try:
        status = int(module.run(args) or 0)
        sys.stdout.flush()  # here, so that a closed pipe is caught below
        return status
    except BrokenPipeError:
        # the reader went away (e.g. '| head'): not an error of ours
        silence_stdout()
        return 0
    except UsageError as exc:
        print(f"{prefix}error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prefix}interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        from .datasets import DataChecksumError

        if isinstance(exc, DataChecksumError):  # foreseen: the message says what to do
            print(f"{prefix}error: {one_line(exc)}", file=sys.stderr)
            return 2
        if exc is not stdout.error:
            return _unexpected(exc, prefix, args.debug)
        silence_stdout()
        print(f"{prefix}error: cannot write to stdout: "
              f"{exc.strerror or one_line(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:
        return _unexpected(exc, prefix, args.debug)


def _unexpected(exc, prefix, debug):
    """An error no check foresaw: one line and status 1, or the traceback."""
    if debug:
        raise exc
    print(f"{prefix}error: unexpected {type(exc).__name__}: {one_line(exc)} (run "
          "'smiclust --debug ...' for the traceback)", file=sys.stderr)
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
