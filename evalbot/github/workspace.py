"""The runner's files as the action reads them: the event payload and the workspace.

:func:`evalbot.action.run_action` receives a reader of these (its ``files``), as it receives
the GitHub client; :mod:`evalbot.cli` builds this one, the real one, from the runner's
``GITHUB_WORKSPACE`` and ``GITHUB_EVENT_PATH``. A relative spec is read from the workspace, an
absolute one as it is; files are read by :mod:`evalbot.formats.sources`, which names the path
in every message.
"""

from __future__ import annotations

import json
import os
from typing import Any

from evalbot.formats.model import Results
from evalbot.formats.options import ReadOptions
from evalbot.formats.sources import load_results
from evalbot.github.settings import ActionInputError

__all__ = ["LocalWorkspace"]


class LocalWorkspace:
    """The workspace at ``root`` and the event payload at ``event_path`` (``None``: none)."""

    def __init__(self, root: str, event_path: str | None) -> None:
        self.root = root
        self.event_path = event_path

    def __repr__(self) -> str:
        return f"LocalWorkspace(root={self.root!r}, event_path={self.event_path!r})"

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

    def path(self, spec: str) -> str:
        """Where ``spec`` (a path or glob) lies: in the workspace unless it is absolute."""
        return spec if os.path.isabs(spec) else os.path.join(self.root, spec)

    def load_results(self, spec: str, options: ReadOptions) -> Results:
        """Every result file ``spec`` names, parsed and merged."""
        return load_results(self.path(spec), options)
