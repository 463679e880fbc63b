"""Closed links (must-link groups, lifted cannot-links) against brute force:
the transitive closure by repeated pair search, the group operator against the
paper's dense U built from the explicit closed links, the group labelling
against exhaustive search."""

import itertools

import numpy as np
import pytest
from conftest import random_links
from numpy.testing import assert_allclose, assert_array_equal

from smiclust import sample_links
from smiclust.constraints import encode_partial_labels, pairs_from_labels
from smiclust.kernels import local_scaling_kernel, modified_kernel
from smiclust.link_groups import (
    _saturation_colouring,
    cannot_clique,
    closed_links,
    group_block_weights,
    group_labels,
    group_sums,
    groups_from_labels,
    link_groups,
    odd_cycle_groups,
    off_group_kernel,
    repaired_must_links,
)
from smiclust.link_operator import GroupSMICOperator, dense_smic_matrix
from smiclust.solver import LinkSet, solve_links, solve_smic, solve_smic_groups


def _brute_closure(must, cannot, n):
    """Closure by fixed-point iteration over explicit pair sets."""
    same = {tuple(sorted(p)) for p in must.tolist()}
    changed = True
    while changed:
        changed = False
        for (a, b), (c, d) in itertools.product(list(same), repeat=2):
            for x, y in ((a, c), (a, d), (b, c), (b, d)):
                if x == y:
                    others = {a, b, c, d} - {x}
                    for p in itertools.combinations(sorted(others), 2):
                        if p not in same:
                            same.add(p)
                            changed = True
    def together(i, j):
        return i == j or tuple(sorted((i, j))) in same
    diff = set()
    for i, j in cannot.tolist():
        for k in range(n):
            for m in range(n):
                if together(i, k) and together(j, m) and not together(k, m):
                    diff.add(tuple(sorted((k, m))))
    return sorted(same), sorted(diff)


def _links(seed, n=14, n_links=12):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 3, size=n)
    return y, *sample_links(y, n_links, random_state=seed)


@pytest.mark.parametrize("seed", range(6))
def test_closure_matches_brute_force(seed):
    y, must, cannot = _links(seed)
    groups = link_groups(must, cannot, y.size)
    m, c = closed_links(groups)
    bm, bc = _brute_closure(must, cannot, y.size)
    assert [tuple(p) for p in m.tolist()] == bm
    assert [tuple(p) for p in c.tolist()] == bc
    assert groups.n_contradictions == 0  # links typed by true labels


def test_contradictory_cannot_link_is_counted_not_kept():
    groups = link_groups(np.array([[0, 1], [1, 2]]), np.array([[0, 2], [2, 3]]), 4)
    assert groups.n_contradictions == 1
    assert groups.cannot_pairs.tolist() == [[0, 1]]


def test_groups_from_labels_equal_the_closure_of_their_pairs():
    labels = np.array(["a", None, "b", "a", None, "c", "b"], dtype=object)
    codes = encode_partial_labels(labels)
    from_labels = groups_from_labels(codes)
    must, cannot = pairs_from_labels(labels)
    from_pairs = link_groups(must, cannot, labels.size)
    assert_array_equal(closed_links(from_labels)[0], closed_links(from_pairs)[0])
    assert_array_equal(closed_links(from_labels)[1], closed_links(from_pairs)[1])


@pytest.mark.parametrize("seed", range(3))
def test_group_sums_are_the_sparse_products_by_the_indicator(seed):
    # the same floating-point sums, not only close ones: the operators use
    # them in place of the sparse products they replaced
    rng = np.random.RandomState(seed)
    must, cannot = random_links(rng, 60, 40, 10)
    groups = link_groups(must, cannot, 60)
    G, GT = groups.indicator, groups.indicator.T.tocsr()
    for W in (rng.normal(size=60) * 10.0 ** rng.randint(-8, 8, size=60),
              rng.normal(size=(60, 4)), np.zeros((60, 0))):
        sums = group_sums(groups.group, groups.n_groups, W)
        assert_array_equal(sums, GT @ W)
        assert_array_equal(sums[groups.group], G @ sums)
    # a group of no sample sums to zero
    assert_array_equal(group_sums(np.array([0, 2, 2]), 4, np.array([1.0, 2, 3])),
                       [1.0, 0, 5, 0])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("gamma, eta", [(0.0, 0.0), (1.0, 0.0), (0.7, 1.3)])
def test_group_operator_is_the_papers_U_of_the_closed_links(seed, gamma, eta):
    rng = np.random.RandomState(seed)
    y = np.repeat([0, 1], 20)
    X = rng.normal(size=(40, 3)) + 3 * y[:, None]
    must, cannot = sample_links(y, 25, random_state=seed)
    K = local_scaling_kernel(X, 4)
    groups = link_groups(must, cannot, 40)
    closed_must, closed_cannot = closed_links(groups)
    K_mod = modified_kernel(K, closed_must, closed_cannot)
    U = dense_smic_matrix(K_mod, closed_must, closed_cannot, gamma, eta)
    op = GroupSMICOperator(off_group_kernel(K, groups), groups, gamma, eta)
    assert_allclose(op.apply_kernel(np.eye(40)), K_mod.toarray(), atol=1e-14)
    V = rng.normal(size=(40, 3))
    assert_allclose(op @ V, U @ V, rtol=1e-10, atol=1e-10)
    a = solve_smic(K, closed_must, closed_cannot, 2, gamma, eta, random_state=0)
    b = solve_smic_groups(off_group_kernel(K, groups), groups, 2, gamma, eta,
                          random_state=0)
    assert_allclose(b.eigenvalues, a.eigenvalues, rtol=1e-8)
    assert_allclose(np.abs(b.eigenvectors.T @ a.eigenvectors), np.eye(2), atol=1e-6)
    assert_allclose(b.affinity.toarray(), K_mod.toarray(), atol=1e-14)


@pytest.mark.parametrize("seed", range(3))
def test_weighted_group_blocks_against_a_dense_reference(seed):
    """K' = K_off + G diag(w) G^T entry by entry, U = K' B K' with B of the
    explicit closed links, and the solve of solve_links on it."""
    rng = np.random.RandomState(seed)
    y = np.repeat([0, 1, 2], 15)
    X = rng.normal(size=(45, 3)) + 3 * y[:, None]
    must, cannot = sample_links(y, 60, random_state=seed)
    K = local_scaling_kernel(X, 3)
    groups = link_groups(must, cannot, 45)
    K_off = off_group_kernel(K, groups)
    w = group_block_weights(K_off, groups)
    # brute force: median of the off-group row sums, each group capped at 1
    degree = [sum(K_off[i, j] for j in range(45)) for i in range(45)]
    typical = max(np.median(degree), 1.0)
    expected = [min(1.0, typical / np.sum(groups.group == a))
                for a in range(groups.n_groups)]
    assert_allclose(w, expected)
    assert w.min() < 1.0  # the test has groups larger than the typical degree
    K_dense = K_off.toarray()
    for i, j in itertools.product(range(45), repeat=2):
        if groups.group[i] == groups.group[j]:
            K_dense[i, j] = w[groups.group[i]]
    closed_must, closed_cannot = closed_links(groups)
    U = dense_smic_matrix(K_dense, closed_must, closed_cannot, 0.7, 0.0)
    op = GroupSMICOperator(K_off, groups, 0.7, 0.0, w)
    assert_allclose(op.apply_kernel(np.eye(45)), K_dense, atol=1e-14)
    assert_allclose(op.kernel_matrix().toarray(), K_dense, atol=1e-14)
    V = rng.normal(size=(45, 3))
    assert_allclose(op @ V, U @ V, rtol=1e-10, atol=1e-10)
    sol = solve_links(K, LinkSet(must, cannot, groups=groups), 3, 0.7, 0.0,
                      random_state=0)
    top = np.linalg.eigvalsh(U)[::-1][:3]
    assert_allclose(np.sort(sol.eigenvalues)[::-1], top, rtol=1e-8)
    assert_allclose(sol.affinity.toarray(), K_dense, atol=1e-14)


def test_no_more_groups_than_clusters_keep_weight_one():
    """Groups from labels (one per class) are the clusters' seeds: with at
    most n_clusters groups of two or more samples every block keeps 1."""
    X = np.arange(40.0)[:, None]
    K = local_scaling_kernel(X, 2)
    codes = np.full(40, -1)
    codes[:15], codes[20:35] = 0, 1
    groups = groups_from_labels(codes)
    K_off = off_group_kernel(K, groups)
    assert group_block_weights(K_off, groups).min() < 1.0
    assert_array_equal(group_block_weights(K_off, groups, 2), 1.0)
    assert group_block_weights(K_off, groups, 1).min() < 1.0


def test_groups_within_the_typical_degree_keep_weight_one():
    K = local_scaling_kernel(np.arange(12.0)[:, None], 3)
    groups = link_groups(np.array([[0, 1]]), np.empty((0, 2), int), 12)
    assert_array_equal(group_block_weights(off_group_kernel(K, groups), groups), 1.0)


def _brute_group_labels(S, groups, c):
    """Best labelling of the groups by total row-normalised score among those
    satisfying every lifted cannot-link (exhaustive)."""
    P = S / S.sum(axis=1, keepdims=True)
    mass = np.zeros((groups.n_groups, c))
    np.add.at(mass, groups.group, P)
    best, best_value = None, -np.inf
    for lab in itertools.product(range(c), repeat=groups.n_groups):
        lab = np.array(lab)
        if np.any(lab[groups.cannot_pairs[:, 0]] == lab[groups.cannot_pairs[:, 1]]):
            continue
        value = mass[np.arange(groups.n_groups), lab].sum()
        if value > best_value + 1e-12:
            best, best_value = lab, value
    return best[groups.group]


@pytest.mark.parametrize("seed", range(8))
def test_two_cluster_group_labels_are_the_exact_optimum(seed):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 2, size=12)
    must, cannot = sample_links(y, 8, random_state=seed)
    groups = link_groups(must, cannot, 12)
    S = rng.uniform(0.01, 1, size=(12, 2))
    got = group_labels(S, groups, 2)
    expected = _brute_group_labels(S, groups, 2)
    assert_array_equal(got, expected)
    assert np.all(got[must[:, 0]] == got[must[:, 1]])
    assert np.all(got[cannot[:, 0]] != got[cannot[:, 1]])


@pytest.mark.parametrize("seed", range(8))
def test_many_cluster_group_labels_keep_groups_and_respect_cannot_links(seed):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 4, size=30)
    must, cannot = sample_links(y, 20, random_state=seed)
    groups = link_groups(must, cannot, 30)
    S = np.eye(4)[y] + rng.uniform(0, 0.3, size=(30, 4))  # scores close to the truth
    got = group_labels(S, groups, 4, penalty=1.0)
    assert np.all(got[must[:, 0]] == got[must[:, 1]])
    assert np.all(got[cannot[:, 0]] != got[cannot[:, 1]])



@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("keep_cannot_links", [False, True])
def test_many_cluster_group_labels_do_not_depend_on_the_sample_order(
        seed, keep_cannot_links):
    # conditional modes (and the colouring) visit the groups one by one; renumbering
    # the samples (hence the groups) must not change the labelling. Groups of
    # one sample (all of equal size) and noisy scores make the visiting order
    # matter; the links leave the group graph far from a clique
    rng = np.random.RandomState(seed)
    n, c = 24, 3
    y = rng.randint(0, c, size=n)
    must, cannot = sample_links(y, 18, random_state=seed)
    S = rng.uniform(0.01, 1, size=(n, c))
    perm = rng.permutation(n)
    new_index = np.argsort(perm)  # old sample i is at new_index[i]
    got = group_labels(S, link_groups(must, cannot, n), c,
                       keep_cannot_links=keep_cannot_links)
    got_perm = group_labels(
        S[perm], link_groups(new_index[must], new_index[cannot], n), c,
        keep_cannot_links=keep_cannot_links,
    )
    assert_array_equal(got_perm, got[perm])


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n_linked_classes", [3, 4])
def test_cannot_linked_clique_of_groups_gets_the_exact_optimum(seed, n_linked_classes):
    # partial-label structure: one chain of must-links per class for
    # n_linked_classes of the 4 classes, every two of those groups
    # cannot-linked; the scores are noise, so the argmax often puts two
    # cannot-linked groups in one cluster and only an assignment finds the
    # best labelling that keeps them apart
    rng = np.random.RandomState(seed)
    c, n = 4, 14
    y = np.arange(n) % c
    members = [np.flatnonzero(y == k)[: 1 + seed % 3] for k in range(n_linked_classes)]
    must = np.array([[m[i], m[i + 1]] for m in members for i in range(len(m) - 1)],
                    dtype=np.intp).reshape(-1, 2)
    cannot = np.array([[members[a][0], members[b][0]]
                       for a in range(n_linked_classes)
                       for b in range(a + 1, n_linked_classes)], dtype=np.intp)
    groups = link_groups(must, cannot, n)
    S = rng.uniform(0.01, 1, size=(n, c))
    got = group_labels(S, groups, c)
    # exhaustive over the linked groups' distinct clusters; every other group
    # (no link) takes its largest mass
    mass = np.zeros((groups.n_groups, c))
    np.add.at(mass, groups.group, S / S.sum(axis=1, keepdims=True))
    linked = np.unique(groups.cannot_pairs)
    best = max(itertools.permutations(range(c), linked.size),
               key=lambda p: mass[linked, list(p)].sum())
    expected = mass.argmax(axis=1)
    expected[linked] = best
    assert_array_equal(got, expected[groups.group])
    assert np.all(got[cannot[:, 0]] != got[cannot[:, 1]])
    assert np.all(got[must[:, 0]] == got[must[:, 1]])


def _largest_clique_by_brute_force(C):
    """Size of the largest set of pairwise adjacent nodes, every subset tried."""
    n = C.shape[0]
    A = C.toarray() > 0
    for size in range(n, 0, -1):
        for nodes in itertools.combinations(range(n), size):
            if all(A[a, b] for a, b in itertools.combinations(nodes, 2)):
                return size
    return 0


def _random_groups(seed, n, max_must, min_cannot, max_cannot):
    """Groups of random links among ``n`` samples (self-pairs dropped)."""
    rng = np.random.RandomState(seed)
    must = rng.randint(0, n, size=(rng.randint(0, max_must), 2))
    cannot = rng.randint(0, n, size=(rng.randint(min_cannot, max_cannot), 2))
    must = must[must[:, 0] != must[:, 1]]
    cannot = cannot[cannot[:, 0] != cannot[:, 1]]
    return link_groups(must, cannot, n)


@pytest.mark.parametrize("seed", range(12))
def test_cannot_clique_is_a_clique_no_larger_than_the_largest(seed):
    groups = _random_groups(seed, 11, 4, 1, 25)
    clique = cannot_clique(groups)
    A = groups.cannot_matrix.toarray() > 0
    assert len(set(clique.tolist())) == clique.size >= 1
    assert all(A[a, b] for a, b in itertools.combinations(clique, 2))
    assert clique.size <= _largest_clique_by_brute_force(groups.cannot_matrix)


def _two_colourable_by_brute_force(A, nodes):
    """Whether some 0/1 colouring of ``nodes`` splits every edge among them."""
    nodes = list(nodes)
    edges = [(a, b) for a, b in itertools.combinations(nodes, 2) if A[a, b]]
    return any(all(colour[nodes.index(a)] != colour[nodes.index(b)]
                   for a, b in edges)
               for colour in itertools.product((0, 1), repeat=len(nodes)))


@pytest.mark.parametrize("seed", range(16))
def test_odd_cycle_groups_are_the_components_two_colours_cannot_split(seed):
    from scipy.sparse.csgraph import connected_components

    groups = _random_groups(seed, 10, 3, 0, 12)
    A = groups.cannot_matrix.toarray() > 0
    _, component = connected_components(groups.cannot_matrix, directed=False)
    expected = [
        a for a in range(groups.n_groups)
        if not _two_colourable_by_brute_force(
            A, np.flatnonzero(component == component[a]))
    ]
    assert_array_equal(odd_cycle_groups(groups), expected)


def test_odd_cycle_groups_of_a_five_cycle_and_not_of_a_four_cycle():
    five = link_groups(np.empty((0, 2), int),
                       np.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 0]]), 7)
    assert_array_equal(np.sort(five.group[[0, 1, 2, 3, 4]]),
                       np.sort(odd_cycle_groups(five)))
    four = link_groups(np.empty((0, 2), int),
                       np.array([[0, 1], [1, 2], [2, 3], [3, 0]]), 7)
    assert odd_cycle_groups(four).size == 0
    # the cycle is read between must-link groups: with 1 and 3 together the
    # four-cycle is the path 0 - {1, 3} - 2, still two-colourable ...
    joined = link_groups(np.array([[1, 3]]),
                         np.array([[0, 1], [1, 2], [2, 3], [3, 0]]), 7)
    assert odd_cycle_groups(joined).size == 0
    # ... while {0, 2}, 1 and 3 below are pairwise cannot-linked: a triangle
    triangle = link_groups(np.array([[0, 2]]),
                           np.array([[0, 1], [1, 2], [2, 3], [3, 1]]), 7)
    assert odd_cycle_groups(triangle).size == 3


@pytest.mark.parametrize("n_classes", [1, 2, 5])
def test_cannot_clique_of_partial_labels_is_one_group_per_class(n_classes):
    labels = np.full(40, -1)
    labels[: 4 * n_classes] = np.repeat(np.arange(n_classes), 4)
    groups = groups_from_labels(encode_partial_labels(labels))
    assert cannot_clique(groups).size == n_classes


def _separates_every_cannot_link(must, cannot, n):
    """True when no chain of ``must`` joins the two samples of a cannot-link
    (union-find by hand)."""
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in must:
        parent[find(i)] = find(j)
    return all(find(i) != find(j) for i, j in cannot)


@pytest.mark.parametrize("seed", range(8))
def test_repair_of_one_contradiction_removes_the_fewest_must_links(seed):
    # one cannot-link inside a random must-link graph of 7 samples: the
    # repair keeps the most must-links that leave its samples apart, as the
    # enumeration of every subset finds
    rng = np.random.default_rng(seed)
    pairs = np.array(list(itertools.combinations(range(7), 2)))
    must = pairs[rng.random(len(pairs)) < 0.35]
    while _separates_every_cannot_link(must, [[0, 6]], 7):  # join 0 and 6
        must = np.vstack([must, [[int(rng.integers(0, 6)), 6]]])
    cannot = np.array([[0, 6]])
    keep = repaired_must_links(must, cannot, 7)
    assert _separates_every_cannot_link(must[keep], cannot, 7)
    fewest = min(
        k for k in range(len(must) + 1)
        for removed in itertools.combinations(range(len(must)), k)
        if _separates_every_cannot_link(np.delete(must, removed, axis=0), cannot, 7)
    )
    assert (~keep).sum() == fewest


@pytest.mark.parametrize("seed", range(6))
def test_repair_resolves_every_contradiction_and_spares_consistent_links(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, 40)
    must, cannot = sample_links(y, 120, random_state=seed)
    # flip a few links: contradictions appear
    flip = rng.permutation(len(cannot))[:4]
    must_noisy = np.vstack([must, cannot[flip]])
    keep = repaired_must_links(must_noisy, cannot, 40)
    assert _separates_every_cannot_link(must_noisy[keep], cannot, 40)
    assert (~keep).sum() <= len(must_noisy)
    # links that contradict nothing are returned whole
    assert repaired_must_links(must, cannot, 40).all()
    assert repaired_must_links(must, np.empty((0, 2), int), 40).all()
    assert repaired_must_links(np.empty((0, 2), int), cannot, 40).shape == (0,)


@pytest.mark.parametrize("seed", range(6))
def test_restricted_links_close_to_the_closure_among_the_kept_samples(seed):
    from smiclust.link_groups import closed_links, restricted_links

    rng = np.random.RandomState(seed)
    n = 30
    groups = link_groups(*random_links(rng, n, 18, 10), n)
    keep = rng.rand(n) < 0.6
    got_must, got_cannot = restricted_links(groups, keep)
    assert keep[got_must].all() and keep[got_cannot].all()
    assert (got_must[:, 0] < got_must[:, 1]).all()
    assert (got_cannot[:, 0] < got_cannot[:, 1]).all()
    # the closure of the restricted links, pair by pair, against the full
    # closure's pairs with both samples kept (contradicted cannot-links of
    # the full closure are not kept, so neither is any pair of one group)
    full_must, full_cannot = closed_links(groups)
    expected_must = {tuple(p) for p in full_must if keep[p].all()}
    expected_cannot = {tuple(p) for p in full_cannot if keep[p].all()}
    again = link_groups(got_must, got_cannot, n)
    m, c = closed_links(again)
    assert {tuple(p) for p in m} == expected_must
    assert {tuple(p) for p in c} == expected_cannot


@pytest.mark.parametrize("seed", range(8))
def test_large_cannot_linked_groups_whose_scores_agree_take_distinct_clusters(seed):
    # four classes of 10, each closed into one group by must-links, every two
    # classes cannot-linked; two small groups cannot-linked to one class only,
    # so the linked groups are no clique. The scores put classes 0 and 1 in
    # one cluster (as eigenvectors that merge two classes do): one cannot-
    # linked neighbour must not keep a large group there
    rng = np.random.RandomState(seed)
    c, size = 4, 10
    y = np.repeat(np.arange(c), size)
    n = y.size + 4
    must = np.array([[k * size + i, k * size + i + 1]
                     for k in range(c) for i in range(size - 1)], dtype=np.intp)
    must = np.vstack([must, [[40, 41], [42, 43]]])
    cannot = np.array([[a * size, b * size] for a in range(c) for b in range(a + 1, c)]
                      + [[40, 0], [42, 0]], dtype=np.intp)
    groups = link_groups(must, cannot, n)
    merged = np.where(y == 1, 0, y)
    S = np.vstack([np.eye(c)[merged], rng.uniform(0.01, 1, size=(4, c))])
    S[: y.size] += rng.uniform(0, 0.2, size=(y.size, c))
    got = group_labels(S, groups, c)
    # the four class groups form the clique: the best assignment of distinct
    # clusters, found exhaustively
    mass = np.zeros((groups.n_groups, c))
    np.add.at(mass, groups.group, S / S.sum(axis=1, keepdims=True))
    class_groups = groups.group[np.arange(c) * size]
    best = max(itertools.permutations(range(c)),
               key=lambda p: mass[class_groups, list(p)].sum())
    assert_array_equal(got[np.arange(c) * size], best)
    assert np.all(got[cannot[:, 0]] != got[cannot[:, 1]])
    assert np.all(got[must[:, 0]] == got[must[:, 1]])


def _saturation_colouring_by_loops(labels, mass, groups, todo):
    """Slow reference of the most-constrained-first colouring: Python sets."""
    labels = labels.copy()
    C = groups.cannot_matrix.tolil().rows
    n_groups, c = mass.shape
    share = mass / np.maximum(mass.sum(axis=1, keepdims=True), np.finfo(float).tiny)
    order = np.lexsort((-share.max(axis=1), -groups.sizes))
    rank = {int(a): r for r, a in enumerate(order)}
    left = set(np.flatnonzero(todo).tolist())
    while left:
        def taken(a):
            return [labels[b] for b in C[a] if b not in left and b != a]
        a = max(left, key=lambda a: (len(set(taken(a))), -rank[a]))
        held = np.bincount(taken(a), minlength=c)
        free = [y for y in range(c) if held[y] == 0]
        pool = free or [y for y in range(c) if held[y] == held.min()]
        labels[a] = max(pool, key=lambda y: (share[a, y], -y))
        left.remove(a)
    return labels


@pytest.mark.parametrize("seed", range(12))
def test_saturation_colouring_matches_a_loop_reference(seed):
    rng = np.random.RandomState(seed)
    n, c = 40, int(3 + seed % 3)
    y = rng.randint(0, c, size=n)
    must, cannot = sample_links(y, 45, random_state=seed)
    if seed % 4 == 0:  # a few wrong links: clusters cannot always be free
        cannot = np.vstack([cannot, must[:3]])
    groups = link_groups(must, cannot, n)
    mass = rng.uniform(0, 1, size=(groups.n_groups, c))
    todo = np.zeros(groups.n_groups, dtype=bool)
    todo[np.unique(groups.cannot_pairs)] = True
    start = mass.argmax(axis=1)
    fixed = np.flatnonzero(todo)[:2]  # two groups already labelled
    todo[fixed] = False
    got = start.copy()
    _saturation_colouring(got, mass / mass.sum(axis=1, keepdims=True), groups, todo)
    assert_array_equal(got, _saturation_colouring_by_loops(start, mass, groups, todo))


@pytest.mark.parametrize("seed", range(8))
def test_kept_cannot_links_hold_where_sure_scores_contradict_them(seed):
    # scores that put every sample in cluster 0 (features that say nothing
    # of the classes); correct links whose cannot-link graph between groups
    # is a forest: a colouring that keeps every link exists and the most
    # constrained group first finds it, while the scores alone break them
    rng = np.random.RandomState(seed)
    n, c = 60, 3
    y = rng.randint(0, c, size=n)
    must, _ = sample_links(y, 25, random_state=seed)
    groups0 = link_groups(must, np.empty((0, 2), dtype=np.intp), n)
    reps = np.array([np.flatnonzero(groups0.group == g)[0]
                     for g in range(groups0.n_groups)])
    # a random spanning forest over the groups, between different classes
    cannot = []
    for i in range(1, reps.size):
        partners = [r for r in reps[:i] if y[r] != y[reps[i]]]
        if partners:
            cannot.append([reps[i], partners[rng.randint(len(partners))]])
    cannot = np.array(cannot, dtype=np.intp)
    groups = link_groups(must, cannot, n)
    S = np.tile([1.0, 0.2, 0.1], (n, 1)) + rng.uniform(0, 0.05, size=(n, c))
    kept = group_labels(S, groups, c, keep_cannot_links=True)
    assert np.all(kept[must[:, 0]] == kept[must[:, 1]])
    assert np.all(kept[cannot[:, 0]] != kept[cannot[:, 1]])
    # by default the sure scores may break them (what wrong links need)
    default = group_labels(S, groups, c)
    assert np.all(default[must[:, 0]] == default[must[:, 1]])
    assert np.any(default[cannot[:, 0]] == default[cannot[:, 1]])


@pytest.mark.parametrize("seed", range(6))
def test_keep_cannot_links_changes_nothing_with_two_clusters(seed):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 2, size=30)
    must, cannot = sample_links(y, 25, random_state=seed)
    cannot = np.vstack([cannot, must[:2]])  # contradictions: the ICM part runs
    groups = link_groups(must, cannot, 30)
    S = rng.uniform(0.01, 1, size=(30, 2))
    assert_array_equal(group_labels(S, groups, 2, keep_cannot_links=True),
                       group_labels(S, groups, 2))


@pytest.mark.parametrize("seed", range(6))
def test_cannot_counts_are_the_given_links_between_each_pair_of_groups(seed):
    y, must, cannot = _links(seed, n=20, n_links=40)
    groups = link_groups(must, cannot, y.size)
    for (a, b), count in zip(groups.cannot_pairs, groups.cannot_counts):
        between = sum(
            {groups.group[i], groups.group[j]} == {a, b} for i, j in cannot.tolist()
        )
        assert count == between
    assert_array_equal(groups.cannot_weights.toarray() > 0,
                       groups.cannot_matrix.toarray() > 0)


def test_cannot_counts_of_partial_labels_are_all_pairs_between_classes():
    codes = np.array([0, -1, 1, 0, -1, 2, 1, 0])
    groups = groups_from_labels(codes)
    must, cannot = pairs_from_labels(codes.astype(object))
    assert_array_equal(groups.cannot_counts, [3 * 2, 3 * 1, 2 * 1])
    assert groups.cannot_counts.sum() == len(cannot)


def _conditional_modes_by_loops(start, share, groups, links, penalty, todo, count):
    """Slow reference of the conditional modes: the given cannot-links read
    one by one (each costs ``penalty`` when ``count``, else each distinct
    cannot-linked group does), groups visited larger first, then larger
    gain."""
    labels = start.copy()
    g, c = share.shape
    gid = groups.group
    def cost(a, y):
        others = [gid[j] if gid[i] == a else gid[i] for i, j in links.tolist()
                  if a in (gid[i], gid[j]) and gid[i] != gid[j]]
        if not count:
            others = set(others)
        return share[a, y] - penalty * sum(labels[b] == y for b in others)
    for _ in range(20):
        gain = {a: max(cost(a, y) for y in range(c)) - cost(a, labels[a])
                for a in range(g) if todo[a]}
        movers = sorted((a for a in gain if gain[a] > 1e-12),
                        key=lambda a: (-groups.sizes[a], -gain[a]))
        if not movers:
            break
        for a in movers:
            costs = [cost(a, y) for y in range(c)]
            best = int(np.argmax(costs))
            if costs[best] > costs[labels[a]] + 1e-12:
                labels[a] = best
    return labels


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("count", [False, True])
def test_conditional_modes_match_a_loop_reference(seed, count):
    from smiclust.link_groups import _conditional_modes
    rng = np.random.RandomState(seed)
    n, c = 36, 3 + seed % 2
    y = rng.randint(0, c, size=n)
    must, cannot = sample_links(y, 90, random_state=seed)
    groups = link_groups(must, cannot, n)
    assert groups.cannot_counts.max() > 1  # some groups share several links
    share = rng.uniform(0, 1, size=(groups.n_groups, c))
    share /= share.sum(axis=1, keepdims=True)
    todo = np.zeros(groups.n_groups, dtype=bool)
    todo[np.unique(groups.cannot_pairs)] = True
    start = share.argmax(axis=1)
    got = start.copy()
    C = groups.cannot_weights if count else groups.cannot_matrix
    _conditional_modes(got, share, C, todo, 0.3, 20, groups.sizes)
    assert_array_equal(
        got, _conditional_modes_by_loops(start, share, groups, cannot, 0.3, todo, count)
    )


@pytest.mark.parametrize("n_links", [1, 40])
@pytest.mark.parametrize("count", [False, True])
def test_counted_cannot_links_outweigh_sure_scores_and_one_does_not(n_links, count):
    # two groups of 20 whose scores both say cluster 0, five clusters, and a
    # third linked group elsewhere (so no clique decides): one cannot-link
    # between the two gives way to the scores; forty do only when counted
    size, c = 20, 5
    must = np.array([[k * size + i, k * size + i + 1]
                     for k in range(2) for i in range(size - 1)], dtype=np.intp)
    cannot = np.array([[i, size + (i * 7) % size] for i in range(n_links)]
                      + [[0, 2 * size], [2 * size + 1, 2 * size + 2]], dtype=np.intp)
    n = 2 * size + 3
    S = np.full((n, c), 0.05)
    S[: 2 * size, 0] = 1.0
    S[2 * size :, 1:] = np.eye(c)[[2, 3, 4], 1:]
    groups = link_groups(must, np.unique(cannot, axis=0), n)
    got = group_labels(S, groups, c, count_cannot_links=count)
    together = got[0] == got[size]
    assert together == (n_links == 1 or not count)
    assert np.all(got[must[:, 0]] == got[must[:, 1]])


def test_group_labels_default_penalty_lets_sure_scores_keep_a_lone_cannot_link():
    # conditional modes at the documented default penalty of 0.3 per
    # cannot-linked group: group B (share 0.7 in cluster 0, 0.3 in 1) stays in
    # cluster 0 with its cannot-linked A, since 0.7 - 0.3 > 0.3; a penalty of
    # 0.5 (0.7 - 0.5 < 0.3) would move it
    must = np.array([[0, 1], [2, 3], [4, 5], [6, 7]])
    cannot = np.array([[0, 2], [4, 6]])  # A-B and C-D: no clique of all four
    S = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0],   # A: cluster 0
                  [0.7, 0.3, 0.0], [0.7, 0.3, 0.0],   # B
                  [0.0, 1.0, 0.0], [0.0, 1.0, 0.0],   # C: cluster 1
                  [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])  # D: cluster 2
    groups = link_groups(must, cannot, 8)
    assert group_labels(S, groups, 3).tolist() == [0, 0, 0, 0, 1, 1, 2, 2]
    assert group_labels(S, groups, 3, penalty=0.5).tolist() == [0, 0, 1, 1, 1, 1,
                                                                2, 2]
