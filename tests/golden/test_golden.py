"""The rendered reports, byte for byte, for fixed synthetic comparisons.

A change in wording or layout shows up here as a diff to review; after checking it, rewrite the
files with ``pytest tests/golden --update-golden`` (or ``EVALBOT_UPDATE_GOLDEN=1 pytest``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evalbot.report.render import render_comment, render_summary, render_text
from tests.golden.scenarios import MARKER, SCENARIOS, STATE

HERE = Path(__file__).parent


def check(path: Path, actual: str, update: bool) -> None:
    if update:
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"{path.name} is missing; run pytest tests/golden --update-golden"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"{path.name} differs; review, then run with --update-golden"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_comment(name: str, update_golden: bool) -> None:
    view = SCENARIOS[name]().view()
    actual = render_comment(view, marker=MARKER, state_block=STATE)
    check(HERE / f"{name}.comment.md", actual, update_golden)
    # deterministic: the same input renders the same bytes again
    assert render_comment(SCENARIOS[name]().view(), marker=MARKER, state_block=STATE) == actual


@pytest.mark.parametrize("name", ["improvement", "regression", "repeats"])
def test_text(name: str, update_golden: bool) -> None:
    check(HERE / f"{name}.txt", render_text(SCENARIOS[name]().view()), update_golden)


def test_summary(update_golden: bool) -> None:
    check(
        HERE / "regression.summary.md",
        render_summary(SCENARIOS["regression"]().view()),
        update_golden,
    )
