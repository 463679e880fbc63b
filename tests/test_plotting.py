import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from smiclust import SMIClustering
from smiclust.plotting import embedding_2d, plot_embedding

pytest.importorskip("matplotlib")


@pytest.fixture
def ax():
    from matplotlib.figure import Figure

    return Figure().add_subplot()


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.RandomState(0)
    centers = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0]])
    y = np.repeat(np.arange(3), 20)
    X = centers[y] + rng.normal(scale=0.5, size=(60, 2))
    must = np.array([[0, 1], [20, 21]])
    cannot = np.array([[0, 20], [0, 40], [20, 40]])
    model = SMIClustering(3, n_neighbors=5, gamma=1.0, eta=0.0, random_state=0)
    model.fit(X, must_link=must, cannot_link=cannot)
    return model, X, must, cannot


def _line_collections(ax):
    from matplotlib.collections import LineCollection

    return [c for c in ax.collections if isinstance(c, LineCollection)]


def test_model_drawn_in_leading_eigenvectors(fitted, ax):
    model, X, must, cannot = fitted
    out = plot_embedding(model, must_link=must, cannot_link=cannot,
                         method="eigenvectors", ax=ax)
    assert out is ax
    assert ax.get_xlabel() == "leading eigenvector 1"
    points = np.concatenate([c.get_offsets() for c in ax.collections
                             if c not in _line_collections(ax)])
    assert points.shape == (60, 2)
    expected = model.eigenvectors_[:, :2]
    order = np.lexsort(points.T)
    assert_allclose(points[order], expected[np.lexsort(expected.T)])


def test_links_style_and_legend(fitted, ax):
    import matplotlib.colors as mcolors

    model, X, must, cannot = fitted
    plot_embedding(model, must_link=must, cannot_link=cannot, ax=ax)
    lines = _line_collections(ax)
    assert len(lines) == 2
    must_lc, cannot_lc = lines
    assert len(must_lc.get_segments()) == 2 and len(cannot_lc.get_segments()) == 3
    green, red = (mcolors.to_rgb(lc.get_edgecolor()[0]) for lc in lines)
    assert green[1] > max(green[0], green[2]) and red[0] > max(red[1], red[2])
    assert must_lc.get_linestyle()[0][1] is None  # solid
    assert cannot_lc.get_linestyle()[0][1] is not None  # dashed
    assert max(must_lc.get_linewidths()) <= 1.0  # thin
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[:3] == ["cluster 0 (n=20)", "cluster 1 (n=20)", "cluster 2 (n=20)"]
    assert texts[3:] == ["must-link (2)", "cannot-link (3)"]
    # links under the points, one distinct colour per cluster
    scatters = [c for c in ax.collections if c not in lines]
    assert all(lc.get_zorder() < s.get_zorder() for lc in lines for s in scatters)
    colours = {tuple(np.round(s.get_facecolor()[0], 3)) for s in scatters}
    assert len(colours) == 3


def test_pca_of_array_and_given_coordinates(fitted, ax):
    model, X, _, _ = fitted
    X3 = np.column_stack([X, np.zeros(len(X))])
    plot_embedding(X3, model.labels_, ax=ax)
    assert ax.get_xlabel().startswith("PC 1")
    Z, names = embedding_2d(X)
    assert_allclose(Z, X) and names == ("dimension 1", "dimension 2")
    Z, names = embedding_2d(X, method="pca")
    assert names[0].startswith("PC 1")
    assert_allclose(np.abs(np.corrcoef(Z.T)[0, 1]), 0, atol=1e-10)
    Z, names = embedding_2d(model, method="pca")
    assert Z.shape == (60, 2) and names[0].startswith("PC 1")
    Z, _ = embedding_2d(X[:, :1])
    assert_allclose(Z[:, 1], 0)


def test_sparse_data_pca_equals_the_dense_pca():
    # scikit-learn's PCA centres a sparse matrix implicitly: the same
    # components (up to sign) and variance shares as the dense SVD
    import scipy.sparse as sp

    rng = np.random.RandomState(0)
    dense = rng.normal(size=(40, 6)) * (rng.random_sample((40, 6)) < 0.4)
    Z, names = embedding_2d(sp.csr_matrix(dense))
    Zd, names_d = embedding_2d(dense)
    assert names == names_d
    assert_allclose(np.abs(Z), np.abs(Zd), atol=1e-8)
    model = SMIClustering(2, n_neighbors=4, gamma=0.0, random_state=0).fit(
        sp.csr_matrix(dense))
    Zm, _ = embedding_2d(model, method="pca")
    assert_allclose(np.abs(Zm), np.abs(Zd), atol=1e-8)
    Z2, names2 = embedding_2d(sp.csr_matrix(dense[:, :2]))
    assert_allclose(Z2, dense[:, :2]) and names2 == ("dimension 1", "dimension 2")
    with pytest.raises(ValueError, match="needs a fitted model"):
        embedding_2d(sp.csr_matrix(dense), method="eigenvectors")


def test_single_cluster_model_uses_pca(ax):
    X = np.random.RandomState(0).normal(size=(30, 3))
    model = SMIClustering(1, n_neighbors=4, gamma=0.0, eta=0.0,
                          random_state=0).fit(X)
    plot_embedding(model, ax=ax)
    assert ax.get_xlabel().startswith("PC 1")
    with pytest.raises(ValueError, match="n_clusters >= 2"):
        embedding_2d(model, method="eigenvectors")


def test_many_links_are_subsampled_and_unassigned_grey(ax):
    rng = np.random.RandomState(0)
    Z = rng.normal(size=(100, 2))
    labels = np.repeat([0, 1, -1, 2], 25)
    i, j = np.triu_indices(100, k=1)
    must = np.column_stack([i, j])[:3000]
    plot_embedding(Z, labels, must_link=must, max_links=500, ax=ax)
    (lc,) = _line_collections(ax)
    assert len(lc.get_segments()) == 500
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "must-link (3000, 500 shown)" in texts
    assert "no cluster (n=25)" in texts


def test_many_clusters_legend_stays_small(ax):
    Z = np.random.RandomState(0).normal(size=(80, 2))
    plot_embedding(Z, np.arange(80) % 40, ax=ax)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == ["40 clusters"]


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        ((np.zeros((5, 2)), np.zeros(4, int)), {}, r"labels must have shape \(5,\)"),
        ((np.zeros((5, 2)),), {}, "labels are required"),
        ((np.zeros((5, 2)), np.zeros(5, int)), {"must_link": [[0, 5]]},
         r"indices in \[0, 4\]"),
        ((np.zeros((5, 2)), np.zeros(5, int)), {"cannot_link": [[0.0, 1.0]]},
         "integer array"),
        ((np.zeros((5, 2)), np.zeros(5, int)), {"method": "eigenvectors"},
         "needs a fitted model"),
        ((np.zeros((5, 2)), np.zeros(5, int)), {"method": "tsne"}, "'method'"),
        ((np.zeros(5), np.zeros(5, int)), {}, "2-d array"),
    ],
)
def test_errors(ax, args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        plot_embedding(*args, ax=ax, **kwargs)


def test_default_axes_is_current_axes():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure()
    try:
        ax = plot_embedding(np.zeros((3, 2)), [0, 1, 1])
        assert ax is plt.gca()
    finally:
        plt.close(fig)


def test_import_does_not_import_matplotlib():
    code = ("import sys, smiclust.plotting, smiclust.io; "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "False"


def test_auto_embedding_separates_every_cluster_beyond_two(blobs3):
    """With 3 clusters the two leading eigenvectors put the third cluster at
    the origin; 'auto' must keep all three apart."""
    from smiclust import SMIClustering
    from smiclust.plotting import embedding_2d

    X, y = blobs3
    model = SMIClustering(3, n_neighbors=5, random_state=0).fit(X)
    Z, names = embedding_2d(model)
    assert "PC 1 of the 3 leading eigenvectors" == names[0]
    centers = np.array([Z[model.labels_ == k].mean(axis=0) for k in range(3)])
    nearest = np.argmin(((Z[:, None, :] - centers[None]) ** 2).sum(-1), axis=1)
    assert_array_equal(nearest, model.labels_)  # three separate groups
    # the plain leading pair indeed collapses one cluster onto the origin
    E, _ = embedding_2d(model, method="eigenvectors")
    collapsed = [np.abs(E[model.labels_ == k]).max() for k in range(3)]
    assert min(collapsed) < 1e-6


def test_embedding_of_another_estimator_says_what_to_pass(blobs3):
    from smiclust import SpectralLearning
    from smiclust.plotting import embedding_2d

    X, _ = blobs3
    model = SpectralLearning(3, n_neighbors=5, random_state=0).fit(X)
    with pytest.raises(TypeError, match=r"fitted SMIClustering .* got "
                       r"SpectralLearning\. For another estimator, pass"):
        embedding_2d(model)
    Z, _ = embedding_2d(model.embedding_)  # its coordinates work
    assert Z.shape == (90, 2)


@pytest.mark.parametrize("kwargs, match", [
    (dict(max_links=-1), "'max_links' parameter of plot_embedding must be None or "
     "an int >= 0; got -1"),
    (dict(max_links=1.5), "got 1.5"),
    (dict(max_links="5"), "got '5'"),
    (dict(labels=np.r_[np.nan, np.zeros(9)]), "'labels' parameter of "
     "plot_embedding must hold a label for every sample"),
])
def test_plot_embedding_refuses_bad_options(kwargs, match):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X = np.random.RandomState(0).normal(size=(10, 2))
    options = {"labels": np.zeros(10), "must_link": [[0, 1], [2, 3]], **kwargs}
    fig, ax = plt.subplots()
    try:
        with pytest.raises(ValueError, match=match):
            plot_embedding(X, ax=ax, **options)
    finally:
        plt.close(fig)


def _sparse_with_two_bad_rows():
    X = np.random.RandomState(0).rand(20, 5)
    X[3, 2], X[7, 1] = np.nan, np.inf
    return sp.csr_matrix(X)


@pytest.mark.parametrize("Z, match", [
    (np.empty((5, 0)), r"got shape \(5, 0\)"),
    (np.array([[np.nan, 1.0], [2.0, 3.0]]), "must be finite; got NaN or infinity "
     "in 1 row"),
    # before: scikit-learn's PCA message, advising HistGradientBoostingClassifier
    (_sparse_with_two_bad_rows(), "must be finite; got NaN or infinity in 2 row"),
])
def test_embedding_2d_refuses_empty_or_non_finite_arrays(Z, match):
    with pytest.raises(ValueError, match=match):
        embedding_2d(Z)


# belongs to tests/test_plotting.py; kills M41 (plotting.py: PCA of the
# eigenvectors already at two columns)
def test_auto_embedding_of_two_clusters_is_the_two_leading_eigenvectors():
    from smiclust.plotting import embedding_2d

    rng = np.random.RandomState(0)
    X = np.r_[rng.normal(0, 0.3, (20, 2)), rng.normal(3, 0.3, (20, 2))]
    model = SMIClustering(2, n_neighbors=5, gamma=0.0, eta=0.0,
                          random_state=0).fit(X)
    assert model.eigenvectors_.shape[1] == 2
    Z, axes = embedding_2d(model)
    assert_allclose(Z, model.eigenvectors_[:, :2])
    assert axes == ("leading eigenvector 1", "leading eigenvector 2")


# belongs to tests/test_plotting.py; kills M47 (plotting.py: the caller's
# two-column array returned itself)
def test_embedding_2d_of_coordinates_is_a_copy():
    from smiclust.plotting import embedding_2d

    Z = np.arange(12, dtype=np.float64).reshape(6, 2)
    before = Z.copy()
    out, axes = embedding_2d(Z)
    assert axes == ("dimension 1", "dimension 2")
    assert_allclose(out, before)
    assert not np.shares_memory(out, Z)
    out[:] = -1.0
    assert_allclose(Z, before)  # nothing the user gave is modified


@pytest.mark.parametrize("args, kwargs, error, match", [
    # before: 60 "clusters" drawn from probabilities; the imaginary part
    # dropped with a ComplexWarning; AttributeError: 'str' ... 'scatter'
    ((np.zeros((60, 2)), np.linspace(0, 1, 60)), {}, ValueError,
     r"'labels' parameter of plot_embedding must hold clusters or classes "
     r"\(integers or names\), one colour each; got numbers that are not whole and "
     r"finite, e.g. 0.0169"),
    ((np.zeros((4, 2)), np.array([0.5, 1.5, 0.25, 1], dtype=object)), {}, ValueError,
     "not whole and finite, e.g. 0.5"),
    ((np.zeros((4, 2)), np.array([np.inf, 1, 0, 1])), {}, ValueError,
     "not whole and finite, e.g. inf"),
    ((np.zeros((4, 2)), np.array([0.5 + 0j, 1, 0, 1])), {}, ValueError,
     r"not whole and finite, e.g. \(0.5\+0j\)"),
    ((np.zeros((60, 2)) + 1j, np.zeros(60)), {}, TypeError,
     "must be real coordinates; got complex numbers"),
    ((sp.csr_matrix(np.ones((4, 3)) + 1j), np.zeros(4)), {}, TypeError,
     "must be real coordinates; got complex numbers"),
    ((np.zeros((60, 2)), np.zeros(60)), {"ax": "notaxes"}, TypeError,
     "'ax' parameter of plot_embedding must be a matplotlib Axes or None; got str"),
])
def test_plot_embedding_refuses_what_it_cannot_draw(ax, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        plot_embedding(*args, **{"ax": ax, **kwargs})
    # labels written as whole floats are classes
    plot_embedding(np.random.RandomState(0).rand(6, 2),
                   np.array([0.0, 0.0, 1.0, 1.0, 2.0, 2.0]), ax=ax)
    assert len(ax.collections) == 3
