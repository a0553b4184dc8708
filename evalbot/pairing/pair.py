"""Pair a baseline with a candidate item by item, never by row order.

Each side is reduced to one value per item (repeats averaged), the two are joined by id, items
on one side only are handled by the ``missing`` rule (``error`` refuses, ``fail`` counts them
as failures of the side that lacks them, ``drop`` keeps the items both have), and the paired
items are sorted by id with each side's columns gathered into that order. Labels are the
candidate's, else the baseline's; an id whose content hash differs between the sides is refused.
"""

from __future__ import annotations

import heapq
import itertools
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from evalbot.errors import PairingError
from evalbot.formats.builder import show
from evalbot.formats.model import BoolArray, FloatArray, IntArray, Paired, Results
from evalbot.pairing.fingerprint import fingerprint
from evalbot.vocabulary import MISSING_RULES, Missing

Labels = list[str | None] | None
#: Queries sorted by hash and looked up at a time, then their matches compared as strings (no
#: order or list of them all).
_BLOCK = 1 << 19


@dataclass(frozen=True, kw_only=True, eq=False)
class Alignment:
    """Paired item i is ``ids[i]``, row ``pos_base[i]`` of the baseline and ``pos_cand[i]`` of
    the candidate (-1: that side lacks it)."""

    ids: Sequence[str]
    pos_base: IntArray
    pos_cand: IntArray

    def labels(self, base: Labels, cand: Labels) -> Labels:
        """The candidate's label of each paired item, else the baseline's."""
        if base is None and cand is None:
            return None
        out = np.full(len(self.ids), None, dtype=object)
        for labels, positions in ((base, self.pos_base), (cand, self.pos_cand)):
            if labels is not None:
                rows = np.flatnonzero(positions >= 0)
                taken = objects(labels)[positions[rows]]
                given = ~np.equal(taken, None)  # type: ignore[call-overload]
                out[rows[given]] = taken[given]
        found: list[str | None] = out.tolist()
        return found


def objects(values: Sequence[str | None]) -> npt.NDArray[np.object_]:
    """A one-dimensional object array of ``values``, to gather by a mask or positions in C."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def pair(baseline: Results, candidate: Results, *, missing: Missing = "error") -> Paired:
    """Match the two runs by item id."""
    if missing not in MISSING_RULES:
        raise ValueError(f"`missing` must be one of {MISSING_RULES}, got {missing!r}")
    (base, base_epochs), (cand, cand_epochs) = reduce_per_item(baseline), reduce_per_item(candidate)
    in_base = _join(base, cand)
    cand_found = in_base >= 0
    in_cand = np.full(len(base.ids), -1, dtype=np.int64)  # the candidate row of each baseline item
    in_cand[in_base[cand_found]] = np.flatnonzero(cand_found)
    hit = in_cand >= 0
    if not hit.any():
        raise PairingError(nothing_in_common(baseline, candidate))
    base_only, cand_only = _lacking(base.ids, hit), _lacking(cand.ids, cand_found)
    if missing == "error" and (base_only or cand_only):
        raise PairingError(_one_sided(base_only, cand_only, baseline.source, candidate.source))
    aligned = _by_id(_kept(base, cand, in_cand, cand_found, missing))
    if baseline.kind != candidate.kind:
        raise PairingError(
            f"{candidate.source}: compares a {candidate.kind} metric but the baseline "
            f"{baseline.source} has a {baseline.kind} one"
        )
    hashes = _content_hashes(aligned, base, cand)
    baseline_errors = None if base.errors is None else _gather(aligned.pos_base, base.errors) > 0
    candidate_errors = None if cand.errors is None else _gather(aligned.pos_cand, cand.errors) > 0
    return Paired(
        ids=aligned.ids,
        baseline=_gather(aligned.pos_base, base.scores),
        candidate=_gather(aligned.pos_cand, cand.scores),
        kind="binary" if baseline.kind == "binary" and base_epochs == cand_epochs == 1 else "score",
        pass_fail=baseline.kind == "binary",
        baseline_source=baseline.source,
        candidate_source=candidate.source,
        epochs_baseline=base_epochs,
        epochs_candidate=cand_epochs,
        slices=aligned.labels(base.slices, cand.slices),
        clusters=aligned.labels(base.clusters, cand.clusters),
        baseline_costs=None if base.costs is None else _gather(aligned.pos_base, base.costs),
        candidate_costs=None if cand.costs is None else _gather(aligned.pos_cand, cand.costs),
        baseline_errors=baseline_errors,
        candidate_errors=candidate_errors,
        errors_baseline=0 if baseline_errors is None else int(np.count_nonzero(baseline_errors)),
        errors_candidate=0 if candidate_errors is None else int(np.count_nonzero(candidate_errors)),
        dropped_baseline_only=base_only if missing == "drop" else [],
        dropped_candidate_only=cand_only if missing == "drop" else [],
        filled_as_failures=len(base_only) + len(cand_only) if missing == "fail" else 0,
        fingerprint=fingerprint(aligned.ids, hashes, ids_sorted=True),
        content_hashes=hashes,
        baseline_metrics={name: _gather(aligned.pos_base, c) for name, c in base.metrics.items()},
        candidate_metrics={name: _gather(aligned.pos_cand, c) for name, c in cand.metrics.items()},
    )


# --- one value per item ---------------------------------------------------------------------


def reduce_per_item(results: Results) -> tuple[Results, int]:
    """One row per distinct id in first-seen order, repeats averaged (an item's error: any of
    its rows errored), and the most rows an item has."""
    if results.epochs is None:  # parsers and merge refuse a repeated id without epochs
        return results, 1
    rows, first = group_rows(list(results.ids))
    n = len(first)
    counts = np.bincount(rows, minlength=n)

    def pick(column: Labels) -> Labels:
        return None if column is None else list(objects(column)[first].tolist())

    errors = results.errors
    reduced = Results(
        source=results.source,
        ids=objects(results.ids)[first].tolist(),
        scores=np.bincount(rows, weights=results.scores, minlength=n) / counts,
        kind=results.kind,
        slices=pick(results.slices),
        clusters=pick(results.clusters),
        costs=None if results.costs is None else _mean_per_item(rows, results.costs, n),
        errors=None if errors is None else np.bincount(rows, errors, n) > 0,
        content_hashes=pick(results.content_hashes),
        metrics={name: _mean_per_item(rows, column, n) for name, column in results.metrics.items()},
    )
    return reduced, int(counts.max())


def group_rows(ids: list[str]) -> tuple[IntArray, IntArray]:
    """Each row's item number (items numbered in first-seen order) and each item's first row: a
    dict gives each row the first row of its id (in C), numpy numbers those."""
    index: dict[str, int] = {}
    first_rows = np.fromiter(map(index.setdefault, ids, itertools.count()), np.int64, len(ids))
    first, rows = np.unique(first_rows, return_inverse=True)
    return rows.reshape(-1), first


def _mean_per_item(rows: IntArray, column: FloatArray, n: int) -> FloatArray:
    """Per-item mean of a column over the rows that have a value (NaN where none has)."""
    present = ~np.isnan(column)
    sums = np.bincount(rows, weights=np.where(present, column, 0.0), minlength=n)
    counts = np.bincount(rows, weights=present.astype(np.float64), minlength=n)
    out = np.full(n, np.nan)
    np.divide(sums, counts, out=out, where=counts > 0)
    return out


# --- the join ---------------------------------------------------------------------------------


def _join(base: Results, cand: Results) -> IntArray:
    """The baseline index of each candidate item (-1: absent); no join when both list the same
    ids in the same order."""
    if len(base.ids) == len(cand.ids) and base.ids == cand.ids:
        return np.arange(len(base.ids), dtype=np.int64)
    return locate(base.ids, cand.ids, key_hashes=base.id_hashes, query_hashes=cand.id_hashes)


def _lacking(ids: Sequence[str], found: BoolArray) -> list[str]:
    """The ids not ``found``, sorted."""
    return [] if found.all() else sorted(objects(ids)[~found].tolist())


def _hashes(ids: Sequence[str], cached: IntArray | None) -> IntArray:
    if cached is not None and len(cached) == len(ids):
        return cached
    return np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids))


def locate(
    keys: Sequence[str],
    queries: Sequence[str],
    *,
    key_hashes: IntArray | None = None,
    query_hashes: IntArray | None = None,
) -> IntArray:
    """For each query, its index in ``keys`` (unique strings), or -1 when absent: joined on the
    ids' ``hash()`` with numpy (the queries looked up a block at a time, each block sorted by
    hash), every matched pair of strings then compared (a dict joins them should two distinct
    ids share a hash). When every query is found and ``queries`` is a list, it then holds the
    keys' equal strings: one copy of each id in memory."""
    if len(keys) == 0:
        return np.full(len(queries), -1, dtype=np.int64)
    hashed_keys = _hashes(keys, key_hashes)
    # the keys sorted by hash, 4 bytes a row: at millions of ids the join's temporaries are most
    # of the memory
    key_order = np.argsort(hashed_keys).astype(np.int32 if len(keys) < 2**31 else np.int64)
    sorted_keys = hashed_keys[key_order]
    del hashed_keys
    if not (sorted_keys[1:] != sorted_keys[:-1]).all():
        return locate_exact(keys, queries)
    hashed_queries = _hashes(queries, query_hashes)
    positions = np.full(len(queries), -1, dtype=key_order.dtype)
    for start in range(0, len(queries), _BLOCK):
        block = hashed_queries[start : start + _BLOCK]
        rows = np.argsort(block)
        wanted = block[rows]
        slots = np.minimum(np.searchsorted(sorted_keys, wanted), len(keys) - 1)
        found = sorted_keys[slots] == wanted
        positions[start + rows[found]] = key_order[slots[found]]
    del key_order, sorted_keys, hashed_queries
    if not _same_strings(keys, queries, positions):
        return locate_exact(keys, queries)
    return positions.astype(np.int64)


def _same_strings(
    keys: Sequence[str], queries: Sequence[str], positions: npt.NDArray[np.signedinteger[Any]]
) -> bool:
    """Whether each query found is the key it was matched to, a block at a time; when every
    query is found, a list of queries takes the keys' (equal) strings."""
    every, table = bool((positions >= 0).all()), objects(keys)
    for start in range(0, len(positions), _BLOCK):
        block, part = positions[start : start + _BLOCK], list(queries[start : start + _BLOCK])
        if not every:
            found = block >= 0
            block, part = block[found], objects(part)[found].tolist()
        left = table[block].tolist()
        if left != part:
            return False
        if every and isinstance(queries, list):
            queries[start : start + _BLOCK] = left
    return True


def locate_exact(keys: Sequence[str], queries: Sequence[str]) -> IntArray:
    """:func:`locate` by an exact dict (when two distinct ids share a hash)."""
    index = dict(zip(keys, range(len(keys)), strict=True))
    return np.fromiter((index.get(q, -1) for q in queries), dtype=np.int64, count=len(queries))


# --- the items kept, in the paired order ----------------------------------------------------


def _kept(
    base: Results, cand: Results, in_cand: IntArray, cand_found: BoolArray, missing: Missing
) -> Alignment:
    """The paired items the rule keeps, in the baseline's order (``fail``: the candidate's
    extra items after them), each with its row on either side (-1: that side lacks it);
    ``in_cand``: the candidate row of each baseline item."""
    n_base = len(base.ids)
    if missing == "fail":
        extra = np.flatnonzero(~cand_found)
        return Alignment(
            ids=[*base.ids, *objects(cand.ids)[extra].tolist()],
            pos_base=np.concatenate([np.arange(n_base), np.full(extra.size, -1)]),
            pos_cand=np.concatenate([in_cand, extra]).astype(np.int64),
        )
    common = np.flatnonzero(in_cand >= 0)
    return Alignment(
        ids=base.ids if common.size == n_base else objects(base.ids)[common].tolist(),
        pos_base=common,
        pos_cand=in_cand[common],
    )


def _by_id(aligned: Alignment) -> Alignment:
    """``aligned`` sorted by id (free when it already is)."""
    ids = aligned.ids
    if all(map(operator.le, ids, itertools.islice(ids, 1, None))):
        return aligned
    order = np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)
    return Alignment(
        ids=objects(ids)[order].tolist(),
        pos_base=aligned.pos_base[order],
        pos_cand=aligned.pos_cand[order],
    )


def _gather(positions: IntArray, column: npt.NDArray[Any]) -> FloatArray:
    """``column`` at ``positions`` (an :class:`Alignment`'s side; 0 where that side lacks an
    item)."""
    out = np.zeros(len(positions), dtype=np.float64)
    present = positions >= 0
    out[present] = column[positions[present]]
    return out


def _content_hashes(aligned: Alignment, base: Results, cand: Results) -> Labels:
    """Each paired item's content hash, the candidate's else the baseline's; an item whose hash
    differs between the two runs is refused."""
    left = aligned.labels(base.content_hashes, None)
    right = aligned.labels(None, cand.content_hashes)
    if left is None or right is None:
        return right if left is None else left
    for item_id, b, c in zip(aligned.ids, left, right, strict=True):
        if b is not None and c is not None and b != c:
            raise PairingError(
                f"{cand.source}: item {show(item_id)} has content hash {c[:12]} but "
                f"{b[:12]} in the baseline {base.source}; the two runs did not see "
                "the same document"
            )
    return [b if c is None else c for b, c in zip(left, right, strict=True)]


# --- the messages ---------------------------------------------------------------------------


def _one_sided(base_only: list[str], cand_only: list[str], baseline: str, candidate: str) -> str:
    """Under ``error``: items on one side only, a few of them named (``baseline`` and
    ``candidate``: the runs' sources)."""
    parts = []
    if base_only:
        parts.append(f"{len(base_only)} only in the baseline ({preview(base_only)})")
    if cand_only:
        parts.append(f"{len(cand_only)} only in the candidate ({preview(cand_only)})")
    return (
        f"{candidate}: items differ from {baseline}: "
        + "; ".join(parts)
        + " (to allow this, add --missing drop or --missing fail, config `policy.missing`)"
    )


def preview(ids: Sequence[str], limit: int = 3) -> str:
    """The first ``limit`` ids, quoted for a message, and ``...`` when there are more."""
    shown = ", ".join(show(ids[i]) for i in range(min(limit, len(ids))))
    return shown + (", ..." if len(ids) > limit else "")


def _suffixes(ids: Iterable[str]) -> set[str]:
    return {i.split("/", 1)[1] for i in ids if "/" in i}


def _prefixes(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(i.split("/", 1)[0] for i in ids if "/" in i))[:3]


def nothing_in_common(baseline: Results, candidate: Results) -> str:
    """Why no item pairs, and what to do: what the ids look like on each side and the likeliest
    cause (a prefix before ``/`` on one side, another task, case or spaces, other ids)."""
    base_set, cand_set = set(baseline.ids), set(candidate.ids)
    look = (
        f"{candidate.source}: no item id in common with the baseline {baseline.source}: "
        f"baseline ids look like {preview(heapq.nsmallest(3, base_set))}, candidate ids like "
        f"{preview(heapq.nsmallest(3, cand_set))}"
    )
    if base_set & _suffixes(cand_set) or cand_set & _suffixes(base_set):
        prefixed = "candidate's" if base_set & _suffixes(cand_set) else "baseline's"
        other = "baseline's" if prefixed == "candidate's" else "candidate's"
        why = (
            f"the {prefixed} ids carry a prefix before `/` that the {other} lack (lm-eval adds "
            "its task to each doc id when a run is read from several files); give both runs "
            "alike: one file each, or a directory of the same tasks each"
        )
    elif _suffixes(base_set) & _suffixes(cand_set):
        why = (
            f"the ids differ only before `/` ({', '.join(_prefixes(baseline.ids))} against "
            f"{', '.join(_prefixes(candidate.ids))}): are these runs of the same task?"
        )
    elif {i.strip().lower() for i in base_set} & {i.strip().lower() for i in cand_set}:
        why = "the ids differ only in case or surrounding spaces: write them alike in both runs"
    else:
        why = (
            "are both runs of the same eval? Pairing is by item id, never by row order: name "
            "the field that holds the id with --id-field NAME (config `fields: {id: NAME}`), "
            "or force the format with --format-in NAME"
        )
    return f"{look}; {why}"
