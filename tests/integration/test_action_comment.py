"""Input ``comment``: the check and the job summary on every run, the sticky comment always,
only when what it says changes (``on-change``), or never. Against the fake GitHub."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.attacks.helpers import RESAMPLES, plan
from tests.fakegithub import FakeGitHub
from tests.integration.action_harness import World, example


@pytest.fixture
def world(fake_github: FakeGitHub, tmp_path: Path) -> World:
    return World(fake_github, tmp_path)


def writes(world: World) -> list[str]:
    """The comment writes the fake saw: POST (created) or PATCH (edited)."""
    return [
        r.method
        for r in world.fake.requests
        if r.method in ("POST", "PATCH") and "/issues/" in r.path and "comments" in r.path
    ]


def one_more_broken() -> str:
    """The example candidate with one more item broken: an item both runs passed now fails."""
    passed = {
        row["id"] for row in map(json.loads, example("baseline").splitlines()) if row["passed"]
    }
    rows = [json.loads(line) for line in example("candidate").splitlines()]
    flip = next(row for row in rows if row["passed"] and row["id"] in passed)
    flip["passed"] = False
    return "".join(json.dumps(row) + "\n" for row in rows)


def test_never_writes_the_check_and_the_summary_and_no_comment(world: World) -> None:
    plan(world, RESAMPLES)
    world.add_baseline_run()
    result = world.run(comment="never")
    assert result.code == 0, result.stderr
    assert result.outputs["verdict"] == "improvement"
    assert result.outputs["comment-url"] == ""
    assert "Improvement" in result.summary
    (check,) = world.repo.check_runs_for(world.pull.head_sha)
    assert (check.status, check.conclusion) == ("completed", "success")
    assert world.repo.comments_on(world.pull.number) == []
    assert world.fake.requests_to("GET", r"/repos/octo/evals/issues/7/comments")  # the ledger's
    assert writes(world) == []


def test_on_change_writes_the_comment_only_when_the_verdict_or_the_broken_items_change(
    world: World,
) -> None:
    plan(world, "policy: {max_looks: 1}\n" + RESAMPLES)
    world.add_baseline_run()
    first = world.run(comment="on-change")
    assert first.code == 0, first.stderr
    (comment,) = world.repo.comments_on(world.pull.number)
    assert writes(world) == ["POST"]
    # a re-run of the same commit with the same results: the comment says it all already
    again = world.run(comment="on-change")
    assert again.code == 0, again.stderr
    assert writes(world) == ["POST"]
    assert world.repo.comments_on(world.pull.number) == [comment]
    assert again.outputs["comment-url"] == first.outputs["comment-url"] != ""
    assert "comment left as it is" in again.stdout
    assert "Improvement" in again.summary
    assert len(world.repo.check_runs_for(world.pull.head_sha)) == 2
    # the same verdict with one more broken item: rewritten
    (world.workspace / "results" / "candidate.jsonl").write_text(one_more_broken())
    broken = world.run(comment="on-change")
    assert broken.outputs["verdict"] == first.outputs["verdict"]
    assert int(broken.outputs["broken"]) == int(first.outputs["broken"]) + 1
    assert writes(world) == ["POST", "PATCH"]
    # a new commit: a second look, refused (max_looks: 1): another verdict, rewritten
    world.pull.head_sha = world.repo.add_commit(
        parents=[world.head], files={"model.txt": "v3\n"}, branch="feature"
    )
    refused = world.run(comment="on-change")
    assert refused.outputs["verdict"] == "inconclusive"
    assert writes(world) == ["POST", "PATCH", "PATCH"]
    assert "a verdict is refused" in world.repo.comments_on(world.pull.number)[0].body
    # always (the default) rewrites it whatever it says
    world.run()
    assert writes(world) == ["POST", "PATCH", "PATCH", "PATCH"]


def test_on_change_keeps_a_notice_that_says_the_same(world: World) -> None:
    """No baseline yet, twice; in between the base branch ran the workflow without uploading
    one, so the notice's details differ, but it says the same: still no baseline."""
    plan(world, RESAMPLES)
    world.run(comment="on-change")
    assert writes(world) == ["POST"]
    (before,) = world.repo.comments_on(world.pull.number)
    run = world.repo.add_run(world.workflow, head_sha=world.base, head_branch="main")
    again = world.run(comment="on-change")
    assert str(run.id) in again.summary  # the details changed
    assert writes(world) == ["POST"]
    assert world.repo.comments_on(world.pull.number) == [before]
    assert len(world.repo.check_runs_for(world.pull.head_sha)) == 2


def test_an_unknown_comment_mode_is_one_line(world: World) -> None:
    result = world.run(comment="sometimes")
    assert result.code == 2
    assert "input `comment` must be always, on-change or never, got 'sometimes'" in result.stderr
