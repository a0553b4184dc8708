"""GitHub's records read back as the looks ledger's tickets (evalbot.github.checks): which
check runs and commit statuses are evalbot's, and what each says."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from github import Github
from github.CheckRun import CheckRun
from github.CommitStatus import CommitStatus

from evalbot.github.checks import check_tickets, status_tickets
from evalbot.plan.ledger import Digest, State, Ticket, count_looks, placeholder, render_digest

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
AT = "2026-03-01T12:00:00Z"
A = "a" * 40
#: PyGithub's objects need a requester; these are built complete, so it never sends anything.
REQUESTER = Github(base_url="http://127.0.0.1:9").requester


def earlier(tickets: list[Ticket], mine: int | None) -> State:
    return count_looks(tickets, mine=mine, claims=State(), now=NOW)


def commits(state: State) -> list[str]:
    return [lk.head_sha[0] for lk in state.looks if not lk.holdout]


def check(
    run_id: int,
    sha: str,
    *,
    app: int = 15368,
    name: str = "evalbot",
    status: str = "completed",
    text: str | None = None,
) -> CheckRun:
    """A check run as PyGithub reads GitHub's answer (``GET .../check-runs``)."""
    attributes = {
        "id": run_id,
        "html_url": "",
        "status": status,
        "conclusion": "success" if status == "completed" else None,
        "name": name,
        "head_sha": sha,
        "app": {"id": app, "slug": "github-actions"},
        "started_at": AT,
        "output": {"text": text},
    }
    return CheckRun(REQUESTER, {}, attributes, completed=True)


def test_only_evalbots_apps_check_runs_of_the_comparison_are_tickets() -> None:
    """Another App's check run of the same name is ignored and said; the comparison's checks
    on another base (``evalbot (base dev)``) are its own, another comparison's are not."""
    nothing = Digest(kind="none", look=placeholder(A, holdout=False))
    record = render_digest(nothing)
    runs = [
        check(1, A, text=record),
        check(2, A, app=99, text=record),
        check(3, A, text=record, name="evalbot (base dev)"),
        check(4, A, text=record, name="holdout"),
        check(5, A, text=record, name="evalbot-x"),
    ]
    tickets, ignored = check_tickets(runs, app_id=15368, sha=A, name="evalbot")
    assert [t.id for t in tickets] == [1, 3]
    assert ignored == [
        "check run 2 on aaaaaaa was written by github-actions App (99), not evalbot's (15368): "
        "ignored"
    ]
    # evalbot's App unknown (a read-only token): every App's, so more looks, never fewer
    tickets, ignored = check_tickets(runs, app_id=None, sha=A, name="evalbot")
    assert ([t.id for t in tickets], ignored) == ([1, 2, 3], [])
    (ticket,), _ = check_tickets(runs[:1], app_id=15368, sha=A, name="evalbot")
    assert (ticket.digest, ticket.conclusion) == (nothing, "success")


def status(
    status_id: int, state: str, *, by: str = "bot", context: str = "evalbot", text: str = ""
) -> CommitStatus:
    """A commit status as PyGithub reads GitHub's answer (``GET .../statuses``)."""
    attributes = {
        "id": status_id,
        "state": state,
        "context": context,
        "description": text,
        "creator": {"login": by},
        "created_at": AT,
    }
    return CommitStatus(REQUESTER, {}, attributes)


def test_statuses_pair_each_final_one_with_its_pending_one() -> None:
    statuses = [
        status(1, "pending"),
        status(2, "success", text="✅ Improvement"),
        status(3, "pending"),
        status(4, "success", text="No verdict: No baseline yet"),
        status(5, "pending"),  # still running
        status(6, "pending", by="mallory"),
        status(7, "failure", context="other"),
    ]
    tickets = status_tickets(statuses, login="bot", name="evalbot", holdout=False, sha=A)
    assert [(t.id, t.running, t.digest is None) for t in tickets] == [
        (1, False, True),  # a verdict: details in the comment
        (3, False, False),  # "No verdict": not a look
        (5, True, True),
    ]
    assert all(t.opaque for t in tickets)


@pytest.mark.parametrize("mine", [2, 3])
def test_statuses_count_like_check_runs(mine: int) -> None:
    statuses_a = [status(1, "pending"), status(4, "success", text="✅ Improvement")]
    tickets = status_tickets(statuses_a, login="bot", name="evalbot", holdout=False, sha=A)
    state = earlier(tickets, mine=mine)
    assert commits(state) == ["a"]  # its ticket is its pending status (1), before 2 and 3
