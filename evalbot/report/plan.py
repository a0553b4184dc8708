"""Pure: the plan's state as the report shows it (pre-registered size, looks, alpha for this
look, the sealed holdout, the non-inferiority margin) and the warnings that go with it."""

from __future__ import annotations

from dataclasses import dataclass

from evalbot.plan.config import Config
from evalbot.plan.policy import Decision
from evalbot.report.reasons import word_disclosure, word_plan, word_reason
from evalbot.report.records import Row
from evalbot.report.text import Markdown

__all__ = ["PlanRows", "plan_rows"]


@dataclass(frozen=True, kw_only=True)
class PlanRows:
    """The plan table's rows, the decision's warnings, and its disclosure of earlier looks."""

    rows: list[Row]
    warnings: list[str]
    disclosure: str | None


def plan_rows(decision: Decision, config: Config | None, *, percent: bool) -> PlanRows:
    """The plan's rows from the Decision (the config fills what the decision leaves open)."""
    rows = [
        *_size_rows(decision, config),
        *_look_rows(decision, config),
        *_holdout_rows(decision),
        *_margin_rows(decision, percent=percent),
    ]
    # worded from data, but a warning may quote input (an unreadable state's reason, a file
    # name of the plan): plain text, escaped by the templates
    warnings = [word_reason(reason) for reason in decision.warnings]
    warnings += [word_reason(reason) for reason in decision.reasons if reason.code == "tripwire"]
    return PlanRows(rows=rows, warnings=warnings, disclosure=word_disclosure(decision))


def _size_rows(decision: Decision, config: Config | None) -> list[Row]:
    planned = decision.planned_items
    if planned is None and config is not None:
        planned = config.policy.sample_size
    if planned is None:
        return []
    note = word_plan(decision.planned)
    value = f"{planned:,}" + (f" ({note})" if note else "")
    return [Row(label=Markdown("pre-registered items"), value=value)]


def _look_rows(decision: Decision, config: Config | None) -> list[Row]:
    rows: list[Row] = []
    if decision.mode == "sequential":
        rows.append(Row(label=Markdown("mode"), value="sequential"))
    look, max_looks = decision.look, decision.max_looks
    if max_looks is None and config is not None:
        max_looks = config.policy.max_looks
    if max_looks is not None or look > 1:
        text = f"{look}" + (f" of {max_looks}" if max_looks is not None else "")
        rows.append(Row(label=Markdown("look"), value=text))
    alpha = decision.alpha
    if alpha.effective != alpha.level:
        value = f"{alpha.effective:.4g} (of {alpha.level:g}, policy.looks: bonferroni)"
        rows.append(Row(label=Markdown("alpha for this look"), value=value))
    return rows


def _holdout_rows(decision: Decision) -> list[Row]:
    if not decision.holdout:
        return []
    uses, most = decision.holdout_uses, decision.holdout_max_uses
    text = "this analysis uses the sealed holdout"
    if uses:
        text += f", use {uses}" + (f" of {most}" if most else "")
    return [Row(label=Markdown("sealed set"), value=text)]


def _margin_rows(decision: Decision, *, percent: bool) -> list[Row]:
    margin = decision.margin
    if margin is None:
        return []
    met = decision.noninferior
    shown = f"{margin * 100:g} pp" if percent else f"{margin:g}"
    verdict = "" if met is None else (": met" if met else ": not met")
    return [Row(label=Markdown("non-inferiority margin"), value=shown + verdict)]
