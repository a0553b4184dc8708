"""The client of one run: :class:`GitHubClient` (every call, by part) and :func:`make_client`,
which builds it with retries and throttling taken from its arguments so tests can turn every
wait off."""

from __future__ import annotations

import math
import re
from collections.abc import MutableMapping

import requests
from github import Auth, Github
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from evalbot.errors import PublishError
from evalbot.github.check_runs import CheckRuns
from evalbot.github.comments import Comments
from evalbot.github.connection import USER_AGENT
from evalbot.github.download import ArtifactDownload
from evalbot.github.pulls import Contents, PullRequests
from evalbot.github.retry import MAX_WAIT_SECONDS, DownloadRetry, PyGithubRetry
from evalbot.github.runs import WorkflowRuns

__all__ = ["GitHubClient", "drop_network_environment", "make_client"]

#: Variables requests reads when a session trusts the environment, besides ``*_proxy``.
_NETWORK_VARIABLES = frozenset({"REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NETRC"})


class GitHubClient(PullRequests, Comments, CheckRuns, WorkflowRuns, ArtifactDownload, Contents):
    """GitHub, as evalbot needs it, for one repository. Build with :func:`make_client`.

    Its parts: pull requests and the token's user (:mod:`.pulls`), the sticky comment
    (:mod:`.comments`), check runs and statuses (:mod:`.check_runs`), workflow runs and
    artifacts (:mod:`.runs`, :mod:`.download`), files at a commit (:mod:`.pulls`).
    """

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
    gh = Github(
        base_url=api_url.rstrip("/"),
        auth=Auth.Token(token),
        retry=_api_retry(retries, backoff, rate_limit_wait, max_wait),
        timeout=max(1, math.ceil(timeout)),
        user_agent=USER_AGENT,
        per_page=100,
        seconds_between_requests=seconds_between_requests,
        seconds_between_writes=seconds_between_writes,
        lazy=True,
    )
    return GitHubClient(
        gh,
        _download_session(retries, backoff, max_wait),
        api_url=api_url.rstrip("/"),
        repository=repository,
        token=token,
        timeout=timeout,
        retries=retries,
        backoff=backoff,
        max_wait=max_wait,
    )


def _api_retry(retries: int, backoff: float, rate_limit_wait: float, max_wait: float) -> Retry:
    """PyGithub's retries: GET, PATCH and DELETE again on a 5xx, a 429 and a secondary rate
    limit (after ``Retry-After`` or ``rate_limit_wait``); a POST never."""
    return PyGithubRetry(
        max_wait=max_wait,
        total=retries,
        backoff_factor=backoff,
        secondary_rate_wait=rate_limit_wait,
        status_forcelist=[*range(500, 600), 429],
        allowed_methods=Retry.DEFAULT_ALLOWED_METHODS | {"GET", "PATCH"},
        raise_on_status=False,
        respect_retry_after_header=True,
    )


def _download_session(retries: int, backoff: float, max_wait: float) -> requests.Session:
    """The session of the artifact download: GETs retried on a 5xx, redirects not followed
    (the client follows GitHub's one redirect itself, without the token)."""
    http = requests.Session()
    http.trust_env = False  # no proxy, netrc or CA bundle from the environment
    http.headers["User-Agent"] = USER_AGENT
    for scheme in ("http://", "https://"):
        retry = DownloadRetry(
            max_wait=max_wait,
            total=retries,
            backoff_factor=backoff,
            status_forcelist=[500, 502, 503, 504],
            allowed_methods={"GET"},
            raise_on_status=False,
            redirect=False,
        )
        http.mount(scheme, HTTPAdapter(max_retries=retry))
    return http


def drop_network_environment(environ: MutableMapping[str, str]) -> list[str]:
    """Take the variables that would route or verify evalbot's requests out of ``environ``
    (every ``*_proxy`` in any case, ``REQUESTS_CA_BUNDLE``, ``CURL_CA_BUNDLE``, ``NETRC``): a
    step before evalbot's can set them through ``$GITHUB_ENV``, and a proxy sees the token.
    evalbot's own session has ``trust_env = False``; PyGithub's sessions trust the environment
    and cannot be told otherwise. Returns the names taken out."""
    names = [
        name
        for name in environ
        if name.lower().endswith("_proxy") or name.upper() in _NETWORK_VARIABLES
    ]
    for name in names:
        del environ[name]
    return sorted(names)
