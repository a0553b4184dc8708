"""An always-valid test for the discordant pairs: a mixture sequential probability ratio test.

Peeking at a fixed-size test after every batch of results and stopping at the first ``p <
alpha`` inflates the false-positive rate far above ``alpha``. The p-value here stays valid
however often it is looked at and whenever the looking stops."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np

from evalbot.stats._validation import (
    FloatArray,
    as_count,
    as_number,
    as_probability,
    as_table_counts,
)
from evalbot.stats.intervals import ConfidenceInterval, bisect
from evalbot.stats.paired_proportions import paired_standard_error
from evalbot.stats.pvalue import PValue, log10_pvalue
from evalbot.vocabulary import CONFIDENCE

_LN2 = math.log(2.0)


@dataclass(frozen=True, kw_only=True)
class SequentialResult:
    """Result of :func:`mixture_sprt`.

    Attributes
    ----------
    statistic : float
        The mixture likelihood ratio at the current counts (at most ``2**n``; ``inf`` beyond
        the float range).
    pvalue : float
        The always-valid p-value ``min(1, 1 / statistic)``.
    fixed, broken : int
        The discordant counts (echoed inputs).
    concentration : float
        The mixing distribution is ``Beta(concentration, concentration)`` (echoed input).
    method : str
        ``"beta-binomial mixture SPRT"``.
    """

    statistic: float
    pvalue: PValue
    fixed: int
    broken: int
    concentration: float
    method: str = "beta-binomial mixture SPRT"

    @property
    def discordant(self) -> int:
        return self.fixed + self.broken

    @property
    def smallest_pvalue(self) -> PValue:
        """The smallest p-value the test can give with these discordant pairs (all fixed)."""
        return mixture_sprt(self.discordant, 0, concentration=self.concentration).pvalue


def _concentration_iv(concentration: object) -> float:
    return as_number(
        concentration, "concentration", lambda x: 0.0 < x < math.inf, "be a positive number"
    )


def mixture_log_likelihood_ratio(
    fixed: FloatArray | float, broken: FloatArray | float, *, concentration: float = 1.0
) -> FloatArray:
    """``log`` of the mixture likelihood ratio, element-wise (no input validation).

    ``log LR = n log 2 + log B(c + fixed, c + broken) - log B(c, c)`` with ``n = fixed +
    broken``; the vectorised core of :func:`mixture_sprt` and :func:`sequential_pvalues`.
    """
    from scipy.special import betaln  # lazily: scipy costs start-up time on every run

    x = np.asarray(fixed, dtype=np.float64)
    y = np.asarray(broken, dtype=np.float64)
    c = concentration
    return cast(FloatArray, (x + y) * _LN2 + betaln(c + x, c + y) - betaln(c, c))


def mixture_sprt(fixed: int, broken: int, *, concentration: float = 1.0) -> SequentialResult:
    """Always-valid test that discordant items are as likely to be fixed as broken.

    Each discordant item is fixed with probability ``p``; the null hypothesis is ``p = 1/2``
    (McNemar's). The alternative mixes over ``p ~ Beta(c, c)``, giving the likelihood ratio

        LR_n = 2**n B(c + fixed, c + broken) / B(c, c),     n = fixed + broken.

    Under the null ``LR_n`` is a non-negative martingale with mean 1 as the discordant pairs
    arrive, so by Ville's inequality ``P(LR_n >= 1/alpha for some n) <= alpha``: rejecting when
    ``p = min(1, 1 / LR_n) <= alpha`` keeps the false-positive rate at most ``alpha`` however
    many times the counts are looked at, and whenever the looking stops. The price is power: at
    a single pre-planned look the exact McNemar test rejects sooner.

    Parameters
    ----------
    fixed, broken : int
        Discordant counts so far (cumulative).
    concentration : float, optional
        ``c`` of the ``Beta(c, c)`` mixing distribution; 1 (default) is uniform on ``p``.
        Larger values put more weight near ``p = 1/2`` (small effects, large samples).

    Returns
    -------
    SequentialResult

    Notes
    -----
    The test is two-sided (the mixture is symmetric about 1/2). The p-value of one look is
    ``1 / LR``; along a path of looks the always-valid p-value is the running minimum,
    :func:`sequential_pvalues`.

    References
    ----------
    .. [1] H. Robbins, "Statistical methods related to the law of the iterated logarithm",
       Annals of Mathematical Statistics 41 (1970), 1397-1409 (mixture martingales).
    .. [2] J. Ville, *Étude critique de la notion de collectif*, Gauthier-Villars (1939).
    .. [3] R. Johari, P. Koomen, L. Pekelis, D. Walsh, "Always valid inference: continuous
       monitoring of A/B tests", Operations Research 70 (2022), 1806-1821.
    .. [4] S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon, "Time-uniform, nonparametric,
       nonasymptotic confidence sequences", Annals of Statistics 49 (2021), 1055-1080.

    Examples
    --------
    With the uniform mixture the ratio has a closed form, ``2**n fixed! broken! / (n + 1)!``.
    10 fixed, 0 broken: ``LR = 1024 / 11``, so ``p = 11/1024``; 9 fixed, 1 broken:
    ``LR = 1024 / 110`` and ``p = 110/1024`` (the exact McNemar p-values are 2/1024 and 22/1024).

    >>> from evalbot.stats.sequential import mixture_sprt
    >>> round(mixture_sprt(10, 0).pvalue * 1024, 9)
    11.0
    >>> round(mixture_sprt(9, 1).pvalue * 1024, 9)
    110.0
    >>> mixture_sprt(0, 0).pvalue
    1.0
    """
    b = as_count(fixed, "fixed")
    k = as_count(broken, "broken")
    c = _concentration_iv(concentration)
    log_lr = float(mixture_log_likelihood_ratio(b, k, concentration=c))
    return SequentialResult(
        statistic=math.exp(log_lr) if log_lr <= 709.0 else math.inf,
        pvalue=log10_pvalue(-max(0.0, log_lr) / math.log(10.0)),
        fixed=b,
        broken=k,
        concentration=c,
    )


def sequential_pvalues(fixed: object, broken: object, *, concentration: float = 1.0) -> FloatArray:
    """Always-valid p-values along a path of looks: ``min(1, 1 / max LR so far)``.

    ``fixed`` and ``broken`` are the cumulative counts at each look (non-decreasing). Works on
    the last axis, so a 2-D array holds one path per row (used by the simulations).

    Examples
    --------
    >>> from evalbot.stats.sequential import sequential_pvalues
    >>> [round(float(p) * 1024, 6) for p in sequential_pvalues([10, 10], [0, 1])]
    [11.0, 11.0]
    """
    c = _concentration_iv(concentration)
    x = np.asarray(fixed, dtype=np.float64)
    y = np.asarray(broken, dtype=np.float64)
    if x.shape != y.shape or x.ndim == 0:
        raise ValueError(
            f"`fixed` and `broken` must be arrays of the same shape; got {x.shape} and {y.shape}."
        )
    if np.any(x < 0) or np.any(y < 0) or np.any(np.diff(x) < 0) or np.any(np.diff(y) < 0):
        raise ValueError("`fixed` and `broken` must be non-negative, non-decreasing counts.")
    log_lr = mixture_log_likelihood_ratio(x, y, concentration=c)
    running = np.maximum.accumulate(log_lr, axis=-1)
    return np.minimum(1.0, np.exp(-running))


@dataclass(frozen=True, kw_only=True)
class ConfidenceSequenceResult:
    """Result of :func:`confidence_sequence`.

    Attributes
    ----------
    split_interval : ConfidenceInterval
        Always-valid interval for ``p``, the share of discordant items that were fixed: every
        ``p0`` whose mixture likelihood ratio is below ``1 / alpha``. It excludes 1/2 exactly
        when :func:`mixture_sprt` gives ``p <= alpha`` on the same counts.
    confidence_interval : ConfidenceInterval
        The difference in pass rate, ``psi (2p - 1)`` with ``psi`` the share of items that
        changed outcome: the range over ``split_interval`` and an always-valid interval for
        ``psi`` (level ``discordance_alpha``). It excludes 0 exactly when ``split_interval``
        excludes 1/2.
    discordance_interval : ConfidenceInterval
        The always-valid interval for ``psi``.
    statistic : float
        ``(fixed - broken) / items``.
    confidence_level : float
        ``1 - alpha`` of the split interval (the sequential test's level).
    pvalue : PValue
        :func:`mixture_sprt`'s always-valid p-value on the same counts, the test the split
        interval inverts.
    standard_error : float
        The plug-in standard error of ``statistic``
        (:func:`~evalbot.stats.paired_proportions.paired_standard_error`).
    fixed, broken, items, concentration, discordance_alpha
        Echoed inputs.
    method : str
    """

    split_interval: ConfidenceInterval
    confidence_interval: ConfidenceInterval
    discordance_interval: ConfidenceInterval
    statistic: float
    confidence_level: float
    pvalue: PValue
    standard_error: float
    fixed: int
    broken: int
    items: int
    concentration: float
    discordance_alpha: float
    method: str = "beta-binomial mixture confidence sequence"


def _mixture_set(
    successes: int, failures: int, log_threshold: float, concentration: float
) -> tuple[float, float]:
    """``{p0 : log LR(p0) < log_threshold}`` for the ``Beta(c, c)`` mixture against the point
    ``p0`` of a binomial proportion, ``LR(p0) = B(c + s, c + f) / (B(c, c) p0^s (1-p0)^f)``.

    ``-log LR`` is concave in ``p0`` with its maximum at ``s / (s + f)``, where ``LR <= 1``
    (a mixture never beats the best point), so the set is an interval around it; its ends are
    found by bisection to float resolution.
    """
    from scipy.special import betaln

    s, f, c = float(successes), float(failures), concentration
    log_mix = float(betaln(c + s, c + f) - betaln(c, c))

    def inside(p0: float) -> bool:
        if p0 <= 0.0:
            return s == 0.0 and log_mix < log_threshold
        if p0 >= 1.0:
            return f == 0.0 and log_mix < log_threshold
        return log_mix - s * math.log(p0) - f * math.log1p(-p0) < log_threshold

    centre = s / (s + f) if s + f > 0 else 0.5
    low, high = (edge if inside(edge) else bisect(inside, centre, edge)[0] for edge in (0.0, 1.0))
    return low, high


def confidence_sequence(
    fixed: int,
    broken: int,
    items: int,
    *,
    confidence_level: float = CONFIDENCE,
    concentration: float = 1.0,
    discordance_alpha: float = 0.005,
) -> ConfidenceSequenceResult:
    """Always-valid confidence interval that matches :func:`mixture_sprt`.

    Parameters
    ----------
    fixed, broken : int
        Discordant counts so far (cumulative).
    items : int
        Items compared so far (>= ``fixed + broken``, >= 1).
    confidence_level : float, optional
        ``1 - alpha`` of the sequential test. Default 0.95.
    concentration : float, optional
        The SPRT's ``Beta(c, c)`` mixing distribution (the same ``c`` as the test).
    discordance_alpha : float, optional
        Level spent on the share of items that change outcome when mapping to the
        difference in pass rate (default 0.005).

    Returns
    -------
    ConfidenceSequenceResult

    Notes
    -----
    The SPRT rejects ``p = 1/2`` when the mixture likelihood ratio against 1/2 reaches
    ``1 / alpha``. The same mixture against any ``p0``,
    ``LR(p0) = B(c + fixed, c + broken) / (B(c, c) p0^fixed (1 - p0)^broken)``, is a
    non-negative martingale with mean 1 under ``p0``, so by Ville's inequality the set
    ``{p0 : LR(p0) < 1 / alpha}`` covers the true ``p`` at every look at once with
    probability at least ``1 - alpha`` (a confidence sequence; the running intersection over
    looks keeps that coverage). At ``p0 = 1/2`` this is
    the SPRT: the split interval excludes 1/2 exactly when its p-value is ``<= alpha``.

    The difference in pass rate is ``psi (2p - 1)``. The share ``psi`` gets its own
    always-valid interval (the uniform mixture over a binomial proportion, level
    ``discordance_alpha``) and the difference interval is the range of ``psi (2p - 1)`` over
    both intervals: it covers the true difference at every look with probability at least
    ``1 - alpha - discordance_alpha`` (simulated in ``tests/sim/test_sequential_coverage.py``:
    at least 99.7 %; mapping with the observed share instead covers 0.2-27 % of paths, which
    is why the share gets an interval). Since ``psi``'s interval stays above 0 once an item
    changed, the difference interval excludes 0 exactly when the split interval excludes 1/2,
    so it never contradicts the test.

    References
    ----------
    .. [1] H. Robbins, "Statistical methods related to the law of the iterated logarithm",
       Annals of Mathematical Statistics 41 (1970), 1397-1409.
    .. [2] S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon, "Time-uniform, nonparametric,
       nonasymptotic confidence sequences", Annals of Statistics 49 (2021), 1055-1080.

    Examples
    --------
    Ten fixed, none broken, in 100 items: the SPRT's p is 11/1024 <= 0.05, and the split
    interval excludes 1/2.

    >>> from evalbot.stats.sequential import confidence_sequence
    >>> r = confidence_sequence(10, 0, 100)
    >>> bool(r.split_interval.low > 0.5), bool(r.confidence_interval.low > 0)
    (True, True)
    """
    b, k, n = as_table_counts(fixed, broken, items)
    cl = as_probability(confidence_level, "confidence_level")
    c = _concentration_iv(concentration)
    psi_alpha = as_probability(discordance_alpha, "discordance_alpha")
    p_low, p_high = _mixture_set(b, k, math.log(1.0 / (1.0 - cl)), c)
    d = b + k
    psi_low, psi_high = _mixture_set(d, n - d, math.log(1.0 / psi_alpha), 1.0)
    lower_slope, upper_slope = 2.0 * p_low - 1.0, 2.0 * p_high - 1.0
    low = lower_slope * (psi_high if lower_slope < 0.0 else psi_low)
    high = upper_slope * (psi_high if upper_slope > 0.0 else psi_low)
    return ConfidenceSequenceResult(
        split_interval=ConfidenceInterval(p_low, p_high),
        confidence_interval=ConfidenceInterval(low, high),
        discordance_interval=ConfidenceInterval(psi_low, psi_high),
        statistic=(b - k) / n,
        confidence_level=cl,
        pvalue=mixture_sprt(b, k, concentration=c).pvalue,
        standard_error=paired_standard_error(b, k, n),
        fixed=b,
        broken=k,
        items=n,
        concentration=c,
        discordance_alpha=psi_alpha,
    )
