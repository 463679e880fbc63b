r"""Constrained spectral clustering (Wang & Davidson, KDD 2010; K-way: Wang, Qian &
Davidson, DMKD 2014): the estimator and its function twin.

With the affinity :math:`A` (sparse local-scaling kernel), :math:`D` its degree
matrix, :math:`\mathrm{vol} = \sum_i D_{ii}`, the normalised Laplacian
:math:`\bar L = I - D^{-1/2} A D^{-1/2}` and the normalised constraint matrix
:math:`\bar Q = D^{-1/2} Q D^{-1/2}`, CSC solves

.. math::

    \bar L v = \lambda \left(\bar Q - \frac{\beta}{\mathrm{vol}} I\right) v,

keeps the feasible eigenvectors (:math:`\lambda > 0`), normalises them to
:math:`v^\top v = \mathrm{vol}` and ranks them by the cost :math:`v^\top \bar L v`.

Neither matrix of the pencil is definite (:math:`\bar L` is singular, the right
side indefinite), so the papers solve the *complete* generalised eigenproblem.
Here the pencil is turned exactly into a symmetric-definite one whose largest
eigenvalues :math:`\theta = 1/\lambda` are the feasible eigenvectors with the
smallest :math:`\lambda`, and only those are computed, with sparse
factorisations only. The numerics live beside this module:

* ``_csc_pencil``: :math:`Q`, :math:`\beta` and the reduced pencil;
* ``_csc_slicing``: spectrum slicing (inertia counts, shift-inverse);
* ``_csc_eigen``: the largest :math:`\theta`, zero-cost cuts, feasible
  eigenvectors ranked by cost;
* ``_csc_solve``: :func:`~._csc_solve.solve_csc`, from affinity and links to
  labels.
"""

import numbers

import numpy as np

from ..base import BaseLinkClustering, graph_components, warn_graph_components
from ..kernels import local_scaling_kernel_from_neighbors
from ..utils import (
    Interval,
    Options,
    check_n_neighbors,
    check_random_state_param,
    n_jobs_param,
)
from ._csc_pencil import constraint_matrix
from ._csc_solve import solve_csc

__all__ = ["ConstrainedSpectralClustering", "constrained_spectral_clustering"]


class ConstrainedSpectralClustering(BaseLinkClustering):
    r"""Constrained spectral clustering (Wang & Davidson, 2010; K-way 2014).

    The constraints enter through a matrix :math:`Q` (:math:`Q_{ij} = Q_{ji} =
    +1` for a must-link, :math:`-1` for a cannot-link, 0 otherwise, zero
    diagonal) and the problem

    .. math::

        \min_v\ v^\top \bar L v \quad\text{s.t.}\quad
        v^\top \bar Q v \ge \alpha,\ v^\top v = \mathrm{vol},\
        v \ne D^{1/2}1,

    whose KKT points solve the generalised eigenproblem

    .. math::

        \bar L v = \lambda\left(\bar Q - \frac{\beta}{\mathrm{vol}} I\right)v,
        \qquad \bar L = I - D^{-1/2}AD^{-1/2},\quad
        \bar Q = D^{-1/2}QD^{-1/2},\quad \mathrm{vol} = \sum_i D_{ii}.

    :math:`A` is the sparse local-scaling kNN kernel (unmodified by the links).
    Feasible eigenvectors (:math:`\lambda > 0`, non-trivial) are normalised to
    :math:`v^\top v = \mathrm{vol}` and ranked by the cost :math:`v^\top\bar L v`,
    lowest first. Two clusters: the sign of :math:`u = D^{-1/2}v^*` of the best
    one (Shi-Malik thresholding, as the 3SMIC paper does); ``K`` clusters:
    k-means on :math:`D^{-1/2}V^*`, :math:`V^*` the ``K - 1`` best (DMKD paper).

    The complete eigenproblem is never solved in the default path: the pencil is
    rewritten exactly as a symmetric-definite one (:func:`reduced_pencil`) and
    ARPACK computes its ``n_candidates`` largest eigenvalues
    :math:`\theta = 1/\lambda`, i.e. the feasible eigenvectors of smallest
    :math:`\lambda`, among which the lowest-cost ones are chosen. No dense
    ``n x n`` matrix is formed (except with ``eigen_solver="dense"``).

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters ``K``.
    n_neighbors : int, default=7
        Kernel parameter ``t``.
    beta : "auto" or float, default="auto"
        :math:`\beta`; must be below :math:`\lambda_{\max}(\bar Q)\,\mathrm{vol}`.
        ``"auto"`` is :math:`\tfrac12\,\mathrm{vol}\,\min\{\lambda_j(\bar Q) > 0 :
        j \le K-1\}` (:func:`auto_beta`): half the feasibility bound, which for
        ``K = 2`` is the authors' ``csp.m`` rule. For ``K > 2`` the authors'
        ``csp_K.m`` puts :math:`\beta/\mathrm{vol}` just below the mean of
        the ``K``-th and ``(K+1)``-th singular values of :math:`Q` instead,
        stricter still. With few links either bound leaves feasible only
        vectors concentrated on the linked samples, and k-means then splits
        them off (3 blobs, one must-link and one cannot-link: cluster sizes
        197 / 2 / 1, ARI 0; the authors' rule: ARI 0 up to 300 links, this
        one 0.73 at 100 and 0.90 at 300, in a review against a dense
        reference). Ignored without links.
    n_candidates : "auto" or int, default="auto"
        Number of eigenpairs of the reduced pencil computed (largest
        :math:`\theta`); the lowest-cost feasible eigenvectors are chosen among
        them. ``"auto"`` is ``max(20, 4 (K - 1))``. Every feasible eigenvector is
        considered when there are fewer than ``n_candidates`` of them, or with
        ``eigen_solver="dense"``.
    assign_labels : {"auto", "threshold", "kmeans"}, default="auto"
        ``"threshold"``: sign of the best :math:`u` (``K = 2`` only);
        ``"kmeans"``: k-means on the ``K - 1`` best; ``"auto"``: threshold for
        ``K = 2``, k-means otherwise (the 3SMIC paper's protocol).
    neighbor_algorithm : {"auto", "exact", "approximate"}, default="auto"
        Neighbour search (see :func:`smiclust.kernels.nearest_neighbors`).
    eigen_solver : {"auto", "arpack", "lobpcg", "dense"}, default="auto"
        ``"auto"`` is ``"arpack"``, dense only for tiny inputs
        (``n <= max(20, 3 n_candidates)``). ``"arpack"`` runs bounded stages,
        each falling back to the next with a
        :class:`~sklearn.exceptions.ConvergenceWarning`: (1) regular-inverse
        mode with a sparse LU of the grounded Laplacian (skipped for
        ``n <= 2000``); (2) shift-invert at a shift above every :math:`\theta`
        found by spectrum slicing (sparse :math:`LDL^\top` inertia counts),
        robust to weak graph bottlenecks; (3) LOBPCG. ``"lobpcg"`` runs LOBPCG
        on the reduced pencil directly. ``"dense"`` solves the complete problem
        (every feasible eigenvector), as the papers do: a reference.
    tol : float, default=0.0
        Eigen-solver tolerance (0: machine precision).
    max_iter : int, default=None
        Bound of every eigen-solver stage (ARPACK restarts, LOBPCG iterations);
        ``None``: 100 restarts in stage 1, 1000 in stage 2, 500 LOBPCG
        iterations.
    n_init : int, default=10
        k-means initialisations.
    random_state : int, RandomState instance or None, default=None
        Seeds the eigen-solver start vector, k-means and the approximate
        neighbour search.
    n_jobs : int, default=None
        Parallel jobs of the neighbour search (``None`` means 1).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each sample, contiguous from 0.
    embedding_ : ndarray of shape (n_samples, max(1, K - 1))
        :math:`u = D^{-1/2}v` of the selected eigenvectors, lowest cost first
        (fewer columns if fewer feasible eigenvectors exist). With
        ``n_clusters=1`` nothing is solved: every sample is in cluster 0,
        ``embedding_`` has shape ``(n_samples, 0)``, ``beta_`` is NaN and
        ``n_iter_`` is 1 (scikit-learn's convention for an estimator with
        ``n_iter_``).
    eigenvalues_ : ndarray of shape (n_vectors,)
        :math:`\lambda` of the selected eigenvectors.
    costs_ : ndarray of shape (n_vectors,)
        Their costs :math:`v^\top \bar L v` (:math:`v^\top v = \mathrm{vol}`).
    beta_ : float
        :math:`\beta` used (``-vol`` when the unconstrained problem is solved).
    n_feasible_ : int
        Feasible eigenvectors (:math:`\lambda > 0`) among the computed
        candidates. When it is below ``n_candidates``, every feasible
        eigenvector of the problem was found and the cost ranking is the
        complete one of the papers.
    n_iter_ : int
        Number of vectors the eigen-solver multiplied by the reduced
        constraint operator :math:`S` (its cost in operator applications;
        ``max_iter`` bounds the iterations).
    constrained_ : bool
        False when normalised spectral clustering was used (no links, or no
        feasible eigenvector).
    affinity_matrix_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The kernel :math:`A`.
    n_graph_components_ : int
        Connected components of the graph of :math:`A` joined by the links.
        When there are more than ``n_clusters``, a ``UserWarning`` says what
        joins them.
    neighbor_algorithm_ : {"exact", "approximate"}
        The neighbour search that ran (``"auto"`` resolved).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string feature names.

    See Also
    --------
    SpectralLearning : The other baseline of the 3SMIC paper.
    smiclust.SMIClustering : SMIC / 3SMIC.

    Notes
    -----
    Choices the papers leave open, and ours:

    * **Diagonal of Q**: 0. A link is a pair of distinct samples; a unit
      diagonal on linked samples (as the authors' demo builds :math:`Q` from
      labels) would add :math:`\sum_{i\ \mathrm{linked}} v_i^2` to the
      satisfaction :math:`v^\top\bar Q v` whatever the links say.
    * **Affinity**: the kernel keeps its unit diagonal (self-similarity), so
      every degree is at least 1 and :math:`D^{-1/2}` always exists.
    * **beta**: see the parameter; a given value at or above the bound raises
      ``ValueError`` (the KDD algorithm returns no solution).
    * **No links**: :math:`Q = 0`, feasibility needs :math:`\beta < 0` and every
      such :math:`\beta` gives :math:`\bar L v = \lambda|\beta|/\mathrm{vol}\, v`:
      normalised spectral clustering (Shi-Malik). That is what is computed
      (``beta_ = -vol``, ``constrained_ = False``), without a warning; ``beta``
      is ignored.
    * **Trivial eigenvectors**: :math:`\lambda < 0` is infeasible; a feasible
      vector with zero cost or whose :math:`u` does not change sign is dropped
      (the authors' ``csp.m`` / ``csp_K.m``). If none is left, a ``UserWarning``
      is issued and the unconstrained solution is returned; if fewer than
      ``K - 1`` are left, all are used with a ``UserWarning``.
    * **Disconnected graphs** (the papers' dense RBF graph is always
      connected; the kNN kernel need not be): the null space of :math:`\bar L`
      then holds cuts of cost 0 besides the excluded :math:`D^{1/2}1`. They are
      eigenvectors for :math:`\lambda = 0`, and those with
      :math:`v^\top\bar B v > 0` pass the feasibility test of ``csp_K.m``; the
      canonical, :math:`\bar B`-orthogonal ones (:func:`null_space_cuts`) come
      first, by decreasing :math:`v^\top\bar B v`. Without links, where every
      such cut ties, the components are contrasted by decreasing volume. On a
      connected graph nothing changes.
    * **Negligible edges**: kernel values below :math:`10^{-10}\sqrt{d_i d_j}`
      (underflow between samples of very different local scales) are dropped
      before solving, so that the components are exact
      (:func:`~smiclust.baselines._spectral_learning.drop_negligible_edges`);
      ``affinity_matrix_`` keeps them.
    * **Scaling of u**: :math:`u = D^{-1/2}v` unweighted (DMKD paper); the
      authors' ``csp_K.m`` additionally weights column ``i`` by
      :math:`1 - v_i^\top\bar L v_i/\mathrm{vol}`, not done here.
    * **Candidates**: the papers rank *every* feasible eigenvector by cost. Here
      the ranking runs over the ``n_candidates`` feasible eigenvectors of
      smallest :math:`\lambda` (cost :math:`= \lambda\, v^\top\bar B v`, so small
      :math:`\lambda` means small cost unless the constraint term is tiny); it
      is the complete ranking whenever fewer than ``n_candidates`` feasible
      eigenvectors exist, and ``eigen_solver="dense"`` always gives it. On the
      small problems we compared with the complete solve (moons, blobs,
      parkinson, sonar, digits500; 10 to 5000 links) the ``K - 1`` cheapest
      were always among the ``2 (K - 1)`` smallest :math:`\lambda`;
      ``"auto"`` computes ``max(20, 4 (K - 1))``.
    * **Thresholding**: samples with :math:`u_i > 0` form one cluster, the
      rest (including :math:`u_i = 0`) the other; the sign of :math:`u` is fixed
      by its largest-magnitude entry, made positive. The DMKD paper uses
      k-means for every ``K``; the 3SMIC paper thresholds for ``K = 2``, which
      is the default here (``assign_labels="kmeans"`` restores k-means).

    References
    ----------
    X. Wang, I. Davidson. Flexible constrained spectral clustering. KDD 2010.

    X. Wang, B. Qian, I. Davidson. On constrained spectral clustering and its
    applications. Data Mining and Knowledge Discovery 28 (2014).

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from smiclust.baselines import ConstrainedSpectralClustering
    >>> X, y = make_moons(n_samples=200, noise=0.05, random_state=0)
    >>> model = ConstrainedSpectralClustering(n_clusters=2, random_state=0)
    >>> model.fit(X, must_link=[[0, 1]], cannot_link=[[0, 2]]).labels_.shape
    (200,)
    """

    _parameter_constraints = {
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_neighbors": [Interval(numbers.Integral, 1, None, closed="left")],
        "beta": [Options({"auto"}), Interval(numbers.Real, None, None)],
        "n_candidates": [
            Options({"auto"}),
            Interval(numbers.Integral, 1, None, closed="left"),
        ],
        "assign_labels": [Options({"auto", "threshold", "kmeans"})],
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
        beta="auto",
        n_candidates="auto",
        assign_labels="auto",
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
        self.beta = beta
        self.n_candidates = n_candidates
        self.assign_labels = assign_labels
        self.neighbor_algorithm = neighbor_algorithm
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y=None, *, must_link=None, cannot_link=None):
        """Cluster ``X`` under soft must-link and cannot-link constraints.

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
        self : ConstrainedSpectralClustering
        """
        inputs = self._validate_fit(X, must_link, cannot_link)
        owner = type(self).__name__
        n, c = inputs.n_samples, inputs.n_clusters
        t = check_n_neighbors(self.n_neighbors, n, owner=owner)
        if self.assign_labels == "threshold" and c != 2:
            raise ValueError(
                f"The 'assign_labels' parameter of {owner} can be 'threshold' only "
                f"when n_clusters == 2. Got n_clusters={c!r}."
            )
        self._accept_inputs(inputs)

        solver_seed, neighbor_seed = self._draw_seeds(2)
        graph = self._neighbor_graph(inputs, t, neighbor_seed)
        A = local_scaling_kernel_from_neighbors(graph, t)
        self.affinity_matrix_ = A
        self.n_graph_components_ = graph_components(A, inputs)
        self.neighbor_algorithm_ = graph.algorithm
        warn_graph_components(self.n_graph_components_, inputs, t)
        if c == 1:
            self.labels_ = np.zeros(n, dtype=np.intp)
            self.embedding_ = np.zeros((n, 0))
            self.eigenvalues_ = np.zeros(0)
            self.costs_ = np.zeros(0)
            self.beta_ = float("nan")
            self.n_feasible_ = 0
            self.constrained_ = False
            self.n_iter_ = 1
            return self
        Q = constraint_matrix(inputs.must_link, inputs.cannot_link, n)
        solution = solve_csc(
            A,
            Q,
            c,
            beta=self.beta,
            n_candidates=None if self.n_candidates == "auto" else self.n_candidates,
            assign_labels=self.assign_labels,
            eigen_solver=self.eigen_solver,
            n_init=self.n_init,
            random_state=solver_seed,
            tol=self.tol,
            max_iter=self.max_iter,
        )
        self.labels_ = solution.labels
        self.embedding_ = solution.embedding
        self.eigenvalues_ = solution.eigenvalues
        self.costs_ = solution.costs
        self.beta_ = solution.beta
        self.n_feasible_ = solution.n_feasible
        self.constrained_ = solution.constrained
        self.n_iter_ = max(solution.n_operator_applications, 1)
        return self


def constrained_spectral_clustering(
    X, n_clusters=2, *, must_link=None, cannot_link=None, **params
):
    """Cluster ``X`` with :class:`ConstrainedSpectralClustering`; return labels.

    Returns
    -------
    labels : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from smiclust.baselines import constrained_spectral_clustering
    >>> X, _ = make_blobs(n_samples=60, centers=3, random_state=0)
    >>> constrained_spectral_clustering(X, 3, random_state=0).shape
    (60,)
    """
    model = ConstrainedSpectralClustering(n_clusters, **params)
    return model.fit(X, must_link=must_link, cannot_link=cannot_link).labels_
