"""The paired order: which row of each side is paired item i, and each side's columns gathered
into that order (one numpy gather each, none at all when item i is row i of both sides).

Paired items are sorted by id: free when they already are (one pass checks it), one argsort
otherwise.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import islice

import numpy as np

from evalbot.formats.model import FloatArray, IntArray
from evalbot.pairing.per_item import objects


@dataclass(frozen=True, kw_only=True, eq=False)
class Alignment:
    """Paired item i is ``ids[i]``, row ``pos_base[i]`` of the baseline and ``pos_cand[i]`` of
    the candidate (-1: that side lacks it). ``identity``: item i is row i of both sides
    (nothing to gather)."""

    ids: Sequence[str]
    pos_base: IntArray
    pos_cand: IntArray
    identity: bool

    def baseline(self, column: FloatArray) -> FloatArray:
        """The baseline's ``column`` in the paired order (0 where the baseline lacks an item)."""
        return _gather(column, self.pos_base, self.identity)

    def candidate(self, column: FloatArray) -> FloatArray:
        """The candidate's ``column`` in the paired order (0 where it lacks an item)."""
        return _gather(column, self.pos_cand, self.identity)


def by_id(aligned: Alignment) -> Alignment:
    """``aligned`` sorted by id."""
    ids = aligned.ids
    if all(map(operator.le, ids, islice(ids, 1, None))):
        return replace(aligned, pos_base=aligned.pos_base.astype(np.int64, copy=False))
    order = np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)
    return Alignment(
        ids=objects(ids)[order].tolist(),
        pos_base=aligned.pos_base[order].astype(np.int64, copy=False),
        pos_cand=aligned.pos_cand[order],
        identity=False,
    )


def _gather(column: FloatArray, positions: IntArray, identity: bool) -> FloatArray:
    if identity:
        return np.ascontiguousarray(column, dtype=np.float64)
    if positions.size == column.size and (positions >= 0).all():
        return np.ascontiguousarray(column[positions], dtype=np.float64)
    out = np.zeros(len(positions), dtype=np.float64)
    present = positions >= 0
    out[present] = column[positions[present]]
    return out
