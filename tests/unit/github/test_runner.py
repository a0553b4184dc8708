"""The runner (evalbot.github.runner): settings from its environment, workflow commands and
outputs, and its files as the action reads them (the event payload, and result and id files
relative to the workspace; exact messages for a bad event file)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from evalbot.errors import InputError
from evalbot.formats.model import ReadOptions
from evalbot.github.runner import (
    ActionInputError,
    ActionsEnv,
    LocalWorkspace,
    format_command,
    parse_settings,
)
from tests.integration.action_harness import parse_output_file


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


# ---- settings ----


def test_settings_read_inputs_as_the_runner_names_them() -> None:
    s = parse_settings(
        {
            "INPUT_GITHUB-TOKEN": "ghs_secret",
            "INPUT_BASELINE-ARTIFACT": " evals ",
            "INPUT_CANDIDATE": "out/*.jsonl",
            "INPUT_NAME": "",
            "GITHUB_REPOSITORY": "o/r",
            "GITHUB_API_URL": "https://ghe.example.com/api/v3/",
            "GITHUB_RUN_ID": "12",
            "GITHUB_WORKFLOW_REF": "o/r/.github/workflows/evals.yml@refs/heads/main",
        }
    )
    assert s.token == "ghs_secret"
    assert s.baseline_artifact == "evals"
    assert s.name == "evalbot"
    assert s.marker == "<!-- evalbot:evalbot -->"
    assert s.api_url == "https://ghe.example.com/api/v3"
    assert s.workflow_file == "evals.yml"
    assert s.run_url == "https://github.com/o/r/actions/runs/12"
    assert s.holdout is False
    assert s.timeout == 30.0
    assert "ghs_secret" not in repr(s)
    assert parse_settings({"EVALBOT_GITHUB_TIMEOUT": "2.5"}).timeout == 2.5


@pytest.mark.parametrize(("text", "expected"), [("true", True), (" TRUE ", True), ("false", False)])
def test_holdout_input(text: str, expected: bool) -> None:
    assert parse_settings({"INPUT_HOLDOUT": text}).holdout is expected


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"INPUT_CANDIDATE": "a", "INPUT_CANDIDATE-ARTIFACT": "b"},
            "give either input `candidate` (a path in the workspace) or `candidate-artifact` "
            "(an artifact of the triggering run), not both",
        ),
        (
            {"INPUT_BASELINE": "a", "INPUT_BASELINE-ARTIFACT": "b"},
            "give either input `baseline` (a path in the workspace) or `baseline-artifact` "
            "(an artifact name from the base branch), not both",
        ),
        (
            {"INPUT_NAME": "x -->"},
            "input `name` must be 1-64 letters, digits, '.', '_' or '-', got 'x -->'",
        ),
        ({"GITHUB_REPOSITORY": "nope"}, "GITHUB_REPOSITORY must be 'owner/name', got 'nope'"),
        ({"INPUT_HOLDOUT": "yes"}, "input `holdout` must be true or false, got 'yes'"),
        ({"EVALBOT_GITHUB_RETRIES": "x"}, "EVALBOT_GITHUB_RETRIES must be an integer, got 'x'"),
        ({"INPUT_APP-ID": "1.5"}, "input `app-id` must be an integer, got '1.5'"),
        (
            {"INPUT_BASELINE-SEARCH-RUNS": "0"},
            "input `baseline-search-runs` must be from 1 to 1000, got '0'",
        ),
        (
            {"EVALBOT_MAX_ARTIFACT_BYTES": "10"},
            "EVALBOT_MAX_ARTIFACT_BYTES must be >= 1024, got '10'",
        ),
        ({"EVALBOT_GITHUB_BACKOFF": "fast"}, "EVALBOT_GITHUB_BACKOFF must be a number, got 'fast'"),
    ],
)
def test_settings_messages(env: dict[str, str], message: str) -> None:
    with pytest.raises(ActionInputError) as info:
        parse_settings(env)
    assert str(info.value) == message


# ---- workflow commands and outputs ----


def test_workflow_commands_are_escaped() -> None:
    # an annotation is one line of plain text: CR and LF (control characters) are shown as "?"
    assert format_command("error", "100% bad\r\nnext::x", {"title": "a: b, c"}) == (
        "::error title=a%3A b%2C c::100%25 bad??next::x"
    )
    assert format_command("warning", "plain") == "::warning::plain"
    # a value to mask reaches the runner exactly: escaped by the runner's rules, never changed
    assert format_command("add-mask", "a%b\r\nc") == "::add-mask::a%25b%0D%0Ac"


def test_outputs_use_a_delimiter_and_round_trip(tmp_path: Path) -> None:
    out, summary = tmp_path / "out", tmp_path / "summary"
    stream = io.StringIO()
    env = ActionsEnv(str(out), str(summary), stream)
    env.set_output("verdict", "improvement")
    env.set_output("comment-url", "line1\nverdict<<EOF\nline3")
    env.add_summary("# hi")
    env.mask("s3cret")
    text = out.read_text()
    assert "ghadelimiter_" in text
    assert parse_output_file(text) == {
        "verdict": "improvement",
        "comment-url": "line1\nverdict<<EOF\nline3",
    }
    assert summary.read_text() == "# hi\n"
    assert stream.getvalue() == "::add-mask::s3cret\n"


def test_without_runner_files_nothing_is_written() -> None:
    env = ActionsEnv(None, None, io.StringIO())
    env.set_output("gate", "pass")
    env.add_summary("x")
    assert env.outputs == {"gate": "pass"}
