"""Confidence intervals for a single proportion."""

from __future__ import annotations

import math
from typing import NamedTuple

from evalbot.stats._normal import normal_quantile
from evalbot.stats._validation import as_count, as_probability

__all__ = ["ConfidenceInterval", "wilson_interval"]


class ConfidenceInterval(NamedTuple):
    """A two-sided confidence interval ``(low, high)``."""

    low: float
    high: float


def _wilson_interval_iv(
    successes: object, n: object, confidence_level: object
) -> tuple[int, int, float]:
    n_ = as_count(n, "n", minimum=1)
    k = as_count(successes, "successes")
    if k > n_:
        raise ValueError(f"`successes` must be at most `n` ({n_}); got {successes!r}.")
    cl = as_probability(confidence_level, "confidence_level")
    return k, n_, cl


def wilson_interval(
    successes: int, n: int, *, confidence_level: float = 0.95
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

    >>> from evalbot.stats import wilson_interval
    >>> ci = wilson_interval(280, 400)
    >>> round(ci.low, 4), round(ci.high, 4)
    (0.6534, 0.7428)
    """
    k, n_, cl = _wilson_interval_iv(successes, n, confidence_level)
    z = normal_quantile(0.5 + cl / 2.0)
    p = k / n_
    z2 = z * z
    denom = 1.0 + z2 / n_
    center = (p + z2 / (2.0 * n_)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n_ + z2 / (4.0 * n_ * n_)) / denom
    low = 0.0 if k == 0 else max(0.0, center - half)
    high = 1.0 if k == n_ else min(1.0, center + half)
    return ConfidenceInterval(low, high)
