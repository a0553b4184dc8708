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

from github.WorkflowRun import WorkflowRun

from evalbot.github.client import ArtifactInfo, GitHubClient
from evalbot.github.runner import DEFAULT_SEARCH_COMMITS, Settings
from evalbot.report import text as md
from evalbot.report.numbers import plural
from evalbot.report.text import Markdown

#: Workflow events whose runs on the base branch may provide the baseline.
BASELINE_EVENTS = frozenset({"push", "schedule", "workflow_dispatch"})


@dataclass(frozen=True, kw_only=True)
class Found:
    run: WorkflowRun
    behind: int  # commits from the run's commit to the target (0: the target itself)
    artifact: ArtifactInfo


@dataclass(frozen=True, kw_only=True)
class Missing:
    """No baseline, and what was searched, so the message can say how far back it looked."""

    without_artifact: list[int]  # ids of eligible runs that uploaded no artifact by the name
    commits_compared: int = 0  # distinct commits whose ancestry was checked
    not_before: int = 0  # runs of commits newer than the target, or on another line
    stopped: bool = False  # the commit budget ran out before the runs did


def eligible_runs(
    runs: Iterable[WorkflowRun], *, target: str, previous_only: bool, own_run_id: int | None
) -> list[WorkflowRun]:
    """The runs that may provide the baseline, newest first as listed; ``previous_only`` (a
    push) leaves out the run of ``target`` itself and this run."""
    kept = [run for run in runs if run.event in BASELINE_EVENTS]
    if previous_only:
        kept = [run for run in kept if run.head_sha != target and run.id != own_run_id]
    return kept


def search_runs(
    runs: Iterable[WorkflowRun],
    *,
    target: str,
    ancestry: Callable[[str], tuple[int, int]],
    artifact_of: Callable[[WorkflowRun], ArtifactInfo | None],
    max_compares: int = DEFAULT_SEARCH_COMMITS,
) -> Found | Missing:
    """The newest run at ``target`` or before it that has the artifact.

    ``ancestry(sha)`` gives ``(behind, ahead)``: how many commits ``target`` is ahead of
    ``sha`` and ``sha`` ahead of ``target`` (a run ahead of it is newer, or on another line,
    and is skipped); it is asked once per commit, for at most ``max_compares`` commits.
    ``artifact_of(run)`` finds the run's artifact, ``None`` when it uploaded none by that name.
    """
    known: dict[str, tuple[int, int]] = {target: (0, 0)}
    missing: list[int] = []
    not_before = 0
    stopped = False
    for run in runs:
        if run.head_sha not in known:
            if stopped := len(known) - 1 >= max_compares:
                break
            known[run.head_sha] = ancestry(run.head_sha)
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
        commits_compared=len(known) - 1,
        not_before=not_before,
        stopped=stopped,
    )


@dataclass(frozen=True, kw_only=True)
class Search:
    """Where the baseline is looked for: the runs of ``workflow`` on ``branch`` at ``target``
    (``at``: that commit in words) or behind it, with an artifact called ``name``: runs of the
    repository the settings name (only its own count), as far back as they say."""

    settings: Settings
    workflow: str | int
    branch: str
    target: str
    at: str
    name: str
    previous_only: bool  # a push: not the run of ``target`` itself, nor this run


def find_baseline_run(gh: GitHubClient, search: Search) -> Found | tuple[Markdown, Markdown]:
    """The newest eligible run with the artifact, or why there is none (a title and a
    message). Each allowed event is listed on its own, so that no other run (a fork's pull
    request from its own ``main``, say) can push the branch's runs out of the window."""
    per_event = [
        gh.list_workflow_runs(
            search.workflow,
            search.branch,
            "success",
            event=event,
            limit=search.settings.baseline_search_runs,
        )
        for event in sorted(BASELINE_EVENTS)
    ]
    own = ("", search.settings.repository.lower())
    listed = sorted(
        (
            found
            for runs in per_event
            for found in runs
            if (found.head_repository.full_name if found.head_repository else "").lower() in own
        ),
        key=lambda found: (found.created_at.timestamp() if found.created_at else 0, found.id),
        reverse=True,
    )
    runs = eligible_runs(
        listed,
        target=search.target,
        previous_only=search.previous_only,
        own_run_id=search.settings.run_id,
    )
    found = search_runs(
        runs,
        target=search.target,
        ancestry=lambda sha: gh.compare_commits(sha, search.target),
        artifact_of=lambda candidate: gh.find_artifact(candidate.id, search.name),
        max_compares=search.settings.baseline_search_commits,
    )
    if isinstance(found, Found):
        return found
    capped = any(len(runs) >= search.settings.baseline_search_runs for runs in per_event)
    return no_baseline_message(search, listed=len(listed), capped=capped, missing=found)


def no_baseline_message(
    search: Search, *, listed: int, capped: bool, missing: Missing
) -> tuple[Markdown, Markdown]:
    """Why there is no baseline, what was searched, and what to do: a title and a message.

    ``listed`` successful runs of the workflow on the branch from its own events came back
    (``capped``: one event's listing reached ``max_runs``); ``missing`` is what the search saw.
    Only when the search covered every such run (nothing capped, the commit budget not spent)
    is this "expected for the first pull request"; otherwise older runs may hold the artifact,
    and the message says which input looks further back. Every name is quoted as inline code.
    """
    workflow, branch, target = str(search.workflow), search.branch, search.target
    lead = md.format(
        "No successful run of workflow {} on {} at or before {} {} has an artifact named {}.",
        md.code(workflow),
        md.code(branch),
        Markdown(search.at),
        md.code(target[:7]),
        md.code(search.name),
    )
    searched = _searched(search, listed=listed, capped=capped, missing=missing)
    text = md.format("{} Searched: {}.", lead, md.join(Markdown("; "), searched))
    if not capped and not missing.stopped:
        return Markdown("No baseline yet"), md.format(
            "{} That covers every such run of the branch, as for the first pull request "
            "after installing evalbot: run the eval workflow on {} first (a push, or by hand "
            "with `workflow_dispatch`) so that it uploads the baseline; later runs of this "
            "pull request are compared with it.",
            text,
            md.code(branch),
        )
    s, limits = search.settings, []
    if capped:
        limits.append(
            md.format("the newest {} runs (input `baseline-search-runs`)", s.baseline_search_runs)
        )
    if missing.stopped:
        limits.append(
            md.format(
                "{} commits back (input `baseline-search-commits`)", s.baseline_search_commits
            )
        )
    return Markdown("No baseline in the runs searched"), md.format(
        "{} Older runs were not searched: the search stops at {}. Raise {} to look further "
        "back, or run the workflow on {} again so it uploads a fresh baseline.",
        text,
        md.join(Markdown(" and "), limits),
        Markdown("them" if len(limits) > 1 else "it"),
        md.code(branch),
    )


def _searched(search: Search, *, listed: int, capped: bool, missing: Missing) -> list[Markdown]:
    """What the baseline search covered, one clause each: the runs listed, the commits
    compared, the runs not used and those without the artifact."""
    of = md.format(
        "of {} on {} from push, schedule or workflow_dispatch",
        md.code(str(search.workflow)),
        md.code(search.branch),
    )
    newest = Markdown("newest " if capped else "")
    searched = [
        md.format("the {}{} successful {} {}", newest, listed, Markdown(plural(listed, "runs")), of)
        if listed
        else md.format("the successful runs {}: there are none", of)
    ]
    counted = (
        (
            missing.commits_compared,
            "commits",
            "checked for being the base commit or one of its ancestors",
        ),
        (missing.not_before, "runs", "of commits newer than that or on another line (never used)"),
    )
    searched += [
        md.format("{} {} {}", n, Markdown(plural(n, noun)), Markdown(said))
        for n, noun, said in counted
        if n
    ]
    if missing.without_artifact:
        more = len(missing.without_artifact) - 5
        searched.append(
            md.format(
                "runs {}{} uploaded no artifact by that name",
                md.join(Markdown(", "), missing.without_artifact[:5]),
                Markdown(f" and {more} more" if more > 0 else ""),
            )
        )
    return searched
