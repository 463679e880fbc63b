"""Atomic file output: write a temporary file beside the target, then rename it."""

import contextlib
import os
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
    directory, name = os.path.split(path)
    file_mode = _new_file_mode(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with open(fd, mode, **open_kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, file_mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
