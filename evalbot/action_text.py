"""Markdown the action writes around the report: the rows of the earlier looks, the pull
request's change to the plan. Pure; built with
:mod:`evalbot.report.text` (inline code is :func:`evalbot.report.text.code`), so what it quotes
is escaped."""

from __future__ import annotations

import difflib

from evalbot.plan.ledger import Look
from evalbot.report import text as md
from evalbot.report.numbers import format_effect, format_pvalue, format_time
from evalbot.report.view import OUTCOME_LABELS, HistoryRow

__all__ = [
    "MAX_LOOKS_SHOWN",
    "config_diff",
    "history_rows",
]

MAX_LOOKS_SHOWN = 20


def history_rows(
    looks: list[Look], *, commit_url: str | None = None, pull: int | None = None
) -> list[HistoryRow]:
    """Earlier looks as the report's rows, newest first (at most :data:`MAX_LOOKS_SHOWN`),
    numbered from the first; ``commit_url`` (``https://github.com/o/r/commit/``) links them,
    and a look given on another pull request than ``pull`` names it. A look known from the
    ledger only (still running, or its record unreadable) says so."""
    rows: list[HistoryRow] = []
    shown = list(enumerate(looks, start=1))[-MAX_LOOKS_SHOWN:]
    for number, look in reversed(shown):
        labels: tuple[str, str] = OUTCOME_LABELS.get(look.outcome, ("", look.outcome))
        symbol, text = labels
        label = f"{number}" + (" (sealed holdout)" if look.holdout else "")
        if look.pull is not None and look.pull != pull:
            label += f" (#{look.pull})"
        effect: str = "—"  # a look recorded before the state kept effects
        if look.effect is not None and look.effect_ci is not None:
            low, high = look.effect_ci
            effect = str(format_effect(look.effect, low, high, percent=look.metric == "pass_rate"))
        outcome, pvalue = f"{symbol} {text}".strip(), str(format_pvalue(look.pvalue))
        if not look.recorded:
            outcome, pvalue, effect = "⏳ not on record", "—", "—"
        rows.append(
            HistoryRow(
                label=label,
                outcome=outcome,
                effect=effect,
                pvalue=pvalue,
                commit=look.head_sha[:7],
                url=md.url(f"{commit_url}{look.head_sha}") if commit_url else None,
                at=str(format_time(look.at)) if look.recorded or look.at[:4] != "1970" else "",
            )
        )
    return rows


def config_diff(path: str, base: str | None, head: str | None) -> str:
    """The pull request's change to the config, as a unified diff (the report fences it)."""
    lines = difflib.unified_diff(
        (base or "").splitlines(),
        (head or "").splitlines(),
        fromfile=f"{path} (base)" if base is not None else f"{path} (not at the base)",
        tofile=f"{path} (this pull request)"
        if head is not None
        else f"{path} (deleted by this pull request)",
        lineterm="",
    )
    return "\n".join(lines) + "\n"
