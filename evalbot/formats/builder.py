"""Parsed rows -> a columnar :class:`Results`: the checks of each value (ids, outcomes, finite
scores, epochs, labels, error flags) and of repeated ids, with the same messages for every
harness; ``where`` is the "file:line" or "file: item N" that a message names.
"""

from __future__ import annotations

import contextlib
import math
import operator
from collections import Counter
from collections.abc import Callable, Mapping
from itertools import islice
from typing import Any

import numpy as np

from evalbot.errors import InputError
from evalbot.formats.model import FloatArray, IntArray, Results
from evalbot.limits import MAX_NUMBER_DIGITS

_TRUE_STRINGS = frozenset({"true", "1", "pass", "passed", "yes"})
_FALSE_STRINGS = frozenset({"false", "0", "fail", "failed", "no"})


def show(value: object, limit: int = 40) -> str:
    """A short, single-line rendering of a bad value for an error message."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"a number of {len(str(abs(value)))} digits"
    text = repr(value).replace("\n", "\\n").replace("\r", "\\r")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def an_object(
    value: object, where: str, expected: str, error: type[InputError] = InputError
) -> Mapping[str, Any]:
    """``value`` when it is an object (a mapping), else ``error`` ("where: expected, got ...")."""
    if not isinstance(value, Mapping):
        raise error(f"{where}: {expected}, got {show(value)}")
    return value


def parse_item_id(value: object, where: str, field: str = "id") -> str:
    """An item id: a non-empty string or an integer (bools and floats are refused)."""
    if isinstance(value, str):
        if not value.strip():
            raise InputError(f"{where}: `{field}` is empty")
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if value is None:
        raise InputError(f"{where}: missing `{field}`")
    raise InputError(f"{where}: `{field}` must be a string or an integer, got {show(value)}")


def parse_passed(value: object, where: str, field: str = "passed", *, strings: bool) -> float:
    """A binary outcome: true/false or 0/1 (and, in text formats, "true"/"false"/"pass"/...)."""
    if isinstance(value, int | float) and value in (0, 1):  # true/false included
        return float(value)
    if strings and isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in _TRUE_STRINGS:
            return 1.0
        if lowered in _FALSE_STRINGS:
            return 0.0
    raise InputError(f"{where}: `{field}` must be true/false or 0/1, got {show(value)}")


def parse_score(value: object, where: str, field: str = "score", *, strings: bool) -> float:
    """A finite numeric score."""
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)  # the JSON readers refuse integers beyond MAX_NUMBER_DIGITS
    elif strings and isinstance(value, str):
        with contextlib.suppress(ValueError):
            number = float(value.strip())
    if number is None:
        raise InputError(f"{where}: `{field}` must be a number, got {show(value)}")
    if not math.isfinite(number):
        raise InputError(f"{where}: `{field}` must be finite, got {show(value)}")
    return number


def parse_epoch(value: object, where: str, field: str = "epoch", *, strings: bool) -> int:
    """A repeat index: a non-negative integer (of 64 bits)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63:
        return value
    if strings and isinstance(value, str):
        text = value.strip()
        if text.isdecimal() and len(text) <= MAX_NUMBER_DIGITS and int(text) < 2**63:
            return int(text)
    raise InputError(f"{where}: `{field}` must be a non-negative integer, got {show(value)}")


def parse_label(value: object, where: str, field: str) -> str | None:
    """A slice or cluster label: a string or integer, or empty / missing for none."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(f"{where}: `{field}` must be a string, got {show(value)}")


#: Text values of an error column that say "no error" (CSV writes false as text).
_NO_ERROR_STRINGS = frozenset({"", "0", "false", "no", "none", "null", "nan", "n/a"})


def parse_error_flag(value: object) -> bool:
    """Whether a harness error field says the row errored.

    Only a truthy, non-empty value is an error (a message, ``true``, ``1``, an error object);
    ``null``, ``false``, ``0``, ``NaN``, an empty string or collection, and the texts "false",
    "0", "no", "none", "null", "nan", "n/a" (any case) say the row did *not* error. Reading
    ``error: 0`` as an error would turn a passing item into a failure of its side.
    """
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, int | float):
        return value == value and value != 0  # NaN (a missing value in pandas) is no error
    if isinstance(value, str):
        return value.strip().lower() not in _NO_ERROR_STRINGS
    if isinstance(value, list | dict | tuple):
        return len(value) > 0
    return True


class ResultsBuilder:
    """Collects the rows of one run, each value checked by its parser; :meth:`build` refuses a
    repeated id and returns the columnar ``Results``, binary when every row's value is a
    pass/fail outcome. ``repeats_in_order``: an id's rows are its epochs 1, 2, ... in row order
    (a log that repeats an item once per completion)."""

    def __init__(self, source: str, *, repeats_in_order: bool = False) -> None:
        self.source = source
        self.repeats_in_order = repeats_in_order
        self.rows: list[tuple[str, str, float, int | None, str | None, float | None, bool]] = []
        self.binary = True
        self.hashes: list[str | None] = []
        self.metrics: list[dict[str, float]] = []

    def add(
        self,
        where: str,
        item_id: str,
        score: float,
        *,
        binary: bool = True,
        epoch: int | None = None,
        slice: str | None = None,
        cost: float | None = None,
        error: bool = False,
        content_hash: str | None = None,
        metrics: dict[str, float] | None = None,
    ) -> None:
        """One row (``epoch`` on every row or on none); a harness error counts 0."""
        self.binary = self.binary and binary
        self.rows.append((where, item_id, 0.0 if error else score, epoch, slice, cost, error))
        self.hashes.append(content_hash)
        self.metrics.append(metrics or {})

    def build(self) -> Results:
        if not self.rows:
            raise InputError(f"{self.source}: no items")
        columns = map(list, zip(*self.rows, strict=True))
        locations, ids, scores, epochs, slices, costs, errors = columns
        if self.repeats_in_order and len(set(ids)) < len(ids):  # an id's n-th row: epoch n
            seen: Counter[str] = Counter()
            for row, item_id in enumerate(ids):
                seen[item_id] += 1
                epochs[row] = seen[item_id]
        epoch_column = None if epochs[0] is None else np.asarray(epochs, dtype=np.int64)
        names = dict.fromkeys(name for row in self.metrics for name in row)
        return Results(
            source=self.source,
            ids=ids,
            scores=np.asarray(scores, dtype=np.float64),
            kind="binary" if self.binary else "score",
            epochs=epoch_column,
            slices=slices if any(s is not None for s in slices) else None,
            costs=_floats(costs) if any(c is not None for c in costs) else None,
            errors=np.asarray(errors, dtype=np.bool_) if any(errors) else None,
            metrics={k: _floats([row.get(k) for row in self.metrics]) for k in names},
            where=locations.__getitem__,
            content_hashes=self.hashes if any(h is not None for h in self.hashes) else None,
            id_hashes=check_unique(ids, epoch_column, locations.__getitem__),
        )


def _floats(values: list[Any]) -> FloatArray:
    return np.asarray([math.nan if v is None else v for v in values], dtype=np.float64)


def check_unique(ids: list[str], epochs: Any, where: Callable[[int], str]) -> IntArray | None:
    """Refuse a repeated id (or a repeated (id, epoch) when rows carry epochs).

    Strictly increasing ids (a run written in id order) are distinct: one pass proves it.
    Otherwise one ``hash()`` per id and a numpy sort: distinct hashes (with epochs: distinct
    mixes of hash and epoch) prove distinct keys. Only when two agree is the exact dict scan
    run, which names the first repeated row and where it was first seen. Returns the ids'
    hashes when computed (for :attr:`Results.id_hashes`).
    """
    if epochs is None and all(map(operator.lt, ids, islice(ids, 1, None))):
        return None
    hashed = np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids))
    keys = hashed.view(np.uint64)
    if epochs is not None:  # one key per (id, epoch): equal keys are the only candidates
        with np.errstate(over="ignore"):
            keys = keys ^ (np.asarray(epochs, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    ordered = np.sort(keys)
    if (ordered[1:] != ordered[:-1]).all():
        return hashed
    exact: Any = ids if epochs is None else list(zip(ids, epochs.tolist(), strict=True))
    seen: dict[object, int] = {}
    for index, key in enumerate(exact):
        first = seen.setdefault(key, index)
        if first != index:
            what = f"item {show(ids[index])}"
            what += "" if epochs is None else f" epoch {int(epochs[index])}"
            hint = "; repeats need an `epoch` field" if epochs is None else ""
            raise InputError(
                f"{where(index)}: duplicate {what} (first seen at {where(first)}){hint}"
            )
    return hashed  # equal hashes, distinct keys (a collision): still unique
