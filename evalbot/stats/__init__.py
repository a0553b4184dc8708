"""Pure statistics for paired eval comparisons (numpy/scipy/stdlib only; no IO).

Modules
-------
intervals   Wilson score interval for a pass rate; per-item means with repeats.
mcnemar     McNemar's test on fixed/broken counts: exact (default), mid-p, asymptotic; the
            smallest attainable p-value ("powerless" evals).
pvalue      A p-value with its precision: exact log10 below the float range, or a bound.
paired_proportions
            Tango's and Newcombe's intervals for a paired difference of pass rates.
paired_mean Numeric scores: the test valid at every n (sign-flip, then the paired t) with
            matching intervals; signflip the sign-flip test itself; effect_size Cohen's d_z.
agreement   Whether a test and an interval agree about the null value.
unpaired    Two-proportion z-test ignoring the pairing (for contrast only).
table       The paired 2x2 table and churn.
bootstrap   Paired bootstrap (items or clusters) of any metric of column means, percentile
            or BCa, with the p-value that inverts the same interval; metrics the metrics of
            column means (mean, ratio, micro F1); resampling the engine; bootstrap_intervals
            the percentile and BCa intervals and their p-value; clusters the cluster codes and
            the clustered (CR1) standard error; clustered_mean the test whose units are
            clusters (cluster sign-flip, then the cluster-robust t) and its interval.
power       Sample size by exact power search (McNemar, each method), the normal
            approximation beside; simulated power. detectable: the minimum detectable effect.
design      Design effects of clustered items (configured or estimated).
sequential  Mixture SPRT and the matching confidence sequence.
repeats     Repeated samples per item: variance components, budget, pass@k, majority vote.
multitest   Benjamini-Hochberg q-values and Holm adjustment.

Public names are re-exported here; see each module for details.
"""

from __future__ import annotations

from evalbot.stats.agreement import Agreement, interval_agreement
from evalbot.stats.bootstrap import paired_bootstrap, paired_bootstrap_mean
from evalbot.stats.clustered_mean import (
    ClusteredMeanResult,
    cluster_sign_flip_pvalue,
    clustered_mean_test,
)
from evalbot.stats.clusters import clustered_standard_error
from evalbot.stats.design import DesignEffectResult, design_effect, estimate_design_effect
from evalbot.stats.intervals import (
    ConfidenceInterval,
    MeanOfMeansResult,
    mean_of_means_interval,
    wilson_interval,
)
from evalbot.stats.mcnemar import (
    McNemarMethod,
    McNemarResult,
    mcnemar,
    mcnemar_min_discordant,
    mcnemar_smallest_pvalue,
)
from evalbot.stats.metrics import ColumnsLike, Metric, f1_metric, mean_metric, ratio_metric
from evalbot.stats.multitest import (
    MultipleTestResult,
    adjust_pvalues,
    benjamini_hochberg,
    holm,
)
from evalbot.stats.paired_mean import (
    EffectSizeResult,
    PairedMeanResult,
    cohens_dz,
    paired_mean_test,
    sign_flip_pvalue,
    sign_flip_test,
    studentized_mean_test,
)
from evalbot.stats.paired_proportions import (
    PairedDifferenceResult,
    newcombe_interval,
    paired_difference_interval,
    tango_interval,
)
from evalbot.stats.power import (
    DetectableEffectResult,
    NormalApproximation,
    SampleSizeResult,
    mcnemar_exact_power,
    mcnemar_minimum_detectable_effect,
    mcnemar_normal_sample_size,
    mcnemar_sample_size,
    simulate_mcnemar_power,
)
from evalbot.stats.pvalue import PValue
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
from evalbot.stats.resampling import BootstrapResult
from evalbot.stats.sequential import (
    ConfidenceSequenceResult,
    SequentialResult,
    confidence_sequence,
    confidence_sequence_path,
    mixture_sprt,
    sequential_pvalues,
)
from evalbot.stats.table import ChurnResult, PairedTable, churn, compute_paired_table
from evalbot.stats.unpaired import TwoProportionResult, two_proportion_ztest

__all__ = [
    "Agreement",
    "BootstrapResult",
    "BudgetAllocation",
    "ChurnResult",
    "ClusteredMeanResult",
    "ColumnsLike",
    "ConfidenceInterval",
    "ConfidenceSequenceResult",
    "DesignEffectResult",
    "DetectableEffectResult",
    "EffectSizeResult",
    "McNemarMethod",
    "McNemarResult",
    "MeanOfMeansResult",
    "Metric",
    "MultipleTestResult",
    "NormalApproximation",
    "PValue",
    "PairedDifferenceResult",
    "PairedMeanResult",
    "PairedTable",
    "RepeatsResult",
    "SampleSizeResult",
    "SequentialResult",
    "TwoProportionResult",
    "adjust_pvalues",
    "allocate_budget",
    "analyze_repeats",
    "benjamini_hochberg",
    "churn",
    "cluster_sign_flip_pvalue",
    "clustered_mean_test",
    "clustered_standard_error",
    "cohens_dz",
    "compute_paired_table",
    "confidence_sequence",
    "confidence_sequence_path",
    "design_effect",
    "estimate_design_effect",
    "f1_metric",
    "holm",
    "interval_agreement",
    "majority_vote_accuracy",
    "mcnemar",
    "mcnemar_exact_power",
    "mcnemar_min_discordant",
    "mcnemar_minimum_detectable_effect",
    "mcnemar_normal_sample_size",
    "mcnemar_sample_size",
    "mcnemar_smallest_pvalue",
    "mean_metric",
    "mean_of_means_interval",
    "mixture_sprt",
    "newcombe_interval",
    "paired_bootstrap",
    "paired_bootstrap_mean",
    "paired_difference_interval",
    "paired_mean_test",
    "pass_at_k",
    "ratio_metric",
    "repeats_matrix",
    "repeats_standard_error",
    "sequential_pvalues",
    "sign_flip_pvalue",
    "sign_flip_test",
    "simulate_mcnemar_power",
    "studentized_mean_test",
    "tango_interval",
    "two_proportion_ztest",
    "wilson_interval",
]
