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
    ChurnResult,
    ConfidenceInterval,
    McNemarResult,
    PairedTable,
    RepeatsResult,
    TwoProportionResult,
    analyze_repeats,
    benjamini_hochberg,
    churn,
    holm,
    mcnemar,
    mcnemar_minimum_detectable_effect,
    mcnemar_sample_size,
    paired_bootstrap_mean,
    two_proportion_ztest,
    wilson_interval,
)

__all__ = [
    "Comparison",
    "PairedTable",
    "PowerResult",
    "RepeatsSide",
    "SecondaryResult",
    "Side",
    "SliceResult",
    "compute_comparison",
    "compute_power",
    "compute_secondary",
    "compute_slices",
]

#: Power at which the report states the minimum detectable effect and the items needed.
REPORT_POWER = 0.8


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
    """Repeat statistics of one run whose items were sampled several times (epochs)."""

    result: RepeatsResult
    flaky_ids: list[str]


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
    if not config.secondary_metrics:
        return comparison
    return replace(
        comparison, secondary=compute_secondary(_secondary_columns(paired, config), config)
    )


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
        base = paired.baseline > 0.5
        cand = paired.candidate > 0.5
        fixed_mask = ~base & cand
        broken_mask = base & ~cand
        table = PairedTable(
            both_pass=int((base & cand).sum()),
            fixed=int(fixed_mask.sum()),
            broken=int(broken_mask.sum()),
            both_fail=int((~base & ~cand).sum()),
        )
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
            b, c = base > 0.5, cand > 0.5
            table = PairedTable(
                both_pass=int((b & c).sum()),
                fixed=int((~b & c).sum()),
                broken=int((b & ~c).sum()),
                both_fail=int((~b & ~c).sum()),
            )
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
    return RepeatsSide(result=analyze_repeats(matrix), flaky_ids=ids[flaky].tolist())
