"""load_mnist: where the file is looked for, the checksum, the errors, the data.

Fake files go through the real code path: a small .npz is written, the expected
sha256 is set to its digest, and the loader must find, verify and parse it.
"""

import hashlib
import re
import textwrap

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.utils import Bunch

from smiclust.datasets import DataChecksumError, _mnist, load_mnist

MNIST_COUNTS = [6903, 7877, 6990, 7141, 6824, 6313, 6876, 7293, 6825, 6958]


def _write_fake(directory, *, n=6, columns=784, labels=None, seed=0):
    """Write a small mnist70k.npz under `directory`; return (path, X, y, sha256)."""
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 256, size=(n, columns)).astype(np.uint8)
    y = (np.arange(n) % 10 if labels is None else np.asarray(labels)).astype(np.uint8)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / _mnist.MNIST_FILE
    np.savez(path, X=X, y=y)
    return path, X, y, hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def no_env(monkeypatch):
    """No SMICLUST_DATA, whatever the environment of the test run."""
    monkeypatch.delenv(_mnist.DATA_ENV, raising=False)


@pytest.fixture
def real_mnist():
    """The real file where load_mnist finds it by default, else skip."""
    try:
        return load_mnist(return_X_y=False)
    except FileNotFoundError as exc:
        pytest.skip(f"the real MNIST file is absent: {exc}")


def test_fake_file_is_found_verified_and_parsed(tmp_path, monkeypatch, no_env):
    path, X, y, digest = _write_fake(tmp_path)
    monkeypatch.setattr(_mnist, "_SHA256", digest)
    X_out, y_out = load_mnist(data_home=tmp_path)
    assert X_out.dtype == np.float64 and y_out.dtype == np.int64
    assert X_out.flags.c_contiguous
    assert_array_equal(X_out, X.astype(np.float64))
    assert_array_equal(y_out, y)
    bunch = load_mnist(data_home=str(tmp_path), return_X_y=False)
    assert isinstance(bunch, Bunch)
    assert bunch.filename == str(path)
    assert bunch.feature_names[0] == "pixel_0" and len(bunch.feature_names) == 784
    assert_array_equal(bunch.target_names, np.arange(10))
    # fresh arrays at every call
    X_out[:] = -1
    assert_array_equal(load_mnist(data_home=tmp_path)[0], X.astype(np.float64))


@pytest.mark.parametrize("where", ["data_home", "env", "env_parent", "repository"])
def test_places_searched(tmp_path, monkeypatch, no_env, where):
    if where == "data_home":
        directory, kwargs = tmp_path / "d", {"data_home": tmp_path / "d"}
    elif where == "env":
        directory, kwargs = tmp_path / "d", {}
        monkeypatch.setenv(_mnist.DATA_ENV, str(tmp_path / "d"))
    elif where == "env_parent":  # SMICLUST_DATA may name the data root
        directory, kwargs = tmp_path / "d" / "mnist", {}
        monkeypatch.setenv(_mnist.DATA_ENV, str(tmp_path / "d"))
    else:  # ../shared/data/mnist beside a checkout (a pyproject.toml)
        repo = tmp_path / "repo"
        repo.mkdir()
        (repo / "pyproject.toml").write_text("")
        monkeypatch.setattr(_mnist, "_REPOSITORY", repo)
        directory, kwargs = tmp_path / "shared" / "data" / "mnist", {}
    _, X, _, digest = _write_fake(directory)
    monkeypatch.setattr(_mnist, "_SHA256", digest)
    assert_array_equal(load_mnist(**kwargs)[0], X)


def test_data_home_precedes_env(tmp_path, monkeypatch):
    _, X_home, _, digest = _write_fake(tmp_path / "home", seed=1)
    _write_fake(tmp_path / "env", seed=2)
    monkeypatch.setenv(_mnist.DATA_ENV, str(tmp_path / "env"))
    monkeypatch.setattr(_mnist, "_SHA256", digest)
    assert_array_equal(load_mnist(data_home=tmp_path / "home")[0], X_home)
    # the env file has another digest: reading it fails the check
    with pytest.raises(ValueError, match="Checksum mismatch"):
        load_mnist()


def test_checksum_mismatch_names_file_and_digests(tmp_path, no_env):
    path, _, _, digest = _write_fake(tmp_path)
    with pytest.raises(ValueError, match="Checksum mismatch") as excinfo:
        load_mnist(data_home=tmp_path)
    message = str(excinfo.value)
    assert isinstance(excinfo.value, DataChecksumError)
    assert str(path) in message
    assert _mnist._SHA256 in message and digest in message
    assert _mnist._ARRAYS_SHA256 in message
    assert "help(smiclust.datasets.load_mnist)" in message


def test_a_copy_built_from_the_idx_files_is_accepted_by_its_arrays(
        tmp_path, monkeypatch, no_env):
    # the recipe of load_mnist's Notes, run on small IDX files: another .npz
    # archive (other bytes) holding the recorded arrays is accepted
    rng = np.random.RandomState(0)
    parts = {"train": (5, 16), "t10k": (3, 16)}
    images, labels = [], []
    for name, (n, header) in parts.items():
        X = rng.randint(0, 256, size=(n, 784)).astype(np.uint8)
        y = rng.randint(0, 10, size=n).astype(np.uint8)
        (tmp_path / f"{name}-images-idx3-ubyte").write_bytes(
            bytes(header) + X.tobytes())
        (tmp_path / f"{name}-labels-idx1-ubyte").write_bytes(bytes(8) + y.tobytes())
        images.append(X)
        labels.append(y)
    recipe = load_mnist.__doc__.split("so ::")[1].split("A file built")[0]
    monkeypatch.chdir(tmp_path)
    exec(textwrap.dedent(recipe), {})
    X_all, y_all = np.concatenate(images), np.concatenate(labels)
    expected = hashlib.sha256(X_all.tobytes() + y_all.tobytes()).hexdigest()
    monkeypatch.setattr(_mnist, "_ARRAYS_SHA256", expected)
    X_out, y_out = load_mnist(data_home=tmp_path)
    assert_array_equal(X_out, X_all) and y_out.tolist() == y_all.tolist()
    # one pixel changed: refused, by both digests
    X_bad = X_all.copy()
    X_bad[0, 0] ^= 1
    np.savez_compressed(tmp_path / _mnist.MNIST_FILE, X=X_bad, y=y_all)
    with pytest.raises(DataChecksumError, match="holds other images"):
        load_mnist(data_home=tmp_path)


def test_corrupted_byte_fails_the_check(tmp_path, monkeypatch, no_env):
    path, _, _, digest = _write_fake(tmp_path)
    monkeypatch.setattr(_mnist, "_SHA256", digest)
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=re.escape(str(path))):
        load_mnist(data_home=tmp_path)


def test_missing_file_names_paths_and_remedy(tmp_path, no_env):
    with pytest.raises(FileNotFoundError) as excinfo:
        load_mnist(data_home=tmp_path)
    message = str(excinfo.value)
    assert str(tmp_path / "mnist70k.npz") in message
    assert str(tmp_path / "mnist" / "mnist70k.npz") in message
    assert "from data_home" in message
    assert "SMICLUST_DATA" in message and "data_home=" in message


def test_missing_file_from_env_names_env(tmp_path, monkeypatch):
    monkeypatch.setenv(_mnist.DATA_ENV, str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"from \$SMICLUST_DATA"):
        load_mnist()


def test_missing_outside_a_checkout(tmp_path, monkeypatch, no_env):
    monkeypatch.setattr(_mnist, "_REPOSITORY", tmp_path)  # no pyproject.toml
    with pytest.raises(FileNotFoundError, match="not run from a source checkout"):
        load_mnist()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"columns": 783}, r"must hold arrays 'X' of shape \(n_samples, 784\)"),
        ({"labels": [0, 1, 2, 3, 4, 10]}, r"must be digits 0..9. Got values in"),
    ],
)
def test_malformed_arrays(tmp_path, monkeypatch, no_env, kwargs, match):
    _, _, _, digest = _write_fake(tmp_path, **kwargs)
    monkeypatch.setattr(_mnist, "_SHA256", digest)
    with pytest.raises(ValueError, match=match):
        load_mnist(data_home=tmp_path)


def test_other_file_with_malformed_arrays_says_what_they_are(tmp_path, no_env):
    # before: images saved as (n, 28, 28) read as a plain checksum mismatch,
    # "corrupted or holds other images", the reason dropped
    X = np.zeros((10, 28, 28), dtype=np.uint8)
    np.savez(tmp_path / _mnist.MNIST_FILE, X=X, y=np.zeros(10, dtype=np.uint8))
    with pytest.raises(DataChecksumError, match="its arrays cannot be checked: "
                       r".*must hold arrays 'X' of shape \(n_samples, 784\).*"
                       r"'X': \(10, 28, 28\)"):
        load_mnist(data_home=tmp_path)


def test_other_file_with_text_labels_says_so(tmp_path, no_env):
    # before: numpy's UFuncTypeError of y.min() on strings
    np.savez(tmp_path / _mnist.MNIST_FILE, X=np.zeros((3, 784), np.uint8),
             y=np.array(["1", "2", "3"]))
    with pytest.raises(DataChecksumError, match="its arrays cannot be checked: .*"
                       "must hold integer arrays 'X' .* got 'y' of dtype <U1"):
        load_mnist(data_home=tmp_path)


def test_data_home_of_the_wrong_type_is_named():
    with pytest.raises(TypeError, match="'data_home' parameter of load_mnist must "
                       "be a str, a path-like or None. Got 123"):
        load_mnist(data_home=123)


def test_not_an_npz(tmp_path, monkeypatch, no_env):
    path = tmp_path / _mnist.MNIST_FILE
    path.write_bytes(b"not a zip archive")
    monkeypatch.setattr(
        _mnist, "_SHA256", hashlib.sha256(path.read_bytes()).hexdigest()
    )
    with pytest.raises(ValueError, match="not a readable .npz archive"):
        load_mnist(data_home=tmp_path)


def test_return_X_y_must_be_bool(tmp_path):
    with pytest.raises(TypeError, match="'return_X_y' parameter of load_mnist"):
        load_mnist(data_home=tmp_path, return_X_y="yes")


def test_real_file_shape_labels_counts(real_mnist):
    X, y = real_mnist.data, real_mnist.target
    assert X.shape == (70000, 784)
    assert y.shape == (70000,)
    assert X.min() == 0.0 and X.max() == 255.0
    assert_array_equal(X, np.round(X))
    assert np.bincount(y, minlength=10).tolist() == MNIST_COUNTS
    assert real_mnist.train_size == 60000
