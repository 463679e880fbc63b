r"""Links closed under their own logic: must-link groups and lifted cannot-links.

Must-links are transitive: the connected components of the must-link graph are
**groups** whose samples all belong together. A cannot-link between two
samples then holds between their whole groups (it is **lifted**). Partial
labels give the same structure directly: one group per class, every two
classes cannot-linked.

A group is represented by a sparse ``n × g`` indicator :math:`G` (one 1 per
row; samples in no link are groups of one), so the closed must-link matrix is
:math:`M = GG^\top` and the lifted cannot-link matrix :math:`C = GC_gG^\top`
with :math:`C_g` the ``g × g`` group cannot-link matrix: neither is formed.
:func:`off_group_kernel` and :class:`smiclust.link_operator.GroupSMICOperator`
apply the kernel modification and :math:`U` on this structure, and
:func:`group_labels` reads labels that keep groups together and cannot-linked
groups apart. Prior validation of inputs is assumed.
"""

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.sparse.csgraph import breadth_first_order, connected_components, maximum_flow

from .constraints import link_matrix
from .labeling import row_probabilities

__all__ = [
    "LinkGroups",
    "group_sums",
    "link_groups",
    "groups_from_labels",
    "closed_links",
    "restricted_links",
    "off_group_kernel",
    "group_block_weights",
    "group_labels",
    "cannot_clique",
    "odd_cycle_groups",
    "repaired_must_links",
]


@dataclass(frozen=True)
class LinkGroups:
    """Must-link groups and the cannot-links between them.

    Attributes
    ----------
    group : ndarray of shape (n_samples,)
        Group of each sample, ``0 .. n_groups - 1``.
    cannot_pairs : ndarray of shape (n_pairs, 2)
        Distinct cannot-linked group pairs ``(a, b)`` with ``a < b``. A
        cannot-link inside one group contradicts the must-links and is not
        kept (see ``n_contradictions``).
    n_contradictions : int
        Cannot-links whose samples the must-links put in one group.
    cannot_counts : ndarray of shape (n_pairs,), default=None
        Cannot-links between the samples of each pair of groups (the given
        ones, or all implied ones for partial labels); ``None``: one each.
    cannot_matrix : sparse matrix of shape (n_groups, n_groups)
        Symmetric 0/1 adjacency of the cannot-linked groups.
    cannot_weights : sparse matrix of shape (n_groups, n_groups)
        The same pattern holding ``cannot_counts``.
    """

    group: np.ndarray
    cannot_pairs: np.ndarray
    n_contradictions: int = 0
    cannot_counts: np.ndarray | None = field(default=None, repr=False, compare=False)
    indicator: sp.csr_matrix = field(init=False, repr=False, compare=False)
    cannot_matrix: sp.csr_matrix = field(init=False, repr=False, compare=False)
    cannot_weights: sp.csr_matrix = field(init=False, repr=False, compare=False)
    sizes: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        n, g = self.group.shape[0], self.n_groups
        G = sp.csr_matrix((np.ones(n), (np.arange(n), self.group)), shape=(n, g))
        pairs = self.cannot_pairs
        counts = (np.ones(len(pairs)) if self.cannot_counts is None
                  else np.asarray(self.cannot_counts, dtype=np.float64))
        object.__setattr__(self, "cannot_counts", counts)
        C = sp.csr_matrix((counts, (pairs[:, 0], pairs[:, 1])), shape=(g, g))
        W = (C + C.T).tocsr()
        B = W.copy()
        B.data[:] = 1.0
        object.__setattr__(self, "indicator", G)
        object.__setattr__(self, "cannot_weights", W)
        object.__setattr__(self, "cannot_matrix", B)
        object.__setattr__(self, "sizes", np.bincount(self.group, minlength=g))

    @property
    def n_groups(self):
        return int(self.group.max()) + 1 if self.group.size else 0


def group_sums(group, n_groups, W):
    r""":math:`G^\top W` for the indicator :math:`G` of a partition, without
    :math:`G`: the rows of ``W`` summed per part.

    Its counterpart :math:`GZ` is ``Z[group]``. Each part's rows are added
    in increasing row order from zero, the order of the sparse product by
    the CSR matrix :math:`G^\top` with sorted indices, so the floating-point
    result is the same, at the cost of one pass over ``W`` and none of a
    sparse product's dispatch.

    Parameters
    ----------
    group : ndarray of shape (n,)
        Part of each row, ``0 .. n_groups - 1``.
    n_groups : int
    W : ndarray of shape (n,) or (n, k)
        Float64.

    Returns
    -------
    sums : ndarray of shape (n_groups,) or (n_groups, k)
    """
    if W.ndim == 1:
        return np.bincount(group, weights=W, minlength=n_groups)
    sums = np.empty((n_groups, W.shape[1]))
    for j in range(W.shape[1]):
        sums[:, j] = np.bincount(group, weights=W[:, j], minlength=n_groups)
    return sums


def link_groups(must_link, cannot_link, n_samples):
    """The closure of the links: must-link groups, lifted cannot-links.

    Parameters
    ----------
    must_link, cannot_link : ndarray of shape (n_pairs, 2)
        Validated links.
    n_samples : int

    Returns
    -------
    groups : LinkGroups

    Examples
    --------
    >>> import numpy as np
    >>> from smiclust.link_groups import link_groups
    >>> g = link_groups(np.array([[0, 1], [1, 2]]), np.array([[2, 3]]), 5)
    >>> g.group.tolist(), g.cannot_pairs.tolist()
    ([0, 0, 0, 1, 2], [[0, 1]])
    """
    must = np.asarray(must_link, dtype=np.intp).reshape(-1, 2)
    cannot = np.asarray(cannot_link, dtype=np.intp).reshape(-1, 2)
    group = _must_link_components(must, n_samples)
    a, b = group[cannot[:, 0]], group[cannot[:, 1]]
    inside = a == b
    pairs = np.sort(np.column_stack([a[~inside], b[~inside]]), axis=1)
    pairs, counts = np.unique(pairs, axis=0, return_counts=True)
    return LinkGroups(
        group.astype(np.intp), pairs.reshape(-1, 2).astype(np.intp),
        int(np.count_nonzero(inside)), cannot_counts=counts,
    )


def repaired_must_links(must_link, cannot_link, n_samples):
    r"""The must-links to keep so that no cannot-link falls inside a group.

    A cannot-link :math:`(a, c)` whose samples a chain of must-links joins
    contradicts the links: some of them are wrong. One contradiction at a
    time, the must-links of a minimum :math:`a`-:math:`c` cut of the
    must-link graph (unit capacity per link) are removed: the fewest links
    whose removal separates :math:`a` from :math:`c`, found by maximum flow
    (:func:`scipy.sparse.csgraph.maximum_flow`) and the samples still
    reachable from :math:`a` in the residual graph. Each step separates its
    pair for good, so at most one step per cannot-link is taken. The
    cannot-links are all kept; links that contradict nothing are never
    removed. Per contradiction the cut is the smallest; over several
    contradictions the greedy sum need not be (the multicut problem is
    NP-hard).

    Parameters
    ----------
    must_link, cannot_link : ndarray of shape (n_pairs, 2)
        Validated links; the cannot-links are the contradictions' witnesses.
    n_samples : int

    Returns
    -------
    keep : ndarray of bool of shape (n_must,)
        The must-links kept.

    Examples
    --------
    >>> import numpy as np
    >>> from smiclust.link_groups import repaired_must_links
    >>> must = np.array([[0, 1], [1, 2], [2, 3], [3, 4]])
    >>> repaired_must_links(must, np.array([[0, 4]]), 5).sum()
    np.int64(3)
    """
    must = np.asarray(must_link, dtype=np.intp).reshape(-1, 2)
    cannot = np.asarray(cannot_link, dtype=np.intp).reshape(-1, 2)
    keep = np.ones(len(must), dtype=bool)
    for _ in range(len(cannot)):
        kept = np.flatnonzero(keep)
        pairs = must[kept]
        group = _must_link_components(pairs, n_samples)
        inside = np.flatnonzero(group[cannot[:, 0]] == group[cannot[:, 1]])
        if inside.size == 0:
            break
        a, c = cannot[inside[0]]
        reachable = _min_cut_side(pairs, int(a), int(c), n_samples)
        keep[kept[reachable[pairs[:, 0]] != reachable[pairs[:, 1]]]] = False
    return keep


def _must_link_components(must, n_samples):
    """Connected component of every sample in the must-link graph."""
    if not len(must):
        return np.arange(n_samples)
    return connected_components(link_matrix(must, n_samples), directed=False)[1]


def _min_cut_side(pairs, source, sink, n_samples):
    """Samples on the source side of a minimum source-sink cut of the graph
    with one unit of capacity per pair (both directions)."""
    rows = np.r_[pairs[:, 0], pairs[:, 1]]
    cols = np.r_[pairs[:, 1], pairs[:, 0]]
    capacity = sp.csr_matrix(
        (np.ones(rows.size, dtype=np.int32), (rows, cols)), shape=(n_samples,) * 2
    )
    capacity.sum_duplicates()
    flow = maximum_flow(capacity, source, sink).flow
    residual = (capacity - flow).tocsr()
    residual.data[residual.data < 0] = 0
    residual.eliminate_zeros()
    side = np.zeros(n_samples, dtype=bool)
    side[breadth_first_order(residual, source, directed=True,
                             return_predecessors=False)] = True
    return side


def groups_from_labels(codes):
    """Groups from partial labels: one group per class, classes cannot-linked.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Label codes ``0 .. k-1``, each used, ``-1`` for unknown
        (:func:`smiclust.constraints.encode_partial_labels`).

    Returns
    -------
    groups : LinkGroups
        Groups ``0 .. k-1`` are the classes; each unlabelled sample is a group
        of its own.
    """
    codes = np.asarray(codes, dtype=np.intp)
    k = int(codes.max()) + 1 if codes.size else 0
    unknown = codes < 0
    group = codes.copy()
    group[unknown] = k + np.arange(np.count_nonzero(unknown))
    i, j = np.triu_indices(k, k=1)
    pairs = np.column_stack([i, j]).astype(np.intp).reshape(-1, 2)
    sizes = np.bincount(codes[~unknown], minlength=k)
    return LinkGroups(group, pairs, cannot_counts=sizes[i] * sizes[j])


def closed_links(groups):
    """Every must-link and cannot-link the closure implies, as explicit pairs.

    ``O(sum of squared group sizes)`` pairs: a reference for tests and for
    estimators that take explicit links, not for the default path.

    Returns
    -------
    must_link, cannot_link : ndarray of shape (n_pairs, 2)
        Canonical (``i < j``), sorted.
    """
    members = [np.flatnonzero(groups.group == a) for a in range(groups.n_groups)]
    must = [
        np.column_stack([m[i], m[j]])
        for m in members
        for i, j in [np.triu_indices(m.size, k=1)]
    ]
    cannot = [
        np.sort(np.stack(np.meshgrid(members[a], members[b]), -1).reshape(-1, 2), 1)
        for a, b in groups.cannot_pairs
    ]
    must = np.vstack(must + [np.empty((0, 2), np.intp)]).astype(np.intp)
    cannot = np.vstack(cannot + [np.empty((0, 2), np.intp)]).astype(np.intp)
    return _sorted_pairs(must), _sorted_pairs(cannot)


def restricted_links(groups, keep):
    """Few links whose closure is the closure of ``groups`` among the samples
    in ``keep`` only.

    Each group's kept samples are chained, and the first kept samples of two
    cannot-linked groups are cannot-linked, so that leaving samples out of a
    closure (for held-out folds) never splits a group whose links ran through
    them.

    Parameters
    ----------
    groups : LinkGroups
    keep : ndarray of bool of shape (n_samples,)

    Returns
    -------
    must_link, cannot_link : ndarray of shape (n_pairs, 2)
        Pairs of kept samples, canonical (``i < j``).

    Examples
    --------
    >>> import numpy as np
    >>> from smiclust.link_groups import link_groups, restricted_links
    >>> g = link_groups(np.array([[0, 1], [1, 2]]), np.array([[2, 3]]), 4)
    >>> m, c = restricted_links(g, np.array([True, False, True, True]))
    >>> m.tolist(), c.tolist()
    ([[0, 2]], [[0, 3]])
    """
    kept = np.flatnonzero(keep)
    kept = kept[np.argsort(groups.group[kept], kind="stable")]
    group = groups.group[kept]
    chained = group[1:] == group[:-1]
    must = np.column_stack([kept[:-1][chained], kept[1:][chained]])
    first = np.full(groups.n_groups, -1, dtype=np.intp)
    starts = np.r_[True, ~chained] if kept.size else np.zeros(0, dtype=bool)
    first[group[starts]] = kept[starts]
    a, b = first[groups.cannot_pairs[:, 0]], first[groups.cannot_pairs[:, 1]]
    both = (a >= 0) & (b >= 0)
    cannot = np.sort(np.column_stack([a[both], b[both]]), axis=1)
    return must.reshape(-1, 2).astype(np.intp), cannot.reshape(-1, 2).astype(np.intp)


def _sorted_pairs(pairs):
    if not len(pairs):
        return pairs.reshape(-1, 2)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def off_group_kernel(K, groups):
    """``K`` without its within-group and its cannot-linked entries.

    With it the modified kernel of the closed links is
    :math:`K' = K_{\\mathrm{off}} + GG^\\top`: within-group entries 1 (the
    diagonal included), entries between cannot-linked groups 0.

    Returns
    -------
    K_off : scipy.sparse.csr_matrix of shape (n, n)
        Same or smaller sparsity than ``K``.
    """
    K = sp.coo_matrix(K)
    gi, gj = groups.group[K.row], groups.group[K.col]
    drop = gi == gj
    if groups.cannot_matrix.nnz:
        drop |= np.asarray(groups.cannot_matrix[gi, gj]).ravel() > 0
    keep = ~drop
    return sp.csr_matrix((K.data[keep], (K.row[keep], K.col[keep])), shape=K.shape)


def group_block_weights(K_off, groups, n_clusters=None):
    r"""Weights of the group blocks of the closed-link kernel.

    The block :math:`\mathbf{1}\mathbf{1}^\top` of a group of :math:`s_a`
    samples has eigenvalue :math:`s_a`, while the kNN kernel's leading
    eigenvalues are about its typical degree. Large groups then take the
    leading eigenvectors of :math:`U` for themselves, and the samples outside
    the groups get near-zero scores. The weights bring every block down to
    one typical degree,

    .. math::

        w_a = \min\left(1, \frac{d}{s_a}\right),\qquad
        d = \max\Bigl(1, \operatorname{median}_i \sum_j (K_{\mathrm{off}})_{ij}\Bigr),

    so groups up to :math:`d` samples keep the closure's within-group entries
    1, and a larger group is as strong as one sample's neighbourhood. With at
    most ``n_clusters`` groups of two or more samples (as from partial labels:
    one group per class) every weight is 1: such groups are the clusters'
    seeds, and weighting them down lost 0.1-0.2 ARI on sonar with 10-20 %
    labelled. On the
    beyond-the-paper cells (3 seeds) this took parkinson at 0.5 % of the pairs
    from ARI 0.00-0.20 to 0.53-0.59; see docs/beyond-the-paper.

    Parameters
    ----------
    K_off : sparse matrix of shape (n, n)
        :func:`off_group_kernel` of the kernel.
    groups : LinkGroups
    n_clusters : int, default=None
        Number of clusters; ``None`` weights every group.

    Returns
    -------
    weights : ndarray of shape (n_groups,)
        In ``(0, 1]``.
    """
    sizes = np.maximum(groups.sizes, 1)
    if n_clusters is not None and np.count_nonzero(sizes > 1) <= n_clusters:
        return np.ones(sizes.shape[0])
    degree = np.asarray(K_off.sum(axis=1)).ravel()
    typical = max(float(np.median(degree)), 1.0)
    return np.minimum(1.0, typical / sizes)


def group_labels(scores, groups, n_clusters, *, penalty=0.3, max_rounds=20,
                 keep_cannot_links=False, count_cannot_links=False):
    r"""Labels that keep must-link groups together and cannot-linked groups apart.

    Each sample's non-negative scores (the paper's clipped, column-normalised
    scores) are scaled to sum 1 (uniform where all are 0) and summed per group
    into :math:`m_{ay}`. A group takes the cluster of its largest mass, except
    where cannot-links say otherwise:

    * two clusters: a connected component of the group cannot-link graph that
      is bipartite has two labellings satisfying all its links (a 2-colouring
      and its flip); the one with the larger total mass is taken (exact);
    * more clusters, when every two of the cannot-linked groups are
      cannot-linked and there are at most ``n_clusters`` of them (partial
      labels, or links that decide every pair): each takes its own cluster,
      the assignment maximising the total mass :math:`\sum_a m_{a y_a}`
      (exact, :func:`scipy.optimize.linear_sum_assignment`);
    * more clusters, when the groups of :func:`cannot_clique` (pairwise
      cannot-linked) are ``n_clusters``: the links decide every cluster, and
      every labelling that satisfies them puts these groups in distinct
      clusters. They take the assignment of largest total mass (exact, as
      above) and stay there;
    * the other linked groups (more clusters; or two clusters and
      contradictory links): iterated conditional modes from the argmax, a
      group taking the cluster that maximises :math:`m_{ay}/\sum_y m_{ay} -
      \mathrm{penalty}\cdot \sum_{b:\,y_b = y} n_{ab}`, where
      :math:`n_{ab}` is 1 for cannot-linked groups :math:`a, b`, or with
      ``count_cannot_links=True`` the number of given cannot-links between
      them (``LinkGroups.cannot_counts``); larger groups first (equal
      sizes: larger gain first, so the result does not depend on the order
      of the samples), until no group moves or ``max_rounds``. Scores that
      are sure of a cluster can so break a lone cannot-link, which is what
      wrong links need (and, counted, not the many consistent links between
      two large groups);
    * with ``keep_cannot_links=True`` and more clusters, those groups are
      instead coloured one at a time, the most constrained first, each
      taking the cluster of largest share among those none of its
      cannot-linked groups holds (:func:`_saturation_colouring`): every
      cannot-link is kept whenever this greedy order finds a way, whatever
      the scores say. For links the user trusts.

    Parameters
    ----------
    scores : ndarray of shape (n_samples, n_clusters)
        Non-negative scores of every sample for every cluster.
    groups : LinkGroups
        The closed links (:func:`link_groups`).
    n_clusters : int
    penalty : float, default=0.3
        Cost of one cannot-linked group (or, counted, of one given
        cannot-link) in the same cluster, in units of a group's share
        (conditional modes).
    max_rounds : int, default=20
        Sweeps of the conditional modes at most.
    keep_cannot_links : bool, default=False
        Colour the remaining groups (more clusters) instead of the
        conditional modes.
    count_cannot_links : bool, default=False
        The conditional modes charge ``penalty`` per given cannot-link, not
        per cannot-linked group.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
    """
    S = np.asarray(scores, dtype=np.float64)
    P = row_probabilities(S, np.full_like(S, 1.0 / n_clusters))
    g = groups.n_groups
    mass = np.zeros((g, n_clusters))
    np.add.at(mass, groups.group, P)
    labels = np.argmax(mass, axis=1)
    if not len(groups.cannot_pairs):
        return labels[groups.group]
    # each group's mass as a share of its own total (the scale of the
    # conditional modes' penalty and of the ties among groups)
    share = mass / np.maximum(mass.sum(axis=1, keepdims=True), np.finfo(float).tiny)
    linked = np.unique(groups.cannot_pairs)
    todo = np.zeros(g, dtype=bool)
    if n_clusters == 2:
        colour, component, bad = _two_colouring(groups.cannot_matrix, linked)
        ok = linked[~bad[component[linked]]]
        keep = np.bincount(component[ok], weights=mass[ok, colour[ok]])
        flip = np.bincount(component[ok], weights=mass[ok, 1 - colour[ok]])
        flipped = (flip > keep)[component[ok]]
        labels[ok] = np.where(flipped, 1 - colour[ok], colour[ok])
        todo[linked[bad[component[linked]]]] = True
    else:
        todo[linked] = True
        distinct = _distinct_cluster_groups(groups, linked, share, n_clusters)
        rows, cols = linear_sum_assignment(mass[distinct], maximize=True)
        labels[distinct[rows]] = cols
        todo[distinct] = False
    if todo.any() and keep_cannot_links and n_clusters > 2:
        _saturation_colouring(labels, share, groups, todo)
    elif todo.any():
        weights = groups.cannot_weights if count_cannot_links else groups.cannot_matrix
        _conditional_modes(labels, share, weights, todo, penalty, max_rounds,
                           groups.sizes)
    return labels[groups.group]


def cannot_clique(groups, priority=None):
    r"""Groups that are pairwise cannot-linked: a lower bound on the clusters.

    No labelling with fewer clusters than a clique of the group cannot-link
    graph satisfies the links. The largest clique is NP-hard to find; this is
    the greedy one: groups by decreasing number of cannot-linked groups, each
    kept when it is cannot-linked to every group kept before. Exact when the
    cannot-links join every two groups of a set and nothing else (partial
    labels: one group per class).

    Parameters
    ----------
    groups : LinkGroups
    priority : ndarray of shape (n_groups,), default=None
        Breaks ties of the number of cannot-linked groups (larger first);
        ``None``: the group order.

    Returns
    -------
    clique : ndarray of int
        Group indices, pairwise cannot-linked (one group when there is no
        cannot-link; empty without groups).
    """
    C = groups.cannot_matrix
    if groups.n_groups == 0:
        return np.empty(0, dtype=np.intp)
    degree = np.diff(C.indptr)
    if priority is None:
        order = np.argsort(-degree, kind="stable")
    else:
        order = np.lexsort((-np.asarray(priority, dtype=np.float64), -degree))
    kept = []
    # groups cannot-linked to every group kept so far (C is symmetric)
    joins_all = np.ones(groups.n_groups, dtype=bool)
    for node in order:
        if joins_all[node]:
            kept.append(node)
            row = C.indices[C.indptr[node] : C.indptr[node + 1]]
            still = joins_all[row]
            joins_all[:] = False
            joins_all[row] = still
        if degree[node] < len(kept):  # later groups cannot extend the clique
            break
    return np.asarray(kept, dtype=np.intp)


def odd_cycle_groups(groups):
    r"""Groups whose cannot-links close a cycle of odd length.

    Two clusters satisfy every lifted cannot-link exactly when the group
    cannot-link graph is bipartite, that is, holds no cycle of odd length (a
    triangle is the smallest; :func:`cannot_clique` finds cliques only).
    Read on the bipartite double cover: every group :math:`a` becomes
    :math:`(a, 0)` and :math:`(a, 1)`, every cannot-link :math:`a - b` the
    edges :math:`(a, 0) - (b, 1)` and :math:`(a, 1) - (b, 0)`; a walk from
    :math:`(a, 0)` to :math:`(a, 1)` is a closed walk of odd length from
    :math:`a`, so a connected component of cannot-links is bipartite exactly
    when none of its groups has its two copies in one component of the
    cover. One sparse connected-components pass.

    Parameters
    ----------
    groups : LinkGroups

    Returns
    -------
    ndarray of int
        The groups (sorted) of the cannot-link components that are not
        bipartite: empty exactly when a labelling into two clusters
        satisfies every cannot-link.
    """
    C = groups.cannot_matrix.tocoo()
    g = groups.n_groups
    rows = np.concatenate([C.row, C.row + g])
    cols = np.concatenate([C.col + g, C.col])
    cover = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(2 * g, 2 * g))
    _, component = connected_components(cover, directed=False)
    return np.flatnonzero(component[:g] == component[g:])


def _distinct_cluster_groups(groups, linked, share, n_clusters):
    """The cannot-linked groups that every labelling satisfying the links
    puts in distinct clusters, when the links say so: all of ``linked`` when
    they are one clique of at most ``n_clusters``, else the greedy clique
    when it has ``n_clusters`` groups; else none."""
    if _is_clique(groups.cannot_pairs, linked.size) and linked.size <= n_clusters:
        return linked
    # larger groups, then surer ones, first among equal numbers of
    # cannot-linked groups: an order that does not depend on how the samples
    # are numbered
    clique = cannot_clique(groups, priority=groups.sizes + share.max(axis=1))
    return clique if clique.size == n_clusters else np.empty(0, dtype=np.intp)


def _is_clique(pairs, n_nodes):
    """Whether the distinct pairs ``pairs`` (``a < b``) join every two of
    their ``n_nodes`` nodes."""
    return len(pairs) == n_nodes * (n_nodes - 1) // 2


def _two_colouring(C, nodes):
    """2-colouring of the graph ``C`` from ``nodes``; components that are not
    bipartite are marked ``bad``."""
    n_components, component = connected_components(C, directed=False)
    colour = np.full(C.shape[0], -1, dtype=np.intp)
    bad = np.zeros(n_components, dtype=bool)
    indptr, indices = C.indptr, C.indices
    for start in nodes:
        if colour[start] >= 0:
            continue
        colour[start] = 0
        stack = [start]
        while stack:
            u = stack.pop()
            for v in indices[indptr[u] : indptr[u + 1]]:
                if colour[v] < 0:
                    colour[v] = 1 - colour[u]
                    stack.append(v)
                elif colour[v] == colour[u]:
                    bad[component[u]] = True
    return colour, component, bad


def _saturation_colouring(labels, share, groups, todo):
    """Colour the groups ``todo`` one at a time, in place (DSatur, Brélaz 1979,
    guided by the scores).

    The next group is the one cannot-linked to the most distinct clusters
    already taken (the most constrained), larger and then surer groups first
    among equals; it takes the cluster of largest share among those no
    cannot-linked group holds, or, when every cluster is held, the one held
    by the fewest cannot-linked groups (then the largest share). The other
    groups' labels are fixed. Each step is linear in the number of groups.
    """
    C = groups.cannot_matrix
    indptr, indices = C.indptr, C.indices
    n_groups, n_clusters = share.shape
    # held[a, y]: cannot-linked groups of a labelled y, among those fixed
    fixed = np.flatnonzero(~todo)
    onehot = np.zeros_like(share)
    onehot[fixed, labels[fixed]] = 1.0
    held = C @ onehot
    saturation = np.count_nonzero(held, axis=1)
    # larger groups, then surer ones, first among equal saturation: an order
    # that does not depend on how the samples are numbered
    rank = np.empty(n_groups, dtype=np.intp)
    rank[np.lexsort((-share.max(axis=1), -groups.sizes))] = np.arange(n_groups)
    key = np.where(todo, saturation * (n_groups + 1) + (n_groups - rank), -1)
    for _ in range(np.count_nonzero(todo)):
        a = int(np.argmax(key))
        # a free cluster (held 0) beats every held one: shares are in [0, 1]
        y = int(np.argmax(share[a] - 2.0 * held[a]))
        labels[a] = y
        key[a] = -1
        neighbours = indices[indptr[a] : indptr[a + 1]]
        newly = neighbours[held[neighbours, y] == 0]
        held[neighbours, y] += 1
        open_ = newly[key[newly] >= 0]
        key[open_] += n_groups + 1


def _conditional_modes(labels, share, C, todo, penalty, max_rounds, sizes):
    """Iterated conditional modes on the group cannot-link graph ``C`` (its
    entries: the cost of each pair in units of ``penalty``), in place."""
    n_clusters = share.shape[1]
    order_key = -sizes
    indptr, indices, counts = C.indptr, C.indices, C.data
    rows = np.arange(labels.size)
    for _ in range(max_rounds):
        onehot = np.zeros_like(share)
        onehot[rows, labels] = 1.0
        cost = share - penalty * (C @ onehot)
        gain = cost.max(axis=1) - cost[rows, labels]
        movers = np.flatnonzero(todo & (gain > 1e-12))
        if not movers.size:
            break
        # larger groups first, then larger gains: an order that does not
        # depend on how the samples (hence the groups) are numbered
        for a in movers[np.lexsort((-gain[movers], order_key[movers]))]:
            span = slice(indptr[a], indptr[a + 1])
            held = np.bincount(labels[indices[span]], weights=counts[span],
                               minlength=n_clusters)
            c_a = share[a] - penalty * held
            best = int(np.argmax(c_a))
            if c_a[best] > c_a[labels[a]] + 1e-12:
                labels[a] = best
