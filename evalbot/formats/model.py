"""The in-memory shape of eval results: columnar, so a million items stay cheap.

A :class:`Results` holds one run (baseline or candidate) after parsing: one row per
(item id, epoch). A :class:`Paired` holds the two runs matched item by item, with repeats
already averaged per item. Parsers (``evalbot.formats``) build ``Results``;
``evalbot.pairing.pair`` builds ``Paired``; ``evalbot.stats`` only ever sees arrays.
:class:`ReadOptions` (with :class:`FieldNames`) says how every parser reads a file (from the
CLI and ``.evalbot.yml``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from evalbot.limits import MAX_FILE_ARCHIVE_BYTES, MAX_FILE_ARCHIVE_MEMBERS

if TYPE_CHECKING:
    from evalbot.formats.archive import ArchiveBudget

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
    where
        Optional place of a row ("file:line", "file: item N"), for messages about a single row:
        the text is built only when a message needs it (a JSON Lines reader keeps no line
        numbers while row ``i`` is line ``i + 1``).
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
    where: Callable[[int], str] | None = None
    content_hashes: list[str | None] | None = None
    id_hashes: IntArray | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def location(self, row: int) -> str:
        """Where row ``row`` came from, for a message: "file:line" or "file: row N"."""
        return f"{self.source}: row {row + 1}" if self.where is None else self.where(row)


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


@dataclass(frozen=True, kw_only=True)
class FieldNames:
    """Names of the per-item fields; dotted names reach into nested objects (``metrics.em``)."""

    id: str = "id"
    passed: str = "passed"
    score: str = "score"
    epoch: str = "epoch"
    slice: str = "slice"
    cluster: str = "cluster"
    cost: str = "cost"
    error: str = "error"


@dataclass(frozen=True, kw_only=True)
class ReadOptions:
    """Options for every parser.

    ``metric`` names the compared field: ``None`` picks ``passed`` when the first record has
    it, else ``score``. For lm-evaluation-harness it names one of the row's ``metrics``; for
    promptfoo ``score`` or a ``namedScores`` key (default: ``success``); for OpenAI evals a
    key of ``metrics`` events (default: ``match`` events' ``correct``). ``passed`` means each
    harness's default pass/fail outcome. inspect_ai uses ``scorer`` instead; JUnit and
    resolved-id lists have one outcome and ignore it.

    ``format`` forces a format by name (see :data:`evalbot.formats.FORMATS`); ``None``
    detects it from the file name and first bytes.

    ``scorer`` chooses an inspect_ai scorer by name (``name.key`` for a dict-valued score) when
    a log has several. ``filter`` chooses an lm-evaluation-harness filter (``none``,
    ``strict-match``, ...) when a samples file holds several.

    ``all_ids`` is the path of a file naming every instance id (one per line, a JSON list, or
    JSON/JSONL objects with ``instance_id``), for resolved-id lists such as SWE-bench's
    ``results.json``; :func:`evalbot.formats.sources.load_results` reads it into
    ``known_ids``, which is what the (pure) parsers see.

    ``secondary`` names further numeric fields (dotted names allowed) the default format reads
    into ``Results.metrics``: secondary metrics, compared beside the primary one. ``columns``
    names further numeric fields read the same way (into ``Results.metrics``) that are inputs of
    a derived metric rather than metrics of their own: the ``tp``/``fp``/``fn`` counts of ``f1:``.

    ``max_archive_bytes`` bounds the bytes one artifact or file may expand to, nested archives
    (an inspect ``.eval`` inside a ``.zip``) included; ``max_archive_members`` bounds their
    entries together. The defaults are the limits for files on disk; the action reads
    artifacts with tighter ones (both in :mod:`evalbot.limits`). ``archive_budget`` is the
    running count of both, shared by everything read out of one artifact:
    :mod:`evalbot.formats.sources` creates it per artifact (or per file named on the command
    line); ``None`` means "start one".

    ``several_files`` is true when the run is read from several result files (a directory, a
    glob or an archive holding more than one): lm-evaluation-harness doc ids repeat across tasks,
    so they are then qualified by their task (``arc_easy/0``); a run read from one file is
    one task, and its ids are the bare doc ids, whatever the file is called.
    """

    fields: FieldNames = FieldNames()
    metric: str | None = None
    format: str | None = None
    scorer: str | None = None
    filter: str | None = None
    all_ids: str | None = None
    secondary: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    known_ids: tuple[str, ...] | None = None
    max_line_bytes: int = 10 * 1024 * 1024
    max_archive_bytes: int = MAX_FILE_ARCHIVE_BYTES
    max_archive_members: int = MAX_FILE_ARCHIVE_MEMBERS
    archive_budget: ArchiveBudget | None = field(default=None, compare=False, repr=False)
    several_files: bool = False
