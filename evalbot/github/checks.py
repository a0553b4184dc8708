"""The check run on the pull request's head commit, and the earlier looks GitHub holds.

:class:`PullRequestSide` is what a run writes on the pull request it judges: the check run (a
commit status with a personal token) on its head, this run's ticket in the looks ledger
(:mod:`evalbot.plan.ledger`) ending with its record, the look digest; and evalbot's own comment.
:func:`earlier_looks` reads a change's looks from evalbot's own records only (check runs of its
App, its own comments); a record that existed and is gone is a finding. See docs/threat-model.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime

from github.CheckRun import CheckRun
from github.CommitStatus import CommitStatus

from evalbot.errors import PublishError, UsageError
from evalbot.github.client import CommentInfo, GitHubClient, Identity, PullRequestInfo
from evalbot.github.errors import GitHubRequestError
from evalbot.github.events import PR_EVENTS, Event
from evalbot.github.runner import ActionsEnv, Settings
from evalbot.plan.ledger import (
    Digest,
    Look,
    State,
    Ticket,
    count_looks,
    parse_digest,
    parse_state,
    placeholder,
    render_digest,
)
from evalbot.report import text as md
from evalbot.report.docs import ACTION_DOCS as DOCS
from evalbot.report.text import Markdown

#: The start of a commit status's description when the run compared nothing (not a look).
NO_VERDICT = "No verdict: "
#: Pull requests of a change whose looks are read (the newest; the current one always).
MAX_PULLS = 10

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


class PullRequestSide:
    """The pull request ``pull`` one run judges, as that run writes on it: a check run (an App's
    token) or, when check runs are refused (a personal token), a commit status, named after the
    comparison (``name``, ``name (base BRANCH)`` into another branch than the default one, so
    that a check judged against another base's plan never satisfies a check required for the
    default branch), on the head commit; and evalbot's sticky comment. ``read_only`` when a
    fork's token may not write.

    :meth:`start` takes the run's ticket (the in-progress check run, or a pending status) and
    learns evalbot's :class:`Identity`; :meth:`finish` completes it with the run's record, the
    look digest, creating it first when the run ended before it started (bad input, neutral);
    :meth:`comment` writes the comment.
    """

    def __init__(
        self,
        gh: GitHubClient,
        env: ActionsEnv,
        settings: Settings,
        *,
        event: Event,
        pull: PullRequestInfo,
    ) -> None:
        self.gh, self._env, self.settings = gh, env, settings
        self.event, self.pull, self._sha = event, pull, event.head_sha
        self.name = settings.name
        if event.base_ref and pull.default_branch and event.base_ref != pull.default_branch:
            self.name += f" (base {event.base_ref})"
        # the check run's ``external_id`` names the base and the plan it is judged against
        self._tag = f":{event.base_sha or ''}:{event.base_ref or ''}"
        # a ``pull_request`` run from a fork: its token may be read-only
        self._fork = event.is_fork and event.mode == "pull_request"
        self._check_id: int | None = None
        self.ticket: int | None = None
        self.identity: Identity | None = None
        self.use_status = False
        self.read_only = False
        # the record the check carries, or was being sent when the write failed (fail closed)
        self.recorded: Digest | None = None
        self.completed = False  # the check (or the final status) was written

    def start(self, fingerprint: str, items: int) -> None:
        """Take the ticket, declaring the item set judged (its ``fingerprint`` and ``items``)."""
        judged = placeholder(
            self._sha, holdout=self.settings.holdout, fingerprint=fingerprint, items=items
        )
        opened = self._open(
            title="evalbot is comparing…",
            summary="Comparing the candidate with the baseline.",
            digest=Digest(kind="start", look=judged),
            conclusion=None,
        )
        if not opened and self.use_status:  # a personal token: the pending status is the ticket
            self.ticket = self._status("pending", "evalbot is comparing…").id

    def _status(self, state: str, description: str) -> CommitStatus:
        return self.gh.create_commit_status(
            self._sha, state, self.name, description, target_url=self.settings.run_url
        )

    def _open(self, *, title: str, summary: str, digest: Digest, conclusion: str | None) -> bool:
        """Create the check run (completed when ``conclusion`` is given); ``False`` when the
        run went the commit status way or the token is read-only."""
        try:
            check = self.gh.create_check_run(
                self._sha,
                self.name,
                title=title,
                summary=summary,
                text=render_digest(digest),
                conclusion=conclusion,
                details_url=self.settings.run_url,
                tag=self._tag,
            )
        except GitHubRequestError as error:
            if error.kind == "checks_need_app" and self.settings.app_id is None:
                self._env.info(
                    "check runs need the Actions token; a personal token was given, so evalbot "
                    "sets a commit status instead"
                )
                self.use_status = True
                self.identity = Identity(login=self.gh.authenticated_login(), user_type="User")
                return False
            if self._fork and error.status in (401, 403, 404):
                return self._read_only()
            raise
        self._check_id = self.ticket = check.id
        app_id, slug = (check.app.id, check.app.slug) if check.app else (None, None)
        if self.settings.app_id is not None and app_id != self.settings.app_id:
            raise UsageError(
                f"the check run evalbot created is the {slug or 'unknown'} App's "
                f"({app_id}), not the App that input `app-id` names ({self.settings.app_id}): "
                "pass that App's installation token as `github-token` (made with "
                "actions/create-github-app-token)"
            )
        if slug:
            self.identity = Identity(login=f"{slug}[bot]", user_type="Bot", app_id=app_id)
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
            self._status(
                _STATUS_STATES[conclusion], title if digest.kind == "look" else NO_VERDICT + title
            )
        else:
            assert self._check_id is not None
            self.gh.complete_check_run(
                self._check_id, conclusion, title=title, summary=summary, text=render_digest(digest)
            )
        self.completed = True

    def _read_only(self) -> bool:
        """A fork's token refused a write: say so once, write nothing more."""
        self.read_only = True
        self._env.warning(FORK_WARNING, title="evalbot: read-only token")
        return False

    def own_comment(self, number: int | None = None) -> CommentInfo | None:
        """evalbot's own sticky comment on pull request ``number`` (this one's by default): the
        oldest comment with the marker written by evalbot's identity. Anyone can post the
        marker; only this one is read."""
        if self.identity is None:
            return None
        found = self.gh.own_comments(
            number or self.pull.number, self.settings.marker, self.identity
        )
        return found[0] if found else None

    def comment(self, body: str, says: str) -> CommentInfo | None:
        """Write evalbot's own sticky comment as input ``comment`` asks (never; on a change of
        what it says, the hidden line ``says``; always); ``None`` where none is written (a
        fork's read-only token: then a warning says why)."""
        mode = self.settings.comment
        if self.read_only or self.identity is None or mode == "never":
            return None
        if mode == "on-change":
            own = self.own_comment()
            if own is not None and says in own.body:
                self._env.info(
                    "evalbot: comment left as it is (comment: on-change, nothing changed)"
                )
                return own
        try:
            return self.gh.upsert_sticky_comment(
                self.pull.number, self.settings.marker, body, author=self.identity
            )
        except GitHubRequestError as error:
            if self._fork and error.status == 403:
                self._read_only()
                return None
            raise

    def no_look(self) -> Digest:
        """The record of a run that compared nothing: not a look."""
        return Digest(kind="none", look=placeholder(self._sha, holdout=self.settings.holdout))

    def fail(self, title: str, summary: str, *, conclusion: str = "failure") -> None:
        """Complete the check as ``conclusion``, keeping its record (a look already shown, or
        being sent, stays a look). When GitHub keeps refusing that, the last resort is a new
        check run of the same name created completed as failure (GitHub shows the newest of a
        name; the old one stays in progress). An error on the way is annotated, never raised
        over the one that ended the run."""
        digest = self.recorded if self.recorded is not None else self.no_look()
        try:
            self.finish(conclusion, title=title, summary=summary, digest=digest)
            return
        except Exception as error:  # the original error says more
            self._env.error(f"could not complete the check: {error}", title="evalbot")
            why = str(error)
        if self.read_only or self.use_status or self._check_id is None:
            return
        self._check_id = None
        instead = md.format(
            "{}\n\nevalbot could not complete its check run ({}), so this one, created "
            "completed, takes its place.\n",
            Markdown(summary),
            why,
        )
        try:
            self.finish("failure", title=title, summary=instead, digest=digest)
            self._env.warning("created a completed check run in place of the one GitHub kept open")
        except Exception as error:
            self._env.error(
                f"could not create a completed check run either: {error}", title="evalbot"
            )


def _of(check: str, name: str) -> bool:
    """Whether a check (or status) named ``check`` is the comparison ``name``'s, on any base."""
    return check == name or check.startswith(f"{name} (base ")


def check_tickets(
    runs: Iterable[CheckRun], *, app_id: int | None, sha: str, name: str
) -> tuple[list[Ticket], list[str]]:
    """The check runs of the comparison ``name`` (on any base) that evalbot's App created on
    ``sha``, as tickets (any App's when ``app_id`` is unknown: more looks, never fewer), and
    what was ignored: the same names written by another App."""
    tickets: list[Ticket] = []
    ignored: list[str] = []
    for run in runs:
        if not _of(run.name or "", name):
            continue
        app, slug = (run.app.id, run.app.slug) if run.app else (None, None)
        if app_id is not None and app != app_id:
            ignored.append(
                f"check run {run.id} on {sha[:7]} was written by {slug or 'another'} "
                f"App ({app}), not evalbot's ({app_id}): ignored"
            )
            continue
        tickets.append(
            Ticket(
                id=run.id,
                sha=(run.head_sha or sha).lower(),
                running=run.status != "completed",
                started_at=run.started_at,
                digest=parse_digest(run.output.text if run.output else None),
                conclusion=run.conclusion,
                source=f"check run {run.id}",
            )
        )
    return tickets, ignored


def status_tickets(
    statuses: Iterable[CommitStatus], *, login: str, name: str, holdout: bool, sha: str
) -> list[Ticket]:
    """The commit statuses evalbot's user set on ``sha`` under the comparison's name, as
    tickets: each final status is paired with the pending one its run set first (whose id is
    the ticket); a pending one without a final one is a run in progress. A status carries no
    details: they live in evalbot's comment."""
    mine = [s for s in statuses if s.creator is not None and s.creator.login == login]
    ours = sorted((s for s in mine if _of(s.context or "", name)), key=lambda s: s.id)
    finals: list[tuple[CommitStatus, CommitStatus | None]] = []
    pending: list[CommitStatus] = []
    for status in ours:
        if status.state == "pending":
            pending.append(status)
        else:
            finals.append((pending.pop(0) if pending else status, status))
    finals += [(start, None) for start in pending]
    none = Digest(kind="none", look=placeholder(sha, holdout=holdout))
    return [
        Ticket(
            id=start.id,
            sha=sha.lower(),
            running=end is None,
            started_at=start.created_at,
            digest=none if end and (end.description or "").startswith(NO_VERDICT) else None,
            opaque=True,
            holdout=holdout,
            source=f"commit status {(end or start).id}",
        )
        for start, end in finals
    ]


# ---- the earlier looks at a change ------------------------------------------------------------


def earlier_looks(
    side: PullRequestSide, clock: Callable[[], datetime]
) -> tuple[State, str | None, int | None]:
    """The earlier looks at the change (see the module), the tree of the head commit and the
    id of evalbot's comment on the pull request; ``side`` holds this run's ticket."""
    gh, event, pull = side.gh, side.event, side.pull
    owner = pull.head_repo.split("/", 1)[0] if pull.head_repo else ""
    others = gh.list_pulls_of_head(owner, pull.head_ref) if owner and pull.head_ref else []
    pulls = [pull, *[p for p in others if p.number != pull.number and not p.merged]][:MAX_PULLS]
    head = event.head_sha.lower()
    trees: dict[str, str] = {}
    shas = [head]
    claims: list[Look] = []
    comments: dict[int, int | None] = {}
    uses, warnings = 0, []
    for each in pulls:
        commits = gh.list_pull_commits(each.number)
        if each.commits > len(commits):
            warnings.append(
                f"pull request #{each.number} has {each.commits} commits; GitHub lists "
                f"{len(commits)}, so the check runs of the older ones were not read"
            )
        trees.update((sha.lower(), tree) for sha, tree in commits)
        shas += [sha.lower() for sha, _ in reversed(commits)]
        own = side.own_comment(each.number)
        comments[each.number] = own.id if own is not None else None
        state = parse_state(own.body) if own is not None else State()
        claims += [replace(look, pull=look.pull or each.number) for look in state.looks]
        uses = max(uses, state.holdout_uses)
        if state.warning:
            warnings.append(f"#{each.number}: {state.warning}")
    ran_on, problem = _commits_the_workflow_ran_on(side, pulls)
    warnings += [problem] if problem else []
    before = [event.before.lower()] if event.before else []
    shas += before + [look.head_sha for look in claims] + ran_on
    tickets, ignored = _tickets(side, list(dict.fromkeys(shas)))
    mine = side.ticket
    if mine is not None and not any(t.id == mine for t in tickets):
        warnings.append(
            "this run's own check run was not listed by GitHub yet; the looks were counted "
            "without it"
        )
    claimed = State(looks=tuple(claims), holdout_uses=uses, warning="; ".join(warnings) or None)
    state = count_looks(tickets, mine=mine, claims=claimed, now=clock(), trees=trees)
    gone, problem = _gone(side, state, comments)
    warning = "; ".join(w for w in (state.warning, problem, *ignored) if w) or None
    state = replace(state, warning=warning, findings=(*state.findings, *gone))
    return state, trees.get(head), comments.get(pull.number)


def _tickets(side: PullRequestSide, shas: list[str]) -> tuple[list[Ticket], list[str]]:
    """The tickets evalbot's identity left on these commits: its check runs, or (a personal
    token) its commit statuses; and the records of the same names another App wrote."""
    s, identity, gh = side.settings, side.identity, side.gh
    tickets: list[Ticket] = []
    ignored: list[str] = []
    for sha in shas:
        if side.use_status:
            assert identity is not None
            tickets += status_tickets(
                gh.list_commit_statuses(sha),
                login=identity.login,
                name=s.name,
                holdout=s.holdout,
                sha=sha,
            )
        else:
            app_id = s.app_id or (identity.app_id if identity is not None else None)
            found, other = check_tickets(
                gh.list_check_runs(sha), app_id=app_id, sha=sha, name=s.name
            )
            tickets += found
            ignored += other
    return tickets, ignored


def _gone(
    side: PullRequestSide, state: State, comments: dict[int, int | None]
) -> tuple[list[str], str | None]:
    """Records the earlier looks name that are gone: the workflow run whose results a look
    judged (listed by its head commit), the comment a look was published in."""
    found = [
        f"evalbot's comment {look.comment} on #{look.pull}, where the look at "
        f"{look.head_sha[:7]} was published, is gone"
        for look in state.looks
        if look.comment is not None
        and look.pull in comments
        and comments[look.pull] != look.comment
    ]
    judged = {look.head_sha: look for look in state.looks if look.run is not None}
    for sha, look in judged.items():
        try:
            runs = side.gh.list_workflow_runs(None, None, None, head_sha=sha, limit=1000)
        except PublishError as error:
            return found, f"the runs of the earlier looks could not be listed ({error})"
        if look.run not in {listed.id for listed in runs}:
            found.append(
                f"the workflow run {look.run} whose results the look at {sha[:7]} judged is gone"
            )
    return found, None


def eval_workflow(settings: Settings, event: Event) -> str | int | None:
    """The eval's workflow, by its file (never its ``name:``, which a pull request's new
    workflow can copy): the triggering run's (``workflow_run``; its id when the payload names
    no file), else this run's."""
    if event.mode == "workflow_run":
        return (event.workflow_path or "").rsplit("/", 1)[-1] or event.workflow_id
    return settings.workflow_file


def _commits_the_workflow_ran_on(
    side: PullRequestSide, pulls: list[PullRequestInfo]
) -> tuple[list[str], str | None]:
    """The head commits the pull request's workflow ran on (newest first): with those
    force-pushed away, and those of runs going on right now, which a force push race can
    hide from both the pull request's commits and evalbot's comment. Best effort: the list
    needs ``actions: read``; without it the other sources stand, with a note."""
    pull, workflow = side.pull, eval_workflow(side.settings, side.event)
    if workflow is None or not pull.head_ref:
        return [], None
    try:
        runs = side.gh.list_workflow_runs(workflow, pull.head_ref, None, limit=100)
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
        and (found.head_repository.full_name if found.head_repository else "").lower()
        == pull.head_repo.lower()
        and (since is None or found.created_at is None or found.created_at >= since)
    ]
    return list(dict.fromkeys(shas)), None
