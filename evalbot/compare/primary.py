"""Pure: the primary comparison of a paired run: each side's rate (or mean) and interval, the
paired bootstrap of the difference, and for pass/fail items the 2x2 table, McNemar's test, the
churn and (for contrast only) the unpaired test."""

from __future__ import annotations

import numpy as np

from evalbot.compare.bootstrap import plan_bootstrap_mean
from evalbot.compare.power import compute_power
from evalbot.compare.records import Comparison, Side
from evalbot.compare.repeats import compute_repeats
from evalbot.compare.slices import compute_slices
from evalbot.config import Config
from evalbot.results.model import FloatArray, Paired
from evalbot.stats import (
    BootstrapResult,
    ConfidenceInterval,
    churn,
    compute_paired_table,
    mcnemar,
    mean_of_means_interval,
    two_proportion_ztest,
    wilson_interval,
)

__all__ = ["compute_primary"]


def side_binary(values: FloatArray, confidence: float) -> Side:
    """A pass/fail side: its pass rate and Wilson score interval."""
    passed = int(values.sum())
    n = len(values)
    return Side(
        rate=passed / n,
        passed=passed,
        confidence_interval=wilson_interval(passed, n, confidence_level=confidence),
        interval_method="wilson",
    )


def side_repeats(values: FloatArray, confidence: float, repeats: int) -> Side:
    """Pass rates over repeats (per-item means in [0, 1]): Wilson with the effective number
    of trials, which stays in [0, 1] (:func:`evalbot.stats.mean_of_means_interval`)."""
    found = mean_of_means_interval(values, repeats, confidence_level=confidence)
    return Side(
        rate=found.statistic,
        passed=None,
        confidence_interval=found.confidence_interval,
        interval_method=found.method,
    )


def side_score(values: FloatArray, confidence: float) -> Side:
    """A score side: its mean and t interval (a point with one item)."""
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


def compute_primary(paired: Paired, config: Config) -> Comparison:
    """Every statistic of the primary metric under the plan's settings."""
    difference = plan_bootstrap_mean(
        paired.baseline, paired.candidate, config, clusters=paired.clusters
    )
    if paired.kind == "binary":
        return _compute_binary(paired, config, difference)
    return _compute_score(paired, config, difference)


def _compute_binary(paired: Paired, config: Config, difference: BootstrapResult) -> Comparison:
    ids = np.asarray(paired.ids, dtype=object)
    confidence = config.bootstrap.confidence
    table = compute_paired_table(paired.baseline, paired.candidate)
    fixed_mask = paired.candidate > paired.baseline
    broken_mask = paired.candidate < paired.baseline
    test = mcnemar(table.fixed, table.broken, method=config.mcnemar)
    return Comparison(
        paired=paired,
        metric="pass_rate",
        baseline=side_binary(paired.baseline, confidence),
        candidate=side_binary(paired.candidate, confidence),
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
            method=config.mcnemar,
        ),
    )


def _compute_score(paired: Paired, config: Config, difference: BootstrapResult) -> Comparison:
    ids = np.asarray(paired.ids, dtype=object)
    confidence = config.bootstrap.confidence
    delta = paired.candidate - paired.baseline
    if paired.pass_fail:  # pass/fail with repeats: each value is an item's pass rate
        base_side = side_repeats(paired.baseline, confidence, paired.epochs_baseline)
        cand_side = side_repeats(paired.candidate, confidence, paired.epochs_candidate)
    else:
        base_side = side_score(paired.baseline, confidence)
        cand_side = side_score(paired.candidate, confidence)
    return Comparison(
        paired=paired,
        metric="pass_rate" if paired.pass_fail else "mean_score",
        baseline=base_side,
        candidate=cand_side,
        difference=difference,
        table=None,
        mcnemar=None,
        fixed_ids=ids[delta > 0].tolist(),
        broken_ids=ids[delta < 0].tolist(),
        alpha=config.alpha,
        primary=config.test,
        slices=compute_slices(paired, config),
        repeats_baseline=compute_repeats(paired, paired.baseline, paired.epochs_baseline),
        repeats_candidate=compute_repeats(paired, paired.candidate, paired.epochs_candidate),
    )
