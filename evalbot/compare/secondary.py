"""Pure: the statistics of further per-item columns: secondary metrics, each tested like a
primary score (the paired test valid at every n, the cluster sign-flip when items share
clusters, the paired bootstrap under ``test: bootstrap``) with the interval from the same test,
Holm-adjusted over the secondaries (the primary metric alone gates); cost per solved task and
micro F1, each difference with a paired bootstrap of the ratio of sums."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from evalbot.compare.primary import plan_bootstrap, score_test
from evalbot.compare.records import BothRuns, CostSide, F1Side, SecondaryResult
from evalbot.errors import InputError
from evalbot.formats.model import FloatArray, Paired
from evalbot.plan.config import Config
from evalbot.stats.bootstrap import f1_metric, ratio_metric
from evalbot.stats.multitest import holm

_SECONDARY = ("secondary metric", "secondary metrics")
_F1_COUNTS = ("F1 count", "`f1:` counts")


def _metric_column(paired: Paired, side: str, name: str, what: tuple[str, str]) -> FloatArray:
    """The per-item values of ``name`` on ``side``, read and present for every item (``what``:
    the column's name in the message, and what such columns are in the plural)."""
    source: str = getattr(paired, f"{side}_source")
    metrics: Mapping[str, FloatArray] = getattr(paired, f"{side}_metrics")
    if name not in metrics:
        raise InputError(
            f"{source}: the {what[0]} `{name}` was not read from the {side}; "
            f"{what[1]} are read from evalbot's own JSONL/JSON/CSV format"
        )
    if np.isnan(metrics[name]).any():
        raise InputError(f"{source}: the {what[0]} `{name}` is missing for some items")
    return metrics[name]


def secondary_columns(paired: Paired, config: Config) -> dict[str, tuple[FloatArray, FloatArray]]:
    """The per-item values of each configured secondary metric on both sides."""
    return {
        name: (
            _metric_column(paired, "baseline", name, _SECONDARY),
            _metric_column(paired, "candidate", name, _SECONDARY),
        )
        for name in config.secondary_metrics
    }


def compute_secondary(
    metrics: Mapping[str, tuple[FloatArray, FloatArray]],
    config: Config,
    *,
    clusters: Sequence[str | None] | None,
) -> tuple[SecondaryResult, ...]:
    """Secondary metrics (name -> per-item baseline, candidate values, aligned with the
    primary pairing): each tested like a primary score (:func:`evalbot.compare.primary.
    score_test`: sign-flip up to 1,000 items, paired t above; the cluster sign-flip when
    ``clusters`` labels items that share clusters; the paired bootstrap, by cluster, under
    ``test: bootstrap``), its interval from the same test, p-values Holm-adjusted over the
    secondaries. A p-value known only as a bound (a bootstrap p with no resample past zero)
    enters the adjustment as its bound, so the adjusted value is a bound too, never 0."""
    results = [
        (name, score_test(base, cand, clusters, config))
        for name, (base, cand) in sorted(metrics.items())
    ]
    adjusted = holm([found.pvalue.reportable for _, found in results])
    return tuple(
        SecondaryResult(name=name, difference=found, adjusted_pvalue=float(a))
        for (name, found), a in zip(results, adjusted, strict=True)
    )


def _nonnegative(paired: Paired, side: str, name: str, values: FloatArray) -> FloatArray:
    """``values``, the column ``name`` of ``side``; refused when one is negative."""
    negative = np.flatnonzero(values < 0)
    if len(negative):
        source, first = getattr(paired, f"{side}_source"), int(negative[0])
        raise InputError(
            f"{source}: item {paired.ids[first]!r} has a negative `{name}` "
            f"({float(values[first])!r}); it must be >= 0"
        )
    return values


def _cost_side(paired: Paired, raw: FloatArray, cost: FloatArray, values: FloatArray) -> CostSide:
    total = float(cost.sum())
    solved = float(values.sum()) if paired.pass_fail else None
    return CostSide(
        total_cost=total,
        solved=solved,
        cost_per_solved=total / solved if solved else None,
        items_without_cost=int(np.count_nonzero(np.isnan(raw))),
    )


def compute_cost(paired: Paired, config: Config) -> BothRuns[CostSide] | None:
    """Total cost and cost per solved task on both sides, when both carry per-item ``cost``.

    Cost per solved task is ``sum(cost) / sum(passed)`` over the items; its difference gets a
    paired bootstrap of that ratio (items, or clusters, resampled with both runs together).
    Items without a cost count as 0 and are counted in ``items_without_cost``.
    """
    if paired.baseline_costs is None or paired.candidate_costs is None:
        return None
    # a missing cost counts as 0
    base_cost = _nonnegative(paired, "baseline", "cost", np.nan_to_num(paired.baseline_costs))
    cand_cost = _nonnegative(paired, "candidate", "cost", np.nan_to_num(paired.candidate_costs))
    if not (base_cost.any() or cand_cost.any()):  # no cost recorded (promptfoo writes 0)
        return None
    baseline = _cost_side(paired, paired.baseline_costs, base_cost, paired.baseline)
    candidate = _cost_side(paired, paired.candidate_costs, cand_cost, paired.candidate)
    difference = None
    if baseline.cost_per_solved is not None and candidate.cost_per_solved is not None:
        difference = plan_bootstrap(
            {"cost": base_cost, "solved": paired.baseline},
            {"cost": cand_cost, "solved": paired.candidate},
            config,
            clusters=paired.clusters,
            metric=ratio_metric("cost", "solved", name="cost/solved"),
        )
    return BothRuns(baseline=baseline, candidate=candidate, difference=difference)


def _f1_columns(paired: Paired, names: tuple[str, str, str], side: str) -> dict[str, FloatArray]:
    """The ``tp``, ``fp`` and ``fn`` columns of one side, each present, finite and >= 0."""
    return {
        key: _nonnegative(paired, side, name, _metric_column(paired, side, name, _F1_COUNTS))
        for key, name in zip(("tp", "fp", "fn"), names, strict=True)
    }


def _f1_side(columns: dict[str, FloatArray]) -> F1Side:
    tp, fp, fn = (float(columns[k].sum()) for k in ("tp", "fp", "fn"))
    denominator = 2 * tp + fp + fn
    return F1Side(f1=2 * tp / denominator if denominator > 0 else None, tp=tp, fp=fp, fn=fn)


def compute_f1(paired: Paired, config: Config) -> BothRuns[F1Side] | None:
    """Micro F1 from the per-item counts named by ``f1:`` and the paired bootstrap of its
    difference (``f1_metric``: ``2 TP / (2 TP + FP + FN)`` on the resampled totals)."""
    if config.f1 is None:
        return None
    base_cols = _f1_columns(paired, config.f1.columns, "baseline")
    cand_cols = _f1_columns(paired, config.f1.columns, "candidate")
    baseline, candidate = _f1_side(base_cols), _f1_side(cand_cols)
    difference = None
    if baseline.f1 is not None and candidate.f1 is not None:
        difference = plan_bootstrap(
            base_cols, cand_cols, config, clusters=paired.clusters, metric=f1_metric()
        )
    return BothRuns(baseline=baseline, candidate=candidate, difference=difference)
