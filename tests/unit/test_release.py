"""The release path: the workflow that publishes the image and the script that pins
``action.yml`` to it by digest (.github/workflows/release.yml, scripts/pin_action_image.py)."""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from pin_action_image import PinError, pin_action_image  # noqa: E402

DIGEST = "sha256:" + "0123456789abcdef" * 4
IMAGE = f"ghcr.io/evalbot/evalbot@{DIGEST}"


def action_text() -> str:
    return (ROOT / "action.yml").read_text(encoding="utf-8")


def workflow(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(
        (ROOT / ".github" / "workflows" / name).read_text(encoding="utf-8")
    )
    return data


def test_pinning_changes_only_the_image_line() -> None:
    before = action_text()
    after = pin_action_image(before, IMAGE)
    changed = [
        line
        for line in difflib.ndiff(before.splitlines(), after.splitlines())
        if line.startswith(("+ ", "- "))
    ]
    assert changed == ["-   image: Dockerfile", f"+   image: docker://{IMAGE}"]
    old, new = yaml.safe_load(before), yaml.safe_load(after)
    assert new["runs"] == {"using": "docker", "image": f"docker://{IMAGE}"}
    assert {k: v for k, v in new.items() if k != "runs"} == {
        k: v for k, v in old.items() if k != "runs"
    }


@pytest.mark.parametrize(
    ("image", "why"),
    [
        ("ghcr.io/evalbot/evalbot:v1", "not an image reference pinned by digest"),
        ("ghcr.io/Evalbot/evalbot@" + DIGEST, "not an image reference pinned by digest"),
        ("ghcr.io/evalbot/evalbot@sha256:abc", "not an image reference pinned by digest"),
        ("docker://ghcr.io/evalbot/evalbot@" + DIGEST, "not an image reference pinned by digest"),
        ("evalbot@" + DIGEST, "not an image reference pinned by digest"),
    ],
)
def test_only_a_digest_reference_is_pinned(image: str, why: str) -> None:
    with pytest.raises(PinError, match=why):
        pin_action_image(action_text(), image)


def test_an_action_already_pinned_or_not_docker_is_refused() -> None:
    pinned = pin_action_image(action_text(), IMAGE)
    with pytest.raises(PinError, match="already pinned"):
        pin_action_image(pinned, IMAGE)
    composite = action_text().replace("using: docker", "using: composite")
    with pytest.raises(PinError, match="not a Docker action"):
        pin_action_image(composite, IMAGE)


def test_the_script_rewrites_the_file_or_says_why_in_one_line(tmp_path: Path) -> None:
    target = tmp_path / "action.yml"
    target.write_text(action_text(), encoding="utf-8")
    script = ROOT / "scripts" / "pin_action_image.py"
    ok = subprocess.run(
        [sys.executable, str(script), IMAGE, str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert yaml.safe_load(target.read_text(encoding="utf-8"))["runs"]["image"] == (
        f"docker://{IMAGE}"
    )
    again = subprocess.run(
        [sys.executable, str(script), IMAGE, str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode == 2
    assert again.stderr.count("\n") == 1
    assert "already pinned" in again.stderr
    assert "Traceback" not in again.stderr


def test_the_release_builds_the_same_dockerfile_the_container_test_runs() -> None:
    jobs = workflow("release.yml")["jobs"]
    steps = jobs["image"]["steps"]
    build = next(s for s in steps if str(s.get("uses", "")).startswith("docker/build-push-action@"))
    # the same definition: the repository's Dockerfile, its own pinned BASE_IMAGE default
    assert build["with"]["context"] == "."
    assert build["with"]["file"] == "Dockerfile"
    assert "build-args" not in build["with"]
    assert build["with"]["push"] is True
    assert "provenance" in build["with"]
    container_test = (ROOT / ".ci" / "container-test").read_text(encoding="utf-8")
    assert re.search(r"build \. Dockerfile", container_test)
    attest = next(s for s in steps if "attest-build-provenance@" in str(s.get("uses", "")))
    assert attest["with"]["subject-digest"] == "${{ steps.build.outputs.digest }}"
    # the image that is pinned is the one that was built, attested and run
    assert jobs["image"]["outputs"]["digest"] == "${{ steps.build.outputs.digest }}"
    publish = "\n".join(str(s.get("run", "")) for s in jobs["publish"]["steps"])
    assert "scripts/pin_action_image.py" in publish
    env = next(s for s in jobs["publish"]["steps"] if "pin_action_image" in str(s.get("run")))
    assert env["env"]["IMAGE"] == (
        "${{ needs.image.outputs.image }}@${{ needs.image.outputs.digest }}"
    )


def test_the_release_workflow_grants_no_default_permissions() -> None:
    # every `uses:` is pinned by sha: tests/integration/test_action_metadata.py
    release = workflow("release.yml")
    assert release["permissions"] == {}
    assert set(release[True]) == {"workflow_dispatch"}  # YAML 1.1 reads the key `on` as true
    for job in release["jobs"].values():
        assert "permissions" in job
