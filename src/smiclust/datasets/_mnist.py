"""Loader of MNIST (70,000 handwritten digits), read from a data directory.

The file ``mnist70k.npz`` (about 11 MB, 55 MB of pixels once loaded) is not
shipped inside the package, which stays small; :func:`load_mnist` finds it in a
data directory (see its docstring), checks its sha256 against the value of the
project's data catalogue and returns fresh arrays.
"""

import hashlib
import io
import os
import zipfile
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from ._info import DataChecksumError
from ._loaders import _check_return_X_y

__all__ = ["load_mnist"]

#: Name of the data file, in the data directory or in its ``mnist/`` folder.
MNIST_FILE = "mnist70k.npz"

#: Environment variable naming the data directory when ``data_home`` is None.
DATA_ENV = "SMICLUST_DATA"

# sha256 of the file bytes, from the data catalogue (shared/data/README.md).
_SHA256 = "54ddfe01bb1284d50e5473a31c590ba0e723949b611ce6e7604f2e9473754d8a"

# sha256 of the arrays' bytes (X then y, both C-contiguous uint8) of that file:
# a copy built from the original IDX files (load_mnist's Notes) is another
# .npz file holding the same arrays.
_ARRAYS_SHA256 = "c2069063c1105f2bf96266aef1ff68c6e13bdda7a54e37bf19c16f1db24efc83"

#: Where a user finds how to build the file (in the installed package too).
_HOW_TO_BUILD = ("how to build it from the four original IDX files is in the "
                 "Notes of help(smiclust.datasets.load_mnist)")

_N_PIXELS = 784
_N_TRAIN = 60_000

# src/smiclust/datasets/_mnist.py -> the repository root of a source checkout.
_REPOSITORY = Path(__file__).resolve().parents[3]

_MNIST_DESCR = """\
MNIST handwritten digits (28 x 28)

70,000 gray-scale images of the digits 0-9: the 60,000 training images first,
then the 10,000 test images, in the order of the original IDX files. 784 pixels
per image in row-major order (``x.reshape(28, 28)`` is the upright digit),
integer values 0..255 (0 is background).
Digit counts 0..9: 6903, 7877, 6990, 7141, 6824, 6313, 6876, 7293, 6825, 6958.

Source: Y. LeCun, L. Bottou, Y. Bengio and P. Haffner (1998). Gradient-based
learning applied to document recognition. Proceedings of the IEEE
86(11):2278-2324.
"""


def _repository_data_dir():
    """``../shared/data/mnist`` beside the repository of a source checkout, or
    None when smiclust is not run from a checkout (no ``pyproject.toml``)."""
    if not (_REPOSITORY / "pyproject.toml").is_file():
        return None
    return _REPOSITORY.parent / "shared" / "data" / "mnist"


def _candidates(directory):
    """The two places of the file under `directory`: itself and ``mnist/``."""
    directory = Path(directory).expanduser()
    return [directory / MNIST_FILE, directory / "mnist" / MNIST_FILE]


def _find_file(data_home):
    """Path of the data file: from `data_home`, else ``$SMICLUST_DATA``, else the
    repository's shared data; FileNotFoundError naming every place tried."""
    if data_home is not None:
        if not isinstance(data_home, (str, os.PathLike)):
            raise TypeError(
                "The 'data_home' parameter of load_mnist must be a str, a "
                f"path-like or None. Got {data_home!r} instead."
            )
        source, directory = "data_home", data_home
    elif os.environ.get(DATA_ENV):
        source, directory = f"${DATA_ENV}", os.environ[DATA_ENV]
    else:
        source, directory = "the repository's shared data", _repository_data_dir()
    tried = [] if directory is None else _candidates(directory)
    for path in tried:
        if path.is_file():
            return path
    where = (
        " or ".join(str(path) for path in tried)
        if tried
        else "nowhere (smiclust is not run from a source checkout)"
    )
    raise FileNotFoundError(
        f"The MNIST data file {MNIST_FILE!r} was not found: looked in {where} "
        f"(from {source}). Pass data_home=<directory holding {MNIST_FILE}> or set "
        f"the environment variable {DATA_ENV} to that directory; "
        f"{_HOW_TO_BUILD}."
    )


def _parse(raw, path):
    """``(X, y)`` from the verified bytes `raw` of `path`: X uint8 with 784
    columns, y uint8 digits 0..9 of the same length; ValueError otherwise."""
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            arrays = {key: npz[key] for key in npz.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(
            f"The MNIST data file {path} is not a readable .npz archive ({exc})."
        ) from exc
    X, y = arrays.get("X"), arrays.get("y")
    if (
        X is None
        or y is None
        or X.ndim != 2
        or X.shape[1] != _N_PIXELS
        or y.shape != (X.shape[0],)
    ):
        got = {key: a.shape for key, a in arrays.items()}
        raise ValueError(
            f"The MNIST data file {path} must hold arrays 'X' of shape "
            f"(n_samples, {_N_PIXELS}) and 'y' of shape (n_samples,). "
            f"Got {got} instead."
        )
    not_integers = [name for name, a in (("X", X), ("y", y))
                    if a.dtype.kind not in "iu"]
    if not_integers:
        raise ValueError(
            f"The MNIST data file {path} must hold integer arrays 'X' (pixels "
            f"0..255) and 'y' (digits); got {not_integers[0]!r} of dtype "
            f"{(X if not_integers[0] == 'X' else y).dtype} instead."
        )
    if y.size and (y.min() < 0 or y.max() > 9):
        raise ValueError(
            f"The labels 'y' of the MNIST data file {path} must be digits 0..9. "
            f"Got values in [{y.min()}, {y.max()}] instead."
        )
    return X, y


def _arrays_sha256(X, y):
    """sha256 of the bytes of ``X`` then ``y``, each as C-contiguous uint8;
    None when they are not integers 0..255."""
    if not all(np.issubdtype(a.dtype, np.integer) for a in (X, y)) or (
            X.size and (X.min() < 0 or X.max() > 255)):
        return None
    h = hashlib.sha256(np.ascontiguousarray(X, dtype=np.uint8).tobytes())
    h.update(np.ascontiguousarray(y, dtype=np.uint8).tobytes())
    return h.hexdigest()


def load_mnist(*, data_home=None, return_X_y=True):
    """Load MNIST: 70,000 handwritten digits, 28 x 28 pixels, 10 classes.

    The 60,000 training images first, then the 10,000 test images. Pixels are
    the original integers 0..255 (as float64; divide by 255 for [0, 1]), 784
    per image in row-major order, so ``X[i].reshape(28, 28)`` is the upright
    digit.

    =================   ==============
    Samples total       70000
    Dimensionality      784
    Classes             10 (6313 to 7877 each)
    Features            integers 0..255
    =================   ==============

    Parameters
    ----------
    data_home : str or path-like, default=None
        Directory holding ``mnist70k.npz`` (directly or in its ``mnist/``
        folder). None means the environment variable ``SMICLUST_DATA``, and
        when that is unset or empty, ``../shared/data/mnist`` beside the
        repository when smiclust is run from a source checkout.
    return_X_y : bool, default=True
        If True, return ``(X, y)``; otherwise a :class:`~sklearn.utils.Bunch`.

    Returns
    -------
    X : ndarray of shape (70000, 784), dtype float64
        The pixel values, C-contiguous. Only if ``return_X_y=True``.
    y : ndarray of shape (70000,), dtype int64
        The digits 0..9. Only if ``return_X_y=True``.
    data : :class:`~sklearn.utils.Bunch`
        Only if ``return_X_y=False``, with attributes ``data``, ``target``,
        ``feature_names`` (``"pixel_0"`` ... ``"pixel_783"``),
        ``target_names`` (``array([0, ..., 9])``), ``DESCR``, ``filename`` and
        ``train_size`` (60000: ``data[:60000]`` is the original training part).

    Raises
    ------
    FileNotFoundError
        If the file is in none of the places above; the message names the
        paths tried and how to point the loader at the file.
    DataChecksumError
        A ``ValueError``: if neither the sha256 of the file nor that of its
        arrays is the catalogue's (the message names the file and the
        digests).
        When the file is not the catalogue's and its arrays are not
        ``X`` of shape ``(n_samples, 784)`` and ``y`` of digits, the message
        says which arrays it holds.
    TypeError
        If ``data_home`` is not a str, a path-like or None.

    See Also
    --------
    load_usps : The smaller USPS digits shipped with smiclust.

    Notes
    -----
    The file is not shipped with smiclust: at about 11 MB it would double the
    size of the package, and it is needed by the large benchmark only. It is
    read from a data directory instead and verified against the sha256 of the
    project's data catalogue, so a wrong or truncated copy is never used. The
    file is read at every call (not cached: the float64 array takes 440 MB);
    every call returns new arrays.

    To build the file from the four original IDX files of MNIST
    (``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``,
    ``t10k-images-idx3-ubyte``, ``t10k-labels-idx1-ubyte``, uncompressed):
    each images file is a 16-byte header then ``n x 784`` bytes, each labels
    file an 8-byte header then ``n`` bytes, so ::

        import numpy as np
        def idx(path, header):
            return np.fromfile(path, dtype=np.uint8, offset=header)
        X = np.concatenate([idx("train-images-idx3-ubyte", 16),
                            idx("t10k-images-idx3-ubyte", 16)]).reshape(-1, 784)
        y = np.concatenate([idx("train-labels-idx1-ubyte", 8),
                            idx("t10k-labels-idx1-ubyte", 8)])
        np.savez_compressed("mnist70k.npz", X=X, y=y)

    A file built so is accepted when its arrays have the recorded sha256 (of
    ``X`` then ``y`` as uint8 bytes), whatever the bytes of the archive.

    References
    ----------
    .. [1] Y. LeCun, L. Bottou, Y. Bengio and P. Haffner, "Gradient-based
       learning applied to document recognition", Proceedings of the IEEE
       86(11):2278-2324, 1998.

    Examples
    --------
    >>> from smiclust.datasets import load_mnist
    >>> X, y = load_mnist()  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (70000, 784)
    """
    _check_return_X_y(return_X_y, "load_mnist")
    path = _find_file(data_home)
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest == _SHA256:
        X, y = _parse(raw, path)
    else:
        try:
            X, y = _parse(raw, path)
        except ValueError as exc:
            # not the file of the catalogue, and its arrays cannot be
            # checked: say what is wrong with them
            raise DataChecksumError(
                f"Checksum mismatch for the MNIST data file {path}: expected "
                f"sha256 {_SHA256} (of the file), got {digest}, and its arrays "
                f"cannot be checked: {exc} ({_HOW_TO_BUILD})."
            ) from exc
        arrays_digest = _arrays_sha256(X, y)
        if arrays_digest != _ARRAYS_SHA256:
            raise DataChecksumError(
                f"Checksum mismatch for the MNIST data file {path}: expected "
                f"sha256 {_SHA256} (of the file) or {_ARRAYS_SHA256} (of its "
                f"arrays X then y as uint8), got {digest} and {arrays_digest}. "
                f"The file is corrupted or holds other images; {_HOW_TO_BUILD}."
            )
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = y.astype(np.int64)
    if return_X_y:
        return X, y
    return Bunch(
        data=X,
        target=y,
        feature_names=[f"pixel_{j}" for j in range(_N_PIXELS)],
        target_names=np.arange(10),
        DESCR=_MNIST_DESCR,
        filename=str(path),
        train_size=_N_TRAIN,
    )
