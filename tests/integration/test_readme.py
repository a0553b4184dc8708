"""The README and the docs say what evalbot does: their commands and numbers are checked
against real runs."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

import pytest

from tests.integration.test_cli_terminal import run_in_terminal

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = {path.name: path.read_text(encoding="utf-8") for path in (ROOT / "docs").glob("*.md")}
Run = Callable[..., CompletedProcess[str]]


def blocks(language: str) -> list[str]:
    return [
        block
        for text in (README, *DOCS.values())
        for block in re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.S | re.M)
    ]


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


def test_the_first_command_prints_what_a_terminal_shows() -> None:
    """The first set-up command's comparison, run on a terminal, is the text report: no
    Markdown, and no note on stderr telling the reader to use another format."""
    head = README.split("\n## ", 1)[0]
    first = re.search(r"```bash\n(.*?)\n", head, flags=re.S)
    assert first is not None
    argv = shlex.split(first.group(1).rsplit("&&", 1)[1])
    assert argv[0] == ".venv/bin/evalbot"
    out, err = run_in_terminal(*argv[1:])
    assert err == ""
    assert out.startswith("Improvement: +4.2 pp")
    assert "###" not in out


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
    proc = run_cli(*argv[1:], cwd=ROOT)  # paths in the examples are the repository's
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
    section = DOCS["cli.md"].split("## The JSON report", 1)[1]
    shown = json.loads(re.search(r"```json\n(.*?)```", section, flags=re.S).group(1))  # type: ignore[union-attr]
    proc = run_cli("compare", "--example", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    compare_shown(shown, json.loads(proc.stdout), "report")


# ---- the quick start: one command per harness, on real files, each run as written ------------

#: The harnesses the quick start must cover, and the format evalbot must detect in their files.
HARNESSES = {
    "inspect_ai": "inspect",
    "lm-evaluation-harness": "lm-eval",
    "promptfoo": "promptfoo",
    "OpenAI evals": "openai-evals",
    "JUnit XML": "junit",
    "SWE-bench": "swebench",
    "MLflow": "mlflow",
}
VERDICT = re.compile(r"^(Improvement|Regression|No significant difference|Inconclusive): ")


def quick_start() -> dict[str, str]:
    """harness -> the command of its row in docs/formats.md's "Quick start with your harness"."""
    section = DOCS["formats.md"].split("\n## Quick start with your harness\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([^|`]+?) \| [^\n]*\| `(evalbot [^`]+)` \|$", section, re.M)
    return dict(rows)


QUICK_START = quick_start()


def test_the_quick_start_covers_every_harness() -> None:
    assert list(QUICK_START) == list(HARNESSES)


@pytest.mark.parametrize("harness", list(HARNESSES))
def test_quick_start_command_runs_as_written(run_cli: Run, harness: str) -> None:
    from evalbot.formats import detect

    argv = shlex.split(QUICK_START[harness])
    assert argv[:2] == ["evalbot", "compare"]
    baseline, candidate = argv[2:4]
    # real files of that harness, recognised by their structure (no --format-in needed)
    for path in (baseline, candidate):
        assert path.startswith("tests/data/")
        assert detect(path, (ROOT / path).read_bytes()).name == HARNESSES[harness], path
    assert "--format-in" not in argv
    proc = run_cli(*argv[1:], cwd=ROOT)
    assert proc.returncode in (0, 1), proc.stderr
    lines = proc.stdout.splitlines()
    assert VERDICT.match(lines[0]), lines[0]
    # the inputs are named, the baseline first
    assert (
        lines[2].startswith(f"baseline: {baseline} (") and f"candidate: {candidate} (" in lines[2]
    )


def test_quick_start_numbers_in_the_prose(run_cli: Run) -> None:
    """The quick start's words on the SWE-bench and JUnit pairs, against the real output."""
    from fractions import Fraction
    from math import comb

    swe = shlex.split(QUICK_START["SWE-bench"])[1:]
    report = json.loads(run_cli(*swe, "--format", "json", cwd=ROOT).stdout)
    # realdata's pairs/README reference table: 136 / 98 / 32 / 234, exact McNemar p 5.61109e-09
    assert report["table"] == {"both_pass": 136, "fixed": 98, "broken": 32, "both_fail": 234}
    exact = 2 * sum(Fraction(comb(130, i), 2**130) for i in range(33))  # fixed + broken = 130
    assert report["mcnemar"]["pvalue"] == pytest.approx(float(exact), rel=1e-9)
    assert f"{float(exact):.2g}" == "5.6e-09"
    assert "exact McNemar p = 5.6e-9" in DOCS["formats.md"]
    junit = shlex.split(QUICK_START["JUnit XML"])[1:]
    report = json.loads(run_cli(*junit, "--format", "json", cwd=ROOT).stdout)
    assert (report["table"]["fixed"], report["table"]["broken"]) == (11, 0)
    assert "(11 tests\n  fixed)" in DOCS["formats.md"]
