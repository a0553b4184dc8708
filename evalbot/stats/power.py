"""Planning: items needed to detect a change, and the change detectable with given items, by
exact power of McNemar's test.

Everything here is computed for the test evalbot actually runs (McNemar's test, exact by
default; mid-p and asymptotic on request) by exact enumeration, not by a normal approximation:
the number of discordant items is ``D ~ Bin(items, fix_rate + break_rate)`` and, given ``D``,
the fixed count is ``Bin(D, fix_rate / (fix_rate + break_rate))``; the power sums the
conditional rejection probability over ``D``. The engine below holds McNemar's rejection region
for every number of discordant pairs, binomial windows, and the exact power as a function of
the number of items. The normal approximation (Connor 1987) is kept beside each result as a
labelled comparison.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np
import numpy.typing as npt
from scipy.special import bdtr, betaln, chdtrc, ndtri, xlog1py, xlogy

from evalbot.stats._validation import FloatArray, as_count, as_number, as_probability
from evalbot.stats.mcnemar import method_iv
from evalbot.vocabulary import ALPHA, POWER, McNemarMethod

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


SearchRule = Literal["smallest", "bisection", "normal approximation"]


def rates_iv(fix_rate: object, break_rate: object, *, differ: bool) -> tuple[float, float]:
    pf = as_probability(fix_rate, "fix_rate", closed=True)
    pb = as_probability(break_rate, "break_rate", closed=True)
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


def plan_iv(
    alpha: object, power: object = POWER, method: object = "exact", design_effect: object = 1.0
) -> tuple[float, float, McNemarMethod, float]:
    """A plan's ``alpha``, target ``power``, McNemar ``method`` and ``design_effect`` (>= 1)."""
    a = as_probability(alpha, "alpha")
    pw = as_probability(power, "power")
    m = method_iv(method)
    deff = as_number(
        design_effect, "design_effect", lambda x: 1.0 <= x < math.inf, "be a finite number >= 1"
    )
    return a, pw, m, deff


def ceil_fuzzy(x: float) -> int:
    return math.ceil(x - CEIL_FUZZ)


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


def conditional_power(d: IntArray, k: IntArray, share: float) -> tuple[FloatArray, FloatArray]:
    """P(reject | D = d) when a discordant item is fixed with probability ``share``:
    ``P(fixed <= k) + P(broken <= k)`` (0 where ``k = -1``), and its derivative in ``share``:
    ``d/ds P(Bin(d, s) <= k) = -d P(Bin(d - 1, s) = k)``, and the other tail's mirror
    image."""
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


def binomial_window(psi: float, n: IntArray) -> tuple[IntArray, FloatArray]:
    """``(d, w)``, each of shape ``(len(n), width)``: a window of counts of ``Bin(n, psi)`` and
    their probabilities, for each size in ``n``.

    Counts outside ``[0, n]`` get weight 0; the weights are renormalised per row, and counts
    further than 10 standard deviations from the mean (mass below 1e-20) are left out.
    """
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


def binomial_counts(psi: float, n: int) -> tuple[IntArray, FloatArray]:
    """The window of one size as consecutive counts (no repeats past ``n``)."""
    d, w = binomial_window(psi, np.array([n], dtype=np.int64))
    keep = min(d.shape[1], int(np.searchsorted(d[0], n, side="left")) + 1)
    return d[0, :keep], w[0, :keep]


class PowerCurve:
    """The exact power of McNemar's test as a function of the number of items.

    Holds the conditional power (from the critical count) of every discordant count up to a cap
    that grows on demand, so that evaluating many sizes costs one weighted sum each.
    """

    def __init__(self, pf: float, pb: float, alpha: float, method: McNemarMethod) -> None:
        self.psi = pf + pb
        # The test is symmetric in fixed/broken: work with the larger share.
        self.share = max(pf, pb) / self.psi if self.psi > 0 else 0.5
        self.alpha = alpha
        self.method = method
        self.discordant_rate = min(1.0, self.psi)
        self.cap = -1
        self.cond: FloatArray = np.zeros(0, dtype=np.float64)

    def ensure(self, max_d: int) -> None:
        """Hold the critical counts and conditional powers up to at least ``max_d``."""
        if max_d <= self.cap:
            return
        cap = max(max_d + max_d // 8, 64)
        d = np.arange(self.cap + 1, cap + 1, dtype=np.int64)
        self.cond = np.concatenate([self.cond, self.conditional(d)])
        self.cap = cap

    def conditional(self, d: IntArray) -> FloatArray:
        """P(reject | D = d) of the test at each discordant count in ``d``."""
        return conditional_power(d, critical_counts(d, self.alpha, self.method), self.share)[0]

    def power(self, n: IntArray | list[int]) -> FloatArray:
        """Exact power at each size in ``n`` (vectorised)."""
        sizes = np.atleast_1d(np.asarray(n, dtype=np.int64))
        out = np.empty(sizes.size, dtype=np.float64)
        block = 256
        for start in range(0, sizes.size, block):
            part = sizes[start : start + block]
            d, w = binomial_window(self.discordant_rate, part)
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
        d, w = binomial_counts(self.discordant_rate, n)
        return float(min(1.0, np.sum(w * self.conditional(d))))

    def weighted(self, n: int, values: FloatArray) -> float:
        d, w = binomial_window(self.discordant_rate, np.array([n], dtype=np.int64))
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


def smallest_reaching(values: Callable[[int], float], start: int, target: float) -> int:
    """A size with ``values(size) >= target``: grow from ``start`` by an eighth, then bisect
    (``values`` treated as monotone only to find *a* size with enough power)."""
    low, high = 0, start
    while values(high) < target:
        low, high = high, high + max(1, high // 8)
    return first_crossing(values, low, high, target)


def exact_search(curve: PowerCurve, start: int, pw: float) -> tuple[int, SearchRule, int | None]:
    """``(items, rule, stable_items)`` by the rule of :func:`mcnemar_sample_size`."""
    # A size with enough power, from the normal plan (never the answer itself).
    high = smallest_reaching(curve.at, max(1, start), pw)
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


def _solve(
    function: Callable[[float], float],
    slope: Callable[[float], float],
    low: float,
    high: float,
    start: float,
) -> float:
    """The smallest float where an increasing ``function`` is >= 0, with ``function(low) < 0 <=
    function(high)``, found with Newton's steps (plain bisection where ``slope`` is not a
    positive number).

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
    p = _solve(gap, lambda _: math.nan, 0.5, 1.0, math.nan) if gap(0.5) < 0.0 else 0.5
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

    >>> from evalbot.stats.power import mcnemar_minimum_detectable_effect
    >>> r = mcnemar_minimum_detectable_effect(100, 0.10)
    >>> round(r.effect, 4), round(r.normal_effect, 4), round(r.normal_exact_power, 3)
    (0.0884, 0.0785, 0.645)
    """
    n = as_count(items, "items")
    psi = as_probability(discordant_rate, "discordant_rate", closed=True)
    a, pw, m, deff = plan_iv(alpha, power, method, design_effect)
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
    d, w = binomial_counts(psi, n_eff)
    k = critical_counts(d, a, m)

    @functools.cache
    def evaluate(share: float) -> tuple[float, float]:
        power, slope = conditional_power(d, k, share)
        return float(np.sum(w * power)), float(np.sum(w * slope))

    def power_at(share: float) -> float:
        return evaluate(share)[0]

    start = 0.5 + normal / (2.0 * psi) if math.isfinite(normal) else 0.75
    if math.isfinite(normal):
        normal_power = power_at(start)

    if power_at(1.0) < pw:
        return result(math.nan, math.nan, math.nan)
    share = (
        _solve(lambda s: power_at(s) - pw, lambda s: evaluate(s)[1], 0.5, 1.0, start)
        if power_at(0.5) < pw
        else 0.5
    )
    return result(psi * (2.0 * share - 1.0), share, power_at(share))


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
    fix_rate: float, break_rate: float, items: int, *, alpha: float = ALPHA, method: str = "exact"
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

    >>> from evalbot.stats.power import mcnemar_exact_power
    >>> round(mcnemar_exact_power(0.08, 0.03, 328), 3)
    0.746
    """
    pf, pb = rates_iv(fix_rate, break_rate, differ=False)
    n = as_count(items, "items")
    a, _, m, _ = plan_iv(alpha, method=method)
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
    >>> from evalbot.stats.power import mcnemar_normal_sample_size
    >>> mcnemar_normal_sample_size(0.08, 0.03)
    (36, 328)
    """
    pf, pb = rates_iv(fix_rate, break_rate, differ=True)
    a, pw, _, _ = plan_iv(alpha, power)
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
        :func:`~evalbot.stats.clusters.design_effect`): the items are multiplied by it.

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

    >>> from evalbot.stats.power import mcnemar_sample_size
    >>> r = mcnemar_sample_size(0.08, 0.03)
    >>> r.items, round(r.exact_power, 4), r.normal.items, round(r.normal.exact_power, 3)
    (367, 0.8007, 328, 0.746)
    """
    pf, pb = rates_iv(fix_rate, break_rate, differ=True)
    a, pw, m, deff = plan_iv(alpha, power, method, design_effect)
    normal_pairs, normal_items = mcnemar_normal_sample_size(pf, pb, alpha=a, power=pw)
    curve = PowerCurve(pf, pb, a, m)
    rule: SearchRule
    stable: int | None = None
    if normal_pairs > _NORMAL_ONLY_PAIRS:
        items, rule = normal_items, "normal approximation"
        reached = curve.at_window(items)
    elif normal_pairs > _WINDOW_ONLY_PAIRS:
        items, rule = smallest_reaching(curve.at_window, normal_items, pw), "bisection"
        reached = curve.at_window(items)
    else:
        items, rule, stable = exact_search(curve, normal_items, pw)
        reached = curve.at(items)
    total = max(1, ceil_fuzzy(items * deff))
    pairs = ceil_fuzzy(total * curve.psi)
    conditional = float(curve.conditional(np.array([pairs], dtype=np.int64))[0])
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
    a, _, m, _ = plan_iv(alpha, method=method)
    sims = as_count(n_simulations, "n_simulations", minimum=1)
    s = as_count(seed, "seed")
    rng = np.random.default_rng(s)
    draws = rng.multinomial(n, [pf, pb, max(0.0, 1.0 - pf - pb)], size=sims)
    b, c = draws[:, 0], draws[:, 1]
    k = critical_counts(np.arange(n + 1, dtype=np.int64), a, m)
    return float(np.mean(np.minimum(b, c) <= k[b + c]))
