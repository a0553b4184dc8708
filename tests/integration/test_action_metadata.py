"""action.yml, the README, the settings and the Dockerfile say the same thing."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

import yaml

from evalbot.github.runner import (
    DEFAULT_CONFIG,
    DEFAULT_NAME,
    DEFAULT_SEARCH_COMMITS,
    DEFAULT_SEARCH_RUNS,
    MAX_SEARCH_COMMITS,
    MAX_SEARCH_RUNS,
    Settings,
)
from tests.fakegithub import FakeGitHub
from tests.integration.action_harness import World

ROOT = Path(__file__).resolve().parents[2]


def action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return data


def doc_table(section: str) -> dict[str, str]:
    """``| `name` | ... |`` rows of one ``### section`` of the README's action part -> name: row."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    action_part = text.split("\n## The GitHub Action\n", 1)[1].split("\n## ", 1)[0]
    body = action_part.split(f"\n### {section}\n", 1)[1].split("\n### ", 1)[0]
    return {m.group(1): m.group(0) for m in re.finditer(r"^\| `([a-z-]+)` \|.*$", body, re.M)}


#: The inputs Settings reads, in its order.
INPUTS = tuple(key for spec in fields(Settings) for key in spec.metadata["keys"] if key.islower())


def test_inputs_match_everywhere() -> None:
    inputs = action()["inputs"]
    assert tuple(inputs) == tuple(INPUTS)
    assert tuple(doc_table("Inputs")) == tuple(INPUTS)
    for name, spec in inputs.items():
        assert spec["description"].strip(), name
        assert spec.get("required") is False, f"{name}: inputs are optional; evalbot validates"
    assert inputs["config"]["default"] == DEFAULT_CONFIG
    assert inputs["name"]["default"] == DEFAULT_NAME
    assert inputs["github-token"]["default"] == "${{ github.token }}"
    rows = doc_table("Inputs")
    assert f"`{DEFAULT_CONFIG}`" in rows["config"]
    assert f"`{DEFAULT_NAME}`" in rows["name"]
    # how far the baseline search looks: one default and one bound in all three places
    for name, default, bound in (
        ("baseline-search-runs", DEFAULT_SEARCH_RUNS, MAX_SEARCH_RUNS),
        ("baseline-search-commits", DEFAULT_SEARCH_COMMITS, MAX_SEARCH_COMMITS),
    ):
        assert inputs[name]["default"] == str(default)
        assert f"| `{name}` | `{default}` |" in rows[name]
        assert f"to {bound:,}" in rows[name]
        assert f"to {bound})" in inputs[name]["description"]


def test_outputs_match_everywhere(fake_github: FakeGitHub, tmp_path: Path) -> None:
    """action.yml, the docs and the outputs a verdict's run writes name the same outputs, in
    the same order."""
    outputs = tuple(action()["outputs"])
    assert tuple(doc_table("Outputs")) == outputs
    world = World(fake_github, tmp_path)
    world.add_baseline_run(world.root)
    result = world.run()
    assert result.code == 0, result.stderr
    assert tuple(result.outputs) == outputs
    interface = ("verdict", "gate", "p-value", "difference", "ci-low", "ci-high", "fixed", "broken")
    assert set(interface) | {"comment-url"} <= set(outputs)


def test_action_runs_the_dockerfile_whose_entrypoint_is_evalbot_action() -> None:
    assert action()["runs"] == {"using": "docker", "image": "Dockerfile"}
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    instructions = [
        line.split()[0]
        for line in dockerfile.splitlines()
        if line.strip() and not line.startswith(("#", " "))
    ]
    assert "USER" not in instructions
    assert "WORKDIR" not in instructions
    assert 'ENTRYPOINT ["evalbot", "action"]' in dockerfile
    # the base: a build argument (a local stand-in can replace it) whose default is pinned by
    # digest, and the Python the lock was resolved for
    base = re.search(r"^ARG BASE_IMAGE=(\S+)$", dockerfile, re.MULTILINE)
    assert base is not None
    assert re.fullmatch(r"python:3\.11-slim[\w.-]*@sha256:[0-9a-f]{64}", base.group(1))
    assert dockerfile.index("ARG BASE_IMAGE=") < dockerfile.index("FROM ${BASE_IMAGE}")
    assert "Resolved for CPython 3.11" in (ROOT / "requirements.lock").read_text(encoding="utf-8")
    # every download is hash-checked; evalbot itself installs from the wheel built in the image
    installs = re.findall(r"pip install [^\n]*(?:\\\n[^\n]*)*", dockerfile)
    assert installs
    for command in installs:
        assert "--require-hashes" in command or "--no-index" in command, command
    assert "--no-deps --no-index" in dockerfile


def test_requirements_lock_pins_every_runtime_dependency() -> None:
    text = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    entries = [
        entry.strip()
        for entry in text.replace("\\\n", " ").splitlines()
        if entry.strip() and not entry.startswith("#")
    ]
    pattern = r"([A-Za-z0-9_.-]+)(\[[a-z,]+\])?==[A-Za-z0-9_.+-]+( +--hash=sha256:[0-9a-f]{64})+"
    assert all(re.fullmatch(pattern, entry) for entry in entries), entries
    pinned = {entry.split("==")[0].split("[")[0].lower().replace("_", "-") for entry in entries}
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    deps = pyproject.split("dependencies = [", 1)[1].split("]", 1)[0]
    for dep in re.findall(r'"([A-Za-z0-9_.-]+)', deps):
        assert dep.lower().replace("_", "-") in pinned, dep


#: Declared by PyGithub (``pyjwt[crypto]``) and cffi, never imported on evalbot's way: the image
#: installs requirements.lock with ``--no-deps``, and the lock leaves them out.
UNUSED = ("cryptography", "pycparser")
#: Refuses the unused packages, as if they were not installed (run in a fresh interpreter).
_WITHOUT = f"""
import importlib.abc, sys
class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {UNUSED!r}:
            raise ModuleNotFoundError(name)
sys.meta_path.insert(0, Absent())
"""


def test_the_image_needs_no_crypto_packages() -> None:
    """The lock leaves them out, the image installs nothing else, and the action imports,
    builds its client and runs a comparison without them (a real run against the fake GitHub
    is the container test's)."""
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    pinned = {line.split("==")[0].split("[")[0] for line in lock.splitlines() if "==" in line}
    assert not pinned & set(UNUSED)
    assert {"pygithub", "pyjwt", "pynacl", "cffi"} <= pinned  # what `import github` needs
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    install = re.search(r"pip install [^\n]*(?:\\\n[^\n]*)*requirements\.lock", dockerfile)
    assert install is not None
    assert "--no-deps" in install.group(0)
    run = _WITHOUT + (
        "import io, evalbot.action\n"
        "from evalbot.github.client import GitHubClient\n"
        "from evalbot.github.runner import Settings\n"
        "from evalbot.cli import main\n"
        "GitHubClient(Settings(token='ghs_x', repository='o/r', api_url='http://127.0.0.1:9'))\n"
        "assert main(['compare', '--example', '--format', 'json'], io.StringIO()) == 0\n"
        f"assert not [m for m in sys.modules if m.split('.')[0] in {UNUSED!r}]\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", run], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_the_description_fits_the_marketplace() -> None:
    assert len(action()["description"]) <= 124  # the Marketplace cuts a longer one


#: ``uses:`` lines of the documentation's workflows that name no commit: evalbot itself, whose
#: release the reader picks (the README says so in one line), and placeholders of the docs.
_UNPINNED_DOCS = re.compile(
    r"evalbot/evalbot@v1|OWNER/evalbot@[0-9a-f]{40} # v[\d.]+|docker://ghcr\.io/OWNER/NAME@sha256:\.\.\."
)


def test_documented_workflows_pin_actions_as_the_docs_recommend() -> None:
    """Every other action in the README's and the docs' workflows is pinned by sha with its
    version beside it, the same commit this repository's own workflows run when they run it."""
    ours: dict[str, str] = {}
    for path in (ROOT / ".github" / "workflows").glob("*.yml"):
        text = path.read_text(encoding="utf-8")
        for name, sha in re.findall(r"uses:\s*([\w.-]+/[\w.-]+)@([0-9a-f]{40})", text):
            ours[name] = sha
    seen = 0
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for uses in re.findall(r"^\s*(?:- )?uses:\s*(.+)$", text, re.MULTILINE):
            seen += 1
            if _UNPINNED_DOCS.fullmatch(uses.strip()):
                continue
            pinned = re.fullmatch(r"([\w.-]+/[\w.-]+)@([0-9a-f]{40}) # v\d+(\.\d+)*", uses)
            assert pinned, f"{path.name}: {uses}"
            assert ours.get(pinned.group(1), pinned.group(2)) == pinned.group(2), path.name
    assert seen >= 10
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "but `evalbot/evalbot@v1`, which\nnames no release" in readme


def test_the_first_workflow_says_what_the_first_pull_request_shows(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    """The line under the README's first workflow names the check the action really posts
    when no baseline exists yet, and the workflow can make one by hand."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = readme.split("### Same-repository pull requests", 1)[1].split("\n### ", 1)[0]
    workflow, after = first.split("```yaml", 1)[1].split("```", 1)
    said = re.search(r"its check fails with \*\*(.+?)\*\*", after, re.DOTALL)
    assert said is not None
    assert "workflow_dispatch:" in workflow
    assert "if: github.event_name != 'pull_request'" in workflow  # a dispatch uploads too
    world = World(fake_github, tmp_path)  # evalbot installed, no run of the workflow yet
    result = world.run()
    assert result.code == 1, result.stderr
    (check,) = world.repo.check_runs_for(world.pull.head_sha)
    assert (check.conclusion, check.output["title"]) == ("failure", " ".join(said[1].split()))
    assert "gate.on_no_baseline: neutral" in after
    assert "gate.on_no_baseline" in check.output["summary"]


def test_workflows_pin_actions_by_sha() -> None:
    for path in (ROOT / ".github" / "workflows").glob("*.yml"):
        text = path.read_text(encoding="utf-8")
        for uses in re.findall(r"^\s*(?:- )?uses:\s*(\S+)", text, re.MULTILINE):
            if uses.startswith("./"):
                continue
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", uses), f"{path.name}: {uses}"
