"""The fast path's decoding: a flat JSONL file decoded by msgspec into columns, a chunk of lines
at a time (for :mod:`.fast_jsonl`, which proves the columns clean).

Why msgspec (and not orjson or stdlib ``json``): msgspec decodes JSON straight into a typed
``Struct`` and checks the types in C while decoding, so a file of a million flat records
becomes a list of small slot objects (no per-row dict, no Python-level type checks) in one
call; orjson would still build a dict per row for Python code to inspect. msgspec is also one
small wheel with no dependencies.

Each chunk's rows are dropped once its columns are taken, so the rows of a whole large file
never exist at once; compact ids are packed a chunk at a time too (their strings never all
exist at once), and with the narrow types the compared value goes straight into a float array.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np
from msgspec import UNSET, UnsetType

from evalbot.formats.idarray import IdArray, compact_ids, concat
from evalbot.formats.jsonl_scan import Body, Unusual, chunks

#: Optional fields: absent from a row is ``UNSET`` (so keys can be counted), ``null`` is None.
OPTIONAL: dict[str, Any] = {
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


@functools.lru_cache(maxsize=64)
def _decoder(metric: str, optional: tuple[str, ...], narrow: bool) -> msgspec.json.Decoder[Any]:
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = [
        ("id", str if narrow else str | int),
        (metric, (_NARROW_METRIC if narrow else _METRIC)[metric]),
    ]
    fields += [(name, OPTIONAL[name] | UnsetType, UNSET) for name in optional]
    row = msgspec.defstruct(
        f"Row_{metric}_{'_'.join(optional)}{'_narrow' if narrow else ''}",
        fields,
        gc=False,
        forbid_unknown_fields=True,
    )
    return msgspec.json.Decoder(row)


@dataclass(frozen=True, kw_only=True, eq=False)
class Decoded:
    """The decoded columns (by field name), the row count, the optional fields decoded, and
    whether the narrow types held. ``packed``: the ids as an :class:`IdArray` (``None``: they
    are in the ``id`` column)."""

    columns: dict[str, Any]
    rows: int
    optional: tuple[str, ...]
    narrow: bool
    packed: IdArray | None


class _Sink:
    """The columns filled a chunk of decoded rows at a time."""

    def __init__(
        self, metric: str, optional: tuple[str, ...], narrow: bool, compact: bool, lines: int
    ) -> None:
        names = ("id", *optional) if narrow else ("id", metric, *optional)
        self.columns: dict[str, Any] = {name: [] for name in names}
        self.getters: list[tuple[list[Any], Callable[[Any], Any]]] = [
            (self.columns[name], operator.attrgetter(name)) for name in names
        ]
        if compact:
            self.getters = self.getters[1:]
        self.id_of, self.value_of = operator.attrgetter("id"), operator.attrgetter(metric)
        self.narrow, self.compact = narrow, compact
        self.values = np.empty(lines, dtype=np.float64)
        # narrow ``passed`` values are bools: gathered as such (a quarter faster than as
        # floats), the float column takes them as 0.0 and 1.0
        self.value_type = np.bool_ if metric == "passed" else np.float64
        self.packed: list[IdArray] = []
        self.rows = 0

    def add(self, chunk: list[Any]) -> None:
        if self.narrow:
            if self.rows + len(chunk) > len(self.values):
                raise Unusual  # more records than lines
            self.values[self.rows : self.rows + len(chunk)] = np.fromiter(
                map(self.value_of, chunk), dtype=self.value_type, count=len(chunk)
            )
        self.rows += len(chunk)
        for column, getter in self.getters:
            column.extend(map(getter, chunk))
        if self.compact:
            self._pack(chunk)

    def _pack(self, chunk: list[Any]) -> None:
        ids = list(map(self.id_of, chunk))
        part = compact_ids(ids, checked=True)
        if part is None:  # an unusual id: every id as a string, as usual
            self.columns["id"] = [i for p in self.packed for i in p] + ids
            self.getters.insert(0, (self.columns["id"], self.id_of))
            self.packed, self.compact = [], False
        else:
            self.packed.append(part)

    def decoded(self, metric: str, optional: tuple[str, ...]) -> Decoded:
        if self.narrow:
            self.columns[metric] = self.values[: self.rows]
        packed = concat(self.packed) if self.compact and self.packed else None
        return Decoded(
            columns=self.columns,
            rows=self.rows,
            optional=optional,
            narrow=self.narrow,
            packed=packed,
        )


def decode(
    body: Body,
    metric: str,
    optional: tuple[str, ...],
    narrow: bool = True,
    compact: bool = False,
    lines: int = 0,
) -> Decoded:
    """The file's columns, decoded with the narrow types when they hold (then the compared
    value goes into a float array of ``lines`` rows) and ids packed with ``compact``."""
    decoder = _decoder(metric, optional, narrow)
    sink = _Sink(metric, optional, narrow, compact, lines)
    view = body.view()
    try:
        for start, end in chunks(body):
            sink.add(decoder.decode_lines(view[start:end]))
    except msgspec.DecodeError as error:
        message = str(error)
    except (RecursionError, ValueError):
        raise Unusual from None
    else:
        return sink.decoded(metric, optional)
    del sink, view
    if narrow and message.endswith((".id`", f".{metric}`")):
        return decode(body, metric, optional, narrow=False)  # e.g. integer ids
    if optional != tuple(OPTIONAL) and "unknown field" in message:
        # a later row has a known field the first one lacked: read them all
        return decode(body, metric, tuple(OPTIONAL), narrow, compact, lines)
    # Whatever msgspec dislikes, the generic path reads again and reports exactly.
    raise Unusual
