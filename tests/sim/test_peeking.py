"""Simulation: the guard against peeking works, and peeking without it does not.

Under the null (a discordant item is fixed or broken with probability 1/2) the discordant
pairs arrive in batches of 10 and someone looks after every batch, up to 30 looks (300 pairs),
stopping at the first p <= alpha = 0.05. Two ways to compute the chance of a false positive:

- exactly, by dynamic programming over the fixed count (absorbing the rejected paths); and
- by a seeded Monte Carlo of 20,000 paths, whose standard error at a rate near 0.05 is
  sqrt(0.05 * 0.95 / 20000) = 0.0015; we allow 4 standard errors of slack (0.006).

The fixed-N exact McNemar test, peeked at every batch, is known to inflate the rate many times
over (Armitage, McPherson, Rowe 1969, J. R. Stat. Soc. A 132, 235-244); the mixture SPRT must
not exceed alpha. Measured with these settings: SPRT 0.0147 exact (0.0141 simulated), peeking
McNemar 0.227 exact (0.226 simulated), one look at 300 pairs 0.044.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from evalbot.stats.mcnemar import mcnemar
from evalbot.stats.sequential import mixture_log_likelihood_ratio, sequential_pvalues

ALPHA = 0.05
BATCH = 10
LOOKS = 30
PATHS = 20_000
SLACK = 4 * np.sqrt(ALPHA * (1 - ALPHA) / PATHS)


def exact_mcnemar_pvalues(fixed: np.ndarray, n: np.ndarray) -> np.ndarray:
    k = np.minimum(fixed, n - fixed)
    return np.where(n == 0, 1.0, np.minimum(1.0, 2.0 * binom.cdf(k, n, 0.5)))


def test_vectorised_mcnemar_agrees_with_evalbot() -> None:
    for fixed, n in [(9, 10), (1, 10), (14, 45), (150, 300)]:
        got = float(exact_mcnemar_pvalues(np.array([fixed]), np.array([n]))[0])
        assert got == pytest.approx(mcnemar(fixed, n - fixed).pvalue, rel=1e-9)


def crossing_probabilities() -> tuple[float, float]:
    """Exact P(reject at some look) under the null, for the SPRT and for peeking McNemar."""
    total = LOOKS * BATCH
    step = binom.pmf(np.arange(BATCH + 1), BATCH, 0.5)
    x = np.arange(total + 1)
    alive_sprt = np.zeros(total + 1)
    alive_sprt[0] = 1.0
    alive_peek = alive_sprt.copy()
    sprt = peek = 0.0
    for look in range(1, LOOKS + 1):
        n = look * BATCH
        alive_sprt = np.convolve(alive_sprt, step)[: total + 1]
        alive_peek = np.convolve(alive_peek, step)[: total + 1]
        possible = x <= n
        reject_sprt = possible.copy()
        reject_sprt[possible] = mixture_log_likelihood_ratio(
            x[possible], n - x[possible]
        ) >= np.log(1 / ALPHA)
        reject_peek = possible & (exact_mcnemar_pvalues(x, np.full_like(x, n)) <= ALPHA)
        sprt += float(alive_sprt[reject_sprt].sum())
        peek += float(alive_peek[reject_peek].sum())
        alive_sprt[reject_sprt] = 0.0
        alive_peek[reject_peek] = 0.0
    return sprt, peek


def test_exact_false_positive_rates() -> None:
    sprt, peek = crossing_probabilities()
    assert sprt <= ALPHA  # no slack: this is exact
    assert abs(sprt - 0.014667) < 1e-5
    assert peek > 3 * ALPHA  # peeking at a fixed-N test: 0.227
    assert abs(peek - 0.227228) < 1e-5


def test_simulated_false_positive_rates() -> None:
    rng = np.random.default_rng(20261130)
    fixed = np.cumsum(rng.binomial(BATCH, 0.5, size=(PATHS, LOOKS)), axis=1)
    n = BATCH * np.arange(1, LOOKS + 1)
    broken = n - fixed
    sprt_rate = float(np.mean(sequential_pvalues(fixed, broken).min(axis=1) <= ALPHA))
    peeking = exact_mcnemar_pvalues(fixed, np.broadcast_to(n, fixed.shape)) <= ALPHA
    peek_rate = float(np.mean(peeking.any(axis=1)))
    final_rate = float(np.mean(peeking[:, -1]))
    assert sprt_rate <= ALPHA + SLACK
    assert peek_rate >= 3 * ALPHA
    assert final_rate <= ALPHA + SLACK  # one pre-planned look is fine (the exact test)


def test_sprt_has_power_under_an_alternative() -> None:
    # not only conservative: with 70% of discordant items fixed it rejects in most paths
    rng = np.random.default_rng(7)
    fixed = np.cumsum(rng.binomial(BATCH, 0.7, size=(2_000, LOOKS)), axis=1)
    n = BATCH * np.arange(1, LOOKS + 1)
    rate = float(np.mean(sequential_pvalues(fixed, n - fixed).min(axis=1) <= ALPHA))
    assert rate > 0.9
