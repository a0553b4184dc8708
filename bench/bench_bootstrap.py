"""Benchmark: evalbot's paired bootstrap against the references, measured in one run.

For N = 10^3 .. 10^6 paired items and B = 10,000 resamples, times (wall clock) and peak
traced memory (tracemalloc, which numpy reports its buffers to) of

* ``evalbot.stats.bootstrap.paired_bootstrap`` (multinomial counts for few distinct per-item
  differences, chunked index resampling otherwise),
* ``scipy.stats.bootstrap((baseline, candidate), ..., paired=True, vectorized=True,
  method="percentile", batch=1000)``,
* the plain index-matrix bootstrap ``idx = rng.integers(0, n, size=(B, n)); d[idx].mean(1)``,

on binary pass/fail data and on continuous scores. References are skipped where they would
take minutes or need B x N x 8 bytes beyond a few GiB; the table says so. Each cell also
prints the bootstrap standard error, so the methods can be seen to agree.

Run from the repository root: ``PYTHONPATH=. python bench/bench_bootstrap.py``
(``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import tracemalloc
from collections.abc import Callable

import numpy as np
import scipy
from scipy import stats

from evalbot.stats.bootstrap import paired_bootstrap

B = 10_000


def measure(fn: Callable[[], float]) -> tuple[float, float, float]:
    """(seconds, peak MiB, result) of one call, tracing allocations."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    value = fn()
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return elapsed, peak / 2**20, value


def data(kind: str, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if kind == "binary":
        base = (rng.random(n) < 0.70).astype(np.float64)
        flip = rng.random(n)
        cand = np.where(flip < 0.08, 1.0, np.where(flip < 0.11, 0.0, base))
        return base, cand
    base = rng.beta(2.0, 2.0, n)
    cand = np.clip(base + rng.normal(0.01, 0.1, n), 0.0, 1.0)
    return base, cand


def ours(base: np.ndarray, cand: np.ndarray, b: int) -> float:
    return paired_bootstrap(base, cand, n_resamples=b, seed=0).standard_error


def scipy_ref(base: np.ndarray, cand: np.ndarray, b: int) -> float:
    def diff(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.mean(y, axis=axis) - np.mean(x, axis=axis)

    res = stats.bootstrap(
        (base, cand),
        diff,
        paired=True,
        vectorized=True,
        n_resamples=b,
        method="percentile",
        batch=1000,
        random_state=np.random.default_rng(0),
    )
    return float(res.standard_error)


def plain_ref(base: np.ndarray, cand: np.ndarray, b: int) -> float:
    rng = np.random.default_rng(0)
    d = cand - base
    idx = rng.integers(0, d.size, size=(b, d.size))
    return float(np.std(d[idx].mean(axis=1), ddof=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="N up to 10^4 only")
    args = parser.parse_args()
    sizes = [10**3, 10**4] if args.quick else [10**3, 10**4, 10**5, 10**6]
    # Largest N each reference runs at (beyond: minutes of runtime or > 8 GiB of indices).
    limits = {
        ("scipy", "binary"): 10**4,
        ("scipy", "continuous"): 10**4,
        ("plain", "binary"): 10**4,
        ("plain", "continuous"): 10**4,
    }
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"{os.cpu_count()} CPUs, B = {B:,}"
    )
    print()
    print(
        "| data | N | evalbot s | evalbot MiB | scipy s | scipy MiB | plain s | plain MiB "
        "| scipy/evalbot | plain/evalbot | SE evalbot / scipy / plain |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    total0 = time.perf_counter()
    for kind in ("binary", "continuous"):
        for n in sizes:
            base, cand = data(kind, n)
            b_ours = B
            note = ""
            if kind == "continuous" and n >= 10**6:
                b_ours = 500  # ~100 s at B = 10^4 on a busy 2-core box; linear in B
                note = f" (B={b_ours:,}; x20 for B=10^4)"
            t_o, m_o, se_o = measure(lambda b=base, c=cand, r=b_ours: ours(b, c, r))
            row = [kind, f"{n:,}", f"{t_o:.3f}{note}", f"{m_o:.0f}"]
            ses = [f"{se_o:.2e}"]
            ratios = []
            for name, fn in (("scipy", scipy_ref), ("plain", plain_ref)):
                if n <= limits[(name, kind)]:
                    t_r, m_r, se_r = measure(lambda f=fn, b=base, c=cand: f(b, c, B))
                    row += [f"{t_r:.2f}", f"{m_r:.0f}"]
                    ratios.append(f"{t_r / (t_o * B / b_ours):.0f}x")
                    ses.append(f"{se_r:.2e}")
                else:
                    row += ["skipped", "-"]
                    ratios.append("-")
                    ses.append("-")
            print("| " + " | ".join(row + ratios + [" / ".join(ses)]) + " |", flush=True)
    print()
    print(f"total wall time {time.perf_counter() - total0:.0f} s")


if __name__ == "__main__":
    main()
