"""The *noise* protocol: a fraction of the links of the pairs protocol flipped.

A run of the noise protocol draws the links of the pairs protocol at its link
level (:func:`smiclust.constraints.sample_links` with the run's seed), then
flips a fraction ``noise`` of them, must <-> cannot (:func:`flip_links`), and
gives the methods the flipped set. The flip is drawn from the run's seed
alone (its own stream, :data:`FLIP_STREAM`), through one permutation of the
links per seed: the links flipped at 5 % are among those flipped at 10 %, and
so on, and every method of a seed sees the same links.

For the fits that rank the given links by how much they contradict them
(``suspect_links_`` of :class:`smiclust.SMIClustering`), :func:`suspect_scores`
measures how well that ranking finds the flipped links. Pure functions on
validated arrays, apart from the checks they state.
"""

import math

import numpy as np

__all__ = [
    "FLIP_STREAM",
    "NOISE_FRACTIONS",
    "SUSPECT_FIELDS",
    "check_noise",
    "flip_count",
    "flip_links",
    "format_pairs",
    "parse_pairs",
    "suspect_scores",
]

#: Fractions of the links flipped in the noise protocol (issue 13, item 2).
NOISE_FRACTIONS = (0.0, 0.05, 0.1, 0.2, 0.3)

#: Second entry of the seed of the flip draw, ``numpy.random.default_rng((seed,
#: FLIP_STREAM))``: a stream of its own, apart from the draw of the links and
#: the methods' own randomness, which use the seed itself.
FLIP_STREAM = 13

#: Record fields of the suspect-link ranking (NaN where there is none).
SUSPECT_FIELDS = ("suspect_precision", "suspect_recall", "suspect_recall_2k",
                  "suspect_ap")


def check_noise(noise, name="noise"):
    """``noise`` as a float in [0, 1]; ValueError naming ``name`` otherwise."""
    try:
        value = float(noise)
    except (TypeError, ValueError):
        value = math.nan
    if isinstance(noise, bool) or not 0.0 <= value <= 1.0:
        raise ValueError(
            f"The '{name}' of the noise protocol must be a fraction of the links "
            f"in [0, 1]. Got {noise!r} instead."
        )
    return value


def flip_count(noise, n_links):
    """Number of links flipped: ``floor(noise x n_links + 1/2)`` (halves round
    up, e.g. 10 % of 25 links is 3)."""
    return int(math.floor(check_noise(noise) * int(n_links) + 0.5))


def flip_links(must, cannot, noise, seed):
    """Flip :func:`flip_count` of the links, must <-> cannot.

    The links flipped are the first ones of one permutation of all links
    (must-links first, then cannot-links) drawn by
    ``numpy.random.default_rng((seed, FLIP_STREAM))``, so one seed gives
    nested sets for growing ``noise``.

    Parameters
    ----------
    must, cannot : array-like of shape (n_pairs, 2)
        The links as drawn (correct).
    noise : float in [0, 1]
    seed : int

    Returns
    -------
    must, cannot : ndarray of shape (n_pairs, 2)
        The given links: the kept must-links then the flipped cannot-links;
        the kept cannot-links then the flipped must-links (each part in the
        drawn order).
    flipped : ndarray of bool, shape (len(must) + len(cannot),)
        Whether each returned link (returned must-links first) was flipped.
    """
    must = np.asarray(must, dtype=np.intp).reshape(-1, 2)
    cannot = np.asarray(cannot, dtype=np.intp).reshape(-1, 2)
    n_must, n_links = len(must), len(must) + len(cannot)
    k = flip_count(noise, n_links)
    order = np.random.default_rng((int(seed), FLIP_STREAM)).permutation(n_links)
    hit = np.zeros(n_links, dtype=bool)
    hit[order[:k]] = True
    hit_must, hit_cannot = hit[:n_must], hit[n_must:]
    new_must = np.concatenate([must[~hit_must], cannot[hit_cannot]]).reshape(-1, 2)
    new_cannot = np.concatenate([cannot[~hit_cannot], must[hit_must]]).reshape(-1, 2)
    flipped = np.concatenate([
        np.zeros(int((~hit_must).sum()), dtype=bool),
        np.ones(int(hit_cannot.sum()), dtype=bool),
        np.zeros(int((~hit_cannot).sum()), dtype=bool),
        np.ones(int(hit_must.sum()), dtype=bool),
    ])
    return new_must, new_cannot, flipped


def format_pairs(pairs):
    """``"i-j i-j ..."``: pairs as text for a record (empty for none)."""
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    return " ".join(f"{i}-{j}" for i, j in pairs)


def parse_pairs(text):
    """Inverse of :func:`format_pairs`: ndarray of shape (n_pairs, 2)."""
    items = str(text).split()
    try:
        pairs = [tuple(int(v) for v in item.split("-")) for item in items]
    except ValueError:
        pairs = [()]
    if any(len(p) != 2 for p in pairs):
        raise ValueError(
            "The 'flipped_links' of a record must be pairs 'i-j' separated by "
            f"spaces. Got {str(text)[:60]!r} instead."
        )
    return np.asarray(pairs, dtype=np.intp).reshape(-1, 2)


def suspect_scores(suspects, flipped_pairs):
    """How well a suspect-link ranking finds the flipped links.

    Parameters
    ----------
    suspects : dict of str to ndarray
        ``SMIClustering.suspect_links_``: the pairs ``i``, ``j`` and their
        ``score``, most suspect first.
    flipped_pairs : array-like of shape (k, 2)
        The flipped links (a pair is matched whatever its order).

    Returns
    -------
    scores : dict
        With ``k`` the number of flipped links: ``suspect_precision`` (flipped
        among the top ``k``, over ``k``), ``suspect_recall`` (the same over the
        number flipped: equal to the precision at this ``k``),
        ``suspect_recall_2k`` (among the top ``2 k``) and ``suspect_ap``
        (average precision of the score against the flip mask; a ranking by
        chance scores about the flipped fraction). NaN when none is flipped.
    """
    flipped = {(min(i, j), max(i, j)) for i, j in
               np.asarray(flipped_pairs, dtype=np.intp).reshape(-1, 2).tolist()}
    k = len(flipped)
    if k == 0:
        return dict.fromkeys(SUSPECT_FIELDS, math.nan)
    from sklearn.metrics import average_precision_score

    i = np.asarray(suspects["i"], dtype=np.intp).tolist()
    j = np.asarray(suspects["j"], dtype=np.intp).tolist()
    truth = np.array([(min(a, b), max(a, b)) in flipped for a, b in zip(i, j)],
                     dtype=bool)
    hits_k, hits_2k = int(truth[:k].sum()), int(truth[: 2 * k].sum())
    return {
        "suspect_precision": hits_k / k,
        "suspect_recall": hits_k / k,
        "suspect_recall_2k": hits_2k / k,
        "suspect_ap": float(average_precision_score(
            truth, np.asarray(suspects["score"], dtype=np.float64))),
    }
