r"""Automatic choice of the 3SMIC parameters by the paper's criterion.

Every candidate :math:`\theta = (t, \gamma, \eta)` is solved, its labelling is
scored by LSMI and by the number :math:`n_v` of links it violates, and the
candidate maximising

.. math::

    \frac{\mathrm{LSMI}(\theta)}{\max_\theta \mathrm{LSMI}(\theta)}
    - w\,\frac{n_v(\theta)}{\max_\theta n_v(\theta)}

is chosen (Calandriello, Niu & Sugiyama, Eq. EXP:PriorPenalty, where
:math:`w = 1`; the paper calls the penalty "the only tuning factor in the
proposed algorithm", and ``violation_penalty`` is :math:`w`). Where no
candidate violates any link the second term is 0; where no LSMI value is
positive the first term is divided by :math:`\max_\theta|\mathrm{LSMI}(\theta)|`
instead, so that the ordering by LSMI is never reversed.

Work shared between candidates: the neighbour search (once, for the largest
``t``), the kernel and its modification (once per ``t``), the LSMI design
(centres, Gaussian designs and per-fold Gram matrices, once per fit), and LSMI
itself, computed once per *distinct* labelling (labellings equal up to a
renaming of the clusters are scored once).
"""

import numbers
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed, effective_n_jobs
from scipy.sparse.csgraph import connected_components

from .constraints import link_matrix, link_violations
from .kernels import kernel_from_neighbors
from .solver import LinkSet, prepare_kernel, solve_links
from .utils import progress

__all__ = [
    "DEFAULT_N_NEIGHBORS",
    "DEFAULT_GAMMAS",
    "DEFAULT_ETAS",
    "CLOSURE_GAMMAS",
    "CLOSURE_ETAS",
    "candidate_grid",
    "connected_neighbors_grid",
    "selection_criterion",
    "SearchResult",
    "search_parameters",
]

#: The paper's grid of the kernel parameter t.
DEFAULT_N_NEIGHBORS = tuple(range(1, 11))
#: Must-link weights tried by ``gamma="auto"`` (the paper gives no grid): one
#: value per decade around 1, where the link term (I + gamma M)^2 starts to
#: outweigh the identity, plus 0 (links only through the kernel modification).
DEFAULT_GAMMAS = (0.0, 0.1, 1.0, 10.0)
#: Cannot-link weights tried by ``eta="auto"`` when ``n_clusters == 2``.
DEFAULT_ETAS = (0.0, 0.1, 1.0, 10.0)
#: The weights tried on closed links (``links="closure"``): the finer grids
#: chose as well there (mean ARI 0.873 vs 0.874 over 15 cells of the paper's
#: data, docs/beyond-the-paper) at four times the cost.
CLOSURE_GAMMAS = (0.0, 1.0)
CLOSURE_ETAS = (0.0, 1.0)


def candidate_grid(
    n_neighbors_grid, gamma_grid, eta_grid, *, n_must, n_cannot, n_clusters
):
    """All candidate ``(t, gamma, eta)`` in search order.

    Parameters that cannot change the solution are not searched: ``gamma`` and
    ``eta`` without any link (both 0), ``eta`` without cannot-links or unless
    ``n_clusters == 2`` (fixed at 0, as the paper does for more clusters), and
    nothing with one cluster (every candidate gives the same labelling: the
    first ``t`` and 0 weights).

    Prior validation is assumed: the grids hold what
    :class:`~smiclust.SMIClustering` accepts (``n_neighbors`` integers).

    Returns
    -------
    candidates : list of tuple (int, float, float)
    """
    if n_clusters == 1:
        return [(int(n_neighbors_grid[0]), 0.0, 0.0)]
    if n_must == 0 and n_cannot == 0:
        gamma_grid = (0.0,)
    if n_cannot == 0 or n_clusters != 2:
        eta_grid = (0.0,)
    return [
        (int(t), float(g), float(e))
        for t in n_neighbors_grid
        for g in gamma_grid
        for e in eta_grid
    ]


def selection_criterion(lsmi, n_violations, *, violation_penalty=1.0):
    r"""The paper's criterion, one value per candidate (larger is better).

    .. math::

        \frac{\mathrm{LSMI}(\theta)}{\max_\theta \mathrm{LSMI}(\theta)}
        - w\,\frac{n_v(\theta)}{\max_\theta n_v(\theta)}

    Parameters
    ----------
    lsmi : array-like of shape (n_candidates,)
        LSMI of each candidate's labelling.
    n_violations : array-like of shape (n_candidates,)
        Links each candidate's labelling violates, :math:`n_v`.
    violation_penalty : float, default=1.0
        Weight :math:`w \ge 0` of the violation term; 1 is the paper's
        criterion, larger values trust the links more, 0 selects by LSMI alone.

    Returns
    -------
    criterion : ndarray of shape (n_candidates,)

    Examples
    --------
    >>> from smiclust.model_selection import selection_criterion
    >>> selection_criterion([0.2, 0.4, 0.3], [4, 0, 2]).round(2).tolist()
    [-0.5, 1.0, 0.25]
    """
    lsmi, nv = _criterion_inputs(lsmi, n_violations, violation_penalty)
    finite = np.where(np.isfinite(lsmi), lsmi, -np.inf)
    top = finite.max()
    denom = (
        top
        if top > 0
        else max(np.abs(lsmi[np.isfinite(lsmi)]).max(initial=0.0), np.finfo(float).tiny)
    )
    penalty = nv / nv.max() if nv.max() > 0 else np.zeros_like(nv)
    return finite / denom - violation_penalty * penalty


def _criterion_inputs(lsmi, n_violations, violation_penalty):
    """:func:`selection_criterion`'s arrays, checked: one value each per
    candidate, at least one candidate, violations finite and non-negative,
    the penalty a finite real number ``>= 0`` (LSMI may be ``-inf`` or NaN:
    a labelling LSMI could not score ranks last)."""
    owner = "selection_criterion"
    arrays = []
    for name, values in (("lsmi", lsmi), ("n_violations", n_violations)):
        try:
            array = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"The '{name}' parameter of {owner} must be a 1-d "
                            f"array of real numbers. Got {values!r} instead.") from None
        if array.ndim != 1 or array.size == 0:
            raise ValueError(f"The '{name}' parameter of {owner} must be a "
                             "non-empty 1-d array (one value per candidate). "
                             f"Got an array of shape {array.shape} instead.")
        arrays.append(array)
    lsmi, nv = arrays
    if lsmi.size != nv.size:
        raise ValueError(f"The 'lsmi' and 'n_violations' parameters of {owner} "
                         "must hold one value per candidate each. Got "
                         f"{lsmi.size} and {nv.size} values instead.")
    if not np.all(np.isfinite(nv) & (nv >= 0)):
        raise ValueError(f"The 'n_violations' parameter of {owner} must hold "
                         "finite numbers >= 0. Got "
                         f"{float(nv[~(np.isfinite(nv) & (nv >= 0))][0])!r} instead.")
    if (isinstance(violation_penalty, bool)
            or not isinstance(violation_penalty, numbers.Real)):
        raise TypeError(f"The 'violation_penalty' parameter of {owner} must be "
                        f"a real number. Got {violation_penalty!r} instead.")
    if not (np.isfinite(violation_penalty) and violation_penalty >= 0):
        raise ValueError(f"The 'violation_penalty' parameter of {owner} must be "
                         f"finite and >= 0. Got {violation_penalty!r} instead.")
    return lsmi, nv


@dataclass(frozen=True)
class SearchResult:
    """Outcome of :func:`search_parameters`.

    Attributes
    ----------
    results : dict of str to ndarray
        One entry per candidate, ready for ``pandas.DataFrame(results)``:
        ``param_n_neighbors``, ``param_gamma``, ``param_eta``, ``lsmi``,
        ``lsmi_kernel_width``, ``lsmi_regularization``, ``n_violations``,
        ``n_clusters_found``, ``criterion``, ``rank``, ``solve_seconds``.
    best_index : int
        Index of the chosen candidate (first maximiser of ``criterion``).
    """

    results: dict
    best_index: int

    @property
    def best_params(self):
        r = self.results
        i = self.best_index
        return (
            int(r["param_n_neighbors"][i]),
            float(r["param_gamma"][i]),
            float(r["param_eta"][i]),
        )


def _canonical(labels):
    """Relabel clusters by order of first appearance (LSMI is invariant to it)."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty_like(first)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inverse].astype(np.int32)


def _count_violated(labels, must, cannot, must_weight=None, cannot_weight=None):
    """Violated links: their number, or the sum of their weights when weighted."""
    violated_must, violated_cannot = link_violations(labels, must, cannot)
    if must_weight is None and cannot_weight is None:
        return int(violated_must.sum() + violated_cannot.sum())
    mw = np.ones(len(must)) if must_weight is None else must_weight
    cw = np.ones(len(cannot)) if cannot_weight is None else cannot_weight
    return float(mw[violated_must].sum() + cw[violated_cannot].sum())


def _evaluate_batch(lsmi_design, labelings):
    return [lsmi_design.evaluate(labels) for labels in labelings]


def _solve_group(graph, t, weights, links, n_clusters, solver, kernel):
    """Solve every (gamma, eta) of one ``t``; the kernel is built once and each
    solve is warm-started from the previous one's eigenvectors (sequential
    within the group, so the result does not depend on scheduling)."""
    solver_seed, eigen_solver, tol, max_iter, rotate = solver
    K = kernel_from_neighbors(graph, t, kernel)
    prepared = prepare_kernel(K, links)
    out = []
    previous = None
    for gamma, eta in weights:
        start = time.perf_counter()
        sol = solve_links(
            K,
            links,
            n_clusters,
            gamma,
            eta,
            prepared=prepared,
            eigen_solver=eigen_solver,
            random_state=solver_seed,
            tol=tol,
            max_iter=max_iter,
            warm_start=previous,
            rotate=rotate,
        )
        previous = sol.eigenvectors
        out.append((sol.labels, time.perf_counter() - start))
    return out


def search_parameters(
    graph,
    must,
    cannot,
    n_clusters,
    candidates,
    lsmi_design,
    *,
    solver_seed,
    eigen_solver="auto",
    tol=0.0,
    max_iter=None,
    n_jobs=None,
    verbose=0,
    violation_penalty=1.0,
    must_weight=None,
    cannot_weight=None,
    groups=None,
    rotate=False,
    kernel="local-scaling",
    keep_cannot_links=False,
):
    """Solve every candidate, score the labellings, choose by the criterion.

    Prior validation is assumed. Candidates sharing a ``t`` are solved in one
    task (their kernel is built once); tasks and LSMI evaluations run through
    joblib, so ``joblib.parallel_config(backend="dask")`` sends them to a Dask
    cluster. Every eigen-solve starts from the same ``solver_seed``, so the
    result does not depend on ``n_jobs`` or on the order of execution.

    Parameters
    ----------
    graph : NeighborGraph
        Neighbours for the largest ``t`` of the candidates.
    must, cannot : ndarray of shape (n_pairs, 2)
        Validated links.
    n_clusters : int
    candidates : list of tuple (int, float, float)
        From :func:`candidate_grid`.
    lsmi_design : LSMIDesign
        Label-independent LSMI precomputation for the same samples.
    solver_seed : int
    eigen_solver, tol, max_iter
        See :func:`smiclust.eigensolvers.leading_eigenvectors`.
    n_jobs : int, default=None
    verbose : int, default=0
        Progress on stderr when positive.
    violation_penalty : float, default=1.0
        Weight of the violation term of :func:`selection_criterion`.
    must_weight, cannot_weight : ndarray of shape (n_pairs,), default=None
        Validated link weights (``None``: 1 each); :math:`n_v` is then the sum
        of the weights of the violated links.
    groups : LinkGroups, default=None
        Closed links (:func:`smiclust.link_groups.link_groups` of ``must`` and
        ``cannot``): candidates are solved on the closure and labelled by
        :func:`smiclust.link_groups.group_labels`; ``None`` is the paper's
        3SMIC.
    rotate : bool, default=False
        Rotate each solve's eigenvectors towards cluster indicators
        (:func:`smiclust.labeling.indicator_rotation`; beyond the paper).
    kernel : {"local-scaling", "normalized"}, default="local-scaling"
        The kernel of every candidate
        (:func:`smiclust.kernels.kernel_from_neighbors`); the paper's is the
        first.
    keep_cannot_links : bool, default=False
        With ``groups``: the candidates' labels keep every cannot-link the
        most constrained-first colouring can
        (:func:`smiclust.link_groups.group_labels`).

    Returns
    -------
    result : SearchResult
    """
    solved = _solve_candidates(
        graph,
        candidates,
        LinkSet(must, cannot, must_weight, cannot_weight, groups,
                keep_cannot_links),
        n_clusters,
        (solver_seed, eigen_solver, tol, max_iter, rotate),
        n_jobs,
        verbose,
        kernel,
    )
    labels = [solved[c][0] for c in candidates]
    scores = _score_labelings(labels, lsmi_design, n_jobs, verbose)
    nv = np.array([
        _count_violated(lab, must, cannot, must_weight, cannot_weight)
        for lab in labels
    ])
    crit = selection_criterion(
        [r.score for r in scores], nv, violation_penalty=violation_penalty
    )
    order = np.argsort(-crit, kind="stable")
    rank = np.empty(len(candidates), dtype=np.int64)
    rank[order] = np.arange(1, len(candidates) + 1)
    results = {
        "param_n_neighbors": np.array([c[0] for c in candidates], dtype=np.int64),
        "param_gamma": np.array([c[1] for c in candidates]),
        "param_eta": np.array([c[2] for c in candidates]),
        "lsmi": np.array([r.score for r in scores]),
        "lsmi_kernel_width": np.array([r.kernel_width for r in scores]),
        "lsmi_regularization": np.array([r.regularization for r in scores]),
        "n_violations": nv,
        "n_clusters_found": np.array([np.unique(lab).size for lab in labels]),
        "criterion": crit,
        "rank": rank,
        "solve_seconds": np.array([solved[c][1] for c in candidates]),
    }
    return SearchResult(results=results, best_index=int(np.argmax(crit)))


def _solve_candidates(graph, candidates, links, n_clusters, solver, n_jobs, verbose,
                      kernel="local-scaling"):
    """Solve every candidate, one joblib task per ``t``.

    ``links`` is a :class:`~smiclust.solver.LinkSet`, ``solver``
    ``(solver_seed, eigen_solver, tol, max_iter, rotate)`` and ``kernel`` one
    of :data:`smiclust.kernels.KERNELS`.

    Returns
    -------
    solved : dict
        ``(t, gamma, eta) -> (labels, seconds)``.
    """
    ts = list(dict.fromkeys(c[0] for c in candidates))
    groups = {t: [(g, e) for (tt, g, e) in candidates if tt == t] for t in ts}
    tasks = (
        delayed(_solve_group)(graph, t, groups[t], links, n_clusters, solver, kernel)
        for t in ts
    )
    solved = {}
    for t, group_out in zip(ts, Parallel(n_jobs=n_jobs, return_as="generator")(tasks)):
        for (g, e), item in zip(groups[t], group_out):
            solved[(t, g, e)] = item
        progress(
            verbose, f"solved {len(solved)}/{len(candidates)} candidates (t={t} done)"
        )
    return solved


def _score_labelings(labels, lsmi_design, n_jobs, verbose):
    """LSMI of every labelling, each distinct labelling (up to a renaming of
    the clusters) computed once; one :class:`~smiclust.lsmi.LSMIResult` per
    labelling, in order."""
    keys = [_canonical(lab).tobytes() for lab in labels]
    first_of = {}
    for key, lab in zip(keys, labels):
        first_of.setdefault(key, lab)
    unique = list(first_of)
    progress(verbose, f"scoring {len(unique)} distinct labellings by LSMI")
    # The design is the heavy argument: send it with a few batches of
    # labellings (two per worker, at least one per 8), not once per labelling.
    n_batches = max(1, min(len(unique), max(2 * effective_n_jobs(n_jobs),
                                            -(-len(unique) // 8))))
    batches = [b.tolist() for b in np.array_split(np.arange(len(unique)), n_batches)]
    tasks = (
        delayed(_evaluate_batch)(lsmi_design, [first_of[unique[i]] for i in batch])
        for batch in batches
    )
    scored = []
    parallel = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")
    for batch in parallel(tasks):
        scored.extend(batch)
        progress(verbose, f"scored {len(scored)}/{len(unique)} labellings")
    by_key = dict(zip(unique, scored))
    return [by_key[k] for k in keys]


def connected_neighbors_grid(graph, t_grid, must_link, n_clusters):
    """The ``t`` of ``t_grid`` whose kNN graph, with the must-links, has at
    most ``n_clusters`` connected components.

    A kernel with more components than clusters leaves SMIC's leading
    eigenvectors on the components (each an eigenvector of eigenvalue 1 of
    the normalised kernel), and LSMI scores such crisp labellings highly: on
    digits500 with 20 % of the samples labelled, the criterion chose
    ``t = 1`` (36 components, ARI 0.22 against 0.61-0.68 for ``t >= 2``).
    When no ``t`` is connected enough, the one with the fewest components is
    kept (the largest on ties).
    """
    n = graph.n_samples
    must = link_matrix(must_link, n)
    counts = []
    for t in t_grid:
        rows = np.repeat(np.arange(n), t)
        knn = sp.csr_matrix((np.ones(rows.size), (rows, graph.indices[:, :t].ravel())),
                            shape=(n, n))
        counts.append(connected_components(knn + must, directed=False)[0])
    kept = [t for t, k in zip(t_grid, counts) if k <= n_clusters]
    if kept:
        return kept
    fewest = min(counts)
    return [max(t for t, k in zip(t_grid, counts) if k == fewest)]
