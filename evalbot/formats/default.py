"""evalbot's own per-item format: JSONL, a JSON array, CSV or TSV with a header.

One record per item (or per item and epoch)::

    {"id": "q-0001", "passed": true}
    {"id": "q-0002", "score": 0.73, "epoch": 1, "slice": "math", "cluster": "doc-7", "cost": 0.002}

Field names are configurable (:class:`evalbot.formats.model.FieldNames`); a dotted name such
as ``metrics.exact_match`` reaches into nested objects. Records are read as columns, one per
field: a column of clean values (every outcome ``true``/``false``, every id a string...) is
taken in one C-level pass; any other is read value by value, which names the first bad one.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import json
import math
import re
import shlex
from collections.abc import Callable, Iterator, Mapping
from dataclasses import astuple, dataclass, field
from functools import partial
from typing import Any

import numpy as np
from msgspec import UNSET

from evalbot.errors import InputError
from evalbot.formats.builder import (
    an_object,
    check_unique,
    parse_epoch,
    parse_error_flag,
    parse_item_id,
    parse_label,
    parse_passed,
    parse_score,
    show,
)
from evalbot.formats.jsontext import (
    BOM,
    NOTHING,
    UnreadableError,
    decode_text,
    long_number,
    parse_json_document,
    parse_json_line,
    read_rows,
)
from evalbot.formats.model import (
    BoolArray,
    FieldNames,
    FloatArray,
    IntArray,
    MetricKind,
    ReadOptions,
    Results,
)
from evalbot.formats.probe import SIGNIFICANT, Probe, Source, held, lookup
from evalbot.limits import MAX_NUMBER_DIGITS

NAME = "default"

_SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "tsv", ".json": "json"}


def sniff(probe: Probe) -> bool:
    """evalbot's own format is the fallback: it accepts any file."""
    return True


def parse(
    data: bytes | Source, *, source: str, options: ReadOptions, kind: str | None = None
) -> Results:
    """Parse JSONL, a JSON array, CSV or TSV; ``kind`` forces one ("jsonl"/"json"/"csv"/"tsv").
    JSON Lines are read in pieces; the rest whole."""
    data = held(data)
    kind = kind or detect_kind(source, data.head)
    if kind == "jsonl":
        return parse_table(_jsonl_table(data, source, options), options)
    text = decode_text(data.whole(), source)
    if kind == "csv" or kind == "tsv":
        records = list(_csv_records(text, source, "," if kind == "csv" else "\t"))
        return parse_table(_records_table(records, source, options, strings=True), options)
    return parse_document(parse_json_document(text, source), source=source, options=options)


def parse_document(document: object, *, source: str, options: ReadOptions) -> Results:
    """A parsed JSON document: an array of items, or ``{"items": [...]}``."""
    if isinstance(document, Mapping) and isinstance(document.get("items"), list):
        document = document["items"]
    if not isinstance(document, list):
        raise UnreadableError(f'{source}: expected a JSON array of items (or {{"items": [...]}})')
    records = [(f"{source}: item {number}", r) for number, r in enumerate(document, start=1)]
    return parse_table(_records_table(records, source, options, strings=False), options)


def parse_probe(probe: Probe, options: ReadOptions) -> Results:
    """Parse a detected file, reusing the JSON document detection already parsed."""
    document = probe.document
    if (
        probe.kind == "json"
        and document is not NOTHING
        and (isinstance(document, list) or probe.lowered.endswith(".json"))
    ):
        return parse_document(document, source=probe.name, options=options)
    return parse(probe.source, source=probe.name, options=options)


def detect_kind(source: str, data: bytes) -> str:
    """jsonl, json, csv or tsv from the file name, falling back to the first character."""
    found = SIGNIFICANT.search(data, len(BOM) if data.startswith(BOM) else 0)
    start = found.start() if found else len(data)
    first = data[start : start + 1]
    kind = next((k for end, k in _SUFFIXES.items() if source.lower().endswith(end)), None)
    if kind == "json" and first == b"{" and data.find(b"\n{", start) >= 0:
        return "jsonl"
    if kind is not None:
        return kind
    if first in (b"[", b"{"):
        return "json" if first == b"[" else "jsonl"
    end = data.find(b"\n", start)
    return "tsv" if b"\t" in data[start : len(data) if end < 0 else end] else "csv"


# --- records as columns -------------------------------------------------------------------------

_LONG = 10**MAX_NUMBER_DIGITS


@dataclass(kw_only=True, eq=False)
class _Table:
    """A file's records as columns: each field's values (``UNSET`` where a record lacks it;
    ``None`` when no record has it) and their types. ``strings``: values are text (CSV/TSV),
    so ``"true"`` or ``"0.5"`` count. An integer
    too long to be a value is refused (msgspec reads them; the standard library's parse of a
    document refuses them)."""

    source: str
    count: int
    values: dict[str, list[Any] | None]
    where: Callable[[int], str]
    record: Callable[[int], Mapping[str, Any]]
    strings: bool
    known: dict[str, set[type]] = field(default_factory=dict)  # columns' types the reader knows
    kinds: dict[str, set[type]] = field(init=False)

    def __post_init__(self) -> None:
        self.kinds = {
            name: self.known.get(name) or set(map(type, v or [UNSET]))
            for name, v in self.values.items()
        }
        for name, values in self.values.items():
            for row, value in enumerate(values if values and int in self.kinds[name] else ()):
                if type(value) is int and not -_LONG < value < _LONG:
                    raise InputError(long_number(self.where(row), len(str(abs(value)))))

    def column(self, name: str) -> list[Any]:
        """A field's values (``UNSET`` in every row when no record has it)."""
        return self.values[name] or [UNSET] * self.count


def _names(options: ReadOptions) -> list[str]:
    fields = [*astuple(options.fields), *options.secondary, *options.columns]
    return list(dict.fromkeys([*fields, *([options.metric] if options.metric else [])]))


def _jsonl_table(data: Source, source: str, options: ReadOptions) -> _Table:
    """JSON Lines read by :func:`~.jsontext.read_rows`: the fields' keys only (and the first
    key of a dotted name, whose value is looked up below)."""
    names, fields = _names(options), options.fields
    first = [fields.id, options.metric or fields.passed]  # rows of these only: the fastest
    dotted = [name for name in names if "." in name]
    rows = read_rows(
        data.pieces(),
        source=source,
        keys=[*first, *(name.split(".", 1)[0] for name in first if "." in name)],
        optional=[*names, *(name.split(".", 1)[0] for name in dotted)],
        paths=[name.split(".") for name in dotted],
        types=[str, bool],  # an id's usual type, and a pass/fail outcome's
        max_line=options.max_line_bytes,
    )
    values = {name: rows.columns.get(name) for name in names}
    for name in dotted:
        top, rest = name.split(".", 1)
        if (nested := rows.columns.get(top)) is not None:
            own = values[name] or [UNSET] * rows.count
            found = [
                v if v is not UNSET else lookup(t, rest) if isinstance(t, Mapping) else UNSET
                for v, t in zip(own, nested, strict=True)
            ]
            values[name] = found if found.count(UNSET) < len(found) else None
    rows.columns.clear()  # the table's now: no list held twice

    def record(row: int) -> Mapping[str, Any]:
        lines = io.BytesIO(data.whole())  # read again: a message's hint, once
        line = next(itertools.islice(lines, rows.line(row) - 1, None))
        found = parse_json_line(line.decode("utf-8-sig", "replace"), rows.where(row))
        return found if isinstance(found, Mapping) else {}

    return _Table(
        source=source,
        count=rows.count,
        values=values,
        where=rows.where,
        record=record,
        strings=False,
        known=rows.kinds,
    )


def _records_table(
    records: list[tuple[str, object]], source: str, options: ReadOptions, *, strings: bool
) -> _Table:
    """Parsed records (a JSON array's items, CSV rows) as columns."""
    expected = "expected an object per item"
    mappings = [an_object(record, where, expected, UnreadableError) for where, record in records]
    values: dict[str, list[Any] | None] = {}
    for name in _names(options):
        column = [lookup(record, name) for record in mappings]
        values[name] = column if column.count(UNSET) < len(column) else None
    locations = [where for where, _ in records]
    return _Table(
        source=source,
        count=len(records),
        values=values,
        where=locations.__getitem__,
        record=mappings.__getitem__,
        strings=strings,
    )


def parse_table(table: _Table, options: ReadOptions) -> Results:
    """Results from a table of records, each field checked as a column.

    The compared field is ``metric:`` when given, else ``passed`` (pass/fail) when the first
    record has it, else ``score``. Under ``metric:``, a boolean (or, in CSV/TSV, a word such as
    ``true``/``fail``) is a pass/fail outcome and a number a score.
    """
    names, n = options.fields, table.count
    if n == 0:
        raise InputError(f"{table.source}: no items")
    metric = options.metric or _detected_metric(table, names)
    ids = _ids(table, names)
    errors = _errors(table.values[names.error], table.kinds[names.error])
    scores, kind = _compared(table, metric, names, errors, ids)
    epochs = _epochs(table, names.epoch)
    slices = _labels(table, names.slice)
    clusters = _labels(table, names.cluster)
    costs = _costs(table, names.cost)
    metrics = _secondary(table, options, ids)
    if epochs is not None and epochs.min() < 0:
        missing = int(np.argmax(epochs < 0))
        raise InputError(
            f"{table.where(missing)}: item {show(ids[missing])} has no `{names.epoch}` "
            "but other rows have one"
        )
    table.values.clear()  # every column read: a million rows' list is 8 MB
    id_hashes = check_unique(ids, epochs, table.where)
    return Results(
        source=table.source,
        ids=ids,
        scores=scores,
        kind=kind,
        epochs=epochs,
        slices=slices,
        clusters=clusters,
        costs=costs,
        errors=errors,
        metrics=metrics,
        where=table.where,
        id_hashes=id_hashes,
    )


def _detected_metric(table: _Table, names: FieldNames) -> str:
    for name in (names.passed, names.score):
        values = table.values[name]
        if values is not None and values[0] is not UNSET:
            return name
    record = table.record(0)
    raise InputError(
        f"{table.where(0)}: neither `{names.passed}` nor `{names.score}` is present "
        f"({_fields_of(record)}); {outcome_hint(record, names, strings=table.strings)}"
    )


def _ids(table: _Table, names: FieldNames) -> list[str]:
    values, kinds = table.column(names.id), table.kinds[names.id]
    if kinds == {str} and all(map(str.strip, values)):  # none empty or only white space
        return values
    if kinds == {int}:
        return list(map(str, values))
    ids = []
    for row, value in enumerate(values):
        if value is UNSET:
            record = table.record(row)
            raise InputError(
                f"{table.where(row)}: missing `{names.id}` ({_fields_of(record)}); "
                f"{id_hint(record, names)}"
            )
        ids.append(parse_item_id(value, table.where(row), names.id))
    return ids


def _errors(values: list[Any] | None, kinds: set[type]) -> BoolArray | None:
    """The harness-error flag of each row, ``None`` when no row errored."""
    if values is None or kinds <= {type(None), type(UNSET)}:
        return None
    flags = np.fromiter(
        (value is not UNSET and parse_error_flag(value) for value in values), np.bool_, len(values)
    )
    return flags if flags.any() else None


def _compared(
    table: _Table, metric: str, names: FieldNames, errors: BoolArray | None, ids: list[str]
) -> tuple[FloatArray, MetricKind]:
    """The compared field as floats, and whether it is a pass/fail outcome or a score."""
    values, kinds = table.column(metric), table.kinds[metric]
    scores: FloatArray | None = None
    kind: MetricKind = "binary"
    if kinds == {bool}:
        scores = np.array(values, dtype=np.float64)
    elif metric != names.passed and kinds <= {int, float}:
        scores, kind = np.array(values, dtype=np.float64), "score"  # _Table refused long integers
        if not np.isfinite(scores).all():
            scores = None
    if scores is None:
        scores, kind = _compared_one_by_one(table, metric, metric == names.passed, errors, ids)
    if errors is not None:
        scores[errors] = 0.0
    return scores, kind


def _compared_one_by_one(
    table: _Table, metric: str, passed: bool, errors: BoolArray | None, ids: list[str]
) -> tuple[FloatArray, MetricKind]:
    """The compared column read value by value (``passed``: it is the pass/fail field): a
    boolean (or, in CSV/TSV, a pass/fail word) is an outcome, anything else a score."""
    strings, values = table.strings, table.column(metric)
    scores = np.zeros(len(values), dtype=np.float64)
    first: tuple[MetricKind, int] | None = None
    for row, value in enumerate(values):
        where = table.where(row)
        errored = errors is not None and bool(errors[row])
        kind: MetricKind
        if value is UNSET or (value is None and errored) or (strings and value == ""):
            if not errored:
                raise InputError(f"{where}: item {show(ids[row])} has no `{metric}`")
            kind = "binary" if passed else "score"
        elif passed or isinstance(value, bool) or (strings and is_outcome_word(value)):
            scores[row], kind = parse_passed(value, where, metric, strings=strings), "binary"
        else:
            scores[row], kind = parse_score(value, where, metric, strings=strings), "score"
        if first is None:
            first = (kind, row)
        elif kind != first[0]:
            raise InputError(
                f"{where}: item {show(ids[row])} has a {kind} metric but "
                f"{table.where(first[1])} has a {first[0]} one; one file must use one kind"
            )
    assert first is not None
    return scores, first[0]


def _absent(value: Any, strings: bool) -> bool:
    return value is UNSET or value is None or (strings and value == "")


def _each(table: _Table, name: str, read: Callable[[Any, str], Any], absent: Any) -> Any:
    """Each row's value of ``name`` read by ``read(value, where)`` (``absent`` where a row lacks
    it); ``None`` when no row has one."""
    values = table.values[name]
    if values is None:
        return None
    out = [
        absent if _absent(value, table.strings) else read(value, table.where(row))
        for row, value in enumerate(values)
    ]
    return None if out.count(absent) == len(out) else out


def _epochs(table: _Table, name: str) -> IntArray | None:
    """Each row's epoch, ``None`` when no row has one; -1 where a row lacks it."""
    values = table.column(name)
    if table.kinds[name] == {int} and min(values) >= 0 and max(values) < 2**63:
        return np.array(values, dtype=np.int64)
    numbers = _each(table, name, lambda v, w: parse_epoch(v, w, name, strings=table.strings), -1)
    return None if numbers is None else np.array(numbers, dtype=np.int64)


def _labels(table: _Table, name: str) -> list[str | None] | None:
    values = table.values[name]
    if values is not None and table.kinds[name] == {str} and "" not in values:
        return values
    labels: list[str | None] | None = _each(table, name, lambda v, w: parse_label(v, w, name), None)
    return labels


def _costs(table: _Table, name: str) -> FloatArray | None:
    values = table.values[name]
    if values is not None and table.kinds[name] <= {int, float, type(None), type(UNSET)}:
        present = len(values) - values.count(None) - values.count(UNSET)
        costs = np.array([math.nan if v is None or v is UNSET else v for v in values], float)
        if int(np.isfinite(costs).sum()) == present:  # no NaN or infinity given
            return costs if present else None
    parsed = _each(
        table, name, lambda v, w: parse_score(v, w, name, strings=table.strings), math.nan
    )
    return None if parsed is None else np.array(parsed, dtype=np.float64)


def _secondary(table: _Table, options: ReadOptions, ids: list[str]) -> dict[str, FloatArray]:
    """The secondary metrics (and further named columns): on every row, a number or true/false."""
    metrics: dict[str, FloatArray] = {}
    for name in dict.fromkeys([*options.secondary, *options.columns]):
        read = partial(_number, field=name, strings=table.strings)
        numbers = _each(table, name, read, None) or [None]
        if None in numbers:
            row = numbers.index(None)
            what = "a secondary metric" if name in options.secondary else "a count for `f1`"
            raise InputError(f"{table.where(row)}: item {show(ids[row])} has no `{name}` ({what})")
        metrics[name] = np.array(numbers, dtype=np.float64)
    return metrics


def _number(value: Any, where: str, field: str, *, strings: bool) -> float:
    """A secondary metric or a count: a number or true/false."""
    if isinstance(value, bool):
        return float(value)
    return parse_score(value, where, field, strings=strings)


# --- hints that lead to a command that works -----------------------------------------------

#: Words a text column uses for a pass/fail outcome (``parse_passed`` reads them).
_OUTCOME_WORDS = frozenset({"true", "false", "pass", "passed", "fail", "failed", "yes", "no"})
#: Column names that usually hold the outcome, tried first.
_OUTCOME_NAMES = (
    "correct",
    "result",
    "success",
    "pass",
    "ok",
    "is_correct",
    "resolved",
    "outcome",
    "accuracy",
    "acc",
    "exact_match",
    "em",
    "label",
)
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,64}")
_SHOWN_FIELDS = 8


def is_outcome_word(value: str) -> bool:
    """Whether a text value is a pass/fail word (``true``, ``fail``, ...), not a number."""
    return value.strip().lower() in _OUTCOME_WORDS


def _fields_of(record: Mapping[str, Any]) -> str:
    keys = [show(k, 30) for k in list(record)[: _SHOWN_FIELDS + 1]]
    if not keys:
        return "no fields"
    more = ", ..." if len(keys) > _SHOWN_FIELDS else ""
    return "fields: " + ", ".join(keys[:_SHOWN_FIELDS]) + more


def field_flag(role: str, name: str) -> str:
    """``--passed-field correct (config `fields: {passed: correct}`)``: the flag and the key."""
    key = name if _PLAIN_NAME.fullmatch(name) else json.dumps(name)
    return f"--{role}-field {shlex.quote(name)} (config `fields: {{{role}: {key}}}`)"


def _kind_of_value(value: object, *, strings: bool) -> str | None:
    """``outcome``, ``score`` or ``None`` for a value a column could be compared on: the first
    of the two that reads it."""
    for kind, read in (("outcome", parse_passed), ("score", parse_score)):
        with contextlib.suppress(InputError):
            read(value, "", strings=strings)
            return kind
    return None


#: Names of counters, indices and ids (``train_trial_index``, ``num_tokens``, ``instance_id``,
#: ``sampleId``): never proposed as the outcome, whatever their values.
_NOT_AN_OUTCOME = re.compile(
    r"(?i:(^|_)(ids?|idx|index|indices|num|count|counts|n|trial|epoch|seed|step|offset|"
    r"position|rank|line|row|version|timestamp|time|date|size|length|len|tokens?)(_|$))"
    r"|[a-z](Id|Index|Idx|Count|Num)$"
)


#: More candidate columns than this: a matrix with items as columns, not one row per item.
_MATRIX_COLUMNS = 20


def outcome_hint(record: Mapping[str, Any], names: FieldNames, *, strings: bool) -> str:
    """What to pass when neither ``passed`` nor ``score`` is there: the likeliest column (never
    a counter, an index or an id, which would read as a fine outcome and mean nothing)."""
    taken = {names.id, names.epoch, names.slice, names.cluster, names.cost, names.error}
    kinds = {
        key: _kind_of_value(value, strings=strings)
        for key, value in record.items()
        if isinstance(key, str) and key not in taken and not _NOT_AN_OUTCOME.search(key)
    }
    candidates = [key for key, kind in kinds.items() if kind is not None]
    if len(candidates) > _MATRIX_COLUMNS:
        return (
            f"its {len(candidates)} value columns look like items themselves (a matrix with one "
            "column per item?); evalbot reads one row per item: an id column and a `passed` or "
            "`score` column"
        )
    rank = {name: number for number, name in enumerate(_OUTCOME_NAMES)}
    if candidates:  # outcomes first, then the names in the order listed
        best = min(
            candidates, key=lambda k: (kinds[k] != "outcome", rank.get(k.lower(), len(rank)))
        )
        if kinds[best] == "outcome":
            return f"if `{best}` is the pass/fail outcome, add {field_flag('passed', best)}"
        return f"if `{best}` is the score, add {field_flag('score', best)}"
    return (
        "name the compared field with --passed-field NAME (pass/fail) or --score-field NAME "
        "(a number), or `fields: {passed: NAME}` in the config"
    )


def id_hint(record: Mapping[str, Any], names: FieldNames) -> str:
    """What to pass when the id field is missing: a column whose name says it is an id."""
    for key, value in record.items():
        if isinstance(key, str) and "id" in key.lower() and type(value) in (str, int):
            return f"if `{key}` is the item id, add {field_flag('id', key)}"
    return "name the id field with --id-field NAME (config `fields: {id: NAME}`)"


def _csv_records(text: str, source: str, delimiter: str) -> Iterator[tuple[str, object]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
        if header is None:
            return
        header = [name.strip() for name in header]
        seen: dict[str, int] = {}
        for column, name in enumerate(header, start=1):
            if name and name in seen:
                raise InputError(
                    f"{source}:{reader.line_num}: column {show(name)} appears twice in the header "
                    f"(columns {seen[name]} and {column}); refused: which one counts?"
                )
            seen.setdefault(name, column)
        for row in reader:
            where = f"{source}:{reader.line_num}"
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise UnreadableError(
                    f"{where}: {len(row)} fields but the header has {len(header)}"
                )
            yield where, dict(zip(header, row, strict=True))
    except csv.Error as error:
        raise UnreadableError(f"{source}:{reader.line_num}: malformed CSV ({error})") from None
