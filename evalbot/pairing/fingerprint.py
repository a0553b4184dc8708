"""The identity of an item set: sha256 of the sorted ids (with their content hashes when the
harness wrote them). The plan pins it, the report shows it, and a look records it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Final

#: Lines hashed at a time.
_LINES: Final = 1 << 16


def fingerprint(
    ids: Sequence[str], hashes: Sequence[str | None] | None = None, *, ids_sorted: bool = False
) -> str:
    """sha256 of the sorted ids, one per line: the identity of an item set.

    With harness content hashes, each line is ``id<TAB>hash`` (an empty hash where an item has
    none), so two runs over different documents under the same ids differ. ``ids_sorted``
    says the caller has sorted ``ids`` (the sort is skipped).
    """
    lines: Sequence[str]
    if hashes is None or list(hashes).count(None) == len(hashes):
        lines = ids if ids_sorted else sorted(ids)
    else:
        lines = sorted(f"{item_id}\t{h or ''}" for item_id, h in zip(ids, hashes, strict=True))
    digest = hashlib.sha256()
    for start in range(0, len(lines), _LINES):  # a few lines at a time: no copy of the whole text
        text = "\n".join(lines[start : start + _LINES]) + "\n"
        digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()
