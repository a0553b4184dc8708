"""Student's t quantile for whole degrees of freedom, with the standard library and numpy.

Repeated-run intervals need one t quantile per comparison; ``scipy.special.stdtrit`` would
cost its 0.3-0.5 s import for it. Here (agreeing with ``stdtrit`` to 1e-14 relative for every
``df`` from 1 to 10^7 and levels 0.5-0.9999, tests/unit/stats/test_student.py):

* ``df = 1`` and ``2`` in closed form (Cauchy: ``1 / tan(pi (1 - p))``; ``df = 2``:
  ``(2p - 1) / sqrt(2 p (1 - p))``);
* ``3 <= df < 2000``: Newton's method on ``log P(T > t)``, from the Cornish-Fisher start. For
  whole ``df`` the upper tail is the remainder of the series whose first terms are A&S 26.7.3
  (odd ``df``) and 26.7.4 (even): with ``x = df / (df + t^2)`` and ``s = t / sqrt(df + t^2)``,
  ``P(T > t) = s/2 sum_{j >= df/2} (2j-1)!!/(2j)!! x^j`` (even) or
  ``s/pi sum_{j >= (df-1)/2} (2j)!!/(2j+1)!! x^(j+1/2)`` (odd), a sum of positive terms whose
  first coefficient is an exact rational rounded once;
* ``df >= 2000``: the Cornish-Fisher expansion to ``1/df^4`` (A&S 26.7.5), whose next term is
  below 4e-15 of ``t`` there.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

_STANDARD = NormalDist()
#: From this many degrees of freedom the Cornish-Fisher expansion is exact to a few ulp.
_EXPANSION_FROM = 2000


def t_quantile(df: int, p: float) -> float:
    """``t`` with ``P(T <= t) = p`` for ``T ~ t(df)``, whole ``df >= 1``, ``1/2 <= p < 1``
    (scipy's ``stdtrit(df, p)``)."""
    if p == 0.5:
        return 0.0
    tail = 1.0 - p  # exact for p >= 1/2
    if df == 1:
        return 1.0 / math.tan(math.pi * tail)
    if df == 2:
        return (2.0 * p - 1.0) / math.sqrt(2.0 * p * tail)
    t = _cornish_fisher(_STANDARD.inv_cdf(p), df)
    if df >= _EXPANSION_FROM:
        return t
    target = math.log(tail)
    for _ in range(100):
        upper = _upper_tail(t, df)
        step = (math.log(upper) - target) * upper / _density(t, df)
        t += step
        if abs(step) <= 2e-16 * t:
            break
    return t


def _cornish_fisher(z: float, df: int) -> float:
    """A&S 26.7.5: ``z + g1/df + g2/df^2 + g3/df^3 + g4/df^4``."""
    z2 = z * z
    g1 = (z2 + 1.0) * z / 4.0
    g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0
    g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0
    g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0
    v = 1.0 / df
    return z + v * (g1 + v * (g2 + v * (g3 + v * g4)))


def _density(t: float, df: int) -> float:
    return math.exp(
        math.lgamma((df + 1) / 2)
        - math.lgamma(df / 2)
        - 0.5 * math.log(df * math.pi)
        - (df + 1) / 2 * math.log1p(t * t / df)
    )


def _upper_tail(t: float, df: int) -> float:
    """``P(T > t)`` for ``df >= 3`` and ``t > 0``: the series of the module's docstring, in
    runs of terms (each coefficient the one before times its ratio, each power of ``x``
    from its logarithm) until a term is below 1e-18 of the sum."""
    spread = df + t * t
    sine = t / math.sqrt(spread)
    log_x = math.log1p(-(t * t) / spread)
    if df % 2 == 0:
        first = df // 2
        coefficient = math.comb(2 * first, first) / 4**first  # (2j-1)!!/(2j)!!
        lead, offset, half = 0.5 * sine, (-1, 0), 0.0
    else:
        first = (df - 1) // 2
        coefficient = 4**first / ((2 * first + 1) * math.comb(2 * first, first))  # (2j)!!/(2j+1)!!
        lead, offset, half = sine / math.pi, (0, 1), 0.5 * log_x
    total = 0.0
    width = 256
    while True:
        j = np.arange(first, first + width, dtype=np.float64)
        ratios = (2.0 * j[1:] + offset[0]) / (2.0 * j[1:] + offset[1])
        coefficients = coefficient * np.concatenate(([1.0], np.cumprod(ratios)))
        terms = coefficients * np.exp(j * log_x + half)
        total += float(np.sum(terms))
        if float(terms[-1]) < 1e-18 * total:
            return lead * total
        first += width
        step = (2.0 * first + offset[0]) / (2.0 * first + offset[1])
        coefficient = float(coefficients[-1]) * step
        width = min(2 * width, 1 << 16)
