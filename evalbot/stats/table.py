"""The paired 2x2 table of binary outcomes, and churn."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evalbot.stats._validation import as_float_vector, as_table_counts

__all__ = ["ChurnResult", "PairedTable", "churn", "compute_paired_table"]


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
    >>> from evalbot.stats import compute_paired_table
    >>> compute_paired_table([1, 0, 1, 0, 0], [1, 1, 0, 0, 1])
    PairedTable(both_pass=1, fixed=2, broken=1, both_fail=1)
    """
    base = as_float_vector(baseline, "baseline")
    cand = as_float_vector(candidate, "candidate")
    if base.shape != cand.shape:
        raise ValueError(
            "`baseline` and `candidate` must have the same length (one value per paired item); "
            f"got {base.size} and {cand.size}."
        )
    for name, arr in (("baseline", base), ("candidate", cand)):
        bad = np.flatnonzero((arr != 0.0) & (arr != 1.0))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"`{name}` must hold 0/1 outcomes; got {arr[i]!r} at index {i}.")
    b = base.astype(bool)
    c = cand.astype(bool)
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
    >>> from evalbot.stats import churn
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
