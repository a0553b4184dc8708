"""Planning: the smallest change McNemar's test detects with given items (exact power)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from evalbot.stats._exact_power import (
    CEIL_FUZZ,
    Binomial,
    conditional_power_slope,
    critical_counts,
    design_effect_iv,
    method_iv,
)
from evalbot.stats._validation import as_count, as_probability
from evalbot.stats.mcnemar import McNemarMethod
from evalbot.vocabulary import ALPHA, POWER

__all__ = ["DetectableEffectResult", "mcnemar_minimum_detectable_effect"]


@dataclass(frozen=True, kw_only=True)
class DetectableEffectResult:
    """Result of :func:`mcnemar_minimum_detectable_effect`.

    Attributes
    ----------
    effect : float
        Smallest ``fix_rate - break_rate`` (a share of items; 0.08 = 8 points) that the test
        detects with ``power``, computed exactly; ``nan`` when none is detectable.
    fix_rate, break_rate : float
        The split achieving ``effect`` with the given ``discordant_rate`` (``nan`` if none).
    exact_power : float
        The exact power at that split (>= ``power``; ``nan`` if none is detectable).
    detectable : bool
        False when even "every discordant item fixed" does not reach ``power`` at this size
        (e.g. too few discordant items for the test to reach ``alpha`` at all).
    items, discordant_rate, alpha, power, method, design_effect
        Echoed inputs.
    effective_items : int
        ``floor(items / design_effect)``: the items the power was computed for.
    normal_effect : float
        The normal approximation's answer (Connor's formula inverted), for comparison;
        ``nan`` when it finds none.
    normal_exact_power : float
        The exact power of the test at the normal approximation's split (below ``power``:
        what the approximation's claim really delivers); ``nan`` without one.
    """

    effect: float
    fix_rate: float
    break_rate: float
    exact_power: float
    detectable: bool
    items: int
    discordant_rate: float
    alpha: float
    power: float
    method: McNemarMethod
    design_effect: float
    effective_items: int
    normal_effect: float
    normal_exact_power: float


def _bisect(function: Callable[[float], float], low: float, high: float) -> float:
    """The root of an increasing ``function`` with ``function(low) < 0 <= function(high)``.

    Plain bisection to the resolution of floats (at most ~60 halvings on [0.5, 1]); it spares
    the start-up cost of ``scipy.optimize``.
    """
    while True:
        mid = 0.5 * (low + high)
        if mid in (low, high):
            return high
        if function(mid) < 0.0:
            low = mid
        else:
            high = mid


def _solve(
    function: Callable[[float], float],
    slope: Callable[[float], float],
    low: float,
    high: float,
    start: float,
) -> float:
    """What :func:`_bisect` returns (the smallest float where an increasing ``function`` is
    >= 0, with ``function(low) < 0 <= function(high)``), found with Newton's steps.

    Newton's steps from ``start`` keep the bracket (a step that would leave it bisects);
    once a step is below 1e-9 of the point, the root is known to about an ulp, and the next
    point is aimed one ulp past it, then one ulp back, so that the bracket closes to two
    adjacent floats: about seven evaluations where bisection takes sixty.
    """
    x = start if low < start < high else 0.5 * (low + high)
    while True:
        mid = 0.5 * (low + high)
        if mid in (low, high):
            return high
        value = function(x)
        if value < 0.0:
            low = x
        else:
            high = x
        gradient = slope(x)
        target = math.nan
        if gradient > 0.0 and math.isfinite(gradient):
            step = -value / gradient
            target = x + step
            if abs(step) <= 1e-9 * x:  # converged: land just past the root, on its other side
                target = math.nextafter(target, math.inf if value < 0.0 else -math.inf)
        x = target if low < target < high else 0.5 * (low + high)


def _normal_effect(n: int, psi: float, alpha: float, power: float) -> float:
    z_a, z_b = (float(z) for z in ndtri([1.0 - alpha / 2.0, power]))
    dd = n * psi

    def gap(p: float) -> float:
        return math.sqrt(dd) * (p - 0.5) - (z_a * 0.5 + z_b * math.sqrt(p * (1.0 - p)))

    if dd == 0.0 or gap(1.0) < 0.0:
        return math.nan
    p = _bisect(gap, 0.5, 1.0) if gap(0.5) < 0.0 else 0.5
    return psi * (2.0 * p - 1.0)


def mcnemar_minimum_detectable_effect(
    items: int,
    discordant_rate: float,
    *,
    alpha: float = ALPHA,
    power: float = POWER,
    method: str = "exact",
    design_effect: float = 1.0,
) -> DetectableEffectResult:
    """Smallest net change ``fix_rate - break_rate`` McNemar's test detects with ``items``.

    With ``discordant_rate = psi`` of the items expected to change outcome, the effect is
    ``psi (2p - 1)`` where ``p`` is the share of changed items that were fixed. The exact power
    (see :func:`mcnemar_exact_power`) increases with ``p`` above 1/2 (the test rejects when
    the smaller count is at most a critical value, and that tail's probability grows with
    ``p``), so the smallest ``p`` reaching ``power`` is found by bisection. Defined for every
    input: with no discordant items, or too few for the test to ever reach ``alpha``, nothing
    is detectable.

    Parameters
    ----------
    items : int
        Items in the eval (>= 0).
    discordant_rate : float
        Expected share of items whose outcome changes, in [0, 1].
    alpha, power, method, design_effect
        As in :func:`mcnemar_sample_size`; with a design effect the power is computed for
        ``floor(items / design_effect)`` items.

    Examples
    --------
    100 items of which about 10 % change outcome: the exact test detects +8.8 points with
    80 % power (the normal approximation claims 7.8, where the exact power is 0.645):

    >>> from evalbot.stats import mcnemar_minimum_detectable_effect
    >>> r = mcnemar_minimum_detectable_effect(100, 0.10)
    >>> round(r.effect, 4), round(r.normal_effect, 4), round(r.normal_exact_power, 3)
    (0.0884, 0.0785, 0.645)
    """
    n = as_count(items, "items")
    psi = as_probability(discordant_rate, "discordant_rate", open_low=False, open_high=False)
    a = as_probability(alpha, "alpha")
    pw = as_probability(power, "power")
    m = method_iv(method)
    deff = design_effect_iv(design_effect)
    n_eff = math.floor(n / deff + CEIL_FUZZ)
    normal = _normal_effect(n_eff, psi, a, pw) if n_eff > 0 else math.nan

    normal_power = math.nan

    def result(effect: float, share: float, reached: float) -> DetectableEffectResult:
        return DetectableEffectResult(
            effect=effect,
            fix_rate=psi * share,
            break_rate=psi * (1.0 - share),
            exact_power=reached,
            detectable=math.isfinite(effect),
            items=n,
            discordant_rate=psi,
            alpha=a,
            power=pw,
            method=m,
            design_effect=deff,
            effective_items=n_eff,
            normal_effect=normal,
            normal_exact_power=normal_power,
        )

    if n_eff == 0 or psi == 0.0:
        return result(math.nan, math.nan, math.nan)
    d, w = Binomial(psi).counts(n_eff)
    k = critical_counts(d, a, m)
    known: dict[float, tuple[float, float]] = {}

    def evaluate(share: float) -> tuple[float, float]:
        if share not in known:
            power, slope = conditional_power_slope(d, k, share)
            known[share] = float(np.sum(w * power)), float(np.sum(w * slope))
        return known[share]

    def power_at(share: float) -> float:
        return evaluate(share)[0]

    def slope_at(share: float) -> float:
        return evaluate(share)[1]

    start = 0.5 + normal / (2.0 * psi) if math.isfinite(normal) else 0.75
    if math.isfinite(normal):
        normal_power = power_at(start)

    if power_at(1.0) < pw:
        return result(math.nan, math.nan, math.nan)
    share = (
        _solve(lambda s: power_at(s) - pw, slope_at, 0.5, 1.0, start) if power_at(0.5) < pw else 0.5
    )
    return result(psi * (2.0 * share - 1.0), share, power_at(share))
