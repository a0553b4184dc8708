"""Shared fixtures: the CLI run in process (fast) or as a real subprocess (one path per entry).

``run_cli`` calls :func:`evalbot.cli.main` in this process, in ``tmp_path`` (or ``cwd``), with
stdout and stderr captured and warnings shown as a separate interpreter shows them (printed,
not raised), and returns what a finished process would: ``returncode``, ``stdout``,
``stderr``. Tests of what the CLI *does* use it; the few tests of how it *starts* (the console
script, ``python -m evalbot``, imports) use ``run_cli_process``, a real subprocess.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytest_plugins = ["tests.fakegithub.plugin", "tests.sim.tables"]

#: The slow tiers, by folder, each a marker (pyproject.toml): ``-m "not sim and not integration"``
#: runs the rest.
TIERS = {"sim": "sim", "integration": "integration", "attacks": "integration"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        parts = item.path.relative_to(REPO).parts
        if len(parts) > 2 and parts[0] == "tests" and parts[1] in TIERS:
            item.add_marker(TIERS[parts[1]])


def run_in_process(argv: list[str], *, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``evalbot ARGV`` through ``evalbot.cli.main`` in this process; a process's results."""
    from evalbot.cli import main

    out, err = io.StringIO(), io.StringIO()
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("default")  # as `python -m evalbot` would: shown, not raised
            try:
                code = main(argv, out)
            except SystemExit as stop:  # --help, --version
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:
        os.chdir(previous)
    return subprocess.CompletedProcess(["evalbot", *argv], code, out.getvalue(), err.getvalue())


@pytest.fixture
def run_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run ``evalbot ARGS`` in process, in ``tmp_path`` (this checkout's code)."""
    monkeypatch.delenv("EVALBOT_DEBUG", raising=False)

    def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return run_in_process(list(args), cwd=cwd or tmp_path)

    return run


@pytest.fixture
def run_cli_process(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run ``python -m evalbot ARGS`` as a subprocess in ``tmp_path`` (this checkout's code)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("EVALBOT_DEBUG", None)

    def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "evalbot", *args],
            cwd=cwd or tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env=env,
        )

    return run
