"""The join: which item of the candidate is which item of the baseline (by id, never by row
order), and which items one side lacks.

Ids are joined on their ``hash()`` (kept from the reader's check for repeats) with numpy's
``argsort`` and ``searchsorted``, then every matched pair of strings is compared in one C-level
pass; should two distinct ids share a hash, a dict joins them. Two runs listing the same ids in
the same order need no join at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evalbot.formats.model import BoolArray, IntArray
from evalbot.pairing.per_item import PerItem, hash_ids, objects


@dataclass(frozen=True, kw_only=True, eq=False)
class Join:
    """How the candidate's items meet the baseline's.

    ``in_base[j]`` is the baseline index of the candidate's j-th item, or -1; ``cand_found``
    marks the candidate's items the baseline has, ``hit`` the baseline's items the candidate
    has. ``same_order``: both list the same ids in the same order (item i is row i of both).
    ``base_only``/``cand_only`` are the ids one side lacks, sorted.
    """

    in_base: IntArray
    cand_found: BoolArray
    hit: BoolArray
    same_order: bool
    base_only: list[str]
    cand_only: list[str]

    @property
    def nothing_in_common(self) -> bool:
        return not self.hit.any()


def join(base: PerItem, cand: PerItem) -> Join:
    """Match the candidate's items to the baseline's by id."""
    n_base = len(base.ids)
    if n_base == len(cand.ids) and base.ids == cand.ids:
        everything = np.ones(n_base, dtype=np.bool_)
        return Join(
            in_base=np.arange(n_base, dtype=np.int64),
            cand_found=everything,
            hit=everything,
            same_order=True,
            base_only=[],
            cand_only=[],
        )
    in_base = locate(base.ids, cand.ids, key_hashes=base.id_hashes, query_hashes=cand.id_hashes)
    cand_found = in_base >= 0
    hit = np.zeros(n_base, dtype=np.bool_)
    hit[in_base[cand_found]] = True
    common = bool(hit.any())  # nothing in common: the caller says why, no list to build
    return Join(
        in_base=in_base,
        cand_found=cand_found,
        hit=hit,
        same_order=False,
        base_only=_lacking(base.ids, hit) if common else [],
        cand_only=_lacking(cand.ids, cand_found) if common else [],
    )


def _lacking(ids: Sequence[str], found: BoolArray) -> list[str]:
    """The ids not ``found``, sorted."""
    return [] if found.all() else sorted(objects(ids)[~found].tolist())


def locate(
    keys: Sequence[str],
    queries: Sequence[str],
    *,
    key_hashes: IntArray | None = None,
    query_hashes: IntArray | None = None,
) -> IntArray:
    """For each query, its index in ``keys`` (unique strings), or -1 when absent."""
    if len(keys) == 0:
        return np.full(len(queries), -1, dtype=np.int64)
    hashed_keys = hash_ids(keys, key_hashes)
    key_order = np.argsort(hashed_keys)
    sorted_keys = hashed_keys[key_order]
    if not (sorted_keys[1:] != sorted_keys[:-1]).all():
        return locate_exact(keys, queries)
    hashed_queries = hash_ids(queries, query_hashes)
    query_order = np.argsort(hashed_queries)  # sorted into sorted: searchsorted reads in order
    sorted_queries = hashed_queries[query_order]
    del hashed_queries  # at millions of ids each temporary is 8 bytes a row
    slots = np.searchsorted(sorted_keys, sorted_queries)
    np.minimum(slots, len(keys) - 1, out=slots)
    found = sorted_keys[slots] == sorted_queries
    del sorted_keys, sorted_queries
    positions = np.full(len(queries), -1, dtype=np.int64)
    positions[query_order[found]] = key_order[slots[found]]
    del query_order, slots, found
    matched = np.flatnonzero(positions >= 0)
    # equal hashes are not proof of equal strings: every matched pair compared once
    left = objects(keys)[positions[matched]].tolist()
    right = list(queries) if matched.size == len(queries) else objects(queries)[matched].tolist()
    return positions if left == right else locate_exact(keys, queries)


def locate_exact(keys: Sequence[str], queries: Sequence[str]) -> IntArray:
    """:func:`locate` by an exact dict (when two distinct ids share a hash)."""
    index = dict(zip(keys, range(len(keys)), strict=True))
    return np.fromiter((index.get(q, -1) for q in queries), dtype=np.int64, count=len(queries))
