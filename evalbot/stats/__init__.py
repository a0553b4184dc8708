"""Pure statistics for paired eval comparisons (numpy, scipy.special, stdlib; no IO), in
scipy's vocabulary, one module per test family: ``table`` (the paired 2x2 table, churn, the
unpaired contrast), ``mcnemar``, ``paired_proportions`` (Tango's and Newcombe's intervals),
``intervals`` (Wilson), ``paired_mean`` (scores: sign-flip, paired t, d_z), ``clusters``
(cluster codes, CR1, design effects, the cluster sign-flip test), ``bootstrap``, ``power``,
``sequential`` (the mixture SPRT), ``repeats``, ``multitest``, ``agreement``, ``pvalue``.
Import each name from its module."""
