"""Attacks through what GitHub (or someone posing as it) answers, and through stale events."""

from __future__ import annotations

from tests.attacks.helpers import VERDICTS, ours
from tests.fakegithub import FakeGitHub
from tests.integration.action_harness import ARTIFACT, World, example, pull_request_payload


def test_a_backslash_download_url_never_gets_the_token(world: World) -> None:
    """The artifact's `archive_download_url` is `http://EVIL\\@API/...`: the standard library
    reads the host after the `@` (the API's, so the origin check passed), urllib3 ends the host
    at the backslash and connected to EVIL, sending `Authorization: Bearer <token>`."""
    with FakeGitHub() as evil:
        evil_host = evil.url.removeprefix("http://")
        api = world.fake.url.removeprefix("http://")
        run = world.repo.add_run(world.workflow, head_sha=world.base, head_branch="main")
        art = world.repo.add_artifact(
            run, ARTIFACT, files={"results/baseline.jsonl": example("baseline")}
        )
        art.download_url = (
            f"http://{evil_host}\\@{api}/repos/octo/evals/actions/artifacts/{art.id}/zip"
        )
        result = world.run()
        assert not any(r.has_authorization for r in evil.requests), "the token reached EVIL"
        assert evil.requests == []
    assert result.code == 2, result.stderr
    assert "refusing to send the token there" in result.stdout
    assert world.repo.check_runs_for(world.head)[0].conclusion == "failure"


def test_a_baseline_from_a_run_others_can_trigger_is_never_used(world: World) -> None:
    """A run on the base branch triggered by an event someone without push access can start
    (here `issue_comment`; also `workflow_run`, `pull_request_target`, ...) uploads an artifact
    of the baseline's name, with the candidate's own results: no difference to find. Only the
    branch's own runs (push, schedule, workflow_dispatch) may provide the baseline."""
    genuine = world.add_baseline_run(world.root)
    forged = world.repo.add_run(
        world.workflow, head_sha=world.base, head_branch="main", event="issue_comment"
    )
    world.repo.add_artifact(forged, ARTIFACT, files={"b.jsonl": example("candidate")})
    result = world.run()
    assert result.code == 0, result.stderr
    assert result.outputs["verdict"] == "improvement"
    (body,) = [c.body for c in ours(world)]
    assert f"from run [{genuine.id}]" in body
    assert f"run [{forged.id}]" not in body


def test_a_pull_request_run_for_a_stale_head_posts_nothing(world: World) -> None:
    """A `pull_request` run whose head commit is no longer the pull request's (a re-run of an
    old run, or a push in between): it posted a verdict for a commit nobody will merge, and
    took the comment over from the run of the real head."""
    world.add_baseline_run()
    stale = pull_request_payload(world.pull)
    world.pull.head_sha = world.repo.add_commit(
        parents=[world.head], files={"model.txt": "v3\n"}, branch="feature"
    )
    result = world.run(payload=stale)
    assert result.code == 0, result.stderr
    assert "has moved on" in result.stdout
    assert world.repo.comments_on(world.pull.number) == []
    assert world.repo.check_runs_for(world.head) == []
    assert result.outputs["conclusion"] == "skipped"


def test_the_first_pull_request_after_installing_fails_for_no_baseline_whatever_its_results(
    world: World,
) -> None:
    """No baseline exists yet, and the candidate does not read under the plan's field rules:
    it failed the check as bad input (exit 2) before the baseline was even looked up; now the
    baseline is looked up first, and its absence fails the check with the remedy."""
    world.base = world.repo.add_commit(
        parents=[world.base], files={".evalbot.yml": "fields: {passed: ok}\n"}, branch="main"
    )
    world.pull.base_sha = world.base
    result = world.run()
    assert result.code == 1, result.stderr
    assert result.outputs["conclusion"] == "failure"
    assert "No baseline yet" in result.summary
    assert "run the eval workflow on `main` first" in result.summary
    assert world.repo.check_runs_for(world.head)[0].conclusion == "failure"
    assert result.outputs["verdict"] not in VERDICTS
