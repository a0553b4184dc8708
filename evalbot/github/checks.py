"""The check run on the pull request's head commit: the run's ticket and its record.

:class:`StatusPublisher` creates the check run (a commit status with a personal token), which
is this run's **ticket** in the looks ledger (:mod:`evalbot.plan.ledger`): it declares the commit
and the item set judged before the earlier looks are read, and ends carrying the run's record, the
look digest. It also learns who evalbot is on GitHub (:class:`Identity`), which decides whose
comments are evalbot's own. :func:`check_tickets` and :func:`status_tickets` read GitHub's
records back as tickets.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Protocol

from evalbot.errors import UsageError
from evalbot.github.errors import GitHubRequestError
from evalbot.github.records import CheckRunInfo, StatusInfo
from evalbot.github.runner import ActionsEnv
from evalbot.plan.ledger import Digest, Ticket, parse_digest, render_digest
from evalbot.report.docs import ACTION_DOCS

__all__ = [
    "DOCS",
    "FORK_WARNING",
    "NO_VERDICT",
    "ChecksPort",
    "Identity",
    "StatusPublisher",
    "check_name",
    "check_tickets",
    "status_tickets",
]

DOCS = ACTION_DOCS
#: The start of a commit status's description when the run compared nothing (not a look).
NO_VERDICT = "No verdict: "

FORK_WARNING = (
    "This pull request comes from a fork, so its workflow only has a read-only token: evalbot "
    "wrote the job summary and the outputs but cannot comment or set a check. To publish on "
    "pull requests from forks, use the two-workflow setup: the `pull_request` workflow runs the "
    "eval and uploads its results with actions/upload-artifact; a second workflow `on: "
    "workflow_run` (with `permissions: pull-requests: write, checks: write, actions: read`) runs "
    f"evalbot with `candidate-artifact` and never checks out the PR's code. See {DOCS}"
)


#: A check run's conclusion as a commit status's state.
_STATUS_STATES = {
    "success": "success",
    "neutral": "success",
    "failure": "failure",
    "cancelled": "error",
}


class ChecksPort(Protocol):
    """What the publisher needs from GitHub (:class:`evalbot.github.GitHubClient` has it)."""

    def authenticated_login(self) -> str: ...

    def create_check_run(
        self,
        head_sha: str,
        name: str,
        *,
        title: str,
        summary: str,
        text: str | None = None,
        conclusion: str | None = None,
        details_url: str | None = None,
        tag: str = "",
    ) -> CheckRunInfo: ...

    def complete_check_run(
        self,
        check_run_id: int,
        conclusion: str,
        *,
        title: str,
        summary: str,
        text: str | None = None,
    ) -> CheckRunInfo: ...

    def create_commit_status(
        self, sha: str, state: str, context: str, description: str, target_url: str | None = None
    ) -> StatusInfo: ...


@dataclass(frozen=True, kw_only=True)
class Identity:
    """Who evalbot is on GitHub: whose comments are its own and whose records count.

    With an App's token (the Actions token is the ``github-actions`` App) it is the App that
    created the check run (``app_id``) and its bot user ``<slug>[bot]`` of type ``Bot``; with a
    personal token (commit statuses) the token's user, from ``GET /user``.
    """

    login: str
    user_type: str  # "Bot" or "User"
    app_id: int | None = None


class StatusPublisher:
    """A check run (an App's token) or, when check runs are refused (a personal token), a commit
    status, named after the comparison. ``read_only`` when a fork's token may not write.

    :meth:`start` takes the run's ticket (the in-progress check run, or a pending status) and
    learns evalbot's :class:`Identity`; :meth:`finish` completes it with the run's record, the
    look digest, creating it first when the run ended before it started (bad input, neutral).
    """

    def __init__(
        self,
        gh: ChecksPort,
        env: ActionsEnv,
        *,
        sha: str,
        name: str,
        details_url: str | None,
        fork: bool,
        tag: str = "",
        app_id: int | None = None,
    ) -> None:
        self._gh = gh
        self._tag = tag
        self._app_id = app_id
        self._env = env
        self._sha = sha
        self._name = name
        self._details_url = details_url
        self._fork = fork
        self._check_id: int | None = None
        self.ticket: int | None = None
        self.identity: Identity | None = None
        self.use_status = False
        self.read_only = False
        # the record the check carries, or was being sent when the write failed (fail closed)
        self.recorded: Digest | None = None
        self.completed = False  # the check (or the final status) was written

    def start(self, digest: Digest) -> None:
        opened = self._open(
            title="evalbot is comparing…",
            summary="Comparing the candidate with the baseline.",
            digest=digest,
            conclusion=None,
        )
        if not opened and self.use_status:  # a personal token: the pending status is the ticket
            self.ticket = self._status("pending", "evalbot is comparing…").id

    def _status(self, state: str, description: str) -> StatusInfo:
        return self._gh.create_commit_status(
            self._sha, state, self._name, description, target_url=self._details_url
        )

    def _open(self, *, title: str, summary: str, digest: Digest, conclusion: str | None) -> bool:
        """Create the check run (completed when ``conclusion`` is given); ``False`` when the
        run went the commit status way or the token is read-only."""
        try:
            check = self._gh.create_check_run(
                self._sha,
                self._name,
                title=title,
                summary=summary,
                text=render_digest(digest),
                conclusion=conclusion,
                details_url=self._details_url,
                tag=self._tag,
            )
        except GitHubRequestError as error:
            if error.kind == "checks_need_app" and self._app_id is None:
                self._env.info(
                    "check runs need the Actions token; a personal token was given, so evalbot "
                    "sets a commit status instead"
                )
                self.use_status = True
                login = self._gh.authenticated_login()
                self.identity = Identity(login=login, user_type="User")
                return False
            if self._fork and error.status in (401, 403, 404):
                self.read_only = True
                self._env.warning(FORK_WARNING, title="evalbot: read-only token")
                return False
            raise
        self._check_id = check.id
        self.ticket = check.id
        if self._app_id is not None and check.app_id != self._app_id:
            raise UsageError(
                f"the check run evalbot created is the {check.app_slug or 'unknown'} App's "
                f"({check.app_id}), not the App that input `app-id` names ({self._app_id}): "
                "pass that App's installation token as `github-token` (made with "
                "actions/create-github-app-token)"
            )
        if check.app_slug:
            self.identity = Identity(
                login=f"{check.app_slug}[bot]", user_type="Bot", app_id=check.app_id
            )
        return True

    def finish(self, conclusion: str, *, title: str, summary: str, digest: Digest) -> None:
        """Complete the check as ``conclusion`` with ``digest``, which records it."""
        if self.read_only:
            return
        if digest.kind == "look":
            digest = replace(digest, conclusion=conclusion)
        self.recorded = digest
        if not self.use_status and self._check_id is None:
            if self._open(title=title, summary=summary, digest=digest, conclusion=conclusion):
                self.completed = True
                return
            if self.read_only:
                return
        if self.use_status:
            state = _STATUS_STATES[conclusion]
            self._status(state, title if digest.kind == "look" else NO_VERDICT + title)
        else:
            assert self._check_id is not None
            self._gh.complete_check_run(
                self._check_id,
                conclusion,
                title=title,
                summary=summary,
                text=render_digest(digest),
            )
        self.completed = True

    def replace(self, *, title: str, summary: str, digest: Digest) -> bool:
        """The last resort when the check run cannot be completed: a new check run of the same
        name, created completed as failure with ``digest`` (GitHub shows the newest of a name;
        the old one stays in progress). ``False`` when there is no check run to replace."""
        if self.read_only or self.use_status or self._check_id is None:
            return False
        self._check_id = None
        self.finish("failure", title=title, summary=summary, digest=digest)
        return True


# ---- GitHub's records as tickets --------------------------------------------------------------


def check_name(name: str, base_ref: str | None, default_branch: str | None) -> str:
    """The check's name on a pull request into ``base_ref``: the comparison's ``name`` into the
    repository's default branch, ``name (base BRANCH)`` into any other, so that a check judged
    against another base's plan never satisfies a check required for the default branch."""
    if not base_ref or not default_branch or base_ref == default_branch:
        return name
    return f"{name} (base {base_ref})"


def _of(check: str, name: str) -> bool:
    """Whether a check (or status) named ``check`` is the comparison ``name``'s, on any base."""
    return check == name or check.startswith(f"{name} (base ")


def check_tickets(
    runs: Iterable[CheckRunInfo], *, app_id: int | None, sha: str, name: str
) -> tuple[list[Ticket], list[str]]:
    """The check runs of the comparison ``name`` (on any base) that evalbot's App created on
    ``sha``, as tickets (any App's when ``app_id`` is unknown: more looks, never fewer), and
    what was ignored: the same names written by another App."""
    tickets: list[Ticket] = []
    ignored: list[str] = []
    for run in runs:
        if not _of(run.name, name):
            continue
        if app_id is not None and run.app_id != app_id:
            ignored.append(
                f"check run {run.id} on {sha[:7]} was written by {run.app_slug or 'another'} "
                f"App ({run.app_id}), not evalbot's ({app_id}): ignored"
            )
            continue
        tickets.append(
            Ticket(
                id=run.id,
                sha=(run.head_sha or sha).lower(),
                running=run.status != "completed",
                started_at=run.started_at,
                digest=parse_digest(run.text),
                conclusion=run.conclusion,
                source=f"check run {run.id}",
            )
        )
    return tickets, ignored


def status_tickets(
    statuses: Iterable[StatusInfo], *, login: str, name: str, holdout: bool, sha: str
) -> list[Ticket]:
    """The commit statuses evalbot's user set on ``sha`` under the comparison's name, as
    tickets: each final status is paired with the pending one its run set first (whose id is
    the ticket); a pending one without a final one is a run in progress. A status carries no
    details: they live in evalbot's comment."""
    ours = sorted(
        (s for s in statuses if _of(s.context, name) and s.creator == login), key=lambda s: s.id
    )
    tickets: list[Ticket] = []
    pending: list[StatusInfo] = []
    for status in ours:
        if status.state == "pending":
            pending.append(status)
            continue
        start = pending.pop(0) if pending else status
        digest = (
            Digest(kind="none", head_sha=sha, holdout=holdout)
            if status.description.startswith(NO_VERDICT)
            else None
        )
        tickets.append(
            Ticket(
                id=start.id,
                sha=sha.lower(),
                running=False,
                started_at=start.created_at,
                digest=digest,
                opaque=True,
                holdout=holdout,
                source=f"commit status {status.id}",
            )
        )
    for status in pending:
        tickets.append(
            Ticket(
                id=status.id,
                sha=sha.lower(),
                running=True,
                started_at=status.created_at,
                opaque=True,
                holdout=holdout,
                source=f"commit status {status.id}",
            )
        )
    return tickets
