import dataclasses
import hashlib
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.utils import Bunch, check_random_state

from smiclust import datasets
from smiclust.datasets import (
    DATASETS,
    DataChecksumError,
    DatasetInfo,
    _loaders,
    _samples,
    load_olivetti,
    load_parkinson,
    load_sonar,
    load_spam,
    load_usps,
    make_digits5k,
    make_digits500,
    make_faces100,
)

USPS_COUNTS = [1553, 1269, 929, 824, 852, 716, 834, 792, 708, 821]
USPS_TRAIN_COUNTS = [1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644]

# loader, file name, shape, class counts 0..c-1, value range
LOADERS = [
    (load_parkinson, "parkinsons.data", (195, 22), [48, 147], (-7.964984, 592.03)),
    (load_spam, "spambase.data", (4601, 57), [2788, 1813], (0.0, 15841.0)),
    (load_sonar, "sonar.all-data", (208, 60), [97, 111], (0.0, 1.0)),
    (load_usps, "usps.npz", (9298, 256), USPS_COUNTS, (-1.0, 1.0)),
    (load_olivetti, "olivetti_faces.npz", (400, 4096), [10] * 40, (0.0, 1.0)),
]
LOADER_IDS = [entry[1] for entry in LOADERS]
ALL_LOADERS = [entry[0] for entry in LOADERS]


@pytest.fixture
def fresh_cache():
    """Empty the file cache before and after a test that tampers with reading."""
    _loaders._read.cache_clear()
    yield
    _loaders._read.cache_clear()


@pytest.mark.parametrize(
    "loader, filename, shape, counts, value_range", LOADERS, ids=LOADER_IDS
)
def test_loader_shapes_dtypes_counts_ranges(
    loader, filename, shape, counts, value_range
):
    X, y = loader()
    assert X.shape == shape
    assert y.shape == (shape[0],)
    assert X.dtype == np.float64
    assert y.dtype == np.int64
    assert X.flags.c_contiguous
    assert X.flags.writeable and y.flags.writeable
    assert np.bincount(y).tolist() == counts
    assert np.all(np.isfinite(X))
    assert X.min() == pytest.approx(value_range[0])
    assert X.max() == pytest.approx(value_range[1])


@pytest.mark.parametrize(
    "loader, filename, shape, counts, value_range", LOADERS, ids=LOADER_IDS
)
def test_loader_bunch(loader, filename, shape, counts, value_range):
    X, y = loader()
    bunch = loader(return_X_y=False)
    assert isinstance(bunch, Bunch)
    assert_array_equal(bunch.data, X)
    assert_array_equal(bunch.target, y)
    assert bunch.data.dtype == np.float64 and bunch.target.dtype == np.int64
    assert isinstance(bunch.feature_names, list)
    assert len(bunch.feature_names) == shape[1]
    assert all(isinstance(name, str) for name in bunch.feature_names)
    assert len(set(bunch.feature_names)) == shape[1]
    assert len(bunch.target_names) == len(counts)
    assert isinstance(bunch.DESCR, str) and len(bunch.DESCR) > 100
    assert Path(bunch.filename).name == filename
    assert Path(bunch.filename).is_file()


@pytest.mark.parametrize("loader", ALL_LOADERS, ids=LOADER_IDS)
def test_loader_rejects_non_bool_return_X_y(loader):
    with pytest.raises(TypeError, match="'return_X_y' parameter"):
        loader(return_X_y="yes")
    with pytest.raises(TypeError):
        loader(True)  # keyword-only


def test_parkinson_columns():
    bunch = load_parkinson(return_X_y=False)
    names = bunch.feature_names
    assert names[0] == "MDVP:Fo(Hz)" and names[-1] == "PPE"
    assert "name" not in names and "status" not in names
    assert bunch.target_names.tolist() == ["healthy", "parkinson"]
    # First data row of the file: phon_R01_S01_1, status 1.
    assert bunch.data[0, 0] == 119.992
    assert bunch.data[0, -1] == 0.284654
    assert bunch.target[0] == 1


def test_spam_columns_and_order():
    bunch = load_spam(return_X_y=False)
    names = bunch.feature_names
    assert names[0] == "word_freq_make"
    assert names[47] == "word_freq_conference"
    assert names[48:54] == [f"char_freq_{c}" for c in ";([!$#"]
    assert names[-1] == "capital_run_length_total"
    assert bunch.target_names.tolist() == ["non-spam", "spam"]
    # Rows are in file order: 1813 spam first.
    assert np.all(bunch.target[:1813] == 1) and np.all(bunch.target[1813:] == 0)
    # Capital-run statistics are >= 1.
    assert bunch.data[:, -3:].min() >= 1


def test_sonar_label_mapping():
    bunch = load_sonar(return_X_y=False)
    # Rows 1-97 of the file are R (rock), 98-208 are M (mine); R -> 0, M -> 1.
    assert np.all(bunch.target[:97] == 0) and np.all(bunch.target[97:] == 1)
    assert bunch.target_names.tolist() == ["rock", "mine"]


def test_usps_layout():
    bunch = load_usps(return_X_y=False)
    assert bunch.train_size == 7291
    assert np.bincount(bunch.target[: bunch.train_size]).tolist() == USPS_TRAIN_COUNTS
    assert_array_equal(bunch.target_names, np.arange(10))
    # Three-decimal pixel values, background is -1.
    assert_array_equal(np.round(bunch.data * 1000), bunch.data * 1000)
    assert np.median(bunch.data) == -1.0


def test_olivetti_layout():
    X, y = load_olivetti()
    assert_array_equal(y, np.arange(400) // 10)
    # Values are pixel / 242 for integer pixels.
    assert_array_equal(np.rint(X * 242) / 242, X)
    # Values printed by public output of sklearn's fetch_olivetti_faces().
    np.testing.assert_allclose(X[0, :3], [0.30991736, 0.3677686, 0.41735536], atol=1e-7)


@pytest.mark.parametrize("loader", ALL_LOADERS, ids=LOADER_IDS)
def test_loader_returns_fresh_copies(loader):
    X1, y1 = loader()
    X_before, y_before = X1.copy(), y1.copy()
    X1[...] = 12345.0
    y1[...] = -7
    X2, y2 = loader()
    assert not np.shares_memory(X1, X2)
    assert_array_equal(X2, X_before)
    assert_array_equal(y2, y_before)
    bunch = loader(return_X_y=False)
    bunch.feature_names.append("extra")
    bunch.data[0, 0] = 12345.0
    again = loader(return_X_y=False)
    assert len(again.feature_names) == X_before.shape[1]
    assert again.data[0, 0] == X_before[0, 0]


def test_data_files_match_catalogue():
    for name, digest in _loaders._SHA256.items():
        raw = _loaders._data_file(name).read_bytes()
        assert hashlib.sha256(raw).hexdigest() == digest


@pytest.mark.parametrize("loader, filename", [(e[0], e[1]) for e in LOADERS])
def test_checksum_mismatch_raises(monkeypatch, fresh_cache, loader, filename):
    wrong = "0" * 64
    actual = _loaders._SHA256[filename]
    monkeypatch.setitem(_loaders._SHA256, filename, wrong)
    with pytest.raises(OSError, match="Checksum mismatch") as excinfo:
        loader()
    message = str(excinfo.value)
    assert filename in message
    assert wrong in message
    assert actual in message


@pytest.mark.parametrize(
    "loader, filename, array",
    [
        (load_usps, "usps.npz", "X_test"),
        (load_olivetti, "olivetti_faces.npz", "target"),
    ],
)
def test_array_checksum_mismatch_raises(
    monkeypatch, fresh_cache, loader, filename, array
):
    wrong = "f" * 64
    expected = dict(_loaders._ARRAY_SHA256[filename])
    actual = expected[array]
    expected[array] = wrong
    monkeypatch.setitem(_loaders._ARRAY_SHA256, filename, expected)
    with pytest.raises(OSError, match=f"array '{array}' of data file") as excinfo:
        loader()
    message = str(excinfo.value)
    assert filename in message and wrong in message and actual in message


def test_corrupted_copy_raises(monkeypatch, fresh_cache, tmp_path):
    raw = bytearray(_loaders._data_file("sonar.all-data").read_bytes())
    raw[100] = ord("9") if raw[100] != ord("9") else ord("8")
    corrupted = tmp_path / "sonar.all-data"
    corrupted.write_bytes(bytes(raw))
    monkeypatch.setattr(_loaders, "_data_file", lambda name: tmp_path / name)
    expected = _loaders._SHA256["sonar.all-data"]
    actual = hashlib.sha256(bytes(raw)).hexdigest()
    with pytest.raises(OSError, match="sonar.all-data") as excinfo:
        load_sonar()
    assert expected in str(excinfo.value) and actual in str(excinfo.value)
    # A missing file is a DataChecksumError (an OSError) that says what to do
    # (before: a bare FileNotFoundError, exit 1 at the command line)
    corrupted.unlink()
    with pytest.raises(DataChecksumError, match="'sonar.all-data' shipped with "
                       "smiclust cannot be read at .*reinstall smiclust"):
        load_sonar()


@pytest.mark.parametrize("make", [make_digits500, make_digits5k, make_faces100])
@pytest.mark.parametrize("random_state, error", [
    (-1, ValueError), (True, TypeError), (np.random.default_rng(0), TypeError),
    ("0", TypeError),
])
def test_sub_samples_check_random_state(make, random_state, error):
    # before: numpy's "Seed must be between 0 and 2**32 - 1" without the
    # parameter's name, and True taken as the seed 1
    with pytest.raises(error, match=f"'random_state' parameter of {make.__name__}"):
        make(random_state=random_state)


def test_checksum_failure_is_not_cached(monkeypatch, fresh_cache):
    with monkeypatch.context() as m:
        m.setitem(_loaders._SHA256, "sonar.all-data", "0" * 64)
        with pytest.raises(OSError):
            load_sonar()
    X, _ = load_sonar()
    assert X.shape == (208, 60)


SAMPLERS = [
    (make_digits500, (500, 256), 50),
    (make_digits5k, (5000, 256), 500),
    (make_faces100, (100, 4096), 10),
]
SAMPLER_IDS = ["digits500", "digits5k", "faces100"]


@pytest.mark.parametrize("make, shape, per_class", SAMPLERS, ids=SAMPLER_IDS)
def test_subsample_shapes_and_counts(make, shape, per_class):
    X, y = make(random_state=0)
    assert X.shape == shape
    assert X.dtype == np.float64 and y.dtype == np.int64
    assert X.flags.c_contiguous and X.flags.writeable
    assert np.bincount(y).tolist() == [per_class] * 10
    # Sorted by class.
    assert np.all(np.diff(y) >= 0)


@pytest.mark.parametrize("make, shape, per_class", SAMPLERS, ids=SAMPLER_IDS)
def test_subsample_determinism(make, shape, per_class):
    X1, y1 = make(random_state=42)
    X2, y2 = make(random_state=42)
    assert_array_equal(X1, X2)
    assert_array_equal(y1, y2)
    X3, _ = make(random_state=np.random.RandomState(42))
    assert_array_equal(X1, X3)
    X4, _ = make(random_state=43)
    assert not np.array_equal(X1, X4)


@pytest.mark.parametrize("make, shape, per_class", SAMPLERS, ids=SAMPLER_IDS)
def test_subsample_is_fresh_copy(make, shape, per_class):
    X1, y1 = make(random_state=0)
    X_before = X1.copy()
    X1[...] = 99.0
    y1[...] = 99
    X2, y2 = make(random_state=0)
    assert_array_equal(X2, X_before)
    assert np.bincount(y2).tolist() == [per_class] * 10
    # The cached source data are untouched as well.
    assert load_usps()[0].max() == 1.0
    assert load_olivetti()[0].max() == 1.0


@pytest.mark.parametrize("seed", [0, 1, 7, 99])
@pytest.mark.parametrize(
    "make, n_per_class", [(make_digits500, 50), (make_digits5k, 500)]
)
def test_digits_draw_matches_oracle(make, n_per_class, seed):
    X_all, y_all = load_usps()
    rng = check_random_state(seed)
    expected = []
    for digit in range(10):
        members = np.flatnonzero(y_all == digit)
        expected.append(np.sort(rng.choice(members, size=n_per_class, replace=False)))
    index = np.concatenate(expected)
    X, y = make(random_state=seed)
    assert_array_equal(X, X_all[index])
    assert_array_equal(y, y_all[index])
    # Pixels as in the full set: in [-1, 1].
    assert X.min() >= -1.0 and X.max() <= 1.0


def test_per_class_indices_sorted_and_distinct():
    y = np.repeat(np.arange(4), [5, 8, 6, 7])[np.random.RandomState(0).permutation(26)]
    index = _samples._per_class_indices(y, 3, np.random.RandomState(1))
    assert index.size == 12
    assert np.bincount(y[index]).tolist() == [3, 3, 3, 3]
    assert len(set(index.tolist())) == 12
    # Sorted by class, then by index.
    keys = list(zip(y[index].tolist(), index.tolist()))
    assert keys == sorted(keys)


@pytest.mark.parametrize("seed", [0, 3, 11])
def test_faces100_persons(seed):
    X_all, y_all = load_olivetti()
    X, y = make_faces100(random_state=seed)
    persons = []
    for label in range(10):
        block = X[y == label]
        assert block.shape == (10, 4096)
        # Each class is exactly one person, all 10 images in original order.
        matches = [p for p in range(40) if np.array_equal(X_all[y_all == p], block)]
        assert len(matches) == 1
        persons.append(matches[0])
    assert persons == sorted(persons) and len(set(persons)) == 10
    rng = check_random_state(seed)
    assert persons == sorted(rng.choice(40, size=10, replace=False).tolist())


def test_faces100_different_seeds_draw_different_persons():
    draws = {tuple(make_faces100(random_state=s)[0][::10, 0]) for s in range(5)}
    assert len(draws) > 1


PAPER_PROBLEMS = {
    "parkinson": (195, 22, 2, False),
    "spam": (4601, 57, 2, False),
    "sonar": (208, 60, 2, False),
    "digits500": (500, 256, 10, True),
    "digits5k": (5000, 256, 10, True),
    "faces100": (100, 4096, 10, True),
}


def test_registry_names():
    assert list(DATASETS) == list(PAPER_PROBLEMS)
    assert set(datasets.__all__) >= {
        "DATASETS",
        "DatasetInfo",
        "load_parkinson",
        "load_spam",
        "load_sonar",
        "load_usps",
        "load_olivetti",
        "make_digits500",
        "make_digits5k",
        "make_faces100",
    }
    for name in datasets.__all__:
        assert hasattr(datasets, name)


@pytest.mark.parametrize("name", list(PAPER_PROBLEMS))
def test_registry_entry_loads_advertised_shape(name):
    info = DATASETS[name]
    n, d, c, random_subsample = PAPER_PROBLEMS[name]
    assert isinstance(info, DatasetInfo)
    assert info.name == name
    assert (info.n_samples, info.n_features, info.n_classes) == (n, d, c)
    assert info.random_subsample is random_subsample
    assert isinstance(info.description, str) and info.description
    X, y = info.load(random_state=0)
    assert X.shape == (n, d) and y.shape == (n,)
    assert X.dtype == np.float64 and y.dtype == np.int64
    assert_array_equal(np.unique(y), np.arange(c))
    X_loader, y_loader = info.loader(0)
    assert_array_equal(X_loader, X)
    assert_array_equal(y_loader, y)
    X_call, _ = info(0)
    assert_array_equal(X_call, X)
    X_other, _ = info.load(random_state=1)
    # UCI problems ignore the seed; sub-samples depend on it.
    assert np.array_equal(X_other, X) is not random_subsample


def test_registry_entries_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        DATASETS["sonar"].n_samples = 1


SKLEARN_PROBLEMS = {
    # name: n_samples, n_features, n_classes
    "iris": (150, 4, 3),
    "wine": (178, 13, 3),
    "breast_cancer": (569, 30, 2),
}


def test_sklearn_registry_is_separate_from_the_papers():
    from smiclust.datasets import SKLEARN_DATASETS

    assert set(SKLEARN_DATASETS) == set(SKLEARN_PROBLEMS)
    assert not set(SKLEARN_DATASETS) & set(DATASETS)
    assert {"SKLEARN_DATASETS", "dataset_info"} <= set(datasets.__all__)


@pytest.mark.parametrize("name", list(SKLEARN_PROBLEMS))
def test_sklearn_dataset_loads_advertised_shape(name):
    import sklearn.datasets

    from smiclust.datasets import SKLEARN_DATASETS

    info = SKLEARN_DATASETS[name]
    n, d, c = SKLEARN_PROBLEMS[name]
    assert isinstance(info, DatasetInfo) and info.name == name
    assert (info.n_samples, info.n_features, info.n_classes) == (n, d, c)
    assert info.random_subsample is False
    X, y = info.load(random_state=0)
    assert X.shape == (n, d) and y.shape == (n,)
    assert X.dtype == np.float64 and y.dtype == np.int64
    assert X.flags.c_contiguous
    assert_array_equal(np.unique(y), np.arange(c))
    X_sk, y_sk = getattr(sklearn.datasets, f"load_{name}")(return_X_y=True)
    assert_array_equal(X, X_sk)
    assert_array_equal(y, y_sk)
    X_other, _ = info.load(random_state=1)
    assert_array_equal(X_other, X)


@pytest.mark.parametrize("name", list(SKLEARN_PROBLEMS))
def test_sklearn_dataset_returns_fresh_copies(name):
    from smiclust.datasets import SKLEARN_DATASETS

    info = SKLEARN_DATASETS[name]
    X, y = info.load()
    X_before, y_before = X.copy(), y.copy()
    X[:] = -1.0
    y[:] = 7
    X_again, y_again = info.load()
    assert_array_equal(X_again, X_before)
    assert_array_equal(y_again, y_before)
    assert not np.shares_memory(X_again, X)


@pytest.mark.parametrize("name", list(SKLEARN_PROBLEMS))
def test_sklearn_dataset_checksum_matches_recorded(name):
    from smiclust.datasets import SKLEARN_DATASETS, _bundled

    X, y = SKLEARN_DATASETS[name].load()
    digest = hashlib.sha256(
        np.ascontiguousarray(X, np.float64).tobytes()
        + np.ascontiguousarray(y, np.int64).tobytes()
    ).hexdigest()
    assert digest == _bundled._SHA256[name]


def test_sklearn_dataset_tampered_checksum_raises(monkeypatch):
    from smiclust.datasets import SKLEARN_DATASETS, _bundled

    real = _bundled._SHA256["wine"]
    monkeypatch.setitem(_bundled._SHA256, "wine", "0" * 64)
    with pytest.raises(ValueError) as excinfo:
        SKLEARN_DATASETS["wine"].load()
    message = str(excinfo.value)
    assert "'wine'" in message
    assert "0" * 64 in message
    assert real in message  # the digest received
    # the other data sets still load
    X, _ = SKLEARN_DATASETS["iris"].load()
    assert X.shape == (150, 4)


def test_dataset_info_finds_both_registries():
    from smiclust.datasets import SKLEARN_DATASETS, dataset_info

    assert dataset_info("sonar") is DATASETS["sonar"]
    assert dataset_info("digits500") is DATASETS["digits500"]
    assert dataset_info("iris") is SKLEARN_DATASETS["iris"]
    assert dataset_info("breast_cancer") is SKLEARN_DATASETS["breast_cancer"]


def test_dataset_info_rejects_unknown_name():
    from smiclust.datasets import dataset_info

    with pytest.raises(ValueError, match=r"dataset must be one of \[.*'iris'.*\]; "
                       r"got 'no-such-set'") as excinfo:
        dataset_info("no-such-set")
    assert "'sonar'" in str(excinfo.value)
