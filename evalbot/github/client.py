"""The GitHub client of one run (:class:`GitHubClient`): every call evalbot makes, for one
repository. What leaves the package is a frozen record (pull requests, comments, artifacts);
check runs, statuses and workflow runs are read inside ``evalbot.github``.
"""

from __future__ import annotations

import logging
import math
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import datetime
from itertools import islice
from typing import Any, NoReturn, TypeVar

import requests
from github import Auth, Github, GithubException
from github.Artifact import Artifact
from github.CheckRun import CheckRun
from github.Commit import Commit
from github.CommitStatus import CommitStatus
from github.GithubObject import GithubObject
from github.IssueComment import IssueComment
from github.PaginatedList import PaginatedList
from github.PullRequest import PullRequest
from github.WorkflowRun import WorkflowRun
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from evalbot.errors import PublishError
from evalbot.github import download
from evalbot.github.errors import (
    MAX_WAIT_SECONDS,
    CappedRetry,
    GitHubRequestError,
    PyGithubRetry,
    WaitTooLong,
    one_line,
    request_error,
    wait_too_long,
)
from evalbot.github.runner import Settings
from evalbot.limits import MAX_CHECK_TEXT_CHARS, MAX_COMMENT_CHARS, MAX_STATUS_DESCRIPTION_CHARS

log = logging.getLogger(__name__)

USER_AGENT = "evalbot"
#: Items listed per call at most (GitHub keeps 1,000 check runs of one name per check suite).
MAX_LISTED = 1000
_TRUNCATED = "\n\n… (truncated by evalbot: GitHub's size limit)"
T = TypeVar("T")
G = TypeVar("G", bound=GithubObject)


@dataclass(frozen=True, kw_only=True)
class PullRequestInfo:
    number: int
    state: str
    head_sha: str
    head_ref: str
    head_repo: str  # full name ("" for a deleted fork)
    base_sha: str
    base_ref: str
    created_at: datetime | None = None
    default_branch: str = ""  # of the base repository
    commits: int = 0  # how many commits it has (GitHub lists at most 250)
    merged: bool = False


@dataclass(frozen=True, kw_only=True)
class Identity:
    """Who evalbot is on GitHub: whose comments are its own and whose records count.

    With an App's token (the Actions token is the ``github-actions`` App) it is the App that
    created the check run (``app_id``) and its bot user ``<slug>[bot]`` of type ``Bot``; with a
    personal token (commit statuses) the token's user, from ``GET /user``.
    """

    login: str
    user_type: str  # "Bot" or "User"
    app_id: int | None = None


@dataclass(frozen=True, kw_only=True)
class CommentInfo:
    id: int
    body: str
    author: str
    html_url: str
    author_type: str = "User"  # "Bot" for an App's bot user (``github-actions[bot]``)


@dataclass(frozen=True, kw_only=True)
class ArtifactInfo:
    id: int
    name: str
    size_in_bytes: int
    expired: bool
    archive_download_url: str


def _pull(pull: PullRequest) -> PullRequestInfo:
    return PullRequestInfo(
        number=pull.number,
        state=pull.state,
        head_sha=pull.head.sha,
        head_ref=pull.head.ref,
        head_repo=pull.head.repo.full_name if pull.head.repo is not None else "",
        base_sha=pull.base.sha,
        base_ref=pull.base.ref,
        created_at=pull.created_at,
        default_branch=pull.base.repo.default_branch or "",
        commits=pull.commits or 0,
        merged=pull.merged_at is not None,
    )


def _comment(comment: IssueComment) -> CommentInfo:
    user = comment.user
    return CommentInfo(
        id=comment.id,
        body=comment.body or "",
        author=user.login if user is not None else "",
        author_type=(user.type or "") if user is not None else "",
        html_url=comment.html_url,
    )


def fit(body: str, limit: int, what: str) -> str:
    """``body``, cut (and saying so) to GitHub's ``limit`` when it is longer."""
    if len(body) <= limit:
        return body
    log.warning("%s is %d characters, over GitHub's %d; truncating", what, len(body), limit)
    return body[: limit - len(_TRUNCATED)] + _TRUNCATED


def _check_output(title: str, summary: str, text: str | None) -> dict[str, Any]:
    output = {
        "title": one_line(title, 255),
        "summary": fit(summary, MAX_CHECK_TEXT_CHARS, "check run summary"),
    }
    if text:
        output["text"] = fit(text, MAX_CHECK_TEXT_CHARS, "check run text")
    return output


class GitHubClient:
    """GitHub, as evalbot needs it, for the repository of ``settings`` on its API.

    PyGithub is built with urllib3's retries (``settings.retries``, 5xx, 429 and a 403
    secondary rate limit; ``backoff`` between them, 0 in tests): a ``Retry-After`` header is
    honoured up to :data:`~evalbot.github.errors.MAX_WAIT_SECONDS` (a longer one fails at once,
    saying so), and without one a secondary rate limit waits 60 s. With ``throttle`` PyGithub
    spaces requests and writes as GitHub asks integrations to; tests turn every wait off.

    GET, PATCH and DELETE are retried by urllib3. A POST creates something, so it is never
    sent again blindly: the client retries each kind of POST itself, and a check run only
    after looking for the one its first try may have created (its ``external_id``).
    """

    def __init__(self, settings: Settings) -> None:
        s = self.settings = settings
        if not s.token:
            raise PublishError(
                "no GitHub token: set the `github-token` input (default ${{ github.token }})"
            )
        self.api_url, self.timeout = s.api_url.rstrip("/"), s.timeout
        self._gh = Github(
            base_url=self.api_url,
            auth=Auth.Token(s.token),
            retry=PyGithubRetry(
                total=s.retries,
                backoff_factor=s.backoff,
                secondary_rate_wait=60.0 if s.throttle else 0.0,
                status_forcelist=[*range(500, 600), 429],
                allowed_methods=Retry.DEFAULT_ALLOWED_METHODS | {"GET", "PATCH"},
                raise_on_status=False,
                respect_retry_after_header=True,
            ),
            timeout=max(1, math.ceil(s.timeout)),
            user_agent=USER_AGENT,
            per_page=100,
            seconds_between_requests=0.25 if s.throttle else None,
            seconds_between_writes=1.0 if s.throttle else None,
            lazy=True,
        )
        self.http = requests.Session()  # the download's: GETs retried on a 5xx, no redirect
        self.http.trust_env = False  # no proxy, netrc or CA bundle from the environment
        self.http.headers["User-Agent"] = USER_AGENT
        retry = CappedRetry(
            total=s.retries,
            backoff_factor=s.backoff,
            status_forcelist=[500, 502, 503, 504],
            allowed_methods={"GET"},
            raise_on_status=False,
            redirect=False,
        )
        for scheme in ("http://", "https://"):
            self.http.mount(scheme, HTTPAdapter(max_retries=retry))
        self._repo = self._gh.get_repo(s.repository)  # lazy: Github(lazy=True)

    def __repr__(self) -> str:
        repository = self.settings.repository
        return f"{type(self).__name__}(api_url={self.api_url!r}, repository={repository!r})"

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._gh.close()
        self.http.close()

    # ---- errors and retries ----------------------------------------------------------------

    @contextmanager
    def _errors(self, action: str, permission: str) -> Iterator[None]:
        """PyGithub/requests exceptions raised inside become one-line :class:`PublishError`\\ s
        naming ``permission``."""
        try:
            yield
        except WaitTooLong as exc:
            raise wait_too_long(action, exc.wait, exc.status) from None
        except GithubException as exc:
            raise request_error(
                action, permission, exc.status, exc.data, exc.headers, scrub=self._scrub
            ) from None
        except requests.RequestException as exc:
            said = f"no answer from GitHub at {self.api_url} ({type(exc).__name__})"
            raise GitHubRequestError(f"{action} failed: {said}", 0, kind="unreachable") from None

    def raise_http(self, action: str, permission: str, response: requests.Response) -> NoReturn:
        """The error of an answer of GitHub's that the download's own session got."""
        try:
            data: Any = response.json()
        except ValueError:
            data = response.text[:200]
        raise request_error(
            action, permission, response.status_code, data, response.headers, scrub=self._scrub
        )

    def _scrub(self, message: str) -> str:
        secret = self.settings.token
        return message.replace(secret, "***") if len(secret) >= 4 else message

    def _post(
        self,
        action: str,
        permission: str,
        send: Callable[[], T],
        *,
        recover: Callable[[], T | None] | None = None,
    ) -> T:
        """One POST, retried here (urllib3 never resends a POST): after a failure that may
        pass (no answer, 5xx, 429, a rate limit), ``recover`` looks for what the failed try may
        have created; then, if there are tries left, wait (``Retry-After`` or the backoff, at
        most :data:`~evalbot.github.errors.MAX_WAIT_SECONDS`) and send again."""
        attempt = 0
        while True:
            try:
                with self._errors(action, permission):
                    return send()
            except GitHubRequestError as error:
                if not error.transient:
                    raise
                if recover is not None:
                    with self._errors(f"{action} (looking for an earlier try)", permission):
                        found = recover()
                    if found is not None:
                        log.info("%s: the earlier try had succeeded", action)
                        return found
                if attempt >= self.settings.retries:
                    raise
                asked = error.retry_after
                wait = asked if asked is not None else self.settings.backoff * (2**attempt)
                if wait > MAX_WAIT_SECONDS:
                    raise wait_too_long(action, wait) from None
                time.sleep(wait)
                attempt += 1

    def _list(
        self,
        what: str,
        permission: str,
        kind: type[G],
        path: str,
        params: dict[str, Any] | None = None,
        *,
        item: str = "items",
        limit: int = MAX_LISTED,
    ) -> list[G]:
        """The first ``limit`` items of the listing at ``path`` (under the repository's URL),
        every page read as ``listing {what}``."""
        with self._errors(f"listing {what}", permission):
            url = f"{self._repo.url}{path}"
            listed = PaginatedList(kind, self._gh.requester, url, params, list_item=item)
            return list(islice(listed, limit))

    # ---- pull requests and contents ---------------------------------------------------------

    def get_pull(self, number: int) -> PullRequestInfo:
        with self._errors(f"reading pull request #{number}", "pull-requests: read"):
            return _pull(self._repo.get_pull(number))

    def find_pulls_for_head(
        self, head_sha: str, head_branch: str | None = None, head_owner: str | None = None
    ) -> list[PullRequestInfo]:
        """Every open pull request whose head is ``head_sha`` (a ``workflow_run`` event's payload
        lists none for a fork), by number."""
        found: dict[int, PullRequestInfo] = {}
        action = f"finding the pull requests of commit {head_sha[:12]}"
        with self._errors(action, "pull-requests: read"):
            for pull in self._repo.get_commit(head_sha).get_pulls():
                if pull.head.sha == head_sha and pull.state == "open":
                    found[pull.number] = _pull(pull)
            # GitHub does not associate a fork's commits with the base repository's pulls.
            if head_branch and head_owner:
                pulls = self._repo.get_pulls(state="open", head=f"{head_owner}:{head_branch}")
            else:
                pulls = self._repo.get_pulls(state="open", sort="updated", direction="desc")
            found |= {pull.number: _pull(pull) for pull in pulls if pull.head.sha == head_sha}
        return [found[number] for number in sorted(found)]

    def list_pulls_of_head(self, head_owner: str, head_branch: str) -> list[PullRequestInfo]:
        """The pull requests from ``head_owner:head_branch`` in every state, newest first."""
        label = f"{head_owner}:{head_branch}"
        with self._errors(f"listing the pull requests from {label}", "pull-requests: read"):
            return [_pull(p) for p in self._repo.get_pulls(state="all", head=label)]

    def list_pull_commits(self, number: int) -> list[tuple[str, str]]:
        """The pull request's commits and their trees, oldest first (GitHub lists 250 at most)."""
        what = f"the commits of pull request #{number}"
        found = self._list(what, "pull-requests: read", Commit, f"/pulls/{number}/commits")
        return [(commit.sha, commit.commit.tree.sha) for commit in found]

    def authenticated_login(self) -> str:
        """The login of a personal token's user (``GET /user``). An App's token has no user:
        its identity is the ``app`` of the check runs it creates."""
        with self._errors("reading the token's user (GET /user)", "a personal token"):
            return self._gh.get_user().login

    def get_file_at_ref(self, path: str, ref: str) -> str | None:
        """The text of ``path`` at ``ref`` (a sha or branch), or ``None`` if it does not exist."""
        where = f"{path} at {ref[:12]}"
        try:
            with self._errors(f"reading {where}", "contents: read"):
                content = self._repo.get_contents(path, ref=ref)
                if isinstance(content, list):
                    raise PublishError(f"{where} is a directory, not a file")
                if content.encoding != "base64":
                    raise PublishError(f"{where} is too large to read through the API")
                data: bytes = content.decoded_content
        except GitHubRequestError as error:
            if error.status == 404:
                return None
            raise
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise PublishError(f"{where} is not UTF-8 text") from None

    def compare_commits(self, base: str, head: str) -> tuple[int, int]:
        """``(ahead_by, behind_by)`` of ``head`` relative to ``base``."""
        with self._errors(f"comparing {base[:12]}...{head[:12]}", "contents: read"):
            comparison = self._repo.compare(base, head)
            return int(comparison.ahead_by), int(comparison.behind_by)

    # ---- comments ---------------------------------------------------------------------------

    def list_comments(self, number: int) -> list[CommentInfo]:
        action = f"listing the comments of pull request #{number}"
        with self._errors(action, "pull-requests: read"):
            return [_comment(c) for c in self._repo.get_issue(number).get_comments()]

    def own_comments(self, number: int, marker: str, author: Identity) -> list[CommentInfo]:
        """The comments carrying ``marker`` that ``author`` wrote, oldest first: anyone can
        post the marker's text, and someone else's comment is theirs."""
        return [
            c
            for c in self.list_comments(number)
            if marker in c.body and (c.author, c.author_type) == (author.login, author.user_type)
        ]

    def create_comment(self, number: int, body: str) -> CommentInfo:
        body = fit(body, MAX_COMMENT_CHARS, "comment")
        return self._post(
            f"commenting on pull request #{number}",
            "pull-requests: write",
            lambda: _comment(self._repo.get_issue(number).create_comment(body)),
        )

    def _update_comment(self, comment_id: int, body: str) -> CommentInfo:
        url = f"{self._repo.url}/issues/comments/{comment_id}"
        with self._errors(f"updating comment {comment_id}", "pull-requests: write"):
            comment = IssueComment(self._gh.requester, url=url)
            comment.edit(fit(body, MAX_COMMENT_CHARS, "comment"))
            return _comment(comment)

    def _delete_comment(self, comment_id: int) -> None:
        url = f"{self._repo.url}/issues/comments/{comment_id}"
        try:
            with self._errors(f"deleting comment {comment_id}", "pull-requests: write"):
                IssueComment(self._gh.requester, url=url).delete()
        except GitHubRequestError as error:
            if error.status != 404:  # 404: a concurrent run deleted it already
                raise

    def upsert_sticky_comment(
        self, number: int, marker: str, body: str, *, author: Identity
    ) -> CommentInfo:
        """Publish ``body`` as the one comment of ``author`` carrying ``marker``.

        Only comments written by ``author`` (its login and user type: ``Bot`` for an App's bot
        user such as ``github-actions[bot]``, ``User`` for a personal token's) are ever edited or
        deleted: anyone can post the marker's text, and someone else's comment is theirs. The
        oldest of ours holding ``marker`` is edited in place; if there is none, one is created,
        and the comments are listed again: when a concurrent run created one too, the oldest
        of ours is kept (updated with ``body``) and our later duplicates are deleted.
        """
        if marker not in body:
            body = f"{marker}\n{body}"
        existing, created = self.own_comments(number, marker, author), None
        if not existing:
            created = self.create_comment(number, body)
            existing = self.own_comments(number, marker, author)
        for duplicate in existing[1:]:
            self._delete_comment(duplicate.id)
        if created is not None and (not existing or existing[0].id == created.id):
            return created
        keep = existing[0]
        if created is not None:
            log.info("another run commented on #%d at the same time; keeping %d", number, keep.id)
        elif keep.body == fit(body, MAX_COMMENT_CHARS, "comment"):
            return keep
        return self._update_comment(keep.id, body)

    # ---- check runs and statuses ------------------------------------------------------------

    def create_check_run(
        self,
        head_sha: str,
        name: str,
        *,
        title: str,
        summary: str,
        text: str | None = None,
        conclusion: str | None = None,
        details_url: str | None = None,
        tag: str = "",
    ) -> CheckRun:
        """A check run on ``head_sha``: ``in_progress`` unless ``conclusion`` completes it.

        Idempotent: the run carries a random ``external_id`` (``tag`` appended); when a try gets
        no answer (or a 5xx), the check runs of ``head_sha`` are searched for it before trying
        again, so a request that GitHub did act on never leaves a second, orphaned check run.
        """
        nonce = f"evalbot-{secrets.token_hex(12)}{tag}"
        optional = {"conclusion": conclusion, "details_url": details_url}
        kwargs: dict[str, Any] = {
            "output": _check_output(title, summary, text),
            "external_id": nonce,
            "status": "in_progress" if conclusion is None else "completed",
        } | {key: value for key, value in optional.items() if value}

        def created() -> CheckRun | None:
            found = [
                run for run in self.list_check_runs(head_sha, name) if run.external_id == nonce
            ]
            return min(found, key=lambda run: run.id) if found else None

        return self._post(
            f"creating check run {name!r}",
            "checks: write",
            lambda: self._repo.create_check_run(name=name, head_sha=head_sha, **kwargs),
            recover=created,
        )

    def complete_check_run(
        self,
        check_run_id: int,
        conclusion: str,
        *,
        title: str,
        summary: str,
        text: str | None = None,
    ) -> CheckRun:
        with self._errors(f"completing check run {check_run_id}", "checks: write"):
            run = CheckRun(self._gh.requester, url=f"{self._repo.url}/check-runs/{check_run_id}")
            output = _check_output(title, summary, text)
            run.edit(status="completed", conclusion=conclusion, output=output)
            return run

    def list_check_runs(self, head_sha: str, name: str | None = None) -> list[CheckRun]:
        """Every check run on ``head_sha`` (called ``name`` when given; ``filter=all``: GitHub's
        default lists only the latest), whichever App made it, at most :data:`MAX_LISTED`."""
        query = {"filter": "all"} | ({"check_name": name} if name else {})
        what, path = f"the check runs of commit {head_sha[:12]}", f"/commits/{head_sha}/check-runs"
        return self._list(what, "checks: read", CheckRun, path, query, item="check_runs")

    def create_commit_status(
        self, sha: str, state: str, context: str, description: str, target_url: str | None = None
    ) -> CommitStatus:
        if len(description) > MAX_STATUS_DESCRIPTION_CHARS:
            description = description[: MAX_STATUS_DESCRIPTION_CHARS - 1] + "…"
        extra = {"target_url": target_url} if target_url else {}

        def send() -> CommitStatus:
            commit = self._repo.get_commit(sha)
            return commit.create_status(state, description=description, context=context, **extra)

        # a status sent twice is harmless: the newest of a context is the one that counts
        return self._post(f"setting commit status {context!r}", "statuses: write", send)

    def list_commit_statuses(self, sha: str) -> list[CommitStatus]:
        """The statuses of ``sha``, newest first, at most :data:`MAX_LISTED`."""
        what, path = f"the statuses of commit {sha[:12]}", f"/commits/{sha}/statuses"
        return self._list(what, "statuses: read", CommitStatus, path)

    # ---- workflow runs and artifacts --------------------------------------------------------

    def list_workflow_runs(
        self,
        workflow: str | int | None,
        branch: str | None,
        status: str | None = "success",
        *,
        event: str | None = None,
        head_sha: str | None = None,
        limit: int = 100,
    ) -> list[WorkflowRun]:
        """Runs of one workflow (its id or file name; ``None``: every workflow's) on ``branch``
        (``None``: any), newest first, at most ``limit``; ``status`` ``None``: any status."""
        which = f"workflow {workflow!r}" if workflow else "every workflow"
        what = f"runs of {which}" + (f" on {branch!r}" if branch else "")
        path = f"/actions/workflows/{workflow}/runs" if workflow else "/actions/runs"
        params = {"branch": branch, "status": status, "event": event, "head_sha": head_sha}
        query = {key: value for key, value in params.items() if value}
        return self._list(
            what, "actions: read", WorkflowRun, path, query, item="workflow_runs", limit=limit
        )

    def find_artifact(self, run_id: int, name: str) -> ArtifactInfo | None:
        """The artifact called ``name`` of run ``run_id`` (expired ones included), or ``None``."""
        path, query = f"/actions/runs/{run_id}/artifacts", {"name": name}
        found = self._list(
            f"artifacts of run {run_id}", "actions: read", Artifact, path, query, item="artifacts"
        )
        matches = sorted((a for a in found if a.name == name), key=lambda a: (a.expired, -a.id))
        if not matches:
            return None
        return ArtifactInfo(**{f.name: getattr(matches[0], f.name) for f in fields(ArtifactInfo)})

    def download_artifact_zip(self, artifact: ArtifactInfo, max_bytes: int) -> bytes:
        """The artifact's zip archive, at most ``max_bytes`` long (:mod:`.download`)."""
        return download.artifact_zip(self, artifact, max_bytes)
