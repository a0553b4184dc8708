"""Planning: items needed to detect a change, and the change detectable with given items."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from evalbot.stats._normal import normal_quantile
from evalbot.stats._validation import as_count, as_probability

__all__ = [
    "DetectableEffectResult",
    "SampleSizeResult",
    "mcnemar_exact_power",
    "mcnemar_minimum_detectable_effect",
    "mcnemar_sample_size",
    "simulate_mcnemar_power",
]

_CEIL_FUZZ = 1e-9


@dataclass(frozen=True, kw_only=True)
class SampleSizeResult:
    """Result of :func:`mcnemar_sample_size`.

    Attributes
    ----------
    discordant_pairs : int
        Discordant items needed (normal approximation), ``ceil(d)``.
    items : int
        Items needed so that ``items * discordant_rate`` reaches ``discordant_pairs``.
    fix_rate, break_rate, alpha, power : float
        Echoed inputs.
    discordant_rate : float
        ``fix_rate + break_rate``.
    exact_power : float
        Power of the two-sided *exact* McNemar test at ``items`` items, computed exactly
        (the discordant count is itself binomial); a check on the approximation.
    exact_conditional_power : float
        Power of the exact test given exactly ``discordant_pairs`` discordant items.
    """

    discordant_pairs: int
    items: int
    fix_rate: float
    break_rate: float
    alpha: float
    power: float
    discordant_rate: float
    exact_power: float
    exact_conditional_power: float


def _rates_iv(fix_rate: object, break_rate: object) -> tuple[float, float]:
    pf = as_probability(fix_rate, "fix_rate", open_low=False)
    pb = as_probability(break_rate, "break_rate", open_low=False)
    if pf + pb > 1.0:
        raise ValueError(
            f"`fix_rate` + `break_rate` must be at most 1; got {fix_rate!r} + {break_rate!r}."
        )
    if pf == pb:
        raise ValueError(
            f"`fix_rate` and `break_rate` must differ (no effect to detect); "
            f"got {fix_rate!r} and {break_rate!r}."
        )
    return pf, pb


def _ceil(x: float) -> int:
    return math.ceil(x - _CEIL_FUZZ)


def _critical_counts(d: np.ndarray, alpha: float) -> np.ndarray:
    """Largest k with ``2 P(X <= k) <= alpha`` for ``X ~ Bin(d, 1/2)`` (-1 when none)."""
    from scipy.stats import binom  # lazily: scipy.stats costs ~1 s at start-up

    k = binom.ppf(alpha / 2.0, d, 0.5)  # smallest k with P(X <= k) >= alpha / 2
    k = np.where(np.isnan(k), -1.0, k)
    over = binom.cdf(k, d, 0.5) > alpha / 2.0 * (1.0 + 1e-12)
    return np.where(over, k - 1.0, k)


def _conditional_power(d: np.ndarray, p: float, alpha: float) -> np.ndarray:
    """Power of the exact two-sided test given ``d`` discordant pairs, fixed share ``p``."""
    from scipy.stats import binom  # lazily: scipy.stats costs ~1 s at start-up

    k = _critical_counts(d, alpha)
    low = np.where(k >= 0, binom.cdf(k, d, p), 0.0)
    high = np.where(k >= 0, binom.sf(d - k - 1, d, p), 0.0)
    # k < d / 2 always holds for alpha < 1, so the two tails are disjoint.
    return np.asarray(low + high, dtype=np.float64)


def mcnemar_exact_power(
    fix_rate: float, break_rate: float, items: int, *, alpha: float = 0.05
) -> float:
    """Exact power of the two-sided exact McNemar test with ``items`` items.

    The number of discordant items is ``D ~ Bin(items, fix_rate + break_rate)`` and, given
    ``D``, the fixed count is ``Bin(D, fix_rate / (fix_rate + break_rate))``; the power sums
    the conditional rejection probability over ``D``. No approximation.

    Examples
    --------
    >>> from evalbot.stats import mcnemar_exact_power
    >>> round(mcnemar_exact_power(0.08, 0.03, 328), 2)
    0.75
    """
    from scipy.stats import binom  # lazily: scipy.stats costs ~1 s at start-up

    pf, pb = _rates_iv(fix_rate, break_rate)
    n = as_count(items, "items", minimum=1)
    a = as_probability(alpha, "alpha")
    psi = pf + pb
    # Sum over the discordant counts that carry all but ~1e-14 of the probability, so the
    # cost stays bounded for millions of items.
    lo = int(binom.ppf(1e-15, n, psi)) if n > 1000 else 0
    hi = int(binom.isf(1e-15, n, psi)) + 1 if n > 1000 else n
    d = np.arange(max(0, lo), min(n, hi) + 1, dtype=np.float64)
    weights = binom.pmf(d, n, psi)
    return float(min(1.0, np.sum(weights * _conditional_power(d, pf / psi, a))))


def mcnemar_sample_size(
    fix_rate: float, break_rate: float, *, alpha: float = 0.05, power: float = 0.8
) -> SampleSizeResult:
    """Discordant pairs and items needed for McNemar's test to detect a fix/break imbalance.

    Parameters
    ----------
    fix_rate : float
        Expected share of items fixed by the candidate (baseline fail, candidate pass).
    break_rate : float
        Expected share of items broken by the candidate.
    alpha : float, optional
        Two-sided significance level. Default 0.05.
    power : float, optional
        Desired power. Default 0.8.

    Returns
    -------
    SampleSizeResult

    Notes
    -----
    Normal approximation on the discordant split (Connor 1987's conditional form): with
    ``psi = fix_rate + break_rate`` and ``p = fix_rate / psi``,

        d = (z_{1-alpha/2} / 2 + z_{power} sqrt(p (1 - p)))^2 / (p - 1/2)^2,

    ``discordant_pairs = ceil(d)`` and ``items = ceil(discordant_pairs / psi)``. The result
    also carries the exact power of the exact test at that size, which is typically a little
    below ``power`` because the exact test is conservative and the discordant count varies.

    References
    ----------
    .. [1] R. J. Connor, "Sample size for testing differences in proportions for the
       paired-sample design", Biometrics 43 (1987), 207-211.
    .. [2] S.-C. Chow, J. Shao, H. Wang, *Sample Size Calculations in Clinical Research*,
       2nd ed., Chapman & Hall (2008), §4.x (McNemar's test).

    Examples
    --------
    Expecting 8% of items fixed and 3% broken:

    >>> from evalbot.stats import mcnemar_sample_size
    >>> r = mcnemar_sample_size(0.08, 0.03)
    >>> r.discordant_pairs, r.items
    (36, 328)
    """
    pf, pb = _rates_iv(fix_rate, break_rate)
    a = as_probability(alpha, "alpha")
    pw = as_probability(power, "power")
    psi = pf + pb
    p = pf / psi
    z_a = normal_quantile(1.0 - a / 2.0)
    z_b = normal_quantile(pw)
    d = (z_a * 0.5 + z_b * math.sqrt(p * (1.0 - p))) ** 2 / (p - 0.5) ** 2
    pairs = max(1, _ceil(d))
    items = max(1, _ceil(pairs / psi))
    cond = _conditional_power(np.array([float(pairs)]), p, a)
    return SampleSizeResult(
        discordant_pairs=pairs,
        items=items,
        fix_rate=pf,
        break_rate=pb,
        alpha=a,
        power=pw,
        discordant_rate=psi,
        exact_power=mcnemar_exact_power(pf, pb, items, alpha=a),
        exact_conditional_power=float(cond[0]),
    )


def simulate_mcnemar_power(
    fix_rate: float,
    break_rate: float,
    items: int,
    *,
    alpha: float = 0.05,
    n_simulations: int = 10_000,
    seed: int = 0,
) -> float:
    """Seeded Monte Carlo estimate of the exact McNemar test's power with ``items`` items.

    Each simulation draws (fixed, broken, unchanged) counts from
    ``Multinomial(items, (fix_rate, break_rate, rest))`` and applies the exact test at
    ``alpha``. The Monte Carlo standard error is ``sqrt(power (1 - power) / n_simulations)``.
    """
    from scipy.stats import binom  # lazily: scipy.stats costs ~1 s at start-up

    pf, pb = _rates_iv(fix_rate, break_rate)
    n = as_count(items, "items", minimum=1)
    a = as_probability(alpha, "alpha")
    sims = as_count(n_simulations, "n_simulations", minimum=1)
    s = as_count(seed, "seed")
    rng = np.random.default_rng(s)
    draws = rng.multinomial(n, [pf, pb, max(0.0, 1.0 - pf - pb)], size=sims)
    b, c = draws[:, 0].astype(np.float64), draws[:, 1].astype(np.float64)
    d = b + c
    k = np.minimum(b, c)
    pvalue = np.minimum(1.0, 2.0 * binom.cdf(k, d, 0.5))
    pvalue = np.where(d == 0, 1.0, pvalue)
    return float(np.mean(pvalue <= a))


@dataclass(frozen=True, kw_only=True)
class DetectableEffectResult:
    """Result of :func:`mcnemar_minimum_detectable_effect`.

    Attributes
    ----------
    effect : float
        Smallest detectable ``fix_rate - break_rate`` (a share of items; 0.08 = 8 points),
        or ``nan`` when no split of the expected discordant items is detectable.
    fix_rate, break_rate : float
        The split achieving ``effect`` with the given ``discordant_rate``.
    items, discordant_rate, alpha, power
        Echoed inputs.
    detectable : bool
        False when even "every discordant item fixed" is not detectable at this size.
    """

    effect: float
    fix_rate: float
    break_rate: float
    items: int
    discordant_rate: float
    alpha: float
    power: float
    detectable: bool


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


def mcnemar_minimum_detectable_effect(
    items: int, discordant_rate: float, *, alpha: float = 0.05, power: float = 0.8
) -> DetectableEffectResult:
    """Smallest net change ``fix_rate - break_rate`` McNemar's test detects with ``items``.

    Inverts :func:`mcnemar_sample_size`'s normal approximation: with ``D = items *
    discordant_rate`` expected discordant items it solves
    ``sqrt(D) (p - 1/2) = z_{1-alpha/2} / 2 + z_{power} sqrt(p (1 - p))`` for the fixed
    share ``p > 1/2``; the effect is ``discordant_rate (2p - 1)``.

    Examples
    --------
    100 items of which about 10% change outcome:

    >>> from evalbot.stats import mcnemar_minimum_detectable_effect
    >>> r = mcnemar_minimum_detectable_effect(100, 0.10)
    >>> round(r.effect, 3)
    0.078
    """
    n = as_count(items, "items", minimum=1)
    psi = as_probability(discordant_rate, "discordant_rate", open_high=False)
    a = as_probability(alpha, "alpha")
    pw = as_probability(power, "power")
    z_a = normal_quantile(1.0 - a / 2.0)
    z_b = normal_quantile(pw)
    dd = n * psi

    def gap(p: float) -> float:
        return math.sqrt(dd) * (p - 0.5) - (z_a * 0.5 + z_b * math.sqrt(p * (1.0 - p)))

    if gap(1.0) < 0.0:
        nan = math.nan
        return DetectableEffectResult(
            effect=nan,
            fix_rate=nan,
            break_rate=nan,
            items=n,
            discordant_rate=psi,
            alpha=a,
            power=pw,
            detectable=False,
        )
    p = _bisect(gap, 0.5, 1.0) if gap(0.5) < 0.0 else 0.5
    return DetectableEffectResult(
        effect=psi * (2.0 * p - 1.0),
        fix_rate=psi * p,
        break_rate=psi * (1.0 - p),
        items=n,
        discordant_rate=psi,
        alpha=a,
        power=pw,
        detectable=True,
    )
