"""evalbot's own per-item format: JSONL, a JSON array, CSV or TSV with a header.

One record per item (or per item and epoch)::

    {"id": "q-0001", "passed": true}
    {"id": "q-0002", "score": 0.73, "epoch": 1, "slice": "math", "cluster": "doc-7", "cost": 0.002}

Field names are configurable (:class:`evalbot.formats.options.FieldNames`); a dotted name such
as ``metrics.exact_match`` reaches into nested objects.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
from collections.abc import Iterator, Mapping
from typing import Any

from evalbot.errors import InputError
from evalbot.formats import fast_jsonl
from evalbot.formats.builder import (
    ResultsBuilder,
    parse_epoch,
    parse_error_flag,
    parse_item_id,
    parse_label,
    parse_passed,
    parse_score,
    show,
)
from evalbot.formats.jsontext import (
    NOTHING,
    UnreadableError,
    decode_text,
    jsonl_records,
    parse_json_document,
    parse_json_line,
)
from evalbot.formats.model import MetricKind, Results
from evalbot.formats.options import FieldNames, ReadOptions
from evalbot.formats.probe import JSONL_SUFFIXES, Probe

__all__ = [
    "decode_text",
    "jsonl_records",
    "lookup",
    "parse",
    "parse_document",
    "parse_json_document",
    "parse_json_line",
    "parse_records",
]

NAME = "default"

_MISSING = object()


def sniff(probe: Probe) -> bool:
    """evalbot's own format is the fallback: it accepts any file."""
    return True


def lookup(record: Mapping[str, Any], dotted: str) -> Any:
    """``record[dotted]``, or the nested value for ``a.b.c``; ``_MISSING`` when absent."""
    if dotted in record:
        return record[dotted]
    value: Any = record
    for part in dotted.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return _MISSING
        value = value[part]
    return value


def parse_records(
    records: Iterator[tuple[str, object]], *, source: str, options: ReadOptions, strings: bool
) -> Results:
    """Turn (where, record) pairs into ``Results``; ``strings`` allows "true"/"0.5" text values.

    The compared field is ``metric:`` when given, else ``passed`` (pass/fail) when the first
    record has it, else ``score``. Under ``metric:``, a boolean (or, in CSV/TSV, a word such as
    ``true``/``fail``) is a pass/fail outcome and a number a score.
    """
    names = options.fields
    builder = ResultsBuilder(source)
    metric = options.metric
    for where, record in records:
        if not isinstance(record, Mapping):
            raise UnreadableError(f"{where}: expected an object per item, got {show(record)}")
        if metric is None:
            if lookup(record, names.passed) is not _MISSING:
                metric = names.passed
            elif lookup(record, names.score) is not _MISSING:
                metric = names.score
            else:
                raise InputError(
                    f"{where}: neither `{names.passed}` nor `{names.score}` is present "
                    f"({_fields_of(record)}); {outcome_hint(record, names, strings=strings)}"
                )
        raw_id = lookup(record, names.id)
        if raw_id is _MISSING:
            raise InputError(
                f"{where}: missing `{names.id}` ({_fields_of(record)}); {id_hint(record, names)}"
            )
        item_id = parse_item_id(raw_id, where, names.id)
        error_value = lookup(record, names.error)
        errored = error_value is not _MISSING and parse_error_flag(error_value)
        value = lookup(record, metric)
        kind: MetricKind
        if value is _MISSING or (value is None and errored) or (strings and value == ""):
            if not errored:
                raise InputError(f"{where}: item {show(item_id)} has no `{metric}`")
            score, kind = 0.0, ("binary" if metric == names.passed else "score")
        elif (
            metric == names.passed
            or isinstance(value, bool)
            or (strings and isinstance(value, str) and is_outcome_word(value))
        ):
            score, kind = parse_passed(value, where, metric, strings=strings), "binary"
        else:
            score, kind = parse_score(value, where, metric, strings=strings), "score"
        epoch = lookup(record, names.epoch)
        cost = lookup(record, names.cost)
        builder.add(
            where=where,
            item_id=item_id,
            score=score,
            kind=kind,
            epoch=None
            if epoch in (_MISSING, None, "")
            else parse_epoch(epoch, where, names.epoch, strings=strings),
            slice=parse_label(_none(lookup(record, names.slice)), where, names.slice),
            cluster=parse_label(_none(lookup(record, names.cluster)), where, names.cluster),
            cost=None
            if cost in (_MISSING, None, "")
            else parse_score(cost, where, names.cost, strings=strings),
            error=errored,
            metrics=_secondary(
                record, options.secondary, options.columns, where, item_id, strings=strings
            ),
        )
    return builder.build()


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


def _flag_value(name: str) -> str:
    return shlex.quote(name)


def _yaml_value(name: str) -> str:
    return name if _PLAIN_NAME.fullmatch(name) else json.dumps(name)


def field_flag(role: str, name: str) -> str:
    """``--passed-field correct (config `fields: {passed: correct}`)``: the flag and the key."""
    return f"--{role}-field {_flag_value(name)} (config `fields: {{{role}: {_yaml_value(name)}}}`)"


def _kind_of_value(value: object, *, strings: bool) -> str | None:
    """``outcome``, ``score`` or ``None`` for a value a column could be compared on."""
    if isinstance(value, bool):
        return "outcome"
    if isinstance(value, int | float):
        return "outcome" if value in (0, 1) else "score"
    if strings and isinstance(value, str) and value.strip():
        if is_outcome_word(value):
            return "outcome"
        try:
            float(value)
        except ValueError:
            return None
        return "outcome" if value.strip() in ("0", "1") else "score"
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
    ranked = sorted(
        candidates,
        key=lambda key: (
            kinds[key] != "outcome",
            key.lower() not in _OUTCOME_NAMES,
            _OUTCOME_NAMES.index(key.lower()) if key.lower() in _OUTCOME_NAMES else 0,
        ),
    )
    if ranked:
        best = ranked[0]
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
        if (
            isinstance(key, str)
            and "id" in key.lower()
            and isinstance(value, str | int)
            and not isinstance(value, bool)
        ):
            return f"if `{key}` is the item id, add {field_flag('id', key)}"
    return "name the id field with --id-field NAME (config `fields: {id: NAME}`)"


def _secondary(
    record: Mapping[str, Any],
    names: tuple[str, ...],
    columns: tuple[str, ...],
    where: str,
    item_id: str,
    *,
    strings: bool,
) -> dict[str, float] | None:
    """The secondary metrics (and further named columns) of one record: each a number (or
    true/false) that must be there."""
    if not names and not columns:
        return None
    values: dict[str, float] = {}
    for name in (*names, *columns):
        if name in values:
            continue
        value = lookup(record, name)
        if value is _MISSING or value is None or (strings and value == ""):
            what = "a secondary metric" if name in names else "a count for `f1`"
            raise InputError(f"{where}: item {show(item_id)} has no `{name}` ({what})")
        if isinstance(value, bool):
            values[name] = 1.0 if value else 0.0
        else:
            values[name] = parse_score(value, where, name, strings=strings)
    return values


def _none(value: Any) -> Any:
    return None if value is _MISSING else value


def _array_records(items: list[object], source: str) -> Iterator[tuple[str, object]]:
    for number, record in enumerate(items, start=1):
        yield f"{source}: item {number}", record


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


def parse(data: bytes, *, source: str, options: ReadOptions, kind: str | None = None) -> Results:
    """Parse JSONL, a JSON array, CSV or TSV; ``kind`` forces one ("jsonl"/"json"/"csv"/"tsv")."""
    if (kind == "jsonl" or (kind is None and source.lower().endswith(JSONL_SUFFIXES))) and (
        fast_jsonl.applies(options)
    ):
        fast = fast_jsonl.parse_fast(data, source=source, options=options)
        if fast is not None:
            return fast
    text = decode_text(data, source)
    kind = kind or detect_kind(source, text)
    if kind == "csv" or kind == "tsv":
        records = _csv_records(text, source, "," if kind == "csv" else "\t")
        return parse_records(records, source=source, options=options, strings=True)
    if kind == "json":
        return parse_document(parse_json_document(text, source), source=source, options=options)
    return parse_jsonl_generic(text, source=source, options=options)


def parse_document(document: object, *, source: str, options: ReadOptions) -> Results:
    """A parsed JSON document: an array of items, or ``{"items": [...]}``."""
    if isinstance(document, Mapping) and isinstance(document.get("items"), list):
        document = document["items"]
    if not isinstance(document, list):
        raise UnreadableError(f'{source}: expected a JSON array of items (or {{"items": [...]}})')
    return parse_records(
        _array_records(document, source), source=source, options=options, strings=False
    )


def parse_probe(probe: Probe, options: ReadOptions) -> Results:
    """Parse a detected file, reusing the JSON document detection already parsed."""
    document = probe.document
    if (
        probe.kind == "json"
        and document is not NOTHING
        and (isinstance(document, list) or probe.lowered.endswith(".json"))
    ):
        return parse_document(document, source=probe.name, options=options)
    return parse(probe.data, source=probe.name, options=options)


def parse_jsonl_generic(text: str, *, source: str, options: ReadOptions) -> Results:
    """JSONL record by record with stdlib ``json``: the reference the fast path must match."""
    records = jsonl_records(text, source, options.max_line_bytes)
    return parse_records(records, source=source, options=options, strings=False)


def detect_kind(source: str, text: str) -> str:
    """jsonl, json, csv or tsv from the file name, falling back to the first character."""
    lowered = source.lower()
    for suffix, kind in (
        (".jsonl", "jsonl"),
        (".ndjson", "jsonl"),
        (".csv", "csv"),
        (".tsv", "tsv"),
        (".json", "json"),
    ):
        if lowered.endswith(suffix):
            if kind == "json" and text.lstrip().startswith("{") and "\n{" in text.strip():
                return "jsonl"
            return kind
    stripped = text.lstrip()
    if stripped.startswith("["):
        return "json"
    if stripped.startswith("{"):
        return "jsonl"
    first = stripped.split("\n", 1)[0]
    return "tsv" if "\t" in first else "csv"
