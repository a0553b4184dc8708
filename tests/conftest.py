from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytest_plugins = ["tests.fakegithub.plugin"]


@pytest.fixture
def run_cli(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
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
