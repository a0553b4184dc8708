"""The records of one Actions run: what it read, what it decided, and the ways it ends.

A run reads a :class:`Plan` (``.evalbot.yml`` at the base commit) and a :class:`Baseline`
(found as a :class:`BaselineSource` before anything is parsed), and ends in one of these ways:
:class:`Skip` (nothing to publish), :class:`Neutral` (nothing to compare: no baseline, or an
expired one), :class:`Refused` (no verdict because of what someone did), :class:`EvalFailed`
(the eval's run failed) or a :class:`Verdict`, published once as :class:`Rendered` text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evalbot.compare.records import Comparison
from evalbot.formats.model import Results
from evalbot.github.client import ArtifactInfo
from evalbot.plan.config import Config
from evalbot.plan.ledger import Digest, State
from evalbot.plan.policy import Decision
from evalbot.report.render import UserTemplate
from evalbot.report.text import Markdown

__all__ = [
    "Baseline",
    "BaselineSource",
    "EvalFailed",
    "Neutral",
    "Plan",
    "Refused",
    "Rendered",
    "Skip",
    "Verdict",
]


class Skip(Exception):
    """Nothing to publish (a stale run, no open pull request)."""


class Neutral(Exception):
    """No verdict: nothing to compare with (no baseline yet, an expired artifact). On a pull
    request the check fails, so that no baseline is never a way past a required check, unless
    the plan says ``gate.on_no_baseline: neutral``."""

    #: The plan's key that leaves the check neutral, which the failing check names.
    opt_out: str | None = "gate.on_no_baseline"

    def __init__(self, title: Markdown, message: Markdown) -> None:
        super().__init__(message.plain)
        self.title = title
        self.message = message  # built with evalbot.report.text: what it quotes is escaped

    def fails(self, config: Config | None, *, pull_request: bool) -> bool:
        return pull_request and (config is None or config.gate.on_no_baseline == "fail")


class Refused(Neutral):
    """No verdict because of what someone did (the pull request changed the item set): the check
    fails unless the plan says ``gate.on_refused: neutral`` (its message says so)."""

    opt_out = None

    def fails(self, config: Config | None, *, pull_request: bool) -> bool:
        return config is None or config.gate.on_refused == "fail"


class EvalFailed(Neutral):
    """The eval's run failed, so there are no results: the check fails whatever the plan says."""

    opt_out = None

    def fails(self, config: Config | None, *, pull_request: bool) -> bool:
        return True


@dataclass(frozen=True, kw_only=True)
class Plan:
    """``.evalbot.yml`` as read at the base commit, and what the comment says about it."""

    config: Config
    notes: list[Markdown] = field(default_factory=list)
    config_change: str | None = None  # a unified diff when the pull request changes the file
    template: UserTemplate | None = None  # ``report.template``, read at the same commit
    blob: str | None = None  # the file's git blob sha (``None``: no file, evalbot's defaults)


@dataclass(frozen=True, kw_only=True)
class BaselineSource:
    """Where the baseline will come from, found before anything is parsed."""

    description: Markdown  # where it came from
    path: str | None = None  # a workspace path
    artifact: ArtifactInfo | None = None
    commit: str | None = None
    run_url: str | None = None


@dataclass(frozen=True, kw_only=True)
class Baseline:
    results: Results
    description: Markdown  # where it came from
    from_artifact: bool
    commit: str | None = None
    run_url: str | None = None


@dataclass(frozen=True, kw_only=True)
class Verdict:
    comparison: Comparison
    decision: Decision
    plan: Plan
    baseline: Baseline
    notes: list[Markdown] = field(default_factory=list)
    state: State = field(default_factory=State)  # to carry in the comment after this run
    old: State = field(default_factory=State)  # the earlier looks (ledger and comment)
    record: Digest | None = None  # this look's digest, for the check run


@dataclass(frozen=True, kw_only=True)
class Rendered:
    """A verdict rendered once for every place it is published."""

    comment: str
    check_title: str
    check_summary: str
    summary: str
