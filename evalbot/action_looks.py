"""The earlier looks at a pull request, read from GitHub.

The looks are counted (:func:`evalbot.plan.ledger.count_looks`) from the check runs (with a
personal token, the commit statuses) evalbot's own identity created on the pull request's
commits, never from what commenters can write. evalbot's own sticky comment adds the commits a
force push took out of the pull request, and the workflow's runs the commits it ran on.
"""

from __future__ import annotations

from dataclasses import replace

from evalbot.action_context import RunContext
from evalbot.errors import PublishError
from evalbot.github.checks import StatusPublisher, check_tickets, status_tickets
from evalbot.github.events import PR_EVENTS
from evalbot.github.records import CommentInfo
from evalbot.plan.ledger import Ticket, count_looks
from evalbot.plan.state import State, parse_state

__all__ = ["MAX_LEDGER_COMMITS", "earlier_looks", "own_comment"]

#: Commits of a pull request whose check runs are read for the looks ledger (the newest; the
#: commits evalbot's comment names and the head are always read).
MAX_LEDGER_COMMITS = 100


def own_comment(run: RunContext) -> CommentInfo | None:
    """evalbot's own sticky comment: the oldest comment with the marker written by evalbot's
    identity. Anyone can post the marker; only this one is read as state."""
    number = run.pull_number
    identity = run.status.identity if run.status is not None else None
    if number is None or identity is None:
        return None
    for comment in run.gh.list_comments(number):
        if (
            run.settings.marker in comment.body
            and comment.author == identity.login
            and comment.author_type == identity.user_type
        ):
            return comment
    return None


def earlier_looks(run: RunContext, status: StatusPublisher) -> State:
    """The earlier looks, from the ledger (see :mod:`evalbot.plan.ledger`) and evalbot's own
    comment (which names the commits a force push took out of the pull request); ``status``
    holds this run's ticket."""
    own = own_comment(run)
    claims = parse_state(own.body) if own is not None else State()
    number = run.pull_number
    commits = run.gh.list_pull_commits(number) if number is not None else []
    warnings: list[str] = []
    if len(commits) > MAX_LEDGER_COMMITS:
        warnings.append(
            f"the pull request has {len(commits)} commits; the check runs of the newest "
            f"{MAX_LEDGER_COMMITS} (and of every commit evalbot's comment names) were read"
        )
        commits = commits[-MAX_LEDGER_COMMITS:]
    ran_on, problem = _commits_the_workflow_ran_on(run)
    if problem:
        warnings.append(problem)
    shas = [
        run.event.head_sha.lower(),
        *(c.lower() for c in reversed(commits)),
        *(look.head_sha for look in claims.looks),
        *ran_on,
    ]
    tickets = _tickets(run, status, list(dict.fromkeys(shas)))
    mine = status.ticket
    if mine is not None and not any(t.id == mine for t in tickets):
        warnings.append(
            "this run's own check run was not listed by GitHub yet; the looks were counted "
            "without it"
        )
    state = count_looks(tickets, mine=mine, claims=claims, now=run.clock())
    if warnings:
        joined = "; ".join([*warnings, *([state.warning] if state.warning else [])])
        state = replace(state, warning=joined)
    return state


def _tickets(run: RunContext, status: StatusPublisher, shas: list[str]) -> list[Ticket]:
    """The tickets evalbot's identity left on these commits: its check runs, or (a personal
    token) its commit statuses."""
    identity, name = status.identity, run.settings.name
    tickets: list[Ticket] = []
    for sha in shas:
        if status.use_status:
            assert identity is not None
            tickets += status_tickets(
                run.gh.list_commit_statuses(sha),
                login=identity.login,
                name=name,
                holdout=run.settings.holdout,
                sha=sha,
            )
        else:
            app_id = identity.app_id if identity is not None else None
            tickets += check_tickets(run.gh.list_check_runs(sha, name), app_id=app_id, sha=sha)
    return tickets


def _commits_the_workflow_ran_on(run: RunContext) -> tuple[list[str], str | None]:
    """The head commits the pull request's workflow ran on (newest first): with those
    force-pushed away, and those of runs going on right now, which a force push race can
    hide from both the pull request's commits and evalbot's comment. Best effort: the list
    needs ``actions: read``; without it the other sources stand, with a note."""
    pull = run.target.now
    workflow: str | int | None = run.event.workflow_id if run.event.mode == "workflow_run" else None
    if workflow is None:
        workflow = run.settings.workflow_file
    if pull is None or workflow is None or not pull.head_ref:
        return [], None
    try:
        runs = run.gh.list_workflow_runs(workflow, pull.head_ref, None, limit=MAX_LEDGER_COMMITS)
    except PublishError as error:
        return [], (
            f"the runs of workflow {workflow} could not be listed ({error}); commits "
            "force-pushed away are known from evalbot's comment only"
        )
    shas = [
        found.head_sha.lower()
        for found in runs
        if found.event in PR_EVENTS
        and found.head_repo.lower() == pull.head_repo.lower()
        and (
            pull.created_at is None
            or found.created_at is None
            or found.created_at >= pull.created_at
        )
    ]
    return list(dict.fromkeys(shas)), None
