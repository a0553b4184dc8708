"""What every step of one Actions run shares: its IO ports and the run's givens.

:func:`evalbot.action.run_action` receives the ports (a GitHub client, :class:`Workspace`,
:data:`Clock`) as parameters; :mod:`evalbot.cli` builds the real ones. Once the pull request
is found, the run's givens are one frozen :class:`RunContext` that the readers
(:mod:`evalbot.action_plan`, :mod:`evalbot.action_inputs`) and the
publishers (:mod:`evalbot.action_publish`) take as their first argument.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from evalbot.formats.model import Results
from evalbot.formats.options import ReadOptions
from evalbot.github.checks import StatusPublisher, check_name
from evalbot.github.client import GitHubClient, PullRequestInfo
from evalbot.github.events import Event
from evalbot.github.runner import ActionsEnv, Settings
from evalbot.plan.ledger import Digest

__all__ = ["Clock", "PullTarget", "RunContext", "Workspace"]


class Workspace(Protocol):
    """What the action reads on the runner (:class:`evalbot.github.runner.LocalWorkspace` is
    one): the event's payload, and result files named relative to the workspace (the files the
    plan names, ``all_ids`` among them, are read with the plan at its commit, never from here)."""

    def read_event(self) -> Mapping[str, Any]: ...

    def load_results(self, spec: str, options: ReadOptions) -> Results: ...


#: The time now, aware (UTC): when a look was taken, and how old a running ticket is.
Clock = Callable[[], datetime]


@dataclass(frozen=True, kw_only=True)
class PullTarget:
    """The pull request a run judges, as found: ``found`` is the pull request a
    ``workflow_run`` job looked up (its payload may not name it: its base comes from here),
    ``now`` the pull request as GitHub has it now (both pull request modes)."""

    found: PullRequestInfo | None = None
    now: PullRequestInfo | None = None


@dataclass(frozen=True, kw_only=True)
class RunContext:
    """One run's givens: settings, event, IO ports, the pull request and the check.

    ``status`` publishes the check run (a commit status with a personal token) on the head
    commit in pull request modes; ``None`` on a push or a dispatch.
    """

    settings: Settings
    event: Event
    gh: GitHubClient
    env: ActionsEnv
    files: Workspace
    clock: Clock
    target: PullTarget = PullTarget()
    status: StatusPublisher | None = None

    @property
    def base_sha(self) -> str | None:
        found = self.target.found
        return found.base_sha if found is not None else self.event.base_sha

    @property
    def base_ref(self) -> str | None:
        found = self.target.found
        return found.base_ref if found is not None else self.event.base_ref

    @property
    def check_name(self) -> str:
        """The check's name: the comparison's, with the base when it is not the default branch
        (:func:`evalbot.github.checks.check_name`)."""
        now = self.target.now
        return check_name(self.settings.name, self.base_ref, now.default_branch if now else None)

    @property
    def pull_number(self) -> int | None:
        found = self.target.found
        return found.number if found is not None else self.event.pull_number

    @property
    def commit_url(self) -> str | None:
        """``https://github.com/o/r/commit/``: the earlier looks' commits link to it."""
        s = self.settings
        return f"{s.server_url}/{s.repository}/commit/" if s.repository else None

    @property
    def fork_pull_request(self) -> bool:
        """A ``pull_request`` run from a fork: its token may be read-only."""
        return self.event.is_fork and self.event.mode == "pull_request"

    def no_look(self) -> Digest:
        """The record of a run that compared nothing: not a look."""
        return Digest(
            kind="none", head_sha=self.event.head_sha.lower(), holdout=self.settings.holdout
        )
