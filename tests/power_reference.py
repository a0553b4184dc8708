"""Test-only reference: the exact power of McNemar's test from scipy.stats sums.

Independent of evalbot's implementation: the critical count of each discordant count d is
found by stepping up while scipy's binomial cdf allows (exact: 2 P(X <= k) <= alpha; mid-p:
P(X <= k - 1) + P(X <= k) <= alpha; X ~ Bin(d, 1/2)), and the power sums, over
D ~ Bin(n, fix + break), the probability that the smaller count is at most it.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy.stats import binom


@cache
def critical_counts(d_max: int, alpha: float, method: str = "exact") -> np.ndarray:
    d = np.arange(d_max + 1)
    k = np.full(d.size, -1)
    while True:
        nxt = k + 1
        if method == "exact":
            p = 2 * binom.cdf(nxt, d, 0.5)
        else:
            p = binom.cdf(nxt - 1, d, 0.5) + binom.cdf(nxt, d, 0.5)
        step = (p <= alpha * (1 + 1e-12)) & (2 * nxt < d)
        if not step.any():
            return k
        k = k + step


def scipy_power(
    fix: float, brk: float, n: int, alpha: float = 0.05, method: str = "exact"
) -> float:
    """Exact power of McNemar's test (exact or mid-p) with n items."""
    psi, p = fix + brk, fix / (fix + brk)
    d = np.arange(n + 1)
    k = critical_counts(max(1024, 1 << max(n, 1).bit_length()), alpha, method)[: n + 1]
    w = binom.pmf(d, n, psi)
    tails = np.where(k >= 0, binom.cdf(k, d, p) + binom.sf(d - k - 1, d, p), 0.0)
    return float(np.sum(w * tails))
