"""evalbot's own per-item format: JSONL, a JSON array, CSV or TSV with a header.

One record per item (or per item and epoch)::

    {"id": "q-0001", "passed": true}
    {"id": "q-0002", "score": 0.73, "epoch": 1, "slice": "math", "cluster": "doc-7", "cost": 0.002}

Field names are configurable (:class:`evalbot.results.options.FieldNames`); a dotted name such
as ``metrics.exact_match`` reaches into nested objects.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping
from typing import Any

from evalbot.errors import InputError
from evalbot.results.builder import (
    ResultsBuilder,
    parse_epoch,
    parse_error_flag,
    parse_item_id,
    parse_label,
    parse_passed,
    parse_score,
    show,
)
from evalbot.results.formats import fast_jsonl
from evalbot.results.model import MetricKind, Results
from evalbot.results.options import ReadOptions

NAME = "default"

_MISSING = object()


def sniff(name: str, head: bytes) -> bool:
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


def decode_text(data: bytes, source: str) -> str:
    """UTF-8 text (a BOM is allowed); undecodable bytes are reported with their line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(f"{source}:{line}: not valid UTF-8 (byte offset {error.start})") from None


def parse_records(
    records: Iterator[tuple[str, object]], *, source: str, options: ReadOptions, strings: bool
) -> Results:
    """Turn (where, record) pairs into ``Results``; ``strings`` allows "true"/"0.5" text values."""
    names = options.fields
    builder = ResultsBuilder(source)
    metric = options.metric
    for where, record in records:
        if not isinstance(record, Mapping):
            raise InputError(f"{where}: expected an object per item, got {show(record)}")
        if metric is None:
            if lookup(record, names.passed) is not _MISSING:
                metric = names.passed
            elif lookup(record, names.score) is not _MISSING:
                metric = names.score
            else:
                raise InputError(
                    f"{where}: neither `{names.passed}` nor `{names.score}` is present; "
                    "name the compared field with `metric:` in the config"
                )
        raw_id = lookup(record, names.id)
        item_id = parse_item_id(None if raw_id is _MISSING else raw_id, where, names.id)
        error_value = lookup(record, names.error)
        errored = error_value is not _MISSING and parse_error_flag(error_value)
        value = lookup(record, metric)
        kind: MetricKind
        if value is _MISSING or (value is None and errored) or (strings and value == ""):
            if not errored:
                raise InputError(f"{where}: item {show(item_id)} has no `{metric}`")
            score, kind = 0.0, ("binary" if metric == names.passed else "score")
        elif metric == names.passed or isinstance(value, bool):
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


def parse_json_document(text: str, source: str) -> Any:
    """A whole JSON document; an error names ``source`` and the line the parser stopped at."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{source}:{error.lineno}: not valid JSON ({error.msg})") from None
    except RecursionError:
        raise InputError(f"{source}: JSON nested too deeply") from None


def parse_json_line(line: str, where: str) -> Any:
    """One line of JSON Lines; ``where`` already names the file and line."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise InputError(f"{where}: not valid JSON ({error.msg})") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply") from None


def jsonl_records(text: str, source: str, max_line: int) -> Iterator[tuple[str, object]]:
    """(where, record) for each non-blank line of JSON Lines text; one-line errors."""
    # Lines end at "\n" only (JSON Lines): str.splitlines would also split at U+2028 and
    # other separators that are legal inside JSON strings.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        if len(line) > max_line:
            raise InputError(f"{where}: line longer than {max_line} bytes")
        yield where, parse_json_line(line, where)


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
        for row in reader:
            where = f"{source}:{reader.line_num}"
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise InputError(f"{where}: {len(row)} fields but the header has {len(header)}")
            yield where, dict(zip(header, row, strict=True))
    except csv.Error as error:
        raise InputError(f"{source}:{reader.line_num}: malformed CSV ({error})") from None


def parse(data: bytes, *, source: str, options: ReadOptions, kind: str | None = None) -> Results:
    """Parse JSONL, a JSON array, CSV or TSV; ``kind`` forces one ("jsonl"/"json"/"csv"/"tsv")."""
    if (kind == "jsonl" or (kind is None and source.lower().endswith((".jsonl", ".ndjson")))) and (
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
        document = parse_json_document(text, source)
        if isinstance(document, Mapping) and isinstance(document.get("items"), list):
            document = document["items"]
        if not isinstance(document, list):
            raise InputError(f'{source}: expected a JSON array of items (or {{"items": [...]}})')
        return parse_records(
            _array_records(document, source), source=source, options=options, strings=False
        )
    return parse_jsonl_generic(text, source=source, options=options)


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
