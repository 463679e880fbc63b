"""Plain-data configuration of the reproduction of the 3SMIC experiments.

Everything here is data (dicts, tuples, numbers, strings): the runner turns a
config into runs, the report reads the records the runs leave on disk.

A config is a dict with the keys

``name`` : str
    ``"full"``, ``"quick"``, ``"beyond"``, ``"noise"`` or ``"noise-quick"``
    (written into the report; ``"beyond"`` selects the report of
    :mod:`~smiclust.experiments._beyond`, a name starting with ``"noise"``
    that of :mod:`~smiclust.experiments._noise_report`).
``seeds`` : tuple of int
    One run per seed; the seed draws the sub-sample (digits500, digits5k,
    faces100), the links and the method's own randomness, so every method
    sees the same data and the same links.
``datasets`` : dict
    Data-set name (a key of :data:`smiclust.datasets.DATASETS` or
    :data:`smiclust.datasets.SKLEARN_DATASETS`) -> dict with
    ``link_fractions`` (numbers of links as fractions of all
    ``n (n - 1) / 2`` pairs) and ``preprocessing`` (names in
    :data:`PREPROCESSING`).
``methods`` : dict
    Method name (a key of :data:`METHODS`) -> settings overriding the
    registry's defaults: ``ts`` (values of the kernel parameter ``t`` to run;
    ``(None,)`` for methods without ``t`` or tuning it themselves), ``params``
    (keyword arguments of the estimator or adapter), and for peers
    ``time_budget`` (seconds per run; a run that takes longer is stopped and
    recorded as skipped, and so are the later runs of that peer on that data
    set at the same or a larger link fraction), ``max_samples`` and
    ``max_features`` (larger data sets are skipped with the registry's
    ``skip_reason``); ``protocols`` (``"pairs"`` and/or ``"labels"``, below).

A data set's spec may also hold ``label_fractions``: runs of the *labels*
protocol, where that fraction of the samples (``round(fraction x n)``, drawn
by the seed) is labelled and every pair of labelled samples is linked
(must-link when their labels agree). The ``link_fractions`` runs are the
paper's *pairs* protocol: random pairs. A method runs in the protocols its
``protocols`` names (LabelSpreading, which needs labels, only in
``"labels"``).

A spec may also hold ``noise_link_fractions`` and ``noise_fractions`` (both
or neither): runs of the *noise* protocol, the pairs protocol's links at each
of the ``noise_link_fractions`` with each of the ``noise_fractions`` of them
flipped, must <-> cannot (:mod:`~smiclust.experiments._noise`). A method
whose registry record says ``ignores_links`` (the default fitted without
links) runs there at noise 0 only: the flipped links do not change it.

:func:`full_config` is the paper's protocol, :func:`quick_config` a small
version that finishes in about a minute.
"""

import copy
import json
import numbers

import numpy as np

from ._noise import NOISE_FRACTIONS, check_noise

__all__ = [
    "BEYOND_DATASETS",
    "BEYOND_METHODS",
    "NOISE_DATASETS",
    "NOISE_FRACTIONS",
    "NOISE_METHODS",
    "NOISE_PREPROCESSING",
    "PAPER_TS",
    "PREPROCESSING",
    "LINK_FRACTIONS",
    "METHODS",
    "PAPER_METHODS",
    "PEER_METHODS",
    "PROTOCOLS",
    "REPRODUCTION_METHODS",
    "beyond_config",
    "full_config",
    "noise_config",
    "noise_quick_config",
    "quick_config",
    "make_config",
    "merge_configs",
]

#: Values of the kernel parameter t of SL and CSC in the paper.
PAPER_TS = (1, 4, 7, 10)

#: Feature preprocessing variants, applied to the whole ``X`` of a run.
#: ``"raw"``: as loaded (the USPS pixels are already in [-1, 1], the Olivetti
#: pixels in [0, 1]); ``"standardized"``: every feature centred and scaled to
#: unit variance (constant features left at 0). The paper does not say how the
#: UCI features were scaled, so both are run on parkinson, spam and sonar.
PREPROCESSING = ("raw", "standardized")

#: Link levels per data set, as fractions of all pairs. Each list starts with
#: no links and ends where the best methods are near-perfect; in between it is
#: roughly geometric, and it contains the levels the paper quotes (3 % of the
#: pairs on parkinson, 0.1 % on spam). Link counts (rounded):
#:
#: * parkinson (n=195, 18,915 pairs): 0, 95, 189, 378, 567, 946, 1,892
#: * sonar (n=208, 21,528 pairs): 0, 108, 215, 431, 646, 1,076, 2,153
#: * spam (n=4,601, 10,582,300 pairs): 0, 106, 317, 1,058, 3,175, 10,582, 31,747
#: * digits500 (n=500, 124,750 pairs): 0, 125, 312, 624, 1,248, 2,495, 6,238
#: * digits5k (n=5,000, 12,497,500 pairs): 0, 375, 1,250, 3,749, 12,498,
#:   37,492, 124,975
#: * faces100 (n=100, 4,950 pairs): 0, 25, 50, 99, 248, 495, 990
#:
#: Links per sample are ``2 x links / n = fraction x (n - 1)``: about 20 at the
#: top of the lists of the small sets, 25 on digits500, 14 on spam and 50 on
#: digits5k, where spectral methods are already near-perfect at 1 % of the
#: pairs.
LINK_FRACTIONS = {
    "parkinson": (0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1),
    "sonar": (0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1),
    "spam": (0.0, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3),
    "digits500": (0.0, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05),
    "digits5k": (0.0, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2),
    "faces100": (0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2),
}

_UCI = ("parkinson", "spam", "sonar")

#: Methods: name -> registry record. ``kind`` is ``"paper"`` (3SMIC and the
#: paper's baselines, run in-process) or ``"peer"`` (adapters of other
#: libraries, run in a worker process with a time budget, see
#: :mod:`smiclust.experiments._peers`).
METHODS = {
    "3smic": {
        "label": "3SMIC (auto)",
        "kind": "paper",
        "ts": (None,),
        "params": {},
        "description": (
            "SMIClustering with t, gamma and eta chosen by the paper's criterion "
            "(LSMI / max LSMI - violations / max violations)"
        ),
    },
    "sl": {
        "label": "SL",
        "kind": "paper",
        "ts": PAPER_TS,
        "params": {},
        "description": "Spectral Learning (Kamvar, Klein & Manning, 2003)",
    },
    "csc": {
        "label": "CSC",
        "kind": "paper",
        "ts": PAPER_TS,
        "params": {"beta": "auto"},
        "description": (
            "Constrained Spectral Clustering (Wang & Davidson, 2010), beta='auto'"
        ),
    },
    "pckmeans": {
        "label": "PCKMeans",
        "kind": "peer",
        "ts": (None,),
        "params": {},
        "time_budget": 600.0,
        "max_samples": 1000,
        "max_features": None,
        "skip_reason": (
            "PCKMeans is pure Python: every iteration visits every sample and "
            "each of its links one by one, after a Python closure of the links; "
            "measured on a loaded 2-core machine (spam raw, 31,747 links, one "
            "seed): no result after 10 minutes (4.3 CPU-minutes), when it was "
            "stopped; the top link level alone (spam raw and standardised, "
            "digits5k; 20 seeds) would take over ten hours"
        ),
        "description": (
            "PCKMeans (Basu, Banerjee & Mooney, 2004), active-semi-supervised-"
            "clustering, defaults (w=1, max_iter=100)"
        ),
    },
    "mpckmeans": {
        "label": "MPCKMeans",
        "kind": "peer",
        "ts": (None,),
        "params": {},
        "time_budget": 600.0,
        "max_samples": 1000,
        "max_features": 100,
        "skip_reason": (
            "MPCKMeans is pure Python: each iteration finds the farthest pair of "
            "points by a double loop over all n (n - 1) / 2 pairs (10 million "
            "distance calls on spam) and computes det(A) of its d x d metric for "
            "every sample and cluster, O(n^2 + c n d^3); measured on a 2-core "
            "machine: digits500 (d=256) over 10 minutes per run, faces100 "
            "(d=4096) over a minute, sonar (n=208, d=60) about 10 s"
        ),
        "description": (
            "MPCKMeans (Bilenko, Basu & Mooney, 2004), active-semi-supervised-"
            "clustering, defaults (w=1, max_iter=10)"
        ),
    },
    "copkmeans": {
        "label": "COPKMeans",
        "kind": "peer",
        "ts": (None,),
        "params": {},
        "time_budget": 600.0,
        "max_samples": 1000,
        "max_features": None,
        "skip_reason": (
            "COP-KMeans is pure Python: every assignment of every sample checks "
            "its links one by one, in each of up to 100 iterations; measured on a "
            "2-core machine (spam raw, 31,747 links, one seed): no result after "
            "300 s (under 2.5 CPU-minutes), when the budget stopped it; the top "
            "link level alone (spam raw and standardised, digits5k; 20 seeds) "
            "would take over five hours"
        ),
        "description": (
            "COP-KMeans (Wagstaff et al., 2001), active-semi-supervised-"
            "clustering, defaults (max_iter=100); fails when no assignment "
            "satisfies the links"
        ),
    },
    "e2cp": {
        "label": "E2CP",
        "kind": "peer",
        "ts": (7,),
        "params": {"alpha": 0.6},
        "time_budget": 600.0,
        "max_samples": 1000,
        "max_features": None,
        "skip_reason": (
            "spectralcluster's ConstraintPropagation works on dense n x n "
            "matrices (an n x n inverse and four n x n products per fit); "
            "measured on a loaded 2-core machine (spam raw, 31,747 links, one "
            "seed): 44 s per fit, so its 420 runs on spam (raw and standardised) "
            "and digits5k would take about 3 CPU-hours, more than the session "
            "that ran the full reproduction had left"
        ),
        "description": (
            "Exhaustive and efficient constraint propagation (Lu & Ip, 2010; "
            "spectralcluster's ConstraintPropagation, alpha=0.6) on the "
            "local-scaling kNN affinity, then normalised spectral clustering"
        ),
    },
}

#: Methods beyond the paper: the library's default, and two peers built on
#: scikit-learn alone (run in-process, ``kind`` ``"default"`` and
#: ``"sklearn"``).
METHODS.update({
    "smiclust": {
        "label": "smiclust (default)",
        "kind": "default",
        "ts": (None,),
        "params": {},
        "description": (
            "SMIClustering(n_clusters, random_state=seed), the library's "
            "default: links closed into must-link groups and lifted "
            "cannot-links (links='closure'), t, gamma and eta chosen by the "
            "paper's criterion, with three clusters or more the labels "
            "voted by the best candidate of every t (consensus=True), each "
            "given cannot-link counted once chosen, and every cannot-link "
            "kept where SMIC without links agrees with the links no better "
            "than chance, the "
            "samples in no link labelled from the scores spread over the "
            "kernel graph (spreading='auto') and, where held-out linked "
            "samples show it better, a random forest on the linked samples "
            "voting with those scores or labelling them alone "
            "(classifier='auto'), links given as "
            "pairs that "
            "contradict themselves set aside when the data alone predict "
            "them better (link_test_level=0.05), "
            "with two clusters the degree-normalised kernel where LSMI "
            "prefers it clearly (kernel='auto'); in the labels protocol "
            "fit(X, partial_labels=...)"
        ),
    },
    "cobs": {
        "label": "COBS",
        "kind": "sklearn",
        "ts": (None,),
        "params": {},
        "description": (
            "COBS (Van Craenendonck & Blockeel, 2017) with scikit-learn: of "
            "k-means (5 seeds), spectral clustering (kNN graph with 5, 10, 20 "
            "neighbours; RBF with gamma 0.5, 2, 8 / median squared distance) "
            "and agglomerative clustering (ward, complete, average, single "
            "linkage), all with the true number of clusters, the one "
            "violating the fewest links (ties: the first)"
        ),
    },
    "labelspreading": {
        "label": "LabelSpreading",
        "kind": "sklearn",
        "ts": (None,),
        "params": {"kernel": "knn", "n_neighbors": 7},
        "protocols": ("labels",),
        "description": (
            "sklearn.semi_supervised.LabelSpreading(kernel='knn', "
            "n_neighbors=7) on the labelled samples; run only in the labels "
            "protocol (random pairs give no labels: must-link groups are not "
            "classes, and naming them after classes would need the answer)"
        ),
    },
})

#: The default fitted without links: the reference of the noise protocol
#: ("the same model without links", issue 13).
METHODS["smiclust-nolinks"] = {
    "label": "smiclust (no links)",
    "kind": "default",
    "ts": (None,),
    "params": {},
    "ignores_links": True,
    "description": (
        "SMIClustering(n_clusters, random_state=seed).fit(X): the library's "
        "default given no link, the reference 'same model without links'; "
        "in the noise protocol run once per link level and seed (at noise 0), "
        "as the flipped links do not change it"
    ),
}

#: Ways of drawing the links: ``"pairs"`` (random pairs, the paper's),
#: ``"labels"`` (a fraction of the samples labelled, all their pairs linked)
#: and ``"noise"`` (the pairs protocol's links, a fraction of them flipped).
PROTOCOLS = ("pairs", "labels", "noise")

#: The methods of the paper's figure.
PAPER_METHODS = tuple(m for m, v in METHODS.items() if v["kind"] == "paper")
#: Methods users would otherwise pick (optional ``bench`` extra).
PEER_METHODS = tuple(m for m, v in METHODS.items() if v["kind"] == "peer")
#: The methods of the reproduction (``full_config``).
REPRODUCTION_METHODS = PAPER_METHODS + PEER_METHODS


def _method_settings(name, overrides=None):
    base = copy.deepcopy(METHODS[name])
    for key, value in (overrides or {}).items():
        if key == "params":
            base["params"] = {**base["params"], **value}
        else:
            base[key] = value
    base["ts"] = tuple(base["ts"])
    if "protocols" in base:
        base["protocols"] = tuple(base["protocols"])
    return base


def make_config(name, *, datasets, methods, seeds, method_overrides=None):
    """Assemble a config dict (see the module docstring).

    Parameters
    ----------
    name : str
    datasets : dict
        Data-set name -> ``{"link_fractions": ..., "preprocessing": ...}``
        and optionally ``"label_fractions"`` (labels protocol).
    methods : sequence of str
        Keys of :data:`METHODS`.
    seeds : sequence of int
    method_overrides : dict, default=None
        Method name -> settings overriding the registry (``ts``, ``params``,
        ``time_budget``, ``max_samples``, ``max_features``).

    Returns
    -------
    config : dict
    """
    overrides = method_overrides or {}
    _check_config_parts(datasets, methods, seeds, overrides)

    def dataset_spec(name, spec):
        out = {
            "link_fractions": tuple(float(f) for f in spec["link_fractions"]),
            "preprocessing": tuple(spec["preprocessing"]),
        }
        if spec.get("label_fractions"):
            out["label_fractions"] = tuple(float(f) for f in spec["label_fractions"])
        out.update(_noise_spec(name, spec))
        return out

    return {
        "name": str(name),
        "seeds": tuple(int(s) for s in seeds),
        "datasets": {d: dataset_spec(d, spec) for d, spec in datasets.items()},
        "methods": {m: _method_settings(m, overrides.get(m)) for m in methods},
    }


def merge_configs(previous, config):
    """The config of an output directory once ``config`` has run in it.

    A run restricted on the command line (``--methods``, ``--datasets``,
    ``--seeds``) adds records to a directory that may hold more; its config
    must not hide them. With the same ``name``, the result is ``previous``
    (the directory's ``config.json``) with ``config``'s data sets and methods
    added or in place of theirs (``previous``'s order first; a data set in
    both keeps every level of either, each list of its settings the union)
    and the union of the seeds; with another name, or no ``previous``, it is
    ``config``.

    Parameters
    ----------
    previous : dict or None
        The directory's config, as read from ``config.json``.
    config : dict
        The config that runs now.

    Returns
    -------
    config : dict
        Plain JSON data (lists, not tuples), as ``config.json`` holds it.
    """
    if not previous or previous.get("name") != config["name"]:
        merged = config
    else:
        merged = {
            "name": config["name"],
            "seeds": sorted({int(s) for s in (*previous["seeds"], *config["seeds"])}),
            "datasets": {**previous["datasets"], **{
                name: _merge_dataset(previous["datasets"].get(name), spec)
                for name, spec in config["datasets"].items()}},
            "methods": {**previous["methods"], **config["methods"]},
        }
    return json.loads(json.dumps(merged))


def _merge_dataset(previous, spec):
    """A data set's settings after ``spec`` ran beside ``previous``: each list
    (link levels, preprocessings, noise levels) the union, ``previous``'s
    values first; other settings ``spec``'s."""
    if not isinstance(previous, dict):
        return spec
    merged = dict(spec)
    for key, values in spec.items():
        before = previous.get(key)
        if isinstance(values, (list, tuple)) and isinstance(before, (list, tuple)):
            merged[key] = [*before, *(v for v in values if v not in before)]
    return merged


#: The settings of a method that ``method_overrides`` may change (with any
#: other key of its entry in :data:`METHODS`).
OVERRIDE_KEYS = ("ts", "params", "time_budget", "max_samples", "max_features",
                 "protocols")


def _check_config_parts(datasets, methods, seeds, overrides):
    """ValueError / TypeError naming the part of :func:`make_config` that is
    not what a config holds."""
    from ..datasets import dataset_info

    def fail(parameter, expected, got):
        raise ValueError(f"The {parameter!r} parameter of make_config must be "
                         f"{expected}; got {got!r}.")

    if isinstance(methods, str) or not all(m in METHODS for m in methods):
        fail("methods", f"a sequence of method names among {sorted(METHODS)}",
             methods)
    if isinstance(seeds, (str, bytes)) or not all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool)
            and s >= 0 for s in seeds):
        fail("seeds", "a sequence of ints >= 0", seeds)
    if not isinstance(datasets, dict):
        fail("datasets", "a dict of data-set name -> spec", datasets)
    for name, spec in datasets.items():
        try:
            dataset_info(name)
        except ValueError as exc:
            raise ValueError(f"The 'datasets' parameter of make_config: {exc}") \
                from None
        where = f"datasets[{name!r}]"
        preprocessing = spec.get("preprocessing") if isinstance(spec, dict) else None
        if isinstance(preprocessing, str) or not preprocessing or not all(
                p in PREPROCESSING for p in preprocessing):
            fail(f"{where}['preprocessing']",
                 f"a non-empty sequence among {PREPROCESSING}", preprocessing)
        for key in ("link_fractions", "label_fractions"):
            fractions = spec.get(key, () if key == "label_fractions" else None)
            if fractions is None or isinstance(fractions, str) or not all(
                    isinstance(f, numbers.Real) and not isinstance(f, bool)
                    and 0 <= f <= 1 for f in fractions):
                fail(f"{where}[{key!r}]", "a sequence of fractions in [0, 1]",
                     fractions)
    for method, settings in overrides.items():
        if method not in methods:
            fail("method_overrides", f"a dict keyed by the methods run "
                 f"({list(methods)})", method)
        known = sorted(set(OVERRIDE_KEYS) | set(METHODS[method]))
        unknown = sorted(set(settings) - set(known))
        if unknown:
            fail(f"method_overrides[{method!r}]", f"settings among {known}", unknown)


_NOISE_KEYS = ("noise_link_fractions", "noise_fractions")


def _noise_spec(name, spec):
    """The noise keys of data set ``name``'s spec, checked: both or neither,
    every fraction in [0, 1]."""
    given = [k for k in _NOISE_KEYS if spec.get(k) is not None]
    if not given:
        return {}
    if len(given) == 1:
        missing = next(k for k in _NOISE_KEYS if k not in given)
        raise ValueError(
            f"The spec of data set {name!r} must give both {_NOISE_KEYS[0]!r} "
            f"and {_NOISE_KEYS[1]!r}, or neither. Got {given[0]!r} without "
            f"{missing!r} instead."
        )
    return {k: tuple(check_noise(f, f"{k}' of data set '{name}") for f in spec[k])
            for k in _NOISE_KEYS}


def _paper_datasets(names, **extra):
    """Data-set specs of the paper's protocol for ``names``: its link levels,
    the UCI sets raw and standardised, the image sets raw; plus ``extra``."""
    return {
        d: {
            "link_fractions": LINK_FRACTIONS[d],
            "preprocessing": PREPROCESSING if d in _UCI else ("raw",),
            **extra,
        }
        for d in names
    }


def full_config():
    """The paper's protocol: six data sets, 20 seeds, 3SMIC, SL, CSC and peers.

    3SMIC searches the estimator's default grids (``"auto"``: ``t`` in 1..10,
    ``gamma`` and ``eta`` in :data:`smiclust.model_selection.DEFAULT_GAMMAS` and
    ``DEFAULT_ETAS`` (``eta`` only on the binary sets)); SL and CSC run at
    ``t`` in (1, 4, 7, 10) on every
    data set, including SL at ``t=1`` on spam, which the paper left out for
    numerical problems (failures become records), and CSC on spam and
    digits5k, which the paper left out for cost. The UCI sets run raw and
    standardised.

    Returns
    -------
    config : dict
    """
    datasets = _paper_datasets(LINK_FRACTIONS)
    return make_config(
        "full", datasets=datasets, methods=REPRODUCTION_METHODS, seeds=range(20)
    )


#: 3SMIC settings of the quick mode: a 2 x 2 x 2 grid and a cheaper LSMI.
QUICK_3SMIC_PARAMS = {
    "n_neighbors": [4, 7],
    "gamma": [0.0, 1.0],
    "eta": [0.0, 1.0],
    "lsmi_n_centers": 100,
    "lsmi_n_folds": 3,
}


def quick_config():
    """About a minute: parkinson (raw) and faces100, 2 seeds, 3 link levels.

    3SMIC searches a 2 x 2 x 2 grid with a 100-centre, 3-fold LSMI
    (:data:`QUICK_3SMIC_PARAMS`); SL and CSC run at ``t=7`` only.

    Returns
    -------
    config : dict
    """
    datasets = {
        "parkinson": {"link_fractions": (0.0, 0.01, 0.03), "preprocessing": ("raw",)},
        "faces100": {"link_fractions": (0.0, 0.02, 0.1), "preprocessing": ("raw",)},
    }
    return make_config(
        "quick",
        datasets=datasets,
        methods=("3smic", "sl", "csc"),
        seeds=range(2),
        method_overrides={
            "3smic": {"params": dict(QUICK_3SMIC_PARAMS)},
            "sl": {"ts": (7,)},
            "csc": {"ts": (7,)},
        },
    )


#: Data sets of :func:`beyond_config`, smallest first (an interrupted run has
#: the small ones).
BEYOND_DATASETS = ("faces100", "parkinson", "sonar", "digits500")

#: Methods of :func:`beyond_config`: the new default, the paper's methods and
#: the peers that run here.
BEYOND_METHODS = ("smiclust", "3smic", "sl", "csc", "cobs", "e2cp", "pckmeans",
                  "mpckmeans", "copkmeans", "labelspreading")

#: Fractions of the samples labelled in the labels protocol of
#: :func:`beyond_config`.
BEYOND_LABEL_FRACTIONS = (0.05, 0.1, 0.2)


def beyond_config():
    """The library's default against the paper's 3SMIC, SL, CSC and the peers.

    parkinson and sonar (raw and standardised), digits500 and faces100 (raw),
    at the paper's link levels (:data:`LINK_FRACTIONS`, the *pairs*
    protocol), 5 seeds (the paper used 20). Methods: :data:`BEYOND_METHODS`;
    SL and CSC at ``t`` in (1, 4, 7, 10), 3SMIC and the default with the
    estimator's default grids. Then the *labels* protocol at
    :data:`BEYOND_LABEL_FRACTIONS` of the samples labelled, where
    LabelSpreading runs too; the pure-Python peers (PCKMeans, MPCKMeans,
    COPKMeans) and E2CP run in the pairs protocol only, to keep the run
    short.

    Returns
    -------
    config : dict
    """
    datasets = _paper_datasets(BEYOND_DATASETS,
                               label_fractions=BEYOND_LABEL_FRACTIONS)
    pairs_only = {m: {"protocols": ("pairs",)}
                  for m in ("e2cp", "pckmeans", "mpckmeans", "copkmeans")}
    return make_config("beyond", datasets=datasets, methods=BEYOND_METHODS,
                       seeds=range(5), method_overrides=pairs_only)


#: Data sets of :func:`noise_config`, smallest first -> link levels of the
#: noise protocol (a low and a medium one: about 2 and 10 links per sample on
#: parkinson and sonar, 1 and 5 on faces100, 1.2 and 5 on digits500, 1.5 and
#: 7.5 on iris, 1.8 and 9 on wine).
NOISE_DATASETS = {
    "faces100": (0.01, 0.05),
    "iris": (0.01, 0.05),
    "wine": (0.01, 0.05),
    "parkinson": (0.01, 0.05),
    "sonar": (0.01, 0.05),
    "digits500": (0.0025, 0.01),
}

#: Preprocessing of the data sets of :func:`noise_config` that do not run raw
#: (scikit-learn's iris and wine, whose features have different units).
NOISE_PREPROCESSING = {"iris": ("standardized",), "wine": ("standardized",)}

#: Methods of :func:`noise_config`: the default, the same without links, the
#: paper's 3SMIC, the hard-constraint peers and CSC at one ``t``.
NOISE_METHODS = ("smiclust", "smiclust-nolinks", "3smic", "copkmeans", "pckmeans",
                 "csc")

#: The ``t`` of CSC in :func:`noise_config`: its best over the beyond run's
#: link levels on faces100 and digits500, and near it on parkinson and sonar.
NOISE_CSC_T = 4


def _noise_datasets(levels, noise_fractions=NOISE_FRACTIONS):
    """Noise-protocol specs of ``levels`` (data set -> link levels): the
    preprocessing of :data:`NOISE_PREPROCESSING`, else raw."""
    return {d: {"link_fractions": (),
                "preprocessing": NOISE_PREPROCESSING.get(d, ("raw",)),
                "noise_link_fractions": lv, "noise_fractions": noise_fractions}
            for d, lv in levels.items()}


def noise_config():
    """Wrong links (issue 13, item 2): :data:`NOISE_DATASETS` (faces100,
    parkinson, sonar and digits500 raw; scikit-learn's iris and wine
    standardized, :data:`NOISE_PREPROCESSING`) at two link levels each,
    :data:`NOISE_FRACTIONS` of the links flipped, 5 seeds; :data:`NOISE_METHODS`,
    CSC at ``t =`` :data:`NOISE_CSC_T`, the peers with the registry's time
    budget. Only the noise protocol runs (its noise 0 is the pairs protocol).

    Returns
    -------
    config : dict
    """
    return make_config("noise", datasets=_noise_datasets(NOISE_DATASETS),
                       methods=NOISE_METHODS, seeds=range(5),
                       method_overrides={"csc": {"ts": (NOISE_CSC_T,)}})


def noise_quick_config():
    """A few seconds: faces100 at 5 % of the pairs, 0 and 20 % flipped, one
    seed, the methods of :func:`noise_config` (3SMIC on the quick grid).

    Returns
    -------
    config : dict
    """
    return make_config(
        "noise-quick",
        datasets=_noise_datasets({"faces100": (0.05,)}, (0.0, 0.2)),
        methods=NOISE_METHODS, seeds=(0,),
        method_overrides={"csc": {"ts": (NOISE_CSC_T,)},
                          "3smic": {"params": dict(QUICK_3SMIC_PARAMS)}},
    )
