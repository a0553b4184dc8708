"""Accumulate parsed rows into a columnar :class:`Results`, checking each value on the way.

Every format parser feeds rows through :class:`ResultsBuilder`, so the checks (finite scores,
binary outcomes, duplicate ids, one metric kind per file) and their messages are the same for
every harness. ``where`` in each call is the "file:line" or "file: item N" that a message names.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from itertools import islice
from typing import Any

import numpy as np

from evalbot.errors import InputError
from evalbot.formats.model import IntArray, MetricKind, Results
from evalbot.limits import MAX_NUMBER_DIGITS

_TRUE_STRINGS = frozenset({"true", "1", "pass", "passed", "yes"})
_FALSE_STRINGS = frozenset({"false", "0", "fail", "failed", "no"})


def show(value: object, limit: int = 40) -> str:
    """A short, single-line rendering of a bad value for an error message."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"a number of {len(str(abs(value)))} digits"
    text = repr(value)
    text = text.replace("\n", "\\n").replace("\r", "\\r")
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int) and value in (0, 1):
        return float(value)
    if isinstance(value, float) and value in (0.0, 1.0):
        return value
    if strings and isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in _TRUE_STRINGS:
            return 1.0
        if lowered in _FALSE_STRINGS:
            return 0.0
    raise InputError(f"{where}: `{field}` must be true/false or 0/1, got {show(value)}")


def parse_score(value: object, where: str, field: str = "score", *, strings: bool) -> float:
    """A finite numeric score."""
    number: float
    if isinstance(value, bool):
        raise InputError(f"{where}: `{field}` must be a number, got {show(value)}")
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an integer beyond the float range
            number = math.inf
    elif strings and isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise InputError(f"{where}: `{field}` must be a number, got {show(value)}") from None
    else:
        raise InputError(f"{where}: `{field}` must be a number, got {show(value)}")
    if not math.isfinite(number):
        raise InputError(f"{where}: `{field}` must be finite, got {show(value)}")
    return number


def parse_epoch(value: object, where: str, field: str = "epoch", *, strings: bool) -> int:
    """A repeat index: a non-negative integer."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if strings and isinstance(value, str):
        text = value.strip()
        if text.isdecimal() and len(text) <= MAX_NUMBER_DIGITS:
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
    """Collects rows; :meth:`build` checks duplicates and returns the columnar ``Results``."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.ids: list[str] = []
        self.scores: list[float] = []
        self.epochs: list[int | None] = []
        self.slices: list[str | None] = []
        self.clusters: list[str | None] = []
        self.costs: list[float | None] = []
        self.errors: list[bool] = []
        self.locations: list[str] = []
        self.hashes: list[str | None] = []
        self.metrics: dict[str, list[float]] = {}
        self.kind: MetricKind | None = None
        self._kind_where = ""

    def add(
        self,
        *,
        where: str,
        item_id: str,
        score: float,
        kind: MetricKind,
        epoch: int | None = None,
        slice: str | None = None,
        cluster: str | None = None,
        cost: float | None = None,
        error: bool = False,
        content_hash: str | None = None,
        metrics: dict[str, float] | None = None,
    ) -> None:
        if self.kind is None:
            self.kind, self._kind_where = kind, where
        elif kind != self.kind:
            raise InputError(
                f"{where}: item {show(item_id)} has a {kind} metric but {self._kind_where} "
                f"has a {self.kind} one; one file must use one kind"
            )
        self.ids.append(item_id)
        self.scores.append(0.0 if error else score)
        self.epochs.append(epoch)
        self.slices.append(slice)
        self.clusters.append(cluster)
        self.costs.append(cost)
        self.errors.append(error)
        self.locations.append(where)
        self.hashes.append(content_hash)
        if metrics:
            for name, value in metrics.items():
                column = self.metrics.setdefault(name, [math.nan] * (len(self.ids) - 1))
                column.append(value)
        for column in self.metrics.values():
            if len(column) < len(self.ids):
                column.append(math.nan)

    def build(self) -> Results:
        if not self.ids or self.kind is None:
            raise InputError(f"{self.source}: no items")
        epochs = None
        if any(e is not None for e in self.epochs):
            missing = (
                next(i for i, e in enumerate(self.epochs) if e is None)
                if None in (self.epochs)
                else None
            )
            if missing is not None:
                raise InputError(
                    f"{self.locations[missing]}: item {show(self.ids[missing])} has no `epoch` "
                    "but other rows have one"
                )
            epochs = np.asarray(self.epochs, dtype=np.int64)
        id_hashes = check_unique(self.ids, epochs, self.locations.__getitem__)
        costs = None
        if any(c is not None for c in self.costs):
            costs = np.asarray([math.nan if c is None else c for c in self.costs], dtype=np.float64)
        return Results(
            source=self.source,
            ids=self.ids,
            scores=np.asarray(self.scores, dtype=np.float64),
            kind=self.kind,
            epochs=epochs,
            slices=self.slices if any(s is not None for s in self.slices) else None,
            clusters=self.clusters if any(c is not None for c in self.clusters) else None,
            costs=costs,
            errors=np.asarray(self.errors, dtype=np.bool_) if any(self.errors) else None,
            metrics={k: np.asarray(v, dtype=np.float64) for k, v in self.metrics.items()},
            locations=self.locations,
            content_hashes=self.hashes if any(h is not None for h in self.hashes) else None,
            id_hashes=id_hashes,
        )


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
    if len(hashed) < 2:
        return hashed
    if epochs is None:
        ordered = np.sort(hashed)
        if (ordered[1:] != ordered[:-1]).all():
            return hashed
    else:
        # one int64 key per (id, epoch): equal keys are the only candidates for a repeat
        epoch_column = np.asarray(epochs, dtype=np.uint64)
        with np.errstate(over="ignore"):
            mixed = hashed.view(np.uint64) ^ (epoch_column * np.uint64(0x9E3779B97F4A7C15))
        ordered = np.sort(mixed)
        if (ordered[1:] != ordered[:-1]).all():
            return hashed
    keys: Any = ids if epochs is None else list(zip(ids, epochs.tolist(), strict=True))
    seen: dict[object, int] = {}
    for index, key in enumerate(keys):
        first = seen.setdefault(key, index)
        if first != index:
            what = f"item {show(ids[index])}"
            if epochs is not None:
                what += f" epoch {int(epochs[index])}"
                raise InputError(f"{where(index)}: duplicate {what} (first seen at {where(first)})")
            raise InputError(
                f"{where(index)}: duplicate {what} (first seen at {where(first)}); "
                "repeats need an `epoch` field"
            )
    return hashed  # equal hashes, distinct keys (a collision): still unique


def epochs_in_order(item_ids: list[str]) -> list[int | None]:
    """Each row's epoch for a log that repeats an item once per completion: 1, 2, ... per id in
    row order when some id repeats; ``None`` for every row when none does."""
    seen: dict[str, int] = {}
    numbers: list[int | None] = []
    for item_id in item_ids:
        seen[item_id] = seen.get(item_id, 0) + 1
        numbers.append(seen[item_id])
    if len(seen) == len(item_ids):
        return [None] * len(item_ids)
    return numbers
