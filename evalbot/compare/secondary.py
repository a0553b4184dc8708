"""Pure: secondary metrics, each a paired bootstrap of its difference, Holm-adjusted over the
secondaries (the primary metric alone gates)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from evalbot.compare.bootstrap import plan_bootstrap_mean
from evalbot.compare.records import SecondaryResult
from evalbot.config import Config
from evalbot.errors import InputError
from evalbot.results.model import FloatArray, Paired
from evalbot.stats import holm

__all__ = ["compute_secondary", "secondary_columns"]


def secondary_columns(paired: Paired, config: Config) -> dict[str, tuple[FloatArray, FloatArray]]:
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


def compute_secondary(
    metrics: Mapping[str, tuple[FloatArray, FloatArray]],
    config: Config,
    *,
    clusters: Sequence[str | None] | None,
) -> tuple[SecondaryResult, ...]:
    """Secondary metrics (name -> per-item baseline, candidate values, aligned with the
    primary pairing): a paired bootstrap each (by cluster when ``clusters`` labels the items),
    p-values Holm-adjusted over the secondaries. A bootstrap p of 0 enters the adjustment as
    its bound ``2 / B``, so the adjusted value is a bound too, never 0."""
    results = [
        (name, plan_bootstrap_mean(base, cand, config, clusters=clusters))
        for name, (base, cand) in sorted(metrics.items())
    ]
    adjusted = holm([r.pvalue_detail.reportable for _, r in results])
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
