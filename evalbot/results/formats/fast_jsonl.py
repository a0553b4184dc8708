"""The fast path for evalbot's own JSONL: a whole file decoded in one call.

Why msgspec (and not orjson or stdlib ``json``): msgspec decodes JSON straight into a typed
``Struct`` and checks the types in C while decoding, so a file of a million flat records
becomes a list of small slot objects (no per-row dict, no Python-level type checks) in one
call; orjson would still build a dict per row for Python code to inspect. msgspec is also one
small wheel with no dependencies.

This path only *proves* that a file is clean; it never reports a problem. On anything unusual
(a blank line, an over-long line, a field it does not know, a type the ``Struct`` refuses, a
``null`` value, a repeated id, a repeated key, NaN, a non-0/1 ``passed``, ...) it returns ``None``
and :mod:`.default` parses the file with the generic path, which produces the exact message with
its line number. So both paths give the same ``Results`` for every file the fast path accepts
(property tests check it, and tests/unit/test_fast_paths.py feeds it what it must refuse).

What it proves, each with one C-level pass over the bytes or over a column (no copy of the
file: ``decode_lines`` reads it in place, a few megabytes of lines at a time):

- one record per line: the body starts with ``{``, every line break is followed by ``{`` (so
  no blank line, and no line starts inside a record: JSON strings hold no raw line break),
  and msgspec found exactly as many records as there are lines;
- no line is longer than ``max_line_bytes`` (in bytes; the generic path counts characters, so
  this errs on its side);
- only known fields (``forbid_unknown_fields``), so no unknown key hides anywhere;
- **no repeated key** in any record (the generic path refuses them): every key and every string
  value is a quoted token, so the file's real quote marks (those not escaped) number exactly
  twice the keys plus the string values that were decoded; a repeated key adds a token that
  decoding overwrote;
- unique ids: a strictly increasing id column proves it at once (and tells pairing that the
  ids are sorted); otherwise their hashes are sorted and compared (equal hashes: the generic
  path decides).
"""

from __future__ import annotations

import functools
import json
import operator
from itertools import islice
from typing import Any

import msgspec
import numpy as np
from msgspec import UNSET, UnsetType

from evalbot.errors import InputError
from evalbot.results.builder import check_unique, parse_error_flag
from evalbot.results.model import MetricKind, Results
from evalbot.results.options import FieldNames, ReadOptions

_BOM = b"\xef\xbb\xbf"
_DEFAULT_FIELDS = FieldNames()


#: Optional fields: absent from a row is ``UNSET`` (so keys can be counted), ``null`` is None.
_OPTIONAL: dict[str, Any] = {
    "epoch": int | None,
    "slice": str | int | None,
    "cluster": str | int | None,
    "cost": int | float | None,
    "error": str | bool | int | float | None,
}
#: The compared field is required and non-null: a row without it, or with null, is unusual.
#: First tried with the narrow types (string ids, true/false, float scores: no column needs a
#: type check then), and with the wide ones when msgspec refuses the narrow.
_METRIC: dict[str, Any] = {"passed": bool | int | float, "score": int | float}
_NARROW_METRIC: dict[str, Any] = {"passed": bool, "score": float}
_SCALARS = frozenset({str, bool, int, float, type(None), UnsetType})


@functools.lru_cache(maxsize=64)
def _decoder(metric: str, optional: tuple[str, ...], narrow: bool) -> msgspec.json.Decoder[Any]:
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = [
        ("id", str if narrow else str | int),
        (metric, (_NARROW_METRIC if narrow else _METRIC)[metric]),
    ]
    fields += [(name, _OPTIONAL[name] | UnsetType, UNSET) for name in optional]
    row = msgspec.defstruct(
        f"Row_{metric}_{'_'.join(optional)}{'_narrow' if narrow else ''}",
        fields,
        gc=False,
        forbid_unknown_fields=True,
    )
    return msgspec.json.Decoder(row)


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


def _labels(values: list[Any], kinds: set[type]) -> list[str | None] | None:
    """Slice/cluster labels as the generic path reads them: "" and null (or absent) are none.
    ``kinds`` is the set of the values' types."""
    if kinds <= {UnsetType, type(None)}:
        return None
    if kinds == {str} and "" not in values:
        return values
    labels = [
        None if v is None or v is UNSET or v == "" else (v if type(v) is str else str(v))
        for v in values
    ]
    return None if labels.count(None) == len(labels) else labels


def _strings(values: list[Any], kinds: set[type]) -> int:
    """How many of ``values`` are strings (each one quoted token in the file)."""
    if str not in kinds:
        return 0
    if len(kinds) == 1:
        return len(values)
    return list(map(type, values)).count(str)


def parse_fast(data: bytes, *, source: str, options: ReadOptions) -> Results | None:
    """``Results`` for a clean flat JSONL file, or ``None`` to use the generic path."""
    try:
        return _parse(data, source, options)
    except _Unusual:
        return None


def _first_record(body: bytes) -> dict[str, Any]:
    end = body.find(b"\n")
    first = body if end < 0 else body[:end]
    try:
        record = json.loads(first)
    except (ValueError, RecursionError):
        raise _Unusual from None
    if not isinstance(record, dict):
        raise _Unusual
    return record


#: Bytes scanned or decoded at a time: bounds the temporaries (a flag per byte, the decoded
#: rows) to a few megabytes whatever the file's size.
_CHUNK = 8 << 20


def _chunks(body: bytes) -> list[tuple[int, int]]:
    """``(start, end)`` spans of about ``_CHUNK`` bytes that end at a line break (or the end)."""
    spans, start = [], 0
    while start < len(body):
        end = body.find(b"\n", start + _CHUNK) if start + _CHUNK < len(body) else -1
        end = len(body) if end < 0 else end
        spans.append((start, end))
        start = end + 1
    return spans


def _check_lines(body: bytes, max_line: int) -> int:
    """The number of lines, once proven that each starts a record and none is too long."""
    if not body.startswith(b"{") or body.endswith(b"\n"):
        raise _Unusual
    octets = np.frombuffer(body, dtype=np.uint8)
    breaks = np.concatenate(
        [np.flatnonzero(octets[start:end] == 10) + start for start, end in _blocks(len(body))]
    )
    if breaks.size and not (octets[breaks + 1] == 123).all():  # "\n{" (no break ends body)
        raise _Unusual  # a blank line, or a line that does not start with a record
    if len(body) > max_line:
        ends = np.concatenate(([-1], breaks, [len(body)]))
        if int(np.diff(ends).max()) - 1 > max_line:
            raise _Unusual  # the generic path names the over-long line
    return int(breaks.size) + 1


def _blocks(size: int) -> list[tuple[int, int]]:
    return [(start, min(start + _CHUNK, size)) for start in range(0, size, _CHUNK)]


def _real_quotes(body: bytes) -> int:
    """Quote marks that open or close a string (an escaped ``\\"`` is inside one)."""
    octets = np.frombuffer(body, dtype=np.uint8)
    quotes = sum(int(np.count_nonzero(octets[a:b] == 34)) for a, b in _blocks(len(body)))
    if b"\\" not in body:
        return quotes
    if b"\\\\" in body:
        # Escapes pair up left to right inside a string, as replace() finds them: without the
        # escaped backslashes, every remaining backslash-quote is an escaped quote.
        body = body.replace(b"\\\\", b"")
    return quotes - body.count(b'\\"')


def _decode(
    body: bytes, metric: str, optional: tuple[str, ...], narrow: bool = True
) -> tuple[dict[str, list[Any]], int, tuple[str, ...], bool]:
    """The decoded columns, the row count, the optional fields and whether the narrow types
    held. Decoded a chunk of lines at a time, each chunk's rows dropped once its columns are
    taken, so the rows of a whole large file never exist at once."""
    decoder = _decoder(metric, optional, narrow)
    names = ("id", metric, *optional)
    columns: dict[str, list[Any]] = {name: [] for name in names}
    getters = [(columns[name], operator.attrgetter(name)) for name in names]
    view = memoryview(body)
    rows = 0
    try:
        for start, end in _chunks(body):
            chunk = decoder.decode_lines(view[start:end])
            rows += len(chunk)
            for column, getter in getters:
                column.extend(map(getter, chunk))
            del chunk
    except msgspec.DecodeError as error:
        message = str(error)
        if narrow and message.endswith((".id`", f".{metric}`")):
            return _decode(body, metric, optional, narrow=False)  # e.g. integer ids
        if optional != tuple(_OPTIONAL) and "unknown field" in message:
            # a later row has a known field the first one lacked: read them all
            return _decode(body, metric, tuple(_OPTIONAL), narrow)
        # Whatever msgspec dislikes, the generic path reads again and reports exactly.
        raise _Unusual from None
    except (RecursionError, ValueError):
        raise _Unusual from None
    return columns, rows, optional, narrow


def _parse(data: bytes, source: str, options: ReadOptions) -> Results:
    body = data[len(_BOM) :] if data.startswith(_BOM) else data
    if body.endswith(b"\n"):
        body = body[:-1]
    lines = _check_lines(body, options.max_line_bytes)
    if not body.isascii():
        # msgspec checks the UTF-8 of what it decodes; the generic path checks the whole file.
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            raise _Unusual from None
    quotes = _real_quotes(body)
    first = _first_record(body)
    metric = options.metric or ("passed" if "passed" in first else "score")
    optional = tuple(name for name in _OPTIONAL if name in first)
    columns, n, optional, narrow = _decode(body, metric, optional)
    if n != lines:
        raise _Unusual
    ids: list[Any] = columns["id"]
    id_kinds: set[type] = {str} if narrow else set(map(type, ids))
    keys, strings = 2 * n, _strings(ids, id_kinds)
    if id_kinds != {str}:
        ids = [v if type(v) is str else str(v) for v in ids]
    if not all(ids) or any(map(str.isspace, ids)):
        raise _Unusual  # an empty or blank id: the generic path names it
    present: dict[str, list[Any]] = {}
    types: dict[str, set[type]] = {}
    for name in optional:
        values = columns[name]
        kinds = types[name] = set(map(type, values))
        if not kinds <= _SCALARS:
            raise _Unusual
        absent = values.count(UNSET) if UnsetType in kinds else 0
        keys += n - absent
        strings += _strings(values, kinds)
        if absent < n:
            present[name] = values
    if quotes != 2 * (keys + strings):
        raise _Unusual  # a repeated key: the generic path names it
    scores = _floats(columns[metric])
    kind: MetricKind
    if metric == "passed":
        if not narrow and not ((scores == 0.0) | (scores == 1.0)).all():
            raise _Unusual
        kind = "binary"
    else:
        if not np.isfinite(scores).all():
            raise _Unusual
        kind = "score"
    epochs = None
    if "epoch" in present:
        raw_epochs = present["epoch"]
        missing = raw_epochs.count(None) + raw_epochs.count(UNSET)
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
    if "cost" in present:
        raw_costs = [None if v is UNSET else v for v in present["cost"]]
        if raw_costs.count(None) < n:
            costs = _floats(raw_costs)
            if np.isinf(costs).any():
                raise _Unusual
    errors = None
    if "error" in present:
        raw_errors = [None if v is UNSET else v for v in present["error"]]
        flags = np.fromiter(map(parse_error_flag, raw_errors), dtype=np.bool_, count=n)
        if flags.any():
            errors = flags
            scores[flags] = 0.0
    ids_sorted = epochs is None and _increasing(ids)
    id_hashes = None
    if not ids_sorted:
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
        slices=_labels(present["slice"], types["slice"]) if "slice" in present else None,
        clusters=_labels(present["cluster"], types["cluster"]) if "cluster" in present else None,
        costs=costs,
        errors=errors,
        rows_are_lines=True,
        id_hashes=id_hashes,
        ids_sorted=ids_sorted,
    )


def _increasing(ids: list[str]) -> bool:
    """Strictly increasing (so sorted and free of repeats), in one C-level pass."""
    return all(map(operator.lt, ids, islice(ids, 1, None)))
