"""The README says what evalbot does: its commands and numbers are checked against real runs."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

import pytest

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
Run = Callable[..., CompletedProcess[str]]


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, flags=re.S | re.M)


def test_readme_opens_with_exactly_two_setup_commands() -> None:
    head = README.split("\n## ", 1)[0]
    first = re.search(r"```bash\n(.*?)```", head, flags=re.S)
    assert first is not None
    lines = [line for line in first.group(1).splitlines() if line.strip()]
    assert len(lines) == 2
    example, tests = lines
    assert "pip install ." in example
    assert "evalbot compare --example" in example
    assert "pip install -e '.[test]'" in tests
    assert "pytest" in tests


def shell_examples() -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for every ``$ evalbot ...`` in a text block."""
    found: list[tuple[str, list[str]]] = []
    for block in blocks("text"):
        command: str | None = None
        expected: list[str] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    found.append((command, expected))
                command, expected = line[2:], []
            elif command is not None:
                expected.append(line)
        if command is not None:
            found.append((command, expected))
    return found


EXAMPLES = shell_examples()


def test_the_readme_has_shell_examples() -> None:
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_shell_example_output(run_cli: Run, command: str, expected: list[str]) -> None:
    argv = shlex.split(command)
    assert argv[0] == "evalbot"
    proc = run_cli(*argv[1:])
    assert proc.returncode == 0, proc.stderr
    actual = proc.stdout.splitlines()
    position = 0
    for line in expected:
        if line.strip() in ("", "..."):
            continue
        if line.endswith("..."):
            prefix = line[:-3]
            matches = [i for i, a in enumerate(actual) if i >= position and a.startswith(prefix)]
        else:
            matches = [i for i, a in enumerate(actual) if i >= position and a == line]
        assert matches, f"README line not in the output of `{command}`: {line!r}"
        position = matches[0] + 1


def compare_shown(shown: Any, actual: Any, path: str) -> None:
    """Every key and value the README shows exists in the real report (floats to 4 digits)."""
    if isinstance(shown, dict):
        assert isinstance(actual, dict), path
        for key, value in shown.items():
            assert key in actual, f"{path}.{key} is not in the report"
            compare_shown(value, actual[key], f"{path}.{key}")
    elif isinstance(shown, list):
        assert isinstance(actual, list), path
        assert len(shown) <= len(actual), path
        for i, value in enumerate(shown):
            compare_shown(value, actual[i], f"{path}[{i}]")
    elif isinstance(shown, float) and not isinstance(actual, bool):
        assert isinstance(actual, int | float), path
        assert round(actual, 4) == pytest.approx(shown, abs=1e-12), path
    else:
        assert shown == actual, path


def test_json_example_is_the_real_report(run_cli: Run) -> None:
    section = README.split("### The JSON report", 1)[1]
    shown = json.loads(re.search(r"```json\n(.*?)```", section, flags=re.S).group(1))  # type: ignore[union-attr]
    proc = run_cli("compare", "--example", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    compare_shown(shown, json.loads(proc.stdout), "report")
