"""How long evalbot waits for GitHub: urllib3's retries with every wait capped.

PyGithub's :class:`~github.GithubRetry` (the API) and a plain :class:`~urllib3.util.retry.Retry`
(the artifact download) both stand on :class:`_CappedWaits`: a ``Retry-After`` or a backoff beyond
``max_wait`` fails at once (:class:`WaitTooLong`) instead of sleeping, and a POST that got no
answer is never sent again by urllib3 (the client retries each kind of POST itself:
:meth:`evalbot.github.connection.Connection._post`).
"""

from __future__ import annotations

import email.utils
import logging
from collections.abc import Mapping
from datetime import datetime
from types import TracebackType
from typing import Any, Self

from github import GithubException, GithubRetry
from urllib3.exceptions import ProtocolError, ReadTimeoutError
from urllib3.util.retry import Retry

__all__ = ["MAX_WAIT_SECONDS", "DownloadRetry", "PyGithubRetry", "WaitTooLong", "retry_after"]

log = logging.getLogger(__name__)

#: The longest evalbot waits before one retry, whatever ``Retry-After`` or a rate limit's reset
#: asks for; beyond it the request fails at once with a message saying so.
MAX_WAIT_SECONDS = 120.0


class WaitTooLong(GithubException):
    """GitHub asked to wait longer than :data:`MAX_WAIT_SECONDS` before retrying."""

    def __init__(self, status: int, wait: float, cap: float, headers: Mapping[str, str]) -> None:
        message = f"GitHub asked to wait {wait:.0f} s before retrying"
        super().__init__(status, {"message": message}, dict(headers))
        self.wait = wait
        self.cap = cap


def retry_after(headers: Mapping[str, str] | None) -> float | None:
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


class _CappedWaits(Retry):
    """A :class:`urllib3.util.retry.Retry` whose ``Retry-After`` or backoff beyond ``max_wait``
    fails at once (:class:`WaitTooLong`) instead of sleeping for it, and a POST that got no
    answer is not sent again (the server may have acted on it: a second check run would be an
    orphan)."""

    def __init__(self, max_wait: float = MAX_WAIT_SECONDS, **kwargs: Any) -> None:
        self.max_wait = max_wait
        super().__init__(**kwargs)

    def new(self, **kw: Any) -> Self:
        kw["max_wait"] = self.max_wait
        return super().new(**kw)

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
        if response is not None:
            asked = retry_after(dict(response.headers))
            if asked is not None and asked > self.max_wait:
                _release(response)
                raise WaitTooLong(response.status, asked, self.max_wait, dict(response.headers))
        retry = super().increment(method, url, response, error, _pool, _stacktrace)
        backoff = retry.get_backoff_time()
        if backoff > self.max_wait:
            status = response.status if response is not None else 0
            headers = dict(response.headers) if response is not None else {}
            if response is not None:
                _release(response)
            raise WaitTooLong(status, backoff, self.max_wait, headers)
        return retry


def _release(response: Any) -> None:
    """Give a response's connection back to its pool: the request ends here, with an error."""
    try:
        response.drain_conn()
        response.release_conn()
    except Exception:  # the error being raised says more
        log.debug("could not release a connection", exc_info=True)


class PyGithubRetry(_CappedWaits, GithubRetry):
    """PyGithub's retry policy (secondary rate limits read from 403 bodies), waits capped."""


class DownloadRetry(_CappedWaits):
    """urllib3's retry policy for the artifact download, waits capped."""
