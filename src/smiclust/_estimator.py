"""SMIClustering estimator and its function twin: validation and glue only."""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ._solver import cluster_scores, solve_smic
from .constraints import check_constraints, link_matrix
from .kernels import (
    local_scales,
    local_scaling_cross_kernel,
    local_scaling_kernel_from_neighbors,
    nearest_neighbors,
)
from .lsmi import LSMIDesign
from .model_selection import (
    DEFAULT_ETAS,
    DEFAULT_GAMMAS,
    DEFAULT_N_NEIGHBORS,
    candidate_grid,
    search_parameters,
)
from .utils._checks import check_numeric, validate_training_samples
from .utils._validation import (
    GRID_TYPES,
    IntegerGrid,
    Interval,
    Options,
    RealGrid,
    check_random_state_param,
    validate_params,
)

__all__ = ["SMIClustering", "smi_clustering"]

_SEED_MAX = np.iinfo(np.int32).max


class SMIClustering(ClusterMixin, BaseEstimator):
    r"""SMI-based clustering (SMIC) and its semi-supervised extension (3SMIC).

    Without links this is SMIC (Sugiyama et al., 2011); with must-links and/or
    cannot-links it is 3SMIC (Calandriello, Niu & Sugiyama, 2014). The class
    posteriors are modelled as :math:`p(y|x) = \sum_i \alpha_{y,i} K(x, x_i)` and
    the criterion

    .. math::

        \widetilde{\mathrm{SMI}} = \frac{c}{2n}\sum_{y=1}^{c}
        \alpha_y^\top U \alpha_y - \frac12,\qquad
        U = K'\left(2I + 2\gamma M + \gamma^2 M^2 - 2\eta C + \eta^2 C^2\right)K'

    is maximised under orthonormality by the ``c`` leading eigenvectors
    :math:`\phi_y` of :math:`U`. :math:`K` is the sparse local-scaling kNN kernel
    with parameter ``t`` (:func:`~smiclust.local_scaling_kernel`), :math:`K'` is
    :math:`K` with must-linked entries set to 1 and cannot-linked entries to 0,
    :math:`M` the must-link matrix with unit diagonal and :math:`C` the
    cannot-link matrix. Post-processing as in the paper: signs
    :math:`\tilde\phi_y = \phi_y\,\mathrm{sign}(\phi_y^\top 1)`, negative values
    clipped to 0, each column normalised to sum 1, and the label of sample ``i``
    is :math:`\arg\max_y [\max(0,\tilde\phi_y)]_i/\sum_j[\max(0,\tilde\phi_y)]_j`.

    ``U`` is never formed: it is applied to vectors as a sparse, matrix-free
    operator and its leading eigenvectors are found by ARPACK.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters ``c``.
    n_neighbors : "auto", int or list of int, default="auto"
        Kernel parameter ``t``. ``"auto"`` searches ``1 .. 10`` (the paper's
        grid, capped at ``n_samples - 1``); a list searches that grid.
    gamma : "auto", float or list of float, default="auto"
        Must-link weight :math:`\gamma \ge 0`. ``"auto"`` searches
        ``DEFAULT_GAMMAS`` = (0, 0.1, 1, 10).
    eta : "auto", float or list of float, default="auto"
        Cannot-link weight :math:`\eta \ge 0`, used only when
        ``n_clusters == 2`` (fixed at 0 otherwise, as in the paper). ``"auto"``
        searches ``DEFAULT_ETAS`` = (0, 0.1, 1, 10).
    violation_penalty : float, default=1.0
        Weight :math:`w \ge 0` of the violated links in the criterion that
        chooses the "auto" parameters,
        :math:`\mathrm{LSMI}/\max\mathrm{LSMI} - w\,n_v/\max n_v`. 1 is the
        paper's criterion; larger values trust the links more (on UCI Parkinson
        with 10 % of the pairs linked, ``w = 2`` chose candidates with ARI 0.98-1
        where ``w = 1`` chose 0.74-0.89), 0 chooses by LSMI alone. No effect
        without links or when nothing is searched.
    neighbor_algorithm : {"auto", "exact", "approximate"}, default="auto"
        Neighbour search; ``"auto"`` is exact below 50,000 samples and
        approximate (pynndescent, extra ``ann``) above, when installed.
    eigen_solver : {"auto", "arpack", "lobpcg", "dense"}, default="auto"
        Eigen-solver for :math:`U`; ``"auto"`` is ARPACK (dense only for tiny
        inputs, ``n_samples <= max(20, 3 n_clusters)``). ``"dense"`` forms
        :math:`U` and exists as a reference.
    tol : float, default=0.0
        Eigen-solver tolerance (0: machine precision).
    max_iter : int, default=None
        Eigen-solver iteration bound (``None``: the solver's default). When it
        is reached a ``ConvergenceWarning`` is issued and a fallback is used.
    lsmi_n_centers : int, default=500
        Number of Gaussian centres of LSMI during the search.
    lsmi_n_folds : int, default=5
        Cross-validation folds of LSMI during the search.
    random_state : int, RandomState instance or None, default=None
        Every random choice (eigen-solver start vector, LSMI centres and folds,
        approximate neighbour search) flows from it.
    n_jobs : int, default=None
        Parallel jobs for the neighbour search and the parameter search, through
        joblib (``None`` means 1; a ``joblib.parallel_config`` context, e.g.
        ``backend="dask"``, is honoured).
    verbose : int, default=0
        Progress of the parameter search on stderr when positive.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each sample, ``0 .. n_clusters - 1``. Clusters that win
        samples are numbered first (in eigenvalue order), so labels are
        contiguous from 0.
    eigenvalues_ : ndarray of shape (n_clusters,)
        Eigenvalue of :math:`U` behind each cluster.
    eigenvectors_ : ndarray of shape (n_samples, n_clusters)
        Sign-fixed leading eigenvectors :math:`\tilde\phi_y`.
    dual_coef_ : ndarray of shape (n_samples, n_clusters)
        :math:`\beta_y = B K'\tilde\phi_y/\lambda_y` with
        :math:`B = (I+\gamma M)^2 + (I-\eta C)^2`, used by :meth:`predict`.
    n_neighbors_, gamma_, eta_ : int, float, float
        Parameters used for the final solution (chosen or given).
    lsmi_ : float
        LSMI of the chosen labelling (NaN when no search was run).
    n_violations_ : int
        Links violated by ``labels_``.
    tuning_results_ : dict of str to ndarray
        Every candidate tried, ready for ``pandas.DataFrame``: parameters,
        LSMI (with the width and regularisation its CV chose), violations,
        criterion, rank and solve time.
    best_index_ : int
        Row of ``tuning_results_`` that was chosen.
    affinity_matrix_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The modified kernel :math:`K'` of the final solution.
    local_scales_ : ndarray of shape (n_samples,)
        Local scales :math:`\sigma_i` for ``n_neighbors_``.
    n_iter_ : int
        Number of vectors the final eigen-solve multiplied by :math:`U` (its
        cost in operator applications; ``max_iter`` bounds it).
    n_graph_components_ : int
        Connected components of the kNN graph joined by the links.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string feature names.

    See Also
    --------
    smiclust.SpectralLearning, smiclust.ConstrainedSpectralClustering

    Notes
    -----
    Out-of-sample prediction (paper, Eq. SMIC:OutOfSample) is
    :math:`y' = \arg\max_y \max(0, \sum_i K(x',x_i)[\beta_y]_i) /
    \sum_i \max(0,[\tilde\phi_y]_i)`. Without links :math:`\beta_y =
    \tilde\phi_y/\lambda_y(K)`, the paper's formula; with links
    :math:`K'\beta_y = \tilde\phi_y`, so the rule reproduces the fitted
    responses on the training samples — the 3SMIC analogue. The kernel row
    :math:`K(x', \cdot)` treats :math:`x'` as if added to the training set
    (see :func:`~smiclust.kernels.local_scaling_cross_kernel`).

    References
    ----------
    D. Calandriello, G. Niu, M. Sugiyama. Semi-supervised information-maximization
    clustering. Neural Networks 57 (2014).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from smiclust import SMIClustering
    >>> X, y = make_moons(n_samples=200, noise=0.05, random_state=0)
    >>> model = SMIClustering(n_clusters=2, random_state=0)
    >>> labels = model.fit(X, must_link=[[0, 1]]).labels_
    >>> labels.shape
    (200,)
    """

    _parameter_constraints = {
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_neighbors": [
            Options({"auto"}),
            Interval(numbers.Integral, 1, None, closed="left"),
            IntegerGrid(1),
        ],
        "gamma": [
            Options({"auto"}),
            Interval(numbers.Real, 0, None, closed="left"),
            RealGrid(0.0),
        ],
        "eta": [
            Options({"auto"}),
            Interval(numbers.Real, 0, None, closed="left"),
            RealGrid(0.0),
        ],
        "violation_penalty": [Interval(numbers.Real, 0, None, closed="left")],
        "neighbor_algorithm": [Options({"auto", "exact", "approximate"})],
        "eigen_solver": [Options({"auto", "arpack", "lobpcg", "dense"})],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "max_iter": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "lsmi_n_centers": [Interval(numbers.Integral, 1, None, closed="left")],
        "lsmi_n_folds": [Interval(numbers.Integral, 2, None, closed="left")],
        "random_state": check_random_state_param(),
        "n_jobs": [None, Interval(numbers.Integral, None, None)],
        "verbose": [Interval(numbers.Integral, 0, None, closed="left"), bool],
    }

    def __init__(
        self,
        n_clusters=2,
        *,
        n_neighbors="auto",
        gamma="auto",
        eta="auto",
        violation_penalty=1.0,
        neighbor_algorithm="auto",
        eigen_solver="auto",
        tol=0.0,
        max_iter=None,
        lsmi_n_centers=500,
        lsmi_n_folds=5,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.gamma = gamma
        self.eta = eta
        self.violation_penalty = violation_penalty
        self.neighbor_algorithm = neighbor_algorithm
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.lsmi_n_centers = lsmi_n_centers
        self.lsmi_n_folds = lsmi_n_folds
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def fit(self, X, y=None, *, must_link=None, cannot_link=None):
        """Cluster ``X``, with links if given, choosing parameters set to "auto".

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples (dense, finite).
        y : Ignored
            Not used; partial labels become links through
            :func:`smiclust.constraints.pairs_from_labels`.
        must_link : array-like of shape (n_must, 2), default=None
            Pairs of sample indices that should share a cluster.
        cannot_link : array-like of shape (n_cannot, 2), default=None
            Pairs of sample indices that should be in different clusters.

        Returns
        -------
        self : SMIClustering
        """
        owner = type(self).__name__
        validate_params(self.get_params(deep=False), self._parameter_constraints, owner)
        X, c, self._x_exponent = validate_training_samples(self, X, self.n_clusters)
        n = X.shape[0]
        must, cannot = check_constraints(must_link, cannot_link, n, owner=owner)
        t_grid = self._n_neighbors_grid(n)
        gamma_grid = _grid(self.gamma, DEFAULT_GAMMAS)
        eta_grid = _grid(self.eta, DEFAULT_ETAS)
        if c > 2 and self.eta != "auto" and any(e != 0 for e in eta_grid):
            warnings.warn(
                f"eta={self.eta!r} is ignored: the cannot-link weight is fixed at 0 "
                "when n_clusters > 2, as in the 3SMIC paper.",
                UserWarning,
                stacklevel=2,
            )
        elif not len(cannot) and self.eta != "auto" and any(e != 0 for e in eta_grid):
            warnings.warn(
                f"eta={self.eta!r} is ignored: there are no cannot-links.",
                UserWarning,
                stacklevel=2,
            )
        no_links = not len(must) and not len(cannot)
        if no_links and self.gamma != "auto" and any(g != 0 for g in gamma_grid):
            warnings.warn(
                f"gamma={self.gamma!r} is ignored: there are no links (SMIC is "
                "solved).",
                UserWarning,
                stacklevel=2,
            )

        rng = check_random_state(self.random_state)
        solver_seed = rng.randint(_SEED_MAX)
        lsmi_seed = rng.randint(_SEED_MAX)
        neighbor_seed = rng.randint(_SEED_MAX)

        # Extreme scales (|X| beyond 2**+-100) are searched at unit scale: the
        # kernel is scale-invariant, and squared distances would overflow.
        graph = nearest_neighbors(
            np.ldexp(X, -self._x_exponent) if self._x_exponent else X,
            max(t_grid),
            algorithm=self.neighbor_algorithm,
            n_jobs=self.n_jobs,
            random_state=neighbor_seed,
        )
        candidates = candidate_grid(
            t_grid,
            gamma_grid,
            eta_grid,
            n_must=len(must),
            n_cannot=len(cannot),
            n_clusters=c,
        )
        if len(candidates) > 1:
            design = LSMIDesign(
                X,
                n_centers=self.lsmi_n_centers,
                n_folds=min(self.lsmi_n_folds, n),
                random_state=lsmi_seed,
            )
            search = search_parameters(
                graph,
                must,
                cannot,
                c,
                candidates,
                design,
                solver_seed=solver_seed,
                eigen_solver=self.eigen_solver,
                tol=self.tol,
                max_iter=self.max_iter,
                n_jobs=self.n_jobs,
                verbose=self.verbose,
                violation_penalty=self.violation_penalty,
            )
            t, gamma, eta = search.best_params
            self.tuning_results_ = search.results
            self.best_index_ = search.best_index
            self.lsmi_ = float(search.results["lsmi"][search.best_index])
        else:
            t, gamma, eta = candidates[0]
            self.tuning_results_ = None
            self.best_index_ = 0
            self.lsmi_ = float("nan")

        K = local_scaling_kernel_from_neighbors(graph, t)
        solution = solve_smic(
            K,
            must,
            cannot,
            c,
            gamma,
            eta,
            eigen_solver=self.eigen_solver,
            random_state=solver_seed,
            tol=self.tol,
            max_iter=self.max_iter,
        )
        from ._solver import modified_kernel

        self.affinity_matrix_ = modified_kernel(K, must, cannot)
        self._warn_if_disconnected(must, cannot, c)

        self.labels_ = solution.labels
        _warn_if_rank_deficient(solution.eigenvalues, c)
        self.eigenvalues_ = solution.eigenvalues
        self.eigenvectors_ = solution.eigenvectors
        self.dual_coef_ = solution.dual_coef
        self._normalizer = solution.normalizer
        self.n_iter_ = solution.n_operator_applications
        self.n_neighbors_ = t
        self.gamma_ = gamma
        self.eta_ = eta
        self.n_violations_ = int(
            np.count_nonzero(self.labels_[must[:, 0]] != self.labels_[must[:, 1]])
            + np.count_nonzero(self.labels_[cannot[:, 0]] == self.labels_[cannot[:, 1]])
        )
        if self.tuning_results_ is None:
            self.tuning_results_ = _single_row(
                t, gamma, eta, self.n_violations_, np.unique(self.labels_).size
            )
        self.local_scales_ = np.ldexp(local_scales(graph, t), self._x_exponent)
        self._fit_X = X
        return self

    def _n_neighbors_grid(self, n):
        owner = type(self).__name__
        if isinstance(self.n_neighbors, str):
            return [t for t in DEFAULT_N_NEIGHBORS if t < n]
        grid = _grid(self.n_neighbors, None)
        too_large = [t for t in grid if t >= n]
        if too_large:
            raise ValueError(
                f"The 'n_neighbors' parameter of {owner} must be smaller than "
                f"n_samples={n}. Got {self.n_neighbors!r} instead."
            )
        return [int(t) for t in grid]

    def _warn_if_disconnected(self, must, cannot, c):
        n = self.affinity_matrix_.shape[0]
        pattern = self.affinity_matrix_ + link_matrix(must, n) + link_matrix(cannot, n)
        n_components, _ = connected_components(sp.csr_matrix(pattern), directed=False)
        self.n_graph_components_ = int(n_components)
        if c > 1 and n_components > c:
            warnings.warn(
                f"The kNN graph (with links) has {n_components} connected components, "
                f"more than n_clusters={c}; clusters may follow the components. "
                "A larger n_neighbors joins them.",
                UserWarning,
                stacklevel=3,
            )

    def _responses(self, X):
        check_is_fitted(self)
        check_numeric(X, owner=type(self).__name__)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        X_fit, sigma = self._fit_X, self.local_scales_
        e = getattr(self, "_x_exponent", 0)  # absent from older pickles
        if e:  # the unit scale of fit (see there)
            X, X_fit, sigma = (np.ldexp(a, -e) for a in (X, X_fit, sigma))
        Kx = local_scaling_cross_kernel(X, X_fit, sigma, self.n_neighbors_)
        return np.asarray(Kx @ self.dual_coef_)

    def predict(self, X):
        """Cluster of new samples by the paper's out-of-sample rule.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        labels : ndarray of shape (n_queries,)
        """
        R = self._responses(X)
        safe = np.where(self._normalizer > 0, self._normalizer, 1.0)
        return np.argmax(R / safe, axis=1)

    def predict_proba(self, X):
        r"""Clipped, normalised class-posterior estimates of new samples.

        :math:`\hat p(y|x') \propto \max(0, \sum_i K(x',x_i)[\beta_y]_i) /
        \sum_i\max(0,[\tilde\phi_y]_i)`, rows scaled to sum 1. A sample whose
        responses are all clipped to 0 (far from every cluster) gets the uniform
        distribution.

        Returns
        -------
        proba : ndarray of shape (n_queries, n_clusters)
        """
        scores, _ = cluster_scores(self._responses(X), self._normalizer)
        total = scores.sum(axis=1, keepdims=True)
        uniform = np.full_like(scores, 1.0 / scores.shape[1])
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, scores / np.where(total > 0, total, 1), uniform)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


def _warn_if_rank_deficient(eigenvalues, c):
    top = float(np.max(eigenvalues))
    rank = int(np.count_nonzero(eigenvalues > 1e-10 * max(top, np.finfo(float).tiny)))
    if rank < c:
        warnings.warn(
            f"U has only {rank} clearly non-zero leading eigenvalue(s) for "
            f"n_clusters={c} (e.g. identical or too few distinct samples); the "
            "clusters behind the zero eigenvalues are arbitrary.",
            UserWarning,
            stacklevel=3,
        )


def _grid(value, default):
    if isinstance(value, str):
        return tuple(default)
    if isinstance(value, GRID_TYPES):
        # each distinct value once, in the order given
        return tuple(dict.fromkeys(np.asarray(value).tolist()))
    return (value,)


def _single_row(t, gamma, eta, n_violations, n_found):
    return {
        "param_n_neighbors": np.array([t], dtype=np.int64),
        "param_gamma": np.array([float(gamma)]),
        "param_eta": np.array([float(eta)]),
        "lsmi": np.array([np.nan]),
        "lsmi_kernel_width": np.array([np.nan]),
        "lsmi_regularization": np.array([np.nan]),
        "n_violations": np.array([n_violations]),
        "n_clusters_found": np.array([n_found]),
        "criterion": np.array([np.nan]),
        "rank": np.array([1]),
        "solve_seconds": np.array([np.nan]),
    }


def smi_clustering(X, n_clusters=2, *, must_link=None, cannot_link=None, **params):
    """Cluster ``X`` with SMIC / 3SMIC and return the labels.

    Builds :class:`SMIClustering` ``(n_clusters, **params)`` and fits it.

    Returns
    -------
    labels : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from smiclust import smi_clustering
    >>> X, _ = make_blobs(n_samples=60, centers=3, random_state=0)
    >>> smi_clustering(X, 3, n_neighbors=5, random_state=0).shape
    (60,)
    """
    model = SMIClustering(n_clusters, **params)
    return model.fit(X, must_link=must_link, cannot_link=cannot_link).labels_
