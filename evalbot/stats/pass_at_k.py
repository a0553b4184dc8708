"""The unbiased pass@k over items (Chen et al. 2021), vectorised.

References
----------
.. [1] M. Chen et al., "Evaluating large language models trained on code",
   arXiv:2107.03374 (2021), §2.1 (unbiased pass@k).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from evalbot.stats._validation import as_count

__all__ = ["pass_at_k"]


def pass_at_k(n_samples: npt.ArrayLike, n_correct: npt.ArrayLike, k: int) -> float:
    """Unbiased pass@k averaged over items (Chen et al. 2021).

    For an item with ``n`` samples of which ``c`` pass, ``pass@k = 1 - C(n - c, k) / C(n, k)``:
    the probability that a random ``k``-subset of its samples contains a pass. It is
    unbiased for ``1 - (1 - p)^k``, unlike ``1 - (1 - c/n)^k``.

    Parameters
    ----------
    n_samples : int or array_like of int
        Samples per item (``n >= k``); a scalar applies to every item.
    n_correct : array_like of int
        Passing samples per item.
    k : int

    Examples
    --------
    >>> from evalbot.stats import pass_at_k
    >>> pass_at_k(4, [0, 1, 4], 2)  # per item 0, 1/2, 1 -> mean 1/2
    0.5
    """
    kk = as_count(k, "k", minimum=1)
    c = np.atleast_1d(np.asarray(n_correct))
    n = np.broadcast_to(np.asarray(n_samples), c.shape)
    if c.ndim != 1 or c.size == 0:
        raise ValueError("`n_correct` must be a non-empty one-dimensional array of counts.")
    fast = _pass_at_k_counts(n, c, kk)
    if fast is not None:
        return fast
    total = 0.0
    for i, (ni_raw, ci_raw) in enumerate(zip(n.tolist(), c.tolist(), strict=True)):
        ni = as_count(ni_raw, f"n_samples[{i}]", minimum=1)
        ci = as_count(ci_raw, f"n_correct[{i}]")
        if ci > ni:
            raise ValueError(f"`n_correct[{i}]` must be at most `n_samples[{i}]` ({ni}); got {ci}.")
        if kk > ni:
            raise ValueError(f"`k` must be at most `n_samples[{i}]` ({ni}); got {kk}.")
        total += 1.0 - math.comb(ni - ci, kk) / math.comb(ni, kk)
    return total / c.size


def _pass_at_k_counts(n: npt.NDArray[Any], c: npt.NDArray[Any], k: int) -> float | None:
    """:func:`pass_at_k` for valid integer arrays, or ``None`` (the item loop then decides).

    Bit for bit the loop's result: each distinct ``(n, c)`` pair's term is computed once with
    exact integer binomials, and the terms are added in item order (``cumsum`` is a running
    sum, the loop's ``total += term``), so a hundred thousand items cost a few array passes.
    """
    if not (np.issubdtype(n.dtype, np.integer) and np.issubdtype(c.dtype, np.integer)):
        return None
    n64, c64 = n.astype(np.int64), c.astype(np.int64)
    if n64.min() < max(1, k) or c64.min() < 0 or (c64 > n64).any():
        return None  # the loop raises the message that names the item
    width = int(c64.max()) + 1
    if int(n64.max()) >= (1 << 62) // width:
        return None
    keys, inverse = np.unique(n64 * width + c64, return_inverse=True)
    terms = np.array(
        [
            1.0 - math.comb(ni - ci, k) / math.comb(ni, k)
            for ni, ci in zip((keys // width).tolist(), (keys % width).tolist(), strict=True)
        ],
        dtype=np.float64,
    )
    total = float(np.cumsum(terms[inverse.reshape(-1)])[-1])
    return total / c.size
