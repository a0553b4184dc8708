"""Benchmark: `evalbot compare` on numeric scores against the same on pass/fail, in one run.

Issue 12's target: comparing 2 x 1,000,000 items of continuous scores takes at most 2x the
time of 2 x 1,000,000 pass/fail items. Before the decision work the score comparison ran the
O(B x N) paired bootstrap (about 4 minutes at 10,000 resamples); now its primary test is the
paired t above 1,000 items (O(N)), with the sign-flip test and the bootstrap left for small or
clustered evals.

Writes two pairs of JSONL files (``{"id": ..., "passed": ...}`` and ``{"id": ..., "score":
...}``, the candidate shuffled: pairing is by id) to a temporary directory and times the whole
command in a fresh process (``python -m evalbot compare B C --format json``), alternating the two
kinds so that a busy machine slows both alike; reports the best of ``--repeat`` runs and the
ratio.

    PYTHONPATH=. python bench/bench_scores.py [--items 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write(folder: Path, kind: str, n: int, seed: int = 0) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    ids = [f"q-{i:07d}" for i in range(n)]
    if kind == "passed":
        base = rng.random(n) < 0.7
        flip = rng.random(n)
        cand = np.where(flip < 0.08, True, np.where(flip < 0.11, False, base))
        b_rows = [
            f'{{"id": "{i}", "passed": {"true" if v else "false"}}}\n'
            for i, v in zip(ids, base, strict=True)
        ]
        c_vals = ["true" if v else "false" for v in cand]
        c_rows = [f'{{"id": "{i}", "passed": {v}}}\n' for i, v in zip(ids, c_vals, strict=True)]
    else:
        base = rng.beta(2.0, 2.0, n)
        cand = np.clip(base + rng.normal(0.01, 0.1, n), 0.0, 1.0)
        b_rows = [f'{{"id": "{i}", "score": {v:.6f}}}\n' for i, v in zip(ids, base, strict=True)]
        c_rows = [f'{{"id": "{i}", "score": {v:.6f}}}\n' for i, v in zip(ids, cand, strict=True)]
    order = rng.permutation(n)
    b_path, c_path = folder / f"{kind}-b.jsonl", folder / f"{kind}-c.jsonl"
    b_path.write_text("".join(b_rows))
    c_path.write_text("".join(c_rows[k] for k in order))
    return b_path, c_path


def run(b: Path, c: Path) -> tuple[float, dict[str, object]]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "evalbot", "compare", str(b), str(c), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(proc.stderr)
    report = json.loads(proc.stdout)
    return elapsed, report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pairs = {kind: write(folder, kind, args.items) for kind in ("passed", "score")}
        best = {kind: float("inf") for kind in pairs}
        methods: dict[str, object] = {}
        for _ in range(args.repeat):
            for kind, (b, c) in pairs.items():
                elapsed, report = run(b, c)
                best[kind] = min(best[kind], elapsed)
                methods[kind] = report["test"]["name"]  # type: ignore[index]
    print(f"items per file: {args.items:,}; best of {args.repeat}; load average {os.getloadavg()}")
    for kind in pairs:
        print(f"  {kind:6s}  {best[kind]:7.3f} s   (primary test: {methods[kind]})")
    print(f"ratio scores / pass-fail: {best['score'] / best['passed']:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
