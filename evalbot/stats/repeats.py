"""Repeated samples per item (epochs): variance components, budget advice, pass@k.

With ``k`` samples of each of ``n`` items, the item is the unit: repeats are averaged per
item *before* any test, never counted as extra items (they are not independent draws of
the eval set). The per-item mean ``p_i`` then has variance ``sigma_b^2 + w / k`` where
``sigma_b^2`` is the between-item variance of the items' true pass rates and ``w`` the mean
within-item variance (``E[p(1 - p)]`` for pass/fail), so the standard error of the mean
score is ``sqrt((sigma_b^2 + w / k) / n)``.

References
----------
.. [1] E. Miller, "Adding error bars to evals: a statistical approach to language model
   evaluations", arXiv:2411.00640 (2024), §3 (resampling answers; variance components).
.. [2] M. Chen et al., "Evaluating large language models trained on code",
   arXiv:2107.03374 (2021), §2.1 (unbiased pass@k).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from evalbot.stats._validation import FloatArray, as_count, as_number, as_part


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
    >>> from evalbot.stats.repeats import pass_at_k
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
        ci, ni = as_part(ci_raw, ni_raw, (f"n_correct[{i}]", f"n_samples[{i}]"))
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


def _matrix_iv(values: object, name: str = "values") -> FloatArray:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be a two-dimensional array of numbers.") from None
    if arr.ndim != 2:
        raise ValueError(
            f"`{name}` must be two-dimensional (items x repeats); got an array of shape "
            f"{arr.shape}."
        )
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(
            f"`{name}` must have at least one item and one repeat; got shape {arr.shape}."
        )
    if not np.all(np.isfinite(arr)):
        i, j = (int(x) for x in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(f"`{name}` must be finite; got {arr[i, j]!r} at item {i}, repeat {j}.")
    return arr


def _is_binary(arr: FloatArray) -> bool:
    return bool(np.all((arr == 0.0) | (arr == 1.0)))


@dataclass(frozen=True, kw_only=True)
class RepeatsResult:
    """Result of :func:`analyze_repeats`.

    Attributes
    ----------
    items, repeats : int
        ``n`` and ``k``.
    mean : float
        Mean of the per-item means (the score; repeats averaged per item first).
    standard_error : float
        ``sd(per-item means, ddof=1) / sqrt(n)``: the SE of ``mean`` with the repeats in hand.
    between_item_variance : float
        ``sigma_b^2``, estimated as ``var(per-item means, ddof=1) - w / k``, clipped at 0.
    within_item_variance : float
        ``w``, the mean over items of the per-item sample variance (ddof=1); for pass/fail
        this is an unbiased estimate of ``E[p (1 - p)]``. ``nan`` when ``k == 1``.
    intraclass_correlation : float
        ``sigma_b^2 / (sigma_b^2 + w)``: the share of single-sample variance due to items.
    binary : bool
        True when every value is 0 or 1.
    always_pass, always_fail, flaky : int
        Pass/fail only (0 otherwise): items that passed every repeat, none, or some.
    flaky_rate : float
        ``flaky / items`` (``nan`` unless binary).
    majority_vote_accuracy : float
        Pass/fail only (``nan`` otherwise): see :func:`majority_vote_accuracy`.
    """

    items: int
    repeats: int
    mean: float
    standard_error: float
    between_item_variance: float
    within_item_variance: float
    intraclass_correlation: float
    binary: bool
    always_pass: int
    always_fail: int
    flaky: int
    flaky_rate: float
    majority_vote_accuracy: float


def analyze_repeats(values: npt.ArrayLike) -> RepeatsResult:
    """Variance components and per-item reliability from an items x repeats matrix.

    Parameters
    ----------
    values : array_like, shape (n, k)
        ``values[i, j]`` is repeat ``j`` of item ``i`` (0/1 for pass/fail, or a score).

    Returns
    -------
    RepeatsResult

    Notes
    -----
    One-way random-effects decomposition (method of moments): with per-item means ``p_i`` and
    per-item sample variances ``s_i^2``, ``w = mean(s_i^2)`` and
    ``sigma_b^2 = max(0, var(p_i) - w / k)``, since ``E[var(p_i)] = sigma_b^2 + w / k``.

    References
    ----------
    .. [1] S. R. Searle, G. Casella, C. E. McCulloch, *Variance Components*, Wiley (1992),
       ch. 3 (balanced one-way classification, ANOVA estimators).
    .. [2] E. Miller, "Adding error bars to evals", arXiv:2411.00640 (2024), eq. (5)-(7).

    Examples
    --------
    Three items, four repeats: one always passes, one never, one half the time.

    >>> from evalbot.stats.repeats import analyze_repeats
    >>> r = analyze_repeats([[1, 1, 1, 1], [0, 0, 0, 0], [1, 0, 1, 0]])
    >>> r.mean, r.flaky, round(r.within_item_variance, 4)
    (0.5, 1, 0.1111)
    """
    arr = _matrix_iv(values)
    n, k = arr.shape
    means = arr.mean(axis=1)
    mean = float(means.mean())
    var_means = float(np.var(means, ddof=1)) if n > 1 else math.nan
    se = math.sqrt(var_means / n) if n > 1 else math.nan
    within = float(np.var(arr, axis=1, ddof=1).mean()) if k > 1 else math.nan
    # With one repeat (or one item) the two components cannot be separated.
    between = max(0.0, var_means - within / k) if n > 1 and k > 1 else math.nan
    total = between + within
    icc = between / total if math.isfinite(total) and total > 0.0 else math.nan
    binary = _is_binary(arr)
    if binary:
        passes = arr.sum(axis=1)
        always_pass = int(np.count_nonzero(passes == k))
        always_fail = int(np.count_nonzero(passes == 0))
        flaky = n - always_pass - always_fail
        flaky_rate = flaky / n
        majority = _majority(arr)
    else:
        always_pass = always_fail = flaky = 0
        flaky_rate = majority = math.nan
    return RepeatsResult(
        items=n,
        repeats=k,
        mean=mean,
        standard_error=se,
        between_item_variance=between,
        within_item_variance=within,
        intraclass_correlation=icc,
        binary=binary,
        always_pass=always_pass,
        always_fail=always_fail,
        flaky=flaky,
        flaky_rate=flaky_rate,
        majority_vote_accuracy=majority,
    )


def _majority(arr: FloatArray) -> float:
    k = arr.shape[1]
    passes = arr.sum(axis=1)
    score = np.where(2 * passes > k, 1.0, np.where(2 * passes == k, 0.5, 0.0))
    return float(score.mean())


def majority_vote_accuracy(values: npt.ArrayLike) -> float:
    """Share of items on which most repeats pass (ties count 1/2).

    With only pass/fail per repeat this is "the majority of samples is correct"; it equals
    self-consistency majority voting when wrong answers do not agree with each other more
    often than the right one. A tie (even ``k``) counts as a coin flip, 1/2.

    Examples
    --------
    >>> from evalbot.stats.repeats import majority_vote_accuracy
    >>> majority_vote_accuracy([[1, 1, 0], [0, 0, 1], [1, 0, 1]])
    0.6666666666666666
    """
    arr = _matrix_iv(values)
    if not _is_binary(arr):
        raise ValueError("`values` must hold 0/1 outcomes for a majority vote.")
    return _majority(arr)


def repeats_standard_error(
    between_variance: float, within_variance: float, items: int, repeats: int
) -> float:
    """Standard error of the mean score with ``items`` items of ``repeats`` samples each.

    ``sqrt((sigma_b^2 + w / k) / n)``. Under a fixed call budget ``B = n k`` this is
    ``sqrt((sigma_b^2 k + w) / B)``, which grows with ``k``: more items beat more repeats.

    Examples
    --------
    >>> from evalbot.stats.repeats import repeats_standard_error
    >>> repeats_standard_error(0.16, 0.09, 100, 1) > repeats_standard_error(0.16, 0.09, 100, 4)
    True
    """
    sb, w = _variances_iv(between_variance, within_variance)
    n = as_count(items, "items", minimum=1)
    k = as_count(repeats, "repeats", minimum=1)
    return math.sqrt((sb + w / k) / n)


def _variances_iv(between: object, within: object) -> tuple[float, float]:
    def check(value: object, name: str) -> float:
        return as_number(value, name, lambda x: 0.0 <= x < math.inf, "be finite and >= 0")

    return check(between, "between_variance"), check(within, "within_variance")


@dataclass(frozen=True, kw_only=True)
class BudgetAllocation:
    """Result of :func:`allocate_budget`.

    Attributes
    ----------
    items, repeats : int
        Recommended ``n`` and ``k`` (``n k <= budget``).
    standard_error : float
        SE of the mean score at that allocation.
    budget : int
    available_items : int or None
        Echoed inputs.
    options : tuple of (items, repeats, standard_error)
        The SE for ``k = 1, 2, ...`` (up to 10) under the same budget, for the report.
    """

    items: int
    repeats: int
    standard_error: float
    budget: int
    available_items: int | None
    options: tuple[tuple[int, int, float], ...]


def allocate_budget(
    between_variance: float,
    within_variance: float,
    budget: int,
    *,
    available_items: int | None = None,
) -> BudgetAllocation:
    """Items and repeats that minimise the SE of the mean under a budget of calls.

    With ``n k = B`` the variance is ``sigma_b^2 / n + w / B``: it falls as ``n`` grows, so
    the best use of a budget is as many distinct items as exist (``k = 1`` when there are at
    least ``B`` items); repeats help only once the item pool is exhausted,
    ``n = min(available_items, B)`` and ``k = floor(B / n)``.

    Examples
    --------
    >>> from evalbot.stats.repeats import allocate_budget
    >>> a = allocate_budget(0.16, 0.09, 1000, available_items=250)
    >>> a.items, a.repeats
    (250, 4)
    """
    sb, w = _variances_iv(between_variance, within_variance)
    b = as_count(budget, "budget", minimum=1)
    avail = (
        None if available_items is None else as_count(available_items, "available_items", minimum=1)
    )
    pool = b if avail is None else min(avail, b)

    def se(n: int, k: int) -> float:
        return math.sqrt((sb + w / k) / n)

    n_best, k_best = pool, b // pool
    options = [(n, k, se(n, k)) for k in range(1, min(10, b) + 1) if (n := min(pool, b // k)) >= 1]
    return BudgetAllocation(
        items=n_best,
        repeats=k_best,
        standard_error=se(n_best, k_best),
        budget=b,
        available_items=avail,
        options=tuple(options),
    )
