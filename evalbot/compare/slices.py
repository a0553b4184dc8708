"""Pure: each ``slice`` (stratum) compared on its own, with Benjamini-Hochberg q-values over
the slices.

Without clusters a pass/fail slice is tested by McNemar's test and a score slice by the
primary's test for scores (sign-flip up to 1,000 items, paired t above; the paired bootstrap
under ``test: bootstrap``). When items share clusters, each slice is tested like the primary
metric, restricted to the slice's items: the cluster sign-flip test
(:func:`evalbot.stats.clusters.clustered_mean_test`), or the cluster bootstrap under
``test: bootstrap``. A cluster whose items fall in several slices contributes, in each slice,
the unit made of its items there (a slice's test sees only its own items; the units of one
slice stay independent of each other)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evalbot.compare.bootstrap import plan_bootstrap_mean
from evalbot.compare.costs import has_clusters
from evalbot.compare.records import SliceResult
from evalbot.formats.model import Paired
from evalbot.plan.config import Config
from evalbot.stats.clusters import cluster_codes, clustered_pvalue
from evalbot.stats.mcnemar import mcnemar
from evalbot.stats.multitest import benjamini_hochberg
from evalbot.stats.paired_mean import paired_mean_pvalue
from evalbot.stats.pvalue import PValue
from evalbot.stats.table import PairedTable, compute_paired_table

__all__ = ["compute_slices"]


@dataclass(frozen=True, kw_only=True)
class _SliceTest:
    """One slice before the q-values: its rates, table (pass/fail) and test."""

    name: str | None
    items: int
    baseline_rate: float
    candidate_rate: float
    table: PairedTable | None
    pvalue: PValue
    test: str

    @classmethod
    def of(
        cls,
        name: str | None,
        base: npt.NDArray[np.float64],
        cand: npt.NDArray[np.float64],
        table: PairedTable | None,
        pvalue: PValue,
        test: str,
    ) -> _SliceTest:
        return cls(
            name=name,
            items=len(base),
            baseline_rate=float(base.mean()),
            candidate_rate=float(cand.mean()),
            table=table,
            pvalue=pvalue,
            test=test,
        )


def compute_slices(paired: Paired, config: Config) -> tuple[SliceResult, ...]:
    """Each ``slice`` compared on its own, with BH q-values over the slices (none: empty)."""
    if paired.slices is None:
        return ()
    # Grouped with arrays, not a Python loop per item: each name's code, then one stable sort
    # of the codes gives every slice's item indices in item order.
    distinct = set(paired.slices)
    if len(distinct) < 2:  # one slice is the whole eval: nothing to compare it with
        return ()
    names = sorted(distinct, key=lambda name: (name is None, name or ""))
    code_of = {name: code for code, name in enumerate(names)}
    codes = np.fromiter(map(code_of.__getitem__, paired.slices), np.intp, len(paired.slices))
    by_code = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[by_code], np.arange(len(names) + 1))
    clusters = None
    if paired.clusters is not None:
        clusters = np.empty(len(paired.clusters), dtype=object)
        clusters[:] = paired.clusters
    if has_clusters(paired) and paired.clusters is not None:
        units = cluster_codes(paired.clusters, len(paired))
        rows = [
            _clustered_slice_test(paired, config, name, by_code[bounds[i] : bounds[i + 1]], units)
            for i, name in enumerate(names)
        ]
    else:
        rows = [
            _slice_test(paired, config, name, by_code[bounds[i] : bounds[i + 1]], clusters)
            for i, name in enumerate(names)
        ]
    # a p-value known only as a bound enters as its bound: the q-value is then a bound too
    qvalues = benjamini_hochberg([row.pvalue.reportable for row in rows])
    return tuple(
        SliceResult(
            name=row.name,
            items=row.items,
            baseline_rate=row.baseline_rate,
            candidate_rate=row.candidate_rate,
            difference=row.candidate_rate - row.baseline_rate,
            table=row.table,
            pvalue=row.pvalue,
            test=row.test,
            qvalue=float(q),
        )
        for row, q in zip(rows, qvalues, strict=True)
    )


def _slice_test(
    paired: Paired,
    config: Config,
    name: str | None,
    idx: npt.NDArray[np.intp],
    cluster_labels: npt.NDArray[np.object_] | None,
) -> _SliceTest:
    """McNemar's test on a pass/fail slice; on a score slice the primary's test for scores
    (:func:`evalbot.stats.paired_mean.paired_mean_test`'s p-value), or the paired bootstrap under
    ``test: bootstrap``.
    ``idx`` are the slice's items, in item order."""
    base, cand = paired.baseline[idx], paired.candidate[idx]
    table: PairedTable | None = None
    if paired.kind == "binary":
        table = compute_paired_table(base, cand)
        result = mcnemar(table.fixed, table.broken, method=config.mcnemar)
        pvalue, test = result.pvalue, f"McNemar ({result.method})"
    elif config.test == "bootstrap":
        clusters = None if cluster_labels is None else cluster_labels[idx].tolist()
        boot = plan_bootstrap_mean(base, cand, config, clusters=clusters)
        pvalue, test = boot.pvalue, f"paired bootstrap ({boot.method})"
    else:
        # the primary's test for scores, valid at every n (a slice is often small, where the
        # percentile bootstrap's p-value rejects too often)
        test, pvalue = paired_mean_pvalue(
            base, cand, n_resamples=config.bootstrap.resamples, seed=config.bootstrap.seed
        )
    return _SliceTest.of(name, base, cand, table, pvalue, test)


def _clustered_slice_test(
    paired: Paired,
    config: Config,
    name: str | None,
    idx: npt.NDArray[np.intp],
    units: npt.NDArray[np.int64],
) -> _SliceTest:
    """A slice of items that share clusters, tested like the primary metric on the slice's
    items alone: the cluster sign-flip test (the cluster-robust t above 1,000 clusters), or
    the cluster bootstrap under ``test: bootstrap``. ``units`` are every item's cluster
    codes; a cluster's items in this slice form one unit."""
    base, cand = paired.baseline[idx], paired.candidate[idx]
    table = compute_paired_table(base, cand) if paired.kind == "binary" else None
    boot = config.bootstrap
    if config.test == "bootstrap":
        assert paired.clusters is not None
        labels = [paired.clusters[i] for i in idx.tolist()]
        found = plan_bootstrap_mean(base, cand, config, clusters=labels)
        pvalue, test = found.pvalue, f"paired bootstrap ({found.method})"
    else:
        codes = _first_seen(units[idx])
        test, pvalue = clustered_pvalue(base, cand, codes, boot.resamples, boot.seed)
    return _SliceTest.of(name, base, cand, table, pvalue, test)


def _first_seen(codes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``codes`` renumbered 0, 1, ... in order of first appearance: the numbering
    :func:`evalbot.stats.clusters.clustered_mean_test` gives the slice's own labels, so the sampled
    sign patterns, and the p-value, are the ones it finds on the slice alone."""
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size, dtype=np.int64)
    out: npt.NDArray[np.int64] = rank[inverse.reshape(-1)]
    return out
