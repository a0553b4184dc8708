"""Attacks on the base a verdict is about: a fork contributor with no rights tries to make a
known -30 pp regression pass the check required for ``main``, in the fork-safe setup, by
choosing which base's plan applies or by leaving evalbot nothing to compare with. Each ends
with the check a required check for ``main`` reads (the newest ``evalbot`` of the Actions App
on the head) not passing."""

from __future__ import annotations

from tests.attacks.helpers import eval_run, evalbot_after, push, regression, required
from tests.integration.action_harness import World, example, pull_request_payload


def fork(world: World) -> None:
    """The world's pull request #7 comes from a fork, ``someone/evals``, into ``main``; ``main``
    has its baseline, and a second branch ``loose`` has a plan that fails nothing (and a
    baseline of its own)."""
    world.pull.head_repo = "someone/evals"
    world.add_baseline_run()
    loose = world.repo.add_commit(
        parents=[world.base], files={".evalbot.yml": "gate: {fail_on: never}\n"}, branch="loose"
    )
    run = world.repo.add_run(world.workflow, head_sha=loose, head_branch="loose")
    world.repo.add_artifact(run, "evals", files={"baseline.jsonl": example("baseline")})
    (world.workspace / "results" / "candidate.jsonl").write_text(regression())


def retarget(world: World, branch: str) -> None:
    world.pull.base_ref = branch
    world.pull.base_sha = world.repo.branches[branch]


def test_retargeting_to_a_looser_base_and_back_leaves_no_passing_check_for_main(
    world: World,
) -> None:
    """Into ``main`` the regression fails. The fork retargets the pull request to ``loose``
    (whose plan fails nothing), pushes, and retargets back with no run in between: the head
    carries only a check judged under ``loose``'s plan, and its name says so, so it never
    stands for the check ``main`` requires."""
    fork(world)
    assert evalbot_after(world, eval_run(world, candidate=regression())).code == 1
    assert required(world, world.pull.head_sha) == "failure"
    retarget(world, "loose")
    push(world)
    judged = evalbot_after(world, eval_run(world, candidate=regression()))
    assert judged.outputs["verdict"] == "regression", judged.stderr
    assert judged.code == 0  # under loose's plan, for loose
    retarget(world, "main")
    assert required(world, world.pull.head_sha) is None  # main's required check still waits
    assert required(world, world.pull.head_sha, "evalbot (base loose)") == "success"
    assert "Judged against the base `loose`" in judged.summary


def test_retargeting_to_a_branch_without_runs_and_back_leaves_no_passing_check_for_main(
    world: World,
) -> None:
    """Retargeted to ``stale``, a branch where the eval never ran: no baseline fails the check,
    under ``stale``'s name, and ``main``'s required check still waits."""
    fork(world)
    world.repo.branches["stale"] = world.root
    retarget(world, "stale")
    push(world)
    judged = evalbot_after(world, eval_run(world, candidate=regression()))
    assert judged.code == 1, judged.stderr
    assert "No baseline yet" in judged.summary
    retarget(world, "main")
    assert required(world, world.pull.head_sha) is None
    assert required(world, world.pull.head_sha, "evalbot (base stale)") == "failure"


def test_an_edited_base_is_judged_again_against_the_new_base(world: World) -> None:
    """With ``edited`` among the triggers (as the README's workflows list it), retargeting back
    to ``main`` runs evalbot again: the head gets ``main``'s verdict. A title edit runs nothing."""
    world.add_baseline_run()
    (world.workspace / "results" / "candidate.jsonl").write_text(regression())
    retarget(world, "main")
    title = pull_request_payload(world.pull, action="edited", changes={"title": {"from": "x"}})
    assert "only the title or body" in world.run("pull_request", title).stdout
    assert world.repo.check_runs_for(world.pull.head_sha) == []
    changes = {"base": {"ref": {"from": "loose"}, "sha": {"from": world.root}}}
    edited = pull_request_payload(world.pull, action="edited", changes=changes)
    result = world.run("pull_request", edited)
    assert result.outputs["verdict"] == "regression", result.stderr
    assert required(world, world.pull.head_sha) == "failure"


def test_a_second_pull_request_from_the_same_head_cannot_choose_the_base(world: World) -> None:
    """The fork opens #8 from the same branch into ``loose``, so that the shared head's check
    would be judged under ``loose``'s plan: every open pull request of the head is judged
    against its own base, each check named for it."""
    fork(world)
    other = world.repo.add_pull(
        number=8,
        head_sha=world.pull.head_sha,
        base_sha=world.repo.branches["loose"],
        base_ref="loose",
        head_ref=world.pull.head_ref,
        head_repo=world.pull.head_repo,
    )
    result = evalbot_after(world, eval_run(world, candidate=regression()))
    assert result.code == 1, result.stderr
    head = world.pull.head_sha
    assert required(world, head) == "failure"  # #7, against main's plan
    assert required(world, head, "evalbot (base loose)") == "success"  # #8, for loose only
    assert [c.issue_number for c in world.repo.comments.values()] == [7, other.number]


def test_a_new_workflow_with_the_same_name_finds_no_baseline_and_fails(world: World) -> None:
    """The fork adds ``.github/workflows/sneaky.yml`` with ``name: evals``: its run triggers the
    privileged workflow (``workflows: [evals]`` matches names), and that workflow has no runs on
    ``main``. The baseline is looked up by the workflow's file, and no baseline fails."""
    fork(world)
    sneaky = world.repo.add_workflow(".github/workflows/sneaky.yml", name="evals")
    run = world.repo.add_run(
        sneaky,
        head_sha=world.pull.head_sha,
        head_branch=world.pull.head_ref,
        event="pull_request",
        head_repo=world.pull.head_repo,
    )
    world.repo.add_artifact(run, "candidate-results", files={"c.jsonl": regression()})
    result = evalbot_after(world, run)
    assert result.code == 1, result.stderr
    assert "No successful run of workflow `sneaky.yml` on `main`" in result.summary
    assert required(world, world.pull.head_sha) == "failure"
    # the baseline workflow named by its file, as the fork-safe setup may pin it: compared
    pinned = evalbot_after(world, run, baseline_workflow="evals.yml")
    assert pinned.outputs["verdict"] == "regression", pinned.stderr
    assert required(world, world.pull.head_sha) == "failure"


def test_thirty_pushes_to_a_forks_main_cannot_flood_the_baseline_out_of_the_search(
    world: World,
) -> None:
    """The fork's pull request comes from its own ``main``: each of its 30 pushes is a
    successful ``pull_request`` run with head branch ``main``, newer than the base's own push
    run, enough to fill a window of the newest 30. Each allowed event is listed on its own, so
    the push run is found."""
    fork(world)
    world.pull.head_ref = "main"
    for _ in range(30):
        push(world)
        eval_run(world, candidate=regression())
    result = evalbot_after(world, eval_run(world, candidate=regression()))
    assert result.outputs["verdict"] == "regression", result.stderr
    assert result.code == 1
    assert required(world, world.pull.head_sha) == "failure"


def test_a_failed_eval_run_posts_a_failing_check(world: World) -> None:
    """The eval job fails in the fork-safe setup: evalbot fails the check, saying why, so that
    a required check does not wait forever."""
    fork(world)
    failed = eval_run(world, conclusion="failure")
    result = evalbot_after(world, failed)
    assert result.code == 1, result.stderr
    assert required(world, world.pull.head_sha) == "failure"
    (check,) = world.repo.check_runs_for(world.pull.head_sha)
    assert check.output["title"] == "The eval run failed"
    assert "concluded `failure`" in check.output["summary"]
    assert "The eval run failed" in world.ours()[0]
