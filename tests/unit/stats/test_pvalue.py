"""The p-value record: exact log10 below the float range, bounds, and their wording.

References: exact rationals (``fractions.Fraction``) and hand-worked powers of two.
"""

from __future__ import annotations

import math

import pytest

from evalbot.stats.pvalue import (
    PValue,
    exact_pvalue,
    log10_pvalue,
    log_binomial_half_tail,
    resampling_pvalue,
    upper_bound_pvalue,
)


def test_resampling_pvalue_zero_is_a_bound() -> None:
    # No resample past zero among B = 10,000: the two-sided p is below 2/B = 0.0002.
    p = resampling_pvalue(0.0, 10_000)
    assert (p.bound, p.value, p.resolution) == ("upper", 2e-4, 2e-4)
    assert p.format() == "< 0.0002"
    assert p.decide(0.05) == "below"
    assert p.decide(1e-4) == "unresolved"  # alpha below the resolution: more resamples
    q = resampling_pvalue(0.0132, 10_000)
    assert (q.bound, q.value, q.resolution) == ("exact", 0.0132, 2e-4)


def test_exact_and_log10_records() -> None:
    assert exact_pvalue(0.25).log10 == pytest.approx(math.log10(0.25))
    assert exact_pvalue(1.0) == PValue(value=1.0, log10=0.0)
    tiny = log10_pvalue(-400.25)
    assert (tiny.value, tiny.log10) == (0.0, -400.25)
    assert tiny.format(3) == "5.62e-401"  # 10^0.75 = 5.623
    assert tiny.decide(1e-300) == "below"
    assert upper_bound_pvalue(1e-300).format() == "< 1e-300"
    with pytest.raises(ValueError, match="`bound` must be positive"):
        upper_bound_pvalue(0.0)


def test_format_rounds_the_mantissa_up() -> None:
    # 10^-330.00001 = 9.99977e-331 -> "1.0e-330", never "10.0e-331"
    assert log10_pvalue(-330.00001).format() == "1.0e-330"
    assert log10_pvalue(-330.9999).format() == "1.0e-331"  # 10^0.0001 = 1.0002
    assert exact_pvalue(0.0161).format() == "0.016"


@pytest.mark.parametrize(("k", "n"), [(0, 10), (1, 10), (3, 40), (10, 3000), (500, 2000)])
def test_log_binomial_half_tail_against_fractions(k: int, n: int) -> None:
    from fractions import Fraction

    tail = Fraction(sum(math.comb(n, i) for i in range(k + 1)), 2**n)
    at = Fraction(math.comb(n, k), 2**n)
    log_tail, log_at = log_binomial_half_tail(k, n)
    ln = math.log
    assert log_tail == pytest.approx(
        ln(tail.numerator) - ln(tail.denominator), rel=1e-12, abs=1e-12
    )
    assert log_at == pytest.approx(ln(at.numerator) - ln(at.denominator), rel=1e-12, abs=1e-12)
