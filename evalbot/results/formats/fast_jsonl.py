"""The fast path for evalbot's own JSONL: a whole file decoded in one call.

Why msgspec (and not orjson or stdlib ``json``): msgspec decodes JSON straight into a typed
``Struct`` and checks the types in C while decoding, so a file of a million flat records
becomes a list of small slot objects (no per-row dict, no Python-level type checks) in one
call; orjson would still build a dict per row for Python code to inspect. msgspec is also one
small wheel with no dependencies.

JSON Lines cannot contain a raw newline inside a value, so replacing the newlines with commas
and adding brackets turns the file into one JSON array whose i-th element is line i + 1, as
long as there are no blank lines and the element count equals the line count (checked).

This path only *proves* that a file is clean; it never reports a problem. On anything unusual
(a blank line, an over-long line, a type the ``Struct`` refuses, a ``null`` value, a repeated
id, NaN, a non-0/1 ``passed``, ...) it returns ``None`` and :mod:`.default` parses the file
with the generic path, which produces the exact message with its line number. So both paths
give the same ``Results`` for every file the fast path accepts (a property test checks it).
"""

from __future__ import annotations

import functools
import json
import operator
from typing import Any

import msgspec
import numpy as np

from evalbot.errors import InputError
from evalbot.results.builder import check_unique, parse_error_flag
from evalbot.results.model import MetricKind, Results
from evalbot.results.options import FieldNames, ReadOptions

_BOM = b"\xef\xbb\xbf"
_DEFAULT_FIELDS = FieldNames()


#: Optional fields: a Struct holds only those whose quoted name occurs somewhere in the file
#: (a substring search costs nothing next to decoding), so absent ones cost no extraction.
_OPTIONAL: dict[str, Any] = {
    "epoch": int | None,
    "slice": str | int | None,
    "cluster": str | int | None,
    "cost": int | float | None,
    "error": Any,
}
#: The compared field is required and non-null: a row without it, or with null, is unusual.
_METRIC: dict[str, Any] = {"passed": bool | int | float, "score": int | float}


@functools.lru_cache(maxsize=64)
def _decoder(metric: str, optional: tuple[str, ...]) -> msgspec.json.Decoder[Any]:
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = [
        ("id", str | int),
        (metric, _METRIC[metric]),
    ]
    fields += [(name, _OPTIONAL[name], None) for name in optional]
    row = msgspec.defstruct(f"Row_{metric}_{'_'.join(optional)}", fields, gc=False)
    return msgspec.json.Decoder(list[row])  # type: ignore[valid-type]


class _Unusual(Exception):
    """Not the common flat case: let the generic path read (and judge) the file."""


def applies(options: ReadOptions) -> bool:
    """The fast path reads the default field names only."""
    return (
        options.fields == _DEFAULT_FIELDS
        and options.metric in (None, "passed", "score")
        and not options.secondary
        and not options.columns
    )


def _floats(values: list[Any]) -> Any:
    try:
        return np.array(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise _Unusual from None


def _labels(values: list[Any]) -> list[str | None] | None:
    if values.count(None) == len(values):
        return None
    if set(map(type, values)) == {str} and "" not in values:
        return values
    labels = [None if v is None or v == "" else (v if type(v) is str else str(v)) for v in values]
    return None if labels.count(None) == len(labels) else labels


def _column(rows: list[Any], name: str) -> list[Any]:
    return list(map(operator.attrgetter(name), rows))


def parse_fast(data: bytes, *, source: str, options: ReadOptions) -> Results | None:
    """``Results`` for a clean flat JSONL file, or ``None`` to use the generic path."""
    try:
        return _parse(data, source, options)
    except _Unusual:
        return None


def _first_metric(body: bytes) -> str:
    """``passed`` when the first record has it, else ``score`` (as the generic path picks)."""
    end = body.find(b"\n")
    first = body if end < 0 else body[:end]
    try:
        record = json.loads(first)
    except (ValueError, RecursionError):
        raise _Unusual from None
    if not isinstance(record, dict):
        raise _Unusual
    return "passed" if "passed" in record else "score"


def _parse(data: bytes, source: str, options: ReadOptions) -> Results:
    body = data[len(_BOM) :] if data.startswith(_BOM) else data
    if body.endswith(b"\n"):
        body = body[:-1]
    if not body.strip() or body.startswith(b"\n") or b"\n\n" in body:
        raise _Unusual
    if not body.isascii():
        # msgspec does not check the UTF-8 of fields the Struct ignores; the generic path does.
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            raise _Unusual from None
    newlines = np.flatnonzero(np.frombuffer(body, dtype=np.uint8) == 10)
    bounds = np.concatenate(([-1], newlines, [len(body)]))
    if int(np.diff(bounds).max()) - 1 > options.max_line_bytes:
        raise _Unusual
    metric = options.metric or _first_metric(body)
    escaped = b"\\u" in body  # a key may be spelled with escapes: keep every field then
    optional = tuple(name for name in _OPTIONAL if escaped or b'"' + name.encode() + b'"' in body)
    try:
        rows = _decoder(metric, optional).decode(b"".join((b"[", body.replace(b"\n", b","), b"]")))
    except (msgspec.DecodeError, RecursionError, ValueError):
        # Whatever msgspec dislikes, the generic path reads again and reports exactly.
        raise _Unusual from None
    n = len(rows)
    if n != len(newlines) + 1:
        raise _Unusual
    ids: list[Any] = _column(rows, "id")
    if set(map(type, ids)) != {str}:
        ids = [v if type(v) is str else str(v) for v in ids]
    if not all(map(str.strip, ids)):
        raise _Unusual
    scores = _floats(_column(rows, metric))
    kind: MetricKind
    if metric == "passed":
        if not ((scores == 0.0) | (scores == 1.0)).all():
            raise _Unusual
        kind = "binary"
    else:
        if not np.isfinite(scores).all():
            raise _Unusual
        kind = "score"
    epochs = None
    if "epoch" in optional:
        raw_epochs = _column(rows, "epoch")
        missing = raw_epochs.count(None)
        if 0 < missing < n:
            raise _Unusual
        if missing == 0:
            try:
                epochs = np.array(raw_epochs, dtype=np.int64)
            except (TypeError, ValueError, OverflowError):
                raise _Unusual from None
            if (epochs < 0).any():
                raise _Unusual
    costs = None
    if "cost" in optional:
        raw_costs = _column(rows, "cost")
        if raw_costs.count(None) < n:
            costs = _floats(raw_costs)
            if np.isinf(costs).any():
                raise _Unusual
    errors = None
    if "error" in optional:
        raw_errors = _column(rows, "error")
        if raw_errors.count(None) < n:
            flags = np.fromiter(map(parse_error_flag, raw_errors), dtype=np.bool_, count=n)
            if flags.any():
                errors = flags
                scores[flags] = 0.0
    lines = np.arange(1, n + 1, dtype=np.int64)
    try:
        id_hashes = check_unique(ids, epochs, lambda row: f"{source}:{row + 1}")
    except InputError:
        raise _Unusual from None
    return Results(
        source=source,
        ids=ids,
        scores=scores,
        kind=kind,
        epochs=epochs,
        slices=_labels(_column(rows, "slice")) if "slice" in optional else None,
        clusters=_labels(_column(rows, "cluster")) if "cluster" in optional else None,
        costs=costs,
        errors=errors,
        lines=lines,
        id_hashes=id_hashes,
    )
