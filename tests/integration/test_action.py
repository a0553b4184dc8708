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
