"""The story of one GitHub Actions run: from the event to one sticky comment and one check.

:func:`run_action` receives its IO adapters (a GitHub client, an :class:`ActionsEnv`, a
reader of the runner's files and a clock) as parameters; :mod:`evalbot.cli` builds the real
ones. The order matters:

1. decide the mode from the event (:mod:`evalbot.events`); ``skip`` ends here with a notice;
2. in pull request modes, find the pull request and check that its head is still the commit
   the results are for (a stale run posts nothing);
3. read ``.evalbot.yml`` at the PR's **base** commit, look the baseline up (none yet: neutral,
   before the candidate is even parsed), read the candidate (workspace or artifact of the
   triggering run) and the baseline, and pair them;
4. take a **ticket**: create the check run (with a personal token, a commit status) on the head
   sha, declaring the commit and the item set judged; then count the earlier looks from the
   check runs evalbot's own App created on the pull request's commits
   (:mod:`evalbot.ledger`), never from what commenters can write;
5. compute and decide (the CLI's pipeline, :mod:`evalbot.analysis`), render comment, check and
   job summary from one :func:`evalbot.report.build_view`;
6. publish: the completed check first (its digest is the look's record), then evalbot's own
   sticky comment (only comments evalbot wrote are read, edited or deleted), the job summary
   and the outputs.

Every failure after step 2 completes the check (failure) and writes the job summary: bad input
exits 2 and leaves the comment alone; an internal error exits 3. No baseline or an expired
artifact end *neutral* (exit 0); a verdict the plan refuses (another look, other items, a
baseline with another item set) fails the check unless ``gate.on_refused: neutral``. A fork's
read-only token leaves summary and outputs and a warning explaining the two-workflow setup.
"""

from __future__ import annotations

import contextlib
import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from evalbot import text as md
from evalbot.action_text import code as _code
from evalbot.action_text import config_diff as _config_diff
from evalbot.action_text import distinct_looks as _distinct
from evalbot.action_text import history_rows, no_baseline_message
from evalbot.actions_env import ActionsEnv
from evalbot.analysis import decide, prepare
from evalbot.baseline import Found, eligible_runs, search_runs
from evalbot.checks import (
    DOCS,
    FORK_WARNING,
    StatusPublisher,
    check_tickets,
    status_tickets,
)
from evalbot.compare import Comparison
from evalbot.config import Config, parse_config
from evalbot.errors import (
    EXIT_BAD_INPUT,
    EXIT_GATE_FAILED,
    EXIT_OK,
    ConfigError,
    EvalbotError,
    InputError,
    PairingError,
    PublishError,
)
from evalbot.events import PR_EVENTS, Event, parse_event
from evalbot.github_io import (
    ArtifactInfo,
    CheckRunInfo,
    CommentInfo,
    GitHubRequestError,
    PullRequestInfo,
    StatusInfo,
    WorkflowRunInfo,
)
from evalbot.ledger import Digest, Ticket, count_looks
from evalbot.limits import MAX_ARTIFACT_MEMBERS, MAX_COMMENT_CHARS
from evalbot.policy import Decision, next_state
from evalbot.render import (
    TemplateFolder,
    UserTemplate,
    render_check,
    render_comment,
    render_notice,
    render_summary,
)
from evalbot.report import Provenance, build_view, pvalue_output
from evalbot.results.model import Paired, Results
from evalbot.results.options import ReadOptions
from evalbot.results.pairing import fingerprint, pair
from evalbot.results.sources import merge, parse_zip
from evalbot.settings import ActionInputError, Settings
from evalbot.state import State, parse_state, render_state
from evalbot.text import Markdown

__all__ = [
    "Clock",
    "GitHubPort",
    "Workspace",
    "history_rows",
    "load_results_from_zip",
    "run_action",
]

#: Commits of a pull request whose check runs are read for the looks ledger (the newest; the
#: commits evalbot's comment names and the head are always read).
MAX_LEDGER_COMMITS = 100
#: Item ids the view keeps per list: the comment shows a few and counts the rest, the job
#: summary (up to 1 MiB) shows them all.
MAX_IDS = 2000


class GitHubPort(Protocol):
    """What the action needs from GitHub (:class:`evalbot.github_io.GitHubClient` is one)."""

    def get_pull(self, number: int) -> PullRequestInfo: ...

    def find_pull_for_head(
        self, head_sha: str, head_branch: str | None = None, head_owner: str | None = None
    ) -> PullRequestInfo | None: ...

    def list_pull_commits(self, number: int) -> list[str]: ...

    def authenticated_login(self) -> str: ...

    def list_comments(self, number: int) -> list[CommentInfo]: ...

    def upsert_sticky_comment(
        self, number: int, marker: str, body: str, *, author: str, author_type: str
    ) -> str: ...

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

    def list_check_runs(self, head_sha: str, name: str) -> list[CheckRunInfo]: ...

    def create_commit_status(
        self, sha: str, state: str, context: str, description: str, target_url: str | None = None
    ) -> StatusInfo: ...

    def list_commit_statuses(self, sha: str) -> list[StatusInfo]: ...

    def list_workflow_runs(
        self,
        workflow_id_or_file: str | int,
        branch: str,
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
    """What the action reads on the runner (:class:`evalbot.workspace.LocalWorkspace` is one):
    the event's payload, and result files named relative to the workspace (the files the plan
    names, ``all_ids`` among them, are read with the plan at its commit, never from here)."""

    def read_event(self) -> Mapping[str, Any]: ...

    def load_results(self, spec: str, options: ReadOptions) -> Results: ...


#: The time now, aware (UTC): when a look was taken, and how old a running ticket is.
Clock = Callable[[], datetime]


# ---- untrusted archives -------------------------------------------------------------------------


def load_results_from_zip(
    data: bytes, label: str, options: ReadOptions, *, max_total: int
) -> Results:
    """Every result file in an artifact's zip, parsed and merged.

    The archive is read in memory by :func:`evalbot.results.sources.parse_zip`, which refuses
    symbolic links, paths outside the archive, encrypted members, nested archives and zip
    bombs; here at most ``max_total`` uncompressed bytes (``EVALBOT_MAX_ARTIFACT_BYTES``) and
    :data:`evalbot.limits.MAX_ARTIFACT_MEMBERS` entries.
    """
    limited = replace(
        options, max_archive_bytes=max_total, max_archive_members=MAX_ARTIFACT_MEMBERS
    )
    return merge(parse_zip(label, data, limited), label)


# ---- outcomes ------------------------------------------------------------------------------------


class Neutral(Exception):
    """No verdict, for a reason that is nobody's mistake (no baseline yet, expired artifact)."""

    refused = False

    def __init__(self, title: Markdown, message: Markdown) -> None:
        super().__init__(message.plain)
        self.title = title
        self.message = message  # built with evalbot.text: what it quotes is escaped


class Refused(Neutral):
    """No verdict because of what someone did (the pull request changed the item set): the check
    fails unless the plan says ``gate.on_refused: neutral``."""

    refused = True


class Skip(Exception):
    """Nothing to publish (a stale run, no open pull request)."""


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
class Plan:
    """``.evalbot.yml`` as read at the base commit, and what the comment says about it."""

    config: Config
    notes: list[Markdown] = field(default_factory=list)
    config_change: str | None = None  # a unified diff when the pull request changes the file
    template: UserTemplate | None = None  # ``report.template``, read at the same commit


@dataclass(kw_only=True)
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


# ---- the run ---------------------------------------------------------------------------------


def run_action(
    settings: Settings,
    *,
    connect: Callable[[Settings], GitHubPort],
    env: ActionsEnv,
    files: Workspace,
    clock: Clock,
) -> int:
    """Run the action; returns the exit code. ``connect`` builds the GitHub client, ``files``
    reads the event's payload and the workspace, ``clock`` tells the time.

    An internal error (a bug) is re-raised after the check was completed and the summary
    written, so that :mod:`evalbot.cli` reports it and exits 3.
    """
    env.mask(settings.token)
    payload = files.read_event()
    event = parse_event(
        settings.event_name,
        payload,
        sha=settings.sha,
        ref=settings.ref,
        repository=settings.repository,
    )
    if event.mode == "skip":
        env.notice(f"evalbot: nothing to do: {event.skip_reason}", title="evalbot")
        env.add_summary(md.format("### evalbot: nothing to do\n\n{}\n", event.skip_reason))
        env.set_output("conclusion", "skipped")
        return EXIT_OK
    if not settings.repository:
        raise ActionInputError("GITHUB_REPOSITORY is not set (run evalbot inside GitHub Actions)")
    return _ActionRun(settings, event, connect(settings), env, files, clock).execute()


class _ActionRun:
    def __init__(
        self,
        settings: Settings,
        event: Event,
        gh: GitHubPort,
        env: ActionsEnv,
        files: Workspace,
        clock: Clock,
    ) -> None:
        self.s = settings
        self.event = event
        self.gh = gh
        self.env = env
        self.files = files
        self.clock = clock
        self.pull: PullRequestInfo | None = None  # workflow_run: the pull request found
        self.pull_now: PullRequestInfo | None = None  # the pull request as GitHub has it now
        self.status: StatusPublisher | None = None
        self.config: Config | None = None
        # writing to GitHub (the ticket, then the verdict): a refusal there is GitHub's, not the
        # input's, and ends the run with its own message (the CLI prints it) after the check
        self.writing = False

    # -- the story

    def execute(self) -> int:
        try:
            self._resolve_pull()
        except Skip as skip:
            self.env.notice(f"evalbot: nothing to publish: {skip}", title="evalbot")
            self.env.add_summary(md.format("### evalbot: nothing to publish\n\n{}\n", str(skip)))
            self.env.set_output("conclusion", "skipped")
            return EXIT_OK
        if self.event.on_pull_request:
            self.status = StatusPublisher(
                self.gh,
                self.env,
                sha=self.event.head_sha,
                name=self.s.name,
                details_url=self.s.run_url,
                fork=self.event.is_fork and self.event.mode == "pull_request",
            )
        try:
            return self._story()
        except Neutral as neutral:
            return self._publish_neutral(neutral)
        except PublishError as error:
            if not self.writing:
                return self._publish_failure(error)
            # GitHub refused part of the publishing (say the comment): do not leave the check
            # as it was; complete it as failure with the reason, then let the error end the run
            title = Markdown("evalbot could not publish its result")
            summary = md.format(
                "{}\n\nInputs, permissions and setup: {}\n", str(error), Markdown(DOCS)
            )
            self._fail_check(title, summary)
            with contextlib.suppress(OSError):
                self.env.add_summary(md.format("### ❌ {}\n\n{}", title, summary))
            self.env.set_output("conclusion", "failure")
            raise
        except EvalbotError as error:
            return self._publish_failure(error)
        except Exception as error:
            self._publish_internal_error(error)
            raise

    def _story(self) -> int:
        plan = self._load_plan()
        self.config = config = plan.config
        options = self._read_options(config)
        source = self._find_baseline()
        candidate = self._load_candidate(options)
        if source is None:
            self._summarise_only(candidate, plan.notes)
            return EXIT_OK
        baseline = self._load_baseline(source, options)
        paired = self._pair(baseline, candidate, config)
        head = self.event.head_sha.lower() if self.event.on_pull_request else None
        earlier = State()
        if self.status is not None and head is not None:
            declared = Digest(
                kind="start",
                head_sha=head,
                holdout=self.s.holdout,
                fingerprint=paired.fingerprint or fingerprint(list(paired.ids)),
                items=len(paired.ids),
            )
            self.writing = True
            self.status.start(declared)
            self.writing = False
            earlier = self._earlier_looks()
        comparison, decision = decide(
            paired, config, holdout=self.s.holdout, state=earlier, head_sha=head
        )
        at = self.clock().strftime("%Y-%m-%dT%H:%M:%SZ")
        new_state = next_state(earlier, comparison, decision, at=at)
        record = None
        if head is not None and len(new_state.looks) > len(earlier.looks):
            look = new_state.looks[-1]
            record = Digest(
                kind="look",
                head_sha=look.head_sha,
                holdout=look.holdout,
                fingerprint=look.fingerprint,
                items=look.items,
                look=look,
            )
        notes = [baseline.description, *plan.notes]
        if self.s.name != "evalbot":
            notes.append(md.format("Comparison {}.", _code(self.s.name)))
        verdict = Verdict(
            comparison=comparison,
            decision=decision,
            plan=plan,
            baseline=baseline,
            notes=notes,
            state=new_state,
            old=earlier,
            record=record,
        )
        rendered = self._render(verdict)
        self.writing = True
        return self._publish_verdict(verdict, rendered)

    def _resolve_pull(self) -> None:
        """Find the pull request and check that its head is still the commit the results are
        for: a run for an older head posts nothing (the run for the new head will)."""
        event = self.event
        if event.mode not in ("pull_request", "workflow_run"):
            return
        if event.pull_number is not None:
            pull = self.gh.get_pull(event.pull_number)
        else:
            owner = event.head_repo.split("/", 1)[0] if event.head_repo else None
            found = self.gh.find_pull_for_head(event.head_sha, event.head_ref, owner)
            if found is None:
                raise Skip(
                    f"no open pull request has head commit {event.head_sha[:12]} "
                    f"(the run {event.run_id} that produced the results)"
                )
            pull = found
        if pull.state != "open":
            raise Skip(f"pull request #{pull.number} is {pull.state}")
        if pull.head_sha.lower() != event.head_sha.lower():
            raise Skip(
                f"pull request #{pull.number} has moved on to {pull.head_sha[:12]}; these results "
                f"are for {event.head_sha[:12]}, so they are not posted (the run for the new "
                "head will post)"
            )
        self.pull_now = pull
        if event.mode == "workflow_run":
            self.pull = pull  # its base: the payload of a workflow_run may not name the pull

    # -- the earlier looks

    def _own_comment(self) -> CommentInfo | None:
        """evalbot's own sticky comment: the oldest comment with the marker written by evalbot's
        identity. Anyone can post the marker; only this one is read as state."""
        number = self._pull_number
        identity = self.status.identity if self.status is not None else None
        if number is None or identity is None:
            return None
        for comment in self.gh.list_comments(number):
            if (
                self.s.marker in comment.body
                and comment.author == identity.login
                and comment.author_type == identity.user_type
            ):
                return comment
        return None

    def _earlier_looks(self) -> State:
        """The earlier looks, from the ledger (see :mod:`evalbot.ledger`) and evalbot's own
        comment (which names the commits a force push took out of the pull request)."""
        assert self.status is not None
        own = self._own_comment()
        claims = parse_state(own.body) if own is not None else State()
        number = self._pull_number
        head = self.event.head_sha.lower()
        commits = self.gh.list_pull_commits(number) if number is not None else []
        warnings: list[str] = []
        if len(commits) > MAX_LEDGER_COMMITS:
            warnings.append(
                f"the pull request has {len(commits)} commits; the check runs of the newest "
                f"{MAX_LEDGER_COMMITS} (and of every commit evalbot's comment names) were read"
            )
            commits = commits[-MAX_LEDGER_COMMITS:]
        ran_on, problem = self._commits_the_workflow_ran_on()
        if problem:
            warnings.append(problem)
        shas = list(
            dict.fromkeys(
                [
                    head,
                    *(c.lower() for c in reversed(commits)),
                    *(lk.head_sha for lk in claims.looks),
                    *ran_on,
                ]
            )
        )
        identity = self.status.identity
        tickets: list[Ticket] = []
        for sha in shas:
            if self.status.use_status:
                assert identity is not None
                tickets += status_tickets(
                    self.gh.list_commit_statuses(sha),
                    login=identity.login,
                    name=self.s.name,
                    holdout=self.s.holdout,
                    sha=sha,
                )
            else:
                app_id = identity.app_id if identity is not None else None
                tickets += check_tickets(
                    self.gh.list_check_runs(sha, self.s.name), app_id=app_id, sha=sha
                )
        mine = self.status.ticket
        if mine is not None and not any(t.id == mine for t in tickets):
            warnings.append(
                "this run's own check run was not listed by GitHub yet; the looks were counted "
                "without it"
            )
        state = count_looks(tickets, mine=mine, claims=claims, now=self.clock())
        if warnings:
            joined = "; ".join([*warnings, *([state.warning] if state.warning else [])])
            state = replace(state, warning=joined)
        return state

    def _commits_the_workflow_ran_on(self) -> tuple[list[str], str | None]:
        """The head commits the pull request's workflow ran on (newest first): with those
        force-pushed away, and those of runs going on right now, which a force push race can
        hide from both the pull request's commits and evalbot's comment. Best effort: the list
        needs ``actions: read``; without it the other sources stand, with a note."""
        pull = self.pull_now
        workflow: str | int | None = (
            self.event.workflow_id if self.event.mode == "workflow_run" else None
        )
        if workflow is None:
            workflow = self.s.workflow_file
        if pull is None or workflow is None or not pull.head_ref:
            return [], None
        try:
            runs = self.gh.list_workflow_runs(
                workflow, pull.head_ref, None, limit=MAX_LEDGER_COMMITS
            )
        except PublishError as error:
            return [], (
                f"the runs of workflow {workflow} could not be listed ({error}); commits "
                "force-pushed away are known from evalbot's comment only"
            )
        shas = [
            run.head_sha.lower()
            for run in runs
            if run.event in PR_EVENTS
            and run.head_repo.lower() == pull.head_repo.lower()
            and (
                pull.created_at is None
                or run.created_at is None
                or run.created_at >= pull.created_at
            )
        ]
        return list(dict.fromkeys(shas)), None

    # -- pieces of the story

    @property
    def _base_sha(self) -> str | None:
        if self.pull is not None:
            return self.pull.base_sha
        return self.event.base_sha

    @property
    def _base_ref(self) -> str | None:
        if self.pull is not None:
            return self.pull.base_ref
        return self.event.base_ref

    @property
    def _pull_number(self) -> int | None:
        if self.pull is not None:
            return self.pull.number
        return self.event.pull_number

    def _load_plan(self) -> Plan:
        path = self.s.config
        notes: list[Markdown] = []
        ref = self._base_sha if self.event.on_pull_request else self.event.head_sha
        if not ref:
            raise ActionInputError("cannot tell which commit to read the config from")
        where = "the base commit" if self.event.on_pull_request else "this commit"
        text = self.gh.get_file_at_ref(path, ref)
        read_text = self._reader(path, ref)
        if text is None:
            config = Config()
            notes.append(
                md.format(
                    "No {} at {} {}: evalbot's defaults apply.",
                    _code(path),
                    Markdown(where),
                    _code(ref[:7]),
                )
            )
        else:
            config = parse_config(text, f"{path}@{ref[:7]}", read_text=read_text)
        change = None
        if self.event.on_pull_request and self.event.head_sha != ref:
            try:
                head_text = self.gh.get_file_at_ref(path, self.event.head_sha)
            except PublishError:
                head_text = text
            if head_text is None and self.event.is_fork:
                head_text = text  # a fork's commit may not be readable here: say nothing
            if head_text != text:
                change = _config_diff(path, text, head_text)
        template = None
        if config.report.template is not None:
            name = config.report.template
            try:
                template_text = read_text(name)
            except FileNotFoundError:
                raise ConfigError(
                    f"{path}@{ref[:7]}: `report.template` {name!r}: no such file at {where} "
                    "(it is read beside the config, inside the repository)"
                ) from None
            folder = posixpath.dirname(name)

            def beside(relative: str) -> str | None:
                """A file of the template's folder (``relative`` is checked: no ``..``)."""
                try:
                    return read_text(posixpath.join(folder, relative))
                except FileNotFoundError:
                    return None

            template = UserTemplate(
                name=f"{name}@{ref[:7]}", text=template_text, folder=TemplateFolder(beside)
            )
        return Plan(config=config, notes=notes, config_change=change, template=template)

    def _reader(self, config_path: str, ref: str) -> Callable[[str], str]:
        """``read_text`` for files the plan names (``all_ids``, ``policy.items_file``,
        ``holdout.ids_file``, ``report.template``):
        relative to the config's folder, read at the same commit, never outside the repository."""
        folder = posixpath.dirname(config_path)

        def read_text(name: str) -> str:
            path = posixpath.normpath(posixpath.join(folder, name))
            if posixpath.isabs(name) or path == ".." or path.startswith("../"):
                raise FileNotFoundError(name)
            text = self.gh.get_file_at_ref(path, ref)
            if text is None:
                raise FileNotFoundError(name)
            return text

        return read_text

    def _load_candidate(self, options: ReadOptions) -> Results:
        if self.event.mode == "workflow_run":
            if self.s.candidate:
                raise ActionInputError(
                    "in a workflow_run job evalbot never reads the pull request's files: give "
                    "input `candidate-artifact` (the artifact the triggering run uploaded), not "
                    "`candidate`"
                )
            if not self.s.candidate_artifact:
                raise ActionInputError(
                    "input `candidate-artifact` is required in a workflow_run job"
                )
            run_id = self.event.run_id
            assert run_id is not None
            artifact = self.gh.find_artifact(run_id, self.s.candidate_artifact)
            if artifact is None:
                raise InputError(
                    f"the triggering run {run_id} has no artifact named "
                    f"{self.s.candidate_artifact!r}: upload the results with "
                    "actions/upload-artifact under that name"
                )
            return self._artifact_results(artifact, "candidate", options)
        if self.s.candidate_artifact:
            raise ActionInputError(
                "input `candidate-artifact` only works in a workflow_run job; "
                "use `candidate` (a path in the workspace) here"
            )
        if not self.s.candidate:
            raise ActionInputError("input `candidate` is required: a path or glob of result files")
        return self.files.load_results(self.s.candidate, options)

    def _read_options(self, config: Config) -> ReadOptions:
        """How both sides are read. ``all_ids`` (the file naming every instance, for resolved-id
        lists) was read with the plan, relative to the config file at the same commit (like
        ``policy.items_file``), so the baseline and the candidate, from files or from artifacts,
        are read against the same ids, and a ``workflow_run`` job needs no checkout."""
        return config.read_options()

    def _artifact_results(self, artifact: ArtifactInfo, side: str, options: ReadOptions) -> Results:
        data = self.gh.download_artifact_zip(artifact, self.s.max_artifact_bytes)
        label = f"{side} artifact {artifact.name!r}"
        return load_results_from_zip(data, label, options, max_total=self.s.max_artifact_bytes)

    def _find_baseline(self) -> BaselineSource | None:
        """Where the baseline comes from, looked up before the candidate is parsed: the first
        pull request after installing evalbot has none yet, and that is neutral whatever the
        candidate holds. ``None`` when no baseline was asked for (push, dispatch)."""
        if self.s.baseline:
            return BaselineSource(
                description=md.format("Baseline: {}.", _code(self.s.baseline)),
                path=self.s.baseline,
            )
        if not self.s.baseline_artifact:
            if self.event.on_pull_request:
                raise ActionInputError(
                    "give input `baseline-artifact` (the artifact name your default branch's "
                    "workflow uploads) or `baseline` (a path in the workspace)"
                )
            return None
        return self._find_baseline_artifact(self.s.baseline_artifact)

    def _load_baseline(self, source: BaselineSource, options: ReadOptions) -> Baseline:
        if source.path is not None:
            results = self.files.load_results(source.path, options)
            return Baseline(results=results, description=source.description, from_artifact=False)
        assert source.artifact is not None
        return Baseline(
            results=self._artifact_results(source.artifact, "baseline", options),
            description=source.description,
            from_artifact=True,
            commit=source.commit,
            run_url=source.run_url,
        )

    def _find_baseline_artifact(self, name: str) -> BaselineSource:
        event = self.event
        workflow: str | int | None = self.s.baseline_workflow
        if workflow is None:
            workflow = event.workflow_id if event.mode == "workflow_run" else self.s.workflow_file
        if workflow is None:
            raise ActionInputError(
                "cannot tell which workflow uploads the baseline: set input `baseline-workflow` "
                "(its file name, e.g. evals.yml)"
            )
        if event.on_pull_request:
            branch, target = self._base_ref, self._base_sha
            at = "the base commit"
        else:
            branch, target = event.branch, event.head_sha
            at = "this commit"
        if not branch or not target:
            raise ActionInputError(
                "cannot tell the branch to take the baseline from (no base branch or GITHUB_REF)"
            )
        listed = self.gh.list_workflow_runs(
            workflow, branch, "success", limit=self.s.baseline_search_runs
        )
        runs = eligible_runs(
            listed,
            target=target,
            previous_only=not event.on_pull_request,  # push: the previous baseline
            own_run_id=self.s.run_id,
        )
        found = search_runs(
            runs,
            target=target,
            ancestry=lambda sha: self.gh.compare_commits(sha, target),
            artifact_of=lambda run: self.gh.find_artifact(run.id, name),
            max_compares=self.s.baseline_search_commits,
        )
        if isinstance(found, Found):
            run, artifact = found.run, found.artifact
            behind = (
                ""
                if found.behind == 0
                else f"{found.behind} commit{'s' if found.behind != 1 else ''} behind "
            )
            distance = md.format("{}{} {}", Markdown(behind), Markdown(at), _code(target[:7]))
            where = md.format(
                "run {} of {} at {}",
                md.link(run.id, run.html_url),
                _code(branch),
                _code(run.head_sha[:7]),
            )
            if artifact.expired:
                raise Neutral(
                    Markdown("Baseline artifact expired"),
                    md.format(
                        "The baseline artifact {} of {} has expired, so there is nothing to "
                        "compare with. Re-run that workflow (or push to {}) to upload a fresh "
                        "one, or raise its `retention-days`.",
                        _code(name),
                        where,
                        _code(branch),
                    ),
                )
            return BaselineSource(
                description=md.format(
                    "Baseline: artifact {} from {}, {}.", _code(name), where, distance
                ),
                artifact=artifact,
                commit=run.head_sha,
                run_url=run.html_url,
            )
        raise Neutral(
            *no_baseline_message(
                workflow=str(workflow),
                branch=branch,
                at=Markdown(at),
                target=target,
                name=name,
                listed=len(listed),
                eligible=len(runs),
                missing=found,
                max_runs=self.s.baseline_search_runs,
                max_commits=self.s.baseline_search_commits,
            ),
        )

    def _pair(self, baseline: Baseline, candidate: Results, config: Config) -> Paired:
        try:
            return prepare(baseline.results, candidate, config, holdout=self.s.holdout)
        except PairingError as error:
            if not baseline.from_artifact or not _item_sets_differ(baseline, candidate, config):
                raise
            raise Refused(
                Markdown("Baseline has another item set"),
                md.format(
                    "{} Its items differ from the candidate's, so the paired comparison is "
                    "refused: {}. This happens when the pull request changes the eval set: the "
                    "baseline matches again once the change is merged and the default branch "
                    "has run. Until then the check fails (a changed item set is a verdict the "
                    "plan refuses); `gate.on_refused: neutral` in the plan leaves it neutral "
                    "instead.",
                    baseline.description,
                    str(error),  # quotes ids and file names: escaped
                ),
            ) from None

    def _render(self, verdict: Verdict) -> Rendered:
        """The comment, the check's title and summary and the job summary, from one view;
        before anything is published (a user's template can fail)."""
        c, d = verdict.comparison, verdict.decision
        head = self.event.head_sha.lower()
        earlier = _distinct(look for look in verdict.state.looks if look.head_sha.lower() != head)
        candidate_run = self.s.run_url
        if self.event.mode == "workflow_run" and self.event.run_id is not None:
            candidate_run = (
                f"{self.s.server_url}/{self.s.repository}/actions/runs/{self.event.run_id}"
            )
        view = build_view(
            c,
            d,
            max_ids=MAX_IDS,
            item_url=verdict.plan.config.report.item_url,
            config=verdict.plan.config,
            config_change=verdict.plan.config_change,
            config_path=self.s.config,
            provenance=Provenance(
                baseline_commit=verdict.baseline.commit,
                baseline_run_url=verdict.baseline.run_url,
                candidate_commit=self.event.head_sha or None,
                candidate_run_url=candidate_run,
            ),
            history=history_rows(earlier, commit_url=self._commit_url),
            notes=verdict.notes,
        )
        template = verdict.plan.template
        comment = render_comment(
            view,
            marker=self.s.marker,
            state_block=render_state(verdict.state) if verdict.state.looks else "",
            max_chars=MAX_COMMENT_CHARS,
            template=template,
        )
        title, check_summary = render_check(view)
        return Rendered(
            comment=comment,
            check_title=title,
            check_summary=check_summary,
            summary=render_summary(view, template=template),
        )

    @property
    def _commit_url(self) -> str | None:
        if not self.s.repository:
            return None
        return f"{self.s.server_url}/{self.s.repository}/commit/"

    # -- publishing

    def _upsert(self, body: str) -> str:
        number = self._pull_number
        status = self.status
        if number is None or status is None or status.read_only or status.identity is None:
            return ""
        try:
            return self.gh.upsert_sticky_comment(
                number,
                self.s.marker,
                body,
                author=status.identity.login,
                author_type=status.identity.user_type,
            )
        except GitHubRequestError as error:
            if self.event.is_fork and self.event.mode == "pull_request" and error.status == 403:
                self.env.warning(FORK_WARNING, title="evalbot: read-only token")
                status.read_only = True
                return ""
            raise

    def _no_look(self) -> Digest:
        return Digest(kind="none", head_sha=self.event.head_sha.lower(), holdout=self.s.holdout)

    def _publish_verdict(self, verdict: Verdict, rendered: Rendered) -> int:
        c, d = verdict.comparison, verdict.decision
        # the check first: its digest is the look's record, whatever happens to the comment
        if self.status is not None:
            self.status.finish(
                d.conclusion,
                title=rendered.check_title,
                summary=rendered.check_summary,
                digest=verdict.record or self._no_look(),
            )
        comment_url = self._upsert(rendered.comment)
        summary = rendered.summary
        if self.status is not None and self.status.read_only:
            summary = f"> [!WARNING]\n> {FORK_WARNING}\n\n{summary}"
        self.env.add_summary(summary)
        ci = c.difference.confidence_interval
        outputs = {
            "verdict": d.outcome,
            "gate": d.gate,
            "p-value": pvalue_output(c.pvalue_detail),
            "difference": f"{c.difference.statistic:.6g}",
            "ci-low": f"{ci.low:.6g}",
            "ci-high": f"{ci.high:.6g}",
            "fixed": str(len(c.fixed_ids)),
            "broken": str(len(c.broken_ids)),
            "comment-url": comment_url,
            "conclusion": d.conclusion,
        }
        for key, value in outputs.items():
            self.env.set_output(key, value)
        self.env.info(f"evalbot: {rendered.check_title}")
        return EXIT_GATE_FAILED if d.gate == "fail" else EXIT_OK

    def _publish_neutral(self, neutral: Neutral) -> int:
        """No verdict: nothing to compare (neutral), or a refusal (failure by default)."""
        fail = neutral.refused and (self.config is None or self.config.gate.on_refused == "fail")
        conclusion = "failure" if fail else "neutral"
        title = md.format("evalbot: {}", self.s.name) if self.s.name != "evalbot" else "evalbot"
        headline = md.format("{} {}", Markdown("❌" if fail else "➖"), neutral.title)
        message = neutral.message
        if self.status is not None:
            self.status.finish(
                conclusion, title=neutral.title, summary=message, digest=self._no_look()
            )
        url = ""
        if self._pull_number is not None:
            own = self._own_comment()
            state = parse_state(own.body) if own is not None else State()
            # not a look: the earlier ones stay as they were (an unreadable block is kept as is)
            comment = render_notice(
                neutral.title,
                message,
                marker=self.s.marker,
                state_block=render_state(state) if state.looks else "",
                history=history_rows(_distinct(state.looks), commit_url=self._commit_url),
                max_chars=MAX_COMMENT_CHARS,
                failed=fail,
            )
            url = self._upsert(comment)
        if fail:
            self.env.error(message.plain, title=f"evalbot: {neutral.title.plain}")
        else:
            self.env.warning(message.plain, title=f"evalbot: {neutral.title.plain}")
        self.env.add_summary(md.format("## {}\n\n### {}\n\n{}\n", title, headline, message))
        for key in ("p-value", "difference", "ci-low", "ci-high", "fixed", "broken"):
            self.env.set_output(key, "")
        self.env.set_output("verdict", "inconclusive")
        self.env.set_output("gate", "fail" if fail else "pass")
        self.env.set_output("comment-url", url)
        self.env.set_output("conclusion", conclusion)
        return EXIT_GATE_FAILED if fail else EXIT_OK

    def _fail_check(self, title: str, summary: Markdown) -> None:
        """Complete the check as failure, keeping its record (a look already shown stays a
        look); an error on the way is annotated, never raised over the original one."""
        status = self.status
        if status is None:
            return
        digest = status.recorded if status.recorded is not None else self._no_look()
        try:
            status.finish("failure", title=title, summary=summary, digest=digest)
        except Exception as error:  # the original error says more
            self.env.error(f"could not complete the check: {error}", title="evalbot")

    def _publish_failure(self, error: EvalbotError) -> int:
        message = str(error)  # it quotes input: escaped in Markdown
        title = Markdown("evalbot could not compare: fix the input")
        summary = md.format(
            "### ❌ {}\n\n{}\n\nNothing was compared and the comment was left as it was. Fix "
            "the problem above and re-run. Inputs and setup: {}\n",
            title,
            message,
            Markdown(DOCS),
        )
        self.env.error(message, title="evalbot")
        self._fail_check(title, summary)
        self.env.add_summary(summary)
        self.env.set_output("verdict", "")
        self.env.set_output("gate", "fail")
        self.env.set_output("conclusion", "failure")
        return EXIT_BAD_INPUT

    def _publish_internal_error(self, error: BaseException) -> None:
        """A bug of evalbot's: complete the check and say so in the summary; the caller
        re-raises (the CLI prints one line and exits 3)."""
        what = f"{type(error).__name__}: {error}"
        if len(what) > 500:
            what = what[:499] + "…"
        title = Markdown("evalbot hit an internal error")
        summary = md.format(
            "### ❌ {}\n\n{}\n\nNothing was published as a verdict. This is a bug of evalbot, "
            "not of your setup: please report it (set `EVALBOT_DEBUG=1` for the traceback).\n",
            title,
            md.code_block(what, "text"),
        )
        self.env.error(f"internal error ({what})", title="evalbot")
        self._fail_check(title, summary)
        with contextlib.suppress(OSError):
            self.env.add_summary(summary)
        self.env.set_output("gate", "fail")
        self.env.set_output("conclusion", "failure")

    def _summarise_only(self, candidate: Results, notes: list[Markdown]) -> None:
        n = len(set(candidate.ids))
        if candidate.kind == "binary":
            rate = float(candidate.scores.mean()) if len(candidate) else 0.0
            line = f"pass rate {rate * 100:.1f} % over {n} items ({len(candidate)} rows)"
        else:
            mean = float(candidate.scores.mean()) if len(candidate) else 0.0
            line = f"mean score {mean:.3f} over {n} items ({len(candidate)} rows)"
        text = md.format("{} is valid: {}.", _code(self.s.candidate or ""), Markdown(line))
        extra = md.join("", (md.format("\n{}\n", note) for note in notes))
        self.env.add_summary(
            md.format(
                "## evalbot: {}\n\n{}\n\nNo baseline was asked for (input `baseline` or "
                "`baseline-artifact`), so nothing was compared.\n{}",
                self.s.name,
                text,
                extra,
            )
        )
        self.env.info(f"evalbot: {text.plain}")
        self.env.set_output("verdict", "")
        self.env.set_output("gate", "pass")
        self.env.set_output("conclusion", "validated")


def _item_sets_differ(baseline: Baseline, candidate: Results, config: Config) -> bool:
    """Whether the baseline and the candidate cannot be paired (another item set, another
    metric kind): asked only after the analysis refused with a :class:`PairingError`, to tell
    that apart from a refusal of the plan's own (say no holdout item in the results)."""
    try:
        pair(baseline.results, candidate, missing=config.policy.missing)
    except PairingError:
        return True
    return False
