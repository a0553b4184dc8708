"""JSON bodies in the shapes of real GitHub REST responses.

Every builder names the recorded response its key set was copied from. The recordings live in
``/work/shared/realdata/github-rest/`` (see that folder's README, section A):

- ``pygithub-replaydata/*.txt``: PyGithub's ``tests/ReplayData`` (LGPL-3.0), real api.github.com
  traffic;
- ``octokit-fixtures/*.json``: octokit/fixtures (MIT), normalized real traffic;
- ``github-docs-rest-data/actions-artifacts.excerpt.json``: github/docs REST data (CC-BY-4.0/MIT).

Values are synthetic; only the shapes (key names, nesting, types) are copied. Where no recording
exists (contents, compare, workflow, single commit) the shape follows the GitHub REST reference
("Get repository content", "Compare two commits", "Get a workflow", "Get a commit"), trimmed to the
keys PyGithub reads, and says so.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

# ``X-RateLimit-*`` and friends: copied from the headers of
# pygithub-replaydata/IssueComment.setUp.txt (2025) and RateLimiting.testGetRateLimit.txt.
RATE_LIMIT_LIMIT = 5000

EXPOSE_HEADERS = (
    "ETag, Link, Location, Retry-After, X-GitHub-OTP, X-RateLimit-Limit, X-RateLimit-Remaining, "
    "X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset, X-OAuth-Scopes, "
    "X-Accepted-OAuth-Scopes, X-Poll-Interval, X-GitHub-Media-Type, X-GitHub-SSO, "
    "X-GitHub-Request-Id, Deprecation, Sunset"
)

DOCS = "https://docs.github.com/rest"


def node_id(kind: str, number: int) -> str:
    return base64.b64encode(f"0{len(kind)}:{kind}{number}".encode()).decode()


def fake_sha(*parts: object) -> str:
    return hashlib.sha1("\0".join(str(p) for p in parts).encode()).hexdigest()


def user(api: str, html: str, login: str, user_id: int, user_type: str = "User") -> dict[str, Any]:
    # Source: "user" of the comment in pygithub-replaydata/IssueComment.setUp.txt (2025).
    quoted = login.replace("[", "%5B").replace("]", "%5D")
    u = f"{api}/users/{quoted}"
    return {
        "login": login,
        "id": user_id,
        "node_id": node_id("User", user_id),
        "avatar_url": f"https://avatars.githubusercontent.com/u/{user_id}?v=4",
        "gravatar_id": "",
        "url": u,
        "html_url": f"{html}/{login}" if user_type != "Bot" else f"{html}/apps/{login[:-5]}",
        "followers_url": f"{u}/followers",
        "following_url": f"{u}/following{{/other_user}}",
        "gists_url": f"{u}/gists{{/gist_id}}",
        "starred_url": f"{u}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{u}/subscriptions",
        "organizations_url": f"{u}/orgs",
        "repos_url": f"{u}/repos",
        "events_url": f"{u}/events{{/privacy}}",
        "received_events_url": f"{u}/received_events",
        "type": user_type,
        "user_view_type": "public",
        "site_admin": False,
    }


def repository(
    api: str,
    html: str,
    *,
    full_name: str,
    repo_id: int,
    owner_id: int,
    private: bool,
    default_branch: str,
    full: bool = False,
) -> dict[str, Any]:
    """The repository object.

    Source: GET /repos/PyGithub/PyGithub in pygithub-replaydata/IssueComment.setUp.txt (2025); the
    short form (``full=False``) is the ``head.repo``/``base.repo`` object of
    pygithub-replaydata/PullRequest1168.testGetPullRequest.txt.
    """
    owner, name = full_name.split("/", 1)
    r = f"{api}/repos/{full_name}"
    body: dict[str, Any] = {
        "id": repo_id,
        "node_id": node_id("Repository", repo_id),
        "name": name,
        "full_name": full_name,
        "private": private,
        "owner": user(api, html, owner, owner_id, "Organization"),
        "html_url": f"{html}/{full_name}",
        "description": None,
        "fork": False,
        "url": r,
        "forks_url": f"{r}/forks",
        "keys_url": f"{r}/keys{{/key_id}}",
        "collaborators_url": f"{r}/collaborators{{/collaborator}}",
        "teams_url": f"{r}/teams",
        "hooks_url": f"{r}/hooks",
        "issue_events_url": f"{r}/issues/events{{/number}}",
        "events_url": f"{r}/events",
        "assignees_url": f"{r}/assignees{{/user}}",
        "branches_url": f"{r}/branches{{/branch}}",
        "tags_url": f"{r}/tags",
        "blobs_url": f"{r}/git/blobs{{/sha}}",
        "git_tags_url": f"{r}/git/tags{{/sha}}",
        "git_refs_url": f"{r}/git/refs{{/sha}}",
        "trees_url": f"{r}/git/trees{{/sha}}",
        "statuses_url": f"{r}/statuses/{{sha}}",
        "languages_url": f"{r}/languages",
        "stargazers_url": f"{r}/stargazers",
        "contributors_url": f"{r}/contributors",
        "subscribers_url": f"{r}/subscribers",
        "subscription_url": f"{r}/subscription",
        "commits_url": f"{r}/commits{{/sha}}",
        "git_commits_url": f"{r}/git/commits{{/sha}}",
        "comments_url": f"{r}/comments{{/number}}",
        "issue_comment_url": f"{r}/issues/comments{{/number}}",
        "contents_url": f"{r}/contents/{{+path}}",
        "compare_url": f"{r}/compare/{{base}}...{{head}}",
        "merges_url": f"{r}/merges",
        "archive_url": f"{r}/{{archive_format}}{{/ref}}",
        "downloads_url": f"{r}/downloads",
        "issues_url": f"{r}/issues{{/number}}",
        "pulls_url": f"{r}/pulls{{/number}}",
        "milestones_url": f"{r}/milestones{{/number}}",
        "notifications_url": f"{r}/notifications{{?since,all,participating}}",
        "labels_url": f"{r}/labels{{/name}}",
        "releases_url": f"{r}/releases{{/id}}",
        "deployments_url": f"{r}/deployments",
    }
    if full:
        host = html.split("://", 1)[-1]
        body.update(
            {
                "created_at": "2024-01-01T00:00:00Z",
                "updated_at": "2025-01-01T00:00:00Z",
                "pushed_at": "2025-01-01T00:00:00Z",
                "git_url": f"git://{host}/{full_name}.git",
                "ssh_url": f"git@{host}:{full_name}.git",
                "clone_url": f"{html}/{full_name}.git",
                "svn_url": f"{html}/{full_name}",
                "homepage": None,
                "size": 1,
                "stargazers_count": 0,
                "watchers_count": 0,
                "language": "Python",
                "has_issues": True,
                "has_projects": True,
                "has_downloads": True,
                "has_wiki": False,
                "has_pages": False,
                "has_discussions": False,
                "forks_count": 0,
                "mirror_url": None,
                "archived": False,
                "disabled": False,
                "open_issues_count": 0,
                "license": None,
                "allow_forking": True,
                "is_template": False,
                "web_commit_signoff_required": False,
                "topics": [],
                "visibility": "private" if private else "public",
                "forks": 0,
                "open_issues": 0,
                "watchers": 0,
                "default_branch": default_branch,
                "permissions": {
                    "admin": False,
                    "maintain": False,
                    "push": True,
                    "triage": True,
                    "pull": True,
                },
                "network_count": 0,
                "subscribers_count": 0,
            }
        )
    return body


def pull_request(
    api: str,
    html: str,
    *,
    full_name: str,
    number: int,
    pr_id: int,
    title: str,
    state: str,
    author: dict[str, Any],
    head: dict[str, Any],
    base: dict[str, Any],
    merged: bool = False,
    created_at: str = "2025-01-01T00:00:00Z",
    commits: int = 1,
) -> dict[str, Any]:
    """Source: GET /repos/PyGithub/PyGithub/pulls/1171 in
    pygithub-replaydata/PullRequest1168.testGetPullRequest.txt (2019).

    ``head``/``base`` are ``{label, ref, sha, user, repo}``.
    """
    r = f"{api}/repos/{full_name}"
    return {
        "url": f"{r}/pulls/{number}",
        "id": pr_id,
        "node_id": node_id("PullRequest", pr_id),
        "html_url": f"{html}/{full_name}/pull/{number}",
        "diff_url": f"{html}/{full_name}/pull/{number}.diff",
        "patch_url": f"{html}/{full_name}/pull/{number}.patch",
        "issue_url": f"{r}/issues/{number}",
        "number": number,
        "state": state,
        "locked": False,
        "title": title,
        "user": author,
        "body": None,
        "created_at": created_at,
        "updated_at": created_at,
        "closed_at": None,
        "merged_at": created_at if merged else None,
        "merge_commit_sha": None,
        "assignee": None,
        "assignees": [],
        "requested_reviewers": [],
        "requested_teams": [],
        "labels": [],
        "milestone": None,
        "draft": False,
        "commits_url": f"{r}/pulls/{number}/commits",
        "review_comments_url": f"{r}/pulls/{number}/comments",
        "review_comment_url": f"{r}/pulls/comments{{/number}}",
        "comments_url": f"{r}/issues/{number}/comments",
        "statuses_url": f"{r}/statuses/{head['sha']}",
        "head": head,
        "base": base,
        "_links": {
            "self": {"href": f"{r}/pulls/{number}"},
            "html": {"href": f"{html}/{full_name}/pull/{number}"},
            "issue": {"href": f"{r}/issues/{number}"},
            "comments": {"href": f"{r}/issues/{number}/comments"},
            "review_comments": {"href": f"{r}/pulls/{number}/comments"},
            "review_comment": {"href": f"{r}/pulls/comments{{/number}}"},
            "commits": {"href": f"{r}/pulls/{number}/commits"},
            "statuses": {"href": f"{r}/statuses/{head['sha']}"},
        },
        "author_association": "CONTRIBUTOR",
        "auto_merge": None,
        "active_lock_reason": None,
        "merged": merged,
        "mergeable": True,
        "rebaseable": True,
        "mergeable_state": "clean",
        "merged_by": None,
        "comments": 0,
        "review_comments": 0,
        "maintainer_can_modify": False,
        "commits": commits,
        "additions": 1,
        "deletions": 0,
        "changed_files": 1,
    }


def issue_comment(
    api: str,
    html: str,
    *,
    full_name: str,
    issue_number: int,
    is_pull: bool,
    comment_id: int,
    body: str,
    author: dict[str, Any],
    created_at: str,
    updated_at: str,
) -> dict[str, Any]:
    """Source: GET /repos/PyGithub/PyGithub/issues/comments/20227753 in
    pygithub-replaydata/IssueComment.setUp.txt (2025), and the list items of
    pygithub-replaydata/PaginatedList.testCustomPerPageIteration.txt (2024)."""
    r = f"{api}/repos/{full_name}"
    kind = "pull" if is_pull else "issues"
    return {
        "url": f"{r}/issues/comments/{comment_id}",
        "html_url": f"{html}/{full_name}/{kind}/{issue_number}#issuecomment-{comment_id}",
        "issue_url": f"{r}/issues/{issue_number}",
        "id": comment_id,
        "node_id": node_id("IssueComment", comment_id),
        "user": author,
        "created_at": created_at,
        "updated_at": updated_at,
        "author_association": "NONE",
        "body": body,
        "reactions": {
            "url": f"{r}/issues/comments/{comment_id}/reactions",
            "total_count": 0,
            "+1": 0,
            "-1": 0,
            "laugh": 0,
            "hooray": 0,
            "confused": 0,
            "heart": 0,
            "rocket": 0,
            "eyes": 0,
        },
        "performed_via_github_app": None,
    }


def check_run(
    api: str,
    html: str,
    *,
    full_name: str,
    run_id: int,
    name: str,
    head_sha: str,
    status: str,
    conclusion: str | None,
    started_at: str | None,
    completed_at: str | None,
    details_url: str | None,
    external_id: str | None,
    output: dict[str, Any],
    app: dict[str, Any],
) -> dict[str, Any]:
    """Source: POST/PATCH check-runs in
    pygithub-replaydata/CheckRun.testCreateCheckRunInProgress.txt (2020)."""
    r = f"{api}/repos/{full_name}"
    return {
        "id": run_id,
        "node_id": node_id("CheckRun", run_id),
        "head_sha": head_sha,
        "external_id": external_id or "",
        "url": f"{r}/check-runs/{run_id}",
        "html_url": f"{html}/{full_name}/runs/{run_id}",
        "details_url": details_url or f"{html}/{full_name}/runs/{run_id}",
        "status": status,
        "conclusion": conclusion,
        "started_at": started_at,
        "completed_at": completed_at,
        "output": {
            "title": output.get("title"),
            "summary": output.get("summary"),
            "text": output.get("text"),
            "annotations_count": len(output.get("annotations") or []),
            "annotations_url": f"{r}/check-runs/{run_id}/annotations",
        },
        "name": name,
        "check_suite": {"id": run_id + 1_000_000},
        "app": app,
        "pull_requests": [],
    }


def github_actions_app(api: str, html: str) -> dict[str, Any]:
    """The ``app`` of a check run. Shape: CheckRun.testCreateCheckRunInProgress.txt; values: the
    public ``github-actions`` app (id 15368)."""
    return {
        "id": 15368,
        "slug": "github-actions",
        "node_id": node_id("App", 15368),
        "owner": user(api, html, "github", 9919, "Organization"),
        "name": "GitHub Actions",
        "description": "Automate your workflow from idea to production",
        "external_url": "https://help.github.com/en/actions",
        "html_url": f"{html}/apps/github-actions",
        "created_at": "2018-07-30T09:30:17Z",
        "updated_at": "2024-04-10T20:33:16Z",
        "permissions": {
            "actions": "write",
            "checks": "write",
            "contents": "write",
            "metadata": "read",
            "pull_requests": "write",
            "statuses": "write",
        },
        "events": ["check_run", "check_suite"],
    }


def app(api: str, html: str, *, app_id: int, slug: str) -> dict[str, Any]:
    """The ``app`` of a check run created by another App than ``github-actions``. Shape: the
    ``app`` of CheckRun.testCreateCheckRunInProgress.txt (the ``test-pygithub`` App)."""
    return {
        "id": app_id,
        "slug": slug,
        "node_id": node_id("App", app_id),
        "owner": user(api, html, "octo", 9920, "Organization"),
        "name": slug.replace("-", " ").title(),
        "description": "",
        "external_url": f"https://{slug}.example",
        "html_url": f"{html}/apps/{slug}",
        "created_at": "2020-10-19T16:18:54Z",
        "updated_at": "2020-10-20T03:52:02Z",
        "permissions": {"checks": "write", "metadata": "read", "pull_requests": "write"},
        "events": [],
    }


def authenticated_user(base: dict[str, Any]) -> dict[str, Any]:
    """GET /user for a personal token: the public user (``base``, from :func:`user`) plus the
    profile keys of GET /users/jacquev6 in
    pygithub-replaydata/SpecificExceptions.testRateLimitExceeded.txt (2013)."""
    return {
        **base,
        "name": None,
        "company": None,
        "blog": "",
        "location": None,
        "email": None,
        "hireable": None,
        "bio": None,
        "public_repos": 1,
        "public_gists": 0,
        "followers": 0,
        "following": 0,
        "created_at": "2011-01-25T18:44:36Z",
        "updated_at": "2025-01-01T00:00:00Z",
    }


def commit_status(
    api: str,
    *,
    full_name: str,
    status_id: int,
    sha: str,
    state: str,
    context: str,
    description: str | None,
    target_url: str | None,
    creator: dict[str, Any],
    created_at: str,
) -> dict[str, Any]:
    """Source: POST statuses/{sha} in octokit-fixtures/create-status.normalized-fixture.json."""
    return {
        "url": f"{api}/repos/{full_name}/statuses/{sha}",
        "avatar_url": creator["avatar_url"],
        "id": status_id,
        "node_id": node_id("StatusContext", status_id),
        "state": state,
        "description": description,
        "target_url": target_url,
        "context": context,
        "created_at": created_at,
        "updated_at": created_at,
        "creator": creator,
    }


def workflow(
    api: str, html: str, *, full_name: str, wf_id: int, name: str, path: str
) -> dict[str, Any]:
    """Not recorded; shape of "Get a workflow" in the GitHub REST reference (keys PyGithub's
    ``Workflow`` reads)."""
    r = f"{api}/repos/{full_name}"
    return {
        "id": wf_id,
        "node_id": node_id("Workflow", wf_id),
        "name": name,
        "path": path,
        "state": "active",
        "created_at": "2024-01-01T00:00:00Z",
        "updated_at": "2024-01-01T00:00:00Z",
        "url": f"{r}/actions/workflows/{wf_id}",
        "html_url": f"{html}/{full_name}/blob/main/{path}",
        "badge_url": f"{html}/{full_name}/workflows/{name}/badge.svg",
    }


def workflow_run(
    api: str,
    html: str,
    *,
    repo: dict[str, Any],
    head_repo: dict[str, Any],
    run_id: int,
    name: str,
    path: str,
    workflow_id: int,
    run_number: int,
    head_branch: str,
    head_sha: str,
    event: str,
    status: str,
    conclusion: str | None,
    created_at: str,
    actor: dict[str, Any],
    pull_requests: list[dict[str, Any]],
    tree: str,
) -> dict[str, Any]:
    """Source: ``workflow_runs[0]`` in pygithub-replaydata/Workflow.testGetRunsWithHeadSha.txt
    (2022); ``pull_requests[]`` items as in
    octokit-webhooks/payloads/workflow_run.completed.with-pull-requests.payload.json."""
    full_name = repo["full_name"]
    r = f"{api}/repos/{full_name}"
    return {
        "id": run_id,
        "name": name,
        "node_id": node_id("WorkflowRun", run_id),
        "head_branch": head_branch,
        "head_sha": head_sha,
        "path": path,
        "display_title": f"run {run_number}",
        "run_number": run_number,
        "event": event,
        "status": status,
        "conclusion": conclusion,
        "workflow_id": workflow_id,
        "check_suite_id": run_id + 2_000_000,
        "check_suite_node_id": node_id("CheckSuite", run_id + 2_000_000),
        "url": f"{r}/actions/runs/{run_id}",
        "html_url": f"{html}/{full_name}/actions/runs/{run_id}",
        "pull_requests": pull_requests,
        "created_at": created_at,
        "updated_at": created_at,
        "actor": actor,
        "run_attempt": 1,
        "referenced_workflows": [],
        "run_started_at": created_at,
        "triggering_actor": actor,
        "jobs_url": f"{r}/actions/runs/{run_id}/jobs",
        "logs_url": f"{r}/actions/runs/{run_id}/logs",
        "check_suite_url": f"{r}/check-suites/{run_id + 2_000_000}",
        "artifacts_url": f"{r}/actions/runs/{run_id}/artifacts",
        "cancel_url": f"{r}/actions/runs/{run_id}/cancel",
        "rerun_url": f"{r}/actions/runs/{run_id}/rerun",
        "previous_attempt_url": None,
        "workflow_url": f"{r}/actions/workflows/{workflow_id}",
        "head_commit": {
            "id": head_sha,
            "tree_id": tree,
            "message": f"commit {head_sha[:7]}",
            "timestamp": created_at,
            "author": {"name": "Dev", "email": "dev@example.com"},
            "committer": {"name": "GitHub", "email": "noreply@github.com"},
        },
        "repository": repo,
        "head_repository": head_repo,
    }


def run_pull_request(
    api: str, *, pr: dict[str, Any], head_repo: dict[str, Any], base_repo: dict[str, Any]
) -> dict[str, Any]:
    """Source: ``workflow_run.pull_requests[0]`` in
    octokit-webhooks/payloads/workflow_run.completed.with-pull-requests.payload.json."""
    return {
        "url": pr["url"],
        "id": pr["id"],
        "number": pr["number"],
        "head": {
            "ref": pr["head"]["ref"],
            "sha": pr["head"]["sha"],
            "repo": {"id": head_repo["id"], "url": head_repo["url"], "name": head_repo["name"]},
        },
        "base": {
            "ref": pr["base"]["ref"],
            "sha": pr["base"]["sha"],
            "repo": {"id": base_repo["id"], "url": base_repo["url"], "name": base_repo["name"]},
        },
    }


def artifact(
    api: str,
    *,
    full_name: str,
    artifact_id: int,
    name: str,
    size_in_bytes: int,
    expired: bool,
    created_at: str,
    expires_at: str,
    digest: str | None,
    run: dict[str, Any],
    download_url: str | None = None,
) -> dict[str, Any]:
    """Source: GET actions/artifacts/719509139 in
    pygithub-replaydata/Artifact.testGetSingleArtifactFromRepo.txt (2023); ``digest`` from the
    schema in github-docs-rest-data/actions-artifacts.excerpt.json."""
    r = f"{api}/repos/{full_name}"
    return {
        "id": artifact_id,
        "node_id": node_id("Artifact", artifact_id),
        "name": name,
        "size_in_bytes": size_in_bytes,
        "url": f"{r}/actions/artifacts/{artifact_id}",
        "archive_download_url": download_url or f"{r}/actions/artifacts/{artifact_id}/zip",
        "expired": expired,
        "digest": digest,
        "created_at": created_at,
        "updated_at": created_at,
        "expires_at": expires_at,
        "workflow_run": run,
    }


def content_file(
    api: str, html: str, *, full_name: str, path: str, ref: str, data: bytes
) -> dict[str, Any]:
    """Not recorded; shape of "Get repository content" (a file) in the GitHub REST reference.
    GitHub wraps the base64 ``content`` at 60 characters per line."""
    encoded = base64.b64encode(data).decode()
    wrapped = "".join(encoded[i : i + 60] + "\n" for i in range(0, len(encoded), 60))
    sha = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    r = f"{api}/repos/{full_name}"
    self_url = f"{r}/contents/{path}?ref={ref}"
    git_url = f"{r}/git/blobs/{sha}"
    html_url = f"{html}/{full_name}/blob/{ref}/{path}"
    return {
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "sha": sha,
        "size": len(data),
        "url": self_url,
        "html_url": html_url,
        "git_url": git_url,
        "download_url": None,
        "type": "file",
        "content": wrapped,
        "encoding": "base64",
        "_links": {"self": self_url, "git": git_url, "html": html_url},
    }


def commit(
    api: str,
    html: str,
    *,
    full_name: str,
    sha: str,
    parents: list[str],
    message: str,
    date: str,
    tree: str,
) -> dict[str, Any]:
    """Not recorded; shape of "Get a commit" / the commits of "Compare two commits" in the GitHub
    REST reference (without ``files``/``stats``)."""
    r = f"{api}/repos/{full_name}"
    person = {"name": "Dev", "email": "dev@example.com", "date": date}
    return {
        "sha": sha,
        "node_id": node_id("Commit", int(sha[:8], 16)),
        "commit": {
            "author": person,
            "committer": person,
            "message": message,
            "tree": {"sha": tree, "url": f"{r}/git/trees/{tree}"},
            "url": f"{r}/git/commits/{sha}",
            "comment_count": 0,
            "verification": {
                "verified": False,
                "reason": "unsigned",
                "signature": None,
                "payload": None,
                "verified_at": None,
            },
        },
        "url": f"{r}/commits/{sha}",
        "html_url": f"{html}/{full_name}/commit/{sha}",
        "comments_url": f"{r}/commits/{sha}/comments",
        "author": None,
        "committer": None,
        "parents": [
            {"sha": p, "url": f"{r}/commits/{p}", "html_url": f"{html}/{full_name}/commit/{p}"}
            for p in parents
        ],
    }


def comparison(
    api: str,
    html: str,
    *,
    full_name: str,
    base: str,
    head: str,
    status: str,
    ahead_by: int,
    behind_by: int,
    base_commit: dict[str, Any],
    merge_base_commit: dict[str, Any],
    commits: list[dict[str, Any]],
) -> dict[str, Any]:
    """Not recorded; shape of "Compare two commits" in the GitHub REST reference."""
    r = f"{api}/repos/{full_name}"
    return {
        "url": f"{r}/compare/{base}...{head}",
        "html_url": f"{html}/{full_name}/compare/{base}...{head}",
        "permalink_url": f"{html}/{full_name}/compare/{base}...{head}",
        "diff_url": f"{html}/{full_name}/compare/{base}...{head}.diff",
        "patch_url": f"{html}/{full_name}/compare/{base}...{head}.patch",
        "base_commit": base_commit,
        "merge_base_commit": merge_base_commit,
        "status": status,
        "ahead_by": ahead_by,
        "behind_by": behind_by,
        "total_commits": ahead_by,
        "commits": commits,
        "files": [],
    }


def rate_limit(used: int, reset: int) -> dict[str, Any]:
    """Source: GET /rate_limit in pygithub-replaydata/RateLimiting.testGetRateLimit.txt (2024)."""
    core = {
        "limit": RATE_LIMIT_LIMIT,
        "used": used,
        "remaining": RATE_LIMIT_LIMIT - used,
        "reset": reset,
    }
    other = {
        "search": 30,
        "graphql": 5000,
        "integration_manifest": 5000,
        "source_import": 100,
        "code_scanning_upload": 1000,
        "code_scanning_autofix": 10,
        "actions_runner_registration": 10000,
        "scim": 15000,
        "dependency_snapshots": 100,
        "audit_log": 1750,
        "audit_log_streaming": 15,
        "code_search": 10,
    }
    resources: dict[str, Any] = {"core": core}
    for key, limit in other.items():
        resources[key] = {"limit": limit, "used": 0, "remaining": limit, "reset": reset}
    return {"resources": resources, "rate": dict(core)}


# ---- error bodies -------------------------------------------------------------------------------

# Source: pygithub-replaydata/Artifact.testGetNonexistentArtifact.txt (404 body).
NOT_FOUND_MESSAGE = "Not Found"
# Source: PyGithub's Requester.createException (``status == 401 and message == "bad credentials"``)
# and GitHub's documented 401 body.
BAD_CREDENTIALS_MESSAGE = "Bad credentials"
REQUIRES_AUTH_MESSAGE = "Requires authentication"
# Source: GitHub's 403 for a GITHUB_TOKEN lacking a permission, as quoted in issues of
# jayamanikharyono/airflow-dag-action#23 and hasura/comment-progress#9.
NOT_ACCESSIBLE_MESSAGE = "Resource not accessible by integration"
NOT_ACCESSIBLE_PAT_MESSAGE = "Resource not accessible by personal access token"
# Source: GitHub's 403 for a personal token on POST check-runs, as quoted in
# EnricoMi/publish-unit-test-result-action#53.
CHECKS_NEED_APP_MESSAGE = "You must authenticate via a GitHub App."
# Source: pygithub-replaydata/SpecificExceptions.testAuthenticatedRateLimitExceeded.txt (2018).
SECONDARY_RATE_LIMIT_MESSAGE = (
    "You have triggered an abuse detection mechanism. "
    "Please wait a few minutes before you try again."
)
SECONDARY_RATE_LIMIT_DOCS = "https://developer.github.com/v3/#abuse-rate-limits"
# The wording GitHub uses today (PyGithub's Requester.isSecondaryRateLimitError matches its start).
SECONDARY_RATE_LIMIT_MESSAGE_MODERN = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)
# Source: pygithub-replaydata/Retry.testReturnsRepoAfter1Retry.txt (500 body).
SERVER_ERROR_BODY: dict[str, Any] = {"error": "Server Error"}


def error(message: str, documentation_url: str = DOCS) -> dict[str, Any]:
    """Source: the 404 of pygithub-replaydata/Artifact.testGetNonexistentArtifact.txt."""
    return {"message": message, "documentation_url": documentation_url}


def validation_failed(
    errors: list[dict[str, Any]] | None = None, documentation_url: str = DOCS
) -> dict[str, Any]:
    """Source: octokit-fixtures/errors.normalized-fixture.json (422 on POST labels)."""
    return {
        "message": "Validation Failed",
        "errors": errors
        if errors is not None
        else [{"resource": "Label", "code": "invalid", "field": "color"}],
        "documentation_url": documentation_url,
    }
