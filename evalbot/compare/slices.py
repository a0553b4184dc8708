"""Pure: each ``slice`` (stratum) compared on its own, tested as the primary metric would be
on the slice's items alone (:func:`_slice` says how), with Benjamini-Hochberg q-values over
the slices."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from evalbot.compare.primary import has_clusters, plan_bootstrap
from evalbot.compare.records import SliceResult, test_name
from evalbot.formats.model import Paired
from evalbot.plan.config import Config
from evalbot.stats.clusters import cluster_codes, clustered_pvalue
from evalbot.stats.mcnemar import mcnemar
from evalbot.stats.multitest import benjamini_hochberg
from evalbot.stats.paired_mean import paired_mean_pvalue
from evalbot.stats.table import compute_paired_table

Indices = npt.NDArray[np.intp]


def compute_slices(paired: Paired, config: Config) -> tuple[SliceResult, ...]:
    """Each ``slice`` compared on its own, with BH q-values over the slices (none: empty)."""
    if paired.slices is None:
        return ()
    # Grouped with arrays, not a Python loop per item: each name's code, then one stable sort
    # of the codes gives every slice's item indices in item order.
    names = sorted(set(paired.slices), key=lambda name: (name is None, name or ""))
    if len(names) < 2:  # one slice is the whole eval: nothing to compare it with
        return ()
    code_of = {name: code for code, name in enumerate(names)}
    codes = np.fromiter(map(code_of.__getitem__, paired.slices), np.intp, len(paired.slices))
    by_code = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[by_code], np.arange(len(names) + 1))
    clustered = has_clusters(paired.clusters)
    rows = [
        _slice(paired, config, name, by_code[bounds[i] : bounds[i + 1]], clustered)
        for i, name in enumerate(names)
    ]
    # a p-value known only as a bound enters as its bound: the q-value is then a bound too
    qvalues = benjamini_hochberg([row.pvalue.reportable for row in rows])
    return tuple(replace(row, qvalue=float(q)) for row, q in zip(rows, qvalues, strict=True))


def _slice(
    paired: Paired, config: Config, name: str | None, idx: Indices, clustered: bool
) -> SliceResult:
    """One slice (``idx``: its items, in item order) and its test, before its q-value (no
    interval: a slice reports none).

    Items that share clusters (``clustered``; a cluster's items in this slice form one unit,
    numbered as the slice's own labels would be, so the sampled sign patterns, and the p-value,
    are the ones :func:`evalbot.stats.clusters.clustered_mean_test` finds on the slice alone):
    the cluster sign-flip test (the cluster-robust t above 1,000 clusters); otherwise McNemar's
    test on pass/fail items and the primary's test for scores, valid at every n (a slice is
    often small, where the percentile bootstrap's p-value rejects too often). Under ``test:
    bootstrap`` the paired bootstrap (by cluster) in place of the cluster test and the test for
    scores.
    """
    base, cand = paired.baseline[idx], paired.candidate[idx]
    table = compute_paired_table(base, cand) if paired.kind == "binary" else None
    boot = config.bootstrap
    resampled = config.test == "bootstrap" and (clustered or table is None)
    labels = None
    if paired.clusters is not None and (clustered or resampled):
        labels = [paired.clusters[i] for i in idx.tolist()]
    if resampled:
        found = plan_bootstrap(base, cand, config, clusters=labels)
        test, pvalue = test_name(found), found.pvalue
    elif clustered and labels is not None:
        codes = cluster_codes(labels, len(labels))
        test, pvalue = clustered_pvalue(base, cand, codes, boot.resamples, boot.seed)
    elif table is not None:
        result = mcnemar(table.fixed, table.broken, method=config.mcnemar)
        test, pvalue = test_name(result), result.pvalue
    else:
        test, pvalue = paired_mean_pvalue(base, cand, n_resamples=boot.resamples, seed=boot.seed)
    baseline_rate, candidate_rate = float(base.mean()), float(cand.mean())
    return SliceResult(
        name=name,
        items=len(base),
        baseline_rate=baseline_rate,
        candidate_rate=candidate_rate,
        difference=candidate_rate - baseline_rate,
        table=table,
        pvalue=pvalue,
        test=test,
        qvalue=float("nan"),
    )
