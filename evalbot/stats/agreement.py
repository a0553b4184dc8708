"""Do a test and an interval tell the same story about the null value?

Every primary method here reports a p-value and an interval from one construction (the
bootstrap p-value inverts its own interval, the sign-flip and t intervals invert their
tests, the confidence sequence inverts the sequential test), so they agree by design. For
pass/fail items the test is McNemar's *exact* test and the interval is Tango's score
interval with continuity correction (``paired_difference_interval``'s default): it excludes 0
exactly when McNemar's continuity-corrected chi-squared test rejects, which is close to the
exact test but not identical. Over every table with at most 150 discordant pairs it differs
from the exact test in 10 of 11,475 (the exact test rejects, the interval touches 0); Tango's
interval without the correction differs in 140, all the other way round (five of five items
fixed: exact p = 0.0625, uncorrected interval [0.131, 1]). :func:`interval_agreement` says
which case holds, so the words around the numbers never contradict them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from evalbot.stats._validation import as_probability
from evalbot.stats.intervals import ConfidenceInterval
from evalbot.stats.pvalue import PValue, exact_pvalue

AgreementCase = Literal[
    "both_significant",  # p <= alpha and the interval excludes the null value
    "neither",  # p > alpha and the interval contains it
    "interval_only",  # the interval excludes the null value, the test does not reject
    "test_only",  # the test rejects, the interval still contains the null value
    "unresolved",  # the p-value is only a bound at or above alpha (more resamples needed)
]


#: The case of (the test rejects, the interval excludes the null value).
_CASES: dict[tuple[bool, bool], AgreementCase] = {
    (True, True): "both_significant",
    (False, False): "neither",
    (False, True): "interval_only",
    (True, False): "test_only",
}


@dataclass(frozen=True, kw_only=True)
class Agreement:
    """Result of :func:`interval_agreement`.

    Attributes
    ----------
    agree : bool
        The test and the interval say the same about ``null``.
    case : str
        ``"both_significant"``, ``"neither"``, ``"interval_only"``, ``"test_only"`` or
        ``"unresolved"``.
    significant : bool or None
        The test rejects (``p <= alpha``); ``None`` when unresolved.
    excludes_null : bool
        The interval lies entirely above or below ``null``.
    direction : {"up", "down", "none"}
        Which side of ``null`` the interval lies on (``"none"`` when it contains it).
    levels_match : bool
        ``confidence_level == 1 - alpha`` (to 1e-12); when not, a disagreement can come from
        the levels alone.
    pvalue, alpha, confidence_interval, confidence_level, null
        Echoed inputs (``pvalue`` as a float).
    """

    agree: bool
    case: AgreementCase
    significant: bool | None
    excludes_null: bool
    direction: Literal["up", "down", "none"]
    levels_match: bool
    pvalue: float
    alpha: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    null: float


def interval_agreement(
    pvalue: float | PValue,
    alpha: float,
    confidence_interval: tuple[float, float],
    *,
    confidence_level: float | None = None,
    null: float = 0.0,
    strict: bool = False,
) -> Agreement:
    """Whether a test's p-value and an interval agree about the value ``null``.

    Parameters
    ----------
    pvalue : float or PValue
        The test's p-value (a :class:`~evalbot.stats.pvalue.PValue` keeps its bound).
    alpha : float
        The level the test is judged at.
    confidence_interval : (low, high)
    confidence_level : float, optional
        The interval's level; default ``1 - alpha``.
    null : float, optional
        The value tested (0: no difference).
    strict : bool, optional
        ``True``: the test rejects when ``p < alpha`` (evalbot's policy); ``False`` (default):
        ``p <= alpha``.

    Examples
    --------
    Five of five items fixed: the exact McNemar p is 2/32 = 0.0625, but Tango's 95 % interval
    is [0.131, 1].

    >>> from evalbot.stats.agreement import interval_agreement
    >>> from evalbot.stats.mcnemar import mcnemar
    >>> from evalbot.stats.paired_proportions import tango_interval
    >>> a = interval_agreement(
    ...     mcnemar(5, 0).pvalue, 0.05, tango_interval(5, 0, 5).confidence_interval
    ... )
    >>> a.agree, a.case, a.direction
    (False, 'interval_only', 'up')
    """
    detail = pvalue if isinstance(pvalue, PValue) else exact_pvalue(float(pvalue))
    a = as_probability(alpha, "alpha")
    low, high = (float(x) for x in confidence_interval)
    if math.isnan(low) or math.isnan(high) or low > high:
        raise ValueError(f"`confidence_interval` must be (low, high); got {confidence_interval!r}.")
    level = 1.0 - a if confidence_level is None else float(confidence_level)
    direction: Literal["up", "down", "none"] = (
        "up" if low > null else "down" if high < null else "none"
    )
    excludes = direction != "none"
    decision = detail.decide(a)
    tie = strict and detail.bound == "exact" and detail.value == a  # p = alpha is not p < alpha
    significant = None if decision == "unresolved" else decision == "below" and not tie
    case: AgreementCase = "unresolved" if significant is None else _CASES[significant, excludes]
    return Agreement(
        agree=case in ("both_significant", "neither"),
        case=case,
        significant=significant,
        excludes_null=excludes,
        direction=direction,
        levels_match=abs(level - (1.0 - a)) < 1e-12,
        pvalue=detail.value,
        alpha=a,
        confidence_interval=ConfidenceInterval(low, high),
        confidence_level=level,
        null=float(null),
    )
