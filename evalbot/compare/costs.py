"""Pure: the statistics computed from further per-item columns: clusters (the CR1 standard
error), cost per solved task and micro F1, each difference with a paired bootstrap of the
ratio of sums."""

from __future__ import annotations

import numpy as np

from evalbot.compare.bootstrap import plan_bootstrap
from evalbot.compare.records import (
    ClusterResult,
    CostResult,
    CostSide,
    Difference,
    F1Result,
    F1Side,
)
from evalbot.errors import InputError
from evalbot.formats.model import FloatArray, Paired
from evalbot.plan.config import Config
from evalbot.stats.bootstrap import f1_metric, ratio_metric
from evalbot.stats.clusters import cluster_codes, clustered_standard_error

__all__ = ["changed_clusters", "compute_clusters", "compute_cost", "compute_f1", "has_clusters"]


def has_clusters(paired: Paired) -> bool:
    """Some items share a ``cluster`` label (an item without one is a cluster of its own)."""
    return paired.clusters is not None and any(label is not None for label in paired.clusters)


def changed_clusters(paired: Paired) -> int:
    """Clusters whose total of the per-item differences is not 0 (an item without a label is
    a cluster of its own): the units the cluster sign-flip test can flip."""
    codes = cluster_codes(paired.clusters or [None] * len(paired), len(paired))
    totals = np.bincount(codes, weights=paired.candidate - paired.baseline)
    return int(np.count_nonzero(totals))


def compute_clusters(paired: Paired, difference: Difference) -> ClusterResult | None:
    """Cluster count and the CR1 standard error when items carry ``cluster`` labels."""
    if not has_clusters(paired) or paired.clusters is None:
        return None
    labelled = sum(label is not None for label in paired.clusters)
    clusters = (
        difference.n_units
        if difference.resampled == "clusters"
        else len({label for label in paired.clusters if label is not None})
        + (len(paired.clusters) - labelled)
    )
    se = None
    if clusters >= 2:
        se = clustered_standard_error(paired.baseline, paired.candidate, paired.clusters)
    return ClusterResult(clusters=clusters, labelled_items=labelled, standard_error=se)


def _cost_column(paired: Paired, source: str, raw: FloatArray) -> FloatArray:
    """Per-item costs with a missing cost as 0; a negative cost is refused."""
    cost = np.nan_to_num(raw)
    if (cost < 0).any():
        item = paired.ids[int(np.flatnonzero(cost < 0)[0])]
        raise InputError(
            f"{source}: item {item!r} has a negative `cost` ({float(cost[cost < 0][0])!r}); "
            "costs must be >= 0"
        )
    return cost


def _cost_side(paired: Paired, raw: FloatArray, cost: FloatArray, values: FloatArray) -> CostSide:
    total = float(cost.sum())
    solved = float(values.sum()) if paired.pass_fail else None
    return CostSide(
        total_cost=total,
        solved=solved,
        cost_per_solved=total / solved if solved else None,
        items_without_cost=int(np.count_nonzero(np.isnan(raw))),
    )


def compute_cost(paired: Paired, config: Config) -> CostResult | None:
    """Total cost and cost per solved task on both sides, when both carry per-item ``cost``.

    Cost per solved task is ``sum(cost) / sum(passed)`` over the items; its difference gets a
    paired bootstrap of that ratio (items, or clusters, resampled with both runs together).
    Items without a cost count as 0 and are counted in ``items_without_cost``.
    """
    if paired.baseline_costs is None or paired.candidate_costs is None:
        return None
    base_cost = _cost_column(paired, paired.baseline_source, paired.baseline_costs)
    cand_cost = _cost_column(paired, paired.candidate_source, paired.candidate_costs)
    if not (base_cost.any() or cand_cost.any()):  # no cost recorded (promptfoo writes 0)
        return None
    baseline = _cost_side(paired, paired.baseline_costs, base_cost, paired.baseline)
    candidate = _cost_side(paired, paired.candidate_costs, cand_cost, paired.candidate)
    difference = None
    if baseline.cost_per_solved is not None and candidate.cost_per_solved is not None:
        difference = plan_bootstrap(
            {"cost": base_cost, "solved": paired.baseline},
            {"cost": cand_cost, "solved": paired.candidate},
            ratio_metric("cost", "solved", name="cost/solved"),
            config,
            clusters=paired.clusters,
        )
    return CostResult(baseline=baseline, candidate=candidate, difference=difference)


def _f1_columns(paired: Paired, names: tuple[str, str, str], side: str) -> dict[str, FloatArray]:
    """The ``tp``, ``fp`` and ``fn`` columns of one side, each present, finite and >= 0."""
    source, metrics = (
        (paired.baseline_source, paired.baseline_metrics)
        if side == "baseline"
        else (paired.candidate_source, paired.candidate_metrics)
    )
    columns: dict[str, FloatArray] = {}
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
        columns[key] = values
    return columns


def _f1_side(columns: dict[str, FloatArray]) -> F1Side:
    tp, fp, fn = (float(columns[k].sum()) for k in ("tp", "fp", "fn"))
    denominator = 2 * tp + fp + fn
    return F1Side(tp=tp, fp=fp, fn=fn, f1=2 * tp / denominator if denominator > 0 else None)


def compute_f1(paired: Paired, config: Config) -> F1Result:
    """Micro F1 from the per-item counts named by ``f1:`` and the paired bootstrap of its
    difference (``f1_metric``: ``2 TP / (2 TP + FP + FN)`` on the resampled totals)."""
    if config.f1 is None:  # pragma: no cover - the caller checks; a guard for the type checker
        raise ValueError("the plan has no `f1:` section")
    names = config.f1.columns
    base_cols = _f1_columns(paired, names, "baseline")
    cand_cols = _f1_columns(paired, names, "candidate")
    baseline, candidate = _f1_side(base_cols), _f1_side(cand_cols)
    difference = None
    if baseline.f1 is not None and candidate.f1 is not None:
        difference = plan_bootstrap(
            base_cols, cand_cols, f1_metric(), config, clusters=paired.clusters
        )
    return F1Result(baseline=baseline, candidate=candidate, difference=difference)
