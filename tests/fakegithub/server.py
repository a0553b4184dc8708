"""A fake GitHub REST API served over real HTTP on 127.0.0.1.

Usage in a test (see ``plugin.py`` for the ``fake_github`` fixture)::

    fake = FakeGitHub().start()
    fake.add_token("app-token")                       # an Actions (App) token, all write
    repo = fake.add_repo("octo/demo")
    base = repo.add_commit(files={".evalbot.yml": "alpha: 0.05\\n"}, branch="main")
    head = repo.add_commit(parents=[base], branch="feature")
    pr = repo.add_pull(head_sha=head, base_sha=base, head_ref="feature")
    ...  # run code against fake.url with Authorization: token app-token
    repo.comments_on(pr.number)                        # read back
    fake.stop()

Faults (:meth:`FakeGitHub.inject`), hooks that run around a matching request
(:meth:`FakeGitHub.after`, e.g. to create a competing comment between a list and a create) and a
request log (:attr:`FakeGitHub.requests`, tokens redacted) make failure paths testable.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from . import templates
from .state import (
    READ_ALL,
    WRITE_ALL,
    Artifact,
    CheckRun,
    Level,
    Pull,
    Repo,
    Status,
    Token,
    World,
    load_seed,
)

__all__ = ["READ_ALL", "WRITE_ALL", "FakeGitHub", "LoggedRequest", "Reply"]

JSON_TYPE = "application/json; charset=utf-8"


@dataclass
class Reply:
    status: int
    body: Any = None  # JSON-able, or bytes sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait, outside the lock, before answering


@dataclass
class LoggedRequest:
    """One request as the fake saw it; the token value is replaced by ``<redacted>``."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    status: int = 0
    token: str | None = None  # which seeded token authenticated it ("<unknown>" if none matched)
    raw_path: str = ""  # the path as sent, with the server's prefix (``path`` is without it)

    @property
    def has_authorization(self) -> bool:
        return any(k.lower() == "authorization" for k in self.headers)


@dataclass
class _Rule:
    method: str
    pattern: re.Pattern[str]
    times: int | None  # None: forever
    reply: Reply | None = None
    hook: Callable[[], object] | None = None
    when: str = "before"
    hold: threading.Event | None = None
    delay: float = 0.0

    def take(self, method: str, path: str) -> bool:
        if self.times == 0 or method != self.method or not self.pattern.fullmatch(path):
            return False
        if self.times is not None:
            self.times -= 1
        return True


@dataclass
class _Ctx:
    fake: FakeGitHub
    repo: Repo
    groups: dict[str, str]
    query: dict[str, list[str]]
    body: Any
    token: Token
    prefix: str  # "/repos/o/r" or "/repositories/123", as requested
    rest: str  # the path after the prefix

    def q(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None


_Handler = Callable[["FakeGitHub", _Ctx], Reply]


@dataclass(frozen=True)
class _Request:
    """One request as logged and routed: its path without the prefix (``outside``: it was not
    under the prefix), query, body (JSON when it parses) and ``Authorization`` header."""

    entry: LoggedRequest
    path: str
    outside: bool
    query: dict[str, list[str]]
    body: Any
    auth: str | None

    @classmethod
    def read(
        cls,
        method: str,
        raw_path: str,
        headers: Mapping[str, str],
        raw_body: bytes,
        split_path: tuple[str, bool],
    ) -> _Request:
        split = urlsplit(raw_path)
        path, outside = split_path
        query = parse_qs(split.query, keep_blank_values=True)
        body: Any = None
        if raw_body:
            try:
                body = json.loads(raw_body)
            except ValueError:
                body = raw_body.decode("utf-8", "replace")
        logged_headers = {
            k: (v.split(" ", 1)[0] + " <redacted>" if k.lower() == "authorization" else v)
            for k, v in headers.items()
        }
        entry = LoggedRequest(method, path, query, logged_headers, body, raw_path=split.path)
        auth = next((v for k, v in headers.items() if k.lower() == "authorization"), None)
        return cls(entry, path, outside, query, body, auth)


@dataclass
class _Route:
    method: str
    pattern: re.Pattern[str]
    scope: str
    level: Level
    docs: str
    handler: _Handler


_ROUTES: list[_Route] = []


def _route(
    method: str, pattern: str, scope: str, level: Level, docs: str
) -> Callable[[_Handler], _Handler]:
    def register(fn: _Handler) -> _Handler:
        _ROUTES.append(
            _Route(method, re.compile(pattern), scope, level, f"{templates.DOCS}/{docs}", fn)
        )
        return fn

    return register


_REPO_PREFIX = re.compile(
    r"^/(?:repos/(?P<owner>[^/]+)/(?P<name>[^/]+)|repositories/(?P<repo_id>\d+))"
)


class FakeGitHub:
    """The fake server. ``start()`` binds 127.0.0.1 on a free port (or ``port``).

    ``prefix`` serves the API under a path, as GitHub Enterprise Server does (``/api/v3``):
    ``url`` then ends with it, every URL in the JSON (and the artifact download's 302) carries
    it, and a request outside it gets a 404. Logged requests keep the path without the prefix
    (``raw_path`` has it), so :meth:`requests_to` patterns work for both.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        html_url: str = "https://github.com",
        prefix: str = "",
    ) -> None:
        if prefix and (not prefix.startswith("/") or prefix.endswith("/") or "?" in prefix):
            raise ValueError(f"prefix must look like '/api/v3', got {prefix!r}")
        self._host = host
        self._port = port
        self.prefix = prefix
        self.html = html_url
        self.world = World()
        self.requests: list[LoggedRequest] = []
        self._rules: list[_Rule] = []
        self._blobs: dict[str, tuple[Repo, int, float]] = {}
        self.blob_url_ttl = 60.0  # GitHub: "the URL expires after 1 minute"
        self._used = 0
        self._reset = int(time.time()) + 3600
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.url = ""
        self.held = 0  # requests that arrived at a :meth:`hold` (released or not)

    # ---- lifecycle --------------------------------------------------------------------------

    def start(self) -> FakeGitHub:
        handler = type("_BoundHandler", (_Handler_,), {"fake": self})
        self._server = _Server((self._host, self._port), handler)
        self._server.daemon_threads = True
        host, port = self._server.server_address[:2]
        self.url = f"http://{host!s}:{port}{self.prefix}"
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="fakegithub",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- seeding ----------------------------------------------------------------------------

    def add_token(
        self,
        value: str,
        *,
        kind: str = "app",
        permissions: Mapping[str, Level] | None = None,
        login: str | None = None,
        app_slug: str | None = None,
        app_id: int | None = None,
    ) -> Token:
        """Accept ``value`` as a token.

        ``kind="app"`` is the Actions ``GITHUB_TOKEN`` (an App installation token): a write it
        lacks a permission for gets 403 "Resource not accessible by integration".
        ``kind="pat"`` is a personal token: check-run creation gets 403 "You must authenticate via
        a GitHub App." while commit statuses work. ``permissions`` defaults to all write; use
        ``READ_ALL`` for a read-only token (a fork's PR). ``app_slug``/``app_id`` make an App
        token another App's than ``github-actions`` (its bot user is ``<slug>[bot]``); ``login``
        names a personal token's user.
        """
        if kind not in ("app", "pat"):
            raise ValueError(f"kind must be 'app' or 'pat', not {kind!r}")
        perms: dict[str, Level] = dict(WRITE_ALL)
        if permissions is not None:
            perms = dict.fromkeys(WRITE_ALL, "none")
            perms["metadata"] = "read"
            perms.update(permissions)
        if kind == "app":
            slug = app_slug or "github-actions"
            the_app_id: int | None = app_id or (
                15368 if slug == "github-actions" else int(templates.fake_sha(slug)[:5], 16)
            )
            login = f"{slug}[bot]"
            user_id = (
                41898282 if slug == "github-actions" else int(templates.fake_sha(login)[:6], 16)
            )
        else:
            slug, the_app_id = None, None
            login = login or "octocat"
            user_id = 583231 if login == "octocat" else int(templates.fake_sha(login)[:6], 16)
        token = Token(
            value=value,
            kind="app" if kind == "app" else "pat",
            permissions=perms,
            login=login,
            user_id=user_id,
            app_id=the_app_id,
            app_slug=slug,
        )
        with self.world.lock:
            self.world.tokens[value] = token
        return token

    def add_repo(
        self, full_name: str, *, default_branch: str = "main", private: bool = False
    ) -> Repo:
        with self.world.lock:
            if full_name.lower() in self.world.repos:
                raise ValueError(f"repository {full_name} already exists")
            repo = Repo(
                self.world,
                full_name=full_name,
                repo_id=self.world.next_id(),
                owner_id=self.world.next_id(),
                default_branch=default_branch,
                private=private,
            )
            self.world.repos[full_name.lower()] = repo
            return repo

    def repo(self, full_name: str) -> Repo:
        return self.world.repos[full_name.lower()]

    def load_seed(self, seed: Mapping[str, Any]) -> None:
        load_seed(self.add_repo, self.add_token, seed)

    # ---- faults and hooks --------------------------------------------------------------------

    def inject(
        self,
        method: str,
        path: str,
        status: int,
        body: Any = None,
        *,
        headers: Mapping[str, str] | None = None,
        times: int | None = 1,
    ) -> None:
        """Answer the next ``times`` requests matching ``method`` and the regex ``path`` (full
        match against the path, no query) with ``status``/``body``. Faults queue in order."""
        with self.world.lock:
            self._rules.append(
                _Rule(
                    method.upper(),
                    re.compile(path),
                    times,
                    reply=Reply(status, body, dict(headers or {})),
                )
            )

    def inject_server_error(
        self, method: str, path: str, status: int = 502, *, times: int = 1
    ) -> None:
        body = templates.SERVER_ERROR_BODY if status == 500 else templates.error("Server Error")
        self.inject(method, path, status, body, times=times)

    def inject_secondary_rate_limit(
        self,
        method: str,
        path: str,
        *,
        retry_after: int | None = 1,
        times: int = 1,
        modern: bool = False,
    ) -> None:
        """A 403 secondary ("abuse") rate limit, with the recorded message and ``Retry-After``."""
        message = (
            templates.SECONDARY_RATE_LIMIT_MESSAGE_MODERN
            if modern
            else templates.SECONDARY_RATE_LIMIT_MESSAGE
        )
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        self.inject(
            method,
            path,
            403,
            templates.error(message, templates.SECONDARY_RATE_LIMIT_DOCS),
            headers=headers,
            times=times,
        )

    def inject_error(
        self,
        method: str,
        path: str,
        status: int,
        *,
        times: int | None = 1,
        message: str | None = None,
    ) -> None:
        """401/403/404/422 with GitHub's bodies (422: ``Validation Failed`` with ``errors``)."""
        if status == 422:
            body = templates.validation_failed()
            if message:
                body["message"] = message
        else:
            default = {
                401: templates.BAD_CREDENTIALS_MESSAGE,
                403: templates.NOT_ACCESSIBLE_MESSAGE,
                404: templates.NOT_FOUND_MESSAGE,
            }.get(status, "Error")
            body = templates.error(message or default)
        self.inject(method, path, status, body, times=times)

    def before(
        self, method: str, path: str, hook: Callable[[], object], *, times: int | None = 1
    ) -> None:
        """Run ``hook`` before handling the next matching request."""
        with self.world.lock:
            self._rules.append(
                _Rule(method.upper(), re.compile(path), times, hook=hook, when="before")
            )

    def after(
        self, method: str, path: str, hook: Callable[[], object], *, times: int | None = 1
    ) -> None:
        """Run ``hook`` after the next matching request was handled, before its reply is sent
        (e.g. a competing run creating its comment right after our list)."""
        with self.world.lock:
            self._rules.append(
                _Rule(method.upper(), re.compile(path), times, hook=hook, when="after")
            )

    def hold(
        self, method: str, path: str, release: threading.Event, *, times: int | None = 1
    ) -> None:
        """Keep the next ``times`` matching requests waiting (outside the lock, so every other
        request goes on) until ``release`` is set: to line up concurrent clients at one point.
        :attr:`held` counts the requests that arrived there."""
        with self.world.lock:
            self._rules.append(_Rule(method.upper(), re.compile(path), times, hold=release))

    def delay(self, method: str, path: str, seconds: float, *, times: int | None = 1) -> None:
        """Handle the next ``times`` matching requests as usual, then wait ``seconds`` before
        answering: a slow answer whose effect has already happened (a client's read timeout)."""
        with self.world.lock:
            self._rules.append(_Rule(method.upper(), re.compile(path), times, delay=seconds))

    def _wait_if_held(self, method: str, raw_path: str) -> None:
        path, _ = self._split(raw_path)
        with self.world.lock:
            rule = next(
                (r for r in self._rules if r.hold is not None and r.take(method, path)), None
            )
            if rule is not None:
                self.held += 1
                self._rules = [r for r in self._rules if r.times != 0]
        if rule is not None and rule.hold is not None:
            rule.hold.wait(timeout=120)

    def _split(self, raw_path: str) -> tuple[str, bool]:
        """The path without the prefix, and whether it was outside the prefix."""
        path = urlsplit(raw_path).path
        if self.prefix:
            if path.startswith(self.prefix + "/"):
                return path[len(self.prefix) :], False
            return path, True
        return path, False

    # ---- inspection -------------------------------------------------------------------------

    def requests_to(self, method: str, path: str) -> list[LoggedRequest]:
        pattern = re.compile(path)
        with self.world.lock:
            return [
                r for r in self.requests if r.method == method.upper() and pattern.fullmatch(r.path)
            ]

    def dump_state(self) -> dict[str, Any]:
        with self.world.lock:
            return {
                "url": self.url,
                "repos": {name: repo.to_json() for name, repo in self.world.repos.items()},
                "requests": [vars(r) for r in self.requests],
            }

    # ---- request handling (server threads) ---------------------------------------------------

    def _rate_headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(templates.RATE_LIMIT_LIMIT),
            "X-RateLimit-Remaining": str(templates.RATE_LIMIT_LIMIT - self._used),
            "X-RateLimit-Reset": str(self._reset),
            "X-RateLimit-Used": str(self._used),
            "X-RateLimit-Resource": "core",
        }

    def _handle(
        self, method: str, raw_path: str, headers: Mapping[str, str], raw_body: bytes
    ) -> Reply:
        request = _Request.read(method, raw_path, headers, raw_body, self._split(raw_path))
        path, entry = request.path, request.entry
        with self.world.lock:
            self.requests.append(entry)
            if request.outside:  # GHES answers paths outside /api/v3 with its web UI: not the API
                entry.status = 404
                return Reply(404, templates.error(templates.NOT_FOUND_MESSAGE))
            delay, after_hooks, fault = self._apply_rules(method, path)
            if path.startswith("/_blob/"):
                reply = self._blob(path, request.auth) if fault is None else fault
                self._rules = [r for r in self._rules if r.times != 0]
                entry.status = reply.status
                return Reply(reply.status, reply.body, dict(reply.headers))
            self._used += 1
            token = self._authenticate(request.auth, entry)
            if fault is not None:
                reply = Reply(fault.status, fault.body, dict(fault.headers))
            elif isinstance(token, Reply):
                reply = token
            else:
                reply = self._dispatch(method, path, request.query, request.body, token)
            for hook in after_hooks:
                hook()
            self._rules = [r for r in self._rules if r.times != 0]
            entry.status = reply.status
            reply.headers = {**self._rate_headers(), **reply.headers}
            reply.delay = delay
            return reply

    def _apply_rules(
        self, method: str, path: str
    ) -> tuple[float, list[Callable[[], object]], Reply | None]:
        """The rules matching a request (under the lock): its delay; the ``before`` hooks run
        now, the ``after`` hooks returned; and the fault's reply, if one is set up."""
        delay = next((r.delay for r in self._rules if r.delay and r.take(method, path)), 0.0)
        after_hooks: list[Callable[[], object]] = []
        for rule in list(self._rules):
            if rule.reply is None and rule.hook is not None and rule.take(method, path):
                if rule.when == "before":
                    rule.hook()
                else:
                    after_hooks.append(rule.hook)
        fault = next((r for r in self._rules if r.reply is not None and r.take(method, path)), None)
        return delay, after_hooks, None if fault is None else fault.reply

    def _authenticate(self, value: str | None, entry: LoggedRequest) -> Token | Reply:
        if not value:
            return Reply(401, templates.error(templates.REQUIRES_AUTH_MESSAGE))
        scheme, _, secret = value.partition(" ")
        token = (
            self.world.tokens.get(secret.strip()) if scheme.lower() in ("token", "bearer") else None
        )
        if token is None:
            entry.token = "<unknown>"
            return Reply(401, templates.error(templates.BAD_CREDENTIALS_MESSAGE))
        entry.token = token.login + ("" if token.kind == "app" else " (pat)")
        return token

    def _dispatch(
        self, method: str, path: str, query: dict[str, list[str]], body: Any, token: Token
    ) -> Reply:
        if method == "GET" and path == "/rate_limit":
            return Reply(200, templates.rate_limit(self._used, self._reset))
        if method == "GET" and path == "/user":
            if token.kind == "app":  # an installation token has no user
                return Reply(
                    403,
                    templates.error(
                        templates.NOT_ACCESSIBLE_MESSAGE,
                        f"{templates.DOCS}/users/users#get-the-authenticated-user",
                    ),
                )
            return Reply(200, templates.authenticated_user(self._user(token.login)))
        m = _REPO_PREFIX.match(path)
        if m is None:
            return Reply(404, templates.error(templates.NOT_FOUND_MESSAGE))
        if m.group("repo_id"):
            repo = self.world.repo_by_id(int(m.group("repo_id")))
        else:
            repo = self.world.repos.get(f"{m.group('owner')}/{m.group('name')}".lower())
        if repo is None:
            return Reply(404, templates.error(templates.NOT_FOUND_MESSAGE))
        rest = path[m.end() :]
        for route in _ROUTES:
            rm = route.pattern.fullmatch(rest)
            if rm is None or route.method != method:
                continue
            if token.kind == "pat" and route.scope == "checks" and route.level == "write":
                return Reply(403, templates.error(templates.CHECKS_NEED_APP_MESSAGE, route.docs))
            if not token.allows(route.scope, route.level):
                if route.level == "read" and repo.private:
                    return Reply(404, templates.error(templates.NOT_FOUND_MESSAGE, route.docs))
                message = (
                    templates.NOT_ACCESSIBLE_MESSAGE
                    if token.kind == "app"
                    else templates.NOT_ACCESSIBLE_PAT_MESSAGE
                )
                return Reply(403, templates.error(message, route.docs))
            ctx = _Ctx(self, repo, rm.groupdict(), query, body, token, path[: m.end()], rest)
            return route.handler(self, ctx)
        return Reply(404, templates.error(templates.NOT_FOUND_MESSAGE))

    # ---- shapes -----------------------------------------------------------------------------

    def _user(self, login: str, user_type: str = "User") -> dict[str, Any]:
        user_id = int(templates.fake_sha(login)[:6], 16)
        if login == "github-actions[bot]":
            user_id, user_type = 41898282, "Bot"
        elif login == "octocat":
            user_id = 583231
        return templates.user(self.url, self.html, login, user_id, user_type)

    def _repo_json(self, repo: Repo | str, full: bool = False) -> dict[str, Any]:
        if isinstance(repo, str):
            known = self.world.repos.get(repo.lower())
            if known is None:  # a fork nobody seeded: invent a stable id
                rid = int(templates.fake_sha(repo)[:7], 16)
                return templates.repository(
                    self.url,
                    self.html,
                    full_name=repo,
                    repo_id=rid,
                    owner_id=rid + 1,
                    private=False,
                    default_branch="main",
                )
            repo = known
        return templates.repository(
            self.url,
            self.html,
            full_name=repo.full_name,
            repo_id=repo.id,
            owner_id=repo.owner_id,
            private=repo.private,
            default_branch=repo.default_branch,
            full=full,
        )

    def _pull_json(self, repo: Repo, pull: Pull) -> dict[str, Any]:
        def side(full_name: str, ref: str, sha: str) -> dict[str, Any]:
            owner = full_name.split("/", 1)[0]
            return {
                "label": f"{owner}:{ref}",
                "ref": ref,
                "sha": sha,
                "user": self._user(owner, "Organization"),
                "repo": self._repo_json(full_name),
            }

        return templates.pull_request(
            self.url,
            self.html,
            full_name=repo.full_name,
            number=pull.number,
            pr_id=pull.id,
            title=pull.title,
            state=pull.state,
            author=self._user(pull.author),
            head=side(pull.head_repo, pull.head_ref, pull.head_sha),
            base=side(repo.full_name, pull.base_ref, pull.base_sha),
            created_at=pull.created_at,
            commits=len(repo.pull_commits(pull.number)),
            merged=pull.merged,
        )

    def _comment_json(self, repo: Repo, c: Any) -> dict[str, Any]:
        return templates.issue_comment(
            self.url,
            self.html,
            full_name=repo.full_name,
            issue_number=c.issue_number,
            is_pull=c.issue_number in repo.pulls,
            comment_id=c.id,
            body=c.body,
            author=self._user(c.author, c.author_type),
            created_at=c.created_at,
            updated_at=c.updated_at,
        )

    def _check_json(self, repo: Repo, c: CheckRun) -> dict[str, Any]:
        return templates.check_run(
            self.url,
            self.html,
            full_name=repo.full_name,
            run_id=c.id,
            name=c.name,
            head_sha=c.head_sha,
            status=c.status,
            conclusion=c.conclusion,
            started_at=c.started_at,
            completed_at=c.completed_at,
            details_url=c.details_url,
            external_id=c.external_id,
            output=c.output,
            app=templates.github_actions_app(self.url, self.html)
            if c.app_id == 15368
            else templates.app(self.url, self.html, app_id=c.app_id, slug=c.app_slug),
        )

    def _status_json(self, repo: Repo, s: Status) -> dict[str, Any]:
        return templates.commit_status(
            self.url,
            full_name=repo.full_name,
            status_id=s.id,
            sha=s.sha,
            state=s.state,
            context=s.context,
            description=s.description,
            target_url=s.target_url,
            creator=self._user(s.creator, "Bot" if s.creator.endswith("[bot]") else "User"),
            created_at=s.created_at,
        )

    def _run_json(self, repo: Repo, run: Any) -> dict[str, Any]:
        wf = repo.workflows[run.workflow_id]
        base_json = self._repo_json(repo)
        head_json = self._repo_json(run.head_repo)
        pulls = [
            templates.run_pull_request(
                self.url,
                pr=self._pull_json(repo, repo.pulls[n]),
                head_repo=head_json,
                base_repo=base_json,
            )
            for n in run.pull_numbers
            if n in repo.pulls
        ]
        return templates.workflow_run(
            self.url,
            self.html,
            repo=base_json,
            head_repo=head_json,
            run_id=run.id,
            name=wf.name,
            path=wf.path,
            workflow_id=wf.id,
            run_number=run.run_number,
            head_branch=run.head_branch,
            head_sha=run.head_sha,
            event=run.event,
            status=run.status,
            conclusion=run.conclusion,
            created_at=run.created_at,
            actor=self._user("octocat"),
            pull_requests=pulls,
            tree=repo.tree(run.head_sha) if run.head_sha in repo.commits else "0" * 40,
        )

    def _artifact_json(self, repo: Repo, a: Artifact) -> dict[str, Any]:
        run = repo.runs[a.run_id]
        head_repo = self.world.repos.get(run.head_repo.lower())
        return templates.artifact(
            self.url,
            full_name=repo.full_name,
            artifact_id=a.id,
            name=a.name,
            size_in_bytes=a.size_in_bytes,
            expired=a.expired,
            created_at=a.created_at,
            expires_at=a.expires_at,
            digest="sha256:" + hashlib.sha256(a.data).hexdigest(),
            download_url=a.download_url,
            run={
                "id": run.id,
                "repository_id": repo.id,
                "head_repository_id": head_repo.id
                if head_repo
                else int(templates.fake_sha(run.head_repo)[:7], 16),
                "head_branch": run.head_branch,
                "head_sha": run.head_sha,
            },
        )

    def _commit_json(self, repo: Repo, sha: str) -> dict[str, Any]:
        c = repo.commits[sha]
        return templates.commit(
            self.url,
            self.html,
            full_name=repo.full_name,
            sha=sha,
            parents=c.parents,
            message=c.message,
            date=c.date,
            tree=repo.tree(sha),
        )

    # ---- pagination -------------------------------------------------------------------------

    def _page(self, ctx: _Ctx, items: list[Any], wrap: str | None = None) -> Reply:
        """One page of ``items`` with a ``Link`` header. Like GitHub, the page links use the
        ``/repositories/{id}/...`` form (see PaginatedList.testCustomPerPageIteration.txt)."""
        try:
            per_page = min(100, max(1, int(ctx.q("per_page") or 30)))
            page = max(1, int(ctx.q("page") or 1))
        except ValueError:
            return Reply(422, templates.validation_failed([]))
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        headers: dict[str, str] = {}
        if last > 1:
            base = f"{self.url}/repositories/{ctx.repo.id}{ctx.rest}"
            params = {k: v[0] for k, v in ctx.query.items() if k != "page"}

            def link(n: int, rel: str) -> str:
                return f'<{base}?{urlencode({**params, "page": n})}>; rel="{rel}"'

            rels = []
            if page > 1:
                rels.append(link(page - 1, "prev"))
            if page < last:
                rels += [link(page + 1, "next"), link(last, "last")]
            if page > 1:
                rels.append(link(1, "first"))
            headers["Link"] = ", ".join(rels)
        body: Any = chunk if wrap is None else {"total_count": len(items), wrap: chunk}
        return Reply(200, body, headers)

    # ---- artifacts' blob host ----------------------------------------------------------------

    def _blob(self, path: str, auth_value: str | None) -> Reply:
        entry = self._blobs.get(path.removeprefix("/_blob/"))
        if auth_value:
            # Like a storage host that gets a second credential besides its signed URL
            # (S3: "Only one auth mechanism allowed"). It also means the token leaked.
            return Reply(
                400,
                b"<?xml version='1.0' encoding='UTF-8'?><Error><Code>InvalidArgument</Code>"
                b"<Message>Only one auth mechanism allowed; only the signature query parameter "
                b"or the Authorization header should be specified</Message></Error>",
                {"Content-Type": "application/xml"},
            )
        if entry is None or entry[2] < time.monotonic():
            return Reply(
                403,
                b"<?xml version='1.0' encoding='UTF-8'?><Error><Code>AuthenticationFailed</Code>"
                b"<Message>Signed expiry time has expired</Message></Error>",
                {"Content-Type": "application/xml"},
            )
        repo, artifact_id, _ = entry
        art = repo.artifacts[artifact_id]
        headers = {
            "Content-Type": "application/zip",
            "Content-Disposition": f"attachment; filename={art.name}.zip",
        }
        if not art.send_content_length:
            headers["X-Fake-No-Content-Length"] = "1"
        return Reply(200, art.data, headers)


# ---- routes ---------------------------------------------------------------------------------


@_route("GET", r"", "metadata", "read", "repos/repos#get-a-repository")
def _get_repo(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    return Reply(200, fake._repo_json(ctx.repo, full=True))


@_route("GET", r"/pulls/(?P<n>\d+)", "pull-requests", "read", "pulls/pulls#get-a-pull-request")
def _get_pull(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    pull = ctx.repo.pulls.get(int(ctx.groups["n"]))
    if pull is None:
        return Reply(
            404,
            templates.error(
                templates.NOT_FOUND_MESSAGE, f"{templates.DOCS}/pulls/pulls#get-a-pull-request"
            ),
        )
    return Reply(200, fake._pull_json(ctx.repo, pull))


@_route(
    "GET",
    r"/pulls/(?P<n>\d+)/commits",
    "pull-requests",
    "read",
    "pulls/pulls#list-commits-on-a-pull-request",
)
def _pull_commits(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    number = int(ctx.groups["n"])
    if number not in ctx.repo.pulls:
        return Reply(404, templates.error(templates.NOT_FOUND_MESSAGE))
    # GitHub lists at most 250 commits, oldest first
    shas = ctx.repo.pull_commits(number)[:250]
    return fake._page(ctx, [fake._commit_json(ctx.repo, sha) for sha in shas])


@_route("GET", r"/pulls", "pull-requests", "read", "pulls/pulls#list-pull-requests")
def _list_pulls(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    state = ctx.q("state") or "open"
    head = ctx.q("head")
    base = ctx.q("base")
    pulls = []
    for pull in sorted(ctx.repo.pulls.values(), key=lambda p: -p.number):
        if state != "all" and pull.state != state:
            continue
        if head:
            owner, _, ref = head.partition(":")
            if (
                not ref
                or pull.head_ref != ref
                or pull.head_repo.split("/")[0].lower() != owner.lower()
            ):
                continue
        if base and pull.base_ref != base:
            continue
        pulls.append(fake._pull_json(ctx.repo, pull))
    return fake._page(ctx, pulls)


@_route(
    "GET",
    r"/commits/(?P<ref>[^/]+)/pulls",
    "pull-requests",
    "read",
    "commits/commits#list-pull-requests-associated-with-a-commit",
)
def _commit_pulls(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    sha = ctx.repo.resolve(ctx.groups["ref"]) or ctx.groups["ref"]
    pulls = [
        fake._pull_json(ctx.repo, p)
        for p in sorted(ctx.repo.pulls.values(), key=lambda p: -p.number)
        if p.head_sha == sha and p.head_repo.lower() == ctx.repo.full_name.lower()
    ]
    return fake._page(ctx, pulls)


@_route("GET", r"/commits/(?P<ref>[^/]+)", "contents", "read", "commits/commits#get-a-commit")
def _get_commit(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    sha = ctx.repo.resolve(ctx.groups["ref"])
    if sha is None:
        return Reply(
            422,
            {
                "message": f"No commit found for SHA: {ctx.groups['ref']}",
                "documentation_url": f"{templates.DOCS}/commits/commits#get-a-commit",
            },
        )
    return Reply(200, fake._commit_json(ctx.repo, sha))


# -- issue comments


def _comment_404() -> Reply:
    return Reply(
        404, templates.error(templates.NOT_FOUND_MESSAGE, f"{templates.DOCS}/issues/comments")
    )


@_route(
    "GET",
    r"/issues/(?P<n>\d+)/comments",
    "pull-requests",
    "read",
    "issues/comments#list-issue-comments",
)
def _list_comments(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    number = int(ctx.groups["n"])
    if number not in ctx.repo.pulls and not any(
        c.issue_number == number for c in ctx.repo.comments.values()
    ):
        return _comment_404()
    return fake._page(ctx, [fake._comment_json(ctx.repo, c) for c in ctx.repo.comments_on(number)])


@_route(
    "POST",
    r"/issues/(?P<n>\d+)/comments",
    "pull-requests",
    "write",
    "issues/comments#create-an-issue-comment",
)
def _create_comment(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    number = int(ctx.groups["n"])
    if number not in ctx.repo.pulls:
        return _comment_404()
    body = ctx.body.get("body") if isinstance(ctx.body, dict) else None
    if not isinstance(body, str) or not body:
        return Reply(
            422,
            templates.validation_failed(
                [{"resource": "IssueComment", "code": "missing_field", "field": "body"}],
                f"{templates.DOCS}/issues/comments#create-an-issue-comment",
            ),
        )
    if len(body) > 65536:
        return Reply(
            422,
            templates.validation_failed(
                [
                    {
                        "resource": "IssueComment",
                        "code": "custom",
                        "field": "body",
                        "message": "body is too long (maximum is 65536 characters)",
                    }
                ],
                f"{templates.DOCS}/issues/comments#create-an-issue-comment",
            ),
        )
    author_type = "Bot" if ctx.token.login.endswith("[bot]") else "User"
    comment = ctx.repo.add_comment(number, body, author=ctx.token.login, author_type=author_type)
    data = fake._comment_json(ctx.repo, comment)
    return Reply(201, data, {"Location": data["url"]})


@_route(
    "GET",
    r"/issues/comments/(?P<id>\d+)",
    "pull-requests",
    "read",
    "issues/comments#get-an-issue-comment",
)
def _get_comment(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    comment = ctx.repo.comments.get(int(ctx.groups["id"]))
    return _comment_404() if comment is None else Reply(200, fake._comment_json(ctx.repo, comment))


@_route(
    "PATCH",
    r"/issues/comments/(?P<id>\d+)",
    "pull-requests",
    "write",
    "issues/comments#update-an-issue-comment",
)
def _edit_comment(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    comment = ctx.repo.comments.get(int(ctx.groups["id"]))
    if comment is None:
        return _comment_404()
    body = ctx.body.get("body") if isinstance(ctx.body, dict) else None
    if not isinstance(body, str) or not body:
        return Reply(
            422,
            templates.validation_failed(
                [{"resource": "IssueComment", "code": "missing_field", "field": "body"}]
            ),
        )
    comment.body = body
    comment.updated_at = ctx.repo._world.now()
    return Reply(200, fake._comment_json(ctx.repo, comment))


@_route(
    "DELETE",
    r"/issues/comments/(?P<id>\d+)",
    "pull-requests",
    "write",
    "issues/comments#delete-an-issue-comment",
)
def _delete_comment(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    if ctx.repo.comments.pop(int(ctx.groups["id"]), None) is None:
        return _comment_404()
    return Reply(204)


# -- checks and statuses


def _now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


_CHECK_STATUSES = {"queued", "in_progress", "completed"}
_CONCLUSIONS = {
    "action_required",
    "cancelled",
    "failure",
    "neutral",
    "success",
    "skipped",
    "stale",
    "timed_out",
}


def _check_invalid(field: str, code: str = "invalid") -> Reply:
    return Reply(
        422,
        templates.validation_failed(
            [{"resource": "CheckRun", "code": code, "field": field}],
            f"{templates.DOCS}/checks/runs",
        ),
    )


def _apply_check_fields(run: CheckRun, body: dict[str, Any]) -> Reply | None:
    if "status" in body:
        if body["status"] not in _CHECK_STATUSES:
            return _check_invalid("status")
        run.status = body["status"]
    if "conclusion" in body and body["conclusion"] is not None:
        if body["conclusion"] not in _CONCLUSIONS:
            return _check_invalid("conclusion")
        run.conclusion = body["conclusion"]
        run.status = "completed"
    if run.status == "completed" and run.conclusion is None:
        return _check_invalid("conclusion", "missing_field")
    for key in ("name", "details_url", "external_id", "started_at", "completed_at"):
        if key in body:
            setattr(run, key, body[key])
    if "output" in body:
        output = body["output"] or {}
        if not output.get("title") or not output.get("summary"):
            return _check_invalid("output", "missing_field")
        if len(output.get("summary", "")) > 65535 or len(output.get("text") or "") > 65535:
            return _check_invalid("output", "custom")
        run.output = output
    if run.status == "completed" and run.completed_at is None:
        run.completed_at = _now_iso()
    return None


@_route("POST", r"/check-runs", "checks", "write", "checks/runs#create-a-check-run")
def _create_check(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    body = ctx.body if isinstance(ctx.body, dict) else {}
    if not body.get("name"):
        return _check_invalid("name", "missing_field")
    if not body.get("head_sha") or (
        ctx.repo.resolve(body["head_sha"]) is None and len(ctx.repo.commits) > 0
    ):
        return Reply(
            422,
            {
                "message": "No commit found for SHA: " + str(body.get("head_sha")),
                "documentation_url": f"{templates.DOCS}/checks/runs#create-a-check-run",
            },
        )
    run = CheckRun(
        id=ctx.repo._world.next_id(),
        name=body["name"],
        head_sha=body["head_sha"],
        status="queued",
        conclusion=None,
        started_at=_now_iso(),
        completed_at=None,
        details_url=None,
        external_id=None,
        output={},
        app_id=ctx.token.app_id or 0,
        app_slug=ctx.token.app_slug or "",
    )
    problem = _apply_check_fields(run, body)
    if problem is not None:
        return problem
    ctx.repo.check_runs[run.id] = run
    return Reply(201, fake._check_json(ctx.repo, run))


@_route("PATCH", r"/check-runs/(?P<id>\d+)", "checks", "write", "checks/runs#update-a-check-run")
def _update_check(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    run = ctx.repo.check_runs.get(int(ctx.groups["id"]))
    if run is None:
        return Reply(
            404,
            templates.error(
                templates.NOT_FOUND_MESSAGE, f"{templates.DOCS}/checks/runs#update-a-check-run"
            ),
        )
    if run.app_id != (ctx.token.app_id or 0):
        # what GitHub answers an App that did not create the check run (recorded in issues of
        # argocd-commenter and TF-via-PR: the Actions App 15368 patching another App's run)
        return Reply(
            403,
            templates.error(
                f"Invalid app_id `{ctx.token.app_id}` - check run can only be modified by the "
                "GitHub App that created it.",
                f"{templates.DOCS}/checks/runs#update-a-check-run",
            ),
        )
    problem = _apply_check_fields(run, ctx.body if isinstance(ctx.body, dict) else {})
    return problem or Reply(200, fake._check_json(ctx.repo, run))


@_route("GET", r"/check-runs/(?P<id>\d+)", "checks", "read", "checks/runs#get-a-check-run")
def _get_check(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    run = ctx.repo.check_runs.get(int(ctx.groups["id"]))
    if run is None:
        return Reply(404, templates.error(templates.NOT_FOUND_MESSAGE))
    return Reply(200, fake._check_json(ctx.repo, run))


@_route(
    "GET",
    r"/commits/(?P<ref>[^/]+)/check-runs",
    "checks",
    "read",
    "checks/runs#list-check-runs-for-a-git-reference",
)
def _list_checks(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    """``check_name``, ``status``, ``app_id`` and ``filter`` as GitHub takes them; ``filter``
    defaults to ``latest``: only the newest check run of each name (and App)."""
    sha = ctx.repo.resolve(ctx.groups["ref"]) or ctx.groups["ref"]
    name = ctx.q("check_name")
    status = ctx.q("status")
    app_id = ctx.q("app_id")
    which = ctx.q("filter") or "latest"
    if which not in ("latest", "all") or (status and status not in _CHECK_STATUSES):
        return _check_invalid("filter" if which not in ("latest", "all") else "status")
    runs = [
        c
        for c in sorted(ctx.repo.check_runs.values(), key=lambda c: -c.id)
        if c.head_sha == sha
        and (name is None or c.name == name)
        and (status is None or c.status == status)
        and (app_id is None or str(c.app_id) == app_id)
    ]
    if which == "latest":
        newest: dict[tuple[str, int], CheckRun] = {}
        for c in runs:
            newest.setdefault((c.name, c.app_id), c)
        runs = [c for c in runs if newest[(c.name, c.app_id)] is c]
    return fake._page(ctx, [fake._check_json(ctx.repo, c) for c in runs], wrap="check_runs")


@_route(
    "POST",
    r"/statuses/(?P<sha>[0-9a-fA-F]{4,40})",
    "statuses",
    "write",
    "commits/statuses#create-a-commit-status",
)
def _create_status(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    body = ctx.body if isinstance(ctx.body, dict) else {}
    if body.get("state") not in ("error", "failure", "pending", "success"):
        return Reply(
            422,
            templates.validation_failed(
                [
                    {
                        "resource": "Status",
                        "code": "custom",
                        "field": "state",
                        "message": "state is not included in the list",
                    }
                ],
                f"{templates.DOCS}/commits/statuses#create-a-commit-status",
            ),
        )
    if len(body.get("description") or "") > 140:
        return Reply(
            422,
            templates.validation_failed(
                [
                    {
                        "resource": "Status",
                        "code": "custom",
                        "field": "description",
                        "message": "description is too long (maximum is 140 characters)",
                    }
                ]
            ),
        )
    sha = ctx.groups["sha"]
    if ctx.repo.commits and ctx.repo.resolve(sha) is None:
        return Reply(
            422,
            {
                "message": f"No commit found for SHA: {sha}",
                "documentation_url": f"{templates.DOCS}/commits/statuses#create-a-commit-status",
            },
        )
    status = Status(
        id=ctx.repo._world.next_id(),
        sha=sha,
        state=body["state"],
        context=body.get("context") or "default",
        description=body.get("description"),
        target_url=body.get("target_url"),
        created_at=ctx.repo._world.now(),
        creator=ctx.token.login,
    )
    ctx.repo.statuses.append(status)
    data = fake._status_json(ctx.repo, status)
    return Reply(201, data, {"Location": data["url"]})


@_route("GET", r"/commits/(?P<ref>[^/]+)/statuses", "statuses", "read", "commits/statuses")
def _list_statuses(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    sha = ctx.repo.resolve(ctx.groups["ref"]) or ctx.groups["ref"]
    return fake._page(
        ctx, [fake._status_json(ctx.repo, s) for s in reversed(ctx.repo.statuses) if s.sha == sha]
    )


# -- actions


def _run_matches(run: Any, ctx: _Ctx) -> bool:
    status = ctx.q("status")
    return (
        (ctx.q("branch") in (None, run.head_branch))
        and (ctx.q("event") in (None, run.event))
        and (ctx.q("head_sha") in (None, run.head_sha))
        and (status is None or status in (run.status, run.conclusion))
    )


#: "This endpoint will return up to 1,000 results for each search when using the following
#: parameters: actor, branch, check_suite_id, created, event, head_sha, status." (GitHub's
#: reference of both run listings.)
_RUN_SEARCH = ("actor", "branch", "check_suite_id", "created", "event", "head_sha", "status")


def _runs(fake: FakeGitHub, ctx: _Ctx, workflow_id: int | None) -> Reply:
    found = [
        r
        for r in sorted(ctx.repo.runs.values(), key=lambda r: (r.created_at, r.id), reverse=True)
        if (workflow_id is None or r.workflow_id == workflow_id) and _run_matches(r, ctx)
    ]
    if any(ctx.q(name) is not None for name in _RUN_SEARCH):
        found = found[:1000]
    runs = [fake._run_json(ctx.repo, r) for r in found]
    return fake._page(ctx, runs, wrap="workflow_runs")


@_route(
    "GET",
    r"/actions/runs",
    "actions",
    "read",
    "actions/workflow-runs#list-workflow-runs-for-a-repository",
)
def _list_runs(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    return _runs(fake, ctx, None)


@_route(
    "GET",
    r"/actions/workflows/(?P<wf>[^/]+)",
    "actions",
    "read",
    "actions/workflows#get-a-workflow",
)
def _get_workflow(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    wf = ctx.repo.find_workflow(unquote(ctx.groups["wf"]))
    if wf is None:
        return Reply(
            404,
            templates.error(
                templates.NOT_FOUND_MESSAGE, f"{templates.DOCS}/actions/workflows#get-a-workflow"
            ),
        )
    return Reply(
        200,
        templates.workflow(
            fake.url,
            fake.html,
            full_name=ctx.repo.full_name,
            wf_id=wf.id,
            name=wf.name,
            path=wf.path,
        ),
    )


@_route(
    "GET",
    r"/actions/workflows/(?P<wf>[^/]+)/runs",
    "actions",
    "read",
    "actions/workflow-runs#list-workflow-runs-for-a-workflow",
)
def _list_workflow_runs(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    wf = ctx.repo.find_workflow(unquote(ctx.groups["wf"]))
    if wf is None:
        return Reply(404, templates.error(templates.NOT_FOUND_MESSAGE))
    return _runs(fake, ctx, wf.id)


@_route(
    "GET",
    r"/actions/runs/(?P<id>\d+)",
    "actions",
    "read",
    "actions/workflow-runs#get-a-workflow-run",
)
def _get_run(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    run = ctx.repo.runs.get(int(ctx.groups["id"]))
    if run is None:
        return Reply(404, templates.error(templates.NOT_FOUND_MESSAGE))
    return Reply(200, fake._run_json(ctx.repo, run))


@_route(
    "DELETE",
    r"/actions/runs/(?P<id>\d+)",
    "actions",
    "write",
    "actions/workflow-runs#delete-a-workflow-run",
)
def _delete_run(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    if not ctx.repo.delete_run(int(ctx.groups["id"])):
        return Reply(404, templates.error(templates.NOT_FOUND_MESSAGE))
    return Reply(204)


@_route(
    "GET",
    r"/actions/runs/(?P<id>\d+)/artifacts",
    "actions",
    "read",
    "actions/artifacts#list-workflow-run-artifacts",
)
def _list_run_artifacts(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    run_id = int(ctx.groups["id"])
    if run_id not in ctx.repo.runs:
        return Reply(404, templates.error(templates.NOT_FOUND_MESSAGE))
    name = ctx.q("name")
    arts = [
        fake._artifact_json(ctx.repo, a)
        for a in sorted(ctx.repo.artifacts.values(), key=lambda a: -a.id)
        if a.run_id == run_id and (name is None or a.name == name)
    ]
    return fake._page(ctx, arts, wrap="artifacts")


@_route(
    "GET",
    r"/actions/artifacts",
    "actions",
    "read",
    "actions/artifacts#list-artifacts-for-a-repository",
)
def _list_artifacts(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    name = ctx.q("name")
    arts = [
        fake._artifact_json(ctx.repo, a)
        for a in sorted(ctx.repo.artifacts.values(), key=lambda a: -a.id)
        if name is None or a.name == name
    ]
    return fake._page(ctx, arts, wrap="artifacts")


@_route(
    "GET", r"/actions/artifacts/(?P<id>\d+)", "actions", "read", "actions/artifacts#get-an-artifact"
)
def _get_artifact(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    art = ctx.repo.artifacts.get(int(ctx.groups["id"]))
    if art is None:
        return Reply(
            404,
            templates.error(
                templates.NOT_FOUND_MESSAGE, f"{templates.DOCS}/actions/artifacts#get-an-artifact"
            ),
        )
    return Reply(200, fake._artifact_json(ctx.repo, art))


@_route(
    "GET",
    r"/actions/artifacts/(?P<id>\d+)/(?P<format>[^/]+)",
    "actions",
    "read",
    "actions/artifacts#download-an-artifact",
)
def _download_artifact(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    art = ctx.repo.artifacts.get(int(ctx.groups["id"]))
    if art is None or ctx.groups["format"] != "zip":
        return Reply(
            404,
            templates.error(
                templates.NOT_FOUND_MESSAGE,
                f"{templates.DOCS}/actions/artifacts#download-an-artifact",
            ),
        )
    if art.expired:
        return Reply(
            410,
            templates.error(
                "Artifact has expired", f"{templates.DOCS}/actions/artifacts#download-an-artifact"
            ),
        )
    blob = secrets.token_urlsafe(16)
    fake._blobs[blob] = (ctx.repo, art.id, time.monotonic() + fake.blob_url_ttl)
    # Shape of the redirect: octokit-fixtures/get-archive.normalized-fixture.json (302, empty body,
    # ``location`` on another host) and WorkflowJob.testAttributes.txt.
    return Reply(
        302,
        b"",
        {
            "Location": f"{fake.url}/_blob/{blob}?sig=fake&se=60",
            "Content-Type": "text/html;charset=utf-8",
        },
    )


# -- contents and compare


@_route(
    "GET", r"/contents/(?P<path>.+)", "contents", "read", "repos/contents#get-repository-content"
)
def _get_contents(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    ref = ctx.q("ref") or ctx.repo.default_branch
    sha = ctx.repo.resolve(ref)
    if sha is None:
        return Reply(
            404,
            {
                "message": f"No commit found for the ref {ref}",
                "documentation_url": f"{templates.DOCS}/repos/contents#get-repository-content",
            },
        )
    path = unquote(ctx.groups["path"]).strip("/")
    data = ctx.repo.commits[sha].files.get(path)
    if data is None:
        return Reply(
            404,
            templates.error(
                templates.NOT_FOUND_MESSAGE,
                f"{templates.DOCS}/repos/contents#get-repository-content",
            ),
        )
    return Reply(
        200,
        templates.content_file(
            fake.url, fake.html, full_name=ctx.repo.full_name, path=path, ref=ref, data=data
        ),
    )


@_route("GET", r"/compare/(?P<spec>.+)", "contents", "read", "commits/commits#compare-two-commits")
def _compare(fake: FakeGitHub, ctx: _Ctx) -> Reply:
    base_ref, sep, head_ref = unquote(ctx.groups["spec"]).partition("...")
    base, head = ctx.repo.resolve(base_ref), ctx.repo.resolve(head_ref)
    if not sep or base is None or head is None:
        return Reply(
            404,
            templates.error(
                templates.NOT_FOUND_MESSAGE, f"{templates.DOCS}/commits/commits#compare-two-commits"
            ),
        )
    head_anc, base_anc = ctx.repo.ancestors(head), ctx.repo.ancestors(base)
    ahead = head_anc - base_anc
    behind = base_anc - head_anc
    common = head_anc & base_anc
    # merge base: the common ancestor that no other common ancestor descends from
    merge_base = next(
        (c for c in common if not any(c in ctx.repo.ancestors(o) - {o} for o in common)), base
    )
    status = (
        "identical"
        if not ahead and not behind
        else "ahead"
        if not behind
        else "behind"
        if not ahead
        else "diverged"
    )
    ordered = [sha for sha in ctx.repo.commits if sha in ahead]
    return Reply(
        200,
        templates.comparison(
            fake.url,
            fake.html,
            full_name=ctx.repo.full_name,
            base=base_ref,
            head=head_ref,
            status=status,
            ahead_by=len(ahead),
            behind_by=len(behind),
            base_commit=fake._commit_json(ctx.repo, base),
            merge_base_commit=fake._commit_json(ctx.repo, merge_base),
            commits=[fake._commit_json(ctx.repo, s) for s in ordered[:250]],
        ),
    )


# ---- the HTTP layer ---------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # a client hung up: not news
            return
        super().handle_error(request, client_address)


class _Handler_(BaseHTTPRequestHandler):
    fake: FakeGitHub
    server_version = "github.com"
    sys_version = ""
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the fake keeps its own log
        pass

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        self.fake._wait_if_held(self.command, self.path)
        reply = self.fake._handle(self.command, self.path, dict(self.headers.items()), raw)
        if reply.delay:
            time.sleep(reply.delay)
        no_length = reply.headers.pop("X-Fake-No-Content-Length", None)
        if isinstance(reply.body, bytes):
            payload = reply.body
        elif reply.body is None:
            payload = b""
        else:
            payload = json.dumps(reply.body).encode()
            reply.headers.setdefault("Content-Type", JSON_TYPE)
        self.send_response(reply.status)
        headers = {
            "X-GitHub-Media-Type": "github.v3; format=json",
            "x-github-api-version-selected": "2022-11-28",
            "Access-Control-Expose-Headers": templates.EXPOSE_HEADERS,
            "X-GitHub-Request-Id": secrets.token_hex(4).upper() + ":FAKE",
            **reply.headers,
        }
        for key, value in headers.items():
            self.send_header(key, value)
        if no_length:
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            try:
                for chunk in _chunks(payload):
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):  # the client stopped reading
                self.close_connection = True

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = _serve


def _chunks(payload: bytes, size: int = 65536) -> Iterator[bytes]:
    for i in range(0, len(payload), size):
        yield payload[i : i + size]
