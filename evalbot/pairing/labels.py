"""Per-item labels of the paired items (slice, cluster, content hash): the candidate's label of
each item, else the baseline's; and the content-hash check, which refuses two runs that saw
different documents under one id.
"""

from __future__ import annotations

import numpy as np

from evalbot.errors import PairingError
from evalbot.formats.builder import show
from evalbot.formats.model import Results
from evalbot.pairing.alignment import Alignment
from evalbot.pairing.per_item import objects


def merged(
    aligned: Alignment,
    base_column: list[str | None] | None,
    cand_column: list[str | None] | None,
) -> list[str | None] | None:
    """The candidate's label of each paired item, else the baseline's (vectorised)."""
    if base_column is None and cand_column is None:
        return None
    if aligned.identity and (base_column is None or cand_column is None):
        return list(cand_column if cand_column is not None else base_column or [])
    if aligned.identity and cand_column is not None and None not in cand_column:
        return list(cand_column)  # the candidate labels every item: nothing to fill
    out = np.full(len(aligned.ids), None, dtype=object)
    pos_base, pos_cand = aligned.pos_base, aligned.pos_cand
    if cand_column is not None:
        present = pos_cand >= 0
        out[present] = objects(cand_column)[pos_cand[present]]
    if base_column is not None:
        fill = np.equal(out, None) & (pos_base >= 0)  # type: ignore[call-overload]
        if fill.any():
            out[fill] = objects(base_column)[pos_base[fill]]
    taken: list[str | None] = out.tolist()
    return taken


def check_same_content(
    aligned: Alignment,
    base_hashes: list[str | None],
    cand_hashes: list[str | None],
    baseline: Results,
    candidate: Results,
) -> None:
    """Refuse an item whose content hash differs between the two runs."""
    rows = zip(aligned.ids, aligned.pos_base.tolist(), aligned.pos_cand.tolist(), strict=True)
    for item_id, b, c in rows:
        if b < 0 or c < 0:
            continue
        left, right = base_hashes[b], cand_hashes[c]
        if left is not None and right is not None and left != right:
            raise PairingError(
                f"{candidate.source}: item {show(item_id)} has content hash {right[:12]} but "
                f"{left[:12]} in the baseline {baseline.source}; the two runs did not see "
                "the same document"
            )
