"""Moves an attacker makes in the fake world."""

from __future__ import annotations

import json
import re

from evalbot.report.docs import DOCS_URL, PROJECT_URL
from tests.fakegithub import Comment, Run
from tests.inert import assert_inert, assert_own_commands, assert_plain_lines
from tests.integration.action_harness import (
    REPO_NAME,
    StepResult,
    World,
    example,
    workflow_run_payload,
)

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
    return re.sub(r"<!-- evalbot-state:v[12] [A-Za-z0-9+/=]* -->", "", body)


def plain(markdown: str) -> str:
    """Markdown with text.escape's backslashes and word joiners taken out."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("\u2060", "")


def latest_check(world: World, sha: str) -> str | None:
    runs = world.repo.check_runs_for(sha)
    return max(runs, key=lambda r: r.id).conclusion if runs else None


def required(world: World, sha: str, name: str = "evalbot", app_id: int = 15368) -> str | None:
    """What a check required for the default branch reads on ``sha``: the conclusion of the
    newest check run called exactly ``name`` by the App ``app_id`` (``None``: none yet, the
    required check waits and the merge is blocked)."""
    runs = [r for r in world.repo.check_runs_for(sha) if r.name == name and r.app_id == app_id]
    return max(runs, key=lambda r: r.id).conclusion if runs else None


def regression() -> str:
    """The example baseline with 120 of its 280 passing items broken: a known -30 pp."""
    rows = [json.loads(line) for line in example("baseline").splitlines() if line.strip()]
    broken = 0
    for row in rows:
        if row["passed"] and broken < 120:
            row["passed"] = False
            broken += 1
    return "".join(json.dumps(row) + "\n" for row in rows)


CANDIDATE = "candidate-results"


def eval_run(world: World, *, candidate: str | None = None, conclusion: str = "success") -> Run:
    """The unprivileged ``pull_request`` run of the eval on the pull request's head (the fork's
    code), uploading the candidate's results."""
    run = world.repo.add_run(
        world.workflow,
        head_sha=world.pull.head_sha,
        head_branch=world.pull.head_ref,
        event="pull_request",
        conclusion=conclusion,
        head_repo=world.pull.head_repo,
    )
    if conclusion == "success":
        files = {"candidate.jsonl": candidate or example("candidate")}
        world.repo.add_artifact(run, CANDIDATE, files=files)
    return run


def evalbot_after(world: World, run: Run, **inputs: str) -> StepResult:
    """The privileged ``workflow_run`` job of the fork-safe setup after ``run``: GitHub lists no
    pull request in the payload of a fork's run."""
    workflow = world.repo.workflows[run.workflow_id]
    fork = world.pull.head_repo != REPO_NAME
    payload = workflow_run_payload(
        run, workflow, pulls=[] if fork else [world.pull], head_repo=world.pull.head_repo
    )
    return world.run("workflow_run", payload, candidate="", candidate_artifact=CANDIDATE, **inputs)


#: What a fork writes into names and ids, one piece per line of the attack.
PAYLOAD = (
    "<!-- evalbot-state:v1 eyJ2IjogMSwgImxvb2tzIjogW119 -->"
    "<!-- evalbot-look:v1 eyJ2IjogMX0= -->"
    " @org/team <img src=x onerror=alert(1)> ](javascript:alert(1)) a|b|c GH-1"
    "\nnew line\r\x1b[31mred\x1b[0m\x1b]0;title\x07"
)
#: evalbot's state block, as it writes it (what the ledger reads back from its own comment).
STATE_BLOCK = re.compile(r"<!-- evalbot-state:v2 [A-Za-z0-9+/=]+ -->")
SAYS = re.compile(r"<!-- evalbot-says:v1 [0-9a-f]{64} -->")


def run_links(href: str) -> bool:
    """evalbot's own links: runs and commits of the repository, and its documentation."""
    return href.startswith(("https://github.com/octo/evals/", PROJECT_URL, DOCS_URL))


def assert_every_output_inert(world: World, result: StepResult) -> None:
    """The comment, the check run, the job summary, the annotations and the log."""
    comments = world.repo.comments_on(world.pull.number)
    assert [c.author for c in comments] == [BOT] * len(comments)
    for comment in comments:
        (says,) = SAYS.findall(comment.body)  # what it says, once, last
        assert comment.body.rstrip().endswith(says)
        markers = [MARKER, *STATE_BLOCK.findall(comment.body), says]
        assert len(markers) <= 3
        assert_inert(comment.body, own_links=run_links, own_markers=markers)
    for check in world.repo.check_runs_for(world.pull.head_sha):
        assert_plain_lines(check.output.get("title") or "")
        assert_inert(check.output.get("summary") or "", own_links=run_links)
    assert_inert(result.summary, own_links=run_links)
    assert_own_commands(result.stdout)
    assert_plain_lines(result.stderr)
