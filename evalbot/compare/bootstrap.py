"""Pure: the paired bootstrap under the plan's settings (resamples, confidence, seed, method),
the one door every part of the comparison that resamples goes through (the primary difference:
the test with ``test: bootstrap``, else shown beside the test that decides; slices of scores,
secondary metrics, cost per solved task, micro F1).

``clusters`` is a required keyword: each caller says which cluster labels its items carry (or
``None``), so no part can silently resample clustered items one by one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evalbot.formats.model import FloatArray
from evalbot.plan.config import Config
from evalbot.stats.bootstrap import BootstrapResult, Metric, paired_bootstrap, paired_bootstrap_mean

__all__ = ["BESIDE_DRAWS", "plan_bootstrap", "plan_bootstrap_mean"]

Clusters = Sequence[str | None] | None

#: The bootstrap shown beside the deciding test draws at most this many items of distinct scores
#: in all (10,000 resamples up to 3,000 items, 30 at a million: under a second; the JSON says how
#: many); pass/fail items are resampled by their counts and keep every resample.
BESIDE_DRAWS = 30_000_000


def plan_bootstrap_mean(
    baseline: FloatArray,
    candidate: FloatArray,
    config: Config,
    *,
    clusters: Clusters,
    beside: bool = False,
) -> BootstrapResult:
    """``paired_bootstrap_mean`` of candidate - baseline under the plan's settings, resampling
    whole clusters when ``clusters`` labels the items; ``beside``: shown beside the test that
    decides, its draws bounded by :data:`BESIDE_DRAWS`."""
    boot = config.bootstrap
    return paired_bootstrap_mean(
        baseline,
        candidate,
        n_resamples=boot.resamples,
        confidence_level=boot.confidence,
        seed=boot.seed,
        method=boot.method,
        clusters=clusters,
        max_draws=BESIDE_DRAWS if beside else None,
    )


def plan_bootstrap(
    baseline: Mapping[str, FloatArray],
    candidate: Mapping[str, FloatArray],
    metric: Metric,
    config: Config,
    *,
    clusters: Clusters,
) -> BootstrapResult:
    """``paired_bootstrap`` of ``metric`` under the plan's settings, resampling whole clusters
    when ``clusters`` labels the items."""
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
    )
