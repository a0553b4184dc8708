"""One run reduced to one value per item: repeats (rows sharing an id with different epochs)
are averaged, so k samples of an item count as one item.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from evalbot.formats.model import BoolArray, FloatArray, IntArray, Results


@dataclass(frozen=True, kw_only=True, eq=False)
class PerItem:
    """One side reduced to one value per item (the mean over its epochs), in first-seen order."""

    ids: Sequence[str]
    values: FloatArray
    epochs: int
    slices: list[str | None] | None
    clusters: list[str | None] | None
    costs: FloatArray | None
    errors: FloatArray | None
    hashes: list[str | None] | None
    id_hashes: IntArray | None = None
    metrics: dict[str, FloatArray] = field(default_factory=dict)


def objects(values: Sequence[str | None]) -> npt.NDArray[np.object_]:
    """A one-dimensional object array of ``values``, to gather by a mask or positions in C."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def hash_ids(ids: Sequence[str], cached: IntArray | None) -> IntArray:
    """Each id's ``hash()``; ``cached`` when the reader already has them."""
    if cached is not None and len(cached) == len(ids):
        return cached
    return np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids))


def reduce_per_item(results: Results) -> PerItem:
    """Average repeats: one value per distinct id, in first-seen order."""
    if results.epochs is None:
        # Parsers and merge guarantee unique ids when there are no epochs: nothing to group.
        return PerItem(
            ids=results.ids,
            values=results.scores,
            epochs=1,
            slices=results.slices,
            clusters=results.clusters,
            costs=results.costs,
            errors=None if results.errors is None else results.errors.astype(np.float64),
            hashes=results.content_hashes,
            id_hashes=results.id_hashes,
            metrics=dict(results.metrics),
        )
    rows, item_ids = group_rows(list(results.ids))
    n = len(item_ids)
    counts = np.bincount(rows, minlength=n)
    first = np.full(n, -1, dtype=np.int64)
    first[rows[::-1]] = np.arange(len(rows) - 1, -1, -1)

    def pick(column: list[str | None] | None) -> list[str | None] | None:
        if column is None:
            return None
        picked: list[str | None] = objects(column)[first].tolist()
        return picked

    return PerItem(
        ids=item_ids,
        values=np.bincount(rows, weights=results.scores, minlength=n) / counts,
        epochs=int(counts.max()),
        slices=pick(results.slices),
        clusters=pick(results.clusters),
        costs=None if results.costs is None else _mean_per_item(rows, results.costs, n),
        errors=_errors_per_item(rows, results.errors, n),
        hashes=pick(results.content_hashes),
        metrics={name: _mean_per_item(rows, column, n) for name, column in results.metrics.items()},
    )


def group_rows(ids: list[str]) -> tuple[IntArray, list[str]]:
    """Each row's item number (items numbered in first-seen order) and the items' ids: a dict
    gives each row the first row of its id (in C), numpy numbers those."""
    index: dict[str, int] = {}
    first_rows = np.fromiter(map(index.setdefault, ids, itertools.count()), np.int64, len(ids))
    first, rows = np.unique(first_rows, return_inverse=True)
    return rows.reshape(-1), objects(ids)[first].tolist()


def _mean_per_item(rows: IntArray, column: FloatArray, n: int) -> FloatArray:
    """Per-item mean of a column over the rows that have a value (NaN where none has)."""
    present = ~np.isnan(column)
    sums = np.bincount(rows, weights=np.where(present, column, 0.0), minlength=n)
    counts = np.bincount(rows, weights=present.astype(np.float64), minlength=n)
    out = np.full(n, np.nan)
    np.divide(sums, counts, out=out, where=counts > 0)
    return out


def _errors_per_item(rows: IntArray, errors: BoolArray | None, n: int) -> FloatArray | None:
    """How many of each item's rows errored (``None`` when the run flags no errors)."""
    if errors is None:
        return None
    counted = np.bincount(rows, weights=errors.astype(np.float64), minlength=n)
    return counted.astype(np.float64)
