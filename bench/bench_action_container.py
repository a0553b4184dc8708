"""The action's run time inside its container, against the container's own start-up.

Run from the repository root after building the image (``.ci/container-test`` builds and tags
``localhost/evalbot-action:test``; podman as root, see tests/container)::

    python3 bench/bench_action_container.py [--image localhost/evalbot-action:test] [--runs 5]

Each round runs, in turn: the reference, ``podman run --rm --entrypoint python IMAGE -c pass``
(container start-up and interpreter start, nothing of evalbot), then the container test
(tests/container/run_container_test.py: the action against the fake GitHub, twice: a pull
request's first look and a re-run). The medians are printed, and the action's own time as the
difference. Standard library only. Also prints the image's size (uncompressed, as podman
counts it) and its base's.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATE = os.environ.get("STATE_DIR", "/tmp/gh-action-sim")


def podman_env() -> dict[str, str]:
    conf = Path(STATE) / "containers.conf"  # written by container-action (runc, rlimits)
    return {**os.environ, **({"CONTAINERS_CONF": str(conf)} if conf.exists() else {})}


def reference(image: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        ["podman", "run", "--rm", "--entrypoint", "python", image, "-c", "pass"],
        check=True,
        env=podman_env(),
        capture_output=True,
    )
    return time.perf_counter() - start


def action_runs(image: str) -> list[float]:
    # output through a file, not a pipe: a straggling child cannot keep this waiting
    with tempfile.TemporaryFile(mode="w+") as out:
        subprocess.run(
            [sys.executable, str(ROOT / "tests/container/run_container_test.py"), "--image", image],
            stdout=out,
            stderr=subprocess.STDOUT,
            check=True,
            env=podman_env(),
            timeout=600,
        )
        out.seek(0)
        text = out.read()
    return [float(s) for s in re.findall(r"container run \d: exit 0 in ([0-9.]+) s", text)]


def image_mb(image: str) -> float:
    """The image's size in MB (10^6 bytes, as podman prints it), uncompressed."""
    out = subprocess.run(
        ["podman", "image", "inspect", "--format", "{{.Size}}", image],
        capture_output=True,
        text=True,
        check=True,
        env=podman_env(),
    ).stdout
    return int(out.split()[0]) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default="localhost/evalbot-action:test")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--base",
        default="localhost/python:3.11-bookworm",
        help="the base image the action's image was built from, for its size ('' to skip)",
    )
    args = parser.parse_args()
    size = image_mb(args.image)
    base = image_mb(args.base) if args.base else None
    starts, first, again = [], [], []
    for _ in range(args.runs):
        starts.append(reference(args.image))
        runs = action_runs(args.image)
        first.append(runs[0])
        again.append(runs[1])
    start, cold, warm = (statistics.median(v) for v in (starts, first, again))
    print(f"image {args.image}: {size:.0f} MB")
    if base is not None:
        print(f"its base {args.base}: {base:.0f} MB")
    print(f"container start + python -c pass: {start:.2f} s (median of {args.runs})")
    print(f"action, first look:               {cold:.2f} s (evalbot's own: {cold - start:.2f} s)")
    print(f"action, re-run of the same head:  {warm:.2f} s (evalbot's own: {warm - start:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
