"""The two sides of a run: the candidate and the baseline, read and paired.

The candidate is the workspace's result files (``candidate``), or in a ``workflow_run`` job
the triggering run's artifact (``candidate-artifact``: the pull request's files are never
read there). The baseline is a workspace path (``baseline``) or the artifact a run of the
default branch uploaded (``baseline-artifact``), looked up **before** the candidate is parsed:
the first pull request after installing evalbot has none yet, and that is neutral whatever
the candidate holds. Artifacts are untrusted zips, read in memory within limits.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from evalbot.action_context import RunContext
from evalbot.action_records import Baseline, BaselineSource, Neutral, Refused
from evalbot.errors import InputError, PairingError
from evalbot.formats.archive import ArchiveBudget
from evalbot.formats.merge import merge
from evalbot.formats.model import Paired, Results
from evalbot.formats.options import ReadOptions
from evalbot.formats.sources import parse_zip
from evalbot.github.baseline import Found, Search, find_baseline_run
from evalbot.github.client import ArtifactInfo
from evalbot.github.runner import ActionInputError
from evalbot.limits import MAX_ARTIFACT_MEMBERS, MAX_ARTIFACT_RATIO, artifact_inflate_limit
from evalbot.pairing.pair import pair
from evalbot.plan.config import Config
from evalbot.plan.policy import prepare
from evalbot.report import text as md
from evalbot.report.text import Markdown

__all__ = [
    "find_baseline",
    "load_baseline",
    "load_candidate",
    "load_results_from_zip",
    "pair_sides",
]


def load_results_from_zip(
    data: bytes, label: str, options: ReadOptions, *, max_total: int
) -> Results:
    """Every result file in an artifact's zip, parsed and merged.

    The archive is read in memory by :func:`evalbot.formats.sources.parse_zip`, which refuses
    symbolic links, paths outside the archive, encrypted members, nested archives and zip
    bombs; here it inflates to at most :func:`evalbot.limits.artifact_inflate_limit` bytes
    (proportional to the zip's size, within ``max_total``: ``EVALBOT_MAX_ARTIFACT_BYTES``) in
    at most :data:`evalbot.limits.MAX_ARTIFACT_MEMBERS` entries.
    """
    limit = artifact_inflate_limit(len(data), max_total)
    why = ""
    if limit < max_total:
        why = (
            f", the most a zip of {len(data)} bytes may hold ({MAX_ARTIFACT_RATIO} times its "
            "size, at least 1 MiB: real result files compress far less)"
        )
    budget = ArchiveBudget(max_bytes=limit, max_members=MAX_ARTIFACT_MEMBERS, why=why)
    limited = replace(
        options,
        max_archive_bytes=limit,
        max_archive_members=MAX_ARTIFACT_MEMBERS,
        archive_budget=budget,
    )
    return merge(parse_zip(label, data, limited), label)


def _artifact_results(
    run: RunContext, artifact: ArtifactInfo, side: str, options: ReadOptions
) -> Results:
    limit = run.settings.max_artifact_bytes
    data = run.gh.download_artifact_zip(artifact, limit)
    label = f"{side} artifact {artifact.name!r}"
    return load_results_from_zip(data, label, options, max_total=limit)


def load_candidate(run: RunContext, options: ReadOptions) -> Results:
    """The candidate: the triggering run's artifact in a ``workflow_run`` job, else the
    workspace's files."""
    s = run.settings
    if run.event.mode == "workflow_run":
        if s.candidate:
            raise ActionInputError(
                "in a workflow_run job evalbot never reads the pull request's files: give "
                "input `candidate-artifact` (the artifact the triggering run uploaded), not "
                "`candidate`"
            )
        if not s.candidate_artifact:
            raise ActionInputError("input `candidate-artifact` is required in a workflow_run job")
        run_id = run.event.run_id
        assert run_id is not None
        artifact = run.gh.find_artifact(run_id, s.candidate_artifact)
        if artifact is None:
            raise InputError(
                f"the triggering run {run_id} has no artifact named "
                f"{s.candidate_artifact!r}: upload the results with "
                "actions/upload-artifact under that name"
            )
        return _artifact_results(run, artifact, "candidate", options)
    if s.candidate_artifact:
        raise ActionInputError(
            "input `candidate-artifact` only works in a workflow_run job; "
            "use `candidate` (a path in the workspace) here"
        )
    if not s.candidate:
        raise ActionInputError("input `candidate` is required: a path or glob of result files")
    return run.files.load_results(s.candidate, options)


def find_baseline(run: RunContext) -> BaselineSource | None:
    """Where the baseline comes from, looked up before the candidate is parsed. ``None`` when
    no baseline was asked for (push, dispatch)."""
    s = run.settings
    if s.baseline:
        return BaselineSource(
            description=md.format("Baseline: {}.", md.code(s.baseline)), path=s.baseline
        )
    if not s.baseline_artifact:
        if run.event.on_pull_request:
            raise ActionInputError(
                "give input `baseline-artifact` (the artifact name your default branch's "
                "workflow uploads) or `baseline` (a path in the workspace)"
            )
        return None
    return _find_baseline_artifact(run, s.baseline_artifact)


def _baseline_workflow(run: RunContext) -> str | int:
    """The workflow whose runs upload the baseline, by its file (never its ``name:``, which a
    pull request's new workflow can copy): ``baseline-workflow``, else the triggering run's
    (``workflow_run``) or this run's workflow file."""
    workflow: str | int | None = run.settings.baseline_workflow
    if workflow is None:
        if run.event.mode == "workflow_run":
            path = run.event.workflow_path or ""
            workflow = path.rsplit("/", 1)[-1] or run.event.workflow_id
        else:
            workflow = run.settings.workflow_file
    if workflow is None:
        raise ActionInputError(
            "cannot tell which workflow uploads the baseline: set input `baseline-workflow` "
            "(its file name, e.g. evals.yml)"
        )
    return workflow


def _baseline_branch(run: RunContext) -> tuple[str, str, str]:
    """The branch to take the baseline from, the commit it should be at, and that commit in
    words: a pull request's base, or (a push) this commit, whose previous baseline is taken."""
    if run.event.on_pull_request:
        branch, target, at = run.base_ref, run.base_sha, "the base commit"
    else:
        branch, target, at = run.event.branch, run.event.head_sha, "this commit"
    if not branch or not target:
        raise ActionInputError(
            "cannot tell the branch to take the baseline from (no base branch or GITHUB_REF)"
        )
    return branch, target, at


def _find_baseline_artifact(run: RunContext, name: str) -> BaselineSource:
    """The artifact ``name`` of the newest eligible run of the baseline's workflow at (or
    nearest behind) the target commit; none found, or expired, is :class:`Neutral`."""
    s = run.settings
    branch, target, at = _baseline_branch(run)
    search = Search(
        workflow=_baseline_workflow(run),
        branch=branch,
        target=target,
        at=at,
        name=name,
        repository=s.repository,
        previous_only=not run.event.on_pull_request,  # push: the previous baseline
        own_run_id=s.run_id,
        max_runs=s.baseline_search_runs,
        max_commits=s.baseline_search_commits,
    )
    found = find_baseline_run(run.gh, search)
    if isinstance(found, Found):
        return _found_source(found, name=name, branch=branch, target=target, at=at)
    raise Neutral(*found)


def _found_source(
    found: Found[Any, ArtifactInfo], *, name: str, branch: str, target: str, at: str
) -> BaselineSource:
    """The artifact found, described (which run, how far behind the target); an expired one
    leaves nothing to compare with."""
    run, artifact = found.run, found.artifact
    behind = (
        ""
        if found.behind == 0
        else f"{found.behind} commit{'s' if found.behind != 1 else ''} behind "
    )
    distance = md.format("{}{} {}", Markdown(behind), Markdown(at), md.code(target[:7]))
    where = md.format(
        "run {} of {} at {}",
        md.link(run.id, run.html_url),
        md.code(branch),
        md.code(run.head_sha[:7]),
    )
    if artifact.expired:
        raise Neutral(
            Markdown("Baseline artifact expired"),
            md.format(
                "The baseline artifact {} of {} has expired, so there is nothing to "
                "compare with. Re-run that workflow (or push to {}) to upload a fresh "
                "one, or raise its `retention-days`.",
                md.code(name),
                where,
                md.code(branch),
            ),
        )
    return BaselineSource(
        description=md.format("Baseline: artifact {} from {}, {}.", md.code(name), where, distance),
        artifact=artifact,
        commit=run.head_sha,
        run_url=run.html_url,
    )


def load_baseline(run: RunContext, source: BaselineSource, options: ReadOptions) -> Baseline:
    """The baseline's results, from the workspace or the artifact found."""
    if source.path is not None:
        results = run.files.load_results(source.path, options)
        return Baseline(results=results, description=source.description, from_artifact=False)
    assert source.artifact is not None
    return Baseline(
        results=_artifact_results(run, source.artifact, "baseline", options),
        description=source.description,
        from_artifact=True,
        commit=source.commit,
        run_url=source.run_url,
    )


def pair_sides(run: RunContext, baseline: Baseline, candidate: Results, config: Config) -> Paired:
    """The two sides paired (the analysis' items): a baseline artifact with another item set
    than the candidate's is :class:`Refused` (the pull request changed the eval set)."""
    try:
        return prepare(baseline.results, candidate, config, holdout=run.settings.holdout)
    except PairingError as error:
        if not baseline.from_artifact or not _item_sets_differ(baseline, candidate, config):
            raise
        raise Refused(
            Markdown("Baseline has another item set"),
            md.format(
                "{} Its items differ from the candidate's, so the paired comparison is "
                "refused: {}. This happens when the pull request changes the eval set: the "
                "baseline matches again once the change is merged and the default branch "
                "has run. Until then the check fails (a changed item set is a verdict the "
                "plan refuses); `gate.on_refused: neutral` in the plan leaves it neutral "
                "instead.",
                baseline.description,
                str(error),  # quotes ids and file names: escaped
            ),
        ) from None


def _item_sets_differ(baseline: Baseline, candidate: Results, config: Config) -> bool:
    """Whether the baseline and the candidate cannot be paired (another item set, another
    metric kind): asked only after the analysis refused with a :class:`PairingError`, to tell
    that apart from a refusal of the plan's own (say no holdout item in the results)."""
    try:
        pair(baseline.results, candidate, missing=config.policy.missing)
    except PairingError:
        return True
    return False
