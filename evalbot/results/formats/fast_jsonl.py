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
import operator
from collections.abc import Sequence
from itertools import islice
from typing import Any

import msgspec
import numpy as np
from msgspec import UNSET, UnsetType

from evalbot.errors import InputError
from evalbot.results.builder import check_unique, parse_error_flag
from evalbot.results.formats.jsonl_scan import (
    Body,
    Unusual,
    check_lines,
    chunks,
    first_record,
    real_quotes,
)
from evalbot.results.idarray import IdArray, compact_ids, concat, unique_order, unique_pairs
from evalbot.results.model import MetricKind, Results
from evalbot.results.options import FieldNames, ReadOptions

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


def applies(options: ReadOptions) -> bool:
    """The fast path reads the default field names only."""
    return (
        options.fields == _DEFAULT_FIELDS
        and options.metric in (None, "passed", "score")
        and not options.secondary
        and not options.columns
    )


def _floats(values: Any) -> Any:
    if isinstance(values, np.ndarray):
        return values  # already floats (the narrow types, read a chunk at a time)
    try:
        return np.array(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise Unusual from None


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
    except Unusual:
        return None


def _decode(
    body: Body,
    metric: str,
    optional: tuple[str, ...],
    narrow: bool = True,
    compact: bool = False,
    lines: int = 0,
) -> tuple[dict[str, Any], int, tuple[str, ...], bool, IdArray | None]:
    """The decoded columns, the row count, the optional fields, whether the narrow types
    held, and with ``compact`` the ids as an :class:`IdArray` (``None``: they are in the
    ``id`` column). Decoded a chunk of lines at a time, each chunk's rows dropped once its
    columns are taken, so the rows of a whole large file never exist at once; compact ids
    are packed a chunk at a time too (their strings never all exist at once), and with the
    narrow types the compared value goes straight into a float array of ``lines`` rows."""
    decoder = _decoder(metric, optional, narrow)
    names = ("id", *optional) if narrow else ("id", metric, *optional)
    columns: dict[str, Any] = {name: [] for name in names}
    getters = [(columns[name], operator.attrgetter(name)) for name in names]
    if compact:
        getters = getters[1:]
    id_of, value_of = operator.attrgetter("id"), operator.attrgetter(metric)
    values = np.empty(lines, dtype=np.float64)
    packed: list[IdArray] = []
    view = body.view()
    rows = 0
    try:
        for start, end in chunks(body):
            chunk = decoder.decode_lines(view[start:end])
            if narrow:
                if rows + len(chunk) > lines:
                    raise Unusual  # more records than lines
                values[rows : rows + len(chunk)] = np.fromiter(
                    map(value_of, chunk), dtype=np.float64, count=len(chunk)
                )
            rows += len(chunk)
            for column, getter in getters:
                column.extend(map(getter, chunk))
            if compact:
                ids = list(map(id_of, chunk))
                part = compact_ids(ids, checked=True)
                if part is None:  # an unusual id: every id as a string, as usual
                    columns["id"] = [i for p in packed for i in p] + ids
                    getters.insert(0, (columns["id"], id_of))
                    packed, compact = [], False
                else:
                    packed.append(part)
            del chunk
    except msgspec.DecodeError as error:
        message = str(error)
        if narrow and message.endswith((".id`", f".{metric}`")):
            return _decode(body, metric, optional, narrow=False)  # e.g. integer ids
        if optional != tuple(_OPTIONAL) and "unknown field" in message:
            # a later row has a known field the first one lacked: read them all
            return _decode(body, metric, tuple(_OPTIONAL), narrow, compact, lines)
        # Whatever msgspec dislikes, the generic path reads again and reports exactly.
        raise Unusual from None
    except (RecursionError, ValueError):
        raise Unusual from None
    if narrow:
        columns[metric] = values[:rows]
    if compact and packed:
        return columns, rows, optional, narrow, concat(packed)
    return columns, rows, optional, narrow, None


def _usable_ids(ids: list[str]) -> bool:
    """No empty or blank id (the generic path names those), and a type ``str`` each."""
    return all(ids) and not any(map(str.isspace, ids))


def _parse(data: bytes, source: str, options: ReadOptions) -> Results:
    body = Body(data)
    lines = check_lines(body, options.max_line_bytes)
    is_ascii = body.isascii()
    if not is_ascii:
        # msgspec checks the UTF-8 of what it decodes; the generic path checks the whole file.
        try:
            str(body.view(), "utf-8")
        except UnicodeDecodeError:
            raise Unusual from None
    quotes = real_quotes(body)
    first = first_record(body)
    metric = options.metric or ("passed" if "passed" in first else "score")
    optional = tuple(name for name in _OPTIONAL if name in first)
    # Compact ids: an ASCII file without escapes holds each id as its bytes (no NUL, no line
    # break, nothing beyond ASCII).
    compact = is_ascii and not body.has(b"\\")
    columns, n, optional, narrow, packed = _decode(
        body, metric, optional, compact=compact, lines=lines
    )
    if n != lines:
        raise Unusual
    ids: Sequence[str]
    if packed is not None:
        ids = packed
        keys, strings = 2 * n, n
    else:
        raw_ids: list[Any] = columns["id"]
        id_kinds: set[type] = {str} if narrow else set(map(type, raw_ids))
        keys, strings = 2 * n, _strings(raw_ids, id_kinds)
        if id_kinds != {str}:
            raw_ids = [v if type(v) is str else str(v) for v in raw_ids]
        if not _usable_ids(raw_ids):
            raise Unusual  # an empty or blank id: the generic path names it
        ids = raw_ids
    present: dict[str, list[Any]] = {}
    types: dict[str, set[type]] = {}
    for name in optional:
        values = columns[name]
        kinds = types[name] = set(map(type, values))
        if not kinds <= _SCALARS:
            raise Unusual
        absent = values.count(UNSET) if UnsetType in kinds else 0
        keys += n - absent
        strings += _strings(values, kinds)
        if absent < n:
            present[name] = values
    if quotes != 2 * (keys + strings):
        raise Unusual  # a repeated key: the generic path names it
    scores = _floats(columns[metric])
    kind: MetricKind
    if metric == "passed":
        if not narrow and not ((scores == 0.0) | (scores == 1.0)).all():
            raise Unusual
        kind = "binary"
    else:
        if not np.isfinite(scores).all():
            raise Unusual
        kind = "score"
    epochs = None
    if "epoch" in present:
        raw_epochs = present["epoch"]
        missing = raw_epochs.count(None) + raw_epochs.count(UNSET)
        if 0 < missing < n:
            raise Unusual
        if missing == 0:
            try:
                epochs = np.array(raw_epochs, dtype=np.int64)
            except (TypeError, ValueError, OverflowError):
                raise Unusual from None
            if (epochs < 0).any():
                raise Unusual
    costs = None
    if "cost" in present:
        raw_costs = [None if v is UNSET else v for v in present["cost"]]
        if raw_costs.count(None) < n:
            costs = _floats(raw_costs)
            if np.isinf(costs).any():
                raise Unusual
    errors = None
    if "error" in present:
        raw_errors = [None if v is UNSET else v for v in present["error"]]
        flags = np.fromiter(map(parse_error_flag, raw_errors), dtype=np.bool_, count=n)
        if flags.any():
            errors = flags
            scores[flags] = 0.0
    id_hashes = id_order = None
    if isinstance(ids, IdArray) and epochs is not None:
        ids_sorted = False
        if not unique_pairs(ids, epochs):
            raise Unusual  # a repeated (id, epoch): the generic path names it
    elif isinstance(ids, IdArray):
        ids_sorted = ids.is_sorted(strictly=True)
        if not ids_sorted:
            id_hashes = ids.hashes()
            id_order = unique_order(ids, id_hashes)
            if id_order is None:
                raise Unusual  # a repeated id: the generic path names it
    else:
        ids_sorted = epochs is None and _increasing(ids)
        if not ids_sorted:
            try:
                id_hashes = check_unique(ids, epochs, lambda row: f"{source}:{row + 1}")
            except InputError:
                raise Unusual from None
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
        id_order=id_order,
        ids_sorted=ids_sorted,
    )


def _increasing(ids: list[str]) -> bool:
    """Strictly increasing (so sorted and free of repeats), in one C-level pass."""
    return all(map(operator.lt, ids, islice(ids, 1, None)))
