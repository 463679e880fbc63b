import importlib.util
import io
import os
from pathlib import Path

# scikit-learn's common checks include check_array_api_input (NumPy namespace),
# which is skipped unless SciPy's array-API mode is on; turn it on so that the
# check runs instead of being skipped. It must be set before SciPy is imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np
import pytest


def load_benchmark(name):
    """The script ``benchmarks/<name>.py`` as a module (scripts, not a package)."""
    script = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def random_links(rng, n_samples, n_must, n_cannot):
    """``n_must`` then ``n_cannot`` random pairs drawn from ``rng`` among
    ``n_samples`` samples, pairs of one sample dropped: ``(must, cannot)``."""
    must = rng.randint(0, n_samples, size=(n_must, 2))
    cannot = rng.randint(0, n_samples, size=(n_cannot, 2))
    return must[must[:, 0] != must[:, 1]], cannot[cannot[:, 0] != cannot[:, 1]]


def blobs_with_strays(seed):
    """Three blobs of 60 (``make_blobs``, std 1) with a quarter of the
    samples labelled as another blob: features that see the classes and are
    sure and wrong about the strays. ``(X, y)``."""
    from sklearn.datasets import make_blobs

    X, y = make_blobs(180, centers=3, cluster_std=1.0, random_state=seed)
    rng = np.random.RandomState(seed)
    stray = rng.rand(180) < 0.25
    y[stray] = (y[stray] + rng.randint(1, 3, stray.sum())) % 3
    return X, y


def npy_bytes(array):
    """The bytes of ``numpy.save(array)``."""
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def npz_bytes(**arrays):
    """The bytes of ``numpy.savez(**arrays)``."""
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def sparse_npz_bytes(matrix, check=True):
    """The bytes of ``scipy.sparse.save_npz(matrix)``; ``check=False`` writes
    the CSR arrays as they are (an inconsistent matrix that save_npz would
    refuse)."""
    import scipy.sparse as sp

    if not check:
        return npz_bytes(format=np.array("csr"), shape=np.array(matrix.shape),
                         data=matrix.data, indices=matrix.indices,
                         indptr=matrix.indptr)
    buf = io.BytesIO()
    sp.save_npz(buf, matrix)
    return buf.getvalue()


@pytest.fixture
def blobs3():
    """Three well-separated Gaussian blobs in 2-d, 90 samples."""
    rng = np.random.RandomState(0)
    centers = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    y = np.repeat(np.arange(3), 30)
    X = centers[y] + rng.normal(scale=0.7, size=(90, 2))
    return X, y


@pytest.fixture(scope="session")
def digits500():
    from smiclust.datasets import make_digits500

    return make_digits500(random_state=0)
