"""``run_action`` in process with every adapter handed in: the fake GitHub (real HTTP, real
PyGithub), a workspace held in memory and a fixed clock. The workspace and the event file on
disk do not exist, so anything the action read behind its adapters' backs would fail."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from evalbot.action import run_action
from evalbot.formats.model import ReadOptions, Results
from evalbot.formats.sources import merge, parse_file
from evalbot.github.client import GitHubClient
from evalbot.github.runner import ActionsEnv, Settings, parse_settings
from evalbot.plan.ledger import parse_state
from tests.fakegithub import FakeGitHub
from tests.integration.action_harness import World, example, pull_request_payload


class MemoryWorkspace:
    """The runner's files, in memory; records what was read."""

    def __init__(self, event: dict[str, Any], files: dict[str, bytes]) -> None:
        self.event = event
        self.files = files
        self.read: list[str] = []

    def read_event(self) -> dict[str, Any]:
        self.read.append("<event>")
        return self.event

    def load_results(self, spec: str, options: ReadOptions) -> Results:
        self.read.append(spec)
        return merge(parse_file(spec, self.files[spec], options))


def _connect(settings: Settings) -> GitHubClient:
    return GitHubClient(replace(settings, retries=0, backoff=0.0, throttle=False))


def _run(world: World, tmp_path: Path, files: MemoryWorkspace, now: datetime) -> int:
    environ = world.env("pull_request", files.event)
    environ["GITHUB_WORKSPACE"] = str(tmp_path / "no-workspace")
    environ["GITHUB_EVENT_PATH"] = str(tmp_path / "no-workspace" / "event.json")
    settings = parse_settings(environ)
    env = ActionsEnv(settings.output_path, settings.summary_path, io.StringIO())
    return run_action(settings, connect=_connect, env=env, files=files, clock=lambda: now)


def test_the_action_reads_the_runner_only_through_its_adapters(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path)
    world.add_baseline_run()
    files = MemoryWorkspace(
        pull_request_payload(world.pull),
        {"results/candidate.jsonl": example("candidate").encode()},
    )
    first = datetime(2031, 2, 3, 4, 5, 6, tzinfo=UTC)
    assert _run(world, tmp_path, files, first) == 0
    assert files.read == ["<event>", "results/candidate.jsonl"]
    (body,) = world.ours()
    # the look is stamped with the injected clock's time, not the machine's
    assert [look.at for look in parse_state(body).looks] == ["2031-02-03T04:05:06Z"]

    # a new head commit, a day later: a second look, stamped with that run's clock
    world.pull.head_sha = world.repo.add_commit(
        parents=[world.head], files={"model.txt": "v3\n"}, branch="feature", message="v3"
    )
    files.event = pull_request_payload(world.pull)
    assert _run(world, tmp_path, files, first + timedelta(days=1)) == 0
    (body,) = world.ours()
    assert [look.at for look in parse_state(body).looks] == [
        "2031-02-03T04:05:06Z",
        "2031-02-04T04:05:06Z",
    ]
