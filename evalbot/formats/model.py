"""The in-memory shape of eval results: columnar, so a million items stay cheap.

A :class:`Results` holds one run (baseline or candidate) after parsing: one row per
(item id, epoch). A :class:`Paired` holds the two runs matched item by item, with repeats
already averaged per item. Parsers (``evalbot.formats``) build ``Results``;
``evalbot.pairing.pair`` builds ``Paired``; ``evalbot.stats`` only ever sees arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

MetricKind = Literal["binary", "score"]


@dataclass(frozen=True, kw_only=True, eq=False)
class Results:
    """Per-row results of one run, column by column.

    Attributes
    ----------
    source
        What was read, for messages (a path, or several joined by ", ").
    ids
        Item id of each row (a string; numeric ids are converted with ``str``).
    scores
        The compared value of each row: 0.0 / 1.0 for a binary ``passed`` outcome, any finite
        float for a score. Rows with ``errors[i]`` set carry 0.0 here.
    kind
        ``"binary"`` when every score came from a pass/fail outcome, else ``"score"``.
    epochs
        Repeat index of each row, or ``None`` when the run has one row per item.
    slices, clusters
        Optional stratum and cluster label per row (``None`` entries where a row has none).
    costs
        Optional per-row cost.
    errors
        Optional flag per row: the harness errored (timeout, exception), which is not a failure.
    metrics
        Further named numeric columns (secondary metrics such as ``tp``/``fp``/``fn``).
    locations
        Optional "file:line" of each row, for messages about a single row.
    lines
        Optional line number of each row in ``source``, where ``locations`` is not kept:
        :meth:`location` builds the "file:line" text only when a message needs it.
    rows_are_lines
        Row ``i`` is line ``i + 1`` of ``source``, so neither ``locations`` nor ``lines`` needs
        to be kept.
    id_hashes
        Optional ``hash()`` of each id, computed while checking for repeats and kept for the
        join in :mod:`.pairing`. Process-local (Python salts string hashes): never persisted.
    content_hashes
        Optional per-row content hash written by the harness (lm-eval ``doc_hash``).
    """

    source: str
    ids: Sequence[str]
    scores: FloatArray
    kind: MetricKind
    epochs: IntArray | None = None
    slices: list[str | None] | None = None
    clusters: list[str | None] | None = None
    costs: FloatArray | None = None
    errors: BoolArray | None = None
    metrics: dict[str, FloatArray] = field(default_factory=dict)
    locations: list[str] | None = None
    content_hashes: list[str | None] | None = None
    lines: IntArray | None = None
    id_hashes: IntArray | None = None
    rows_are_lines: bool = False

    def __len__(self) -> int:
        return len(self.ids)

    def location(self, row: int) -> str:
        """Where row ``row`` came from, for a message: "file:line" or "file: row N"."""
        if self.locations is not None:
            return self.locations[row]
        if self.lines is not None:
            return f"{self.source}:{int(self.lines[row])}"
        if self.rows_are_lines:
            return f"{self.source}:{row + 1}"
        return f"{self.source}: row {row + 1}"


@dataclass(frozen=True, kw_only=True)
class NotEvaluated:
    """Items a run did not evaluate (never run, skipped, cancelled, a harness error), and what
    ``policy.errors`` did with them: ``drop`` left every such item out (the comparison is over
    the items both runs evaluated), ``fail`` kept them as failures of the run that lacks them.

    ``baseline``/``candidate`` count the items each run did not evaluate, ``both`` those neither
    did; ``baseline_ids``/``candidate_ids`` are the first few items only that run did not
    evaluate (the other did), for the report.
    """

    rule: Literal["drop", "fail"]
    baseline: int
    candidate: int
    both: int
    baseline_ids: tuple[str, ...] = ()
    candidate_ids: tuple[str, ...] = ()

    @property
    def items(self) -> int:
        """Items at least one run did not evaluate."""
        return self.baseline + self.candidate - self.both


@dataclass(frozen=True, kw_only=True, eq=False)
class Paired:
    """Baseline and candidate matched by item id; one entry per item, ids sorted.

    ``baseline`` / ``candidate`` are per-item values (the mean over epochs when there are
    repeats). ``kind`` is ``"binary"`` only when both sides are binary with one epoch per item,
    so every value is exactly 0 or 1. ``pass_fail`` is true when both sides were pass/fail
    outcomes (with repeats, each value is then the item's pass rate over its epochs).

    Items a run did not evaluate are not failures: ``baseline_errors``/``candidate_errors`` flag
    them (any epoch), ``errors_baseline``/``errors_candidate`` count them (their values are 0 in
    ``baseline``/``candidate``); ``not_evaluated`` says what ``policy.errors`` did with them.
    ``baseline_costs``/``candidate_costs`` are per-item costs (the mean over epochs; ``nan``
    where an item has none). ``content_hashes`` holds the harness's per-item content
    hash where one exists (lm-eval ``doc_hash``); ``fingerprint`` covers ids and those hashes.
    """

    ids: Sequence[str]
    baseline: FloatArray
    candidate: FloatArray
    kind: MetricKind
    baseline_source: str
    pass_fail: bool = False
    candidate_source: str
    epochs_baseline: int = 1
    epochs_candidate: int = 1
    slices: list[str | None] | None = None
    clusters: list[str | None] | None = None
    baseline_costs: FloatArray | None = None
    candidate_costs: FloatArray | None = None
    baseline_errors: BoolArray | None = None
    candidate_errors: BoolArray | None = None
    dropped_baseline_only: list[str] = field(default_factory=list)
    dropped_candidate_only: list[str] = field(default_factory=list)
    filled_as_failures: int = 0
    fingerprint: str = ""
    errors_baseline: int = 0
    errors_candidate: int = 0
    content_hashes: list[str | None] | None = None
    baseline_metrics: dict[str, FloatArray] = field(default_factory=dict)
    candidate_metrics: dict[str, FloatArray] = field(default_factory=dict)
    not_evaluated: NotEvaluated | None = None

    def __len__(self) -> int:
        return len(self.ids)
