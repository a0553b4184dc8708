"""The paired order: which row of each side is paired item i, and each side's columns gathered
into that order (one numpy gather each, none at all when item i is row i of both sides).

Paired items are sorted by id: free when the baseline's ids already are (the reader proved it,
or one pass checks it), one argsort otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from evalbot.formats.model import FloatArray, IntArray
from evalbot.pairing.idseq import sort_order, take


@dataclass(frozen=True, kw_only=True, eq=False)
class Alignment:
    """Paired item i is ``ids[i]``, row ``pos_base[i]`` of the baseline and ``pos_cand[i]`` of
    the candidate (-1: that side lacks it). ``identity``: item i is row i of both sides
    (nothing to gather). ``follows_base``: the ids are the baseline's, in its order (all of
    them or a subsequence), so sorted when the baseline's are."""

    ids: Sequence[str]
    pos_base: IntArray
    pos_cand: IntArray
    identity: bool
    follows_base: bool

    def baseline(self, column: FloatArray) -> FloatArray:
        """The baseline's ``column`` in the paired order (0 where the baseline lacks an item)."""
        return _gather(column, self.pos_base, self.identity)

    def candidate(self, column: FloatArray) -> FloatArray:
        """The candidate's ``column`` in the paired order (0 where it lacks an item)."""
        return _gather(column, self.pos_cand, self.identity)


def by_id(aligned: Alignment, *, base_sorted: bool) -> Alignment:
    """``aligned`` sorted by id; ``base_sorted``: the baseline's ids are proven sorted."""
    order = None if (base_sorted and aligned.follows_base) else sort_order(aligned.ids)
    if order is None:
        return replace(aligned, pos_base=aligned.pos_base.astype(np.int64, copy=False))
    return Alignment(
        ids=take(aligned.ids, order),
        pos_base=aligned.pos_base[order].astype(np.int64, copy=False),
        pos_cand=aligned.pos_cand[order],
        identity=False,
        follows_base=False,
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
