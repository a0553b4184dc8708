"""Pair a baseline with a candidate item by item (never by row order).

Repeats (rows sharing an id with different epochs) are averaged per item first, so k samples of
an item count as one item. Items present on one side only are handled by ``missing``:
``error`` (the default) refuses, ``fail`` counts them as failures of the side that lacks them,
``drop`` analyses the intersection and records what was dropped.

Harness errors stay apart from failures: ``Paired.baseline_errors``/``candidate_errors`` flag
the items, ``errors_baseline``/``errors_candidate`` count them. When a harness writes a content
hash per item (lm-eval's ``doc_hash``), an id whose hash differs between the two sides means the
runs did not see the same document, which is refused; the hashes also enter the fingerprint.

Speed: at a million items the join must not cost a Python dict per side. Ids are joined on
their (process-salted, cached) ``hash()`` with numpy ``argsort``/``searchsorted``, then every
matched pair of strings is compared for equality in one C-level pass; any hash collision falls
back to an exact dict join. The output is sorted by id, which is free when either side already
is (the common case) and one numpy argsort otherwise.
"""

from __future__ import annotations

import hashlib
import heapq
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from itertools import islice
from typing import Any

import numpy as np
import numpy.typing as npt

from evalbot.errors import PairingError
from evalbot.results.builder import show
from evalbot.results.idarray import IdArray, concat, unique_order
from evalbot.results.model import BoolArray, FloatArray, IntArray, Paired, Results
from evalbot.vocabulary import ERRORS_RULES, MISSING_RULES, ErrorsRule, Missing

MISSING_CHOICES = MISSING_RULES


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
    ids_sorted: bool = False
    id_order: IntArray | None = None


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
            ids_sorted=results.ids_sorted,
            id_order=results.id_order,
        )
    item_ids: Sequence[str]
    item_hashes: IntArray | None
    if isinstance(results.ids, IdArray):
        rows, item_ids, item_hashes = _group_packed(results.ids)
    else:
        rows, item_ids, item_hashes = _group_rows(list(results.ids), results.id_hashes)
    n = len(item_ids)
    counts = np.bincount(rows, minlength=n)
    values = np.bincount(rows, weights=results.scores, minlength=n) / counts
    first = np.full(n, -1, dtype=np.int64)
    first[rows[::-1]] = np.arange(len(rows) - 1, -1, -1)

    def pick(column: list[str | None] | None) -> list[str | None] | None:
        if column is None:
            return None
        picked: list[str | None] = _objects(column)[first].tolist()
        return picked

    costs = None
    if results.costs is not None:
        costs = _mean_per_item(rows, results.costs, n)
    errors = None
    if results.errors is not None:
        errors = np.bincount(rows, weights=results.errors.astype(np.float64), minlength=n).astype(
            np.float64
        )
    return PerItem(
        ids=item_ids,
        id_hashes=item_hashes,
        values=values,
        epochs=int(counts.max()),
        slices=pick(results.slices),
        clusters=pick(results.clusters),
        costs=costs,
        errors=errors,
        hashes=pick(results.content_hashes),
        metrics={name: _mean_per_item(rows, column, n) for name, column in results.metrics.items()},
    )


def _group_rows(
    ids: list[str], cached: IntArray | None
) -> tuple[IntArray, Sequence[str], IntArray | None]:
    """Each row's item number (items numbered in first-seen order), the items' ids and hashes.

    With arrays: rows are grouped by the ids' hashes (``np.unique``), and every row's id is
    compared with its group's first id in one C-level pass; should two distinct ids share a
    hash, an exact dict does the grouping instead.
    """
    hashed = _hash_ids(ids, cached)
    # The usual layout, item by item (each id's rows adjacent): runs of equal hashes, each
    # hash starting one run only. Otherwise, a sort groups them.
    starts = np.flatnonzero(np.concatenate(([True], hashed[1:] != hashed[:-1])))
    run_hashes = hashed[starts]
    if np.unique(run_hashes).size == starts.size:
        first = starts
        is_start = np.zeros(len(ids), dtype=np.int64)
        is_start[starts] = 1
        inverse = np.cumsum(is_start) - 1
    else:
        _, first, inverse = np.unique(hashed, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
    # equal hashes are not proof of equal ids: every row's id against its group's first
    if _objects(ids)[first[inverse]].tolist() != ids:
        index: dict[str, int] = {}
        rows = np.fromiter(
            (index.setdefault(item_id, len(index)) for item_id in ids), np.int64, len(ids)
        )
        return rows, list(index), None
    # number the groups by their first row, so items come in first-seen order
    by_first = np.argsort(first, kind="stable")
    number = np.empty(len(first), dtype=np.int64)
    number[by_first] = np.arange(len(first))
    first_rows = first[by_first]
    return number[inverse], _take(ids, first_rows), hashed[first_rows]


def _group_packed(ids: IdArray) -> tuple[IntArray, IdArray, None]:
    """:func:`_group_rows` for compact ids, with exact byte comparisons (no hash to verify):
    runs of equal ids each starting one item (the usual layout) are numbered in order;
    otherwise ``np.unique`` groups them and the groups are numbered by their first row."""
    a = ids.array
    starts = np.concatenate(([0], np.flatnonzero(a[1:] != a[:-1]) + 1))
    runs = ids[starts]
    if unique_order(runs, runs.hashes()) is not None:  # no id starts two runs
        lengths = np.diff(np.append(starts, len(a)))
        return np.repeat(np.arange(starts.size, dtype=np.int64), lengths), runs, None
    _, first, inverse = np.unique(a, return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")
    number = np.empty(len(first), dtype=np.int64)
    number[by_first] = np.arange(len(first))
    return number[inverse.reshape(-1)], ids[first[by_first]], None


def _mean_per_item(rows: IntArray, column: FloatArray, n: int) -> FloatArray:
    """Per-item mean of a column over the rows that have a value (NaN where none has)."""
    present = ~np.isnan(column)
    sums = np.bincount(rows, weights=np.where(present, column, 0.0), minlength=n)
    counts = np.bincount(rows, weights=present.astype(np.float64), minlength=n)
    out = np.full(n, np.nan)
    np.divide(sums, counts, out=out, where=counts > 0)
    return out


def fingerprint(
    ids: Sequence[str], hashes: Sequence[str | None] | None = None, *, ids_sorted: bool = False
) -> str:
    """sha256 of the sorted ids, one per line: the identity of an item set.

    With harness content hashes, each line is ``id<TAB>hash`` (an empty hash where an item has
    none), so two runs over different documents under the same ids differ. ``ids_sorted``
    says the caller has proven ``ids`` sorted (the sort is skipped).
    """
    if hashes is None or list(hashes).count(None) == len(hashes):
        if isinstance(ids, IdArray):
            return ids.join_digest(None if ids_sorted or ids.is_sorted() else ids.argsort())
        lines = list(ids) if ids_sorted else sorted(ids)
    else:
        lines = sorted(f"{item_id}\t{h or ''}" for item_id, h in zip(ids, hashes, strict=True))
    text = "\n".join(lines) + "\n" if lines else ""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _preview(ids: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(show(ids[i]) for i in range(min(limit, len(ids))))
    return shown + (", ..." if len(ids) > limit else "")


def _take(values: Sequence[str], positions: IntArray) -> Sequence[str]:
    """``[values[i] for i in positions]`` at C speed (an :class:`IdArray` stays one)."""
    if isinstance(values, IdArray):
        return values[np.asarray(positions, dtype=np.int64)]
    if len(positions) == 0:
        return []
    taken: list[str] = np.array(values, dtype=object)[positions].tolist()
    return taken


def _objects(values: Sequence[str | None]) -> npt.NDArray[np.object_]:
    """A one-dimensional object array of ``values`` (never a nested array)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _hash_ids(ids: Sequence[str], cached: IntArray | None) -> IntArray:
    """Each id's hash: ``hash()`` of a string, :meth:`IdArray.hashes` of compact ids (the two
    sides of a join are always of one kind)."""
    if cached is not None and len(cached) == len(ids):
        return cached
    if isinstance(ids, IdArray):
        return ids.hashes()
    return np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids))


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
    # Temporaries are dropped as soon as they are used: at millions of ids each is 8 bytes a row.
    hashed_keys = _hash_ids(keys, key_hashes)
    if key_order is None or hashed_keys is not key_hashes:
        key_order = np.argsort(hashed_keys)
    sorted_keys = hashed_keys[key_order]
    del hashed_keys
    if not (sorted_keys[1:] != sorted_keys[:-1]).all():
        return _locate_exact(keys, queries)
    hashed_queries = _hash_ids(queries, query_hashes)
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
    # Equal hashes are not proof of equal strings: compare every matched pair once (object
    # arrays, or the compact ids' bytes: the gather and the comparisons run in C).
    matched = np.flatnonzero(positions >= 0)
    if matched.size and isinstance(keys, IdArray) and isinstance(queries, IdArray):
        for start in range(0, matched.size, 1 << 20):
            rows = matched[start : start + (1 << 20)]
            if not (keys.array[positions[rows]] == queries.array[rows]).all():
                return _locate_exact(keys, queries)
    elif matched.size:
        left = _objects(keys)[positions[matched]].tolist()
        right = queries if matched.size == len(queries) else _take(queries, matched)
        if left != right:  # list equality: one C loop, identical objects compared first
            return _locate_exact(keys, queries)
    return positions


def _locate_exact(keys: Sequence[str], queries: Sequence[str]) -> IntArray:
    index = dict(zip(keys, range(len(keys)), strict=True))
    return np.fromiter((index.get(q, -1) for q in queries), dtype=np.int64, count=len(queries))


def _is_sorted(ids: Sequence[str]) -> bool:
    if isinstance(ids, IdArray):
        return ids.is_sorted()
    return all(map(operator.le, ids, islice(ids, 1, None)))


def _sort_order(ids: Sequence[str]) -> IntArray | None:
    """The permutation that sorts ``ids``, or ``None`` when they already are sorted."""
    if _is_sorted(ids):
        return None
    if isinstance(ids, IdArray):
        return ids.argsort()
    # Code-point order of numpy's fixed-width unicode equals Python's str order.
    return np.argsort(np.array(ids, dtype=np.str_), kind="stable").astype(np.int64)


def pair(baseline: Results, candidate: Results, *, missing: Missing = "error") -> Paired:
    """Match the two runs by item id."""
    if missing not in MISSING_CHOICES:
        raise ValueError(f"`missing` must be one of {MISSING_CHOICES}, got {missing!r}")
    base = reduce_per_item(baseline)
    cand = reduce_per_item(candidate)
    if isinstance(base.ids, IdArray) != isinstance(cand.ids, IdArray):
        # one side compact, the other strings (another format): join them as strings
        base, cand = _as_strings(base), _as_strings(cand)
    n_base = len(base.ids)
    # Fast path, proven: both runs list the same ids in the same order (one C-level list
    # comparison), so every item pairs with the row of the same index and no join is needed.
    same_order = n_base == len(cand.ids) and base.ids == cand.ids
    if same_order:
        in_base = np.arange(n_base, dtype=np.int64)
        cand_found = np.ones(n_base, dtype=np.bool_)
        hit = cand_found
        base_only: list[str] = []
        cand_only: list[str] = []
    else:
        # in_base[j]: index in base of the candidate's j-th item, or -1.
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
        if not hit.any():
            raise PairingError(nothing_in_common(baseline, candidate, base.ids, cand.ids))
        base_only = sorted(_take(base.ids, np.flatnonzero(~hit)))
        cand_only = sorted(_take(cand.ids, np.flatnonzero(~cand_found)))
    if (base_only or cand_only) and missing == "error":
        parts = []
        if base_only:
            parts.append(f"{len(base_only)} only in the baseline ({_preview(base_only)})")
        if cand_only:
            parts.append(f"{len(cand_only)} only in the candidate ({_preview(cand_only)})")
        raise PairingError(
            f"{candidate.source}: items differ from {baseline.source}: "
            + "; ".join(parts)
            + " (to allow this, add --missing drop or --missing fail, config `policy.missing`)"
        )
    # identity: the paired item i is row i of both sides (nothing to gather)
    identity = same_order
    # ids in the baseline's order (all of them, or a subsequence): sorted when the baseline's are
    follows_base = True
    if same_order:
        pos_base = pos_cand = in_base
        ids = base.ids
    else:
        # in_cand[i]: index in cand of the baseline's i-th item, or -1.
        in_cand = np.full(n_base, -1, dtype=np.int64)
        in_cand[in_base[cand_found]] = np.flatnonzero(cand_found)
        if missing == "fail":
            extra = np.flatnonzero(~cand_found)
            pos_base = np.concatenate([np.arange(n_base), np.full(extra.size, -1)])
            pos_cand = np.concatenate([in_cand, extra]).astype(np.int64)
            ids = _joined(base.ids, _take(cand.ids, extra)) if extra.size else base.ids
            follows_base = not extra.size
        else:
            common = np.flatnonzero(hit)
            pos_base = common
            pos_cand = in_cand[common]
            ids = base.ids if common.size == n_base else _take(base.ids, common)
    if not ids:  # pragma: no cover - refused above, before anything was paired
        raise PairingError(nothing_in_common(baseline, candidate, base.ids, cand.ids))
    # sorted: proven by the parser (a strictly increasing id column), or checked here
    order = None if (base.ids_sorted and follows_base) else _sort_order(ids)
    if order is not None:
        ids = _take(ids, order)
        pos_base, pos_cand = pos_base[order], pos_cand[order]
        identity = False
    pos_base = pos_base.astype(np.int64, copy=False)

    def take(column: FloatArray, positions: IntArray) -> FloatArray:
        if identity:
            return np.ascontiguousarray(column, dtype=np.float64)
        if positions.size == column.size and (positions >= 0).all():
            return np.ascontiguousarray(column[positions], dtype=np.float64)
        out = np.zeros(len(positions), dtype=np.float64)
        present = positions >= 0
        out[present] = column[positions[present]]
        return out

    def labels(
        base_column: list[str | None] | None, cand_column: list[str | None] | None
    ) -> list[str | None] | None:
        """The candidate's label of each paired item, else the baseline's (vectorised)."""
        if base_column is None and cand_column is None:
            return None
        if identity and (base_column is None or cand_column is None):
            return list(cand_column if cand_column is not None else base_column or [])
        if identity and cand_column is not None and None not in cand_column:
            return list(cand_column)  # the candidate labels every item: nothing to fill
        out = np.full(len(ids), None, dtype=object)
        if cand_column is not None:
            present = pos_cand >= 0
            out[present] = _objects(cand_column)[pos_cand[present]]
        if base_column is not None:
            fill = np.equal(out, None) & (pos_base >= 0)  # type: ignore[call-overload]
            if fill.any():
                out[fill] = _objects(base_column)[pos_base[fill]]
        taken: list[str | None] = out.tolist()
        return taken

    if baseline.kind != candidate.kind:
        raise PairingError(
            f"{candidate.source}: compares a {candidate.kind} metric but the baseline "
            f"{baseline.source} has a {baseline.kind} one"
        )
    hashes = labels(base.hashes, cand.hashes)
    if base.hashes is not None and cand.hashes is not None:
        _check_same_content(ids, base.hashes, cand.hashes, pos_base, pos_cand, candidate, baseline)
    binary = (
        baseline.kind == "binary"
        and candidate.kind == "binary"
        and base.epochs == 1
        and cand.epochs == 1
    )
    baseline_errors = None if base.errors is None else take(base.errors, pos_base) > 0
    candidate_errors = None if cand.errors is None else take(cand.errors, pos_cand) > 0
    return Paired(
        ids=ids,
        baseline=take(base.values, pos_base),
        candidate=take(cand.values, pos_cand),
        kind="binary" if binary else "score",
        pass_fail=baseline.kind == "binary",
        baseline_source=baseline.source,
        candidate_source=candidate.source,
        epochs_baseline=base.epochs,
        epochs_candidate=cand.epochs,
        slices=labels(base.slices, cand.slices),
        clusters=labels(base.clusters, cand.clusters),
        baseline_costs=None if base.costs is None else take(base.costs, pos_base),
        candidate_costs=None if cand.costs is None else take(cand.costs, pos_cand),
        baseline_errors=baseline_errors,
        candidate_errors=candidate_errors,
        errors_baseline=_count(baseline_errors),
        errors_candidate=_count(candidate_errors),
        dropped_baseline_only=base_only if missing == "drop" else [],
        dropped_candidate_only=cand_only if missing == "drop" else [],
        filled_as_failures=len(base_only) + len(cand_only) if missing == "fail" else 0,
        fingerprint=fingerprint(ids, hashes, ids_sorted=True),
        content_hashes=hashes,
        baseline_metrics={name: take(c, pos_base) for name, c in base.metrics.items()},
        candidate_metrics={name: take(c, pos_cand) for name, c in cand.metrics.items()},
    )


def _as_strings(side: PerItem) -> PerItem:
    if not isinstance(side.ids, IdArray):
        return side
    return replace(side, ids=side.ids.tolist(), id_hashes=None, id_order=None)


def _joined(first: Sequence[str], second: Sequence[str]) -> Sequence[str]:
    if isinstance(first, IdArray) and isinstance(second, IdArray):
        return concat([first, second])
    return [*first, *second]


def _suffixes(ids: Sequence[str]) -> set[str]:
    return {i.split("/", 1)[1] for i in ids if "/" in i}


def _prefixes(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(i.split("/", 1)[0] for i in ids if "/" in i))[:3]


def nothing_in_common(
    baseline: Results, candidate: Results, base_ids: Sequence[str], cand_ids: Sequence[str]
) -> str:
    """Why no item pairs, and what to do: the message when the two id sets are disjoint.

    It shows what the ids look like on each side and names the likeliest cause: ids that differ
    only before a ``/`` (another task, or a task prefix on one side only), only in case or
    surrounding spaces, or simply different ids (another eval, or the wrong id field).
    """
    base_set, cand_set = set(base_ids), set(cand_ids)
    look = (
        f"{candidate.source}: no item id in common with the baseline {baseline.source}: "
        f"baseline ids look like {_preview(heapq.nsmallest(3, base_set))}, candidate ids like "
        f"{_preview(heapq.nsmallest(3, cand_set))}"
    )
    if base_set & _suffixes(cand_ids) or cand_set & _suffixes(base_ids):
        prefixed = "candidate's" if base_set & _suffixes(cand_ids) else "baseline's"
        other = "baseline's" if prefixed == "candidate's" else "candidate's"
        why = (
            f"the {prefixed} ids carry a prefix before `/` that the {other} lack (lm-eval adds "
            "its task to each doc id when a run is read from several files); give both runs "
            "alike: one file each, or a directory of the same tasks each"
        )
    elif _suffixes(base_ids) & _suffixes(cand_ids):
        why = (
            f"the ids differ only before `/` ({', '.join(_prefixes(base_ids))} against "
            f"{', '.join(_prefixes(cand_ids))}): are these runs of the same task?"
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


def subset(paired: Paired, keep: BoolArray) -> Paired:
    """The paired items where ``keep`` is true, every per-item column cut alike.

    The fingerprint is recomputed for the items kept (content hashes included).
    """
    n = len(paired.ids)
    if keep.shape != (n,):
        raise ValueError(f"`keep` must have one flag per item ({n}), got shape {keep.shape}")
    if keep.all():
        return paired
    positions = np.flatnonzero(keep).tolist()
    changes: dict[str, Any] = {}
    for spec in fields(paired):
        value = getattr(paired, spec.name)
        if spec.name.startswith("dropped_"):
            continue
        column = isinstance(value, np.ndarray) and value.shape[:1] == (n,)
        if column or (isinstance(value, IdArray) and len(value) == n):
            changes[spec.name] = value[keep]
        elif isinstance(value, list) and len(value) == n:
            changes[spec.name] = [value[i] for i in positions]
        elif isinstance(value, dict):
            changes[spec.name] = {name: column[keep] for name, column in value.items()}
    changes["fingerprint"] = fingerprint(changes["ids"], changes.get("content_hashes"))
    return replace(paired, **changes)


ERRORS_CHOICES = ERRORS_RULES


def apply_errors(paired: Paired, rule: ErrorsRule) -> Paired:
    """Harness errors (timeouts, exceptions) under the plan's ``policy.errors`` rule.

    ``fail`` (the default) keeps an errored item as a failure of the side that errored (its
    value is already 0); ``drop`` removes every item that errored on either side from the
    analysis and counts them in ``dropped_errors``.
    """
    if rule not in ERRORS_CHOICES:
        raise ValueError(f"`rule` must be one of {ERRORS_CHOICES}, got {rule!r}")
    if rule == "fail" or (paired.baseline_errors is None and paired.candidate_errors is None):
        return paired
    errored = np.zeros(len(paired.ids), dtype=np.bool_)
    for flags in (paired.baseline_errors, paired.candidate_errors):
        if flags is not None:
            errored |= flags
    if errored.all():
        raise PairingError(
            f"{paired.candidate_source}: every item errored on at least one side; "
            "nothing is left to compare (policy.errors: drop)"
        )
    kept = subset(paired, ~errored)
    return replace(kept, dropped_errors=int(errored.sum()), errors_baseline=0, errors_candidate=0)


def _count(flags: BoolArray | None) -> int:
    return 0 if flags is None else int(np.count_nonzero(flags))


def _check_same_content(
    ids: Sequence[str],
    base_hashes: list[str | None],
    cand_hashes: list[str | None],
    pos_base: IntArray,
    pos_cand: IntArray,
    candidate: Results,
    baseline: Results,
) -> None:
    for item_id, b, c in zip(ids, pos_base.tolist(), pos_cand.tolist(), strict=True):
        if b < 0 or c < 0:
            continue
        left, right = base_hashes[b], cand_hashes[c]
        if left is not None and right is not None and left != right:
            raise PairingError(
                f"{candidate.source}: item {show(item_id)} has content hash {right[:12]} but "
                f"{left[:12]} in the baseline {baseline.source}; the two runs did not see "
                "the same document"
            )
