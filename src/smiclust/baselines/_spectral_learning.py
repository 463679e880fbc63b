r"""Spectral Learning (Kamvar, Klein & Manning, IJCAI 2003): numerics and estimator.

The affinity :math:`A` is the sparse local-scaling kernel with must-linked
entries set to 1 and cannot-linked entries set to 0. With :math:`D` its degree
matrix and :math:`d_{\max}` the largest degree, the additive normalisation

.. math::

    N = \frac{A + d_{\max} I - D}{d_{\max}} = I - \frac{L}{d_{\max}},
    \qquad L = D - A,

is sparse, symmetric, with spectrum in :math:`[-1, 1]`. The ``c`` leading
eigenvectors of :math:`N` (largest eigenvalues), rows normalised to unit length,
are clustered by k-means.

:math:`N` is never formed densely. The eigenvalue 1 of :math:`N` has multiplicity
equal to the number of connected components of the graph of :math:`A` and its
eigenspace is spanned by the component indicators; they are known exactly, so
they are deflated and only the remaining leading eigenvectors are computed
iteratively (see :func:`spectral_learning_embedding`).
"""

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import LinearOperator
from sklearn.cluster import KMeans

from ..base import BaseLinkClustering, warn_graph_components
from ..eigensolvers import leading_eigenvectors, sign_flip
from ..kernels import local_scaling_kernel_from_neighbors, modified_kernel
from ..link_groups import group_sums, off_group_kernel
from ..utils import (
    Interval,
    Options,
    check_n_neighbors,
    check_random_state_param,
    n_jobs_param,
    single_threaded_openmp,
)

__all__ = [
    "SpectralLearning",
    "spectral_learning",
    "additive_normalization",
    "SpectralLearningEmbedding",
    "spectral_learning_embedding",
    "spectral_learning_group_embedding",
    "embedding_labels",
    "spectral_learning_labels",
    "normalize_rows",
    "drop_negligible_edges",
]


def additive_normalization(A):
    r"""Kamvar et al.'s additive normalisation :math:`N = (A + d_{\max}I - D)/d_{\max}`.

    Prior validation is assumed: ``A`` is a symmetric sparse matrix with
    non-negative entries and at least one positive degree.

    Parameters
    ----------
    A : sparse matrix of shape (n, n)
        Affinity matrix.

    Returns
    -------
    N : scipy.sparse.csr_matrix of shape (n, n)
        Sparse (the pattern of ``A`` plus the diagonal); eigenvalues in [-1, 1].
    d_max : float
        The largest degree :math:`d_{\max} = \max_i \sum_j A_{ij}`.
    """
    A = sp.csr_matrix(A, dtype=np.float64)
    degrees = np.asarray(A.sum(axis=1)).ravel()
    d_max = float(degrees.max())
    N = (A + sp.diags(d_max - degrees)) / d_max
    return sp.csr_matrix(N), d_max


#: Edges whose normalised weight :math:`A_{ij}/\sqrt{d_i d_j}` is at most this
#: are dropped before the eigen-solve (see :func:`drop_negligible_edges`).
NEGLIGIBLE_WEIGHT = 1e-10


def drop_negligible_edges(A, rtol=NEGLIGIBLE_WEIGHT, degrees=None):
    r"""Copy of ``A`` without off-diagonal entries :math:`A_{ij} \le
    \mathrm{rtol}\sqrt{d_i d_j}` (and without explicit zeros).

    The local-scaling kernel can underflow to denormal values (e.g. ``1e-313``
    between a sample and a neighbour with a much smaller local scale, as on the
    spam data with its exact duplicates). Such an edge changes the normalised
    matrices by less than ``rtol`` but makes the graph numerically disconnected
    while being formally connected: the degenerate eigenvalue becomes a cluster
    of eigenvalues closer than machine precision and Laplacian factorisations
    become singular. Dropping it makes the connected components exact.

    Prior validation is assumed: ``A`` symmetric, non-negative, positive degrees.

    Parameters
    ----------
    A : sparse matrix of shape (n, n)
    rtol : float, default=NEGLIGIBLE_WEIGHT
    degrees : ndarray of shape (n,), default=None
        :math:`d`; ``None``: the row sums of ``A``. Given when ``A`` is part
        of a larger affinity (:func:`spectral_learning_group_embedding`).

    Returns
    -------
    A_pruned : scipy.sparse.csr_matrix of shape (n, n)
    """
    A = sp.coo_matrix(A, dtype=np.float64)
    d = np.asarray(A.sum(axis=1)).ravel() if degrees is None else degrees
    keep = (A.data > 0) & (
        (A.row == A.col) | (A.data > rtol * np.sqrt(d[A.row] * d[A.col]))
    )
    pruned = sp.csr_matrix((A.data[keep], (A.row[keep], A.col[keep])), shape=A.shape)
    pruned.sort_indices()
    return pruned


class _DeflatedShiftedOperator(LinearOperator):
    r""":math:`T = N + I - 2P`: :math:`N` shifted into :math:`[0, 2]`, null space of
    :math:`L` deflated to 0.

    :math:`P = E (E^\top E)^{-1} E^\top` projects onto the component indicators,
    the eigenvectors of :math:`N` with eigenvalue 1. :math:`N` commutes with
    :math:`P`, so :math:`T` has the eigenvectors of :math:`N`; the indicators get
    eigenvalue 0 and every other eigenvalue :math:`\mu` of :math:`N` becomes
    :math:`\mu + 1 \in [0, 2)`. :math:`T` is positive semi-definite.
    """

    def __init__(self, N, components, counts):
        n = N.shape[0]
        super().__init__(dtype=np.float64, shape=(n, n))
        self.N = N
        # an operator of this module applied without LinearOperator's
        # checks (the same arithmetic), a sparse matrix by its product
        self._apply_N = N._matmat if isinstance(N, LinearOperator) else N.__matmul__
        self.components = components
        self.counts = counts
        #: number of vectors T has been applied to (a block of k counts k)
        self.n_applied = 0

    def _project(self, X):
        means = group_sums(self.components, self.counts.size, X)
        if means.ndim == 1:
            means = means / self.counts
        else:
            means = means / self.counts[:, None]
        return means[self.components]

    def _matvec(self, x):
        self.n_applied += 1
        x = np.asarray(x).ravel()
        return self._apply_N(x) + x - 2.0 * self._project(x)

    def _matmat(self, X):
        self.n_applied += X.shape[1]
        return self._apply_N(X) + X - 2.0 * self._project(X)

    def _adjoint(self):
        return self


@dataclass(frozen=True)
class SpectralLearningEmbedding:
    """Result of :func:`spectral_learning_embedding`.

    Attributes
    ----------
    eigenvalues : ndarray of shape (c,)
        The ``c`` leading eigenvalues of :math:`N`, descending.
    eigenvectors : ndarray of shape (n, c)
        Orthonormal, sign-fixed by :func:`sign_flip`.
    n_components : int
        Connected components ``p`` of the graph (after
        :func:`drop_negligible_edges`).
    n_operator_applications : int
        Vectors the iterative solver multiplied by :math:`T` (0 when the
        component indicators were enough).
    """

    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    n_components: int
    n_operator_applications: int


def spectral_learning_embedding(
    A, n_clusters, *, eigen_solver="auto", random_state=None, tol=0.0, max_iter=None
):
    r"""The ``c`` leading eigenpairs of the additive normalisation of ``A``.

    Prior validation is assumed: ``A`` is the (link-modified) affinity, sparse,
    symmetric, non-negative, with positive degrees; ``1 <= n_clusters <= n``.

    Edges of negligible weight are dropped first (:func:`drop_negligible_edges`).
    Let ``p`` be the number of connected components of the graph of ``A``. The
    eigenvalue 1 of :math:`N` has multiplicity ``p`` and its eigenspace is
    spanned by the component indicators :math:`1_{C}/\sqrt{|C|}`:

    * ``p >= c``: every choice of ``c`` orthonormal vectors of that eigenspace is
      a valid set of leading eigenvectors. The indicators of the ``c`` largest
      components (ties: the component of the lowest sample index) are returned;
      exact, deterministic, no iterative solver.
    * ``p < c``: the ``p`` indicators plus the ``c - p`` leading eigenvectors of
      :math:`T = N + I - 2P` (:math:`P` the projector on the indicators), which
      is positive semi-definite with the degenerate eigenvalue removed, by
      :func:`smiclust.eigensolvers.leading_eigenvectors`: ARPACK with bounded
      restarts and, if it does not converge, a
      :class:`~sklearn.exceptions.ConvergenceWarning` and a bounded LOBPCG run.

    Parameters
    ----------
    A : sparse matrix of shape (n, n)
        Affinity with links applied.
    n_clusters : int
        Number of eigenvectors ``c``.
    eigen_solver : {"auto", "arpack", "lobpcg", "dense"}, default="auto"
        Solver for :math:`T` (see :func:`~smiclust.eigensolvers.leading_eigenvectors`).
    random_state : int, RandomState instance or None, default=None
        Start vector / block of the iterative solvers.
    tol : float, default=0.0
        Solver tolerance (0: machine precision for ARPACK).
    max_iter : int, default=None
        ARPACK restarts and LOBPCG iterations.

    Returns
    -------
    embedding : SpectralLearningEmbedding
    """
    A = drop_negligible_edges(A)
    p, comp = connected_components(A, directed=False)
    return _leading_embedding(
        lambda: additive_normalization(A)[0], comp, p, n_clusters,
        eigen_solver=eigen_solver, random_state=random_state, tol=tol,
        max_iter=max_iter,
    )


class _GroupAdditiveNormalization(LinearOperator):
    r""":math:`N = (A + d_{\max} I - D)/d_{\max}` for :math:`A = K_{\mathrm{off}}
    + GG^\top`, applied without the groups' blocks."""

    def __init__(self, K_off, groups, degrees):
        n = K_off.shape[0]
        super().__init__(dtype=np.float64, shape=(n, n))
        self.K_off = K_off
        self.group = groups.group
        self.n_groups = groups.n_groups
        self.d_max = float(degrees.max())
        self.shift = self.d_max - degrees

    def _matmat(self, X):
        AX = self.K_off @ X + group_sums(self.group, self.n_groups, X)[self.group]
        shift = self.shift if X.ndim == 1 else self.shift[:, None]
        return (AX + shift * X) / self.d_max

    def _matvec(self, x):
        return self._matmat(np.asarray(x).ravel())

    def _adjoint(self):
        return self


def spectral_learning_group_embedding(
    K_off, groups, n_clusters, *, eigen_solver="auto", random_state=None, tol=0.0,
    max_iter=None,
):
    r""":func:`spectral_learning_embedding` of the closed links' affinity
    :math:`A = K_{\mathrm{off}} + GG^\top`, without its group blocks.

    :math:`K_{\mathrm{off}}` is the kernel without its within-group and
    cannot-linked entries (:func:`smiclust.link_groups.off_group_kernel`)
    and :math:`G` the group indicator, so :math:`A` is Kamvar et al.'s
    affinity for every pair the closed links imply: 1 inside a must-link
    group (the diagonal included), 0 between cannot-linked groups. Its
    degrees are :math:`K_{\mathrm{off}}\mathbf 1 + G s` for the group sizes
    :math:`s`, and :math:`N` is applied as :math:`(K_{\mathrm{off}}X +
    G(G^\top X) + (d_{\max} - d)\odot X)/d_{\max}`, at the cost of the
    kernel's entries plus two products by :math:`G`, not of the
    :math:`\sum_a s_a^2` entries of the blocks. The connected components
    are those of the graph of :math:`K_{\mathrm{off}}` with every group
    joined to a node of its own.

    Prior validation is assumed: ``K_off`` symmetric and non-negative,
    ``groups`` a :class:`~smiclust.link_groups.LinkGroups` of its samples,
    ``1 <= n_clusters <= n``.

    Returns
    -------
    embedding : SpectralLearningEmbedding
        As :func:`spectral_learning_embedding` of the explicit :math:`A`.
    """
    G = sp.csr_matrix(groups.indicator, dtype=np.float64)
    # each sample's degree in its group's block: the group's size
    block_degrees = G @ np.asarray(groups.sizes, dtype=np.float64)
    degrees = np.asarray(K_off.sum(axis=1)).ravel() + block_degrees
    K_off = drop_negligible_edges(K_off, degrees=degrees)
    degrees = np.asarray(K_off.sum(axis=1)).ravel() + block_degrees
    n = G.shape[0]
    joined = sp.bmat([[K_off, G], [G.T, None]], format="csr")
    p, comp = connected_components(joined, directed=False)
    # every group node joins at least one sample, and the samples come first:
    # the components keep the numbering of the explicit affinity's
    comp = comp[:n]
    return _leading_embedding(
        lambda: _GroupAdditiveNormalization(K_off, groups, degrees), comp, p,
        n_clusters, eigen_solver=eigen_solver, random_state=random_state, tol=tol,
        max_iter=max_iter,
    )


def _leading_embedding(normalization, comp, p, n_clusters, *, eigen_solver,
                       random_state, tol, max_iter):
    """The ``c`` leading eigenpairs of :math:`N` given its components:
    indicators of the largest ``min(p, c)``, the rest from the deflated
    operator (``normalization()`` builds :math:`N` when needed)."""
    n = comp.shape[0]
    c = int(n_clusters)
    counts = np.bincount(comp, minlength=p).astype(np.float64)
    # components by decreasing size; ties keep the component of the lowest index
    by_size = np.argsort(-counts, kind="stable")
    n_indicators = min(p, c)
    V = np.zeros((n, c))
    for col, k in enumerate(by_size[:n_indicators]):
        members = comp == k
        V[members, col] = 1.0 / np.sqrt(counts[k])
    values = np.ones(c)
    n_applied = 0
    if p < c:
        T = _DeflatedShiftedOperator(normalization(), comp, counts)
        vals, vecs = leading_eigenvectors(
            T,
            c - p,
            eigen_solver=eigen_solver,
            random_state=random_state,
            tol=tol,
            max_iter=max_iter,
        )
        values[p:] = vals - 1.0
        V[:, p:] = vecs
        n_applied = T.n_applied
    return SpectralLearningEmbedding(
        eigenvalues=values,
        eigenvectors=sign_flip(V),
        n_components=int(p),
        n_operator_applications=int(n_applied),
    )


def normalize_rows(V):
    """Rows scaled to unit Euclidean length; all-zero rows stay zero.

    Returns
    -------
    Y : ndarray of the same shape
        A new array.
    """
    V = np.asarray(V, dtype=np.float64)
    norms = np.linalg.norm(V, axis=1, keepdims=True)
    safe = np.where(norms > 0, norms, 1.0)
    return V / safe


def embedding_labels(embedding, n_clusters, *, n_init=10, random_state=None):
    """k-means labels of the rows of ``embedding``, numbered ``0 .. m - 1``
    for the ``m`` clusters that hold samples (step 4 of
    :class:`SpectralLearning`).

    Parameters
    ----------
    embedding : ndarray of shape (n, c)
        Row-normalised eigenvectors (:func:`normalize_rows`).
    n_clusters : int
    n_init : int, default=10
        k-means restarts.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    labels : ndarray of shape (n,)
    """
    km = KMeans(n_clusters=n_clusters, n_init=n_init, random_state=random_state)
    return _contiguous(km.fit_predict(embedding))


def spectral_learning_labels(K, groups, n_clusters, *, n_init=10, random_state=None,
                             **solver_options):
    """Spectral Learning's labels for the kernel ``K`` and closed links.

    Steps 1-4 of :class:`SpectralLearning` on ``K`` with the pairs the
    closed links ``groups`` imply (:func:`spectral_learning_group_embedding`;
    ``None``: ``K`` as it is), the eigenvectors and k-means seeded from
    ``random_state``; k-means at one OpenMP thread.

    Parameters
    ----------
    K : sparse matrix of shape (n, n)
        Symmetric non-negative kernel (the local-scaling kNN kernel).
    groups : LinkGroups or None
    n_clusters : int
    n_init : int, default=10
    random_state : int or None, default=None
    **solver_options
        ``eigen_solver``, ``tol``, ``max_iter`` of the eigen-solve.

    Returns
    -------
    labels : ndarray of shape (n,)
    """
    if groups is None:
        result = spectral_learning_embedding(K, n_clusters, random_state=random_state,
                                             **solver_options)
    else:
        result = spectral_learning_group_embedding(
            off_group_kernel(K, groups), groups, n_clusters,
            random_state=random_state, **solver_options,
        )
    # a small k-means: OpenMP threads only contend (the same labels)
    with single_threaded_openmp():
        return embedding_labels(normalize_rows(result.eigenvectors), n_clusters,
                                n_init=n_init, random_state=random_state)


def _contiguous(labels):
    _, inverse = np.unique(labels, return_inverse=True)
    return inverse.astype(np.intp).ravel()


class SpectralLearning(BaseLinkClustering):
    r"""Spectral Learning with must-links and cannot-links (Kamvar et al., 2003).

    Links modify the affinity, which is then clustered spectrally:

    1. :math:`A` is the sparse local-scaling kNN kernel with parameter
       ``t = n_neighbors`` (:func:`~smiclust.local_scaling_kernel`), with
       :math:`A_{ij} = A_{ji} = 1` for every must-link and :math:`0` for every
       cannot-link.
    2. Additive normalisation

       .. math::

           N = \frac{A + d_{\max} I - D}{d_{\max}},\qquad
           D = \mathrm{diag}(A 1),\quad d_{\max} = \max_i D_{ii}.

    3. :math:`V \in \mathbb{R}^{n\times c}`: the ``c`` leading eigenvectors of
       :math:`N` (largest eigenvalues); rows of :math:`V` normalised to unit length.
    4. k-means (:class:`sklearn.cluster.KMeans`, ``n_init`` restarts) on the rows.

    :math:`N` is sparse and never formed densely; the known eigenvectors for the
    eigenvalue 1 (component indicators) are deflated, so graphs with many
    connected components (e.g. spam at ``n_neighbors=1``) are solved exactly and
    quickly (``smiclust.baselines._spectral_learning.spectral_learning_embedding``,
    a private helper).

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters ``c``.
    n_neighbors : int, default=7
        Kernel parameter ``t`` (the 3SMIC paper tests 1, 4, 7, 10).
    neighbor_algorithm : {"auto", "exact", "approximate"}, default="auto"
        Neighbour search (see :func:`smiclust.kernels.nearest_neighbors`).
    eigen_solver : {"auto", "arpack", "lobpcg", "dense"}, default="auto"
        Solver for the leading eigenvectors; ``"auto"`` is ARPACK (dense only for
        tiny problems). ARPACK runs at most ``max_iter`` restarts; if it does not
        converge a :class:`~sklearn.exceptions.ConvergenceWarning` is issued and
        a bounded LOBPCG run is used. ``"dense"`` is a reference only.
    tol : float, default=0.0
        Eigen-solver tolerance (0: machine precision).
    max_iter : int, default=None
        Eigen-solver iteration bound (``None``: ``max(1000, n)`` ARPACK
        restarts, 500 LOBPCG iterations).
    n_init : int, default=10
        Number of k-means initialisations.
    random_state : int, RandomState instance or None, default=None
        Seeds the eigen-solver start vector, k-means and the approximate
        neighbour search.
    n_jobs : int, default=None
        Parallel jobs of the neighbour search (``None`` means 1).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each sample, contiguous from 0.
    embedding_ : ndarray of shape (n_samples, n_clusters)
        Row-normalised leading eigenvectors of :math:`N`: the points k-means
        clusters.
    eigenvalues_ : ndarray of shape (n_clusters,)
        The ``c`` leading eigenvalues of :math:`N`, descending.
    affinity_matrix_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The link-modified affinity :math:`A`.
    n_graph_components_ : int
        Connected components of the graph of :math:`A` (after dropping
        negligible edges, see Notes). When there are more than
        ``n_clusters``, the clusters follow them, and a ``UserWarning`` says
        what joins them.
    n_iter_ : int
        Number of vectors the eigen-solver multiplied by the (deflated)
        :math:`N` (its cost in operator applications; ``max_iter`` bounds it).
        At least 1; 1 also when the component indicators were enough.
    neighbor_algorithm_ : {"exact", "approximate"}
        The neighbour search that ran (``"auto"`` resolved).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string feature names.

    See Also
    --------
    ConstrainedSpectralClustering : The other baseline of the 3SMIC paper.
    smiclust.SMIClustering : SMIC / 3SMIC.

    Notes
    -----
    Choices the paper leaves open, and ours:

    * The kernel is the 3SMIC paper's local-scaling kNN kernel, whose diagonal is
      1. The diagonal does not change the eigenvectors of :math:`N` (adding
      :math:`I` to :math:`A` maps :math:`N` to
      :math:`(d_{\max} N + I)/(d_{\max}+1)`), only its eigenvalues.
    * A link pair that is not a kNN edge becomes an edge (must-link) or stays
      absent (cannot-link); a sample given both kinds of links to different
      partners gets both modifications.
    * Degenerate leading eigenvalue (more connected components than clusters):
      the ``c`` largest components' indicators are used, as explained in
      :func:`spectral_learning_embedding`. Samples outside them get a zero
      embedding row, which is left unnormalised.
    * This is also why ARPACK struggled in the 3SMIC paper on spam at
      ``t = 1`` (1,300+ components, the top eigenvalue that many times
      degenerate): the degenerate eigenspace is known exactly and deflated, so
      the iterative solver (bounded restarts, LOBPCG fallback with a
      :class:`~sklearn.exceptions.ConvergenceWarning`) only ever sees the rest.
    * Kernel values below :math:`10^{-10}\sqrt{d_i d_j}` (underflow between
      samples of very different local scales) are dropped before the solve so
      that the components are exact (:func:`drop_negligible_edges`);
      ``affinity_matrix_`` keeps them.
    * Eigenvector signs: largest-magnitude entry positive (:func:`sign_flip`);
      they do not affect k-means on the rows.
    * k-means: :class:`~sklearn.cluster.KMeans` with ``n_init`` restarts, the
      labels renumbered to be contiguous from 0.

    References
    ----------
    S. D. Kamvar, D. Klein, C. D. Manning. Spectral learning. IJCAI 2003.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from smiclust.baselines import SpectralLearning
    >>> X, y = make_moons(n_samples=200, noise=0.05, random_state=0)
    >>> model = SpectralLearning(n_clusters=2, n_neighbors=10, random_state=0)
    >>> model.fit(X, must_link=[[0, 1]]).labels_.shape
    (200,)
    """

    _parameter_constraints = {
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_neighbors": [Interval(numbers.Integral, 1, None, closed="left")],
        "neighbor_algorithm": [Options({"auto", "exact", "approximate"})],
        "eigen_solver": [Options({"auto", "arpack", "lobpcg", "dense"})],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "max_iter": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "n_init": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": check_random_state_param(),
        "n_jobs": n_jobs_param(),
    }

    def __init__(
        self,
        n_clusters=2,
        *,
        n_neighbors=7,
        neighbor_algorithm="auto",
        eigen_solver="auto",
        tol=0.0,
        max_iter=None,
        n_init=10,
        random_state=None,
        n_jobs=None,
    ):
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.neighbor_algorithm = neighbor_algorithm
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y=None, *, must_link=None, cannot_link=None):
        """Cluster ``X`` with links applied to the affinity.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples (dense, finite).
        y : Ignored
            Not used, present for API consistency.
        must_link : array-like of shape (n_must, 2), default=None
            Pairs of sample indices that should share a cluster.
        cannot_link : array-like of shape (n_cannot, 2), default=None
            Pairs of sample indices that should be in different clusters.

        Returns
        -------
        self : SpectralLearning
        """
        inputs = self._validate_fit(X, must_link, cannot_link)
        t = check_n_neighbors(
            self.n_neighbors, inputs.n_samples, owner=type(self).__name__
        )
        self._accept_inputs(inputs)
        c = inputs.n_clusters

        solver_seed, kmeans_seed, neighbor_seed = self._draw_seeds(3)
        graph = self._neighbor_graph(inputs, t, neighbor_seed)
        K = local_scaling_kernel_from_neighbors(graph, t)
        A = modified_kernel(K, inputs.must_link, inputs.cannot_link)
        result = spectral_learning_embedding(
            A,
            c,
            eigen_solver=self.eigen_solver,
            random_state=solver_seed,
            tol=self.tol,
            max_iter=self.max_iter,
        )
        embedding = normalize_rows(result.eigenvectors)
        km = KMeans(n_clusters=c, n_init=self.n_init, random_state=kmeans_seed)
        labels = km.fit_predict(embedding)

        self.labels_ = _contiguous(labels)
        self.embedding_ = embedding
        self.eigenvalues_ = result.eigenvalues
        self.affinity_matrix_ = A
        self.n_graph_components_ = result.n_components
        self.neighbor_algorithm_ = graph.algorithm
        self.n_iter_ = max(result.n_operator_applications, 1)
        warn_graph_components(result.n_components, inputs, t)
        return self


def spectral_learning(X, n_clusters=2, *, must_link=None, cannot_link=None, **params):
    """Cluster ``X`` with :class:`SpectralLearning` and return the labels.

    Returns
    -------
    labels : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from smiclust.baselines import spectral_learning
    >>> X, _ = make_blobs(n_samples=60, centers=3, random_state=0)
    >>> spectral_learning(X, 3, random_state=0).shape
    (60,)
    """
    model = SpectralLearning(n_clusters, **params)
    return model.fit(X, must_link=must_link, cannot_link=cannot_link).labels_
