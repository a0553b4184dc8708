"""Pure: secondary metrics, each tested like a primary score (the paired test valid at every n,
the cluster sign-flip when items share clusters, the paired bootstrap under ``test:
bootstrap``) with the interval from the same test, Holm-adjusted over the secondaries (the
primary metric alone gates)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from evalbot.compare.primary import score_test
from evalbot.compare.records import SecondaryResult
from evalbot.errors import InputError
from evalbot.formats.model import FloatArray, Paired
from evalbot.plan.config import Config
from evalbot.stats.multitest import holm

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
    primary pairing): each tested like a primary score (:func:`evalbot.compare.primary.
    score_test`: sign-flip up to 1,000 items, paired t above; the cluster sign-flip when
    ``clusters`` labels items that share clusters; the paired bootstrap, by cluster, under
    ``test: bootstrap``), its interval from the same test, p-values Holm-adjusted over the
    secondaries. A p-value known only as a bound (a bootstrap p with no resample past zero)
    enters the adjustment as its bound, so the adjusted value is a bound too, never 0."""
    results = [
        (name, base, cand, score_test(base, cand, clusters, config)[1])
        for name, (base, cand) in sorted(metrics.items())
    ]
    adjusted = holm([d.pvalue.reportable for _, _, _, d in results])
    return tuple(
        SecondaryResult(
            name=name,
            baseline=float(base.mean()),
            candidate=float(cand.mean()),
            difference=difference,
            adjusted_pvalue=float(a),
        )
        for (name, base, cand, difference), a in zip(results, adjusted, strict=True)
    )
