"""Benchmark: hostile input costs linear time (the tests check only what it gives).

Each hostile input of the tests (file contents and names for every parser, comment bodies for
the state block, YAML documents for the plan) is read at 100,000 characters and at a tenth of
that; the figure is the ratio of the two times (best of ``--repeat``). Linear work gives about
10, a quadratic scan 100. Goal: every ratio at most 20, every input under 1 s.

    PYTHONPATH=. python bench/bench_hostile.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable

from evalbot.errors import ConfigError
from evalbot.plan.config import parse_config
from evalbot.plan.ledger import parse_state
from tests.unit.plan.test_config import hostile_yaml
from tests.unit.plan.test_ledger import hostile_bodies
from tests.unit.test_hostile_input import hostile, hostile_names, read_every_way, read_named

N = 100_000


def yaml(text: str) -> None:
    with contextlib.suppress(ConfigError):
        parse_config(text, "c.yml")


def cases(n: int) -> dict[str, Callable[[], object]]:
    """Each hostile input of about ``n`` characters, as a call that reads it."""
    found: dict[str, Callable[[], object]] = {}
    for kind, data in hostile(n).items():
        found[f"file: {kind}"] = lambda data=data: read_every_way(data)
    rows = (hostile(N)["jsonl lines"], hostile(N)["lm-eval lines"], b"[]", b"x")  # the names grow
    for number, name in enumerate(hostile_names(n)):
        found[f"name {number}"] = lambda name=name: read_named(name, rows)
    for number, body in enumerate(hostile_bodies(n)):
        found[f"state {number}"] = lambda body=body: parse_state(body)
    for number, text in enumerate(hostile_yaml(n)):
        found[f"yaml {number}"] = lambda text=text: yaml(text)
    return found


def best(call: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    small, large = cases(N // 10), cases(N)
    print(f"| input | {N // 10:,} chars | {N:,} chars | ratio |\n|---|---:|---:|---:|")
    worst = 0.0
    slowest = 0.0
    for name, call in large.items():
        tenth, whole = best(small[name], args.repeat), best(call, args.repeat)
        ratio = whole / max(tenth, 1e-6)
        worst, slowest = max(worst, ratio), max(slowest, whole)
        print(f"| {name} | {tenth * 1e3:.2f} ms | {whole * 1e3:.2f} ms | {ratio:.1f} |")
    met = worst <= 20 and slowest < 1.0
    verdict = "met" if met else "MISSED"
    print(f"\nworst ratio {worst:.1f}, slowest {slowest * 1e3:.0f} ms: goal {verdict}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
