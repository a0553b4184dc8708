"""A p-value that knows its precision: exact (even below the float range) or an upper bound.

A float p-value cannot say "1e-331" (it underflows to 0.0), nor "below what 10,000 resamples
can resolve" (a bootstrap p of 0.0 only means that no resample fell past zero). :class:`PValue`
carries the float beside the exact base-10 logarithm, and says whether the number is the
p-value itself or only an upper bound, so that no report ever has to print "p = 0".
"""

from __future__ import annotations

import math
from typing import Literal

Bound = Literal["exact", "upper"]
Decision = Literal["below", "not_below", "unresolved"]
Kind = Literal["exact", "upper_bound", "below_float_range"]

#: The smallest positive normal float, 2^-1022 (about 2.2e-308).
SMALLEST_NORMAL = float.fromhex("0x1p-1022")

_LOG10_2 = math.log10(2.0)


class PValue(float):
    """A p-value with its precision: a float (what scipy's ``.pvalue`` is) that also says how
    far it can be trusted. Immutable, like the float it is.

    Attributes
    ----------
    value : float
        The float itself (``float(p)``).
        ``bound == "exact"``: the p-value as a float. It is 0.0 only when the exact p-value is
        below the smallest positive float (about 5e-324); ``log10`` still holds it.
        ``bound == "upper"``: an upper bound, always > 0; the p-value is below it.
    log10 : float
        ``log10`` of the p-value (``"exact"``) or of the bound (``"upper"``); finite even when
        ``value`` underflowed. 0.0 for p = 1.
    bound : {"exact", "upper"}
        Whether ``value`` is the p-value or only an upper bound on it.
    resolution : float or None
        The smallest positive p-value the method can produce (``2 / B`` for a two-sided
        bootstrap p from ``B`` resamples, ``1 / (B + 1)`` for a Monte Carlo permutation p,
        ``2^(1 - n)`` for an exact sign-flip test of ``n`` items); ``None`` for methods with
        no such floor (exact binomial tails, normal approximations).

    Examples
    --------
    McNemar's exact test with 1,100 items fixed and none broken: ``p = 2^-1099``, below the
    float range.

    >>> from evalbot.stats.mcnemar import mcnemar
    >>> p = mcnemar(1100, 0).pvalue
    >>> p.value, p.bound, round(p.log10, 4)
    (0.0, 'exact', -330.832)
    >>> p.format()
    '1.5e-331'
    """

    __slots__ = ("bound", "log10", "resolution")
    log10: float
    bound: Bound
    resolution: float | None

    def __new__(
        cls, value: float, *, log10: float, bound: Bound = "exact", resolution: float | None = None
    ) -> PValue:
        self = super().__new__(cls, value)
        for name, given in (("log10", log10), ("bound", bound), ("resolution", resolution)):
            object.__setattr__(self, name, given)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"PValue is immutable; cannot set {name!r}")

    def __reduce__(self) -> tuple[object, tuple[float, float, Bound, float | None]]:
        return _rebuilt, (float(self), self.log10, self.bound, self.resolution)

    @property
    def value(self) -> float:
        return float(self)

    def decide(self, alpha: float) -> Decision:
        """``"below"`` when ``p <= alpha`` is certain, ``"not_below"`` when ``p > alpha`` is,
        ``"unresolved"`` when only a bound at or above ``alpha`` is known (the method cannot
        resolve p-values that small: more resamples are needed)."""
        if self.bound == "exact":
            if self.value > 0.0 or self.log10 == -math.inf:
                return "below" if self.value <= alpha else "not_below"
            return "below" if self.log10 <= math.log10(alpha) else "not_below"
        return "below" if self.value <= alpha else "unresolved"

    @property
    def kind(self) -> Kind:
        """What :attr:`reportable` is: ``"exact"`` (the p-value), ``"upper_bound"`` (the
        method cannot resolve smaller p-values; the p-value is below it), or
        ``"below_float_range"`` (the exact p-value, in ``log10``, is below the smallest normal
        float, which :attr:`reportable` gives as a bound)."""
        if self.bound == "upper":
            return "upper_bound"
        if self.value >= SMALLEST_NORMAL or self.log10 == -math.inf:
            return "exact"
        return "below_float_range"

    @property
    def reportable(self) -> float:
        """A float for reports that is never 0 for a positive p-value: ``value``, or the
        smallest normal float (an upper bound) when the exact p-value is below it.

        >>> from evalbot.stats.mcnemar import mcnemar
        >>> p = mcnemar(1100, 0).pvalue
        >>> p.reportable, p.kind
        (2.2250738585072014e-308, 'below_float_range')
        """
        return SMALLEST_NORMAL if self.kind == "below_float_range" else self.value

    def format(self, digits: int = 2) -> str:
        """Plain text: ``"0.016"``, ``"1.5e-331"`` or ``"< 0.0002"`` (``digits`` significant).

        Uses ``log10`` when the float underflowed, so the text is never "0"."""
        number = _format_log10(self.log10, digits)
        return f"< {number}" if self.bound == "upper" else number


def _rebuilt(value: float, log10: float, bound: Bound, resolution: float | None) -> PValue:
    return PValue(value, log10=log10, bound=bound, resolution=resolution)


#: ``p = 1``: the p-value of no evidence at all (a default for result records).
P_ONE = PValue(value=1.0, log10=0.0)


def _format_log10(log10: float, digits: int) -> str:
    if log10 >= -300.0:
        return f"{10.0**log10:.{digits}g}"
    exponent = math.floor(log10)
    mantissa = 10.0 ** (log10 - exponent)
    if round(mantissa, digits - 1) >= 10.0:
        mantissa, exponent = mantissa / 10.0, exponent + 1
    return f"{mantissa:.{digits - 1}f}e{exponent:d}"


def exact_pvalue(value: float, *, resolution: float | None = None) -> PValue:
    """:class:`PValue` of an exactly known p-value that is a normal float."""
    v = min(1.0, max(0.0, float(value)))
    log10 = math.log10(v) if v > 0.0 else -math.inf
    return PValue(value=v, log10=log10, bound="exact", resolution=resolution)


def float_pvalue(value: float) -> PValue:
    """:class:`PValue` of a p-value computed as a float (a t tail): exact above 1e-290, below
    which such a tail is not reliable, so only that bound is reported."""
    return exact_pvalue(value) if value > 1e-290 else upper_bound_pvalue(1e-290)


def log10_pvalue(log10: float, *, resolution: float | None = None) -> PValue:
    """:class:`PValue` from an exact ``log10`` (the float may underflow to 0.0)."""
    lg = min(0.0, float(log10))
    value = 10.0**lg if lg > -330.0 else 0.0
    return PValue(value=value, log10=lg, bound="exact", resolution=resolution)


def upper_bound_pvalue(bound: float, *, resolution: float | None = None) -> PValue:
    """:class:`PValue` known only to be below ``bound`` (> 0)."""
    b = min(1.0, float(bound))
    if not b > 0.0:
        raise ValueError(f"`bound` must be positive; got {bound!r}.")
    return PValue(value=b, log10=math.log10(b), bound="upper", resolution=resolution)


def resampling_pvalue(pvalue: float, n_resamples: int, *, two_sided: bool = True) -> PValue:
    """:class:`PValue` of a bootstrap p-value, a share of ``n_resamples`` resamples.

    A two-sided bootstrap p-value doubles a tail share, so its resolution is ``2 / B``
    (``1 / B`` one-sided). A p-value of 0 means only that no resample fell past the null value:
    the p-value is then reported as an upper bound at the resolution, never as 0.
    """
    step = (2.0 if two_sided else 1.0) / n_resamples
    if pvalue <= 0.0:
        return upper_bound_pvalue(step, resolution=step)
    return exact_pvalue(pvalue, resolution=step)


def log_binomial_half_tail(k: int, n: int) -> tuple[float, float]:
    """Natural logs of ``P(X <= k)`` and ``P(X = k)`` for ``X ~ Bin(n, 1/2)``, ``0 <= k <= n``.

    Sums the terms from ``k`` downwards relative to ``P(X = k)`` (ratios
    ``P(X = i - 1) / P(X = i) = i / (n - i + 1)``) until they no longer change the sum, so it
    stays accurate far below the float range. Used for the exact and mid-p McNemar p-values
    when they underflow. ``k <= n / 2`` makes the sum converge fast; it is exact otherwise too.
    """
    log_at = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2.0)
    total = term = 1.0
    for i in range(k, 0, -1):
        term *= i / (n - i + 1)
        total += term
        if term < 1e-17 * total:
            break
    return log_at + math.log(total), log_at
