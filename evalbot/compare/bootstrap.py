"""Pure: the paired bootstrap under the plan's settings (resamples, confidence, seed, method),
shared by every part of the comparison that resamples items."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evalbot.config import Config
from evalbot.results.model import FloatArray, Paired
from evalbot.stats import BootstrapResult, Metric, paired_bootstrap, paired_bootstrap_mean

__all__ = ["plan_bootstrap", "plan_bootstrap_mean"]


def plan_bootstrap_mean(
    baseline: FloatArray,
    candidate: FloatArray,
    config: Config,
    *,
    clusters: Sequence[str | None] | None = None,
) -> BootstrapResult:
    """``paired_bootstrap_mean`` of candidate - baseline under the plan's settings."""
    boot = config.bootstrap
    return paired_bootstrap_mean(
        baseline,
        candidate,
        n_resamples=boot.resamples,
        confidence_level=boot.confidence,
        seed=boot.seed,
        method=boot.method,
        clusters=clusters,
    )


def plan_bootstrap(
    paired: Paired,
    config: Config,
    baseline: Mapping[str, FloatArray],
    candidate: Mapping[str, FloatArray],
    metric: Metric,
) -> BootstrapResult:
    """``paired_bootstrap`` under the plan's settings, resampling clusters when items have them."""
    boot = config.bootstrap
    return paired_bootstrap(
        baseline,
        candidate,
        metric=metric,
        n_resamples=boot.resamples,
        confidence_level=boot.confidence,
        seed=boot.seed,
        method=boot.method,
        clusters=paired.clusters,
    )
