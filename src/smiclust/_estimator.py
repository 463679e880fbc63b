"""SMIClustering estimator and its function twin: validation and glue only."""

import numbers
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.validation import check_is_fitted, validate_data

from .base import (
    BaseLinkClustering,
    graph_components,
    links_present,
    present_link_rows,
    warn_graph_components,
)
from .baselines._spectral_learning import spectral_learning_labels
from .classifier_vote import (
    MIN_UNLINKED_SHARE,
    VOTE_WEIGHT,
    chosen_weight,
    classifier_probabilities,
    fit_seed_classifier,
    matching_columns,
    out_of_bag_probabilities,
    uses_classifier,
    vote_probabilities,
)
from .consensus import best_per_neighbors, vote_scores
from .constraints import (
    MAX_LINK_WEIGHT,
    ConstraintConflictWarning,
    check_constraints,
    classes_of_codes,
    encode_partial_labels,
    link_violations,
    links_against_labels,
    pairs_from_codes,
    rank_suspect_links,
    unlinked_mask,
    violated_label_pairs,
)
from .kernels import (
    degree_normalized_cross_kernel,
    degree_normalized_kernel,
    kernel_from_neighbors,
    local_scales,
    local_scaling_cross_kernel,
    local_scaling_kernel_from_neighbors,
)
from .labeling import cluster_scores, row_probabilities
from .link_groups import (
    cannot_clique,
    group_labels,
    groups_from_labels,
    link_groups,
    odd_cycle_groups,
    repaired_must_links,
    restricted_links,
)
from .link_test import agreement_over_chance, link_folds, sign_test_pvalue
from .lsmi import LSMIDesign
from .model_selection import (
    CLOSURE_ETAS,
    CLOSURE_GAMMAS,
    DEFAULT_ETAS,
    DEFAULT_GAMMAS,
    DEFAULT_N_NEIGHBORS,
    candidate_grid,
    connected_neighbors_grid,
    search_parameters,
)
from .n_clusters import choose_n_clusters
from .score_spreading import (
    AUTO_ALPHAS,
    AUTO_LEVEL,
    SEED_ONLY_AGREEMENT,
    closed_link_agreement,
    held_out_seed_agreement,
    kernel_degrees,
    left_out_neighbour_labels,
    spread_labels,
    spread_new_rows,
    start_scale,
)
from .solver import (
    LinkSet,
    closed_link_labels,
    operator_digest,
    solve_link_operator,
    solve_links,
    with_labels,
)
from .utils import (
    HasMethods,
    IntegerGrid,
    Interval,
    Options,
    RealGrid,
    StepProgress,
    as_grid,
    at_unit_scale,
    canonical_sparse,
    check_n_neighbors,
    check_numeric,
    check_random_state_param,
    n_jobs_param,
    progress,
    single_threaded,
    user_stacklevel,
    validate_params,
)

__all__ = ["SMIClustering", "smi_clustering"]

#: Weight of every link when ``links="closure"`` meets links that contradict
#: themselves (a cannot-link inside a must-link group). With 10-20 % of the
#: links flipped it kept wine and iris near or above the fit without links
#: (wine, 158 links, 20 % flipped: 0.60 with weight 1, 0.85 with 0.3, 0.85
#: without links), and with 5 % flipped above both (0.87 vs 0.81 and 0.85).
CONTRADICTED_LINK_WEIGHT = 0.3

_NO_PAIRS = np.empty((0, 2), dtype=np.intp)
_NO_LINKS = LinkSet(_NO_PAIRS, _NO_PAIRS)

#: With three clusters or more and closed links, every cannot-link is kept
#: (``keep_cannot_links``) when SMIC without links agrees with the given
#: links no better than chance at this one-sided z (p = 0.05,
#: :func:`smiclust.link_test.agreement_over_chance`).
BLIND_DATA_Z = 1.645

#: Folds of the held-out link test (:mod:`smiclust.link_test`), and the LSMI
#: centres with which its fold fits choose ``n_neighbors`` (at most this
#: many, fewer than the search's: the fold fits predict links, their LSMI
#: values are not kept).
LINK_TEST_FOLDS = 5
LINK_TEST_LSMI_CENTERS = 100

#: LSMI centres of the paper (its Appendix): the search of ``links="paper"``
#: with ``lsmi_n_centers="auto"``, and the most any default search draws.
PAPER_LSMI_CENTERS = 500

#: With ``lsmi_n_centers="auto"`` and ``links="closure"``, the search draws
#: this many LSMI centres per cluster (at most :data:`PAPER_LSMI_CENTERS`),
#: and each class of a labelling keeps at most this many of them: scoring a
#: labelling solves systems of the size of each class's centres, a cost near
#: :math:`b^3/c^2` for ``b`` centres and ``c`` balanced clusters and near
#: :math:`b^3` for one dominant cluster (research notes, "LSMI centres of
#: the default's search scaled with the clusters", "At most 100 LSMI
#: centres per class of a labelling").
LSMI_CENTERS_PER_CLUSTER = 100

#: The vote over ``n_neighbors`` takes Spectral Learning's labellings too
#: when the samples are at least this many per cluster: its normalised
#: affinity keeps a large class whole where the paper's kernel splits it,
#: and breaks clusters of ten (research notes, rules SLV and SLV2).
SL_VOTE_MIN_CLUSTER_SIZE = 20

#: ... and at most this many samples: the sets where the gain was measured
#: had up to 1,040; on MNIST-70k the labellings cost 160 s and 0.08 ARI at
#: 1 % labelled (rule SLV2).
SL_VOTE_MAX_SAMPLES = 2000

#: Folds of the held-out seeds with which ``spreading="auto"`` chooses its
#: weight (:data:`smiclust.score_spreading.AUTO_ALPHAS`).
SPREADING_FOLDS = 5

#: Training samples with which a fit that links (almost) every sample
#: chooses the rule for new samples (rule PF4): up to this many, all of
#: them; above it, ``m`` drawn from the fit's seed, this many or fewer
#: (:func:`_new_sample_rule_rows`), so that the choice computes the
#: distances of ``m n`` pairs rather than ``n^2`` and its forest is
#: trained on ``m`` samples (20,000 samples: 34 s before, 11 s on a loaded
#: machine).
NEW_SAMPLE_RULE_MAX_SAMPLES = 5000

#: ... at most about this many distances (``m n``), with ``m`` at least
#: :data:`NEW_SAMPLE_RULE_MIN_SAMPLES`: 5,000 samples up to 20,000 training
#: samples, 1,000 from 100,000.
NEW_SAMPLE_RULE_MAX_DISTANCES = 10**8
NEW_SAMPLE_RULE_MIN_SAMPLES = 1000

#: From this many training samples the choice is announced before it starts
#: (it takes seconds).
_ANNOUNCED_RULE_SAMPLES = 2000

#: With ``kernel="auto"`` and two clusters, the fit on the degree-normalised
#: kernel replaces the fit on the local-scaling kernel only when the LSMI of
#: its labels is more than this many times the other's: LSMI ranks the two
#: kernels' labellings reliably only when they differ that much (research
#: notes, "A degree-normalised kernel for two clusters").
NORMALIZED_KERNEL_MARGIN = 1.2

#: Smallest eigen-solver tolerance on the normalised kernel with two
#: clusters: its leading eigenvalues crowd at its largest, where solving to
#: machine precision took ARPACK minutes on spam (4,601 samples) for labels
#: that 1e-6 gives in seconds. Three clusters or more are solved at ``tol``
#: (:meth:`SMIClustering._tol`). The normalised kernel gives every connected
#: component the same largest eigenvalue, of which ARPACK returns one mix;
#: every solve splits it over the cluster-sized components
#: (:func:`smiclust.eigensolvers.split_by_components`).
NORMALIZED_KERNEL_TOL = 1e-6


@dataclass(frozen=True)
class _Spread:
    """What the out-of-sample rule needs from a fit's score spreading."""

    F: np.ndarray
    seeded: np.ndarray
    degree: np.ndarray
    scale: float
    alpha: float
    #: new samples start from zero scores and hear only their fitted
    #: neighbours (spreading from the seeds alone, or from the vote)
    neighbours_only: bool
    #: the fitted classifier that votes on the samples in no link
    #: (:mod:`smiclust.classifier_vote`), else ``None``, and the column of
    #: its probabilities of each cluster
    classifier: object = None
    classifier_columns: np.ndarray | None = None
    #: the classifier's share of the vote (1: the classifier alone)
    classifier_weight: float = VOTE_WEIGHT

    def vote(self, F, X):
        """Rows of ``F`` (spread scores of the samples ``X``) as the fit
        labels the samples in no link: with the classifier, its vote
        (:func:`~smiclust.classifier_vote.vote_probabilities`)."""
        if self.classifier is None:
            return F
        P = classifier_probabilities(self.classifier, X, F.shape[1])
        return vote_probabilities(F, P[:, self.classifier_columns],
                                  self.classifier_weight)


@dataclass(frozen=True)
class _SpreadResult:
    """How a solve's samples in no link got their labels: ``source``,
    ``agreement``, ``alpha`` and ``pvalue`` become ``spread_from_``,
    ``link_agreement_``, ``spreading_`` and ``spreading_pvalue_``, ``rule``
    (``None`` when nothing was spread) is what :meth:`predict` needs."""

    source: str
    agreement: float
    rule: _Spread | None
    alpha: float = 0.0
    pvalue: float = float("nan")
    #: the classifier's vote rows of the samples in no link (what their
    #: labels are the argmax of), when a classifier voted
    vote_rows: np.ndarray | None = None


_NO_SPREAD = _SpreadResult("none", float("nan"), None)


@dataclass(frozen=True)
class _GraphSearch:
    """The candidates of one neighbour graph's parameter search, whether
    ``n_neighbors`` was among the choices (``t_chosen``), the search
    (``None`` with one candidate) and the chosen ``(n_neighbors, gamma,
    eta)``."""

    params: tuple
    search: object
    candidates: list
    t_chosen: bool


@dataclass(frozen=True)
class _GraphFit:
    """A search, final solve and spreading on one neighbour graph."""

    solution: object
    params: tuple
    search: object
    candidates: list
    t_chosen: bool
    spread: _SpreadResult


#: n_clusters="auto": the kernel's n_neighbors and the largest c tried
#: (docs/n-clusters.md measured the choice with these).
_AUTO_C_NEIGHBORS = 7
_AUTO_C_MAX = 20

class SMIClustering(BaseLinkClustering):
    r"""SMI-based clustering (SMIC) and its semi-supervised extension (3SMIC).

    Without links this is SMIC (Sugiyama et al., 2011); with must-links and/or
    cannot-links it is 3SMIC (Calandriello, Niu & Sugiyama, 2014). The
    default goes beyond both papers (``links``, ``spreading``, ``consensus``,
    ``classifier`` below): even without links it spreads SMIC's scores over
    the kernel graph and, with three clusters or more, votes over
    ``n_neighbors``; ``links="paper"`` is the papers' SMIC and 3SMIC exactly.
    The class
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
    The paper prints SMIC's rule with :math:`K\tilde\phi_y` and then, by
    :math:`K\tilde\phi_y = \lambda_y\tilde\phi_y`, with :math:`\tilde\phi_y`;
    for 3SMIC, whose :math:`\phi_y` are eigenvectors of ``U`` and not of
    :math:`K'`, the two differ, and the library reads the second (in a
    review of 12 seen fits it was ahead in 9, tied in 1, behind by at most
    0.02 in 2).

    ``U`` is never formed: it is applied to vectors as a sparse, matrix-free
    operator and its leading eigenvectors are found by ARPACK.

    Parameters
    ----------
    n_clusters : int or "auto", default=2
        Number of clusters ``c``. ``"auto"`` chooses it in ``q .. 20`` from
        the data and the links (:func:`smiclust.n_clusters.choose_n_clusters`:
        the eigengap of the normalised operator among the ``c`` that predict
        held-out links best, predicted on the closed links where the paper's
        3SMIC predicts them no better than chance and ``links="closure"``;
        measured in docs/n-clusters.md), see
        ``n_clusters_``; ``q`` is 2, or more when that many must-link groups
        are pairwise cannot-linked (:func:`smiclust.link_groups.cannot_clique`;
        with partial labels, the number of classes). An integer below such
        a clique warns (``ConstraintConflictWarning``). The choice reads a
        link of any positive weight as a link; links of weight 0 are left
        out. Without links only the eigengap decides: it over-splits most
        real tables and even low-dimensional blobs (docs/n-clusters.md,
        "Where it fails"); give a few links or read ``n_clusters_scores_``.
    n_neighbors : "auto", int or list of int, default="auto"
        Kernel parameter ``t``. ``"auto"`` searches ``1 .. 10`` (the paper's
        grid, capped at ``n_samples - 1``; on closed links only the ``t``
        whose graph, joined by the must-links, has at most ``n_clusters``
        connected components); a list searches that grid.
    gamma : "auto", float or list of float, default="auto"
        Must-link weight :math:`0 \le \gamma \le 10^{100}`. ``"auto"`` searches
        ``DEFAULT_GAMMAS`` = (0, 0.1, 1, 10) with ``links="paper"`` and
        ``CLOSURE_GAMMAS`` = (0, 1) on closed links.
    eta : "auto", float or list of float, default="auto"
        Cannot-link weight :math:`0 \le \eta \le 10^{100}`, used only when
        ``n_clusters == 2`` (fixed at 0 otherwise, as in the paper). ``"auto"``
        searches ``DEFAULT_ETAS`` = (0, 0.1, 1, 10) with ``links="paper"`` and
        ``CLOSURE_ETAS`` = (0, 1) on closed links.
    violation_penalty : float, default=1.0
        Weight :math:`w \ge 0` of the violated links in the criterion that
        chooses the "auto" parameters,
        :math:`\mathrm{LSMI}/\max\mathrm{LSMI} - w\,n_v/\max n_v`. 1 is the
        paper's criterion; larger values trust the links more (measured in the
        user guide, "What is tuned automatically"), 0 chooses by LSMI alone. No
        effect without links or when nothing is searched.
    links : {"closure", "paper"}, default="closure"
        How the links are used. ``"paper"`` is the paper's 3SMIC exactly: the
        links as given enter :math:`K'`, :math:`M` and :math:`C`, and labels
        are the paper's argmax. ``"closure"`` (beyond the paper) first closes
        them: must-links are transitive, so their connected components are
        groups whose samples all get must-links; a cannot-link holds between
        the two whole groups (:mod:`smiclust.link_groups`, applied through a
        sparse group indicator, never as dense blocks); the labels keep each
        group together and cannot-linked groups apart where the links allow
        (:func:`~smiclust.link_groups.group_labels`). The parameters are
        chosen by the same criterion. Measured in the user guide ("How the
        links act"). With link weights the links are used as given
        (``links_`` says so); links that contradict themselves (a cannot-link
        inside a must-link group: some links are wrong) are used as given
        with weight :data:`CONTRADICTED_LINK_WEIGHT` (0.3) each, or repaired
        (``contradictions``).
    contradictions : {"soften", "repair"}, default="soften"
        Beyond the paper, with ``links="closure"`` and unweighted links that
        contradict themselves (a cannot-link joining two samples that a chain
        of must-links puts together). ``"soften"``: every link is used as
        given with weight :data:`CONTRADICTED_LINK_WEIGHT`; measured best
        when many links are wrong (5-30 % flipped at random), but it leaves
        little of the links' value when only a few are wrong. ``"repair"``:
        for each contradiction the fewest must-links that separate its two
        samples (a minimum cut, :func:`~smiclust.link_groups.repaired_must_links`)
        are left out and the rest are closed as usual; for a few wrong links
        among many right ones (typos). The violations are still counted on
        every given link. Measured in docs/noisy-links.md.
    keep_cannot_links : bool, default=False
        Beyond the paper, with closed links (``links_ == "closure"``) and
        three clusters or more. ``False``: the groups that no exact rule
        places are labelled by iterated conditional modes, where scores that
        are sure of a cluster may break a lone cannot-link (what wrong links
        need; in the chosen candidate's labels every given cannot-link
        broken costs the same, so the many between two large groups hold),
        unless SMIC without links agrees with the links no better than
        chance (``links_agreement_z_`` below :data:`BLIND_DATA_Z`: the
        scores are blind to the links), where they are coloured as with
        ``True``. ``True``: they are coloured most constrained first, each
        taking its surest cluster that none of its cannot-linked groups
        holds, so every cannot-link is kept whenever that greedy colouring
        finds a way (:func:`~smiclust.link_groups.group_labels`). For links
        you trust: measured on four banks of real data never used for a
        choice, correct links gain +0.01 to +0.03 ARI on average (up to
        +0.36 in one case), while 5-30 % of wrong links among few lose
        0.01-0.12 (research notes, "Cannot-linked groups coloured
        most-constrained first").
    kernel : {"auto", "local-scaling", "normalized"}, default="auto"
        ``"local-scaling"`` is the paper's kernel :math:`K`;
        ``"normalized"`` is :math:`\bar d\, D^{-1/2} K D^{-1/2}` with
        :math:`D` the row sums of :math:`K` and :math:`\bar d` their median
        (:func:`~smiclust.kernels.degree_normalized_kernel`, the kernel of
        normalised spectral clustering), whose eigenvectors do not crowd
        into the densest cluster. ``"auto"`` (beyond the paper, with
        ``links="closure"`` and two clusters) fits both, the second
        searching ``n_neighbors`` at the first's ``gamma`` and ``eta``, and
        keeps the normalised fit only when the LSMI of its labels is more
        than :data:`NORMALIZED_KERNEL_MARGIN` (1.2) times the other's (up to
        twice the time of one fit without links, about a third more with
        links); otherwise ``"auto"`` is ``"local-scaling"``. ``kernel_``
        says which was used. With three clusters or more of different
        density, ``kernel="normalized", indicator_rotation=True`` is often
        much better (penguins without links 0.79 -> 0.95, olive oils by area
        0.66 -> 0.88) but not always (faces100 without links 0.74 -> 0.54;
        hawks, clusters of 577, 261 and 70, 0.95 -> 0.70), and neither LSMI
        nor held-out links tell which (research notes, "The degree-normalised
        kernel with three clusters or more", "rule N3").
    spreading : float in [0, 1) or "auto", default="auto"
        Beyond the paper, with ``links="closure"`` only: the weight
        :math:`\alpha` with which each sample in no link hears its
        neighbours before it takes a label. The final scores are spread over
        the kernel graph, :math:`F = (1-\alpha)(I-\alpha\hat W)^{-1}Y_0`
        (:mod:`smiclust.score_spreading`), the samples in a link holding the
        labels the links gave them; a sample in no link takes the argmax of
        its row of :math:`F`. ``0`` is the eigenvector scores as they are.
        Where the seeds hold every cluster but SMIC's labelling without
        links (same ``n_neighbors``, one more solve) agrees with the closed
        links below
        :data:`~smiclust.score_spreading.SEED_ONLY_AGREEMENT` (0.7 balanced
        accuracy, 0.5 being chance), the data's own clusters are not the
        links' and the spreading starts from the seeds alone
        (``spread_from_ == "links"``).
        ``"auto"``: 0.5, or 0.9 where held-out seeds show it better (with
        closed links and the search's ``n_neighbors``, ``gamma`` and ``eta``:
        the linked samples in 5 folds, each fold's links closed over the
        other samples and solved again, its scores spread with both weights;
        0.9 when a one-sided sign test over the held-out samples finds their
        labels respect their links more often at p < 0.05; five more
        solves). Not used when the links are used as given (``links_ ==
        "paper"`` with links). Measured in
        docs/beyond-the-paper/research-notes.md ("Score spreading",
        "Spreading chosen per fit by held-out seeds"). Above about 0.977
        the series of :func:`~smiclust.score_spreading.spread_scores` is
        cut at its 1,000th term (a share of about :math:`\alpha^{1000}` of
        :math:`F` left out).
    consensus : bool, default=True
        Beyond the paper, with ``links="closure"``, ``n_neighbors`` searched
        and ``n_clusters >= 3``: the labels are the vote of the best
        candidate (by the criterion) of every ``n_neighbors`` of the search,
        aligned to the chosen one (:mod:`smiclust.consensus`; one more solve
        per ``n_neighbors``), and with at least
        :data:`SL_VOTE_MIN_CLUSTER_SIZE` samples per cluster and at most
        :data:`SL_VOTE_MAX_SAMPLES` samples, Spectral
        Learning's labelling at each of those ``n_neighbors`` (Kamvar et
        al.'s additive normalisation of the local-scaling kernel of the
        fit's graph with the closed links,
        :func:`~smiclust.baselines.spectral_learning`'s steps; it keeps a
        large class whole where the paper's kernel splits it); the closed
        links' group labelling and the
        spreading read the votes as scores, and new samples take their
        labels from their fitted neighbours' spread votes. ``False``: the
        chosen candidate's labels, as with two clusters, where the
        candidates of different ``n_neighbors`` are different cuts and their
        vote would be a cut none of them made. Measured in
        docs/beyond-the-paper/research-notes.md ("Consensus over
        n_neighbors", "The vote only with three clusters or more", rules
        SLV and SLV2).
    classifier : "auto", None or a classifier, default="auto"
        Beyond the paper, where the scores are spread (``spread_from_`` is
        not ``"none"``): a classifier trained on the samples in a link, with
        the labels the fit gives them, votes with the spread scores on the
        samples in no link with share :math:`w`,
        :math:`\hat y_i = \arg\max_c (1 - w) F_{ic}/\sum_{c'}F_{ic'} +
        w\,\hat p(c \mid x_i)`, :math:`w = \tfrac12`, or labels them alone
        (:math:`w = 1`) (:mod:`smiclust.classifier_vote`); new samples
        likewise. The graph sees the data's clusters, the classifier
        the class boundaries the links show where they are not clusters.
        ``"auto"``: a random forest of 100 trees, tried when the links hold
        at least 3 samples per cluster on average, at least 1 % of the
        samples are in no link (rule FS) and ``spreading="auto"``,
        and used only when held-out linked samples show it better: in the
        folds that choose the spreading weight, its out-of-bag probabilities
        label the held-out samples alone and in an equal vote with the spread
        scores, and the option that labels strictly more of the held-out
        samples' links right than the others is kept, the spread scores
        alone on a tie (on MNIST digits or two moons, where the graph is
        right and the forest weaker, they are kept). A classifier knows only
        the clusters its linked samples hold: a cluster that holds no linked
        sample can lose its samples to the others, even be left empty (on
        three blobs with links on two of them, ARI 0.98 without the forest
        against 0.54 with it), because held-out linked samples cannot show
        that loss. On real tables where a class had no labelled sample this
        still paid on average (rules CC and CC2 of the research notes); with
        clusters you expect no link in, pass ``None``. An object with ``fit``
        and ``predict_proba`` (a scikit-learn classifier; cloned, never
        fitted in place; its ``random_state`` parameters left at ``None``
        are drawn from this one's, those set kept) always votes, with equal
        weight, where there is a spreading and the linked samples hold two
        clusters or more (else a ``UserWarning`` says it was not used); a
        ``TypeError`` or ``ValueError`` it raises (for example on sparse
        ``X``) is raised again, of its own kind, with this parameter named,
        and other errors pass through as they are. ``None``: the spread
        scores alone. ``classifier_`` holds the fitted one that voted,
        ``classifier_weight_`` its share.
        Measured in docs/beyond-the-paper/research-notes.md ("A classifier
        on the linked samples votes on the others", "The classifier's vote
        chosen by held-out linked samples", "The classifier alone as a third
        choice of the held-out seeds").
    indicator_rotation : bool, default=False
        Beyond the paper (an option, not the default), with
        ``links="closure"`` and ``n_clusters >= 3``:
        every solve's ``c`` leading eigenvectors are rotated, within their
        span (which leaves the SMIC objective unchanged), to the basis
        nearest to cluster indicators
        (:func:`smiclust.labeling.indicator_rotation`, CPQR as in
        scikit-learn's ``cluster_qr``) before the paper's sign rule,
        clipping and argmax; the search, the vote, the group labelling and
        the spreading read the rotated scores. With many clusters the
        eigenvectors themselves are far from indicators (40 blobs: ARI 0.50
        by the argmax, 0.60 rotated, at ``n_neighbors=4``; the default fit
        0.75 -> 0.78, seeds 0-2, 2026-11-27). Two clusters are left as the
        paper has them (measured: no gain there). Not the default: three
        rules did not carry it over to data they had not seen (the last, on
        seven fresh sets of 3-10 classes, +0.002 ARI where reseeding the
        fit moved it +0.002) (docs/beyond-the-paper/research-notes.md,
        "Indicator rotation of the eigenvectors" and the rules after it).
    link_test_level : float in [0, 1), default=0.05
        Beyond the paper, with ``links="closure"`` and links given as pairs
        (not ``partial_labels``, no weights) that contradict themselves (a
        cannot-link between two samples that the must-links join; correct
        links never do, and consistent links are always used): the
        significance level at which the links are set aside as wrong
        (:mod:`smiclust.link_test`). The linked samples are dealt into 5
        folds; the fit on the links outside each fold (``n_neighbors``
        searched at the chosen ``gamma`` and ``eta``) predicts the links of
        the fold's samples, and so does the fit without links. When the fit
        without links is right more often, sample by sample, at this level
        (one-sided exact sign test), the links disagree with each other
        through the data, and the fit without links is returned (``links_ ==
        "ignored"``, with ``n_clusters="auto"`` chosen without links too;
        ``n_violations_`` and ``suspect_links_`` still count the given
        links). ``0`` never tests. Costs 6 searches of ``n_neighbors`` with
        :data:`LINK_TEST_LSMI_CENTERS` (100) LSMI centres. Measured in
        docs/noisy-links.md.
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
        Eigen-solver iteration bound: ARPACK's restarts or LOBPCG's
        iterations (``None``: the solver's default; see
        :func:`smiclust.eigensolvers.leading_eigenvectors`). When it is
        reached a ``ConvergenceWarning`` is issued and a fallback is used.
    lsmi_n_centers : int or "auto", default="auto"
        Number of Gaussian centres of LSMI during the search (at most the
        number of samples). ``"auto"``: the paper's 500 with
        ``links="paper"``; with the default links ``min(500, 100 c)`` for
        ``c`` clusters, each class of a labelling keeping at most 100 of
        them, since scoring a labelling solves one system per class of the
        size of its centres (research notes, "LSMI centres of the default's
        search scaled with the clusters" and "At most 100 LSMI centres per
        class of a labelling"). An integer keeps every centre.
    lsmi_n_folds : int, default=5
        Cross-validation folds of LSMI during the search; at most the number
        of samples (more folds than samples are leave-one-out).
    random_state : int, RandomState instance or None, default=None
        Every random choice (eigen-solver start vector, LSMI centres and folds,
        approximate neighbour search) flows from it.
    n_jobs : int, default=None
        Parallel jobs for the neighbour search and the parameter search, through
        joblib (``None`` means 1; a ``joblib.parallel_config`` context, e.g.
        ``backend="dask"``, is honoured). The labels do not depend on it, but
        for the approximate neighbour search (``neighbor_algorithm``; by
        default from 50,000 samples with pynndescent installed), whose graph
        for a given seed depends on its thread count: fix ``n_jobs`` as well
        as ``random_state`` to repeat such a fit exactly.
    verbose : int, default=0
        Progress on stderr when positive: the parameter search after each
        ``n_neighbors`` and each batch of LSMI scores, the link test after
        each fold, and every other step of the fit that runs longer than a
        second (the vote after each labelling, the choice of the spreading
        weight after each fold; the others, such as the neighbour search,
        the final solve or the choice of ``n_clusters``, at their end).

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
    proba_ : ndarray of shape (n_samples, n_clusters)
        Class probabilities of the training samples: the clipped,
        column-normalised eigenvectors, rows scaled to sum 1; a row with no
        positive score is one-hot at its label. With ``links="paper"`` its
        row-wise argmax is ``labels_``; with closed links the labelling that
        respects the groups may differ from it where the links decided. With
        ``spreading > 0`` the rows of the samples in no link are their spread
        scores :math:`F`, rows scaled to sum 1 (their argmax is their label).
    dual_coef_ : ndarray of shape (n_samples, n_clusters)
        :math:`\beta_y = B K'\tilde\phi_y/\lambda_y` with
        :math:`B = (I+\gamma M)^2 + (I-\eta C)^2`, used by :meth:`predict`.
    n_neighbors_, gamma_, eta_ : int, float, float
        Parameters used for the final solution (chosen or given).
    n_clusters_ : int
        Number of clusters used (``n_clusters``, or the one chosen).
    cluster_classes_ : ndarray of shape (n_clusters_,) or None
        With ``partial_labels``, the class each cluster stands for: the label
        most of its labelled samples carry, or the input's marker of an
        unknown label (``-1``, NaN or ``None``) for a cluster that holds no
        labelled sample (:func:`smiclust.constraints.cluster_classes`).
        ``cluster_classes_[labels_]`` names every training sample by a class
        (as ``LabelSpreading.transduction_`` does),
        ``cluster_classes_[predict(X_new)]`` new ones, and
        ``cluster_classes_[k]`` column ``k`` of :meth:`predict_proba`.
        ``None`` without partial labels.
    n_clusters_scores_ : dict of str to ndarray or None
        With ``n_clusters="auto"``, the score of every candidate ``c``
        (eigengap, held-out link error, plausible), ready for
        ``pandas.DataFrame``; ``None`` otherwise.
    links_ : {"closure", "paper", "ignored"}
        How the links were used (``"paper"`` when ``links="closure"`` met
        link weights or contradictory links, and without links, where there
        is nothing to close: the scores are still spread, see
        ``spread_from_``;
        ``"ignored"`` when the link test set them aside, see
        ``link_test_level``).
    kernel_ : {"local-scaling", "normalized"}
        The kernel of the fit (see ``kernel``).
    link_test_pvalue_ : float
        p-value of the link test (small: the data alone predict the held-out
        links better than the links do); NaN when it was not run.
    lsmi_ : float
        LSMI of the chosen labelling (NaN when no search was run).
    n_violations_ : int
        Links violated by ``labels_``: the given links (of positive weight:
        weight 0 is no link) and, with ``partial_labels``, every two labelled
        samples (one class in two clusters, or two classes in one), each pair
        once.
    spread_from_ : {"scores", "links", "none"}
        What the samples in no link took their labels from: the spread scores,
        the spread labels of the linked samples alone, or (``"none"``:
        ``spreading=0``, ``links="paper"``, links used as given because of
        their weights or contradictions, one cluster, or every sample in a
        link) the eigenvector scores.
    spreading_ : float
        The spreading weight used (``spreading``, or the one ``"auto"``
        chose); 0 when nothing was spread (``spread_from_ == "none"``).
    classifier_ : classifier or None
        The fitted copy of ``classifier`` that voted on the samples in no
        link; ``None`` when none did (``classifier=None``; with ``"auto"``,
        too few linked samples per cluster, a fixed ``spreading``, or
        held-out linked samples labelled no better by the vote or by the
        classifier alone; nothing spread).
    classifier_weight_ : float
        The share of ``classifier_``'s probabilities in the labels of the
        samples in no link (the spread scores have the rest): 0.5 (an equal
        vote) or 1.0 (the classifier alone); 0.0 when no classifier voted.
    spreading_pvalue_ : float
        With ``spreading="auto"``, the p-value with which held-out seeds
        prefer 0.9 to 0.5 (small: 0.9 was taken); NaN when no choice was
        made (no closed links, or a fixed weight).
    link_agreement_ : float
        Balanced accuracy on the closed links of SMIC's labelling without
        links (:func:`smiclust.score_spreading.closed_link_agreement`); NaN
        when it was not needed (no closed links, seeds missing a cluster, or
        nothing spread: ``spreading=0``, one cluster, or every sample in a
        link).
    links_agreement_z_ : float
        With closed links, three clusters or more and a cannot-link: how far
        SMIC without links (at ``n_neighbors_``) agrees with the given links
        beyond chance, as a z score
        (:func:`smiclust.link_test.agreement_over_chance`). Below
        :data:`BLIND_DATA_Z` the data are blind to the links, and the labels
        keep every cannot-link as ``keep_cannot_links=True`` does; NaN when
        not computed.
    suspect_links_ : dict of str to ndarray
        The given links of positive weight (weight 0 is no link), most
        contradicted by the fit first, ready for
        ``pandas.DataFrame``: ``i``, ``j``, ``kind`` ("must"/"cannot"),
        ``index`` (row in the given links) and ``score`` in [0, 1]
        (:func:`smiclust.constraints.rank_suspect_links`: 1 minus the
        probability that the fit puts a must-linked pair together, or that
        probability for a cannot-link). Re-check the links at the top. The
        pairs ``partial_labels`` imply are not listed.
    tuning_results_ : dict of str to ndarray
        Every candidate tried, ready for ``pandas.DataFrame``: parameters,
        LSMI (with the width and regularisation its CV chose), violations,
        criterion, rank and solve time.
    best_index_ : int
        Row of ``tuning_results_`` that was chosen.
    n_candidates_ : int
        Number of ``(n_neighbors, gamma, eta)`` candidates tried (1 when
        nothing is searched); :meth:`candidate_parameters` lists them before a
        fit.
    affinity_matrix_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The modified kernel :math:`K'` of the final solution; ``None`` with
        closed links whose groups are too large to store their blocks
        (sum of squared group sizes above 20 times the kernel's entries).
    local_scales_ : ndarray of shape (n_samples,)
        Local scales :math:`\sigma_i` for ``n_neighbors_``.
    n_iter_ : int
        Number of vectors the final eigen-solve multiplied by :math:`U` (its
        cost in operator applications). ``max_iter`` does not bound it: it
        bounds ARPACK's restarts or LOBPCG's iterations, each of which
        multiplies several vectors.
    n_graph_components_ : int
        Connected components of the kNN graph joined by the links that couple
        the samples in :math:`U`: the must-links, and the cannot-links when
        ``eta_ > 0`` (with ``eta_ == 0`` they only cut kernel entries). When
        there are more than ``n_clusters`` and ``n_neighbors`` was fixed by
        the user, a ``UserWarning`` says so (a larger ``n_neighbors`` joins
        them).
    neighbor_algorithm_ : {"exact", "approximate"}
        The neighbour search that ran (``"auto"`` resolved: approximate from
        50,000 samples when pynndescent is installed, with a warning when it
        is not).
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
    :math:`K'\beta_y = \tilde\phi_y` — the 3SMIC analogue: applied with the
    rows of :math:`K'` it would give back the fitted responses. The rule
    applies the kernel row :math:`K(x', \cdot)` instead, which treats
    :math:`x'` as if added to the training set (see
    :func:`~smiclust.kernels.local_scaling_cross_kernel`): a training sample
    passed as new gets its own scale :math:`\sigma'` (its ``t`` nearest
    training samples include itself, at distance 0) and none of the link
    entries of :math:`K'`, so its response is close to the fitted one, not
    equal (on 300 blobs with ``links="paper"``, within 10-17 % of the
    largest, and one or two of 300 labels other than ``labels_``).

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

    _accepts_sparse = True

    _parameter_constraints = {
        "n_clusters": [
            Interval(numbers.Integral, 1, None, closed="left"),
            Options({"auto"}),
        ],
        "n_neighbors": [
            Options({"auto"}),
            Interval(numbers.Integral, 1, None, closed="left"),
            IntegerGrid(1),
        ],
        "gamma": [
            Options({"auto"}),
            Interval(numbers.Real, 0, MAX_LINK_WEIGHT, closed="both"),
            RealGrid(0.0, MAX_LINK_WEIGHT),
        ],
        "eta": [
            Options({"auto"}),
            Interval(numbers.Real, 0, MAX_LINK_WEIGHT, closed="both"),
            RealGrid(0.0, MAX_LINK_WEIGHT),
        ],
        "violation_penalty": [Interval(numbers.Real, 0, None, closed="left")],
        "links": [Options({"closure", "paper"})],
        "contradictions": [Options({"soften", "repair"})],
        "keep_cannot_links": [bool],
        "kernel": [Options({"auto", "local-scaling", "normalized"})],
        "spreading": [Interval(numbers.Real, 0, 1, closed="left"),
                      Options({"auto"})],
        "consensus": [bool],
        "classifier": [None, Options({"auto"}), HasMethods(("fit", "predict_proba"))],
        "indicator_rotation": [bool],
        "link_test_level": [Interval(numbers.Real, 0, 1, closed="left")],
        "neighbor_algorithm": [Options({"auto", "exact", "approximate"})],
        "eigen_solver": [Options({"auto", "arpack", "lobpcg", "dense"})],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "max_iter": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "lsmi_n_centers": [Interval(numbers.Integral, 1, None, closed="left"),
                           Options({"auto"})],
        "lsmi_n_folds": [Interval(numbers.Integral, 2, None, closed="left")],
        "random_state": check_random_state_param(),
        "n_jobs": n_jobs_param(),
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
        links="closure",
        contradictions="soften",
        keep_cannot_links=False,
        kernel="auto",
        spreading="auto",
        consensus=True,
        classifier="auto",
        indicator_rotation=False,
        link_test_level=0.05,
        neighbor_algorithm="auto",
        eigen_solver="auto",
        tol=0.0,
        max_iter=None,
        lsmi_n_centers="auto",
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
        self.links = links
        self.contradictions = contradictions
        self.keep_cannot_links = keep_cannot_links
        self.kernel = kernel
        self.spreading = spreading
        self.consensus = consensus
        self.classifier = classifier
        self.indicator_rotation = indicator_rotation
        self.link_test_level = link_test_level
        self.neighbor_algorithm = neighbor_algorithm
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.lsmi_n_centers = lsmi_n_centers
        self.lsmi_n_folds = lsmi_n_folds
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def fit(
        self,
        X,
        y=None,
        *,
        must_link=None,
        cannot_link=None,
        must_link_weight=None,
        cannot_link_weight=None,
        partial_labels=None,
    ):
        """Cluster ``X``, with links if given, choosing parameters set to "auto".

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples (finite). Sparse input (e.g. TF-IDF rows) stays
            sparse: the neighbour search, LSMI's distances to its centres and
            ``predict`` read it as it is, and give the labels of the same
            data given dense, except where samples tie at one distance (the
            sparse search may return them in another order).
        y : Ignored
            Not used; partial labels become links through
            :func:`smiclust.constraints.pairs_from_labels`.
        must_link : array-like of shape (n_must, 2), default=None
            Pairs of sample indices that should share a cluster.
        cannot_link : array-like of shape (n_cannot, 2), default=None
            Pairs of sample indices that should be in different clusters.
        must_link_weight, cannot_link_weight : array-like of shape (n_pairs,), \
default=None
            Confidence of each link, in ``[0, 1e100]`` (``None``: 1 each, the
            paper's 3SMIC). The weights are the entries of :math:`M` and :math:`C`,
            move the kernel entry of a link towards 1 (must) or 0 (cannot) by
            ``min(w, 1)`` of the way, and count a violated link by its weight
            in the selection criterion; weight 0 is no link. With a weight
            other than 0 and 1, ``links="closure"`` uses the links as given,
            not closed, as the paper's 3SMIC does (the rest of the default's
            search stays): weights say the links are uncertain, and closing
            them would spread the wrong ones. Weights of 0 and 1 only are the
            fit without the links of weight 0 and without weights.
        partial_labels : array-like of shape (n_samples,), default=None
            Known classes of some samples (any labels; ``-1``, ``None`` or NaN
            for unknown, as in ``sklearn.semi_supervised``). Every two
            labelled samples are linked: with ``links="closure"`` as one group
            per class and cannot-links between the classes (no ``m^2`` pairs),
            with ``links="paper"`` as the pairs of
            :func:`~smiclust.constraints.pairs_from_labels`. A keyword and not
            ``y``: scikit-learn's clusterer checks pass the true labels as
            ``y``, which must not turn into links. More classes than an
            integer ``n_clusters`` is a ``ValueError``, and so is the string
            ``"-1"`` among string labels (use an object array holding ``-1``);
            ``n_clusters="auto"`` is chosen among at least as many clusters
            as there are classes, and at most ``n_samples - 1`` (with as
            many classes as samples a class is merged and a
            ``ConstraintConflictWarning`` says so). ``cluster_classes_``
            then names each cluster by the class of its labelled samples.

        Returns
        -------
        self : SMIClustering

        A fit that raises (or is interrupted) leaves the estimator as it was:
        unfitted, or with its previous fit.
        """
        # BLAS and OpenMP at one thread: the labels do not depend on the
        # thread count (see smiclust.utils.single_threaded)
        with _restored_on_error(self), single_threaded():
            inputs = self._validate_fit(
                X, must_link, cannot_link, must_link_weight, cannot_link_weight
            )
            self._check_weight_products(inputs)
            # the given links and the rows of those of positive weight
            scored = list(zip((inputs.must_link, inputs.cannot_link),
                              present_link_rows(inputs)))
            # links of weight 0 are no links, and weights of 1 the default:
            # without other weights, the fit of the links left, unweighted
            unweighted = links_present(inputs)
            if unweighted.must_weight is None and unweighted.cannot_weight is None:
                inputs = unweighted
            inputs, label_codes = _with_partial_labels(inputs, partial_labels,
                                                       self.links, self)
            # what reads links as pairs (the closure, the clique, the choice
            # of c) reads those of positive weight only
            present = links_present(inputs)
            # the closure of the given links, built once: how they are used, the
            # clique of cannot-linked groups and whether the link test runs
            given = (link_groups(present.must_link, present.cannot_link,
                                 inputs.n_samples)
                     if len(present.must_link) or len(present.cannot_link) else None)
            links = _link_set(inputs, self.links, self.contradictions, given,
                              self.keep_cannot_links)
            clique = _cannot_clique_samples(
                present, given if links.groups is None else links.groups
            )
            t_grid = self._n_neighbors_grid(inputs.n_samples)
            auto_c = isinstance(self.n_clusters, str)
            if auto_c and inputs.n_samples <= _AUTO_C_NEIGHBORS:
                raise ValueError(
                    f"n_clusters='auto' in {type(self).__name__} needs more than "
                    f"{_AUTO_C_NEIGHBORS} samples; got {inputs.n_samples}."
                )
            self._accept_inputs(inputs)

            (solver_seed, lsmi_seed, neighbor_seed, c_seed,
             test_seed) = self._draw_seeds(5)
            search_t = max(t_grid + [_AUTO_C_NEIGHBORS] if auto_c else t_grid)
            graph = self._neighbor_graph(inputs, search_t, neighbor_seed)
            self.neighbor_algorithm_ = graph.algorithm
            if auto_c:
                inputs = self._choose_n_clusters(inputs, graph, c_seed, clique.size)
            else:
                self.n_clusters_scores_ = None
            _warn_if_too_few_clusters(
                clique, inputs.n_clusters,
                given if links.groups is None else links.groups)
            self.n_clusters_ = inputs.n_clusters
            self._warn_unused_weights(inputs)
            seeds = (solver_seed, lsmi_seed)
            tested = self._tests_links(inputs, partial_labels, given)
            self.link_test_pvalue_ = float("nan")
            # the eigen-solves depend on the kernel and the closed links' groups
            # only, the forest on its seeds: the fit keeps them, so that a solve
            # asked for again (rule DG's check, then the spreading) only labels
            # it, and the second kernel of kernel="auto" (two clusters) trains no
            # second forest on the same seed labels
            self._solves, self._classifiers, self._vote_warnings = {}, {}, []
            self._scored_links = (*scored, label_codes)  # what n_violations_ reads
            try:
                self._fit_links(inputs, links, graph, t_grid, seeds, tested, auto_c,
                                c_seed, test_seed)
                for warning in dict.fromkeys(self._vote_warnings):
                    warnings.warn(warning[0], warning[1], stacklevel=user_stacklevel())
            finally:
                del self._solves, self._classifiers, self._vote_warnings
                del self._scored_links
            _warn_if_clusters_hold_no_sample(self.labels_, self.n_clusters_)
            # the labels were encoded once, by _with_partial_labels
            self.cluster_classes_ = None if partial_labels is None else (
                classes_of_codes(self.labels_, label_codes,
                                 np.asarray(partial_labels), self.n_clusters_))
            self._x_exponent = inputs.exponent
            self._fit_X = inputs.X
            # what labels new samples when (almost) every training sample is
            # linked (rules PF4, PF5): chosen here, with this fit's parameters
            # and seed, so that predict reads fitted attributes only
            self._new_sample_seed = solver_seed
            self._unlinked_share = float(unlinked_mask(
                inputs.n_samples, inputs.must_link, inputs.cannot_link).mean())
            e = self._x_exponent
            self._linked_fit_rule = self._choose_new_sample_rule(
                at_unit_scale(self._fit_X, e), at_unit_scale(self.local_scales_, e))
        return self

    def _fit_links(self, inputs, links, graph, t_grid, seeds, tested, auto_c,
                   c_seed, test_seed):
        """The fit on the links (keeping every cannot-link where the data are
        blind to the links, at the parameters the links' own search chose),
        then the fit without links where the link test sets them aside."""
        self.links_agreement_z_ = float("nan")
        search = None
        if links.groups is not None and not links.keep_cannot_links and (
                inputs.n_clusters >= 3 and len(inputs.cannot_link)):
            # data blind to the links: the scores cannot tell a wrong
            # cannot-link from a right one, so every cannot-link is kept.
            # Whether they are blind depends on the search's n_neighbors only:
            # it is decided before any solve with the links.
            kernel = self._searched_kernel()
            planned = self._search_graph(inputs, links, graph, t_grid, seeds,
                                         self.verbose, kernel=kernel)
            search = planned.search
            self.links_agreement_z_ = self._links_agreement_z(
                inputs, graph, seeds[0], planned.params[0], kernel)
            if self.links_agreement_z_ < BLIND_DATA_Z:
                links = replace(links, keep_cannot_links=True)
        self._fit_graph(inputs, links, graph, t_grid, seeds, search)
        if tested:
            self.link_test_pvalue_ = self._link_test(
                inputs, graph, t_grid, seeds, test_seed
            )
            if self.link_test_pvalue_ < self.link_test_level:
                no_links = replace(inputs, must_link=_NO_PAIRS, cannot_link=_NO_PAIRS)
                if auto_c:  # the links chose c too: choose it without them
                    no_links = self._choose_n_clusters(no_links, graph, c_seed, 0)
                    self.n_clusters_ = no_links.n_clusters
                self._fit_graph(no_links, _NO_LINKS, graph, t_grid, seeds)
                self.links_ = "ignored"
                self._score_links()

    def _links_agreement_z(self, inputs, graph, solver_seed, n_neighbors, kernel):
        """:func:`~smiclust.link_test.agreement_over_chance` of SMIC without
        links on the ``kernel`` of ``n_neighbors`` with the given links."""
        step = StepProgress(self.verbose, "links and data")
        K = kernel_from_neighbors(graph, n_neighbors, kernel)
        labels = self._solve(K, _NO_LINKS, inputs.n_clusters, 0.0, 0.0,
                             solver_seed, kernel).labels
        z = agreement_over_chance(labels, inputs.must_link, inputs.cannot_link)
        step.done(f"SMIC without links at n_neighbors={n_neighbors} agrees with "
                  f"the links at z = {z:.3g} over chance")
        return z

    def _searched_kernel(self):
        """The kernel the search runs on (``"auto"`` searches on the
        paper's and compares the other after, :meth:`_choose_kernel`)."""
        return "normalized" if self.kernel == "normalized" else "local-scaling"

    def _fit_graph(self, inputs, links, graph, t_grid, seeds, search=None):
        """Search, solve and spread on the neighbour graph, set the fitted
        attributes from the result (:meth:`_solve_graph`, on the kernel that
        :meth:`_choose_kernel` takes) and return it; ``search``: a search
        already run on these inputs, taken instead of a new one."""
        fit, kernel = self._choose_kernel(inputs, links, graph, t_grid, seeds,
                                          search)
        self.kernel_ = kernel
        self._fit_degrees = None
        if kernel == "normalized":
            self._fit_degrees = degree_normalized_kernel(
                local_scaling_kernel_from_neighbors(graph, fit.params[0])
            )[1]
        self.links_ = "paper" if links.groups is None else "closure"
        self.spread_from_ = fit.spread.source
        self.link_agreement_ = fit.spread.agreement
        self.spreading_ = fit.spread.alpha
        self.spreading_pvalue_ = fit.spread.pvalue
        self._spread = fit.spread.rule
        self._store_solution(
            inputs, fit.solution, fit.params, fit.search, fit.candidates,
            fit.t_chosen,
        )
        self.classifier_ = None if self._spread is None else self._spread.classifier
        self.classifier_weight_ = (0.0 if self.classifier_ is None
                                   else float(self._spread.classifier_weight))
        if self._spread is not None:  # the samples in no link: spread scores
            free = ~self._spread.seeded
            rows = fit.spread.vote_rows
            self.proba_[free] = row_probabilities(
                self._spread.F[free] if rows is None else rows,
                np.eye(inputs.n_clusters)[self.labels_[free]],
            )
        self.local_scales_ = np.ldexp(local_scales(graph, fit.params[0]),
                                      inputs.exponent)
        return fit

    def _choose_kernel(self, inputs, links, graph, t_grid, seeds, search=None):
        """The fit (:meth:`_solve_graph`) on the kernel of ``kernel``, and
        that kernel's name. ``kernel="auto"`` with closed links and two
        clusters also fits the degree-normalised kernel at the first fit's
        ``gamma`` and ``eta``, and takes it when the LSMI of its labels is
        positive and more than :data:`NORMALIZED_KERNEL_MARGIN` times the
        first's (one LSMI design serves both searches and scores both)."""
        first = self._searched_kernel()
        compares = (self.kernel == "auto" and self.links == "closure"
                    and inputs.n_clusters == 2)
        # the design both searches would build (same samples, seed and
        # centres), built once and shared with the comparison
        design = (self._lsmi_design(inputs, seeds[1],
                                    self._lsmi_centers(inputs.n_clusters),
                                    self.verbose)
                  if compares else None)
        first_fit = StepProgress(self.verbose, "kernel")
        fit = self._solve_graph(inputs, links, graph, t_grid, seeds, self.verbose,
                                kernel=first, design=design, search=search)
        if not compares:
            return fit, first
        # the comparison repeats the fit's steps: a user who waited for them
        # is told which fit the next lines belong to
        first_fit.part(f"{first} fitted; the degree-normalised kernel fitted "
                       f"next at gamma={fit.params[1]:g}, eta={fit.params[2]:g}, "
                       "to compare")
        step = StepProgress(self.verbose, "kernel")
        other = self._solve_graph(inputs, links, graph, t_grid, seeds, self.verbose,
                                  weights=fit.params[1:], kernel="normalized",
                                  design=design)
        lsmi_first = design.score(fit.solution.labels)
        lsmi_other = design.score(other.solution.labels)
        taken = lsmi_other > 0 and lsmi_other > NORMALIZED_KERNEL_MARGIN * lsmi_first
        step.done(f"kernel: LSMI {lsmi_first:.4g} local-scaling, "
                  f"{lsmi_other:.4g} normalized; "
                  f"{'normalized' if taken else 'local-scaling'} kept")
        return (other, "normalized") if taken else (fit, first)

    def _solve_graph(self, inputs, links, graph, t_grid, seeds, verbose,
                     weights=None, n_centers=None, vote=None, choose_alpha=True,
                     kernel="local-scaling", design=None, search=None):
        """The parameter search (:meth:`_search_graph`), the final solve and
        the spreading for ``inputs`` on the neighbour graph and ``kernel``
        (one of :data:`smiclust.kernels.KERNELS`); nothing is set. ``vote``:
        the vote over ``n_neighbors`` (default ``consensus``);
        ``choose_alpha``: ``spreading="auto"`` chooses its weight by held-out
        seeds (else it takes the first of
        :data:`~smiclust.score_spreading.AUTO_ALPHAS`); the other arguments
        are :meth:`_search_graph`'s."""
        solver_seed = seeds[0]
        links_given = len(inputs.must_link) + len(inputs.cannot_link) > 0
        planned = self._search_graph(inputs, links, graph, t_grid, seeds, verbose,
                                     weights, n_centers, kernel, design, search)
        search = planned.search
        t, gamma, eta = planned.params
        if links.groups is not None:
            # the candidates were scored as the search labels them; the
            # chosen one's labels charge every given cannot-link broken, so
            # the many links between two large groups hold
            links = replace(links, count_cannot_links=True)
        step = StepProgress(verbose, "final solve")
        K = kernel_from_neighbors(graph, t, kernel)
        solution = self._solve(K, links, inputs.n_clusters, gamma, eta, solver_seed,
                               kernel, kept=False)
        step.done(f"solved at n_neighbors={t}, gamma={gamma:g}, eta={eta:g}")
        spread = _NO_SPREAD
        if self.links == "closure" and (links.groups is not None or not links_given):
            votes = None
            # with two clusters the candidates of different t are different
            # cuts, and their vote a cut none of them made
            if ((self.consensus if vote is None else vote) and search is not None
                    and inputs.n_clusters >= 3):
                solution, votes = self._vote(inputs, links, graph, search, solution,
                                             solver_seed, kernel, verbose)
            solution, spread = self._spread_scores(
                K, inputs, links.groups, solution, solver_seed, votes,
                params=(t, gamma, eta) if choose_alpha else None, kernel=kernel,
                verbose=verbose,
            )
        return _GraphFit(solution, planned.params, search, planned.candidates,
                         planned.t_chosen, spread)

    def _search_graph(self, inputs, links, graph, t_grid, seeds, verbose,
                      weights=None, n_centers=None, kernel="local-scaling",
                      design=None, search=None):
        """The candidates of the parameter search on the neighbour graph and
        ``kernel``, and the one chosen (:class:`_GraphSearch`); nothing is
        set. ``weights``: a ``(gamma, eta)`` to search ``n_neighbors`` at
        only (when it is among the candidates); ``n_centers``: LSMI centres of
        the search (default ``lsmi_n_centers``); ``design``: the search's LSMI
        design, built here when ``None``; ``search``: its result, taken
        instead of searching again."""
        solver_seed, lsmi_seed = seeds
        present = links_present(inputs)  # a link of weight 0 is no link
        if self.links == "closure" and isinstance(self.n_neighbors, str):
            t_grid = connected_neighbors_grid(
                graph, t_grid, present.must_link, inputs.n_clusters)
        t_chosen = len(t_grid) > 1
        candidates = self._candidate_grid(
            t_grid, len(present.must_link), len(present.cannot_link),
            inputs.n_clusters, links.groups is not None
        )
        at_weights = [cand for cand in candidates if tuple(cand[1:]) == weights]
        candidates = at_weights or candidates
        if search is not None:
            params = search.best_params
        elif len(candidates) > 1:
            search = self._search(
                inputs, links, graph, candidates, solver_seed, lsmi_seed, verbose,
                n_centers or self._lsmi_centers(inputs.n_clusters), kernel, design,
            )
            params = search.best_params
        else:
            params = candidates[0]
        return _GraphSearch(tuple(params), search, candidates, t_chosen)

    def _vote(self, inputs, links, graph, search, solution, solver_seed, kernel,
              verbose=0):
        """``solution`` relabelled by the vote of the best candidate of every
        ``n_neighbors`` (:mod:`smiclust.consensus`), and the votes (columns in
        the new cluster order); unchanged and ``None`` with one ``t``.
        ``verbose``: progress after each labelling solved for the vote."""
        c = inputs.n_clusters
        r = search.results
        best = best_per_neighbors(r["param_n_neighbors"], r["criterion"])
        if best.size < 2:
            return solution, None
        step = StepProgress(verbose, "vote over n_neighbors")
        labellings = []
        for i in best:
            params = (int(r["param_n_neighbors"][i]), float(r["param_gamma"][i]),
                      float(r["param_eta"][i]))
            if i == search.best_index:
                labellings.append(solution.labels)
                continue
            K_t = kernel_from_neighbors(graph, params[0], kernel)
            labellings.append(self._solve(K_t, links, c, *params[1:],
                                          solver_seed, kernel).labels)
            step.part(f"SMIC's best labelling at n_neighbors={params[0]} solved")
        if SL_VOTE_MIN_CLUSTER_SIZE * c <= inputs.n_samples <= SL_VOTE_MAX_SAMPLES:
            for t in sorted({int(r["param_n_neighbors"][i]) for i in best}):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    labellings.append(spectral_learning_labels(
                        kernel_from_neighbors(graph, t), links.groups, c,
                        random_state=solver_seed, eigen_solver=self.eigen_solver,
                        max_iter=self.max_iter))
                self._vote_warnings.extend(_vote_warnings(caught, t))
                step.part(f"Spectral Learning's labelling at n_neighbors={t} solved")
        first = vote_scores(labellings, solution.labels, c)
        votes = vote_scores(labellings, np.argmax(first, axis=1), c)
        if links.groups is not None:
            labels = group_labels(votes, links.groups, c,
                                  keep_cannot_links=links.keep_cannot_links,
                                  count_cannot_links=links.count_cannot_links)
        else:
            labels = np.argmax(votes, axis=1)
        solution, order = with_labels(solution, labels, c)
        step.done(f"vote over n_neighbors: {len(labellings)} labellings")
        return solution, votes[:, order]

    def _solve(self, K, links, n_clusters, gamma, eta, solver_seed,
               kernel="local-scaling", kept=True):
        """:func:`~smiclust.solver.solve_links` with the fit's solver options.
        ``kept``: the eigen-solve is kept for the rest of the fit, without
        its ``affinity`` and ``graph`` (``None`` in the result), so the same
        kernel and groups asked for again (with or without every
        cannot-link kept) are only labelled again; ``False`` for the solve
        whose matrices the fit stores."""
        options = dict(eigen_solver=self.eigen_solver, random_state=solver_seed,
                       tol=self._tol(kernel, n_clusters), max_iter=self.max_iter,
                       rotate=self._rotates(n_clusters))
        cache = getattr(self, "_solves", None)
        if cache is None or not kept:
            return solve_links(K, links, n_clusters, gamma, eta, **options)
        key = (operator_digest(K, links), n_clusters, float(gamma), float(eta),
               tuple(sorted(options.items())))
        if key not in cache:
            cache[key] = replace(
                solve_link_operator(K, links, n_clusters, gamma, eta, **options),
                affinity=None, graph=None)
        return closed_link_labels(cache[key], links, n_clusters)

    def _tol(self, kernel, n_clusters):
        """The eigen-solver tolerance: ``tol``, and at least
        :data:`NORMALIZED_KERNEL_TOL` on the normalised kernel with two
        clusters. With three clusters or more the leading eigenvalues of the
        normalised kernel crowd within the span that is read, and a loose
        tolerance returns a wrong span. (Equal eigenvalues of several
        components are split by
        :func:`~smiclust.eigensolvers.split_by_components` after every
        solve.)"""
        if kernel == "normalized" and n_clusters == 2:
            return max(self.tol, NORMALIZED_KERNEL_TOL)
        return self.tol

    def _neighbors_among_distinct_rows(self):
        """The default searches neighbours among distinct rows when most
        rows are copies (:data:`~smiclust.neighbors.DISTINCT_ROWS_FRACTION`);
        the paper's 3SMIC, the kNN of the samples."""
        return self.links == "closure"

    def _rotates(self, n_clusters):
        """Whether solves rotate their eigenvectors towards indicators."""
        return (self.indicator_rotation and self.links == "closure"
                and n_clusters >= 3)

    def _tests_links(self, inputs, partial_labels, groups):
        """Whether this fit tests its links against the data alone: given
        pairs (not partial labels), unweighted, closed, more than one
        cluster, ``link_test_level > 0``, and links that contradict
        themselves (a cannot-link inside a must-link group of ``groups``,
        their closure; ``None`` without links). Correct links never do, and
        correct links the data do not predict are still right about the
        samples they join."""
        weighted = inputs.must_weight is not None or inputs.cannot_weight is not None
        return (
            self.link_test_level > 0 and self.links == "closure"
            and groups is not None and groups.n_contradictions > 0
            and partial_labels is None and not weighted and inputs.n_clusters > 1
        )

    def _link_test(self, inputs, graph, t_grid, seeds, test_seed):
        """p-value of the held-out test of :mod:`smiclust.link_test`: the fit
        without links against the fits on the links outside each fold
        (``n_neighbors`` searched at the chosen ``gamma`` and ``eta``). Both
        choose ``n_neighbors`` by LSMI with :data:`LINK_TEST_LSMI_CENTERS`
        centres and label by the chosen candidate (no vote over
        ``n_neighbors``: the test compares the links' use, at half the
        cost)."""
        must, cannot = inputs.must_link, inputs.cannot_link
        folds = link_folds(must, cannot, inputs.n_samples, LINK_TEST_FOLDS,
                           np.random.RandomState(test_seed))
        n_centers = min(self._lsmi_centers(inputs.n_clusters), LINK_TEST_LSMI_CENTERS)

        def labels_with(train_must, train_cannot, weights):
            fold_inputs = replace(
                inputs, must_link=train_must, cannot_link=train_cannot
            )
            with warnings.catch_warnings():  # fits for the test only
                warnings.simplefilter("ignore")
                fold_links = _link_set(fold_inputs, self.links, self.contradictions,
                                       keep_cannot_links=self.keep_cannot_links)
                return self._solve_graph(
                    fold_inputs, fold_links, graph, t_grid,
                    seeds, verbose=0, weights=weights, n_centers=n_centers,
                    vote=False, choose_alpha=False, kernel=self.kernel_,
                ).solution.labels

        labels_without = labels_with(_NO_PAIRS, _NO_PAIRS, None)
        progress(self.verbose, "link test: the fit without links fitted")
        must_right = np.zeros(len(must), dtype=bool)
        cannot_right = np.zeros(len(cannot), dtype=bool)
        for fold in range(folds.n_folds):
            train_must, train_cannot = folds.training_links(must, cannot, fold)
            labels = labels_with(train_must, train_cannot, (self.gamma_, self.eta_))
            right_m, right_c = (~v for v in link_violations(labels, must, cannot))
            in_fold = folds.must_fold == fold
            must_right[in_fold] = right_m[in_fold]
            in_fold = folds.cannot_fold == fold
            cannot_right[in_fold] = right_c[in_fold]
            progress(self.verbose, f"link test: fold {fold + 1}/{folds.n_folds} "
                     "fitted")
        without_m, without_c = (
            ~v for v in link_violations(labels_without, must, cannot)
        )
        progress(self.verbose, f"link test over {folds.n_folds} folds: held-out "
                 f"links right {must_right.sum() + cannot_right.sum()} with links, "
                 f"{without_m.sum() + without_c.sum()} without, of "
                 f"{len(must) + len(cannot)}")
        return sign_test_pvalue(np.r_[must_right, cannot_right],
                                np.r_[without_m, without_c],
                                np.r_[folds.must_unit, folds.cannot_unit])

    def _score_links(self):
        """``n_violations_`` and ``suspect_links_``: the current labels and
        probabilities against the given links, and ``n_violations_`` against
        every two samples ``partial_labels`` name too (the links they imply,
        counted without forming them; a given link between two labelled
        samples is one of them)."""
        (must, must_rows), (cannot, cannot_rows), codes = self._scored_links
        must, cannot = must[must_rows], cannot[cannot_rows]
        if codes is not None:  # given links with a sample the labels do not name
            labelled = codes >= 0
            free_m = ~(labelled[must[:, 0]] & labelled[must[:, 1]])
            free_c = ~(labelled[cannot[:, 0]] & labelled[cannot[:, 1]])
            violated = violated_label_pairs(codes, self.labels_)
        else:
            free_m = free_c = slice(None)
            violated = 0
        violated_must, violated_cannot = link_violations(self.labels_, must, cannot)
        self.n_violations_ = int(violated_must[free_m].sum()
                                 + violated_cannot[free_c].sum() + violated)
        suspects = rank_suspect_links(self.proba_, must, cannot)
        index = suspects["index"].copy()  # rows among the given links
        for kind, rows in (("must", must_rows), ("cannot", cannot_rows)):
            of_kind = suspects["kind"] == kind
            index[of_kind] = rows[index[of_kind]]
        self.suspect_links_ = {**suspects, "index": index}

    def candidate_parameters(self, n_samples, *, n_must=0, n_cannot=0,
                             links_as_given=False):
        """The ``(n_neighbors, gamma, eta)`` candidates that ``fit`` would try.

        ``fit`` may leave out the ``n_neighbors`` whose graph, joined by the
        must-links, has more components than clusters (``n_candidates_``
        counts what it tried).

        Parameters
        ----------
        n_samples : int
            Number of training samples, at least 2 (as ``fit`` needs).
        n_must, n_cannot : int, default=0
            Number of distinct must-links and cannot-links of positive weight
            (weight 0 is no link).
        links_as_given : bool, default=False
            Whether the default's links are used as given rather than closed:
            links with weights, or links that contradict themselves with
            ``contradictions="soften"`` (``links_`` is then ``"paper"``, and
            ``gamma`` and ``eta`` are searched over the paper's grids).

        Returns
        -------
        candidates : list of tuple (int, float, float)
            In search order; one element when nothing is searched.
        """
        owner = type(self).__name__
        validate_params(self.get_params(deep=False), self._parameter_constraints, owner)
        validate_params(
            {"n_samples": n_samples, "n_must": n_must, "n_cannot": n_cannot,
             "links_as_given": links_as_given},
            {"n_samples": [Interval(numbers.Integral, 2, None, closed="left")],
             "n_must": [Interval(numbers.Integral, 0, None, closed="left")],
             "n_cannot": [Interval(numbers.Integral, 0, None, closed="left")],
             "links_as_given": [bool]},
            f"{owner}.candidate_parameters",
        )
        t_grid = self._n_neighbors_grid(int(n_samples))
        c = 2 if isinstance(self.n_clusters, str) else self.n_clusters
        closed = (self.links == "closure" and n_must + n_cannot > 0
                  and not links_as_given)
        return self._candidate_grid(t_grid, int(n_must), int(n_cannot), c, closed)

    def _n_neighbors_grid(self, n):
        if isinstance(self.n_neighbors, str):
            return [t for t in DEFAULT_N_NEIGHBORS if t < n]
        grid = check_n_neighbors(self.n_neighbors, n, owner=type(self).__name__)
        return grid if isinstance(grid, list) else [grid]

    def _candidate_grid(self, t_grid, n_must, n_cannot, n_clusters, closed):
        return candidate_grid(
            t_grid,
            as_grid(self.gamma, CLOSURE_GAMMAS if closed else DEFAULT_GAMMAS),
            as_grid(self.eta, CLOSURE_ETAS if closed else DEFAULT_ETAS),
            n_must=n_must,
            n_cannot=n_cannot,
            n_clusters=n_clusters,
        )

    def _choose_n_clusters(self, inputs, graph, seed, n_cannot_clique):
        """``inputs`` with ``n_clusters`` chosen by
        :func:`smiclust.n_clusters.choose_n_clusters` on the kernel of
        ``n_neighbors=7`` (the setting it was measured with), from at least
        ``n_cannot_clique`` clusters."""
        n = inputs.n_samples
        # the cannot-links' clique (``n_cannot_clique`` groups; partial
        # labels: one per class) needs that many clusters; c is not chosen
        # below it (nor above n - 1: a clique of every sample then warns)
        fewest = min(max(2, n_cannot_clique), n - 1)
        present = links_present(inputs)
        step = StepProgress(self.verbose, "n_clusters")
        result = choose_n_clusters(
            local_scaling_kernel_from_neighbors(graph, _AUTO_C_NEIGHBORS),
            present.must_link,
            present.cannot_link,
            candidates=range(fewest, max(fewest, min(_AUTO_C_MAX, n - 1)) + 1),
            links="closure" if self.links == "closure" else "paper",
            eigen_solver=self.eigen_solver,
            random_state=seed,
        )
        self.n_clusters_scores_ = result.scores
        step.done(f"n_clusters={int(result.n_clusters)} chosen among {fewest} to "
                  f"{max(fewest, min(_AUTO_C_MAX, n - 1))}")
        return replace(inputs, n_clusters=int(result.n_clusters))

    def _check_weight_products(self, inputs):
        """Each link enters ``U`` with its weight times ``gamma`` (must-links)
        or ``eta`` (cannot-links): the products must stay within
        ``MAX_LINK_WEIGHT``, as each factor does."""
        for param, weights, name in (
            ("gamma", inputs.must_weight, "must_link_weight"),
            ("eta", inputs.cannot_weight, "cannot_link_weight"),
        ):
            # "auto": the grid of a fit with weights (the links as given)
            values = as_grid(getattr(self, param),
                             DEFAULT_GAMMAS if param == "gamma" else DEFAULT_ETAS)
            if weights is None or not len(weights) or not values:
                continue
            product = max(values) * float(weights.max())
            if product > MAX_LINK_WEIGHT:
                raise ValueError(
                    f"The {name!r} parameter of {type(self).__name__} times "
                    f"{param} must be at most {MAX_LINK_WEIGHT:g} (the weight of "
                    f"a link in U); got {param} up to {max(values)!r} and "
                    f"{name} up to {float(weights.max())!r}."
                )

    def _warn_unused_weights(self, inputs):
        """Warn when a link weight the user set cannot act (a link of weight
        0 is no link)."""
        inputs = links_present(inputs)
        eta_set = not isinstance(self.eta, str) and any(
            e != 0 for e in as_grid(self.eta)
        )
        gamma_set = not isinstance(self.gamma, str) and any(
            g != 0 for g in as_grid(self.gamma)
        )
        if inputs.n_clusters == 1 and (eta_set or gamma_set):
            names = [f"{name}={getattr(self, name)!r}"
                     for name, is_set in (("gamma", gamma_set), ("eta", eta_set))
                     if is_set]
            warnings.warn(
                f"{' and '.join(names)} ignored: with n_clusters=1 every sample "
                "is in the one cluster, whatever the link weights.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
            return
        if inputs.n_clusters > 2 and eta_set:
            warnings.warn(
                f"eta={self.eta!r} is ignored: the cannot-link weight is fixed at 0 "
                "when n_clusters > 2, as in the 3SMIC paper.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        elif not len(inputs.cannot_link) and eta_set:
            warnings.warn(
                f"eta={self.eta!r} is ignored: there are no cannot-links.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        no_links = not len(inputs.must_link) and not len(inputs.cannot_link)
        if no_links and gamma_set:
            warnings.warn(
                f"gamma={self.gamma!r} is ignored: there are no links.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )

    def _lsmi_per_cluster(self):
        """Whether the search's LSMI follows :data:`LSMI_CENTERS_PER_CLUSTER`
        (centres drawn per cluster, at most that many kept per class of a
        labelling): ``lsmi_n_centers="auto"`` with the default links. The
        paper's 3SMIC keeps its 500 centres and an integer its number, every
        centre in every class."""
        return isinstance(self.lsmi_n_centers, str) and self.links == "closure"

    def _lsmi_centers(self, n_clusters):
        """LSMI centres of a search with ``n_clusters`` clusters: the
        integer given, or with ``"auto"`` ``min(PAPER_LSMI_CENTERS,
        LSMI_CENTERS_PER_CLUSTER * n_clusters)`` for the default links and
        :data:`PAPER_LSMI_CENTERS` for ``links="paper"``."""
        if self._lsmi_per_cluster():
            return min(PAPER_LSMI_CENTERS, LSMI_CENTERS_PER_CLUSTER * n_clusters)
        if isinstance(self.lsmi_n_centers, str):
            return PAPER_LSMI_CENTERS
        return self.lsmi_n_centers

    def _lsmi_design(self, inputs, lsmi_seed, n_centers, verbose):
        """The search's LSMI design (see :meth:`_lsmi_per_cluster` for the
        centres a class keeps); ``verbose``: progress."""
        step = StepProgress(verbose, "LSMI")
        design = LSMIDesign(
            inputs.X,
            n_centers=n_centers,
            n_folds=min(self.lsmi_n_folds, inputs.n_samples),
            random_state=lsmi_seed,
            max_centers_per_class=(LSMI_CENTERS_PER_CLUSTER
                                   if self._lsmi_per_cluster() else None),
        )
        step.done(f"LSMI design: {design.n_centers_} centres, "
                  f"{len(design.fold_indices_)} folds")
        return design

    def _search(self, inputs, links, graph, candidates, solver_seed, lsmi_seed,
                verbose, n_centers, kernel, design=None):
        if design is None:
            design = self._lsmi_design(inputs, lsmi_seed, n_centers, verbose)
        return search_parameters(
            graph,
            inputs.must_link,
            inputs.cannot_link,
            inputs.n_clusters,
            candidates,
            design,
            solver_seed=solver_seed,
            eigen_solver=self.eigen_solver,
            tol=self._tol(kernel, inputs.n_clusters),
            max_iter=self.max_iter,
            n_jobs=self.n_jobs,
            verbose=verbose,
            violation_penalty=self.violation_penalty,
            must_weight=links.must_weight,
            cannot_weight=links.cannot_weight,
            groups=links.groups,
            rotate=self._rotates(inputs.n_clusters),
            kernel=kernel,
            keep_cannot_links=links.keep_cannot_links,
        )

    def _store_solution(self, inputs, solution, params, search, candidates, t_chosen):
        """Set the fitted attributes from the final solve and the search.

        ``t_chosen``: ``n_neighbors`` was chosen by the search, so a graph with
        more components than clusters is the criterion's choice, not the
        user's, and is not warned about (``n_graph_components_`` records it).
        """
        c = inputs.n_clusters
        self.affinity_matrix_ = solution.affinity
        self.n_graph_components_ = _graph_components(
            solution.graph, inputs, params[0], params[2], warn=not t_chosen
        )
        _warn_if_rank_deficient(solution.eigenvalues, c)
        self.labels_ = solution.labels
        self.eigenvalues_ = solution.eigenvalues
        self.eigenvectors_ = solution.eigenvectors
        self.dual_coef_ = solution.dual_coef
        self._normalizer = solution.normalizer
        scores, _ = cluster_scores(solution.eigenvectors, solution.normalizer)
        self.proba_ = row_probabilities(scores, np.eye(c)[solution.labels])
        self.n_iter_ = solution.n_operator_applications
        self.n_neighbors_, self.gamma_, self.eta_ = params
        self._score_links()
        self.n_candidates_ = len(candidates)
        if search is None:
            self.tuning_results_ = _single_row(
                *params, self.n_violations_, np.unique(self.labels_).size
            )
            self.best_index_ = 0
            self.lsmi_ = float("nan")
        else:
            self.tuning_results_ = search.results
            self.best_index_ = search.best_index
            self.lsmi_ = float(search.results["lsmi"][search.best_index])

    def _spread_scores(self, K, inputs, groups, solution, solver_seed, votes=None,
                       params=None, kernel="local-scaling", verbose=0):
        """``solution`` with the labels of the samples in no link taken from
        the scores spread over ``K``
        (:func:`smiclust.score_spreading.spread_labels`), or from the seeds
        alone where SMIC without links disagrees with the links
        (:data:`smiclust.score_spreading.SEED_ONLY_AGREEMENT`), and the
        :class:`_SpreadResult` (what :meth:`predict` needs). ``votes``: the
        consensus's scores, spread instead of the solution's; ``params``: the
        chosen ``(n_neighbors, gamma, eta)``, with which ``spreading="auto"``
        chooses its weight (:meth:`_choose_spreading`; ``None``: the first of
        :data:`~smiclust.score_spreading.AUTO_ALPHAS`); ``verbose``: progress
        of its steps."""
        c = inputs.n_clusters
        seeded = ~unlinked_mask(inputs.n_samples, inputs.must_link, inputs.cannot_link)
        if self.spreading == 0 or c == 1 or seeded.all():
            return solution, _NO_SPREAD
        if votes is None:
            scores, _ = cluster_scores(solution.eigenvectors, solution.normalizer)
        else:
            scores = votes
        source, agreement = "scores", float("nan")
        if groups is not None and np.unique(solution.labels[seeded]).size == c:
            step = StepProgress(verbose, "spreading source")
            unlinked_labels = self._solve(K, _NO_LINKS, c, 0.0, 0.0,
                                          solver_seed, kernel).labels
            agreement = closed_link_agreement(unlinked_labels, groups, c)
            step.done(f"SMIC without links agrees with the closed links at "
                      f"{agreement:.3g} balanced accuracy")
            if agreement < SEED_ONLY_AGREEMENT:
                source = "links"
                scores = np.zeros_like(scores)
        classifier = None
        # "auto" is tested on held-out seeds, in the folds of spreading="auto"
        testable = (self.spreading == "auto" and params is not None
                    and groups is not None)
        if ((testable or not isinstance(self.classifier, str))
                and uses_classifier(self.classifier, int(seeded.sum()),
                                    int((~seeded).sum()), c)
                and np.unique(solution.labels[seeded]).size >= 2):
            step = StepProgress(verbose, "classifier")
            classifier, trained_order = self._seed_classifier(
                inputs, seeded, solution.labels[seeded], solver_seed)
            step.done(f"classifier trained on {int(seeded.sum())} linked samples")
        elif not isinstance(self.classifier, str) and self.classifier is not None:
            # issued once by fit, at the caller's line
            self._vote_warnings.append((
                f"The 'classifier' parameter ({type(self.classifier).__name__}) "
                f"was not used: the {int(seeded.sum())} linked samples hold one "
                "cluster of the fit, and a classifier needs two; the spread "
                "scores alone label the samples in no link.",
                UserWarning,
            ))
        tested = classifier is not None and isinstance(self.classifier, str)
        alpha, pvalue, weight = self.spreading, float("nan"), None
        if alpha == "auto":
            alpha = AUTO_ALPHAS[0]
            if params is not None and groups is not None:
                oob = None
                if tested:
                    oob = np.zeros((inputs.n_samples, c))
                    oob[np.flatnonzero(seeded)[trained_order]] = (
                        out_of_bag_probabilities(classifier, c))
                alpha, pvalue, weight = self._choose_spreading(
                    K, inputs, groups, params[1:], source == "links", solver_seed,
                    kernel, oob=oob, seed_labels=solution.labels, verbose=verbose,
                )
        if tested and weight is None:
            classifier = None
        if weight is None:
            weight = VOTE_WEIGHT
        step = StepProgress(verbose, "spreading")
        labels, F = spread_labels(K, scores, solution.labels, seeded, alpha)
        solution, order = with_labels(solution, labels, c)
        F = F[:, order]
        columns, vote_rows = None, None
        if classifier is not None:
            free = ~seeded
            X_free = at_unit_scale(inputs.X[free], inputs.exponent)
            P = classifier_probabilities(classifier, X_free, c)[:, order]
            vote_rows = vote_probabilities(F[free], P, weight)
            labels = solution.labels.copy()
            labels[free] = np.argmax(vote_rows, axis=1)
            solution, renumbered = with_labels(solution, labels, c)
            F, vote_rows = F[:, renumbered], vote_rows[:, renumbered]
            columns = order[renumbered]
        step.done(f"labels of {int((~seeded).sum())} samples in no link spread "
                  f"with weight {alpha}"
                  + ("" if classifier is None else ", and the classifier's vote"))
        rule = _Spread(
            F, seeded, kernel_degrees(K), start_scale(scores),
            float(alpha), source == "links" or votes is not None, classifier, columns,
            weight,
        )
        return solution, _SpreadResult(source, agreement, rule, float(alpha), pvalue,
                                       vote_rows)

    def _seed_classifier(self, inputs, seeded, seed_labels, solver_seed):
        """:func:`~smiclust.classifier_vote.fit_seed_classifier` on the
        samples ``seeded`` at unit scale (the classifier may work in
        float32). The default forest, a function of its rows, labels and
        seed, is kept for the rest of the fit: with two clusters
        ``kernel="auto"`` spreads on both kernels, mostly from the same seed
        labels (the entry holds ``inputs.X`` itself, so no other array takes
        its id while it lives)."""
        X = inputs.X

        def trained():
            return fit_seed_classifier(
                self.classifier, at_unit_scale(X[seeded], inputs.exponent),
                seed_labels, solver_seed)

        cache = getattr(self, "_classifiers", None)
        if not isinstance(self.classifier, str) or cache is None:
            return trained()
        key = (id(X), inputs.exponent, seeded.tobytes(), seed_labels.dtype.str,
               seed_labels.tobytes(), solver_seed)
        if key not in cache:
            cache[key] = (X, trained())
        return cache[key][1]

    def _choose_spreading(self, K, inputs, groups, weights, from_links, solver_seed,
                          kernel="local-scaling", oob=None, seed_labels=None,
                          verbose=0):
        """The weight of ``spreading="auto"``, its p-value, and whether the
        classifier's vote labels held-out seeds better: the linked samples
        in :data:`SPREADING_FOLDS` folds; per fold the closure of the links
        restricted to the other samples
        (:func:`~smiclust.link_groups.restricted_links`) solved at ``weights``
        (``gamma``, ``eta``), its scores (zeros when ``from_links``) spread
        with each of :data:`~smiclust.score_spreading.AUTO_ALPHAS`, and the
        held-out samples scored by
        :func:`~smiclust.score_spreading.held_out_seed_agreement`. The second
        weight when the one-sided sign test over the held-out samples prefers
        it at :data:`~smiclust.score_spreading.AUTO_LEVEL`, else the first.
        ``oob``: the classifier's out-of-bag probabilities of the seeds (rows
        of the samples, columns numbered as ``seed_labels``, the labels it
        learnt), matched per fold to the fold's clusters
        (:func:`~smiclust.classifier_vote.matching_columns`); alone and in
        its vote with each spreading
        (:func:`~smiclust.classifier_vote.vote_probabilities`), scored at the
        chosen weight, they decide the classifier's share
        (:func:`~smiclust.classifier_vote.chosen_weight`; ``None``: no
        classifier). ``None``: no classifier tested (share ``None``).
        ``verbose``: progress after each fold."""
        step = StepProgress(verbose, "spreading weight")
        n, c = inputs.n_samples, inputs.n_clusters
        folds = link_folds(inputs.must_link, inputs.cannot_link, n, SPREADING_FOLDS,
                           np.random.RandomState(solver_seed))
        right, units = [], []
        for fold in range(folds.n_folds):
            held = folds.sample_fold == fold
            train = (folds.sample_fold >= 0) & ~held
            must, cannot = restricted_links(groups, train)
            fold_links = _link_set(replace(inputs, must_link=must, cannot_link=cannot),
                                   self.links,
                                   keep_cannot_links=self.keep_cannot_links)
            solution = self._solve(K, fold_links, c, *weights, solver_seed, kernel)
            if from_links:
                scores = np.zeros((n, c))
            else:
                scores, _ = cluster_scores(solution.eigenvectors, solution.normalizer)
            seeded = ~unlinked_mask(n, must, cannot)
            spread = [spread_labels(K, scores, solution.labels, seeded, alpha)
                      for alpha in AUTO_ALPHAS]
            labels = [fold_labels for fold_labels, _ in spread]
            if oob is not None:
                order = matching_columns(seed_labels[seeded],
                                         solution.labels[seeded], c)
                P = oob[held][:, order]
                for fold_labels, F in spread:
                    voted = fold_labels.copy()
                    voted[held] = np.argmax(vote_probabilities(F[held], P), axis=1)
                    labels.append(voted)
                alone = spread[0][0].copy()
                alone[held] = np.argmax(P, axis=1)
                labels.append(alone)
            fold_right, fold_units = held_out_seed_agreement(
                np.column_stack(labels), groups, held, train)
            right.append(fold_right)
            units.append(fold_units)
            step.part(f"fold {fold + 1}/{folds.n_folds} solved and spread")
        first, second = AUTO_ALPHAS
        right = np.concatenate(right)
        pvalue = sign_test_pvalue(right[:, 0], right[:, 1], np.concatenate(units))
        alpha = second if pvalue < AUTO_LEVEL else first
        chosen = 1 if alpha == second else 0
        weight = None if oob is None else chosen_weight(
            right[:, chosen].sum(), right[:, 2 + chosen].sum(), right[:, 4].sum())
        kept = "" if oob is None else "; the classifier's vote " + (
            "not kept" if weight is None
            else "kept alone" if weight == 1.0 else "kept")
        step.done(f"spreading {alpha} chosen by held-out seeds (p = {pvalue:.3g} "
                  f"that {second} labels them better){kept}")
        return alpha, pvalue, weight

    def _predicts_by_choice(self):
        """Whether new samples take rule PF4's choice: the default's closed
        links with ``classifier="auto"`` and a spreading weight, and fewer
        than :data:`~smiclust.classifier_vote.MIN_UNLINKED_SHARE` of the
        training samples in no link (rule PF5: where the fit trains no
        forest for them, rule FS)."""
        return (getattr(self, "links_", None) == "closure"
                and isinstance(self.classifier, str) and self.spreading != 0
                and self.n_clusters_ > 1 and hasattr(self, "_new_sample_seed")
                and self._unlinked_share < MIN_UNLINKED_SHARE)

    def _choose_linked_fit_rule(self, X_fit, sigma):
        """Rule PF4: ``("paper", None)``, ``("neighbours", degree)`` or
        ``("forest", model)``, whichever labels the training samples best
        held out, by the adjusted Rand index of the held-out labels against
        ``labels_`` (a class of 90 % does not decide, as it would a count
        of samples right): the paper's rule with each training sample passed
        as new and its own kernel entry removed, the neighbours' vote of the
        others (:func:`~smiclust.score_spreading.left_out_neighbour_labels`),
        the default forest's out-of-bag labels. Ties go to the paper's rule,
        then to the neighbours.

        Above :data:`NEW_SAMPLE_RULE_MAX_SAMPLES` training samples the
        rules are judged on :func:`_new_sample_rule_rows` of them (the
        forest trained on those), and the neighbours' vote is not tried: it
        weighs every training sample by its own left-out degree, which needs
        the kernel of every training sample passed as new."""
        c, labels = self.n_clusters_, self.labels_
        every = labels.size <= NEW_SAMPLE_RULE_MAX_SAMPLES
        rows = (np.arange(labels.size) if every
                else _new_sample_rule_rows(labels.size, self._new_sample_seed))
        X_held = X_fit if every else X_fit[rows]
        K = local_scaling_cross_kernel(X_held, X_fit, sigma, self.n_neighbors_)
        if every:
            left_out, degree = left_out_neighbour_labels(K, labels, c)
        if getattr(self, "_fit_degrees", None) is not None:
            K = degree_normalized_cross_kernel(K, self._fit_degrees)
        K = _without_own_entries(K, rows)
        options = [("paper", None)]
        agreement = [adjusted_rand_score(
            labels[rows], self._paper_argmax(np.asarray(K @ self.dual_coef_)))]
        if every:
            options.append(("neighbours", degree))
            agreement.append(adjusted_rand_score(labels, left_out))
        forest, order = fit_seed_classifier("auto", X_held, labels[rows],
                                            self._new_sample_seed)
        oob = out_of_bag_probabilities(forest, c)
        options.append(("forest", forest))
        agreement.append(adjusted_rand_score(labels[rows][order],
                                             np.argmax(oob, axis=1)))
        return options[int(np.argmax(agreement))]  # the first of the highest

    def _paper_argmax(self, R):
        """The paper's out-of-sample labels from the responses ``R`` (kernel
        rows times ``dual_coef_``): the argmax of each response over its
        cluster's normaliser."""
        safe = np.where(self._normalizer > 0, self._normalizer, 1.0)
        return np.argmax(R / safe, axis=1)

    def _new_scores(self, X):
        """Responses of new samples (the paper's rule), their clipped,
        normalised scores and, when the fit spread its scores, their spread
        scores; when (almost) every training sample is linked, rule PF4's
        scores (the forest's probabilities or the neighbours' votes); else
        ``None``. With the forest, which scores every new sample, the
        responses and their scores are not computed (``None``)."""
        check_is_fitted(self)
        check_numeric(X, owner=type(self).__name__, accept_sparse=True)
        X = canonical_sparse(validate_data(self, X, accept_sparse="csr",
                                           dtype=np.float64, reset=False))
        with single_threaded():  # see fit
            e = self._x_exponent  # neighbours and kernels at the unit scale of fit
            X, X_fit = at_unit_scale(X, e), at_unit_scale(self._fit_X, e)
            sigma = at_unit_scale(self.local_scales_, e)
            c = self.n_clusters_
            kind, fitted = self._linked_rule(X_fit, sigma)
            if kind == "forest":
                return None, None, classifier_probabilities(fitted, X, c)
            Kx = local_scaling_cross_kernel(X, X_fit, sigma, self.n_neighbors_)
            # the kernel of the fit is normalised (models saved before the
            # normalised kernel existed have no degrees: the paper's kernel)
            if getattr(self, "_fit_degrees", None) is not None:
                Kx = degree_normalized_cross_kernel(Kx, self._fit_degrees)
            R = np.asarray(Kx @ self.dual_coef_)
            scores, _ = cluster_scores(R, self._normalizer)
            if kind == "neighbours":
                return R, scores, spread_new_rows(
                    Kx, np.zeros_like(scores), np.eye(c)[self.labels_], fitted, 1.0,
                    AUTO_ALPHAS[0])
            spread = self._spread
            if kind == "paper" or spread is None:
                return R, scores, None
            start = np.zeros_like(scores) if spread.neighbours_only else scores
            F = spread_new_rows(Kx, start, spread.F, spread.degree, spread.scale,
                                spread.alpha)
            return R, scores, spread.vote(F, X)

    def _choose_new_sample_rule(self, X_fit, sigma):
        """Rule PF4's choice for new samples (:meth:`_choose_linked_fit_rule`)
        when :meth:`_predicts_by_choice`, else ``(None, None)``; made by
        ``fit``."""
        if not self._predicts_by_choice():
            return None, None
        step = StepProgress(self.verbose, "new samples")
        n = self.labels_.size
        if n >= _ANNOUNCED_RULE_SAMPLES:  # seconds of silence otherwise
            judged = (n if n <= NEW_SAMPLE_RULE_MAX_SAMPLES
                      else _new_sample_rule_size(n))
            progress(self.verbose, "new samples: every sample is linked, so the "
                     f"rule for new ones is chosen on {judged} training samples "
                     "held out in turn")
        rule = self._choose_linked_fit_rule(X_fit, sigma)
        step.done(f"new samples: {rule[0]} chosen by held-out training labels")
        return rule

    def _linked_rule(self, X_fit, sigma):
        """The rule :meth:`fit` chose for new samples
        (:meth:`_choose_new_sample_rule`); a model saved before ``fit`` made
        the choice chooses it here, once."""
        if self._linked_fit_rule is None:
            self._linked_fit_rule = self._choose_new_sample_rule(X_fit, sigma)
        return self._linked_fit_rule

    def predict(self, X):
        """Cluster of new samples.

        By the paper's out-of-sample rule; when the fit spread its scores
        (``spread_from_`` is not ``"none"``), by the argmax of the new
        samples' spread scores
        (:func:`smiclust.score_spreading.spread_new_rows`), so that a
        training sample in no link passed as new gets (nearly always) its
        ``labels_``. A linked sample's ``labels_`` came from its links as
        well, which a new sample does not carry: passed as new it gets the
        label its features and neighbours give, which can differ (two
        must-linked samples may then be apart).
        When every training sample is linked, or all but fewer than 1 %
        (where the fit trains no forest), with the default's closed links,
        ``classifier="auto"`` and a spreading weight, by the paper's rule,
        the vote of the new sample's training neighbours' ``labels_``, or a
        random forest trained on every training sample with its
        ``labels_``, whichever labels the training samples best held out by
        the adjusted Rand index (each passed as new without its own kernel
        entry, the neighbours' vote of the others, the forest's out-of-bag
        labels; ties to the paper's rule, then the neighbours); chosen, and
        the forest trained, by ``fit``, with the parameters of the fit (rules
        PF4 and PF5 of docs/beyond-the-paper/research-notes.md). Above 5,000
        training samples the choice is judged on 1,000-5,000 of them drawn
        from the fit's seed (at most about 10^8 distances), between the
        paper's rule and a forest trained on those samples. With the
        neighbours' vote, a new sample no training sample reaches keeps the
        paper's rule; the forest labels every new sample, however far.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_queries, n_features)

        Returns
        -------
        labels : ndarray of shape (n_queries,)
        """
        R, _, F = self._new_scores(X)
        if R is None:  # the forest scores every sample
            return np.argmax(F, axis=1)
        labels = self._paper_argmax(R)
        if F is not None:
            heard = F.sum(axis=1) > 0
            labels[heard] = np.argmax(F[heard], axis=1)
        return labels

    def predict_proba(self, X):
        r"""Clipped, normalised class-posterior estimates of new samples.

        :math:`\hat p(y|x') \propto \max(0, \sum_i K(x',x_i)[\beta_y]_i) /
        \sum_i\max(0,[\tilde\phi_y]_i)`, rows scaled to sum 1; when the fit
        spread its scores, the new samples' spread scores
        (:func:`smiclust.score_spreading.spread_new_rows`) instead, rows
        scaled to sum 1; when (almost) every training sample is linked, the
        scores of :meth:`predict`'s choice (the forest's probabilities or the
        neighbours' votes), rows scaled to sum 1. A sample with no positive
        score (far from every cluster) gets the uniform distribution, whose
        argmax is then not its label: :meth:`predict` takes the largest
        unclipped score (the forest's rows always have a positive one).

        Returns
        -------
        proba : ndarray of shape (n_queries, n_clusters)
        """
        _, scores, F = self._new_scores(X)
        if scores is None:  # the forest's rows, each with a positive sum
            return row_probabilities(F, F)
        uniform = np.full_like(scores, 1.0 / scores.shape[1])
        paper = row_probabilities(scores, uniform)
        return paper if F is None else row_probabilities(F, paper)


def _with_partial_labels(inputs, partial_labels, mode, estimator):
    """``inputs`` with the links that ``partial_labels`` imply added (checked
    against the given links), and the labels' codes (``-1``: unknown);
    ``(inputs, None)`` when there are none."""
    if partial_labels is None:
        return inputs, None
    owner = type(estimator).__name__
    codes = encode_partial_labels(
        partial_labels, n_samples=inputs.n_samples, owner=owner, name="partial_labels"
    )
    if inputs.must_weight is not None or inputs.cannot_weight is not None:
        raise ValueError(
            f"partial_labels cannot be combined with link weights in {owner}: "
            "give the labels' links weights too, as explicit links."
        )
    n_classes = int(codes.max()) + 1 if codes.size else 0
    if not isinstance(estimator.n_clusters, str) and n_classes > inputs.n_clusters:
        raise ValueError(
            f"partial_labels in {owner} name {n_classes} classes, more than "
            f"n_clusters={inputs.n_clusters}: every class needs a cluster of its "
            f"own. Set n_clusters to at least {n_classes} (or 'auto')."
        )
    _check_links_against_labels(inputs, codes, owner)
    if mode == "paper":
        extra_must, extra_cannot = pairs_from_codes(codes)
    else:
        extra_must, extra_cannot = _spanning_label_links(codes)
    must = _union_pairs(inputs.must_link, extra_must)
    cannot = _union_pairs(inputs.cannot_link, extra_cannot)
    must, cannot = check_constraints(must, cannot, inputs.n_samples, owner=owner)
    return replace(inputs, must_link=must, cannot_link=cannot), codes


def _check_links_against_labels(inputs, codes, owner):
    """Refuse a given link that the partial labels contradict: a must-link
    between two classes, a cannot-link inside one (in both modes, whichever
    of the labels' pairs become links)."""
    for kind, links, same in (("must-link", inputs.must_link, True),
                              ("cannot-link", inputs.cannot_link, False)):
        bad = np.flatnonzero(links_against_labels(codes, links, same)[1])
        if bad.size:
            i, j = (int(v) for v in links[bad[0]])
            raise ValueError(
                f"A pair cannot be both a must-link and a cannot-link in {owner}: "
                "partial_labels link every two labelled samples (a must-link "
                f"within a class, a cannot-link between classes), and "
                f"{bad.size} given {kind}(s) contradict them; the first is "
                f"({i}, {j})."
            )


def _spanning_label_links(codes):
    """Few links with the same closure as the labels: a chain through each
    class, and one cannot-link between the first members of every two
    classes (:func:`~smiclust.link_groups.restricted_links` of the labels'
    groups, over the labelled samples)."""
    return restricted_links(groups_from_labels(codes), codes >= 0)


def _union_pairs(a, b):
    """Distinct pairs of ``a`` and ``b`` (canonical ``i < j``), ``a``'s first."""
    pairs = np.vstack([a, np.sort(np.asarray(b, dtype=np.intp).reshape(-1, 2), 1)])
    _, first = np.unique(pairs, axis=0, return_index=True)
    return pairs[np.sort(first)]


def _link_set(inputs, mode, contradictions="soften", given=None,
              keep_cannot_links=False):
    """How the links are used: closed (default) or as the paper does; links
    that contradict themselves softened or repaired; with closed links,
    every cannot-link kept in the labels or not. ``given``: the closure of
    ``inputs``' links (:func:`~smiclust.link_groups.link_groups`) when
    already built."""
    weighted = inputs.must_weight is not None or inputs.cannot_weight is not None
    groups = None
    has_links = len(inputs.must_link) or len(inputs.cannot_link)
    if mode == "closure" and not weighted and has_links:
        groups = given if given is not None else link_groups(
            inputs.must_link, inputs.cannot_link, inputs.n_samples
        )
        if groups.n_contradictions and contradictions == "repair":
            keep = repaired_must_links(inputs.must_link, inputs.cannot_link,
                                       inputs.n_samples)
            groups = link_groups(inputs.must_link[keep], inputs.cannot_link,
                                 inputs.n_samples)
        elif groups.n_contradictions:
            # links that contradict themselves are partly wrong: closing them
            # would chain whole classes together, and using them with full
            # weight pulls the clusters after the wrong ones (both measured in
            # docs/noisy-links.md), so they are used as given, softly
            soft_m = np.full(len(inputs.must_link), CONTRADICTED_LINK_WEIGHT)
            soft_c = np.full(len(inputs.cannot_link), CONTRADICTED_LINK_WEIGHT)
            return LinkSet(inputs.must_link, inputs.cannot_link, soft_m, soft_c)
    return LinkSet(
        inputs.must_link,
        inputs.cannot_link,
        inputs.must_weight,
        inputs.cannot_weight,
        groups,
        keep_cannot_links,
    )


def _cannot_clique_samples(inputs, groups=None):
    """One sample (the first) of each must-link group of the greedy
    cannot-link clique (:func:`smiclust.link_groups.cannot_clique`); empty
    without cannot-links. ``groups``: the links' groups when already built."""
    if not len(inputs.cannot_link):
        return np.empty(0, dtype=np.intp)
    if groups is None:
        groups = link_groups(inputs.must_link, inputs.cannot_link, inputs.n_samples)
    _, first = np.unique(groups.group, return_index=True)  # groups 0 .. g - 1
    return first[cannot_clique(groups)]


def _without_own_entries(K, rows):
    """Kernel rows ``K`` of the training samples ``rows`` passed as new,
    without each one's own entry (column ``rows[r]`` of row ``r``)."""
    K = K.tocoo()
    keep = K.col != rows[K.row]
    return sp.csr_matrix((K.data[keep], (K.row[keep], K.col[keep])), shape=K.shape)


def _new_sample_rule_size(n_samples):
    """How many training samples judge the rules for new samples above
    :data:`NEW_SAMPLE_RULE_MAX_SAMPLES`: ``min(5000, max(1000, 10**8 //
    n_samples))`` (the constants above)."""
    return min(NEW_SAMPLE_RULE_MAX_SAMPLES,
               max(NEW_SAMPLE_RULE_MIN_SAMPLES,
                   NEW_SAMPLE_RULE_MAX_DISTANCES // n_samples))


def _new_sample_rule_rows(n_samples, seed):
    """The training samples (sorted indices) on which a fit of more than
    :data:`NEW_SAMPLE_RULE_MAX_SAMPLES` samples judges the rules for new
    samples: :func:`_new_sample_rule_size` of them, drawn without
    replacement by ``RandomState(seed)``."""
    rng = np.random.RandomState(seed)
    return np.sort(rng.choice(n_samples, _new_sample_rule_size(n_samples),
                              replace=False))


@contextmanager
def _restored_on_error(estimator):
    """Put back every attribute of ``estimator`` as it was on entry when the
    block raises (any exception, ``KeyboardInterrupt`` too), then re-raise: a
    failed fit leaves no half-updated model. A context manager, not a
    wrapper function, so that the warnings of ``fit`` keep their stack
    levels."""
    state = dict(estimator.__dict__)
    try:
        yield
    except BaseException:
        estimator.__dict__.clear()
        estimator.__dict__.update(state)
        raise


def _warn_if_too_few_clusters(clique, n_clusters, groups):
    """Warn when no labelling satisfies every link: the cannot-links join
    more groups pairwise (``clique``: a sample of each) than there are
    clusters, or, with two clusters, close a cycle of odd length between the
    must-link groups ``groups`` (:func:`smiclust.link_groups.odd_cycle_groups`;
    with three clusters or more only the clique is checked, colouring being
    NP-hard)."""
    if clique.size > n_clusters:
        warnings.warn(
            f"{clique.size} samples (e.g. {clique[:6].tolist()}) are pairwise "
            f"cannot-linked (through their must-link groups), more than "
            f"n_clusters={n_clusters}: no labelling satisfies every link.",
            ConstraintConflictWarning,
            stacklevel=user_stacklevel(),
        )
    elif n_clusters == 2 and groups is not None:
        odd = odd_cycle_groups(groups)
        if odd.size:
            samples = np.flatnonzero(np.isin(groups.group, odd))
            warnings.warn(
                f"The cannot-links among samples such as {samples[:6].tolist()} "
                "close a cycle of odd length (through their must-link groups), "
                "and n_clusters=2: no labelling satisfies every link.",
                ConstraintConflictWarning,
                stacklevel=user_stacklevel(),
            )


def _vote_warnings(caught, n_neighbors):
    """``(message, category)`` of the warnings of Spectral Learning's
    labelling at ``n_neighbors`` in the vote, for ``fit`` to issue: an
    eigen-solve that did not converge is named as that labelling's (the user
    asked for no Spectral Learning), others as they were."""
    out = []
    for warning in caught:
        text = str(warning.message)
        if issubclass(warning.category, ConvergenceWarning):
            text = (f"Spectral Learning's labelling at n_neighbors={n_neighbors}, "
                    f"one of the labellings that vote on the clusters, did not "
                    f"converge ({text.rstrip('.')}); it votes as computed.")
        out.append((text, warning.category))
    return out


def _warn_if_clusters_hold_no_sample(labels, n_clusters):
    """Warn when fewer than ``n_clusters`` clusters hold a sample (the
    labels then run from 0 to the number found minus one)."""
    found = int(np.unique(labels).size)
    if found < n_clusters:
        warnings.warn(
            f"The labels use {found} of n_clusters={n_clusters} clusters (labels "
            f"0 to {found - 1}); the other {n_clusters - found} hold no sample. "
            "The data and links may hold fewer clusters, or a small cluster may "
            "have joined a larger one.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )


def _warn_if_rank_deficient(eigenvalues, c):
    top = float(np.max(eigenvalues))
    rank = int(np.count_nonzero(eigenvalues > 1e-10 * max(top, np.finfo(float).tiny)))
    if rank < c:
        warnings.warn(
            f"U has only {rank} clearly non-zero leading eigenvalue(s) for "
            f"n_clusters={c} (e.g. identical or too few distinct samples); the "
            "clusters behind the zero eigenvalues are arbitrary.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )


def _graph_components(graph, inputs, n_neighbors, eta, *, warn):
    """Number of connected components of the graph of ``K'`` and the links
    that couple the samples in ``U`` (the cannot-links only with ``eta >
    0``); with ``warn``, a warning when there are more than clusters."""
    n_components = graph_components(graph, inputs, cannot_links=eta > 0)
    if warn:
        warn_graph_components(n_components, inputs, n_neighbors)
    return n_components


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


def smi_clustering(
    X,
    n_clusters=2,
    *,
    must_link=None,
    cannot_link=None,
    must_link_weight=None,
    cannot_link_weight=None,
    partial_labels=None,
    **params,
):
    """Cluster ``X`` with SMIC / 3SMIC and return the labels.

    Builds :class:`SMIClustering` ``(n_clusters, **params)`` and fits it with
    the links, their weights and the partial labels given (see
    :meth:`SMIClustering.fit`).

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
    model.fit(
        X,
        must_link=must_link,
        cannot_link=cannot_link,
        must_link_weight=must_link_weight,
        cannot_link_weight=cannot_link_weight,
        partial_labels=partial_labels,
    )
    return model.labels_
