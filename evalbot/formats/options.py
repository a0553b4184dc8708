"""How to read result files: field names and limits (from the CLI and ``.evalbot.yml``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from evalbot.limits import MAX_FILE_ARCHIVE_BYTES, MAX_FILE_ARCHIVE_MEMBERS

if TYPE_CHECKING:
    from evalbot.formats.archive import ArchiveBudget


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
