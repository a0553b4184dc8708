"""Pure statistics for paired eval comparisons (numpy/scipy/stdlib only; no IO).

Public names are re-exported here; see each module for details.
"""

from __future__ import annotations

from evalbot.stats.bootstrap import (
    BootstrapResult,
    ColumnsLike,
    Metric,
    clustered_standard_error,
    f1_metric,
    mean_metric,
    paired_bootstrap,
    paired_bootstrap_mean,
    ratio_metric,
)
from evalbot.stats.intervals import ConfidenceInterval, wilson_interval
from evalbot.stats.mcnemar import McNemarMethod, McNemarResult, mcnemar
from evalbot.stats.power import (
    DetectableEffectResult,
    SampleSizeResult,
    mcnemar_exact_power,
    mcnemar_minimum_detectable_effect,
    mcnemar_sample_size,
    simulate_mcnemar_power,
)

__all__ = [
    "BootstrapResult",
    "ColumnsLike",
    "ConfidenceInterval",
    "DetectableEffectResult",
    "McNemarMethod",
    "McNemarResult",
    "Metric",
    "SampleSizeResult",
    "clustered_standard_error",
    "f1_metric",
    "mcnemar",
    "mcnemar_exact_power",
    "mcnemar_minimum_detectable_effect",
    "mcnemar_sample_size",
    "mean_metric",
    "paired_bootstrap",
    "paired_bootstrap_mean",
    "ratio_metric",
    "simulate_mcnemar_power",
    "wilson_interval",
]
