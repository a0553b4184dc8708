"""Cohen's ``d_z``: a scale-free effect size for paired numeric scores, with its interval."""

from __future__ import annotations

import math
from dataclasses import dataclass

from evalbot.stats._validation import FloatArray, as_float_vector, as_probability
from evalbot.stats.intervals import ConfidenceInterval
from evalbot.vocabulary import CONFIDENCE

__all__ = ["EffectSizeResult", "cohens_dz"]


@dataclass(frozen=True, kw_only=True)
class EffectSizeResult:
    """Result of :func:`cohens_dz`.

    Attributes
    ----------
    statistic : float
        ``d_z = mean(d) / sd(d)`` (``ddof = 1``) of the per-item differences ``d``; ``nan``
        when the differences do not vary (one item, or all equal).
    confidence_interval : ConfidenceInterval
        Noncentral-t interval for the population ``d_z`` (exact for normal differences).
    confidence_level : float
    n_items : int
    method : str
        ``"noncentral t"``.
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    n_items: int
    method: str = "noncentral t"


def _polish(df: int, t: float, target: float, start: float) -> float:
    """Secant steps on ``nctdtr`` from cdflib's answer (about 1e-7 accurate); nan if they
    wander off."""
    from scipy.special import nctdtr

    x0, x1 = start, start + 1e-6 * (1.0 + abs(start))
    f0 = float(nctdtr(df, x0, t)) - target
    f1 = float(nctdtr(df, x1, t)) - target
    for _ in range(8):
        if f1 == f0:
            break
        x0, x1 = x1, x1 - f1 * (x1 - x0) / (f1 - f0)
        f0, f1 = f1, float(nctdtr(df, x1, t)) - target
        if abs(x1 - x0) < 1e-13 * (1.0 + abs(x1)):
            break
    ok = math.isfinite(x1) and abs(x1 - start) < 1e-3 * (1.0 + abs(start))
    return x1 if ok else math.nan


def _bisect_noncentrality(df: int, t: float, target: float) -> float:
    """Bisection on ``nctdtr`` (decreasing in the noncentrality) after bracketing."""
    from scipy.special import nctdtr

    step = 1.0 + abs(t)
    low, high = t - step, t + step
    while float(nctdtr(df, low, t)) < target:
        low -= step
        step *= 2.0
    step = 1.0 + abs(t)
    while float(nctdtr(df, high, t)) > target:
        high += step
        step *= 2.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        if mid in (low, high):
            break
        if float(nctdtr(df, mid, t)) > target:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def _noncentrality(df: int, t: float, target: float) -> float:
    """The noncentrality whose t distribution puts ``target`` of its mass below ``t``."""
    from scipy.special import nctdtrinc

    found = float(nctdtrinc(df, target, t))
    if math.isfinite(found):
        polished = _polish(df, t, target, found)
        if math.isfinite(polished):
            return polished
    return _bisect_noncentrality(df, t, target)


def dz_from_differences(d: FloatArray, cl: float) -> EffectSizeResult:
    """:func:`cohens_dz` of per-item differences (no input validation)."""
    n = d.size
    sd = float(d.std(ddof=1)) if n > 1 else 0.0
    if n < 2 or sd == 0.0:
        nan = math.nan
        return EffectSizeResult(
            statistic=nan,
            confidence_interval=ConfidenceInterval(nan, nan),
            confidence_level=cl,
            n_items=n,
        )
    dz = float(d.mean()) / sd
    t = dz * math.sqrt(n)
    alpha = 1.0 - cl
    root_n = math.sqrt(n)
    return EffectSizeResult(
        statistic=dz,
        confidence_interval=ConfidenceInterval(
            _noncentrality(n - 1, t, 1.0 - alpha / 2.0) / root_n,
            _noncentrality(n - 1, t, alpha / 2.0) / root_n,
        ),
        confidence_level=cl,
        n_items=n,
    )


def cohens_dz(
    baseline: object, candidate: object, *, confidence_level: float = CONFIDENCE
) -> EffectSizeResult:
    """Cohen's ``d_z``: the mean of the per-item differences over their standard deviation.

    A scale-free size of the change (0.2 small, 0.5 medium, 0.8 large by Cohen's rough
    conventions), comparable across metrics with different units.

    Notes
    -----
    ``t = sqrt(n) d_z`` has a noncentral t distribution with ``n - 1`` degrees of freedom
    and noncentrality ``sqrt(n) delta_z`` for normal differences; the interval collects the
    ``delta_z`` whose distribution puts the observed ``t`` between its ``alpha / 2`` and
    ``1 - alpha / 2`` quantiles (Steiger & Fouladi 1997). ``nan`` when the differences do not
    vary.

    References
    ----------
    .. [1] J. Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed.,
       Erlbaum (1988), §2.3.5 (``d_z`` for paired samples).
    .. [2] J. H. Steiger, R. T. Fouladi, "Noncentrality interval estimation and the
       evaluation of statistical models", in *What If There Were No Significance Tests?*,
       Erlbaum (1997), 221-257.

    Examples
    --------
    >>> from evalbot.stats import cohens_dz
    >>> r = cohens_dz([0, 0, 0, 0], [1.0, 2.0, 3.0, 2.0])
    >>> round(r.statistic, 4)  # mean 2 / sd 0.8165
    2.4495
    """
    cl = as_probability(confidence_level, "confidence_level")
    base = as_float_vector(baseline, "baseline")
    cand = as_float_vector(candidate, "candidate")
    if base.size == 0 or base.shape != cand.shape:
        raise ValueError(
            "`baseline` and `candidate` must have the same, non-zero length (one value per "
            f"paired item); got {base.size} and {cand.size}."
        )
    return dz_from_differences(cand - base, cl)
