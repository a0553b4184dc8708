"""Pure: a paired baseline/candidate -> every statistic of the comparison.

This is where the pieces of ``evalbot.stats`` meet the paired data. Nothing here reads files
or decides a verdict (that is :mod:`evalbot.policy`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from evalbot.config import Config
from evalbot.errors import InputError
from evalbot.results.model import FloatArray, Paired
from evalbot.stats import (
    BootstrapResult,
    BudgetAllocation,
    ChurnResult,
    ConfidenceInterval,
    McNemarResult,
    Metric,
    PairedTable,
    RepeatsResult,
    TwoProportionResult,
    allocate_budget,
    analyze_repeats,
    benjamini_hochberg,
    churn,
    clustered_standard_error,
    compute_paired_table,
    f1_metric,
    holm,
    mcnemar,
    mcnemar_minimum_detectable_effect,
    mcnemar_sample_size,
    paired_bootstrap,
    paired_bootstrap_mean,
    pass_at_k,
    ratio_metric,
    repeats_standard_error,
    two_proportion_ztest,
    wilson_interval,
)

__all__ = [
    "ClusterResult",
    "Comparison",
    "CostResult",
    "CostSide",
    "F1Result",
    "F1Side",
    "PairedTable",
    "PowerResult",
    "RepeatsSide",
    "SecondaryResult",
    "Side",
    "SliceResult",
    "compute_clusters",
    "compute_comparison",
    "compute_cost",
    "compute_f1",
    "compute_power",
    "compute_secondary",
    "compute_slices",
]

#: Power at which the report states the minimum detectable effect and the items needed.
REPORT_POWER = 0.8
#: pass@k is reported for k = 1 .. min(repeats, MAX_PASS_AT_K).
MAX_PASS_AT_K = 10


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
    """How sensitive this eval is (pass/fail items, McNemar's test, normal approximation).

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
    """

    items: int
    alpha: float
    power: float
    discordant_rate: float
    minimum_detectable_effect: float | None
    items_needed: int | None


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


def _side_binary(values: FloatArray, confidence: float) -> Side:
    passed = int(values.sum())
    n = len(values)
    return Side(
        rate=passed / n,
        passed=passed,
        confidence_interval=wilson_interval(passed, n, confidence_level=confidence),
        interval_method="wilson",
    )


def _side_score(values: FloatArray, confidence: float) -> Side:
    from scipy.special import stdtrit  # the t quantile; scipy.stats costs 1 s to import

    n = len(values)
    mean = float(values.mean())
    if n < 2:
        return Side(
            rate=mean,
            passed=None,
            confidence_interval=ConfidenceInterval(mean, mean),
            interval_method="t",
        )
    sem = float(values.std(ddof=1)) / np.sqrt(n)
    half = float(stdtrit(n - 1, 0.5 + confidence / 2)) * sem
    return Side(
        rate=mean,
        passed=None,
        confidence_interval=ConfidenceInterval(mean - half, mean + half),
        interval_method="t",
    )


def compute_comparison(paired: Paired, config: Config) -> Comparison:
    """Every statistic of a paired comparison under the plan's settings."""
    comparison = _compute_primary(paired, config)
    comparison = replace(
        comparison,
        clusters=compute_clusters(paired, comparison.difference),
        cost=compute_cost(paired, config),
        f1=None if config.f1 is None else compute_f1(paired, config),
    )
    if not config.secondary_metrics:
        return comparison
    return replace(
        comparison, secondary=compute_secondary(_secondary_columns(paired, config), config)
    )


def compute_clusters(paired: Paired, difference: BootstrapResult) -> ClusterResult | None:
    """Cluster count and the CR1 standard error when items carry ``cluster`` labels."""
    if paired.clusters is None or difference.resampled != "clusters":
        return None
    labelled = sum(label is not None for label in paired.clusters)
    if labelled == 0:
        return None
    clusters = difference.n_units
    se = None
    if clusters >= 2:
        se = clustered_standard_error(paired.baseline, paired.candidate, paired.clusters)
    return ClusterResult(clusters=clusters, labelled_items=labelled, standard_error=se)


def _paired_bootstrap(
    paired: Paired,
    config: Config,
    baseline: Mapping[str, FloatArray],
    candidate: Mapping[str, FloatArray],
    metric: Metric,
) -> BootstrapResult:
    """``paired_bootstrap`` under the plan's settings, resampling clusters when items have them."""
    boot = config.bootstrap
    return paired_bootstrap(
        baseline,
        candidate,
        metric=metric,
        n_resamples=boot.resamples,
        confidence_level=boot.confidence,
        seed=boot.seed,
        method=boot.method,
        clusters=paired.clusters,
    )


def compute_cost(paired: Paired, config: Config) -> CostResult | None:
    """Total cost and cost per solved task on both sides, when both carry per-item ``cost``.

    Cost per solved task is ``sum(cost) / sum(passed)`` over the items; its difference gets a
    paired bootstrap of that ratio (items, or clusters, resampled with both runs together).
    Items without a cost count as 0 and are counted in ``items_without_cost``.
    """
    if paired.baseline_costs is None or paired.candidate_costs is None:
        return None
    costs = {}
    sides = {}
    for side, source, raw, values in (
        ("baseline", paired.baseline_source, paired.baseline_costs, paired.baseline),
        ("candidate", paired.candidate_source, paired.candidate_costs, paired.candidate),
    ):
        missing = int(np.count_nonzero(np.isnan(raw)))
        cost = np.nan_to_num(raw)
        if (cost < 0).any():
            item = paired.ids[int(np.flatnonzero(cost < 0)[0])]
            raise InputError(
                f"{source}: item {item!r} has a negative `cost` ({float(cost[cost < 0][0])!r}); "
                "costs must be >= 0"
            )
        costs[side] = cost
        total = float(cost.sum())
        solved = float(values.sum()) if paired.pass_fail else None
        per_solved = total / solved if solved else None
        sides[side] = CostSide(
            total_cost=total,
            solved=solved,
            cost_per_solved=per_solved,
            items_without_cost=missing,
        )
    difference = None
    if sides["baseline"].cost_per_solved is not None and (
        sides["candidate"].cost_per_solved is not None
    ):
        difference = _paired_bootstrap(
            paired,
            config,
            {"cost": costs["baseline"], "solved": paired.baseline},
            {"cost": costs["candidate"], "solved": paired.candidate},
            ratio_metric("cost", "solved", name="cost/solved"),
        )
    return CostResult(
        baseline=sides["baseline"], candidate=sides["candidate"], difference=difference
    )


def compute_f1(paired: Paired, config: Config) -> F1Result:
    """Micro F1 from the per-item counts named by ``f1:`` and the paired bootstrap of its
    difference (``f1_metric``: ``2 TP / (2 TP + FP + FN)`` on the resampled totals)."""
    if config.f1 is None:  # pragma: no cover - the caller checks
        raise ValueError("the plan has no `f1:` section")
    names = config.f1.columns
    columns: dict[str, dict[str, FloatArray]] = {}
    for side, source, metrics in (
        ("baseline", paired.baseline_source, paired.baseline_metrics),
        ("candidate", paired.candidate_source, paired.candidate_metrics),
    ):
        columns[side] = {}
        for key, name in zip(("tp", "fp", "fn"), names, strict=True):
            if name not in metrics:
                raise InputError(
                    f"{source}: the F1 count `{name}` was not read from the {side}; "
                    "`f1:` counts are read from evalbot's own JSONL/JSON/CSV format"
                )
            values = metrics[name]
            if np.isnan(values).any():
                raise InputError(f"{source}: the F1 count `{name}` is missing for some items")
            if (values < 0).any():
                item = paired.ids[int(np.flatnonzero(values < 0)[0])]
                raise InputError(
                    f"{source}: item {item!r} has a negative `{name}`; F1 counts must be >= 0"
                )
            columns[side][key] = values
    sides = {}
    for side, cols in columns.items():
        tp, fp, fn = (float(cols[k].sum()) for k in ("tp", "fp", "fn"))
        denominator = 2 * tp + fp + fn
        sides[side] = F1Side(
            tp=tp, fp=fp, fn=fn, f1=2 * tp / denominator if denominator > 0 else None
        )
    difference = None
    if sides["baseline"].f1 is not None and sides["candidate"].f1 is not None:
        difference = _paired_bootstrap(
            paired, config, columns["baseline"], columns["candidate"], f1_metric()
        )
    return F1Result(baseline=sides["baseline"], candidate=sides["candidate"], difference=difference)


def _secondary_columns(paired: Paired, config: Config) -> dict[str, tuple[FloatArray, FloatArray]]:
    """The per-item values of each configured secondary metric on both sides."""
    columns: dict[str, tuple[FloatArray, FloatArray]] = {}
    for name in config.secondary_metrics:
        for side, source, metrics in (
            ("baseline", paired.baseline_source, paired.baseline_metrics),
            ("candidate", paired.candidate_source, paired.candidate_metrics),
        ):
            if name not in metrics:
                raise InputError(
                    f"{source}: the secondary metric `{name}` was not read from the {side}; "
                    "secondary metrics are read from evalbot's own JSONL/JSON/CSV format"
                )
            if np.isnan(metrics[name]).any():
                raise InputError(
                    f"{source}: the secondary metric `{name}` is missing for some items"
                )
        columns[name] = (paired.baseline_metrics[name], paired.candidate_metrics[name])
    return columns


def _compute_primary(paired: Paired, config: Config) -> Comparison:
    """Every statistic of a paired comparison under the plan's settings."""
    boot = config.bootstrap
    difference = paired_bootstrap_mean(
        paired.baseline,
        paired.candidate,
        n_resamples=boot.resamples,
        confidence_level=boot.confidence,
        seed=boot.seed,
        method=boot.method,
        clusters=paired.clusters,
    )
    ids = np.asarray(paired.ids, dtype=object)
    if paired.kind == "binary":
        table = compute_paired_table(paired.baseline, paired.candidate)
        fixed_mask = paired.candidate > paired.baseline
        broken_mask = paired.candidate < paired.baseline
        test = mcnemar(table.fixed, table.broken, method=config.mcnemar)
        base_side = _side_binary(paired.baseline, boot.confidence)
        cand_side = _side_binary(paired.candidate, boot.confidence)
        return Comparison(
            paired=paired,
            metric="pass_rate",
            baseline=base_side,
            candidate=cand_side,
            difference=difference,
            table=table,
            mcnemar=test,
            fixed_ids=ids[fixed_mask].tolist(),
            broken_ids=ids[broken_mask].tolist(),
            alpha=config.alpha,
            primary=config.test,
            churn=churn(table.fixed, table.broken, table.items),
            # for contrast only: what the two rates alone would say, ignoring the pairing
            unpaired=two_proportion_ztest(
                table.baseline_passed, table.items, table.candidate_passed, table.items
            ),
            slices=compute_slices(paired, config),
            power=compute_power(
                table,
                alpha=config.alpha,
                pvalue=test.pvalue if config.test == "mcnemar" else difference.pvalue,
            ),
        )
    delta = paired.candidate - paired.baseline
    return Comparison(
        paired=paired,
        metric="pass_rate" if paired.pass_fail else "mean_score",
        baseline=_side_score(paired.baseline, boot.confidence),
        candidate=_side_score(paired.candidate, boot.confidence),
        difference=difference,
        table=None,
        mcnemar=None,
        fixed_ids=ids[delta > 0].tolist(),
        broken_ids=ids[delta < 0].tolist(),
        alpha=config.alpha,
        primary=config.test,
        slices=compute_slices(paired, config),
        repeats_baseline=_repeats(paired, paired.baseline, paired.epochs_baseline),
        repeats_candidate=_repeats(paired, paired.candidate, paired.epochs_candidate),
    )


def compute_power(table: PairedTable, *, alpha: float, pvalue: float) -> PowerResult | None:
    """The minimum detectable effect of this eval and, when not significant, items needed."""
    n = table.items
    if n == 0:
        return None
    psi = table.discordant / n
    mde: float | None = None
    if psi > 0.0:
        found = mcnemar_minimum_detectable_effect(n, psi, alpha=alpha, power=REPORT_POWER)
        mde = found.effect if found.detectable else None
    needed: int | None = None
    if pvalue >= alpha and table.fixed != table.broken:
        needed = mcnemar_sample_size(
            table.fixed / n, table.broken / n, alpha=alpha, power=REPORT_POWER
        ).items
    return PowerResult(
        items=n,
        alpha=alpha,
        power=REPORT_POWER,
        discordant_rate=psi,
        minimum_detectable_effect=mde,
        items_needed=needed,
    )


def compute_slices(paired: Paired, config: Config) -> tuple[SliceResult, ...]:
    """Each ``slice`` compared on its own, with BH q-values over the slices (none: empty)."""
    if paired.slices is None or all(name is None for name in paired.slices):
        return ()
    groups: dict[str | None, list[int]] = {}
    for index, name in enumerate(paired.slices):
        groups.setdefault(name, []).append(index)
    names = sorted(groups, key=lambda name: (name is None, name or ""))
    rows: list[tuple[str | None, int, float, float, PairedTable | None, float, str]] = []
    for name in names:
        idx = np.asarray(groups[name], dtype=np.intp)
        base, cand = paired.baseline[idx], paired.candidate[idx]
        table: PairedTable | None = None
        if paired.kind == "binary":
            table = compute_paired_table(base, cand)
            result = mcnemar(table.fixed, table.broken, method=config.mcnemar)
            pvalue, test = result.pvalue, f"McNemar ({result.method})"
        else:
            clusters = None
            if paired.clusters is not None:
                clusters = [paired.clusters[i] for i in groups[name]]
            boot = paired_bootstrap_mean(
                base,
                cand,
                n_resamples=config.bootstrap.resamples,
                confidence_level=config.bootstrap.confidence,
                seed=config.bootstrap.seed,
                method=config.bootstrap.method,
                clusters=clusters,
            )
            pvalue, test = boot.pvalue, f"paired bootstrap ({boot.method})"
        rows.append((name, len(idx), float(base.mean()), float(cand.mean()), table, pvalue, test))
    qvalues = benjamini_hochberg([row[5] for row in rows])
    return tuple(
        SliceResult(
            name=name,
            items=items,
            baseline_rate=b_rate,
            candidate_rate=c_rate,
            difference=c_rate - b_rate,
            table=table,
            pvalue=float(pvalue),
            test=test,
            qvalue=float(q),
        )
        for (name, items, b_rate, c_rate, table, pvalue, test), q in zip(rows, qvalues, strict=True)
    )


def compute_secondary(
    metrics: Mapping[str, tuple[FloatArray, FloatArray]], config: Config
) -> tuple[SecondaryResult, ...]:
    """Secondary metrics (name -> per-item baseline, candidate values, aligned with the
    primary pairing): a paired bootstrap each, p-values Holm-adjusted over the secondaries."""
    boot = config.bootstrap
    results = [
        (
            name,
            paired_bootstrap_mean(
                base,
                cand,
                n_resamples=boot.resamples,
                confidence_level=boot.confidence,
                seed=boot.seed,
                method=boot.method,
            ),
        )
        for name, (base, cand) in sorted(metrics.items())
    ]
    adjusted = holm([r.pvalue for _, r in results])
    return tuple(
        SecondaryResult(
            name=name,
            baseline=float(r.baseline_value),
            candidate=float(r.candidate_value),
            difference=r,
            adjusted_pvalue=float(a),
        )
        for (name, r), a in zip(results, adjusted, strict=True)
    )


def _repeats(paired: Paired, values: FloatArray, epochs: int) -> RepeatsSide | None:
    """Repeat statistics of pass/fail items sampled ``epochs`` times.

    Every statistic of :func:`analyze_repeats` depends on an item's repeats only through how
    many passed, so an item's pass rate over its epochs rebuilds an equivalent row exactly.
    """
    if not paired.pass_fail or epochs < 2 or len(values) == 0:
        return None
    passes = values * epochs
    counts = np.rint(passes)
    if not np.allclose(passes, counts, atol=1e-6):
        return None  # items with differing numbers of epochs: no balanced matrix
    matrix = (np.arange(epochs)[None, :] < counts[:, None]).astype(np.float64)
    flaky = (counts > 0) & (counts < epochs)
    ids = np.asarray(paired.ids, dtype=object)
    result = analyze_repeats(matrix)
    n = len(values)
    correct = counts.astype(np.int64)
    at_k = tuple(
        (k, pass_at_k(epochs, correct, k)) for k in range(1, min(epochs, MAX_PASS_AT_K) + 1)
    )
    se: float | None = None
    budget: BudgetAllocation | None = None
    between, within = result.between_item_variance, result.within_item_variance
    if np.isfinite(between) and np.isfinite(within):
        se = repeats_standard_error(between, within, n, epochs)
        # the same number of calls spread as the SE prefers (on as many items as calls)
        budget = allocate_budget(between, within, n * epochs)
    return RepeatsSide(
        result=result,
        flaky_ids=ids[flaky].tolist(),
        pass_at_k=at_k,
        standard_error=se,
        budget=budget,
    )
