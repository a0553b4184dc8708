"""Attacks on the count of looks: forged and edited comments, force pushes, parallel runs,
tampered check runs. Under ``policy.max_looks: 1`` the second commit judged must be refused,
however the attacker plays it."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
import zlib

import pytest

from evalbot.plan.ledger import parse_state
from tests.attacks.helpers import (
    BOT,
    MARKER,
    RESAMPLES,
    VERDICTS,
    latest_check,
    ours,
    plain,
    plan,
    push,
    strip_state,
)
from tests.integration.action_harness import World, example, pull_request_payload

ONE_LOOK = "policy: {max_looks: 1}\n" + RESAMPLES


def forged_state(looks: list[dict[str, object]], holdout_uses: int = 0) -> str:
    raw = json.dumps({"v": 1, "looks": looks, "holdout_uses": holdout_uses}).encode()
    return f"<!-- evalbot-state:v1 {base64.b64encode(raw).decode()} -->"


def test_a_marker_comment_posted_first_by_the_author_is_not_evalbots_state(
    world: World,
) -> None:
    """The PR author posts the marker before evalbot does. A bot that takes the first marker
    comment, whoever wrote it, as its own writes its verdict and its state into *her* comment;
    she deletes the state, pushes, and gets a second verdict under max_looks: 1."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    trap = world.repo.add_comment(world.pull.number, f"{MARKER}\nwatch this", author="mallory")
    first = world.run()
    assert first.code == 0, first.stderr
    assert first.outputs["verdict"] in VERDICTS
    # her comment is hers: never edited, and evalbot has its own
    assert world.repo.comments[trap.id].body == f"{MARKER}\nwatch this"
    assert len(ours(world)) == 1
    # she "cleans" every marker comment she can edit, then pushes
    for comment in world.repo.comments_on(world.pull.number):
        if comment.author == "mallory":
            comment.body = strip_state(comment.body)
    push(world)
    second = world.run()
    assert second.outputs["verdict"] == "inconclusive"
    assert second.code == 1
    assert latest_check(world, world.pull.head_sha) == "failure"
    assert "more than policy.max_looks = 1" in plain(second.summary)


def test_a_forged_state_block_gives_no_extra_looks_and_is_never_deleted(world: World) -> None:
    """The author posts a later comment with the marker and a state block of her own making
    (no earlier looks, or looks on other commits). A bot that trusts the marker deletes a later
    marker comment, whoever wrote it, and lets her state replace its own."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    first = world.run()
    assert first.outputs["verdict"] in VERDICTS, first.stderr
    forged = world.repo.add_comment(
        world.pull.number,
        f"{MARKER}\nlooks fine to me\n{forged_state([])}",
        author="mallory",
    )
    # she also empties evalbot's state where she can't: it is not her comment, so she can only
    # post hers; evalbot must neither read hers nor delete it
    push(world)
    second = world.run()
    assert forged.id in world.repo.comments, "evalbot deleted someone else's comment"
    assert world.repo.comments[forged.id].body.startswith(f"{MARKER}\nlooks fine to me")
    assert second.outputs["verdict"] == "inconclusive", second.stderr
    assert second.code == 1


def test_deleting_evalbots_comment_gains_nothing(world: World) -> None:
    """Someone with write access deletes evalbot's sticky comment (its state block with it)
    and pushes. The looks are counted from the check runs evalbot created on the pull request's
    commits, so they do not start afresh."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    assert world.run().outputs["verdict"] in VERDICTS
    for comment in ours(world):
        del world.repo.comments[comment.id]
    push(world)
    second = world.run()
    assert second.outputs["verdict"] == "inconclusive", second.stderr
    assert second.code == 1
    assert "this is look 2" in plain(second.summary)


def test_editing_evalbots_comment_state_gains_nothing(world: World) -> None:
    """Someone with write access rewrites the state in evalbot's comment to claim no looks."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    assert world.run().outputs["verdict"] in VERDICTS
    (comment,) = ours(world)
    comment.body = strip_state(comment.body) + "\n" + forged_state([])
    push(world)
    second = world.run()
    assert second.outputs["verdict"] == "inconclusive", second.stderr
    assert second.code == 1


def test_a_zlib_bomb_in_evalbots_state_is_refused_and_gains_nothing(world: World) -> None:
    """Someone with write access replaces the state in evalbot's comment with a v2 block whose
    zlib data inflates to 64 MiB (claiming no looks): the block is refused without inflating it
    (a warning says so), and the look it hides still counts."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    assert world.run().outputs["verdict"] in VERDICTS
    (comment,) = ours(world)
    bomb = zlib.compress(b'{"v": 1, "looks": [], "holdout_uses": 0' + b" " * (64 << 20) + b"}", 9)
    block = f"<!-- evalbot-state:v2 {base64.b64encode(bomb).decode()} -->"
    comment.body = strip_state(comment.body) + "\n" + block
    push(world)
    second = world.run()
    assert second.outputs["verdict"] == "inconclusive", second.stderr
    assert second.code == 1
    assert "the state block was ignored: the block is too large inflated" in plain(second.summary)


def test_a_force_push_to_a_new_commit_does_not_reset_the_count(world: World) -> None:
    """The author force-pushes: the commit already judged is no longer one of the pull
    request's commits. She also wipes the state of the marker comment she posted first (which
    evalbot must not adopt). The commit evalbot's own comment names keeps its check runs."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    world.repo.add_comment(world.pull.number, f"{MARKER}\nmine", author="mallory")
    judged = world.pull.head_sha
    assert world.run().outputs["verdict"] in VERDICTS
    for comment in world.repo.comments_on(world.pull.number):
        if comment.author == "mallory":
            comment.body = strip_state(comment.body)
    push(world, force=True)
    assert judged not in world.repo.pull_commits(world.pull.number)
    second = world.run()
    assert second.outputs["verdict"] == "inconclusive", second.stderr
    assert second.code == 1


def test_a_force_push_after_the_comment_was_deleted_does_not_reset_the_count(
    world: World,
) -> None:
    """Someone with write access deletes evalbot's comment, and the commit judged is force-pushed
    away: neither the pull request's commits nor the comment name it any more. The workflow's
    own runs on the pull request's branch still do (a record no commenter writes)."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()

    def pr_run() -> None:  # what GitHub starts for each push to the pull request
        world.repo.add_run(
            world.workflow,
            head_sha=world.pull.head_sha,
            head_branch="feature",
            event="pull_request",
            pull_numbers=[world.pull.number],
        )

    pr_run()
    assert world.run().outputs["verdict"] in VERDICTS
    for comment in ours(world):
        del world.repo.comments[comment.id]
    push(world, force=True)
    pr_run()
    second = world.run()
    assert second.outputs["verdict"] == "inconclusive", second.stderr
    assert second.code == 1


def test_four_parallel_pushes_under_max_looks_1_give_exactly_one_verdict(world: World) -> None:
    """Four pushes in quick succession, four runs side by side: each passes its head check
    before the next push, then all of them race. Unguarded, all four get verdicts (each
    reads the comment before any writes it). The tickets (check run ids) order them."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    release = threading.Event()
    world.fake.hold("POST", r"/repos/octo/evals/check-runs", release, times=4)
    patient = {"EVALBOT_GITHUB_TIMEOUT": "120"}
    steps = []
    shas = []
    try:
        for n in range(4):
            shas.append(push(world) if n else world.pull.head_sha)
            steps.append(
                world.spawn("pull_request", pull_request_payload(world.pull), extra_env=patient)
            )
            while world.fake.held < n + 1:  # this run is past its head check, at its ticket
                assert steps[-1].proc.poll() is None, steps[-1].wait().stderr
                time.sleep(0.05)
    finally:
        release.set()
    results = [step.wait() for step in steps]
    verdicts = [r for r in results if r.outputs.get("verdict") in VERDICTS]
    assert len(verdicts) == 1, [(r.code, r.outputs, r.stderr[-300:]) for r in results]
    refused = [r for r in results if r not in verdicts]
    assert all(r.outputs["verdict"] == "inconclusive" and r.code == 1 for r in refused)
    conclusions = sorted(latest_check(world, sha) or "" for sha in shas)
    assert conclusions.count("failure") == 3
    assert all(run.status == "completed" for run in world.repo.check_runs.values())


def _digest_concluding(conclusion: object) -> str:
    """A look digest in evalbot's encoding whose ``conclusion`` is ``conclusion``."""
    raw = json.dumps({"v": 1, "kind": "none", "head_sha": "a" * 40, "conclusion": conclusion})
    return f"<!-- evalbot-look:v1 {base64.b64encode(raw.encode()).decode()} -->"


@pytest.mark.parametrize(
    "text",
    [
        "<!-- evalbot-look:v1 garbage -->",
        _digest_concluding(["success"]),
        _digest_concluding({"success": 1}),
    ],
    ids=["garbage", "conclusion-list", "conclusion-object"],
)
def test_a_check_run_without_a_readable_record_counts_as_a_look(world: World, text: str) -> None:
    """A record of evalbot's own App whose digest was rewritten (only a workflow with the same
    token could) or is unreadable: fail closed, it counts as a look; it never gives one back."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()
    earlier = world.pull.head_sha
    world.repo.add_check_run(
        earlier, "evalbot", output={"title": "t", "summary": "s", "text": text}
    )
    push(world)
    result = world.run()
    assert result.outputs["verdict"] == "inconclusive", result.stderr
    assert result.code == 1
    assert "carries no readable record of its look" in plain(result.summary)


def test_the_holdout_uses_survive_an_author_wiping_her_marker_comment(world: World) -> None:
    """The sealed holdout may be used once: its uses, too, are counted from evalbot's records.
    A count kept in the first marker comment would be the author's to wipe."""
    ids = sorted({json.loads(line)["id"] for line in example("baseline").splitlines()})
    sealed = "".join(f"{i}\n" for i in ids[:100])
    world.base = world.repo.add_commit(
        parents=[world.base],
        files={
            ".evalbot.yml": "holdout: {ids_file: evals/holdout.txt, max_uses: 1}\n" + RESAMPLES,
            "evals/holdout.txt": sealed,
        },
        branch="main",
    )
    world.pull.base_sha = world.base
    world.add_baseline_run()
    marker = "<!-- evalbot:holdout -->"
    world.repo.add_comment(world.pull.number, f"{marker}\nmine", author="mallory")
    first = world.run(holdout="true", name="holdout")
    assert first.outputs["verdict"] in VERDICTS, first.stderr
    assert "more than holdout.max_uses" not in plain(first.summary)
    for comment in world.repo.comments_on(world.pull.number):
        if comment.author == "mallory":
            comment.body = strip_state(comment.body)
    push(world)
    second = world.run(holdout="true", name="holdout")
    assert second.outputs["verdict"] in VERDICTS, second.stderr
    assert "used 2 times, more than holdout.max_uses = 1" in plain(second.summary)


def test_a_hostile_state_block_in_someone_elses_comment_costs_nothing(world: World) -> None:
    """A commenter posts the marker and an unterminated state block padded with 100,000
    spaces: the old state regex was cubic (4,000 spaces took 117 s), so this hung the job."""
    world.add_baseline_run()
    world.repo.add_comment(
        world.pull.number,
        f"{MARKER}\n<!-- evalbot-state:v1 " + " " * 100_000,
        author="mallory",
    )
    result = world.run()
    assert result.code == 0, result.stderr
    assert result.outputs["verdict"] in VERDICTS
    assert [c.author for c in ours(world)] == [BOT]


def a_look_on(world: World, n: int) -> dict[str, object]:
    """Look ``n`` on a commit no longer in the pull request, as evalbot records it."""
    return {
        "head_sha": hashlib.sha1(b"%d" % n).hexdigest(),
        "tree": hashlib.sha1(b"tree %d" % n).hexdigest(),
        "base_sha": world.base,
        "base_ref": "main",
        "plan": hashlib.sha1(b"plan").hexdigest(),
        "items": 400,
        "fingerprint": hashlib.sha256(b"%d" % n).hexdigest(),
        "pvalue": 0.0123456789,
        "outcome": "regression",
        "metric": "pass_rate",
        "effect": -0.04251234,
        "effect_ci": [-0.0751234, -0.0101234],
        "at": "2026-11-30T09:00:00Z",
        "holdout": False,
        "number": n,
        "pull": world.pull.number,
    }


def test_a_hundred_looks_on_force_pushed_commits_stay_counted(world: World) -> None:
    """Looks on commits force-pushed out of the pull request are named only by evalbot's
    comment. As many as a v1 block within GitHub's limit holds (about a hundred), and one
    more: all must come back on the next run, which a state block cut to fit the comment
    would forget."""
    plan(world, ONE_LOOK)
    world.add_baseline_run()

    def comment(count: int) -> str:
        data = {"v": 1, "looks": [a_look_on(world, n) for n in range(1, count + 1)]}
        raw = json.dumps(data, separators=(",", ":")).encode()
        return f"{MARKER}\n<!-- evalbot-state:v1 {base64.b64encode(raw).decode()} -->"

    # the most looks a block holds with room for a line more (evalbot's `says`)
    most = max(count for count in range(50, 150) if len(comment(count)) <= 65_536 - 100)
    world.repo.add_comment(world.pull.number, comment(most), author=BOT, author_type="Bot")
    first = world.run()
    assert f"this is look {most + 1}" in plain(first.summary), first.stderr
    (own,) = ours(world)
    assert len(own.body) <= 65_536 and "evalbot-state:v2 " in own.body
    push(world, force=True)
    second = world.run()
    assert f"this is look {most + 2}" in plain(second.summary), second.stderr
    (own,) = ours(world)
    assert len(parse_state(own.body).looks) == most + 2
    assert "state block" not in plain(second.summary)
