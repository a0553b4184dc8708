"""Check runs and commit statuses on a commit: created (a check run idempotently), completed,
and listed back for the looks ledger (:mod:`evalbot.plan.ledger`)."""

from __future__ import annotations

import secrets
from typing import Any

from github.CheckRun import CheckRun
from github.CommitStatus import CommitStatus
from github.PaginatedList import PaginatedList

from evalbot.github.connection import Connection, fit
from evalbot.github.errors import (
    PERMISSION_CHECKS,
    PERMISSION_CHECKS_READ,
    PERMISSION_STATUSES,
    PERMISSION_STATUSES_READ,
    one_line,
)
from evalbot.github.records import CheckRunInfo, StatusInfo, check_info, status_info
from evalbot.limits import MAX_CHECK_TEXT_CHARS, MAX_STATUS_DESCRIPTION_CHARS

__all__ = ["MAX_LISTED", "CheckRuns"]

#: Check runs, statuses and comments listed per commit at most (GitHub keeps 1,000 check runs
#: of one name per check suite).
MAX_LISTED = 1000
#: A check run's title is one line; evalbot keeps it to this many characters.
_TITLE_CHARS = 255


class CheckRuns(Connection):
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
    ) -> CheckRunInfo:
        """A check run on ``head_sha``: ``in_progress`` unless ``conclusion`` completes it.

        Idempotent: the run carries a random ``external_id`` (``tag`` appended); when a try gets
        no answer (or a 5xx), the check runs of ``head_sha`` are searched for it before trying
        again, so a request that GitHub did act on never leaves a second, orphaned check run.
        """
        nonce = f"evalbot-{secrets.token_hex(12)}{tag}"
        kwargs: dict[str, Any] = {
            "output": _check_output(title, summary, text),
            "external_id": nonce,
            "status": "in_progress" if conclusion is None else "completed",
        }
        if conclusion is not None:
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
            lambda: check_info(self._repo.create_check_run(name=name, head_sha=head_sha, **kwargs)),
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
            return check_info(run)

    def list_check_runs(self, head_sha: str, name: str | None = None) -> list[CheckRunInfo]:
        """Every check run on ``head_sha`` (called ``name`` when given; ``filter=all``: GitHub's
        default lists only the latest), whichever App made it, at most :data:`MAX_LISTED`."""
        action = f"listing the check runs of commit {head_sha[:12]}"
        query = {"filter": "all"} | ({"check_name": name} if name else {})
        with self._errors(action, PERMISSION_CHECKS_READ):
            found = PaginatedList(
                CheckRun,
                self._gh.requester,
                f"{self._repo.url}/commits/{head_sha}/check-runs",
                query,
                list_item="check_runs",
            )
            runs: list[CheckRunInfo] = []
            for run in found:
                runs.append(check_info(run))
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
            return status_info(made, sha)

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
                statuses.append(status_info(status, sha))
                if len(statuses) >= MAX_LISTED:
                    break
            return statuses


def _check_output(title: str, summary: str, text: str | None) -> dict[str, Any]:
    output: dict[str, Any] = {
        "title": one_line(title, _TITLE_CHARS),
        "summary": fit(summary, MAX_CHECK_TEXT_CHARS, "check run summary"),
    }
    if text:
        output["text"] = fit(text, MAX_CHECK_TEXT_CHARS, "check run text")
    return output
