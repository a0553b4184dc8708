"""The fast path for evalbot's own JSONL: a whole file decoded in one call.

msgspec decodes the file into columns (:mod:`.fast_decode`, which says why msgspec); this
module proves them clean and builds the ``Results``, one named step per proof.

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

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

import numpy as np
from msgspec import UNSET, UnsetType

from evalbot.errors import InputError
from evalbot.formats.builder import check_unique, parse_error_flag
from evalbot.formats.fast_decode import OPTIONAL, Decoded, decode
from evalbot.formats.idarray import IdArray, unique_order, unique_pairs
from evalbot.formats.jsonl_scan import Body, Unusual, check_lines, first_record, real_quotes
from evalbot.formats.model import BoolArray, FloatArray, IntArray, MetricKind, Results
from evalbot.formats.options import FieldNames, ReadOptions

_DEFAULT_FIELDS = FieldNames()
_SCALARS = frozenset({str, bool, int, float, type(None), UnsetType})
#: The types of a value that is missing: ``null`` and a field the row lacks.
_ABSENT = frozenset({type(None), UnsetType})


def applies(options: ReadOptions) -> bool:
    """The fast path reads the default field names only."""
    return (
        options.fields == _DEFAULT_FIELDS
        and options.metric in (None, "passed", "score")
        and not options.secondary
        and not options.columns
    )


def parse_fast(data: bytes, *, source: str, options: ReadOptions) -> Results | None:
    """``Results`` for a clean flat JSONL file, or ``None`` to use the generic path."""
    try:
        return _parse(data, source, options)
    except Unusual:
        return None


@dataclass(frozen=True, kw_only=True, eq=False)
class _Optional:
    """The optional columns some row has (by field name) with the set of their values' types,
    and the quoted tokens (keys, string values) they account for."""

    present: dict[str, list[Any]]
    types: dict[str, set[type]]
    keys: int
    strings: int


@dataclass(frozen=True, kw_only=True, eq=False)
class _Unique:
    """How the ids were proven unique: sorted strictly, or by their hashes (kept for the join)."""

    ids_sorted: bool
    id_hashes: IntArray | None = None
    id_order: IntArray | None = None


def _parse(data: bytes, source: str, options: ReadOptions) -> Results:
    body = Body(data)
    lines = check_lines(body, options.max_line_bytes)
    is_ascii = _check_text(body)
    quotes = real_quotes(body)
    first = first_record(body)
    metric = options.metric or ("passed" if "passed" in first else "score")
    optional = tuple(name for name in OPTIONAL if name in first)
    # Compact ids: an ASCII file without escapes holds each id as its bytes (no NUL, no line
    # break, nothing beyond ASCII).
    compact = is_ascii and not body.has(b"\\")
    decoded = decode(body, metric, optional, compact=compact, lines=lines)
    if decoded.rows != lines:
        raise Unusual
    ids, id_strings = _ids(decoded)
    extra = _optional_columns(decoded)
    if quotes != 2 * (2 * decoded.rows + id_strings + extra.keys + extra.strings):
        raise Unusual  # a repeated key: the generic path names it
    scores, kind = _scores(decoded.columns[metric], metric, decoded.narrow)
    epochs = _epochs(extra.present.get("epoch"), decoded.rows, extra.types.get("epoch", set()))
    errors = _errors(extra.present.get("error"), decoded.rows)
    if errors is not None:
        scores[errors] = 0.0
    unique = _unique(ids, epochs, source)
    present, types = extra.present, extra.types
    return Results(
        source=source,
        ids=ids,
        scores=scores,
        kind=kind,
        epochs=epochs,
        slices=_labels(present["slice"], types["slice"]) if "slice" in present else None,
        clusters=_labels(present["cluster"], types["cluster"]) if "cluster" in present else None,
        costs=_costs(present.get("cost"), decoded.rows),
        errors=errors,
        rows_are_lines=True,
        id_hashes=unique.id_hashes,
        id_order=unique.id_order,
        ids_sorted=unique.ids_sorted,
    )


def _check_text(body: Body) -> bool:
    """Whether the file is ASCII; a file that is not must be UTF-8 (msgspec checks the UTF-8 of
    what it decodes; the generic path checks the whole file)."""
    if body.isascii():
        return True
    try:
        str(body.view(), "utf-8")
    except UnicodeDecodeError:
        raise Unusual from None
    return False


def _ids(decoded: Decoded) -> tuple[IdArray | list[str], int]:
    """The id column, and how many of its values were strings (each one quoted token)."""
    if decoded.packed is not None:
        return decoded.packed, decoded.rows
    raw_ids: list[Any] = decoded.columns["id"]
    id_kinds: set[type] = {str} if decoded.narrow else set(map(type, raw_ids))
    strings = _strings(raw_ids, id_kinds)
    if id_kinds != {str}:
        raw_ids = [v if type(v) is str else str(v) for v in raw_ids]
    if not _usable_ids(raw_ids):
        raise Unusual  # an empty or blank id: the generic path names it
    return raw_ids, strings


def _optional_columns(decoded: Decoded) -> _Optional:
    """The optional columns some row has, each only of scalar values."""
    n = decoded.rows
    present: dict[str, list[Any]] = {}
    types: dict[str, set[type]] = {}
    keys = strings = 0
    for name in decoded.optional:
        values = decoded.columns[name]
        kinds = types[name] = set(map(type, values))
        if not kinds <= _SCALARS:
            raise Unusual
        absent = values.count(UNSET) if UnsetType in kinds else 0
        keys += n - absent
        strings += _strings(values, kinds)
        if absent < n:
            present[name] = values
    return _Optional(present=present, types=types, keys=keys, strings=strings)


def _scores(values: Any, metric: str, narrow: bool) -> tuple[FloatArray, MetricKind]:
    """The compared column as floats: 0/1 for ``passed``, finite for ``score``."""
    scores = _floats(values)
    if metric == "passed":
        if not narrow and not ((scores == 0.0) | (scores == 1.0)).all():
            raise Unusual
        return scores, "binary"
    if not np.isfinite(scores).all():
        raise Unusual
    return scores, "score"


def _epochs(raw: list[Any] | None, n: int, kinds: set[type]) -> IntArray | None:
    """Every row's epoch (a non-negative integer), or ``None`` when no row has one.

    ``kinds``: the types of ``raw``'s values (one of them ``None`` or ``UNSET`` when they are
    counted; otherwise none is missing, and counting them is skipped)."""
    if raw is None:
        return None
    missing = raw.count(None) + raw.count(UNSET) if kinds & _ABSENT else 0
    if 0 < missing < n:
        raise Unusual
    if missing:
        return None
    try:
        epochs = np.array(raw, dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        raise Unusual from None
    if (epochs < 0).any():
        raise Unusual
    return epochs


def _costs(raw: list[Any] | None, n: int) -> FloatArray | None:
    if raw is None:
        return None
    costs = [None if v is UNSET else v for v in raw]
    if costs.count(None) == n:
        return None
    floats: FloatArray = _floats(costs)
    if np.isinf(floats).any():
        raise Unusual
    return floats


def _errors(raw: list[Any] | None, n: int) -> BoolArray | None:
    """The harness-error flag of each row, ``None`` when no row errored."""
    if raw is None:
        return None
    values = [None if v is UNSET else v for v in raw]
    flags = np.fromiter(map(parse_error_flag, values), dtype=np.bool_, count=n)
    return flags if flags.any() else None


def _unique(ids: IdArray | list[str], epochs: IntArray | None, source: str) -> _Unique:
    """Proof that the ids (or the (id, epoch) pairs) are unique; repeats are unusual."""
    if isinstance(ids, IdArray) and epochs is not None:
        if not unique_pairs(ids, epochs):
            raise Unusual  # a repeated (id, epoch): the generic path names it
        return _Unique(ids_sorted=False)
    if isinstance(ids, IdArray):
        if ids.is_sorted(strictly=True):
            return _Unique(ids_sorted=True)
        hashes = ids.hashes()
        order = unique_order(ids, hashes)
        if order is None:
            raise Unusual  # a repeated id: the generic path names it
        return _Unique(ids_sorted=False, id_hashes=hashes, id_order=order)
    if epochs is None and _increasing(ids):
        return _Unique(ids_sorted=True)
    try:
        id_hashes = check_unique(ids, epochs, lambda row: f"{source}:{row + 1}")
    except InputError:
        raise Unusual from None
    return _Unique(ids_sorted=False, id_hashes=id_hashes)


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


def _usable_ids(ids: list[str]) -> bool:
    """No empty or blank id (the generic path names those), and a type ``str`` each."""
    return all(ids) and not any(map(str.isspace, ids))


def _increasing(ids: Sequence[str]) -> bool:
    """Strictly increasing (so sorted and free of repeats), in one C-level pass."""
    return all(map(operator.lt, ids, islice(ids, 1, None)))
