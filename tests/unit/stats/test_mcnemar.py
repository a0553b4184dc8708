"""McNemar's test.

Expected values: exact binomial tails computed here with ``fractions.Fraction`` and
``math.comb`` (independent of the implementation's float path), the hand-worked values of
STYLE.md, and statsmodels' ``mcnemar`` as a test-only oracle.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chi2
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from evalbot.stats.mcnemar import (
    McNemarResult,
    mcnemar,
    mcnemar_min_discordant,
    mcnemar_smallest_pvalue,
)


def exact_two_sided(b: int, c: int) -> Fraction:
    """Reference: min(1, 2 P(X <= min(b, c))) for X ~ Bin(b + c, 1/2), in exact rationals."""
    n, k = b + c, min(b, c)
    tail = Fraction(sum(math.comb(n, i) for i in range(k + 1)), 2**n)
    return min(Fraction(1), 2 * tail)


def midp_two_sided(b: int, c: int) -> Fraction:
    """Reference: min(1, 2 P(X <= k) - P(X = k)), the cap applied after the subtraction."""
    n, k = b + c, min(b, c)
    tail = Fraction(sum(math.comb(n, i) for i in range(k + 1)), 2**n)
    return min(Fraction(1), 2 * tail - Fraction(math.comb(n, k), 2**n))


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (9, 1, 22 / 1024),  # STYLE.md, hand-worked: 2 * (1 + 10) / 1024
        (1, 9, 22 / 1024),  # symmetric
        (10, 0, 2 / 1024),  # STYLE.md: 2 * 1 / 1024
        (5, 5, 1.0),  # STYLE.md: 2 P(X <= 5) > 1, capped
        (0, 0, 1.0),  # no discordant pairs: 1.0 by definition
    ],
)
def test_exact_worked_values(b: int, c: int, expected: float) -> None:
    res = mcnemar(b, c)
    assert res.pvalue == expected
    assert res.method == "exact"


def test_exact_400_item_example() -> None:
    # 266 both pass / 31 fixed / 14 broken / 89 both fail: reference computed with Fraction.
    ref = exact_two_sided(31, 14)
    res = mcnemar(31, 14)
    assert res.pvalue == pytest.approx(float(ref), rel=1e-14)
    assert round(res.pvalue, 4) == 0.0161  # INTERFACE.md example report
    assert res.statistic == 31.0
    assert res.discordant == 45


def test_midp_worked_value() -> None:
    # STYLE.md: 22/1024 - 10/1024.
    assert mcnemar(9, 1, method="midp").pvalue == 0.01171875


@pytest.mark.parametrize("bc", [(31, 14), (3, 0), (7, 7), (100, 120), (1500, 1400)])
def test_midp_against_fraction(bc: tuple[int, int]) -> None:
    assert mcnemar(*bc, method="midp").pvalue == pytest.approx(
        float(midp_two_sided(*bc)), rel=1e-12
    )


def test_asymptotic_worked_values() -> None:
    # STYLE.md: (9 - 1 - 1)^2 / 10 = 4.9; 400-item example: (31 - 14 - 1)^2 / 45 = 256 / 45.
    r = mcnemar(9, 1, method="asymptotic")
    assert r.statistic == pytest.approx(4.9, rel=1e-15)
    assert r.pvalue == pytest.approx(float(chi2.sf(4.9, 1)), rel=1e-15)
    r = mcnemar(31, 14, method="asymptotic")
    assert r.statistic == pytest.approx(256 / 45, rel=1e-15)


def test_asymptotic_clips_at_zero() -> None:
    # |b - c| <= 1: max(0, |b - c| - 1)^2 = 0, so chi2 = 0 and p = 1.
    for b, c in [(5, 5), (5, 4), (0, 1)]:
        r = mcnemar(b, c, method="asymptotic")
        assert (r.statistic, r.pvalue) == (0.0, 1.0)


@pytest.mark.parametrize("bc", [(9, 1), (31, 14), (0, 7), (60, 40), (2, 3), (400, 350)])
def test_against_statsmodels(bc: tuple[int, int]) -> None:
    b, c = bc
    table = [[0, b], [c, 0]]
    exact = sm_mcnemar(table, exact=True)
    assert mcnemar(b, c).pvalue == pytest.approx(exact.pvalue, rel=1e-10)
    asym = sm_mcnemar(table, exact=False, correction=True)
    r = mcnemar(b, c, method="asymptotic")
    assert r.statistic == pytest.approx(asym.statistic, rel=1e-12)
    assert r.pvalue == pytest.approx(asym.pvalue, rel=1e-10)


def test_large_counts_use_the_float_path_consistently() -> None:
    # Above the integer limit the scipy path is used; compare with Fraction all the same.
    for b, c in [(1100, 1000), (1003, 1000)]:
        assert mcnemar(b, c).pvalue == pytest.approx(float(exact_two_sided(b, c)), rel=1e-10)
        assert mcnemar(b, c, method="midp").pvalue == pytest.approx(
            float(midp_two_sided(b, c)), rel=1e-10
        )


def test_no_discordant_pairs_every_method() -> None:
    for method in ("exact", "midp", "asymptotic"):
        assert mcnemar(0, 0, method=method) == McNemarResult(
            statistic=0.0,
            pvalue=1.0,
            method=method,
            fixed=0,
            broken=0,  # type: ignore[arg-type]
        )


@given(st.integers(0, 300), st.integers(0, 300))
def test_properties(b: int, c: int) -> None:
    ex, mid, asy = (mcnemar(b, c, method=m) for m in ("exact", "midp", "asymptotic"))
    for r in (ex, mid, asy):
        assert 0.0 <= r.pvalue <= 1.0
        assert isinstance(r.pvalue, float)
        assert isinstance(r.statistic, float)
    assert mid.pvalue <= ex.pvalue
    assert mcnemar(c, b).pvalue == ex.pvalue  # symmetric in fixed/broken


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((-1, 2), {}, "`fixed` must be an integer >= 0; got -1."),
        ((1, 2.5), {}, "`broken` must be an integer; got 2.5."),
        ((True, 2), {}, "`fixed` must be an integer; got True."),
        (
            (1, 2),
            {"method": "fisher"},
            "`method` must be one of 'exact', 'midp', 'asymptotic'; got 'fisher'.",
        ),
    ],
)
def test_input_validation(
    args: tuple[object, ...], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        mcnemar(*args, **kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message


# ---- p-values below the float range, and the smallest attainable p-value -----------


def log10_fraction(x: Fraction) -> float:
    """log10 of an exact rational, from its integer numerator and denominator."""
    return math.log10(x.numerator) - math.log10(x.denominator)


@pytest.mark.parametrize(
    ("b", "c"),
    [
        (1100, 0),  # the issue's table: p = 2 / 2^1100 = 2^-1099, about 1.5e-331
        (1500, 3),  # below the float range on the integer path (n <= 2000)
        (2600, 10),  # the scipy path (n > 2000): the log-space sum takes over
        (3000, 0),
        (9, 1),  # ordinary values: log10 of the same exact rational
        (31, 14),
    ],
)
def test_exact_pvalue_log10_below_float_range(b: int, c: int) -> None:
    ref = exact_two_sided(b, c)
    detail = mcnemar(b, c).pvalue
    assert detail.bound == "exact"
    assert detail.log10 == pytest.approx(log10_fraction(ref), rel=1e-10)
    assert detail.value == float(ref)  # float(Fraction) rounds once; 0.0 below the range
    assert mcnemar(b, c).pvalue == detail.value


def test_issue_table_is_not_reported_as_zero() -> None:
    # 1,100 fixed, none broken: 2^-1099 = 10^-330.832 (1099 * log10(2) by hand).
    detail = mcnemar(1100, 0).pvalue
    assert detail.value == 0.0
    assert detail.log10 == pytest.approx(-1099 * math.log10(2), rel=1e-13)
    assert detail.format() == "1.5e-331"
    assert detail.decide(0.05) == "below"


@pytest.mark.parametrize(("b", "c"), [(1500, 3), (2600, 10), (5000, 20)])
def test_midp_log10_below_float_range(b: int, c: int) -> None:
    ref = midp_two_sided(b, c)
    assert mcnemar(b, c, method="midp").pvalue.log10 == pytest.approx(
        log10_fraction(ref), rel=1e-10
    )


def test_asymptotic_log10_below_float_range() -> None:
    # chi2 = (3000 - 1)^2 / 3000; the p-value erfc(sqrt(chi2 / 2)) underflows. Reference:
    # chi2_1.sf(x) = 2 Phi(-sqrt x), with scipy.special.log_ndtr (log-space, independent of
    # the asymptotic series used here; scipy.stats.chi2.logsf underflows to -inf there).
    from scipy.special import log_ndtr

    stat = 2999**2 / 3000
    detail = mcnemar(3000, 0, method="asymptotic").pvalue
    assert detail.value == 0.0
    reference = (math.log(2) + float(log_ndtr(-math.sqrt(stat)))) / math.log(10)
    assert detail.log10 == pytest.approx(reference, rel=1e-9)
    # where it is in range the record is the float's own log10
    r = mcnemar(60, 30, method="asymptotic")
    assert r.pvalue.log10 == pytest.approx(math.log10(r.pvalue), rel=1e-14)


@pytest.mark.parametrize(
    ("d", "method", "expected"),
    [
        (5, "exact", 2 / 32),  # 2 * (1/2)^5
        (6, "exact", 2 / 64),
        (0, "exact", 1.0),
        (1, "exact", 1.0),  # 2 * 1/2, capped
        (5, "midp", 1 / 32),  # (1/2)^5
        (4, "midp", 1 / 16),
    ],
)
def test_smallest_pvalue_by_hand(d: int, method: str, expected: float) -> None:
    assert mcnemar_smallest_pvalue(d, method=method).value == expected


def test_smallest_asymptotic_pvalue() -> None:
    # every item one way: chi2 = (d - 1)^2 / d
    assert mcnemar_smallest_pvalue(7, method="asymptotic").value == pytest.approx(
        float(chi2.sf(36 / 7, 1)), rel=1e-12
    )


@pytest.mark.parametrize(
    ("alpha", "method", "expected"),
    [
        (0.05, "exact", 6),  # 2^-4 = 0.0625 > 0.05 >= 2^-5: "powerless" with 5 or fewer
        (0.01, "exact", 8),  # 2^-6 = 0.0156 > 0.01 >= 2^-7 = 0.0078
        (0.05, "midp", 5),  # 2^-5 = 0.03125 <= 0.05 < 2^-4
        (0.05, "asymptotic", 6),  # chi2 (d-1)^2/d: d = 5 gives 3.2 (p 0.074), d = 6: 4.17
    ],
)
def test_min_discordant(alpha: float, method: str, expected: int) -> None:
    assert mcnemar_min_discordant(alpha, method=method) == expected
    assert mcnemar_smallest_pvalue(expected, method=method).value <= alpha
    assert mcnemar_smallest_pvalue(expected - 1, method=method).value > alpha
