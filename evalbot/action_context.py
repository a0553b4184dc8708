"""What every step of one Actions run shares: its IO ports and the run's givens.

:func:`evalbot.action.run_action` receives the ports (:class:`GitHubPort`, :class:`Workspace`,
:data:`Clock`) as parameters; :mod:`evalbot.cli` builds the real ones. Once the pull request
is found, the run's givens are one frozen :class:`RunContext` that the readers
(:mod:`evalbot.action_plan`, :mod:`evalbot.action_inputs`, :mod:`evalbot.action_looks`) and the
publishers (:mod:`evalbot.action_publish`) take as their first argument.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from evalbot.formats.model import Results
from evalbot.formats.options import ReadOptions
from evalbot.github.checks import ChecksPort, StatusPublisher, check_name
from evalbot.github.events import Event
from evalbot.github.records import (
    ArtifactInfo,
    CheckRunInfo,
    CommentInfo,
    PullRequestInfo,
    StatusInfo,
    WorkflowRunInfo,
)
from evalbot.github.runner import ActionsEnv
from evalbot.github.settings import Settings
from evalbot.plan.ledger import Digest

__all__ = ["Clock", "GitHubPort", "PullTarget", "RunContext", "Workspace"]


class GitHubPort(ChecksPort, Protocol):
    """What the action needs from GitHub (:class:`evalbot.github.GitHubClient` is one): the
    check run's calls (:class:`evalbot.github.checks.ChecksPort`) and these."""

    def get_pull(self, number: int) -> PullRequestInfo: ...

    def find_pulls_for_head(
        self, head_sha: str, head_branch: str | None = None, head_owner: str | None = None
    ) -> list[PullRequestInfo]: ...

    def list_pulls_of_head(self, head_owner: str, head_branch: str) -> list[PullRequestInfo]: ...

    def list_pull_commits(self, number: int) -> list[tuple[str, str]]: ...

    def list_comments(self, number: int) -> list[CommentInfo]: ...

    def upsert_sticky_comment(
        self, number: int, marker: str, body: str, *, author: str, author_type: str
    ) -> CommentInfo: ...

    def list_check_runs(self, head_sha: str, name: str | None = None) -> list[CheckRunInfo]: ...

    def list_commit_statuses(self, sha: str) -> list[StatusInfo]: ...

    def list_workflow_runs(
        self,
        workflow_id_or_file: str | int | None,
        branch: str | None,
        status: str | None = "success",
        *,
        event: str | None = None,
        head_sha: str | None = None,
        limit: int = 100,
    ) -> list[WorkflowRunInfo]: ...

    def find_artifact(self, run_id: int, name: str) -> ArtifactInfo | None: ...

    def download_artifact_zip(self, artifact: ArtifactInfo, max_bytes: int) -> bytes: ...

    def get_file_at_ref(self, path: str, ref: str) -> str | None: ...

    def compare_commits(self, base: str, head: str) -> tuple[int, int]: ...


class Workspace(Protocol):
    """What the action reads on the runner (:class:`evalbot.github.workspace.LocalWorkspace` is
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
    gh: GitHubPort
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
