"""Attacks that crash evalbot mid-run: an internal error after the check has started must not
leave it in progress forever, with no summary (a required check could never be satisfied and
nobody would learn why). Every failure completes the check and writes the summary."""

from __future__ import annotations

from tests.attacks.helpers import RESAMPLES, plan
from tests.integration.action_harness import World


def assert_completed_as_failure_with_a_summary(world: World, code: int, summary: str) -> None:
    runs = world.repo.check_runs_for(world.pull.head_sha)
    assert runs, "no check run at all"
    assert all(run.status == "completed" for run in runs), [r.status for r in runs]
    assert max(runs, key=lambda r: r.id).conclusion == "failure"
    assert code in (2, 3)
    assert summary.strip()
    if code == 3:
        assert "internal error" in summary


def test_template_recursion_in_a_users_report_template(world: World) -> None:
    """`report.template` (read at the base commit) recurses without end: RecursionError while
    the comment is rendered, after the check run was created."""
    world.base = world.repo.add_commit(
        parents=[world.base],
        files={
            ".evalbot.yml": "report: {template: loop.md.j2}\n" + RESAMPLES,
            "loop.md.j2": "{% macro r() %}{{ r() }}{% endmacro %}{{ r() }}",
        },
        branch="main",
    )
    world.pull.base_sha = world.base
    world.add_baseline_run()
    result = world.run()
    assert "Traceback" not in result.stderr
    assert_completed_as_failure_with_a_summary(world, result.code, result.summary)
    assert world.repo.comments_on(world.pull.number) == []


def test_an_unexpected_redirect_from_the_api(world: World) -> None:
    """The API answers a request with a 301 to another host (a misconfigured proxy, or a
    hostile one): PyGithub raises RuntimeError, which no error handler of evalbot expected."""
    plan(world, RESAMPLES)
    world.add_baseline_run()
    world.fake.inject(
        "GET",
        r"/repos/octo/evals/issues/7/comments",
        301,
        {"message": "Moved Permanently"},
        headers={"Location": "http://elsewhere.invalid/repos/octo/evals/issues/7/comments"},
        times=None,
    )
    result = world.run()
    assert result.code == 3, result.stderr
    assert "internal error (RuntimeError" in result.stderr
    assert "Traceback" not in result.stderr
    assert_completed_as_failure_with_a_summary(world, result.code, result.summary)
    assert "redirected" in result.summary
    assert result.outputs["conclusion"] == "failure"


def test_an_internal_error_before_the_check_existed_still_leaves_a_completed_check(
    world: World,
) -> None:
    """The same redirect on the very first read of the plan: nothing was started yet, and the
    check is created completed."""
    world.add_baseline_run()
    world.fake.inject(
        "GET",
        r"/repos/octo/evals/contents/\.evalbot\.yml",
        301,
        {"message": "Moved Permanently"},
        headers={"Location": "http://elsewhere.invalid/x"},
        times=None,
    )
    result = world.run()
    assert result.code == 3, result.stderr
    assert_completed_as_failure_with_a_summary(world, result.code, result.summary)
