"""Sample size and power for McNemar's test.

References: the brief's worked planning values (36 pairs / 328 items; 634 / 7045), the
normal-approximation formula evaluated inline, an exact power summed here with
``math.comb`` and ``Fraction``-free floats over a small N, and a seeded simulation.
"""

from __future__ import annotations

import math
import re

import pytest
from scipy.stats import norm

from evalbot.stats.power import (
    mcnemar_exact_power,
    mcnemar_minimum_detectable_effect,
    mcnemar_sample_size,
    simulate_mcnemar_power,
)


@pytest.mark.parametrize(
    ("fix", "brk", "pairs", "items"),
    [
        (0.08, 0.03, 36, 328),  # brief / INTERFACE.md plan example
        (0.05, 0.04, 634, 7045),  # brief
        (0.03, 0.08, 36, 328),  # a regression is as detectable as the mirrored improvement
    ],
)
def test_worked_sample_sizes(fix: float, brk: float, pairs: int, items: int) -> None:
    r = mcnemar_sample_size(fix, brk)
    assert (r.discordant_pairs, r.items) == (pairs, items)
    assert r.discordant_rate == pytest.approx(fix + brk)


def test_formula_inline() -> None:
    # Connor's conditional formula evaluated independently for other inputs.
    fix, brk, alpha, power = 0.12, 0.02, 0.01, 0.9
    psi, p = fix + brk, fix / (fix + brk)
    za, zb = norm.ppf(1 - alpha / 2), norm.ppf(power)
    d = (za / 2 + zb * math.sqrt(p * (1 - p))) ** 2 / (p - 0.5) ** 2
    r = mcnemar_sample_size(fix, brk, alpha=alpha, power=power)
    assert r.discordant_pairs == math.ceil(d)
    assert r.items == math.ceil(math.ceil(d) / psi)


def exact_power_reference(fix: float, brk: float, n: int, alpha: float) -> float:
    """Brute force: enumerate all (fixed, broken) counts with multinomial probabilities."""
    rest = 1 - fix - brk
    total = 0.0
    for b in range(n + 1):
        for c in range(n + 1 - b):
            d, k = b + c, min(b, c)
            if d == 0:
                continue
            p = min(1.0, 2 * sum(math.comb(d, i) for i in range(k + 1)) / 2**d)
            if p <= alpha:
                prob = math.comb(n, b) * math.comb(n - b, c) * fix**b * brk**c * rest ** (n - d)
                total += prob
    return total


@pytest.mark.parametrize(("fix", "brk", "n"), [(0.2, 0.05, 40), (0.3, 0.1, 25), (0.1, 0.3, 60)])
def test_exact_power_against_enumeration(fix: float, brk: float, n: int) -> None:
    assert mcnemar_exact_power(fix, brk, n) == pytest.approx(
        exact_power_reference(fix, brk, n, 0.05), rel=1e-9
    )


def test_exact_power_and_simulation_check_the_approximation() -> None:
    r = mcnemar_sample_size(0.08, 0.03)
    sim = simulate_mcnemar_power(0.08, 0.03, r.items, n_simulations=20_000, seed=1)
    mc_se = math.sqrt(r.exact_power * (1 - r.exact_power) / 20_000)
    assert sim == pytest.approx(r.exact_power, abs=4 * mc_se)
    # The exact test is conservative: the achieved power is a bit below the nominal 0.8.
    assert 0.7 < r.exact_power < 0.8
    assert 0.7 < r.exact_conditional_power < 0.8


def test_simulation_is_seeded() -> None:
    assert simulate_mcnemar_power(0.1, 0.05, 200, seed=3) == simulate_mcnemar_power(
        0.1, 0.05, 200, seed=3
    )


def test_minimum_detectable_effect_inverts_sample_size() -> None:
    # "With 100 items you can detect about 8 pp" (10% discordance).
    r = mcnemar_minimum_detectable_effect(100, 0.10)
    assert r.detectable
    assert r.effect == pytest.approx(0.078, abs=0.001)
    assert r.fix_rate - r.break_rate == pytest.approx(r.effect)
    # Round trip: planning for that effect needs D = 10 discordant items (the real-valued d
    # equals 10 up to the ceiling).
    plan = mcnemar_sample_size(r.fix_rate, r.break_rate)
    assert plan.discordant_pairs == 10
    assert plan.items == 100


def test_minimum_detectable_effect_impossible() -> None:
    # 3 expected discordant items: even 3 of 3 fixed gives exact p = 0.25 (not detectable).
    r = mcnemar_minimum_detectable_effect(30, 0.10)
    assert not r.detectable
    assert math.isnan(r.effect)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (
            (0.05, 0.05),
            {},
            "`fix_rate` and `break_rate` must differ (no effect to detect); got 0.05 and 0.05.",
        ),
        ((0.7, 0.5), {}, "`fix_rate` + `break_rate` must be at most 1; got 0.7 + 0.5."),
        ((1.2, 0.5), {}, "`fix_rate` must be in [0, 1); got 1.2."),
        ((0.1, 0.05), {"alpha": 0}, "`alpha` must be in (0, 1); got 0."),
        ((0.1, 0.05), {"power": "high"}, "`power` must be a number; got 'high'."),
    ],
)
def test_input_validation(
    args: tuple[float, float], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        mcnemar_sample_size(*args, **kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_exact_power_truncated_sum_for_large_n() -> None:
    # Above 1000 items only the bulk of Bin(n, psi) is summed; compare with the full sum,
    # written independently (critical count found by scanning the exact tail per d).
    from scipy.stats import binom

    fix, brk, n, alpha = 0.02, 0.01, 1500, 0.05
    psi, p = fix + brk, fix / (fix + brk)
    total = 0.0
    for d in range(1, n + 1):
        w = binom.pmf(d, n, psi)
        if w < 1e-18:  # neglected mass < 1500 * 1e-18
            continue
        k = -1
        while 2 * binom.cdf(k + 1, d, 0.5) <= alpha:
            k += 1
        if k >= 0:
            total += w * (binom.cdf(k, d, p) + binom.sf(d - k - 1, d, p))
    assert mcnemar_exact_power(fix, brk, n) == pytest.approx(total, rel=1e-9)


def test_minimum_detectable_effect_checked_by_exact_power() -> None:
    # At the detectable split for 400 items and 11% discordance, the exact power of the exact
    # test (computed without approximation) is near the nominal 0.8, a little below it
    # because the exact test is conservative.
    r = mcnemar_minimum_detectable_effect(400, 0.11)
    exact = mcnemar_exact_power(r.fix_rate, r.break_rate, 400)
    assert 0.7 < exact < 0.82
