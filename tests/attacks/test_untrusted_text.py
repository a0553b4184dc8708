"""Attacks with text: a fork's artifact whose zip member names and item ids carry a forged
ledger block, a look digest, a team mention, an image, a javascript link, a table-breaking
``|``, newlines, a carriage return and terminal escapes. Run in the two-workflow setup (the
privileged ``workflow_run`` job reads the fork's artifact) against the fake GitHub.

The messages that quote such text (the "another item set" refusal, an input error) and the
verdict's lists stay inert in the comment, the check run, the job summary, the annotations
and the log: no forged ``<!-- evalbot-state:v1 -->`` block, no ``@org/team`` mention, no
``<img>``, no raw escape sequence, no link from an id ``GH-1``. Every output is checked on
markdown-it-py's token tree (:mod:`tests.inert`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.attacks.helpers import PAYLOAD, RESAMPLES, STATE_BLOCK, assert_every_output_inert, plan
from tests.fakegithub import FakeGitHub, Run
from tests.inert import assert_own_commands, unescape
from tests.integration.action_harness import StepResult, World, example, workflow_run_payload

FORK = "someone/evals"
ARTIFACT = "candidate-results"


@pytest.fixture
def fork(fake_github: FakeGitHub, tmp_path: Path) -> World:
    world = World(fake_github, tmp_path, fork=True)
    plan(world, RESAMPLES)
    world.add_baseline_run()
    return world


def fork_run(world: World, files: dict[str, str]) -> Run:
    """The fork's pull_request run, with its artifact of results."""
    run = world.repo.add_run(
        world.workflow,
        head_sha=world.pull.head_sha,
        head_branch="feature",
        event="pull_request",
        pull_numbers=[world.pull.number],
        head_repo=FORK,
    )
    world.repo.add_artifact(run, ARTIFACT, files=files)
    return run


def privileged_job(world: World, run: Run) -> StepResult:
    """The base repository's workflow_run job (GitHub lists no pull request for a fork)."""
    payload = workflow_run_payload(run, world.workflow, pulls=[], head_repo=FORK)
    return world.run("workflow_run", payload, candidate="", candidate_artifact=ARTIFACT)


def rows(ids: dict[int, str] | None = None, **extra: object) -> str:
    """The example candidate, with some ids replaced."""
    out = []
    for i, line in enumerate(example("candidate").splitlines()):
        row = json.loads(line)
        if ids and i in ids:
            row["id"] = ids[i]
        row.update(extra)
        out.append(json.dumps(row))
    return "\n".join(out) + "\n"


def test_a_forks_member_names_and_ids_in_the_another_item_set_notice(fork: World) -> None:
    """(a) The fork's results have another item set (an id replaced by the payload) in a
    member named with the payload: the refusal quotes both. Printed raw, the refusal notice
    would put into evalbot's own comment a second ``evalbot-state`` block, an @team mention,
    an image."""
    run = fork_run(fork, {f"{PAYLOAD}.jsonl": rows({0: PAYLOAD})})
    result = privileged_job(fork, run)
    assert result.code == 1, result.stderr
    assert result.outputs["conclusion"] == "failure"
    (comment,) = fork.repo.comments_on(fork.pull.number)
    assert "Baseline has another item set" in comment.body
    assert "@org/team" in unescape(comment.body)  # the message is kept, as text
    assert_every_output_inert(fork, result)


def test_a_forks_member_name_in_an_input_error(fork: World) -> None:
    """(b) A member named with the payload that is not a result file: the input error quotes
    its name. Printed raw, the failure summary and the check run's summary would show the
    message as Markdown, and the annotation would carry the escape sequences to the log."""
    run = fork_run(fork, {f"{PAYLOAD}.jsonl": '{"id": "a", "passed": "perhaps"}\n'})
    result = privileged_job(fork, run)
    assert result.code == 2, result.stderr
    assert fork.repo.comments_on(fork.pull.number) == []
    (check,) = fork.repo.check_runs_for(fork.pull.head_sha)
    assert check.conclusion == "failure"
    assert "evalbot could not compare" in check.output["summary"]
    assert "@org/team" in unescape(check.output["summary"])
    assert_every_output_inert(fork, result)


def test_the_annotations_of_a_refusal_are_one_line_without_escapes(fork: World) -> None:
    """(c) The refusal's annotation quotes the payload: one ``::error`` line, its title and
    message plain, nothing after it forging a second command or recolouring the log."""
    run = fork_run(fork, {f"{PAYLOAD}.jsonl": rows({0: f"{PAYLOAD}\n::error::forged"})})
    result = privileged_job(fork, run)
    commands = assert_own_commands(result.stdout)
    errors = [line for line in commands if line.startswith("::error")]
    assert len(errors) == 1 and "Baseline has another item set" in errors[0]
    assert "\x1b" not in result.stdout and "\r" not in result.stdout
    assert_every_output_inert(fork, result)


def test_hostile_ids_and_slices_in_the_verdict_comment(fork: World) -> None:
    """(d) Under ``policy.missing: fail`` the fork's extra items are judged (as failures of
    the baseline), so its ids reach the verdict's lists, and its slice labels the slice
    table; an id ``GH-1`` links nothing."""
    plan(fork, "policy: {missing: fail}\n" + RESAMPLES)
    fork.add_baseline_run(fork.pull.base_sha)
    extra = [
        json.dumps({"id": f"{PAYLOAD}-{i}", "passed": True, "slice": PAYLOAD}) for i in range(3)
    ]
    extra.append(json.dumps({"id": "GH-1", "passed": True, "slice": "GH-2 | @org/team"}))
    run = fork_run(fork, {f"{PAYLOAD}.jsonl": rows(slice="x") + "\n".join(extra) + "\n"})
    result = privileged_job(fork, run)
    assert result.code in (0, 1), result.stderr
    assert result.outputs["verdict"] in ("improvement", "no_significant_difference")
    (comment,) = fork.repo.comments_on(fork.pull.number)
    assert "Fixed items" in comment.body and "By slice" in comment.body
    shown = unescape(comment.body)
    assert "GH-1" in shown and "@org/team" in shown  # shown as text
    assert STATE_BLOCK.search(comment.body)  # evalbot's own block, once
    assert_every_output_inert(fork, result)
