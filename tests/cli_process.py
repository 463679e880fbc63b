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
``drive_cli(cases, cwd=...)`` runs many commands one after the other in one
such process, each through ``smiclust.cli.main`` with its output captured.
Where multiprocessing has no fork server (Windows) both start a new
interpreter.

What a fork server child does not see, and the tests that need it use
:func:`subprocess.run` of ``python -m smiclust`` instead: standard input (the
child reads an empty one), environment variables that act when a library is
imported (the caller's environment reaches the command, but after the fork
server's imports), the interpreter start-up itself
(``tests/test_cli_imports.py``) and signals sent from outside
(``tests/test_cli_atomic.py``, the killed runs of
``tests/test_reproduce_safety.py``).
"""

import atexit
import contextlib
import io
import json
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


def _call_main(argv):
    """``smiclust.cli.main(argv)``: the status ``python`` would exit with, and
    the traceback of an uncaught exception (None when there is none)."""
    try:
        return _exit_status(SystemExit(main(argv))), None
    except SystemExit as exc:
        return _exit_status(exc), None
    except BaseException:
        return 1, traceback.format_exc()


def _enter(cwd, environ):
    """Take the caller's working directory and environment."""
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(environ)


def _command(argv, cwd, environ, out_path, err_path):
    """The child: ``smiclust.cli.main(argv)`` in ``cwd`` with the caller's
    environment ``environ``, output to files."""
    _enter(cwd, environ)
    for fd, path in ((1, out_path), (2, err_path)):
        target = os.open(path, os.O_WRONLY | os.O_TRUNC)
        os.dup2(target, fd)
        os.close(target)
    sys.argv = [_MAIN, *argv]  # as ``python -m smiclust`` sets it
    status, tb = _call_main(argv)
    if tb is not None:
        sys.stderr.write(tb)
    atexit._run_exitfuncs()  # as the interpreter does before it exits
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def _drive(cases, cwd, environ, results_path):
    """The child of :func:`drive_cli`."""
    _enter(cwd, environ)
    results = []
    for argv in cases:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status, tb = _call_main(argv)
        results.append({"rc": None if tb else status, "stdout": out.getvalue(),
                        "stderr": err.getvalue(), "traceback": tb})
    with open(results_path, "w") as f:
        json.dump(results, f)
    atexit._run_exitfuncs()
    os._exit(0)


def _run_child(target, args, timeout, command):
    """Run ``target(*args)`` in a child of the fork server; its exit status."""
    child = _CONTEXT.Process(target=target, args=args)
    child.start()
    child.join(timeout)
    if child.exitcode is None:
        child.kill()
        child.join()
        raise subprocess.TimeoutExpired(command, timeout)
    # a negative status is a signal's number, as subprocess reports it
    return child.exitcode


def drive_cli(cases, *, cwd, timeout=900):
    """Every argv of ``cases`` through ``smiclust.cli.main``, one after the
    other in one new process (one import for many cases): a list of dicts
    with the exit status ``rc`` (None after an uncaught exception), the
    ``stdout`` and ``stderr`` text and the ``traceback``, if any."""
    cases = [[str(a) for a in argv] for argv in cases]
    with tempfile.TemporaryDirectory(prefix="smiclust-cli-") as tmp:
        results_path = os.path.join(tmp, "results.json")
        if _CONTEXT is None:
            status = subprocess.run(
                [sys.executable, "-c",
                 "import sys, cli_process; cli_process._drive("
                 "*map(__import__('json').loads, sys.argv[1:]))",
                 json.dumps(cases), json.dumps(os.fspath(cwd)),
                 json.dumps(dict(os.environ)), json.dumps(results_path)],
                cwd=os.path.dirname(__file__), timeout=timeout).returncode
        else:
            status = _run_child(
                _drive, (cases, os.fspath(cwd), dict(os.environ), results_path),
                timeout, ["smiclust", "<cases>"])
        if status != 0:
            raise RuntimeError(f"the driver of {len(cases)} commands exited "
                               f"with status {status}")
        with open(results_path) as f:
            return json.load(f)


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
        status = _run_child(_command,
                            (argv, cwd, dict(os.environ), out_path, err_path),
                            timeout, ["smiclust", *argv])
        with open(out_path) as out, open(err_path) as err:
            stdout, stderr = out.read(), err.read()
    return subprocess.CompletedProcess([sys.executable, "-m", "smiclust", *argv],
                                       status, stdout, stderr)
