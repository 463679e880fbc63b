"""Neighbour search: exact against brute force, approximate against exact."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from sklearn.datasets import make_blobs

from smiclust import neighbors
from smiclust.neighbors import (
    DISTINCT_ROWS_FRACTION,
    nearest_neighbors,
    reuse_exact_searches,
    unique_rows,
)


def test_exact_neighbors_match_brute_force():
    X = np.random.RandomState(3).normal(size=(60, 4))
    graph = nearest_neighbors(X, 4, algorithm="exact")
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    expected = np.sort(D, axis=1)[:, :4]
    np.testing.assert_allclose(graph.distances, expected, rtol=1e-12)
    assert not np.any(graph.indices == np.arange(60)[:, None])


def _count_calls(monkeypatch, name):
    calls = []
    real = getattr(neighbors, name)

    def counted(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(neighbors, name, counted)
    return calls


def test_reused_exact_searches_run_once_per_samples_and_neighbours(monkeypatch):
    import scipy.sparse as sp

    calls = _count_calls(monkeypatch, "_exact_neighbors")
    X = np.random.RandomState(4).normal(size=(50, 3))
    fresh = nearest_neighbors(X, 4, algorithm="exact")
    assert len(calls) == 1
    with reuse_exact_searches():
        first = nearest_neighbors(X, 4, algorithm="exact")
        # equal samples in another array, another seed and n_jobs: kept
        again = nearest_neighbors(X.copy(), 4, algorithm="exact", n_jobs=2,
                                  random_state=7)
        assert len(calls) == 2 and again is first
        # another number of neighbours, one value changed, another dtype or
        # shape of the same bytes, sparse samples: each searched once
        nearest_neighbors(X, 3, algorithm="exact")
        changed = X.copy()
        changed[10, 2] += 1e-9
        nearest_neighbors(changed, 4, algorithm="exact")
        nearest_neighbors(X.astype(np.float32), 4, algorithm="exact")
        nearest_neighbors(X.reshape(75, 2), 4, algorithm="exact")
        nearest_neighbors(sp.csr_matrix(X), 4, algorithm="exact")
        nearest_neighbors(sp.csr_matrix(X), 4, algorithm="exact")
        assert calls == [4, 4, 3, 4, 4, 4, 4]
    np.testing.assert_array_equal(first.indices, fresh.indices)
    np.testing.assert_array_equal(first.distances, fresh.distances)
    # the kept arrays cannot be changed under another fit
    with pytest.raises(ValueError, match="read-only"):
        first.distances[0, 0] = 0.0
    with pytest.raises(ValueError, match="read-only"):
        first.indices[0, 0] = 0
    # after the block, every search runs again, on writable arrays
    later = nearest_neighbors(X, 4, algorithm="exact")
    assert len(calls) == 8 and later.indices.flags.writeable


def test_approximate_searches_are_never_reused(monkeypatch):
    X = np.random.RandomState(5).normal(size=(40, 3))

    def stand_in(X, n_neighbors, *, n_jobs=None, random_state=None):
        # pynndescent's graph depends on its seed: a stand-in that does too
        rng = np.random.RandomState(random_state)
        indices = np.array([rng.permutation(np.delete(np.arange(len(X)), i))[
            :n_neighbors] for i in range(len(X))])
        return np.sort(rng.rand(len(X), n_neighbors), axis=1), indices

    monkeypatch.setattr(neighbors, "_approximate_neighbors", stand_in)
    calls = _count_calls(monkeypatch, "_approximate_neighbors")
    with reuse_exact_searches():
        one = nearest_neighbors(X, 4, algorithm="approximate", random_state=0)
        two = nearest_neighbors(X, 4, algorithm="approximate", random_state=1)
    assert calls == [4, 4]
    assert not np.array_equal(one.indices, two.indices)


@pytest.mark.parametrize("sparse", [False, True])
def test_exact_neighbors_of_copies_are_at_distance_zero_in_many_dimensions(sparse):
    # 60 features: scikit-learn's brute-force search, whose distances from
    # norms and dot products put two copies of a row about 1e-7 apart
    import scipy.sparse as sp

    rng = np.random.RandomState(0)
    X = rng.rand(30, 60)
    X = np.vstack([X, X[:10]]) + 1e3  # an offset: every distance unchanged
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    graph = nearest_neighbors(sp.csr_matrix(X) if sparse else X, 3,
                              algorithm="exact")
    assert np.all(graph.distances[:10, 0] == 0)
    assert np.all(graph.distances[30:, 0] == 0)
    assert graph.indices[:10, 0].tolist() == list(range(30, 40))
    np.testing.assert_allclose(graph.distances, np.sort(D, axis=1)[:, :3],
                               rtol=1e-12, atol=0)
    assert np.all(np.diff(graph.distances, axis=1) >= 0)


@pytest.mark.parametrize("n_features", [3, 40])
def test_exact_neighbors_of_sparse_rows_equal_those_of_dense_rows(n_features):
    # a k-d tree (dense, few features) or brute force (sparse): the same
    # distances to the bit, so a fit of sparse data is the fit of dense data
    import scipy.sparse as sp

    rng = np.random.RandomState(2)
    X = rng.normal(size=(80, n_features))
    X[rng.rand(*X.shape) < 0.4] = 0.0
    X = np.unique(X, axis=0)  # ties between copies are cut in each search's order
    dense = nearest_neighbors(X, 6, algorithm="exact")
    sparse = nearest_neighbors(sp.csr_matrix(X), 6, algorithm="exact")
    assert np.array_equal(dense.distances, sparse.distances)
    assert np.array_equal(dense.indices, sparse.indices)


def test_approximate_search_with_n_jobs_none_runs_on_one_thread(monkeypatch):
    # as documented ("None means 1"): pynndescent's graph for a seed depends
    # on its thread count, so "every core" would make it depend on the machine.
    # A stand-in module records what smiclust passes (importing the real one
    # compiles its functions: half a minute in a fresh environment)
    import sys
    import types

    seen = []

    class Recording:
        def __init__(self, X, **kwargs):
            seen.append(kwargs["n_jobs"])
            order = np.argsort(cdist(X, X), axis=1)[:, : kwargs["n_neighbors"]]
            self.neighbor_graph = (order, np.take_along_axis(cdist(X, X), order, 1))

    stand_in = types.ModuleType("pynndescent")
    stand_in.NNDescent = Recording
    monkeypatch.setitem(sys.modules, "pynndescent", stand_in)
    X = np.random.RandomState(1).normal(size=(40, 3))
    for n_jobs, expected in ((None, 1), (1, 1), (2, 2), (-1, -1)):
        nearest_neighbors(X, 4, algorithm="approximate", n_jobs=n_jobs,
                          random_state=0)
        assert seen[-1] == expected


def test_unknown_algorithm_is_rejected():
    X = np.random.RandomState(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="'algorithm' parameter of nearest_neighbors"):
        nearest_neighbors(X, 2, algorithm="fast")


def test_approximate_neighbors_close_to_exact_dense_and_sparse():
    # one test for both inputs: pynndescent compiles its numba functions on
    # first use, the longest step here on a new .venv, and the sparse search
    # then reuses what the dense one compiled and cached
    pytest.importorskip("pynndescent")
    X = np.random.RandomState(8).normal(size=(300, 5))
    exact = nearest_neighbors(X, 5, algorithm="exact")
    approx = nearest_neighbors(X, 5, algorithm="approximate", random_state=0)
    assert approx.indices.shape == exact.indices.shape
    assert not np.any(approx.indices == np.arange(300)[:, None])
    recall = np.mean(
        [len(set(a) & set(b)) / 5 for a, b in zip(approx.indices, exact.indices)]
    )
    assert recall > 0.95
    # sparse rows: pynndescent's own sparse code path
    X, _ = make_blobs(n_samples=400, centers=3, n_features=20, cluster_std=3.0,
                      random_state=3)
    X[np.abs(X) < 3.0] = 0.0  # about half the entries
    exact = nearest_neighbors(sp.csr_matrix(X), 5, algorithm="exact")
    approx = nearest_neighbors(sp.csr_matrix(X), 5, algorithm="approximate",
                               random_state=0)
    found = np.mean([np.isin(a, e).mean()
                     for a, e in zip(approx.indices, exact.indices)])
    assert found >= 0.95
    # the distances it reports are those of the samples it names
    true = np.linalg.norm(X[approx.indices] - X[:, None, :], axis=2)
    np.testing.assert_allclose(approx.distances, true, rtol=1e-5)


def _distinct_row_neighbors_by_loop(X, k):
    """Brute force: one copy of a sample's own row when it has one (the row's
    first sample, or the second for the first), then the nearest other rows,
    each by its first sample, nearest first."""
    n = X.shape[0]
    keys = [tuple(row) for row in X]
    first_of = {}
    for i, key in enumerate(keys):
        first_of.setdefault(key, i)
    rows = sorted(first_of.values())
    indices, distances = [], []
    for i in range(n):
        copies = [j for j in range(n) if keys[j] == keys[i] and j != i]
        own = []
        if copies:
            own = [first_of[keys[i]] if first_of[keys[i]] != i else copies[0]]
        others = [r for r in rows if keys[r] != keys[i]]
        d = np.linalg.norm(X[others] - X[i], axis=1)
        order = np.argsort(d, kind="stable")
        picked = own + [others[o] for o in order][: k - len(own)]
        indices.append(picked)
        distances.append([0.0] * len(own) + list(d[order][: k - len(own)]))
    return np.array(distances), np.array(indices)


@pytest.mark.parametrize("seed", range(4))
def test_distinct_row_neighbors_match_a_loop(seed):
    rng = np.random.RandomState(seed)
    rows = rng.normal(size=(15, 3))
    X = rows[rng.randint(0, 15, size=40)]  # about 13 distinct rows of 40
    k = 4
    graph = nearest_neighbors(X, k, algorithm="exact", distinct_rows=True)
    distances, indices = _distinct_row_neighbors_by_loop(X, k)
    # continuous rows: no ties between distinct rows, the order is unique
    np.testing.assert_allclose(graph.distances, distances, atol=1e-12)
    np.testing.assert_array_equal(graph.indices, indices)


@pytest.mark.parametrize("n_copies", [0, 5, 30])
def test_distinct_rows_change_nothing_when_most_rows_are_distinct(n_copies):
    # 60 distinct rows and n_copies copies of the first (up to 2 / 3 of the
    # samples distinct): the graph of the samples, copies included
    base = np.random.RandomState(0).normal(size=(60, 4))
    X = np.vstack([base, np.repeat(base[:1], n_copies, axis=0)])
    assert np.unique(X, axis=0).shape[0] > DISTINCT_ROWS_FRACTION * X.shape[0]
    a = nearest_neighbors(X, 6, algorithm="exact")
    b = nearest_neighbors(X, 6, algorithm="exact", distinct_rows=True)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.distances, b.distances)


def test_distinct_rows_from_half_the_samples_distinct():
    # exactly half of the samples distinct: the search runs among the rows
    base = np.random.RandomState(1).normal(size=(30, 2))
    X = np.vstack([base, base])
    rows = nearest_neighbors(X, 3, algorithm="exact", distinct_rows=True)
    # each sample's copy first (the second sample of the row for the first),
    np.testing.assert_array_equal(rows.indices[:30, 0], np.arange(30, 60))
    np.testing.assert_array_equal(rows.indices[30:, 0], np.arange(30))
    # then its row's nearest other rows, by their first samples
    nearest_rows = nearest_neighbors(base, 2, algorithm="exact").indices
    np.testing.assert_array_equal(rows.indices[:30, 1:], nearest_rows)
    np.testing.assert_array_equal(rows.indices[30:, 1:], nearest_rows)


def test_distinct_rows_keep_repeated_rows_connected():
    from scipy.sparse.csgraph import connected_components

    from smiclust.kernels import local_scaling_kernel_from_neighbors

    rng = np.random.RandomState(0)
    X = np.repeat(rng.normal(size=(30, 2)), 8, axis=0)  # every row 8 times
    for distinct, expected in ((False, 30), (True, 1)):
        graph = nearest_neighbors(X, 5, algorithm="exact", distinct_rows=distinct)
        K = local_scaling_kernel_from_neighbors(graph, 5)
        assert connected_components(K, directed=False)[0] == expected


@pytest.mark.parametrize("padded", [True, False], ids=["lexsort", "python-sort"])
@pytest.mark.parametrize("seed", range(6))
def test_unique_rows_of_sparse_x_are_those_numpy_finds_dense(seed, padded,
                                                              monkeypatch):
    # small integer entries of both signs, many zeros and copies, -0.0, and
    # a sparse matrix with stored zeros and repeated entries: the same rows
    # in numpy.unique's (lexicographic) order, each by its first sample
    import scipy.sparse as sp

    from smiclust import neighbors

    if not padded:  # the sort for rows too long to pad
        monkeypatch.setattr(neighbors, "_PADDED_SORT_MAX", 0)
    rng = np.random.RandomState(seed)
    n, d = 80, rng.randint(1, 6)
    X = rng.randint(-2, 3, size=(n, d)).astype(float)
    X[rng.rand(n, d) < 0.5] = 0.0
    X[rng.rand(n, d) < 0.1] = -0.0
    X = X[rng.randint(0, n, size=n)]
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    # CSR by hand: every entry split in two halves (entries stored twice,
    # columns unsorted), and a stored zero in every row
    data, indices, indptr = [], [], [0]
    for row in X:
        for j in np.flatnonzero(row)[::-1]:
            data += [row[j] / 2, row[j] / 2]
            indices += [j, j]
        data.append(0.0)
        indices.append(rng.randint(d))
        indptr.append(len(data))
    messy = sp.csr_matrix((data, indices, indptr), shape=(n, d))
    assert not messy.has_canonical_format
    for Z in (X, sp.csr_matrix(X), sp.csc_array(X), messy):
        got_first, got_inverse = unique_rows(Z)
        np.testing.assert_array_equal(got_first, first)
        np.testing.assert_array_equal(got_inverse, inverse.ravel())
    assert not messy.has_canonical_format and len(messy.data) == len(data)  # as given
    # more distinct rows than max_rows: none, unordered
    for Z in (X, messy):
        assert unique_rows(Z, max_rows=first.size - 1) == (None, None)
        assert unique_rows(Z, max_rows=first.size)[0].size == first.size


def test_sparse_rows_that_are_mostly_copies_are_searched_among_distinct_rows():
    # every row 8 times: sparse X gets the dense graph (connected), not the
    # samples' own, where the copies of a row are each other's neighbours
    import scipy.sparse as sp

    rng = np.random.RandomState(0)
    X = np.repeat(rng.normal(size=(30, 2)), 8, axis=0)
    X[X < 0] = 0.0
    dense = nearest_neighbors(X, 10, algorithm="exact", distinct_rows=True)
    sparse = nearest_neighbors(sp.csr_matrix(X), 10, algorithm="exact",
                               distinct_rows=True)
    np.testing.assert_array_equal(sparse.indices, dense.indices)
    np.testing.assert_array_equal(sparse.distances, dense.distances)
    assert (sparse.distances[:, 1:] > 0).all()  # one copy, then other rows


@pytest.mark.filterwarnings("ignore:No feasible non-trivial eigenvector")
def test_auto_without_pynndescent_warns_and_records_the_exact_search(monkeypatch):
    # "auto" at the threshold would search approximately; without the extra
    # the search is exact, and the user is told (not a silent change of labels)
    import sys

    import smiclust.neighbors as neighbors_module
    from smiclust import ConstrainedSpectralClustering, SMIClustering, SpectralLearning

    monkeypatch.setattr(neighbors_module, "APPROXIMATE_THRESHOLD", 60)
    monkeypatch.setitem(sys.modules, "pynndescent", None)  # import fails
    X, _ = make_blobs(80, 3, centers=2, random_state=0)
    assert neighbors_module.resolve_algorithm("auto", 80) == "exact"
    assert neighbors_module.approximate_search_missing("auto", 80)
    assert not neighbors_module.approximate_search_missing("auto", 59)
    assert not neighbors_module.approximate_search_missing("exact", 80)
    for model in (SMIClustering(2, n_neighbors=5, random_state=0),
                  SpectralLearning(2, n_neighbors=5, random_state=0),
                  ConstrainedSpectralClustering(2, n_neighbors=5, random_state=0)):
        with pytest.warns(UserWarning, match=r"n_samples=80 >= 60.*pynndescent, "
                          r"which is not installed.*smiclust\[ann\]") as caught:
            model.fit(X, must_link=[[0, 1]])
        # the warning points at the caller's line, not inside the package
        assert any(w.filename == __file__ for w in caught)
        assert model.neighbor_algorithm_ == "exact"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = SMIClustering(2, n_neighbors=5, neighbor_algorithm="exact",
                               random_state=0).fit(X[:59])
        SMIClustering(2, n_neighbors=5, random_state=0).fit(X[:59])
    assert fitted.neighbor_algorithm_ == "exact"


@pytest.mark.parametrize("offset", [1e6, 1e8])
def test_exact_neighbours_do_not_move_with_a_large_offset(offset):
    # scikit-learn's brute-force search (above 15 features) ranks by
    # |x|^2 + |y|^2 - 2 x.y, which cancels when the rows sit far from the
    # origin: the search runs on the centred rows, as a loop on X finds them
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 20)) * 1e-3
    base = nearest_neighbors(X, 5, algorithm="exact")
    moved = nearest_neighbors(X + offset, 5, algorithm="exact")
    d = np.linalg.norm(X[:, None, :] - X[None, :, :], axis=2)
    np.fill_diagonal(d, np.inf)
    loop = np.argsort(d, axis=1, kind="stable")[:, :5]
    np.testing.assert_array_equal(base.indices, loop)
    np.testing.assert_array_equal(moved.indices, loop)
    # X + 1e8 itself holds the 1e-3 spread to about 1e-8 (float64)
    np.testing.assert_allclose(moved.distances, base.distances, rtol=1e-5)
