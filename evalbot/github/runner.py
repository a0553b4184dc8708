"""The runner: the action's inputs as :class:`Settings`, the step's side channels
(:class:`ActionsEnv`: outputs, job summary, workflow commands escaped as ``toolkit/core`` does,
messages as one line of plain text), its files (:class:`LocalWorkspace`), its stop signals
(:func:`cancel_on_signals`) and the network variables evalbot ignores.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
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

#: Every output of action.yml; tests keep these, action.yml and the README in step.
OUTPUTS = (
    "verdict",
    "gate",
    "p-value",
    "difference",
    "ci-low",
    "ci-high",
    "fixed",
    "broken",
    "comment-url",
    "conclusion",
)

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
#: When the sticky comment is written (input ``comment``); the check and the job summary are
#: written on every run: ``always``, ``on-change`` (the verdict or the broken items changed) or
#: ``never``.
COMMENT_MODES = ("always", "on-change", "never")


class ActionInputError(UsageError):
    """An action input or a ``GITHUB_*`` variable is missing or malformed."""


@dataclass(frozen=True, kw_only=True)
class Settings:
    token: str = field(default="", repr=False)
    candidate: str | None = None
    candidate_artifact: str | None = None
    baseline: str | None = None
    baseline_artifact: str | None = None
    baseline_workflow: str | None = None
    baseline_search_runs: int = DEFAULT_SEARCH_RUNS
    baseline_search_commits: int = DEFAULT_SEARCH_COMMITS
    config: str = DEFAULT_CONFIG
    name: str = DEFAULT_NAME
    holdout: bool = False  # analyse the sealed holdout (``holdout:`` of the plan) instead
    comment: str = "always"  # one of COMMENT_MODES
    app_id: int | None = None  # the App whose check runs are evalbot's records (``app-id``)
    # the runner's context
    event_name: str = ""
    event_path: str | None = None
    repository: str = ""
    api_url: str = DEFAULT_API_URL
    server_url: str = DEFAULT_SERVER_URL
    sha: str = ""
    ref: str = ""
    workspace: str = "."
    output_path: str | None = None
    summary_path: str | None = None
    run_id: int | None = None
    workflow_ref: str | None = None
    # knobs (EVALBOT_*), mostly so tests can turn every wait off
    retries: int = 3
    backoff: float = 1.0
    timeout: float = 30.0  # seconds to wait for an answer from GitHub
    throttle: bool = True
    max_artifact_bytes: int = MAX_ARTIFACT_BYTES  # EVALBOT_MAX_ARTIFACT_BYTES

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


#: How a given value (stripped, never blank) of an input or a variable named ``name`` is read.
Reader = Callable[[str, str], Any]


def _text(name: str, text: str) -> str:
    return text


def _choice(*choices: str) -> Callable[[str, str], str]:
    """One of a closed set of values, in any case."""

    def read(name: str, text: str) -> str:
        if text.lower() not in choices:
            listed = f"{', '.join(choices[:-1])} or {choices[-1]}"
            raise ActionInputError(f"input `{name}` must be {listed}, got {text!r}")
        return text.lower()

    return read


def _count(maximum: int) -> Reader:
    """A whole number from 1 to ``maximum``."""

    def read(name: str, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ActionInputError(f"input `{name}` must be a whole number, got {text!r}") from None
        if not 1 <= value <= maximum:
            raise ActionInputError(f"input `{name}` must be from 1 to {maximum}, got {value}")
        return value

    return read


def _name(name: str, text: str) -> str:
    if not _NAME.fullmatch(text):
        raise ActionInputError(
            f"input `name` must be 1-64 letters, digits, '.', '_' or '-' (it becomes the "
            f"comment marker and the check's name), got {text!r}"
        )
    return text


def _true(name: str, text: str) -> bool:
    return _choice("true", "false")(name, text) == "true"


def _knob(kind: type[int] | type[float], minimum: int = 0) -> Reader:
    """An ``EVALBOT_*`` number of ``kind``, at least ``minimum``."""

    def read(key: str, text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            what = "an integer" if kind is int else "a number"
            raise ActionInputError(f"{key} must be {what}, got {text!r}") from None
        if not value >= minimum:
            shown = value if kind is int else text
            raise ActionInputError(f"{key} must be >= {minimum}, got {shown}")
        return value

    return read


def _repository(key: str, text: str) -> str:
    if not re.fullmatch(r"[^/\s]+/[^/\s]+", text):
        raise ActionInputError(f"{key} must be 'owner/name', got {text!r}")
    return text


#: Every input of action.yml, with the :class:`Settings` field it sets and its reader; tests
#: keep these, action.yml and the README in step.
INPUTS: dict[str, tuple[str, Reader]] = {
    "github-token": ("token", _text),
    "candidate": ("candidate", _text),
    "candidate-artifact": ("candidate_artifact", _text),
    "baseline": ("baseline", _text),
    "baseline-artifact": ("baseline_artifact", _text),
    "baseline-workflow": ("baseline_workflow", _text),
    "baseline-search-runs": ("baseline_search_runs", _count(MAX_SEARCH_RUNS)),
    "baseline-search-commits": ("baseline_search_commits", _count(MAX_SEARCH_COMMITS)),
    "config": ("config", _text),
    "name": ("name", _name),
    "holdout": ("holdout", _true),
    "comment": ("comment", _choice(*COMMENT_MODES)),
    "app-id": ("app_id", _count(2**53)),
}
#: The runner's variables (and evalbot's knobs, mostly so tests can turn every wait off), with
#: the field each sets and its reader; one unset or blank leaves the field's default.
VARIABLES: dict[str, tuple[str, Reader]] = {
    "GITHUB_TOKEN": ("token", _text),  # when input `github-token` is not given
    "GITHUB_EVENT_NAME": ("event_name", _text),
    "GITHUB_EVENT_PATH": ("event_path", _text),
    "GITHUB_REPOSITORY": ("repository", _repository),
    "GITHUB_API_URL": ("api_url", lambda key, text: text.rstrip("/")),
    "GITHUB_SERVER_URL": ("server_url", lambda key, text: text.rstrip("/")),
    "GITHUB_SHA": ("sha", _text),
    "GITHUB_REF": ("ref", _text),
    "GITHUB_WORKSPACE": ("workspace", _text),
    "GITHUB_OUTPUT": ("output_path", _text),
    "GITHUB_STEP_SUMMARY": ("summary_path", _text),
    "GITHUB_RUN_ID": ("run_id", lambda key, text: int(text) if text.isdigit() else None),
    "GITHUB_WORKFLOW_REF": ("workflow_ref", _text),
    "EVALBOT_GITHUB_RETRIES": ("retries", _knob(int)),
    "EVALBOT_GITHUB_BACKOFF": ("backoff", _knob(float)),
    "EVALBOT_GITHUB_TIMEOUT": ("timeout", lambda key, text: max(1.0, _knob(float)(key, text))),
    "EVALBOT_GITHUB_THROTTLE": ("throttle", lambda key, text: text not in ("0", "false")),
    "EVALBOT_MAX_ARTIFACT_BYTES": ("max_artifact_bytes", _knob(int, 1024)),
}


def parse_settings(environ: Mapping[str, str]) -> Settings:
    """Settings from the runner's environment; an :class:`ActionInputError` says what to fix."""
    given = [(key, environ.get(key, "").strip(), *spec) for key, spec in VARIABLES.items()]
    given += [(name, read_input(environ, name) or "", *spec) for name, spec in INPUTS.items()]
    values = {field: read(key, text) for key, text, field, read in given if text}
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
    """The workspace at ``root`` and the event payload at ``event_path`` (``None``: none)."""

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
