"""Pure: one sentence each for the statistics the data carry beside the primary metric
(the paired bootstrap beside the deciding interval, clusters, cost per solved task, micro F1,
repeats). Numbers only, never text from a result
file, so they are evalbot's own Markdown (:class:`~evalbot.report.text.Markdown`)."""

from __future__ import annotations

import math

from evalbot.compare import (
    ClusterResult,
    Comparison,
    CostResult,
    Difference,
    F1Result,
    RepeatsSide,
)
from evalbot.report.numbers import Scale, maybe_none
from evalbot.report.text import Markdown
from evalbot.stats.bootstrap import BootstrapResult

__all__ = [
    "bootstrap_note",
    "clusters_note",
    "cost_note",
    "effect_size_note",
    "f1_note",
    "repeats_notes",
]


def bootstrap_note(c: Comparison, scale: Scale) -> Markdown | None:
    """The paired bootstrap of the difference beside the interval that decides (``None``
    when the bootstrap is that interval, ``test: bootstrap``)."""
    boot, diff = c.bootstrap, c.difference
    if boot is None or diff.interval == "bootstrap":
        return None
    resamples = f"{boot.n_resamples:,} resamples"
    if boot.n_resamples < c.resamples:
        resamples = f"{boot.n_resamples:,} of {c.resamples:,} resamples (draws bounded)"
    ci = boot.confidence_interval
    return Markdown(
        f"**Paired bootstrap** ({boot.method}, resampling {boot.resampled}, {resamples}, seed "
        f"{boot.seed}): {scale.difference(boot.statistic)} "
        f"[{scale.end(ci.low)}, {scale.end(ci.high)}], "
        f"{boot.share_above_zero * 100:.1f} % of resamples above zero; for comparison only "
        f"(the verdict's interval: {diff.method})."
    )


def effect_size_note(difference: Difference) -> Markdown | None:
    """Cohen's d_z beside a difference of numeric scores (``None`` without one)."""
    size = difference.effect_size
    if size is None:
        return None
    if not math.isfinite(size.statistic):
        return Markdown("**Effect size:** d_z is undefined (the per-item differences do not vary).")
    ci = size.confidence_interval
    interval = (
        f" [{ci.low:+.2f}, {ci.high:+.2f}] ({size.confidence_level * 100:g} %, {size.method})"
        if math.isfinite(ci.low) and math.isfinite(ci.high)
        else ""
    )
    return Markdown(
        f"**Effect size:** d_z = {size.statistic:+.2f}{interval}: the mean difference over the "
        "standard deviation of the per-item differences (0.2 small, 0.5 medium, 0.8 large)."
    )


def clusters_note(
    clusters: ClusterResult | None, scale: Scale, interval: str = "bootstrap"
) -> Markdown | None:
    """What the clusters change: the primary test's unit (``interval`` is the primary
    difference's :data:`~evalbot.compare.records.IntervalKind`) and the CR1 standard error."""
    if clusters is None:
        return None
    # with clusters the primary is the cluster bootstrap (test: bootstrap) or the cluster
    # test (every mode: sequential mode refuses clustered items and shows the cluster test)
    unit = (
        "the bootstrap resamples whole clusters"
        if interval == "bootstrap"
        else "the test and its interval take each cluster as one unit, and any bootstrap "
        "resamples whole clusters"
    )
    note = (
        f"Items share clusters ({clusters.labelled_items} labelled items in "
        f"{clusters.clusters:,} clusters): {unit}"
    )
    if clusters.standard_error is not None:
        se = clusters.standard_error * scale.factor
        note += (
            f"; cluster-robust (CR1) standard error of the difference "
            f"{se:.{scale.digits}f}{scale.unit}"
        )
    return Markdown(note + ".")


def _difference_text(diff: BootstrapResult, confidence: str, digits: str = ".4g") -> str:
    ci = diff.confidence_interval
    text = (
        f"difference {diff.statistic:+{digits}} [{ci.low:{digits}}, {ci.high:{digits}}] "
        f"({confidence}, paired bootstrap, {diff.method}"
    )
    if diff.n_undefined:
        text += f"; {diff.n_undefined:,} resamples undefined and left out"
    return text + ")"


def cost_note(cost: CostResult | None, confidence: str) -> Markdown | None:
    if cost is None:
        return None
    b, c = cost.baseline, cost.candidate
    total = f"total cost {b.total_cost:.4g} → {c.total_cost:.4g}"
    missing = b.items_without_cost + c.items_without_cost
    if missing:
        total += f" ({b.items_without_cost} + {c.items_without_cost} items without a cost, as 0)"
    if b.solved is None:
        return Markdown(f"**Cost:** {total}.")
    per = (
        f"**Cost per solved task:** {maybe_none(b.cost_per_solved)} → "
        f"{maybe_none(c.cost_per_solved)}"
    )
    if cost.difference is not None:
        per += ", " + _difference_text(cost.difference, confidence)
    return Markdown(f"{per}; {total}.")


def f1_note(f1: F1Result | None, confidence: str) -> Markdown | None:
    if f1 is None:
        return None
    text = (
        f"**Micro F1** (from per-item TP/FP/FN): {maybe_none(f1.baseline.f1, '.3f')} → "
        f"{maybe_none(f1.candidate.f1, '.3f')}"
    )
    if f1.difference is not None:
        text += ", " + _difference_text(f1.difference, confidence, ".3f")
    return Markdown(text + ".")


def repeats_notes(c: Comparison, *, percent: bool) -> list[Markdown]:
    sides = (("baseline", c.repeats_baseline), ("candidate", c.repeats_candidate))
    return [_repeats_note(side, rep, percent=percent) for side, rep in sides if rep is not None]


def _repeats_note(side: str, rep: RepeatsSide, *, percent: bool) -> Markdown:
    n, k = rep.result.items, rep.result.repeats
    shown = [(kk, v) for kk, v in rep.pass_at_k if kk in (1, k) or kk == len(rep.pass_at_k)]
    text = f"{side}: " + ", ".join(f"pass@{kk} {v * 100:.1f} %" for kk, v in shown)
    if rep.standard_error is not None and rep.budget is not None:
        b = rep.budget

        def se(value: float) -> str:
            return f"{value * 100:.1f} pp" if percent else f"{value:.3f}"

        text += (
            f"; standard error of the mean with {n:,} items × {k} repeats {se(rep.standard_error)}"
        )
        if (b.items, b.repeats) != (n, k):
            text += (
                f"; the same {b.budget:,} calls on {b.items:,} distinct items × {b.repeats} "
                f"repeat{'s' if b.repeats > 1 else ''} would give {se(b.standard_error)}"
            )
    return Markdown(text + ".")
