"""Pure: the records a comparison is made of (frozen, keyword-only, plain numbers)."""

from __future__ import annotations

from dataclasses import dataclass

from evalbot.results.model import Paired
from evalbot.stats import (
    BootstrapResult,
    BudgetAllocation,
    ChurnResult,
    ConfidenceInterval,
    McNemarResult,
    PairedTable,
    RepeatsResult,
    TwoProportionResult,
)

__all__ = [
    "ClusterResult",
    "Comparison",
    "CostResult",
    "CostSide",
    "F1Result",
    "F1Side",
    "PowerResult",
    "RepeatsSide",
    "SecondaryResult",
    "Side",
    "SliceResult",
]


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
    pvalue: float
    test: str
    qvalue: float


@dataclass(frozen=True, kw_only=True)
class SecondaryResult:
    """A secondary metric: paired bootstrap difference, Holm-adjusted over the secondaries."""

    name: str
    baseline: float
    candidate: float
    difference: BootstrapResult
    adjusted_pvalue: float


@dataclass(frozen=True, kw_only=True)
class PowerResult:
    """How sensitive this eval is (pass/fail items, the McNemar test the plan runs, exact
    power: :func:`evalbot.stats.mcnemar_minimum_detectable_effect` and
    :func:`evalbot.stats.mcnemar_sample_size`).

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
    """

    items: int
    alpha: float
    power: float
    discordant_rate: float
    minimum_detectable_effect: float | None
    items_needed: int | None
    method: str = "exact power of the exact McNemar test at the observed discordant rate"


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
    """Everything computed about one paired comparison."""

    paired: Paired
    metric: str
    baseline: Side
    candidate: Side
    difference: BootstrapResult
    table: PairedTable | None
    mcnemar: McNemarResult | None
    fixed_ids: list[str]
    broken_ids: list[str]
    alpha: float
    primary: str = "mcnemar"  # the configured primary test (``test:``): mcnemar or bootstrap
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

    @property
    def items(self) -> int:
        return len(self.paired)

    @property
    def pvalue(self) -> float:
        """The p-value of the primary test: McNemar for pass/fail (unless ``test: bootstrap``),
        the bootstrap otherwise."""
        if self.mcnemar is not None and self.primary == "mcnemar":
            return self.mcnemar.pvalue
        return self.difference.pvalue

    @property
    def test(self) -> str:
        if self.mcnemar is not None and self.primary == "mcnemar":
            return f"McNemar ({self.mcnemar.method})"
        return f"paired bootstrap ({self.difference.method})"
