"""The records of one Actions run: what it read, what it decided, and the ways it ends.

A run reads a :class:`Plan` (``.evalbot.yml`` at the base commit) and a :class:`Baseline`
(found as a :class:`BaselineSource` before anything is parsed), and ends in one of four ways:
:class:`Skip` (nothing to publish), :class:`Neutral` (no verdict, nobody's mistake),
:class:`Refused` (no verdict because of what someone did) or a :class:`Verdict`, published
once as :class:`Rendered` text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evalbot.compare import Comparison
from evalbot.formats.model import Results
from evalbot.github.records import ArtifactInfo
from evalbot.plan.config import Config
from evalbot.plan.ledger import Digest
from evalbot.plan.policy import Decision
from evalbot.plan.state import State
from evalbot.report.render import UserTemplate
from evalbot.report.text import Markdown

__all__ = [
    "Baseline",
    "BaselineSource",
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
    """No verdict, for a reason that is nobody's mistake (no baseline yet, expired artifact)."""

    refused = False

    def __init__(self, title: Markdown, message: Markdown) -> None:
        super().__init__(message.plain)
        self.title = title
        self.message = message  # built with evalbot.report.text: what it quotes is escaped


class Refused(Neutral):
    """No verdict because of what someone did (the pull request changed the item set): the check
    fails unless the plan says ``gate.on_refused: neutral``."""

    refused = True


@dataclass(frozen=True, kw_only=True)
class Plan:
    """``.evalbot.yml`` as read at the base commit, and what the comment says about it."""

    config: Config
    notes: list[Markdown] = field(default_factory=list)
    config_change: str | None = None  # a unified diff when the pull request changes the file
    template: UserTemplate | None = None  # ``report.template``, read at the same commit


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
