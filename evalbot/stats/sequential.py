"""An always-valid test for the discordant pairs: a mixture sequential probability ratio test.

Peeking at a fixed-size test after every batch of results and stopping at the first
``p < alpha`` inflates the false-positive rate far above ``alpha``. The p-value here stays
valid however often it is looked at and whenever the looking stops.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import betaln

from evalbot.stats._validation import FloatArray, as_count

__all__ = [
    "SequentialResult",
    "mixture_log_likelihood_ratio",
    "mixture_sprt",
    "sequential_pvalues",
]

_LN2 = math.log(2.0)


@dataclass(frozen=True, kw_only=True)
class SequentialResult:
    """Result of :func:`mixture_sprt`.

    Attributes
    ----------
    statistic : float
        The mixture likelihood ratio at the current counts (``inf`` never occurs: it is at most
        ``2**n``).
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
    pvalue: float
    fixed: int
    broken: int
    concentration: float
    method: str = "beta-binomial mixture SPRT"

    @property
    def discordant(self) -> int:
        return self.fixed + self.broken


def _concentration_iv(concentration: object) -> float:
    try:
        c = float(concentration)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"`concentration` must be a number; got {concentration!r}.") from None
    if not (math.isfinite(c) and c > 0.0):
        raise ValueError(f"`concentration` must be a positive number; got {concentration!r}.")
    return c


def mixture_log_likelihood_ratio(
    fixed: FloatArray | float, broken: FloatArray | float, *, concentration: float = 1.0
) -> FloatArray:
    """``log`` of the mixture likelihood ratio, element-wise (no input validation).

    ``log LR = n log 2 + log B(c + fixed, c + broken) - log B(c, c)`` with ``n = fixed +
    broken``; the vectorised core of :func:`mixture_sprt` and :func:`sequential_pvalues`.
    """
    x = np.asarray(fixed, dtype=np.float64)
    y = np.asarray(broken, dtype=np.float64)
    c = concentration
    out: FloatArray = (x + y) * _LN2 + betaln(c + x, c + y) - betaln(c, c)
    return out


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
        statistic=math.exp(log_lr),
        pvalue=min(1.0, math.exp(-log_lr)),
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
    out: FloatArray = np.minimum(1.0, np.exp(-running))
    return out
