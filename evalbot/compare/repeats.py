"""Pure: repeat statistics of pass/fail items sampled several times (epochs): flaky items,
variance components, pass@k, the standard error for (n, k) and the best split of the calls."""

from __future__ import annotations

import numpy as np

from evalbot.compare.records import RepeatsSide
from evalbot.formats.model import FloatArray, Paired
from evalbot.stats.repeats import (
    BudgetAllocation,
    allocate_budget,
    analyze_repeats,
    pass_at_k,
    repeats_standard_error,
)

__all__ = ["MAX_PASS_AT_K", "compute_repeats"]

#: pass@k is reported for k = 1 .. min(repeats, MAX_PASS_AT_K).
MAX_PASS_AT_K = 10


def compute_repeats(paired: Paired, values: FloatArray, epochs: int) -> RepeatsSide | None:
    """Repeat statistics of pass/fail items sampled ``epochs`` times.

    Every statistic of :func:`analyze_repeats` depends on an item's repeats only through how
    many passed, so an item's pass rate over its epochs rebuilds an equivalent row exactly.
    """
    if not paired.pass_fail or epochs < 2 or len(values) == 0:
        return None
    passes = values * epochs
    counts = np.rint(passes)
    if not np.allclose(passes, counts, atol=1e-6):
        return None  # items with differing numbers of epochs: no balanced matrix
    matrix = (np.arange(epochs)[None, :] < counts[:, None]).astype(np.float64)
    flaky = (counts > 0) & (counts < epochs)
    ids = np.asarray(paired.ids, dtype=object)
    result = analyze_repeats(matrix)
    n = len(values)
    correct = counts.astype(np.int64)
    at_k = tuple(
        (k, pass_at_k(epochs, correct, k)) for k in range(1, min(epochs, MAX_PASS_AT_K) + 1)
    )
    se: float | None = None
    budget: BudgetAllocation | None = None
    between, within = result.between_item_variance, result.within_item_variance
    if np.isfinite(between) and np.isfinite(within):
        se = repeats_standard_error(between, within, n, epochs)
        # the same number of calls spread as the SE prefers (on as many items as calls)
        budget = allocate_budget(between, within, n * epochs)
    return RepeatsSide(
        result=result,
        flaky_ids=ids[flaky].tolist(),
        pass_at_k=at_k,
        standard_error=se,
        budget=budget,
    )
