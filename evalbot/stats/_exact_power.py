"""The engine of :mod:`evalbot.stats.power`: McNemar's rejection region for every number of
discordant pairs, binomial windows, the exact power as a function of the number of items, and
the search for the smallest size with enough power (no public names; no IO)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal, cast

import numpy as np
import numpy.typing as npt
from scipy.special import bdtr, betaln, chdtrc, ndtri, xlog1py, xlogy

from evalbot.stats._validation import as_choice, as_probability
from evalbot.vocabulary import MCNEMAR_METHODS, McNemarMethod

CEIL_FUZZ = 1e-9
#: Relative slack when comparing a tail probability with alpha: scipy's binomial tails
#: (``bdtr``) agree with the exact rationals of :func:`~evalbot.stats.mcnemar` to ~1e-11.
_TAIL_FUZZ = 1e-10
#: Binomial weights beyond this many standard deviations from the mean are left out
#: (their mass is below 1e-20); the rest is renormalised.
_WINDOW_SD = 10.0
#: The exact search evaluates the power at every candidate size between a monotone upper
#: bound's crossing and the answer; when that would cost more than this many binomial
#: weights (candidates times window width) it bisects instead.
_SCAN_BUDGET = 4_000_000
#: Windows of counts wider than this are not summed (the power is reported as nan).
_MAX_WINDOW = 100_000
#: Above this many expected discordant pairs (where the sawtooth is far below 1e-3) the
#: search bisects on the exact power computed over each size's window of counts only ...
_WINDOW_ONLY_PAIRS = 50_000
#: ... and above this many it keeps the normal approximation's size (exact power reported).
_NORMAL_ONLY_PAIRS = 2_000_000

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
SearchRule = Literal["smallest", "bisection", "normal approximation"]
METHODS = MCNEMAR_METHODS


# ----------------------------------------------------------------------------- validation


def rates_iv(fix_rate: object, break_rate: object, *, differ: bool) -> tuple[float, float]:
    pf = as_probability(fix_rate, "fix_rate", open_low=False, open_high=False)
    pb = as_probability(break_rate, "break_rate", open_low=False, open_high=False)
    if pf + pb > 1.0 + 1e-12:
        raise ValueError(
            f"`fix_rate` + `break_rate` must be at most 1; got {fix_rate!r} + {break_rate!r}."
        )
    if differ and pf == pb:
        raise ValueError(
            f"`fix_rate` and `break_rate` must differ (no effect to detect); "
            f"got {fix_rate!r} and {break_rate!r}."
        )
    return pf, pb


def method_iv(method: object) -> McNemarMethod:
    return cast(McNemarMethod, as_choice(method, "method", METHODS))


def design_effect_iv(design_effect: object) -> float:
    try:
        deff = float(design_effect)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"`design_effect` must be a number; got {design_effect!r}.") from None
    if not (math.isfinite(deff) and deff >= 1.0):
        raise ValueError(f"`design_effect` must be a finite number >= 1; got {design_effect!r}.")
    return deff


def ceil_fuzzy(x: float) -> int:
    return math.ceil(x - CEIL_FUZZ)


# ----------------------------------------------------------------------------- the test


def binom_cdf(k: IntArray, n: IntArray, p: float) -> FloatArray:
    """``P(Bin(n, p) <= k)`` element-wise, for every ``k`` (scipy's ``bdtr`` inside ``0..n``)."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.int64), np.asarray(n, dtype=np.int64))
    out = np.where(k >= n, 1.0, 0.0)
    inside = (k >= 0) & (k < n)
    out[inside] = bdtr(k[inside], n[inside], p)
    return out


def binom_pmf(k: IntArray, n: IntArray, p: float) -> FloatArray:
    """``P(Bin(n, p) = k)`` element-wise (0 outside ``0..n``), from scipy's ``betaln``:
    ``C(n, k) = 1 / ((n + 1) B(n - k + 1, k + 1))``."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.int64), np.asarray(n, dtype=np.int64))
    out = np.zeros(k.shape, dtype=np.float64)
    inside = (k >= 0) & (k <= n)
    kk, nn = k[inside].astype(np.float64), n[inside].astype(np.float64)
    log = -np.log1p(nn) - betaln(nn - kk + 1.0, kk + 1.0) + xlogy(kk, p) + xlog1py(nn - kk, -p)
    out[inside] = np.exp(log)
    return out


def critical_counts(d: IntArray, alpha: float, method: McNemarMethod) -> IntArray:
    """Largest ``k`` such that ``min(fixed, broken) <= k`` rejects at ``alpha`` (-1: none).

    McNemar's test (every method) rejects when the smaller discordant count is at most a
    critical count ``k_d``; its p-value is increasing in that count below ``d / 2``.
    ``exact``: ``2 P(X <= k) <= alpha``; ``midp``: ``P(X <= k - 1) + P(X <= k) <= alpha``;
    ``asymptotic``: ``chi2_1.sf(max(0, d - 2k - 1)^2 / d) <= alpha``; ``X ~ Bin(d, 1/2)``.

    The search starts from the normal approximation with continuity correction (the
    asymptotic test's own boundary) and steps each count up or down until it is the largest
    that rejects.
    """
    dd = np.asarray(d, dtype=np.int64)
    limit = alpha * (1.0 + _TAIL_FUZZ)
    if method == "asymptotic":
        # rejects when (d - 2k - 1)^2 / d >= x*, the chi-squared(1) quantile at the limit
        x_star = float(ndtri(1.0 - limit / 2.0)) ** 2 if limit < 1.0 else 0.0

        def pvalues(kk: IntArray, nn: IntArray) -> FloatArray:
            gap = np.maximum(0, nn - 2 * kk - 1).astype(np.float64)
            return cast(FloatArray, chdtrc(1.0, gap * gap / np.maximum(nn, 1)))

    else:
        x_star = float(ndtri(1.0 - alpha / 2.0)) ** 2
        midp = method == "midp"

        def pvalues(kk: IntArray, nn: IntArray) -> FloatArray:
            tail = binom_cdf(kk, nn, 0.5)
            return tail + (binom_cdf(kk - 1, nn, 0.5) if midp else tail)

    def rejects(kk: IntArray, nn: IntArray) -> npt.NDArray[np.bool_]:
        return (kk >= 0) & (2 * kk < nn) & (pvalues(kk, nn) <= limit)

    df = dd.astype(np.float64)
    k = np.floor((df - 1.0 - np.sqrt(x_star * df)) / 2.0).astype(np.int64)
    k = np.clip(k, -1, np.maximum((dd - 1) // 2, -1))  # k < d / 2: the tails stay disjoint
    down = (k >= 0) & ~rejects(k, dd)
    idx = np.flatnonzero(down)
    while idx.size:
        k[idx] -= 1
        idx = idx[(k[idx] >= 0) & ~rejects(k[idx], dd[idx])]
    idx = np.flatnonzero(~down)
    while idx.size:
        idx = idx[rejects(k[idx] + 1, dd[idx])]
        k[idx] += 1
    return k


def conditional_power(d: IntArray, k: IntArray, share: float) -> FloatArray:
    """P(reject | D = d) when a discordant item is fixed with probability ``share``:
    ``P(fixed <= k) + P(broken <= k)`` (0 where ``k = -1``), over consecutive ``d`` by
    one recurrence each."""
    return conditional_power_slope(d, k, share)[0]


def conditional_power_slope(
    d: IntArray, k: IntArray, share: float
) -> tuple[FloatArray, FloatArray]:
    """:func:`conditional_power` and its derivative in ``share``: ``d/ds P(Bin(d, s) <= k)
    = -d P(Bin(d - 1, s) = k)``, and the other tail's mirror image."""
    d = np.asarray(d, dtype=np.int64)
    k = np.asarray(k, dtype=np.int64)
    low, low_term = binom_cdf(k, d, share), binom_pmf(k, d - 1, share)  # fixed <= k
    if share == 0.5:
        high, high_term = low, low_term
    else:  # broken <= k: fixed >= d - k
        high, high_term = binom_cdf(k, d, 1.0 - share), binom_pmf(k, d - 1, 1.0 - share)
    ok = k >= 0
    power = np.where(ok, low + high, 0.0)
    slope = np.where(ok & (d >= 1), d * (high_term - low_term), 0.0)
    return power, slope


class Binomial:
    """Weights of ``Bin(n, psi)`` over a window of counts (vectorised over several ``n``)."""

    def __init__(self, psi: float) -> None:
        self.psi = psi

    def window(self, n: IntArray) -> tuple[IntArray, FloatArray]:
        """``(d, w)``, each of shape ``(len(n), width)``: counts and their probabilities.

        Counts outside ``[0, n]`` get weight 0; the weights are renormalised per row, and
        counts further than 10 standard deviations from the mean (mass below 1e-20) are left
        out.
        """
        psi = self.psi
        if psi in (0.0, 1.0):
            d = (n if psi == 1.0 else np.zeros_like(n)).reshape(-1, 1)
            return d, np.ones((len(n), 1), dtype=np.float64)
        nf = n.astype(np.float64)
        half = int(np.ceil(_WINDOW_SD * math.sqrt(float(n.max()) * psi * (1.0 - psi)) + 20.0))
        lo = np.maximum(0, np.floor(nf * psi).astype(np.int64) - half)
        width = min(2 * half + 1, int(n.max()) + 1)
        raw = lo[:, None] + np.arange(width, dtype=np.int64)[None, :]
        sizes = np.broadcast_to(n[:, None], raw.shape)
        d = np.minimum(raw, sizes)
        w = np.where(raw <= sizes, binom_pmf(d, sizes, psi), 0.0)
        w /= w.sum(axis=1, keepdims=True)
        return d[:, :width], cast(FloatArray, w)

    def counts(self, n: int) -> tuple[IntArray, FloatArray]:
        """The window of one size as consecutive counts (no repeats past ``n``)."""
        d, w = self.window(np.array([n], dtype=np.int64))
        keep = min(d.shape[1], int(np.searchsorted(d[0], n, side="left")) + 1)
        return d[0, :keep], w[0, :keep]


class PowerCurve:
    """The exact power of McNemar's test as a function of the number of items.

    Holds the critical count and conditional power for every discordant count up to a cap
    that grows on demand, so that evaluating many sizes costs one weighted sum each.
    """

    def __init__(self, pf: float, pb: float, alpha: float, method: McNemarMethod) -> None:
        self.psi = pf + pb
        # The test is symmetric in fixed/broken: work with the larger share.
        self.share = max(pf, pb) / self.psi if self.psi > 0 else 0.5
        self.alpha = alpha
        self.method = method
        self.binomial = Binomial(min(1.0, self.psi))
        self.cap = -1
        self.k: IntArray = np.zeros(0, dtype=np.int64)
        self.cond: FloatArray = np.zeros(0, dtype=np.float64)

    def ensure(self, max_d: int) -> None:
        """Hold the critical counts and conditional powers up to at least ``max_d``."""
        if max_d <= self.cap:
            return
        cap = max(max_d + max_d // 8, 64)
        d = np.arange(self.cap + 1, cap + 1, dtype=np.int64)
        k = critical_counts(d, self.alpha, self.method)
        self.k = np.concatenate([self.k, k])
        self.cond = np.concatenate([self.cond, conditional_power(d, k, self.share)])
        self.cap = cap

    def power(self, n: IntArray | list[int]) -> FloatArray:
        """Exact power at each size in ``n`` (vectorised)."""
        sizes = np.atleast_1d(np.asarray(n, dtype=np.int64))
        out = np.empty(sizes.size, dtype=np.float64)
        block = 256
        for start in range(0, sizes.size, block):
            part = sizes[start : start + block]
            d, w = self.binomial.window(part)
            self.ensure(int(d.max()))
            out[start : start + block] = np.minimum(1.0, np.sum(w * self.cond[d], axis=1))
        return out

    def at(self, n: int) -> float:
        return float(self.power([n])[0])

    def at_window(self, n: int) -> float:
        """Exact power at ``n`` computing the test only over that size's window of counts
        (for very large sizes, where holding every count from 0 would cost too much)."""
        if 2.0 * _WINDOW_SD * math.sqrt(n * self.psi * (1.0 - self.psi)) > _MAX_WINDOW:
            return math.nan
        d, w = self.binomial.counts(n)
        cond = conditional_power(d, critical_counts(d, self.alpha, self.method), self.share)
        return float(min(1.0, np.sum(w * cond)))

    def weighted(self, n: int, values: FloatArray) -> float:
        d, w = self.binomial.window(np.array([n], dtype=np.int64))
        return float(np.sum(w * values[d]))

    # -- monotone envelopes: bounds on the power that never decrease with n --

    def upper_envelope(self) -> FloatArray:
        """Per discordant count, ``max`` of the conditional power over all smaller counts: a
        bound ``U(d) >= P(reject | d)`` that never decreases with ``d``.

        Its average over ``Bin(n, psi)`` never decreases with ``n`` (the binomial grows
        stochastically with ``n``) and bounds the power at ``n`` from above, so a size where
        that average is below the target, and every smaller size, lacks power.
        """
        return np.maximum.accumulate(self.cond)

    def lower_envelope(self) -> FloatArray:
        """Per discordant count, ``min`` of the conditional power over all larger counts held:
        a bound ``L(d) <= P(reject | d')`` for every held ``d' >= d``, non-decreasing in
        ``d``; its average over ``Bin(n, psi)`` bounds the power from below and never
        decreases with ``n``."""
        return np.minimum.accumulate(self.cond[::-1])[::-1]


def counts_needed(n: int, psi: float) -> int:
    """The largest discordant count a window of ``Bin(n, psi)`` reaches, with room."""
    return math.ceil(n * psi + _WINDOW_SD * math.sqrt(n * psi * (1.0 - psi)) + 64)


def first_crossing(values: Callable[[int], float], low: int, high: int, target: float) -> int:
    """Smallest ``n`` in ``(low, high]`` with ``values(n) >= target`` for a non-decreasing
    ``values`` with ``values(high) >= target`` (``values(low) < target`` or ``low`` = -1)."""
    while high - low > 1:
        mid = (low + high) // 2
        if values(mid) >= target:
            high = mid
        else:
            low = mid
    return high


def exact_search(curve: PowerCurve, start: int, pw: float) -> tuple[int, SearchRule, int | None]:
    """``(items, rule, stable_items)`` by the rule of :func:`mcnemar_sample_size`."""
    # A size with enough power: start at the normal plan and grow, then bisect (treating
    # the power as monotone only to find *a* size with enough power, never the answer).
    high = max(1, start)
    low = 0
    while curve.at(high) < pw:
        low, high = high, high + max(1, high // 8)
    high = first_crossing(curve.at, low, high, pw)
    # Every size whose monotone upper bound is below the target is ruled out.
    curve.ensure(counts_needed(high, curve.psi))
    upper = curve.upper_envelope()
    low = first_crossing(lambda n: curve.weighted(n, upper), -1, high, pw) - 1
    width = 2.0 * _WINDOW_SD * math.sqrt(high * curve.psi * (1.0 - curve.psi)) + 41.0
    max_sizes = max(256, int(_SCAN_BUDGET / width))
    if high - low > max_sizes:
        return high, "bisection", None
    items = high
    for start_size in range(low + 1, high + 1, 256):
        sizes = np.arange(start_size, min(high, start_size + 255) + 1, dtype=np.int64)
        hits = np.flatnonzero(curve.power(sizes) >= pw)
        if hits.size:
            items = int(sizes[hits[0]])
            break
    # Beyond the first size where the lower bound reaches the target the power stays up.
    top = items
    lower = curve.lower_envelope()
    while curve.weighted(top, lower) < pw:
        top += max(1, top // 8)
        curve.ensure(counts_needed(top, curve.psi))
        lower = curve.lower_envelope()
    guaranteed = first_crossing(lambda n: curve.weighted(n, lower), items - 1, top, pw)
    if guaranteed - items > max_sizes:
        return items, "smallest", None
    sizes = np.arange(items, guaranteed + 1, dtype=np.int64)
    below = np.flatnonzero(curve.power(sizes) < pw)
    return items, "smallest", int(sizes[below[-1]] + 1) if below.size else items
