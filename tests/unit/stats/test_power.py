"""Sample size, exact power and minimum detectable effect for McNemar's test.

References, independent of the implementation:
- exact power by brute-force enumeration of every (fixed, broken) count with multinomial
  probabilities and the exact p-value from ``math.comb`` (small n), and by
  ``scipy.stats.binom`` sums over the discordant count with the critical value found by
  scanning ``binom.cdf`` (larger n);
- the sample-size rule ("smallest n whose exact power reaches the target", and from where it
  stays above) by computing that reference power at every n from 1 up;
- the normal approximation (Connor 1987) evaluated inline with ``scipy.stats.norm``; the
  issue's figures (328 items give the exact test power 0.746; 367 are needed) recomputed here;
- a seeded simulation.
"""

from __future__ import annotations

import math
import re
from functools import cache

import numpy as np
import pytest
from scipy.stats import norm

from evalbot.stats.mcnemar import mcnemar
from evalbot.stats.power import (
    mcnemar_exact_power,
    mcnemar_minimum_detectable_effect,
    mcnemar_normal_sample_size,
    mcnemar_sample_size,
    simulate_mcnemar_power,
)
from tests.power_reference import scipy_power

# ---------------------------------------------------------------- independent references


@cache
def decisions(n_max: int, alpha: float, method: str) -> np.ndarray:
    """R[b, c] = evalbot's test rejects at (fixed=b, broken=c), from ``mcnemar`` itself (its
    p-values are checked against exact Fraction references in test_mcnemar.py)."""
    r = np.zeros((n_max + 1, n_max + 1), dtype=bool)
    for b in range(n_max + 1):
        for c in range(n_max + 1 - b):
            r[b, c] = mcnemar(b, c, method=method).pvalue <= alpha
    return r


def enumerated_power(fix: float, brk: float, n: int, alpha: float, method: str = "exact") -> float:
    """Brute force: every (fixed, broken, unchanged) count with its multinomial probability
    (``math.comb``), summed where the test rejects."""
    rest = 1 - fix - brk
    reject = decisions(max(n, 64), alpha, method)
    total = 0.0
    for b in range(n + 1):
        for c in range(n + 1 - b):
            if reject[b, c]:
                total += (
                    math.comb(n, b) * math.comb(n - b, c) * fix**b * brk**c * rest ** (n - b - c)
                )
    return total


# ---------------------------------------------------------------- exact power


@pytest.mark.parametrize("method", ["exact", "midp", "asymptotic"])
@pytest.mark.parametrize(("fix", "brk", "n"), [(0.2, 0.05, 40), (0.3, 0.1, 25), (0.1, 0.3, 31)])
def test_exact_power_against_enumeration(fix: float, brk: float, n: int, method: str) -> None:
    assert mcnemar_exact_power(fix, brk, n, method=method) == pytest.approx(
        enumerated_power(fix, brk, n, 0.05, method), rel=1e-9, abs=1e-12
    )


def test_exact_power_large_n_against_scipy() -> None:
    # Above 1000 items only the window of Bin(n, psi) within 10 sd is summed.
    assert mcnemar_exact_power(0.02, 0.01, 1500) == pytest.approx(
        scipy_power(0.02, 0.01, 1500), rel=1e-9
    )


def test_issue_figures_recomputed() -> None:
    # The issue: the normal approximation's 328 items give the exact test power 0.746 for fix
    # 8 % / break 3 %; 367 items are needed. Recomputed with scipy.stats.binom sums.
    assert scipy_power(0.08, 0.03, 328) == pytest.approx(0.74557, abs=1e-5)
    assert scipy_power(0.08, 0.03, 366) < 0.8 <= scipy_power(0.08, 0.03, 367)
    assert mcnemar_exact_power(0.08, 0.03, 328) == pytest.approx(
        scipy_power(0.08, 0.03, 328), rel=1e-10
    )


@pytest.mark.parametrize(
    ("fix", "brk", "n", "expected"),
    [
        (0.0, 0.0, 10, 0.0),  # nothing changes: the test never rejects
        (1.0, 0.0, 5, 0.0),  # every item fixed, but 2/32 > 0.05: impossible
        (1.0, 0.0, 6, 1.0),  # 2/64 <= 0.05: always rejects
        (0.0, 1.0, 6, 1.0),
        (0.3, 0.2, 0, 0.0),  # no items
    ],
)
def test_exact_power_is_total(fix: float, brk: float, n: int, expected: float) -> None:
    assert mcnemar_exact_power(fix, brk, n) == expected


def test_equal_rates_give_the_size() -> None:
    # fix == break is the null: the power is the test's (conservative) size, below alpha.
    size = mcnemar_exact_power(0.1, 0.1, 60)
    assert size == pytest.approx(enumerated_power(0.1, 0.1, 60, 0.05), rel=1e-9)
    assert size < 0.05


# ---------------------------------------------------------------- sample size


def reference_rule(fix: float, brk: float, target: float, limit: int) -> tuple[int, int]:
    """(smallest n with power >= target, smallest n from which it never drops below again
    within ``limit``), by the scipy reference power at every n."""
    powers = [scipy_power(fix, brk, n) for n in range(1, limit + 1)]
    first = next(i + 1 for i, p in enumerate(powers) if p >= target)
    last_below = max(i + 1 for i, p in enumerate(powers) if p < target)
    return first, last_below + 1


@pytest.mark.parametrize(
    ("fix", "brk", "target", "limit"),
    [
        (0.08, 0.03, 0.8, 600),  # the issue's example: 367
        (0.9, 0.08, 0.8, 100),  # a sawtooth: 10 items reach 0.8, 11 do not, 12 on do
        (0.3, 0.05, 0.9, 200),
        (0.5, 0.1, 0.8, 100),
    ],
)
def test_sample_size_is_the_smallest_n_by_the_reference(
    fix: float, brk: float, target: float, limit: int
) -> None:
    first, stable = reference_rule(fix, brk, target, limit)
    r = mcnemar_sample_size(fix, brk, power=target)
    assert (r.items, r.stable_items, r.stays_above) == (first, stable, first == stable)
    assert r.rule == "smallest"
    assert r.exact_power == pytest.approx(scipy_power(fix, brk, first), rel=1e-9)
    assert r.exact_power >= target


def test_issue_plan_and_the_normal_approximation_beside_it() -> None:
    r = mcnemar_sample_size(0.08, 0.03)
    assert r.items == 367
    # Connor's formula evaluated here: p = 8/11, d = (z_.975/2 + z_.8 sqrt(p(1-p)))^2/(p-1/2)^2
    p = 0.08 / 0.11
    d = (norm.ppf(0.975) / 2 + norm.ppf(0.8) * math.sqrt(p * (1 - p))) ** 2 / (p - 0.5) ** 2
    assert (r.normal.discordant_pairs, r.normal.items) == (math.ceil(d), 328)
    assert r.normal.exact_power == pytest.approx(0.74557, abs=1e-5)
    assert r.discordant_pairs == math.ceil(367 * 0.11)  # 40.37 -> 41 expected


def test_sawtooth_example_by_hand() -> None:
    # fix 0.9 / break 0.08: the reference powers at 10, 11 and 12 items straddle 0.8.
    assert scipy_power(0.9, 0.08, 10) >= 0.8 > scipy_power(0.9, 0.08, 11)
    assert scipy_power(0.9, 0.08, 12) >= 0.8
    r = mcnemar_sample_size(0.9, 0.08)
    assert (r.items, r.stable_items, r.stays_above) == (10, 12, False)


def test_issue_plan_with_midp() -> None:
    # mid-p is less conservative: the smallest n reaching 0.8, by the scipy reference
    powers = [scipy_power(0.08, 0.03, n, method="midp") for n in range(1, 400)]
    first = 1 + next(i for i, p in enumerate(powers) if p >= 0.8)
    assert mcnemar_sample_size(0.08, 0.03, method="midp").items == first == 335


@pytest.mark.parametrize("method", ["midp", "asymptotic"])
def test_sample_size_for_the_other_tests(method: str) -> None:
    # The smallest n whose enumerated power (the test's own decisions) reaches 0.8.
    r = mcnemar_sample_size(0.3, 0.05, power=0.8, method=method)
    powers = {n: enumerated_power(0.3, 0.05, n, 0.05, method) for n in range(1, r.items + 1)}
    assert powers[r.items] >= 0.8
    assert all(p < 0.8 for n, p in powers.items() if n < r.items)
    assert r.method == method


def test_normal_sample_size_inline() -> None:
    fix, brk, alpha, power = 0.12, 0.02, 0.01, 0.9
    psi, p = fix + brk, fix / (fix + brk)
    za, zb = norm.ppf(1 - alpha / 2), norm.ppf(power)
    d = (za / 2 + zb * math.sqrt(p * (1 - p))) ** 2 / (p - 0.5) ** 2
    assert mcnemar_normal_sample_size(fix, brk, alpha=alpha, power=power) == (
        math.ceil(d),
        math.ceil(math.ceil(d) / psi),
    )


@pytest.mark.parametrize(("fix", "brk"), [(1.0, 0.0), (0.0, 1.0), (0.6, 0.0)])
def test_sample_size_is_total_over_tables(fix: float, brk: float) -> None:
    # The rates of a 1-item "false -> true" table, of 5 all-broken items (exact p = 2^(1-d)
    # first reaches 0.05 at d = 6, and with every item discordant d = n), and a one-sided
    # case; the reference: the first n whose enumerated power reaches 0.8.
    r = mcnemar_sample_size(fix, brk)
    first = next(n for n in range(1, 60) if enumerated_power(fix, brk, n, 0.05) >= 0.8)
    assert r.items == first
    if fix + brk == 1.0:
        assert r.items == 6


def test_large_plans_bisect_and_say_so() -> None:
    r = mcnemar_sample_size(0.0011, 0.001)
    assert r.rule == "bisection"
    assert r.stable_items is None and r.stays_above is None
    assert r.exact_power >= 0.8
    # within a fraction of a percent of the normal approximation at this size
    assert abs(r.items / r.normal.items - 1) < 0.02
    huge = mcnemar_sample_size(0.05, 0.04999)
    assert huge.rule == "normal approximation"
    assert math.isnan(huge.exact_power)


def test_design_effect_multiplies_the_items() -> None:
    plain = mcnemar_sample_size(0.08, 0.03)
    clustered = mcnemar_sample_size(0.08, 0.03, design_effect=1.5)
    assert clustered.unclustered_items == plain.items
    assert clustered.items == math.ceil(367 * 1.5)


def test_exact_power_and_simulation_agree() -> None:
    r = mcnemar_sample_size(0.08, 0.03)
    sims = 20_000
    sim = simulate_mcnemar_power(0.08, 0.03, r.items, n_simulations=sims, seed=1)
    mc_se = math.sqrt(r.exact_power * (1 - r.exact_power) / sims)
    assert sim == pytest.approx(r.exact_power, abs=4 * mc_se)


def test_simulation_is_seeded_and_applies_each_method() -> None:
    assert simulate_mcnemar_power(0.1, 0.05, 200, seed=3) == simulate_mcnemar_power(
        0.1, 0.05, 200, seed=3
    )
    # mid-p rejects at least as often as the exact test on the same draws
    assert simulate_mcnemar_power(0.1, 0.05, 200, method="midp") >= simulate_mcnemar_power(
        0.1, 0.05, 200
    )


def test_search_is_fast_enough_for_large_plans() -> None:
    # Not a timing test: the search touches few sizes. At n ~ 7,000 it evaluates well under
    # a thousand candidate sizes (counted through the curve).
    from evalbot.stats import power as module

    calls: list[int] = []
    original = module.PowerCurve.power

    def counting(self: module.PowerCurve, n: object) -> np.ndarray:
        out = original(self, n)  # type: ignore[arg-type]
        calls.append(out.size)
        return out

    module.PowerCurve.power = counting  # type: ignore[method-assign]
    try:
        r = mcnemar_sample_size(0.05, 0.04)
    finally:
        module.PowerCurve.power = original  # type: ignore[method-assign]
    assert r.items == 7241
    assert sum(calls) < 1_000


# ---------------------------------------------------------------- detectable effect


def test_minimum_detectable_effect_is_exact() -> None:
    # 100 items, 10 % discordant: at the returned split the reference power is 0.8; a split
    # 0.002 smaller falls short. The normal approximation's effect (0.0785, Connor's formula
    # inverted) has exact power 0.645, as the issue says.
    r = mcnemar_minimum_detectable_effect(100, 0.10)
    assert r.detectable
    assert scipy_power(r.fix_rate, r.break_rate, 100) == pytest.approx(0.8, abs=1e-9)
    smaller = r.effect - 0.002
    share = 0.5 + smaller / 0.2
    assert scipy_power(0.1 * share, 0.1 * (1 - share), 100) < 0.8
    assert r.normal_effect == pytest.approx(0.07848, abs=1e-5)
    normal_share = 0.5 + r.normal_effect / 0.2
    assert r.normal_exact_power == pytest.approx(
        scipy_power(0.1 * normal_share, 0.1 * (1 - normal_share), 100), rel=1e-9
    )
    assert round(r.normal_exact_power, 3) == 0.645


@pytest.mark.parametrize(
    ("items", "rate"),
    [
        (1, 1.0),  # 1 item, all discordant
        (5, 1.0),  # 5 items all changed: exact p >= 2/32 > 0.05
        (30, 0.1),  # 3 expected discordant pairs
        (100, 0.0),  # nothing changes
        (0, 0.5),  # no items
    ],
)
def test_minimum_detectable_effect_is_total(items: int, rate: float) -> None:
    r = mcnemar_minimum_detectable_effect(items, rate)
    assert not r.detectable
    assert math.isnan(r.effect)


def test_minimum_detectable_effect_all_discordant() -> None:
    # 6 items, all discordant: power at share s is P(Bin(6, s) in {0, 6}) = s^6 + (1-s)^6
    # (the exact test rejects only 6/0 and 0/6); solve s^6 + (1-s)^6 = 0.8 by bisection here.
    lo, hi = 0.5, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mid**6 + (1 - mid) ** 6 < 0.8 else (lo, mid)
    r = mcnemar_minimum_detectable_effect(6, 1.0)
    assert r.effect == pytest.approx(2 * hi - 1, abs=1e-9)


def test_minimum_detectable_effect_with_design_effect() -> None:
    r = mcnemar_minimum_detectable_effect(400, 0.11, design_effect=2.0)
    assert r.effective_items == 200
    assert r.effect == pytest.approx(mcnemar_minimum_detectable_effect(200, 0.11).effect)


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (
            (0.05, 0.05),
            {},
            "`fix_rate` and `break_rate` must differ (no effect to detect); got 0.05 and 0.05.",
        ),
        ((0.7, 0.5), {}, "`fix_rate` + `break_rate` must be at most 1; got 0.7 + 0.5."),
        ((1.2, 0.5), {}, "`fix_rate` must be in [0, 1]; got 1.2."),
        ((0.1, 0.05), {"alpha": 0}, "`alpha` must be in (0, 1); got 0."),
        ((0.1, 0.05), {"power": "high"}, "`power` must be a number; got 'high'."),
        (
            (0.1, 0.05),
            {"method": "fisher"},
            "`method` must be one of 'exact', 'midp', 'asymptotic'; got 'fisher'.",
        ),
        (
            (0.1, 0.05),
            {"design_effect": 0.5},
            "`design_effect` must be a finite number >= 1; got 0.5.",
        ),
    ],
)
def test_input_validation(
    args: tuple[float, float], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        mcnemar_sample_size(*args, **kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message
