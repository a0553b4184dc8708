"""A run that is stopped, or whose last write GitHub keeps refusing, still completes its check.

A required check left ``in_progress`` can never be satisfied, and says nothing: a newer push in
a ``cancel-in-progress`` concurrency group, a cancelled job (both a SIGTERM to the step) or a
PATCH that keeps failing left it so. Each test runs ``evalbot action`` as a process against the
fake GitHub and stops it, or breaks the PATCH, at a known request.
"""

from __future__ import annotations

import signal
import threading
import time
from typing import Any

from evalbot.errors import EXIT_BAD_INPUT, EXIT_TERMINATED
from evalbot.plan.ledger import parse_digest
from tests.attacks.helpers import CANDIDATE, RESAMPLES, eval_run, plan
from tests.fakegithub import CheckRun
from tests.integration.action_harness import Step, StepResult, World, example, workflow_run_payload

CHECK_RUNS = r"/repos/octo/evals/commits/[0-9a-f]{40}/check-runs"
PATCH_CHECK = r"/repos/octo/evals/check-runs/\d+"
COMMENTS = r"/repos/octo/evals/issues/7/comments"


def stopped_at(
    world: World, method: str, path: str, payload: dict[str, Any] | None = None, **inputs: str
) -> StepResult:
    """Run the action, hold it at the first ``method path`` request, send it SIGTERM there
    (the runner's signal to a cancelled step), then let the request go."""
    world.add_baseline_run()
    release = threading.Event()
    world.fake.hold(method, path, release)
    event = "workflow_run" if payload is not None else "pull_request"
    step: Step = world.spawn(event, payload, **inputs)
    try:
        for _ in range(6000):  # a count of polls, not a time budget: the step must get there
            if world.fake.held or step.proc.poll() is not None:
                break
            time.sleep(0.01)
        assert world.fake.held == 1, "the run never reached the request it is stopped at"
        step.proc.send_signal(signal.SIGTERM)
    finally:
        release.set()
    return step.wait()


def checks(world: World) -> list[CheckRun]:
    return sorted(world.repo.check_runs_for(world.pull.head_sha), key=lambda run: run.id)


def test_sigterm_while_reading_the_looks_completes_the_check_cancelled(world: World) -> None:
    """Stopped after its check run was created (in progress), while it reads the earlier
    looks: the process must not die there, leaving the check in progress for ever."""
    plan(world, RESAMPLES)
    result = stopped_at(world, "GET", CHECK_RUNS)
    assert result.code == EXIT_TERMINATED, result.stderr
    assert "Traceback" not in result.stderr
    runs = checks(world)
    assert [(run.status, run.conclusion) for run in runs] == [("completed", "cancelled")]
    assert runs[0].output["title"] == "evalbot was stopped before it finished"
    assert "SIGTERM" in runs[0].output["summary"]
    digest = parse_digest(runs[0].output.get("text"))
    assert digest is not None
    assert digest.kind == "none"  # nothing was shown: not a look
    assert "evalbot was stopped before it finished" in result.summary
    assert result.outputs["conclusion"] == "cancelled"
    assert world.repo.comments_on(world.pull.number) == []


def test_sigterm_after_the_verdict_was_recorded_leaves_the_check_as_it_is(world: World) -> None:
    """Stopped while writing the comment: the check already carries the verdict and its
    record, and keeps them; the summary says the comment may be behind."""
    plan(world, RESAMPLES)
    result = stopped_at(world, "POST", COMMENTS)
    assert result.code == EXIT_TERMINATED, result.stderr
    runs = checks(world)
    assert [(run.status, run.conclusion) for run in runs] == [("completed", "success")]
    digest = parse_digest(runs[0].output.get("text"))
    assert digest is not None
    assert digest.kind == "look"
    assert "before evalbot had updated its comment" in result.summary
    assert result.outputs["conclusion"] == "cancelled"


def test_a_final_patch_that_keeps_failing_leaves_a_completed_failing_check(
    world: World,
) -> None:
    """GitHub answers every PATCH of the check run with 502: the run does not give up with
    its check in progress; a new check run of the same name is created completed as failure,
    carrying the verdict's record (it was sent, so it stays a look)."""
    plan(world, RESAMPLES)
    world.add_baseline_run()
    world.fake.inject_server_error("PATCH", PATCH_CHECK, times=1000)
    result = world.run(process=True)
    assert result.code == EXIT_BAD_INPUT, result.stderr
    assert "Traceback" not in result.stderr
    runs = checks(world)
    assert len(runs) == 2, runs
    first, last = runs
    assert first.status == "in_progress"  # GitHub kept it so; the newest of a name counts
    assert (last.status, last.conclusion) == ("completed", "failure")
    assert last.name == first.name == "evalbot"
    assert "takes its place" in last.output["summary"]
    digest = parse_digest(last.output.get("text"))
    assert digest is not None
    assert digest.kind == "look"
    assert "could not complete the check" in result.stdout
    assert result.summary.strip()


def test_sigterm_and_a_failing_patch_still_leave_a_completed_check(world: World) -> None:
    """Stopped while it reads the looks, and every PATCH fails: the cancelled run replaces
    its check run by a completed failing one."""
    plan(world, RESAMPLES)
    world.fake.inject_server_error("PATCH", PATCH_CHECK, times=1000)
    result = stopped_at(world, "GET", CHECK_RUNS)
    assert result.code == EXIT_TERMINATED, result.stderr
    runs = checks(world)
    assert len(runs) == 2, runs
    first, last = runs
    assert first.status == "in_progress"
    assert (last.status, last.conclusion) == ("completed", "failure")
    assert last.output["title"] == "evalbot was stopped before it finished"
    digest = parse_digest(last.output.get("text"))
    assert digest is not None
    assert digest.kind == "none"


def test_sigterm_in_a_workflow_run_job_completes_every_pull_requests_check(world: World) -> None:
    """The fork-safe job judges every open pull request of the head, one after the other.
    Stopped while judging #7, it went on to judge #8 with the signal ignored (or was killed
    first, #8 without a check): now #8 is not judged, and both checks end ``cancelled``."""
    plan(world, RESAMPLES)
    loose = world.repo.add_commit(parents=[world.base], files={"x": "1\n"}, branch="loose")
    baseline = world.repo.add_run(world.workflow, head_sha=loose, head_branch="loose")
    world.repo.add_artifact(baseline, "evals", files={"baseline.jsonl": example("baseline")})
    world.repo.add_pull(
        number=8,
        head_sha=world.pull.head_sha,
        base_sha=loose,
        base_ref="loose",
        head_ref=world.pull.head_ref,
    )
    run = eval_run(world)
    payload = workflow_run_payload(run, world.repo.workflows[run.workflow_id], pulls=[])
    result = stopped_at(
        world, "GET", CHECK_RUNS, payload, candidate="", candidate_artifact=CANDIDATE
    )
    assert result.code == EXIT_TERMINATED, result.stderr
    runs = {run.name: run for run in checks(world)}
    assert sorted(runs) == ["evalbot", "evalbot (base loose)"]
    for check in runs.values():
        assert (check.status, check.conclusion) == ("completed", "cancelled")
    assert world.repo.comments_on(world.pull.number) == []
    assert world.repo.comments_on(8) == []
