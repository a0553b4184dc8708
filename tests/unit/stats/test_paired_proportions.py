"""Tango's and Newcombe's intervals for a paired difference of pass rates.

References:
- published worked examples (each recomputed here by an independent implementation below,
  not only compared with the printed digits): Newcombe (1998) Stat Med 17:2635, Table II,
  method 10, examples (a) 36/12/2/0 -> 0.0569 to 0.3404, (c) 53/0/0/1 -> -0.0729 to 0.0729,
  (d) 0/30/0/0 -> 0.8395 to 1.0000; Fagerland, Lydersen & Laake (2014) Stat Med 33:2850,
  1/1/7/12 -> Newcombe -0.507 to -0.026, Tango -0.517 to -0.026; Tango (1998) Stat Med
  17:891, 43/0/1/0 at 90 % -> -0.096 to 0.037 and 4/9/3/16 -> -0.027 to 0.390; Agresti & Min
  (2005) Stat Med 24:729, 53/16/8/9 -> -0.020 to 0.207 (the R packages ratesci and propint
  reproduce these in their test suites);
- the independent implementations: Tango by scipy.optimize.brentq on the score statistic
  written from the paper's formulas; Newcombe from scipy.stats.binomtest's Wilson interval.
Tables are (a, b, c, d) = (both pass, first only, second only, neither); the first run is
the candidate, so b = fixed and c = broken.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import binomtest, norm

from evalbot.stats.paired_proportions import (
    paired_difference_interval,
    tango_interval,
)


def tango_reference(
    b: int, c: int, n: int, level: float, continuity: float = 0.0
) -> tuple[float, float]:
    """Tango (1998): Z(delta) = (b - c - n delta) / sqrt(n (2 q + delta (1 - delta))), q the
    constrained MLE of p21 (root of 2n q^2 + B q + C with B = -b - c + (2n - b + c) delta,
    C = -c delta (1 - delta)); the interval solves Z = +-z by brentq. With ``continuity``
    the numerator's size shrinks by it."""
    z = norm.ppf(0.5 + level / 2)

    def score(delta: float) -> float:
        big_b = -b - c + (2 * n - b + c) * delta
        big_c = -c * delta * (1 - delta)
        q = (math.sqrt(big_b**2 - 8 * n * big_c) - big_b) / (4 * n)
        var = n * (2 * q + delta * (1 - delta))
        num = b - c - n * delta
        num = math.copysign(max(abs(num) - continuity, 0.0), num)
        if var <= 0:  # only where the numerator is 0 too (no discordant pairs, delta = 0)
            return 0.0 if num == 0 else math.copysign(math.inf, num)
        return num / math.sqrt(var)

    est = (b - c) / n
    eps = 1e-12
    low = -1.0 if est == -1 else brentq(lambda x: score(x) - z, -1 + eps, est, xtol=1e-14)
    high = 1.0 if est == 1 else brentq(lambda x: score(x) + z, est, 1 - eps, xtol=1e-14)
    return low, high


def newcombe_reference(a: int, b: int, c: int, d: int, level: float) -> tuple[float, float]:
    """Newcombe (1998) method 10 with scipy's Wilson intervals; phi with AD - BC reduced by
    n/2 when positive (the form that reproduces the paper's table)."""
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    ci1 = binomtest(a + b, n).proportion_ci(level, method="wilson")
    ci2 = binomtest(a + c, n).proportion_ci(level, method="wilson")
    l1, u1, l2, u2 = ci1.low, ci1.high, ci2.low, ci2.high
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    if cross > 0:
        cross = max(cross - n / 2, 0)
    phi = cross / math.sqrt(margins) if margins else 0.0
    dn = math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    up = math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return max(-1.0, p1 - p2 - dn), min(1.0, p1 - p2 + up)


@pytest.mark.parametrize(
    ("table", "published"),
    [
        ((36, 12, 2, 0), (0.0569, 0.3404)),  # Newcombe 1998, Table II (a)
        ((53, 0, 0, 1), (-0.0729, 0.0729)),  # (c)
        ((0, 30, 0, 0), (0.8395, 1.0)),  # (d)
        ((1, 1, 7, 12), (-0.507, -0.026)),  # Fagerland et al. 2014 (3 digits)
    ],
)
def test_newcombe_published(
    table: tuple[int, int, int, int], published: tuple[float, float]
) -> None:
    got = paired_difference_interval(*table, method="newcombe").confidence_interval
    digits = 4 if published[0] in (0.0569, -0.0729, 0.8395) else 3
    assert (round(got.low, digits), round(got.high, digits)) == published
    ref = newcombe_reference(*table, 0.95)
    assert got.low == pytest.approx(ref[0], abs=1e-12)
    assert got.high == pytest.approx(ref[1], abs=1e-12)


@pytest.mark.parametrize(
    ("table", "level", "published", "digits"),
    [
        ((43, 0, 1, 0), 0.90, (-0.096, 0.037), 3),  # Tango 1998
        ((4, 9, 3, 16), 0.95, (-0.027, 0.390), 3),  # Tango 1998
        ((53, 16, 8, 9), 0.95, (-0.020, 0.207), 3),  # Agresti & Min 2005
        ((1, 1, 7, 12), 0.95, (-0.517, -0.026), 3),  # Fagerland et al. 2014
    ],
)
def test_tango_published(
    table: tuple[int, int, int, int],
    level: float,
    published: tuple[float, float],
    digits: int,
) -> None:
    a, b, c, d = table
    got = tango_interval(b, c, a + b + c + d, confidence_level=level).confidence_interval
    assert (round(got.low, digits), round(got.high, digits)) == published
    ref = tango_reference(b, c, a + b + c + d, level)
    assert got.low == pytest.approx(ref[0], abs=1e-9)
    assert got.high == pytest.approx(ref[1], abs=1e-9)


@pytest.mark.parametrize(
    ("b", "c", "n"),
    [(31, 14, 400), (0, 0, 54), (5, 0, 5), (0, 5, 5), (1, 0, 1), (0, 0, 1), (3, 2, 10)],
)
def test_tango_edges_against_reference(b: int, c: int, n: int) -> None:
    got = tango_interval(b, c, n).confidence_interval
    ref = tango_reference(b, c, n, 0.95)
    assert got.low == pytest.approx(ref[0], abs=1e-9)
    assert got.high == pytest.approx(ref[1], abs=1e-9)
    assert -1.0 <= got.low <= (b - c) / n <= got.high <= 1.0


def test_tango_no_discordant_pairs_by_hand() -> None:
    # b = c = 0: Z(delta) = -sqrt(n delta / (1 - delta)) for delta > 0, so the upper end is
    # z^2 / (n + z^2) (hand-worked from the formula).
    z = norm.ppf(0.975)
    r = tango_interval(0, 0, 54)
    assert r.confidence_interval.high == pytest.approx(z**2 / (54 + z**2), rel=1e-9)
    assert r.confidence_interval.low == pytest.approx(-(z**2) / (54 + z**2), rel=1e-9)


def test_tango_excludes_zero_exactly_when_uncorrected_mcnemar_rejects() -> None:
    # At delta = 0, Z = (b - c) / sqrt(b + c): the interval excludes 0 iff (b-c)^2/(b+c) > z^2.
    z2 = norm.ppf(0.975) ** 2
    for b in range(0, 25):
        for c in range(0, 25):
            if b + c == 0:
                continue
            ci = tango_interval(b, c, 60).confidence_interval
            assert (ci.low > 0 or ci.high < 0) == ((b - c) ** 2 / (b + c) > z2)


def test_continuity_corrected_tango_matches_corrected_mcnemar() -> None:
    # With Edwards' correction the score at delta = 0 is (|b - c| - 1) / sqrt(b + c): the
    # interval excludes 0 exactly when evalbot's continuity-corrected McNemar test rejects
    # (chi2 = (|b-c|-1)^2/(b+c) > z^2, i.e. p < 0.05).
    from evalbot.stats.mcnemar import mcnemar

    for b in range(0, 30):
        for c in range(0, 30):
            if b + c == 0:
                continue
            ci = tango_interval(b, c, 80, continuity=1.0).confidence_interval
            assert (ci.low > 0 or ci.high < 0) == (
                mcnemar(b, c, method="asymptotic").pvalue < 0.05
            ), (b, c)
    # the corrected interval against the reference with the numerator shrunk by 1
    r = tango_interval(31, 14, 400, continuity=1.0).confidence_interval
    ref = tango_reference(31, 14, 400, 0.95, continuity=1.0)
    assert r.low == pytest.approx(ref[0], abs=1e-9)
    assert r.high == pytest.approx(ref[1], abs=1e-9)


def test_dispatch_and_vectorised_bounds() -> None:
    from evalbot.stats.paired_proportions import newcombe_bounds, tango_bounds

    t = paired_difference_interval(266, 31, 14, 89, method="tango")
    assert t.method == "tango"
    assert paired_difference_interval(266, 31, 14, 89).method == "tango-cc"
    assert (t.both_pass, t.fixed, t.broken, t.both_fail, t.items) == (266, 31, 14, 89, 400)
    assert t.confidence_interval == tango_interval(31, 14, 400).confidence_interval
    nc = paired_difference_interval(266, 31, 14, 89, method="newcombe")
    z = norm.ppf(0.975)
    assert nc.confidence_interval == tuple(float(x) for x in newcombe_bounds(266, 31, 14, 89, z))
    lo, hi = tango_bounds(np.array([31, 0]), np.array([14, 0]), np.array([400, 54]), z)
    assert lo[0] == pytest.approx(t.confidence_interval.low, abs=1e-15)
    assert hi[1] == pytest.approx(z**2 / (54 + z**2), rel=1e-9)
    lo, hi = newcombe_bounds([36, 53], [12, 0], [2, 0], [0, 1], z)
    assert round(float(lo[0]), 4) == 0.0569 and round(float(hi[1]), 4) == 0.0729


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: tango_interval(3, 4, 5), "`fixed` + `broken` must be at most `items` (5)"),
        (
            lambda: paired_difference_interval(0, 0, 0, 0),
            "The table must contain at least one item",
        ),
        (
            lambda: paired_difference_interval(1, 1, 1, 1, method="wald"),
            "`method` must be one of 'tango-cc', 'tango', 'newcombe'; got 'wald'.",
        ),
    ],
)
def test_validation(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        call()  # type: ignore[operator]
