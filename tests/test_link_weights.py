"""Per-link confidence weights: the weighted operator against brute-force
references, weight 1 equal to the paper's 3SMIC, weight 0 equal to no link."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from smiclust import SMIClustering, sample_links
from smiclust.constraints import check_link_weights, link_matrix, rank_suspect_links
from smiclust.kernels import local_scaling_kernel, modified_kernel
from smiclust.link_operator import SMICOperator, dense_smic_matrix
from smiclust.solver import solve_smic


def _problem(seed, n=60, c=2, n_links=30):
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(c), n // c)
    X = rng.normal(scale=2.5, size=(c, 3))[y] + rng.normal(size=(n, 3))
    must, cannot = sample_links(y, n_links, random_state=seed)
    wm = rng.uniform(0, 2, size=len(must))
    wc = rng.uniform(0, 2, size=len(cannot))
    return X, y, must, cannot, wm, wc


def _brute_modified_kernel(K, must, cannot, wm, wc):
    Kd = K.toarray()
    for (i, j), w in zip(cannot, wc):
        Kd[i, j] = Kd[j, i] = (1 - min(w, 1)) * Kd[i, j]
    for (i, j), w in zip(must, wm):
        Kd[i, j] = Kd[j, i] = Kd[i, j] + min(w, 1) * (1 - Kd[i, j])
    return Kd


@pytest.mark.parametrize("seed", range(4))
def test_weighted_kernel_and_operator_match_brute_force(seed):
    X, _, must, cannot, wm, wc = _problem(seed)
    K = local_scaling_kernel(X, 4)
    K_mod = modified_kernel(K, must, cannot, wm, wc)
    assert_allclose(K_mod.toarray(), _brute_modified_kernel(K, must, cannot, wm, wc),
                    atol=1e-14)
    n = X.shape[0]
    op = SMICOperator(K_mod, link_matrix(must, n, wm), link_matrix(cannot, n, wc),
                      0.7, 1.3)
    U = dense_smic_matrix(K_mod, must, cannot, 0.7, 1.3, wm, wc)
    V = np.random.RandomState(seed).normal(size=(n, 3))
    assert_allclose(op @ V, U @ V, rtol=1e-10, atol=1e-10)


def test_unit_weights_are_the_papers_3smic():
    X, _, must, cannot, _, _ = _problem(1)
    kw = dict(n_neighbors=[3, 5], links="paper", random_state=0)
    a = SMIClustering(2, **kw).fit(X, must_link=must, cannot_link=cannot)
    b = SMIClustering(2, **kw).fit(
        X, must_link=must, cannot_link=cannot,
        must_link_weight=np.ones(len(must)), cannot_link_weight=[1] * len(cannot),
    )
    assert_array_equal(a.labels_, b.labels_)
    assert_allclose(a.eigenvectors_, b.eigenvectors_, atol=1e-12)
    assert (a.n_neighbors_, a.gamma_, a.eta_) == (b.n_neighbors_, b.gamma_, b.eta_)


def test_zero_weight_is_the_same_as_leaving_the_link_out():
    X, _, must, cannot, _, _ = _problem(2)
    keep = np.ones(len(must), dtype=bool)
    keep[::3] = False
    kw = dict(n_neighbors=[3, 5], gamma=[0.0, 1.0], links="paper", random_state=0)
    a = SMIClustering(2, **kw).fit(X, must_link=must[keep], cannot_link=cannot,
                                   must_link_weight=np.ones(keep.sum()))
    b = SMIClustering(2, **kw).fit(X, must_link=must, cannot_link=cannot,
                                   must_link_weight=keep.astype(float))
    assert_array_equal(a.labels_, b.labels_)
    assert_allclose(a.eigenvalues_, b.eigenvalues_, rtol=1e-10)
    assert_array_equal(a.tuning_results_["criterion"], b.tuning_results_["criterion"])


@pytest.mark.parametrize("links", ["closure", "paper"])
def test_zero_weight_links_are_neither_counted_nor_ranked(links):
    # weight 0 is no link for n_violations_ and suspect_links_ too; the
    # others keep their rows among the given links in "index"
    from sklearn.datasets import make_blobs

    X, y = make_blobs(n_samples=150, centers=2, random_state=0, cluster_std=3)
    must, cannot = map(np.asarray, sample_links(y, n_links=30, random_state=0))
    i, j = np.flatnonzero(y == 0)[0], np.flatnonzero(y == 1)[0]  # a wrong must-link
    wm, wc = np.full(len(must), 0.5), np.full(len(cannot), 0.5)
    must_b = np.r_[[[i, j]], must]  # first, so every later row moves by one
    wc_b = wc.copy()
    wc_b[0] = 0.0
    b = SMIClustering(2, links=links, random_state=0).fit(
        X, must_link=must_b, cannot_link=cannot, must_link_weight=np.r_[0.0, wm],
        cannot_link_weight=wc_b)
    c = SMIClustering(2, links=links, random_state=0).fit(
        X, must_link=must, cannot_link=cannot[1:], must_link_weight=wm,
        cannot_link_weight=wc[1:])
    assert_array_equal(b.labels_, c.labels_)
    assert b.n_violations_ == c.n_violations_
    assert len(b.suspect_links_["i"]) == len(must) + len(cannot) - 1
    for key in ("i", "j", "kind", "score"):
        assert_array_equal(b.suspect_links_[key], c.suspect_links_[key])
    # index: rows of the given links (must-links one further down, and the
    # cannot-links too, as c was given cannot[1:])
    assert_array_equal(b.suspect_links_["index"], c.suspect_links_["index"] + 1)
    rows = b.suspect_links_["index"]
    is_must = b.suspect_links_["kind"] == "must"
    assert_array_equal(must_b[rows[is_must]], np.c_[b.suspect_links_["i"],
                                                    b.suspect_links_["j"]][is_must])
    assert_array_equal(cannot[rows[~is_must]], np.c_[b.suspect_links_["i"],
                                                     b.suspect_links_["j"]][~is_must])
    # at a positive weight the wrong must-link is ranked, under its row 0
    d = SMIClustering(2, links=links, random_state=0).fit(
        X, must_link=must_b, cannot_link=cannot, must_link_weight=np.r_[1e-3, wm],
        cannot_link_weight=wc)
    first = (d.suspect_links_["kind"] == "must") & (d.suspect_links_["index"] == 0)
    assert first.sum() == 1
    pair = (int(d.suspect_links_["i"][first][0]), int(d.suspect_links_["j"][first][0]))
    assert pair == (min(i, j), max(i, j))  # pairs are given as i < j


@pytest.mark.parametrize("links", ["closure", "paper"])
def test_links_of_weight_zero_widen_no_search_and_keep_the_warnings(links):
    # only links of weight 0: the candidates, labels and LSMI of the fit
    # without links, and eta's warning that there are no cannot-links
    import warnings

    from sklearn.datasets import make_blobs

    X, y = make_blobs(n_samples=80, centers=2, random_state=0)
    must, cannot = map(np.asarray, sample_links(y, n_links=8, random_state=0))
    plain = SMIClustering(2, links=links, random_state=0).fit(X)
    zero = SMIClustering(2, links=links, random_state=0).fit(
        X, must_link=must, cannot_link=cannot, must_link_weight=np.zeros(len(must)),
        cannot_link_weight=np.zeros(len(cannot)))
    assert zero.n_candidates_ == plain.n_candidates_
    assert plain.n_candidates_ <= len(plain.candidate_parameters(80)) == 10
    assert_array_equal(zero.labels_, plain.labels_)
    assert zero.lsmi_ == plain.lsmi_
    for kwargs in ({}, dict(cannot_link=cannot,
                            cannot_link_weight=np.zeros(len(cannot)))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            SMIClustering(2, n_neighbors=5, eta=1.0, links=links,
                          random_state=0).fit(X, must_link=must, **kwargs)
        messages = [str(w.message) for w in caught]
        assert "eta=1.0 is ignored: there are no cannot-links." in messages


def test_zero_weight_is_no_link_for_the_default_too():
    # the default's grid of n_neighbors (kNN graph joined by the must-links),
    # the choice of c and the warnings about links no labelling satisfies
    # read a link of weight 0 as no link
    import warnings

    from sklearn.datasets import make_blobs

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal([0, 0], 0.8, (60, 2)), rng.normal([3, 0], 0.8, (60, 2)),
                   rng.normal([1.5, 5], 0.3, (6, 2))])
    must, cannot = np.array([[0, 1], [60, 61], [120, 0]]), np.array([[0, 60]])
    a = SMIClustering(2, random_state=0).fit(
        X, must_link=must, cannot_link=cannot, must_link_weight=[1, 1, 0.0],
        cannot_link_weight=[1.0])
    b = SMIClustering(2, random_state=0).fit(
        X, must_link=must[:2], cannot_link=cannot, must_link_weight=[1, 1],
        cannot_link_weight=[1.0])
    assert_array_equal(a.labels_, b.labels_)
    assert_array_equal(a.tuning_results_["param_n_neighbors"],
                       b.tuning_results_["param_n_neighbors"])
    # five samples of one blob pairwise cannot-linked at weight 0: neither the
    # clique's five clusters nor the links reach the choice of c
    X, y = make_blobs(n_samples=200, centers=3, cluster_std=0.6, random_state=0)
    must, cannot = sample_links(y, 30, random_state=0)
    same = np.flatnonzero(y == 0)[:5]
    extra = np.array([[a, b] for k, a in enumerate(same) for b in same[k + 1:]])
    fits = []
    for links, weights in ((np.vstack([cannot, extra]),
                            np.r_[np.ones(len(cannot)), np.zeros(len(extra))]),
                           (cannot, np.ones(len(cannot)))):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning about the clique
            fits.append(SMIClustering("auto", random_state=0).fit(
                X, must_link=must, cannot_link=links, cannot_link_weight=weights,
                must_link_weight=np.ones(len(must))))
    assert fits[0].n_clusters_ == fits[1].n_clusters_ == 3
    assert_array_equal(fits[0].labels_, fits[1].labels_)
    # a cannot-link of weight 0 inside a must-link chain: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SMIClustering(2, n_neighbors=5, random_state=0).fit(
            X[:60], must_link=[[0, 1], [1, 2]], cannot_link=[[0, 2], [3, 4]],
            cannot_link_weight=[0.0, 0.0])
    with pytest.warns(UserWarning, match="chains of must-links"):
        SMIClustering(2, n_neighbors=5, random_state=0).fit(
            X[:60], must_link=[[0, 1], [1, 2]], cannot_link=[[0, 2], [3, 4]],
            cannot_link_weight=[0.5, 0.0])


@pytest.mark.parametrize("weights", [
    dict(must_link_weight="zeros"),  # the must-links all left out
    dict(cannot_link_weight="ones", must_link_weight="ones"),
    dict(cannot_link_weight="ones"),
])
def test_weights_that_change_nothing_keep_the_default_unweighted_fit(weights):
    # weights make the default use its links as given: weights of 0 (no
    # link) and 1 (the default) do not, whichever other kind of link is given
    from sklearn.datasets import make_blobs

    X, y = make_blobs(90, centers=3, cluster_std=2.5, random_state=1)
    must, cannot = sample_links(y, 30, random_state=0)
    given = {"must_link": must, "cannot_link": cannot}
    kw = {}
    for name, value in weights.items():
        n = len(given[name.replace("_weight", "")])
        kw[name] = np.zeros(n) if value == "zeros" else [1] * n
    expected = dict(given)
    if weights.get("must_link_weight") == "zeros":
        del expected["must_link"]
    a = SMIClustering(3, random_state=0).fit(X, **expected)
    b = SMIClustering(3, random_state=0).fit(X, **given, **kw)
    assert a.links_ == b.links_ == "closure"
    assert_array_equal(a.labels_, b.labels_)
    assert_array_equal(a.tuning_results_["criterion"], b.tuning_results_["criterion"])


def test_a_link_of_weight_zero_contradicts_nothing():
    # weight 0 is no link: the same pair cannot-linked is no pair in both
    from sklearn.datasets import make_blobs

    X, _ = make_blobs(60, centers=2, random_state=0)
    a = SMIClustering(2, random_state=0).fit(X, cannot_link=[[0, 1]])
    b = SMIClustering(2, random_state=0).fit(
        X, must_link=[[1, 0]], must_link_weight=[0.0], cannot_link=[[0, 1]])
    assert_array_equal(a.labels_, b.labels_)
    for weight in (0.5, 1.0):
        with pytest.raises(ValueError, match=r"both a must-link and a cannot-link "
                           r"in SMIClustering; 1 pair\(s\) are, the first is \(0, 1\)"):
            SMIClustering(2, random_state=0).fit(
                X, must_link=[[1, 0]], must_link_weight=[weight],
                cannot_link=[[0, 1]])


def test_empty_weights_of_a_kind_without_links_change_nothing():
    from sklearn.datasets import make_blobs

    X, y = make_blobs(90, centers=3, cluster_std=2.5, random_state=1)
    must, _ = sample_links(y, 30, random_state=0)
    a = SMIClustering(3, random_state=0).fit(X, must_link=must)
    b = SMIClustering(3, random_state=0).fit(X, must_link=must, cannot_link_weight=[])
    assert a.links_ == b.links_ == "closure"
    assert_array_equal(a.labels_, b.labels_)


def test_partial_labels_beside_links_of_weight_one_or_zero():
    # only weights that act are refused beside partial labels
    from sklearn.datasets import make_blobs

    X, y = make_blobs(90, centers=3, cluster_std=2.5, random_state=1)
    labels = np.full(90, -1)
    labels[:30:3] = y[:30:3]
    must = np.array([[40, 41], [50, 51]])
    must = must[y[must[:, 0]] == y[must[:, 1]]]
    a = SMIClustering(3, random_state=0).fit(X, must_link=must, partial_labels=labels)
    b = SMIClustering(3, random_state=0).fit(
        X, must_link=must, must_link_weight=[1.0] * len(must), partial_labels=labels)
    assert_array_equal(a.labels_, b.labels_)
    with pytest.raises(ValueError, match="partial_labels cannot be combined"):
        SMIClustering(3, random_state=0).fit(
            X, must_link=must, must_link_weight=[0.5] * len(must),
            partial_labels=labels)


@pytest.mark.parametrize("kw", [
    dict(must_link=[[0, 1]], must_link_weight=[0.0]),
    dict(cannot_link=[[0, 5]], cannot_link_weight=[0.0]),
    dict(must_link=[[0, 1]], must_link_weight=[0.0], cannot_link=[[0, 5]],
         cannot_link_weight=[0.0]),
])
def test_links_all_of_weight_zero_give_the_default_fit_without_links(kw):
    # weights alone would use the links as given (no spreading, no vote):
    # where every weight is 0 there is no link to use, and the fit is the one
    # without links
    from sklearn.datasets import make_blobs

    X, _ = make_blobs(200, centers=4, cluster_std=2.5, random_state=1)
    a = SMIClustering(4, random_state=0).fit(X)
    b = SMIClustering(4, random_state=0).fit(X, **kw)
    assert_array_equal(a.labels_, b.labels_)
    assert b.spread_from_ == a.spread_from_ == "scores"
    assert (a.n_neighbors_, a.gamma_, a.eta_) == (b.n_neighbors_, b.gamma_, b.eta_)
    assert b.n_violations_ == 0 and len(b.suspect_links_["index"]) == 0


def test_weights_reach_the_solver():
    X, _, must, cannot, wm, wc = _problem(3)
    K = local_scaling_kernel(X, 4)
    sol = solve_smic(K, must, cannot, 2, 1.0, 1.0, must_weight=wm,
                     cannot_weight=wc, eigen_solver="dense", random_state=0)
    U = dense_smic_matrix(modified_kernel(K, must, cannot, wm, wc), must, cannot,
                          1.0, 1.0, wm, wc)
    vals = np.linalg.eigvalsh(U)[::-1][:2]
    assert_allclose(np.sort(sol.eigenvalues)[::-1], vals, rtol=1e-8)


def test_weights_held_as_python_numbers_are_read_as_floats():
    # an object array of real numbers (as pandas gives) is read as the links
    # are, the same weights
    weights = np.array([1, 0.5, np.float32(2.0)], dtype=object)
    assert_array_equal(check_link_weights(weights, 3), [1.0, 0.5, 2.0])
    assert weights.dtype == object  # the caller's array is not changed


@pytest.mark.parametrize(
    "weights, error, match",
    [
        ([1.0, 2.0], ValueError, r"of shape \(3,\), one weight per link"),
        ([1.0, -1.0, 1.0], ValueError,
         r"finite, >= 0 and <= 1e\+100; weight 1 is -1.0"),
        ([1.0, np.nan, 1.0], ValueError, "weight 1 is nan"),
        ([1.0, 1e160, 1.0], ValueError, r"<= 1e\+100; weight 1 is 1e\+160"),
        ([1.0, np.inf, 1.0], ValueError, "weight 1 is inf"),
        (["a", "b", "c"], TypeError, "real numbers; got an array of dtype <U1"),
        ([True, False, True], TypeError, "dtype bool"),
        ([[1.0, 1.0, 1.0]], ValueError, r"got shape \(1, 3\)"),
        (sp.csr_matrix([[1.0, 0.5, 2.0]]), TypeError,
         r"a dense 1-d array of real numbers; got a sparse matrix of shape \(1, 3\)"),
        (np.array([1.0, "a", 2.0], dtype=object), TypeError, "dtype object"),
        (np.array([1.0, True, 2.0], dtype=object), TypeError, "dtype object"),
    ],
)
def test_bad_weights_are_rejected_by_name(weights, error, match):
    with pytest.raises(error, match=match):
        check_link_weights(weights, 3, name="must_link_weight", owner="fit")
    X = np.random.RandomState(0).normal(size=(20, 2))
    with pytest.raises(error, match="'cannot_link_weight' parameter of SMIClustering"):
        SMIClustering(2, n_neighbors=3).fit(
            X, cannot_link=[[0, 1], [2, 3], [4, 5]], cannot_link_weight=weights
        )


@pytest.mark.parametrize(
    "params, fit, match",
    [
        ({"gamma": 1e100}, {"must_link_weight": [1e100, 1.0]},
         "'must_link_weight' parameter of SMIClustering times gamma must be at "
         r"most 1e\+100 .*gamma up to 1e\+100 and must_link_weight up to 1e\+100"),
        ({"eta": [1.0, 1e60]}, {"cannot_link_weight": [1e50]},
         "'cannot_link_weight' parameter of SMIClustering times eta"),
        # "auto": the grid a fit with weights searches, up to 10
        ({}, {"must_link_weight": [1e100, 1.0]},
         "'must_link_weight' parameter of SMIClustering times gamma .*gamma up "
         "to 10"),
    ],
)
def test_weight_times_gamma_or_eta_beyond_range_is_rejected(params, fit, match):
    # each factor is in range, their product (the link's weight in U) is not:
    # beyond it U overflowed and every sample fell into one cluster
    X = np.random.RandomState(0).normal(size=(20, 2))
    model = SMIClustering(2, n_neighbors=3, **params)
    must = [[0, 1], [2, 3]][: len(fit.get("must_link_weight", []))]
    with pytest.raises(ValueError, match=match):
        model.fit(X, must_link=must, cannot_link=[[4, 5]] if "cannot_link_weight"
                  in fit else None, **fit)
    assert not hasattr(model, "labels_")


def test_largest_weights_in_range_give_a_finite_fit():
    X = np.random.RandomState(0).normal(size=(40, 2))
    model = SMIClustering(2, n_neighbors=5, gamma=1.0, random_state=0).fit(
        X, must_link=[[0, 1]], must_link_weight=[1e100]
    )
    assert np.isfinite(model.eigenvalues_).all()
    assert np.bincount(model.labels_).size == 2


def test_weights_are_not_modified():
    X, _, must, cannot, wm, wc = _problem(4)
    wm0, wc0 = wm.copy(), wc.copy()
    SMIClustering(2, n_neighbors=4, random_state=0).fit(
        X, must_link=must, cannot_link=cannot, must_link_weight=wm,
        cannot_link_weight=wc)
    assert_array_equal(wm, wm0)
    assert_array_equal(wc, wc0)


def test_suspect_links_match_a_brute_force_ranking():
    rng = np.random.RandomState(0)
    P = rng.dirichlet(np.ones(3), size=12)
    must = np.array([[0, 1], [2, 3], [4, 5]])
    cannot = np.array([[6, 7], [8, 9]])
    got = rank_suspect_links(P, must, cannot)
    expected = []
    for k, (i, j) in enumerate(must):
        expected.append((1 - sum(P[i, c] * P[j, c] for c in range(3)), "must", k))
    for k, (i, j) in enumerate(cannot):
        expected.append((sum(P[i, c] * P[j, c] for c in range(3)), "cannot", k))
    expected.sort(key=lambda e: -e[0])
    assert_allclose(got["score"], [e[0] for e in expected], atol=1e-12)
    assert got["kind"].tolist() == [e[1] for e in expected]
    assert got["index"].tolist() == [e[2] for e in expected]


def test_suspect_links_without_links_keep_their_dtypes():
    X = np.random.RandomState(0).normal(size=(30, 2))
    empty = SMIClustering(2, n_neighbors=3, random_state=0).fit(X).suspect_links_
    full = SMIClustering(2, n_neighbors=3, random_state=0).fit(
        X, must_link=[[0, 1]]).suspect_links_
    assert {k: v.dtype for k, v in empty.items()} == {
        k: v.dtype for k, v in full.items()}
    assert all(len(v) == 0 for v in empty.values())


def test_flipped_links_rank_first():
    rng = np.random.RandomState(5)
    y = np.repeat([0, 1], 60)
    X = np.array([[0.0, 0.0], [8.0, 0.0]])[y] + rng.normal(size=(120, 2))
    must, cannot = sample_links(y, 60, random_state=5)
    flipped = np.array([must[0], must[1]])
    model = SMIClustering(2, n_neighbors=5, random_state=0).fit(
        X, must_link=must[2:], cannot_link=np.vstack([cannot, flipped])
    )
    top = model.suspect_links_
    top_pairs = {(int(i), int(j)) for i, j in zip(top["i"][:2], top["j"][:2])}
    assert top_pairs == {tuple(p) for p in flipped.tolist()}
