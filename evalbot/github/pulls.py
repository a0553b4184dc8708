"""Pull requests, their commits, the token's user, and the repository's files and commits."""

from __future__ import annotations

from github.Commit import Commit
from github.PaginatedList import PaginatedList
from github.PullRequest import PullRequest

from evalbot.errors import PublishError
from evalbot.github.connection import Connection
from evalbot.github.errors import PERMISSION_CONTENTS, PERMISSION_PULLS_READ
from evalbot.github.records import PullRequestInfo, pull_info

__all__ = ["Contents", "PullRequests"]


class PullRequests(Connection):
    def get_pull(self, number: int) -> PullRequestInfo:
        with self._errors(f"reading pull request #{number}", PERMISSION_PULLS_READ):
            return pull_info(self._repo.get_pull(number))

    def find_pulls_for_head(
        self, head_sha: str, head_branch: str | None = None, head_owner: str | None = None
    ) -> list[PullRequestInfo]:
        """Every open pull request whose head is ``head_sha`` (a ``workflow_run`` event's payload
        lists none for a fork), by number."""
        action = f"finding the pull requests of commit {head_sha[:12]}"
        found: dict[int, PullRequestInfo] = {}
        with self._errors(action, PERMISSION_PULLS_READ):
            for pull in self._repo.get_commit(head_sha).get_pulls():
                if pull.head.sha == head_sha and pull.state == "open":
                    found[pull.number] = pull_info(pull)
            # GitHub does not associate a fork's commits with the base repository's pulls.
            pulls: PaginatedList[PullRequest]
            if head_branch and head_owner:
                pulls = self._repo.get_pulls(state="open", head=f"{head_owner}:{head_branch}")
            else:
                pulls = self._repo.get_pulls(state="open", sort="updated", direction="desc")
            for pull in pulls:
                if pull.head.sha == head_sha:
                    found[pull.number] = pull_info(pull)
        return [found[number] for number in sorted(found)]

    def list_pulls_of_head(self, head_owner: str, head_branch: str) -> list[PullRequestInfo]:
        """The pull requests from ``head_owner:head_branch`` in every state, newest first."""
        label = f"{head_owner}:{head_branch}"
        with self._errors(f"listing the pull requests from {label}", PERMISSION_PULLS_READ):
            return [pull_info(p) for p in self._repo.get_pulls(state="all", head=label)]

    def list_pull_commits(self, number: int) -> list[tuple[str, str]]:
        """The pull request's commits and their trees, oldest first (GitHub lists 250 at most)."""
        with self._errors(f"listing the commits of pull request #{number}", PERMISSION_PULLS_READ):
            found = PaginatedList(
                Commit, self._gh.requester, f"{self._repo.url}/pulls/{number}/commits", None
            )
            return [(commit.sha, commit.commit.tree.sha) for commit in found]

    def authenticated_login(self) -> str:
        """The login of a personal token's user (``GET /user``). An App's token has no user:
        its identity is the ``app`` of the check runs it creates."""
        with self._errors("reading the token's user (GET /user)", "a personal token"):
            login: str = self._gh.get_user().login
            return login


class Contents(Connection):
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
