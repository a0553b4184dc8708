"""The story of one GitHub Actions run: from the event to one sticky comment and one check.

:func:`run_action` receives its IO adapters (a GitHub client, an :class:`ActionsEnv`, a
reader of the runner's files and a clock) as parameters (:mod:`evalbot.action_context`);
:mod:`evalbot.cli` builds the real ones. The order matters:

1. decide the mode from the event (:mod:`evalbot.github.events`); ``skip`` ends here with a notice;
2. in pull request modes, find the pull request and check that its head is still the commit
   the results are for (a stale run posts nothing);
3. read ``.evalbot.yml`` at the PR's **base** commit (:mod:`evalbot.action_plan`), look the
   baseline up (none yet: neutral, before the candidate is even parsed), read the candidate
   (workspace or artifact of the triggering run) and the baseline, and pair them
   (:mod:`evalbot.action_inputs`);
4. take a **ticket**: create the check run (with a personal token, a commit status) on the head
   sha, declaring the commit and the item set judged; then count the earlier looks from the
   check runs evalbot's own App created on the pull request's commits
   (:mod:`evalbot.github.checks`, :mod:`evalbot.plan.ledger`), never from what commenters can write;
5. compute and decide (the CLI's pipeline, :mod:`evalbot.plan.policy`), render comment, check and
   job summary from one :func:`evalbot.report.build_view`;
6. publish (:mod:`evalbot.action_publish`): the completed check first (its digest is the
   look's record), then evalbot's own sticky comment (only comments evalbot wrote are read,
   edited or deleted), the job summary and the outputs.

Every failure after step 2 completes the check (failure) and writes the job summary: bad input
exits 2 and leaves the comment alone; an internal error exits 3; SIGTERM or SIGINT (a cancelled
job) completes it ``cancelled``. No baseline or an expired artifact end *neutral* (exit 0); a
verdict the plan refuses (another look, other items, a baseline with another item set) fails
the check unless ``gate.on_refused: neutral``. A fork's read-only token leaves summary and
outputs and a warning explaining the two-workflow setup.
The ways a run ends are the records of :mod:`evalbot.action_records`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from evalbot.action_context import Clock, PullTarget, RunContext, Workspace
from evalbot.action_inputs import (
    find_baseline,
    load_baseline,
    load_candidate,
    load_results_from_zip,
    pair_sides,
)
from evalbot.action_plan import load_plan
from evalbot.action_publish import (
    publish_cancelled,
    publish_failure,
    publish_internal_error,
    publish_neutral,
    publish_unpublished,
    publish_verdict,
    render_verdict,
    summarise_only,
)
from evalbot.action_records import Baseline, EvalFailed, Neutral, Plan, Skip, Verdict
from evalbot.action_text import history_rows
from evalbot.errors import EXIT_OK, Cancelled, EvalbotError, PublishError
from evalbot.formats.model import Paired
from evalbot.github.checks import StatusPublisher, earlier_looks
from evalbot.github.client import GitHubClient, PullRequestInfo
from evalbot.github.events import Event, parse_event
from evalbot.github.runner import ActionInputError, ActionsEnv, Settings
from evalbot.pairing.fingerprint import fingerprint
from evalbot.plan.config import Config
from evalbot.plan.ledger import Digest, State
from evalbot.plan.policy import decide, next_state
from evalbot.report import text as md
from evalbot.report.text import Markdown

__all__ = [
    "Clock",
    "Workspace",
    "history_rows",
    "load_results_from_zip",
    "resolve_pulls",
    "run_action",
]


def run_action(
    settings: Settings,
    *,
    connect: Callable[[Settings], GitHubClient],
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
    gh = connect(settings)
    try:
        targets = resolve_pulls(gh, event)
    except Skip as skip:
        env.notice(f"evalbot: nothing to publish: {skip}", title="evalbot")
        env.add_summary(md.format("### evalbot: nothing to publish\n\n{}\n", str(skip)))
        env.set_output("conclusion", "skipped")
        return EXIT_OK
    code = EXIT_OK
    cancelled: Cancelled | None = None
    for target in targets:  # a workflow_run judges every open pull request of its head
        run = RunContext(
            settings=settings, event=event, gh=gh, env=env, files=files, clock=clock, target=target
        )
        if event.on_pull_request:
            run = replace(run, status=_publisher(run))
        if cancelled is not None:  # stopped while judging an earlier one: not judged at all
            code = max(code, publish_cancelled(run, cancelled))
            continue
        story = _Story(run)
        code = max(code, story.execute())
        cancelled = story.cancelled
    return code


def _publisher(run: RunContext) -> StatusPublisher:
    """The check of one pull request: named for its base, its ``external_id`` naming the base
    and the plan it is judged against."""
    return StatusPublisher(
        run.gh,
        run.env,
        sha=run.event.head_sha,
        name=run.check_name,
        details_url=run.settings.run_url,
        fork=run.fork_pull_request,
        tag=f":{run.base_sha or ''}:{run.base_ref or ''}",
        app_id=run.settings.app_id,
    )


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


def resolve_pulls(gh: GitHubClient, event: Event) -> list[PullTarget]:
    """The pull requests a run judges, each checked to have the commit the results are for as
    its head (a run for an older head posts nothing: the run for the new head will). A
    ``pull_request`` run judges its own; a ``workflow_run`` every open one with that head, each
    against its own base, so that no pull request chooses the plan another is judged by."""
    if not event.on_pull_request:
        return [PullTarget()]
    if event.mode == "pull_request":
        assert event.pull_number is not None
        pull = gh.get_pull(event.pull_number)
        if (problem := _moved_on(pull, event)) is not None:
            raise Skip(problem)
        return [PullTarget(now=pull)]
    owner = event.head_repo.split("/", 1)[0] if event.head_repo else None
    pulls = {p.number: p for p in gh.find_pulls_for_head(event.head_sha, event.head_ref, owner)}
    if event.pull_number is not None and event.pull_number not in pulls:
        pulls[event.pull_number] = gh.get_pull(event.pull_number)  # to say why it is not judged
    problems = [_moved_on(pull, event) for pull in pulls.values()]
    targets = [
        PullTarget(found=p, now=p)
        for p, why in zip(pulls.values(), problems, strict=True)
        if not why
    ]
    if not targets:
        raise Skip(
            next((why for why in problems if why), None)
            or f"no open pull request has head commit {event.head_sha[:12]} (the run "
            f"{event.run_id} that produced the results)"
        )
    return sorted(targets, key=lambda target: target.found.number if target.found else 0)


class _Story:
    """Steps 3 to 6 of one run, and where each failure ends: what the story has learnt so far
    (the plan; whether it is writing to GitHub) decides how a failure is published."""

    def __init__(self, run: RunContext) -> None:
        self.run = run
        self.config: Config | None = None  # the plan, once read: its gate.on_refused
        # writing to GitHub (the ticket, then the verdict): a refusal there is GitHub's, not the
        # input's, and ends the run with its own message (the CLI prints it) after the check
        self.writing = False
        self.cancelled: Cancelled | None = None  # SIGTERM or SIGINT stopped it

    def execute(self) -> int:
        try:
            return self._settle()
        except Cancelled as cancelled:  # also while a failure was being published
            self.cancelled = cancelled
            return publish_cancelled(self.run, cancelled)

    def _settle(self) -> int:
        run = self.run
        try:
            return self._tell()
        except Neutral as neutral:
            return publish_neutral(run, neutral, self.config)
        except PublishError as error:
            if not self.writing:
                return publish_failure(run, error)
            publish_unpublished(run, error)
            raise
        except EvalbotError as error:
            return publish_failure(run, error)
        except Exception as error:
            publish_internal_error(run, error)
            raise

    def _tell(self) -> int:
        run = self.run
        if run.event.failed is not None:
            raise _eval_failed(run)
        plan = load_plan(run)
        self.config = config = plan.config
        # how both sides are read: ``all_ids`` was read with the plan, at its commit, so the
        # baseline and the candidate, from files or artifacts, are read against the same ids
        # (and a ``workflow_run`` job needs no checkout)
        options = config.read_options()
        source = find_baseline(run)
        candidate = load_candidate(run, options)
        if source is None:
            summarise_only(run, candidate, plan.notes)
            return EXIT_OK
        baseline = load_baseline(run, source, options)
        paired = pair_sides(run, baseline, candidate, config)
        earlier, tree, comment = self._take_ticket(paired)
        verdict = _judge(
            run, paired, plan=plan, baseline=baseline, earlier=earlier, tree=tree, comment=comment
        )
        rendered = render_verdict(run, verdict)
        self.writing = True
        return publish_verdict(run, verdict, rendered)

    def _take_ticket(self, paired: Paired) -> tuple[State, str | None, int | None]:
        """Create the check run declaring the commit and the item set judged, then read the
        earlier looks (this run's ticket among them), the head's tree and evalbot's comment;
        no pull request, no looks."""
        run, status = self.run, self.run.status
        if status is None or not run.event.on_pull_request:
            return State(), None, None
        declared = Digest(
            kind="start",
            head_sha=run.event.head_sha.lower(),
            holdout=run.settings.holdout,
            fingerprint=paired.fingerprint or fingerprint(list(paired.ids)),
            items=len(paired.ids),
        )
        self.writing = True
        status.start(declared)
        self.writing = False
        return earlier_looks(
            run.gh,
            status,
            settings=run.settings,
            event=run.event,
            pull=run.target.now,
            clock=run.clock,
        )


def _eval_failed(run: RunContext) -> EvalFailed:
    """The failing check of a ``workflow_run`` whose triggering run failed: no results."""
    s, event = run.settings, run.event
    url = f"{s.server_url}/{s.repository}/actions/runs/{event.run_id}"
    return EvalFailed(
        Markdown("The eval run failed"),
        md.format(
            "The eval's run {} for {} concluded {}, so there are no results to compare. Fix "
            "the eval and push again (or re-run it): the check fails until a run succeeds, so "
            "that a required check does not wait forever.",
            md.link(event.run_id or 0, url),
            md.code(event.head_sha[:7]),
            md.code(event.failed or "unknown"),
        ),
    )


def _judge(
    run: RunContext,
    paired: Paired,
    *,
    plan: Plan,
    baseline: Baseline,
    earlier: State,
    tree: str | None,
    comment: int | None,
) -> Verdict:
    """Compare and decide (the CLI's pipeline), and this look's record: the change (its tree),
    the pull request, the base and the plan it was judged against, the run judged."""
    s, config, event = run.settings, plan.config, run.event
    head = event.head_sha.lower() if event.on_pull_request else None
    comparison, decision = decide(
        paired, config, holdout=s.holdout, state=earlier, head_sha=head, tree=tree
    )
    at = run.clock().strftime("%Y-%m-%dT%H:%M:%SZ")
    new_state = next_state(earlier, comparison, decision, at=at)
    record = None
    if head is not None and len(new_state.looks) > len(earlier.looks):
        look = replace(
            new_state.looks[-1],
            pull=run.pull_number,
            base_ref=run.base_ref,
            base_sha=run.base_sha,
            plan=plan.blob,
            run=event.run_id if event.mode == "workflow_run" else s.run_id,
            comment=comment,
        )
        new_state = replace(new_state, looks=(*new_state.looks[:-1], look))
        record = Digest.of_look(look)
    notes = [baseline.description, *plan.notes]
    if head is not None:
        notes.append(_judged_against(run, plan))
    if s.name != "evalbot":
        notes.append(md.format("Comparison {}.", md.code(s.name)))
    return Verdict(
        comparison=comparison,
        decision=decision,
        plan=plan,
        baseline=baseline,
        notes=notes,
        state=new_state,
        old=earlier,
        record=record,
    )


def _judged_against(run: RunContext, plan: Plan) -> Markdown:
    """What the verdict is about: the base and the plan read there."""
    what = (
        md.format("the plan {} (blob {})", md.code(run.settings.config), md.code(plan.blob[:7]))
        if plan.blob
        else Markdown("evalbot's default plan")
    )
    return md.format(
        "Judged against the base {} at {} under {}; the check {} stands for this base only.",
        md.code(run.base_ref or ""),
        md.code((run.base_sha or "")[:7]),
        what,
        md.code(run.check_name),
    )
