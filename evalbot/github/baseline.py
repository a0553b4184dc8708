"""Which run of the base branch provides the baseline: the search, with the IO handed in.

A pull request is compared with the artifact of the newest successful run of the baseline
workflow on the base branch whose commit is the base commit or one of its ancestors. Only runs
of the branch itself count, by an allowlist of events (:data:`BASELINE_EVENTS`): a
``pull_request`` run from a fork's branch of the same name, or a run that others can start or
shape (``issue_comment``, ``pull_request_target``, ``workflow_run``, ...), never does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

__all__ = [
    "BASELINE_EVENTS",
    "MAX_COMPARES",
    "MAX_RUNS",
    "Found",
    "Missing",
    "eligible_runs",
    "search_runs",
]

#: Workflow events whose runs on the base branch may provide the baseline.
BASELINE_EVENTS = frozenset({"push", "schedule", "workflow_dispatch"})
#: Successful runs of the baseline workflow listed, newest first (input
#: ``baseline-search-runs``).
MAX_RUNS = 30
#: Commits (other than the target) whose ancestry is checked, one compare each, before the
#: search gives up (input ``baseline-search-commits``).
MAX_COMPARES = 10


class RunLike(Protocol):
    @property
    def id(self) -> int: ...

    @property
    def head_sha(self) -> str: ...

    @property
    def event(self) -> str: ...


R = TypeVar("R", bound=RunLike)
A = TypeVar("A")


@dataclass(frozen=True, kw_only=True)
class Found(Generic[R, A]):
    run: R
    behind: int  # commits from the run's commit to the target (0: the target itself)
    artifact: A


@dataclass(frozen=True, kw_only=True)
class Missing:
    """No baseline, and what was searched, so the message can say how far back it looked."""

    without_artifact: list[int]  # ids of eligible runs that uploaded no artifact by the name
    examined: int = 0  # eligible runs looked at (newest first)
    commits_compared: int = 0  # distinct commits whose ancestry was checked
    not_before: int = 0  # runs of commits newer than the target, or on another line
    stopped: bool = False  # the commit budget ran out before the runs did


def eligible_runs(
    runs: Iterable[R], *, target: str, previous_only: bool, own_run_id: int | None
) -> list[R]:
    """The runs that may provide the baseline, newest first as listed; ``previous_only`` (a
    push) leaves out the run of ``target`` itself and this run."""
    kept = [run for run in runs if run.event in BASELINE_EVENTS]
    if previous_only:
        kept = [run for run in kept if run.head_sha != target and run.id != own_run_id]
    return kept


def search_runs(
    runs: Iterable[R],
    *,
    target: str,
    ancestry: Callable[[str], tuple[int, int]],
    artifact_of: Callable[[R], A | None],
    max_compares: int = MAX_COMPARES,
) -> Found[R, A] | Missing:
    """The newest run at ``target`` or before it that has the artifact.

    ``ancestry(sha)`` gives ``(behind, ahead)``: how many commits ``target`` is ahead of
    ``sha`` and ``sha`` ahead of ``target`` (a run ahead of it is newer, or on another line,
    and is skipped); it is asked once per commit, for at most ``max_compares`` commits.
    ``artifact_of(run)`` finds the run's artifact, ``None`` when it uploaded none by that name.
    """
    known: dict[str, tuple[int, int]] = {target: (0, 0)}
    missing: list[int] = []
    examined = not_before = 0
    for run in runs:
        if run.head_sha not in known:
            if len(known) - 1 >= max_compares:
                return Missing(
                    without_artifact=missing,
                    examined=examined,
                    commits_compared=len(known) - 1,
                    not_before=not_before,
                    stopped=True,
                )
            known[run.head_sha] = ancestry(run.head_sha)
        examined += 1
        behind, ahead = known[run.head_sha]
        if ahead:
            not_before += 1
            continue
        artifact = artifact_of(run)
        if artifact is None:
            missing.append(run.id)
            continue
        return Found(run=run, behind=behind, artifact=artifact)
    return Missing(
        without_artifact=missing,
        examined=examined,
        commits_compared=len(known) - 1,
        not_before=not_before,
    )
