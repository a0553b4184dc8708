"""Unpaired two-proportion z-test, shown for contrast with the paired analysis only."""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.special import ndtr

from evalbot.stats._validation import as_count

__all__ = ["TwoProportionResult", "two_proportion_ztest"]


@dataclass(frozen=True, kw_only=True)
class TwoProportionResult:
    """Result of :func:`two_proportion_ztest`.

    Attributes
    ----------
    statistic : float
        z statistic of ``candidate_rate - baseline_rate`` with the pooled standard error.
    pvalue : float
        Two-sided p-value.
    difference : float
        ``candidate_rate - baseline_rate``.
    standard_error : float
        Pooled standard error used for ``statistic``.
    baseline_rate, candidate_rate : float
    baseline_passed, baseline_n, candidate_passed, candidate_n : int
        Echoed inputs.
    """

    statistic: float
    pvalue: float
    difference: float
    standard_error: float
    baseline_rate: float
    candidate_rate: float
    baseline_passed: int
    baseline_n: int
    candidate_passed: int
    candidate_n: int


def _two_proportion_ztest_iv(
    baseline_passed: object, baseline_n: object, candidate_passed: object, candidate_n: object
) -> tuple[int, int, int, int]:
    nb = as_count(baseline_n, "baseline_n", minimum=1)
    nc = as_count(candidate_n, "candidate_n", minimum=1)
    kb = as_count(baseline_passed, "baseline_passed")
    kc = as_count(candidate_passed, "candidate_passed")
    if kb > nb:
        raise ValueError(f"`baseline_passed` must be at most `baseline_n` ({nb}); got {kb}.")
    if kc > nc:
        raise ValueError(f"`candidate_passed` must be at most `candidate_n` ({nc}); got {kc}.")
    return kb, nb, kc, nc


def two_proportion_ztest(
    baseline_passed: int, baseline_n: int, candidate_passed: int, candidate_n: int
) -> TwoProportionResult:
    """Two-sided pooled z-test for two *independent* proportions.

    This ignores the pairing: it is what one would conclude from the two pass rates alone.
    Shown next to McNemar's test it tells the reader what pairing bought. Do not use it to
    decide on paired data.

    Notes
    -----
    ``z = (p_c - p_b) / sqrt(p (1 - p) (1/n_b + 1/n_c))`` with the pooled rate
    ``p = (k_b + k_c) / (n_b + n_c)``. When both runs pass everything or nothing the
    standard error is 0 and the result is ``z = 0``, ``p = 1``.

    References
    ----------
    .. [1] A. Agresti, *Categorical Data Analysis*, 3rd ed., Wiley (2013), §3.1.

    Examples
    --------
    The 400-item example, 280/400 vs 297/400, read as if the runs were unpaired:

    >>> from evalbot.stats import two_proportion_ztest
    >>> r = two_proportion_ztest(280, 400, 297, 400)
    >>> round(r.statistic, 3), round(r.pvalue, 3)
    (1.34, 0.18)
    """
    kb, nb, kc, nc = _two_proportion_ztest_iv(
        baseline_passed, baseline_n, candidate_passed, candidate_n
    )
    pb, pc = kb / nb, kc / nc
    pooled = (kb + kc) / (nb + nc)
    se = math.sqrt(pooled * (1.0 - pooled) * (1.0 / nb + 1.0 / nc))
    if se == 0.0:
        z, p = 0.0, 1.0
    else:
        z = (pc - pb) / se
        p = min(1.0, 2.0 * float(ndtr(-abs(z))))
    return TwoProportionResult(
        statistic=z,
        pvalue=p,
        difference=pc - pb,
        standard_error=se,
        baseline_rate=pb,
        candidate_rate=pc,
        baseline_passed=kb,
        baseline_n=nb,
        candidate_passed=kc,
        candidate_n=nc,
    )
