"""A fake GitHub REST API on 127.0.0.1 for evalbot's end-to-end tests.

In pytest: the ``fake_github`` fixture (``tests/fakegithub/plugin.py``). Standalone (for a
container run with host networking): ``python -m tests.fakegithub --seed seed.json --state-out
state.json`` prints the URL and writes the final state on SIGTERM/SIGINT.
"""

from __future__ import annotations

from .server import READ_ALL, WRITE_ALL, FakeGitHub, LoggedRequest, Reply
from .state import Artifact, CheckRun, Comment, Pull, Repo, Run, Status, Token, Workflow, make_zip

__all__ = [
    "READ_ALL",
    "WRITE_ALL",
    "Artifact",
    "CheckRun",
    "Comment",
    "FakeGitHub",
    "LoggedRequest",
    "Pull",
    "Reply",
    "Repo",
    "Run",
    "Status",
    "Token",
    "Workflow",
    "make_zip",
]
