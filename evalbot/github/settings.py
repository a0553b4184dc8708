"""The action's inputs and the runner's ``GITHUB_*`` variables -> one frozen :class:`Settings`.

Parsed from a given environ mapping (never ``os.environ`` itself: :mod:`evalbot.cli` passes it
in), so tests build settings from plain dicts. The runner sets an input ``github-token`` as
``INPUT_GITHUB-TOKEN``: the name upper-cased, hyphens kept. The token is ``repr=False``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from evalbot.errors import UsageError
from evalbot.limits import MAX_ARTIFACT_BYTES

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

# Every input of action.yml; tests keep this, action.yml and the README in step.
INPUTS = (
    "github-token",
    "candidate",
    "candidate-artifact",
    "baseline",
    "baseline-artifact",
    "baseline-workflow",
    "baseline-search-runs",
    "baseline-search-commits",
    "config",
    "name",
    "holdout",
    "comment",
    "app-id",
)
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
    token: str = field(repr=False)
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
        if not self.workflow_ref:
            return None
        path = self.workflow_ref.split("@", 1)[0]
        return path.rsplit("/", 1)[-1] or None


def read_input(environ: Mapping[str, str], name: str) -> str | None:
    """An input as the runner passes it (``INPUT_GITHUB-TOKEN``); also ``INPUT_GITHUB_TOKEN``.
    Blank means not given."""
    for key in (f"INPUT_{name.upper()}", f"INPUT_{name.upper().replace('-', '_')}"):
        value = environ.get(key)
        if value is not None and value.strip():
            return value.strip()
    return None


def _bool(environ: Mapping[str, str], name: str, default: bool) -> bool:
    """A boolean input: ``true`` or ``false`` (any case), as YAML workflows write them."""
    text = read_input(environ, name)
    if text is None:
        return default
    lowered = text.lower()
    if lowered not in ("true", "false"):
        raise ActionInputError(f"input `{name}` must be true or false, got {text!r}")
    return lowered == "true"


def _choice(environ: Mapping[str, str], name: str, choices: tuple[str, ...]) -> str:
    """An input with a closed set of values (any case); the first is the default."""
    text = read_input(environ, name)
    if text is None:
        return choices[0]
    if text.lower() not in choices:
        listed = f"{', '.join(choices[:-1])} or {choices[-1]}"
        raise ActionInputError(f"input `{name}` must be {listed}, got {text!r}")
    return text.lower()


def _count_input(environ: Mapping[str, str], name: str, default: int, maximum: int) -> int:
    """A whole-number input from 1 to ``maximum``."""
    text = read_input(environ, name)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ActionInputError(f"input `{name}` must be a whole number, got {text!r}") from None
    if not 1 <= value <= maximum:
        raise ActionInputError(f"input `{name}` must be from 1 to {maximum}, got {value}")
    return value


def _int(environ: Mapping[str, str], key: str, default: int, minimum: int) -> int:
    text = environ.get(key, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ActionInputError(f"{key} must be an integer, got {text!r}") from None
    if value < minimum:
        raise ActionInputError(f"{key} must be >= {minimum}, got {value}")
    return value


def _float(environ: Mapping[str, str], key: str, default: float) -> float:
    text = environ.get(key, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ActionInputError(f"{key} must be a number, got {text!r}") from None
    if not value >= 0:
        raise ActionInputError(f"{key} must be >= 0, got {text}")
    return value


def parse_settings(environ: Mapping[str, str]) -> Settings:
    """Settings from the runner's environment; an :class:`ActionInputError` says what to fix."""
    token = read_input(environ, "github-token") or environ.get("GITHUB_TOKEN", "").strip()
    name = read_input(environ, "name") or DEFAULT_NAME
    if not _NAME.fullmatch(name):
        raise ActionInputError(
            f"input `name` must be 1-64 letters, digits, '.', '_' or '-' (it becomes the "
            f"comment marker and the check's name), got {name!r}"
        )
    candidate = read_input(environ, "candidate")
    candidate_artifact = read_input(environ, "candidate-artifact")
    if candidate and candidate_artifact:
        raise ActionInputError(
            "give either input `candidate` (a path in the workspace) or `candidate-artifact` "
            "(an artifact of the triggering run), not both"
        )
    baseline = read_input(environ, "baseline")
    baseline_artifact = read_input(environ, "baseline-artifact")
    if baseline and baseline_artifact:
        raise ActionInputError(
            "give either input `baseline` (a path in the workspace) or `baseline-artifact` "
            "(an artifact name from the base branch), not both"
        )
    repository = environ.get("GITHUB_REPOSITORY", "").strip()
    if repository and not re.fullmatch(r"[^/\s]+/[^/\s]+", repository):
        raise ActionInputError(f"GITHUB_REPOSITORY must be 'owner/name', got {repository!r}")
    return Settings(
        token=token,
        candidate=candidate,
        candidate_artifact=candidate_artifact,
        baseline=baseline,
        baseline_artifact=baseline_artifact,
        baseline_workflow=read_input(environ, "baseline-workflow"),
        baseline_search_runs=_count_input(
            environ, "baseline-search-runs", DEFAULT_SEARCH_RUNS, MAX_SEARCH_RUNS
        ),
        baseline_search_commits=_count_input(
            environ, "baseline-search-commits", DEFAULT_SEARCH_COMMITS, MAX_SEARCH_COMMITS
        ),
        config=read_input(environ, "config") or DEFAULT_CONFIG,
        name=name,
        holdout=_bool(environ, "holdout", False),
        comment=_choice(environ, "comment", COMMENT_MODES),
        app_id=_count_input(environ, "app-id", 0, 2**53) or None,
        event_name=environ.get("GITHUB_EVENT_NAME", "").strip(),
        event_path=environ.get("GITHUB_EVENT_PATH") or None,
        repository=repository,
        api_url=(environ.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
        server_url=(environ.get("GITHUB_SERVER_URL") or DEFAULT_SERVER_URL).rstrip("/"),
        sha=environ.get("GITHUB_SHA", "").strip(),
        ref=environ.get("GITHUB_REF", "").strip(),
        workspace=environ.get("GITHUB_WORKSPACE") or ".",
        output_path=environ.get("GITHUB_OUTPUT") or None,
        summary_path=environ.get("GITHUB_STEP_SUMMARY") or None,
        run_id=int(run) if (run := environ.get("GITHUB_RUN_ID", "").strip()).isdigit() else None,
        workflow_ref=environ.get("GITHUB_WORKFLOW_REF") or None,
        retries=_int(environ, "EVALBOT_GITHUB_RETRIES", 3, 0),
        backoff=_float(environ, "EVALBOT_GITHUB_BACKOFF", 1.0),
        timeout=max(1.0, _float(environ, "EVALBOT_GITHUB_TIMEOUT", 30.0)),
        throttle=environ.get("EVALBOT_GITHUB_THROTTLE", "1").strip() not in ("0", "false"),
        max_artifact_bytes=_int(environ, "EVALBOT_MAX_ARTIFACT_BYTES", MAX_ARTIFACT_BYTES, 1024),
    )
