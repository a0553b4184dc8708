"""Planning: items needed to detect a change, by exact power search.

Everything here is computed for the test evalbot actually runs (McNemar's test, exact by
default; mid-p and asymptotic on request) by exact enumeration, not by a normal approximation:
the number of discordant items is ``D ~ Bin(items, fix_rate + break_rate)`` and, given ``D``,
the fixed count is ``Bin(D, fix_rate / (fix_rate + break_rate))``; the power sums the
conditional rejection probability over ``D``. The normal approximation (Connor 1987) is kept
beside each result as a labelled comparison. The change detectable with given items is in
:mod:`evalbot.stats.detectable` (re-exported here); the engine in ``_exact_power``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from evalbot.stats._exact_power import (
    _NORMAL_ONLY_PAIRS,
    _WINDOW_ONLY_PAIRS,
    PowerCurve,
    SearchRule,
    ceil_fuzzy,
    conditional_power,
    critical_counts,
    design_effect_iv,
    exact_search,
    first_crossing,
    method_iv,
    rates_iv,
)
from evalbot.stats._validation import as_count, as_probability
from evalbot.stats.detectable import DetectableEffectResult, mcnemar_minimum_detectable_effect
from evalbot.stats.mcnemar import McNemarMethod
from evalbot.vocabulary import ALPHA, POWER

__all__ = [
    "DetectableEffectResult",
    "NormalApproximation",
    "SampleSizeResult",
    "mcnemar_exact_power",
    "mcnemar_minimum_detectable_effect",
    "mcnemar_normal_sample_size",
    "mcnemar_sample_size",
    "simulate_mcnemar_power",
]


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True, kw_only=True)
class NormalApproximation:
    """The textbook normal-approximation plan, kept as a labelled comparison.

    Attributes
    ----------
    discordant_pairs, items : int
        Connor's (1987) conditional formula: ``d = (z_{1-alpha/2} / 2 + z_power sqrt(p (1 -
        p)))^2 / (p - 1/2)^2`` rounded up, and ``items = ceil(discordant_pairs / psi)``.
    exact_power : float
        The exact power of the chosen test at ``items``: what that plan really delivers.
    """

    discordant_pairs: int
    items: int
    exact_power: float


@dataclass(frozen=True, kw_only=True)
class SampleSizeResult:
    """Result of :func:`mcnemar_sample_size`.

    Attributes
    ----------
    items : int
        The recommended number of items: the smallest number whose exact power with the test
        ``method`` reaches ``power`` (times the design effect, rounded up).
    exact_power : float
        The power the test really has at ``items`` (computed exactly, >= ``power``).
    discordant_pairs : int
        Discordant items expected at ``items``, ``ceil(items * discordant_rate)``.
    stable_items : int or None
        The exact power is a sawtooth in the number of items: it can dip below the target
        again just above ``items``. ``stable_items`` is the smallest size from which the power
        never drops below the target again (checked exactly up to a size where a monotone
        lower bound guarantees it); ``None`` when the search bisected instead.
    stays_above : bool or None
        Whether the power stays at or above the target for every size from ``items`` on
        (``stable_items == items``).
    exact_conditional_power : float
        The power given exactly ``discordant_pairs`` discordant items.
    fix_rate, break_rate, alpha, power, method, design_effect : echoed inputs
        ``power`` is the target.
    discordant_rate : float
        ``fix_rate + break_rate``.
    unclustered_items : int
        Items needed without the design effect.
    rule : {"smallest", "bisection", "normal approximation"}
        ``"smallest"``: every size below ``items`` was checked (exactly, or by a monotone upper
        bound on the power); ``"bisection"``: the candidate range was too wide to scan and the
        size was found by bisection on the exact power (where the sawtooth is negligible);
        ``"normal approximation"``: beyond two million expected discordant pairs the normal
        approximation's size is kept (``exact_power`` still says what it delivers, or is
        ``nan`` when too costly to sum).
    normal : NormalApproximation
        The normal approximation's plan and its exact power, for comparison.
    """

    items: int
    exact_power: float
    discordant_pairs: int
    stable_items: int | None
    stays_above: bool | None
    exact_conditional_power: float
    fix_rate: float
    break_rate: float
    alpha: float
    power: float
    method: McNemarMethod
    design_effect: float
    discordant_rate: float
    unclustered_items: int
    rule: SearchRule
    normal: NormalApproximation


def mcnemar_exact_power(
    fix_rate: float,
    break_rate: float,
    items: int,
    *,
    alpha: float = ALPHA,
    method: str = "exact",
) -> float:
    """Exact power of the two-sided McNemar test (``method``) with ``items`` items.

    The number of discordant items is ``D ~ Bin(items, fix_rate + break_rate)`` and, given
    ``D``, the fixed count is ``Bin(D, fix_rate / (fix_rate + break_rate))``; the power sums
    the conditional rejection probability over ``D`` (weights further than 10 standard
    deviations from the mean, below 1e-20 in total, are left out). No approximation.
    Defined for every rate pair: with ``fix_rate == break_rate`` it is the test's size.

    Examples
    --------
    The normal approximation's 328 items for fix 8 % / break 3 % give the exact test only
    75 % power:

    >>> from evalbot.stats import mcnemar_exact_power
    >>> round(mcnemar_exact_power(0.08, 0.03, 328), 3)
    0.746
    """
    pf, pb = rates_iv(fix_rate, break_rate, differ=False)
    n = as_count(items, "items")
    a = as_probability(alpha, "alpha")
    m = method_iv(method)
    if n == 0 or pf + pb == 0.0:
        return 0.0
    return PowerCurve(pf, pb, a, m).at(n)


def mcnemar_normal_sample_size(
    fix_rate: float, break_rate: float, *, alpha: float = ALPHA, power: float = POWER
) -> tuple[int, int]:
    """``(discordant_pairs, items)`` of the normal approximation (Connor 1987); see
    :class:`NormalApproximation`. For comparison only: it does not deliver ``power`` with the
    exact test.

    Examples
    --------
    >>> from evalbot.stats import mcnemar_normal_sample_size
    >>> mcnemar_normal_sample_size(0.08, 0.03)
    (36, 328)
    """
    pf, pb = rates_iv(fix_rate, break_rate, differ=True)
    a = as_probability(alpha, "alpha")
    pw = as_probability(power, "power")
    psi = pf + pb
    p = pf / psi
    z_a, z_b = (float(z) for z in ndtri([1.0 - a / 2.0, pw]))
    d = (z_a * 0.5 + z_b * math.sqrt(p * (1.0 - p))) ** 2 / (p - 0.5) ** 2
    pairs = max(1, ceil_fuzzy(d))
    return pairs, max(1, ceil_fuzzy(pairs / psi))


def mcnemar_sample_size(
    fix_rate: float,
    break_rate: float,
    *,
    alpha: float = ALPHA,
    power: float = POWER,
    method: str = "exact",
    design_effect: float = 1.0,
) -> SampleSizeResult:
    """Items needed for McNemar's test to detect a fix/break imbalance, by exact power search.

    Parameters
    ----------
    fix_rate : float
        Expected share of items fixed by the candidate (baseline fail, candidate pass).
    break_rate : float
        Expected share of items broken by the candidate. Must differ from ``fix_rate``.
    alpha : float, optional
        Two-sided significance level. Default 0.05.
    power : float, optional
        Target power. Default 0.8.
    method : {"exact", "midp", "asymptotic"}, optional
        The McNemar test that will be run (``mcnemar:`` in the plan). Default ``"exact"``.
    design_effect : float, optional
        Variance inflation from clustered items (>= 1; see
        :func:`~evalbot.stats.design.design_effect`): the items are multiplied by it.

    Returns
    -------
    SampleSizeResult

    Notes
    -----
    The exact power is a sawtooth in the number of items (the test is discrete), so "the
    size that gives 80 % power" needs a rule. The rule here: ``items`` is the **smallest** size
    whose exact power reaches the target. Every smaller size is ruled out, near the answer by
    computing its exact power and further away by a monotone upper bound on the power (the
    power averaged with each discordant count's conditional power replaced by the largest one
    at fewer discordant counts, which can only grow with the number of items).
    ``stable_items`` then says from which size on the power never falls below the target again
    (a monotone lower bound settles the sizes beyond the ones checked), and ``stays_above``
    whether that is ``items`` itself. When checking every candidate would cost more than
    four million binomial terms, or the plan needs more than 50,000 discordant pairs (where
    the sawtooth is far below 1e-3), the size is found by bisection on the exact power and
    ``rule`` says so; beyond two million discordant pairs the normal approximation's size is
    kept (and its exact power is ``nan`` once summing it would take over 100,000 terms).

    The normal approximation (Connor 1987) is in ``normal``; it is optimistic for the exact
    test, whose size is below ``alpha`` and whose discordant count varies.

    References
    ----------
    .. [1] R. J. Connor, "Sample size for testing differences in proportions for the
       paired-sample design", Biometrics 43 (1987), 207-211.
    .. [2] S.-C. Chow, J. Shao, H. Wang, *Sample Size Calculations in Clinical Research*,
       2nd ed., Chapman & Hall (2008), ch. 4 (McNemar's test).
    .. [3] M. R. Chernick, C. Y. Liu, "The saw-toothed behavior of power versus sample size and
       software solutions: single binomial proportion using exact methods", The American
       Statistician 56 (2002), 149-155.

    Examples
    --------
    Expecting 8 % of items fixed and 3 % broken, the exact test needs 367 items (the normal
    approximation's 328 give it 75 % power):

    >>> from evalbot.stats import mcnemar_sample_size
    >>> r = mcnemar_sample_size(0.08, 0.03)
    >>> r.items, round(r.exact_power, 4), r.normal.items, round(r.normal.exact_power, 3)
    (367, 0.8007, 328, 0.746)
    """
    pf, pb = rates_iv(fix_rate, break_rate, differ=True)
    a = as_probability(alpha, "alpha")
    pw = as_probability(power, "power")
    m = method_iv(method)
    deff = design_effect_iv(design_effect)
    normal_pairs, normal_items = mcnemar_normal_sample_size(pf, pb, alpha=a, power=pw)
    curve = PowerCurve(pf, pb, a, m)
    rule: SearchRule
    stable: int | None = None
    if normal_pairs > _NORMAL_ONLY_PAIRS:
        items, rule = normal_items, "normal approximation"
        reached = curve.at_window(items)
    elif normal_pairs > _WINDOW_ONLY_PAIRS:
        high, low = normal_items, 0
        while curve.at_window(high) < pw:
            low, high = high, high + max(1, high // 8)
        items, rule = first_crossing(curve.at_window, low, high, pw), "bisection"
        reached = curve.at_window(items)
    else:
        items, rule, stable = exact_search(curve, normal_items, pw)
        reached = curve.at(items)
    total = max(1, ceil_fuzzy(items * deff))
    pairs = ceil_fuzzy(total * curve.psi)
    d = np.array([pairs], dtype=np.int64)
    conditional = float(conditional_power(d, critical_counts(d, a, m), curve.share)[0])
    return SampleSizeResult(
        items=total,
        exact_power=reached,
        discordant_pairs=pairs,
        stable_items=None if stable is None else max(1, ceil_fuzzy(stable * deff)),
        stays_above=None if stable is None else stable == items,
        exact_conditional_power=conditional,
        fix_rate=pf,
        break_rate=pb,
        alpha=a,
        power=pw,
        method=m,
        design_effect=deff,
        discordant_rate=curve.psi,
        unclustered_items=items,
        rule=rule,
        normal=NormalApproximation(
            discordant_pairs=normal_pairs,
            items=normal_items,
            exact_power=reached
            if normal_items == items
            else curve.at(normal_items)
            if rule == "smallest"
            else curve.at_window(normal_items),
        ),
    )


def simulate_mcnemar_power(
    fix_rate: float,
    break_rate: float,
    items: int,
    *,
    alpha: float = ALPHA,
    n_simulations: int = 10_000,
    seed: int = 0,
    method: str = "exact",
) -> float:
    """Seeded Monte Carlo estimate of McNemar's test's power with ``items`` items.

    Each simulation draws (fixed, broken, unchanged) counts from
    ``Multinomial(items, (fix_rate, break_rate, rest))`` and applies the test at ``alpha``.
    The Monte Carlo standard error is ``sqrt(power (1 - power) / n_simulations)``.
    """
    pf, pb = rates_iv(fix_rate, break_rate, differ=False)
    n = as_count(items, "items", minimum=1)
    a = as_probability(alpha, "alpha")
    sims = as_count(n_simulations, "n_simulations", minimum=1)
    s = as_count(seed, "seed")
    m = method_iv(method)
    rng = np.random.default_rng(s)
    draws = rng.multinomial(n, [pf, pb, max(0.0, 1.0 - pf - pb)], size=sims)
    b, c = draws[:, 0], draws[:, 1]
    k = critical_counts(np.arange(n + 1, dtype=np.int64), a, m)
    return float(np.mean(np.minimum(b, c) <= k[b + c]))
