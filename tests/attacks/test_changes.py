"""Attacks on the count of looks at a change: a new pull request, records deleted or rewritten.
Under ``policy.max_looks: 1`` (or 2) no change, through any pull request, gets more verdicts
than that."""

from __future__ import annotations

import requests

from evalbot.plan.ledger import Digest, placeholder, render_digest
from tests.attacks.helpers import (
    RESAMPLES,
    VERDICTS,
    eval_run,
    evalbot_after,
    ours,
    plain,
    plan,
    push,
    regression,
    required,
)
from tests.fakegithub.plugin import APP_TOKEN
from tests.integration.action_harness import World

ONE_LOOK = "policy: {max_looks: 1}\n" + RESAMPLES
APP = "ghs_evalbotApp00000000000000000000000001"
APP_ID = 900001


def patch_check(world: World, check_id: int, body: dict[str, object], token: str) -> int:
    """What a workflow step holding ``token`` can send: PATCH a check run."""
    url = f"{world.fake.url}/repos/octo/evals/check-runs/{check_id}"
    return requests.patch(url, json=body, headers={"Authorization": f"token {token}"}).status_code


def test_a_new_pull_request_from_the_same_branch_with_an_amended_commit_gets_no_fresh_looks(
    world: World,
) -> None:
    """After #7's refused second look, the author closes it, amends the commit (a new sha, the
    same tree) and opens #8 from the same branch, for a fresh set of looks. Looks are counted
    per change (head repository and branch, and tree), and #8's comment shows #7's looks."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    assert world.run().outputs["verdict"] in VERDICTS
    refused = push(world)
    assert world.run().outputs["verdict"] == "inconclusive"
    world.pull.state = "closed"
    amended = world.repo.add_commit(
        parents=[world.pull.base_sha], files=dict(world.repo.commits[refused].files)
    )
    assert amended != refused and world.repo.tree(amended) == world.repo.tree(refused)
    world.pull = world.repo.add_pull(
        number=8, head_sha=amended, base_sha=world.pull.base_sha, head_ref="feature"
    )
    world.before = None
    result = world.run()
    assert result.outputs["verdict"] == "inconclusive", result.stderr
    assert result.code == 1
    assert "more than policy.max_looks = 1" in plain(result.summary)
    (comment,) = ours(world)
    assert "| 1 (#7) |" in plain(comment.body)


def test_a_branch_name_used_again_after_a_merge_is_a_new_change(world: World) -> None:
    """The other side of counting per branch: #7 was merged, and a later pull request from a
    branch of the same name is new work, with looks of its own."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    assert world.run().outputs["verdict"] in VERDICTS
    world.pull.state, world.pull.merged = "closed", True
    head = world.repo.add_commit(parents=[world.pull.base_sha], files={"model.txt": "next\n"})
    world.pull = world.repo.add_pull(
        number=8, head_sha=head, base_sha=world.pull.base_sha, head_ref="feature"
    )
    world.before = None
    result = world.run()
    assert result.outputs["verdict"] in VERDICTS, result.stderr


def test_deleting_the_comment_and_the_judged_run_then_force_pushing_is_a_finding(
    world: World,
) -> None:
    """A collaborator deletes evalbot's comment and the judged commit's workflow run, then
    force-pushes, so that neither the comment, the runs nor the pull request's commits name the
    judged commit. GitHub's ``before`` names the head the push replaced; its check run holds
    the look, and the run it names is gone: refused, failed, and said."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    judged = world.pull.head_sha
    assert world.run().outputs["verdict"] in VERDICTS
    for comment in ours(world):
        del world.repo.comments[comment.id]
    (gone,) = [run for run in world.repo.runs.values() if run.head_sha == judged]
    world.repo.delete_run(gone.id)
    push(world, force=True)
    assert judged not in world.repo.pull_commits(world.pull.number)
    result = world.run()
    assert result.outputs["verdict"] == "inconclusive", result.stderr
    assert result.code == 1
    text = plain(result.summary)
    assert f"the workflow run {gone.id} whose results the look at {judged[:7]} judged is gone" in (
        text
    )
    assert "a verdict is refused and the check fails whatever the plan says" in text


def test_deleting_the_comment_pushing_100_commits_and_renaming_the_branch_keeps_the_count(
    world: World,
) -> None:
    """In the fork-safe setup: a collaborator deletes evalbot's comment, pushes 100 commits at
    once and renames the branch (the runs name the old one). All of a pull request's commits
    are read (GitHub lists 250), and the deleted comment the look was published in is said."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    judged = world.pull.head_sha
    assert evalbot_after(world, eval_run(world)).outputs["verdict"] in VERDICTS
    (comment,) = ours(world)
    del world.repo.comments[comment.id]
    for _ in range(100):
        push(world)
    world.repo.branches["renamed"] = world.repo.branches.pop("feature")
    world.pull.head_ref = "renamed"
    result = evalbot_after(world, eval_run(world))
    assert result.outputs["verdict"] == "inconclusive", result.stderr
    assert result.code == 1
    text = plain(result.summary)
    assert "more than policy.max_looks = 1" in text
    assert (
        f"evalbot's comment {comment.id} on #7, where the look at {judged[:7]} was published, "
        "is gone"
    ) in text


def test_a_record_rewritten_to_nothing_compared_still_counts_and_is_a_finding(
    world: World,
) -> None:
    """A workflow holding the Actions token (the same App as evalbot's) PATCHes the judged
    commit's check run to the record of a run that compared nothing, while evalbot's comment
    still holds the look. Records never cancel: the comment's look counts, and the
    disagreement refuses."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    judged = world.pull.head_sha
    assert world.run().outputs["verdict"] in VERDICTS
    (check,) = world.repo.check_runs_for(judged)
    nothing = render_digest(Digest(kind="none", look=placeholder(judged, holdout=False)))
    output = {"title": "t", "summary": "s", "text": nothing}
    assert patch_check(world, check.id, {"output": output}, APP_TOKEN) == 200
    push(world)
    result = world.run()
    assert result.outputs["verdict"] == "inconclusive", result.stderr
    assert result.code == 1
    assert (
        f"evalbot's comment records a verdict on {judged[:7]} that check run {check.id} says "
        "compared nothing"
    ) in plain(result.summary)


def test_a_conclusion_patched_to_success_is_a_finding_at_the_next_look(world: World) -> None:
    """The same token PATCHes a failed regression's check to success. That passes a required
    check the Actions App sets (the dedicated App closes that door, below); the next run sees
    the conclusion disagree with the record and refuses, whatever looks the plan allows."""
    plan(world, "policy: {max_looks: 2}\n" + RESAMPLES)
    world.add_baseline_run()
    (world.workspace / "results" / "candidate.jsonl").write_text(regression())
    judged = world.pull.head_sha
    assert world.run().code == 1
    (check,) = world.repo.check_runs_for(judged)
    assert patch_check(world, check.id, {"conclusion": "success"}, APP_TOKEN) == 200
    assert required(world, judged) == "success"
    push(world)
    result = world.run()
    assert result.outputs["verdict"] == "inconclusive", result.stderr
    assert (
        f"check run {check.id} on {judged[:7]} concluded success, but its record says failure"
    ) in plain(result.summary)


def test_with_its_own_app_the_actions_token_cannot_change_evalbots_records(
    world: World,
) -> None:
    """evalbot runs as its own App (``app-id``, the App's installation token from a job only
    the default branch deploys to): the Actions token of a pull request's workflow can neither
    rewrite the App's check runs (GitHub's 403) nor count as evalbot by writing check runs of
    the same name (ignored and said); the check required from the App stays failed and the
    next look is refused. The Actions token given as the App's is refused at once."""
    world.fake.add_token(APP, app_slug="evalbot-ci", app_id=APP_ID)
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    (world.workspace / "results" / "candidate.jsonl").write_text(regression())
    judged = world.pull.head_sha
    first = world.run(github_token=APP, app_id=str(APP_ID))
    assert first.outputs["verdict"] == "regression", first.stderr
    (check,) = world.repo.check_runs_for(judged)
    assert check.app_id == APP_ID
    assert patch_check(world, check.id, {"conclusion": "success"}, APP_TOKEN) == 403
    forged = requests.post(
        f"{world.fake.url}/repos/octo/evals/check-runs",
        json={
            "name": "evalbot",
            "head_sha": judged,
            "status": "completed",
            "conclusion": "success",
            "output": {
                "title": "t",
                "summary": "s",
                "text": render_digest(Digest(kind="none", look=placeholder(judged, holdout=False))),
            },
        },
        headers={"Authorization": f"token {APP_TOKEN}"},
    ).json()
    assert required(world, judged, app_id=APP_ID) == "failure"
    comments = world.repo.comments_on(world.pull.number)
    assert [c.author for c in comments] == ["evalbot-ci[bot]"]
    push(world)
    second = world.run(github_token=APP, app_id=str(APP_ID))
    assert second.outputs["verdict"] == "inconclusive", second.stderr
    assert (
        f"check run {forged['id']} on {judged[:7]} was written by github-actions App (15368), "
        f"not evalbot's ({APP_ID}): ignored"
    ) in plain(second.summary)
    wrong = world.run(app_id=str(APP_ID))
    assert wrong.code == 2
    assert "not the App that input `app-id` names (900001)" in wrong.stdout
