"""A bootstrap distribution read as an interval, and the p-value that agrees with it.

The percentile interval takes the ``alpha / 2`` and ``1 - alpha / 2`` quantiles of the
resampled statistic; the BCa interval (bias-corrected and accelerated, Efron 1987) shifts
those levels by the bias of the distribution around the observed value and by the jackknife's
acceleration. Either interval is a function of ``alpha`` (:data:`Levels`); the p-value is the
smallest ``alpha`` whose interval excludes 0, read with the same quantile rule, so the test and
the interval cannot disagree at any level.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import numpy as np

from evalbot.stats._validation import FloatArray

__all__ = ["Levels", "bca_levels", "inverted_pvalue", "percentile_levels", "quantile"]

#: An interval's two percentile levels as a function of ``alpha``.
Levels = Callable[[float], FloatArray]


def percentile_levels(alpha: float) -> FloatArray:
    """The percentile interval's levels, ``alpha / 2`` and ``1 - alpha / 2``."""
    return np.array([alpha / 2.0, 1.0 - alpha / 2.0])


def quantile(ordered: FloatArray, q: float) -> float:
    """The ``q`` quantile of sorted values by linear interpolation (numpy's default method):
    position ``q (B - 1)`` between the order statistics. One definition for the interval and
    the p-value, so that they cannot disagree."""
    last = ordered.size - 1
    h = min(max(float(q), 0.0), 1.0) * last
    j = min(math.floor(h), last)
    if j >= last:
        return float(ordered[last])
    lo, hi = float(ordered[j]), float(ordered[j + 1])
    return lo + (h - j) * (hi - lo)


def inverted_pvalue(ordered: FloatArray, levels: Levels) -> float:
    """The smallest ``alpha`` whose interval ``(Q(levels(alpha)[0]), Q(levels(alpha)[1]))``
    excludes 0: the p-value that agrees with the interval at every level.

    The interval widens as ``alpha`` shrinks, so "excludes 0" is monotone in ``alpha`` and
    the boundary is found by bisection (to 1e-12).
    """

    def excludes(alpha: float) -> bool:
        lo_q, hi_q = levels(alpha)
        return quantile(ordered, float(lo_q)) > 0.0 or quantile(ordered, float(hi_q)) < 0.0

    if not excludes(1.0 - 1e-15):
        return 1.0
    if excludes(1e-300):
        return 0.0
    low, high = 1e-300, 1.0 - 1e-15  # excludes(low) is False, excludes(high) is True
    while high - low > 1e-12:
        mid = 0.5 * (low + high)
        if excludes(mid):
            high = mid
        else:
            low = mid
    return high


def bca_levels(
    ordered: FloatArray, observed: float, jack: FloatArray, weights: FloatArray
) -> Levels:
    """The BCa interval's percentile levels as a function of ``alpha`` (Efron 1987), from the
    sorted bootstrap values, the observed value and the weighted leave-one-unit-out jackknife
    values (see :func:`evalbot.stats.resampling.run_bootstrap`)."""
    from scipy.special import ndtr, ndtri  # lazily: only BCa needs them

    b = ordered.size
    # Bias correction with ties counted half (the bootstrap distribution of a binary mean
    # is discrete and puts mass on the observed value); clipped so z0 stays finite.
    below = int(np.searchsorted(ordered, observed, side="left"))
    ties = int(np.searchsorted(ordered, observed, side="right")) - below
    prop = (below + 0.5 * ties) / b
    prop = min(max(prop, 0.5 / b), 1.0 - 0.5 / b)
    z0 = float(ndtri(prop))
    # Acceleration from the leave-one-unit-out jackknife, on the distinct rows only.
    accel = 0.0
    if jack.size:
        dev = np.average(jack, weights=weights) - jack
        den = float(np.sum(weights * dev**2))
        if den > 0.0:
            accel = float(np.sum(weights * dev**3)) / (6.0 * den**1.5)

    def levels(alpha: float) -> FloatArray:
        lower = float(ndtri(alpha / 2.0))
        shifted = z0 + np.array([lower, -lower])  # -ndtri(a) = ndtri(1 - a), finite at tiny a
        denom = np.maximum(1.0 - accel * shifted, 1e-12)
        return cast(FloatArray, ndtr(z0 + shifted / denom))

    return levels
