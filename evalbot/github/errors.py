"""GitHub's refusals as evalbot's errors: one line saying what failed, what GitHub said and,
for 401/403/404, which ``permissions:`` the workflow needs.

GitHub's answer is read once, here: :func:`classify` gives it a :data:`Kind` (a rate limit, a
rejected token, check runs refused to a personal token, ...), which the message, the retry
decision and the callers (:mod:`evalbot.github.checks` falls back to a commit status on
``"checks_need_app"``) all go by; nothing downstream reads the wording of a message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal

import requests
from github import GithubException

from evalbot.errors import PublishError
from evalbot.github.retry import WaitTooLong, retry_after

__all__ = [
    "PERMISSION_ACTIONS",
    "PERMISSION_CHECKS",
    "PERMISSION_CHECKS_READ",
    "PERMISSION_COMMENTS",
    "PERMISSION_CONTENTS",
    "PERMISSION_PULLS_READ",
    "PERMISSION_STATUSES",
    "PERMISSION_STATUSES_READ",
    "GitHubRequestError",
    "GitHubUnreachable",
    "Kind",
    "classify",
    "describe",
    "one_line",
    "request_error",
    "translated",
]

# The ``permissions:`` a workflow job must grant for each kind of call.
PERMISSION_PULLS_READ = "pull-requests: read"
PERMISSION_COMMENTS = "pull-requests: write"
PERMISSION_CHECKS = "checks: write"
PERMISSION_CHECKS_READ = "checks: read"
PERMISSION_STATUSES = "statuses: write"
PERMISSION_STATUSES_READ = "statuses: read"
PERMISSION_ACTIONS = "actions: read"
PERMISSION_CONTENTS = "contents: read"

#: What GitHub's answer means, read from its status, message and headers (:func:`classify`).
Kind = Literal[
    "rate_limited",  # 429, a secondary rate limit, an exhausted quota: another try may pass
    "wait_too_long",  # asked to wait longer than evalbot waits (``Retry-After``, a reset)
    "bad_token",  # 401: the token was rejected
    "checks_need_app",  # 403: check runs need an App's token (a personal token was given)
    "forbidden",  # 403: the token may not do this (a missing ``permissions:``, a fork)
    "not_found",  # 404: missing, or hidden from this token
    "rejected",  # 422: the request was invalid
    "server_error",  # 5xx: another try may pass
    "failed",  # any other answer
]


class GitHubRequestError(PublishError):
    """A :class:`PublishError` from an HTTP answer; ``status`` is GitHub's status code and
    ``kind`` what it means (:data:`Kind`)."""

    def __init__(
        self,
        message: str,
        status: int,
        *,
        kind: Kind = "failed",
        transient: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.kind: Kind = kind
        self.transient = transient  # 5xx, 429, a rate limit: worth another try
        self.retry_after = retry_after  # seconds GitHub asked to wait (``Retry-After``)


class GitHubUnreachable(PublishError):
    """No answer (a connection error or a timeout): the request may or may not have acted."""

    transient = True


def _message(data: Any) -> Any:
    return data.get("message") if isinstance(data, dict) else data


def rate_limited(status: int, message: Any, headers: Mapping[str, str] | None) -> bool:
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


def classify(status: int, data: Any, headers: Mapping[str, str] | None) -> Kind:
    """What an answer of GitHub's means: the one place its wording is read."""
    message = _message(data)
    if rate_limited(status, message, headers):
        return "rate_limited"
    if status == 401:
        return "bad_token"
    if status == 403 and "github app" in str(message or "").lower():
        return "checks_need_app"
    by_status: dict[int, Kind] = {403: "forbidden", 404: "not_found", 422: "rejected"}
    if status in by_status:
        return by_status[status]
    return "server_error" if status >= 500 else "failed"


def describe(action: str, permission: str, status: int, data: Any, kind: Kind) -> str:
    """One line saying what failed, what GitHub said and what to do about it."""
    said = f"{status} {one_line(str(_message(data) or ''))}".strip()
    if isinstance(data, dict) and data.get("errors"):
        said += " " + one_line("; ".join(_error_item(e) for e in data["errors"]))
    failed = f"{action} failed"
    if kind == "rate_limited":
        return f"{failed}: GitHub's rate limit ({said}) outlasted the retries; try again later"
    if kind == "bad_token":
        return (
            f"{failed}: GitHub rejected the token ({said}); "
            "check the `github-token` input (default ${{ github.token }})"
        )
    if kind == "checks_need_app":
        return (
            f"{failed}: check runs need the Actions token or a GitHub App token, "
            f"not a personal token ({said}); give the workflow `permissions: {permission}` "
            "and use ${{ github.token }}"
        )
    if kind == "forbidden":
        return (
            f"{failed}: the token may not do this ({said}); the workflow needs "
            f"`permissions: {permission}` (a pull request from a fork only gets a read-only token: "
            "publish from a `workflow_run` job)"
        )
    if kind == "not_found":
        return (
            f"{failed}: not found ({said}); check the repository and number, "
            f"or give the workflow `permissions: {permission}` (GitHub answers 404 when a token "
            "may not see something)"
        )
    if kind == "rejected":
        return f"{failed}: GitHub rejected the request ({said})"
    if kind == "server_error":
        return f"{failed}: GitHub answered {said} and kept failing after retries"
    return f"{failed}: GitHub answered {said}"


def request_error(
    action: str,
    permission: str,
    status: int,
    data: Any,
    headers: Mapping[str, str] | None,
    *,
    scrub: Callable[[str], str],
) -> GitHubRequestError:
    """The error for one refusal of GitHub's; ``scrub`` takes the token out of the message."""
    kind = classify(status, data, headers)
    return GitHubRequestError(
        scrub(describe(action, permission, status, data, kind)),
        status,
        kind=kind,
        transient=kind in ("rate_limited", "server_error"),
        retry_after=retry_after(headers),
    )


@contextmanager
def translated(
    action: str,
    permission: str,
    *,
    api_url: str,
    scrub: Callable[[str], str],
    missing_ok: bool = False,
) -> Iterator[list[bool]]:
    """Translate PyGithub/requests exceptions raised inside into :class:`PublishError`.

    With ``missing_ok`` a 404 is swallowed and the yielded list gets ``True`` appended.
    """
    missing: list[bool] = []
    try:
        yield missing
    except WaitTooLong as exc:
        raise GitHubRequestError(
            f"{action} failed: GitHub asked to wait {exc.wait:.0f} s before retrying "
            f"(Retry-After or a rate limit's reset), more than the {exc.cap:.0f} s evalbot "
            "waits; try again later",
            exc.status,
            kind="wait_too_long",
        ) from None
    except GithubException as exc:
        if missing_ok and exc.status == 404:
            missing.append(True)
            return
        raise request_error(
            action, permission, exc.status, exc.data, exc.headers, scrub=scrub
        ) from None
    except requests.RequestException as exc:
        raise GitHubUnreachable(
            f"{action} failed: no answer from GitHub at {api_url} ({type(exc).__name__})"
        ) from None


def _error_item(item: Any) -> str:
    if not isinstance(item, dict):
        return str(item)
    if item.get("message"):
        return str(item["message"])
    return " ".join(str(item[k]) for k in ("resource", "field", "code") if item.get(k))


def one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
