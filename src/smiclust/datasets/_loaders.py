"""Loaders for the small real data sets shipped with smiclust.

The files live in ``smiclust/datasets/data/`` (package data) and are the copies
described in the project's data catalogue. Each file is read once, its sha256 is
checked against the value recorded below (for ``.npz`` archives the sha256 of
every array's bytes is checked as well, since the archive bytes depend on member
timestamps), parsed and cached; every public loader returns fresh copies.
"""

import functools
import hashlib
import io
from importlib import resources

import numpy as np
from sklearn.utils import Bunch

from ._info import DataChecksumError

__all__ = [
    "load_parkinson",
    "load_spam",
    "load_sonar",
    "load_usps",
    "load_olivetti",
]

_PARKINSON_FILE = "parkinsons.data"
_SPAM_FILE = "spambase.data"
_SONAR_FILE = "sonar.all-data"
_USPS_FILE = "usps.npz"
_OLIVETTI_FILE = "olivetti_faces.npz"

# sha256 of the file bytes, from the data catalogue.
_SHA256 = {
    _PARKINSON_FILE: (
        "a36116c2deac07895b79ce97a2f99a1b3720ac4892995ff5c3b9ccb397ed2bc5"
    ),
    _SPAM_FILE: "b1ef93de71f97714d3d7d4f58fc9f718da7bbc8ac8a150eff2778616a8097b12",
    _SONAR_FILE: "e90434cdbf00fcf93ffa911fe447ae25606979658e60f1d32e155c3b5240234d",
    _USPS_FILE: "6a8d1712f3848b5497b7ac28c77c85a47783234ddb99bbfe828a1d8bc8867c24",
    _OLIVETTI_FILE: (
        "0831bb0a17aa733d2217e7fabb34d06bae5da03a37a04d973eaea0ae9481f7d7"
    ),
}

# sha256 of ``np.ascontiguousarray(a).tobytes()`` for every array of the .npz
# archives, from the data catalogue (stable when an archive is re-created).
_ARRAY_SHA256 = {
    _USPS_FILE: {
        "X_train": "31fb9435110c968b4fe370f6175415b0aeb8cb454f57d8aa07239563b994c0fa",
        "y_train": "d2205a402e10ef9785bcb548e666f1fdc5d719287eac6d14327f77964ca173c1",
        "X_test": "abaa1cb4243192a1e02eb771acde429263376574cfa6e7831bf455659c0529a7",
        "y_test": "83d5538087f38b4aa9a64e4c69e47ae24d1b4eaa601c3d41c4a32d7c2739d831",
    },
    _OLIVETTI_FILE: {
        "data": "e6b9b0fe62f642f64e4e6e584295133cd9aff7e5820c052fd52eb9ffea205c09",
        "target": "193039d78919527e457c8fd7b865e06d33d6446a17b42ca3eef6cb12e6e0513e",
    },
}

# Column names of spambase.data (without the label), from spambase.names.
_SPAM_FEATURE_NAMES = (
    "word_freq_make",
    "word_freq_address",
    "word_freq_all",
    "word_freq_3d",
    "word_freq_our",
    "word_freq_over",
    "word_freq_remove",
    "word_freq_internet",
    "word_freq_order",
    "word_freq_mail",
    "word_freq_receive",
    "word_freq_will",
    "word_freq_people",
    "word_freq_report",
    "word_freq_addresses",
    "word_freq_free",
    "word_freq_business",
    "word_freq_email",
    "word_freq_you",
    "word_freq_credit",
    "word_freq_your",
    "word_freq_font",
    "word_freq_000",
    "word_freq_money",
    "word_freq_hp",
    "word_freq_hpl",
    "word_freq_george",
    "word_freq_650",
    "word_freq_lab",
    "word_freq_labs",
    "word_freq_telnet",
    "word_freq_857",
    "word_freq_data",
    "word_freq_415",
    "word_freq_85",
    "word_freq_technology",
    "word_freq_1999",
    "word_freq_parts",
    "word_freq_pm",
    "word_freq_direct",
    "word_freq_cs",
    "word_freq_meeting",
    "word_freq_original",
    "word_freq_project",
    "word_freq_re",
    "word_freq_edu",
    "word_freq_table",
    "word_freq_conference",
    "char_freq_;",
    "char_freq_(",
    "char_freq_[",
    "char_freq_!",
    "char_freq_$",
    "char_freq_#",
    "capital_run_length_average",
    "capital_run_length_longest",
    "capital_run_length_total",
)

_SONAR_LABELS = {"R": 0, "M": 1}

_USPS_TRAIN_SIZE = 7291

_PARKINSON_DESCR = """\
Parkinsons (UCI, Oxford Parkinson's Disease Detection Dataset)

195 voice recordings, 22 real-valued voice measures each (the recording id
column ``name`` is dropped). Target: column ``status``, 1 = Parkinson's disease
(147 recordings), 0 = healthy (48). The features have very different scales.

Source: UCI Machine Learning Repository, "Parkinsons",
https://doi.org/10.24432/C59C74 (CC BY 4.0).
M. A. Little, P. E. McSharry, S. J. Roberts, D. A. E. Costello, I. M. Moroz
(2007). Exploiting Nonlinear Recurrence and Fractal Scaling Properties for
Voice Disorder Detection. BioMedical Engineering OnLine 6:23.
"""

_SPAM_DESCR = """\
Spambase (UCI)

4601 e-mails, 57 features: 48 word frequencies and 6 character frequencies
(percentages, 0-100) and 3 statistics of runs of capital letters. Target:
1 = spam (1813 e-mails, the first rows of the file), 0 = non-spam (2788).
File order is kept; 391 lines duplicate an earlier line, as in the
original, and 394 rows of the features repeat an earlier row (3 feature
vectors occur with both targets).

Source: UCI Machine Learning Repository, "Spambase",
https://doi.org/10.24432/C53G6X (CC BY 4.0).
M. Hopkins, E. Reeber, G. Forman, J. Suermondt (1999).
"""

_SONAR_DESCR = """\
Connectionist Bench (Sonar, Mines vs. Rocks) (UCI)

208 sonar returns, 60 features: energy in 60 frequency bands, in [0, 1].
Target: 0 = rock (``R``, 97 returns, the first rows of the file),
1 = mine, i.e. metal cylinder (``M``, 111 returns).

Source: UCI Machine Learning Repository, https://doi.org/10.24432/C5T01Q
(CC BY 4.0). R. P. Gorman, T. J. Sejnowski (1988). Analysis of Hidden Units in
a Layered Network Trained to Classify Sonar Targets. Neural Networks 1:75-89.
"""

_USPS_DESCR = """\
USPS handwritten digits (16 x 16, normalized form of zip.train / zip.test)

9298 gray-scale images of the digits 0-9, 256 pixels each in row-major order
(``x.reshape(16, 16)`` is the upright digit), pixel values in [-1, 1] with
three decimals (-1 is background). The 7291 training images come first, then
the 2007 test images, each part in the original file order.
Digit counts 0..9: 1553, 1269, 929, 824, 852, 716, 834, 792, 708, 821.

Source: J. J. Hull (1994). A database for handwritten text recognition
research. IEEE Transactions on Pattern Analysis and Machine Intelligence
16(5):550-554.
"""

_OLIVETTI_DESCR = """\
Olivetti / AT&T (ORL) faces, 64 x 64 version

400 gray-scale images, 10 of each of 40 persons, 4096 pixels each in row-major
order (``x.reshape(64, 64)`` is the upright face), values pixel / 242 in
[0, 1]. Target: person id 0..39, ``target[i] == i // 10``.

Source: "The Database of Faces", AT&T Laboratories Cambridge; 64 x 64 version
by Sam Roweis. F. S. Samaria, A. C. Harter (1994). Parameterisation of a
stochastic model for human face identification. Proc. 2nd IEEE Workshop on
Applications of Computer Vision, pp. 138-142.
"""


def _data_file(name):
    """Return the resource (a path-like Traversable) of the shipped file `name`."""
    return resources.files("smiclust.datasets") / "data" / name


def _sha256(data):
    return hashlib.sha256(data).hexdigest()


def _check_digest(actual, expected, what):
    """Raise DataChecksumError (an OSError) naming `what` if the two hex
    digests differ."""
    if actual != expected:
        raise DataChecksumError(
            f"Checksum mismatch for {what}: expected sha256 {expected}, got "
            f"{actual}. The shipped data file is corrupted or was modified; "
            "reinstall smiclust."
        )


def _readonly(a):
    a.setflags(write=False)
    return a


def _text_lines(raw):
    """Decode `raw` (ASCII) and split into non-empty lines (LF or CRLF)."""
    return [line for line in raw.decode("ascii").splitlines() if line.strip()]


def _parse_parkinson(raw):
    lines = _text_lines(raw)
    header = lines[0].split(",")
    name_col = header.index("name")
    status_col = header.index("status")
    feature_cols = [j for j in range(len(header)) if j not in (name_col, status_col)]
    table = np.array([line.split(",") for line in lines[1:]])
    X = table[:, feature_cols].astype(np.float64)
    y = table[:, status_col].astype(np.float64).astype(np.int64)
    feature_names = tuple(header[j] for j in feature_cols)
    return {"X": X, "y": y, "feature_names": feature_names}


def _parse_spam(raw):
    table = np.loadtxt(_text_lines(raw), delimiter=",", dtype=np.float64)
    X = np.ascontiguousarray(table[:, :-1])
    y = table[:, -1].astype(np.int64)
    return {"X": X, "y": y, "feature_names": _SPAM_FEATURE_NAMES}


def _parse_sonar(raw):
    rows = [line.split(",") for line in _text_lines(raw)]
    X = np.array([row[:-1] for row in rows], dtype=np.float64)
    y = np.array([_SONAR_LABELS[row[-1].strip()] for row in rows], dtype=np.int64)
    names = tuple(f"band_{j}" for j in range(X.shape[1]))
    return {"X": X, "y": y, "feature_names": names}


def _load_npz_checked(raw, name):
    """Load the arrays of the .npz bytes `raw`, checking each array's sha256."""
    expected = _ARRAY_SHA256[name]
    with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
        missing = sorted(set(expected) - set(npz.files))
        if missing:
            raise OSError(
                f"Data file {name!r} lacks the arrays {missing}; it is corrupted "
                "or was modified; reinstall smiclust."
            )
        arrays = {key: npz[key] for key in expected}
    for key, digest in expected.items():
        actual = _sha256(np.ascontiguousarray(arrays[key]).tobytes())
        _check_digest(actual, digest, f"array {key!r} of data file {name!r}")
    return arrays


def _parse_usps(raw):
    arrays = _load_npz_checked(raw, _USPS_FILE)
    X = np.concatenate([arrays["X_train"], arrays["X_test"]]).astype(np.float64)
    # The stored float32 values are the original three-decimal pixel values;
    # rounding recovers them exactly in float64.
    X = np.round(X, 3)
    y = np.concatenate([arrays["y_train"], arrays["y_test"]]).astype(np.int64)
    names = tuple(f"pixel_{j}" for j in range(X.shape[1]))
    return {"X": X, "y": y, "feature_names": names}


def _parse_olivetti(raw):
    arrays = _load_npz_checked(raw, _OLIVETTI_FILE)
    # Stored as float32 pixel / 242 with integer pixels 0..242; recompute the
    # quotient in float64.
    X = np.rint(arrays["data"].astype(np.float64) * 242.0) / 242.0
    y = arrays["target"].astype(np.int64)
    names = tuple(f"pixel_{j}" for j in range(X.shape[1]))
    return {"X": X, "y": y, "feature_names": names}


_PARSERS = {
    _PARKINSON_FILE: _parse_parkinson,
    _SPAM_FILE: _parse_spam,
    _SONAR_FILE: _parse_sonar,
    _USPS_FILE: _parse_usps,
    _OLIVETTI_FILE: _parse_olivetti,
}


@functools.lru_cache(maxsize=None)
def _read(name):
    """Read, verify and parse the shipped file `name`; cached.

    `name` must be a key of ``_SHA256``. Returns a dict with read-only arrays
    ``"X"`` (float64, C-contiguous) and ``"y"`` (int64), the tuple
    ``"feature_names"`` and ``"filename"``. Callers must copy before returning
    arrays to users.
    """
    path = _data_file(name)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataChecksumError(
            f"The data file {name!r} shipped with smiclust cannot be read at "
            f"{path} ({exc.strerror or exc}); the installation is incomplete: "
            "reinstall smiclust."
        ) from exc
    _check_digest(_sha256(raw), _SHA256[name], f"data file {name!r} ({path})")
    out = _PARSERS[name](raw)
    out["X"] = _readonly(np.ascontiguousarray(out["X"], dtype=np.float64))
    out["y"] = _readonly(np.ascontiguousarray(out["y"], dtype=np.int64))
    out["filename"] = str(path)
    return out


def _check_return_X_y(return_X_y, func):
    if not isinstance(return_X_y, (bool, np.bool_)):
        raise TypeError(
            f"The 'return_X_y' parameter of {func} must be an instance of bool. "
            f"Got {return_X_y!r} instead."
        )


def _result(name, return_X_y, target_names, descr, **extra):
    """Fresh copies of the cached arrays, as ``(X, y)`` or a Bunch."""
    cached = _read(name)
    X = np.array(cached["X"], dtype=np.float64, order="C", copy=True)
    y = np.array(cached["y"], dtype=np.int64, copy=True)
    if return_X_y:
        return X, y
    return Bunch(
        data=X,
        target=y,
        feature_names=list(cached["feature_names"]),
        target_names=np.array(target_names),
        DESCR=descr,
        filename=cached["filename"],
        **extra,
    )


def load_parkinson(*, return_X_y=True):
    """Load the UCI Parkinsons data set (binary classification).

    195 voice recordings described by 22 real-valued voice measures; the
    recording id column ``name`` is dropped and the column ``status`` is the
    target (1 = Parkinson's disease, 0 = healthy). Rows are in file order.

    =================   ==============
    Samples total       195
    Dimensionality      22
    Classes             2 (48 / 147)
    Features            real, unscaled
    =================   ==============

    Parameters
    ----------
    return_X_y : bool, default=True
        If True, return ``(X, y)``; otherwise a :class:`~sklearn.utils.Bunch`.

    Returns
    -------
    X : ndarray of shape (195, 22), dtype float64
        The voice measures, C-contiguous. Only if ``return_X_y=True``.
    y : ndarray of shape (195,), dtype int64
        0 = healthy, 1 = Parkinson's disease. Only if ``return_X_y=True``.
    data : :class:`~sklearn.utils.Bunch`
        Only if ``return_X_y=False``, with attributes ``data`` (``X``),
        ``target`` (``y``), ``feature_names`` (the 22 column names of the
        header), ``target_names`` (``["healthy", "parkinson"]``), ``DESCR``
        and ``filename``.

    Raises
    ------
    OSError
        If the sha256 of the shipped file differs from the recorded one.

    See Also
    --------
    load_spam, load_sonar : The other two binary UCI problems of the paper.

    Notes
    -----
    Every call returns new arrays; mutating them does not affect later calls.

    References
    ----------
    .. [1] M. A. Little, P. E. McSharry, S. J. Roberts, D. A. E. Costello and
       I. M. Moroz, "Exploiting Nonlinear Recurrence and Fractal Scaling
       Properties for Voice Disorder Detection", BioMedical Engineering
       OnLine 6:23, 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from smiclust.datasets import load_parkinson
    >>> X, y = load_parkinson()
    >>> X.shape
    (195, 22)
    >>> np.bincount(y).tolist()
    [48, 147]
    >>> load_parkinson(return_X_y=False).feature_names[:2]
    ['MDVP:Fo(Hz)', 'MDVP:Fhi(Hz)']
    """
    _check_return_X_y(return_X_y, "load_parkinson")
    return _result(
        _PARKINSON_FILE, return_X_y, ["healthy", "parkinson"], _PARKINSON_DESCR
    )


def load_spam(*, return_X_y=True):
    """Load the UCI Spambase data set (binary classification).

    4601 e-mails described by 57 features: 48 word frequencies, 6 character
    frequencies (percentages in [0, 100]) and 3 statistics of runs of capital
    letters (up to 15841). The target is 1 for spam and 0 otherwise. Rows are in
    file order, i.e. the 1813 spam e-mails first.

    =================   ==============
    Samples total       4601
    Dimensionality      57
    Classes             2 (2788 / 1813)
    Features            real, >= 0
    =================   ==============

    Parameters
    ----------
    return_X_y : bool, default=True
        If True, return ``(X, y)``; otherwise a :class:`~sklearn.utils.Bunch`.

    Returns
    -------
    X : ndarray of shape (4601, 57), dtype float64
        The features, C-contiguous. Only if ``return_X_y=True``.
    y : ndarray of shape (4601,), dtype int64
        0 = non-spam, 1 = spam. Only if ``return_X_y=True``.
    data : :class:`~sklearn.utils.Bunch`
        Only if ``return_X_y=False``, with attributes ``data``, ``target``,
        ``feature_names`` (the 57 names of ``spambase.names``, e.g.
        ``"word_freq_make"``), ``target_names`` (``["non-spam", "spam"]``),
        ``DESCR`` and ``filename``.

    Raises
    ------
    OSError
        If the sha256 of the shipped file differs from the recorded one.

    See Also
    --------
    load_parkinson, load_sonar : The other two binary UCI problems of the paper.

    Notes
    -----
    391 lines are exact duplicates of an earlier line (label included), as
    in the original file; 394 rows of ``X`` repeat an earlier row, and 3
    feature vectors occur with both targets (rows 63 and 3108, 148 and 1985,
    478 and 3213), so no method can separate those pairs.
    Every call returns new arrays; mutating them does not affect later calls.

    Examples
    --------
    >>> import numpy as np
    >>> from smiclust.datasets import load_spam
    >>> X, y = load_spam()
    >>> X.shape
    (4601, 57)
    >>> np.bincount(y).tolist()
    [2788, 1813]
    """
    _check_return_X_y(return_X_y, "load_spam")
    return _result(_SPAM_FILE, return_X_y, ["non-spam", "spam"], _SPAM_DESCR)


def load_sonar(*, return_X_y=True):
    """Load the UCI Sonar (mines vs. rocks) data set (binary classification).

    208 sonar returns described by the energy in 60 frequency bands (values in
    [0, 1]). The letter labels of the file are mapped to integers: ``R`` (rock)
    to 0 and ``M`` (mine, a metal cylinder) to 1. Rows are in file order, i.e.
    the 97 rocks first.

    =================   ==============
    Samples total       208
    Dimensionality      60
    Classes             2 (97 / 111)
    Features            real, in [0, 1]
    =================   ==============

    Parameters
    ----------
    return_X_y : bool, default=True
        If True, return ``(X, y)``; otherwise a :class:`~sklearn.utils.Bunch`.

    Returns
    -------
    X : ndarray of shape (208, 60), dtype float64
        The band energies, C-contiguous. Only if ``return_X_y=True``.
    y : ndarray of shape (208,), dtype int64
        0 = rock (``R``), 1 = mine (``M``). Only if ``return_X_y=True``.
    data : :class:`~sklearn.utils.Bunch`
        Only if ``return_X_y=False``, with attributes ``data``, ``target``,
        ``feature_names`` (``"band_0"`` ... ``"band_59"``; the file has no
        header), ``target_names`` (``["rock", "mine"]``), ``DESCR`` and
        ``filename``.

    Raises
    ------
    OSError
        If the sha256 of the shipped file differs from the recorded one.

    See Also
    --------
    load_parkinson, load_spam : The other two binary UCI problems of the paper.

    Notes
    -----
    Every call returns new arrays; mutating them does not affect later calls.

    References
    ----------
    .. [1] R. P. Gorman and T. J. Sejnowski, "Analysis of Hidden Units in a
       Layered Network Trained to Classify Sonar Targets", Neural Networks
       1:75-89, 1988.

    Examples
    --------
    >>> import numpy as np
    >>> from smiclust.datasets import load_sonar
    >>> X, y = load_sonar()
    >>> X.shape
    (208, 60)
    >>> np.bincount(y).tolist()
    [97, 111]
    >>> load_sonar(return_X_y=False).target_names.tolist()
    ['rock', 'mine']
    """
    _check_return_X_y(return_X_y, "load_sonar")
    return _result(_SONAR_FILE, return_X_y, ["rock", "mine"], _SONAR_DESCR)


def load_usps(*, return_X_y=True):
    """Load the USPS handwritten digits (16 x 16 images, 10 classes).

    All 9298 images of the normalized USPS set (``zip.train`` then
    ``zip.test``): the 7291 training images first, then the 2007 test images,
    each part in the original order. Pixels are in [-1, 1] (-1 is background),
    256 per image in row-major order, so ``X[i].reshape(16, 16)`` is the
    upright digit.

    =================   ==============
    Samples total       9298
    Dimensionality      256
    Classes             10 (708 to 1553 each)
    Features            real, in [-1, 1]
    =================   ==============

    Parameters
    ----------
    return_X_y : bool, default=True
        If True, return ``(X, y)``; otherwise a :class:`~sklearn.utils.Bunch`.

    Returns
    -------
    X : ndarray of shape (9298, 256), dtype float64
        The pixel values, C-contiguous. Only if ``return_X_y=True``.
    y : ndarray of shape (9298,), dtype int64
        The digits 0..9. Only if ``return_X_y=True``.
    data : :class:`~sklearn.utils.Bunch`
        Only if ``return_X_y=False``, with attributes ``data``, ``target``,
        ``feature_names`` (``"pixel_0"`` ... ``"pixel_255"``),
        ``target_names`` (``array([0, ..., 9])``), ``DESCR``, ``filename`` and
        ``train_size`` (7291: ``data[:7291]`` is the original training part).

    Raises
    ------
    OSError
        If the sha256 of the shipped file or of one of its arrays differs from
        the recorded one.

    See Also
    --------
    smiclust.datasets.make_digits500, smiclust.datasets.make_digits5k :
        The class-balanced sub-samples used in the paper.

    Notes
    -----
    The file stores the pixels as float32; they are the original values with
    three decimals, which are recovered exactly by rounding after the
    conversion to float64. Every call returns new arrays.

    References
    ----------
    .. [1] J. J. Hull, "A database for handwritten text recognition research",
       IEEE Transactions on Pattern Analysis and Machine Intelligence
       16(5):550-554, 1994.

    Examples
    --------
    >>> from smiclust.datasets import load_usps
    >>> X, y = load_usps()
    >>> X.shape
    (9298, 256)
    >>> float(X.min()), float(X.max())
    (-1.0, 1.0)
    >>> load_usps(return_X_y=False).train_size
    7291
    """
    _check_return_X_y(return_X_y, "load_usps")
    return _result(
        _USPS_FILE,
        return_X_y,
        np.arange(10),
        _USPS_DESCR,
        train_size=_USPS_TRAIN_SIZE,
    )


def load_olivetti(*, return_X_y=True):
    """Load the Olivetti faces (64 x 64 images, 40 persons).

    400 gray-scale face images, 10 of each of 40 persons, with the images of a
    person contiguous (``y[i] == i // 10``). Values are pixel / 242 in [0, 1],
    4096 per image in row-major order, so ``X[i].reshape(64, 64)`` is the
    upright face; the same layout as
    ``sklearn.datasets.fetch_olivetti_faces(shuffle=False)``.

    =================   ==============
    Samples total       400
    Dimensionality      4096
    Classes             40 (10 each)
    Features            real, in [0, 1]
    =================   ==============

    Parameters
    ----------
    return_X_y : bool, default=True
        If True, return ``(X, y)``; otherwise a :class:`~sklearn.utils.Bunch`.

    Returns
    -------
    X : ndarray of shape (400, 4096), dtype float64
        The pixel values, C-contiguous. Only if ``return_X_y=True``.
    y : ndarray of shape (400,), dtype int64
        The person ids 0..39. Only if ``return_X_y=True``.
    data : :class:`~sklearn.utils.Bunch`
        Only if ``return_X_y=False``, with attributes ``data``, ``target``,
        ``feature_names`` (``"pixel_0"`` ... ``"pixel_4095"``),
        ``target_names`` (``array([0, ..., 39])``), ``DESCR`` and
        ``filename``.

    Raises
    ------
    OSError
        If the sha256 of the shipped file or of one of its arrays differs from
        the recorded one.

    See Also
    --------
    smiclust.datasets.make_faces100 : The 10-person sub-sample of the paper.

    Notes
    -----
    The file stores float32 values of pixel / 242 for integer pixels 0..242;
    the quotient is recomputed in float64, so the values differ from
    scikit-learn's float32 ones by float32 rounding only (< 1e-7).
    Every call returns new arrays.

    References
    ----------
    .. [1] F. S. Samaria and A. C. Harter, "Parameterisation of a stochastic
       model for human face identification", Proceedings of the 2nd IEEE
       Workshop on Applications of Computer Vision, pp. 138-142, 1994.

    Examples
    --------
    >>> import numpy as np
    >>> from smiclust.datasets import load_olivetti
    >>> X, y = load_olivetti()
    >>> X.shape
    (400, 4096)
    >>> np.unique(np.bincount(y)).tolist()
    [10]
    """
    _check_return_X_y(return_X_y, "load_olivetti")
    return _result(_OLIVETTI_FILE, return_X_y, np.arange(40), _OLIVETTI_DESCR)
