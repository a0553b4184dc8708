"""``pytest tests/golden --update-golden`` (or ``EVALBOT_UPDATE_GOLDEN=1``) rewrites the goldens."""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/*.md and *.txt from the current output",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    option = bool(request.config.getoption("--update-golden", default=False))
    return option or os.environ.get("EVALBOT_UPDATE_GOLDEN") == "1"
