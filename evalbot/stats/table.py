"""The paired 2x2 table of binary outcomes, churn, and (for contrast only) the unpaired
two-proportion z-test of its margins."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.special import ndtr

from evalbot.stats._validation import as_pair, as_part, as_table_counts, each


@dataclass(frozen=True, kw_only=True)
class PairedTable:
    """Counts of paired binary outcomes.

    Attributes
    ----------
    both_pass, fixed, broken, both_fail : int
        ``fixed`` = baseline fail -> candidate pass; ``broken`` = baseline pass ->
        candidate fail.
    """

    both_pass: int
    fixed: int
    broken: int
    both_fail: int

    @property
    def items(self) -> int:
        """Total number of paired items."""
        return self.both_pass + self.fixed + self.broken + self.both_fail

    @property
    def discordant(self) -> int:
        """Items whose outcome changed, ``fixed + broken``."""
        return self.fixed + self.broken

    @property
    def baseline_passed(self) -> int:
        """Items passing on the baseline, ``both_pass + broken``."""
        return self.both_pass + self.broken

    @property
    def candidate_passed(self) -> int:
        """Items passing on the candidate, ``both_pass + fixed``."""
        return self.both_pass + self.fixed


def compute_paired_table(baseline: npt.ArrayLike, candidate: npt.ArrayLike) -> PairedTable:
    """Tabulate paired 0/1 outcomes into a :class:`PairedTable`.

    Examples
    --------
    >>> from evalbot.stats.table import compute_paired_table
    >>> compute_paired_table([1, 0, 1, 0, 0], [1, 1, 0, 0, 1])
    PairedTable(both_pass=1, fixed=2, broken=1, both_fail=1)
    """
    base, cand = as_pair(baseline, candidate, empty=True)
    for name, arr in (("baseline", base), ("candidate", cand)):
        each(arr, (arr == 0.0) | (arr == 1.0), name, "hold 0/1 outcomes")
    b, c = base.astype(bool), cand.astype(bool)
    return PairedTable(
        both_pass=int(np.count_nonzero(b & c)),
        fixed=int(np.count_nonzero(~b & c)),
        broken=int(np.count_nonzero(b & ~c)),
        both_fail=int(np.count_nonzero(~b & ~c)),
    )


@dataclass(frozen=True, kw_only=True)
class ChurnResult:
    """Result of :func:`churn`.

    Attributes
    ----------
    fixed, broken, items : int
        Echoed inputs.
    discordant : int
        ``fixed + broken``: items whose outcome changed.
    net : int
        ``fixed - broken``: the change in the number of passing items.
    net_rate : float
        ``net / items``: the change in pass rate.
    churn : float
        ``discordant / items``: the share of items whose outcome changed, whatever the sign.
    """

    fixed: int
    broken: int
    items: int
    discordant: int
    net: int
    net_rate: float
    churn: float


def churn(fixed: int, broken: int, items: int) -> ChurnResult:
    """Churn beside the net effect: how many items changed outcome, not only the balance.

    A candidate that fixes 31 items and breaks 31 has a net effect of zero but rewrote 62
    items; reporting ``churn = (fixed + broken) / items`` beside the net change makes that
    visible.

    References
    ----------
    .. [1] Y. Yan et al., "Positive-congruent training: towards regression-free model
       updates", CVPR (2021) (negative flips / regressions between model versions).

    Examples
    --------
    >>> from evalbot.stats.table import churn
    >>> r = churn(31, 31, 400)
    >>> r.net, r.discordant, r.churn
    (0, 62, 0.155)
    """
    b, c, n = as_table_counts(fixed, broken, items)
    return ChurnResult(
        fixed=b,
        broken=c,
        items=n,
        discordant=b + c,
        net=b - c,
        net_rate=(b - c) / n,
        churn=(b + c) / n,
    )


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

    >>> from evalbot.stats.table import two_proportion_ztest
    >>> r = two_proportion_ztest(280, 400, 297, 400)
    >>> round(r.statistic, 3), round(r.pvalue, 3)
    (1.34, 0.18)
    """
    kb, nb = as_part(baseline_passed, baseline_n, ("baseline_passed", "baseline_n"))
    kc, nc = as_part(candidate_passed, candidate_n, ("candidate_passed", "candidate_n"))
    pb, pc = kb / nb, kc / nc
    pooled = (kb + kc) / (nb + nc)
    se = math.sqrt(pooled * (1.0 - pooled) * (1.0 / nb + 1.0 / nc))
    z = (pc - pb) / se if se else 0.0
    p = min(1.0, 2.0 * float(ndtr(-abs(z))))  # 1 when se = 0
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
