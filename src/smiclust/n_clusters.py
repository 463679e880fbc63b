r"""Choice of the number of clusters ``c`` from the kernel and the links.

Two measured criteria, both computed from a handful of eigen-solves of the 3SMIC
operator :math:`U = K'BK'` (:mod:`smiclust.link_operator`), one solve serving
every candidate ``c`` at once:

* the **eigengap** of the normalised operator
  :math:`N = D^{-1/2} U D^{-1/2}`, :math:`D = \mathrm{diag}(U\mathbf 1)`:
  ``c`` clusters that :math:`U` separates well give ``c`` eigenvalues of
  :math:`N` close to 1 and a drop after them;
* **held-out links**: the links are split into folds, each fold's links are
  predicted by the ``c``-cluster 3SMIC labelling fitted on the other links,
  and every ``c`` whose error is within one standard error of the smallest
  error is plausible. With ``links="closure"`` (what the default estimator
  passes), where that labelling predicts the links no better than chance,
  the folds are labelled on the closed links instead.

``method="auto"`` (the default) returns the candidate with the largest eigengap
among the plausible ones when there are enough links, and the largest eigengap
otherwise. The choice was measured on the six data sets of the paper and four
of scikit-learn's (docs/n-clusters.md, ``benchmarks/choose_n_clusters.py``);
LSMI of the ``c``-cluster labelling was measured too and rejected: it grows
with ``c`` and no normalisation tried found the classes.

Pure numerics on a validated kernel; the parameters and the links are checked
here because the function is public.
"""

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import LinearOperator
from sklearn.utils import check_random_state

from .constraints import check_constraints, link_matrix, link_violations
from .eigensolvers import leading_eigenvectors
from .kernels import modified_kernel
from .labeling import (
    argmax_labels,
    cluster_order,
    cluster_scores,
    fix_signs,
    uncovered_rows,
)
from .link_groups import (
    group_block_weights,
    group_labels,
    link_groups,
    off_group_kernel,
)
from .link_operator import SMICOperator
from .solver import solve_smic_groups
from .utils import (
    IntegerGrid,
    Interval,
    Options,
    check_random_state_param,
    draw_seeds,
    user_stacklevel,
    validate_params,
)

__all__ = ["DEFAULT_CANDIDATES", "NClustersResult", "choose_n_clusters"]

#: Candidates tried when none are given.
DEFAULT_CANDIDATES = tuple(range(2, 21))

_OWNER = "choose_n_clusters"

_PARAMETER_CONSTRAINTS = {
    "candidates": [IntegerGrid(2)],
    "method": [Options({"auto", "eigengap", "links"})],
    "links": [Options({"paper", "closure"})],
    "gamma": [Interval(numbers.Real, 0.0, 1e100, closed="both")],
    "n_folds": [Interval(numbers.Integral, 2, None, closed="left")],
    "eigen_solver": [Options({"auto", "arpack", "lobpcg", "dense"})],
    "random_state": check_random_state_param(),
}


@dataclass(frozen=True)
class NClustersResult:
    r"""Result of :func:`choose_n_clusters`.

    Attributes
    ----------
    n_clusters : int
        The chosen number of clusters.
    candidates : ndarray of shape (n_candidates,)
        The candidates, ascending.
    scores : dict of str to ndarray of shape (n_candidates,)
        Per candidate, ready for ``pandas.DataFrame``: ``"n_clusters"``;
        ``"eigengap"`` :math:`\mu_c - \mu_{c+1}`; ``"heldout_error"`` the
        fraction of held-out links violated (NaN without the link criterion);
        ``"plausible"`` whether that error is within one standard error of the
        smallest (all True without the link criterion).
    eigenvalues : ndarray of shape (max(candidates) + 1,)
        Leading eigenvalues :math:`\mu_1 \ge \mu_2 \ge \dots` of the normalised
        operator :math:`N`, all links used.
    labels : ndarray of shape (n_samples, n_candidates)
        The 3SMIC labelling of each candidate (all links, the given ``gamma``,
        :math:`\eta = 0`), from one eigen-solve.
    method : str
        The criterion that decided: ``"eigengap"``, ``"links"`` or
        ``"links+eigengap"`` (``method="auto"`` falls back to ``"eigengap"``
        when there are fewer links than ``n_folds``).
    """

    n_clusters: int
    candidates: np.ndarray
    scores: dict
    eigenvalues: np.ndarray
    labels: np.ndarray
    method: str


def choose_n_clusters(
    K,
    must_link=None,
    cannot_link=None,
    candidates=DEFAULT_CANDIDATES,
    *,
    method="auto",
    gamma=1.0,
    n_folds=5,
    links="paper",
    eigen_solver="auto",
    random_state=None,
):
    r"""Choose the number of clusters from the kernel and the links.

    Parameters
    ----------
    K : sparse matrix of shape (n_samples, n_samples)
        The SMIC kernel, symmetric with values in [0, 1] and unit diagonal, e.g.
        :func:`~smiclust.kernels.local_scaling_kernel_from_neighbors` of
        :func:`~smiclust.neighbors.nearest_neighbors` (prior validation is
        assumed). The links are applied here (:math:`K'`).
    must_link, cannot_link : array-like of shape (n_pairs, 2), default=None
        Links (checked by :func:`~smiclust.constraints.check_constraints`).
    candidates : list of int, default=range(2, 21)
        Numbers of clusters to choose from, each ``>= 2`` and
        ``< n_samples``.
    method : {"auto", "eigengap", "links"}, default="auto"
        ``"eigengap"``: largest eigengap of :math:`N`. ``"links"``: smallest
        plausible candidate by held-out links (needs at least ``n_folds``
        links). ``"auto"``: largest eigengap among the plausible candidates
        when there are at least ``n_folds`` links, ``"eigengap"`` otherwise.
    gamma : float, default=1.0
        Must-link weight :math:`\gamma \ge 0` of :math:`U`; :math:`\eta` is 0,
        as 3SMIC does for more than two clusters.
    n_folds : int, default=5
        Folds of the held-out link criterion, ``>= 2``.
    links : {"paper", "closure"}, default="paper"
        How each fold's labelling uses the training links. ``"paper"``: 3SMIC
        on the pairs as given. ``"closure"``: the same, unless its smallest
        held-out error is no lower than that of calling every link the more
        common kind (:math:`\min(s, 1 - s)`, :math:`s` the share of
        must-links); the folds are then labelled on the closed links of
        :class:`~smiclust.SMIClustering`'s default (must-link groups,
        cannot-links lifted between them; :mod:`smiclust.link_groups`), whose
        labels keep each group in one cluster (a fold whose training links
        contradict themselves keeps the paper's labelling). The eigengap reads
        the paper's operator either way.
    eigen_solver : {"auto", "arpack", "lobpcg", "dense"}, default="auto"
        See :func:`~smiclust.eigensolvers.leading_eigenvectors`.
    random_state : int, RandomState instance or None, default=None
        Draws the eigen-solver start vectors and the split of the links into
        folds.

    Returns
    -------
    result : NClustersResult

    Warns
    -----
    UserWarning
        When the graph of :math:`K'` and the must-links has more than
        ``max(candidates)`` connected components (every eigengap is then 0).

    Raises
    ------
    ValueError
        For a parameter out of range (the message names it), a candidate
        ``>= n_samples``, or ``method="links"`` with fewer than ``n_folds``
        links.

    See Also
    --------
    smiclust.solver.solve_smic : The solve whose labels are scored.

    Notes
    -----
    With :math:`U = K'\left((I+\gamma M)^2 + I\right)K'` (:math:`K'` the
    kernel with must-linked entries 1 and cannot-linked entries 0, :math:`M`
    the must-link matrix with unit diagonal), every entry of :math:`U` is
    non-negative and :math:`d = U\mathbf 1 > 0`. The normalised operator

    .. math::

        N = D^{-1/2}\,U\,D^{-1/2},\qquad D = \mathrm{diag}(d),

    is similar to the row-stochastic :math:`D^{-1}U`, so its eigenvalues
    :math:`\mu_1 = 1 \ge \mu_2 \ge \dots` lie in :math:`[-1, 1]`; a graph of
    :math:`c` nearly disconnected groups has :math:`c` eigenvalues near 1. The
    eigengap score of candidate :math:`c` is :math:`g_c = \mu_c - \mu_{c+1}`.
    The raw eigenvalues of :math:`U` scale with the local degree and gave a
    worse choice (measured).

    Held-out links: the :math:`m` links are split at random into ``n_folds``
    folds :math:`F_1, \dots, F_k`. For each fold, :math:`U` is rebuilt from the
    other links and its :math:`c_{\max}` leading eigenvectors are labelled by
    the SMIC post-processing (:mod:`smiclust.labeling`), the first :math:`c`
    columns for candidate :math:`c` (with ``links="closure"``: the operator
    of the closed training links, and the scores of the first :math:`c`
    columns labelled by :func:`~smiclust.link_groups.group_labels`). With
    :math:`v_c` the held-out links the labelling violates (must-links split,
    cannot-links joined),

    .. math::

        e_c = \frac{v_c}{m},\qquad
        c \text{ plausible} \iff e_c \le e_{c^*} +
        \sqrt{e_{c^*}(1 - e_{c^*})/m},\quad c^* = \arg\min_c e_c,

    the one-standard-error rule of cross-validation. Random links are mostly
    cannot-links when there are many classes, so :math:`e_c` keeps falling
    slowly past the true :math:`c`; the rule and the eigengap among the
    plausible candidates counter that.

    Cost: ``n_folds + 2`` eigen-solves of :math:`\max(\text{candidates}) + 1`
    vectors (2 without the link criterion; ``n_folds`` more of the group
    operator where ``links="closure"`` labels the folds on the closed
    links); under a second for ``n_samples <= 1000`` and 20 candidates.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from smiclust.kernels import local_scaling_kernel
    >>> from smiclust.n_clusters import choose_n_clusters
    >>> X, y = make_blobs(n_samples=300, centers=4, random_state=0, cluster_std=0.5)
    >>> K = local_scaling_kernel(X, n_neighbors=7)
    >>> choose_n_clusters(K, candidates=range(2, 9), random_state=0).n_clusters
    4
    """
    params = {
        "candidates": candidates,
        "method": method,
        "gamma": gamma,
        "n_folds": n_folds,
        "links": links,
        "eigen_solver": eigen_solver,
        "random_state": random_state,
    }
    validate_params(params, _PARAMETER_CONSTRAINTS, _OWNER)
    shape = getattr(K, "shape", None)
    if shape is None or len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(
            f"The 'K' parameter of {_OWNER} must be a square (n_samples, "
            f"n_samples) matrix. Got shape {shape} instead."
        )
    n = K.shape[0]
    c_max = max(int(c) for c in candidates)
    if c_max >= n:
        raise ValueError(
            f"The 'candidates' parameter of {_OWNER} must hold ints smaller than "
            f"n_samples={n}. Got max(candidates)={c_max} instead."
        )
    cands = np.unique(np.asarray(candidates, dtype=np.int64))
    must, cannot = check_constraints(must_link, cannot_link, n, owner=_OWNER)
    n_links = len(must) + len(cannot)
    if method == "links" and n_links < n_folds:
        raise ValueError(
            f"method='links' of {_OWNER} needs at least n_folds={n_folds} links "
            f"in 'must_link' and 'cannot_link'. Got {n_links} instead."
        )
    solver_seed, fold_seed = draw_seeds(check_random_state(random_state), 2)
    solve = _Solver(K, gamma, eigen_solver, solver_seed)

    eigenvalues = solve.normalized_eigenvalues(must, cannot, c_max + 1)
    eigengap = eigenvalues[cands - 1] - eigenvalues[cands]
    labels = solve.labels(must, cannot, cands)

    use_links = method == "links" or (method == "auto" and n_links >= n_folds)
    if use_links:
        error = _heldout_error(solve, must, cannot, cands, n_folds, fold_seed)
        share = len(must) / n_links
        if links == "closure" and error.min() >= min(share, 1.0 - share):
            # the paper's labelling predicts the held-out links no better than
            # calling every link the more common kind: the closed links' may
            error = _heldout_error(solve, must, cannot, cands, n_folds,
                                   fold_seed, closed=True)
        plausible = _within_one_se(error, n_links)
    else:
        error = np.full(cands.size, np.nan)
        plausible = np.ones(cands.size, dtype=bool)

    if method == "links":
        chosen, decided_by = cands[np.argmax(plausible)], "links"
    else:
        gap = np.where(plausible, eigengap, -np.inf)
        chosen = cands[np.argmax(gap)]
        decided_by = "links+eigengap" if use_links else "eigengap"
    scores = {
        "n_clusters": cands.copy(),
        "eigengap": eigengap,
        "heldout_error": error,
        "plausible": plausible,
    }
    return NClustersResult(
        n_clusters=int(chosen),
        candidates=cands,
        scores=scores,
        eigenvalues=eigenvalues,
        labels=labels,
        method=decided_by,
    )


class _Solver:
    """Eigen-solves of :math:`U` (and :math:`N`) for given links; one kernel."""

    def __init__(self, K, gamma, eigen_solver, seed):
        self.K = K
        self.gamma = float(gamma)
        self.eigen_solver = eigen_solver
        self.seed = seed

    def operator(self, must, cannot):
        n = self.K.shape[0]
        K_mod = modified_kernel(self.K, must, cannot)
        op = SMICOperator(
            K_mod, link_matrix(must, n), link_matrix(cannot, n), self.gamma, 0.0
        )
        return K_mod, op

    def normalized_eigenvalues(self, must, cannot, k):
        """Leading ``k`` eigenvalues of :math:`D^{-1/2}UD^{-1/2}`, descending.

        Solved per connected component of :math:`K' + M` (``U`` is block
        diagonal over them): each component has the eigenvalue 1 once, and a
        Krylov solver started from one vector finds an eigenvalue repeated
        across components only once. Precondition: ``k <= n_samples``.
        """
        K_mod, op = self.operator(must, cannot)
        n = K_mod.shape[0]
        pattern = K_mod + link_matrix(must, n)
        n_parts, part = connected_components(pattern, directed=False)
        if n_parts >= k:
            warnings.warn(
                f"The kNN graph (with must-links) has {n_parts} connected "
                f"components, at least max(candidates) + 1 = {k}: every "
                "eigengap is 0 and the eigengap cannot choose. A larger "
                "n_neighbors joins the components.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        if n_parts == 1:
            return self._scaled_eigenvalues(op, k)
        must_matrix = op.must_matrix
        found = []
        for p in range(n_parts):
            idx = np.flatnonzero(part == p)
            if idx.size == 1:
                found.append(np.ones(1))
                continue
            sub = SMICOperator(
                K_mod[idx][:, idx],
                must_matrix[idx][:, idx],
                sp.csr_matrix((idx.size, idx.size)),
                self.gamma,
                0.0,
            )
            found.append(self._scaled_eigenvalues(sub, min(k, idx.size)))
        return np.sort(np.concatenate(found))[::-1][:k].copy()

    def _scaled_eigenvalues(self, op, k):
        scale = 1.0 / np.sqrt(op @ np.ones(op.shape[0]))
        vals, _ = leading_eigenvectors(
            _ScaledOperator(op, scale),
            k,
            eigen_solver=self.eigen_solver,
            random_state=self.seed,
        )
        return np.minimum(vals, 1.0)

    def labels(self, must, cannot, cands):
        """3SMIC labels of every candidate, shape ``(n, n_candidates)``."""
        K_mod, op = self.operator(must, cannot)
        _, vecs = leading_eigenvectors(
            op, int(cands[-1]), eigen_solver=self.eigen_solver, random_state=self.seed
        )
        _, component = connected_components(K_mod, directed=False)
        return np.column_stack([_smic_labels(component, vecs[:, :c]) for c in cands])

    def closed_labels(self, must, cannot, cands):
        r"""Labels of every candidate on the closed links, shape
        ``(n, n_candidates)``; ``None`` when the links contradict themselves.

        One solve of ``max(cands)`` vectors of the group operator
        (:func:`~smiclust.solver.solve_smic_groups`, :math:`\eta = 0`); the
        scores of the first ``c`` columns are labelled by
        :func:`~smiclust.link_groups.group_labels` for candidate ``c``.
        """
        n = self.K.shape[0]
        groups = link_groups(must, cannot, n)
        if groups.n_contradictions:
            return None
        K_off = off_group_kernel(self.K, groups)
        c_max = int(cands[-1])
        solution = solve_smic_groups(
            K_off, groups, c_max, self.gamma, 0.0,
            block_weights=group_block_weights(K_off, groups, c_max),
            eigen_solver=self.eigen_solver, random_state=self.seed,
        )
        columns = []
        for c in cands:
            scores, _ = cluster_scores(solution.eigenvectors[:, :c],
                                       solution.normalizer[:c])
            columns.append(group_labels(scores, groups, int(c)))
        return np.column_stack(columns)


class _ScaledOperator(LinearOperator):
    """:math:`S A S` for a symmetric operator ``A`` and diagonal ``S``."""

    def __init__(self, operator, scale):
        super().__init__(dtype=np.float64, shape=operator.shape)
        self.operator = operator
        self.scale = scale

    def _matvec(self, v):
        return self.scale * (self.operator @ (self.scale * np.ravel(v)))

    def _matmat(self, V):
        s = self.scale[:, None]
        return s * (self.operator @ (s * V))

    def _adjoint(self):
        return self


def _smic_labels(component, vectors):
    """Labels of :func:`smiclust.solver.solve_smic` (``eta = 0``) from its
    eigenvectors; precondition: ``vectors`` are leading eigenvectors of ``U``
    built on a kernel :math:`K'` whose connected components ``component``
    labels."""
    signed = fix_signs(vectors)
    signed[uncovered_rows(component, signed)] = 0.0
    _, normalizer = cluster_scores(signed)
    labels = argmax_labels(signed, normalizer)
    rank = np.empty(vectors.shape[1], dtype=np.intp)
    rank[cluster_order(labels, vectors.shape[1])] = np.arange(vectors.shape[1])
    return rank[labels]


def _heldout_error(solve, must, cannot, cands, n_folds, seed, closed=False):
    """Fraction of links violated when predicted from the other folds (by the
    closed links' labels when ``closed``)."""
    pairs = np.vstack([must, cannot])
    is_must = np.r_[np.ones(len(must), bool), np.zeros(len(cannot), bool)]
    folds = np.array_split(np.random.RandomState(seed).permutation(len(pairs)), n_folds)
    violated = np.zeros(cands.size)
    for held in folds:
        train = np.ones(len(pairs), dtype=bool)
        train[held] = False
        train_must, train_cannot = pairs[train & is_must], pairs[train & ~is_must]
        labels = (solve.closed_labels(train_must, train_cannot, cands)
                  if closed else None)
        if labels is None:
            labels = solve.labels(train_must, train_cannot, cands)
        test_must = pairs[held][is_must[held]]
        test_cannot = pairs[held][~is_must[held]]
        for j in range(cands.size):
            bad_must, bad_cannot = link_violations(labels[:, j], test_must, test_cannot)
            violated[j] += bad_must.sum() + bad_cannot.sum()
    return violated / len(pairs)


def _within_one_se(error, n_links):
    """Candidates whose error is within one binomial standard error of the best."""
    best = float(error.min())
    return error <= best + np.sqrt(best * (1.0 - best) / n_links) + 1e-12
