"""The action's pure and local parts: settings, workflow commands, outputs, the zip reader, the
comment's history and size limit."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path

import pytest

from evalbot.action import compose_comment, read_zip_members
from evalbot.actions_env import ActionsEnv, format_command, parse_output_file
from evalbot.errors import InputError
from evalbot.settings import ActionInputError, parse_settings
from evalbot.state import Look, State, render_state

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
    assert "ghs_secret" not in repr(s)


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
            "input `name` must be 1-64 letters, digits, '.', '_' or '-' (it becomes the comment "
            "marker and the check's name), got 'x -->'",
        ),
        ({"GITHUB_REPOSITORY": "nope"}, "GITHUB_REPOSITORY must be 'owner/name', got 'nope'"),
        ({"EVALBOT_GITHUB_RETRIES": "x"}, "EVALBOT_GITHUB_RETRIES must be an integer, got 'x'"),
    ],
)
def test_settings_messages(env: dict[str, str], message: str) -> None:
    with pytest.raises(ActionInputError) as info:
        parse_settings(env)
    assert str(info.value) == message


# ---- workflow commands and outputs ----


def test_workflow_commands_are_escaped() -> None:
    assert format_command("error", "100% bad\r\nnext::x", {"title": "a: b, c"}) == (
        "::error title=a%3A b%2C c::100%25 bad%0D%0Anext::x"
    )
    assert format_command("warning", "plain") == "::warning::plain"


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


# ---- the zip reader ----


def zip_of(*members: tuple[zipfile.ZipInfo | str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in members:
            archive.writestr(info, data)
    return buffer.getvalue()


def symlink(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def test_zip_members_are_read_in_memory_sorted() -> None:
    data = zip_of(("b/2.jsonl", b"2"), ("a.jsonl", b"1"), ("dir/", b""))
    assert read_zip_members(data, "art", max_total=100) == [("a.jsonl", b"1"), ("b/2.jsonl", b"2")]


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ((("../x.jsonl", b"1"),), "art: member '../x.jsonl' has an unsafe path; refusing"),
        ((("/etc/x", b"1"),), "art: member '/etc/x' has an unsafe path; refusing"),
        ((("C:/x", b"1"),), "art: member 'C:/x' has an unsafe path; refusing"),
        (
            ((symlink("link.jsonl"), b"/etc/passwd"),),
            "art: member 'link.jsonl' is a symbolic link; refusing",
        ),
        ((("big.jsonl", b"0" * 1000),), "art: unpacks to more than 100 bytes; refusing"),
        ((("a", b"0" * 60), ("b", b"0" * 60)), "art: unpacks to more than 100 bytes; refusing"),
    ],
)
def test_hostile_zips_are_refused(
    members: tuple[tuple[zipfile.ZipInfo | str, bytes], ...], message: str
) -> None:
    with pytest.raises(InputError) as info:
        read_zip_members(zip_of(*members), "art", max_total=100)
    assert str(info.value) == message


def test_a_lying_size_header_is_caught_while_reading() -> None:
    data = bytearray(zip_of(("bomb.jsonl", b"0" * 5000)))
    # shrink the declared uncompressed size in the central directory (offset 24 of the entry)
    central = data.rfind(b"PK\x01\x02")
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    with pytest.raises(InputError, match=r"bomb\.jsonl|more than 100 bytes"):
        read_zip_members(bytes(data), "art", max_total=100)


def test_not_a_zip() -> None:
    with pytest.raises(InputError, match=r"^art: not a valid zip archive$"):
        read_zip_members(b"nope", "art", max_total=100)


# ---- the comment ----


def test_compose_fits_the_limit_and_keeps_marker_notes_and_state() -> None:
    def look(sha: str, outcome: str) -> Look:
        return Look(
            head_sha=sha * 40, items=4, fingerprint="f" * 64, pvalue=0.03, outcome=outcome, at="t"
        )

    looks = [look("a", "regression"), look("b", "improvement")]
    state = render_state(State(looks=tuple(looks)))
    body = compose_comment(
        marker="<!-- evalbot:e -->",
        title="evalbot",
        body="x" * 100_000,
        notes=["Baseline: somewhere."],
        earlier=looks[:-1],
        state_block=state,
        max_chars=65_536,
    )
    assert len(body) <= 65_536
    assert body.startswith("<!-- evalbot:e -->\n## evalbot\n")
    assert "shortened" in body
    assert "Baseline: somewhere." in body
    assert "Earlier looks (1)" in body
    assert "| 1 | `aaaaaaa` | ❌ Regression | 0.030 | t |" in body
    assert body.rstrip().endswith(state)
