"""Ids of either kind (a ``list[str]`` or compact :class:`IdArray`) handled at C speed: gather,
hash, sort, concatenate. Pairing's modules share these; the two sides of a join are always of
one kind (:func:`evalbot.pairing.per_item.as_strings` makes them so).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from itertools import islice

import numpy as np
import numpy.typing as npt

from evalbot.formats.idarray import IdArray, concat
from evalbot.formats.model import IntArray


def take(values: Sequence[str], positions: IntArray) -> Sequence[str]:
    """``[values[i] for i in positions]`` at C speed (an :class:`IdArray` stays one)."""
    if isinstance(values, IdArray):
        return values[np.asarray(positions, dtype=np.int64)]
    if len(positions) == 0:
        return []
    taken: list[str] = np.array(values, dtype=object)[positions].tolist()
    return taken


def objects(values: Sequence[str | None]) -> npt.NDArray[np.object_]:
    """A one-dimensional object array of ``values`` (never a nested array)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def hash_ids(ids: Sequence[str], cached: IntArray | None) -> IntArray:
    """Each id's hash: ``hash()`` of a string, :meth:`IdArray.hashes` of compact ids (the two
    sides of a join are always of one kind); ``cached`` when the reader already has them."""
    if cached is not None and len(cached) == len(ids):
        return cached
    if isinstance(ids, IdArray):
        return ids.hashes()
    return np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids))


def is_sorted(ids: Sequence[str]) -> bool:
    if isinstance(ids, IdArray):
        return ids.is_sorted()
    return all(map(operator.le, ids, islice(ids, 1, None)))


def sort_order(ids: Sequence[str]) -> IntArray | None:
    """The permutation that sorts ``ids``, or ``None`` when they already are sorted."""
    if is_sorted(ids):
        return None
    if isinstance(ids, IdArray):
        return ids.argsort()
    # Code-point order of numpy's fixed-width unicode equals Python's str order.
    return np.argsort(np.array(ids, dtype=np.str_), kind="stable").astype(np.int64)


def joined(first: Sequence[str], second: Sequence[str]) -> Sequence[str]:
    """``first`` then ``second``, one :class:`IdArray` when both are."""
    if isinstance(first, IdArray) and isinstance(second, IdArray):
        return concat([first, second])
    return [*first, *second]
