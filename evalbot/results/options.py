"""How to read result files: field names and limits (from the CLI and ``.evalbot.yml``)."""

from __future__ import annotations

from dataclasses import dataclass


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
    it, else ``score``.
    """

    fields: FieldNames = FieldNames()
    metric: str | None = None
    format: str | None = None
    max_line_bytes: int = 10 * 1024 * 1024
    max_archive_bytes: int = 2 * 1024**3
