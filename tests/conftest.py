import numpy as np
import pytest


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
