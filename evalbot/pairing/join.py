"""The join: which item of the candidate is which item of the baseline (by id, never by row
order), and which items one side lacks.

Speed: at a million items the join must not cost a Python dict per side. Ids are joined on
their (process-salted, cached) ``hash()`` with numpy ``argsort``/``searchsorted``, then every
matched pair of strings is compared for equality in one C-level pass; any hash collision falls
back to an exact dict join. Two runs listing the same ids in the same order need no join at all.
Compact ids that differ only in their last 8 bytes (``q-0000001``: a shared prefix, then a
number) are joined on those bytes read as one integer, which is exact: no hashing, no check of
the matches as strings, and no sort of a baseline already listed by id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evalbot.formats.idarray import IdArray, exact_keys
from evalbot.formats.model import BoolArray, IntArray
from evalbot.pairing.idseq import hash_ids, objects, take
from evalbot.pairing.per_item import PerItem


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
    # Fast path, proven: both runs list the same ids in the same order (one C-level list
    # comparison), so every item pairs with the row of the same index and no join is needed.
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
    in_base = locate(
        base.ids,
        cand.ids,
        key_hashes=base.id_hashes,
        query_hashes=cand.id_hashes,
        key_order=base.id_order,
        query_order=cand.id_order,
    )
    cand_found = in_base >= 0
    hit = np.zeros(n_base, dtype=np.bool_)
    hit[in_base[cand_found]] = True
    common = bool(hit.any())  # nothing in common: the caller says why, no list to build
    return Join(
        in_base=in_base,
        cand_found=cand_found,
        hit=hit,
        same_order=False,
        base_only=sorted(take(base.ids, np.flatnonzero(~hit))) if common else [],
        cand_only=sorted(take(cand.ids, np.flatnonzero(~cand_found))) if common else [],
    )


def locate(
    keys: Sequence[str],
    queries: Sequence[str],
    *,
    key_hashes: IntArray | None = None,
    query_hashes: IntArray | None = None,
    key_order: IntArray | None = None,
    query_order: IntArray | None = None,
) -> IntArray:
    """For each query, its index in ``keys`` (unique strings), or -1 when absent.

    Both hash arrays are sorted and matched with one ``searchsorted`` of sorted values into
    sorted values (memory-friendly, unlike a lookup of each query in random order). An
    ``*_order`` given with its hashes is their ``argsort``, already computed by the reader.
    """
    if len(keys) == 0:
        return np.full(len(queries), -1, dtype=np.int64)
    if isinstance(keys, IdArray) and isinstance(queries, IdArray):
        found = _locate_exact_keys(keys, queries)
        if found is not None:
            return found
    # Temporaries are dropped as soon as they are used: at millions of ids each is 8 bytes a row.
    hashed_keys = hash_ids(keys, key_hashes)
    if key_order is None or hashed_keys is not key_hashes:
        key_order = np.argsort(hashed_keys)
    sorted_keys = hashed_keys[key_order]
    del hashed_keys
    if not (sorted_keys[1:] != sorted_keys[:-1]).all():
        return locate_exact(keys, queries)
    hashed_queries = hash_ids(queries, query_hashes)
    if query_order is None or hashed_queries is not query_hashes:
        query_order = np.argsort(hashed_queries)
    sorted_queries = hashed_queries[query_order]
    del hashed_queries
    slots = np.searchsorted(sorted_keys, sorted_queries)
    np.minimum(slots, len(keys) - 1, out=slots)
    found = sorted_keys[slots] == sorted_queries
    del sorted_keys, sorted_queries
    positions = np.full(len(queries), -1, dtype=np.int64)
    positions[query_order[found]] = key_order[slots[found]]
    del query_order, key_order, slots, found
    if not _matches_are_equal(keys, queries, positions):
        return locate_exact(keys, queries)
    return positions


def _locate_exact_keys(keys: IdArray, queries: IdArray) -> IntArray | None:
    """:func:`locate` on ids that are numbers (:func:`~evalbot.formats.idarray.exact_keys`;
    ``None`` when they are not): equal numbers are equal ids, so no match needs checking as
    strings; a key column already in order (a baseline listed by id) needs no sort."""
    exact = exact_keys(keys, queries)
    if exact is None:
        return None
    key_values, query_values = exact
    del exact  # temporaries are dropped as soon as they are used, as in locate
    if (key_values[1:] > key_values[:-1]).all():
        key_order: IntArray | None = None
        sorted_keys = key_values
    else:
        key_order = np.argsort(key_values).astype(np.int64, copy=False)
        sorted_keys = key_values[key_order]
        if not (sorted_keys[1:] != sorted_keys[:-1]).all():
            return locate_exact(keys, queries)  # a repeated key: as the hashes' path does
    del key_values
    query_order = np.argsort(query_values)
    sorted_queries = query_values[query_order]
    del query_values
    slots = np.searchsorted(sorted_keys, sorted_queries)
    np.minimum(slots, len(sorted_keys) - 1, out=slots)
    found = sorted_keys[slots] == sorted_queries
    del sorted_keys, sorted_queries
    positions = np.full(len(queries), -1, dtype=np.int64)
    matched = slots[found]
    positions[query_order[found]] = matched if key_order is None else key_order[matched]
    return positions


def _matches_are_equal(keys: Sequence[str], queries: Sequence[str], positions: IntArray) -> bool:
    """Equal hashes are not proof of equal strings: compare every matched pair once (object
    arrays, or the compact ids' bytes: the gather and the comparisons run in C)."""
    matched = np.flatnonzero(positions >= 0)
    if not matched.size:
        return True
    if isinstance(keys, IdArray) and isinstance(queries, IdArray):
        for start in range(0, matched.size, 1 << 20):
            rows = matched[start : start + (1 << 20)]
            if not (keys.array[positions[rows]] == queries.array[rows]).all():
                return False
        return True
    left = objects(keys)[positions[matched]].tolist()
    right = queries if matched.size == len(queries) else take(queries, matched)
    return bool(left == right)  # list equality: one C loop, identical objects compared first


def locate_exact(keys: Sequence[str], queries: Sequence[str]) -> IntArray:
    """:func:`locate` by an exact dict (when two distinct ids share a hash)."""
    index = dict(zip(keys, range(len(keys)), strict=True))
    return np.fromiter((index.get(q, -1) for q in queries), dtype=np.int64, count=len(queries))
