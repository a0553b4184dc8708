"""The runner: the action's inputs as :class:`Settings`, the step's side channels
(:class:`ActionsEnv`: outputs, job summary, workflow commands escaped as ``toolkit/core`` does,
messages as one line of plain text), its files (:class:`LocalWorkspace`), its stop signals
(:func:`cancel_on_signals`) and the network variables evalbot ignores.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import secrets
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TextIO

from evalbot.errors import Cancelled, UsageError
from evalbot.formats.model import ReadOptions, Results
from evalbot.formats.sources import load_results
from evalbot.limits import MAX_ARTIFACT_BYTES
from evalbot.report.text import plain

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"
DEFAULT_CONFIG = ".evalbot.yml"
DEFAULT_NAME = "evalbot"
#: How far back the baseline search looks: successful runs listed, commits compared (the
#: defaults of inputs ``baseline-search-runs`` and ``baseline-search-commits``), and their bounds.
DEFAULT_SEARCH_RUNS = 30
DEFAULT_SEARCH_COMMITS = 10
MAX_SEARCH_RUNS = 1000
MAX_SEARCH_COMMITS = 200

#: When the sticky comment is written (input ``comment``); the check and the job summary are
#: written on every run: ``always``, ``on-change`` (the verdict or the broken items changed) or
#: ``never``.
COMMENT_MODES = ("always", "on-change", "never")


class ActionInputError(UsageError):
    """An action input or a ``GITHUB_*`` variable is missing or malformed."""


#: How a given value (stripped, never blank) of an input or a variable is read; a
#: ``ValueError`` says what it must be (:func:`parse_settings` names the key and the value).
Reader = Callable[[str], Any]


def _choice(*choices: str) -> Callable[[str], str]:
    """One of a closed set of values, in any case."""

    def read(text: str) -> str:
        if text.lower() not in choices:
            raise ValueError(f"must be {', '.join(choices[:-1])} or {choices[-1]}")
        return text.lower()

    return read


def _number(kind: type[int] | type[float], minimum: int, maximum: int | None = None) -> Reader:
    """A number of ``kind`` from ``minimum`` (to ``maximum``)."""

    def read(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise ValueError("must be an integer" if kind is int else "must be a number") from None
        if not minimum <= value <= (maximum or math.inf):
            raise ValueError(
                f"must be from {minimum} to {maximum}" if maximum else f"must be >= {minimum}"
            )
        return value

    return read


def _match(pattern: str, what: str) -> Reader:
    """A text that ``pattern`` matches whole."""

    def read(text: str) -> str:
        if not re.fullmatch(pattern, text):
            raise ValueError(f"must be {what}")
        return text

    return read


def _url(text: str) -> str:
    return text.rstrip("/")


def _true(text: str) -> bool:
    return _choice("true", "false")(text) == "true"


def _from(*keys: str, default: Any = None, read: Reader = str, repr: bool = True) -> Any:
    """A setting given by the first of ``keys`` set and not blank (an input of action.yml, in
    lower case, or a variable of the runner's), read by ``read``; else ``default``."""
    return field(default=default, repr=repr, metadata={"keys": keys, "read": read})


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Every input of action.yml, in its order (a test keeps action.yml and the docs in step),
    then the runner's variables and evalbot's knobs
    (``EVALBOT_*``, mostly so tests can turn every wait off): each field with the keys it is
    read from (:func:`parse_settings`) and its reader."""

    token: str = _from("github-token", "GITHUB_TOKEN", default="", repr=False)
    candidate: str | None = _from("candidate")
    candidate_artifact: str | None = _from("candidate-artifact")
    baseline: str | None = _from("baseline")
    baseline_artifact: str | None = _from("baseline-artifact")
    baseline_workflow: str | None = _from("baseline-workflow")
    baseline_search_runs: int = _from(
        "baseline-search-runs", default=DEFAULT_SEARCH_RUNS, read=_number(int, 1, MAX_SEARCH_RUNS)
    )
    baseline_search_commits: int = _from(
        "baseline-search-commits",
        default=DEFAULT_SEARCH_COMMITS,
        read=_number(int, 1, MAX_SEARCH_COMMITS),
    )
    config: str = _from("config", default=DEFAULT_CONFIG)
    # it becomes the comment marker and the check's name
    name: str = _from(
        "name",
        default=DEFAULT_NAME,
        read=_match(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", "1-64 letters, digits, '.', '_' or '-'"),
    )
    # analyse the sealed holdout (``holdout:`` of the plan) instead
    holdout: bool = _from("holdout", default=False, read=_true)
    comment: str = _from("comment", default="always", read=_choice(*COMMENT_MODES))
    # the App whose check runs are evalbot's records
    app_id: int | None = _from("app-id", read=_number(int, 1, 2**53))
    # the runner's context
    event_name: str = _from("GITHUB_EVENT_NAME", default="")
    event_path: str | None = _from("GITHUB_EVENT_PATH")
    repository: str = _from(
        "GITHUB_REPOSITORY", default="", read=_match(r"[^/\s]+/[^/\s]+", "'owner/name'")
    )
    api_url: str = _from("GITHUB_API_URL", default=DEFAULT_API_URL, read=_url)
    server_url: str = _from("GITHUB_SERVER_URL", default=DEFAULT_SERVER_URL, read=_url)
    sha: str = _from("GITHUB_SHA", default="")
    ref: str = _from("GITHUB_REF", default="")
    workspace: str = _from("GITHUB_WORKSPACE", default=".")
    output_path: str | None = _from("GITHUB_OUTPUT")
    summary_path: str | None = _from("GITHUB_STEP_SUMMARY")
    run_id: int | None = _from(
        "GITHUB_RUN_ID", read=lambda text: int(text) if text.isdigit() else None
    )
    workflow_ref: str | None = _from("GITHUB_WORKFLOW_REF")
    retries: int = _from("EVALBOT_GITHUB_RETRIES", default=3, read=_number(int, 0))
    backoff: float = _from("EVALBOT_GITHUB_BACKOFF", default=1.0, read=_number(float, 0))
    # seconds to wait for an answer from GitHub
    timeout: float = _from(
        "EVALBOT_GITHUB_TIMEOUT",
        default=30.0,
        read=lambda text: max(1.0, _number(float, 0)(text)),
    )
    throttle: bool = _from(
        "EVALBOT_GITHUB_THROTTLE", default=True, read=lambda text: text not in ("0", "false")
    )
    max_artifact_bytes: int = _from(
        "EVALBOT_MAX_ARTIFACT_BYTES", default=MAX_ARTIFACT_BYTES, read=_number(int, 1024)
    )

    @property
    def marker(self) -> str:
        """The hidden HTML marker of this comparison's sticky comment."""
        return f"<!-- evalbot:{self.name} -->"

    @property
    def run_url(self) -> str | None:
        if self.run_id is None or not self.repository:
            return None
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"

    @property
    def workflow_file(self) -> str | None:
        """The running workflow's file name, from ``GITHUB_WORKFLOW_REF``
        (``owner/repo/.github/workflows/evals.yml@refs/heads/main`` -> ``evals.yml``)."""
        path = (self.workflow_ref or "").split("@", 1)[0]
        return path.rsplit("/", 1)[-1] or None


def read_input(environ: Mapping[str, str], name: str) -> str | None:
    """An input as the runner passes it (``INPUT_GITHUB-TOKEN``); also ``INPUT_GITHUB_TOKEN``.
    Blank means not given."""
    for key in (f"INPUT_{name.upper()}", f"INPUT_{name.upper().replace('-', '_')}"):
        value = environ.get(key)
        if value is not None and value.strip():
            return value.strip()
    return None


def parse_settings(environ: Mapping[str, str]) -> Settings:
    """Settings from the runner's environment; an :class:`ActionInputError` says what to fix.
    A variable or input unset or blank leaves the field's default."""
    values: dict[str, Any] = {}
    for spec in fields(Settings):
        for key in spec.metadata["keys"]:
            text = read_input(environ, key) if key.islower() else environ.get(key, "").strip()
            if not text:
                continue
            try:
                values[spec.name] = spec.metadata["read"](text)
            except ValueError as error:
                shown = f"input `{key}`" if key.islower() else key
                raise ActionInputError(f"{shown} {error}, got {text!r}") from None
            break
    for one, artifact in (
        ("candidate", "of the triggering run"),
        ("baseline", "name from the base branch"),
    ):
        if one in values and f"{one}_artifact" in values:
            raise ActionInputError(
                f"give either input `{one}` (a path in the workspace) or `{one}-artifact` (an "
                f"artifact {artifact}), not both"
            )
    return Settings(**values)


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def format_command(command: str, message: str, properties: Mapping[str, str] | None = None) -> str:
    """One workflow command. Its message and properties are plain one-line text, except the
    value of ``add-mask``, which must reach the runner exactly (escaped, as always)."""
    clean = (lambda text: text) if command == "add-mask" else plain
    props = ",".join(
        f"{key}={escape_data(clean(value)).replace(':', '%3A').replace(',', '%2C')}"
        for key, value in (properties or {}).items()
        if value
    )
    return f"::{command}{' ' + props if props else ''}::{escape_data(clean(message))}"


@dataclass
class ActionsEnv:
    """Writes outputs, the job summary and workflow commands for one step.

    ``output_path``/``summary_path`` are ``$GITHUB_OUTPUT``/``$GITHUB_STEP_SUMMARY``; when one is
    unset (a local run) that channel is skipped. Commands go to ``stream`` (stdout by default).
    """

    output_path: str | None
    summary_path: str | None
    stream: TextIO = field(default_factory=lambda: sys.stdout)
    outputs: dict[str, str] = field(default_factory=dict, init=False)

    def command(self, command: str, message: str, **properties: str) -> None:
        self.stream.write(format_command(command, message, properties) + "\n")
        self.stream.flush()

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
        self.stream.write(plain(message) + "\n")
        self.stream.flush()

    def set_output(self, name: str, value: str) -> None:
        self.outputs[name] = value
        if not self.output_path:
            return
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        while delimiter in value or delimiter in name:  # pragma: no cover - 2**-128
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        with Path(self.output_path).open("a", encoding="utf-8") as out:
            out.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")

    def add_summary(self, markdown: str) -> None:
        if not self.summary_path:
            return
        with Path(self.summary_path).open("a", encoding="utf-8") as out:
            out.write(markdown if markdown.endswith("\n") else markdown + "\n")


#: Variables requests reads when a session trusts the environment, besides ``*_proxy``.
_NETWORK_VARIABLES = frozenset({"REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NETRC"})


def drop_network_environment(environ: MutableMapping[str, str]) -> list[str]:
    """Take the variables that would route or verify evalbot's requests out of ``environ``
    (every ``*_proxy`` in any case, ``REQUESTS_CA_BUNDLE``, ``CURL_CA_BUNDLE``, ``NETRC``): a
    step before evalbot's can set them through ``$GITHUB_ENV``, and a proxy sees the token.
    evalbot's own session has ``trust_env = False``; PyGithub's sessions trust the environment
    and cannot be told otherwise. Returns the names taken out."""
    names = [
        name
        for name in environ
        if name.lower().endswith("_proxy") or name.upper() in _NETWORK_VARIABLES
    ]
    for name in names:
        del environ[name]
    return sorted(names)


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


@dataclass(frozen=True)
class LocalWorkspace:
    """What the action reads on the runner: the event payload at ``event_path`` (``None``:
    none), and result files relative to the workspace at ``root`` (the files the plan names,
    ``all_ids`` among them, are read with the plan at its commit, never from here)."""

    root: str
    event_path: str | None

    def read_event(self) -> dict[str, Any]:
        """The event's payload (``{}`` without an event file, or for one that is not an object)."""
        path = self.event_path
        if not path:
            return {}
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
        except FileNotFoundError:
            raise ActionInputError(f"GITHUB_EVENT_PATH: {path}: no such file") from None
        except (OSError, ValueError) as error:
            raise ActionInputError(
                f"GITHUB_EVENT_PATH: {path}: not readable JSON ({error})"
            ) from None
        return data if isinstance(data, dict) else {}

    def load_results(self, spec: str, options: ReadOptions) -> Results:
        """Every result file ``spec`` (a path or glob) names, parsed and merged: in the
        workspace unless it is absolute."""
        return load_results(os.path.join(self.root, spec), options)
