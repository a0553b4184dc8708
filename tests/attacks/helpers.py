"""Moves an attacker makes in the fake world."""

from __future__ import annotations

import re

from tests.fakegithub import Comment
from tests.integration.action_harness import World

MARKER = "<!-- evalbot:evalbot -->"
BOT = "github-actions[bot]"
VERDICTS = ("improvement", "regression", "no_significant_difference")
RESAMPLES = "bootstrap: {resamples: 1000}\n"


def plan(world: World, text: str) -> str:
    """Put ``text`` as ``.evalbot.yml`` on a new base commit of the pull request."""
    world.base = world.repo.add_commit(
        parents=[world.base], files={".evalbot.yml": text}, branch="main", message="plan"
    )
    world.pull.base_sha = world.base
    return world.base


def push(world: World, *, force: bool = False) -> str:
    """A new head commit on the pull request: a child of the head, or (``force``) of the base,
    as a force push leaves it (the old head is no longer one of the pull request's commits)."""
    parent = world.pull.base_sha if force else world.pull.head_sha
    sha = world.repo.add_commit(
        parents=[parent], files={"model.txt": f"v{len(world.repo.commits)}\n"}, branch="feature"
    )
    world.before = world.pull.head_sha
    world.pull.head_sha = sha
    return sha


def ours(world: World) -> list[Comment]:
    """evalbot's own comments (the Actions token's bot user) with the marker."""
    return [
        c
        for c in world.repo.comments_on(world.pull.number)
        if c.author == BOT and c.author_type == "Bot" and MARKER in c.body
    ]


def strip_state(body: str) -> str:
    """The comment without its hidden state block (what an attacker deletes)."""
    return re.sub(r"<!-- evalbot-state:v1 [A-Za-z0-9+/=]* -->", "", body)


def plain(markdown: str) -> str:
    """Markdown with render.md_escape's backslashes and word joiners taken out."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("\u2060", "")


def latest_check(world: World, sha: str) -> str | None:
    runs = world.repo.check_runs_for(sha)
    return max(runs, key=lambda r: r.id).conclusion if runs else None
