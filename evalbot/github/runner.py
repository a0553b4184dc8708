"""The runner's side channels: ``$GITHUB_OUTPUT``, ``$GITHUB_STEP_SUMMARY`` and workflow commands.

Outputs use the multiline-safe ``name<<DELIMITER`` syntax with a random delimiter (checked not to
occur in the value). Workflow commands (``::error::``, ``::warning::``, ``::add-mask::``) escape
``%``, ``\\r`` and ``\\n`` in their data, and also ``:`` and ``,`` in their properties, as the
runner's ``toolkit/core`` does, so a message cannot end the command early or inject another.
An annotation's message and title, and every log line, are one line of plain text
(:func:`evalbot.report.text.plain`): their control characters (newlines, terminal escapes) are shown
as ``?``, so no text, quoted from input or not, can recolour the log, start a line of its own
or issue a workflow command. :func:`cancel_on_signals` turns the runner's stop signals (a
cancelled job) into :class:`~evalbot.errors.Cancelled`.
"""

from __future__ import annotations

import contextlib
import secrets
import signal
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TextIO

from evalbot.errors import Cancelled
from evalbot.report.text import plain

__all__ = ["ActionsEnv", "cancel_on_signals", "escape_data", "escape_property", "format_command"]


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_command(command: str, message: str, properties: Mapping[str, str] | None = None) -> str:
    """One workflow command. Its message and properties are plain one-line text, except the
    value of ``add-mask``, which must reach the runner exactly (escaped, as always)."""
    clean = (lambda text: text) if command == "add-mask" else plain
    props = ",".join(
        f"{key}={escape_property(clean(value))}"
        for key, value in (properties or {}).items()
        if value
    )
    return f"::{command}{' ' + props if props else ''}::{escape_data(clean(message))}"


class ActionsEnv:
    """Writes outputs, the job summary and workflow commands for one step.

    ``output_path``/``summary_path`` are ``$GITHUB_OUTPUT``/``$GITHUB_STEP_SUMMARY``; when one is
    unset (a local run) that channel is skipped. Commands go to ``stream`` (stdout by default).
    """

    def __init__(
        self,
        output_path: str | None,
        summary_path: str | None,
        stream: TextIO | None = None,
    ) -> None:
        self._output_path = output_path
        self._summary_path = summary_path
        self._stream = stream if stream is not None else sys.stdout
        self.outputs: dict[str, str] = {}

    def command(self, command: str, message: str, **properties: str) -> None:
        self._stream.write(format_command(command, message, properties) + "\n")
        self._stream.flush()

    def mask(self, secret: str) -> None:
        if secret:
            self.command("add-mask", secret)

    def error(self, message: str, *, title: str = "") -> None:
        self.command("error", message, title=title)

    def warning(self, message: str, *, title: str = "") -> None:
        self.command("warning", message, title=title)

    def notice(self, message: str, *, title: str = "") -> None:
        self.command("notice", message, title=title)

    def info(self, message: str) -> None:
        """One line of the log, plain text (a line starting ``::`` would be a command: every
        caller starts with ``evalbot:``)."""
        self._stream.write(plain(message) + "\n")
        self._stream.flush()

    def set_output(self, name: str, value: str) -> None:
        self.outputs[name] = value
        if not self._output_path:
            return
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        while delimiter in value or delimiter in name:  # pragma: no cover - 2**-128
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        with Path(self._output_path).open("a", encoding="utf-8") as out:
            out.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")

    def add_summary(self, markdown: str) -> None:
        if not self._summary_path:
            return
        with Path(self._summary_path).open("a", encoding="utf-8") as out:
            out.write(markdown if markdown.endswith("\n") else markdown + "\n")


def parse_output_file(text: str) -> dict[str, str]:
    """Read back a ``$GITHUB_OUTPUT`` file (both ``k=v`` and ``k<<DELIM`` forms), as the runner
    does. For tests and the container check."""
    result: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body: list[str] = []
            i += 1
            while i < len(lines) and lines[i] != delimiter:
                body.append(lines[i])
                i += 1
            if i >= len(lines):
                raise ValueError(f"output {name!r}: delimiter {delimiter!r} never closes")
            result[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            result[name] = value
        i += 1
    return result


_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@contextlib.contextmanager
def cancel_on_signals() -> Iterator[None]:
    """SIGTERM or SIGINT (a cancelled job, a newer run of its concurrency group) raises
    :class:`Cancelled` once; later ones are ignored while the run completes its check (the
    runner sends SIGKILL in the end). The previous handlers come back afterwards."""

    def stop(signum: int, frame: object) -> None:
        for number in _STOP_SIGNALS:
            signal.signal(number, signal.SIG_IGN)
        raise Cancelled(signum)

    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers (the action runs there)
        return
    previous = {number: signal.signal(number, stop) for number in _STOP_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
