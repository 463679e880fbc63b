r"""Active link selection: which pairs to ask an oracle next.

:func:`select_pairs` proposes the pairs worth asking for a fitted
:class:`~smiclust.SMIClustering`; :class:`ActiveSMIClustering` runs the loop
(select, ask the oracle, refit after each batch) until a budget of questions
is spent.

**Neighbourhoods** (NPU, Xiong, Azimi & Fern, 2014). A neighbourhood is a
must-link group known to differ from every other neighbourhood (the groups of
a clique of the cannot-link graph). A sample is placed by asking it against
one member of each neighbourhood, the most probable first, until the oracle
says "same"; a sample that differs from all of them starts a new
neighbourhood. With ``c`` clusters, a sample that differs from ``c - 1`` of
``c`` neighbourhoods belongs to the last one: that question is never asked.
The probabilities come from the model: with :math:`p_i` the row of ``proba_``
of sample ``i`` and :math:`q_N` the mean row of the members of neighbourhood
``N``,

.. math::

    P(i \in N) \propto \sum_{y=1}^{c} p_i(y)\, w_{yN},\qquad
    w_{yN} = \frac{q_N(y)}{\sum_{N'} q_{N'}(y) + u(y)},\qquad
    u(y) = \max\Bigl(0, 1 - \sum_{N'} q_{N'}(y)\Bigr),

over the neighbourhoods ``i`` is not known to differ from; :math:`u(y)` is the
share of cluster ``y`` no neighbourhood claims yet, and
:math:`P(i \in \mathrm{new}) \propto \sum_y p_i(y)\,u(y)/(\sum_{N'}
q_{N'}(y) + u(y))` while fewer than ``c`` neighbourhoods are known.

**Which sample** (farthest-first weighted by density, after Basu, Banerjee &
Mooney, 2004). In this order (a sample's :math:`s_i` below, divided by the
largest of all, is added to its tier's number, 2, 1 or 0, with a draw of
:math:`10^{-9}` from ``random_state`` to break ties; a sample of tier 2 is
always linked, so its :math:`s_i` is 0, and it ties with an exploring
sample whose :math:`s_i` is the largest of all, the draw deciding which
comes first: the loop was measured so, and a sample answered "don't know"
about is spared by that tie):

1. a sample asked before and not yet placed (NPU finishes a sample first);
2. while fewer than ``c`` neighbourhoods are known, per model cluster the
   sample with the largest :math:`P(i \in \mathrm{new})\,\rho_i`
   when :math:`P(i \in \mathrm{new}) > 1/2` (exploration);
3. the largest

   .. math::

       s_i = \rho_i \min_{l \in L} \lVert x_i - x_l\rVert,\qquad
       \rho_i = \min\Bigl(\rho_{\max}, \frac{\tilde\sigma}{\sigma_i}\Bigr),

   with :math:`L` the samples in some link, :math:`\sigma_i` the local scale
   of sample ``i`` (distance to its ``t``-th neighbour, ``local_scales_``) and
   :math:`\tilde\sigma` their median: the sample farthest from everything
   asked, in units of its own neighbourhood radius, so dense unexplored
   regions come before outliers. The density is capped at
   :math:`\rho_{\max} = 10` (:data:`DENSITY_CAP`): the local scale of a
   sample with exact or near duplicates is close to 0, and without the cap
   such clumps outrank every other sample (on spam the first 21 samples
   asked were all in them, and the fit after 20 questions scored ARI 0.04;
   with the cap, 0.19). On the other data sets measured the ratio stays
   below 7, so the cap does not act there; a cap at 1 cost digits500 0.09
   ARI at 200 questions (docs/active-learning.md).

Measured with a simulated oracle on digits500 (3 seeds, 200 questions, fixed
``n_neighbors=8``): :math:`s_i` reaches ARI 0.76 ± 0.04, against 0.67 ± 0.04
for a random sample, 0.59 ± 0.03 for NPU's uncertainty per expected question
times density, 0.65 ± 0.07 for the smallest margin and 0.52 ± 0.06 for the
cheapest sample (fewest expected questions); see ``ActiveSMIClustering``.

A batch asks each sample at most once and each pair of groups at most once,
and takes its samples farthest-first (a sample taken counts as linked for the
next). A sample in a pair answered "don't know" counts as linked too, does
not explore, and starts no neighbourhood while another sample can (when none
can, nothing is left to ask): a sample nobody can judge is not asked about
again and again (with one such sample on 90 blobs it was in all 60
questions, ARI 0.73; now in 1, ARI 0.90). Nothing here forms an
``n × n`` matrix: one selection costs :math:`O(n c k)` for ``k``
neighbourhoods plus :math:`O(n d)` per newly linked sample, and the closure of
the links is linear in their number, plus a search for cliques of ``c``
cannot-linked groups bounded by :data:`CLIQUE_SEARCH_STEPS` steps per round.

References
----------
S. Xiong, J. Azimi, X. Z. Fern. Active learning of constraints for
semi-supervised clustering. IEEE TKDE 26(1), 2014.

S. Basu, A. Banerjee, R. J. Mooney. Active semi-supervision for pairwise
constrained clustering. SDM 2004.
"""

import copy
import numbers
import time
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from .base import accept_feature_attributes, feature_attributes
from .constraints import (
    check_complete_labels,
    check_constraints,
    check_links,
    pairs_in_both,
)
from .neighbors import reuse_exact_searches
from .utils import (
    HasMethods,
    Interval,
    Options,
    check_n_neighbors,
    check_random_state_param,
    draw_seeds,
    progress,
    validate_params,
    validate_training_samples,
)

__all__ = ["select_pairs", "ActiveSMIClustering", "StopAsking"]

#: Largest density :math:`\tilde\sigma / \sigma_i` a sample counts with when
#: the next sample to ask is chosen: samples with (near) duplicates have a
#: local scale near 0 and would otherwise be asked before all others.
DENSITY_CAP = 10.0


class StopAsking(Exception):
    """Raised by an oracle to end the questions early.

    :meth:`ActiveSMIClustering.fit` then asks nothing more, fits on the
    answers so far and returns normally; the question the oracle was asked
    when it raised is not counted in ``n_queries_``.
    """

# --------------------------------------------------------------------------
# The closure of the links: groups, cannot-linked groups, neighbourhoods
# --------------------------------------------------------------------------


@dataclass
class LinkClosure:
    """What a set of links implies, with ``n_clusters`` known.

    Attributes
    ----------
    group : ndarray of shape (n_samples,)
        Closed group of each sample: must-link components, merged further
        where the ``n_clusters`` rule places a group in a neighbourhood.
    cannot : dict of int to set of int
        Group -> the groups it is known to differ from (symmetric).
    hoods : list of int
        The neighbourhoods: groups that pairwise differ, in the order found.
    inferred_must : ndarray of shape (n_inferred, 2)
        One sample pair per merge made by the ``n_clusters`` rule (a must-link
        the links imply but do not contain).
    n_clusters : int
    """

    group: np.ndarray
    cannot: dict
    hoods: list
    inferred_must: np.ndarray
    n_clusters: int

    def known(self, i, j):
        """Whether the links decide whether samples ``i`` and ``j`` share a
        cluster."""
        a, b = self.group[i], self.group[j]
        return a == b or b in self.cannot.get(a, ())


def link_closure(must_link, cannot_link, n_samples, n_clusters):
    """Close validated links under transitivity, lifting and ``n_clusters``.

    Must-links are transitive (their connected components are groups), a
    cannot-link holds between whole groups, and with ``c`` clusters:

    * ``c == 2``: a connected component of the group cannot-link graph that is
      2-colourable has one labelling up to a flip, so groups of one colour are
      merged;
    * ``c > 2``: for every clique of ``c`` groups of the group cannot-link
      graph (``c`` pairwise different groups, one per cluster), a group
      cannot-linked to all but one of them is merged into that one,
      repeatedly until nothing changes (each merge brings its cannot-links
      along). The cliques are enumerated anew after each round of merges,
      each search bounded by :data:`CLIQUE_SEARCH_STEPS` steps (a bound that
      only ever leaves an implied must-link out, never adds a wrong one).

    This rule is sound but not complete: deciding every pair the links imply
    is graph colouring, NP-hard for ``c > 2``. The neighbourhoods are a
    clique found greedily (larger groups first); when that clique holds fewer
    than ``c`` groups and the graph has a clique of ``c``, that one is taken.

    Cannot-links inside a group (contradictions) are dropped. Prior validation
    of the links is assumed.

    Parameters
    ----------
    must_link, cannot_link : ndarray of shape (n_pairs, 2)
    n_samples, n_clusters : int

    Returns
    -------
    closure : LinkClosure
    """
    must = np.asarray(must_link, dtype=np.intp).reshape(-1, 2)
    cannot = np.asarray(cannot_link, dtype=np.intp).reshape(-1, 2)
    if len(must):
        graph = sp.coo_matrix(
            (np.ones(len(must)), (must[:, 0], must[:, 1])), shape=(n_samples,) * 2
        )
        _, group = connected_components(graph, directed=False)
    else:
        group = np.arange(n_samples)
    group = group.astype(np.intp)
    # first member of each group, the sample that stands for it
    first = np.full(group.max() + 1 if n_samples else 0, n_samples, dtype=np.intp)
    np.minimum.at(first, group, np.arange(n_samples))
    parent = {}

    def find(a):
        while parent.get(a, a) != a:
            a = parent[a]
        return a

    adjacency = {}
    for i, j in cannot:
        a, b = int(group[i]), int(group[j])
        if a != b:
            adjacency.setdefault(a, set()).add(b)
            adjacency.setdefault(b, set()).add(a)
    inferred = []

    def merge(a, b):
        """Merge group ``a`` into ``b`` (both roots); returns False on a
        contradiction (they are cannot-linked)."""
        if b in adjacency.get(a, ()):
            return False
        parent[a] = b
        inferred.append((int(first[a]), int(first[b])))
        for x in adjacency.pop(a, set()):
            adjacency[x].discard(a)
            adjacency[x].add(b)
            adjacency.setdefault(b, set()).add(x)
        return True

    if n_clusters == 2:
        _merge_two_colouring(adjacency, merge, find)
    roots = _roots(len(first), parent, find)
    sizes = np.bincount(roots[group], minlength=len(first)) if n_samples else first
    hoods = _neighbourhoods(adjacency, sizes, first)
    if n_clusters > 2:
        if len(hoods) < n_clusters:
            full = next(_cliques(adjacency, n_clusters), None)
            if full is not None:
                hoods = sorted(full, key=lambda a: (-sizes[a], first[a]))
        _merge_by_cliques(adjacency, n_clusters, merge)
        hoods = [find(h) for h in hoods]
    roots = _roots(len(first), parent, find)
    closed = roots[group] if n_samples else group
    pairs = np.array(sorted(set(inferred)), dtype=np.intp).reshape(-1, 2)
    return LinkClosure(closed, adjacency, hoods, np.sort(pairs, axis=1), n_clusters)


def _roots(n_groups, parent, find):
    """The root of every group after the merges recorded in ``parent``."""
    roots = np.arange(n_groups, dtype=np.intp)
    for a in parent:
        roots[a] = find(a)
    return roots


def _merge_two_colouring(adjacency, merge, find):
    """With two clusters, merge the groups of one colour of every 2-colourable
    component of the cannot-link graph (in place through ``merge``)."""
    colour = {}
    for start in sorted(adjacency):
        if start in colour:
            continue
        colour[start] = 0
        component, stack, bipartite = [start], [start], True
        while stack:
            u = stack.pop()
            for v in adjacency[u]:
                if v not in colour:
                    colour[v] = 1 - colour[u]
                    component.append(v)
                    stack.append(v)
                elif colour[v] == colour[u]:
                    bipartite = False
        if not bipartite:
            continue
        for side in (0, 1):
            members = sorted(a for a in component if colour[a] == side)
            for a in members[1:]:
                merge(find(a), find(members[0]))


#: Bound on the steps (partial cliques extended) of one search for the
#: cliques of ``n_clusters`` groups in :func:`link_closure`.
CLIQUE_SEARCH_STEPS = 100_000


def _cliques(adjacency, size):
    """The cliques of ``size`` nodes of the graph ``adjacency`` (node -> set
    of neighbours), each once as a tuple in increasing order, found by
    depth-first extension; stops after :data:`CLIQUE_SEARCH_STEPS` steps."""
    steps = 0
    stack = [((a,), {b for b in adjacency[a] if b > a})
             for a in sorted(adjacency, reverse=True)]
    while stack:
        clique, candidates = stack.pop()
        steps += 1
        if steps > CLIQUE_SEARCH_STEPS:
            return
        if len(clique) == size:
            yield clique
            continue
        if len(clique) + len(candidates) < size:
            continue
        for b in sorted(candidates, reverse=True):
            later = {x for x in candidates if x > b and x in adjacency[b]}
            stack.append((clique + (b,), later))


def _merge_by_cliques(adjacency, n_clusters, merge):
    """Merge each group cannot-linked to all but one group of some clique of
    ``n_clusters`` groups into that one (in place through ``merge``), until
    no clique implies more."""
    changed = True
    while changed:
        changed = False
        for clique in list(_cliques(adjacency, n_clusters)):
            if not all(a in adjacency for a in clique):
                continue  # a member was merged into another group this round
            members = set(clique)
            counts = {}
            for h in clique:
                for a in adjacency[h]:
                    counts[a] = counts.get(a, 0) + 1
            for a in sorted(counts):
                if a in members or counts[a] != n_clusters - 1 or a not in adjacency:
                    continue
                allowed = members - adjacency[a]
                if len(allowed) == 1:
                    changed |= merge(a, allowed.pop())


def _neighbourhoods(adjacency, sizes, first):
    """A clique of the group cannot-link graph, greedily: larger groups first,
    then those with more cannot-links (ties by first member), each kept if it
    differs from all kept before."""
    order = sorted(adjacency, key=lambda a: (-sizes[a], -len(adjacency[a]), first[a]))
    hoods = []
    for a in order:
        if all(h in adjacency[a] for h in hoods):
            hoods.append(a)
    return hoods


# --------------------------------------------------------------------------
# Selection
# --------------------------------------------------------------------------

@dataclass
class _Candidates:
    r"""The askable units (groups outside the neighbourhoods).

    ``first``: the sample standing for each unit; ``group``: its group;
    ``order``: neighbourhood ids in asking order, ``n_open`` of them valid;
    ``tier``: 2 for a unit asked before and not yet placed, 1 for an
    exploring unit, 0 otherwise; ``density``: :math:`\rho`.
    """

    first: np.ndarray
    group: np.ndarray
    order: np.ndarray
    n_open: np.ndarray
    tier: np.ndarray
    density: np.ndarray


def _candidates(proba, scales, closure, unsure=()):
    r"""Every askable unit and its questions; the formulas are in the module
    docstring.

    Prior validation is assumed; ``O(n c k)`` for ``k`` neighbourhoods.
    ``unsure``: samples of pairs answered "don't know", which do not explore
    and start no neighbourhood while another sample can (no unit is askable
    when none can).
    """
    n, c = proba.shape
    group = closure.group
    hoods = list(closure.hoods)
    density = np.minimum(DENSITY_CAP, np.median(scales) / np.maximum(scales, 1e-300))
    if not hoods:
        # no neighbourhood yet: the most confident of the densest samples
        # (density capped at DENSITY_CAP) starts one, unless "don't know"
        # was answered about it (every question would be about it again);
        # with no such sample left there is nothing to ask
        seed_value = density * proba.max(axis=1)
        sure = np.ones(n, dtype=bool)
        sure[list(unsure)] = False
        if not sure.any():
            empty = np.empty(0, dtype=np.intp)
            return _Candidates(empty, empty, np.empty((0, 0), dtype=np.intp),
                               empty, empty, np.empty(0))
        seed_value = np.where(sure, seed_value, -np.inf)
        hoods = [int(group[int(np.argmax(seed_value))])]
    k = len(hoods)
    can_be_new = k < closure.n_clusters
    # neighbourhood profiles q_N and the cluster -> neighbourhood weights w
    Q = np.vstack([proba[group == h].mean(axis=0) for h in hoods])
    unclaimed = np.maximum(0.0, 1.0 - Q.sum(axis=0)) if can_be_new else np.zeros(c)
    W = np.column_stack([Q.T, unclaimed])
    W /= np.maximum(W.sum(axis=1, keepdims=True), 1e-12)
    # units: the groups outside the neighbourhoods, by their first member;
    # a unit's profile and density are its members' means
    order = np.argsort(group, kind="stable")
    starts = np.flatnonzero(np.r_[True, group[order][1:] != group[order][:-1]])
    sizes = np.diff(np.r_[starts, n])
    firsts, unit_group = order[starts], group[order[starts]]
    keep = ~np.isin(unit_group, hoods)
    P = np.add.reduceat(proba[order], starts, axis=0)[keep] / sizes[keep, None]
    P = P @ W + 1e-12
    dens = (np.add.reduceat(density[order], starts) / sizes)[keep]
    firsts, unit_group = firsts[keep], unit_group[keep]
    # exclusions: units known to differ from a neighbourhood
    unit_index = {int(g): u for u, g in enumerate(unit_group)}
    excluded = np.zeros((len(firsts), k), dtype=bool)
    for col, h in enumerate(hoods):
        for g in closure.cannot.get(h, ()):
            u = unit_index.get(g)
            if u is not None:
                excluded[u, col] = True
    P[:, :k][excluded] = 0.0
    if not can_be_new:
        P[:, k] = 0.0
    P /= P.sum(axis=1, keepdims=True)
    n_open = k - excluded.sum(axis=1)
    ask_order = np.argsort(-P[:, :k], axis=1, kind="stable")
    # with c neighbourhoods known a unit with one open is placed (implied)
    askable = n_open >= (1 if can_be_new else 2)
    tier = 2 * excluded.any(axis=1).astype(np.intp)
    if can_be_new:
        # exploring: per model cluster, the unit most likely in a cluster no
        # neighbourhood claims yet (P(new) > 1/2), by P(new) times density
        bonus = np.where(P[:, k] > 0.5, P[:, k] * dens, 0.0)
        # a sample answered "don't know" about does not explore again
        bonus[np.isin(firsts, list(unsure))] = 0.0
        label = np.argmax(proba[firsts], axis=1)
        for y in np.unique(label[bonus > 0]):
            members = np.flatnonzero((label == y) & (bonus > 0))
            top = members[np.argmax(bonus[members])]
            tier[top] = max(tier[top], 1)
    hood_ids = np.asarray(hoods, dtype=np.intp)
    return _Candidates(
        firsts[askable],
        unit_group[askable],
        hood_ids[ask_order[askable]],
        n_open[askable],
        tier[askable],
        dens[askable],
    )


class _Coverage:
    """Distance of every sample to the nearest linked sample (one in a
    must-link group or a cannot-link), updated as samples get linked: each
    sample's distances are computed once, ``O(n d)`` per newly linked sample.
    """

    def __init__(self, X):
        self.X = X
        self.dist = np.full(X.shape[0], np.inf)
        self.done = np.zeros(X.shape[0], dtype=bool)

    def distances(self, rows, i):
        """Euclidean distances of the samples ``rows`` to sample ``i`` (exact
        differences, sparse ``X`` without densifying it)."""
        if sp.issparse(self.X):
            # X[[i]]: a 1 x d row also for scipy's sparse arrays, where X[i]
            # is 1-d
            diff = self.X[rows] - sp.csr_matrix(np.ones((len(rows), 1))) @ self.X[[i]]
            return np.sqrt(np.asarray(diff.multiply(diff).sum(axis=1)).ravel())
        return np.linalg.norm(self.X[rows] - self.X[i], axis=1)

    def update(self, closure, asked=()):
        """Distances for the links of ``closure`` and the samples ``asked``
        about without a link (answered "don't know"); 1 each while none."""
        from sklearn.metrics import pairwise_distances_argmin_min

        group = closure.group
        linked = np.isin(group, list(closure.cannot)) | (np.bincount(group)[group] > 1)
        linked[list(asked)] = True
        new = np.flatnonzero(linked & ~self.done)
        if new.size:
            _, d = pairwise_distances_argmin_min(self.X, self.X[new])
            np.minimum(self.dist, d, out=self.dist)
            self.done[new] = True
        return self.dist.copy() if self.done.any() else np.ones_like(self.dist)


def _select(proba, scales, closure, n_pairs, rng, coverage, skip=frozenset()):
    """Up to ``n_pairs`` questions: one per unit, one per pair of groups, each
    sample in at most one when the neighbourhoods allow.

    Units are taken greedily by tier, then by :math:`s_i` (distance to the
    nearest linked sample times density); a unit taken counts as linked for
    the next ones (farthest-first within the batch). ``skip`` holds canonical
    pairs never to ask (answered "don't know"); their samples count as
    covered, and start no neighbourhood, so that one sample nobody can judge
    does not take every question. Prior validation is assumed.
    """
    unsure = sorted({int(i) for pair in skip for i in pair})
    cand = _candidates(proba, scales, closure, unsure)
    dist = coverage.update(closure, unsure)[cand.first]
    noise = rng.random_sample(len(cand.first))
    group = closure.group
    members = {}
    remaining = np.ones(len(cand.first), dtype=bool)
    pairs, used_samples, uses = [], set(), {}
    while len(pairs) < n_pairs and remaining.any():
        value = dist * cand.density
        value = value / max(float(value.max()), 1e-300) + 1e-9 * noise
        u = int(np.argmax(np.where(remaining, cand.tier + value, -np.inf)))
        remaining[u] = False
        i = int(cand.first[u])
        if i in used_samples:
            continue
        for h in cand.order[u][: cand.n_open[u]]:
            h = int(h)
            if h not in members:
                members[h] = np.flatnonzero(group == h)
            # the member of the neighbourhood most like sample i among the
            # least used in this batch (first on ties)
            m = members[h]
            m = m[np.argsort(-(proba[m] @ proba[i]), kind="stable")]
            m = [int(j) for j in m if (min(i, j), max(i, j)) not in skip]
            if not m:
                continue
            j = min(m, key=lambda j: uses.get(j, 0))
            pairs.append((min(i, j), max(i, j)))
            used_samples.update((i, j))
            uses[j] = uses.get(j, 0) + 1
            if len(pairs) < n_pairs:
                d = coverage.distances(cand.first, i)
                np.minimum(dist, d, out=dist)
            break
    return np.array(pairs, dtype=np.intp).reshape(-1, 2)


def select_pairs(
    estimator, X, n_pairs, *, must_link=None, cannot_link=None, unknown_pairs=None,
    random_state=None,
):
    r"""The pairs worth asking next ("same cluster or not?") for a fitted model.

    The samples farthest from every linked sample (in units of their local
    scale), each asked against the neighbourhood (a must-link group known to
    differ from the others) that the model finds most probable among those it
    is not known to differ from; a sample asked before and not yet placed
    comes first. The strategy and its measurements are in
    :mod:`smiclust.active`.

    Never returns a pair the links already answer, nor one in
    ``unknown_pairs``: a pair in ``must_link`` or ``cannot_link``, in one
    must-link group (transitive closure), between two
    cannot-linked groups, or decided by the number of clusters (a sample that
    differs from ``c - 1`` of some ``c`` mutually different groups belongs to
    the last; with ``c = 2`` the cannot-link graph is 2-coloured; with
    ``c >= 3`` the cliques of ``c`` groups are searched in at most
    :data:`CLIQUE_SEARCH_STEPS` steps, so that on very dense cannot-links
    (thousands, with many cliques of fewer groups) a pair the number of
    clusters decides can still be proposed). A batch
    asks each sample outside the neighbourhoods at most once, each pair of
    groups at most once, and spreads its questions over the members of a
    neighbourhood (a member repeats only when the neighbourhood has fewer
    members than questions to it).

    Parameters
    ----------
    estimator : SMIClustering
        Fitted on ``X`` (its ``proba_``, ``n_clusters_`` and
        ``local_scales_`` are used), usually with the links given here.
    X : array-like of shape (n_samples, n_features)
        The training data of ``estimator``.
    n_pairs : int
        Number of pairs wanted, ``>= 1``.
    must_link, cannot_link : array-like of shape (n_links, 2), default=None
        The answers so far (pairs of sample indices).
    unknown_pairs : array-like of shape (n_unknown, 2), default=None
        Pairs answered "don't know" so far: never proposed again, and their
        samples count as placed and start no neighbourhood, as in
        :class:`ActiveSMIClustering`'s loop (a pair here must be neither a
        must-link nor a cannot-link).
    random_state : int, RandomState instance or None, default=None
        Breaks ties between equally scored samples.

    Raises
    ------
    TypeError
        If ``estimator`` is not a SMIClustering, or a parameter has the wrong
        type.
    ValueError
        If ``X`` does not hold the estimator's training samples, ``n_pairs <
        1``, or the links are invalid
        (:func:`smiclust.constraints.check_constraints`).

    Returns
    -------
    pairs : ndarray of shape (n_selected, 2), dtype=intp
        ``i < j`` in each row, best first. ``n_selected < n_pairs`` only when
        fewer than ``n_pairs`` units are left whose cluster the links do not
        decide (a unit: a sample in no must-link, or a must-link group, which
        is asked about as one): each is asked once, and its further questions
        wait for the next batch (0 rows: every pair is decided).

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from smiclust import SMIClustering, select_pairs
    >>> X, y = make_blobs(n_samples=60, centers=3, random_state=0)
    >>> model = SMIClustering(3, n_neighbors=5, random_state=0).fit(X)
    >>> select_pairs(model, X, 4, random_state=0).shape
    (4, 2)
    """
    owner = "select_pairs"
    proba, scales, c = _check_estimator(estimator, owner)
    n = proba.shape[0]
    X = _check_X(X, owner, estimator)
    if X.shape[0] != n:
        raise ValueError(
            f"The 'X' parameter of {owner} must hold the {n} training samples "
            f"of the estimator (its proba_ has {n} rows); got {X.shape[0]} "
            "samples."
        )
    _check_training_samples(X, estimator, owner)
    validate_params(
        {"n_pairs": n_pairs, "random_state": random_state},
        {
            "n_pairs": [Interval(numbers.Integral, 1, None, closed="left")],
            "random_state": check_random_state_param(),
        },
        owner,
    )
    must, cannot, unknown = _given_answers(must_link, cannot_link, unknown_pairs,
                                           n, owner)
    closure = link_closure(_pairs(must), _pairs(cannot), n, c)
    rng = check_random_state(random_state)
    return _select(proba, scales, closure, int(n_pairs), rng, _Coverage(X),
                   set(unknown))


def _check_training_samples(X, estimator, owner):
    """``X`` (validated, as many rows as ``proba_``) must be the samples the
    estimator was fitted on, in their order: the pairs are chosen by their
    probabilities and the distances of ``X`` together."""
    fit_X = getattr(estimator, "_fit_X", None)
    if fit_X is None:
        return
    if sp.issparse(X) != sp.issparse(fit_X):  # the same rows in the other format
        dense, sparse = (fit_X, X) if sp.issparse(X) else (X, fit_X)
        differs = np.any(sparse.toarray() != dense, axis=1)
    elif sp.issparse(X):
        differs = np.asarray((X != fit_X).sum(axis=1)).ravel() > 0
    else:
        differs = np.any(X != fit_X, axis=1)
    if differs.any():
        raise ValueError(
            f"The 'X' parameter of {owner} must hold the training samples of "
            "the estimator, in the order it was fitted on; got other values in "
            f"{int(differs.sum())} of its {X.shape[0]} rows (the first: row "
            f"{int(np.argmax(differs))})."
        )


def _check_estimator(estimator, owner):
    """``proba_``, ``local_scales_`` and ``n_clusters_`` of a fitted
    SMIClustering."""
    from ._estimator import SMIClustering

    if not isinstance(estimator, SMIClustering):
        raise TypeError(
            f"The 'estimator' parameter of {owner} must be a fitted "
            f"SMIClustering; got {type(estimator).__name__}."
        )
    check_is_fitted(estimator, "proba_")
    return (
        np.asarray(estimator.proba_, dtype=np.float64),
        np.asarray(estimator.local_scales_, dtype=np.float64),
        int(estimator.n_clusters_),
    )


def _check_X(X, owner, estimator):
    """``X`` as float64 (sparse: CSR), 2-d, finite, with the features the
    fitted ``estimator`` was trained on (count, and names when it has them)."""
    from .utils import canonical_sparse, check_numeric

    check_numeric(X, owner=owner, accept_sparse=True)
    checked = canonical_sparse(check_array(
        X, accept_sparse="csr", dtype=np.float64, ensure_2d=False,
        input_name="X", estimator=owner))
    if checked.ndim != 2:
        raise ValueError(
            f"The 'X' parameter of {owner} must be a 2-d array of shape "
            f"(n_samples, n_features); got an array of shape {checked.shape}."
        )
    expected = estimator.n_features_in_
    if checked.shape[1] != expected:
        raise ValueError(
            f"The 'X' parameter of {owner} must hold the estimator's "
            f"{expected} training features; got {checked.shape[1]} features."
        )
    # the column names, when the estimator was fitted on named columns
    validate_data(estimator, X, reset=False, skip_check_array=True)
    return checked


#: n_neighbors tried by the held-out-answer search of ActiveSMIClustering.
_N_NEIGHBORS_GRID = (3, 5, 8, 12)

#: Fewest held-out answers for that search (below: SMIClustering's search).
_MIN_HELD_OUT = 5

# --------------------------------------------------------------------------
# The loop
# --------------------------------------------------------------------------


class ActiveSMIClustering(ClusterMixin, BaseEstimator):
    r"""SMIClustering that asks an oracle for links until a budget is spent.

    Fits :class:`~smiclust.SMIClustering` without links, then repeats: ask
    ``batch_size`` questions ``oracle(i, j)``, one at a time (each chosen as
    :func:`select_pairs` chooses, with the answers so far), then refit with
    every answer, until ``budget`` questions are asked or no pair is left
    to ask: every pair is decided but, maybe, pairs of a sample in a pair
    answered "don't know" (such a sample starts no neighbourhood, does not
    explore and counts as asked about, so it comes after the samples not
    asked about yet, and the fit places it; with every answer "don't
    know" the session ends once every sample has been in one question).
    Must-links that the answers imply through the number of clusters (a
    sample that differs from ``c - 1`` of ``c`` neighbourhoods is in the
    last) enter the fit without a question. Answers known before (a resumed
    session: ``must_link``, ``cannot_link`` and ``unknown_pairs`` of
    :meth:`fit`) enter the first fit, are never asked again and count against
    the budget. The oracle ends the questions early by raising
    :class:`StopAsking`. The fits share their exact neighbour searches of
    ``X``, one per number of neighbours
    (:func:`~smiclust.neighbors.reuse_exact_searches`): a refit gives the
    labels a new search would, without its cost.

    Parameters left at ``"auto"`` are chosen by SMIClustering's search on the
    first fits (too few answers to hold out), then by the answers: every
    ``search_every`` batches a third of them is held out, and the
    ``n_neighbors`` in (3, 5, 8, 12) whose fit on the rest reproduces the most
    held-out answers is kept (``gamma = 1``, ``eta = 1`` with two clusters);
    between searches the parameters stay fixed. On digits500 the LSMI search
    chose ``n_neighbors`` 2 to 4 on some draws and the loop reached ARI 0.41
    ± 0.25 at 200 questions; with held-out answers 0.75 ± 0.03 (3 seeds).

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters ``c`` (known: the selection uses it).
    budget : int, default=100
        Total number of questions, the answers given to :meth:`fit`
        (``must_link``, ``cannot_link``, ``unknown_pairs``) included: at most
        ``budget`` minus their number are asked.
    batch_size : int, default=10
        Questions between two refits; a larger value than ``budget`` asks
        the whole budget in one batch.
    n_neighbors, gamma, eta, violation_penalty, links, spreading, consensus, \
classifier, keep_cannot_links, neighbor_algorithm, eigen_solver, \
lsmi_n_centers, lsmi_n_folds, n_jobs :
        As in :class:`~smiclust.SMIClustering`; ``"auto"`` ones are chosen as
        described above.
    kernel : {"local-scaling", "auto", "normalized"}, default="local-scaling"
        As in :class:`~smiclust.SMIClustering`, but the paper's kernel by
        default here: the loop refits after every batch, and with two
        clusters ``"auto"`` fits a second kernel each time. On the active
        benchmark it changed one of 126 measured ARIs (parkinson and sonar,
        10 seeds; spam, seed 0) and made each run two to five times slower
        (spam to 800 questions: 71 s to 314 s, on a shared machine).
    link_test_level : float in [0, 1), default=0.0
        As in :class:`~smiclust.SMIClustering`, but off by default here: the
        test holds out links as if they were like the others, and the pairs
        asked here are chosen by the model where it is unsure, so the fit
        without links is judged on the pairs that are hardest for it. The
        test runs only on links that contradict themselves; the questions
        never ask a pair the answers already decide, so only answers given
        to :meth:`fit` can contradict each other.
    search_every : int, default=5
        Batches between two searches of the ``"auto"`` parameters.
    random_state : int, RandomState instance or None, default=None
        Every random choice (the fits, the selection's tie-breaks) flows from
        it.
    verbose : int, default=0
        One line per batch on stderr when positive.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        ``estimator_.labels_``.
    estimator_ : SMIClustering
        The last fit, with every answer (and implied must-link).
    must_link_, cannot_link_ : ndarray of shape (n_links, 2)
        The "same" and "different" answers, ``i < j``: those given to
        :meth:`fit` first, then the oracle's in asking order.
    inferred_must_link_ : ndarray of shape (n_inferred, 2)
        Must-links the answers imply through ``n_clusters`` (not asked; used
        in the fit with ``must_link_``).
    unknown_pairs_ : ndarray of shape (n_unknown, 2)
        Pairs answered ``None`` ("don't know"), the given ``unknown_pairs``
        first: never asked again, not links.
    n_queries_ : int
        Questions answered, "don't know" and the answers given to :meth:`fit`
        included (``<= budget`` unless more answers were given); a question
        the oracle ended with :class:`StopAsking` is not counted.
    history_ : list of dict
        Per fit: ``n_queries``, ``n_must``, ``n_cannot``, ``n_unknown``,
        ``n_inferred``, ``n_neighbourhoods``, ``n_neighbors``, ``gamma``,
        ``searched`` (whether the parameters were searched), ``select_seconds``
        (choosing the batch's questions; 0 for the first fit),
        ``fit_seconds`` (the fit, with the search when there is one).
    n_features_in_ : int

    See Also
    --------
    select_pairs, StopAsking, smiclust.SMIClustering

    Notes
    -----
    Measured with the oracle of the true labels, 10 clusters, the defaults,
    seeds 0-9 (mean ± std of ARI on all samples; docs/active-learning.md):

    ============  ===========  ===========  ===========  ===========
    data          50           100          200          400
    ============  ===========  ===========  ===========  ===========
    digits500     0.52 ± 0.04  0.66 ± 0.04  0.78 ± 0.03  0.93 ± 0.03
    faces100      0.62 ± 0.16  0.89 ± 0.09  1.00 ± 0.00  1.00 ± 0.00
    ============  ===========  ===========  ===========  ===========

    COBRAS (issue 12): digits500 0.37 / 0.58 / 0.87 at 50 / 200 / 800
    questions, faces100 0.42 / 0.91 / 1.00. On faces100 every pair is decided
    after 147-205 questions. A run to 800 questions on digits500 takes about
    40 s on one core (38 s per run in docs/active-learning.md's benchmark,
    on a shared 2-core machine).

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from smiclust import ActiveSMIClustering
    >>> X, y = make_blobs(n_samples=60, centers=3, random_state=0)
    >>> model = ActiveSMIClustering(3, budget=20, random_state=0)
    >>> model.fit(X, lambda i, j: y[i] == y[j]).n_queries_ <= 20
    True
    """

    _parameter_constraints = {
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "budget": [Interval(numbers.Integral, 1, None, closed="left")],
        "batch_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "search_every": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": check_random_state_param(),
        "verbose": [Interval(numbers.Integral, 0, None, closed="left"), bool],
        "links": [Options({"closure", "paper"})],
        "kernel": [Options({"auto", "local-scaling", "normalized"})],
        "spreading": [Interval(numbers.Real, 0, 1, closed="left"),
                      Options({"auto"})],
        "consensus": [bool],
        "classifier": [None, Options({"auto"}), HasMethods(("fit", "predict_proba"))],
        "link_test_level": [Interval(numbers.Real, 0, 1, closed="left")],
        "keep_cannot_links": [bool],
    }

    def __init__(
        self,
        n_clusters=2,
        *,
        budget=100,
        batch_size=10,
        n_neighbors="auto",
        gamma="auto",
        eta="auto",
        violation_penalty=1.0,
        links="closure",
        kernel="local-scaling",
        spreading="auto",
        consensus=True,
        classifier="auto",
        link_test_level=0.0,
        keep_cannot_links=False,
        neighbor_algorithm="auto",
        eigen_solver="auto",
        lsmi_n_centers="auto",
        lsmi_n_folds=5,
        search_every=5,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.budget = budget
        self.batch_size = batch_size
        self.n_neighbors = n_neighbors
        self.gamma = gamma
        self.eta = eta
        self.violation_penalty = violation_penalty
        self.links = links
        self.kernel = kernel
        self.spreading = spreading
        self.consensus = consensus
        self.classifier = classifier
        self.link_test_level = link_test_level
        self.keep_cannot_links = keep_cannot_links
        self.neighbor_algorithm = neighbor_algorithm
        self.eigen_solver = eigen_solver
        self.lsmi_n_centers = lsmi_n_centers
        self.lsmi_n_folds = lsmi_n_folds
        self.search_every = search_every
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    _MODEL_PARAMS = (
        "n_neighbors",
        "gamma",
        "eta",
        "violation_penalty",
        "links",
        "kernel",
        "spreading",
        "consensus",
        "classifier",
        "link_test_level",
        "keep_cannot_links",
        "neighbor_algorithm",
        "eigen_solver",
        "lsmi_n_centers",
        "lsmi_n_folds",
        "n_jobs",
    )

    def _model(self, seed, fixed=None):
        from ._estimator import SMIClustering

        params = {name: getattr(self, name) for name in self._MODEL_PARAMS}
        params.update(fixed or {})
        return SMIClustering(self.n_clusters, random_state=seed, **params)

    def fit(
        self,
        X,
        y=None,
        *,
        oracle=None,
        must_link=None,
        cannot_link=None,
        unknown_pairs=None,
    ):
        """Ask an oracle up to ``budget`` questions and cluster ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Sparse input stays sparse (as in SMIClustering).
        y : callable or array-like of shape (n_samples,), default=None
            The oracle, given by position: ``fit(X, oracle)``. A callable
            ``oracle(i, j)`` for sample indices ``i < j`` returns ``True``
            (same cluster), ``False`` (different) or ``None`` (don't know), or
            raises :class:`StopAsking` to end the questions (the fit then uses
            the answers so far); any other exception it raises propagates
            unchanged and leaves the estimator as it was (unfitted, or with
            its previous fit). An array of labels stands for
            the oracle ``y[i] == y[j]`` (a simulation with known classes;
            scikit-learn passes ``y`` so): every sample needs a label
            (``None``, NaN and ``pd.NA`` are refused; ``-1`` is a class,
            not "unknown" as in partial labels). ``None`` (and no ``oracle``): no
            question is asked, the fit is :class:`~smiclust.SMIClustering`
            with the answers given below, if any.
        oracle : callable, default=None
            The oracle by keyword (give ``y`` or ``oracle``, not both).
        must_link, cannot_link : array-like of shape (n_links, 2), default=None
            Answers known before ("same", "different"; e.g. a resumed
            session), validated as in :meth:`SMIClustering.fit
            <smiclust.SMIClustering.fit>`: used from the first fit on, never
            asked again, counted against ``budget``.
        unknown_pairs : array-like of shape (n_unknown, 2), default=None
            Pairs answered "don't know" before: never asked again, counted
            against ``budget``, not links (none may be in ``must_link`` or
            ``cannot_link``).

        Returns
        -------
        self : ActiveSMIClustering
        """
        from ._estimator import SMIClustering

        owner = type(self).__name__
        validate_params(self.get_params(deep=False), self._parameter_constraints, owner)
        validate_params(
            {name: getattr(self, name) for name in self._MODEL_PARAMS},
            SMIClustering._parameter_constraints,
            owner,
        )
        if y is not None and oracle is not None:
            raise TypeError(
                f"{owner}.fit takes the oracle once: as y (by position) or as "
                "oracle, not both."
            )
        oracle = y if oracle is None else oracle
        if not (oracle is None or callable(oracle) or hasattr(oracle, "__len__")):
            raise TypeError(
                f"The 'oracle' parameter of {owner}.fit must be a callable "
                "oracle(i, j) -> True, False or None, or an array of labels; "
                f"got {type(oracle).__name__}."
            )
        # X, then the answers given, before any question is asked; X
        # validated (float64; sparse as CSR) for the coverage distances, on a
        # copy that takes the feature attributes until every input has passed
        # (the fits take X as given, so that they read its feature names)
        proxy = copy.copy(self)
        validated, _, _ = validate_training_samples(
            proxy, X, self.n_clusters, accept_sparse=True
        )
        n = validated.shape[0]
        if not isinstance(self.n_neighbors, str):  # named here, not by the fits
            check_n_neighbors(self.n_neighbors, n, owner=owner)
        must, cannot, unknown = _given_answers(
            must_link, cannot_link, unknown_pairs, n, f"{owner}.fit"
        )
        if oracle is not None and not callable(oracle):
            oracle = _label_oracle(oracle, n, owner)
        rng = check_random_state(self.random_state)
        with reuse_exact_searches():  # X is the same in every fit
            model, history = self._ask_and_refit(
                X, validated, oracle, must, cannot, unknown, rng
            )
        self.estimator_ = model
        self.labels_ = model.labels_
        self.must_link_ = _pairs(must)
        self.cannot_link_ = _pairs(cannot)
        self.unknown_pairs_ = _pairs(unknown)
        closure = link_closure(self.must_link_, self.cannot_link_, n, model.n_clusters_)
        self.inferred_must_link_ = closure.inferred_must
        # every question asked and every answer given is in one of the lists
        self.n_queries_ = len(must) + len(cannot) + len(unknown)
        self.history_ = history
        accept_feature_attributes(self, feature_attributes(proxy))
        return self

    def _ask_and_refit(self, X, validated, oracle, must, cannot, unknown, rng):
        """The first fit, then batches of questions, each followed by a refit.

        ``must``, ``cannot`` and ``unknown`` (lists of pairs, the answers
        given) take the new answers in asking order. Returns the last model
        and the history of the fits.
        """
        n = validated.shape[0]
        n_queries = len(must) + len(cannot) + len(unknown)
        owner = type(self).__name__
        closure = link_closure(_pairs(must), _pairs(cannot), n, int(self.n_clusters))
        t0 = time.perf_counter()
        model = self._model(draw_seeds(rng, 1)[0]).fit(
            X,
            must_link=_union(_pairs(must), closure.inferred_must),
            cannot_link=_pairs(cannot),
        )
        history = [
            self._record(model, n_queries, must, cannot, unknown, closure, 0.0,
                         True, time.perf_counter() - t0)
        ]
        coverage = _Coverage(validated)
        fixed = None
        batch = 0
        stopped = oracle is None
        while not stopped and n_queries < self.budget:
            # one question at a time: each answer updates the closure the next
            # selection sees; the model is refitted after each batch
            t0 = time.perf_counter()
            n_ask = min(self.batch_size, self.budget - n_queries)
            asked = 0
            for _ in range(n_ask):
                closure = link_closure(
                    _pairs(must), _pairs(cannot), n, int(model.n_clusters_)
                )
                pairs = _select(
                    model.proba_,
                    model.local_scales_,
                    closure,
                    1,
                    rng,
                    coverage,
                    set(unknown),
                )
                if not len(pairs):
                    break
                i, j = (int(v) for v in pairs[0])
                try:
                    answer = _ask(oracle, i, j, owner)
                except StopAsking:
                    stopped = True
                    break
                n_queries += 1
                asked += 1
                {True: must, False: cannot, None: unknown}[answer].append((i, j))
            select_seconds = time.perf_counter() - t0
            if not asked:
                break
            batch += 1
            t0 = time.perf_counter()
            searched = fixed is None or batch % self.search_every == 0
            closure = link_closure(
                _pairs(must), _pairs(cannot), n, int(model.n_clusters_)
            )
            must_fit = _union(_pairs(must), closure.inferred_must)
            if searched:
                fixed = self._choose_parameters(X, must, cannot, n, model, rng)
            model = self._model(draw_seeds(rng, 1)[0], fixed).fit(
                X, must_link=must_fit, cannot_link=_pairs(cannot)
            )
            fixed = {
                name: getattr(model, name + "_")
                for name in ("n_neighbors", "gamma", "eta")
                if isinstance(getattr(self, name), str)
            }
            history.append(
                self._record(
                    model,
                    n_queries,
                    must,
                    cannot,
                    unknown,
                    closure,
                    select_seconds,
                    searched,
                    time.perf_counter() - t0,
                )
            )
        return model, history

    def fit_predict(self, X, y=None, **fit_params):
        """Ask the oracle, cluster ``X`` and return ``labels_``.

        The same as ``fit(X, y, **fit_params).labels_``: ``y`` is the oracle
        (a callable or an array of labels), as in :meth:`fit`.
        """
        return self.fit(X, y, **fit_params).labels_

    def _choose_parameters(self, X, must, cannot, n, model, rng):
        """The "auto" parameters that best predict held-out answers.

        A third of the answers (drawn from ``rng``) is held out; for each
        ``n_neighbors`` of ``_N_NEIGHBORS_GRID`` (``gamma`` and ``eta`` at 1
        when "auto") the model is fitted on the rest and scored by the share
        of held-out answers its labels reproduce (same label for "same",
        different for "different"); the best wins, the smaller on ties.
        With fewer than ``_MIN_HELD_OUT`` answers to hold out, ``None``:
        SMIClustering's own search decides.
        """
        answers = [(i, j, True) for i, j in must] + [(i, j, False) for i, j in cannot]
        n_out = len(answers) // 3
        seed = draw_seeds(rng, 1)[0]
        if n_out < _MIN_HELD_OUT:
            return None
        order = np.random.RandomState(seed).permutation(len(answers))
        out = [answers[a] for a in order[:n_out]]
        kept = [answers[a] for a in order[n_out:]]
        train_must = _pairs([(i, j) for i, j, same in kept if same])
        train_cannot = _pairs([(i, j) for i, j, same in kept if not same])
        closure = link_closure(train_must, train_cannot, n, int(model.n_clusters_))
        train_must = _union(train_must, closure.inferred_must)
        out_pairs = _pairs([(i, j) for i, j, _ in out])
        out_same = np.array([same for _, _, same in out])
        # eta acts only with two clusters (SMIClustering fixes it at 0 otherwise)
        defaults = {"gamma": 1.0, "eta": 1.0 if model.n_clusters_ == 2 else 0.0}
        fixed = {
            name: value
            for name, value in defaults.items()
            if isinstance(getattr(self, name), str)
        }
        grid = self._n_neighbors_candidates(n)
        best, best_score = None, -1.0
        for t in grid:
            with warnings.catch_warnings():  # trials: not the model returned
                warnings.simplefilter("ignore")
                trial = self._model(seed, {**fixed, "n_neighbors": t}).fit(
                    X, must_link=train_must, cannot_link=train_cannot
                )
            labels = trial.labels_
            same = labels[out_pairs[:, 0]] == labels[out_pairs[:, 1]]
            score = float(np.mean(same == out_same))
            if score > best_score:
                best, best_score = t, score
        return {**fixed, "n_neighbors": best}

    def _n_neighbors_candidates(self, n):
        if isinstance(self.n_neighbors, str):
            return [t for t in _N_NEIGHBORS_GRID if t < n] or [max(1, n - 1)]
        if isinstance(self.n_neighbors, numbers.Integral):
            return [self.n_neighbors]
        return list(self.n_neighbors)

    def _record(
        self, model, n_queries, must, cannot, unknown, closure, sel, searched, fit
    ):
        entry = {
            "n_queries": n_queries,
            "n_must": len(must),
            "n_cannot": len(cannot),
            "n_unknown": len(unknown),
            "n_inferred": 0 if closure is None else len(closure.inferred_must),
            "n_neighbourhoods": 0 if closure is None else len(closure.hoods),
            "n_neighbors": int(model.n_neighbors_),
            "gamma": float(model.gamma_),
            "searched": bool(searched),
            "select_seconds": sel,
            "fit_seconds": fit,
        }
        text = ", ".join(f"{key}={value}" for key, value in entry.items())
        progress(self.verbose, f"active: {text}")
        return entry

    #: ``fit`` and ``predict`` take sparse ``X``, as SMIClustering does.
    _accepts_sparse = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def predict(self, X):
        """Cluster of new samples (``estimator_.predict``)."""
        self._check_new_samples(X)
        return self.estimator_.predict(X)

    def predict_proba(self, X):
        """Class-posterior estimates of new samples
        (``estimator_.predict_proba``)."""
        self._check_new_samples(X)
        return self.estimator_.predict_proba(X)

    def _check_new_samples(self, X):
        """Fitted, and ``X`` numeric, finite, with the training features (the
        errors name this estimator; ``estimator_`` then reads ``X`` itself)."""
        from .utils import check_numeric

        check_is_fitted(self, "estimator_")
        check_numeric(X, owner=type(self).__name__, accept_sparse=True)
        validate_data(self, X, reset=False, accept_sparse="csr", dtype=np.float64)


def _given_answers(must_link, cannot_link, unknown_pairs, n_samples, owner):
    """The answers given to ``fit`` as lists of canonical ``(i, j)`` tuples,
    validated as SMIClustering validates links; ``unknown_pairs`` must be
    neither a must-link nor a cannot-link."""
    must, cannot = check_constraints(must_link, cannot_link, n_samples, owner=owner)
    unknown = check_links(unknown_pairs, n_samples, name="unknown_pairs", owner=owner)
    for name, links in (("must_link", must), ("cannot_link", cannot)):
        both = pairs_in_both(links, unknown)
        if len(both):
            raise ValueError(
                f"The 'unknown_pairs' parameter of {owner} must hold pairs not "
                f"answered otherwise; {len(both)} pair(s) are also in {name}, the "
                f"first is {tuple(int(v) for v in both[0])}."
            )
    return [[(int(i), int(j)) for i, j in links] for links in (must, cannot, unknown)]


def _label_oracle(labels, n_samples, owner):
    """The oracle of known labels: ``labels[i] == labels[j]``."""
    labels = check_complete_labels(labels, name="oracle", owner=f"{owner}.fit")
    if labels.shape != (n_samples,):
        raise ValueError(
            f"The 'oracle' parameter of {owner}.fit, given as labels, must have "
            f"shape ({n_samples},) (one per sample of X); got shape {labels.shape}."
        )

    def oracle(i, j):
        return bool(labels[i] == labels[j])

    return oracle


def _ask(oracle, i, j, owner):
    answer = oracle(i, j)
    if answer is None:
        return None
    if isinstance(answer, (bool, np.bool_)):
        return bool(answer)
    raise TypeError(
        f"The oracle of {owner}.fit must return True, False or None; "
        f"oracle({i}, {j}) returned {answer!r} of type {type(answer).__name__}."
    )


def _pairs(pairs):
    return np.array(pairs, dtype=np.intp).reshape(-1, 2)


def _union(a, b):
    if not len(b):
        return a
    both = np.vstack([a, b])
    _, first = np.unique(both, axis=0, return_index=True)
    return both[np.sort(first)]
