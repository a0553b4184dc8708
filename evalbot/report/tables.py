"""Pure: the view's tables and lists (the paired table, the item lists, slices, secondary
metrics, repeats, provenance), each built by one function from the comparison."""

from __future__ import annotations

import string
from dataclasses import dataclass

from evalbot.compare import Comparison, RepeatsSide
from evalbot.report.links import item_entry, safe_url
from evalbot.report.numbers import Scale, format_effect, format_pvalue, maybe
from evalbot.report.records import ItemList, Provenance, RepeatsRow, Row, SecondaryRow, SliceRow
from evalbot.report.text import EMPTY, Markdown

__all__ = [
    "RepeatsPart",
    "TableText",
    "item_lists",
    "provenance_rows",
    "repeats_part",
    "secondary_rows",
    "slice_rows",
    "slice_units",
    "table_text",
]


@dataclass(frozen=True, kw_only=True)
class TableText:
    """The paired 2x2 table and its net and churn lines (empty for score metrics)."""

    table: dict[str, int] | None = None
    net: Markdown = EMPTY
    churn: Markdown = EMPTY


@dataclass(frozen=True, kw_only=True)
class RepeatsPart:
    """Per-side rows for items sampled several times, and the candidate's flaky items."""

    rows: list[RepeatsRow]
    flaky: ItemList | None


def table_text(c: Comparison) -> TableText:
    if c.table is None:
        return TableText()
    t = c.table
    share = t.discordant / t.items * 100 if t.items else 0.0
    return TableText(
        table={
            "both_pass": t.both_pass,
            "fixed": t.fixed,
            "broken": t.broken,
            "both_fail": t.both_fail,
        },
        net=Markdown(f"{t.fixed - t.broken:+d} items"),
        churn=Markdown(f"{t.discordant} items changed ({share:.1f} %)"),
    )


def item_lists(
    c: Comparison, scale: Scale, *, max_ids: int, item_url: str | None
) -> list[ItemList]:
    """The broken items, then the fixed ones (for scores: the items that got worse, better)."""
    if c.table is not None:
        broken_title = "Broken items (passed before, fail now)"
        fixed_title = "Fixed items (failed before, pass now)"
    elif scale.percent:
        broken_title = "Items whose pass rate fell"
        fixed_title = "Items whose pass rate rose"
    else:
        broken_title = "Items that got worse"
        fixed_title = "Items that got better"
    return [
        ItemList(
            key="broken",
            title=Markdown(broken_title),
            entries=[item_entry(i, item_url) for i in c.broken_ids[:max_ids]],
            total=len(c.broken_ids),
        ),
        ItemList(
            key="fixed",
            title=Markdown(fixed_title),
            entries=[item_entry(i, item_url) for i in c.fixed_ids[:max_ids]],
            total=len(c.fixed_ids),
        ),
    ]


def slice_rows(c: Comparison, scale: Scale) -> list[SliceRow]:
    return [
        SliceRow(
            name="(no slice)" if s.name is None else s.name,
            items=s.items,
            baseline=scale.rate(s.baseline_rate),
            candidate=scale.rate(s.candidate_rate),
            difference=scale.difference(s.difference),
            fixed=Markdown("" if s.table is None else str(s.table.fixed)),
            broken=Markdown("" if s.table is None else str(s.table.broken)),
            pvalue=format_pvalue(s.pvalue),
            qvalue=format_pvalue(s.qvalue),
            significant=s.qvalue <= c.alpha.effective,
        )
        for s in c.slices
    ]


def slice_units(c: Comparison) -> Markdown | None:
    """When items share clusters, what each slice's p-value tests: the slice's own items, a
    cluster's items there as one unit (``None`` without clusters: McNemar or the bootstrap)."""
    if not any("cluster" in s.test for s in c.slices):
        return None
    return Markdown("p: the cluster test, a cluster's items in the slice as one unit")


def secondary_rows(c: Comparison) -> list[SecondaryRow]:
    return [
        SecondaryRow(
            name=m.name,
            baseline=Markdown(f"{m.baseline:.4g}"),
            candidate=Markdown(f"{m.candidate:.4g}"),
            effect=format_effect(
                m.difference.statistic,
                m.difference.confidence_interval.low,
                m.difference.confidence_interval.high,
                percent=False,
            ),
            test=Markdown(m.difference.method),
            pvalue=format_pvalue(m.difference.pvalue),
            adjusted_pvalue=format_pvalue(m.adjusted_pvalue),
            significant=m.adjusted_pvalue <= c.alpha.effective,
        )
        for m in c.secondary
    ]


def repeats_part(c: Comparison, scale: Scale, *, max_ids: int, item_url: str | None) -> RepeatsPart:
    sides = (("baseline", c.repeats_baseline), ("candidate", c.repeats_candidate))
    rows = [_repeats_row(side, rep, scale) for side, rep in sides if rep is not None]
    flaky: ItemList | None = None
    rep = c.repeats_candidate
    if rep is not None and rep.flaky_ids:
        flaky = ItemList(
            key="flaky",
            title=Markdown("Flaky items on the candidate (passed some repeats, failed others)"),
            entries=[item_entry(i, item_url) for i in rep.flaky_ids[:max_ids]],
            total=len(rep.flaky_ids),
        )
    return RepeatsPart(rows=rows, flaky=flaky)


def _repeats_row(side: str, rep: RepeatsSide, scale: Scale) -> RepeatsRow:
    r = rep.result
    return RepeatsRow(
        side=Markdown(side),
        epochs=r.repeats,
        flaky=Markdown(f"{r.flaky} ({r.flaky_rate * 100:.1f} %)"),
        always_pass=r.always_pass,
        always_fail=r.always_fail,
        within_item_variance=maybe(r.within_item_variance, "{:.4f}"),
        intraclass_correlation=maybe(r.intraclass_correlation, "{:.2f}"),
        majority_vote=maybe(r.majority_vote_accuracy * scale.factor, "{:.1f} %")
        if scale.percent
        else maybe(r.majority_vote_accuracy, "{:.3f}"),
    )


def provenance_rows(provenance: Provenance | None) -> list[Row]:
    """The commits (hex digits only, shortened) and run links (http(s) only) of both runs."""
    if provenance is None:
        return []
    rows: list[Row] = []
    for label, commit, run in (
        ("baseline", provenance.baseline_commit, provenance.baseline_run_url),
        ("candidate", provenance.candidate_commit, provenance.candidate_run_url),
    ):
        if commit or run:
            sha = "".join(ch for ch in (commit or "") if ch in string.hexdigits)[:12]
            text = Markdown(f"`{sha}`" if sha else "run")  # hex digits only
            rows.append(Row(label=Markdown(label), value=text, url=safe_url(run)))
    return rows
