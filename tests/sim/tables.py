"""The simulation tables: printed at the end of the session, and docs/validation.md held to them.

Each table the run printed must stand in docs/validation.md in a block
``<!-- sim table --> **TITLE** ... <!-- /sim table -->`` with the same rows and labels, and every
rate within 0.015 of this run's (the simulations are seeded: on one machine the numbers agree to
the last digit; the slack is for another numpy). A stale or missing table fails the session.
``EVALBOT_SIM_WRITE=1 python -m pytest tests/sim`` writes them instead (a table without a block is
added at the end). Under pytest-xdist each worker hands its tables to the controller, which
collects nothing: tests/conftest.py loads this plugin so that the controller has it too.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from _pytest.terminal import TerminalReporter

from tests.sim._common import MARKDOWN, SCALE, TABLES

DOC = Path(__file__).resolve().parents[2] / "docs" / "validation.md"
BLOCK = re.compile(r"<!-- sim table -->\n\*\*(.+?)\*\*\n\n(.*?)\n<!-- /sim table -->", re.S)
TOLERANCE = 0.015
GATHERED: dict[str, str] = {}
PROBLEMS: list[str] = []


def block(title: str, markdown: str) -> str:
    return f"<!-- sim table -->\n**{title}**\n\n{markdown}\n<!-- /sim table -->"


def differs(quoted: str, ran: str) -> bool:
    """Whether the table in the docs is not this run's: other rows or labels, or a number
    further than the tolerance (integers and labels must be equal)."""
    a, b = (re.split(r"(-?\d+\.\d+)", text) for text in (quoted, ran))
    if len(a) != len(b):
        return True
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if i % 2 == 0 and x != y:
            return True
        if i % 2 == 1 and abs(float(x) - float(y)) > TOLERANCE:
            return True
    return False


def check_or_write(tables: dict[str, str]) -> list[str]:
    """Compare this run's tables with the docs' (or write them): the problems found."""
    text = DOC.read_text(encoding="utf-8")
    quoted = {m.group(1): m.group(2) for m in BLOCK.finditer(text)}
    if os.environ.get("EVALBOT_SIM_WRITE"):
        new = BLOCK.sub(lambda m: block(m.group(1), tables.get(m.group(1), m.group(2))), text)
        extra = [block(title, md) for title, md in tables.items() if title not in quoted]
        DOC.write_text("\n\n".join([new.rstrip("\n"), *extra]) + "\n", encoding="utf-8")
        return []
    return [
        f"{'missing from' if title not in quoted else 'stale in'} docs/validation.md: {title}"
        for title, md in tables.items()
        if title not in quoted or differs(quoted[title], md)
    ]


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput: dict[str, Any] | None = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller checks
        workeroutput["sim_tables"] = json.dumps(MARKDOWN)
        return
    GATHERED.update(MARKDOWN)
    if GATHERED and SCALE == 1 and session.exitstatus == 0:
        PROBLEMS.extend(check_or_write(GATHERED))
        if PROBLEMS:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    GATHERED.update(json.loads(getattr(node, "workeroutput", {}).get("sim_tables", "{}")))


def pytest_terminal_summary(terminalreporter: TerminalReporter) -> None:
    if TABLES:
        terminalreporter.section("simulated false-positive rates and coverage")
        for text in TABLES:
            terminalreporter.write_line(text)
            terminalreporter.write_line("")
    if PROBLEMS:
        terminalreporter.section("docs/validation.md does not show this run's tables", red=True)
        for line in PROBLEMS:
            terminalreporter.write_line(line)
        terminalreporter.write_line("rewrite them: EVALBOT_SIM_WRITE=1 python -m pytest tests/sim")
