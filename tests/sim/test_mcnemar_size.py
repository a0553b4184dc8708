"""False-positive rate of McNemar's test, computed exactly (no Monte Carlo).

Under the null hypothesis (an item is as likely to be fixed as broken: fix rate = break rate =
psi / 2) the discordant count is D ~ Bin(n, psi) and, given D = d, the fixed count is
Bin(d, 1/2). The test rejects when the smaller count is at most a critical count k_d, so

    FPR(n, psi) = sum_d P(D = d) * 2 P(Bin(d, 1/2) <= k_d).

k_d is found here from scipy.stats (binomial cdf for exact and mid-p, chi2 for asymptotic)
and checked against evalbot's own ``mcnemar`` decisions at k_d and k_d + 1. The table gives
the largest rate over a grid of discordance rates psi from 2 % to 100 %.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from scipy.stats import binom, chi2

from evalbot.stats.mcnemar import mcnemar
from tests.sim._common import ALPHA, table

SIZES = (10, 30, 100, 1000)
PSI = (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0)
METHODS = ("exact", "midp", "asymptotic")


def smaller_count_pvalue(k: np.ndarray, d: np.ndarray, method: str) -> np.ndarray:
    """The p-value when the smaller of the two discordant counts is k (scipy references)."""
    if method == "exact":
        return np.minimum(1.0, 2 * binom.cdf(k, d, 0.5))
    if method == "midp":
        return np.minimum(1.0, binom.cdf(k - 1, d, 0.5) + binom.cdf(k, d, 0.5))
    stat = np.maximum(0, d - 2 * k - 1) ** 2 / np.maximum(d, 1)
    return np.where(d > 0, chi2.sf(stat, 1), 1.0)


@cache
def critical_counts(method: str, d_max: int = max(SIZES)) -> np.ndarray:
    d = np.arange(d_max + 1)
    k = np.full(d.size, -1)
    while True:
        nxt = k + 1
        ok = (2 * nxt < d) & (smaller_count_pvalue(nxt, d, method) <= ALPHA * (1 + 1e-12))
        if not ok.any():
            return k
        k = k + ok


@pytest.mark.parametrize("method", METHODS)
def test_critical_counts_match_evalbot(method: str) -> None:
    k = critical_counts(method)
    for d in [*range(1, 201), *range(201, max(SIZES) + 1, 7)]:
        if k[d] >= 0:
            assert mcnemar(k[d], d - k[d], method=method).pvalue <= ALPHA
        if 2 * (k[d] + 1) < d:
            assert mcnemar(k[d] + 1, d - k[d] - 1, method=method).pvalue > ALPHA


def false_positive_rate(method: str, n: int, psi: float) -> float:
    d = np.arange(n + 1)
    k = critical_counts(method)[: n + 1]
    size = np.where(k >= 0, 2 * binom.cdf(k, d, 0.5), 0.0)
    return float(np.sum(binom.pmf(d, n, psi) * size))


def test_false_positive_rates() -> None:
    worst = {m: {n: max(false_positive_rate(m, n, p) for p in PSI) for n in SIZES} for m in METHODS}
    conditional = {
        m: float(np.max(2 * binom.cdf(np.maximum(k, 0), np.arange(k.size), 0.5) * (k >= 0)))
        for m, k in ((m, critical_counts(m)) for m in METHODS)
    }
    table(
        "McNemar: exact false-positive rate at alpha = 0.05 (largest over psi = 2 % .. 100 %)",
        ["method", *(f"n={n}" for n in SIZES), "max given d <= 1000"],
        [[m, *(worst[m][n] for n in SIZES), conditional[m]] for m in METHODS],
    )
    for n in SIZES:
        # exact and the continuity-corrected chi-squared never exceed alpha: not on average,
        # and not given any number of discordant pairs
        assert worst["exact"][n] <= ALPHA
        assert worst["asymptotic"][n] <= ALPHA
    assert conditional["exact"] <= ALPHA and conditional["asymptotic"] <= ALPHA
    # mid-p is not a level-alpha test: it exceeds alpha, most when every item is discordant
    # (the README says so). Its worst case on this grid:
    assert max(worst["midp"].values()) <= 0.06
    assert conditional["midp"] <= 0.08
