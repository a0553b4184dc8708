"""Multiple-comparison adjustments: Benjamini-Hochberg q-values and Holm."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from evalbot.stats._validation import FloatArray, as_float_vector


def benjamini_hochberg(pvalues: npt.ArrayLike) -> FloatArray:
    """Benjamini-Hochberg q-values (false discovery rate adjusted p-values).

    ``q_(i) = min_{j >= i} min(1, m p_(j) / j)`` over the sorted p-values; rejecting the
    hypotheses with ``q <= alpha`` controls the FDR at ``alpha`` for independent or positively
    dependent tests. Returned in the input order. Use for per-slice results.

    References
    ----------
    .. [1] Y. Benjamini, Y. Hochberg, "Controlling the false discovery rate: a practical and
       powerful approach to multiple testing", JRSS B 57 (1995), 289-300.

    Examples
    --------
    >>> from evalbot.stats.multitest import benjamini_hochberg
    >>> benjamini_hochberg([0.01, 0.04, 0.03, 0.20]).tolist()
    [0.04, 0.05333333333333334, 0.05333333333333334, 0.2]
    """
    p = as_float_vector(pvalues, "pvalues", unit=True)
    order = np.argsort(p, kind="stable")
    scaled = p[order] * p.size / np.arange(1, p.size + 1)
    return _unsorted(np.minimum.accumulate(scaled[::-1])[::-1], order)


def holm(pvalues: npt.ArrayLike) -> FloatArray:
    """Holm step-down adjusted p-values (family-wise error rate).

    ``p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))`` over the sorted p-values; valid under
    any dependence. Returned in the input order. Use for several metrics on one comparison.

    References
    ----------
    .. [1] S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian
       Journal of Statistics 6 (1979), 65-70.

    Examples
    --------
    >>> from evalbot.stats.multitest import holm
    >>> holm([0.01, 0.04, 0.03]).tolist()
    [0.03, 0.06, 0.06]
    """
    p = as_float_vector(pvalues, "pvalues", unit=True)
    order = np.argsort(p, kind="stable")
    return _unsorted(np.maximum.accumulate(p[order] * (p.size - np.arange(p.size))), order)


def _unsorted(adjusted: FloatArray, order: npt.NDArray[np.intp]) -> FloatArray:
    """The sorted p-values' adjustments, capped at 1, back in the input order."""
    out = np.empty(order.size, dtype=np.float64)
    out[order] = np.minimum(1.0, adjusted)
    return out
