"""Pure: the event that started the run -> what evalbot does (a truth table, tested as one).

=====================  ===============================  =================================
event                  condition                        mode
=====================  ===============================  =================================
pull_request[_target]  opened/synchronize/reopened/...  ``pull_request`` (fork -> read-only)
pull_request[_target]  edited, the base changed         ``pull_request``
pull_request[_target]  closed; edited title or body     ``skip``
workflow_run           completed, from a PR             ``workflow_run`` (``failed``: not success)
workflow_run           not completed, or skipped        ``skip``
workflow_run           triggering run was not for a PR  ``skip``
push                   (any branch)                     ``push``
workflow_dispatch      / schedule                       ``dispatch``
anything else                                           ``skip``
=====================  ===============================  =================================

``head_sha`` is the commit the candidate results are about: the check goes there. A
``workflow_run`` whose run failed (``failed`` is its conclusion) has no results: evalbot posts a
failing check, so that a required check does not wait forever.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Mode = Literal["pull_request", "workflow_run", "push", "dispatch", "skip"]

PR_EVENTS = ("pull_request", "pull_request_target")
#: Conclusions of a triggering run that leave nothing to judge and nothing to fail.
RUN_CONCLUSIONS_SKIPPED = ("skipped", "neutral")


@dataclass(frozen=True, kw_only=True)
class Event:
    mode: Mode
    head_sha: str = ""
    pull_number: int | None = None  # None in workflow_run mode: look it up by head sha
    base_sha: str | None = None
    base_ref: str | None = None
    head_ref: str | None = None
    head_repo: str | None = None  # owner/name the head commit lives in
    is_fork: bool = False
    run_id: int | None = None  # workflow_run: the triggering run (it holds the candidate)
    workflow_id: int | None = None  # workflow_run: the triggering run's workflow
    workflow_path: str | None = None  # workflow_run: its file, .github/workflows/evals.yml
    failed: str | None = None  # workflow_run: the conclusion of a triggering run that failed
    before: str | None = None  # pull_request synchronize: the head before the push
    branch: str | None = None  # push/dispatch: the branch the results belong to
    skip_reason: str | None = None

    @property
    def on_pull_request(self) -> bool:
        return self.mode in ("pull_request", "workflow_run")


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _skip(reason: str) -> Event:
    return Event(mode="skip", skip_reason=reason)


def parse_event(
    event_name: str, payload: Mapping[str, Any], *, sha: str, ref: str, repository: str
) -> Event:
    """Decide the mode from ``GITHUB_EVENT_NAME`` and the webhook payload (pure)."""
    if event_name in PR_EVENTS:
        return _pull_request(payload, repository)
    if event_name == "workflow_run":
        return _workflow_run(payload, repository)
    branch = ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None
    if event_name == "push":
        after = _str(payload.get("after"))
        head = after if after and set(after) != {"0"} else sha
        if not head:
            return _skip("the push event names no commit (GITHUB_SHA is empty)")
        return Event(mode="push", head_sha=head, branch=branch)
    if event_name in ("workflow_dispatch", "schedule"):
        return Event(mode="dispatch", head_sha=sha, branch=branch)
    return _skip(
        f"evalbot does not handle `{event_name or 'unknown'}` events; run it on pull_request, "
        "workflow_run, push or workflow_dispatch",
    )


def _pull_request(payload: Mapping[str, Any], repository: str) -> Event:
    pull = payload.get("pull_request")
    number = _get(pull, "number")
    head_sha = _str(_get(pull, "head", "sha"))
    if not isinstance(number, int) or not head_sha:
        return _skip("the event payload holds no pull request")
    action = _str(payload.get("action"))
    if action == "closed" or _get(pull, "state") == "closed":
        return _skip(f"pull request #{number} is closed")
    if action == "edited" and not isinstance(_get(payload, "changes", "base"), Mapping):
        return _skip(f"only the title or body of pull request #{number} changed")
    head_repo = _str(_get(pull, "head", "repo", "full_name"))
    base_repo = _str(_get(pull, "base", "repo", "full_name")) or repository
    return Event(
        mode="pull_request",
        head_sha=head_sha,
        pull_number=number,
        base_sha=_str(_get(pull, "base", "sha")) or None,
        base_ref=_str(_get(pull, "base", "ref")) or None,
        head_ref=_str(_get(pull, "head", "ref")) or None,
        head_repo=head_repo or None,
        # a deleted fork has head.repo = null: treat it as a fork
        is_fork=(not head_repo) or head_repo.lower() != base_repo.lower(),
        before=(_str(payload.get("before")) or None) if action == "synchronize" else None,
    )


def _workflow_run(payload: Mapping[str, Any], repository: str) -> Event:
    run = payload.get("workflow_run")
    if not isinstance(run, Mapping):
        return _skip("the event payload holds no workflow run")
    run_id = run.get("id")
    head_sha = _str(run.get("head_sha"))
    if not isinstance(run_id, int) or not head_sha:
        return _skip("the workflow run in the payload has no id or head sha")
    action = _str(payload.get("action"))
    if action and action != "completed":
        return _skip(f"the triggering run is {action}, not completed")
    conclusion = _str(run.get("conclusion")) or "unknown"
    if conclusion in RUN_CONCLUSIONS_SKIPPED:
        return _skip(
            f"the triggering run {run_id} concluded `{conclusion}`: nothing ran to compare",
        )
    if _str(run.get("event")) not in PR_EVENTS:
        return _skip(
            f"the triggering run {run_id} ran for `{run.get('event')}`, not a pull request",
        )
    head_repo = _str(_get(run, "head_repository", "full_name"))
    base_repo = _str(_get(payload, "repository", "full_name")) or repository
    ours = [pr for pr in run.get("pull_requests") or [] if _get(pr, "head", "sha") == head_sha]
    pr = next((pr for pr in ours if isinstance(_get(pr, "number"), int)), None)
    workflow_id = run.get("workflow_id")
    return Event(
        mode="workflow_run",
        head_sha=head_sha,
        pull_number=_get(pr, "number"),
        base_sha=_str(_get(pr, "base", "sha")) or None,
        base_ref=_str(_get(pr, "base", "ref")) or None,
        head_ref=_str(run.get("head_branch")) or None,
        head_repo=head_repo or None,
        is_fork=bool(head_repo) and head_repo.lower() != base_repo.lower(),
        run_id=run_id,
        workflow_id=workflow_id if isinstance(workflow_id, int) else None,
        workflow_path=_str(run.get("path")) or None,
        failed=None if conclusion == "success" else conclusion,
    )
