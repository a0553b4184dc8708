"""The baseline-run search (evalbot.github.baseline), with the IO replaced by plain tables."""

from __future__ import annotations

from dataclasses import dataclass

from evalbot.github.baseline import BASELINE_EVENTS, Found, Missing, eligible_runs, search_runs


@dataclass(frozen=True)
class Run:
    id: int
    head_sha: str
    event: str = "push"


#: main's history: t (the target, the base commit) <- p1 <- p2; n is newer than t (ahead)
BEHIND_AHEAD = {"p1": (1, 0), "p2": (2, 0), "n": (0, 1), "x": (3, 2)}


def search(runs: list[Run], artifacts: dict[int, str], **kw: int) -> Found[Run, str] | Missing:
    compared: list[str] = []

    def ancestry(sha: str) -> tuple[int, int]:
        compared.append(sha)
        return BEHIND_AHEAD[sha]

    return search_runs(
        runs, target="t", ancestry=ancestry, artifact_of=lambda run: artifacts.get(run.id), **kw
    )


def test_only_the_branchs_own_events_are_eligible() -> None:
    runs = [Run(1, "t", e) for e in ("push", "schedule", "workflow_dispatch")]
    runs += [Run(2, "t", e) for e in ("pull_request", "pull_request_target", "issue_comment")]
    runs += [Run(3, "t", "workflow_run"), Run(4, "t", "release"), Run(5, "t", "merge_group")]
    kept = eligible_runs(runs, target="t", previous_only=False, own_run_id=None)
    assert [r.event for r in kept] == ["push", "schedule", "workflow_dispatch"]
    assert frozenset({"push", "schedule", "workflow_dispatch"}) == BASELINE_EVENTS


def test_a_push_takes_the_previous_baseline_not_its_own() -> None:
    runs = [Run(9, "t"), Run(8, "p1"), Run(7, "p2")]
    kept = eligible_runs(runs, target="t", previous_only=True, own_run_id=8)
    assert [r.id for r in kept] == [7]


def test_the_newest_run_at_or_before_the_target_with_the_artifact() -> None:
    runs = [Run(5, "n"), Run(4, "t"), Run(3, "p1")]
    assert search(runs, {4: "a4", 3: "a3"}) == Found(run=Run(4, "t"), behind=0, artifact="a4")
    # the target's run uploaded nothing: the next older one, and how far behind it is
    assert search(runs, {3: "a3"}) == Found(run=Run(3, "p1"), behind=1, artifact="a3")


def test_runs_ahead_or_on_another_line_are_skipped() -> None:
    assert search([Run(2, "x"), Run(1, "n")], {1: "a", 2: "b"}) == Missing(
        without_artifact=[], commits_compared=2, not_before=2
    )


def test_nothing_found_lists_the_runs_without_the_artifact() -> None:
    assert search([Run(4, "t"), Run(3, "p1")], {}) == Missing(
        without_artifact=[4, 3], commits_compared=1
    )


def test_the_compares_are_limited_to_distinct_commits() -> None:
    # 20 runs of one commit cost one compare: every run is looked at
    runs = [Run(i, "p2") for i in range(20, 0, -1)]
    assert search(runs, {}, max_compares=3) == Missing(
        without_artifact=list(range(20, 0, -1)), commits_compared=1
    )
    # runs of four commits with a budget of three: the fourth commit is not compared, and the
    # search says it stopped (so the message does not call this "the first pull request")
    runs = [Run(6, "n"), Run(5, "x"), Run(4, "p1"), Run(3, "p2"), Run(2, "t")]
    assert search(runs, {2: "a2", 3: "a3"}, max_compares=3) == Missing(
        without_artifact=[4], commits_compared=3, not_before=2, stopped=True
    )
    assert search(runs, {2: "a2", 3: "a3"}, max_compares=4) == Found(
        run=Run(3, "p2"), behind=2, artifact="a3"
    )
