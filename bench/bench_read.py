"""Benchmark: load + pair two 1,000,000-item JSONL runs, against parsing them with stdlib json.

Run from the repository root::

    python bench/bench_read.py [--items 1000000] [--repeat 3]

Both measurements happen in the same run on the same files, so the ratio does not depend on the
machine. The files are the common case: ``{"id": "q-0000001", "passed": true}`` per line, the
baseline in id order and the candidate in a shuffled order (pairing is by id, never by row).

(a) reference: ``json.loads`` of every line of both files (nothing else).
(b) evalbot: ``load_results`` of both files (read, parse, check) and ``pair`` (join by id, sort,
    fingerprint).
(c) end to end: the command ``python -m evalbot compare BASELINE CANDIDATE --format json`` in a
    fresh process: interpreter start, imports, load, pair, every statistic (McNemar, the paired
    bootstrap with 10,000 resamples, Wilson, slices, power), the decision and the JSON report.
    Its peak memory is the child's peak resident set size.

The best of ``--repeat`` timings is reported for each, the two measured alternately. Peak
memory is measured afterwards in an untimed pass with ``tracemalloc`` (Python allocations,
numpy included), and the process's peak resident set size is printed at the end.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evalbot.formats.options import ReadOptions
from evalbot.formats.sources import load_results
from evalbot.pairing.pair import pair


def write_runs(directory: Path, items: int, seed: int = 0) -> tuple[Path, Path]:
    rng = random.Random(seed)
    ids = [f"q-{i:07d}" for i in range(items)]
    base_pass = [rng.random() < 0.70 for _ in ids]
    cand_pass = [p if rng.random() < 0.9 else not p for p in base_pass]
    order = list(range(items))
    rng.shuffle(order)
    baseline = directory / "baseline.jsonl"
    candidate = directory / "candidate.jsonl"
    baseline.write_text(
        "".join(
            f'{{"id": "{i}", "passed": {"true" if p else "false"}}}\n'
            for i, p in zip(ids, base_pass, strict=True)
        )
    )
    candidate.write_text(
        "".join(
            f'{{"id": "{ids[k]}", "passed": {"true" if cand_pass[k] else "false"}}}\n'
            for k in order
        )
    )
    return baseline, candidate


def stdlib_parse(baseline: Path, candidate: Path) -> int:
    count = 0
    for path in (baseline, candidate):
        with path.open("rb") as stream:
            for line in stream:
                json.loads(line)
                count += 1
    return count


def evalbot_compare(baseline: Path, candidate: Path) -> int:
    options = ReadOptions()
    paired = pair(load_results(str(baseline), options), load_results(str(candidate), options))
    return len(paired)


def end_to_end(baseline: Path, candidate: Path) -> int:
    """The whole CLI in a fresh process; returns the number of items it reports."""
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalbot",
            "compare",
            str(baseline),
            str(candidate),
            "--format",
            "json",
        ],
        capture_output=True,
        check=False,
        env=env,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(proc.stderr.decode())
    return int(json.loads(proc.stdout)["items"])


def best_times(
    first: Callable[[], int], second: Callable[[], int], repeat: int
) -> tuple[float, float]:
    """Best time of each, measured alternately so that a busy machine slows both alike."""
    best = [float("inf"), float("inf")]
    for _ in range(repeat):
        for slot, function in enumerate((first, second)):
            gc.collect()
            start = time.perf_counter()
            function()
            best[slot] = min(best[slot], time.perf_counter() - start)
    return best[0], best[1]


def peak_bytes(function: Callable[[], int]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        baseline, candidate = write_runs(Path(tmp), args.items)
        size = (baseline.stat().st_size + candidate.stat().st_size) / 1e6
        assert evalbot_compare(baseline, candidate) == args.items
        reference, ours = best_times(
            lambda: stdlib_parse(baseline, candidate),
            lambda: evalbot_compare(baseline, candidate),
            args.repeat,
        )
        reference_peak = peak_bytes(lambda: stdlib_parse(baseline, candidate))
        ours_peak = peak_bytes(lambda: evalbot_compare(baseline, candidate))
        whole = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            assert end_to_end(baseline, candidate) == args.items
            whole = min(whole, time.perf_counter() - start)
        child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(f"items per file:            {args.items:,} ({size:.1f} MB for both files)")
    print(f"(a) stdlib json, parse:    {reference:.3f} s (best of {args.repeat})")
    print(f"(b) evalbot load + pair:   {ours:.3f} s (best of {args.repeat})")
    print(f"ratio (b) / (a):           {ours / reference:.3f}")
    print(f"(c) evalbot compare, CLI:  {whole:.3f} s (best of {args.repeat}; 10,000 resamples)")
    print(f"ratio (c) / (a):           {whole / reference:.3f}")
    print(f"peak RSS of (c):           {child_rss:.0f} MB")
    print(f"peak traced memory (a):    {reference_peak / 1e6:.2f} MB")
    print(f"peak traced memory (b):    {ours_peak / 1e6:.1f} MB")
    print(f"peak RSS of this process:  {rss:.0f} MB")


if __name__ == "__main__":
    main()
