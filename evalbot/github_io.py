"""Every call evalbot makes to GitHub. The only module that imports PyGithub.

:func:`make_client` builds the one :class:`GitHubClient` of a run, with retries and throttling
taken from its arguments so tests can turn every wait off. The client hands out frozen dataclasses
(:class:`PullRequestInfo`, :class:`CommentInfo`, ...), never PyGithub objects, and turns every
PyGithub or requests exception into an :class:`~evalbot.errors.PublishError` whose one-line message
says what failed and, for 401/403/404, which ``permissions:`` the workflow needs.

The token never appears in a message, a log line or a ``repr``.
"""

from __future__ import annotations

import email.utils
import logging
import math
import posixpath
import re
import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, NoReturn, TypeVar
from urllib.parse import unquote, urlsplit

import requests
from github import Auth, Github, GithubException, GithubRetry
from github.Artifact import Artifact
from github.CheckRun import CheckRun
from github.Commit import Commit
from github.CommitStatus import CommitStatus
from github.GithubObject import NotSet
from github.IssueComment import IssueComment
from github.PaginatedList import PaginatedList
from github.PullRequest import PullRequest
from github.WorkflowRun import WorkflowRun
from requests.adapters import HTTPAdapter
from urllib3.exceptions import LocationParseError, ProtocolError, ReadTimeoutError
from urllib3.util import parse_url
from urllib3.util.retry import Retry

from evalbot.errors import PublishError

__all__ = [
    "ArtifactInfo",
    "CheckRunInfo",
    "CommentInfo",
    "GitHubClient",
    "GitHubRequestError",
    "PullRequestInfo",
    "StatusInfo",
    "WorkflowRunInfo",
    "make_client",
]

log = logging.getLogger(__name__)

# The ``permissions:`` a workflow job must grant for each kind of call.
PERMISSION_PULLS_READ = "pull-requests: read"
PERMISSION_COMMENTS = "pull-requests: write"
PERMISSION_CHECKS = "checks: write"
PERMISSION_CHECKS_READ = "checks: read"
PERMISSION_STATUSES = "statuses: write"
PERMISSION_STATUSES_READ = "statuses: read"
PERMISSION_ACTIONS = "actions: read"
PERMISSION_CONTENTS = "contents: read"

# GitHub's limits (422 beyond them).
MAX_COMMENT_CHARS = 65536
MAX_CHECK_TEXT_CHARS = 65535
MAX_STATUS_DESCRIPTION_CHARS = 140
_TRUNCATED = "\n\n… (truncated by evalbot: GitHub's size limit)"

_API_VERSION = "2022-11-28"
_USER_AGENT = "evalbot"

#: The longest evalbot waits before one retry, whatever ``Retry-After`` or a rate limit's reset
#: asks for; beyond it the request fails at once with a message saying so.
MAX_WAIT_SECONDS = 120.0
#: Check runs, statuses and comments listed per commit at most (GitHub keeps 1,000 check runs
#: of one name per check suite).
MAX_LISTED = 1000
T = TypeVar("T")


class GitHubRequestError(PublishError):
    """A :class:`PublishError` from an HTTP answer; ``status`` is GitHub's status code."""

    def __init__(
        self,
        message: str,
        status: int,
        *,
        transient: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.transient = transient  # 5xx, 429, a rate limit: worth another try
        self.retry_after = retry_after  # seconds GitHub asked to wait (``Retry-After``)


class GitHubUnreachable(PublishError):
    """No answer (a connection error or a timeout): the request may or may not have acted."""

    transient = True


class _WaitTooLong(GithubException):
    """GitHub asked to wait longer than :data:`MAX_WAIT_SECONDS` before retrying."""

    def __init__(self, status: int, wait: float, cap: float, headers: Mapping[str, str]) -> None:
        message = f"GitHub asked to wait {wait:.0f} s before retrying"
        super().__init__(status, {"message": message}, dict(headers))
        self.wait = wait
        self.cap = cap


def _retry_after(headers: Mapping[str, str] | None) -> float | None:
    """``Retry-After`` in seconds (a number or an HTTP date), ``None`` without a valid one."""
    if not headers:
        return None
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if value is None:
        return None
    text = value.strip()
    if text.isdigit() and len(text) <= 12:
        return float(int(text))
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - datetime.now(when.tzinfo)).total_seconds())


class _CappedWaits:
    """For :class:`urllib3.util.retry.Retry` subclasses: a ``Retry-After`` or a backoff beyond
    ``max_wait`` fails at once (:class:`_WaitTooLong`) instead of sleeping for it, and a POST
    that got no answer is not sent again (the server may have acted on it: a second check run
    would be an orphan)."""

    max_wait: float = MAX_WAIT_SECONDS

    def _capped_increment(
        self,
        increment: Callable[..., Retry],
        method: str | None,
        url: str | None,
        response: Any,
        error: Exception | None,
        _pool: Any,
        _stacktrace: TracebackType | None,
    ) -> Retry:
        # urllib3's "read error": the request went out, so the server may have acted on it
        read_error = isinstance(error, (ReadTimeoutError, ProtocolError))
        if error is not None and read_error and (method or "").upper() == "POST":
            raise error.with_traceback(_stacktrace)
        if response is not None:
            asked = _retry_after(dict(response.headers))
            if asked is not None and asked > self.max_wait:
                _release(response)
                raise _WaitTooLong(response.status, asked, self.max_wait, dict(response.headers))
        retry = increment(method, url, response, error, _pool, _stacktrace)
        backoff = retry.get_backoff_time()
        if backoff > self.max_wait:
            status = response.status if response is not None else 0
            headers = dict(response.headers) if response is not None else {}
            if response is not None:
                _release(response)
            raise _WaitTooLong(status, backoff, self.max_wait, headers)
        return retry


def _release(response: Any) -> None:
    """Give a response's connection back to its pool: the request ends here, with an error."""
    try:
        response.drain_conn()
        response.release_conn()
    except Exception:  # the error being raised says more
        log.debug("could not release a connection", exc_info=True)


class _GithubRetry(_CappedWaits, GithubRetry):
    def __init__(self, max_wait: float = MAX_WAIT_SECONDS, **kwargs: Any) -> None:
        self.max_wait = max_wait
        super().__init__(**kwargs)

    def new(self, **kw: Any) -> _GithubRetry:
        retry: _GithubRetry = super().new(**kw)
        retry.max_wait = self.max_wait
        return retry

    def increment(  # type: ignore[override]
        self,
        method: str | None = None,
        url: str | None = None,
        response: Any = None,
        error: Exception | None = None,
        _pool: Any = None,
        _stacktrace: TracebackType | None = None,
    ) -> Retry:
        return self._capped_increment(
            super().increment, method, url, response, error, _pool, _stacktrace
        )


class _DownloadRetry(_CappedWaits, Retry):
    def __init__(self, max_wait: float = MAX_WAIT_SECONDS, **kwargs: Any) -> None:
        self.max_wait = max_wait
        super().__init__(**kwargs)

    def new(self, **kw: Any) -> _DownloadRetry:
        retry: _DownloadRetry = super().new(**kw)
        retry.max_wait = self.max_wait
        return retry

    def increment(  # type: ignore[override]
        self,
        method: str | None = None,
        url: str | None = None,
        response: Any = None,
        error: Exception | None = None,
        _pool: Any = None,
        _stacktrace: TracebackType | None = None,
    ) -> Retry:
        return self._capped_increment(
            super().increment, method, url, response, error, _pool, _stacktrace
        )


# ---- what the client hands out ------------------------------------------------------------------


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


@dataclass(frozen=True, kw_only=True)
class ArtifactInfo:
    id: int
    name: str
    size_in_bytes: int
    expired: bool
    archive_download_url: str
    run_id: int | None
    head_sha: str | None


# ---- auth for the artifact download -------------------------------------------------------------


class _TokenAuth(requests.auth.AuthBase):
    """``Authorization: Bearer <token>``; an explicit auth also keeps ``~/.netrc`` out."""

    def __init__(self, token: str) -> None:
        self.__token = token

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        r.headers["Authorization"] = f"Bearer {self.__token}"
        return r

    def __repr__(self) -> str:
        return "_TokenAuth(<redacted>)"


class _NoAuth(requests.auth.AuthBase):
    """No ``Authorization`` at all: not ours, not ``~/.netrc``'s (the blob URL is pre-signed)."""

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        r.headers.pop("Authorization", None)
        return r


# ---- the client ---------------------------------------------------------------------------------


def make_client(
    api_url: str,
    token: str,
    repository: str,
    *,
    retries: int = 3,
    backoff: float = 1.0,
    timeout: float = 30.0,
    rate_limit_wait: float = 60.0,
    seconds_between_requests: float | None = 0.25,
    seconds_between_writes: float | None = 1.0,
    max_wait: float = MAX_WAIT_SECONDS,
) -> GitHubClient:
    """Build the client for ``repository`` (``owner/name``) on ``api_url``.

    ``retries``: how often a request is retried on 5xx, 429 and a 403 secondary rate limit.
    ``backoff``: urllib3's ``backoff_factor`` between retries (0 in tests). A ``Retry-After``
    header is honoured up to ``max_wait`` seconds (a longer one fails at once, saying so);
    without one a secondary rate limit waits ``rate_limit_wait`` seconds.
    ``seconds_between_requests``/``seconds_between_writes``: PyGithub's own throttling (GitHub
    asks integrations to space writes); ``None`` turns it off.

    GET, PATCH and DELETE are retried by urllib3. A POST creates something, so it is never
    sent again blindly: :class:`GitHubClient` retries each kind of POST itself, and a check run
    only after looking for the one its first try may have created (its ``external_id``).
    """
    if not token:
        raise PublishError(
            "no GitHub token: set the `github-token` input (default ${{ github.token }})"
        )
    if not re.fullmatch(r"[^/\s]+/[^/\s]+", repository):
        raise PublishError(f"repository must be 'owner/name', got {repository!r}")
    retry = _GithubRetry(
        max_wait=max_wait,
        total=retries,
        backoff_factor=backoff,
        secondary_rate_wait=rate_limit_wait,
        status_forcelist=[*range(500, 600), 429],
        allowed_methods=Retry.DEFAULT_ALLOWED_METHODS | {"GET", "PATCH"},
        raise_on_status=False,
        respect_retry_after_header=True,
    )
    gh = Github(
        base_url=api_url.rstrip("/"),
        auth=Auth.Token(token),
        retry=retry,
        timeout=max(1, math.ceil(timeout)),
        user_agent=_USER_AGENT,
        per_page=100,
        seconds_between_requests=seconds_between_requests,
        seconds_between_writes=seconds_between_writes,
        lazy=True,
    )
    http = requests.Session()
    http.headers["User-Agent"] = _USER_AGENT
    http.mount("http://", HTTPAdapter(max_retries=_download_retry(retries, backoff, max_wait)))
    http.mount("https://", HTTPAdapter(max_retries=_download_retry(retries, backoff, max_wait)))
    return GitHubClient(
        gh,
        http,
        api_url=api_url.rstrip("/"),
        repository=repository,
        token=token,
        timeout=timeout,
        retries=retries,
        backoff=backoff,
        max_wait=max_wait,
    )


def _download_retry(retries: int, backoff: float, max_wait: float) -> Retry:
    return _DownloadRetry(
        max_wait=max_wait,
        total=retries,
        backoff_factor=backoff,
        status_forcelist=[500, 502, 503, 504],
        allowed_methods={"GET"},
        raise_on_status=False,
        redirect=False,
    )


class GitHubClient:
    """GitHub, as evalbot needs it, for one repository. Build with :func:`make_client`."""

    def __init__(
        self,
        gh: Github,
        http: requests.Session,
        *,
        api_url: str,
        repository: str,
        token: str,
        timeout: float,
        retries: int = 3,
        backoff: float = 1.0,
        max_wait: float = MAX_WAIT_SECONDS,
    ) -> None:
        self._gh = gh
        self._http = http
        self._api_url = api_url
        self._token_auth = _TokenAuth(token)
        self._secret = token
        self._timeout = timeout
        self._retries = retries
        self._backoff = backoff
        self._max_wait = max_wait
        self.repository = repository
        self._repo = gh.get_repo(repository)  # lazy: Github(lazy=True)

    def __repr__(self) -> str:
        return f"GitHubClient(api_url={self._api_url!r}, repository={self.repository!r})"

    def close(self) -> None:
        self._gh.close()
        self._http.close()

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- pull requests ---------------------------------------------------------------------

    def get_pull(self, number: int) -> PullRequestInfo:
        with self._errors(f"reading pull request #{number}", PERMISSION_PULLS_READ):
            return _pull_info(self._repo.get_pull(number))

    def find_pull_for_head(
        self, head_sha: str, head_branch: str | None = None, head_owner: str | None = None
    ) -> PullRequestInfo | None:
        """The open pull request whose head is ``head_sha`` (for a ``workflow_run`` event whose
        payload lists no pull request, e.g. one from a fork). ``None`` if there is none."""
        action = f"finding the pull request for commit {head_sha[:12]}"
        with self._errors(action, PERMISSION_PULLS_READ):
            for pull in self._repo.get_commit(head_sha).get_pulls():
                if pull.head.sha == head_sha and pull.state == "open":
                    return _pull_info(pull)
            # GitHub does not associate a fork's commits with the base repository's pulls.
            pulls: PaginatedList[PullRequest]
            if head_branch and head_owner:
                pulls = self._repo.get_pulls(state="open", head=f"{head_owner}:{head_branch}")
            else:
                pulls = self._repo.get_pulls(state="open", sort="updated", direction="desc")
            for pull in pulls:
                if pull.head.sha == head_sha:
                    return _pull_info(pull)
        return None

    def list_pull_commits(self, number: int) -> list[str]:
        """The shas of the pull request's commits, oldest first (GitHub lists at most 250)."""
        with self._errors(f"listing the commits of pull request #{number}", PERMISSION_PULLS_READ):
            found = PaginatedList(
                Commit, self._gh.requester, f"{self._repo.url}/pulls/{number}/commits", None
            )
            return [commit.sha for commit in found]

    # ---- who we are ------------------------------------------------------------------------

    def authenticated_login(self) -> str:
        """The login of a personal token's user (``GET /user``). An App's token has no user:
        its identity is the ``app`` of the check runs it creates."""
        with self._errors("reading the token's user (GET /user)", "a personal token"):
            login: str = self._gh.get_user().login
            return login

    # ---- comments ------------------------------------------------------------------------------

    def list_comments(self, number: int) -> list[CommentInfo]:
        with self._errors(f"listing the comments of pull request #{number}", PERMISSION_PULLS_READ):
            return [_comment_info(c) for c in self._repo.get_issue(number).get_comments()]

    def create_comment(self, number: int, body: str) -> CommentInfo:
        body = _fit(body, MAX_COMMENT_CHARS, "comment")
        return self._post(
            f"commenting on pull request #{number}",
            PERMISSION_COMMENTS,
            lambda: _comment_info(self._repo.get_issue(number).create_comment(body)),
        )

    def update_comment(self, comment_id: int, body: str) -> CommentInfo:
        body = _fit(body, MAX_COMMENT_CHARS, "comment")
        with self._errors(f"updating comment {comment_id}", PERMISSION_COMMENTS):
            comment = self._comment(comment_id)
            comment.edit(body)
            return _comment_info(comment)

    def delete_comment(self, comment_id: int) -> None:
        with self._errors(f"deleting comment {comment_id}", PERMISSION_COMMENTS):
            self._comment(comment_id).delete()

    def upsert_sticky_comment(
        self, number: int, marker: str, body: str, *, author: str, author_type: str
    ) -> str:
        """Publish ``body`` as the one comment of ``author`` carrying ``marker``; its URL.

        Only comments written by ``author`` (of ``author_type``: ``Bot`` for an App's bot user
        such as ``github-actions[bot]``, ``User`` for a personal token's) are ever edited or
        deleted: anyone can post the marker's text, and someone else's comment is theirs. The
        oldest of ours holding ``marker`` is edited in place; if there is none, one is created,
        and the comments are listed again: when a concurrent run created one too, the oldest
        of ours is kept (updated with ``body``) and our later duplicates are deleted.
        """
        if marker not in body:
            body = f"{marker}\n{body}"

        def ours() -> list[CommentInfo]:
            return [
                c
                for c in self.list_comments(number)
                if marker in c.body and c.author == author and c.author_type == author_type
            ]

        existing = ours()
        if existing:
            keep = existing[0]
            self._delete_duplicates(existing[1:])
            if keep.body == _fit(body, MAX_COMMENT_CHARS, "comment"):
                return keep.html_url
            return self.update_comment(keep.id, body).html_url
        created = self.create_comment(number, body)
        after = ours()
        if not after or after[0].id == created.id:
            self._delete_duplicates(after[1:])
            return created.html_url
        keep = after[0]
        log.info(
            "another run commented on #%d at the same time; keeping comment %d", number, keep.id
        )
        self._delete_duplicates(after[1:])
        return self.update_comment(keep.id, body).html_url

    def _delete_duplicates(self, comments: list[CommentInfo]) -> None:
        for comment in comments:
            try:
                self.delete_comment(comment.id)
            except GitHubRequestError as error:
                if error.status != 404:  # 404: the concurrent run deleted it already
                    raise

    def _comment(self, comment_id: int) -> IssueComment:
        return IssueComment(
            self._gh.requester, url=f"{self._repo.url}/issues/comments/{comment_id}"
        )

    # ---- checks and statuses --------------------------------------------------------------------

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
    ) -> CheckRunInfo:
        """A check run on ``head_sha``: ``in_progress`` unless ``conclusion`` completes it.

        Idempotent: the run carries a random ``external_id``; when a try gets no answer (or a
        5xx), the check runs of ``head_sha`` are searched for it before trying again, so a
        request that GitHub did act on never leaves a second, orphaned check run behind.
        """
        nonce = f"evalbot-{secrets.token_hex(12)}"
        kwargs: dict[str, Any] = {
            "output": _check_output(title, summary, text),
            "external_id": nonce,
        }
        if conclusion is None:
            kwargs["status"] = "in_progress"
        else:
            kwargs["status"] = "completed"
            kwargs["conclusion"] = conclusion
        if details_url:
            kwargs["details_url"] = details_url

        def created() -> CheckRunInfo | None:
            found = [
                run for run in self.list_check_runs(head_sha, name) if run.external_id == nonce
            ]
            return min(found, key=lambda run: run.id) if found else None

        return self._post(
            f"creating check run {name!r}",
            PERMISSION_CHECKS,
            lambda: _check_info(
                self._repo.create_check_run(name=name, head_sha=head_sha, **kwargs)
            ),
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
    ) -> CheckRunInfo:
        with self._errors(f"completing check run {check_run_id}", PERMISSION_CHECKS):
            run = CheckRun(self._gh.requester, url=f"{self._repo.url}/check-runs/{check_run_id}")
            run.edit(
                status="completed",
                conclusion=conclusion,
                output=_check_output(title, summary, text),
            )
            return _check_info(run)

    def list_check_runs(self, head_sha: str, name: str) -> list[CheckRunInfo]:
        """Every check run called ``name`` on ``head_sha`` (``filter=all``: GitHub's default
        lists only the latest), whichever App made it, at most :data:`MAX_LISTED`."""
        action = f"listing the check runs of commit {head_sha[:12]}"
        with self._errors(action, PERMISSION_CHECKS_READ):
            found = PaginatedList(
                CheckRun,
                self._gh.requester,
                f"{self._repo.url}/commits/{head_sha}/check-runs",
                {"check_name": name, "filter": "all"},
                list_item="check_runs",
            )
            runs: list[CheckRunInfo] = []
            for run in found:
                runs.append(_check_info(run))
                if len(runs) >= MAX_LISTED:
                    break
            return runs

    def create_commit_status(
        self,
        sha: str,
        state: str,
        context: str,
        description: str,
        target_url: str | None = None,
    ) -> StatusInfo:
        if len(description) > MAX_STATUS_DESCRIPTION_CHARS:
            description = description[: MAX_STATUS_DESCRIPTION_CHARS - 1] + "…"

        def send() -> StatusInfo:
            commit = self._repo.get_commit(sha)
            if target_url:
                made = commit.create_status(
                    state, target_url=target_url, description=description, context=context
                )
            else:
                made = commit.create_status(state, description=description, context=context)
            return _status_info(made, sha)

        # a status sent twice is harmless: the newest of a context is the one that counts
        return self._post(f"setting commit status {context!r}", PERMISSION_STATUSES, send)

    def list_commit_statuses(self, sha: str) -> list[StatusInfo]:
        """The statuses of ``sha``, newest first, at most :data:`MAX_LISTED`."""
        with self._errors(f"listing the statuses of commit {sha[:12]}", PERMISSION_STATUSES_READ):
            found = PaginatedList(
                CommitStatus, self._gh.requester, f"{self._repo.url}/commits/{sha}/statuses", None
            )
            statuses: list[StatusInfo] = []
            for status in found:
                statuses.append(_status_info(status, sha))
                if len(statuses) >= MAX_LISTED:
                    break
            return statuses

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
        most ``max_wait``) and send again."""
        attempt = 0
        while True:
            try:
                with self._errors(action, permission):
                    return send()
            except PublishError as error:
                if not getattr(error, "transient", False):
                    raise
                if recover is not None:
                    with self._errors(f"{action} (looking for an earlier try)", permission):
                        found = recover()
                    if found is not None:
                        log.info("%s: the earlier try had succeeded", action)
                        return found
                if attempt >= self._retries:
                    raise
                asked = getattr(error, "retry_after", None)
                wait = asked if asked is not None else self._backoff * (2**attempt)
                if wait > self._max_wait:
                    raise PublishError(
                        f"{action} failed: GitHub asked to wait {wait:.0f} s before retrying, "
                        f"more than the {self._max_wait:.0f} s evalbot waits; try again later"
                    ) from None
                time.sleep(wait)
                attempt += 1

    # ---- actions ------------------------------------------------------------------------------

    def list_workflow_runs(
        self,
        workflow_id_or_file: str | int,
        branch: str,
        status: str | None = "success",
        *,
        event: str | None = None,
        head_sha: str | None = None,
        limit: int = 100,
    ) -> list[WorkflowRunInfo]:
        """Runs of one workflow on ``branch``, newest first (at most ``limit``); ``status``
        ``None``: whatever their status."""
        action = f"listing runs of workflow {workflow_id_or_file!r} on {branch!r}"
        with self._errors(action, PERMISSION_ACTIONS):
            runs: list[WorkflowRunInfo] = []
            found = self._repo.get_workflow(workflow_id_or_file).get_runs(
                branch=branch,
                status=status if status else NotSet,
                event=event if event else NotSet,
                head_sha=head_sha if head_sha else NotSet,
            )
            for run in found:
                runs.append(_run_info(run))
                if len(runs) >= limit:
                    break
            return runs

    def find_artifact(self, run_id: int, name: str) -> ArtifactInfo | None:
        """The artifact called ``name`` of run ``run_id`` (expired ones included), or ``None``."""
        with self._errors(f"listing artifacts of run {run_id}", PERMISSION_ACTIONS):
            found = PaginatedList(
                Artifact,
                self._gh.requester,
                f"{self._repo.url}/actions/runs/{run_id}/artifacts",
                {"name": name},
                list_item="artifacts",
            )
            matches = [_artifact_info(a) for a in found if a.name == name]
        matches.sort(key=lambda a: (a.expired, -a.id))
        return matches[0] if matches else None

    def download_artifact_zip(self, artifact: ArtifactInfo, max_bytes: int) -> bytes:
        """The artifact's zip archive, at most ``max_bytes`` long.

        GitHub answers the archive URL with a 302 to a pre-signed storage URL; that second request
        carries no ``Authorization`` header, so the token never reaches the storage host.
        """
        label = f"artifact {artifact.name!r} (id {artifact.id})"
        if artifact.expired:
            raise PublishError(f"{label} has expired; re-run the workflow that uploads it")
        if artifact.size_in_bytes > max_bytes:
            raise PublishError(
                f"{label} is {artifact.size_in_bytes} bytes, over the {max_bytes}-byte limit"
            )
        if not _same_origin(artifact.archive_download_url, self._api_url):
            raise PublishError(
                f"{label} has a download URL outside {self._api_url}; "
                "refusing to send the token there"
            )
        action = f"downloading {label}"
        try:
            with self._http.get(
                artifact.archive_download_url,
                auth=self._token_auth,
                headers={
                    "Accept": "application/vnd.github+json",
                    "X-GitHub-Api-Version": _API_VERSION,
                },
                allow_redirects=False,
                timeout=self._timeout,
            ) as first:
                if first.status_code == 410:
                    raise PublishError(
                        f"{label} has expired (410 Gone); re-run the workflow that uploads it"
                    )
                if first.status_code in (301, 302, 303, 307, 308) and first.headers.get("Location"):
                    location = first.headers["Location"]
                elif first.status_code == 200:
                    return _read_capped(first, max_bytes, label)
                else:
                    self._raise_http(action, PERMISSION_ACTIONS, first)
            with self._http.get(
                location, auth=_NoAuth(), stream=True, timeout=self._timeout
            ) as blob:
                if blob.status_code != 200:
                    raise PublishError(
                        f"{action} failed: the storage host answered "
                        f"{blob.status_code} {blob.reason}"
                    )
                return _read_capped(blob, max_bytes, label)
        except _WaitTooLong as exc:
            raise PublishError(
                f"{action} failed: asked to wait {exc.wait:.0f} s before retrying (Retry-After), "
                f"more than the {exc.cap:.0f} s evalbot waits; try again later"
            ) from None
        except requests.RequestException as exc:
            raise PublishError(f"{action} failed: {type(exc).__name__} talking to GitHub") from None

    # ---- contents ----------------------------------------------------------------------------

    def get_file_at_ref(self, path: str, ref: str) -> str | None:
        """The text of ``path`` at ``ref`` (a sha or branch), or ``None`` if it does not exist."""
        with self._errors(
            f"reading {path} at {ref[:12]}", PERMISSION_CONTENTS, missing_ok=True
        ) as missing:
            content = self._repo.get_contents(path, ref=ref)
            if isinstance(content, list):
                raise PublishError(f"{path} at {ref[:12]} is a directory, not a file")
            if content.encoding != "base64":
                raise PublishError(f"{path} at {ref[:12]} is too large to read through the API")
            data: bytes = content.decoded_content
        if missing:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise PublishError(f"{path} at {ref[:12]} is not UTF-8 text") from None

    def compare_commits(self, base: str, head: str) -> tuple[int, int]:
        """``(ahead_by, behind_by)`` of ``head`` relative to ``base``."""
        with self._errors(f"comparing {base[:12]}...{head[:12]}", PERMISSION_CONTENTS):
            comparison = self._repo.compare(base, head)
            return int(comparison.ahead_by), int(comparison.behind_by)

    # ---- error translation ---------------------------------------------------------------------

    @contextmanager
    def _errors(
        self, action: str, permission: str, *, missing_ok: bool = False
    ) -> Iterator[list[bool]]:
        """Translate PyGithub/requests exceptions raised inside into :class:`PublishError`.

        With ``missing_ok`` a 404 is swallowed and the yielded list gets ``True`` appended.
        """
        missing: list[bool] = []
        try:
            yield missing
        except _WaitTooLong as exc:
            raise GitHubRequestError(
                f"{action} failed: GitHub asked to wait {exc.wait:.0f} s before retrying "
                f"(Retry-After or a rate limit's reset), more than the {exc.cap:.0f} s evalbot "
                "waits; try again later",
                exc.status,
            ) from None
        except GithubException as exc:
            if missing_ok and exc.status == 404:
                missing.append(True)
                return
            message = exc.data.get("message") if isinstance(exc.data, dict) else exc.data
            raise GitHubRequestError(
                self._scrub(_describe(action, permission, exc.status, exc.data, exc.headers)),
                exc.status,
                transient=_transient(exc.status, message, exc.headers),
                retry_after=_retry_after(exc.headers),
            ) from None
        except requests.RequestException as exc:
            raise GitHubUnreachable(
                f"{action} failed: no answer from GitHub at {self._api_url} ({type(exc).__name__})"
            ) from None

    def _raise_http(self, action: str, permission: str, response: requests.Response) -> NoReturn:
        try:
            data: Any = response.json()
        except ValueError:
            data = response.text[:200]
        raise GitHubRequestError(
            self._scrub(
                _describe(action, permission, response.status_code, data, response.headers)
            ),
            response.status_code,
        )

    def _scrub(self, message: str) -> str:
        return message.replace(self._secret, "***") if len(self._secret) >= 4 else message


# ---- helpers ------------------------------------------------------------------------------------


def _describe(
    action: str, permission: str, status: int, data: Any, headers: Mapping[str, str] | None
) -> str:
    """One line saying what failed, what GitHub said and what to do about it."""
    message = data.get("message") if isinstance(data, dict) else data
    said = f"{status} {_one_line(str(message or ''))}".strip()
    if isinstance(data, dict) and data.get("errors"):
        said += " " + _one_line("; ".join(_error_item(e) for e in data["errors"]))
    lower = str(message or "").lower()
    if _rate_limited(status, message, headers):
        return (
            f"{action} failed: GitHub's rate limit ({said}) outlasted the retries; try again later"
        )
    if status == 401:
        return (
            f"{action} failed: GitHub rejected the token ({said}); "
            "check the `github-token` input (default ${{ github.token }})"
        )
    if status == 403 and "github app" in lower:
        return (
            f"{action} failed: check runs need the Actions token or a GitHub App token, "
            f"not a personal token ({said}); give the workflow `permissions: {permission}` "
            "and use ${{ github.token }}"
        )
    if status == 403:
        return (
            f"{action} failed: the token may not do this ({said}); the workflow needs "
            f"`permissions: {permission}` (a pull request from a fork only gets a read-only token: "
            "publish from a `workflow_run` job)"
        )
    if status == 404:
        return (
            f"{action} failed: not found ({said}); check the repository and number, "
            f"or give the workflow `permissions: {permission}` (GitHub answers 404 when a token "
            "may not see something)"
        )
    if status == 422:
        return f"{action} failed: GitHub rejected the request ({said})"
    if status >= 500:
        return f"{action} failed: GitHub answered {said} and kept failing after retries"
    return f"{action} failed: GitHub answered {said}"


def _rate_limited(status: int, message: Any, headers: Mapping[str, str] | None) -> bool:
    lower = str(message or "").lower()
    head = {k.lower(): v for k, v in (headers or {}).items()}
    return (
        status == 429
        or "rate limit" in lower
        or "abuse" in lower
        or (
            status == 403
            and bool(head.get("retry-after") or head.get("x-ratelimit-remaining") == "0")
        )
        # the retry logic reads a 403's body to spot a rate limit; the last one reaches us empty
        or (status == 403 and not message)
    )


def _transient(status: int, message: Any, headers: Mapping[str, str] | None) -> bool:
    """Whether another try may succeed: a server error, or a rate limit."""
    return status >= 500 or _rate_limited(status, message, headers)


def _error_item(item: Any) -> str:
    if not isinstance(item, dict):
        return str(item)
    if item.get("message"):
        return str(item["message"])
    return " ".join(str(item[k]) for k in ("resource", "field", "code") if item.get(k))


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fit(body: str, limit: int, what: str) -> str:
    if len(body) <= limit:
        return body
    log.warning("%s is %d characters, over GitHub's %d; truncating", what, len(body), limit)
    return body[: limit - len(_TRUNCATED)] + _TRUNCATED


def _check_output(title: str, summary: str, text: str | None) -> dict[str, Any]:
    output: dict[str, Any] = {
        "title": _one_line(title, 255),
        "summary": _fit(summary, MAX_CHECK_TEXT_CHARS, "check run summary"),
    }
    if text:
        output["text"] = _fit(text, MAX_CHECK_TEXT_CHARS, "check run text")
    return output


_DEFAULT_PORTS = {"http": 80, "https": 443}
_URL_SAFE = re.compile(r"[!-~]+")  # printable ASCII, no spaces or control characters


def _origin(url: str) -> tuple[str, str, int, str] | None:
    """(scheme, host, port, path) as urllib3, the library that will connect, reads ``url``;
    ``None`` for anything two parsers could read differently: a backslash (urllib3 ends the
    host there, the standard library does not), userinfo (``user@``), a character outside
    printable ASCII, or a parse that disagrees with :func:`urllib.parse.urlsplit`."""
    if not _URL_SAFE.fullmatch(url) or "\\" in url:
        return None
    try:
        parts = parse_url(url)
        split = urlsplit(url)
        split_port = split.port
    except (LocationParseError, ValueError):
        return None
    scheme = (parts.scheme or "").lower()
    host = (parts.host or "").lower()
    if scheme not in _DEFAULT_PORTS or not host or parts.auth is not None or "@" in split.netloc:
        return None
    port = parts.port or _DEFAULT_PORTS[scheme]
    if (split.hostname or "") != host or (split_port or _DEFAULT_PORTS[scheme]) != port:
        return None
    return scheme, host, port, parts.path or "/"


def _same_origin(url: str, api_url: str) -> bool:
    """Whether ``url`` is under ``api_url``: the same scheme, host (any case) and port (the
    default one spelt or not), and a path under the API's, which is ``/api/v3`` on GitHub
    Enterprise Server; dot segments (also percent-encoded) cannot climb out of it. Read the way
    urllib3 (which connects) reads it; see :func:`_origin` for what is refused outright."""
    a, b = _origin(url), _origin(api_url)
    if a is None or b is None or a[:3] != b[:3]:
        return False
    prefix = b[3].rstrip("/") + "/"
    path = posixpath.normpath(unquote(a[3]) or "/")
    return (path + "/").startswith(prefix) and path + "/" != prefix


def _read_capped(response: requests.Response, max_bytes: int, label: str) -> bytes:
    declared = response.headers.get("Content-Length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise PublishError(f"{label} is {declared} bytes, over the {max_bytes}-byte limit")
    chunks: list[bytes] = []
    total = 0
    for chunk in response.iter_content(chunk_size=64 * 1024):
        total += len(chunk)
        if total > max_bytes:
            raise PublishError(
                f"{label} is over the {max_bytes}-byte limit; stopped downloading it"
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _pull_info(pull: PullRequest) -> PullRequestInfo:
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
    )


def _comment_info(comment: IssueComment) -> CommentInfo:
    user = comment.user
    return CommentInfo(
        id=comment.id,
        body=comment.body or "",
        author=user.login if user is not None else "",
        author_type=(user.type or "") if user is not None else "",
        html_url=comment.html_url,
    )


def _check_info(run: CheckRun) -> CheckRunInfo:
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


def _status_info(status: CommitStatus, sha: str) -> StatusInfo:
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


def _run_info(run: WorkflowRun) -> WorkflowRunInfo:
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
    )


def _artifact_info(artifact: Artifact) -> ArtifactInfo:
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
