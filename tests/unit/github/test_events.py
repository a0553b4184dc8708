"""events.parse_event as a truth table, on GitHub's recorded webhook payloads."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from evalbot.github.events import Event, parse_event

PAYLOADS = Path(__file__).resolve().parents[2] / "integration" / "payloads"
REPO = "Codertocat/Hello-World"


def payload(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PAYLOADS / f"{name}.payload.json").read_text())
    return data


PR = payload("pull_request.synchronize")
WR = payload("workflow_run.completed.with-pull-requests")
WR_HEAD = WR["workflow_run"]["head_sha"]
# the recorded run's pull request has another head sha; make one that matches
WR_MATCH = copy.deepcopy(WR)
WR_MATCH["workflow_run"]["event"] = "pull_request"
WR_MATCH["workflow_run"]["pull_requests"][0]["head"]["sha"] = WR_HEAD


def edit(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node[key]
    node[last] = value
    return data


def mode(event: Event) -> tuple[str, int | None, bool]:
    return event.mode, event.pull_number, event.is_fork


CASES: list[tuple[str, str, dict[str, Any], tuple[str, int | None, bool]]] = [
    # (id, event name, payload, (mode, pull number, fork))
    ("pr-synchronize", "pull_request", PR, ("pull_request", 2, False)),
    ("pr-opened", "pull_request", edit(PR, "action", "opened"), ("pull_request", 2, False)),
    ("pr-target", "pull_request_target", PR, ("pull_request", 2, False)),
    ("pr-closed", "pull_request", edit(PR, "action", "closed"), ("skip", None, False)),
    (
        "pr-fork",
        "pull_request",
        edit(PR, "pull_request.head.repo.full_name", "someone/Hello-World"),
        ("pull_request", 2, True),
    ),
    (
        "pr-deleted-fork",
        "pull_request",
        edit(PR, "pull_request.head.repo", None),
        ("pull_request", 2, True),
    ),
    ("pr-no-pull", "pull_request", {"action": "opened"}, ("skip", None, False)),
    ("wr-with-pr", "workflow_run", WR_MATCH, ("workflow_run", 2, False)),
    (
        "wr-from-fork",
        "workflow_run",
        edit(WR_MATCH, "workflow_run.head_repository.full_name", "someone/octo-repo"),
        ("workflow_run", 2, True),
    ),
    (
        "wr-pr-other-sha",
        "workflow_run",
        edit(WR, "workflow_run.event", "pull_request"),
        ("workflow_run", None, False),
    ),
    ("wr-from-push", "workflow_run", edit(WR, "workflow_run.event", "push"), ("skip", None, False)),
    (
        "wr-failed",
        "workflow_run",
        edit(WR_MATCH, "workflow_run.conclusion", "failure"),
        ("workflow_run", 2, False),
    ),
    (
        "wr-skipped",
        "workflow_run",
        edit(WR_MATCH, "workflow_run.conclusion", "skipped"),
        ("skip", None, False),
    ),
    (
        "pr-retargeted",
        "pull_request",
        edit(
            edit(PR, "action", "edited"),
            "changes",
            {"base": {"ref": {"from": "dev"}, "sha": {"from": "a" * 40}}},
        ),
        ("pull_request", 2, False),
    ),
    (
        "pr-title-edited",
        "pull_request",
        edit(edit(PR, "action", "edited"), "changes", {"title": {"from": "old"}}),
        ("skip", None, False),
    ),
    ("wr-requested", "workflow_run", edit(WR_MATCH, "action", "requested"), ("skip", None, False)),
    ("push", "push", {"after": "a" * 40}, ("push", None, False)),
    ("push-delete", "push", {"after": "0" * 40}, ("push", None, False)),
    ("dispatch", "workflow_dispatch", {}, ("dispatch", None, False)),
    ("schedule", "schedule", {}, ("dispatch", None, False)),
    ("issue-comment", "issue_comment", {}, ("skip", None, False)),
    ("no-event", "", {}, ("skip", None, False)),
]


@pytest.mark.parametrize(
    ("event_name", "data", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_truth_table(
    event_name: str, data: dict[str, Any], expected: tuple[str, int | None, bool]
) -> None:
    event = parse_event(event_name, data, sha="f" * 40, ref="refs/heads/main", repository=REPO)
    assert mode(event) == expected
    assert (event.skip_reason is not None) == (event.mode == "skip")


def test_pull_request_fields_come_from_the_payload() -> None:
    event = parse_event("pull_request", PR, sha="merge", ref="refs/pull/2/merge", repository=REPO)
    pr = PR["pull_request"]
    assert event.head_sha == pr["head"]["sha"]
    assert event.base_sha == pr["base"]["sha"]
    assert event.base_ref == "master"
    assert event.on_pull_request


def test_workflow_run_fields() -> None:
    event = parse_event("workflow_run", WR_MATCH, sha="x", ref="", repository=REPO)
    run = WR["workflow_run"]
    assert event.head_sha == run["head_sha"]
    assert event.run_id == run["id"]
    assert event.workflow_id == run["workflow_id"]
    assert event.base_sha == run["pull_requests"][0]["base"]["sha"]
    assert event.head_repo == "octo-org/octo-repo"


def test_push_uses_after_or_the_sha_and_the_branch() -> None:
    event = parse_event(
        "push", {"after": "0" * 40}, sha="b" * 40, ref="refs/heads/dev", repository=REPO
    )
    assert (event.head_sha, event.branch) == ("b" * 40, "dev")
    tag = parse_event("push", {}, sha="c" * 40, ref="refs/tags/v1", repository=REPO)
    assert tag.branch is None


def test_skip_reasons_are_sentences() -> None:
    skipped = edit(WR_MATCH, "workflow_run.conclusion", "skipped")
    event = parse_event("workflow_run", skipped, sha="", ref="", repository=REPO)
    assert event.skip_reason == (
        f"the triggering run {WR['workflow_run']['id']} concluded `skipped`: nothing ran to compare"
    )
    title = edit(edit(PR, "action", "edited"), "changes", {"body": {"from": "old"}})
    event = parse_event("pull_request", title, sha="", ref="", repository=REPO)
    assert event.skip_reason == "only the title or body of pull request #2 changed"


def test_a_failed_run_the_file_of_its_workflow_and_the_head_before_a_push() -> None:
    """A failed triggering run is judged (a failing check, no results); a run names its
    workflow's file (the baseline is found by it, never by ``name:``); ``synchronize`` names
    the head before the push (GitHub's ``before``), no other action does."""
    failed = edit(WR_MATCH, "workflow_run.conclusion", "timed_out")
    event = parse_event("workflow_run", failed, sha="", ref="", repository=REPO)
    assert (event.failed, event.workflow_path) == ("timed_out", ".github/workflows/test.yml")
    assert parse_event("workflow_run", WR_MATCH, sha="", ref="", repository=REPO).failed is None
    pushed = parse_event("pull_request", PR, sha="", ref="", repository=REPO)
    assert pushed.before == PR["before"]
    opened = parse_event(
        "pull_request", edit(PR, "action", "opened"), sha="", ref="", repository=REPO
    )
    assert opened.before is None


def test_events_stay_pure() -> None:
    """events.py imports nothing that does IO (no PyGithub, requests, os)."""
    import ast

    root = Path(__file__).resolve().parents[3] / "evalbot"
    allowed = {"__future__", "collections", "dataclasses", "typing", "re", "evalbot"}
    for name in ("github/events.py",):
        tree = ast.parse((root / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                assert module.split(".")[0] in allowed, f"{name} imports {module}"
