"""action.yml, the README, the settings and the Dockerfile say the same thing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from evalbot.settings import DEFAULT_CONFIG, DEFAULT_NAME, INPUTS, OUTPUTS

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


def test_inputs_match_everywhere() -> None:
    inputs = action()["inputs"]
    assert tuple(inputs) == INPUTS
    assert tuple(doc_table("Inputs")) == INPUTS
    for name, spec in inputs.items():
        assert spec["description"].strip(), name
        assert spec.get("required") is False, f"{name}: inputs are optional; evalbot validates"
    assert inputs["config"]["default"] == DEFAULT_CONFIG
    assert inputs["name"]["default"] == DEFAULT_NAME
    assert inputs["github-token"]["default"] == "${{ github.token }}"
    rows = doc_table("Inputs")
    assert f"`{DEFAULT_CONFIG}`" in rows["config"]
    assert f"`{DEFAULT_NAME}`" in rows["name"]


def test_outputs_match_everywhere() -> None:
    outputs = action()["outputs"]
    assert tuple(outputs) == OUTPUTS
    assert tuple(doc_table("Outputs")) == OUTPUTS
    interface = ("verdict", "gate", "p-value", "difference", "ci-low", "ci-high", "fixed", "broken")
    assert set(interface) | {"comment-url"} <= set(OUTPUTS)


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
    assert dockerfile.index("ARG BASE_IMAGE=python:3.12-slim") < dockerfile.index(
        "FROM ${BASE_IMAGE}"
    )
    assert "pip install --no-cache-dir -r /tmp/evalbot/requirements.lock" in dockerfile
    assert "--no-deps" in dockerfile


def test_requirements_lock_pins_every_runtime_dependency() -> None:
    lines = [
        line
        for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[A-Za-z0-9_.+-]+", line) for line in lines), lines
    pinned = {line.split("==")[0].lower().replace("_", "-") for line in lines}
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    deps = pyproject.split("dependencies = [", 1)[1].split("]", 1)[0]
    for dep in re.findall(r'"([A-Za-z0-9_.-]+)', deps):
        assert dep.lower().replace("_", "-") in pinned, dep


def test_workflows_pin_actions_by_sha() -> None:
    for path in (ROOT / ".github" / "workflows").glob("*.yml"):
        text = path.read_text(encoding="utf-8")
        for uses in re.findall(r"^\s*(?:- )?uses:\s*(\S+)", text, re.MULTILINE):
            if uses.startswith("./"):
                continue
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", uses), f"{path.name}: {uses}"
