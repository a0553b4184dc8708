"""Pure: the records a comparison is made of: the stats results themselves (the test that
decides, the difference with its interval, the bootstrap beside it) and the few records that
add something of their own (each side's rate, a slice, a secondary metric, the power line,
repeats, clusters, cost, F1), and the alpha a run is judged at."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from evalbot.formats.model import Paired
from evalbot.plan.config import Config
from evalbot.stats.bootstrap import BootstrapResult
from evalbot.stats.clusters import ClusteredMeanResult, DesignEffectResult
from evalbot.stats.intervals import ConfidenceInterval
from evalbot.stats.mcnemar import McNemarResult
from evalbot.stats.paired_mean import EffectSizeResult, PairedMeanResult
from evalbot.stats.paired_proportions import PairedDifferenceResult
from evalbot.stats.pvalue import Decision, PValue
from evalbot.stats.repeats import BudgetAllocation, RepeatsResult
from evalbot.stats.sequential import ConfidenceSequenceResult, SequentialResult
from evalbot.stats.table import ChurnResult, PairedTable, TwoProportionResult
from evalbot.vocabulary import RESAMPLES, SEED

Significance = Decision  # how a p-value compares with alpha

#: How the primary difference's interval was made: Tango's score interval with continuity
#: correction (pass/fail), the paired bootstrap (percentile or BCa; ``test: bootstrap``), the
#: sign-flip or paired-t interval (scores), the cluster sign-flip or cluster-robust t interval
#: (items that share clusters, pass/fail or scores), the always-valid confidence sequence
#: (``policy.mode: sequential``).
IntervalKind = Literal[
    "tango-cc",
    "bootstrap",
    "sign-flip",
    "t",
    "cluster-sign-flip",
    "cluster-t",
    "confidence-sequence",
]

#: The test that decides: McNemar's, the mixture SPRT (sequential mode), the paired test of a
#: mean difference (items or clusters), or the bootstrap (``test: bootstrap``).
Test = McNemarResult | SequentialResult | PairedMeanResult | BootstrapResult
#: The difference with the interval shown (Tango's, the confidence sequence, the interval that
#: inverts the mean test, or the bootstrap's): each carries ``statistic``,
#: ``confidence_interval``, ``confidence_level``, ``standard_error`` and the ``pvalue`` of the
#: test the interval inverts (for Tango's, McNemar's continuity-corrected chi-squared test).
Estimate = PairedDifferenceResult | ConfidenceSequenceResult | PairedMeanResult | BootstrapResult


def test_name(test: Test) -> str:
    """The test's name as the report shows it (``"McNemar (exact)"``, ``"paired t"``...)."""
    if isinstance(test, McNemarResult):
        return f"McNemar ({test.method})"
    if isinstance(test, SequentialResult):
        return "mixture SPRT (always valid)"
    if isinstance(test, BootstrapResult):
        return f"paired bootstrap ({test.method})"
    return test.method


def describe(estimate: Estimate) -> tuple[IntervalKind, str]:
    """The kind of interval of ``estimate`` and its method in the report's words."""
    if isinstance(estimate, PairedDifferenceResult):
        return "tango-cc", "Tango score interval, continuity-corrected"
    if isinstance(estimate, ConfidenceSequenceResult):
        return "confidence-sequence", "mixture confidence sequence (always valid)"
    if isinstance(estimate, BootstrapResult):
        return "bootstrap", f"paired bootstrap ({estimate.method}, resampling {estimate.resampled})"
    flip = "sign-flip" in estimate.method
    if isinstance(estimate, ClusteredMeanResult):
        return ("cluster-sign-flip" if flip else "cluster-t"), estimate.method
    return ("sign-flip" if flip else "t"), estimate.method


class Described:
    """A record whose ``difference`` carries an interval: its kind and method
    (:func:`describe`)."""

    difference: Estimate

    @property
    def interval(self) -> IntervalKind:
        return describe(self.difference)[0]

    @property
    def method(self) -> str:
        """How the difference's interval was made, in the report's words."""
        return describe(self.difference)[1]


@dataclass(frozen=True, kw_only=True)
class Alpha:
    """The plan's ``level`` and the ``effective`` alpha this run's tests are judged at, by the
    rule of every function of :mod:`evalbot.stats`, **p <= alpha** (so a plan sized for power
    at alpha is judged by the rule its power was computed for).

    ``looks`` is the Bonferroni divisor (``policy.max_looks`` under ``policy.looks:
    bonferroni``), ``None`` when alpha is not corrected. The comparison, the decision and the
    report read the same instance (``Comparison.alpha`` is ``Decision.alpha``).
    """

    level: float
    effective: float
    looks: int | None = None

    @property
    def corrected(self) -> bool:
        return self.looks is not None and self.effective != self.level

    def judge(self, pvalue: PValue) -> Significance:
        """``"below"`` when ``p <= effective``, ``"not_below"`` when ``p > effective``,
        ``"unresolved"`` when only a bound at or above it is known (a bootstrap p of 0 with
        too few resamples for this alpha)."""
        return pvalue.decide(self.effective)

    def rejects(self, pvalue: PValue) -> bool:
        return self.judge(pvalue) == "below"


def plan_alpha(config: Config, *, holdout: bool = False) -> Alpha:
    """The alpha of a run under ``config``: with ``policy.looks: bonferroni`` every look (the
    first included) is tested at ``alpha / policy.max_looks``; the sealed ``holdout`` is not a
    look at the pull request and keeps the plan's alpha."""
    looks = config.policy.max_looks if config.policy.looks == "bonferroni" and not holdout else None
    effective = config.alpha if looks is None else config.alpha / looks
    return Alpha(level=config.alpha, effective=effective, looks=looks)


@dataclass(frozen=True, kw_only=True)
class Side:
    """One system's result: its rate (or mean score) and interval."""

    rate: float
    passed: int | None
    confidence_interval: ConfidenceInterval
    interval_method: str


@dataclass(frozen=True, kw_only=True)
class SliceResult:
    """One stratum (the items sharing a ``slice`` label) compared on its own.

    ``pvalue`` is that of ``test`` (McNemar's for pass/fail items, the primary's test for
    scores or clustered items); ``qvalue`` is its Benjamini-Hochberg adjustment over all
    slices of the comparison.
    """

    name: str | None
    items: int
    baseline_rate: float
    candidate_rate: float
    difference: float
    table: PairedTable | None
    pvalue: PValue
    test: str
    qvalue: float


@dataclass(frozen=True, kw_only=True)
class SecondaryResult(Described):
    """A secondary metric: ``difference`` is the test a primary score would get (its own
    interval, resamples and seed where sampled, each side's mean: ``baseline_value``,
    ``candidate_value``), ``adjusted_pvalue`` its p-value Holm-adjusted over the secondaries."""

    name: str
    difference: PairedMeanResult | BootstrapResult
    adjusted_pvalue: float


@dataclass(frozen=True, kw_only=True)
class PowerResult:
    """How sensitive this eval is (pass/fail items, the McNemar test the plan runs, exact
    power: :func:`evalbot.stats.power.mcnemar_minimum_detectable_effect` and
    :func:`evalbot.stats.power.mcnemar_sample_size`).

    Attributes
    ----------
    minimum_detectable_effect : float or None
        Smallest net change (share of items) detectable with ``power`` at ``alpha`` given the
        observed share of items that changed outcome; ``None`` when none changed, or when even
        "every changed item fixed" would not be detectable.
    discordant_rate : float
        Observed ``(fixed + broken) / items``.
    items_needed : int or None
        For an observed effect that did not reach significance: items needed to detect an
        effect of the observed fix and break rates with ``power``. ``None`` otherwise.
    method : str
        How both were computed.
    design : DesignEffectResult or None
        The design effect both account for (estimated from the items' clusters, or the
        plan's ``plan.design_effect``); ``None``: items are independent.
    """

    items: int
    alpha: float
    power: float
    discordant_rate: float
    minimum_detectable_effect: float | None
    items_needed: int | None
    method: str
    design: DesignEffectResult | None = None


@dataclass(frozen=True, kw_only=True)
class RepeatsSide:
    """Repeat statistics of one run whose items were sampled several times (epochs).

    ``pass_at_k`` holds ``(k, unbiased pass@k)`` for ``k = 1 .. min(repeats, 10)``;
    ``standard_error`` is the SE of the mean for this many items and repeats from the variance
    components (``None`` when they cannot be separated, i.e. one item); ``budget`` is the
    allocation of the same number of calls (items x repeats) that minimises that SE.
    """

    result: RepeatsResult
    flaky_ids: list[str]
    pass_at_k: tuple[tuple[int, float], ...] = ()
    standard_error: float | None = None
    budget: BudgetAllocation | None = None


@dataclass(frozen=True, kw_only=True)
class ClusterResult:
    """Items that share a ``cluster`` label: ``clusters`` counts them (an item without a label
    is a cluster of its own); ``standard_error`` is the cluster-robust (CR1) standard error of
    the difference in means, ``None`` with fewer than two clusters."""

    clusters: int
    labelled_items: int
    standard_error: float | None


@dataclass(frozen=True, kw_only=True)
class CostSide:
    """One run's cost: ``total_cost`` sums the per-item costs (with repeats, each item's mean
    cost per sample); ``solved`` sums the per-item pass values (pass rates with repeats);
    ``cost_per_solved`` is their ratio (``None`` when nothing was solved or the metric is not
    pass/fail). ``items_without_cost`` counts items that had no cost (counted as 0)."""

    total_cost: float
    solved: float | None
    cost_per_solved: float | None
    items_without_cost: int


@dataclass(frozen=True, kw_only=True)
class F1Side:
    """Micro F1 of one run from its summed counts (``f1`` is ``None`` when
    ``2 tp + fp + fn == 0``)."""

    f1: float | None
    tp: float
    fp: float
    fn: float


SideT = TypeVar("SideT", CostSide, F1Side)


@dataclass(frozen=True, kw_only=True)
class BothRuns(Generic[SideT]):
    """A measure of each run (cost, micro F1) and the paired bootstrap of its difference
    (cost per solved task, F1; ``None`` when it is undefined on a side: nothing solved, no
    count)."""

    baseline: SideT
    candidate: SideT
    difference: BootstrapResult | None


@dataclass(frozen=True, kw_only=True, eq=False)
class Comparison(Described):
    """Everything computed about one paired comparison.

    ``test_result`` is the test that decides and ``difference`` the difference with the
    interval shown (both stats results: :data:`Test`, :data:`Estimate`; one object when the
    interval inverts the test), ``bootstrap`` the paired bootstrap of that difference (the
    test with ``test: bootstrap``, otherwise shown beside it; ``None`` only in hand-built
    records), ``mcnemar`` McNemar's test for pass/fail items whatever decides, and ``alpha``
    the level this run is judged at (the decision holds the same object).
    """

    paired: Paired
    metric: str
    baseline: Side
    candidate: Side
    difference: Estimate
    test_result: Test
    table: PairedTable | None
    mcnemar: McNemarResult | None
    fixed_ids: list[str]
    broken_ids: list[str]
    alpha: Alpha
    churn: ChurnResult | None = None
    unpaired: TwoProportionResult | None = None
    slices: tuple[SliceResult, ...] = ()
    secondary: tuple[SecondaryResult, ...] = ()
    power: PowerResult | None = None
    repeats_baseline: RepeatsSide | None = None
    repeats_candidate: RepeatsSide | None = None
    clusters: ClusterResult | None = None
    cost: BothRuns[CostSide] | None = None
    f1: BothRuns[F1Side] | None = None
    bootstrap: BootstrapResult | None = None
    resamples: int = RESAMPLES  # the plan's bootstrap settings, wherever evalbot resamples
    seed: int = SEED

    @property
    def items(self) -> int:
        return len(self.paired)

    @property
    def pvalue(self) -> PValue:
        """The p-value of the test that decides."""
        return self.test_result.pvalue

    @property
    def test(self) -> str:
        return test_name(self.test_result)

    @property
    def finite(self) -> bool:
        """The difference and both ends of its interval are finite."""
        ci = self.difference.confidence_interval
        return all(math.isfinite(x) for x in (self.difference.statistic, ci.low, ci.high))

    @property
    def effect_size(self) -> EffectSizeResult | None:
        """Cohen's d_z of item-level scores (``None`` otherwise: for clustered items it would
        assume them independent)."""
        found = self.difference
        if isinstance(found, PairedMeanResult) and not isinstance(found, ClusteredMeanResult):
            return found.effect_size
        return None

    @property
    def identical(self) -> bool:
        """Both runs gave every item the same value (a file compared with itself?)."""
        paired = self.paired
        return len(paired) > 0 and bool((paired.baseline == paired.candidate).all())
