"""``evalbot action`` end to end: the runner's environment (in process, or as a subprocess for
the entry point and for concurrent runs), the fake GitHub on 127.0.0.1 (real HTTP, real
PyGithub), assertions on the fake's final state."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from evalbot.report.numbers import format_effect
from tests.fakegithub import READ_ALL, FakeGitHub, Run
from tests.integration.action_harness import (
    ARTIFACT,
    StepResult,
    World,
    example,
    workflow_run_payload,
)

MARKER = "<!-- evalbot:evalbot -->"


def plain(body: str) -> str:
    """The comment's text with text.escape's backslashes and word joiners taken out."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", body).replace("\u2060", "")


@pytest.fixture
def world(fake_github: FakeGitHub, tmp_path: Path) -> World:
    return World(fake_github, tmp_path)


def test_pull_request_posts_one_sticky_comment_and_a_check(world: World) -> None:
    baseline_run = world.add_baseline_run()
    first = world.run(process=True)  # the real entry point once; in process elsewhere
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


def test_github_enterprise_server_serves_the_api_under_a_path(
    fake_ghes: FakeGitHub, tmp_path: Path
) -> None:
    """GHES: GITHUB_API_URL is https://host/api/v3; every call, the artifact's download URL and
    its 302 carry the prefix."""
    world = World(fake_ghes, tmp_path)
    baseline_run = world.add_baseline_run()
    result = world.run()
    assert result.code == 0, result.stderr
    assert result.outputs["verdict"] == "improvement"
    (body,) = world.ours()
    assert body.startswith(MARKER)
    assert f"artifact `{ARTIFACT}` from run [{baseline_run.id}]" in body
    (check,) = world.repo.check_runs_for(world.head)
    assert (check.status, check.conclusion) == ("completed", "success")
    downloads = fake_ghes.requests_to("GET", r"/repos/octo/evals/actions/artifacts/\d+/zip")
    assert [d.status for d in downloads] == [302]
    blobs = fake_ghes.requests_to("GET", r"/_blob/.*")
    assert [b.status for b in blobs] == [200]
    assert not any(b.has_authorization for b in blobs)
    # nothing went outside the prefix (the fake answers 404 there)
    assert fake_ghes.requests
    assert all(r.raw_path.startswith("/api/v3/") for r in fake_ghes.requests)


def test_a_new_head_folds_the_earlier_look_into_history(world: World) -> None:
    world.add_baseline_run()
    first = world.run()
    assert first.code == 0, first.stderr
    new_head = world.repo.add_commit(
        parents=[world.head], files={"model.txt": "v3\n"}, branch="feature", message="v3"
    )
    world.pull.head_sha = new_head
    result = world.run()
    assert result.code == 0, result.stderr
    (body,) = world.ours()
    assert "Earlier looks: 1" in body
    assert f"[{world.head[:7]}](https://github.com/octo/evals/commit/{world.head})" in body
    # the earlier look's row shows its effect and interval (from the state block), and when
    out = first.outputs
    effect = format_effect(
        float(out["difference"]), float(out["ci-low"]), float(out["ci-high"]), percent=True
    )
    (row,) = [line for line in plain(body).splitlines() if line.startswith("| 1 | ")]
    assert row.startswith(f"| 1 | ✅ Improvement | {effect} | {out['p-value'][:5]}")
    assert re.search(r"\| \d{4}-\d\d-\d\d \d\d:\d\d UTC \|$", row), row
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


def test_no_baseline_yet_fails_the_check_with_the_remedy(world: World) -> None:
    """Nothing to compare with is not a pass on a pull request (a required check would let it
    through): the check fails and says to run the eval on the base branch first;
    ``gate.on_no_baseline: neutral`` in the base's plan leaves it neutral."""
    result = world.run()
    assert result.code == 1, result.stderr
    (body,) = world.ours()
    assert "No baseline yet" in body
    assert (
        "Searched: the successful runs of `evals.yml` on `main` from push, schedule or "
        "workflow_dispatch: there are none. That covers every such run of the branch, as for "
        "the first pull request after installing evalbot: run the eval workflow on `main` "
        "first"
    ) in plain(body)
    assert "Until then the check fails" in plain(body)
    (check,) = world.repo.check_runs_for(world.head)
    assert (check.status, check.conclusion) == ("completed", "failure")
    assert "gate.on_no_baseline: neutral" in plain(check.output["summary"])
    assert (result.outputs["conclusion"], result.outputs["gate"]) == ("failure", "fail")
    assert result.outputs["verdict"] == "inconclusive"
    assert "::error title=evalbot%3A No baseline yet::" in result.stdout
    world.base = world.repo.add_commit(
        parents=[world.base], files={".evalbot.yml": "gate: {on_no_baseline: neutral}\n"}
    )
    world.pull.base_sha = world.base
    opted = world.run()
    assert opted.code == 0, opted.stderr
    assert world.repo.check_runs_for(world.head)[-1].conclusion == "neutral"
    assert "::warning title=evalbot%3A No baseline yet::" in opted.stdout


def test_a_search_that_stops_early_says_what_it_searched_and_how_to_widen_it(
    world: World,
) -> None:
    """A long-lived branch: the baseline is older than the newest runs; "expected for the first
    pull request" would mislead, so the message says how far back it looked."""
    old = world.add_baseline_run(world.root)
    newer = [world.repo.add_run(world.workflow, head_sha=world.base, head_branch="main")]
    newer += [world.repo.add_run(world.workflow, head_sha=world.base, head_branch="main")]
    newer += [world.repo.add_run(world.workflow, head_sha=world.base, head_branch="main")]
    short = world.run(baseline_search_runs="3")
    assert short.code == 1, short.stderr
    (body,) = world.ours()
    assert "No baseline in the runs searched" in body
    assert "first pull request" not in body
    ids = ", ".join(str(run.id) for run in reversed(newer))
    assert (
        "Searched: the newest 3 successful runs of `evals.yml` on `main` from push, schedule "
        f"or workflow_dispatch; runs {ids} uploaded no artifact by that name. "
        "Older runs were not searched: the search stops at the newest 3 runs (input "
        "`baseline-search-runs`). Raise it to look further back"
    ) in body
    assert world.repo.check_runs_for(world.head)[-1].conclusion == "failure"
    wide = world.run(baseline_search_runs="10")
    assert wide.code == 0, wide.stderr
    (body,) = world.ours()
    assert f"from run [{old.id}]" in body
    assert wide.outputs["verdict"] == "improvement"


def test_the_commit_budget_is_an_input_too(world: World) -> None:
    old = world.add_baseline_run(world.root)
    tip = world.base
    for n in range(3):  # main moved on: three newer commits, each with a run (never used)
        tip = world.repo.add_commit(parents=[tip], message=f"later {n}", branch="main")
        world.repo.add_run(world.workflow, head_sha=tip, head_branch="main")
    short = world.run(baseline_search_commits="2")
    (body,) = world.ours()
    assert short.outputs["conclusion"] == "failure", short.stderr
    assert (
        "2 commits checked for being the base commit or one of its ancestors; 2 runs of "
        "commits newer than that or on another line (never used)."
    ) in body
    assert "the search stops at 2 commits back (input `baseline-search-commits`)" in body
    assert world.run().outputs["verdict"] == "improvement"  # the default, 10, reaches it
    (body,) = world.ours()
    assert f"from run [{old.id}]" in body
    bad = world.run(baseline_search_commits="0")
    assert bad.code == 2
    assert "input `baseline-search-commits` must be from 1 to 200, got '0'" in bad.stderr


def test_an_expired_baseline_artifact_fails_like_no_baseline(world: World) -> None:
    world.add_baseline_run(expired=True)
    result = world.run()
    assert result.code == 1, result.stderr
    (body,) = world.ours()
    assert "has expired" in body
    (check,) = world.repo.check_runs_for(world.head)
    assert check.conclusion == "failure"
    assert world.fake.requests_to("GET", r"/repos/octo/evals/actions/artifacts/\d+/zip") == []


def test_baseline_with_another_item_set_fails_the_check(world: World) -> None:
    """The pull request changed the item set: a verdict the plan refuses, someone's doing, so it
    fails by default (a neutral check would let a required check through)."""
    world.add_baseline_run(files={"r.jsonl": '{"id": "other-1", "passed": true}\n'})
    result = world.run()
    assert result.code == 1, result.stderr
    (body,) = world.ours()
    assert "Baseline has another item set" in body
    assert world.repo.check_runs_for(world.head)[0].conclusion == "failure"
    assert (result.outputs["gate"], result.outputs["conclusion"]) == ("fail", "failure")


def test_baseline_with_another_item_set_is_neutral_when_the_plan_says_so(world: World) -> None:
    world.base = world.repo.add_commit(
        parents=[world.base], files={".evalbot.yml": "gate: {on_refused: neutral}\n"}, branch="main"
    )
    world.pull.base_sha = world.base
    world.add_baseline_run(files={"r.jsonl": '{"id": "other-1", "passed": true}\n'})
    result = world.run()
    assert result.code == 0, result.stderr
    assert world.repo.check_runs_for(world.head)[0].conclusion == "neutral"
    assert (result.outputs["gate"], result.outputs["conclusion"]) == ("pass", "neutral")


@pytest.mark.parametrize(
    ("member", "message"),
    [("../evil.jsonl", "path outside the archive"), ("/abs.jsonl", "path outside the archive")],
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
    assert "This pull request changes the analysis plan" in body
    assert "the plan of the base branch applies" in body
    assert "+++ .evalbot.yml (this pull request)" in body
    assert "+alpha: 0.5" in body
    assert "-alpha: 0.05" in body
    # and the base's alpha (0.05) decided
    assert "below alpha = 0.05" in body


def test_a_config_under_another_name_is_named_in_the_change_note(world: World) -> None:
    world.add_baseline_run()
    head = world.repo.add_commit(
        parents=[world.head],
        files={"ci/evals plan.yml": "alpha: 0.5\nbootstrap: {resamples: 1000, seed: 0}\n"},
        branch="feature",
    )
    world.pull.head_sha = head
    result = world.run(payload=None, config="ci/evals plan.yml")
    assert result.code == 0, result.stderr
    (body,) = world.ours()
    assert (
        "This pull request changes the analysis plan (<code>ci/evals plan.yml</code>); "
        "the plan of the base branch applies"
    ) in body
    assert "+++ ci/evals plan.yml (this pull request)" in body
    assert ".evalbot.yml" not in body


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
    assert "nope.jsonl" in plain(check.output["summary"])  # the message, escaped
    assert "nope.jsonl" in plain(result.summary)
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
    (world.workspace / "results" / "candidate.jsonl").write_text(example("baseline"))
    result = world.run()
    assert result.code == 1, result.stderr
    assert result.outputs["verdict"] == "regression"
    assert result.outputs["gate"] == "fail"
    assert world.repo.check_runs_for(world.head)[0].conclusion == "failure"
    (body,) = world.ours()
    assert "Regression" in body


# ---- forks and workflow_run ----

READ_ONLY = "ghs_readOnlyForkToken000000000000000001"


def test_fork_with_a_read_only_token_writes_summary_outputs_and_a_warning(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path, fork=True)
    fake_github.add_token(READ_ONLY, permissions=READ_ALL)
    world.add_baseline_run()
    result = world.run(github_token=READ_ONLY)
    assert result.code == 0, result.stderr
    assert world.repo.comments_on(world.pull.number) == []
    assert world.repo.check_runs_for(world.head) == []
    assert "::warning title=evalbot%3A read-only token::" in result.stdout
    assert "workflow_run" in result.stdout
    assert result.outputs["verdict"] == "improvement"
    assert result.outputs["comment-url"] == ""
    assert "Improvement" in result.summary
    assert "two-workflow setup" in result.summary


def _pr_run(world: World, artifact_files: dict[str, str] | None = None) -> Run:
    run = world.repo.add_run(
        world.workflow,
        head_sha=world.pull.head_sha,
        head_branch="feature",
        event="pull_request",
        pull_numbers=[world.pull.number],
    )
    files = artifact_files or {"candidate.jsonl": example("candidate")}
    world.repo.add_artifact(run, "candidate-results", files=files)
    return run


WORKFLOW_RUN_INPUTS = {"candidate": "", "candidate_artifact": "candidate-results"}


def test_workflow_run_posts_from_the_triggering_runs_artifact(world: World) -> None:
    world.add_baseline_run()
    run = _pr_run(world)
    payload = workflow_run_payload(run, world.workflow, pulls=[world.pull])
    (world.workspace / "results" / "candidate.jsonl").unlink()  # nothing of the PR is checked out
    result = world.run("workflow_run", payload, **WORKFLOW_RUN_INPUTS)
    assert result.code == 0, result.stderr
    (body,) = world.ours()
    assert "Improvement" in body
    (check,) = world.repo.check_runs_for(world.head)
    assert check.conclusion == "success"
    listed = world.fake.requests_to("GET", rf"/repos/octo/evals/actions/runs/{run.id}/artifacts")
    assert listed


SWE_IDS = [f"django__django-{1000 + i}" for i in range(40)]


def _swebench_world(world: World, *, config_path: str = ".evalbot.yml", ids_path: str = "") -> None:
    """A plan that names ``all_ids`` at the base commit, and that file beside it in the same
    commit; the workspace is empty: the fork-safe ``workflow_run`` job checks nothing out."""
    folder = config_path.rpartition("/")[0]
    ids_path = ids_path or (f"{folder}/" if folder else "") + "evals/ids.txt"
    config = "alpha: 0.05\nbootstrap: {resamples: 1000, seed: 0}\nall_ids: evals/ids.txt\n"
    files = {config_path: config}
    if ids_path:
        files[ids_path] = "\n".join(SWE_IDS) + "\n"
    base = world.repo.add_commit(parents=[world.base], files=files, branch="main", message="ids")
    head = world.repo.add_commit(parents=[base], files={"model.txt": "v2\n"}, branch="feature")
    world.pull.base_sha, world.pull.head_sha = base, head
    (world.workspace / "results" / "candidate.jsonl").unlink()
    (world.workspace / "results").rmdir()
    assert list(world.workspace.iterdir()) == []  # no checkout


def _swebench_run(world: World, **inputs: str) -> StepResult:
    # resolved-id lists only: which instances were attempted comes from all_ids alone
    # baseline resolves 10 of 40; the candidate the same 10 and 10 more: fixed 10, broken 0
    world.add_baseline_run(
        world.pull.base_sha, files={"results.json": json.dumps({"resolved": SWE_IDS[:10]})}
    )
    run = _pr_run(world, {"results.json": json.dumps({"resolved": SWE_IDS[:20]})})
    payload = workflow_run_payload(run, world.workflow, pulls=[world.pull])
    return world.run("workflow_run", payload, **WORKFLOW_RUN_INPUTS, **inputs)


def test_workflow_run_reads_all_ids_at_the_base_commit_without_a_checkout(world: World) -> None:
    _swebench_world(world)
    result = _swebench_run(world)
    assert result.code == 0, result.stderr
    out = result.outputs
    assert (out["fixed"], out["broken"]) == ("10", "0")
    # McNemar exact, fixed=10 broken=0: p = 2 / 2**10 (STYLE.md's worked value)
    assert float(out["p-value"]) == pytest.approx(2 / 1024, rel=1e-5)  # printed with 6 digits
    assert out["verdict"] == "improvement"
    (body,) = world.ours()
    assert "| 40 items | candidate passes | candidate fails |" in body
    assert "| **baseline fails** | **10 fixed** | 20 both fail |" in body
    # the id list came from the base commit, through the contents API
    reads = world.fake.requests_to("GET", r"/repos/octo/evals/contents/evals/ids\.txt")
    assert reads and all(r.query.get("ref") == [world.pull.base_sha] for r in reads)


def test_all_ids_is_relative_to_the_config_file(world: World) -> None:
    """``config: .github/evalbot.yml`` with ``all_ids: evals/ids.txt`` reads
    ``.github/evals/ids.txt``, as ``policy.items_file`` would be read."""
    _swebench_world(world, config_path=".github/evalbot.yml")
    result = _swebench_run(world, config=".github/evalbot.yml")
    assert result.code == 0, result.stderr
    assert (result.outputs["fixed"], result.outputs["broken"]) == ("10", "0")
    assert world.fake.requests_to("GET", r"/repos/octo/evals/contents/\.github/evals/ids\.txt")


def test_all_ids_missing_at_the_base_commit_says_where(world: World) -> None:
    _swebench_world(world, ids_path="elsewhere/ids.txt")
    result = _swebench_run(world)
    assert result.code == 2, result.stderr
    where = f".evalbot.yml@{world.pull.base_sha[:7]}"
    assert (
        f"{where}: `all_ids` names 'evals/ids.txt', which does not exist (read relative to "
        "the config file)" in plain(result.summary)
    )
    assert world.ours() == []
    (check,) = world.repo.check_runs_for(world.pull.head_sha)
    assert check.conclusion == "failure"


def test_workflow_run_from_a_fork_finds_the_pull_by_head_sha(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path, fork=True)
    world.add_baseline_run()
    run = _pr_run(world)
    # GitHub lists no pull_requests for a run from a fork
    payload = workflow_run_payload(run, world.workflow, pulls=[], head_repo="someone/evals")
    result = world.run("workflow_run", payload, **WORKFLOW_RUN_INPUTS)
    assert result.code == 0, result.stderr
    assert len(world.ours()) == 1
    assert world.repo.check_runs_for(world.head)[0].conclusion == "success"


def test_workflow_run_for_a_stale_head_posts_nothing(world: World) -> None:
    world.add_baseline_run()
    run = _pr_run(world)
    payload = workflow_run_payload(run, world.workflow, pulls=[world.pull])
    world.pull.head_sha = world.repo.add_commit(
        parents=[world.head], files={"model.txt": "v3\n"}, branch="feature"
    )
    result = world.run("workflow_run", payload, **WORKFLOW_RUN_INPUTS)
    assert result.code == 0, result.stderr
    assert "has moved on" in result.stdout
    assert world.ours() == []
    assert world.repo.check_runs_for(world.head) == []
    assert result.outputs["conclusion"] == "skipped"


def test_workflow_run_refuses_a_workspace_candidate(world: World) -> None:
    world.add_baseline_run()
    run = _pr_run(world)
    payload = workflow_run_payload(run, world.workflow, pulls=[world.pull])
    result = world.run("workflow_run", payload)
    assert result.code == 2
    assert "never reads the pull request's files" in result.stdout
    assert world.ours() == []
    assert world.repo.check_runs_for(world.head)[0].conclusion == "failure"


def test_workflow_run_of_a_skipped_eval_is_skipped(world: World) -> None:
    """Nothing ran (the eval job's `if:` skipped it): nothing to judge, nothing to fail."""
    run = _pr_run(world)
    run.conclusion = "skipped"
    payload = workflow_run_payload(run, world.workflow, pulls=[world.pull])
    result = world.run("workflow_run", payload, **WORKFLOW_RUN_INPUTS)
    assert result.code == 0
    assert "concluded `skipped`" in result.stdout
    assert world.fake.requests_to("POST", r".*") == []


# ---- tokens, permissions, transient failures ----

PAT = "ghp_personalToken000000000000000000000001"


def test_a_personal_token_gets_a_commit_status(fake_github: FakeGitHub, tmp_path: Path) -> None:
    world = World(fake_github, tmp_path)
    fake_github.add_token(PAT, kind="pat")
    world.add_baseline_run()
    result = world.run(github_token=PAT)
    assert result.code == 0, result.stderr
    assert world.repo.check_runs_for(world.head) == []
    states = [(s.context, s.state) for s in world.repo.statuses_for(world.head)]
    assert states == [("evalbot", "pending"), ("evalbot", "success")]
    assert len(world.ours()) == 1


def test_missing_checks_permission_says_which_permission(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path)
    token = "ghs_noChecksToken00000000000000000000001"
    fake_github.add_token(token, permissions={**READ_ALL, "pull-requests": "write"})
    world.add_baseline_run()
    result = world.run(github_token=token)
    assert result.code == 2
    assert "permissions: checks: write" in result.stderr
    assert world.ours() == []
    assert token not in result.stdout.replace(f"::add-mask::{token}", "") + result.stderr


def test_a_rejected_token_is_one_line(world: World) -> None:
    result = world.run(github_token="ghs_wrong0000000000000000000000000000001")
    assert result.code == 2
    assert "GitHub rejected the token" in result.stderr
    assert "Traceback" not in result.stderr


def test_transient_server_errors_are_retried(world: World) -> None:
    world.add_baseline_run()
    world.fake.inject_server_error("POST", r"/repos/octo/evals/check-runs", 502, times=1)
    world.fake.inject_server_error("GET", r"/repos/octo/evals/issues/7/comments", 503, times=1)
    result = world.run()
    assert result.code == 0, result.stderr
    assert len(world.ours()) == 1
    assert world.repo.check_runs_for(world.head)[0].conclusion == "success"


def test_a_422_on_the_comment_is_reported(world: World) -> None:
    world.add_baseline_run()
    world.fake.inject_error("POST", r"/repos/octo/evals/issues/7/comments", 422, times=None)
    result = world.run()
    assert result.code == 2
    assert "GitHub rejected the request (422" in result.stderr


def test_a_deleted_pull_request_is_a_404_with_a_hint(world: World) -> None:
    world.add_baseline_run()
    run = _pr_run(world)
    payload = workflow_run_payload(run, world.workflow, pulls=[world.pull])
    world.fake.inject_error(
        "GET", r"/repos/octo/evals/(pulls/7|commits/\w+/pulls)", 404, times=None
    )
    result = world.run("workflow_run", payload, **WORKFLOW_RUN_INPUTS)
    assert result.code == 2
    assert "pull-requests: read" in result.stderr


# ---- push and workflow_dispatch ----


def test_push_without_a_baseline_validates_and_summarises(world: World) -> None:
    payload = {"after": world.base, "ref": "refs/heads/main"}
    main = {"GITHUB_REF": "refs/heads/main", "GITHUB_SHA": world.base}
    result = world.run("push", payload, extra_env=main, baseline_artifact="")
    assert result.code == 0, result.stderr
    assert "is valid: pass rate 74.2 % over 400 items" in result.summary
    assert result.outputs["conclusion"] == "validated"
    assert world.fake.requests_to("POST", r".*") == []


def test_dispatch_compares_with_the_previous_baseline(world: World) -> None:
    older = world.add_baseline_run(world.root)
    main = {"GITHUB_REF": "refs/heads/main", "GITHUB_SHA": world.base}
    result = world.run("workflow_dispatch", {"inputs": {}}, extra_env=main)
    assert result.code == 0, result.stderr
    assert result.outputs["verdict"] == "improvement"
    assert f"run [{older.id}]" in result.summary
    assert world.repo.check_runs_for(world.base) == []


def test_unhandled_event_is_skipped(world: World) -> None:
    result = world.run("issue_comment", {"action": "created"})
    assert result.code == 0
    assert "does not handle `issue_comment`" in result.stdout
    assert result.outputs["conclusion"] == "skipped"


# ---- racing runs and size limits ----


def test_two_racing_runs_leave_exactly_one_comment(world: World) -> None:
    world.add_baseline_run()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _: world.run(), range(2)))
    assert [r.code for r in results] == [0, 0], [r.stderr for r in results]
    assert len(world.ours()) == 1
    # and a third run still finds and edits it
    assert world.run().code == 0
    assert len(world.ours()) == 1


def test_a_huge_report_fits_the_comment_limit_and_the_summary_has_it_all(world: World) -> None:
    # long ids and one long slice name per item: the full report is far over 65,536 characters
    ids = [f"item-{i:04d}-" + "x" * 1500 for i in range(120)]
    slices = [f"slice-{i:04d}-" + "y" * 1500 for i in range(120)]
    baseline = "".join(
        f'{{"id": "{i}", "passed": true, "slice": "{s}"}}\n'
        for i, s in zip(ids, slices, strict=True)
    )
    candidate = "".join(
        f'{{"id": "{i}", "passed": {str(n % 3 == 0).lower()}, "slice": "{s}"}}\n'
        for n, (i, s) in enumerate(zip(ids, slices, strict=True))
    )
    world.add_baseline_run(files={"b.jsonl": baseline})
    (world.workspace / "results" / "candidate.jsonl").write_text(candidate)
    result = world.run()
    assert result.code == 1, result.stderr  # 80 broken: a significant regression
    (body,) = world.ours()
    assert len(body) <= 65_536
    assert body.startswith(MARKER)
    assert "evalbot-state:" in body
    # the lists are cut, with a count of what is left out
    shown = body.count("item\\-0")
    assert 0 < shown < 50  # fewer than the usual 50 per list: shrunk to fit
    assert f"- … and {80 - shown} more" in body
    assert re.search(r"… and \d+ more slices \(all of them are in the job summary\)", body)
    # the job summary has every broken item and every slice
    assert result.summary.count("item\\-0") == 80
    assert result.summary.count("| slice\\-0") == 120
    assert "- … and" not in result.summary
    assert "more slices" not in result.summary
    check = max(world.repo.check_runs_for(world.head), key=lambda c: c.id)
    assert len(check.output["summary"]) <= 65_535


def test_a_refused_comment_completes_the_check_as_failure(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path)
    token = "ghs_noCommentToken0000000000000000000001"
    fake_github.add_token(token, permissions={**READ_ALL, "checks": "write"})
    world.add_baseline_run()
    result = world.run(github_token=token)
    assert result.code == 2
    assert "permissions: pull-requests: write" in result.stderr
    assert world.ours() == []
    (check,) = world.repo.check_runs_for(world.head)
    assert (check.status, check.conclusion) == ("completed", "failure")
    assert "pull-requests: write" in plain(check.output["summary"])
    assert result.outputs["conclusion"] == "failure"
    assert "could not publish its result" in result.summary
    # the check had shown the verdict before the comment was refused: it stays a look
    from evalbot.plan.ledger import parse_digest

    record = parse_digest(check.output["text"])
    assert record is not None and record.kind == "look"


def test_a_fork_pull_request_run_on_a_branch_named_main_is_never_the_baseline(
    world: World,
) -> None:
    genuine = world.add_baseline_run()
    forged = world.repo.add_run(
        world.workflow,
        head_sha=world.base,
        head_branch="main",
        event="pull_request",
        head_repo="mallory/evals",
    )
    world.repo.add_artifact(forged, ARTIFACT, files={"b.jsonl": example("candidate")})
    result = world.run()
    assert result.code == 0, result.stderr
    (body,) = world.ours()
    assert f"from run [{genuine.id}]" in body
    assert f"run [{forged.id}]" not in body


def test_looks_are_carried_in_the_comment_and_max_looks_refuses_a_second_verdict(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path)
    world.base = world.repo.add_commit(
        parents=[world.base],
        files={".evalbot.yml": "policy: {max_looks: 1}\nbootstrap: {resamples: 1000}\n"},
        branch="main",
    )
    world.pull.base_sha = world.base
    world.add_baseline_run()
    first = world.run()
    assert first.code == 0, first.stderr
    assert first.outputs["verdict"] == "improvement"
    # a re-run of the same commit is not a new look
    assert world.run().outputs["verdict"] == "improvement"
    world.pull.head_sha = world.repo.add_commit(
        parents=[world.head], files={"model.txt": "v4\n"}, branch="feature"
    )
    second = world.run()
    # a refused verdict fails the check (neutral would pass a required check)
    assert second.code == 1, second.stderr
    assert second.outputs["verdict"] == "inconclusive"
    assert (second.outputs["gate"], second.outputs["conclusion"]) == ("fail", "failure")
    (body,) = world.ours()
    assert "policy.max_looks = 1; a verdict is refused" in plain(body)
    assert "Earlier looks: 1" in body
    assert "<!-- evalbot-state:v2 " in body
    checks = world.repo.check_runs_for(world.pull.head_sha)
    assert [c.conclusion for c in checks] == ["failure"]


def test_files_the_plan_names_are_read_at_the_base_commit(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path)
    ids = "".join(f"{i}\n" for i in sorted(set(_ids(example("baseline")))))
    world.base = world.repo.add_commit(
        parents=[world.base],
        files={
            ".evalbot.yml": "policy: {items_file: evals/items.txt}\nbootstrap: {resamples: 1000}\n",
            "evals/items.txt": ids,
        },
        branch="main",
    )
    world.pull.base_sha = world.base
    world.add_baseline_run()
    result = world.run()
    assert result.code == 0, result.stderr
    assert result.outputs["verdict"] == "improvement"
    reads = world.fake.requests_to("GET", r"/repos/octo/evals/contents/evals/items\.txt")
    assert [r.query.get("ref") for r in reads] == [[world.base]]
    # an items file that does not hold the eval's items refuses the verdict
    world.base = world.repo.add_commit(
        parents=[world.base], files={"evals/items.txt": "only-one\n"}, branch="main"
    )
    world.pull.base_sha = world.base
    world.add_baseline_run()
    assert world.run().outputs["verdict"] == "inconclusive"


def _ids(jsonl: str) -> list[str]:
    import json

    return [json.loads(line)["id"] for line in jsonl.splitlines() if line.strip()]


def _with_holdout(world: World, max_uses: int = 1) -> list[str]:
    """Put a sealed holdout (the first 100 of the example's 400 ids) in the plan at the base."""
    sealed = sorted(set(_ids(example("baseline"))))[:100]
    world.base = world.repo.add_commit(
        parents=[world.base],
        files={
            ".evalbot.yml": (
                f"holdout: {{ids_file: evals/holdout.txt, max_uses: {max_uses}}}\n"
                "bootstrap: {resamples: 1000}\n"
            ),
            "evals/holdout.txt": "".join(f"{i}\n" for i in sealed),
        },
        branch="main",
    )
    world.pull.base_sha = world.base
    world.add_baseline_run()
    return sealed


def test_the_holdout_input_analyses_the_sealed_items_and_counts_each_use(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    from evalbot.plan.ledger import parse_state

    world = World(fake_github, tmp_path)
    sealed = _with_holdout(world)
    # the regular analysis leaves the sealed items out
    regular = world.run()
    assert regular.code == 0, regular.stderr
    (body,) = world.ours()
    assert "| 300 items |" in body
    assert not any(i.replace("-", "\\-") in body for i in sealed)
    assert parse_state(body).holdout_uses == 0

    # the holdout job (its own name: its own comment and check) analyses only them
    first = world.run(holdout="true", name="holdout")
    assert first.code == 0, first.stderr
    assert first.outputs["verdict"] in ("improvement", "regression", "no_significant_difference")
    (held,) = [b for b in world.ours() if b.startswith("<!-- evalbot:holdout -->")]
    assert "| 100 items |" in held
    assert "sealed set this analysis uses the sealed holdout, use 1 of 1" in plain(held)
    assert parse_state(held).holdout_uses == 1
    assert {c.name for c in world.repo.check_runs_for(world.head)} == {"evalbot", "holdout"}
    # a re-run of the same commit is not another use
    assert world.run(holdout="true", name="holdout").code == 0
    (held,) = [b for b in world.ours() if b.startswith("<!-- evalbot:holdout -->")]
    assert parse_state(held).holdout_uses == 1
    # a new commit is: beyond holdout.max_uses the verdict warns
    world.pull.head_sha = world.repo.add_commit(
        parents=[world.head], files={"model.txt": "v5\n"}, branch="feature"
    )
    assert world.run(holdout="true", name="holdout").code == 0
    (held,) = [b for b in world.ours() if b.startswith("<!-- evalbot:holdout -->")]
    assert parse_state(held).holdout_uses == 2
    assert "more than holdout.max_uses = 1" in plain(held)


def test_the_holdout_input_without_a_holdout_in_the_plan_fails_the_check(world: World) -> None:
    world.add_baseline_run()
    result = world.run(holdout="true")
    assert result.code == 2
    assert "the holdout was requested but the plan has no readable `holdout.ids_file`" in (
        result.stdout
    )
    assert world.ours() == []
    (check,) = world.repo.check_runs_for(world.head)
    assert check.conclusion == "failure"


def test_a_holdout_input_that_is_not_a_boolean_is_one_line(world: World) -> None:
    result = world.run(holdout="yes")
    assert result.code == 2
    assert "input `holdout` must be true or false, got 'yes'" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_holdout_none_of_whose_items_are_in_the_results_is_an_error_not_neutral(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path)
    world.base = world.repo.add_commit(
        parents=[world.base],
        files={
            ".evalbot.yml": "holdout: {ids_file: evals/holdout.txt}\n",
            "evals/holdout.txt": "not-an-item\n",
        },
        branch="main",
    )
    world.pull.base_sha = world.base
    world.add_baseline_run()
    result = world.run(holdout="true")
    assert result.code == 2, result.stderr
    assert "none of the 1 ids of evals/holdout.txt (the sealed holdout)" in result.stdout
    assert "Baseline has another item set" not in result.stdout
    assert world.repo.check_runs_for(world.head)[0].conclusion == "failure"


def test_report_template_and_item_url_are_read_at_the_base_commit(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path)
    world.base = world.repo.add_commit(
        parents=[world.base],
        files={
            ".github/evalbot.yml": (
                "bootstrap: {resamples: 1000}\n"
                "report: {template: verdict.md.j2, item_url: 'https://logs.example/{id}'}\n"
            ),
            ".github/verdict.md.j2": (
                "Ours: {{ v.outcome_label }} ({{ mode }})\n"
                "{% for n in v.notes %}{{ n }}\n{% endfor %}"
                "{{ v.lists[0].entries[0].url }}\n"
            ),
        },
        branch="main",
    )
    world.pull.base_sha = world.base
    # the pull request's own template is not used
    world.pull.head_sha = world.repo.add_commit(
        parents=[world.head], files={".github/verdict.md.j2": "Forged"}, branch="feature"
    )
    world.add_baseline_run()
    result = world.run(config=".github/evalbot.yml")
    assert result.code == 0, result.stderr
    (body,) = world.ours()
    assert body.startswith(f"{MARKER}\nOurs: Improvement (comment)\nBaseline: artifact `evals`")
    assert "https://logs.example/arit-0040" in body
    assert "Forged" not in body
    assert result.summary.startswith("Ours: Improvement (summary)")
    reads = world.fake.requests_to("GET", r"/repos/octo/evals/contents/\.github/verdict\.md\.j2")
    assert [r.query.get("ref") for r in reads] == [[world.base]]
    # the check keeps the bundled report
    check = max(world.repo.check_runs_for(world.pull.head_sha), key=lambda c: c.id)
    assert check.output["summary"].startswith("### ✅ Improvement")


def test_a_missing_or_broken_report_template_fails_the_check(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path)
    world.base = world.repo.add_commit(
        parents=[world.base],
        files={".evalbot.yml": "report: {template: nope.md.j2}\n"},
        branch="main",
    )
    world.pull.base_sha = world.base
    world.add_baseline_run()
    result = world.run()
    assert result.code == 2
    assert "`report.template` 'nope.md.j2': no such file at the base commit" in result.stdout
    world.base = world.repo.add_commit(
        parents=[world.base], files={"nope.md.j2": "{{ v.effect "}, branch="main"
    )
    world.pull.base_sha = world.base
    result = world.run()
    assert result.code == 2
    assert f"nope.md.j2@{world.base[:7]}:1: report template: unexpected end of template" in (
        result.stdout
    )
    assert world.ours() == []
    checks = world.repo.check_runs_for(world.head)
    assert [c.conclusion for c in checks] == ["failure", "failure"]


# ---- the looks ledger: whose records count ----


def _one_look_plan(world: World) -> None:
    world.base = world.repo.add_commit(
        parents=[world.base],
        files={".evalbot.yml": "policy: {max_looks: 1}\nbootstrap: {resamples: 1000}\n"},
        branch="main",
    )
    world.pull.base_sha = world.base


def _push(world: World) -> str:
    world.pull.head_sha = world.repo.add_commit(
        parents=[world.pull.head_sha], files={"model.txt": "v6\n"}, branch="feature"
    )
    return world.pull.head_sha


def test_each_run_declares_its_look_in_its_check_run(world: World) -> None:
    from evalbot.plan.ledger import parse_digest

    world.add_baseline_run()
    result = world.run()
    assert result.code == 0, result.stderr
    (check,) = world.repo.check_runs_for(world.head)
    digest = parse_digest(check.output["text"])
    assert digest is not None and digest.kind == "look"
    judged = digest.look
    assert (judged.head_sha, judged.items, judged.outcome) == (world.head, 400, "improvement")
    assert judged.pvalue == pytest.approx(float(result.outputs["p-value"]), rel=1e-5)
    # the ticket was taken first: created in progress, declaring the commit and items
    (created,) = world.fake.requests_to("POST", r"/repos/octo/evals/check-runs")
    start = parse_digest(created.body["output"]["text"])
    assert created.body["status"] == "in_progress"
    assert start is not None and start.kind == "start"
    declared = (start.look.head_sha, start.look.items, start.look.fingerprint)
    assert declared == (world.head, 400, judged.fingerprint)
    # and it read the other runs' records on the pull request's commits
    assert world.fake.requests_to("GET", r"/repos/octo/evals/pulls/7/commits")
    listed = world.fake.requests_to("GET", rf"/repos/octo/evals/commits/{world.head}/check-runs")
    assert listed and listed[0].query["filter"] == ["all"]


def test_a_look_past_the_ledgers_capacity_still_gets_its_record(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the ledger is full, the oldest look makes room for the new one: the new look is
    still this run's record, in its check run."""
    from evalbot.plan import ledger

    monkeypatch.setattr(ledger, "MAX_LOOKS", 1)
    world.add_baseline_run()
    assert world.run().code == 0
    head = _push(world)
    result = world.run()
    assert result.code == 0, result.stderr
    (check,) = world.repo.check_runs_for(head)
    digest = ledger.parse_digest(check.output["text"])
    assert digest is not None and digest.kind == "look"
    assert (digest.look.head_sha, digest.look.pull) == (head, world.pull.number)


def test_a_no_baseline_run_is_not_a_look(world: World) -> None:
    _one_look_plan(world)
    assert world.run().outputs["conclusion"] == "failure"  # no baseline yet: not a look
    world.add_baseline_run()
    _push(world)
    result = world.run()
    assert result.outputs["verdict"] == "improvement", result.stderr


def test_another_apps_check_runs_are_not_evalbots_records(world: World) -> None:
    """A check run of the same name by another App is neither a record nor a ticket: it cannot
    say "no look here" over evalbot's own record (only evalbot's App can write those)."""
    _one_look_plan(world)
    world.add_baseline_run()
    assert world.run().outputs["verdict"] == "improvement"
    for run in list(world.repo.check_runs.values()):
        world.repo.add_check_run(
            run.head_sha,
            "evalbot",
            output={"title": "x", "summary": "x", "text": "<!-- evalbot-look:v1 e30= -->"},
            app_id=424242,
            app_slug="mallorys-app",
        )
    _push(world)
    second = world.run()
    assert second.outputs["verdict"] == "inconclusive", second.stderr


def test_a_github_app_token_is_its_own_bot(fake_github: FakeGitHub, tmp_path: Path) -> None:
    """With another App's token the comments are `<slug>[bot]`'s and the records its App's; the
    github-actions App's comment with the marker is someone else's."""
    world = World(fake_github, tmp_path)
    token = "ghs_customAppToken00000000000000000000001"
    fake_github.add_token(token, app_slug="eval-gate")
    _one_look_plan(world)
    world.add_baseline_run()
    other = world.repo.add_comment(
        world.pull.number, f"{MARKER}\nnot ours", author="github-actions[bot]", author_type="Bot"
    )
    first = world.run(github_token=token)
    assert first.outputs["verdict"] == "improvement", first.stderr
    comments = world.repo.comments_on(world.pull.number)
    assert [c.author for c in comments if MARKER in c.body] == [
        "github-actions[bot]",
        "eval-gate[bot]",
    ]
    assert world.repo.comments[other.id].body == f"{MARKER}\nnot ours"
    (check,) = world.repo.check_runs_for(world.head)
    assert check.app_slug == "eval-gate"
    _push(world)
    assert world.run(github_token=token).outputs["verdict"] == "inconclusive"


def test_a_personal_token_counts_looks_from_its_statuses(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    """No check runs with a personal token: its commit statuses are the tickets (their ids and
    creator), the details come from its own comment (found by GET /user's login)."""
    world = World(fake_github, tmp_path)
    fake_github.add_token(PAT, kind="pat", login="release-bot")
    _one_look_plan(world)
    world.add_baseline_run()
    first = world.run(github_token=PAT)
    assert first.outputs["verdict"] == "improvement", first.stderr
    assert [s.state for s in world.repo.statuses_for(world.head)] == ["pending", "success"]
    (comment,) = [c for c in world.repo.comments_on(world.pull.number) if MARKER in c.body]
    assert (comment.author, comment.author_type) == ("release-bot", "User")
    assert world.fake.requests_to("GET", r"/user")
    # a re-run of the same commit is free; a new commit is the second look
    assert world.run(github_token=PAT).outputs["verdict"] == "improvement"
    _push(world)
    second = world.run(github_token=PAT)
    assert second.outputs["verdict"] == "inconclusive", second.stderr
    assert second.code == 1
    assert [s.state for s in world.repo.statuses_for(world.pull.head_sha)] == ["pending", "failure"]


def test_a_personal_token_no_baseline_status_is_not_a_look(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path)
    fake_github.add_token(PAT, kind="pat")
    _one_look_plan(world)
    assert world.run(github_token=PAT).outputs["conclusion"] == "failure"
    (status,) = world.repo.statuses_for(world.head)
    assert status.description is not None and status.description.startswith("No verdict: ")
    world.add_baseline_run()
    _push(world)
    assert world.run(github_token=PAT).outputs["verdict"] == "improvement"


def test_a_fork_with_a_read_only_token_counts_the_looks_it_can_see(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path, fork=True)
    fake_github.add_token(READ_ONLY, permissions=READ_ALL)
    _one_look_plan(world)
    world.add_baseline_run()
    earlier = world.pull.head_sha
    world.repo.add_check_run(earlier, "evalbot", output={"title": "t", "summary": "s", "text": ""})
    _push(world)
    result = world.run(github_token=READ_ONLY)
    assert result.outputs["verdict"] == "inconclusive", result.stderr
    assert world.repo.check_runs_for(world.pull.head_sha) == []


def test_a_run_stopped_long_ago_in_progress_is_not_a_look(world: World) -> None:
    """A job killed before it completed its check leaves it in progress; after 6 hours (the
    longest a GitHub-hosted job runs) it is taken for stopped, and said so."""
    _one_look_plan(world)
    world.add_baseline_run()
    world.repo.add_check_run(
        world.pull.head_sha, "evalbot", status="in_progress", started_at="2020-01-01T00:00:00Z"
    )
    _push(world)
    result = world.run()
    assert result.outputs["verdict"] == "improvement", result.stderr
    assert "taken for a stopped run, not counted" in plain(result.summary)


@pytest.mark.parametrize("same_items", [True, False])
def test_an_earlier_run_in_progress_on_the_same_commit(world: World, same_items: bool) -> None:
    """Two runs on one commit side by side: the later one is a re-run of the earlier one's look
    when it judges the same items, and refused ("shopping") when it judges others."""
    from evalbot.pairing.fingerprint import fingerprint
    from evalbot.plan.ledger import Digest, placeholder, render_digest

    _one_look_plan(world)
    world.add_baseline_run()
    items = fingerprint(_ids(example("candidate")))
    judged = items if same_items else "f" * 64
    declared = Digest(
        kind="start", look=placeholder(world.head, holdout=False, fingerprint=judged, items=400)
    )
    world.repo.add_check_run(
        world.head,
        "evalbot",
        status="in_progress",
        output={"title": "t", "summary": "s", "text": render_digest(declared)},
    )
    result = world.run()
    text = plain(result.summary)
    if same_items:
        assert result.outputs["verdict"] == "improvement", result.stderr
        assert "re-run of look 1" in text
        assert "that run's verdict is not on record yet" in text
    else:
        assert result.outputs["verdict"] == "inconclusive", result.stderr
        assert "was already judged on another item set (400 items, ffffffffffff)" in text
        assert result.code == 1
