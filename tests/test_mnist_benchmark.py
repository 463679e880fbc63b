"""Tests of the pure functions of benchmarks/mnist.py."""

import numpy as np
import pytest
from conftest import load_benchmark

SHAPE = (28, 28)


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("mnist")


def _stroke(slope, col=14, width=2):
    """A bar from row 4 to row 23 whose column drifts by `slope` per row."""
    image = np.zeros(SHAPE)
    for r in range(4, 24):
        c = int(round(col + slope * (r - 13.5)))
        image[r, c:c + width] = 1.0
    return image.ravel()


def _moments(image):
    """Centroid and row-column covariance of the ink, by brute-force loops."""
    image = image.reshape(SHAPE)
    mass = sum_r = sum_c = 0.0
    for r in range(SHAPE[0]):
        for c in range(SHAPE[1]):
            mass += image[r, c]
            sum_r += r * image[r, c]
            sum_c += c * image[r, c]
    mean_r, mean_c = sum_r / mass, sum_c / mass
    cov = sum(
        (r - mean_r) * (c - mean_c) * image[r, c]
        for r in range(SHAPE[0]) for c in range(SHAPE[1])
    ) / mass
    return mean_r, mean_c, cov


@pytest.mark.parametrize("slope", [-0.4, -0.2, 0.25, 0.5])
def test_deskew_makes_a_slanted_stroke_upright_and_centred(bench, slope):
    image = _stroke(slope)
    before = _moments(image)
    after = _moments(bench.deskew(image[None], SHAPE)[0])
    assert abs(before[2]) > 1.0
    assert abs(after[2]) < 0.05 * abs(before[2])
    assert after[0] == pytest.approx(13.5, abs=0.3)
    assert after[1] == pytest.approx(13.5, abs=0.3)


def test_deskew_moves_an_upright_centred_stroke_nowhere(bench):
    image = _stroke(0.0, col=13)  # columns 13-14: centroid at 13.5
    np.testing.assert_allclose(bench.deskew(image[None], SHAPE)[0], image, atol=1e-12)


def test_deskew_keeps_blank_images_and_its_input(bench):
    images = np.stack([np.zeros(28 * 28), _stroke(0.3)])
    kept = images.copy()
    out = bench.deskew(images, SHAPE)
    np.testing.assert_array_equal(images, kept)
    np.testing.assert_array_equal(out[0], 0.0)
    assert out.shape == images.shape
    assert not np.shares_memory(out, images)


@pytest.mark.parametrize("argv, message", [
    (["--percents", "-1"], "--percents must be in (0, 100]; got -1.0"),
    (["--percents", "nan"], "--percents must be in (0, 100]; got nan"),
    (["--seeds", "-1"], "--seeds must be integers in [0, 2**32 - 1]; got -1"),
    (["--json", "no-such-folder/r.json"], "does not exist or cannot be written"),
    (["--json", "."], "--json '.': expected the name of a file"),
    (["--json", ""], "--json '': expected the name of a file"),
])
def test_bad_options_are_refused_before_any_work(bench, monkeypatch, capsys, argv,
                                                 message):
    # before: the data were loaded and every child fit ran first, then the
    # run ended in a traceback without its summary
    def no_work(*args, **kwargs):
        raise AssertionError("work started before the options were checked")

    monkeypatch.setattr(bench, "prepare", no_work)
    monkeypatch.setattr(bench, "child", no_work)
    with pytest.raises(SystemExit) as exit_info:
        bench.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
