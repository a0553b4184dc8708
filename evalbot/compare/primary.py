"""Pure: the primary comparison of a paired run: each side's rate (or mean) and interval, the
primary test with the difference's interval from the same method where one exists, the paired
bootstrap of the difference (the test with ``test: bootstrap``, else shown beside it), and for
pass/fail items the 2x2 table, McNemar's test, the churn and (for contrast only) the unpaired
test."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from evalbot.compare.alpha import Alpha
from evalbot.compare.bootstrap import plan_bootstrap_mean
from evalbot.compare.costs import has_clusters
from evalbot.compare.power import compute_design, compute_power
from evalbot.compare.records import (
    CLUSTER_INTERVALS,
    Comparison,
    Difference,
    IntervalKind,
    Side,
    TestResult,
)
from evalbot.compare.repeats import compute_repeats
from evalbot.compare.slices import compute_slices
from evalbot.formats.model import FloatArray, Paired
from evalbot.plan.config import Config
from evalbot.stats.bootstrap import BootstrapResult
from evalbot.stats.clusters import clustered_mean_test
from evalbot.stats.intervals import ConfidenceInterval, mean_of_means_interval, wilson_interval
from evalbot.stats.mcnemar import McNemarResult, mcnemar, mcnemar_smallest_pvalue
from evalbot.stats.paired_mean import EffectSizeResult, PairedMeanResult, paired_mean_test
from evalbot.stats.paired_proportions import paired_difference_interval
from evalbot.stats.pvalue import PValue, exact_pvalue
from evalbot.stats.sequential import confidence_sequence, mixture_sprt
from evalbot.stats.table import PairedTable, churn, compute_paired_table, two_proportion_ztest

__all__ = ["compute_primary", "score_test"]


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
    of trials, which stays in [0, 1] (:func:`evalbot.stats.intervals.mean_of_means_interval`)."""
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


def compute_primary(paired: Paired, config: Config, alpha: Alpha) -> Comparison:
    """Every statistic of the primary metric under the plan's settings, judged at ``alpha``."""
    boot = plan_bootstrap_mean(
        paired.baseline,
        paired.candidate,
        config,
        clusters=paired.clusters,
        beside=config.test != "bootstrap",
    )
    if paired.kind == "binary":
        return _compute_binary(paired, config, alpha, boot)
    return _compute_score(paired, config, alpha, boot)


def _paired_standard_error(table: PairedTable) -> float:
    """The plug-in standard error of a paired difference in pass rate,
    ``sqrt((p_fixed + p_broken - d^2) / n)`` with ``d = p_fixed - p_broken``."""
    n = table.items
    d = (table.fixed - table.broken) / n
    return math.sqrt(max(0.0, table.discordant / n - d * d) / n)


def _binary_primary(
    paired: Paired,
    config: Config,
    alpha: Alpha,
    table: PairedTable,
    test: McNemarResult,
    boot: BootstrapResult,
) -> tuple[TestResult, Difference]:
    """The test that decides and the interval shown, from one method where possible:

    - ``policy.mode: sequential``: the mixture SPRT and its always-valid confidence sequence
      at ``1 - alpha`` (not for items that share clusters: the plan refuses that verdict,
      ``clusters_sequential``, and the cluster test is shown for information);
    - ``test: bootstrap``: ``boot``'s p-value and its own interval (by cluster);
    - items that share clusters: the cluster sign-flip test and the interval that inverts it
      (:func:`_clustered_primary`);
    - McNemar's test with Tango's score interval with continuity correction (which excludes 0
      exactly when McNemar's continuity-corrected test rejects).
    """
    se = _paired_standard_error(table)
    if config.policy.mode == "sequential" and not has_clusters(paired):
        sprt = mixture_sprt(table.fixed, table.broken)
        seq = confidence_sequence(
            table.fixed, table.broken, table.items, confidence_level=1.0 - alpha.effective
        )
        return TestResult(
            name="mixture SPRT (always valid)",
            pvalue=sprt.pvalue,
            smallest_pvalue=mixture_sprt(table.discordant, 0).pvalue,
        ), Difference(
            statistic=seq.statistic,
            confidence_interval=seq.confidence_interval,
            confidence_level=seq.confidence_level,
            interval="confidence-sequence",
            method="mixture confidence sequence (always valid)",
            standard_error=se,
            pvalue=sprt.pvalue,
        )
    if config.test == "bootstrap":
        return _bootstrap_primary(boot)
    if has_clusters(paired):
        return _clustered_primary(paired, config)
    tango = paired_difference_interval(
        table.both_pass,
        table.fixed,
        table.broken,
        table.both_fail,
        confidence_level=config.bootstrap.confidence,
    )
    difference = Difference(
        statistic=tango.statistic,
        confidence_interval=tango.confidence_interval,
        confidence_level=tango.confidence_level,
        interval="tango-cc",
        method="Tango score interval, continuity-corrected",
        standard_error=se,
        pvalue=mcnemar(table.fixed, table.broken, method="asymptotic").pvalue,
    )
    return TestResult(
        name=f"McNemar ({test.method})",
        pvalue=test.pvalue,
        smallest_pvalue=mcnemar_smallest_pvalue(table.discordant, method=test.method),
    ), difference


def _bootstrap_primary(boot: BootstrapResult) -> tuple[TestResult, Difference]:
    """``test: bootstrap``: the bootstrap's p-value and its own interval."""
    name = f"paired bootstrap ({boot.method})"
    return TestResult(name=name, pvalue=boot.pvalue), Difference.from_bootstrap(boot)


def _clustered_primary(paired: Paired, config: Config) -> tuple[TestResult, Difference]:
    """Items that share clusters (pass/fail or scores): :func:`_clustered_test` of the
    primary values."""
    assert paired.clusters is not None
    return _clustered_test(paired.baseline, paired.candidate, paired.clusters, config)


def _clustered_test(
    baseline: FloatArray, candidate: FloatArray, clusters: Sequence[str | None], config: Config
) -> tuple[TestResult, Difference]:
    """The test whose units are clusters (:func:`evalbot.stats.clusters.clustered_mean_test`: the
    sign-flip test of the clusters' totals of the per-item differences, exact to 24 clusters,
    sampled to 1,000, the cluster-robust t above) with the interval that inverts it; the only
    candidate that held alpha at every number of clusters simulated
    (``tests/sim/test_clusters.py``)."""
    boot = config.bootstrap
    found = clustered_mean_test(
        baseline,
        candidate,
        clusters,
        confidence_level=boot.confidence,
        n_resamples=boot.resamples,
        seed=boot.seed,
    )
    return _from_mean_test(
        found,
        found.changed_clusters,
        flip="cluster-sign-flip",
        other="cluster-t",
        n_units=found.n_clusters,
        effect_size=None,  # d_z of items assumes them independent
    )


def _from_mean_test(
    found: PairedMeanResult,
    changed: int,
    *,
    flip: IntervalKind,
    other: IntervalKind,
    n_units: int,
    effect_size: EffectSizeResult | None,
) -> tuple[TestResult, Difference]:
    """The test and the interval of a paired mean test (items or clusters): ``flip`` names
    the interval of a sign-flip test, ``other`` that of the t test above it. ``changed``: the
    units whose difference is not 0 (only they can be flipped)."""
    smallest: PValue | None = None
    interval = other
    if "sign-flip" in found.method:
        interval = flip
        # every changed unit moved the same way: 2^(1 - changed); sampled sign patterns give
        # at least 1 / (B + 1)
        floor = min(1.0, 2.0 ** (1 - changed)) if changed else 1.0
        if found.n_resamples:
            floor = max(floor, 1.0 / (found.n_resamples + 1))
        smallest = exact_pvalue(floor)
    return TestResult(name=found.method, pvalue=found.pvalue, smallest_pvalue=smallest), Difference(
        statistic=found.statistic,
        confidence_interval=found.confidence_interval,
        confidence_level=found.confidence_level,
        interval=interval,
        method=found.method,
        standard_error=found.standard_error,
        pvalue=found.pvalue,
        n_resamples=found.n_resamples or None,
        seed=found.seed,
        n_units=n_units,
        effect_size=effect_size,
    )


def _compute_binary(
    paired: Paired, config: Config, alpha: Alpha, boot: BootstrapResult
) -> Comparison:
    ids = np.asarray(paired.ids, dtype=object)
    confidence = config.bootstrap.confidence
    table = compute_paired_table(paired.baseline, paired.candidate)
    fixed_mask = paired.candidate > paired.baseline
    broken_mask = paired.candidate < paired.baseline
    test = mcnemar(table.fixed, table.broken, method=config.mcnemar)
    primary, difference = _binary_primary(paired, config, alpha, table, test, boot)
    return Comparison(
        paired=paired,
        metric="pass_rate",
        baseline=side_binary(paired.baseline, confidence),
        candidate=side_binary(paired.candidate, confidence),
        difference=difference,
        test_result=primary,
        bootstrap=boot,
        table=table,
        mcnemar=test,
        fixed_ids=ids[fixed_mask].tolist(),
        broken_ids=ids[broken_mask].tolist(),
        alpha=alpha,
        resamples=config.bootstrap.resamples,
        seed=config.bootstrap.seed,
        churn=churn(table.fixed, table.broken, table.items),
        # for contrast only: what the two rates alone would say, ignoring the pairing
        unpaired=two_proportion_ztest(
            table.baseline_passed, table.items, table.candidate_passed, table.items
        ),
        slices=compute_slices(paired, config),
        power=compute_power(
            table,
            alpha=alpha.effective,
            significant=alpha.rejects(primary.pvalue),
            method=config.mcnemar,
            design=compute_design(paired, config),
            clusters=difference.n_units if difference.interval in CLUSTER_INTERVALS else None,
        ),
    )


def _score_primary(
    paired: Paired, config: Config, boot: BootstrapResult
) -> tuple[TestResult, Difference]:
    """Numeric scores (and pass rates over repeats): :func:`score_test` of the primary
    values (``boot`` is their bootstrap: the test with ``test: bootstrap``)."""
    if config.test == "bootstrap":
        return _bootstrap_primary(boot)
    return score_test(paired.baseline, paired.candidate, paired.clusters, config)


def score_test(
    baseline: FloatArray,
    candidate: FloatArray,
    clusters: Sequence[str | None] | None,
    config: Config,
) -> tuple[TestResult, Difference]:
    """The test of a paired mean difference the plan runs, with the interval from the same
    method: the paired test valid at every n (:func:`evalbot.stats.paired_mean.paired_mean_test`:
    sign-flip up to 1,000 items, paired t above) with the interval that inverts it and Cohen's
    d_z; the bootstrap (by cluster) when the plan says ``test: bootstrap``; the cluster
    sign-flip when items share clusters (``clusters`` labels them). The primary score and
    every secondary metric are tested by it."""
    if config.test == "bootstrap":
        return _bootstrap_primary(
            plan_bootstrap_mean(baseline, candidate, config, clusters=clusters)
        )
    if clusters is not None and any(label is not None for label in clusters):
        return _clustered_test(baseline, candidate, clusters, config)
    boot_config = config.bootstrap
    found = paired_mean_test(
        baseline,
        candidate,
        confidence_level=boot_config.confidence,
        n_resamples=boot_config.resamples,
        seed=boot_config.seed,
    )
    changed = int(np.count_nonzero(candidate != baseline))
    return _from_mean_test(
        found, changed, flip="sign-flip", other="t", n_units=0, effect_size=found.effect_size
    )


def _compute_score(
    paired: Paired, config: Config, alpha: Alpha, boot: BootstrapResult
) -> Comparison:
    ids = np.asarray(paired.ids, dtype=object)
    confidence = config.bootstrap.confidence
    delta = paired.candidate - paired.baseline
    if paired.pass_fail:  # pass/fail with repeats: each value is an item's pass rate
        base_side = side_repeats(paired.baseline, confidence, paired.epochs_baseline)
        cand_side = side_repeats(paired.candidate, confidence, paired.epochs_candidate)
    else:
        base_side = side_score(paired.baseline, confidence)
        cand_side = side_score(paired.candidate, confidence)
    primary, difference = _score_primary(paired, config, boot)
    return Comparison(
        paired=paired,
        metric="pass_rate" if paired.pass_fail else "mean_score",
        baseline=base_side,
        candidate=cand_side,
        difference=difference,
        test_result=primary,
        bootstrap=boot,
        table=None,
        mcnemar=None,
        fixed_ids=ids[delta > 0].tolist(),
        broken_ids=ids[delta < 0].tolist(),
        alpha=alpha,
        resamples=config.bootstrap.resamples,
        seed=config.bootstrap.seed,
        slices=compute_slices(paired, config),
        repeats_baseline=compute_repeats(paired, paired.baseline, paired.epochs_baseline),
        repeats_candidate=compute_repeats(paired, paired.candidate, paired.epochs_candidate),
    )
