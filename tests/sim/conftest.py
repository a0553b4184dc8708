"""Print every simulation table at the end of the session."""

from __future__ import annotations

from _pytest.terminal import TerminalReporter

from tests.sim._common import TABLES


def pytest_terminal_summary(terminalreporter: TerminalReporter) -> None:
    if TABLES:
        terminalreporter.section("simulated false-positive rates and coverage")
        for text in TABLES:
            terminalreporter.write_line(text)
            terminalreporter.write_line("")
