"""Records and input checks shared by the paired tests of numeric scores
(:mod:`evalbot.stats.signflip`, :mod:`evalbot.stats.paired_mean`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from evalbot.stats._validation import FloatArray, as_float_vector
from evalbot.stats.effect_size import EffectSizeResult
from evalbot.stats.intervals import ConfidenceInterval
from evalbot.stats.pvalue import PValue

__all__ = ["PairedMeanResult", "pair_iv", "standard_error"]


@dataclass(frozen=True, kw_only=True)
class PairedMeanResult:
    """Result of :func:`paired_mean_test`, :func:`sign_flip_test` and
    :func:`studentized_mean_test`.

    Attributes
    ----------
    statistic : float
        ``mean(candidate) - mean(baseline)``, the mean of the per-item differences.
    pvalue : float
        Two-sided p-value of "no difference" (see ``method``).
    confidence_interval : ConfidenceInterval
        The interval from the same method: it excludes 0 exactly when
        ``pvalue <= 1 - confidence_level``. ``(-inf, inf)`` when the method cannot reject any
        shift (five or fewer items at 95 % for the sign-flip test).
    method : str
        ``"exact sign-flip"``, ``"Monte Carlo sign-flip"``, ``"paired t"`` or
        ``"skewness-corrected t"``.
    confidence_level : float
    n_items : int
    standard_error : float
        ``sd(d) / sqrt(n)`` (``ddof = 1``); ``nan`` for one item.
    n_resamples : int
        Sign patterns sampled (Monte Carlo sign-flip), 0 otherwise.
    seed : int or None
        Seed of the sampled sign patterns (Monte Carlo only).
    effect_size : EffectSizeResult
        ``d_z`` and its interval.
    baseline_value, candidate_value : float
        The mean of each run.
    """

    statistic: float
    pvalue: PValue
    confidence_interval: ConfidenceInterval
    method: str
    confidence_level: float
    n_items: int
    standard_error: float
    n_resamples: int
    seed: int | None
    effect_size: EffectSizeResult
    baseline_value: float
    candidate_value: float


def pair_iv(baseline: object, candidate: object) -> tuple[FloatArray, FloatArray]:
    base = as_float_vector(baseline, "baseline")
    cand = as_float_vector(candidate, "candidate")
    if base.size == 0:
        raise ValueError("`baseline` must contain at least one item; got an empty array.")
    if base.shape != cand.shape:
        raise ValueError(
            "`baseline` and `candidate` must have the same length (one value per paired item); "
            f"got {base.size} and {cand.size}."
        )
    return base, cand


def standard_error(d: FloatArray) -> float:
    return float(d.std(ddof=1)) / math.sqrt(d.size) if d.size > 1 else math.nan
