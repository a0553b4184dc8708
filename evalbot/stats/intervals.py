"""Confidence intervals for a single proportion."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtri, stdtrit

from evalbot.stats._validation import FloatArray, as_count, as_float_vector, as_part, as_probability
from evalbot.vocabulary import CONFIDENCE


class ConfidenceInterval(NamedTuple):
    """A two-sided confidence interval ``(low, high)``."""

    low: float
    high: float


def wilson_interval(
    successes: int, n: int, *, confidence_level: float = CONFIDENCE
) -> ConfidenceInterval:
    """Wilson score interval for a binomial proportion.

    Parameters
    ----------
    successes : int
        Number of successes (passed items), ``0 <= successes <= n``.
    n : int
        Number of trials (items), at least 1.
    confidence_level : float, optional
        Two-sided confidence level in (0, 1). Default 0.95.

    Returns
    -------
    ConfidenceInterval
        ``(low, high)``, within [0, 1]; ``low`` is exactly 0 when ``successes == 0`` and
        ``high`` exactly 1 when ``successes == n``.

    Notes
    -----
    With ``p = successes / n`` and ``z`` the ``(1 + confidence_level) / 2`` normal quantile,
    the interval is ``(p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)``. It inverts the
    score test, so unlike the Wald interval it stays inside [0, 1] and keeps close to nominal
    coverage for small ``n`` and rates near 0 or 1.

    References
    ----------
    .. [1] E. B. Wilson, "Probable inference, the law of succession, and statistical
       inference", JASA 22 (1927), 209-212.
    .. [2] L. D. Brown, T. T. Cai, A. DasGupta, "Interval estimation for a binomial
       proportion", Statistical Science 16 (2001), 101-133.

    Examples
    --------
    280 of 400 items pass:

    >>> from evalbot.stats.intervals import wilson_interval
    >>> ci = wilson_interval(280, 400)
    >>> round(ci.low, 4), round(ci.high, 4)
    (0.6534, 0.7428)
    """
    k, n_ = as_part(successes, n, ("successes", "n"))
    cl = as_probability(confidence_level, "confidence_level")
    low, high = wilson_bounds(k / n_, n_, float(ndtri(0.5 + cl / 2.0)))
    return ConfidenceInterval(float(low), float(high))


def wilson_bounds(p: ArrayLike, n: ArrayLike, z: float) -> tuple[FloatArray, FloatArray]:
    """Wilson's interval of a proportion ``p`` of ``n`` trials at the normal quantile ``z``,
    element-wise (no input validation): ``(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 +
    z^2/n)``, clipped to [0, 1], with the low end exactly 0 at ``p = 0`` and the high end
    exactly 1 at ``p = 1``."""
    p, n = np.asarray(p, dtype=np.float64), np.asarray(n, dtype=np.float64)
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    low = np.where(p == 0.0, 0.0, np.maximum(0.0, centre - half))
    return low, np.where(p == 1.0, 1.0, np.minimum(1.0, centre + half))


@dataclass(frozen=True, kw_only=True)
class MeanOfMeansResult:
    """Result of :func:`mean_of_means_interval`.

    Attributes
    ----------
    statistic : float
        The mean of the per-item means.
    confidence_interval : ConfidenceInterval
        Within [0, 1].
    effective_items : float
        ``p (1 - p) / se^2`` clipped to ``[items, items * repeats]``: the number of
        independent pass/fail trials with the same precision.
    items, repeats, confidence_level
        Echoed inputs.
    method : str
        ``"wilson (effective n)"``.
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    effective_items: float
    items: int
    repeats: int
    confidence_level: float
    method: str = "wilson (effective n)"


def mean_of_means_interval(
    means: object, repeats: int, *, confidence_level: float = CONFIDENCE
) -> MeanOfMeansResult:
    """Interval for a pass rate when each item was sampled ``repeats`` times (per-item means).

    The t interval of the mean of per-item pass rates leaves [0, 1] with few items or rates
    near 0 or 1 (``98.3 % [94.8, 101.8]`` with two epochs). This is the Wilson interval with
    the *effective* number of trials in place of ``n`` and the t quantile in place of the
    normal one (the Korn-Graubard construction for clustered binary data, the repeats of an
    item being its cluster).

    Parameters
    ----------
    means : array_like of float in [0, 1], shape (n,)
        Each item's pass rate over its repeats.
    repeats : int
        Samples per item, ``k`` (>= 1).
    confidence_level : float, optional
        Default 0.95.

    Returns
    -------
    MeanOfMeansResult

    Notes
    -----
    With ``p = mean(means)`` and ``se^2 = var(means, ddof=1) / n`` (the variance of the
    per-item means includes both the between-item and the within-item variance), the
    effective number of trials is ``n_eff = p (1 - p) / se^2``, clipped to ``[n, n k]``: no
    fewer than the items (the most a mean of ``n`` values in [0, 1] can vary is ``p (1 - p)
    / n``) and no more than the samples. When ``p`` is 0 or 1, or the means do not vary,
    ``n_eff = n`` (``n k`` would claim every sample independent). The interval is Wilson's
    at ``(p, n_eff)`` with ``z`` replaced by ``t_{n-1, 1 - alpha/2}`` (``z`` for one item).
    Simulated coverage (items' rates from Beta distributions, 2 to 5 repeats, 5 to 1,000
    items) is at least 94.8 % for a 95 % interval: ``tests/sim/test_coverage.py``.

    References
    ----------
    .. [1] E. L. Korn, B. I. Graubard, "Confidence intervals for proportions with small
       expected number of positive counts estimated from survey data", Survey Methodology 24
       (1998), 193-201.
    .. [2] L. Kish, *Survey Sampling*, Wiley (1965), §8.2 (design effect, effective sample
       size).

    Examples
    --------
    Sixty items sampled twice, all passing twice but one that passed once:

    >>> from evalbot.stats.intervals import mean_of_means_interval
    >>> r = mean_of_means_interval([1.0] * 59 + [0.5], 2)
    >>> round(r.statistic, 4), [round(x, 4) for x in r.confidence_interval]
    (0.9917, [0.9527, 0.9986])
    """
    x = as_float_vector(means, "means", unit=True)
    if x.size == 0:
        raise ValueError("`means` must contain at least one item; got an empty array.")
    k = as_count(repeats, "repeats", minimum=1)
    cl = as_probability(confidence_level, "confidence_level")
    n = int(x.size)
    p = min(1.0, max(0.0, float(x.mean())))
    q = float(stdtrit(n - 1, 0.5 + cl / 2.0) if n >= 2 else ndtri(0.5 + cl / 2.0))
    var = float(x.var(ddof=1)) / n if n >= 2 else 0.0
    if p in (0.0, 1.0) or var <= 0.0:
        n_eff = float(n)
    else:
        n_eff = min(max(p * (1.0 - p) / var, float(n)), float(n * k))
    low, high = wilson_bounds(p, n_eff, q)
    return MeanOfMeansResult(
        statistic=p,
        confidence_interval=ConfidenceInterval(float(low), float(high)),
        effective_items=n_eff,
        items=n,
        repeats=k,
        confidence_level=cl,
    )


def bisect(
    inside: Callable[[float], bool], good: float, bad: float, tolerance: float = 0.0
) -> tuple[float, float]:
    """The end of an interval by bisection: ``(good, bad)`` with ``inside(good)`` and not
    ``inside(bad)`` (``inside`` changes once between them) halved until they are at most
    ``tolerance`` apart, or adjacent floats."""
    while abs(bad - good) > tolerance:
        mid = 0.5 * (good + bad)
        if mid in (good, bad):
            break
        if inside(mid):
            good = mid
        else:
            bad = mid
    return good, bad


def t_interval(mean: float, se: float, df: int, confidence_level: float) -> ConfidenceInterval:
    """``mean +- t_{df, (1 + confidence_level) / 2} se``: Student's t interval from a standard
    error (no input validation); a point when ``se`` is 0 or not finite."""
    if se == 0.0 or not math.isfinite(se):
        return ConfidenceInterval(mean, mean)
    half = float(stdtrit(df, 0.5 + confidence_level / 2.0)) * se
    return ConfidenceInterval(mean - half, mean + half)
