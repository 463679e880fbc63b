"""Command-line front-end: ``smiclust <command> ...`` or ``python -m smiclust``.

Results go to stdout (JSON where machine-readable output is asked for),
diagnostics and progress to stderr. Bad input ends with a one-line message and
exit status 2.
"""

import argparse
import importlib
import os
import sys

from .commands import COMMANDS
from .commands._common import UsageError

__all__ = ["main", "build_parser", "UsageError"]


def build_parser():
    parser = argparse.ArgumentParser(
        prog="smiclust",
        description="Clustering with must-links and cannot-links (SMIC / 3SMIC).",
    )
    from . import __version__

    parser.add_argument(
        "--version", action="version", version=f"smiclust {__version__}"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, module in COMMANDS.items():
        importlib.import_module(module).add_parser(sub)
    return parser


def main(argv=None):
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    module = importlib.import_module(COMMANDS[args.command])
    try:
        status = int(module.run(args) or 0)
        sys.stdout.flush()  # here, so that a closed pipe is caught below
        return status
    except BrokenPipeError:
        # the reader went away (e.g. '| head'): not an error of ours; stdout
        # goes to devnull so that the interpreter's final flush stays quiet
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except UsageError as exc:
        print(f"smiclust {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"smiclust {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
