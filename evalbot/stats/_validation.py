"""Shared input-validation helpers for :mod:`evalbot.stats` (scipy-style messages)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def as_count(value: object, name: str, *, minimum: int = 0) -> int:
    """Return ``value`` as a Python ``int`` >= ``minimum`` or raise ``ValueError``."""
    if isinstance(value, bool | np.bool_):
        raise ValueError(f"`{name}` must be an integer; got {value!r}.")
    try:
        count = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"`{name}` must be an integer; got {value!r}.") from None
    if count < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}; got {value!r}.")
    return int(count)


def as_resampling(n_resamples: object, seed: object) -> tuple[int, int]:
    """``(n_resamples, seed)``: at least one resample, a seed >= 0."""
    return as_count(n_resamples, "n_resamples", minimum=1), as_count(seed, "seed")


def as_probability(value: object, name: str, *, closed: bool = False) -> float:
    """Return ``value`` as a float in (0, 1), or in [0, 1] when ``closed``, or raise
    ``ValueError``."""
    if closed:
        return as_number(value, name, lambda x: 0.0 <= x <= 1.0, "be in [0, 1]")
    return as_number(value, name, lambda x: 0.0 < x < 1.0, "be in (0, 1)")


def as_number(value: object, name: str, ok: Callable[[float], bool], must: str) -> float:
    """Return ``value`` as a float for which ``ok`` holds, or raise ``ValueError`` saying what
    it ``must`` be (``"be finite"``)."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be a number; got {value!r}.") from None
    if not ok(x):
        raise ValueError(f"`{name}` must {must}; got {value!r}.")
    return x


def as_choice(value: object, name: str, choices: Collection[str]) -> str:
    """Return ``value`` if it is one of ``choices`` or raise ``ValueError``."""
    if not isinstance(value, str) or value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ValueError(f"`{name}` must be one of {options}; got {value!r}.")
    return value


def as_float_vector(value: object, name: str, *, unit: bool = False) -> FloatArray:
    """Return ``value`` as a one-dimensional float64 array, finite (in [0, 1] when ``unit``),
    or raise ``ValueError``."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be a one-dimensional array of numbers.") from None
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional; got an array of shape {arr.shape}.")
    if unit:
        return each(arr, (arr >= 0.0) & (arr <= 1.0), name, "lie in [0, 1]")  # NaN fails too
    return each(arr, np.isfinite(arr), name, "be finite")


def each(arr: FloatArray, ok: npt.NDArray[np.bool_], name: str, must: str) -> FloatArray:
    """``arr`` when ``ok`` holds at every index, else ``ValueError`` saying what the first
    value that fails ``must`` do (``"be finite"``) and where it is."""
    bad = np.flatnonzero(~ok)
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"`{name}` must {must}; got {float(arr[i])!r} at index {i}.")
    return arr


def as_pair(
    baseline: object, candidate: object, *, empty: bool = False
) -> tuple[FloatArray, FloatArray]:
    """``baseline`` and ``candidate`` as float vectors of one value per paired item, at least
    one unless ``empty``."""
    base = as_float_vector(baseline, "baseline")
    cand = as_float_vector(candidate, "candidate")
    if base.size == 0 and not empty:
        raise ValueError("`baseline` must contain at least one item; got an empty array.")
    if base.shape != cand.shape:
        raise ValueError(
            "`baseline` and `candidate` must have the same length (one value per paired item); "
            f"got {base.size} and {cand.size}."
        )
    return base, cand


def as_part(part: object, whole: object, names: tuple[str, str]) -> tuple[int, int]:
    """``part`` and ``whole`` (named ``names``) as counts with ``part <= whole`` and
    ``whole >= 1``."""
    n = as_count(whole, names[1], minimum=1)
    k = as_count(part, names[0])
    if k > n:
        raise ValueError(f"`{names[0]}` must be at most `{names[1]}` ({n}); got {k}.")
    return k, n


def as_table_counts(fixed: object, broken: object, items: object) -> tuple[int, int, int]:
    """``fixed``, ``broken`` and ``items`` as counts of one paired table: ``items >= 1`` and
    ``fixed + broken <= items``."""
    b = as_count(fixed, "fixed")
    c = as_count(broken, "broken")
    n = as_count(items, "items", minimum=1)
    if b + c > n:
        raise ValueError(
            f"`fixed` + `broken` must be at most `items` ({n}); got {b} + {c} = {b + c}."
        )
    return b, c, n
