"""Pair a baseline with a candidate item by item (never by row order).

Repeats (rows sharing an id with different epochs) are averaged per item first, so k samples of
an item count as one item. Items present on one side only are handled by ``missing``:
``error`` (the default) refuses, ``fail`` counts them as failures of the side that lacks them,
``drop`` analyses the intersection and records what was dropped.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

import numpy as np

from evalbot.errors import PairingError
from evalbot.results.builder import show
from evalbot.results.model import FloatArray, Paired, Results

Missing = Literal["error", "fail", "drop"]
MISSING_CHOICES: tuple[Missing, ...] = ("error", "fail", "drop")


@dataclass(frozen=True, kw_only=True, eq=False)
class PerItem:
    """One side reduced to one value per item (the mean over its epochs)."""

    index: dict[str, int]
    values: FloatArray
    epochs: int
    slices: list[str | None] | None
    clusters: list[str | None] | None
    costs: FloatArray | None
    errors: FloatArray | None


def reduce_per_item(results: Results) -> PerItem:
    """Average repeats: one value per distinct id, in first-seen order."""
    index: dict[str, int] = {}
    rows = np.fromiter(
        (index.setdefault(item_id, len(index)) for item_id in results.ids),
        dtype=np.int64,
        count=len(results.ids),
    )
    n = len(index)
    counts = np.bincount(rows, minlength=n)
    values = np.bincount(rows, weights=results.scores, minlength=n) / counts
    first = np.full(n, -1, dtype=np.int64)
    first[rows[::-1]] = np.arange(len(rows) - 1, -1, -1)
    first_rows = first.tolist()

    def pick(column: list[str | None] | None) -> list[str | None] | None:
        return None if column is None else [column[i] for i in first_rows]

    costs = None
    if results.costs is not None:
        costs = np.bincount(rows, weights=np.nan_to_num(results.costs), minlength=n) / counts
    errors = None
    if results.errors is not None:
        errors = np.bincount(rows, weights=results.errors.astype(np.float64), minlength=n).astype(
            np.float64
        )
    return PerItem(
        index=index,
        values=values,
        epochs=int(counts.max()),
        slices=pick(results.slices),
        clusters=pick(results.clusters),
        costs=costs,
        errors=errors,
    )


def fingerprint(ids: list[str]) -> str:
    """sha256 of the sorted ids, one per line: the identity of an item set."""
    digest = hashlib.sha256()
    for item_id in sorted(ids):
        digest.update(item_id.encode("utf-8", "surrogatepass"))
        digest.update(b"\n")
    return digest.hexdigest()


def _preview(ids: list[str], limit: int = 3) -> str:
    shown = ", ".join(show(i) for i in ids[:limit])
    return shown + (", ..." if len(ids) > limit else "")


def pair(baseline: Results, candidate: Results, *, missing: Missing = "error") -> Paired:
    """Match the two runs by item id."""
    if missing not in MISSING_CHOICES:
        raise ValueError(f"`missing` must be one of {MISSING_CHOICES}, got {missing!r}")
    base = reduce_per_item(baseline)
    cand = reduce_per_item(candidate)
    base_only = sorted(set(base.index) - set(cand.index))
    cand_only = sorted(set(cand.index) - set(base.index))
    if (base_only or cand_only) and missing == "error":
        parts = []
        if base_only:
            parts.append(f"{len(base_only)} only in the baseline ({_preview(base_only)})")
        if cand_only:
            parts.append(f"{len(cand_only)} only in the candidate ({_preview(cand_only)})")
        raise PairingError(
            f"{candidate.source}: items differ from {baseline.source}: "
            + "; ".join(parts)
            + " (set `policy.missing` to fail or drop to allow this)"
        )
    if missing == "fail":
        ids = sorted(set(base.index) | set(cand.index))
    else:
        ids = sorted(set(base.index) & set(cand.index))
    if not ids:
        raise PairingError(f"{candidate.source}: no item id in common with {baseline.source}")

    def take(side: PerItem, column: FloatArray) -> FloatArray:
        positions = np.fromiter((side.index.get(i, -1) for i in ids), np.int64, len(ids))
        out = np.zeros(len(ids), dtype=np.float64)
        present = positions >= 0
        out[present] = column[positions[present]]
        return out

    def labels(name: str) -> list[str | None] | None:
        columns = [getattr(base, name), getattr(cand, name)]
        if all(c is None for c in columns):
            return None
        out: list[str | None] = []
        for item_id in ids:
            value = None
            for side, column in zip((cand, base), columns[::-1], strict=True):
                if column is not None and item_id in side.index:
                    value = column[side.index[item_id]]
                    if value is not None:
                        break
            out.append(value)
        return out

    binary = (
        baseline.kind == "binary"
        and candidate.kind == "binary"
        and base.epochs == 1
        and cand.epochs == 1
    )
    if baseline.kind != candidate.kind:
        raise PairingError(
            f"{candidate.source}: compares a {candidate.kind} metric but the baseline "
            f"{baseline.source} has a {baseline.kind} one"
        )
    return Paired(
        ids=ids,
        baseline=take(base, base.values),
        candidate=take(cand, cand.values),
        kind="binary" if binary else "score",
        pass_fail=baseline.kind == "binary",
        baseline_source=baseline.source,
        candidate_source=candidate.source,
        epochs_baseline=base.epochs,
        epochs_candidate=cand.epochs,
        slices=labels("slices"),
        clusters=labels("clusters"),
        baseline_costs=None if base.costs is None else take(base, base.costs),
        candidate_costs=None if cand.costs is None else take(cand, cand.costs),
        baseline_errors=None if base.errors is None else take(base, base.errors) > 0,
        candidate_errors=None if cand.errors is None else take(cand, cand.errors) > 0,
        dropped_baseline_only=base_only if missing == "drop" else [],
        dropped_candidate_only=cand_only if missing == "drop" else [],
        filled_as_failures=len(base_only) + len(cand_only) if missing == "fail" else 0,
        fingerprint=fingerprint(ids),
    )
