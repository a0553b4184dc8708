"""McNemar's test for paired binary outcomes (fixed vs broken items)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

from scipy.special import bdtr, chdtrc, log_ndtr

from evalbot.stats._validation import as_choice, as_count, as_probability
from evalbot.stats.pvalue import P_ONE, PValue, exact_pvalue, log10_pvalue, log_binomial_half_tail
from evalbot.vocabulary import ALPHA, MCNEMAR_METHODS, McNemarMethod


@dataclass(frozen=True, kw_only=True)
class McNemarResult:
    """Result of :func:`mcnemar`.

    Attributes
    ----------
    statistic : float
        ``exact`` / ``midp``: the number of fixed items (the binomial count);
        ``asymptotic``: the continuity-corrected chi-squared statistic.
    pvalue : float
        Two-sided p-value.
    method : {"exact", "midp", "asymptotic"}
        The method that produced ``pvalue``.
    fixed, broken : int
        The discordant counts the test was computed from (echoed inputs).
    """

    statistic: float
    pvalue: PValue
    method: McNemarMethod
    fixed: int
    broken: int

    @property
    def discordant(self) -> int:
        """Number of discordant pairs, ``fixed + broken``."""
        return self.fixed + self.broken

    @property
    def smallest_pvalue(self) -> PValue:
        """:func:`mcnemar_smallest_pvalue` of these discordant pairs."""
        return mcnemar(self.discordant, 0, method=self.method).pvalue


def method_iv(method: object) -> McNemarMethod:
    return cast(McNemarMethod, as_choice(method, "method", MCNEMAR_METHODS))


_EXACT_INTEGER_LIMIT = 2000


def _two_sided_binomial_half(k: int, n: int, *, midp: bool) -> PValue:
    """``2 P(X <= k)`` (minus ``P(X = k)`` for mid-p) for ``X ~ Bin(n, 1/2)``, ``k <= n / 2``.

    Up to ``_EXACT_INTEGER_LIMIT`` trials the sum is done in integers and rounded once, so
    values such as 22/1024 come out exact, and its ``log10`` is that of the exact rational;
    above it the float comes from scipy's ``bdtr``, and a log-space sum
    (:func:`~evalbot.stats.pvalue.log_binomial_half_tail`) the ``log10`` when it underflows.
    The p-value is capped at 1.
    """
    if n <= _EXACT_INTEGER_LIMIT:
        below = sum(math.comb(n, i) for i in range(k))  # P(X <= k - 1) * 2**n
        at = math.comb(n, k)
        numerator = 2 * below + (at if midp else 2 * at)
        if numerator >= (1 << n):
            return exact_pvalue(1.0)
        # int / int is correctly rounded (to 0.0 below the float range); log10 is exact
        return PValue(value=numerator / (1 << n), log10=math.log10(numerator) - n * _LOG10_2)
    # exact: 2 P(X <= k); mid-p: P(X <= k - 1) + P(X <= k). Sums of tails, no cancellation.
    tail = float(bdtr(k, n, 0.5))
    tail_below = float(bdtr(k - 1, n, 0.5)) if k > 0 else 0.0
    p = tail_below + tail if midp else 2.0 * tail
    if p > 1e-290:
        return exact_pvalue(p)  # capped at 1
    log_tail, log_at = log_binomial_half_tail(k, n)
    # mid-p = 2 P(X <= k) - P(X = k) = P(X = k) (2 R - 1) with R = P(X <= k) / P(X = k)
    log_p = (
        log_at + math.log(2.0 * math.exp(log_tail - log_at) - 1.0)
        if midp
        else math.log(2.0) + log_tail
    )
    return log10_pvalue(log_p / _LN10)


_LOG10_2 = math.log10(2.0)
_LN10 = math.log(10.0)


def asymptotic_pvalue(stat: float) -> PValue:
    """chi-squared(1) survival at ``stat``, with an exact ``log10`` where ``erfc`` underflows."""
    p = float(chdtrc(1.0, stat))
    if p > 1e-290:
        return exact_pvalue(min(1.0, p))
    return log10_pvalue((math.log(2.0) + float(log_ndtr(-math.sqrt(stat)))) / _LN10)


def mcnemar(fixed: int, broken: int, *, method: str = "exact") -> McNemarResult:
    """McNemar's test that items are as likely to be fixed as broken.

    Only the discordant pairs carry information about the difference between two paired
    pass rates: under the null hypothesis each discordant item is fixed or broken with
    probability 1/2, so ``fixed ~ Binomial(fixed + broken, 1/2)``.

    Parameters
    ----------
    fixed : int
        Items that failed on the baseline and pass on the candidate.
    broken : int
        Items that passed on the baseline and fail on the candidate.
    method : {"exact", "midp", "asymptotic"}, optional
        ``"exact"`` (default): two-sided exact binomial test,
        ``p = min(1, 2 P(X <= min(fixed, broken)))`` with ``X ~ Bin(fixed + broken, 1/2)``.
        ``"midp"``: the mid-p version, the exact p minus ``P(X = min(fixed, broken))``; less
        conservative, close to nominal size on average. ``"asymptotic"``: chi-squared with
        continuity correction, ``max(0, |fixed - broken| - 1)² / (fixed + broken)`` on one
        degree of freedom.

    Returns
    -------
    McNemarResult

    Notes
    -----
    With no discordant pairs there is no evidence of a difference; the p-value is 1.0 and
    the statistic 0 for every method (``scipy.stats.binomtest`` raises for ``n = 0``).
    For ``fixed == broken`` the asymptotic statistic is 0 (statsmodels' formula gives
    ``1 / (fixed + broken)`` there, because it does not clip ``|b - c| - 1`` at 0).

    References
    ----------
    .. [1] Q. McNemar, "Note on the sampling error of the difference between correlated
       proportions or percentages", Psychometrika 12 (1947), 153-157.
    .. [2] M. W. Fagerland, S. Lydersen, P. Laake, "The McNemar test for binary matched-pairs
       data: mid-p and asymptotic are better than exact conditional", BMC Medical Research
       Methodology 13 (2013), 91.

    Examples
    --------
    9 items fixed, 1 broken: ``P(X <= 1) = 11/1024`` for ``X ~ Bin(10, 1/2)``, so the exact
    two-sided p-value is ``22/1024``.

    >>> from evalbot.stats.mcnemar import mcnemar
    >>> mcnemar(9, 1).pvalue
    0.021484375
    >>> mcnemar(9, 1, method="midp").pvalue
    0.01171875
    >>> round(mcnemar(9, 1, method="asymptotic").statistic, 10)
    4.9
    """
    b, c, m = as_count(fixed, "fixed"), as_count(broken, "broken"), method_iv(method)
    n = b + c
    if n == 0:
        stat, detail = 0.0, P_ONE
    elif m == "asymptotic":
        stat = float(max(0, abs(b - c) - 1) ** 2 / n)
        detail = asymptotic_pvalue(stat)  # the chi-squared(1) survival function
    else:
        stat, detail = float(b), _two_sided_binomial_half(min(b, c), n, midp=(m == "midp"))
    return McNemarResult(statistic=stat, pvalue=detail, method=m, fixed=b, broken=c)


def mcnemar_smallest_pvalue(discordant: int, *, method: str = "exact") -> PValue:
    """The smallest p-value McNemar's test can give with ``discordant`` discordant pairs.

    It is reached when every discordant item moved the same way (all fixed, or all broken):
    ``exact``: ``min(1, 2^(1 - d))``; ``midp``: ``2^-d``; ``asymptotic``: the chi-squared(1)
    tail at ``(d - 1)^2 / d``. When it is above ``alpha`` the eval is *powerless*: no outcome
    of these items could be significant, whatever the effect (with the exact test at
    ``alpha = 0.05``, five or fewer discordant pairs).

    Examples
    --------
    >>> from evalbot.stats.mcnemar import mcnemar_smallest_pvalue
    >>> mcnemar_smallest_pvalue(5).value, mcnemar_smallest_pvalue(6).value
    (0.0625, 0.03125)
    """
    return mcnemar(as_count(discordant, "discordant"), 0, method=method).pvalue


def mcnemar_min_discordant(alpha: float = ALPHA, *, method: str = "exact") -> int:
    """The fewest discordant pairs with which McNemar's test can reach ``p <= alpha``.

    Examples
    --------
    >>> from evalbot.stats.mcnemar import mcnemar_min_discordant
    >>> mcnemar_min_discordant(0.05), mcnemar_min_discordant(0.05, method="midp")
    (6, 5)
    """
    a = as_probability(alpha, "alpha")
    m = method_iv(method)
    d = 1
    while mcnemar(d, 0, method=m).pvalue.decide(a) != "below":
        d += 1
    return d
