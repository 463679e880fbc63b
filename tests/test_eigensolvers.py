"""Tests of smiclust.eigensolvers (split_by_components, the ARPACK restart
bound) against dense eigh."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from scipy.linalg import orth
from scipy.sparse.csgraph import connected_components

from smiclust import eigensolvers
from smiclust.eigensolvers import leading_eigenvectors, split_by_components


def _psd_block(rng, size, top):
    """A dense symmetric PSD block whose largest eigenvalue is ``top``."""
    Q, _ = np.linalg.qr(rng.normal(size=(size, size)))
    vals = np.sort(rng.uniform(0.0, 0.8 * top, size=size))
    vals[-1] = top
    return (Q * vals) @ Q.T


def _block_matrix(rng, sizes, tops):
    return sp.block_diag([_psd_block(rng, n, t) for n, t in zip(sizes, tops)],
                         format="csr")


def _components(A):
    return connected_components(A, directed=False)[1]


def _top_projector(A, k):
    vals, vecs = np.linalg.eigh(A.toarray())
    return vals[::-1][:k], vecs[:, ::-1][:, :k] @ vecs[:, ::-1][:, :k].T


def test_equal_eigenvalues_of_two_blocks_come_apart():
    """The mix of two blocks' equal leading eigenvectors, as a Krylov solver
    returns it, and the next eigenvector: the split returns both leading
    eigenvectors of the dense reference."""
    rng = np.random.RandomState(0)
    A = _block_matrix(rng, [15, 25], [2.0, 2.0])
    dense = A.toarray()
    vals, vecs = np.linalg.eigh(dense)
    lead = vecs[:, vals > 2.0 - 1e-9]
    assert lead.shape[1] == 2
    mixed = lead @ np.array([0.6, 0.8])
    nxt = vecs[:, np.argsort(vals)[-3]]
    given_vals = np.array([2.0, vals[np.argsort(vals)[-3]]])
    given = np.column_stack([mixed, nxt])
    out_vals, out_vecs = split_by_components(A, given_vals, given, _components(A))
    ref_vals, ref_proj = _top_projector(A, 2)
    assert_allclose(out_vals, ref_vals, rtol=1e-12)
    assert_allclose(out_vecs @ out_vecs.T, ref_proj, atol=1e-10)
    assert_allclose(out_vecs.T @ out_vecs, np.eye(2), atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_ritz_values_never_below_the_given_ones(seed):
    """For any orthonormal block, the split's values are the Rayleigh-Ritz
    values of a larger space holding it: each at least the given one, and at
    most the true eigenvalue."""
    rng = np.random.RandomState(seed)
    A = _block_matrix(rng, [6, 9, 12], rng.uniform(1.0, 3.0, size=3))
    V, _ = np.linalg.qr(rng.normal(size=(27, 3)))
    given_vals, Z = np.linalg.eigh(V.T @ (A @ V))
    given_vals, V = given_vals[::-1], (V @ Z)[:, ::-1]
    out_vals, out_vecs = split_by_components(A, given_vals, V, _components(A))
    assert np.all(out_vals >= given_vals - 1e-12)
    assert np.all(out_vals <= _top_projector(A, 3)[0] + 1e-12)
    # Ritz pairs: the values are the Rayleigh quotients of the vectors
    assert_allclose(np.einsum("ij,ij->j", out_vecs, A @ out_vecs), out_vals,
                    atol=1e-12)


def test_one_component_returns_the_input_unchanged():
    rng = np.random.RandomState(1)
    A = sp.csr_matrix(_psd_block(rng, 10, 1.0))
    vals, vecs = np.linalg.eigh(A.toarray())
    given = (vals[::-1][:2].copy(), vecs[:, ::-1][:, :2].copy())
    out = split_by_components(A, *given, _components(A))
    assert out[0] is given[0] and out[1] is given[1]


def test_input_arrays_are_not_modified():
    rng = np.random.RandomState(2)
    A = _block_matrix(rng, [8, 8], [1.0, 1.0])
    V, _ = np.linalg.qr(rng.normal(size=(16, 2)))
    vals = np.array([0.5, 0.4])
    V_copy, vals_copy = V.copy(), vals.copy()
    split_by_components(A, vals, V, _components(A))
    assert_allclose(V, V_copy, rtol=0, atol=0)
    assert_allclose(vals, vals_copy, rtol=0, atol=0)


def _equal_top_blocks(rng, sizes):
    """A block matrix whose blocks share the largest eigenvalue 1, its dense
    eigenpairs, and each block's leading eigenvector (one column per block)."""
    A = _block_matrix(rng, sizes, [1.0] * len(sizes))
    dense = A.toarray()
    starts = np.concatenate([[0], np.cumsum(sizes)])
    basis = np.zeros((starts[-1], len(sizes)))
    for i, (a, b) in enumerate(zip(starts[:-1], starts[1:])):
        basis[a:b, i] = np.linalg.eigh(dense[a:b, a:b])[1][:, -1]
    vals, vecs = np.linalg.eigh(dense)
    return A, vals, vecs, basis


def test_a_clump_smaller_than_a_cluster_is_not_split_off():
    """One large component and a clump of three rows with the same largest
    eigenvalue: the clump is not a cluster, and the input comes back."""
    rng = np.random.RandomState(3)
    A, vals, vecs, basis = _equal_top_blocks(rng, [30, 3])
    mixed = basis @ np.array([0.9, 0.1])
    mixed /= np.linalg.norm(mixed)
    nxt = vecs[:, np.argsort(vals)[-3]]
    given = (np.array([1.0, np.sort(vals)[-3]]), np.column_stack([mixed, nxt]))
    out = split_by_components(A, *given, _components(A))
    assert out[0] is given[0] and out[1] is given[1]


def test_a_clump_stays_with_the_largest_component():
    """Two cluster-sized components and a clump, all with the largest
    eigenvalue: the two components come apart, the clump keeps its share of
    the given mix beside the first of the largest."""
    rng = np.random.RandomState(4)
    A, vals, vecs, basis = _equal_top_blocks(rng, [20, 20, 2])
    mixed = basis @ np.array([0.6, 0.7, 0.2])
    mixed /= np.linalg.norm(mixed)
    nxt = vecs[:, np.argsort(vals)[-4]]
    given = (np.array([1.0, np.sort(vals)[-4]]), np.column_stack([mixed, nxt]))
    out_vals, out_vecs = split_by_components(A, *given, _components(A))
    assert_allclose(out_vals, [1.0, 1.0], rtol=1e-12)
    first = np.where(np.arange(42) < 20, mixed, 0.0) + np.where(
        np.arange(42) >= 40, mixed, 0.0)
    second = np.where((np.arange(42) >= 20) & (np.arange(42) < 40), mixed, 0.0)
    expected = np.column_stack([first, second])
    expected /= np.linalg.norm(expected, axis=0)
    assert_allclose(out_vecs @ out_vecs.T, expected @ expected.T, atol=1e-10)


def _split_all_at_once(operator, eigenvalues, eigenvectors, component):
    """Slow reference of :func:`split_by_components`: every share on every
    block orthonormalised at once (an ``n x kB`` SVD), then the Rayleigh-Ritz
    pairs of the whole ``Q^T A Q``."""
    n, k = eigenvectors.shape
    sizes = np.bincount(component)
    large = np.flatnonzero(2 * k * sizes >= n)
    block = np.full(sizes.size, large[np.argmax(sizes[large])])
    block[large] = large
    row_block = block[component]
    shares = [np.where(row_block == b, column, 0.0)
              for column in eigenvectors.T for b in large]
    Q = orth(np.column_stack(shares), rcond=1e-10)
    vals, Z = np.linalg.eigh(Q.T @ (operator @ Q))
    top = np.argsort(-vals)[:k]
    return vals[top], Q @ Z[:, top]


@pytest.mark.parametrize("seed", range(4))
def test_many_blocks_match_the_all_at_once_reference(seed):
    """Twelve blocks of 5-9 rows and k = 8 (more shares than rows, as with
    many small clusters): the block-wise split returns the Ritz values of the
    all-at-once reference and the same span, orthonormal columns and Ritz
    pairs of ``A``."""
    rng = np.random.RandomState(seed)
    sizes = rng.randint(5, 10, size=12)
    A = _block_matrix(rng, sizes, rng.uniform(1.0, 3.0, size=12))
    n, k = sizes.sum(), 8
    V, _ = np.linalg.qr(rng.normal(size=(n, k)))
    given_vals, Z = np.linalg.eigh(V.T @ (A @ V))
    given_vals, V = given_vals[::-1], (V @ Z)[:, ::-1]
    out_vals, out_vecs = split_by_components(A, given_vals, V, _components(A))
    ref_vals, ref_vecs = _split_all_at_once(A, given_vals, V, _components(A))
    assert_allclose(out_vals, ref_vals, rtol=1e-10)
    assert_allclose(out_vecs @ out_vecs.T, ref_vecs @ ref_vecs.T, atol=1e-9)
    assert_allclose(out_vecs.T @ out_vecs, np.eye(k), atol=1e-12)
    assert_allclose(np.einsum("ij,ij->j", out_vecs, A @ out_vecs), out_vals,
                    atol=1e-12)


@pytest.mark.parametrize(("n_blocks", "max_iter", "expected"),
                         [(30, None, 1000), (30, 7, 7), (300, None, 1500)])
def test_arpack_restarts_are_bounded_by_max_1000_n(monkeypatch, n_blocks, max_iter,
                                                   expected):
    """Without ``max_iter`` ARPACK gets ``max(ARPACK_MIN_RESTARTS, n)``
    restarts (not SciPy's ``10 n``); a given ``max_iter`` is passed as is."""
    seen = []
    real = eigensolvers.eigsh

    def spy(operator, **kwargs):
        seen.append(kwargs["maxiter"])
        return real(operator, **kwargs)

    monkeypatch.setattr(eigensolvers, "eigsh", spy)
    A = _identical_blocks(n_blocks)
    leading_eigenvectors(A, 2, eigen_solver="arpack", random_state=0,
                         max_iter=max_iter, tol=1e-8)
    assert seen == [expected]


def _identical_blocks(n_blocks):
    """``n_blocks`` copies of the normalised adjacency of a 5-node path: every
    block has the same largest eigenvalue, 1."""
    path = sp.diags([np.ones(4), np.ones(4)], [-1, 1]).toarray()
    degree = path.sum(axis=1)
    block = path / np.sqrt(np.outer(degree, degree)) + np.eye(5)
    return sp.block_diag([block] * n_blocks, format="csr")



def _lone_rows_beside_a_block(n_lone, size, seed):
    """A PSD block of ``size`` rows whose top eigenvalues exceed 2, beside
    ``n_lone`` lone rows of eigenvalue exactly 2 (lone components of a
    graph): the repeated eigenvalue 2 straddles any ``k`` between the
    block's count above 2 and that count plus ``n_lone``."""
    rng = np.random.RandomState(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(size, size)))
    vals = np.concatenate([[6.0, 5.0, 4.0], rng.uniform(0.0, 1.5, size - 3)])
    block = (Q * vals) @ Q.T
    return sp.block_diag([block, 2.0 * sp.eye(n_lone)], format="csr")


def test_equal_calls_give_equal_eigenvectors_when_an_eigenvalue_repeats(
        monkeypatch):
    """ARPACK asks for a new random vector for further copies of the
    repeated eigenvalue 2 (the spy counts its draws, so the path is taken):
    the same ``random_state`` returns the same eigenpairs, bit for bit, on
    every call (with a generator from fresh entropy, as SciPy's default is,
    they differed), and each is an eigenpair of the matrix."""
    draws = []
    real = eigensolvers.arpack_generator

    class CountingGenerator(np.random.Generator):
        def uniform(self, *args, **kwargs):
            draws.append(1)
            return super().uniform(*args, **kwargs)

    def spy(v0):
        return CountingGenerator(real(v0).bit_generator)

    monkeypatch.setattr(eigensolvers, "arpack_generator", spy)
    A = _lone_rows_beside_a_block(n_lone=30, size=40, seed=0)
    calls = [leading_eigenvectors(A, 9, eigen_solver="arpack", random_state=7)
             for _ in range(4)]
    assert len(draws) >= 4
    for vals, vecs in calls[1:]:
        np.testing.assert_array_equal(vals, calls[0][0])
        np.testing.assert_array_equal(vecs, calls[0][1])
    vals, vecs = calls[0]
    assert_allclose(vals[:4], [6.0, 5.0, 4.0, 2.0], atol=1e-10)
    assert_allclose(A @ vecs, vecs * vals, atol=1e-8)
    assert_allclose(vecs.T @ vecs, np.eye(9), atol=1e-10)


def test_arpack_generator_depends_on_the_start_vector_only():
    """Equal start vectors give equal draws; another start vector other
    draws; the start vector is not modified."""
    v0 = np.random.RandomState(0).uniform(-1.0, 1.0, 50)
    before = v0.copy()
    a = eigensolvers.arpack_generator(v0).uniform(size=5)
    b = eigensolvers.arpack_generator(v0.copy()).uniform(size=5)
    c = eigensolvers.arpack_generator(v0 + 1e-12).uniform(size=5)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    np.testing.assert_array_equal(v0, before)


# belongs to tests/test_eigensolvers.py; kills M43 (eigensolvers.py: `n <` for
# `n <=` in the choice of the dense solver)
@pytest.mark.parametrize("n, k", [(20, 2), (21, 7)])
def test_auto_is_dense_up_to_and_including_max_20_3k(monkeypatch, n, k):
    def no_arpack(*args, **kwargs):
        raise AssertionError("ARPACK called where the dense solver is documented")

    monkeypatch.setattr(eigensolvers, "eigsh", no_arpack)
    rng = np.random.RandomState(n)
    B = rng.rand(n, n)
    A = B @ B.T
    vals, vecs = eigensolvers.leading_eigenvectors(A, k, random_state=0)
    assert_allclose(vals, np.linalg.eigvalsh(A)[::-1][:k], rtol=1e-10)
    assert_allclose(vecs.T @ vecs, np.eye(k), atol=1e-10)


def test_arpack_asked_for_every_eigenpair_gives_the_dense_solution():
    # ARPACK needs k < n; with k = n the dense solver answers
    rng = np.random.RandomState(3)
    B = rng.rand(12, 12)
    A = sp.csr_matrix(B @ B.T)
    vals, vecs = leading_eigenvectors(A, 12, eigen_solver="arpack", random_state=0)
    assert_allclose(vals, np.linalg.eigvalsh(A.toarray())[::-1], rtol=1e-10)
    assert_allclose(vecs.T @ vecs, np.eye(12), atol=1e-10)


def test_smiclustering_with_arpack_and_as_many_clusters_as_samples_fits():
    from smiclust import SMIClustering

    X = np.random.default_rng(0).normal(size=(25, 2))
    model = SMIClustering(n_clusters=25, eigen_solver="arpack", random_state=0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 25 clusters of 25 samples: warned
        model.fit(X, must_link=[[0, 1]])
    assert model.labels_.shape == (25,)
    assert model.labels_[0] == model.labels_[1]
