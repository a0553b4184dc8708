"""Numeric scores: sign-flip and skewness-corrected t tests with their intervals; d_z.

References: brute-force enumeration of the 2^n sign patterns with itertools (small n);
scipy.stats.ttest_1samp (symmetric data, where the skewness correction vanishes); Hall's
(1992) transformation inverted here numerically with scipy.optimize.brentq; scipy.stats.nct
for the d_z interval; hand-worked values.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.optimize import brentq

from evalbot.stats.clusters import estimate_design_effect
from evalbot.stats.paired_mean import (
    EXACT_MAX_ITEMS,
    SIGN_FLIP_MAX_ITEMS,
    cohens_dz,
    paired_mean_test,
)


def brute_force_p(d: list[float], delta: float = 0.0) -> float:
    """P(|sum s_i |d_i - delta|| >= |sum (d_i - delta)|) over all 2^n sign patterns."""
    a = [abs(x - delta) for x in d]
    observed = abs(sum(x - delta for x in d))
    hits = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        if abs(sum(s * x for s, x in zip(signs, a, strict=True))) >= observed - 1e-9:
            hits += 1
    return hits / 2 ** len(d)


@pytest.mark.parametrize(
    "d",
    [
        [0.2, 0.3, 0.1, 0.2, 0.4, 0.1, 0.2, 0.2],  # all up: 2/256
        [0.5, -0.2, 0.3, 0.1, -0.1, 0.4, 0.0, 0.2, -0.3, 0.6],
        [1.0, -1.0, 0.5, 0.5, 0.0, 1.0],  # ties and a zero
        [0.1, -0.1],
    ],
)
def test_exact_pvalue_by_enumeration(d: list[float]) -> None:
    r = paired_mean_test(np.zeros(len(d)), d, method="sign-flip")
    assert r.method == "exact sign-flip"
    assert r.pvalue == pytest.approx(brute_force_p(d), abs=1e-15)


def test_all_up_by_hand() -> None:
    r = paired_mean_test([0.0] * 8, [0.2, 0.3, 0.1, 0.2, 0.4, 0.1, 0.2, 0.2], method="sign-flip")
    assert r.pvalue == 2 / 256
    assert r.pvalue.resolution == 2 / 256


def test_interval_inverts_the_test() -> None:
    # At each end the brute-force p-value of the shifted data crosses alpha: just inside it
    # is above 0.05, just outside at most 0.05.
    d = [0.5, -0.2, 0.3, 0.1, -0.1, 0.4, 0.0, 0.2, -0.3, 0.6]
    r = paired_mean_test(np.zeros(10), d, method="sign-flip")
    low, high = r.confidence_interval
    eps = 1e-6
    assert brute_force_p(d, low + eps) > 0.05 >= brute_force_p(d, low - eps)
    assert brute_force_p(d, high - eps) > 0.05 >= brute_force_p(d, high + eps)


def test_too_few_items_give_an_unbounded_interval() -> None:
    # 5 items: the smallest sign-flip p is 2/32 > 0.05, no shift can be rejected
    r = paired_mean_test([0.0] * 5, [0.1, 0.2, 0.3, 0.4, 0.5], method="sign-flip")
    assert r.pvalue == 2 / 32
    assert r.confidence_interval == (-math.inf, math.inf)
    six = paired_mean_test([0.0] * 6, [0.1] * 6, method="sign-flip")
    assert six.confidence_interval == (0.1, 0.1)


def test_monte_carlo_above_the_exact_limit() -> None:
    rng = np.random.default_rng(3)
    d = rng.normal(0.2, 1.0, size=EXACT_MAX_ITEMS + 6)
    r = paired_mean_test(np.zeros(d.size), d, n_resamples=20_000, seed=5, method="sign-flip")
    assert r.method == "Monte Carlo sign-flip"
    assert (r.n_resamples, r.seed) == (20_000, 5)
    # (1 + count) / (1 + B): a multiple of 1/20001
    assert round(r.pvalue * 20_001) == pytest.approx(r.pvalue * 20_001, abs=1e-6)
    # close to scipy's own (independently sampled) sign-flip p-value: enumerating all 2^30
    # patterns would take too long; two Monte Carlo estimates differ by ~0.003 here
    ref = stats.permutation_test(
        (d,),
        np.sum,
        permutation_type="samples",
        n_resamples=50_000,
        alternative="two-sided",
        random_state=np.random.default_rng(9),
    ).pvalue
    assert r.pvalue == pytest.approx(ref, abs=0.01)
    again = paired_mean_test(np.zeros(d.size), d, n_resamples=20_000, seed=5, method="sign-flip")
    assert r == again  # seeded


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(-6, 6), min_size=6, max_size=40),
    st.sampled_from([0.8, 0.9, 0.95]),
)
def test_pvalue_and_interval_never_disagree(values: list[int], level: float) -> None:
    d = np.array(values, dtype=float) / 4
    r = paired_mean_test(np.zeros(d.size), d, confidence_level=level, n_resamples=999)
    inside = r.confidence_interval.low <= 0.0 <= r.confidence_interval.high
    assert inside == (r.pvalue > 1 - level)


@pytest.mark.parametrize("correct", [False, True])
def test_studentized_is_the_t_test(correct: bool) -> None:
    # skewness 0: Hall's correction vanishes too
    d = np.array([1.0, 2.0, 3.0, 4.0, 5.0, -1.0, 7.0, 3.0, 3.0])
    assert stats.skew(d) == pytest.approx(0.0, abs=1e-12)
    r = paired_mean_test(
        np.zeros(d.size), d, method="skewness-corrected" if correct else "studentized"
    )
    t = stats.ttest_1samp(d, 0.0)
    assert r.pvalue == pytest.approx(t.pvalue, rel=1e-10)
    ci = t.confidence_interval(0.95)
    assert r.confidence_interval.low == pytest.approx(ci.low, rel=1e-10)
    assert r.confidence_interval.high == pytest.approx(ci.high, rel=1e-10)
    # skewed data: the default is still the plain t test
    e = np.array([0.1, 0.2, 0.1, 3.0, 0.3, 0.2, 0.1, 0.4])
    assert paired_mean_test(np.zeros(8), e, method="studentized").pvalue == pytest.approx(
        stats.ttest_1samp(e, 0.0).pvalue, rel=1e-10
    )


def test_studentized_skewed_against_numerical_inversion() -> None:
    # Hall (1992): G(T) = T + a T^2 + a^2 T^3 / 3 + b, a = g/(3 sqrt n), b = g/(6 sqrt n),
    # g = m3 / m2^1.5; p = 2 P(t_{n-1} > |G(T0)|); interval {mu : |G(T(mu))| <= t_q}.
    rng = np.random.default_rng(11)
    d = rng.exponential(1.0, size=300) - 0.8
    n = d.size
    m2 = np.mean((d - d.mean()) ** 2)
    g = np.mean((d - d.mean()) ** 3) / m2**1.5
    a, b = g / (3 * math.sqrt(n)), g / (6 * math.sqrt(n))
    se = d.std(ddof=1) / math.sqrt(n)

    def big_g(mu: float) -> float:
        t = (d.mean() - mu) / se
        return t + a * t * t + a * a * t**3 / 3 + b

    q = stats.t.ppf(0.975, n - 1)
    low = brentq(lambda mu: big_g(mu) - q, d.mean() - 10 * se, d.mean() + 10 * se)
    high = brentq(lambda mu: big_g(mu) + q, d.mean() - 10 * se, d.mean() + 10 * se)
    r = paired_mean_test(np.zeros(n), d, method="skewness-corrected")
    assert r.method == "skewness-corrected t"
    assert r.confidence_interval.low == pytest.approx(low, rel=1e-9)
    assert r.confidence_interval.high == pytest.approx(high, rel=1e-9)
    assert r.pvalue == pytest.approx(2 * stats.t.sf(abs(big_g(0.0)), n - 1), rel=1e-9)


def test_dispatch_by_size() -> None:
    small = paired_mean_test(np.zeros(10), np.linspace(-1, 2, 10))
    middle = paired_mean_test(np.zeros(50), np.linspace(-1, 2, 50), n_resamples=500)
    large = paired_mean_test(
        np.zeros(SIGN_FLIP_MAX_ITEMS + 1), np.linspace(-1, 2, SIGN_FLIP_MAX_ITEMS + 1)
    )
    assert (small.method, middle.method, large.method) == (
        "exact sign-flip",
        "Monte Carlo sign-flip",
        "paired t",
    )
    forced = paired_mean_test(np.zeros(10), np.linspace(-1, 2, 10), method="studentized")
    assert forced.method == "paired t"


def test_degenerate_inputs() -> None:
    same = paired_mean_test([0.3] * 6, [0.3] * 6)
    assert (same.pvalue, same.confidence_interval) == (1.0, (0.0, 0.0))
    # two items: even a shift away from 0 leaves p = 2/4, so no shift is rejected
    assert paired_mean_test([0.3, 0.3], [0.3, 0.3]).confidence_interval == (-math.inf, math.inf)
    one = paired_mean_test([0.0], [0.5], method="studentized")
    assert one.pvalue == 1.0  # 2^(1-1): one item moved, no evidence
    shifted = paired_mean_test([0.0] * 12, [0.5] * 12, method="studentized")
    assert shifted.pvalue == 2.0**-11 and shifted.confidence_interval == (0.5, 0.5)
    assert math.isnan(cohens_dz([0.0, 0.0], [1.0, 1.0]).statistic)


def test_cohens_dz_against_nct() -> None:
    d = np.array([0.3, -0.1, 0.4, 0.2, 0.5, 0.1, 0.0, 0.6, 0.2, 0.3])
    n = d.size
    dz = d.mean() / d.std(ddof=1)
    t = dz * math.sqrt(n)
    low = brentq(lambda nc: stats.nct.cdf(t, n - 1, nc) - 0.975, -20, 20) / math.sqrt(n)
    high = brentq(lambda nc: stats.nct.cdf(t, n - 1, nc) - 0.025, -20, 20) / math.sqrt(n)
    r = cohens_dz(np.zeros(n), d)
    assert r.statistic == pytest.approx(dz, rel=1e-12)
    assert r.confidence_interval.low == pytest.approx(low, abs=1e-8)
    assert r.confidence_interval.high == pytest.approx(high, abs=1e-8)
    assert paired_mean_test(np.zeros(n), d, method="sign-flip").effect_size == r


def test_cohens_dz_of_a_constant_shift_of_stored_floats_is_undefined() -> None:
    base = np.random.default_rng(3).random(8)
    cand = base + 0.3  # each sum rounded: the differences vary by a few 1e-17, no more
    assert np.ptp(cand - base) > 0
    assert math.isnan(cohens_dz(base, cand).statistic)
    assert math.isnan(paired_mean_test(base, cand).effect_size.confidence_interval.low)


@pytest.mark.parametrize("spread", [3e-5, 1e-3])
def test_cohens_dz_far_out_meets_the_noncentral_t(spread: float) -> None:
    # t = sqrt(n) d_z of about 3e4 (spread 3e-5) or 900: either side of the expansion's start
    rng = np.random.default_rng(4)
    d = 0.3 + spread * rng.standard_normal(8)
    r, n = cohens_dz(np.zeros(8), d), d.size
    t = r.statistic * math.sqrt(n)
    for end, mass in ((r.confidence_interval.low, 0.975), (r.confidence_interval.high, 0.025)):
        assert stats.nct.cdf(t, n - 1, end * math.sqrt(n)) == pytest.approx(mass, abs=1e-6)


def test_cohens_dz_where_the_search_never_ends_takes_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import scipy.special

    def refused(*args: object) -> None:
        raise AssertionError("cdflib's search at |t| = 1e6 runs for hours")

    monkeypatch.setattr(scipy.special, "nctdtr", refused)
    monkeypatch.setattr(scipy.special, "nctdtrinc", refused)
    d = 0.3 + 1e-7 * np.random.default_rng(5).standard_normal(8)
    r = cohens_dz(np.zeros(8), d)
    t, root = r.statistic * math.sqrt(8), math.sqrt(8)
    assert r.confidence_interval.low < r.statistic < r.confidence_interval.high
    # T = (Z + delta) / S: with Z negligible, delta = t times a quantile of S = sqrt(chi2_7 / 7)
    for end, mass in ((r.confidence_interval.low, 0.975), (r.confidence_interval.high, 0.025)):
        limit = t * math.sqrt(stats.chi2.isf(mass, 7) / 7) / root
        assert end == pytest.approx(limit, rel=1e-9)


def test_validation() -> None:
    with pytest.raises(ValueError, match="must have the same length"):
        paired_mean_test([0.0, 1.0], [1.0], method="sign-flip")
    with pytest.raises(ValueError, match="`method` must be one of 'auto', 'sign-flip'"):
        paired_mean_test([0.0], [1.0], method="bootstrap")
    with pytest.raises(ValueError, match="at least one item"):
        paired_mean_test([], [], method="studentized")


@pytest.mark.parametrize(
    "call",
    [
        cohens_dz,
        paired_mean_test,
        lambda base, cand: estimate_design_effect(base, cand, ["a"] * len(base)),
    ],
)
def test_paired_inputs_refused_alike(call: Callable[[object, object], object]) -> None:
    with pytest.raises(ValueError, match=re.escape("must have the same length (one value per")):
        call([0.0, 1.0], [1.0])
    with pytest.raises(ValueError, match=re.escape("`baseline` must contain at least one item")):
        call([], [])


def test_pvalue_alone_is_the_interval_membership() -> None:
    from evalbot.stats.clusters import sign_flip_pvalue

    rng = np.random.default_rng(12)
    for n in (9, 40):
        d = rng.normal(0.2, 1.0, size=n)
        r = paired_mean_test(np.zeros(n), d, n_resamples=999, seed=2, method="sign-flip")
        assert sign_flip_pvalue(np.zeros(n), d, n_resamples=999, seed=2) == r.pvalue
        for shift in np.linspace(
            r.confidence_interval.low - 0.2, r.confidence_interval.high + 0.2, 41
        ):
            inside = r.confidence_interval.low <= shift <= r.confidence_interval.high
            p = sign_flip_pvalue(np.zeros(n), d, shift=shift, n_resamples=999, seed=2)
            assert inside == (p > 0.05)
