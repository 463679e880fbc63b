"""Atomic file output: write a temporary file beside the target, then rename it."""

import contextlib
import contextvars
import errno
import os
import stat
import tempfile


def _new_file_mode(path):
    """Permission bits for ``path``: those of the file it replaces, else the
    default of a new file (0o666 less the umask)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def atomic_write(path, mode="w", **open_kwargs):
    """Open a file object whose content replaces ``path`` only when complete.

    The content goes to a temporary file in the directory of ``path`` (so that
    the rename stays on one file system); when the ``with`` block ends without
    an exception, the file is flushed to disk and renamed over ``path`` with
    :func:`os.replace` (atomic on POSIX and Windows); a symbolic link is
    followed, and its target replaced. When the block raises
    (a full disk, a file size limit, an error of the caller), the temporary
    file is removed and ``path`` keeps its old content, or stays absent.
    A ``path`` that exists and is no regular file (a device such as
    ``/dev/null``, a named pipe) raises :class:`OSError` before anything is
    written: the rename would replace it.

    Parameters
    ----------
    path : str or path-like
        Destination file.
    mode : {"w", "wb"}, default="w"
        Text or binary.
    **open_kwargs
        Passed to :func:`open` (e.g. ``encoding``, ``newline``).

    Yields
    ------
    file : file object
        Open for writing, in ``mode``.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with atomic_write(path, encoding="utf-8") as f:
    ...     _ = f.write("complete\\n")
    >>> open(path).read()
    'complete\\n'
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"The 'mode' parameter must be 'w' or 'wb'; got {mode!r}.")
    # through a symbolic link, the file it points to is replaced (the link
    # stays a link)
    path = os.path.realpath(os.fspath(path))
    try:
        existing = os.stat(path).st_mode
    except OSError:  # absent (or unreadable: the write reports it)
        existing = None
    if existing is not None and not stat.S_ISREG(existing):  # a device, a pipe
        raise OSError(errno.EINVAL, "not a regular file (the rename would "
                      "replace it)", path)
    directory, name = os.path.split(path)
    file_mode = _new_file_mode(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with open(fd, mode, **open_kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, file_mode)
    except BaseException:
        _discard(tmp)
        raise
    group = _GROUP.get()
    if group is None:
        _replace(tmp, path)
    else:  # renamed when the whole group is written (atomic_writes)
        group.append((tmp, path))


def _replace(tmp, path):
    try:
        os.replace(tmp, path)
    except BaseException:
        _discard(tmp)
        raise


def _discard(*tmps):
    """Remove temporary files, those already gone included."""
    for tmp in tmps:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


#: The files of the innermost :func:`atomic_writes` block, written and not
#: yet renamed: pairs ``(temporary file, path)``.
_GROUP = contextvars.ContextVar("atomic_writes_group", default=None)


@contextlib.contextmanager
def atomic_writes():
    """Every :func:`atomic_write` in the block replaces its file only when the
    whole block has succeeded.

    A command that writes several files (a model, a plot, the assignments)
    leaves every one of them as it was when any write, or anything else in
    the block, fails: the temporary files are removed. When the block ends
    without an exception, the files are renamed over their targets one after
    the other (each rename is atomic; the group is not, but nothing can fail
    between them but the renames themselves).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> try:
    ...     with atomic_writes():
    ...         with atomic_write(os.path.join(folder, "a.txt")) as f:
    ...             _ = f.write("a\\n")
    ...         raise RuntimeError("the second output failed")
    ... except RuntimeError:
    ...     pass
    >>> os.listdir(folder)
    []
    """
    group = []
    token = _GROUP.set(group)
    try:
        yield
    except BaseException:
        _discard(*(tmp for tmp, _ in group))
        raise
    finally:
        _GROUP.reset(token)
    for k, (tmp, path) in enumerate(group):
        try:
            _replace(tmp, path)
        except BaseException:
            _discard(*(later for later, _ in group[k + 1:]))
            raise
