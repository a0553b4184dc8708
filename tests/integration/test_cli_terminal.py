"""What a user sees in a terminal: ``--help`` documents every flag, the report names its
inputs (so swapped arguments show), and Markdown written to a terminal is noted once on stderr
(tested with a real pseudo-terminal)."""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

from evalbot.cli import MARKDOWN_IN_TERMINAL, build_parser
from evalbot.report.docs import GLOSSARY_URL

REPO = Path(__file__).resolve().parents[2]
CLI_DOCS = "".join(
    (REPO / "docs" / name).read_text(encoding="utf-8") for name in ("cli.md", "planning.md")
)
EXAMPLE = REPO / "evalbot" / "data" / "example"


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


@pytest.mark.parametrize("command", ["compare", "plan"])
def test_every_flag_is_documented_in_help(command: str) -> None:
    parser = subcommands()[command]
    undocumented, unnamed = [], []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if not (action.help or "").strip():
            undocumented.append(action.dest)
        takes_value = action.nargs != 0 and action.option_strings
        if takes_value and action.metavar is None and action.choices is None:
            unnamed.append(action.dest)  # the help would say --seed SEED
    assert undocumented == []
    assert unnamed == []
    # a flag with a default says it; every flag is in the docs' command line pages
    for action in parser._actions:
        if action.option_strings and action.default not in (None, False, argparse.SUPPRESS):
            assert "default" in (action.help or ""), action.dest
        for flag in action.option_strings:
            if flag.startswith("--") and flag != "--help":
                assert (
                    f"`{flag}" in CLI_DOCS or f"[{flag}" in CLI_DOCS or f" {flag} " in CLI_DOCS
                ), flag
    text = parser.format_help()
    assert GLOSSARY_URL in text  # the epilog: where the words are explained
    assert "0.05 or 5%" in text


def test_top_level_help_links_the_glossary(run_cli) -> None:  # type: ignore[no-untyped-def]
    proc = run_cli("--help")
    assert proc.returncode == 0
    assert GLOSSARY_URL in proc.stdout
    plan = run_cli("plan", "--help")
    assert "--difference D" in plan.stdout and "--pilot BASELINE CANDIDATE" in plan.stdout
    assert "plan.design_effect; default: 1)" in " ".join(plan.stdout.split())


# ---- the inputs are named ---------------------------------------------------------------------


def test_the_report_names_baseline_and_candidate_so_a_swap_shows(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    main = tmp_path / "runs" / "main.jsonl"
    pr = tmp_path / "runs" / "pr.jsonl"
    main.parent.mkdir()
    main.write_text((EXAMPLE / "baseline.jsonl").read_text())
    # the candidate has 2 items fewer: the counts per side show it
    pr.write_text("".join((EXAMPLE / "candidate.jsonl").read_text().splitlines(True)[:398]))
    right = run_cli("compare", "runs/main.jsonl", "runs/pr.jsonl", "--missing", "drop")
    lines = right.stdout.splitlines()
    assert lines[0].startswith("Improvement") or lines[0].startswith("No significant")
    assert (
        lines[2] == "baseline: runs/main.jsonl (400 items) · candidate: runs/pr.jsonl (398 items)"
    )
    swapped = run_cli("compare", "runs/pr.jsonl", "runs/main.jsonl", "--missing", "drop")
    assert swapped.stdout.splitlines()[2] == (
        "baseline: runs/pr.jsonl (398 items) · candidate: runs/main.jsonl (400 items)"
    )
    markdown = run_cli(
        "compare", "runs/main.jsonl", "runs/pr.jsonl", "--missing", "drop", "--format", "markdown"
    )
    assert (
        r"<sub>baseline **runs\/main\.jsonl** (400 items) · candidate **runs\/pr\.jsonl** "
        "(398 items)</sub>"
    ) in markdown.stdout
    report = json.loads(
        run_cli(
            "compare", "runs/main.jsonl", "runs/pr.jsonl", "--missing", "drop", "--format", "json"
        ).stdout
    )
    assert (report["baseline"]["source"], report["candidate"]["source"]) == (
        "runs/main.jsonl",
        "runs/pr.jsonl",
    )


def test_the_comment_footer_links_the_glossary(run_cli) -> None:  # type: ignore[no-untyped-def]
    proc = run_cli("compare", "--example", "--format", "markdown")
    footer = proc.stdout.rstrip().splitlines()[-1]
    assert footer.endswith(f" · [terms]({GLOSSARY_URL})</sub>")


# ---- markdown in a terminal -------------------------------------------------------------------


def run_in_terminal(*args: str) -> tuple[str, str]:
    """``python -m evalbot ARGS`` with stdout on a pseudo-terminal and stderr on a pipe."""
    controller, terminal = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "evalbot", *args],
        stdout=terminal,
        stderr=subprocess.PIPE,
        env=env,
        cwd=REPO,
    )
    os.close(terminal)
    chunks = []
    while True:
        ready, _, _ = select.select([controller], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal closed: the process ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    _, err = proc.communicate(timeout=60)
    os.close(controller)
    return b"".join(chunks).decode("utf-8", "replace"), err.decode()


@pytest.mark.parametrize(
    "command", [["compare", "--example"], ["plan", "--items", "100", "--discordance", "10%"]]
)
def test_markdown_to_a_terminal_is_noted_once(command: list[str]) -> None:
    out, err = run_in_terminal(*command, "--format", "markdown")
    assert err.splitlines() == [MARKDOWN_IN_TERMINAL]
    assert "### " in out  # still the Markdown that was asked for
    text_out, text_err = run_in_terminal(*command, "--format", "text")
    assert text_err == ""
    assert "###" not in text_out


def test_markdown_to_a_pipe_says_nothing(run_cli) -> None:  # type: ignore[no-untyped-def]
    proc = run_cli("compare", "--example", "--format", "markdown")
    assert proc.returncode == 0
    assert proc.stderr == ""
    assert re.match(r"### ✅ Improvement", proc.stdout)
