"""Binomial probabilities without scipy (evalbot.stats._binomial) and the power line on them.

References, independent of the implementation:
- 60-digit decimal arithmetic (tests/binomial_reference.py: exact factorials and Stirling's
  series with exact Bernoulli numbers; tails summed term by term) for every probability;
- ``scipy.special.bdtr`` where it is itself accurate (up to 1,000 trials: within 1.5e-12 of
  the decimal reference over this grid), and the decimal reference showing where it is not;
- exact integer arithmetic (``math.comb``) for McNemar's critical counts;
- the critical counts, exact power and minimum detectable effect of the scipy-based code this
  replaced, stored in the scipy-free form of those rules (tests/power_reference.py).
"""

from __future__ import annotations

import itertools
import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from scipy.special import bdtr

from evalbot.stats import _binomial as binomial
from evalbot.stats._exact_power import (
    Binomial,
    conditional_power,
    conditional_power_slope,
    critical_counts,
)
from evalbot.stats.detectable import (
    _bisect,
    _normal_effect,
    _solve,
    mcnemar_minimum_detectable_effect,
)
from tests import binomial_reference as ref
from tests.power_reference import critical_counts as scipy_critical_counts
from tests.power_reference import scipy_power

SIZES = [1, 2, 7, 15, 16, 17, 50, 100, 1000, 2000, 10**4, 10**5, 10**6, 10**7]
RATES = [1e-6, 0.001, 0.01, 0.1, 0.3, 0.5, 0.5003, 0.7, 0.99, 0.999999]


def grid() -> list[tuple[int, int, float]]:
    """Every size and rate, with counts at 0, 1, n - 1, n and the mean +- 0, 1, 3, 10 and 40
    standard deviations (far tails down to the float range's end)."""
    out = []
    for n in SIZES:
        for p in RATES:
            sd = math.sqrt(n * p * (1 - p))
            counts = {0, 1, n - 1, n} | {
                round(n * p + c * sd) for c in (-40, -10, -3, -1, 0, 1, 3, 10, 40)
            }
            out.extend((k, n, p) for k in sorted(counts) if 0 <= k <= n)
    return out


def tolerance(value: Decimal) -> float:
    """A few ulp of the logarithm: a probability exp(L) carries L's absolute rounding."""
    return 2e-14 * max(1.0, abs(float(value.ln())))


def test_stirlerr_table_recomputed() -> None:
    # log(n!) - (n + 1/2) log n + n - log(2 pi)/2 in 50-digit decimals from the exact n!
    with localcontext() as ctx:
        ctx.prec = 50
        half_log_2pi = (2 * ref._PI).ln() / 2
        for n in range(1, 16):
            exact = (
                Decimal(math.factorial(n)).ln()
                - (n + Decimal("0.5")) * Decimal(n).ln()
                + n
                - half_log_2pi
            )
            assert binomial.stirlerr(np.array([n]))[0] == float(exact)
        # Stirling's series above the table: within 1e-17 of the decimal value
        for n in (16, 17, 40, 100, 10**4, 10**7):
            exact = ref.log_factorial(n) - (n + Decimal("0.5")) * Decimal(n).ln() + n - half_log_2pi
            assert abs(binomial.stirlerr(np.array([n]))[0] - float(exact)) < 1e-17


def test_log_pmf_against_decimal_reference() -> None:
    worst = 0.0
    for k, n, p in grid():
        exact = ref.log_pmf(k, n, p)
        if exact < -700:
            continue
        value = math.exp(binomial.log_pmf(np.array([k]), np.array([n]), p)[0])
        error = ref.relative_error(value, exact.exp())
        assert error <= tolerance(exact.exp()), (k, n, p)
        worst = max(worst, error)
    assert worst > 0.0  # the grid reaches values that are not exact in floats


def test_cdf_against_decimal_reference_and_scipy() -> None:
    scipy_worst = {"small": 0.0, "large": 0.0}
    for k, n, p in grid():
        exact = ref.cdf(k, n, p)
        if exact < Decimal("1e-300"):
            continue
        value = float(binomial.cdf(np.array([k]), np.array([n]), p)[0])
        assert ref.relative_error(value, exact) <= tolerance(exact), (k, n, p)
        scipy_error = ref.relative_error(float(bdtr(k, n, p)), exact)
        side = "small" if n <= 1000 else "large"
        scipy_worst[side] = max(scipy_worst[side], scipy_error)
        if n <= 1000:
            assert value == pytest.approx(float(bdtr(k, n, p)), rel=2e-12, abs=0.0), (k, n, p)
    # scipy's incomplete beta (its log-gamma prefactor) is that accurate only while n is small:
    # at 10^7 trials it is off by more than 1e-3 near the median. What this replaced.
    assert scipy_worst["small"] < 2e-12
    assert scipy_worst["large"] > 1e-4


def test_cdf_edges_and_sf() -> None:
    k = np.array([-3, -1, 0, 5, 10, 11, 30])
    n = np.array([10, 10, 10, 10, 10, 10, 10])
    assert binomial.cdf(k, n, 0.0).tolist() == [0, 0, 1, 1, 1, 1, 1]
    assert binomial.cdf(k, n, 1.0).tolist() == [0, 0, 0, 0, 1, 1, 1]
    assert binomial.cdf(np.array([0]), np.array([0]), 0.3)[0] == 1.0
    # P(X > 4) for Bin(10, 0.3): 1 - sum_{i <= 4} C(10, i) .3^i .7^(10-i), exactly in decimals
    assert float(binomial.sf(np.array([4]), np.array([10]), 0.3)[0]) == pytest.approx(
        float(1 - ref.cdf(4, 10, 0.3)), rel=1e-15
    )
    # McNemar's worked value: 2 P(X <= 1), X ~ Bin(10, 1/2) = 22/1024
    assert 2 * binomial.cdf(np.array([1]), np.array([10]), 0.5)[0] == pytest.approx(
        22 / 1024, rel=1e-15
    )


def random_path(rng: np.random.Generator, start: int, length: int) -> np.ndarray:
    return start // 3 + np.cumsum(rng.integers(0, 2, length))


@pytest.mark.parametrize(
    ("start", "length", "p", "kind"),
    [
        (0, 3000, 0.5, "critical"),  # from no rejection (k = -1) up
        (100_000, 6000, 0.5, "critical"),
        (100_000, 6000, 0.5044, "critical"),  # the share at a million items' MDE
        (2540, 960, 0.5257, "critical"),  # a tail that swings by 20 % a step
        (40_000, 3000, 0.9, "critical"),  # a tail falling by ~1e-100 over the path
        (40_000, 3000, 0.1, "critical"),  # the other tail, near 1
        (500, 5000, 0.37, "random"),
        (3_000_000, 2500, 0.5, "critical"),
    ],
)
def test_path_cdf_equals_direct_sums(start: int, length: int, p: float, kind: str) -> None:
    d = np.arange(start, start + length, dtype=np.int64)
    k = (
        critical_counts(d, 0.05, "exact")
        if kind == "critical"
        else random_path(np.random.default_rng(1), start, length)
    )
    path = binomial.path_cdf(d, k, p)
    direct = binomial.cdf(k, d, p)
    tiny = direct < 1e-290
    np.testing.assert_allclose(path[~tiny], direct[~tiny], rtol=2e-13, atol=0)
    assert np.all(path[tiny] <= 1e-280)
    # spot checks against the decimal reference
    for j in (0, length // 3, length - 1):
        exact = ref.cdf(int(k[j]), int(d[j]), p)
        if exact > Decimal("1e-290"):
            assert ref.relative_error(float(path[j]), exact) <= tolerance(exact)


def test_path_cdf_falls_back_when_not_a_path() -> None:
    d = np.array([10, 11, 13, 14, 20] * 20)
    k = np.array([3, 4, 4, 6, 2] * 20)
    np.testing.assert_array_equal(binomial.path_cdf(d, k, 0.4), binomial.cdf(k, d, 0.4))


# ------------------------------------------------------------------ McNemar's critical counts


def exact_critical_counts(d_max: int, alpha: float, method: str) -> list[int]:
    """Per d <= d_max, the largest k < d/2 with 2 sum_{i<=k} C(d, i) <= alpha 2^d (mid-p: minus
    C(d, k)), in integers (Pascal's rows; alpha as its float's exact value, with the code's
    1e-12 slack)."""
    slack = Decimal(alpha) * (1 + Decimal("1e-12"))
    row = [1]
    out = []
    for d in range(d_max + 1):
        if d:
            row = [1, *(a + b for a, b in itertools.pairwise(row)), 1]
        limit = slack * (1 << d)
        best, below = -1, 0
        for k in range((d + 1) // 2):
            numerator = 2 * below + (row[k] if method == "midp" else 2 * row[k])
            if numerator > limit:
                break
            best, below = k, below + row[k]
        out.append(best)
    return out


@pytest.mark.parametrize("method", ["exact", "midp"])
@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.2, 2**-5])
def test_critical_counts_against_integers(method: str, alpha: float) -> None:
    d = np.arange(0, 1200, dtype=np.int64)
    expected = exact_critical_counts(1199, alpha, method)
    assert critical_counts(d, alpha, method).tolist() == expected
    # the same counts, one at a time (no path to follow)
    sample = d[::97]
    assert [int(critical_counts(np.array([x]), alpha, method)[0]) for x in sample] == [
        expected[x] for x in sample
    ]


@pytest.mark.parametrize("alpha", [0.05, 0.001])
def test_asymptotic_counts_against_the_tests_own_pvalue(alpha: float) -> None:
    from evalbot.stats import mcnemar

    d = np.arange(0, 3000, dtype=np.int64)
    counts = critical_counts(d, alpha, "asymptotic")
    for x in range(0, 3000, 7):
        k = int(counts[x])
        if k >= 0:
            assert mcnemar(k, x - k, method="asymptotic").pvalue <= alpha
        if 2 * (k + 1) < x:
            assert mcnemar(k + 1, x - k - 1, method="asymptotic").pvalue > alpha


def scipy_critical_counts_by_steps(d: np.ndarray, alpha: float, method: str) -> np.ndarray:
    """The replaced implementation's rule with scipy.special: from the continuity-corrected
    normal boundary, step each count down while it does not reject and up while the next
    one does (``bdtr`` for the binomial tails, ``chdtrc`` for chi-squared)."""
    from statistics import NormalDist

    from scipy.special import chdtrc

    def rejects(k: np.ndarray, n: np.ndarray) -> np.ndarray:
        ok = (k >= 0) & (2 * k < n)
        kk = np.where(ok, k, 0)
        if method == "exact":
            p = 2.0 * bdtr(kk, n, 0.5)
        elif method == "midp":
            p = np.where(kk >= 1, bdtr(np.maximum(kk - 1, 0), n, 0.5), 0.0) + bdtr(kk, n, 0.5)
        else:
            gap = np.maximum(0, n - 2 * kk - 1).astype(float)
            p = chdtrc(1.0, gap * gap / np.maximum(n, 1))
        return ok & (p <= alpha * (1 + 1e-12))

    z = NormalDist().inv_cdf(1 - alpha / 2)
    k = np.floor((d - 1.0 - z * np.sqrt(d)) / 2.0).astype(np.int64)
    k = np.clip(k, -1, np.maximum((d - 1) // 2, -1))
    down = (k >= 0) & ~rejects(k, d)
    idx = np.flatnonzero(down)
    while idx.size:
        k[idx] -= 1
        idx = idx[(k[idx] >= 0) & ~rejects(k[idx], d[idx])]
    idx = np.flatnonzero(~down)
    while idx.size:
        idx = idx[rejects(k[idx] + 1, d[idx])]
        k[idx] += 1
    return k


@pytest.mark.parametrize("method", ["exact", "midp", "asymptotic"])
@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_critical_counts_equal_the_replaced_implementation(method: str, alpha: float) -> None:
    # identical for every count up to 300,000 (where scipy's tails are still within 1e-9,
    # far from any of these decisions), and over a window near a million
    for d in (
        np.arange(0, 300_001, dtype=np.int64),
        np.arange(1_000_000, 1_010_000, dtype=np.int64),
    ):
        np.testing.assert_array_equal(
            critical_counts(d, alpha, method), scipy_critical_counts_by_steps(d, alpha, method)
        )
    # and the stepping reference of tests/power_reference.py where it is quick
    if method != "asymptotic":
        np.testing.assert_array_equal(
            critical_counts(np.arange(0, 2001), alpha, method),
            scipy_critical_counts(2000, alpha, method),
        )


# ------------------------------------------------------------------ power and the MDE


def reference_conditional_power(d: int, k: int, share: float) -> Decimal:
    if k < 0:
        return Decimal(0)
    return ref.cdf(k, d, share) + ref.cdf(k, d, 1.0 - share)


@pytest.mark.parametrize(
    ("n", "psi", "share"), [(600, 0.2, 0.7), (200_000, 0.3, 0.5071), (10**6, 1.0, 0.5014)]
)
def test_conditional_power_and_its_slope(n: int, psi: float, share: float) -> None:
    d, _ = Binomial(psi).counts(n)
    k = critical_counts(d, 0.05, "exact")
    power, slope = conditional_power_slope(d, k, share)
    for j in sorted({0, d.size // 2, d.size - 1}):
        exact = reference_conditional_power(int(d[j]), int(k[j]), share)
        assert ref.relative_error(float(power[j]), exact) < 1e-13
        # the slope against a central difference of the decimal reference
        h = 1e-7
        up = reference_conditional_power(int(d[j]), int(k[j]), share + h)
        down = reference_conditional_power(int(d[j]), int(k[j]), share - h)
        numeric = float((up - down) / (Decimal(share + h) - Decimal(share - h)))
        assert slope[j] == pytest.approx(numeric, rel=1e-6)
    assert np.array_equal(conditional_power(d, k, share), power)


def test_window_weights_against_decimal_reference() -> None:
    for psi, n in [(0.1, 500), (0.3, 7), (0.001, 10**6), (0.9, 60), (0.5, 10**5)]:
        d, w = Binomial(psi).counts(n)
        assert w.sum() == pytest.approx(1.0, abs=1e-15)
        for j in sorted({0, int(np.argmax(w)), d.size // 3, d.size - 1}):
            exact = ref.log_pmf(int(d[j]), n, psi).exp()
            if exact > Decimal("1e-290"):
                # the window leaves out mass below 1e-20 and renormalises
                assert (
                    ref.relative_error(float(w[j]), exact)
                    < 1e-13 * max(1.0, abs(float(exact.ln()))) + 1e-19
                )


def smallest_share_reaching(n: int, psi: float, power: float = 0.8) -> tuple[float, float]:
    """MDE's share and the reference power just below it, by the decimal reference."""
    r = mcnemar_minimum_detectable_effect(n, psi, power=power)
    share = 0.5 + r.effect / (2 * psi)
    d, w = Binomial(psi).counts(r.effective_items)
    k = critical_counts(d, 0.05, "exact")

    def exact_power(s: float) -> float:
        total = Decimal(0)
        for dj, wj, kj in zip(d.tolist(), w.tolist(), k.tolist(), strict=True):
            if wj > 1e-18:
                total += Decimal(wj) * reference_conditional_power(dj, kj, s)
        return float(total - Decimal(power))

    return exact_power(share), exact_power(math.nextafter(share, 0.0))


def test_minimum_detectable_effect_is_the_smallest_share_at_large_n() -> None:
    # a million items, all discordant: the window is one count; the decimal reference's
    # power reaches 0.8 at the share returned and not one float below (to 1e-13)
    at, below = smallest_share_reaching(10**6, 1.0)
    assert at >= -1e-13
    assert below < 1e-13


def test_minimum_detectable_effect_matches_the_scipy_reference() -> None:
    # at 500 items the scipy-based reference is accurate to ~1e-12: its power at the share
    # returned is 0.8, and a share 1e-9 smaller falls short.
    for n, psi in [(500, 0.1), (500, 0.04), (2000, 0.33)]:
        r = mcnemar_minimum_detectable_effect(n, psi)
        assert scipy_power(r.fix_rate, r.break_rate, n) == pytest.approx(0.8, abs=1e-11)
        share = r.fix_rate / psi - 1e-9
        assert scipy_power(psi * share, psi * (1 - share), n) < 0.8


@pytest.mark.parametrize(
    ("n", "psi"), [(6, 1.0), (100, 0.1), (500, 0.1), (10_000, 0.3), (10**6, 0.1)]
)
def test_newton_search_returns_what_bisection_returns(n: int, psi: float) -> None:
    d, w = Binomial(psi).counts(n)
    k = critical_counts(d, 0.05, "exact")

    def f(s: float) -> float:
        return float(np.sum(w * conditional_power(d, k, s))) - 0.8

    def slope(s: float) -> float:
        return float(np.sum(w * conditional_power_slope(d, k, s)[1]))

    calls: list[float] = []

    def counted(s: float) -> float:
        calls.append(s)
        return f(s)

    # from the normal approximation's share, as mcnemar_minimum_detectable_effect starts
    normal = _normal_effect(n, psi, 0.05, 0.8)
    newton = _solve(counted, slope, 0.5, 1.0, 0.5 + normal / (2 * psi))
    bisection = _bisect(f, 0.5, 1.0)
    # bisection's answer or an adjacent float: near the root the power's own rounding
    # (~1e-16) moves the crossing by less than an ulp of the share
    assert abs(newton - bisection) <= 2 * math.ulp(bisection)
    assert f(newton) >= 0.0 > f(math.nextafter(newton, 0.0))
    assert len(calls) <= 12
