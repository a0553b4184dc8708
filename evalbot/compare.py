"""Pure: a paired baseline/candidate -> every statistic of the comparison.

This is where the pieces of ``evalbot.stats`` meet the paired data. Nothing here reads files
or decides a verdict (that is :mod:`evalbot.policy`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalbot.config import Config
from evalbot.results.model import FloatArray, Paired
from evalbot.stats import (
    BootstrapResult,
    ConfidenceInterval,
    McNemarResult,
    mcnemar,
    paired_bootstrap_mean,
    wilson_interval,
)


@dataclass(frozen=True, kw_only=True)
class PairedTable:
    """The 2x2 table of a binary comparison."""

    both_pass: int
    fixed: int
    broken: int
    both_fail: int

    @property
    def discordant(self) -> int:
        return self.fixed + self.broken

    @property
    def items(self) -> int:
        return self.both_pass + self.fixed + self.broken + self.both_fail


@dataclass(frozen=True, kw_only=True)
class Side:
    """One system's result: its rate (or mean score) and interval."""

    rate: float
    passed: int | None
    confidence_interval: ConfidenceInterval
    interval_method: str


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
    boot = config.bootstrap
    difference = paired_bootstrap_mean(
        paired.baseline,
        paired.candidate,
        n_resamples=boot.resamples,
        confidence_level=boot.confidence,
        seed=boot.seed,
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
        return Comparison(
            paired=paired,
            metric="pass_rate",
            baseline=_side_binary(paired.baseline, boot.confidence),
            candidate=_side_binary(paired.candidate, boot.confidence),
            difference=difference,
            table=table,
            mcnemar=test,
            fixed_ids=ids[fixed_mask].tolist(),
            broken_ids=ids[broken_mask].tolist(),
            alpha=config.alpha,
            primary=config.test,
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
    )
