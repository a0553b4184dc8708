"""GitHub's answers: the errors they become (:func:`request_error`: a ``kind`` and one line naming
the ``permissions:`` needed) and urllib3's retries with every wait capped (a POST is never sent
again by urllib3: the client retries each kind itself).
"""

from __future__ import annotations

import email.utils
import logging
from collections.abc import Callable, Mapping
from datetime import datetime
from types import TracebackType
from typing import Any

from github import GithubException, GithubRetry
from urllib3.exceptions import ProtocolError, ReadTimeoutError
from urllib3.util.retry import Retry

from evalbot.errors import PublishError

log = logging.getLogger(__name__)

#: The longest evalbot waits before one retry, whatever ``Retry-After`` or a rate limit's reset
#: asks for; beyond it the request fails at once with a message saying so.
MAX_WAIT_SECONDS = 120.0


class GitHubRequestError(PublishError):
    """A :class:`PublishError` from a request: GitHub's ``status`` (0: no answer) and what it
    means, ``kind``: ``rate_limited``, ``wait_too_long``, ``bad_token`` (401), ``checks_need_app``
    (403 to a personal token), ``forbidden``, ``not_found``, ``rejected`` (422), ``server_error``,
    ``unreachable`` (a connection error or a timeout: the request may or may not have acted),
    ``failed``."""

    def __init__(
        self, message: str, status: int, *, kind: str = "failed", retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        # worth another try
        self.transient = kind in ("rate_limited", "server_error", "unreachable")
        self.retry_after = retry_after  # seconds GitHub asked to wait (``Retry-After``)


class WaitTooLong(GithubException):
    """GitHub asked to wait longer than evalbot waits before retrying."""

    def __init__(self, status: int, wait: float, headers: Mapping[str, str]) -> None:
        message = f"GitHub asked to wait {wait:.0f} s before retrying"
        super().__init__(status, {"message": message}, dict(headers))
        self.wait = wait


def wait_too_long(action: str, wait: float, status: int = 0) -> GitHubRequestError:
    """The error of a request whose retry GitHub asked to wait more than
    :data:`MAX_WAIT_SECONDS` for."""
    return GitHubRequestError(
        f"{action} failed: GitHub asked to wait {wait:.0f} s before retrying (Retry-After or "
        f"a rate limit's reset), more than the {MAX_WAIT_SECONDS:.0f} s evalbot waits; try "
        "again later",
        status,
        kind="wait_too_long",
    )


def retry_after(headers: Mapping[str, str] | None) -> float | None:
    """``Retry-After`` in seconds (a number or an HTTP date), ``None`` without a valid one."""
    value = next((v for k, v in (headers or {}).items() if k.lower() == "retry-after"), None)
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


def _kind(status: int, message: Any, headers: Mapping[str, str] | None) -> str:
    """What an answer of GitHub's means: the one place its wording is read."""
    lower = str(message or "").lower()
    head = {k.lower(): v for k, v in (headers or {}).items()}
    # a 403 is a rate limit when its headers say so, or when it is empty: the retry logic reads
    # a 403's body to spot a rate limit, and the last one reaches us empty
    limited = not message or head.get("retry-after") or head.get("x-ratelimit-remaining") == "0"
    if status == 429 or "rate limit" in lower or "abuse" in lower or (status == 403 and limited):
        return "rate_limited"
    if status == 403 and "github app" in lower:
        return "checks_need_app"
    by_status = {401: "bad_token", 403: "forbidden", 404: "not_found", 422: "rejected"}
    return by_status.get(status, "server_error" if status >= 500 else "failed")


def request_error(
    action: str,
    permission: str,
    status: int,
    data: Any,
    headers: Mapping[str, str] | None,
    *,
    scrub: Callable[[str], str],
) -> GitHubRequestError:
    """The error for one refusal of GitHub's: one line saying what failed, what GitHub said and
    what to do about it; ``scrub`` takes the token out of it."""
    message = data.get("message") if isinstance(data, dict) else data
    said = f"{status} {one_line(str(message or ''))}".strip()
    if isinstance(data, dict) and data.get("errors"):
        said += " " + one_line("; ".join(_error_item(e) for e in data["errors"]))
    kind = _kind(status, message, headers)
    advice = {
        "rate_limited": f"GitHub's rate limit ({said}) outlasted the retries; try again later",
        "bad_token": f"GitHub rejected the token ({said}); check the `github-token` input "
        "(default ${{ github.token }})",
        "checks_need_app": "check runs need the Actions token or a GitHub App token, not a "
        f"personal token ({said}); give the workflow `permissions: {permission}` and use "
        "${{ github.token }}",
        "forbidden": f"the token may not do this ({said}); the workflow needs `permissions: "
        f"{permission}` (a pull request from a fork only gets a read-only token: publish from "
        "a `workflow_run` job)",
        "not_found": f"not found ({said}); check the repository and number, or give the "
        f"workflow `permissions: {permission}` (GitHub answers 404 when a token may not see "
        "something)",
        "rejected": f"GitHub rejected the request ({said})",
        "server_error": f"GitHub answered {said} and kept failing after retries",
    }
    text = f"{action} failed: {advice.get(kind, f'GitHub answered {said}')}"
    return GitHubRequestError(scrub(text), status, kind=kind, retry_after=retry_after(headers))


def _error_item(item: Any) -> str:
    if not isinstance(item, dict):
        return str(item)
    if item.get("message"):
        return str(item["message"])
    return " ".join(str(item[k]) for k in ("resource", "field", "code") if item.get(k))


def one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class CappedRetry(Retry):
    """urllib3's :class:`~urllib3.util.retry.Retry` whose ``Retry-After`` or backoff beyond
    :data:`MAX_WAIT_SECONDS` fails at once (:class:`WaitTooLong`), and which never sends again
    a POST that got no answer (the server may have acted on it: a second check run would be an
    orphan). The artifact download's policy, and the base of PyGithub's."""

    def increment(  # type: ignore[override]
        self,
        method: str | None = None,
        url: str | None = None,
        response: Any = None,
        error: Exception | None = None,
        _pool: Any = None,
        _stacktrace: TracebackType | None = None,
    ) -> Retry:
        # urllib3's "read error": the request went out, so the server may have acted on it
        read_error = isinstance(error, (ReadTimeoutError, ProtocolError))
        if error is not None and read_error and (method or "").upper() == "POST":
            raise error.with_traceback(_stacktrace)
        asked = retry_after(dict(response.headers)) if response is not None else None
        if asked is None or asked <= MAX_WAIT_SECONDS:
            retry = super().increment(method, url, response, error, _pool, _stacktrace)
            asked = retry.get_backoff_time()
            if asked <= MAX_WAIT_SECONDS:
                return retry
        status = response.status if response is not None else 0
        headers = dict(response.headers) if response is not None else {}
        if response is not None:
            _release(response)
        raise WaitTooLong(status, asked, headers)


def _release(response: Any) -> None:
    """Give a response's connection back to its pool: the request ends here, with an error."""
    try:
        response.drain_conn()
        response.release_conn()
    except Exception:  # the error being raised says more
        log.debug("could not release a connection", exc_info=True)


class PyGithubRetry(CappedRetry, GithubRetry):
    """PyGithub's retry policy (secondary rate limits read from 403 bodies), waits capped."""
