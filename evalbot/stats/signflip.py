"""The sign-flip (paired permutation) test of a mean difference, and its inverted interval.

Under the null hypothesis that the two runs are exchangeable on every item, each per-item
difference is as likely to have either sign, so the distribution of their sum over the
``2^n`` sign patterns is exact at every n. It is enumerated for up to :data:`EXACT_MAX_ITEMS`
items (meeting in the middle) and sampled above (seeded, ``p = (1 + count) / (1 + B)``, a
valid p-value for any ``B``). The interval collects every shift the test does not reject.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from evalbot.stats._paired_common import PairedMeanResult, pair_iv, standard_error
from evalbot.stats._validation import FloatArray, as_count, as_probability
from evalbot.stats.effect_size import dz_from_differences
from evalbot.stats.intervals import ConfidenceInterval
from evalbot.stats.pvalue import PValue, exact_pvalue, upper_bound_pvalue
from evalbot.vocabulary import CONFIDENCE, RESAMPLES

__all__ = ["EXACT_MAX_ITEMS", "sign_flip_pvalue", "sign_flip_test"]

#: Up to this many items the sign-flip test enumerates all ``2^n`` sign patterns (by meeting
#: in the middle: two halves of ``2^(n/2)`` sums each).
EXACT_MAX_ITEMS = 24
#: Relative tolerance for ties between a flipped sum and the observed one (discrete scores).
_TIE = 1e-9
#: Sign patterns held per chunk by the Monte Carlo test (int8: 2 MiB as float64 per chunk).
_CHUNK = 1 << 18


def _signed_sums(a: FloatArray) -> FloatArray:
    """All ``2^len(a)`` sums ``sum(s_i a_i)`` over signs ``s_i = +-1``."""
    sums = np.zeros(1, dtype=np.float64)
    for x in a:
        sums = np.concatenate([sums + x, sums - x])
    return sums


def _exact_tail(a: FloatArray, threshold: float) -> float:
    """Share of sign patterns with ``|sum(s_i a_i)| >= threshold`` (``threshold > 0``)."""
    half = a.size // 2
    left = _signed_sums(a[:half])
    right = np.sort(_signed_sums(a[half:]))
    high = right.size - np.searchsorted(right, threshold - left, side="left")
    low = np.searchsorted(right, -threshold - left, side="right")
    return float(np.sum(high) + np.sum(low)) / float(left.size * right.size)


class _SignFlip:
    """The sign-flip p-value of the shift ``delta`` for differences ``d`` (exact or sampled).

    ``pvalue(delta)`` tests "the differences minus ``delta`` are symmetric about 0" with the
    statistic ``|sum(d - delta)|``; the sampled version reuses one set of sign patterns for
    every ``delta``, so its p-value, like the exact one, never increases as ``delta`` moves
    away from ``mean(d)`` and the accepted shifts form an interval.

    With unit ``weights`` ``w`` (clusters: ``d`` holds each cluster's total of the per-item
    differences and ``w`` its size) the shifted values are ``d - w delta``: the same argument
    holds, since no pattern's sum moves faster in ``delta`` than the observed one
    (``|sum(s_g w_g)| <= sum(w_g)``).
    """

    def __init__(
        self,
        d: FloatArray,
        n_resamples: int,
        seed: int,
        exact: bool,
        weights: FloatArray | None = None,
    ) -> None:
        self.d = d
        self.w = weights
        self.n = d.size
        self.exact = exact
        self.n_resamples = 0 if exact else n_resamples
        self.signs = None
        if not exact:
            rng = np.random.default_rng(seed)
            self.signs = (rng.integers(0, 2, size=(n_resamples, self.n), dtype=np.int8) * 2) - 1

    def pvalue(self, delta: float) -> float:
        shifted = self.d - delta if self.w is None else self.d - self.w * delta
        a = np.abs(shifted)
        scale = float(a.sum())
        observed = abs(float(np.sum(shifted)))
        threshold = observed - _TIE * scale
        if threshold <= 0.0:
            return 1.0
        if self.exact:
            return _exact_tail(a, threshold)
        assert self.signs is not None
        count = 0
        rows = max(1, _CHUNK // self.n)
        for start in range(0, self.n_resamples, rows):
            flipped = self.signs[start : start + rows].astype(np.float64) @ a
            count += int(np.count_nonzero(np.abs(flipped) >= threshold))
        return (1.0 + count) / (1.0 + self.n_resamples)


def _invert(
    pvalue: Callable[[float], float],
    d: FloatArray,
    alpha: float,
    p_zero: float,
    centre: float | None = None,
) -> ConfidenceInterval:
    """``[lo, hi]``: the shifts whose p-value exceeds ``alpha``, by bisection on each side.

    The p-value never increases as the shift moves away from ``centre`` (``mean(d)``, where
    it is 1), so each side has one boundary. 0 seeds the bracket on its side, so the interval
    contains 0 exactly when ``p_zero > alpha``. A side whose farthest shift is still accepted
    is unbounded. For clusters ``d`` holds the cluster means and ``centre`` the mean over
    items.
    """
    centre = float(d.mean()) if centre is None else centre
    spread = float(d.max() - d.min())
    scale = max(spread, abs(centre), 1e-300)
    ends = []
    for direction in (-1.0, 1.0):
        inside = centre  # accepted
        # every difference on one side of the shift: the flipped sum can only tie the
        # observed one for the all-plus or all-minus pattern, the least p possible
        far = (float(d.min()) if direction < 0 else float(d.max())) + direction * 1e-6 * scale
        if pvalue(far) > alpha:
            ends.append(direction * math.inf)
            continue
        outside = far  # rejected
        if direction * (0.0 - centre) > 0.0 and direction * (0.0 - far) < 0.0:
            if p_zero > alpha:
                inside = 0.0
            else:
                outside = 0.0
        tolerance = 1e-9 * scale
        while abs(outside - inside) > tolerance:
            mid = 0.5 * (inside + outside)
            if mid in (inside, outside):
                break
            if pvalue(mid) > alpha:
                inside = mid
            else:
                outside = mid
        ends.append(inside)
    return ConfidenceInterval(ends[0], ends[1])


def sign_flip_test(
    baseline: object,
    candidate: object,
    *,
    confidence_level: float = CONFIDENCE,
    n_resamples: int = RESAMPLES,
    seed: int = 0,
) -> PairedMeanResult:
    """Sign-flip (paired permutation) test of the mean difference, and its inverted interval.

    Parameters
    ----------
    baseline, candidate : array_like of float, shape (n,)
        Per-item values of the two runs, aligned item by item.
    confidence_level : float, optional
        Level of the interval; its complement is the test's ``alpha``. Default 0.95.
    n_resamples : int, optional
        Sign patterns sampled when ``n > EXACT_MAX_ITEMS`` (24). Default 10,000.
    seed : int, optional
        Seed of the sampled sign patterns. Default 0.

    Returns
    -------
    PairedMeanResult

    Notes
    -----
    With ``d = candidate - baseline`` the statistic is ``|sum(d)|``; under the null hypothesis
    that the two runs are exchangeable within each item (the candidate is the baseline by
    another name), every sign pattern of ``d`` is equally likely, so the p-value
    ``P(|sum(s_i |d_i|)| >= |sum(d)|)`` over the ``2^n`` patterns is exact at every ``n``.
    Above 24 items ``B`` patterns are drawn and ``p = (1 + count) / (1 + B)``, which is a
    valid p-value for any ``B`` (Phipson & Smyth 2010).

    The interval inverts the test: ``delta`` is inside when the test of
    ``d - delta`` does not reject at ``alpha = 1 - confidence_level``. Its end points assume
    that the differences are symmetric about their mean (the permutation null at
    ``delta``); they are found by bisection to ``1e-9`` of the data's range. With ``n``
    items the smallest attainable p-value is ``2^(1 - n)``: with five or fewer items no shift
    is rejected at 95 % and the interval is ``(-inf, inf)``.

    References
    ----------
    .. [1] R. A. Fisher, *The Design of Experiments*, Oliver & Boyd (1935), §21.
    .. [2] B. Phipson, G. K. Smyth, "Permutation p-values should never be zero", Statistical
       Applications in Genetics and Molecular Biology 9 (2010), article 39.
    .. [3] P. H. Garthwaite, "Confidence intervals from randomization tests", Biometrics 52
       (1996), 1387-1393.

    Examples
    --------
    Eight items, all improved: ``|sum(d)|`` is the largest of the 256 patterns' sums, reached
    only by all-plus and all-minus, so ``p = 2/256``.

    >>> from evalbot.stats import sign_flip_test
    >>> r = sign_flip_test([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
    ...                    [0.3, 0.5, 0.4, 0.6, 0.9, 0.7, 0.9, 1.0])
    >>> r.pvalue, r.method
    (0.0078125, 'exact sign-flip')
    >>> bool(r.confidence_interval.low > 0)
    True
    """
    cl = as_probability(confidence_level, "confidence_level")
    b = as_count(n_resamples, "n_resamples", minimum=1)
    s = as_count(seed, "seed")
    base, cand = pair_iv(baseline, candidate)
    return sign_flip(base, cand, cl, b, s)


def sign_flip_pvalue(
    baseline: object,
    candidate: object,
    *,
    shift: float = 0.0,
    n_resamples: int = RESAMPLES,
    seed: int = 0,
) -> float:
    """The p-value of :func:`sign_flip_test` alone, for the shift ``shift`` (default 0).

    ``sign_flip_test``'s interval is exactly the set of shifts whose p-value here exceeds
    ``1 - confidence_level`` (same sign patterns for the same ``seed``), so this is the cheap
    way to ask "is ``shift`` inside the interval?" (used by the coverage simulations).

    Examples
    --------
    >>> from evalbot.stats import sign_flip_pvalue
    >>> sign_flip_pvalue([0.0] * 8, [0.2, 0.3, 0.1, 0.2, 0.4, 0.1, 0.2, 0.2])
    0.0078125
    """
    b = as_count(n_resamples, "n_resamples", minimum=1)
    s = as_count(seed, "seed")
    base, cand = pair_iv(baseline, candidate)
    try:
        delta = float(shift)
    except (TypeError, ValueError):
        raise ValueError(f"`shift` must be a number; got {shift!r}.") from None
    if not math.isfinite(delta):
        raise ValueError(f"`shift` must be finite; got {shift!r}.")
    d = cand - base
    return _SignFlip(d, b, s, d.size <= EXACT_MAX_ITEMS).pvalue(delta)


def sign_flip(base: FloatArray, cand: FloatArray, cl: float, b: int, s: int) -> PairedMeanResult:
    d = cand - base
    n = d.size
    exact = n <= EXACT_MAX_ITEMS
    flip = _SignFlip(d, b, s, exact)
    alpha = 1.0 - cl
    p = flip.pvalue(0.0)
    if float(np.ptp(d)) == 0.0:
        centre = float(d[0])
        ci = ConfidenceInterval(centre, centre)
        # every difference equal: reject every other shift as far as the data allow
        if min(1.0, 2.0 ** (1 - n)) > alpha:
            ci = ConfidenceInterval(-math.inf, math.inf)
    else:
        ci = _invert(flip.pvalue, d, alpha, p)
    detail = flip_pvalue(p, n, b, exact)
    return PairedMeanResult(
        statistic=float(d.mean()),
        pvalue=detail,
        confidence_interval=ci,
        method="exact sign-flip" if exact else "Monte Carlo sign-flip",
        confidence_level=cl,
        n_items=n,
        standard_error=standard_error(d),
        n_resamples=0 if exact else b,
        seed=None if exact else s,
        effect_size=dz_from_differences(d, cl),
        baseline_value=float(base.mean()),
        candidate_value=float(cand.mean()),
    )


def flip_pvalue(p: float, n: int, b: int, exact: bool) -> PValue:
    """The sign-flip p-value ``p`` of ``n`` items with its resolution: ``2^(1 - n)`` when
    every pattern was enumerated, ``1 / (1 + B)`` when ``B`` were sampled (at that floor it is
    only a bound)."""
    if exact:
        return exact_pvalue(p, resolution=min(1.0, 2.0 ** (1 - n)))
    step = 1.0 / (1.0 + b)
    if p <= step:
        return upper_bound_pvalue(step, resolution=step)
    return exact_pvalue(p, resolution=step)
