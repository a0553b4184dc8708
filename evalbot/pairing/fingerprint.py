"""The identity of an item set: sha256 of the sorted ids (with their content hashes when the
harness wrote them). The plan pins it, the report shows it, and a look records it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence


def fingerprint(
    ids: Sequence[str], hashes: Sequence[str | None] | None = None, *, ids_sorted: bool = False
) -> str:
    """sha256 of the sorted ids, one per line: the identity of an item set.

    With harness content hashes, each line is ``id<TAB>hash`` (an empty hash where an item has
    none), so two runs over different documents under the same ids differ. ``ids_sorted``
    says the caller has sorted ``ids`` (the sort is skipped).
    """
    if hashes is None or list(hashes).count(None) == len(hashes):
        lines = list(ids) if ids_sorted else sorted(ids)
    else:
        lines = sorted(f"{item_id}\t{h or ''}" for item_id, h in zip(ids, hashes, strict=True))
    text = "\n".join(lines) + "\n" if lines else ""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
