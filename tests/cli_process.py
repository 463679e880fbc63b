"""The command line in a fresh process, its imports paid once per test worker.

``run_cli(argv, cwd=...)`` behaves as ``subprocess.run([python, "-m",
"smiclust", *argv], capture_output=True, text=True, cwd=cwd)``: a new process
runs ``smiclust.cli.main(argv)`` and the result is judged at its exit (status,
stdout, stderr, the files it left). The process is forked from a
:mod:`multiprocessing` fork server that imported smiclust, NumPy, SciPy and
scikit-learn once, so each command costs its own work and not the two to three
seconds of a new interpreter's imports. The fork server starts from a new
interpreter, not from the test process: nothing of pytest (its warning
filters, its monkeypatches, the working directory) reaches the command.

What a fork server child does not see, and the tests that need it use
:func:`subprocess.run` of ``python -m smiclust`` instead: standard input (the
child reads an empty one), environment variables set after the server started,
the interpreter start-up itself (``tests/test_cli_imports.py``) and signals
sent from outside (``tests/test_cli_atomic.py``, the killed runs of
``tests/test_reproduce_safety.py``).
"""

import atexit
import multiprocessing
import os
import subprocess
import sys
import tempfile
import traceback

import smiclust
from smiclust.cli import main

_MAIN = os.path.join(os.path.dirname(smiclust.__file__), "__main__.py")
_PRELOAD = ["smiclust.cli", "smiclust", "sklearn.ensemble", "sklearn.metrics",
            "scipy.sparse.linalg", "cli_process"]
if "forkserver" in multiprocessing.get_all_start_methods():
    _CONTEXT = multiprocessing.get_context("forkserver")
    _CONTEXT.set_forkserver_preload(_PRELOAD)
else:  # Windows: every command is a new interpreter
    _CONTEXT = None


def _exit_status(exc):
    """The status ``python`` exits with on ``SystemExit(exc.code)``."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def _command(argv, cwd, out_path, err_path):
    """The child: ``smiclust.cli.main(argv)`` in ``cwd``, output to files."""
    for fd, path in ((1, out_path), (2, err_path)):
        target = os.open(path, os.O_WRONLY | os.O_TRUNC)
        os.dup2(target, fd)
        os.close(target)
    os.chdir(cwd)
    sys.argv = [_MAIN, *argv]  # as ``python -m smiclust`` sets it

    try:
        status = _exit_status(SystemExit(main(argv)))
    except SystemExit as exc:
        status = _exit_status(exc)
    except BaseException:
        traceback.print_exc()
        status = 1
    atexit._run_exitfuncs()  # as the interpreter does before it exits
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def run_cli(argv, *, cwd=None, timeout=600):
    """``python -m smiclust *argv`` in ``cwd`` (default: the current
    directory): a :class:`subprocess.CompletedProcess` with text ``stdout``
    and ``stderr``."""
    argv = [str(a) for a in argv]
    cwd = os.getcwd() if cwd is None else os.fspath(cwd)
    if _CONTEXT is None:
        return subprocess.run([sys.executable, "-m", "smiclust", *argv],
                              capture_output=True, text=True, cwd=cwd,
                              timeout=timeout)
    with tempfile.TemporaryDirectory(prefix="smiclust-cli-") as tmp:
        out_path = os.path.join(tmp, "stdout")
        err_path = os.path.join(tmp, "stderr")
        for path in (out_path, err_path):
            open(path, "wb").close()
        child = _CONTEXT.Process(target=_command,
                                 args=(argv, cwd, out_path, err_path))
        child.start()
        child.join(timeout)
        if child.exitcode is None:
            child.kill()
            child.join()
            raise subprocess.TimeoutExpired(["smiclust", *argv], timeout)
        with open(out_path) as out, open(err_path) as err:
            stdout, stderr = out.read(), err.read()
    # a negative status is a signal's number, as subprocess reports it
    return subprocess.CompletedProcess([sys.executable, "-m", "smiclust", *argv],
                                       child.exitcode, stdout, stderr)
