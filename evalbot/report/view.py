"""Pure: Comparison + Decision -> the :class:`View` the templates read.

Numbers are rounded and labelled here, once, so every rendering (comment, job summary, the CLI's
markdown and text) says the same thing. :func:`build_view` runs the named steps below, each
returning one part of the view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evalbot import __version__
from evalbot.compare import Comparison
from evalbot.plan.config import Config
from evalbot.plan.policy import Decision
from evalbot.report import text as md
from evalbot.report.docs import GLOSSARY_URL
from evalbot.report.links import item_entry
from evalbot.report.notes import (
    bootstrap_note,
    clusters_note,
    cost_note,
    effect_size_note,
    f1_note,
    repeats_notes,
)
from evalbot.report.numbers import Scale, format_pvalue, p_clause
from evalbot.report.picture import interval_picture
from evalbot.report.plan import plan_rows
from evalbot.report.reasons import not_evaluated_words, word_reasons
from evalbot.report.records import HistoryRow, InputRow, Inputs, Provenance, View
from evalbot.report.tables import (
    item_lists,
    provenance_rows,
    repeats_part,
    secondary_rows,
    slice_rows,
    slice_units,
    table_text,
)
from evalbot.report.text import EMPTY, Markdown
from evalbot.report.verdict import verdict_text

__all__ = ["OUTCOME_LABELS", "build_view"]

OUTCOME_LABELS = {
    "improvement": (Markdown("✅"), Markdown("Improvement")),
    "regression": (Markdown("❌"), Markdown("Regression")),
    "no_significant_difference": (Markdown("➖"), Markdown("No significant difference")),
    "inconclusive": (Markdown("⚠️"), Markdown("Inconclusive")),
}


@dataclass(frozen=True, kw_only=True)
class Unpaired:
    """The unpaired test's p-value and the sentence that contrasts it with the paired one."""

    pvalue: Markdown | None = None
    note: Markdown = EMPTY


def build_view(
    comparison: Comparison,
    decision: Decision,
    *,
    max_ids: int = 1000,
    item_url: str | None = None,
    config: Config | None = None,
    config_change: str | None = None,
    config_path: str = ".evalbot.yml",
    provenance: Provenance | None = None,
    history: Sequence[HistoryRow] = (),
    notes: Sequence[Markdown] = (),
    inputs: Inputs | None = None,
) -> View:
    """The view-model of one comparison.

    ``max_ids`` caps the ids kept per list (renderings show fewer and count the rest);
    ``item_url`` is ``report.item_url`` (``{id}`` is replaced by the quoted id); ``config`` adds
    the plan's pre-registered settings; ``config_change`` is a unified diff of the config file
    (``config_path``, by default ``.evalbot.yml``) made by the pull request; ``provenance``,
    ``history`` and ``notes`` (Markdown, shown beside the provenance; a plain ``str`` is
    escaped) come from the action; ``inputs`` (the files compared, from the CLI) name the
    baseline and the candidate.
    """
    c = comparison
    scale = Scale(percent=c.metric == "pass_rate")
    verdict = verdict_text(c, decision, scale)
    table = table_text(c)
    repeats = repeats_part(c, scale, max_ids=max_ids, item_url=item_url)
    plan = plan_rows(decision, config, percent=scale.percent)
    unpaired = unpaired_text(c)
    symbol, label = OUTCOME_LABELS[decision.outcome]
    # one line per field of the View (the template contract), hence the length
    return View(
        symbol=symbol,
        outcome_label=label,
        outcome=Markdown(decision.outcome),
        effect=verdict.effect,
        pvalue=verdict.pvalue,
        test=verdict.test,
        gate=Markdown(decision.gate),
        reasons=word_reasons([r for r in decision.reasons if r.code != "not_evaluated"]),
        items=c.items,
        metric=Markdown(c.metric),
        baseline_rate=scale.rate(c.baseline.rate),
        baseline_ci=scale.interval(c.baseline.confidence_interval),
        baseline_passed=_passed(c.baseline.passed, c.items),
        candidate_rate=scale.rate(c.candidate.rate),
        candidate_ci=scale.interval(c.candidate.confidence_interval),
        candidate_passed=_passed(c.candidate.passed, c.items),
        table=table.table,
        net=table.net,
        churn=table.churn,
        lists=item_lists(c, scale, max_ids=max_ids, item_url=item_url),
        fingerprint=Markdown(_hex(c.paired.fingerprint)[:12]),
        resamples=c.resamples,
        seed=c.seed,
        confidence=verdict.confidence,
        version=Markdown(__version__),
        interval_method=Markdown(c.baseline.interval_method),
        headline=verdict.headline,
        explanation=verdict.explanation,
        gate_symbol=Markdown("✅" if decision.gate == "pass" else "❌"),
        percent=scale.percent,
        unit=scale.unit,
        unpaired_pvalue=unpaired.pvalue,
        unpaired_note=unpaired.note,
        picture=picture(c, scale),
        slices=slice_rows(c, scale),
        slice_units=slice_units(c),
        secondary=secondary_rows(c),
        repeats=repeats.rows,
        flaky=repeats.flaky,
        power=power_lines(c, verdict.change),
        plan=plan.rows,
        warnings=plan.warnings,
        conclusion=decision.conclusion,
        config_change=config_change or None,
        config_path=config_path,
        provenance=provenance_rows(provenance),
        history=list(history),
        alpha=verdict.alpha,
        fingerprint_full=Markdown(_hex(c.paired.fingerprint)),
        disclosure=plan.disclosure,
        notes=tuple(notes),
        clusters_note=clusters_note(c.clusters, scale, c.difference.interval),
        cost_note=cost_note(c.cost, verdict.confidence),
        f1_note=f1_note(c.f1, verdict.confidence),
        repeats_notes=repeats_notes(c, percent=scale.percent),
        gate_reasons=word_reasons(decision.of_kind("gate")) if decision.gate == "fail" else [],
        inputs=input_rows(inputs),
        glossary_url=Markdown(GLOSSARY_URL),
        effect_size_note=effect_size_note(c.difference),
        bootstrap_note=bootstrap_note(c, scale),
        difference_method=difference_method(c),
        not_evaluated=not_evaluated_line(c, decision),
    )


def _passed(passed: int | None, items: int) -> Markdown:
    return Markdown("" if passed is None else f"{passed}/{items}")


def _hex(fingerprint: str) -> str:
    """The item-set fingerprint (a SHA-256 evalbot computed): hex digits only."""
    return "".join(ch for ch in fingerprint if ch in "0123456789abcdefABCDEF")


def input_rows(inputs: Inputs | None) -> list[InputRow]:
    """The baseline's and the candidate's source, with their item counts ("400 items")."""
    if inputs is None:
        return []
    return [
        InputRow(
            side=Markdown(side),
            source=source,
            items=EMPTY if n is None else Markdown(f"{n:,} item{'' if n == 1 else 's'}"),
        )
        for side, source, n in (
            ("baseline", inputs.baseline, inputs.baseline_items),
            ("candidate", inputs.candidate, inputs.candidate_items),
        )
    ]


def unpaired_text(c: Comparison) -> Unpaired:
    if c.unpaired is None:
        return Unpaired()
    pvalue = format_pvalue(c.unpaired.pvalue)
    return Unpaired(
        pvalue=pvalue,
        note=Markdown(
            f"Read as two unrelated samples (two-proportion z-test) the same rates give "
            f"{p_clause(pvalue)}; pairing by item gives "
            f"{p_clause(format_pvalue(c.pvalue))}."
        ),
    )


def picture(c: Comparison, scale: Scale) -> Markdown | None:
    """The difference and its interval on a scale with zero marked (None: not finite)."""
    ci, f = c.difference.confidence_interval, scale.factor
    drawn = interval_picture(c.difference.statistic * f, ci.low * f, ci.high * f, unit=scale.unit)
    return Markdown(drawn) if drawn else None


def power_lines(c: Comparison, change: str) -> list[Markdown]:
    """What this eval can detect and, when the result is not significant, the items needed to
    detect the observed ``change``."""
    if c.power is None:
        return []
    pw = c.power
    lines: list[Markdown] = []
    items = f"{pw.items} items"
    if pw.design is not None and pw.design.design_effect > 1.0:
        items += (
            f" (design effect {pw.design.design_effect:.3g}, {pw.design.method}: as informative "
            f"as {pw.design.effective_items:,.0f} independent items)"
        )
    if pw.minimum_detectable_effect is not None:
        lines.append(
            Markdown(
                f"With {items} and {pw.discordant_rate * 100:.1f} % of them changing "
                f"outcome, this eval detects a net change of "
                f"{pw.minimum_detectable_effect * 100:.1f} pp or more with "
                f"{pw.power * 100:g} % power at alpha = {pw.alpha:.4g}."
            )
        )
    elif pw.discordant_rate == 0:
        lines.append(
            Markdown("No item changed outcome, so the eval's sensitivity cannot be estimated.")
        )
    else:
        lines.append(
            Markdown(
                f"With {items} and {pw.discordant_rate * 100:.1f} % of them changing "
                f"outcome, no net change is detectable with {pw.power * 100:g} % power."
            )
        )
    if pw.items_needed is not None:
        lines.append(
            Markdown(
                f"To detect the observed change ({change}) with "
                f"{pw.power * 100:g} % power, about {pw.items_needed:,} items would be needed."
            )
        )
    return lines


def difference_method(c: Comparison) -> Markdown:
    """How the difference's interval was made, for the footer (evalbot's labels)."""
    diff = c.difference
    if diff.interval == "bootstrap":
        return Markdown(f"{diff.method}, {c.resamples:,} resamples, seed {c.seed}")
    if diff.n_resamples:
        return Markdown(f"{diff.method}, {diff.n_resamples:,} sign patterns, seed {diff.seed}")
    return Markdown(diff.method)


def not_evaluated_line(c: Comparison, decision: Decision) -> Markdown | None:
    """The items a run did not evaluate, in words, with the first few of each side's."""
    skipped = c.paired.not_evaluated
    reason = next((r for r in decision.reasons if r.code == "not_evaluated"), None)
    if skipped is None or reason is None:
        return None
    # evalbot's words: counts and the plan's key, no text from a result file
    parts = [Markdown(f"**Not evaluated:** {not_evaluated_words(reason)}.")]
    for side, ids, count in (
        ("baseline", skipped.baseline_ids, skipped.baseline - skipped.both),
        ("candidate", skipped.candidate_ids, skipped.candidate - skipped.both),
    ):
        if ids:
            more = Markdown(f", … ({count:,} in all)") if count > len(ids) else EMPTY
            shown = md.join(Markdown(", "), (md.code(item_entry(i, None).text) for i in ids))
            parts.append(md.format("Not evaluated by the {} only: {}{}.", side, shown, more))
    return md.join(Markdown(" "), parts)
