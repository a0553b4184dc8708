"""Pure: the records a comparison is made of (frozen, keyword-only, plain numbers)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from evalbot.compare.alpha import Alpha
from evalbot.formats.model import Paired
from evalbot.stats.bootstrap import BootstrapResult
from evalbot.stats.clusters import DesignEffectResult
from evalbot.stats.intervals import ConfidenceInterval
from evalbot.stats.mcnemar import McNemarResult
from evalbot.stats.paired_mean import EffectSizeResult
from evalbot.stats.pvalue import PValue
from evalbot.stats.repeats import BudgetAllocation, RepeatsResult
from evalbot.stats.table import ChurnResult, PairedTable, TwoProportionResult
from evalbot.vocabulary import RESAMPLES, SEED

__all__ = [
    "CLUSTER_INTERVALS",
    "ClusterResult",
    "Comparison",
    "CostResult",
    "CostSide",
    "Difference",
    "F1Result",
    "F1Side",
    "IntervalKind",
    "PowerResult",
    "RepeatsSide",
    "SecondaryResult",
    "Side",
    "SliceResult",
    "TestResult",
]

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
#: The intervals (and tests) whose units are clusters.
CLUSTER_INTERVALS: tuple[IntervalKind, ...] = ("cluster-sign-flip", "cluster-t")


@dataclass(frozen=True, kw_only=True)
class Difference:
    """The primary difference, candidate minus baseline, and its interval.

    ``pvalue`` is the p-value of the test the interval inverts (for ``tango-cc``
    McNemar's continuity-corrected chi-squared test; for the others the primary test itself),
    so the interval excludes 0 exactly when it is at most ``1 - confidence_level``.
    ``n_resamples``, ``seed`` and ``resampled`` (``items`` or ``clusters``) are set when the
    interval resampled; ``effect_size`` is Cohen's d_z for numeric scores.
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    interval: IntervalKind
    method: str
    standard_error: float
    pvalue: PValue
    n_resamples: int | None = None
    seed: int | None = None
    resampled: str | None = None
    n_units: int = 0
    effect_size: EffectSizeResult | None = None

    @property
    def finite(self) -> bool:
        ci = self.confidence_interval
        return all(math.isfinite(x) for x in (self.statistic, ci.low, ci.high))

    @classmethod
    def from_bootstrap(cls, boot: BootstrapResult) -> Difference:
        return cls(
            statistic=boot.statistic,
            confidence_interval=boot.confidence_interval,
            confidence_level=boot.confidence_level,
            interval="bootstrap",
            method=f"paired bootstrap ({boot.method}, resampling {boot.resampled})",
            standard_error=boot.standard_error,
            pvalue=boot.pvalue,
            n_resamples=boot.n_resamples,
            seed=boot.seed,
            resampled=boot.resampled,
            n_units=boot.n_units,
        )


@dataclass(frozen=True, kw_only=True)
class TestResult:
    """The primary test: its name as the report shows it, its p-value, and the smallest
    p-value it could give on these items whatever the outcome (``None`` when it has no such
    floor): above alpha, the eval was *powerless*."""

    __test__ = False  # not a pytest class

    name: str
    pvalue: PValue
    smallest_pvalue: PValue | None = None


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

    ``pvalue`` is McNemar's for pass/fail items, the paired bootstrap's otherwise; ``qvalue``
    is its Benjamini-Hochberg adjustment over all slices of the comparison.
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
class SecondaryResult:
    """A secondary metric: each side's mean, the difference (candidate - baseline) with the
    test and interval a primary score would get (:class:`Difference`: its ``method``,
    ``interval`` kind, p-value, and resamples and seed where sampled), and its p-value
    Holm-adjusted over the secondaries."""

    name: str
    baseline: float
    candidate: float
    difference: Difference
    adjusted_pvalue: float

    @property
    def pvalue(self) -> PValue:
        return self.difference.pvalue


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
    method: str = "exact power of the exact McNemar test at the observed discordant rate"
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
    """Items that share a ``cluster`` label: the primary bootstrap resampled whole clusters.

    ``clusters`` counts them (an item without a label is a cluster of its own);
    ``standard_error`` is the cluster-robust (CR1) standard error of the difference in means,
    ``None`` with fewer than two clusters.
    """

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
class CostResult:
    """Cost on both sides and the paired bootstrap of the difference in cost per solved task
    (``None`` unless both sides solved something)."""

    baseline: CostSide
    candidate: CostSide
    difference: BootstrapResult | None


@dataclass(frozen=True, kw_only=True)
class F1Side:
    """Micro F1 of one run from its summed counts (``f1`` is ``None`` when
    ``2 tp + fp + fn == 0``)."""

    tp: float
    fp: float
    fn: float
    f1: float | None


@dataclass(frozen=True, kw_only=True)
class F1Result:
    """Micro F1 on both sides and the paired bootstrap of its difference (``None`` when F1 is
    undefined on a side)."""

    baseline: F1Side
    candidate: F1Side
    difference: BootstrapResult | None


@dataclass(frozen=True, kw_only=True, eq=False)
class Comparison:
    """Everything computed about one paired comparison.

    ``test_result`` is the primary test (McNemar's, the mixture SPRT in sequential mode, the
    paired test of numeric scores, or the bootstrap), ``difference`` the primary difference
    with its interval, ``bootstrap`` the paired bootstrap of that difference (the test with
    ``test: bootstrap``, otherwise shown beside it; ``None`` only in hand-built records),
    ``mcnemar`` McNemar's test for pass/fail items whatever decides, and
    ``alpha`` the level this run is judged at (the decision holds the same object).
    """

    paired: Paired
    metric: str
    baseline: Side
    candidate: Side
    difference: Difference
    test_result: TestResult
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
    cost: CostResult | None = None
    f1: F1Result | None = None
    bootstrap: BootstrapResult | None = None
    resamples: int = RESAMPLES  # the plan's bootstrap settings, wherever evalbot resamples
    seed: int = SEED

    @property
    def items(self) -> int:
        return len(self.paired)

    @property
    def pvalue(self) -> PValue:
        """The p-value of the primary test."""
        return self.test_result.pvalue

    @property
    def test(self) -> str:
        return self.test_result.name

    @property
    def identical(self) -> bool:
        """Both runs gave every item the same value (a file compared with itself?)."""
        paired = self.paired
        return len(paired) > 0 and bool((paired.baseline == paired.candidate).all())
