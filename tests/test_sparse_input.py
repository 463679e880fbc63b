"""Sparse X in SMIClustering: the same clusters as the same data given dense.

Also what scikit-learn's sparse-input checks would assert (they cannot run on a
clusterer with predict_proba; see tests/test_common.py): fit, predict and
predict_proba on every sparse container, with the expected shapes.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from smiclust import (
    ActiveSMIClustering,
    ConstrainedSpectralClustering,
    SMIClustering,
    SpectralLearning,
    lsmi_score,
    sample_links,
    select_pairs,
)
from smiclust.link_groups import link_groups
from smiclust.neighbors import nearest_neighbors

CONTAINERS = [sp.csr_matrix, sp.csr_array, sp.csc_matrix, sp.coo_array]


def _sparse_problem(seed=0, n=240, c=3):
    """Blobs in 20 dimensions with small entries set to 0 (about half)."""
    X, y = make_blobs(n_samples=n, centers=c, n_features=20, cluster_std=3.0,
                      random_state=seed)
    X[np.abs(X) < 3.0] = 0.0
    return X, y


def _fit_inputs(kind, y):
    if kind == "none":
        return {}
    if kind == "pairs":
        must, cannot = sample_links(y, 40, random_state=0)
        return {"must_link": must, "cannot_link": cannot}
    partial = np.full(len(y), -1)
    partial[::12] = y[::12]
    return {"partial_labels": partial}


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("kind", ["none", "pairs", "labels"])
def test_sparse_fit_equals_the_dense_fit(container, kind):
    X, y = _sparse_problem()
    kw = _fit_inputs(kind, y)
    dense = SMIClustering(3, random_state=0).fit(X, **kw)
    sparse = SMIClustering(3, random_state=0).fit(container(X), **kw)
    assert sparse.n_features_in_ == X.shape[1]
    assert_array_equal(sparse.labels_, dense.labels_)
    assert sparse.n_neighbors_ == dense.n_neighbors_
    assert_allclose(sparse.proba_, dense.proba_, atol=1e-10)
    new = X[:30] + 0.5
    assert_array_equal(sparse.predict(container(new)), dense.predict(new))
    assert_allclose(sparse.predict_proba(container(new)), dense.predict_proba(new),
                    atol=1e-10)
    # dense queries of a sparse fit, and the other way round
    assert_array_equal(sparse.predict(new), dense.predict(sp.csr_matrix(new)))


@pytest.mark.parametrize("kind", ["none", "pairs"])
def test_sparse_rows_that_are_mostly_copies_fit_as_dense_ones(kind):
    # 240 samples from 40 continuous rows (no distance ties between rows):
    # the default searches among distinct rows, sparse X as dense X (it
    # searched the samples' own kNN on sparse X, where a row's copies cut
    # it off from the rest)
    X, y = _sparse_problem(n=40)
    picks = np.random.RandomState(0).randint(0, 40, size=240)
    X, y = X[picks], y[picks]
    assert np.unique(X, axis=0).shape[0] <= 40
    kw = _fit_inputs(kind, y)
    dense = SMIClustering(3, random_state=0).fit(X, **kw)
    sparse = SMIClustering(3, random_state=0).fit(sp.csr_matrix(X), **kw)
    assert_array_equal(sparse.labels_, dense.labels_)
    assert sparse.n_neighbors_ == dense.n_neighbors_
    assert adjusted_rand_score(y, sparse.labels_) > 0.9


def test_sparse_input_is_not_modified_nor_converted():
    X, y = _sparse_problem(1)
    S = sp.csc_matrix(X * 1e200)  # also exercises the rescaling of extreme data
    data, indices, indptr = S.data.copy(), S.indices.copy(), S.indptr.copy()
    model = SMIClustering(3, random_state=0).fit(S, **_fit_inputs("pairs", y))
    model.predict(S)
    assert S.format == "csc"
    assert_array_equal(S.data, data)
    assert_array_equal(S.indices, indices)
    assert_array_equal(S.indptr, indptr)
    unit = SMIClustering(3, random_state=0).fit(X, **_fit_inputs("pairs", y))
    assert_array_equal(model.labels_, unit.labels_)


def _with_duplicate_entries(X):
    """``X`` (non-negative, two columns) as a CSR matrix that stores each
    row's second feature as two halves, the first feature between them: the
    same matrix, not in canonical format."""
    n = X.shape[0]
    data = np.c_[X[:, 1] / 2, X[:, 0], X[:, 1] / 2].ravel()
    S = sp.csr_matrix((data, np.tile([1, 0, 1], n), np.arange(0, 3 * n + 1, 3)),
                      shape=X.shape)
    assert not S.has_canonical_format
    assert_allclose(S.toarray(), X)
    return S


def test_duplicate_sparse_entries_fit_and_predict_as_their_sums():
    X, _ = make_blobs(60, centers=3, random_state=0)
    X = np.abs(X)
    S = _with_duplicate_entries(X)
    stored = (S.data.copy(), S.indices.copy(), S.indptr.copy())
    dense = SMIClustering(3, n_neighbors=5, random_state=0).fit(X)
    sparse = SMIClustering(3, n_neighbors=5, random_state=0).fit(S)
    assert_array_equal(sparse.labels_, dense.labels_)
    assert_array_equal(sparse.predict(S), dense.predict(X))
    for before, after in zip(stored, (S.data, S.indices, S.indptr)):
        assert_array_equal(before, after)  # the caller's matrix as it was
    assert not S.has_canonical_format


def test_the_sparse_check_of_scikit_learn_by_hand():
    # check_estimator_sparse_*: 40 samples, 10 features, y in 0..3; fit with
    # y, predict of shape (n,), predict_proba of shape (n, n_clusters)
    rng = np.random.RandomState(0)
    X = rng.uniform(size=(40, 10))
    X[X < 0.8] = 0
    y = (4 * rng.uniform(size=40)).astype(int)
    for container in CONTAINERS:
        model = SMIClustering(random_state=0).fit(container(X), y)
        assert model.predict(container(X)).shape == (40,)
        assert model.predict_proba(container(X)).shape == (40, 2)


def test_sparse_lsmi_and_neighbours_equal_dense():
    X, y = _sparse_problem(2)
    S = sp.csr_matrix(X)
    assert lsmi_score(S, y, random_state=0) == pytest.approx(
        lsmi_score(X, y, random_state=0), rel=1e-10)
    a = nearest_neighbors(S, 6, algorithm="exact")
    b = nearest_neighbors(X, 6, algorithm="exact")
    assert_array_equal(a.indices, b.indices)
    assert_allclose(a.distances, b.distances, rtol=1e-10)


def test_identical_sparse_rows_warn_like_dense_ones():
    X = np.zeros((12, 4))
    X[:, 1] = 2.0
    with pytest.warns(UserWarning, match="All 12 samples of X are identical"):
        SMIClustering(2, n_neighbors=3, random_state=0).fit(sp.csr_matrix(X))
    X[0, 3] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        SMIClustering(2, n_neighbors=3, random_state=0).fit(sp.csr_matrix(X))


@pytest.mark.parametrize("estimator", [
    SpectralLearning(2), ConstrainedSpectralClustering(2),
])
def test_the_baselines_refuse_sparse_x_by_name(estimator):
    X, _ = _sparse_problem()
    with pytest.raises(TypeError, match="dense array for 'X'; got a sparse"):
        estimator.fit(sp.csr_matrix(X))
    assert not estimator.__sklearn_tags__().input_tags.sparse


def test_active_clustering_and_select_pairs_on_sparse_x_equal_dense():
    X, y = _sparse_problem()
    S = sp.csr_matrix(X)
    kw = dict(budget=30, batch_size=10, random_state=0)
    dense = ActiveSMIClustering(3, **kw).fit(X, lambda i, j: y[i] == y[j])
    sparse = ActiveSMIClustering(3, **kw).fit(S, lambda i, j: y[i] == y[j])
    # the same questions up to which member of a must-link group is asked
    # (near-equal probabilities of the sparse and dense fits order them)
    assert sparse.n_queries_ == dense.n_queries_
    assert_array_equal(sparse.cannot_link_, dense.cannot_link_)
    groups = [link_groups(m.must_link_, m.cannot_link_, len(y)).group
              for m in (dense, sparse)]
    assert adjusted_rand_score(*groups) == 1.0
    assert adjusted_rand_score(sparse.labels_, dense.labels_) == 1.0
    assert_array_equal(sparse.predict(S[:20]), sparse.labels_[:20])
    model = SMIClustering(3, random_state=0).fit(X)
    assert_array_equal(select_pairs(model, S, 8, random_state=0),
                       select_pairs(model, X, 8, random_state=0))
    # with a link the batch measures distances to the rows it takes; a
    # sparse *array*'s row X[i] is 1-d, which made a matrix product fail
    linked = SMIClustering(3, random_state=0).fit(X, must_link=[[0, 1]])
    expected = select_pairs(linked, X, 8, must_link=[[0, 1]], random_state=0)
    for container in (sp.csr_matrix, sp.csr_array):
        assert_array_equal(select_pairs(linked, container(X), 8, must_link=[[0, 1]],
                                        random_state=0), expected)


# The approximate search of sparse rows (pynndescent's sparse code) is checked
# beside the dense one, in test_neighbors.py's
# test_approximate_neighbors_close_to_exact_dense_and_sparse, so that
# pynndescent compiles its functions once.


def test_sparse_arrays_with_64_bit_indices_fit_and_predict_as_dense():
    # sparse arrays built from int64 coordinates keep int64 index arrays;
    # scikit-learn's trees refuse them, so the default's forest raised "No
    # support for np.int64 index based sparse matrices" in fit (links), in
    # predict (a model whose forest labels) and in the active loop after
    # its first questions
    X, y = make_blobs(n_samples=60, centers=2, random_state=0)
    rows, cols = np.nonzero(X)
    A = sp.csr_array(sp.coo_array((X[rows, cols], (rows, cols)), shape=X.shape))
    assert A.indices.dtype == np.int64
    before = (A.indices.copy(), A.indptr.copy())
    must, cannot = sample_links(y, n_links=10, random_state=0)
    sparse = SMIClustering(random_state=0).fit(A, must_link=must, cannot_link=cannot)
    dense = SMIClustering(random_state=0).fit(X, must_link=must, cannot_link=cannot)
    assert_array_equal(sparse.labels_, dense.labels_)
    labelled = SMIClustering(random_state=0).fit(X, partial_labels=y)
    assert_array_equal(labelled.predict(A), labelled.predict(X))
    oracle = lambda i, j: bool(y[i] == y[j])  # noqa: E731
    active = ActiveSMIClustering(2, budget=30, random_state=0).fit(A, oracle)
    reference = ActiveSMIClustering(2, budget=30, random_state=0).fit(X, oracle)
    assert_array_equal(active.labels_, reference.labels_)
    # the user's matrix keeps its index arrays
    assert A.indices.dtype == np.int64
    assert_array_equal(A.indices, before[0])
    assert_array_equal(A.indptr, before[1])
