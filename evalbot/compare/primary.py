"""Pure: the primary metric of a paired run: each side's rate (or mean) and interval, the test
that decides and the interval shown (from the same method where one exists), the paired
bootstrap of the difference (the test with ``test: bootstrap``, else shown beside it), how
sensitive the eval is, repeats and clusters; for pass/fail items the 2x2 table, McNemar's test,
churn and (for contrast only) the unpaired test."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypeGuard

import numpy as np

from evalbot.compare.records import (
    Alpha,
    ClusterResult,
    Comparison,
    Estimate,
    PowerResult,
    RepeatsSide,
    Side,
    Test,
)
from evalbot.formats.model import FloatArray, Paired
from evalbot.plan.config import Config
from evalbot.stats.bootstrap import BootstrapResult, ColumnsLike, Metric, paired_bootstrap
from evalbot.stats.clusters import (
    ClusteredMeanResult,
    DesignEffectResult,
    cluster_codes,
    clustered_mean_test,
    clustered_standard_error,
    design_result,
    estimate_design_effect,
)
from evalbot.stats.intervals import mean_of_means_interval, t_interval, wilson_interval
from evalbot.stats.mcnemar import mcnemar
from evalbot.stats.paired_mean import PairedMeanResult, paired_mean_test, standard_error
from evalbot.stats.paired_proportions import paired_difference_interval
from evalbot.stats.power import mcnemar_minimum_detectable_effect, mcnemar_sample_size
from evalbot.stats.repeats import allocate_budget, analyze_repeats, pass_at_k
from evalbot.stats.repeats import repeats_standard_error as repeats_se
from evalbot.stats.sequential import confidence_sequence, mixture_sprt
from evalbot.stats.table import PairedTable, churn, compute_paired_table, two_proportion_ztest
from evalbot.vocabulary import POWER

#: pass@k is reported for k = 1 .. min(repeats, MAX_PASS_AT_K).
MAX_PASS_AT_K = 10
#: The bootstrap shown beside the deciding test draws at most this many items of distinct scores
#: in all (10,000 resamples up to 3,000 items, 30 at a million: under a second; the JSON says how
#: many); pass/fail items are resampled by their counts and keep every resample.
BESIDE_DRAWS = 30_000_000


def has_clusters(labels: Sequence[str | None] | None) -> TypeGuard[Sequence[str | None]]:
    """Some items share a ``cluster`` label (an item without one is a cluster of its own)."""
    return labels is not None and any(label is not None for label in labels)


def compute_primary(paired: Paired, config: Config, alpha: Alpha) -> Comparison:
    """Every statistic of the primary metric under the plan's settings, judged at ``alpha``."""
    boot = plan_bootstrap(
        paired.baseline,
        paired.candidate,
        config,
        clusters=paired.clusters,
        beside=config.test != "bootstrap",
    )
    binary = paired.kind == "binary"
    table = compute_paired_table(paired.baseline, paired.candidate) if binary else None
    test, difference = _primary(paired, config, alpha, table, boot)
    ids = np.asarray(paired.ids, dtype=object)
    confidence = config.bootstrap.confidence
    t = table  # the parts below are of pass/fail items only
    return Comparison(
        paired=paired,
        metric="pass_rate" if binary or paired.pass_fail else "mean_score",
        baseline=_side(paired, paired.baseline, confidence, paired.epochs_baseline),
        candidate=_side(paired, paired.candidate, confidence, paired.epochs_candidate),
        difference=difference,
        test_result=test,
        bootstrap=boot,
        table=table,
        mcnemar=None if t is None else mcnemar(t.fixed, t.broken, method=config.mcnemar),
        churn=None if t is None else churn(t.fixed, t.broken, t.items),
        # for contrast only: what the two rates alone would say, ignoring the pairing
        unpaired=None
        if t is None
        else two_proportion_ztest(t.baseline_passed, t.items, t.candidate_passed, t.items),
        power=None if t is None else _power(paired, config, alpha, t, test, difference),
        fixed_ids=ids[paired.candidate > paired.baseline].tolist(),
        broken_ids=ids[paired.candidate < paired.baseline].tolist(),
        alpha=alpha,
        resamples=config.bootstrap.resamples,
        seed=config.bootstrap.seed,
        repeats_baseline=_repeats(paired, paired.baseline, paired.epochs_baseline),
        repeats_candidate=_repeats(paired, paired.candidate, paired.epochs_candidate),
        clusters=_clusters(paired),
    )


def plan_bootstrap(
    baseline: ColumnsLike,
    candidate: ColumnsLike,
    config: Config,
    *,
    clusters: Sequence[str | None] | None,
    metric: Metric | str = "mean",
    beside: bool = False,
) -> BootstrapResult:
    """The paired bootstrap of ``metric`` (the mean of candidate - baseline by default) under
    the plan's settings (resamples, confidence, seed, method): the one door every part of the
    comparison that resamples goes through. ``clusters`` is required: each caller says which
    cluster labels its items carry (or ``None``), so no part can silently resample clustered
    items one by one. ``beside``: shown beside the test that decides, its draws bounded by
    :data:`BESIDE_DRAWS`."""
    boot = config.bootstrap
    return paired_bootstrap(
        baseline,
        candidate,
        metric=metric,
        n_resamples=boot.resamples,
        confidence_level=boot.confidence,
        seed=boot.seed,
        method=boot.method,
        clusters=clusters,
        max_draws=BESIDE_DRAWS if beside else None,
    )


def _side(paired: Paired, values: FloatArray, confidence: float, epochs: int) -> Side:
    """A pass/fail side: its pass rate and Wilson score interval; pass rates over repeats
    (per-item means in [0, 1]): Wilson with the effective number of trials, which stays in
    [0, 1]; a score side: its mean and t interval (a point with one item)."""
    n, passed = len(values), None
    if paired.kind == "binary":
        passed = int(values.sum())
        ci, method = wilson_interval(passed, n, confidence_level=confidence), "wilson"
        rate = passed / n
    elif paired.pass_fail:
        found = mean_of_means_interval(values, epochs, confidence_level=confidence)
        rate, ci, method = found.statistic, found.confidence_interval, found.method
    else:
        rate = float(values.mean())
        ci, method = t_interval(rate, standard_error(values), n - 1, confidence), "t"
    return Side(rate=rate, passed=passed, confidence_interval=ci, interval_method=method)


def _primary(
    paired: Paired, config: Config, alpha: Alpha, table: PairedTable | None, boot: BootstrapResult
) -> tuple[Test, Estimate]:
    """The test that decides and the interval shown, from one method where possible:

    - ``policy.mode: sequential`` (pass/fail): the mixture SPRT and its always-valid
      confidence sequence at ``1 - alpha`` (not for items that share clusters: the plan
      refuses that verdict, ``clusters_sequential``, and the cluster test is shown instead);
    - ``test: bootstrap``: ``boot``'s p-value and its own interval (by cluster);
    - pass/fail items: McNemar's test with Tango's score interval with continuity correction
      (which excludes 0 exactly when McNemar's continuity-corrected test rejects);
    - otherwise (scores, or items that share clusters) :func:`score_test`.
    """
    clustered = has_clusters(paired.clusters)
    if table is not None and config.policy.mode == "sequential" and not clustered:
        seq = confidence_sequence(
            table.fixed, table.broken, table.items, confidence_level=1.0 - alpha.effective
        )
        return mixture_sprt(table.fixed, table.broken), seq
    if config.test == "bootstrap":
        return boot, boot
    if table is not None and not clustered:
        tango = paired_difference_interval(
            table.both_pass,
            table.fixed,
            table.broken,
            table.both_fail,
            confidence_level=config.bootstrap.confidence,
        )
        return mcnemar(table.fixed, table.broken, method=config.mcnemar), tango
    found = score_test(paired.baseline, paired.candidate, paired.clusters, config)
    return found, found


def score_test(
    baseline: FloatArray,
    candidate: FloatArray,
    clusters: Sequence[str | None] | None,
    config: Config,
) -> PairedMeanResult | BootstrapResult:
    """The test of a paired mean difference the plan runs, with the interval that inverts it:
    the paired test valid at every n (:func:`evalbot.stats.paired_mean.paired_mean_test`:
    sign-flip up to 1,000 items, paired t above, with Cohen's d_z); when items share clusters
    (``clusters`` labels them) the test whose units are clusters
    (:func:`evalbot.stats.clusters.clustered_mean_test`: exact to 24 clusters, sampled to
    1,000, the cluster-robust t above; the only candidate that held alpha at every number of
    clusters simulated, ``tests/sim/test_clusters.py``); the bootstrap (by cluster) when the
    plan says ``test: bootstrap``. The primary score and every secondary metric are tested by
    it."""
    boot = config.bootstrap
    if config.test == "bootstrap":
        return plan_bootstrap(baseline, candidate, config, clusters=clusters)
    settings: dict[str, Any] = {"n_resamples": boot.resamples, "seed": boot.seed}
    if has_clusters(clusters):
        return clustered_mean_test(
            baseline, candidate, clusters, confidence_level=boot.confidence, **settings
        )
    return paired_mean_test(baseline, candidate, confidence_level=boot.confidence, **settings)


def _clusters(paired: Paired) -> ClusterResult | None:
    """Cluster count and the CR1 standard error when items carry ``cluster`` labels."""
    if not has_clusters(paired.clusters):
        return None
    labelled = sum(label is not None for label in paired.clusters)
    clusters = int(cluster_codes(paired.clusters, len(paired)).max()) + 1
    se = None
    if clusters >= 2:
        se = clustered_standard_error(paired.baseline, paired.candidate, paired.clusters)
    return ClusterResult(clusters=clusters, labelled_items=labelled, standard_error=se)


def _design(paired: Paired, config: Config) -> DesignEffectResult | None:
    """The design effect of the items: estimated from their ``cluster`` labels when they
    carry some, else the plan's ``plan.design_effect`` when it is above 1, else ``None``."""
    if has_clusters(paired.clusters):
        return estimate_design_effect(paired.baseline, paired.candidate, paired.clusters)
    if config.plan is None or config.plan.design_effect <= 1.0:
        return None
    return design_result(
        config.plan.design_effect, math.nan, math.nan, 0, len(paired), "configured"
    )


def _power(
    paired: Paired, config: Config, alpha: Alpha, table: PairedTable, test: Test, diff: Estimate
) -> PowerResult | None:
    """The minimum detectable effect of this eval and, when the test did not reject, the
    items needed to detect the observed change.

    Both by exact power of the McNemar test the plan runs (``mcnemar:``) at the effective
    alpha, with the items' design effect; defined for every table: one item, every item
    changed, none changed. When the test that decides takes clusters as its units (the
    cluster sign-flip test) its power is approximated by McNemar's on ``items /
    design_effect`` independent items (the design effect estimated from the same clusters);
    with so few clusters that even every cluster moving one way cannot reach alpha
    (``2^(1 - clusters) > alpha``) no effect is detectable.
    """
    n, method, a = table.items, config.mcnemar, alpha.effective
    if n == 0:
        return None
    design = _design(paired, config)
    deff = 1.0 if design is None else design.design_effect
    # both sizes by the test the plan runs, at this run's alpha, with the items' design effect
    settings: dict[str, Any] = {"alpha": a, "power": POWER, "method": method, "design_effect": deff}
    psi = table.discordant / n
    found = mcnemar_minimum_detectable_effect(n, psi, **settings)
    mde = found.effect if found.detectable else None
    clusters = diff.n_clusters if isinstance(diff, ClusteredMeanResult) else None
    if clusters is not None and 2.0 ** (1 - clusters) > a:
        mde = None
    needed: int | None = None
    if not alpha.rejects(test.pvalue) and table.fixed != table.broken:
        needed = mcnemar_sample_size(table.fixed / n, table.broken / n, **settings).items
    words = f"exact power of the {method} McNemar test at the observed discordant rate"
    if design is not None:
        words += f", design effect {deff:.3g} ({design.method})"
    if clusters is not None:
        words += f", approximating the cluster sign-flip test over {clusters:,} clusters"
    return PowerResult(
        items=n,
        alpha=a,
        power=POWER,
        discordant_rate=psi,
        minimum_detectable_effect=mde,
        items_needed=needed,
        method=words,
        design=design,
    )


def _repeats(paired: Paired, values: FloatArray, epochs: int) -> RepeatsSide | None:
    """Repeat statistics of pass/fail items sampled ``epochs`` times: flaky items, variance
    components, pass@k, the standard error for (n, k) and the best split of the calls.

    Every statistic of :func:`~evalbot.stats.repeats.analyze_repeats` depends on an item's
    repeats only through how many passed, so an item's pass rate over its epochs rebuilds an
    equivalent row exactly.
    """
    if not paired.pass_fail or epochs < 2 or len(values) == 0:
        return None
    passes = values * epochs
    counts = np.rint(passes)
    if not np.allclose(passes, counts, atol=1e-6):
        return None  # items with differing numbers of epochs: no balanced matrix
    matrix = (np.arange(epochs)[None, :] < counts[:, None]).astype(np.float64)
    flaky = (counts > 0) & (counts < epochs)
    result = analyze_repeats(matrix)
    n, correct = len(values), counts.astype(np.int64)
    at_k = tuple(
        (k, pass_at_k(epochs, correct, k)) for k in range(1, min(epochs, MAX_PASS_AT_K) + 1)
    )
    between, within = result.between_item_variance, result.within_item_variance
    se = budget = None
    if np.isfinite(between) and np.isfinite(within):
        se = repeats_se(between, within, n, epochs)
        # the same number of calls spread as the SE prefers (on as many items as calls)
        budget = allocate_budget(between, within, n * epochs)
    return RepeatsSide(
        result=result,
        flaky_ids=np.asarray(paired.ids, dtype=object)[flaky].tolist(),
        pass_at_k=at_k,
        standard_error=se,
        budget=budget,
    )
