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
   (:mod:`evalbot.action_looks`, :mod:`evalbot.plan.ledger`), never from what commenters can write;
5. compute and decide (the CLI's pipeline, :mod:`evalbot.analysis`), render comment, check and
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

from evalbot.action_context import Clock, GitHubPort, PullTarget, RunContext, Workspace
from evalbot.action_inputs import (
    find_baseline,
    load_baseline,
    load_candidate,
    load_results_from_zip,
    pair_sides,
)
from evalbot.action_looks import earlier_looks
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
from evalbot.action_records import Baseline, Neutral, Plan, Skip, Verdict
from evalbot.action_text import history_rows
from evalbot.analysis import decide
from evalbot.errors import EXIT_OK, Cancelled, EvalbotError, PublishError
from evalbot.formats.model import Paired
from evalbot.github.checks import StatusPublisher
from evalbot.github.events import Event, parse_event
from evalbot.github.runner import ActionsEnv
from evalbot.github.settings import ActionInputError, Settings
from evalbot.pairing.fingerprint import fingerprint
from evalbot.plan.config import Config
from evalbot.plan.ledger import Digest
from evalbot.plan.policy import next_state
from evalbot.plan.state import State
from evalbot.report import text as md

__all__ = [
    "Clock",
    "GitHubPort",
    "Workspace",
    "history_rows",
    "load_results_from_zip",
    "run_action",
]


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
    gh = connect(settings)
    try:
        target = resolve_pull(gh, event)
    except Skip as skip:
        env.notice(f"evalbot: nothing to publish: {skip}", title="evalbot")
        env.add_summary(md.format("### evalbot: nothing to publish\n\n{}\n", str(skip)))
        env.set_output("conclusion", "skipped")
        return EXIT_OK
    status = None
    if event.on_pull_request:
        status = StatusPublisher(
            gh,
            env,
            sha=event.head_sha,
            name=settings.name,
            details_url=settings.run_url,
            fork=event.is_fork and event.mode == "pull_request",
        )
    run = RunContext(
        settings=settings,
        event=event,
        gh=gh,
        env=env,
        files=files,
        clock=clock,
        target=target,
        status=status,
    )
    return _Story(run).execute()


def resolve_pull(gh: GitHubPort, event: Event) -> PullTarget:
    """Find the pull request and check that its head is still the commit the results are
    for: a run for an older head posts nothing (:class:`Skip`: the run for the new head will)."""
    if event.mode not in ("pull_request", "workflow_run"):
        return PullTarget()
    if event.pull_number is not None:
        pull = gh.get_pull(event.pull_number)
    else:
        owner = event.head_repo.split("/", 1)[0] if event.head_repo else None
        found = gh.find_pull_for_head(event.head_sha, event.head_ref, owner)
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
    # a workflow_run's payload may not name the pull request: its base comes from the one found
    return PullTarget(found=pull if event.mode == "workflow_run" else None, now=pull)


class _Story:
    """Steps 3 to 6 of one run, and where each failure ends: what the story has learnt so far
    (the plan; whether it is writing to GitHub) decides how a failure is published."""

    def __init__(self, run: RunContext) -> None:
        self.run = run
        self.config: Config | None = None  # the plan, once read: its gate.on_refused
        # writing to GitHub (the ticket, then the verdict): a refusal there is GitHub's, not the
        # input's, and ends the run with its own message (the CLI prints it) after the check
        self.writing = False

    def execute(self) -> int:
        try:
            return self._settle()
        except Cancelled as cancelled:  # also while a failure was being published
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
        earlier = self._take_ticket(paired)
        verdict = _judge(run, paired, plan=plan, baseline=baseline, earlier=earlier)
        rendered = render_verdict(run, verdict)
        self.writing = True
        return publish_verdict(run, verdict, rendered)

    def _take_ticket(self, paired: Paired) -> State:
        """Create the check run declaring the commit and the item set judged, then read the
        earlier looks (this run's ticket among them); no pull request, no looks."""
        run, status = self.run, self.run.status
        if status is None or not run.event.on_pull_request:
            return State()
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
        return earlier_looks(run, status)


def _judge(
    run: RunContext, paired: Paired, *, plan: Plan, baseline: Baseline, earlier: State
) -> Verdict:
    """Compare and decide (the CLI's pipeline), and this look's record."""
    s, config = run.settings, plan.config
    head = run.event.head_sha.lower() if run.event.on_pull_request else None
    comparison, decision = decide(paired, config, holdout=s.holdout, state=earlier, head_sha=head)
    at = run.clock().strftime("%Y-%m-%dT%H:%M:%SZ")
    new_state = next_state(earlier, comparison, decision, at=at)
    record = None
    if head is not None and len(new_state.looks) > len(earlier.looks):
        record = Digest.of_look(new_state.looks[-1])
    notes = [baseline.description, *plan.notes]
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
