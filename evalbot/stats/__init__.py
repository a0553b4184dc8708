"""Pure statistics for paired eval comparisons (numpy/scipy/stdlib only; no IO).

Modules
-------
intervals   Wilson score interval for a pass rate.
mcnemar     McNemar's test on fixed/broken counts: exact (default), mid-p, asymptotic.
unpaired    Two-proportion z-test ignoring the pairing (for contrast only).
table       The paired 2x2 table and churn.
bootstrap   Paired bootstrap (items or clusters) of any metric of column means, percentile
            or BCa; clustered standard error.
power       Sample size, exact and simulated power, minimum detectable effect (McNemar).
repeats     Repeated samples per item: variance components, budget, pass@k, majority vote.
multitest   Benjamini-Hochberg q-values and Holm adjustment.

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
from evalbot.stats.multitest import (
    MultipleTestResult,
    adjust_pvalues,
    benjamini_hochberg,
    holm,
)
from evalbot.stats.power import (
    DetectableEffectResult,
    SampleSizeResult,
    mcnemar_exact_power,
    mcnemar_minimum_detectable_effect,
    mcnemar_sample_size,
    simulate_mcnemar_power,
)
from evalbot.stats.repeats import (
    BudgetAllocation,
    RepeatsResult,
    allocate_budget,
    analyze_repeats,
    majority_vote_accuracy,
    pass_at_k,
    repeats_matrix,
    repeats_standard_error,
)
from evalbot.stats.table import ChurnResult, PairedTable, churn, compute_paired_table
from evalbot.stats.unpaired import TwoProportionResult, two_proportion_ztest

__all__ = [
    "BootstrapResult",
    "BudgetAllocation",
    "ChurnResult",
    "ColumnsLike",
    "ConfidenceInterval",
    "DetectableEffectResult",
    "McNemarMethod",
    "McNemarResult",
    "Metric",
    "MultipleTestResult",
    "PairedTable",
    "RepeatsResult",
    "SampleSizeResult",
    "TwoProportionResult",
    "adjust_pvalues",
    "allocate_budget",
    "analyze_repeats",
    "benjamini_hochberg",
    "churn",
    "clustered_standard_error",
    "compute_paired_table",
    "f1_metric",
    "holm",
    "majority_vote_accuracy",
    "mcnemar",
    "mcnemar_exact_power",
    "mcnemar_minimum_detectable_effect",
    "mcnemar_sample_size",
    "mean_metric",
    "paired_bootstrap",
    "paired_bootstrap_mean",
    "pass_at_k",
    "ratio_metric",
    "repeats_matrix",
    "repeats_standard_error",
    "simulate_mcnemar_power",
    "two_proportion_ztest",
    "wilson_interval",
]
