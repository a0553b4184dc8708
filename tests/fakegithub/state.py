"""The fake's in-memory world: repositories and what lives in them.

Tests seed it through :class:`Repo` methods (``add_commit``, ``add_pull``, ``add_workflow``,
``add_run``, ``add_artifact``, ``add_comment``) and read back what the code under test wrote
(``comments_on``, ``check_runs``, ``statuses``). Everything is guarded by the owning server's
lock, so seeding from a test while the server thread answers is safe.
"""

from __future__ import annotations

import base64
import hashlib
import io
import itertools
import threading
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from . import templates

# Token permissions, by the names a workflow's ``permissions:`` block uses.
SCOPES = ("actions", "checks", "contents", "issues", "metadata", "pull-requests", "statuses")
Level = Literal["none", "read", "write"]
LEVELS: dict[str, int] = {"none": 0, "read": 1, "write": 2}
WRITE_ALL: dict[str, Level] = dict.fromkeys(SCOPES, "write")
READ_ALL: dict[str, Level] = dict.fromkeys(SCOPES, "read")

_EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def make_zip(files: Mapping[str, bytes | str]) -> bytes:
    """A zip archive holding ``files`` (what ``actions/upload-artifact`` produces)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content.encode() if isinstance(content, str) else content)
    return buffer.getvalue()


@dataclass
class Token:
    value: str
    kind: Literal["app", "pat"] = "app"
    permissions: dict[str, Level] = field(default_factory=lambda: dict(WRITE_ALL))
    login: str = "github-actions[bot]"
    user_id: int = 41898282
    # an App token acts as its App: the ``app`` of the check runs it creates, and its bot user
    # ``<slug>[bot]`` (type Bot) as the author of its comments. The Actions token is the
    # ``github-actions`` App (id 15368); a personal token has no App.
    app_id: int | None = 15368
    app_slug: str | None = "github-actions"

    def allows(self, scope: str, level: Level) -> bool:
        return LEVELS[self.permissions.get(scope, "none")] >= LEVELS[level]


@dataclass
class Commit:
    sha: str
    parents: list[str]
    files: dict[str, bytes]
    message: str
    date: str


@dataclass
class Pull:
    number: int
    id: int
    title: str
    head_sha: str
    head_ref: str
    base_sha: str
    base_ref: str
    head_repo: str  # full_name; differs from the base repo for a fork
    state: str = "open"
    author: str = "octocat"
    created_at: str = "2025-01-01T00:00:00Z"
    merged: bool = False  # a closed pull request that was merged


@dataclass
class Comment:
    id: int
    issue_number: int
    body: str
    author: str
    author_type: str
    created_at: str
    updated_at: str


@dataclass
class CheckRun:
    id: int
    name: str
    head_sha: str
    status: str
    conclusion: str | None
    started_at: str | None
    completed_at: str | None
    details_url: str | None
    external_id: str | None
    output: dict[str, Any]
    app_id: int = 15368
    app_slug: str = "github-actions"


@dataclass
class Status:
    id: int
    sha: str
    state: str
    context: str
    description: str | None
    target_url: str | None
    created_at: str
    creator: str


@dataclass
class Workflow:
    id: int
    name: str
    path: str


@dataclass
class Run:
    id: int
    workflow_id: int
    run_number: int
    head_sha: str
    head_branch: str
    event: str
    status: str
    conclusion: str | None
    created_at: str
    pull_numbers: list[int]
    head_repo: str


@dataclass
class Artifact:
    id: int
    run_id: int
    name: str
    data: bytes
    expired: bool
    size_in_bytes: int
    created_at: str
    expires_at: str
    send_content_length: bool = True
    download_url: str | None = None  # overrides ``archive_download_url`` (a hostile API answer)


class Repo:
    """One repository. Create through :meth:`FakeGitHub.add_repo`."""

    def __init__(
        self,
        world: World,
        *,
        full_name: str,
        repo_id: int,
        owner_id: int,
        default_branch: str,
        private: bool,
    ) -> None:
        self._world = world
        self.full_name = full_name
        self.id = repo_id
        self.owner_id = owner_id
        self.default_branch = default_branch
        self.private = private
        self.commits: dict[str, Commit] = {}
        self.branches: dict[str, str] = {}
        self.pulls: dict[int, Pull] = {}
        self.comments: dict[int, Comment] = {}
        self.check_runs: dict[int, CheckRun] = {}
        self.statuses: list[Status] = []
        self.workflows: dict[int, Workflow] = {}
        self.runs: dict[int, Run] = {}
        self.artifacts: dict[int, Artifact] = {}

    # ---- seeding -----------------------------------------------------------------------------

    def add_commit(
        self,
        sha: str | None = None,
        *,
        parents: Iterable[str] = (),
        files: Mapping[str, bytes | str | None] | None = None,
        message: str = "",
        branch: str | None = None,
    ) -> str:
        """Add a commit; its tree is its first parent's with ``files`` laid over (``None``
        deletes a path). ``branch`` moves that branch to the new commit. Returns the sha."""
        with self._world.lock:
            parents = list(parents)
            for parent in parents:
                if parent not in self.commits:
                    raise KeyError(f"unknown parent commit {parent!r} in {self.full_name}")
            sha = sha or templates.fake_sha(self.full_name, len(self.commits), message, parents)
            tree = dict(self.commits[parents[0]].files) if parents else {}
            for path, content in (files or {}).items():
                if content is None:
                    tree.pop(path, None)
                else:
                    tree[path] = content.encode() if isinstance(content, str) else content
            date = iso(_EPOCH + timedelta(minutes=len(self.commits)))
            self.commits[sha] = Commit(sha, parents, tree, message or f"commit {sha[:7]}", date)
            if branch is not None:
                self.branches[branch] = sha
            return sha

    def add_pull(
        self,
        *,
        head_sha: str,
        base_sha: str,
        head_ref: str = "feature",
        base_ref: str | None = None,
        number: int | None = None,
        head_repo: str | None = None,
        title: str = "A pull request",
        state: str = "open",
        author: str = "octocat",
    ) -> Pull:
        """Add a pull request. ``head_repo`` (a full name) makes it a PR from a fork."""
        with self._world.lock:
            number = number or self._world.next_issue_number(self)
            pull = Pull(
                number=number,
                id=self._world.next_id(),
                title=title,
                head_sha=head_sha,
                head_ref=head_ref,
                base_sha=base_sha,
                base_ref=base_ref or self.default_branch,
                head_repo=head_repo or self.full_name,
                state=state,
                author=author,
                created_at=self._world.now(),
            )
            self.pulls[number] = pull
            return pull

    def add_check_run(
        self,
        head_sha: str,
        name: str,
        *,
        status: str = "completed",
        conclusion: str | None = "success",
        output: dict[str, Any] | None = None,
        app_id: int = 15368,
        app_slug: str = "github-actions",
        started_at: str | None = None,
    ) -> CheckRun:
        """A check run as an App would have created it (``app_id``/``app_slug``: which App)."""
        with self._world.lock:
            started = started_at or iso(datetime.now(UTC))
            run = CheckRun(
                id=self._world.next_id(),
                name=name,
                head_sha=head_sha,
                status=status,
                conclusion=conclusion if status == "completed" else None,
                started_at=started,
                completed_at=started if status == "completed" else None,
                details_url=None,
                external_id=None,
                output=dict(output or {"title": name, "summary": name}),
                app_id=app_id,
                app_slug=app_slug,
            )
            self.check_runs[run.id] = run
            return run

    def tree(self, sha: str) -> str:
        """The commit's tree sha: equal for two commits exactly when their files are (an amended
        commit keeps its tree). Not git's own tree hash, which nothing here needs."""
        with self._world.lock:
            files = self.commits[sha].files
            listing = b"".join(
                path.encode() + b"\0" + hashlib.sha1(b"blob %d\0" % len(data) + data).digest()
                for path, data in sorted(files.items())
            )
            return hashlib.sha1(listing).hexdigest()

    def pull_commits(self, number: int) -> list[str]:
        """The commits of a pull request, oldest first (as GET /pulls/{n}/commits lists them):
        those reachable from its head but not from its base."""
        with self._world.lock:
            pull = self.pulls[number]
            base = self.ancestors(pull.base_sha)
            mine = self.ancestors(pull.head_sha) - base
            return [sha for sha in self.commits if sha in mine]

    def add_comment(
        self, issue_number: int, body: str, *, author: str = "octocat", author_type: str = "User"
    ) -> Comment:
        with self._world.lock:
            now = self._world.now()
            comment = Comment(
                id=self._world.next_id(),
                issue_number=issue_number,
                body=body,
                author=author,
                author_type=author_type,
                created_at=now,
                updated_at=now,
            )
            self.comments[comment.id] = comment
            return comment

    def add_workflow(
        self,
        path: str = ".github/workflows/evals.yml",
        *,
        name: str | None = None,
        wf_id: int | None = None,
    ) -> Workflow:
        with self._world.lock:
            wf = Workflow(
                id=wf_id or self._world.next_id(),
                name=name or path.rsplit("/", 1)[-1].rsplit(".", 1)[0],
                path=path,
            )
            self.workflows[wf.id] = wf
            return wf

    def add_run(
        self,
        workflow: Workflow,
        *,
        head_sha: str,
        head_branch: str,
        event: str = "push",
        status: str = "completed",
        conclusion: str | None = "success",
        pull_numbers: Iterable[int] = (),
        head_repo: str | None = None,
        run_id: int | None = None,
    ) -> Run:
        """Add a workflow run. Runs list newest first, i.e. in reverse order of addition."""
        with self._world.lock:
            number = 1 + sum(1 for r in self.runs.values() if r.workflow_id == workflow.id)
            run = Run(
                id=run_id or self._world.next_id(),
                workflow_id=workflow.id,
                run_number=number,
                head_sha=head_sha,
                head_branch=head_branch,
                event=event,
                status=status,
                conclusion=conclusion if status == "completed" else None,
                created_at=self._world.now(),
                pull_numbers=list(pull_numbers),
                head_repo=head_repo or self.full_name,
            )
            self.runs[run.id] = run
            return run

    def add_artifact(
        self,
        run: Run,
        name: str,
        *,
        files: Mapping[str, bytes | str] | None = None,
        data: bytes | None = None,
        expired: bool = False,
        size_in_bytes: int | None = None,
        send_content_length: bool = True,
        artifact_id: int | None = None,
        download_url: str | None = None,
    ) -> Artifact:
        """Add an artifact to ``run``: a zip of ``files``, or the raw bytes ``data``.

        ``size_in_bytes`` overrides the size the API reports (to test a client that must not trust
        it); ``send_content_length=False`` streams the blob without a Content-Length header;
        ``download_url`` replaces the ``archive_download_url`` the API reports.
        """
        with self._world.lock:
            blob = data if data is not None else make_zip(files or {})
            created = self._world.now()
            art = Artifact(
                id=artifact_id or self._world.next_id(),
                run_id=run.id,
                name=name,
                data=blob,
                expired=expired,
                size_in_bytes=len(blob) if size_in_bytes is None else size_in_bytes,
                created_at=created,
                expires_at=iso(
                    datetime.strptime(created, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
                    + timedelta(days=90)
                ),
                send_content_length=send_content_length,
                download_url=download_url,
            )
            self.artifacts[art.id] = art
            return art

    # ---- reading back ------------------------------------------------------------------------

    def comments_on(self, issue_number: int) -> list[Comment]:
        """The comments on an issue or PR, oldest first (as GitHub lists them)."""
        with self._world.lock:
            return sorted(
                (c for c in self.comments.values() if c.issue_number == issue_number),
                key=lambda c: c.id,
            )

    def check_runs_for(self, sha: str) -> list[CheckRun]:
        with self._world.lock:
            return [c for c in self.check_runs.values() if c.head_sha == sha]

    def statuses_for(self, sha: str) -> list[Status]:
        with self._world.lock:
            return [s for s in self.statuses if s.sha == sha]

    # ---- queries the server uses --------------------------------------------------------------

    def resolve(self, ref: str) -> str | None:
        """A sha, a branch name or ``refs/heads/<branch>`` -> a known commit sha."""
        ref = ref.removeprefix("refs/heads/")
        if ref in self.branches:
            return self.branches[ref]
        if ref in self.commits:
            return ref
        matches = [sha for sha in self.commits if len(ref) >= 7 and sha.startswith(ref)]
        return matches[0] if len(matches) == 1 else None

    def ancestors(self, sha: str) -> set[str]:
        """``sha`` and every commit reachable from it."""
        seen: set[str] = set()
        stack = [sha]
        while stack:
            current = stack.pop()
            if current in seen or current not in self.commits:
                continue
            seen.add(current)
            stack.extend(self.commits[current].parents)
        return seen

    def find_workflow(self, id_or_file: str) -> Workflow | None:
        """A workflow by its id or its file name (``evals.yml``), as ``workflow_id`` takes it in
        GitHub's workflow endpoints: two workflows may share a ``name:``, never a file."""
        for wf in self.workflows.values():
            if id_or_file in (str(wf.id), wf.path.rsplit("/", 1)[-1]):
                return wf
        return None

    def delete_run(self, run_id: int) -> bool:
        """Delete a workflow run and its artifacts (what a collaborator's click does)."""
        with self._world.lock:
            if self.runs.pop(run_id, None) is None:
                return False
            for art_id in [a.id for a in self.artifacts.values() if a.run_id == run_id]:
                del self.artifacts[art_id]
            return True

    def to_json(self) -> dict[str, Any]:
        return {
            "full_name": self.full_name,
            "id": self.id,
            "default_branch": self.default_branch,
            "branches": dict(self.branches),
            "commits": [
                {"sha": c.sha, "parents": c.parents, "message": c.message, "files": sorted(c.files)}
                for c in self.commits.values()
            ],
            "pulls": [vars(p) for p in self.pulls.values()],
            "comments": [vars(c) for c in sorted(self.comments.values(), key=lambda c: c.id)],
            "check_runs": [vars(c) for c in self.check_runs.values()],
            "statuses": [vars(s) for s in self.statuses],
            "workflows": [vars(w) for w in self.workflows.values()],
            "runs": [vars(r) for r in self.runs.values()],
            "artifacts": [
                {k: v for k, v in vars(a).items() if k != "data"} | {"bytes": len(a.data)}
                for a in self.artifacts.values()
            ],
        }


class World:
    """Ids, clock and lock shared by every repository of one fake server."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._ids = itertools.count(1001)
        self._tick = itertools.count()
        self.repos: dict[str, Repo] = {}
        self.tokens: dict[str, Token] = {}

    def next_id(self) -> int:
        return next(self._ids)

    def now(self) -> str:
        """A deterministic clock: every call is one second later."""
        return iso(_EPOCH + timedelta(days=30, seconds=next(self._tick)))

    def next_issue_number(self, repo: Repo) -> int:
        return 1 + max([0, *repo.pulls, *(c.issue_number for c in repo.comments.values())])

    def repo_by_id(self, repo_id: int) -> Repo | None:
        return next((r for r in self.repos.values() if r.id == repo_id), None)


def load_seed(world_add_repo: Any, add_token: Any, seed: Mapping[str, Any]) -> None:
    """Seed from a JSON-able mapping (the standalone server's ``--seed`` file).

    Format::

        {"tokens": [{"value": "t", "kind": "app", "permissions": {"checks": "read", ...}}],
         "repos": [{"full_name": "o/r", "default_branch": "main", "private": false,
                    "commits": [{"sha": "...", "parents": [], "files": {"p": "text"},
                                 "branch": "main", "message": "..."}],
                    "pulls": [{"number": 1, "head_sha": "...", "base_sha": "...",
                               "head_ref": "f", "base_ref": "main", "head_repo": "fork/r"}],
                    "comments": [{"issue_number": 1, "body": "...", "author": "x"}],
                    "workflows": [{"path": ".github/workflows/evals.yml", "id": 7}],
                    "runs": [{"workflow": "evals.yml", "head_sha": "...", "head_branch": "main",
                              "event": "push", "conclusion": "success", "id": 9,
                              "pull_numbers": [1],
                              "artifacts": [{"name": "evals", "files": {"r.jsonl": "..."},
                                             "zip_base64": "...", "expired": false}]}]}]}
    """
    for tok in seed.get("tokens", []):
        add_token(tok["value"], kind=tok.get("kind", "app"), permissions=tok.get("permissions"))
    for spec in seed.get("repos", []):
        repo = world_add_repo(
            spec["full_name"],
            default_branch=spec.get("default_branch", "main"),
            private=spec.get("private", False),
        )
        for c in spec.get("commits", []):
            repo.add_commit(
                c.get("sha"),
                parents=c.get("parents", ()),
                files=c.get("files"),
                message=c.get("message", ""),
                branch=c.get("branch"),
            )
        for p in spec.get("pulls", []):
            repo.add_pull(**p)
        for c in spec.get("comments", []):
            repo.add_comment(c["issue_number"], c["body"], author=c.get("author", "octocat"))
        for w in spec.get("workflows", []):
            repo.add_workflow(w["path"], name=w.get("name"), wf_id=w.get("id"))
        for r in spec.get("runs", []):
            wf = repo.find_workflow(str(r["workflow"]))
            if wf is None:
                raise KeyError(f"seed run names unknown workflow {r['workflow']!r}")
            run = repo.add_run(
                wf,
                head_sha=r["head_sha"],
                head_branch=r["head_branch"],
                event=r.get("event", "push"),
                status=r.get("status", "completed"),
                conclusion=r.get("conclusion", "success"),
                pull_numbers=r.get("pull_numbers", ()),
                head_repo=r.get("head_repo"),
                run_id=r.get("id"),
            )
            for a in r.get("artifacts", []):
                repo.add_artifact(
                    run,
                    a["name"],
                    files=a.get("files"),
                    data=base64.b64decode(a["zip_base64"]) if "zip_base64" in a else None,
                    expired=a.get("expired", False),
                    artifact_id=a.get("id"),
                )
