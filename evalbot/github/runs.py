"""Workflow runs and their artifacts (found here; downloaded by :mod:`.download`)."""

from __future__ import annotations

from github.Artifact import Artifact
from github.PaginatedList import PaginatedList
from github.WorkflowRun import WorkflowRun

from evalbot.github.connection import Connection
from evalbot.github.errors import PERMISSION_ACTIONS
from evalbot.github.records import ArtifactInfo, WorkflowRunInfo, artifact_info, run_info

__all__ = ["WorkflowRuns"]


class WorkflowRuns(Connection):
    def list_workflow_runs(
        self,
        workflow_id_or_file: str | int | None,
        branch: str | None,
        status: str | None = "success",
        *,
        event: str | None = None,
        head_sha: str | None = None,
        limit: int = 100,
    ) -> list[WorkflowRunInfo]:
        """Runs of one workflow (its id or file name; ``None``: every workflow's) on ``branch``
        (``None``: any), newest first, at most ``limit``; ``status`` ``None``: any status."""
        which = f"workflow {workflow_id_or_file!r}" if workflow_id_or_file else "every workflow"
        action = f"listing runs of {which}" + (f" on {branch!r}" if branch else "")
        path = f"/actions/workflows/{workflow_id_or_file}" if workflow_id_or_file else ""
        params = {"branch": branch, "status": status, "event": event, "head_sha": head_sha}
        with self._errors(action, PERMISSION_ACTIONS):
            runs: list[WorkflowRunInfo] = []
            found = PaginatedList(
                WorkflowRun,
                self._gh.requester,
                f"{self._repo.url}{path}/runs" if path else f"{self._repo.url}/actions/runs",
                {key: value for key, value in params.items() if value},
                list_item="workflow_runs",
            )
            for run in found:
                runs.append(run_info(run))
                if len(runs) >= limit:
                    break
            return runs

    def find_artifact(self, run_id: int, name: str) -> ArtifactInfo | None:
        """The artifact called ``name`` of run ``run_id`` (expired ones included), or ``None``."""
        with self._errors(f"listing artifacts of run {run_id}", PERMISSION_ACTIONS):
            found = PaginatedList(
                Artifact,
                self._gh.requester,
                f"{self._repo.url}/actions/runs/{run_id}/artifacts",
                {"name": name},
                list_item="artifacts",
            )
            matches = [artifact_info(a) for a in found if a.name == name]
        matches.sort(key=lambda a: (a.expired, -a.id))
        return matches[0] if matches else None
