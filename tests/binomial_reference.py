"""Test-only reference: binomial probabilities in 60-digit decimal arithmetic.

Independent of evalbot's float code: ``log(n!)`` is the exact factorial's logarithm below 200
and Stirling's series with exact Bernoulli numbers (15 terms, error below 1e-60) above; a tail
is the sum of its terms, each the one before times an exact ratio, until they fall below
1e-45 of the sum. ``p`` is the float's exact binary value, ``1 - p`` exact in decimals.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cache

_PRECISION = 60
_PI = Decimal(
    "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899863"
)


def _bernoulli(count: int) -> list[Fraction]:
    """B_0 .. B_count by the Akiyama-Tanigawa algorithm (exact rationals)."""
    a = [Fraction(0)] * (count + 1)
    out = []
    for m in range(count + 1):
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(a[0])
    return out


_B = _bernoulli(32)


@cache
def log_factorial(x: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        if x < 200:
            return Decimal(math.factorial(x)).ln()
        big = Decimal(x)
        s = (big + Decimal("0.5")) * big.ln() - big + (2 * _PI).ln() / 2
        for j in range(1, 16):
            b = _B[2 * j]
            s += (
                Decimal(b.numerator)
                / Decimal(b.denominator)
                / (2 * j * (2 * j - 1) * big ** (2 * j - 1))
            )
        return +s


def log_pmf(k: int, n: int, p: float | Decimal) -> Decimal:
    """``log P(Bin(n, p) = k)`` for ``0 <= k <= n``, ``0 < p < 1``."""
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        pp = Decimal(p)
        qq = 1 - pp
        out = log_factorial(n) - log_factorial(k) - log_factorial(n - k)
        if k:
            out += k * pp.ln()
        if n - k:
            out += (n - k) * qq.ln()
        return +out


def _lower(k: int, n: int, pp: Decimal) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        qq = 1 - pp
        term = log_pmf(k, n, pp).exp()
        total = term
        for i in range(k, 0, -1):
            term = term * i * qq / ((n - i + 1) * pp)
            total += term
            if term < total * Decimal("1e-45"):
                break
        return +total


def cdf(k: int, n: int, p: float) -> Decimal:
    """``P(Bin(n, p) <= k)``: the smaller side summed (downward from the mode's side)."""
    if k < 0:
        return Decimal(0)
    if k >= n:
        return Decimal(1)
    pp = Decimal(p)
    if k < (n + 1) * pp:
        return _lower(k, n, pp)
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        return 1 - _lower(n - k - 1, n, 1 - pp)


def relative_error(value: float, exact: Decimal) -> float:
    if exact == 0:
        return abs(value)
    return float(abs((Decimal(value) - exact) / exact))
