"""What each command imports: start-up stays cheap without a timed test.

Each case runs ``evalbot.cli.main`` in a fresh interpreter (a subprocess: imports are
process-wide) and reads ``sys.modules`` afterwards. ``--version`` and ``--help`` load the
standard library and evalbot's shell only; ``compare`` loads no heavy module its output does
not need: no yaml without a config file, no jinja2 for JSON, no PyGithub or
requests outside the action, no ``scipy.stats`` anywhere, and for a JSONL pair no ``zipfile``,
no XML parser and no ``importlib.resources`` (the templates are read as files) beyond what
numpy, msgspec and ``scipy.special`` load themselves.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAIR = REPO / "bench" / "data" / "swebench-verified"

PROBE = """
import io, json, sys
from evalbot.cli import main
out = io.StringIO()
try:
    code = main(sys.argv[1:], out)
except SystemExit as stop:
    code = stop.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

#: Loaded only by the action, or by nothing on these paths.
NEVER = ("github", "requests", "urllib3", "scipy.stats", "evalbot.action", "evalbot.github")


def loaded(*argv: str, cwd: Path) -> tuple[int, set[str]]:
    # not measured for coverage: coverage's own modules are no part of what a command loads
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("COV_CORE_", "COVERAGE_"))
    }
    env["PYTHONPATH"] = str(REPO)
    env.pop("EVALBOT_DEBUG", None)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=env,
    )
    report = json.loads(proc.stdout.splitlines()[-1])
    return int(report["code"] or 0), set(report["modules"])


@functools.cache
def libraries() -> frozenset[str]:
    """What the libraries every comparison needs (numpy, msgspec, scipy.special) load themselves
    (scipy.special brings zipfile and importlib.resources): not evalbot's doing."""
    probe = (
        "import json, sys, numpy, msgspec, scipy.special; print(json.dumps(sorted(sys.modules)))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return frozenset(json.loads(proc.stdout))


def present(modules: set[str], name: str) -> bool:
    return name in modules or any(m.startswith(name + ".") for m in modules)


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["compare", "--help"]])
def test_version_and_help_load_the_standard_library_only(argv: list[str], tmp_path: Path) -> None:
    code, modules = loaded(*argv, cwd=tmp_path)
    assert code == 0
    foreign = {
        m
        for m in modules
        if m.split(".")[0] not in (*sys.stdlib_module_names, "evalbot", "__main__")
        and not m.startswith(("__editable__", "_distutils_hack"))  # an editable install's hook
    }
    assert foreign == set()
    # evalbot's shell only (the CLI and its flags, its errors, the escaping of what it prints,
    # the rate reader, the limits, the documentation links and the plan's vocabularies its
    # flags offer as choices: standard library modules all)
    ours = {m for m in modules if m.split(".")[0] == "evalbot"}
    shell = {"cli", "errors", "limits", "vocabulary"}
    shell |= {"plan", "plan.rates", "report", "report.text", "report.docs"}
    assert ours <= {"evalbot", *(f"evalbot.{name}" for name in shell)}, ours


@pytest.mark.parametrize("fmt", ["json", "text", "markdown"])
def test_compare_loads_only_what_its_output_needs(fmt: str, tmp_path: Path) -> None:
    code, modules = loaded(
        "compare", str(PAIR / "baseline.jsonl"), str(PAIR / "candidate.jsonl"), "--format", fmt,
        cwd=tmp_path,
    )  # fmt: skip
    assert code == 0
    assert {"numpy", "msgspec", "evalbot.plan.policy"} <= modules  # the probe sees real imports
    # nor what only other inputs need: ZIP archives, XML, templates read as resources
    for name in (*NEVER, "yaml", "zipfile", "xml", "importlib.resources"):
        assert not present(modules - libraries(), name), name
    templates = fmt != "json"
    assert present(modules, "jinja2") == templates
    assert ("evalbot.report.render" in modules) == templates


def test_a_config_file_loads_yaml(tmp_path: Path) -> None:
    (tmp_path / ".evalbot.yml").write_text("alpha: 0.05\n", encoding="utf-8")
    code, modules = loaded(
        "compare", str(PAIR / "baseline.jsonl"), str(PAIR / "candidate.jsonl"), "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert code == 0
    assert present(modules, "yaml")
    assert not present(modules, "jinja2")
