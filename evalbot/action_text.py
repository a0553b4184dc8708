"""Markdown the action writes around the report: the rows of the earlier looks, the message
when no baseline was found, the pull request's change to the plan. Pure; built with
:mod:`evalbot.report.text` (inline code is :func:`evalbot.report.text.code`), so what it quotes
is escaped."""

from __future__ import annotations

import difflib

from evalbot.github.baseline import Missing
from evalbot.plan.ledger import Look
from evalbot.report import text as md
from evalbot.report.numbers import format_effect, format_pvalue, format_time
from evalbot.report.text import Markdown
from evalbot.report.view import OUTCOME_LABELS, HistoryRow

__all__ = [
    "MAX_LOOKS_SHOWN",
    "config_diff",
    "history_rows",
    "no_baseline_message",
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


def no_baseline_message(
    *,
    workflow: str,
    branch: str,
    at: Markdown,
    target: str,
    name: str,
    listed: int,
    capped: bool,
    missing: Missing,
    max_runs: int,
    max_commits: int,
) -> tuple[Markdown, Markdown]:
    """Why there is no baseline, what was searched, and what to do: a title and a message.

    ``listed`` successful runs of ``workflow`` on ``branch`` from its own events came back
    (``capped``: one event's listing reached ``max_runs``); ``missing`` is what the search saw;
    ``at`` (evalbot's words: "the base commit") and ``target`` (its sha) say where it looked
    from. Only when the search covered every such run (nothing capped, the commit budget not
    spent) is this "expected for the first pull request"; otherwise older runs may hold the
    artifact, and the message says which input looks further back. Every name (workflow,
    branch, artifact) is quoted as inline code.
    """
    lead = md.format(
        "No successful run of workflow {} on {} at or before {} {} has an artifact named {}.",
        md.code(workflow),
        md.code(branch),
        at,
        md.code(target[:7]),
        md.code(name),
    )
    searched = _searched(
        workflow=workflow, branch=branch, listed=listed, capped=capped, missing=missing
    )
    text = md.format("{} Searched: {}.", lead, md.join(Markdown("; "), searched))
    if not capped and not missing.stopped:
        return Markdown("No baseline yet"), md.format(
            "{} That covers every such run of the branch, as for the first pull request "
            "after installing evalbot: run the eval workflow on {} first (a push, or by hand "
            "with `workflow_dispatch`) so that it uploads the baseline; later runs of this "
            "pull request are compared with it.",
            text,
            md.code(branch),
        )
    limits = []
    if capped:
        limits.append(md.format("the newest {} runs (input `baseline-search-runs`)", max_runs))
    if missing.stopped:
        limits.append(md.format("{} commits back (input `baseline-search-commits`)", max_commits))
    return Markdown("No baseline in the runs searched"), md.format(
        "{} Older runs were not searched: the search stops at {}. Raise {} to look further "
        "back, or run the workflow on {} again so it uploads a fresh baseline.",
        text,
        md.join(Markdown(" and "), limits),
        Markdown("them" if len(limits) > 1 else "it"),
        md.code(branch),
    )


def _searched(
    *, workflow: str, branch: str, listed: int, capped: bool, missing: Missing
) -> list[Markdown]:
    """What the baseline search covered, one clause each: the runs listed, the commits
    compared, the runs not used and those without the artifact."""
    if listed:
        searched = [
            md.format(
                "the {}{} successful {} of {} on {} from push, schedule or workflow_dispatch",
                Markdown("newest " if capped else ""),
                listed,
                Markdown("run" if listed == 1 else "runs"),
                md.code(workflow),
                md.code(branch),
            )
        ]
    else:
        searched = [
            md.format(
                "the successful runs of {} on {} from push, schedule or workflow_dispatch: "
                "there are none",
                md.code(workflow),
                md.code(branch),
            )
        ]
    if missing.commits_compared:
        searched.append(
            md.format(
                "{} commit{} checked for being the base commit or one of its ancestors",
                missing.commits_compared,
                Markdown("s" if missing.commits_compared != 1 else ""),
            )
        )
    if missing.not_before:
        searched.append(
            md.format(
                "{} run{} of commits newer than that or on another line (never used)",
                missing.not_before,
                Markdown("s" if missing.not_before != 1 else ""),
            )
        )
    if missing.without_artifact:
        more = len(missing.without_artifact) - 5
        searched.append(
            md.format(
                "runs {}{} uploaded no artifact by that name",
                md.join(Markdown(", "), missing.without_artifact[:5]),
                Markdown(f" and {more} more" if more > 0 else ""),
            )
        )
    return searched
