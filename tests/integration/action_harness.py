"""Run ``evalbot action`` as a subprocess with a runner's environment against the fake GitHub.

A :class:`World` seeds ``octo/evals`` like a repository that installed evalbot: ``main`` with a
``.evalbot.yml``, a workflow ``evals.yml`` whose successful push runs upload the baseline
artifact, and PR #7 from ``feature``. :meth:`World.run` writes the event payload (a real webhook
payload with only the repository-specific fields replaced), sets ``INPUT_*`` and ``GITHUB_*``
as the runner does and returns what the step produced: exit code, stdout, stderr, the outputs
parsed back from ``$GITHUB_OUTPUT`` and the job summary.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from tests.conftest import run_in_process
from tests.fakegithub import FakeGitHub, Pull, Repo, Run, Workflow
from tests.fakegithub.plugin import APP_TOKEN

ROOT = Path(__file__).resolve().parents[2]
#: The checkout whose ``evalbot`` the steps run: this one, or ``EVALBOT_UNDER_TEST`` (another
#: checkout, e.g. of ``main``, to see that an attack in ``tests/attacks`` works against it).
CODE = Path(os.environ.get("EVALBOT_UNDER_TEST") or ROOT)
PAYLOADS = Path(__file__).resolve().parent / "payloads"
REPO_NAME = "octo/evals"
WORKFLOW = ".github/workflows/evals.yml"
ARTIFACT = "evals"
CONFIG = "alpha: 0.05\nbootstrap: {resamples: 1000, seed: 0}\n"
RUN_ID = 424242


def parse_output_file(text: str) -> dict[str, str]:
    """Read back a ``$GITHUB_OUTPUT`` file (both ``k=v`` and ``k<<DELIM`` forms), as the runner
    does."""
    result: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body: list[str] = []
            i += 1
            while i < len(lines) and lines[i] != delimiter:
                body.append(lines[i])
                i += 1
            if i >= len(lines):
                raise ValueError(f"output {name!r}: delimiter {delimiter!r} never closes")
            result[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            result[name] = value
        i += 1
    return result


def example(name: str) -> str:
    path = resources.files("evalbot") / "data" / "example" / f"{name}.jsonl"
    return path.read_text(encoding="utf-8")


def load_payload(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (PAYLOADS / f"{name}.payload.json").read_text(encoding="utf-8")
    )
    return data


def _repo_fields(target: dict[str, Any], full_name: str) -> None:
    owner, name = full_name.split("/")
    target["full_name"] = full_name
    target["name"] = name
    if "default_branch" in target:
        target["default_branch"] = "main"
    if isinstance(target.get("owner"), dict):
        target["owner"]["login"] = owner


def pull_request_payload(
    pull: Pull,
    *,
    action: str = "synchronize",
    before: str | None = None,
    changes: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """GitHub's recorded ``pull_request.synchronize`` payload, pointed at ``pull``: ``before``
    is the head before the push (GitHub sends it with ``synchronize`` only); ``changes`` what
    an ``edited`` event changed (``{"base": {"ref": {"from": ...}, "sha": {"from": ...}}}``
    after a retarget: the pull request itself holds the new values)."""
    payload = load_payload("pull_request.synchronize")
    payload["action"] = action
    payload.pop("before", None)
    if action == "synchronize" and before is not None:
        payload["before"] = before
    if changes is not None:
        payload["changes"] = changes
    payload["number"] = pull.number
    pr = payload["pull_request"]
    pr["number"] = pull.number
    pr["state"] = pull.state
    pr["head"]["sha"] = pull.head_sha
    pr["head"]["ref"] = pull.head_ref
    pr["base"]["sha"] = pull.base_sha
    pr["base"]["ref"] = pull.base_ref
    _repo_fields(pr["head"]["repo"], pull.head_repo)
    _repo_fields(pr["base"]["repo"], REPO_NAME)
    _repo_fields(payload["repository"], REPO_NAME)
    payload["after"] = pull.head_sha
    if action != "synchronize":
        payload.pop("after", None)
    return payload


def workflow_run_payload(
    run: Run, workflow: Workflow, *, pulls: list[Pull], head_repo: str = REPO_NAME
) -> dict[str, Any]:
    """GitHub's recorded ``workflow_run.completed`` payload (with ``pull_requests``), pointed at
    the fake's ``run``."""
    payload = load_payload("workflow_run.completed.with-pull-requests")
    wr = payload["workflow_run"]
    template = wr["pull_requests"][0] if wr["pull_requests"] else None
    wr.update(
        id=run.id,
        head_sha=run.head_sha,
        head_branch=run.head_branch,
        event=run.event,
        status=run.status,
        conclusion=run.conclusion,
        workflow_id=workflow.id,
        path=workflow.path,
    )
    prs = []
    for pull in pulls:
        entry = copy.deepcopy(template) if template else {"head": {}, "base": {}}
        entry["number"] = pull.number
        entry["head"].update(sha=pull.head_sha, ref=pull.head_ref)
        entry["base"].update(sha=pull.base_sha, ref=pull.base_ref)
        prs.append(entry)
    wr["pull_requests"] = prs
    _repo_fields(wr["head_repository"], head_repo)
    _repo_fields(wr["repository"], REPO_NAME)
    _repo_fields(payload["repository"], REPO_NAME)
    return payload


@dataclass
class StepResult:
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


class Step:
    """A running ``evalbot action`` step."""

    def __init__(self, proc: subprocess.Popen[str], output: Path, summary: Path) -> None:
        self.proc = proc
        self.output = output
        self.summary = summary

    def wait(self, timeout: float = 120) -> StepResult:
        try:
            stdout, stderr = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()
            raise
        return StepResult(
            code=self.proc.returncode,
            stdout=stdout,
            stderr=stderr,
            outputs=parse_output_file(self.output.read_text(encoding="utf-8")),
            summary=self.summary.read_text(encoding="utf-8"),
        )


def _in_process(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``evalbot action`` in this process, under exactly ``env`` (restored afterwards)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        return run_in_process(["action"], cwd=cwd)
    finally:
        os.environ.clear()
        os.environ.update(saved)


class World:
    """``octo/evals`` with evalbot installed, on a started fake GitHub."""

    def __init__(self, fake: FakeGitHub, tmp: Path, *, fork: bool = False) -> None:
        self.fake = fake
        self.tmp = tmp
        self.repo: Repo = fake.add_repo(REPO_NAME)
        self.workflow = self.repo.add_workflow(WORKFLOW, name="evals")
        self.root = self.repo.add_commit(
            files={".evalbot.yml": CONFIG}, branch="main", message="install evalbot"
        )
        self.base = self.repo.add_commit(
            parents=[self.root], files={"README.md": "evals\n"}, branch="main", message="base"
        )
        self.head = self.repo.add_commit(
            parents=[self.base], files={"model.txt": "v2\n"}, branch="feature", message="head"
        )
        self.pull = self.repo.add_pull(
            number=7,
            head_sha=self.head,
            base_sha=self.base,
            head_ref="feature",
            head_repo="someone/evals" if fork else None,
        )
        self.workspace = tmp / "workspace"
        (self.workspace / "results").mkdir(parents=True)
        (self.workspace / "results" / "candidate.jsonl").write_text(example("candidate"))
        self.runs = 0
        self.before: str | None = None  # the head before the last push (``synchronize``)
        self._lock = threading.Lock()

    def add_baseline_run(
        self, sha: str | None = None, *, files: dict[str, str] | None = None, expired: bool = False
    ) -> Run:
        run = self.repo.add_run(self.workflow, head_sha=sha or self.base, head_branch="main")
        self.repo.add_artifact(
            run,
            ARTIFACT,
            files=files if files is not None else {"results/baseline.jsonl": example("baseline")},
            expired=expired,
        )
        return run

    def env(self, event_name: str, payload: dict[str, Any], **inputs: str) -> dict[str, str]:
        with self._lock:
            self.runs += 1
            number = self.runs
        step = self.tmp / f"step{number}"
        step.mkdir()
        pull = payload.get("pull_request")
        if event_name in ("pull_request", "pull_request_target") and isinstance(pull, dict):
            # the run GitHub starts for the event, which this step is a job of
            self.repo.add_run(
                self.workflow,
                head_sha=str(pull["head"]["sha"]),
                head_branch=str(pull["head"]["ref"]),
                event=event_name,
                status="in_progress",
                pull_numbers=[int(pull["number"])],
                head_repo=str(pull["head"]["repo"]["full_name"])
                if pull["head"].get("repo")
                else None,
                run_id=RUN_ID + number,
            )
        event_path = step / "event.json"
        event_path.write_text(json.dumps(payload), encoding="utf-8")
        (step / "output").write_text("")
        (step / "summary").write_text("")
        env = {
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": str(CODE),
            "HOME": str(self.tmp),
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REPOSITORY": REPO_NAME,
            "GITHUB_API_URL": self.fake.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_SHA": self.head,
            "GITHUB_REF": f"refs/pull/{self.pull.number}/merge",
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_OUTPUT": str(step / "output"),
            "GITHUB_STEP_SUMMARY": str(step / "summary"),
            "GITHUB_RUN_ID": str(RUN_ID + number),
            "GITHUB_WORKFLOW_REF": f"{REPO_NAME}/{WORKFLOW}@refs/pull/{self.pull.number}/merge",
            "EVALBOT_GITHUB_RETRIES": "2",
            "EVALBOT_GITHUB_BACKOFF": "0",
            "EVALBOT_GITHUB_THROTTLE": "0",
            "INPUT_GITHUB-TOKEN": APP_TOKEN,
            "INPUT_CANDIDATE": "results/candidate.jsonl",
            "INPUT_BASELINE-ARTIFACT": ARTIFACT,
            "INPUT_CONFIG": ".evalbot.yml",
            "INPUT_NAME": "evalbot",
        }
        for key, value in inputs.items():
            env[f"INPUT_{key.upper().replace('_', '-')}"] = value
        # under `pytest --cov` (coverage's patch = subprocess) the run is measured too
        if "COVERAGE_PROCESS_CONFIG" in os.environ:
            env["COVERAGE_PROCESS_CONFIG"] = os.environ["COVERAGE_PROCESS_CONFIG"]
        return env

    def run(
        self,
        event_name: str = "pull_request",
        payload: dict[str, Any] | None = None,
        *,
        extra_env: dict[str, str] | None = None,
        process: bool = False,
        **inputs: str,
    ) -> StepResult:
        """One step of ``evalbot action``: in this process (``evalbot.cli.main`` under the
        step's environment), or as ``python -m evalbot action`` with ``process``, from another
        thread (one process has one environment and one cwd) or for another checkout's code
        (``EVALBOT_UNDER_TEST``)."""
        threaded = threading.current_thread() is not threading.main_thread()
        if process or threaded or CODE != ROOT:
            return self.spawn(event_name, payload, extra_env=extra_env, **inputs).wait()
        if payload is None:
            payload = pull_request_payload(self.pull, before=self.before)
        env = self.env(event_name, payload, **inputs)
        env.update(extra_env or {})
        proc = _in_process(env, self.workspace)
        return StepResult(
            code=proc.returncode,
            stdout=proc.stdout,
            stderr=proc.stderr,
            outputs=parse_output_file(Path(env["GITHUB_OUTPUT"]).read_text(encoding="utf-8")),
            summary=Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8"),
        )

    def spawn(
        self,
        event_name: str = "pull_request",
        payload: dict[str, Any] | None = None,
        *,
        extra_env: dict[str, str] | None = None,
        **inputs: str,
    ) -> Step:
        """Start the step as a process without waiting for it (parallel runs); :meth:`Step.wait`
        ends it."""
        if payload is None:
            payload = pull_request_payload(self.pull, before=self.before)
        env = self.env(event_name, payload, **inputs)
        env.update(extra_env or {})
        proc = subprocess.Popen(
            [sys.executable, "-m", "evalbot", "action"],
            cwd=self.workspace,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        return Step(proc, Path(env["GITHUB_OUTPUT"]), Path(env["GITHUB_STEP_SUMMARY"]))

    def ours(self) -> list[str]:
        return [c.body for c in self.repo.comments_on(self.pull.number) if "evalbot:" in c.body]
