"""What the client hands out: frozen records, never PyGithub's objects, and how each is read
from the PyGithub object GitHub's answer became."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from github.Artifact import Artifact
from github.CheckRun import CheckRun
from github.CommitStatus import CommitStatus
from github.IssueComment import IssueComment
from github.PullRequest import PullRequest
from github.WorkflowRun import WorkflowRun

__all__ = [
    "ArtifactInfo",
    "CheckRunInfo",
    "CommentInfo",
    "PullRequestInfo",
    "StatusInfo",
    "WorkflowRunInfo",
    "artifact_info",
    "check_info",
    "comment_info",
    "pull_info",
    "run_info",
    "status_info",
]


@dataclass(frozen=True, kw_only=True)
class PullRequestInfo:
    number: int
    state: str
    head_sha: str
    head_ref: str
    head_repo: str  # full name; differs from base_repo for a pull request from a fork
    base_sha: str
    base_ref: str
    base_repo: str
    html_url: str
    created_at: datetime | None = None
    default_branch: str = ""  # of the base repository
    commits: int = 0  # how many commits it has (GitHub lists at most 250)
    merged: bool = False

    @property
    def is_fork(self) -> bool:
        return self.head_repo.lower() != self.base_repo.lower()


@dataclass(frozen=True, kw_only=True)
class CommentInfo:
    id: int
    body: str
    author: str
    html_url: str
    author_type: str = "User"  # "Bot" for an App's bot user (``github-actions[bot]``)


@dataclass(frozen=True, kw_only=True)
class CheckRunInfo:
    id: int
    html_url: str
    status: str
    conclusion: str | None
    name: str = ""
    head_sha: str = ""
    app_id: int | None = None  # the App that created it: only it can write it
    app_slug: str | None = None
    started_at: datetime | None = None
    text: str | None = None  # ``output.text``
    external_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class StatusInfo:
    id: int
    sha: str
    state: str
    context: str
    description: str
    creator: str  # the login that set it
    created_at: datetime | None = None


@dataclass(frozen=True, kw_only=True)
class WorkflowRunInfo:
    id: int
    head_sha: str
    head_branch: str
    event: str
    status: str
    conclusion: str | None
    html_url: str
    pull_numbers: tuple[int, ...]
    head_repo: str = ""  # full name of the repository the head commit lives in
    created_at: datetime | None = None
    path: str = ""  # the workflow's file, e.g. .github/workflows/evals.yml


@dataclass(frozen=True, kw_only=True)
class ArtifactInfo:
    id: int
    name: str
    size_in_bytes: int
    expired: bool
    archive_download_url: str
    run_id: int | None
    head_sha: str | None


# ---- from PyGithub's objects --------------------------------------------------------------------


def pull_info(pull: PullRequest) -> PullRequestInfo:
    head_repo = pull.head.repo.full_name if pull.head.repo is not None else ""
    return PullRequestInfo(
        number=pull.number,
        state=pull.state,
        head_sha=pull.head.sha,
        head_ref=pull.head.ref,
        head_repo=head_repo,
        base_sha=pull.base.sha,
        base_ref=pull.base.ref,
        base_repo=pull.base.repo.full_name,
        html_url=pull.html_url,
        created_at=pull.created_at,
        default_branch=pull.base.repo.default_branch or "",
        commits=pull.commits or 0,
        merged=pull.merged_at is not None,
    )


def comment_info(comment: IssueComment) -> CommentInfo:
    user = comment.user
    return CommentInfo(
        id=comment.id,
        body=comment.body or "",
        author=user.login if user is not None else "",
        author_type=(user.type or "") if user is not None else "",
        html_url=comment.html_url,
    )


def check_info(run: CheckRun) -> CheckRunInfo:
    app = run.app
    output = run.output
    return CheckRunInfo(
        id=run.id,
        html_url=run.html_url,
        status=run.status,
        conclusion=run.conclusion,
        name=run.name or "",
        head_sha=run.head_sha or "",
        app_id=app.id if app is not None else None,
        app_slug=app.slug if app is not None else None,
        started_at=run.started_at,
        text=output.text if output is not None else None,
        external_id=run.external_id or None,
    )


def status_info(status: CommitStatus, sha: str) -> StatusInfo:
    creator = status.creator
    return StatusInfo(
        id=status.id,
        sha=sha,
        state=status.state or "",
        context=status.context or "",
        description=status.description or "",
        creator=creator.login if creator is not None else "",
        created_at=status.created_at,
    )


def run_info(run: WorkflowRun) -> WorkflowRunInfo:
    return WorkflowRunInfo(
        id=run.id,
        head_sha=run.head_sha,
        head_branch=run.head_branch,
        event=run.event,
        status=run.status,
        conclusion=run.conclusion,
        html_url=run.html_url,
        pull_numbers=tuple(p.number for p in run.pull_requests),
        head_repo=run.head_repository.full_name if run.head_repository is not None else "",
        created_at=run.created_at,
        path=run.path or "",
    )


def artifact_info(artifact: Artifact) -> ArtifactInfo:
    run = artifact.workflow_run
    return ArtifactInfo(
        id=artifact.id,
        name=artifact.name,
        size_in_bytes=artifact.size_in_bytes,
        expired=artifact.expired,
        archive_download_url=artifact.archive_download_url,
        run_id=run.id if run is not None else None,
        head_sha=run.head_sha if run is not None else None,
    )
