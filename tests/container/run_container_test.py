"""Run the built action image the way GitHub runs a Docker action, against the fake GitHub.

Standard library only (it runs before, and apart from, the test venv). Steps:

1. seed the fake (``python -m tests.fakegithub --seed``): ``octo/evals`` with ``.evalbot.yml`` on
   ``main``, PR #7, a successful push run of ``evals.yml`` at the base commit that uploaded the
   example baseline as the artifact ``evals``, and the PR's own run (id 1) the action runs in;
2. run the image twice through ``container-action run`` (host network, the recorded
   ``pull_request.synchronize`` payload pointed at PR #7, ``INPUT_*`` as the runner sets them);
3. stop the fake, read its final state and assert: exactly one sticky comment with the verdict,
   completed check runs concluding ``success`` on the head sha, the outputs.

Prints the wall time of each container run (the cold start is the first).

    python3 tests/container/run_container_test.py --image localhost/evalbot-action:test
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TOOL = Path(__file__).resolve().parent / "container-action"
TOKEN = "ghs_containerTestToken00000000000000001"
REPO = "octo/evals"
ROOT_SHA = "1" * 40
BASE_SHA = "2" * 40
HEAD_SHA = "3" * 40


def seed() -> dict[str, Any]:
    example = ROOT / "evalbot" / "data" / "example"
    return {
        "tokens": [{"value": TOKEN, "kind": "app"}],
        "repos": [
            {
                "full_name": REPO,
                "commits": [
                    {
                        "sha": ROOT_SHA,
                        "files": {".evalbot.yml": "alpha: 0.05\n"},
                        "branch": "main",
                        "message": "install evalbot",
                    },
                    {"sha": BASE_SHA, "parents": [ROOT_SHA], "branch": "main", "message": "base"},
                    {
                        "sha": HEAD_SHA,
                        "parents": [BASE_SHA],
                        "files": {"model.txt": "v2\n"},
                        "branch": "feature",
                        "message": "head",
                    },
                ],
                "pulls": [
                    {"number": 7, "head_sha": HEAD_SHA, "base_sha": BASE_SHA, "head_ref": "feature"}
                ],
                "workflows": [{"path": ".github/workflows/evals.yml", "id": 77}],
                "runs": [
                    {
                        "workflow": "evals.yml",
                        "id": 9001,
                        "head_sha": BASE_SHA,
                        "head_branch": "main",
                        "event": "push",
                        "artifacts": [
                            {
                                "name": "evals",
                                "files": {
                                    "baseline.jsonl": (example / "baseline.jsonl").read_text()
                                },
                            }
                        ],
                    },
                    {
                        # the run evalbot itself runs in: container-action sets GITHUB_RUN_ID=1,
                        # and a look's record names the run whose results it judged
                        "workflow": "evals.yml",
                        "id": 1,
                        "head_sha": HEAD_SHA,
                        "head_branch": "feature",
                        "event": "pull_request",
                        "pull_numbers": [7],
                    },
                ],
            }
        ],
    }


def event() -> dict[str, Any]:
    path = ROOT / "tests" / "integration" / "payloads" / "pull_request.synchronize.payload.json"
    payload: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    pr = payload["pull_request"]
    payload["number"] = pr["number"] = 7
    pr["head"]["sha"], pr["head"]["ref"] = HEAD_SHA, "feature"
    pr["base"]["sha"], pr["base"]["ref"] = BASE_SHA, "main"
    for repo in (pr["head"]["repo"], pr["base"]["repo"], payload["repository"]):
        repo["full_name"] = REPO
    return payload


def parse_outputs(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if "<<" in lines[i]:
            name, delim = lines[i].split("<<", 1)
            j = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1 : j])
            i = j
        i += 1
    return out


def run_step(image: str, url: str, work: Path, n: int) -> tuple[int, float, dict[str, str], str]:
    state_dir = work / f"sim{n}"
    env = {
        **os.environ,
        "IMAGE": image,
        "STATE_DIR": str(state_dir),
        "WORKSPACE": str(work / "workspace"),
        "EVENT_JSON": str(work / "event.json"),
        "EVENT_NAME": "pull_request",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_REF": "refs/pull/7/merge",
        "RUN_NETWORK": "host",
        "INPUT_GITHUB-TOKEN": TOKEN,
        "INPUT_CANDIDATE": "results/candidate.jsonl",
        "INPUT_BASELINE-ARTIFACT": "evals",
        "INPUT_BASELINE-WORKFLOW": "evals.yml",
        "INPUT_CONFIG": ".evalbot.yml",
        "INPUT_NAME": "evalbot",
        "EXTRA_ENV": f"GITHUB_API_URL={url} EVALBOT_GITHUB_BACKOFF=0 EVALBOT_GITHUB_THROTTLE=0",
    }
    start = time.monotonic()
    proc = subprocess.run(
        [str(TOOL), "run"], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    took = time.monotonic() - start
    commands = state_dir / "_temp" / "_runner_file_commands"
    outputs: dict[str, str] = {}
    for path in commands.glob("set_output_*"):
        outputs.update(parse_outputs(path.read_text(encoding="utf-8")))
    log = proc.stdout + proc.stderr
    if TOKEN in proc.stdout.replace(f"::add-mask::{TOKEN}", "") or TOKEN in proc.stderr:
        raise AssertionError("the token was printed")
    return proc.returncode, took, outputs, log


def run_with_fake(image: str, python: str, work: Path) -> list[Any]:
    """Start the fake GitHub, run the image twice against it, stop the fake (killed, and
    reported, should it not stop: it would hold its caller's pipes open)."""
    fake = subprocess.Popen(
        [
            python,
            "-m",
            "tests.fakegithub",
            "--seed",
            str(work / "seed.json"),
            "--state-out",
            str(work / "state.json"),
            "--url-file",
            str(work / "url.txt"),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            if (work / "url.txt").exists():
                break
            time.sleep(0.1)
        url = (work / "url.txt").read_text().strip()
        return [run_step(image, url, work, n) for n in (1, 2)]
    finally:
        fake.send_signal(signal.SIGTERM)
        try:
            fake.wait(timeout=30)
        except subprocess.TimeoutExpired:
            fake.kill()
            fake.wait()
            raise AssertionError("the fake GitHub did not stop within 30 s") from None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--image", default="localhost/evalbot-action:test")
    parser.add_argument("--python", default=sys.executable, help="python for the fake server")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="evalbot-container-") as tmp:
        work = Path(tmp)
        (work / "seed.json").write_text(json.dumps(seed()), encoding="utf-8")
        (work / "event.json").write_text(json.dumps(event()), encoding="utf-8")
        results = work / "workspace" / "results"
        results.mkdir(parents=True)
        candidate = ROOT / "evalbot" / "data" / "example" / "candidate.jsonl"
        (results / "candidate.jsonl").write_text(candidate.read_text(), encoding="utf-8")
        steps = run_with_fake(args.image, args.python, work)
        for n, (code, took, _outputs, log) in enumerate(steps, start=1):
            print(f"container run {n}: exit {code} in {took:.1f} s")
            if code != 0:
                print(log, file=sys.stderr)
                raise AssertionError(f"container run {n} exited {code}")
        state = json.loads((work / "state.json").read_text(encoding="utf-8"))
        repo = state["repos"][REPO]
        requests = state["requests"]
        downloads = [r for r in requests if r["path"].endswith("/zip") and r["status"] == 302]
        blobs = [r for r in requests if r["path"].startswith("/_blob/")]
        assert downloads and blobs, "the baseline was not downloaded through the artifacts API"
        assert not any(k.lower() == "authorization" for b in blobs for k in b["headers"]), blobs
        config_reads = [r for r in requests if r["path"].endswith("/contents/.evalbot.yml")]
        assert config_reads[0]["query"].get("ref") == [BASE_SHA], config_reads
        marker = "<!-- evalbot:evalbot -->"
        ours = [c for c in repo["comments"] if marker in c["body"]]
        assert len(ours) == 1, f"expected one sticky comment, found {len(ours)}"
        assert "Improvement" in ours[0]["body"], ours[0]["body"][:500]
        assert "artifact `evals` from run [9001]" in ours[0]["body"]
        checks = [c for c in repo["check_runs"] if c["head_sha"] == HEAD_SHA]
        assert len(checks) == 2, checks
        assert {(c["name"], c["status"], c["conclusion"]) for c in checks} == {
            ("evalbot", "completed", "success")
        }
        outputs = steps[-1][2]
        assert outputs.get("verdict") == "improvement", outputs
        assert outputs.get("gate") == "pass", outputs
        assert outputs.get("fixed") == "31" and outputs.get("broken") == "14", outputs
        assert outputs.get("comment-url", "").endswith(f"#issuecomment-{ours[0]['id']}"), outputs
        print("container test passed: one sticky comment, check success, outputs as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
