"""The runner's files as the action reads them (evalbot.github.runner): the event payload, and
result and id files relative to the workspace; exact messages for a bad event file."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalbot.errors import InputError
from evalbot.formats.options import ReadOptions
from evalbot.github.runner import ActionInputError, LocalWorkspace


def test_the_event_payload_is_read_from_its_file(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text('{"action": "opened", "number": 7}', encoding="utf-8")
    assert LocalWorkspace(str(tmp_path), str(event)).read_event() == {
        "action": "opened",
        "number": 7,
    }
    # no event file (a local run), or a payload that is not an object: no payload
    assert LocalWorkspace(str(tmp_path), None).read_event() == {}
    event.write_text("[1, 2]", encoding="utf-8")
    assert LocalWorkspace(str(tmp_path), str(event)).read_event() == {}


def test_a_missing_or_broken_event_file_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "gone.json"
    with pytest.raises(ActionInputError) as caught:
        LocalWorkspace(str(tmp_path), str(missing)).read_event()
    assert str(caught.value) == f"GITHUB_EVENT_PATH: {missing}: no such file"
    broken = tmp_path / "event.json"
    broken.write_text('{"action": ', encoding="utf-8")
    with pytest.raises(ActionInputError, match=r"^GITHUB_EVENT_PATH: .*event\.json: not readable"):
        LocalWorkspace(str(tmp_path), str(broken)).read_event()


def test_files_are_read_relative_to_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "run.jsonl").write_text(
        '{"id": "a", "passed": true}\n{"id": "b", "passed": false}\n', encoding="utf-8"
    )
    files = LocalWorkspace(str(tmp_path), None)
    assert files.load_results("results/*.jsonl", ReadOptions()).ids == ["a", "b"]
    # an absolute path is read as it is
    absolute = str(tmp_path / "results" / "run.jsonl")
    assert files.load_results(absolute, ReadOptions()).ids == ["a", "b"]
    # messages name the path read
    with pytest.raises(InputError) as caught:
        files.load_results("results/other.jsonl", ReadOptions())
    assert str(caught.value) == f"{tmp_path}/results/other.jsonl: no such file or directory"
