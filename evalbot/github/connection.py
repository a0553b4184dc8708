"""The connection every part of the client shares: PyGithub, a requests session for the
artifact download, the repository, and the two ways a call goes wrong (translated errors, and
POSTs retried by hand). The token never appears in a message, a log line or a ``repr``."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, NoReturn, TypeVar

import requests
from github import Github

from evalbot.errors import PublishError
from evalbot.github.errors import (
    GitHubRequestError,
    GitHubUnreachable,
    request_error,
    translated,
)
from evalbot.github.retry import MAX_WAIT_SECONDS

__all__ = ["API_VERSION", "USER_AGENT", "Connection", "fit"]

log = logging.getLogger(__name__)

API_VERSION = "2022-11-28"
USER_AGENT = "evalbot"
_TRUNCATED = "\n\n… (truncated by evalbot: GitHub's size limit)"
T = TypeVar("T")


class Connection:
    """GitHub for one repository; the parts of :class:`~evalbot.github.GitHubClient` (pull
    requests, comments, check runs, ...) build on it. Build with
    :func:`~evalbot.github.make_client`."""

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
        self._secret = token
        self._timeout = timeout
        self._retries = retries
        self._backoff = backoff
        self._max_wait = max_wait
        self.repository = repository
        self._repo = gh.get_repo(repository)  # lazy: Github(lazy=True)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(api_url={self._api_url!r}, repository={self.repository!r})"

    def close(self) -> None:
        self._gh.close()
        self._http.close()

    # ---- errors --------------------------------------------------------------------------------

    def _errors(
        self, action: str, permission: str, *, missing_ok: bool = False
    ) -> AbstractContextManager[list[bool]]:
        """PyGithub/requests exceptions raised inside become one-line :class:`PublishError`\\ s
        (:func:`evalbot.github.errors.translated`); with ``missing_ok`` a 404 is swallowed and
        the yielded list gets ``True`` appended."""
        return translated(
            action, permission, api_url=self._api_url, scrub=self._scrub, missing_ok=missing_ok
        )

    def _raise_http(self, action: str, permission: str, response: requests.Response) -> NoReturn:
        try:
            data: Any = response.json()
        except ValueError:
            data = response.text[:200]
        raise request_error(
            action, permission, response.status_code, data, response.headers, scrub=self._scrub
        )

    def _scrub(self, message: str) -> str:
        return message.replace(self._secret, "***") if len(self._secret) >= 4 else message

    # ---- POSTs ---------------------------------------------------------------------------------

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
            except (GitHubRequestError, GitHubUnreachable) as error:
                if not error.transient:
                    raise
                if recover is not None:
                    with self._errors(f"{action} (looking for an earlier try)", permission):
                        found = recover()
                    if found is not None:
                        log.info("%s: the earlier try had succeeded", action)
                        return found
                if attempt >= self._retries:
                    raise
                asked = error.retry_after if isinstance(error, GitHubRequestError) else None
                time.sleep(self._wait(action, attempt, asked))
                attempt += 1

    def _wait(self, action: str, attempt: int, asked: float | None) -> float:
        """Seconds before the next try: what GitHub asked, else the backoff; beyond
        ``max_wait`` the POST fails at once, saying so."""
        wait = asked if asked is not None else self._backoff * (2**attempt)
        if wait > self._max_wait:
            raise PublishError(
                f"{action} failed: GitHub asked to wait {wait:.0f} s before retrying, "
                f"more than the {self._max_wait:.0f} s evalbot waits; try again later"
            ) from None
        return wait


def fit(body: str, limit: int, what: str) -> str:
    """``body``, cut (and saying so) to GitHub's ``limit`` when it is longer."""
    if len(body) <= limit:
        return body
    log.warning("%s is %d characters, over GitHub's %d; truncating", what, len(body), limit)
    return body[: limit - len(_TRUNCATED)] + _TRUNCATED
