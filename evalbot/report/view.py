"""Pure: Comparison + Decision -> the :class:`View` the templates read, every number already a
string, so every rendering (comment, job summary, the CLI's markdown and text) says the same.

The View is what custom templates (``report.template``) read. A field typed
:class:`~evalbot.report.text.Markdown` is evalbot's own text; a field typed ``str`` may hold
input (an id, a slice name, a reason quoting a file) and is escaped whenever printed (see
docs/comment.md)."""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from evalbot import __version__
from evalbot.compare.records import Comparison, RepeatsSide
from evalbot.plan.policy import Decision
from evalbot.report import text as md
from evalbot.report import words
from evalbot.report.docs import GLOSSARY_URL
from evalbot.report.numbers import (
    PERCENT,
    SCORES,
    Scale,
    format_effect,
    format_pvalue,
    interval_picture,
    maybe,
    plural,
)
from evalbot.report.text import EMPTY, Markdown, short_id

OUTCOME_LABELS = {
    "improvement": (Markdown("✅"), Markdown("Improvement")),
    "regression": (Markdown("❌"), Markdown("Regression")),
    "no_significant_difference": (Markdown("➖"), Markdown("No significant difference")),
    "inconclusive": (Markdown("⚠️"), Markdown("Inconclusive")),
}


@dataclass(frozen=True, kw_only=True)
class ItemEntry:
    """One item id in a list: ``text`` is the id as shown (shortened when very long; escaped
    when printed), ``url`` the link built from ``report.item_url`` (None: no link)."""

    id: str
    text: str
    url: Markdown | None = None


@dataclass(frozen=True, kw_only=True)
class ItemList:
    """A list of item ids; ``entries`` may hold fewer than ``total`` (the rest are counted)."""

    title: Markdown
    entries: list[ItemEntry]
    total: int


@dataclass(frozen=True, kw_only=True)
class SliceRow:
    name: str  # the results' slice label: input
    items: int
    baseline: Markdown
    candidate: Markdown
    difference: Markdown
    fixed: Markdown
    broken: Markdown
    pvalue: Markdown
    qvalue: Markdown
    significant: bool


@dataclass(frozen=True, kw_only=True)
class SecondaryRow:
    name: str  # the results' metric or scorer name: input
    baseline: Markdown
    candidate: Markdown
    effect: Markdown
    test: Markdown
    pvalue: Markdown
    adjusted_pvalue: Markdown
    significant: bool


@dataclass(frozen=True, kw_only=True)
class RepeatsRow:
    side: Markdown
    epochs: int
    flaky: Markdown
    always_pass: int
    always_fail: int
    within_item_variance: Markdown
    intraclass_correlation: Markdown
    majority_vote: Markdown
    note: Markdown  # pass@k, the standard error and the budget's advice


@dataclass(frozen=True, kw_only=True)
class Row:
    """A labelled line of the plan (its values may quote the plan: escaped), of the
    provenance (evalbot's Markdown: a commit as code), or one of the files the CLI compared
    (its path as given, input; ``note``: "400 items", so swapped arguments show)."""

    label: Markdown
    value: str
    url: Markdown | None = None
    note: Markdown = EMPTY


@dataclass(frozen=True, kw_only=True)
class HistoryRow:
    """An earlier look as the history table shows it; every value is display text, escaped
    when printed (looks come from records that may be tampered with)."""

    label: str
    outcome: str
    effect: str
    pvalue: str
    commit: str = ""
    url: Markdown | None = None
    at: str = ""  # when, as format_time shows it ("" when unknown)


@dataclass(frozen=True, kw_only=True)
class View:
    """What the templates read. Fields after ``difference_method`` are optional additions;
    templates test them before use, so a template written for an older view keeps working."""

    symbol: Markdown
    outcome_label: Markdown
    outcome: Markdown
    effect: Markdown
    pvalue: Markdown
    test: Markdown
    gate: Markdown
    reasons: list[str]  # the policy's reasons, which may quote input
    items: int
    metric: Markdown
    baseline_rate: Markdown
    baseline_ci: Markdown
    baseline_passed: Markdown
    candidate_rate: Markdown
    candidate_ci: Markdown
    candidate_passed: Markdown
    table: dict[str, int] | None
    net: Markdown
    churn: Markdown
    lists: list[ItemList]
    fingerprint: Markdown
    confidence: Markdown
    version: Markdown
    interval_method: Markdown
    difference_method: Markdown  # how the difference's interval was made
    # --- added beside the original fields -------------------------------------------------
    headline: str = ""  # a refused verdict's headline is the policy's reason: input
    explanation: Markdown = EMPTY
    gate_symbol: Markdown = EMPTY
    percent: bool = True
    unpaired_note: Markdown = EMPTY
    picture: Markdown | None = None
    slices: list[SliceRow] = field(default_factory=list)
    slice_units: Markdown | None = None  # what a slice's p tests when items share clusters
    secondary: list[SecondaryRow] = field(default_factory=list)
    repeats: list[RepeatsRow] = field(default_factory=list)
    flaky: ItemList | None = None
    power: Markdown | None = None
    plan: list[Row] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    config_change: str | None = None  # the pull request's diff: input
    config_path: str = ".evalbot.yml"  # the config file the pull request changes
    provenance: list[Row] = field(default_factory=list)
    history: list[HistoryRow] = field(default_factory=list)
    alpha: Markdown = EMPTY
    gate_reasons: list[str] = field(default_factory=list)
    disclosure: str | None = None
    notes: tuple[Markdown, ...] = ()  # the caller's Markdown (what it quotes is escaped)
    clusters_note: Markdown | None = None
    cost_note: Markdown | None = None
    f1_note: Markdown | None = None
    inputs: list[Row] = field(default_factory=list)  # the CLI's files
    glossary_url: Markdown = EMPTY
    effect_size_note: Markdown | None = None  # Cohen's d_z beside a difference of scores
    bootstrap_note: Markdown | None = None
    not_evaluated: Markdown | None = None  # the items a run did not evaluate


def build_view(
    comparison: Comparison,
    decision: Decision,
    *,
    max_ids: int = 1000,
    item_url: str | None = None,
    config_change: str | None = None,
    config_path: str = ".evalbot.yml",
    provenance: Sequence[Row] = (),
    history: Sequence[HistoryRow] = (),
    notes: Sequence[Markdown] = (),
    inputs: Sequence[Row] = (),
) -> View:
    """The view of one comparison.

    ``max_ids`` caps the ids kept per list; ``item_url`` is ``report.item_url``;
    ``config_change`` is the pull request's diff of ``config_path``; ``provenance`` (from
    :func:`provenance_rows`), ``history`` and ``notes`` (Markdown; a plain ``str`` is escaped)
    come from the action, ``inputs`` (from :func:`input_rows`) from the CLI. The plan rows
    come from the decision and the plan it was judged under."""
    c, scale = comparison, PERCENT if comparison.metric == "pass_rate" else SCORES
    verdict = words.verdict_words(c, decision, scale)
    repeats = (("baseline", c.repeats_baseline), ("candidate", c.repeats_candidate))
    symbol, label = OUTCOME_LABELS[decision.outcome]
    hexdigits = "".join(ch for ch in c.paired.fingerprint if ch in string.hexdigits)
    values = (c.difference.statistic, *c.difference.confidence_interval)
    picture = interval_picture(*(value * scale.factor for value in values), unit=scale.unit)
    # one keyword per field of the View (the templates' contract)
    return View(
        symbol=symbol,
        outcome_label=label,
        outcome=Markdown(decision.outcome),
        gate=Markdown(decision.gate),
        gate_symbol=Markdown("✅" if decision.gate == "pass" else "❌"),
        reasons=words.word_reasons([r for r in decision.reasons if r.code != "not_evaluated"]),
        gate_reasons=words.word_reasons(decision.of_kind("gate"))
        if decision.gate == "fail"
        else [],
        items=c.items,
        metric=Markdown(c.metric),
        percent=scale.percent,
        **_sides(c, scale),
        **_table(c),
        lists=_item_lists(c, scale, max_ids=max_ids, item_url=item_url),
        fingerprint=Markdown(hexdigits[:12]),
        version=Markdown(__version__),
        interval_method=Markdown(c.baseline.interval_method),
        unpaired_note=words.unpaired_note(c),
        picture=Markdown(picture) if picture else None,
        slices=_slice_rows(c, scale),
        slice_units=Markdown("p: the cluster test, a cluster's items in the slice as one unit")
        if any("cluster" in s.test for s in c.slices)
        else None,
        secondary=_secondary_rows(c),
        repeats=[_repeats_row(side, rep, scale) for side, rep in repeats if rep is not None],
        flaky=_flaky(c, max_ids=max_ids, item_url=item_url),
        power=words.power_note(c, scale),
        **_plan(c, decision, scale),
        config_change=config_change or None,
        config_path=config_path,
        provenance=list(provenance),
        history=list(history),
        notes=tuple(notes),
        clusters_note=words.clusters_note(c, scale),
        cost_note=None if c.cost is None else words.cost_note(c.cost, verdict["confidence"]),
        f1_note=None if c.f1 is None else words.f1_note(c.f1, verdict["confidence"]),
        inputs=list(inputs),
        glossary_url=Markdown(GLOSSARY_URL),
        effect_size_note=None if c.effect_size is None else words.effect_size_note(c.effect_size),
        bootstrap_note=words.bootstrap_note(c, scale),
        difference_method=words.difference_method(c),
        not_evaluated=words.not_evaluated_line(c, decision),
        **verdict,
    )


def _sides(c: Comparison, scale: Scale) -> dict[str, Any]:
    """Each run's rate, its interval and its passes ("280/400"; "" for scores)."""
    sides = {}
    for name, side in (("baseline", c.baseline), ("candidate", c.candidate)):
        sides[f"{name}_rate"] = scale.rate(side.rate)
        sides[f"{name}_ci"] = scale.interval(side.confidence_interval)
        sides[f"{name}_passed"] = Markdown(
            "" if side.passed is None else f"{side.passed}/{c.items}"
        )
    return sides


def _table(c: Comparison) -> dict[str, Any]:
    """The paired 2x2 table and its net and churn lines (none for scores)."""
    t, churn = c.table, c.churn
    if t is None or churn is None:
        return {"table": None, "net": EMPTY, "churn": EMPTY}
    changed = f"{churn.discordant} {plural(churn.discordant, 'items')} changed"
    return {
        "table": {key: getattr(t, key) for key in ("both_pass", "fixed", "broken", "both_fail")},
        "net": Markdown(f"{churn.net:+d} {plural(churn.net, 'items')}"),
        "churn": Markdown(f"{changed} ({churn.churn * 100:.1f} %)"),
    }


def item_link(template: str | None, item_id: str) -> Markdown | None:
    """``report.item_url`` with ``{id}`` replaced by the URL-quoted id; http(s) only, the URL
    percent-encoded where Markdown would read a character (:func:`~.text.url`)."""
    if not template:
        return None
    return md.url(template.replace("{id}", quote(item_id, safe="")))


def _item_list(title: str, ids: list[str], max_ids: int, url: str | None) -> ItemList:
    entries = [ItemEntry(id=i, text=short_id(i), url=item_link(url, i)) for i in ids[:max_ids]]
    return ItemList(title=Markdown(title), entries=entries, total=len(ids))


def _item_lists(
    c: Comparison, scale: Scale, *, max_ids: int, item_url: str | None
) -> list[ItemList]:
    """The broken items, then the fixed ones (for scores: the items that got worse, better)."""
    if c.table is not None:
        titles = ("Broken items (passed before, fail now)", "Fixed items (failed before, pass now)")
    elif scale.percent:
        titles = ("Items whose pass rate fell", "Items whose pass rate rose")
    else:
        titles = ("Items that got worse", "Items that got better")
    return [
        _item_list(titles[0], c.broken_ids, max_ids, item_url),
        _item_list(titles[1], c.fixed_ids, max_ids, item_url),
    ]


def _flaky(c: Comparison, *, max_ids: int, item_url: str | None) -> ItemList | None:
    rep = c.repeats_candidate
    if rep is None or not rep.flaky_ids:
        return None
    title = "Flaky items on the candidate (passed some repeats, failed others)"
    return _item_list(title, rep.flaky_ids, max_ids, item_url)


def _slice_rows(c: Comparison, scale: Scale) -> list[SliceRow]:
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


def _secondary_rows(c: Comparison) -> list[SecondaryRow]:
    return [
        SecondaryRow(
            name=m.name,
            baseline=Markdown(f"{m.difference.baseline_value:.4g}"),
            candidate=Markdown(f"{m.difference.candidate_value:.4g}"),
            effect=format_effect(
                m.difference.statistic, *m.difference.confidence_interval, percent=False
            ),
            test=Markdown(m.method),
            pvalue=format_pvalue(m.difference.pvalue),
            adjusted_pvalue=format_pvalue(m.adjusted_pvalue),
            significant=m.adjusted_pvalue <= c.alpha.effective,
        )
        for m in c.secondary
    ]


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
        note=words.repeats_note(side, rep, scale),
    )


def _plan(c: Comparison, decision: Decision, scale: Scale) -> dict[str, Any]:
    """The plan's rows (pre-registered size and how it was computed, the mode, looks, alpha for
    this look, the sealed set, the non-inferiority margin), its warnings (which may quote
    input) and its disclosure."""
    d, alpha, margin = decision, c.alpha, decision.config.gate.margin
    rows: dict[str, str] = {}  # label: value
    if d.planned is not None:
        note = words.word_plan(d.planned)
        rows["pre-registered items"] = f"{d.planned.items:,}" + (f" ({note})" if note else "")
    if d.config.policy.mode == "sequential":
        rows["mode"] = "sequential"
    max_looks = d.config.policy.max_looks
    if max_looks is not None or d.looks.number > 1:
        rows["look"] = f"{d.looks.number}" + (f" of {max_looks}" if max_looks is not None else "")
    if alpha.effective != alpha.level:
        value = f"{alpha.effective:.4g} (of {alpha.level:g}, policy.looks: bonferroni)"
        rows["alpha for this look"] = value
    if d.holdout:
        uses, holdout = d.holdout_uses, d.config.holdout
        most = None if holdout is None else holdout.max_uses
        rows["sealed set"] = "this analysis uses the sealed holdout"
        if uses:
            rows["sealed set"] += f", use {uses}" + (f" of {most}" if most else "")
    if margin is not None:
        shown = f"{margin * 100:g} pp" if scale.percent else f"{margin:g}"
        met = "" if d.noninferior is None else (": met" if d.noninferior else ": not met")
        rows["non-inferiority margin"] = shown + met
    tripwires = [reason for reason in d.reasons if reason.code == "tripwire"]
    return {
        "plan": [Row(label=Markdown(label), value=value) for label, value in rows.items()],
        "warnings": [words.word_reason(reason) for reason in [*d.warnings, *tripwires]],
        "disclosure": words.word_disclosure(d, c.items),
    }


def provenance_rows(*runs: tuple[str, str | None, str | None]) -> list[Row]:
    """The commits (hex digits only, shortened) and run links (http(s) only) of the runs,
    each given as (its side, its commit, its run's address); a run with neither is left out."""
    rows: list[Row] = []
    for side, commit, run in runs:
        if commit or run:
            sha = "".join(ch for ch in (commit or "") if ch in string.hexdigits)[:12]
            text = Markdown(f"`{sha}`" if sha else "run")
            rows.append(Row(label=Markdown(side), value=text, url=md.url(run)))
    return rows


def input_rows(*files: tuple[str, str, int]) -> list[Row]:
    """The files compared, each given as (its side, its source, how many items it holds)."""
    return [
        Row(label=Markdown(side), value=source, note=Markdown(f"{n:,} {plural(n, 'items')}"))
        for side, source, n in files
    ]
