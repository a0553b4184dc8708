"""The story of one GitHub Actions run: from the event to one sticky comment and one check.

:func:`run_action` gets its IO adapters (a GitHub client, the runner's files, a clock) as
parameters; :mod:`evalbot.cli` builds the real ones. It finds the pull requests to judge, reads
``.evalbot.yml`` at the base commit, looks the baseline up before the candidate is parsed,
takes a ticket (the check run) before reading the earlier looks, decides, and publishes the
check first, then evalbot's own comment, the job summary and the outputs. A run ends in one
outcome, a value: a reason to skip, a :class:`Neutral` or a :class:`Verdict`; errors complete
the check as failure. See docs/action.md.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import posixpath
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from evalbot.compare.records import Comparison
from evalbot.errors import (
    EXIT_BAD_INPUT,
    EXIT_GATE_FAILED,
    EXIT_OK,
    Cancelled,
    ConfigError,
    EvalbotError,
    InputError,
    PairingError,
    PublishError,
)
from evalbot.formats.archive import ArchiveBudget
from evalbot.formats.model import Paired, ReadOptions, Results
from evalbot.formats.sources import merge, parse_zip
from evalbot.github.baseline import Found, Search, find_baseline_run
from evalbot.github.checks import (
    FORK_WARNING,
    PullRequestSide,
    earlier_looks,
    eval_workflow,
)
from evalbot.github.client import ArtifactInfo, GitHubClient, PullRequestInfo
from evalbot.github.events import Event, parse_event
from evalbot.github.runner import ActionInputError, ActionsEnv, LocalWorkspace, Settings
from evalbot.limits import (
    MAX_ARTIFACT_MEMBERS,
    MAX_ARTIFACT_RATIO,
    MAX_COMMENT_CHARS,
    artifact_inflate_limit,
)
from evalbot.pairing.fingerprint import fingerprint
from evalbot.pairing.pair import pair
from evalbot.plan.config import Config, ReadText, parse_config
from evalbot.plan.ledger import Digest, Look, State, distinct_looks, parse_state, render_state
from evalbot.plan.policy import Decision, decide, next_state, prepare
from evalbot.report import text as md
from evalbot.report.docs import ACTION_DOCS as DOCS
from evalbot.report.numbers import (
    format_effect,
    format_pvalue,
    format_time,
    plural,
    pvalue_output,
)
from evalbot.report.render import (
    UserTemplate,
    render_check,
    render_comment,
    render_notice,
    render_summary,
)
from evalbot.report.sandbox import TemplateFolder
from evalbot.report.text import Markdown
from evalbot.report.view import OUTCOME_LABELS, HistoryRow, View, build_view, provenance_rows

#: The time now, aware (UTC): when a look was taken, and how old a running ticket is.
Clock = Callable[[], datetime]


@dataclass(frozen=True, kw_only=True)
class RunContext:
    """One run's givens: settings, event, IO ports and the pull request's side.

    ``side`` holds the pull request judged as GitHub has it now (both pull request modes) and
    writes the check run (a commit status with a personal token) on its head commit and
    evalbot's comment; ``None`` on a push or a dispatch. In a ``workflow_run`` job ``event``
    names that pull request, its number and its base (see :func:`run_action`).
    """

    settings: Settings
    event: Event
    gh: GitHubClient
    env: ActionsEnv
    files: LocalWorkspace  # the event's payload and result files (never the plan's files)
    clock: Clock
    side: PullRequestSide | None = None

    @property
    def candidate_run_url(self) -> str | None:
        """The run whose results are the candidate: the triggering run in a ``workflow_run``
        job (its payload always names it), else this one."""
        s, event = self.settings, self.event
        if event.mode == "workflow_run" and event.run_id is not None:
            return f"{s.server_url}/{s.repository}/actions/runs/{event.run_id}"
        return s.run_url

    def history(self, looks: list[Look]) -> list[HistoryRow]:
        """Earlier looks as the report's rows (:func:`history_rows`): their commits linked in
        this repository, a look given on another pull request than this one named."""
        s = self.settings
        commit_url = f"{s.server_url}/{s.repository}/commit/" if s.repository else None
        return history_rows(looks, commit_url=commit_url, pull=self.event.pull_number)


@dataclass(frozen=True)
class Neutral:
    """No verdict: nothing to compare with (no baseline yet, an expired artifact), a refusal
    (the pull request changed the item set) or a failed eval run. ``fails``: the check fails
    (:func:`no_baseline`; a refusal unless the plan says ``gate.on_refused: neutral``; a
    failed eval run whatever the plan says), else it is left neutral."""

    title: Markdown
    message: Markdown  # built with evalbot.report.text: what it quotes is escaped
    fails: bool


@dataclass(frozen=True, kw_only=True)
class Plan:
    """``.evalbot.yml`` as read at the base commit, and what the comment says about it."""

    config: Config
    notes: list[Markdown] = field(default_factory=list)
    config_change: str | None = None  # a unified diff when the pull request changes the file
    template: UserTemplate | None = None  # ``report.template``, read at the same commit
    blob: str | None = None  # the file's git blob sha (``None``: no file, evalbot's defaults)


@dataclass(frozen=True, kw_only=True)
class Baseline:
    """Where the baseline comes from, found before anything is parsed."""

    description: Markdown  # where it came from
    path: str = ""  # a workspace path (none: the artifact)
    artifact: ArtifactInfo | None = None
    commit: str | None = None
    run_url: str | None = None


@dataclass(frozen=True, kw_only=True)
class Verdict:
    comparison: Comparison
    decision: Decision
    plan: Plan
    baseline: Baseline
    state: State = field(default_factory=State)  # to carry in the comment after this run
    look: Look | None = None  # this look, recorded in the check run (a pull request's run)


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
        symbol, text = OUTCOME_LABELS.get(look.outcome, ("", look.outcome))
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


def load_plan(run: RunContext) -> Plan:
    """The plan at the base commit (a pull request) or this commit (a push), its notes, the
    pull request's change to it and the user's template."""
    event, path = run.event, run.settings.config
    ref = event.base_sha if event.on_pull_request else event.head_sha
    if not ref:
        raise ActionInputError("cannot tell which commit to read the config from")
    where = Markdown("the base commit" if event.on_pull_request else "this commit")
    text = run.gh.get_file_at_ref(path, ref)
    read_text = plan_reader(run.gh, path, ref)
    if text is None:
        config, blob = Config(), None
        notes = [
            md.format(
                "No {} at {} {}: evalbot's defaults apply.", md.code(path), where, md.code(ref[:7])
            )
        ]
    else:
        config, notes = parse_config(text, f"{path}@{ref[:7]}", read_text=read_text), []
        data = text.encode("utf-8")  # git's blob id of the file, as `git hash-object` gives it
        blob = hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
    change = _config_change(run, text, ref)
    template = _user_template(config, read_text, at=where, ref=ref)
    return Plan(config=config, notes=notes, config_change=change, template=template, blob=blob)


def plan_reader(gh: GitHubClient, config_path: str, ref: str) -> ReadText:
    """``read_text`` for files the plan names (``all_ids``, ``policy.items_file``,
    ``holdout.ids_file``, ``report.template``):
    relative to the config's folder, read at the same commit, never outside the repository."""
    folder = posixpath.dirname(config_path)

    def read_text(name: str) -> str:
        path = posixpath.normpath(posixpath.join(folder, name))
        if posixpath.isabs(name) or path == ".." or path.startswith("../"):
            raise FileNotFoundError(name)
        text = gh.get_file_at_ref(path, ref)
        if text is None:
            raise FileNotFoundError(name)
        return text

    return read_text


def _config_change(run: RunContext, text: str | None, ref: str) -> str | None:
    """A unified diff when the pull request's head changes the config read at ``ref`` (the
    report fences it)."""
    event, path = run.event, run.settings.config
    if not event.on_pull_request or event.head_sha == ref:
        return None
    try:
        head_text = run.gh.get_file_at_ref(path, event.head_sha)
    except PublishError:
        head_text = text
    if head_text is None and event.is_fork:
        head_text = text  # a fork's commit may not be readable here: say nothing
    if head_text == text:
        return None
    lines = difflib.unified_diff(
        (text or "").splitlines(),
        (head_text or "").splitlines(),
        fromfile=f"{path} ({'base' if text is not None else 'not at the base'})",
        tofile=f"{path} ({'this' if head_text is not None else 'deleted by this'} pull request)",
        lineterm="",
    )
    return "\n".join(lines) + "\n"


def _user_template(
    config: Config, read_text: ReadText, *, at: str, ref: str
) -> UserTemplate | None:
    """``report.template``, read beside the config at the same commit (and the files of its
    folder it includes); a missing one is an error naming the config (``config.source``)."""
    name = config.report.template
    if name is None:
        return None
    try:
        template_text = read_text(name)
    except FileNotFoundError:
        raise ConfigError(
            f"{config.source}: `report.template` {name!r}: no such file at {at} "
            "(it is read beside the config, inside the repository)"
        ) from None
    folder = posixpath.dirname(name)

    def beside(relative: str) -> str | None:
        """A file of the template's folder (``relative`` is checked: no ``..``)."""
        try:
            return read_text(posixpath.join(folder, relative))
        except FileNotFoundError:
            return None

    return UserTemplate(name=f"{name}@{ref[:7]}", text=template_text, folder=TemplateFolder(beside))


def load_results_from_zip(
    data: bytes, label: str, options: ReadOptions, *, max_total: int
) -> Results:
    """Every result file in an artifact's zip, parsed and merged.

    The archive is read in memory by :func:`evalbot.formats.sources.parse_zip`, which refuses
    symbolic links, paths outside the archive, encrypted members, nested archives and zip
    bombs; here it inflates to at most :func:`evalbot.limits.artifact_inflate_limit` bytes
    (proportional to the zip's size, within ``max_total``: ``EVALBOT_MAX_ARTIFACT_BYTES``) in
    at most :data:`evalbot.limits.MAX_ARTIFACT_MEMBERS` entries.
    """
    limit = artifact_inflate_limit(len(data), max_total)
    why = ""
    if limit < max_total:
        why = (
            f", the most a zip of {len(data)} bytes may hold ({MAX_ARTIFACT_RATIO} times its "
            "size, at least 1 MiB: real result files compress far less)"
        )
    budget = ArchiveBudget(max_bytes=limit, max_members=MAX_ARTIFACT_MEMBERS, why=why)
    return merge(parse_zip(label, data, replace(options, archive_budget=budget)))


def _artifact_results(
    run: RunContext, artifact: ArtifactInfo, side: str, options: ReadOptions
) -> Results:
    limit = run.settings.max_artifact_bytes
    data = run.gh.download_artifact_zip(artifact, limit)
    label = f"{side} artifact {artifact.name!r}"
    return load_results_from_zip(data, label, options, max_total=limit)


def load_candidate(run: RunContext, options: ReadOptions) -> Results:
    """The candidate: the triggering run's artifact in a ``workflow_run`` job, else the
    workspace's files."""
    s = run.settings
    if run.event.mode == "workflow_run":
        if s.candidate:
            raise ActionInputError(
                "in a workflow_run job evalbot never reads the pull request's files: give "
                "input `candidate-artifact` (the artifact the triggering run uploaded), not "
                "`candidate`"
            )
        if not s.candidate_artifact:
            raise ActionInputError("input `candidate-artifact` is required in a workflow_run job")
        run_id = run.event.run_id
        assert run_id is not None
        artifact = run.gh.find_artifact(run_id, s.candidate_artifact)
        if artifact is None:
            raise InputError(
                f"the triggering run {run_id} has no artifact named "
                f"{s.candidate_artifact!r}: upload the results with "
                "actions/upload-artifact under that name"
            )
        return _artifact_results(run, artifact, "candidate", options)
    if s.candidate_artifact:
        raise ActionInputError(
            "input `candidate-artifact` only works in a workflow_run job; "
            "use `candidate` (a path in the workspace) here"
        )
    if not s.candidate:
        raise ActionInputError("input `candidate` is required: a path or glob of result files")
    return run.files.load_results(s.candidate, options)


def find_baseline(run: RunContext, config: Config) -> Baseline | Neutral | None:
    """Where the baseline comes from, looked up before the candidate is parsed. ``None`` when
    no baseline was asked for (push, dispatch). An artifact is that of the newest eligible run
    of the baseline's workflow (``baseline-workflow``, else the eval's:
    :func:`evalbot.github.checks.eval_workflow`) at (or nearest behind) the target commit;
    none found, or expired, is :class:`Neutral`."""
    s = run.settings
    if s.baseline:
        return Baseline(
            description=md.format("Baseline: {}.", md.code(s.baseline)), path=s.baseline
        )
    if not s.baseline_artifact:
        if run.event.on_pull_request:
            raise ActionInputError(
                "give input `baseline-artifact` (the artifact name your default branch's "
                "workflow uploads) or `baseline` (a path in the workspace)"
            )
        return None
    event = run.event  # a pull request's base, or (a push) this commit: its previous baseline
    branch, target = (
        (event.base_ref, event.base_sha)
        if event.on_pull_request
        else (event.branch, event.head_sha)
    )
    if not branch or not target:
        raise ActionInputError(
            "cannot tell the branch to take the baseline from (no base branch or GITHUB_REF)"
        )
    workflow = s.baseline_workflow or eval_workflow(s, run.event)
    if workflow is None:
        raise ActionInputError(
            "cannot tell which workflow uploads the baseline: set input `baseline-workflow` "
            "(its file name, e.g. evals.yml)"
        )
    search = Search(
        settings=s,
        workflow=workflow,
        branch=branch,
        target=target,
        at="the base commit" if event.on_pull_request else "this commit",
        name=s.baseline_artifact,
        previous_only=not event.on_pull_request,
    )
    found = find_baseline_run(run.gh, search)
    if isinstance(found, Found):
        return _found_source(run, config, found, search)
    return no_baseline(run, config, *found)


def no_baseline(run: RunContext, config: Config, title: Markdown, message: Markdown) -> Neutral:
    """Nothing to compare with: on a pull request the check fails, so that no baseline is
    never a way past a required check, unless the plan says ``gate.on_no_baseline: neutral``
    (the failing check says so)."""
    fails = run.event.on_pull_request and config.gate.on_no_baseline == "fail"
    if fails:
        message = md.format(
            "{} Until then the check fails, so that a pull request without a baseline is "
            "never a way past a required check ({} in the plan leaves it neutral).",
            message,
            md.code("gate.on_no_baseline: neutral"),
        )
    return Neutral(title, message, fails)


def _found_source(
    run: RunContext, config: Config, found: Found, search: Search
) -> Baseline | Neutral:
    """The artifact found, described (which run, how far behind the target); an expired one
    leaves nothing to compare with."""
    where = md.format(
        "run {} of {} at {}",
        md.link(found.run.id, found.run.html_url),
        md.code(search.branch),
        md.code(found.run.head_sha[:7]),
    )
    if found.artifact.expired:
        return no_baseline(
            run,
            config,
            Markdown("Baseline artifact expired"),
            md.format(
                "The baseline artifact {} of {} has expired, so there is nothing to "
                "compare with. Re-run that workflow (or push to {}) to upload a fresh "
                "one, or raise its `retention-days`.",
                md.code(search.name),
                where,
                md.code(search.branch),
            ),
        )
    behind = f"{found.behind} {plural(found.behind, 'commits')} behind " if found.behind else ""
    distance = md.format(
        "{}{} {}", Markdown(behind), Markdown(search.at), md.code(search.target[:7])
    )
    return Baseline(
        description=md.format(
            "Baseline: artifact {} from {}, {}.", md.code(search.name), where, distance
        ),
        artifact=found.artifact,
        commit=found.run.head_sha,
        run_url=found.run.html_url,
    )


def pair_sides(
    run: RunContext, baseline: Baseline, results: Results, candidate: Results, config: Config
) -> Paired | Neutral:
    """The two sides paired (the analysis' items): a baseline artifact with another item set
    than the candidate's is a refusal (the pull request changed the eval set)."""
    try:
        return prepare(results, candidate, config, holdout=run.settings.holdout)
    except PairingError as error:
        if baseline.artifact is None:
            raise
        try:  # the sides pair: the refusal is the plan's own (say no holdout item)
            pair(results, candidate, missing=config.policy.missing)
        except PairingError:  # another item set, or another metric kind
            return Neutral(
                Markdown("Baseline has another item set"),
                md.format(
                    "{} Its items differ from the candidate's, so the paired comparison is "
                    "refused: {}. The pull request changes the eval set: the baseline matches "
                    "once the change is merged and the default branch has run. Until then the "
                    "check fails; `gate.on_refused: neutral` in the plan leaves it neutral.",
                    baseline.description,
                    str(error),  # quotes ids and file names: escaped
                ),
                fails=config.gate.on_refused == "fail",
            )
        raise


def run_action(
    settings: Settings,
    *,
    connect: Callable[[Settings], GitHubClient],
    env: ActionsEnv,
    files: LocalWorkspace,
    clock: Clock,
) -> int:
    """Run the action; returns the exit code. ``connect`` builds the GitHub client, ``files``
    reads the event's payload and the workspace, ``clock`` tells the time.

    An internal error (a bug) is re-raised after the check was completed and the summary
    written, so that :mod:`evalbot.cli` reports it and exits 3.
    """
    env.mask(settings.token)
    event = parse_event(
        settings.event_name,
        files.read_event(),
        sha=settings.sha,
        ref=settings.ref,
        repository=settings.repository,
    )
    if event.mode == "skip":
        return _skipped(env, "nothing to do", event.skip_reason or "")
    if not settings.repository:
        raise ActionInputError("GITHUB_REPOSITORY is not set (run evalbot inside GitHub Actions)")
    gh = connect(settings)
    targets = resolve_pulls(gh, event)
    if isinstance(targets, str):  # nothing to publish: a stale run, no open pull request
        return _skipped(env, "nothing to publish", targets)
    code = EXIT_OK
    cancelled: Cancelled | None = None
    for pull in targets:  # a workflow_run judges every open pull request of its head
        judged = event
        if event.mode == "workflow_run" and pull is not None:  # its payload may not name it
            judged = replace(
                event, pull_number=pull.number, base_sha=pull.base_sha, base_ref=pull.base_ref
            )
        run = RunContext(settings=settings, event=judged, gh=gh, env=env, files=files, clock=clock)
        if pull is not None:
            run = replace(run, side=PullRequestSide(gh, env, settings, event=judged, pull=pull))
        try:
            if cancelled is None:  # else stopped while judging an earlier one: not judged at all
                code = max(code, _Story(run).settle())
                continue
        except Cancelled as stop:  # also while a failure was being published
            cancelled = stop
        code = max(code, publish_cancelled(run, cancelled))
    return code


def _skipped(env: ActionsEnv, what: str, reason: str) -> int:
    env.notice(f"evalbot: {what}: {reason}", title="evalbot")
    env.add_summary(md.format("### evalbot: {}\n\n{}\n", Markdown(what), reason))
    env.set_output("conclusion", "skipped")
    return EXIT_OK


def _moved_on(pull: PullRequestInfo, event: Event) -> str | None:
    """Why ``pull`` is not judged with these results: closed, or its head has moved on."""
    if pull.state != "open":
        return f"pull request #{pull.number} is {pull.state}"
    if pull.head_sha.lower() != event.head_sha.lower():
        return (
            f"pull request #{pull.number} has moved on to {pull.head_sha[:12]}; these results "
            f"are for {event.head_sha[:12]}, so they are not posted (the run for the new head "
            "will post)"
        )
    return None


def resolve_pulls(gh: GitHubClient, event: Event) -> Sequence[PullRequestInfo | None] | str:
    """The pull requests a run judges, each checked to have the commit the results are for as
    its head (a run for an older head posts nothing: the run for the new head will). A
    ``pull_request`` run judges its own; a ``workflow_run`` every open one with that head, each
    against its own base, so that no pull request chooses the plan another is judged by; none:
    why not."""
    if not event.on_pull_request:
        return [None]
    pulls: dict[int, PullRequestInfo] = {}
    if event.mode == "workflow_run":
        owner = event.head_repo.split("/", 1)[0] if event.head_repo else None
        found = gh.find_pulls_for_head(event.head_sha, event.head_ref, owner)
        pulls = {pull.number: pull for pull in found}
    if event.pull_number is not None and event.pull_number not in pulls:
        # a pull_request run's own; a workflow_run's, to say why it is not judged
        pulls[event.pull_number] = gh.get_pull(event.pull_number)
    problems = [_moved_on(pull, event) for pull in pulls.values()]
    targets = [p for p, why in zip(pulls.values(), problems, strict=True) if not why]
    if not targets:
        return next((why for why in problems if why), None) or (
            f"no open pull request has head commit {event.head_sha[:12]} (the run "
            f"{event.run_id} that produced the results)"
        )
    return sorted(targets, key=lambda pull: pull.number)


class _Story:
    """Steps 3 to 6 of one run, and where each failure ends: what the story has learnt so far
    (the plan; whether it is writing to GitHub) decides how a failure is published."""

    def __init__(self, run: RunContext) -> None:
        self.run = run
        # writing to GitHub (the ticket, then the verdict): a refusal there is GitHub's, not the
        # input's, and ends the run with its own message (the CLI prints it) after the check
        self.writing = False

    def settle(self) -> int:
        run = self.run
        try:
            outcome = self._tell()
        except EvalbotError as error:
            message = str(error)  # it quotes input: escaped in Markdown
            if not (self.writing and isinstance(error, PublishError)):
                advice = md.format(
                    "{}\n\nNothing was compared and the comment was left as it was. Fix the "
                    "problem above and re-run. Inputs and setup: {}",
                    message,
                    Markdown(DOCS),
                )
                publish_failed(run, "evalbot could not compare: fix the input", advice, log=message)
                return EXIT_BAD_INPUT
            advice = md.format("{}\n\nInputs, permissions and setup: {}", message, Markdown(DOCS))
            publish_failed(run, "evalbot could not publish its result", advice, log=None)
            raise
        except Exception as error:  # a bug of evalbot's: the CLI prints one line and exits 3
            what = f"{type(error).__name__}: {error}"
            what = what if len(what) <= 500 else what[:499] + "…"
            message = md.format(
                "{}\n\nNothing was published as a verdict. This is a bug of evalbot, not of "
                "your setup: please report it (set `EVALBOT_DEBUG=1` for the traceback).",
                md.code_block(what, "text"),
            )
            publish_failed(
                run, "evalbot hit an internal error", message, log=f"internal error ({what})"
            )
            raise
        return outcome if isinstance(outcome, int) else publish_neutral(run, outcome)

    def _tell(self) -> int | Neutral:
        run = self.run
        if run.event.failed is not None:
            return _eval_failed(run)
        plan = load_plan(run)
        config = plan.config
        # how both sides are read: ``all_ids`` was read with the plan, at its commit, so the
        # baseline and the candidate, from files or artifacts, are read against the same ids
        # (and a ``workflow_run`` job needs no checkout)
        options = config.read_options()
        baseline = find_baseline(run, config)
        if isinstance(baseline, Neutral):
            return baseline
        candidate = load_candidate(run, options)
        if baseline is None:
            summarise_only(run, candidate, plan.notes)
            return EXIT_OK
        if baseline.artifact is not None:
            results = _artifact_results(run, baseline.artifact, "baseline", options)
        else:
            results = run.files.load_results(baseline.path, options)
        paired = pair_sides(run, baseline, results, candidate, config)
        if isinstance(paired, Neutral):
            return paired
        ticket: tuple[State, str | None, int | None] = (State(), None, None)  # no looks
        if run.side is not None:  # a pull request: the check run declares the item set judged,
            self.writing = True  # then the earlier looks are read, this run's ticket among them
            run.side.start(paired.fingerprint or fingerprint(list(paired.ids)), len(paired.ids))
            self.writing = False
            ticket = earlier_looks(run.side, run.clock)
        verdict = _judge(run, paired, plan=plan, baseline=baseline, ticket=ticket)
        self.writing = True
        return publish_verdict(run, verdict)


def _eval_failed(run: RunContext) -> Neutral:
    """The failing check of a ``workflow_run`` whose triggering run failed: no results."""
    event = run.event
    return Neutral(
        Markdown("The eval run failed"),
        md.format(
            "The eval's run {} for {} concluded {}, so there are no results to compare. Fix "
            "the eval and push again (or re-run it): the check fails until a run succeeds, so "
            "that a required check does not wait forever.",
            md.link(event.run_id or 0, run.candidate_run_url),
            md.code(event.head_sha[:7]),
            md.code(event.failed or "unknown"),
        ),
        fails=True,
    )


def _judge(
    run: RunContext,
    paired: Paired,
    *,
    plan: Plan,
    baseline: Baseline,
    ticket: tuple[State, str | None, int | None],
) -> Verdict:
    """Compare and decide (the CLI's pipeline), and this look's record: the change (its tree),
    the pull request, the base and the plan it was judged against, the run judged. ``ticket``
    is what taking it read: the earlier looks, the head's tree and evalbot's comment. The notes
    on what was judged are the view's (:func:`verdict_view`)."""
    earlier, tree, comment = ticket
    s, config, event = run.settings, plan.config, run.event
    head = event.head_sha.lower() if event.on_pull_request else None
    comparison, decision = decide(
        paired, config, holdout=s.holdout, state=earlier, head_sha=head, tree=tree
    )
    at = run.clock().strftime("%Y-%m-%dT%H:%M:%SZ")
    new_state = next_state(earlier, comparison, decision, at=at)
    look = None
    if head is not None:  # next_state added a look: this one
        look = replace(
            new_state.looks[-1],
            pull=run.event.pull_number,
            base_ref=run.event.base_ref,
            base_sha=run.event.base_sha,
            plan=plan.blob,
            run=event.run_id if event.mode == "workflow_run" else s.run_id,
            comment=comment,
        )
        new_state = replace(new_state, looks=(*new_state.looks[:-1], look))
    return Verdict(
        comparison=comparison,
        decision=decision,
        plan=plan,
        baseline=baseline,
        state=new_state,
        look=look,
    )


def _judged_against(run: RunContext, plan: Plan, check: str) -> Markdown:
    """What the verdict is about: the base and the plan read there, and the check's name."""
    what = (
        md.format("the plan {} (blob {})", md.code(run.settings.config), md.code(plan.blob[:7]))
        if plan.blob
        else Markdown("evalbot's default plan")
    )
    return md.format(
        "Judged against the base {} at {} under {}; the check {} stands for this base only.",
        md.code(run.event.base_ref or ""),
        md.code((run.event.base_sha or "")[:7]),
        what,
        md.code(check),
    )


#: Item ids the view keeps per list: the comment shows a few and counts the rest, the job
#: summary (up to 1 MiB) shows them all.
MAX_IDS = 2000


def verdict_view(run: RunContext, verdict: Verdict) -> View:
    """The view the comment, the check and the job summary are rendered from, with its notes:
    where the baseline came from, the plan's, what the verdict was judged against."""
    s, event, plan = run.settings, run.event, verdict.plan
    head = verdict.look.change if verdict.look else event.head_sha.lower()
    earlier = distinct_looks(look for look in verdict.state.looks if look.change != head)
    notes = [verdict.baseline.description, *plan.notes]
    if run.side is not None:  # a pull request
        notes.append(_judged_against(run, plan, run.side.name))
    if s.name != "evalbot":
        notes.append(md.format("Comparison {}.", md.code(s.name)))
    return build_view(
        verdict.comparison,
        verdict.decision,
        max_ids=MAX_IDS,
        item_url=plan.config.report.item_url,
        config_change=plan.config_change,
        config_path=s.config,
        provenance=provenance_rows(
            ("baseline", verdict.baseline.commit, verdict.baseline.run_url),
            ("candidate", event.head_sha or None, run.candidate_run_url),
        ),
        history=run.history(earlier),
        notes=notes,
    )


def _says(*what: object) -> str:
    """The hidden line naming what a comment says (``what``: its kind, the conclusion, the
    verdict, the broken items): with ``comment: on-change`` a comment that already carries it
    is left as it is."""
    digest = hashlib.sha256(json.dumps(what).encode("utf-8")).hexdigest()
    return f"<!-- evalbot-says:v1 {digest} -->"


def _hidden(state: State, says: str) -> str:
    """What a comment carries unseen: the looks' state block, then what it says."""
    return f"{render_state(state)}\n{says}" if state.looks else says


def _outputs(run: RunContext, **outputs: str) -> None:
    """The step's outputs, in order (``p_value`` is output ``p-value``)."""
    for key, value in outputs.items():
        run.env.set_output(key.replace("_", "-"), value)


def publish_verdict(run: RunContext, verdict: Verdict) -> int:
    """The comment, the check's title and summary and the job summary rendered from one view
    before anything is published (a user's template can fail); then the check (first: its
    digest is the look's record), the comment, the job summary and the outputs; the exit code
    of the gate."""
    c, d, side, template = verdict.comparison, verdict.decision, run.side, verdict.plan.template
    view = verdict_view(run, verdict)
    says = _says("verdict", d.conclusion, d.outcome, d.gate, sorted(c.broken_ids))
    text = render_comment(
        view,
        marker=run.settings.marker,
        state_block=_hidden(verdict.state, says),
        max_chars=MAX_COMMENT_CHARS,
        template=template,
    )
    title, check_summary = render_check(view)
    summary = render_summary(view, template=template)
    finish = {"title": title, "summary": check_summary}
    comment, look = None, verdict.look
    if side is not None:
        assert look is not None  # a pull request's run is a look
        side.finish(d.conclusion, digest=Digest(kind="look", look=look), **finish)
        comment = side.comment(text, says)
        if not side.use_status and comment and look.comment != comment.id:
            try:  # the record names the comment it was published in
                named = Digest(kind="look", look=replace(look, comment=comment.id))
                side.finish(d.conclusion, digest=named, **finish)
            except EvalbotError as error:
                run.env.warning(f"the check's record does not name the comment ({error})")
        if side.read_only:
            summary = f"> [!WARNING]\n> {FORK_WARNING}\n\n{summary}"
    run.env.add_summary(summary)
    ci = c.difference.confidence_interval
    _outputs(
        run,
        verdict=d.outcome,
        gate=d.gate,
        p_value=pvalue_output(c.pvalue),
        difference=f"{c.difference.statistic:.6g}",
        ci_low=f"{ci.low:.6g}",
        ci_high=f"{ci.high:.6g}",
        fixed=str(len(c.fixed_ids)),
        broken=str(len(c.broken_ids)),
        comment_url=comment.html_url if comment is not None else "",
        conclusion=d.conclusion,
    )
    run.env.info(f"evalbot: {title}")
    return EXIT_GATE_FAILED if d.gate == "fail" else EXIT_OK


def publish_neutral(run: RunContext, neutral: Neutral) -> int:
    """No verdict: nothing to compare, a refusal or a failed eval run; the check fails or is
    neutral as :attr:`Neutral.fails` says. The comment says why there is no verdict; it is not
    a look: the earlier ones stay as they were (an unreadable block is kept as is)."""
    fail, title, message = neutral.fails, neutral.title, neutral.message
    conclusion = "failure" if fail else "neutral"
    comment, side = None, run.side
    if side is not None:
        side.finish(conclusion, title=title, summary=message, digest=side.no_look())
        if run.settings.comment != "never":  # the notice reads the comment it replaces
            own = side.own_comment()
            state = parse_state(own.body) if own is not None else State()
            says = _says("notice", fail, title.plain)
            notice = render_notice(
                title,
                message,
                marker=run.settings.marker,
                state_block=_hidden(state, says),
                history=run.history(distinct_looks(state.looks)),
                max_chars=MAX_COMMENT_CHARS,
                failed=fail,
            )
            comment = side.comment(notice, says)
    url = comment.html_url if comment is not None else ""
    report = run.env.error if fail else run.env.warning
    report(message.plain, title=f"evalbot: {title.plain}")
    name = run.settings.name
    heading = md.format("evalbot: {}", name) if name != "evalbot" else "evalbot"
    headline = md.format("{} {}", Markdown("❌" if fail else "➖"), title)
    run.env.add_summary(md.format("## {}\n\n### {}\n\n{}\n", heading, headline, message))
    empty = dict.fromkeys(("p_value", "difference", "ci_low", "ci_high", "fixed", "broken"), "")
    _outputs(run, **empty, verdict="inconclusive", gate="fail" if fail else "pass")
    _outputs(run, comment_url=url, conclusion=conclusion)
    return EXIT_GATE_FAILED if fail else EXIT_OK


def publish_failed(
    run: RunContext, title: str, message: Markdown, *, log: str | None, conclusion: str = "failure"
) -> None:
    """No verdict: bad input, GitHub refusing to publish, a stop signal (``conclusion``
    ``cancelled``) or a bug of evalbot's. The check is completed as ``conclusion`` (a stopped
    run's only if it does not carry the result already), the summary says what happened and
    what to do, ``log`` is annotated (``None``: the CLI prints the error); the comment stays as
    it was."""
    summary = md.format("### ❌ {}\n\n{}\n", Markdown(title), message)
    if log is not None:
        run.env.error(log, title="evalbot")
    if run.side is not None and (conclusion != "cancelled" or not run.side.completed):
        run.side.fail(title, summary, conclusion=conclusion)
    with contextlib.suppress(OSError):
        run.env.add_summary(summary)
    _outputs(run, gate="fail", conclusion=conclusion)


def publish_cancelled(run: RunContext, cancelled: Cancelled) -> int:
    """SIGTERM or SIGINT (a cancelled job, a newer run of its concurrency group)."""
    name = signal.Signals(cancelled.signum).name
    done = run.side is not None and run.side.completed
    message = md.format(
        "The job got {} (cancelled, or replaced by a newer run of its concurrency group) "
        "before evalbot {}. Re-run the job for a verdict.",
        name,
        Markdown("had updated its comment" if done else "had published a verdict"),
    )
    title = "evalbot was stopped before it finished"
    log = f"stopped by {name} before the run finished"
    publish_failed(run, title, message, log=log, conclusion="cancelled")
    return cancelled.exit_code


def summarise_only(run: RunContext, candidate: Results, notes: list[Markdown]) -> None:
    """No baseline was asked for (a push, a dispatch): the candidate is valid, nothing more."""
    mean = float(candidate.scores.mean()) if len(candidate) else 0.0
    what = (
        f"pass rate {mean * 100:.1f} %" if candidate.kind == "binary" else f"mean score {mean:.3f}"
    )
    line = f"{what} over {len(set(candidate.ids))} items ({len(candidate)} rows)"
    text = md.format("{} is valid: {}.", md.code(run.settings.candidate or ""), Markdown(line))
    extra = md.join("", (md.format("\n{}\n", note) for note in notes))
    run.env.add_summary(
        md.format(
            "## evalbot: {}\n\n{}\n\nNo baseline was asked for (input `baseline` or "
            "`baseline-artifact`), so nothing was compared.\n{}",
            run.settings.name,
            text,
            extra,
        )
    )
    run.env.info(f"evalbot: {text.plain}")
    _outputs(run, verdict="", gate="pass", conclusion="validated")
