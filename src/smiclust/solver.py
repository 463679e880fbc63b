r"""One SMIC / 3SMIC solve for fixed parameters: kernel to labels.

3SMIC maximises

.. math::

    \widetilde{\mathrm{SMI}} = \frac{c}{2n}\sum_{y=1}^{c}\alpha_y^\top U\alpha_y
    - \frac12,\qquad
    U = K'\left(2I + 2\gamma M + \gamma^2 M^2 - 2\eta C + \eta^2 C^2\right)K',

under orthonormal :math:`\alpha_y`; the maximiser is the ``c`` leading
eigenvectors of the positive semi-definite :math:`U`
(:mod:`smiclust.link_operator`). Without links, :math:`U = 2K^2`, whose leading
eigenvectors are those of the SMIC kernel :math:`K` (by eigenvalue magnitude).
Prior validation of inputs is assumed.
"""

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .constraints import link_matrix
from .eigensolvers import leading_eigenvectors, split_by_components
from .kernels import modified_kernel
from .labeling import (
    argmax_labels,
    cluster_order,
    cluster_scores,
    fix_signs,
    indicator_rotation,
    uncovered_rows,
)
from .link_groups import group_block_weights, group_labels, off_group_kernel
from .link_operator import GroupSMICOperator, SMICOperator
from .utils import arrays_digest

__all__ = [
    "SMICSolution",
    "LinkSet",
    "solve_smic",
    "solve_smic_groups",
    "prepare_kernel",
    "solve_links",
    "solve_link_operator",
    "closed_link_labels",
    "operator_digest",
    "with_labels",
]


@dataclass(frozen=True)
class SMICSolution:
    """Result of :func:`solve_smic`.

    Attributes
    ----------
    labels : ndarray of shape (n,)
        Cluster of each sample, ``0 .. n_clusters - 1``; clusters that win
        samples are numbered first (in eigenvalue order), empty ones last.
    eigenvalues : ndarray of shape (c,)
        Eigenvalue of :math:`U` behind each cluster (with the rotation, the
        Rayleigh quotient :math:`\\psi_y^\\top U \\psi_y` of its column).
    eigenvectors : ndarray of shape (n, c)
        Sign-fixed eigenvectors :math:`\\tilde\\phi_y`, one column per cluster
        (with the rotation, the sign-fixed rotated basis :math:`\\psi_y`).
    dual_coef : ndarray of shape (n, c)
        :math:`\\beta_y = B K' \\tilde\\phi_y / \\lambda_y`, so that
        :math:`K'\\beta_y = \\tilde\\phi_y`; out-of-sample responses are
        :math:`k(x')^\\top\\beta_y`.
    normalizer : ndarray of shape (c,)
        :math:`\\sum_i \\max(0, [\\tilde\\phi_y]_i)`.
    n_operator_applications : int
        How many vectors the eigen-solver multiplied by :math:`U`.
    affinity : scipy.sparse.csr_matrix of shape (n, n) or None
        The modified kernel :math:`K'` that was solved (``None`` for closed
        links whose group blocks are too dense to store).
    graph : scipy.sparse matrix of shape (n, n)
        A sparse graph with the connected components of :math:`K'`.
    """

    labels: np.ndarray
    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    dual_coef: np.ndarray
    normalizer: np.ndarray
    n_operator_applications: int = 0
    affinity: object = None
    graph: object = None


def solve_smic(
    K,
    must_link,
    cannot_link,
    n_clusters,
    gamma,
    eta,
    *,
    eigen_solver="auto",
    random_state=None,
    tol=0.0,
    max_iter=None,
    K_mod=None,
    warm_start=None,
    rotate=False,
    must_weight=None,
    cannot_weight=None,
):
    """Solve SMIC (no links) or 3SMIC for fixed parameters.

    The pipeline of one solve: modified kernel :math:`K'`
    (:func:`~smiclust.kernels.modified_kernel`, unless ``K_mod`` is given),
    operator :math:`U` (:class:`~smiclust.link_operator.SMICOperator`), its
    leading eigenvectors (:func:`~smiclust.eigensolvers.leading_eigenvectors`,
    which receives ``warm_start``), the paper's post-processing
    (:mod:`smiclust.labeling`); with ``rotate`` the eigenvectors are first
    rotated within their span towards cluster indicators
    (:func:`~smiclust.labeling.indicator_rotation`, beyond the paper).

    Prior validation is assumed: ``K`` symmetric sparse with values in [0, 1],
    links canonical and consistent, ``gamma, eta >= 0`` (``eta`` is used as given;
    the caller fixes it at 0 when ``n_clusters > 2``), link weights ``>= 0``
    (``None``: 1 each; they are the entries of :math:`M` and :math:`C` and
    scale the kernel modification, see
    :func:`~smiclust.kernels.modified_kernel`).

    Returns
    -------
    solution : SMICSolution
    """
    n = K.shape[0]
    if K_mod is None:
        K_mod = modified_kernel(K, must_link, cannot_link, must_weight, cannot_weight)
    op = SMICOperator(
        K_mod,
        link_matrix(must_link, n, must_weight),
        link_matrix(cannot_link, n, cannot_weight),
        gamma,
        eta,
    )
    graph = op.K_mod + op.cannot_matrix if eta and op.cannot_matrix.nnz else op.K_mod
    solution = _solve_operator(
        op,
        graph,
        n_clusters,
        eigen_solver=eigen_solver,
        random_state=random_state,
        tol=tol,
        max_iter=max_iter,
        warm_start=warm_start,
        rotate=rotate,
    )
    return replace(solution, affinity=K_mod, graph=K_mod)


def solve_smic_groups(
    K_off,
    groups,
    n_clusters,
    gamma,
    eta,
    *,
    eigen_solver="auto",
    random_state=None,
    tol=0.0,
    max_iter=None,
    warm_start=None,
    rotate=False,
    block_weights=None,
):
    """Solve 3SMIC on closed links (must-link groups, lifted cannot-links).

    The same solve as :func:`solve_smic` for the explicit closed links
    (:func:`smiclust.link_groups.closed_links`), with the kernel and the link
    matrices applied through the group indicator
    (:class:`~smiclust.link_operator.GroupSMICOperator`); labels are the
    paper's argmax (:func:`smiclust.link_groups.group_labels` reads labels
    that respect the groups from ``eigenvectors``).

    Prior validation is assumed: ``K_off`` from
    :func:`smiclust.link_groups.off_group_kernel`, ``gamma, eta >= 0``.
    ``block_weights`` weight the group blocks of :math:`K'`
    (:class:`~smiclust.link_operator.GroupSMICOperator`; ``None``: 1 each).

    Returns
    -------
    solution : SMICSolution
        ``affinity`` is the operator's :math:`K'` as a sparse matrix when its
        group blocks hold at most 20 times the entries of ``K_off``, else
        ``None`` (it would be too dense to store).
    """
    op = GroupSMICOperator(K_off, groups, gamma, eta, block_weights)
    graph, cannot_edges = _group_graph(K_off, groups)
    solution = _solve_operator(
        op,
        graph + cannot_edges if eta and cannot_edges.nnz else graph,
        n_clusters,
        eigen_solver=eigen_solver,
        random_state=random_state,
        tol=tol,
        max_iter=max_iter,
        warm_start=warm_start,
        rotate=rotate,
    )
    sizes = groups.sizes.astype(np.float64)
    affinity = None
    if sizes @ sizes <= 20.0 * max(K_off.nnz, K_off.shape[0]):
        affinity = op.kernel_matrix()
    return replace(solution, affinity=affinity, graph=graph)


def _group_graph(K_off, groups):
    """Sparse graphs with the connected components of :math:`K'` and of the
    lifted cannot-links, without their dense blocks.

    Returns
    -------
    graph : sparse matrix of shape (n, n)
        ``K_off`` plus each sample joined to its group's first member.
    cannot_edges : sparse matrix of shape (n, n)
        The first members of every two cannot-linked groups joined.
    """
    n = K_off.shape[0]
    first = np.full(groups.n_groups, n, dtype=np.intp)
    np.minimum.at(first, groups.group, np.arange(n))

    def edges(rows, cols):
        half = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
        return half + half.T

    pairs = groups.cannot_pairs
    graph = K_off + edges(np.arange(n), first[groups.group])
    return graph, edges(first[pairs[:, 0]], first[pairs[:, 1]])


def _solve_operator(
    op, graph, n_clusters, *, eigen_solver, random_state, tol, max_iter, warm_start,
    rotate=False,
):
    """Leading eigenvectors of ``op`` and the paper's post-processing; with
    ``rotate``, of the eigenvectors rotated by
    :func:`~smiclust.labeling.indicator_rotation` (beyond the paper)."""
    vals, vecs = leading_eigenvectors(
        op,
        n_clusters,
        eigen_solver=eigen_solver,
        random_state=random_state,
        tol=tol,
        max_iter=max_iter,
        warm_start=warm_start,
    )
    # U is block diagonal over the components of ``graph``: equal eigenvalues
    # of two components, which a Krylov solver mixes into one vector, come
    # apart
    _, component = connected_components(graph, directed=False)
    vals, vecs = split_by_components(op, vals, vecs, component)
    lam_max = max(float(vals.max()), np.finfo(float).tiny)
    keep = vals > 1e-12 * lam_max
    if rotate and vecs.shape[1] > 1 and np.all(vals > 1e-10 * lam_max):
        # any basis of the span solves the relaxed problem: the one nearest to
        # cluster indicators (a rank-deficient U's null directions are
        # arbitrary, so it is left alone, and its warning stays)
        rotation = indicator_rotation(vecs)
        rotated = vecs @ rotation
        signed = fix_signs(rotated)
        signs = np.sign(np.sum(signed * rotated, axis=0))
        uncovered = uncovered_rows(component, signed)
        signed[uncovered] = 0.0
        base = vecs.copy()
        base[uncovered] = 0.0
        # K' beta = phi for phi = V R s: beta = (B K' V Lambda^-1) R s
        dual = (op.apply_middle(op.apply_kernel(base)) / vals) @ rotation * signs
        vals = (rotation**2).T @ vals  # Rayleigh quotient of each new column
    else:
        signed = fix_signs(vecs)
        signed[uncovered_rows(component, signed)] = 0.0
        # beta_y = B K' phi_y / lambda_y; tiny eigenvalues (rank-deficient U)
        # get beta 0
        middle = op.apply_middle(op.apply_kernel(signed))
        dual = np.zeros_like(signed)
        dual[:, keep] = middle[:, keep] / vals[keep]
    _, normalizer = cluster_scores(signed)
    labels = argmax_labels(signed, normalizer)
    order = cluster_order(labels, n_clusters)
    rank = np.empty_like(order)
    rank[order] = np.arange(n_clusters)
    return SMICSolution(
        labels=rank[labels],
        eigenvalues=vals[order],
        eigenvectors=signed[:, order],
        dual_coef=dual[:, order],
        normalizer=normalizer[order],
        n_operator_applications=max(op.n_applied, 1),
    )


@dataclass(frozen=True)
class LinkSet:
    """The links of one fit and how they are used.

    Attributes
    ----------
    must_link, cannot_link : ndarray of shape (n_pairs, 2)
        Validated links, as given (their violations are counted).
    must_weight, cannot_weight : ndarray of shape (n_pairs,) or None
        Link weights (``None``: 1 each); used only by the paper's 3SMIC.
    groups : LinkGroups or None
        ``None``: the paper's 3SMIC on the links as given. Otherwise the
        closed links (:mod:`smiclust.link_groups`): :math:`U` of the closure,
        and labels that keep groups together and cannot-linked groups apart.
    keep_cannot_links : bool, default=False
        With ``groups``: the labels keep every cannot-link the most
        constrained-first colouring can, whatever the scores say
        (:func:`smiclust.link_groups.group_labels`).
    count_cannot_links : bool, default=False
        With ``groups``: the conditional modes of
        :func:`~smiclust.link_groups.group_labels` charge their penalty per
        given cannot-link, not per cannot-linked group.
    """

    must_link: np.ndarray
    cannot_link: np.ndarray
    must_weight: np.ndarray | None = None
    cannot_weight: np.ndarray | None = None
    groups: object = None
    keep_cannot_links: bool = False
    count_cannot_links: bool = False


def prepare_kernel(K, links):
    r"""The part of a solve that depends on the kernel only: :math:`K'` for the
    paper's 3SMIC, :math:`K_{\mathrm{off}}` for closed links."""
    if links.groups is None:
        return modified_kernel(
            K, links.must_link, links.cannot_link, links.must_weight,
            links.cannot_weight,
        )
    return off_group_kernel(K, links.groups)


def solve_links(
    K, links, n_clusters, gamma, eta, *, prepared=None, **solver_options
):
    """One solve for fixed parameters, the paper's or on closed links.

    :func:`solve_link_operator`, then with closed links
    :func:`closed_link_labels`.

    Returns
    -------
    solution : SMICSolution
    """
    solution = solve_link_operator(K, links, n_clusters, gamma, eta,
                                   prepared=prepared, **solver_options)
    return closed_link_labels(solution, links, n_clusters)


def solve_link_operator(
    K, links, n_clusters, gamma, eta, *, prepared=None, **solver_options
):
    """The eigen-solve of one fit's operator, before closed links label it.

    ``prepared`` is :func:`prepare_kernel` of ``K`` (computed when ``None``);
    ``solver_options`` go to :func:`solve_smic` / :func:`solve_smic_groups`
    (``eigen_solver``, ``random_state``, ``tol``, ``max_iter``,
    ``warm_start``, ``rotate``). With closed links the group blocks of
    :math:`K'` are weighted by
    :func:`smiclust.link_groups.group_block_weights` and the labels are the
    paper's argmax; ``links.keep_cannot_links`` and
    ``links.count_cannot_links`` play no part (they shape
    :func:`closed_link_labels` only).

    Returns
    -------
    solution : SMICSolution
    """
    if prepared is None:
        prepared = prepare_kernel(K, links)
    if links.groups is None:
        return solve_smic(
            K, links.must_link, links.cannot_link, n_clusters, gamma, eta,
            K_mod=prepared, must_weight=links.must_weight,
            cannot_weight=links.cannot_weight, **solver_options,
        )
    return solve_smic_groups(
        prepared, links.groups, n_clusters, gamma, eta,
        block_weights=group_block_weights(prepared, links.groups, n_clusters),
        **solver_options,
    )


def closed_link_labels(solution, links, n_clusters):
    """``solution`` (of :func:`solve_link_operator`) labelled by the closed
    links: :func:`smiclust.link_groups.group_labels` of its scores, the
    columns re-ordered so that clusters with samples come first; as it is
    for the paper's links (``links.groups`` is ``None``).

    Returns
    -------
    solution : SMICSolution
    """
    if links.groups is None:
        return solution
    scores, _ = cluster_scores(solution.eigenvectors, solution.normalizer)
    labels = group_labels(scores, links.groups, n_clusters,
                          keep_cannot_links=links.keep_cannot_links,
                          count_cannot_links=links.count_cannot_links)
    return with_labels(solution, labels, n_clusters)[0]


def operator_digest(K, links):
    """A digest of what :func:`solve_link_operator` reads of ``K`` and
    ``links``: the kernel's entries, and the closed links' groups and lifted
    cannot-links (with their counts) or the links and weights as given. Two
    solves with equal digests and equal parameters give equal solutions.

    Returns
    -------
    digest : bytes
    """
    K = sp.csr_matrix(K)
    parts = [np.array(K.shape), K.indptr, K.indices, K.data]
    groups = links.groups
    if groups is None:
        parts += [links.must_link, links.cannot_link]
        parts += [np.array([-1.0]) if w is None else w
                  for w in (links.must_weight, links.cannot_weight)]
    else:
        parts += [groups.group, groups.cannot_pairs, groups.cannot_counts]
    return arrays_digest(parts)


def with_labels(solution, labels, n_clusters):
    """``solution`` with new ``labels``, its clusters renumbered so that those
    with samples come first (stable, so in eigenvalue order otherwise).

    Returns
    -------
    solution : SMICSolution
    order : ndarray of shape (n_clusters,)
        Old cluster number of each new one: columns indexed by the old
        numbers are re-ordered by ``[:, order]``.
    """
    order = cluster_order(labels, n_clusters)
    rank = np.empty_like(order)
    rank[order] = np.arange(n_clusters)
    renumbered = replace(
        solution,
        labels=rank[labels],
        eigenvalues=solution.eigenvalues[order],
        eigenvectors=solution.eigenvectors[:, order],
        dual_coef=solution.dual_coef[:, order],
        normalizer=solution.normalizer[order],
    )
    return renumbered, order
