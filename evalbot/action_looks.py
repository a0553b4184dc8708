"""The earlier looks at a change, read from GitHub.

A change is the pull request's head repository and branch: every pull request from it (open or
closed, into any base, but not a merged one; the newest :data:`MAX_PULLS`) shares its looks.
They are counted (:func:`evalbot.plan.ledger.count_looks`) from the check runs (with a personal
token, the commit statuses) evalbot's own identity created on those pull requests' commits (all
of them: GitHub lists 250 per pull request), on the head before the last push (GitHub's
``before``), on the commits evalbot's comments name and on those the workflow ran on, and from
evalbot's comments, never from what commenters can write. A record that existed and is gone
(the workflow run a look judged, the comment it was published in) is a finding.
"""

from __future__ import annotations

from dataclasses import replace

from evalbot.action_context import RunContext
from evalbot.errors import PublishError
from evalbot.github.checks import StatusPublisher, check_tickets, status_tickets
from evalbot.github.events import PR_EVENTS
from evalbot.github.records import CommentInfo, PullRequestInfo
from evalbot.plan.ledger import Look, State, Ticket, count_looks
from evalbot.plan.state import parse_state

__all__ = ["MAX_PULLS", "earlier_looks", "own_comment"]

#: Pull requests of a change whose looks are read (the newest; the current one always).
MAX_PULLS = 10
#: Commits GitHub lists of one pull request at most.
MAX_PULL_COMMITS = 250


def own_comment(run: RunContext, number: int | None = None) -> CommentInfo | None:
    """evalbot's own sticky comment on pull request ``number`` (this run's by default): the
    oldest comment with the marker written by evalbot's identity. Anyone can post the marker;
    only this one is read as state."""
    number = run.pull_number if number is None else number
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


def _pulls_of_change(run: RunContext) -> list[PullRequestInfo]:
    """This pull request and the newest others from its head repository and branch, but the
    merged ones: a branch name used again after a merge is a new change."""
    now = run.target.now
    if now is None:
        return []
    owner = now.head_repo.split("/", 1)[0] if now.head_repo else ""
    others = run.gh.list_pulls_of_head(owner, now.head_ref) if owner and now.head_ref else []
    unmerged = [p for p in others if p.number != now.number and not p.merged]
    return [now, *unmerged[: MAX_PULLS - 1]]


def earlier_looks(run: RunContext, status: StatusPublisher) -> tuple[State, str | None, int | None]:
    """The earlier looks at the change (see the module), the tree of the head commit and the
    id of evalbot's comment on this pull request; ``status`` holds this run's ticket."""
    pulls = _pulls_of_change(run)
    head = run.event.head_sha.lower()
    trees: dict[str, str] = {}
    shas = [head]
    claims: list[Look] = []
    comments: dict[int, int | None] = {}
    uses, warnings = 0, []
    for pull in pulls:
        commits = run.gh.list_pull_commits(pull.number)
        if pull.commits > len(commits):
            warnings.append(
                f"pull request #{pull.number} has {pull.commits} commits; GitHub lists "
                f"{len(commits)}, so the check runs of the older ones were not read"
            )
        trees.update((sha.lower(), tree) for sha, tree in commits)
        shas += [sha.lower() for sha, _ in reversed(commits)]
        own = own_comment(run, pull.number)
        comments[pull.number] = own.id if own is not None else None
        state = parse_state(own.body) if own is not None else State()
        claims += [replace(look, pull=look.pull or pull.number) for look in state.looks]
        uses = max(uses, state.holdout_uses)
        if state.warning:
            warnings.append(f"#{pull.number}: {state.warning}")
    ran_on, problem = _commits_the_workflow_ran_on(run, pulls)
    warnings += [problem] if problem else []
    before = [run.event.before.lower()] if run.event.before else []
    shas += before + [look.head_sha for look in claims] + ran_on
    tickets, ignored = _tickets(run, status, list(dict.fromkeys(shas)))
    mine = status.ticket
    if mine is not None and not any(t.id == mine for t in tickets):
        warnings.append(
            "this run's own check run was not listed by GitHub yet; the looks were counted "
            "without it"
        )
    claimed = State(looks=tuple(claims), holdout_uses=uses, warning="; ".join(warnings) or None)
    state = count_looks(tickets, mine=mine, claims=claimed, now=run.clock(), trees=trees)
    gone, problem = _gone(run, state, comments)
    warning = "; ".join(w for w in (state.warning, problem, *ignored) if w) or None
    state = replace(state, warning=warning, findings=(*state.findings, *gone))
    return state, trees.get(head), comments.get(run.pull_number or 0)


def _tickets(
    run: RunContext, status: StatusPublisher, shas: list[str]
) -> tuple[list[Ticket], list[str]]:
    """The tickets evalbot's identity left on these commits: its check runs, or (a personal
    token) its commit statuses; and the records of the same names another App wrote."""
    identity, name = status.identity, run.settings.name
    tickets: list[Ticket] = []
    ignored: list[str] = []
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
            app_id = run.settings.app_id or (identity.app_id if identity is not None else None)
            found, other = check_tickets(
                run.gh.list_check_runs(sha), app_id=app_id, sha=sha, name=name
            )
            tickets += found
            ignored += other
    return tickets, ignored


def _gone(
    run: RunContext, state: State, comments: dict[int, int | None]
) -> tuple[list[str], str | None]:
    """Records the earlier looks name that are gone: the workflow run whose results a look
    judged (listed by its head commit), the comment a look was published in."""
    found: list[str] = []
    for look in state.looks:
        if (
            look.comment is not None
            and look.pull in comments
            and comments[look.pull] != look.comment
        ):
            found.append(
                f"evalbot's comment {look.comment} on #{look.pull}, where the look at "
                f"{look.head_sha[:7]} was published, is gone"
            )
    judged = {look.head_sha: look for look in state.looks if look.run is not None}
    for sha, look in judged.items():
        try:
            runs = run.gh.list_workflow_runs(None, None, None, head_sha=sha, limit=1000)
        except PublishError as error:
            return found, f"the runs of the earlier looks could not be listed ({error})"
        if look.run not in {listed.id for listed in runs}:
            found.append(
                f"the workflow run {look.run} whose results the look at {sha[:7]} judged is gone"
            )
    return found, None


def _commits_the_workflow_ran_on(
    run: RunContext, pulls: list[PullRequestInfo]
) -> tuple[list[str], str | None]:
    """The head commits the pull request's workflow ran on (newest first): with those
    force-pushed away, and those of runs going on right now, which a force push race can
    hide from both the pull request's commits and evalbot's comment. Best effort: the list
    needs ``actions: read``; without it the other sources stand, with a note."""
    pull = run.target.now
    workflow = run.settings.workflow_file
    if run.event.mode == "workflow_run":
        workflow = (run.event.workflow_path or "").rsplit("/", 1)[-1] or workflow
    if pull is None or workflow is None or not pull.head_ref:
        return [], None
    try:
        runs = run.gh.list_workflow_runs(workflow, pull.head_ref, None, limit=100)
    except PublishError as error:
        return [], (
            f"the runs of workflow {workflow} could not be listed ({error}); commits "
            "force-pushed away are known from evalbot's comment only"
        )
    since = min((p.created_at for p in pulls if p.created_at is not None), default=None)
    shas = [
        found.head_sha.lower()
        for found in runs
        if found.event in PR_EVENTS
        and found.head_repo.lower() == pull.head_repo.lower()
        and (since is None or found.created_at is None or found.created_at >= since)
    ]
    return list(dict.fromkeys(shas)), None
