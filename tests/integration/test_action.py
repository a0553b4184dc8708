"""``evalbot action`` end to end: a subprocess with the runner's environment, the fake GitHub on
127.0.0.1 (real HTTP, real PyGithub), assertions on the fake's final state."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakegithub import FakeGitHub
from tests.integration.action_harness import ARTIFACT, World

MARKER = "<!-- evalbot:evalbot -->"


@pytest.fixture
def world(fake_github: FakeGitHub, tmp_path: Path) -> World:
    return World(fake_github, tmp_path)


def test_pull_request_posts_one_sticky_comment_and_a_check(world: World) -> None:
    baseline_run = world.add_baseline_run()
    first = world.run()
    assert first.code == 0, first.stderr
    second = world.run()
    assert second.code == 0, second.stderr

    (body,) = world.ours()
    assert body.startswith(MARKER)
    assert "Improvement" in body
    assert f"artifact `{ARTIFACT}` from run [{baseline_run.id}]" in body
    assert f"the base commit `{world.base[:7]}`" in body
    # a re-run of the same head sha is not a new look
    assert "Earlier looks" not in body

    # one check run per workflow run (GitHub shows the newest per name); all completed
    checks = world.repo.check_runs_for(world.head)
    assert len(checks) == 2
    assert all(c.status == "completed" for c in checks)
    check = max(checks, key=lambda c: c.id)
    assert check.name == "evalbot"
    assert check.status == "completed"
    assert check.conclusion == "success"
    assert "Improvement" in check.output["title"]

    out = second.outputs
    assert out["verdict"] == "improvement"
    assert out["gate"] == "pass"
    assert out["fixed"] == "31"
    assert out["broken"] == "14"
    assert float(out["p-value"]) == pytest.approx(0.0161, abs=5e-4)
    assert float(out["ci-low"]) < float(out["difference"]) < float(out["ci-high"])
    assert out["comment-url"].startswith("https://github.com/octo/evals/pull/7#issuecomment-")
    assert out["conclusion"] == "success"
    assert "Improvement" in second.summary
    # the baseline came through the artifacts API, and the 302 to storage carried no token
    downloads = world.fake.requests_to("GET", r"/repos/octo/evals/actions/artifacts/\d+/zip")
    assert downloads
    blobs = world.fake.requests_to("GET", r"/_blob/.*")
    assert blobs
    assert not any(b.has_authorization for b in blobs)
    # the config was read at the base commit
    reads = world.fake.requests_to("GET", r"/repos/octo/evals/contents/\.evalbot\.yml")
    assert reads
    assert all(r.query.get("ref") == [world.base] for r in reads[:1])
    # the token is masked and never printed otherwise
    token = "ghs_fakeAppToken0000000000000000000001"
    assert first.stdout.count(token) == 1
    assert f"::add-mask::{token}" in first.stdout
    assert token not in first.stderr + first.summary


def test_a_new_head_folds_the_earlier_look_into_history(world: World) -> None:
    world.add_baseline_run()
    assert world.run().code == 0
    new_head = world.repo.add_commit(
        parents=[world.head], files={"model.txt": "v3\n"}, branch="feature", message="v3"
    )
    world.pull.head_sha = new_head
    result = world.run()
    assert result.code == 0, result.stderr
    (body,) = world.ours()
    assert "Earlier looks (1)" in body
    assert f"`{world.head[:7]}`" in body
    assert len(world.repo.check_runs_for(new_head)) == 1


# ---- baseline resolution ----


def test_baseline_from_an_older_run_says_how_far_behind(world: World) -> None:
    old = world.add_baseline_run(world.root)
    # a newer run on main that is not an ancestor of the base (main moved on): never used
    later = world.repo.add_commit(parents=[world.base], message="later", branch="main")
    world.add_baseline_run(later)
    result = world.run()
    assert result.code == 0, result.stderr
    (body,) = world.ours()
    assert f"from run [{old.id}]" in body
    assert f"1 commit behind the base commit `{world.base[:7]}`" in body


def test_no_baseline_yet_is_neutral_with_a_message(world: World) -> None:
    result = world.run()
    assert result.code == 0, result.stderr
    (body,) = world.ours()
    assert "No baseline yet" in body
    assert "first pull request after installing evalbot" in body
    (check,) = world.repo.check_runs_for(world.head)
    assert (check.status, check.conclusion) == ("completed", "neutral")
    assert result.outputs["conclusion"] == "neutral"
    assert result.outputs["verdict"] == "inconclusive"
    assert "::warning title=evalbot%3A No baseline yet::" in result.stdout


def test_expired_baseline_artifact_is_neutral(world: World) -> None:
    world.add_baseline_run(expired=True)
    result = world.run()
    assert result.code == 0, result.stderr
    (body,) = world.ours()
    assert "has expired" in body
    (check,) = world.repo.check_runs_for(world.head)
    assert check.conclusion == "neutral"
    assert world.fake.requests_to("GET", r"/repos/octo/evals/actions/artifacts/\d+/zip") == []


def test_baseline_with_another_item_set_is_neutral(world: World) -> None:
    world.add_baseline_run(files={"r.jsonl": '{"id": "other-1", "passed": true}\n'})
    result = world.run()
    assert result.code == 0, result.stderr
    (body,) = world.ours()
    assert "Baseline has another item set" in body
    assert world.repo.check_runs_for(world.head)[0].conclusion == "neutral"


@pytest.mark.parametrize(
    ("member", "message"),
    [("../evil.jsonl", "unsafe path"), ("/abs.jsonl", "unsafe path")],
)
def test_a_hostile_baseline_archive_is_refused(world: World, member: str, message: str) -> None:
    world.add_baseline_run(files={member: '{"id": "a", "passed": true}\n'})
    result = world.run()
    assert result.code == 2
    assert message in result.stdout
    assert world.ours() == []
    assert world.repo.check_runs_for(world.head)[0].conclusion == "failure"


# ---- config ----


def test_config_is_read_at_the_base_and_a_change_is_noted(world: World) -> None:
    world.add_baseline_run()
    # the PR loosens alpha in its own head: the base's rules still apply
    head = world.repo.add_commit(
        parents=[world.head],
        files={".evalbot.yml": "alpha: 0.5\nbootstrap: {resamples: 1000, seed: 0}\n"},
        branch="feature",
    )
    world.pull.head_sha = head
    result = world.run(payload=None)
    assert result.code == 0, result.stderr
    (body,) = world.ours()
    assert "This pull request changes `.evalbot.yml`" in body
    assert "+alpha: 0.5" in body
    assert "-alpha: 0.05" in body


def test_a_broken_config_at_the_base_fails_the_check_and_posts_nothing(world: World) -> None:
    world.add_baseline_run()
    base = world.repo.add_commit(
        parents=[world.base], files={".evalbot.yml": "alpah: 0.05\n"}, branch="main"
    )
    world.pull.base_sha = base
    result = world.run()
    assert result.code == 2
    assert "alpah" in result.stdout
    assert world.ours() == []
    (check,) = world.repo.check_runs_for(world.head)
    assert check.conclusion == "failure"
    assert "alpah" in check.output["summary"]
    assert result.outputs["conclusion"] == "failure"


# ---- bad input ----


def test_missing_candidate_fails_the_check_with_what_to_fix(world: World) -> None:
    world.add_baseline_run()
    result = world.run(candidate="results/nope.jsonl")
    assert result.code == 2
    assert "::error title=evalbot::" in result.stdout
    assert "nope.jsonl: no such file or directory" in result.stdout
    assert world.ours() == []
    (check,) = world.repo.check_runs_for(world.head)
    assert check.conclusion == "failure"
    assert "nope.jsonl" in check.output["summary"]
    assert "nope.jsonl" in result.summary
    assert "Traceback" not in result.stderr


def test_bad_name_input_is_one_line(world: World) -> None:
    result = world.run(name="a b -->")
    assert result.code == 2
    assert "input `name`" in result.stderr
    assert "Traceback" not in result.stderr


def test_gate_failure_exits_1_with_a_failing_check(world: World) -> None:
    # swap: the example candidate becomes the baseline, so the change is a regression
    world.add_baseline_run(
        files={"b.jsonl": (world.workspace / "results/candidate.jsonl").read_text()}
    )
    from tests.integration.action_harness import example

    (world.workspace / "results" / "candidate.jsonl").write_text(example("baseline"))
    result = world.run()
    assert result.code == 1, result.stderr
    assert result.outputs["verdict"] == "regression"
    assert result.outputs["gate"] == "fail"
    assert world.repo.check_runs_for(world.head)[0].conclusion == "failure"
    (body,) = world.ours()
    assert "Regression" in body
