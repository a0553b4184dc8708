"""The one JSON reader: UTF-8 text, JSON documents, and JSON Lines rows decoded by msgspec (only
the keys a format reads; every other field skipped in C), a repeated key refused naming the
file, line and key. How repeats are found cheaply: docs/performance.md.
"""

from __future__ import annotations

import itertools
import json
import operator
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

import msgspec
import numpy as np
import numpy.typing as npt
from msgspec import UNSET, UnsetType

from evalbot.errors import InputError
from evalbot.formats.builder import show
from evalbot.formats.model import IntArray
from evalbot.limits import MAX_NUMBER_DIGITS

#: Bytes decoded at a time: bounds the decoded rows held at once, whatever the file's size.
CHUNK: Final = 8 << 20
BOM: Final = b"\xef\xbb\xbf"
#: An escape that may spell a key's ASCII character another way than its plain name.
_ESCAPED_ASCII: Final = re.compile(rb"\\u00[2-7][0-9a-fA-F]|\\/")
_RAW_ROWS: Final = msgspec.json.Decoder(dict[str, msgspec.Raw])


class UnreadableError(InputError):
    """A file is not in the shape its format reads (not UTF-8, not JSON, wrong structure)."""


#: The absence of a parsed value (``None`` is a JSON value).
NOTHING: Final[Any] = UNSET


def decode_text(data: bytes, source: str) -> str:
    """UTF-8 text (a BOM is allowed); undecodable bytes are reported with their line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _not_utf8(data, error.start, source) from None


def _not_utf8(data: bytes, at: int, source: str, line: int = 1, offset: int = 0) -> InputError:
    """The message for bytes at ``at`` of ``data`` (which starts on ``line``, at ``offset``)."""
    line += data.count(b"\n", 0, at)
    return UnreadableError(f"{source}:{line}: not valid UTF-8 (byte offset {offset + at})")


# --- documents and single values: the standard library, every object's keys checked -----------


class _Long:
    """An integer of more than :data:`~evalbot.limits.MAX_NUMBER_DIGITS` digits, read in place
    of its value (no result value is that long; a float holds 308 digits, Python converts at
    most 4,300)."""

    def __init__(self, literal: str) -> None:
        self.digits = len(literal.lstrip("-"))


def long_number(where: str, digits: int) -> str:
    """The message for an integer too long to be a value."""
    return (
        f"{where}: a number of {digits} digits (more than {MAX_NUMBER_DIGITS}): no result "
        "value is that long"
    )


class _Parse:
    """The standard library's parse, noting every object that repeats a key (by ``id``) and
    every integer too long to be a value, instead of refusing at once."""

    def __init__(self) -> None:
        self.repeats: dict[int, tuple[Any, list[str]]] = {}  # the object, the keys it repeats
        self.long = False
        self.decoder = json.JSONDecoder(object_pairs_hook=self._object, parse_int=self._int)

    def _object(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        built = dict(pairs)
        if len(built) != len(pairs):
            repeated = [k for k, n in Counter(k for k, _ in pairs).items() if n > 1]
            self.repeats[id(built)] = (built, repeated)
        return built

    def _int(self, literal: str) -> int | _Long:
        if len(literal) > MAX_NUMBER_DIGITS and len(literal.lstrip("-")) > MAX_NUMBER_DIGITS:
            self.long = True
            return _Long(literal)
        return int(literal)

    def of(self, node: object) -> list[str]:
        """The keys ``node`` (an object of the parsed value) repeats."""
        noted = self.repeats.get(id(node))
        return noted[1] if noted is not None and noted[0] is node else []

    def problem(self, node: object, where: str, *, starts: bool = False) -> str | None:
        """What is wrong in ``node`` itself (not below): a key it repeats, or it is a number too
        long."""
        if self.of(node):
            return _duplicate_message(where, self.of(node)[0], starts=starts)
        return long_number(where, node.digits) if isinstance(node, _Long) else None

    def decode(self, text: str, where: str, *, lines: bool = False) -> Any:
        """``text`` parsed; an error names ``where`` (and the line, with ``lines``)."""
        try:
            return self.decoder.decode(text)
        except json.JSONDecodeError as error:
            at = f"{where}:{error.lineno}" if lines else where
            raise UnreadableError(f"{at}: not valid JSON ({error.msg})") from None
        except RecursionError:
            raise UnreadableError(f"{where}: JSON nested too deeply") from None

    def found(self) -> bool:
        return bool(self.repeats) or self.long


def _duplicate_message(where: str, key: str, *, starts: bool = False) -> str:
    what = "the JSON object that starts on this line" if starts else "one JSON object"
    return f"{where}: duplicate key {show(key)} in {what} (refused: which one counts?)"


def _parsed(text: str, where: str, *, document: bool) -> tuple[Any, str | None]:
    """``text`` parsed (an error names ``where``, and the line in a ``document``), and the
    message naming what is wrong in it (a repeated key, a number too long), ``None`` when
    nothing is; in a ``document``, the message names the line of the object holding it."""
    parse = _Parse()
    value = parse.decode(text, where, lines=document)
    if not parse.found():
        return value, None
    if document:
        return value, _located(text, where, value, parse)
    return value, _first_problem(value, parse, where)[1]


def parse_json_document(text: str, source: str) -> Any:
    """A whole JSON document; an error names ``source`` and its line."""
    value, problem = _parsed(text, source, document=True)
    if problem is not None:
        raise InputError(problem)
    return value


def parse_json_line(line: str, where: str) -> Any:
    """One line of JSON Lines, or one JSON value of a field; ``where`` names its place."""
    value, problem = _parsed(line, where, document=False)
    if problem is not None:
        raise InputError(problem)
    return value


def parse_json_prefix(data: memoryview, source: str, line: int | None) -> tuple[Any, str | None]:
    """``data`` as exactly one JSON value in UTF-8, or :data:`NOTHING` when it is not one; and
    the message naming what is wrong in it, ``None`` when nothing is. ``line`` is the line
    ``data`` starts on when it is one line of the file, ``None`` when it is the whole file."""
    try:
        where = source if line is None else f"{source}:{line}"
        return _parsed(str(data, "utf-8"), where, document=line is None)
    except (UnicodeDecodeError, UnreadableError):
        return NOTHING, None


def _located(text: str, source: str, value: Any, parse: _Parse) -> str:
    """The message for what is wrong in a document, naming the line the object holding it
    starts on: found from the object's path in the parsed value and its text (msgspec's raw
    spans of that path)."""
    steps, message = _first_problem(value, parse, source)
    data = text.encode("utf-8", "surrogatepass")
    try:
        raw: bytes = data
        for step in steps:  # an index into an array, or a key of an object
            shape: Any = list[msgspec.Raw] if isinstance(step, int) else dict[str, msgspec.Raw]
            raw = bytes(msgspec.json.decode(raw, type=shape)[step])
    except (msgspec.DecodeError, RecursionError):
        return message  # msgspec reads no NaN: no line then
    line = data.count(b"\n", 0, data.find(raw)) + 1
    return _first_problem(value, parse, f"{source}:{line}", starts=True)[1]


def _walk(value: Any) -> Iterator[tuple[Any, list[str | int]]]:
    """Each node of a parsed value, in document order, with the keys and indexes leading to it."""
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        node, steps = stack.pop()
        yield node, steps
        if isinstance(node, dict | list):
            children = node.items() if isinstance(node, dict) else enumerate(node)
            stack.extend(reversed([(child, [*steps, step]) for step, child in children]))


def _first_problem(
    value: Any, parse: _Parse, where: str, *, starts: bool = False
) -> tuple[list[str | int], str]:
    """The keys and indexes leading to the first object (in document order) with something
    wrong in it (the object or array holding a number too long), and the message naming
    ``where``."""
    for node, steps in _walk(value):
        if (problem := parse.problem(node, where, starts=starts)) is not None:
            return (steps[:-1] if isinstance(node, _Long) else steps), problem
    raise AssertionError("a noted problem is in the value")  # pragma: no cover - noted when read


def jsonl_records(
    text: str, source: str, max_line: int, what: str | None = None
) -> Iterator[tuple[str, Any]]:
    """(where, record) for each non-blank line of JSON Lines text; one-line errors. With
    ``what``, each record must be an object (``what`` names one in the message)."""
    # Lines end at "\n" only (JSON Lines): str.splitlines would also split at U+2028 and
    # other separators that are legal inside JSON strings.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        if len(line) > max_line:
            raise UnreadableError(f"{where}: line longer than {max_line} bytes")
        record = parse_json_line(line, where)
        if what is not None and not isinstance(record, dict):
            raise UnreadableError(f"{where}: expected an object per {what}, got {show(record)}")
        yield where, record


# --- JSON Lines rows: msgspec, only the keys read ---------------------------------------------


def chunks(data: bytes) -> Iterator[memoryview]:
    """``data`` in views of about :data:`CHUNK` bytes, each up to a line end (not included)."""
    view, start = memoryview(data), 0  # views: msgspec and numpy read them without a copy
    while start < len(data):
        end = data.find(b"\n", start + CHUNK) if start + CHUNK < len(data) else -1
        end = len(data) - data.endswith(b"\n") if end < 0 else end
        yield view[start:end]
        start = end + 1


def read_rows(
    pieces: Iterable[memoryview],
    *,
    source: str,
    keys: Sequence[str],
    optional: Sequence[str] = (),
    paths: Sequence[Sequence[str]] = (),
    types: Sequence[type] = (),
    max_line: int,
) -> Rows:
    """The values of ``keys`` and ``optional`` (keys most rows lack) in every row of a JSON
    Lines file, given in pieces that end at line ends (:func:`chunks`; each piece is read before
    the next is asked for); each row must be an object (one per item). ``paths`` are the dotted
    names read below a key (``("metrics", "em")``): their keys are checked for repeats too.
    ``types``: the types the first keys usually hold (``str`` for an id), tried first.
    Raises :class:`InputError` naming the file and the line."""
    always = tuple(dict.fromkeys(keys))
    names = tuple(dict.fromkeys([*always, *optional]))
    dotted = [tuple(p) for p in paths if len(p) > 1]
    rows = Rows(source, names, len(always), tuple(types[: len(always)]), dotted, max_line)
    line, offset = 1, 0
    for piece in pieces:
        bom = len(BOM) if offset == 0 and piece[: len(BOM)].tobytes() == BOM else 0
        chunk = bytes(piece[bom:])
        try:
            if not chunk.isascii():  # the file is UTF-8: checked a piece at a time
                chunk.decode("utf-8")
        except UnicodeDecodeError as error:
            raise _not_utf8(chunk, error.start, source, line, offset + bom) from None
        offset += len(piece) + 1
        line = rows.chunk(chunk, line)
    rows.lines = None if rows.numbers is None else np.concatenate(rows.numbers)
    rows.numbers = None  # read: held once, as lines
    return rows


@lru_cache(maxsize=32)
def _decoder(
    keys: tuple[str, ...], only: bool, lacks: int = 0, types: tuple[type, ...] = ()
) -> msgspec.json.Decoder[Any]:
    """Rows of ``keys`` (``only``: a row with any other key is refused; ``lacks``: a row with
    any of the last ``lacks`` keys is refused; ``types``: the first keys', which every row must
    hold)."""
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = [
        (f"f{i}", t) for i, t in enumerate(types)
    ]
    for i in range(len(types), len(keys)):
        fields.append((f"f{i}", Any if i < len(keys) - lacks else UnsetType, UNSET))
    rename = {f"f{i}": key for i, key in enumerate(keys)}
    row = msgspec.defstruct("Row", fields, rename=rename, gc=False, forbid_unknown_fields=only)
    return msgspec.json.Decoder(row)


@dataclass(eq=False)
class Rows:
    """The rows of a JSON Lines file read into columns (see :func:`read_rows`): one list of
    values per key read (``UNSET`` where a row lacks the key; ``None`` when no row has it), the
    line of each row, and the type of every value of a typed key when each row held it with
    that type (msgspec checked it).

    Each chunk is decoded in one call when each line holds one object and none is too long,
    else line by line. Four decoders: rows holding the keys always read, of their usual types,
    and no other (the first tried: nothing else to look at), rows holding the keys read and no
    other (the ones checked for repeated keys), rows holding the keys always read, of their
    usual types, and none of the other keys read (only those are looked at), any rows."""

    source: str
    keys: tuple[str, ...]
    always: int
    types: tuple[type, ...]
    paths: list[tuple[str, ...]]
    max_line: int

    def __post_init__(self) -> None:
        keys, always, types = self.keys, self.always, self.types
        self.bare, self.only = _decoder(keys[:always], True, 0, types), _decoder(keys, True)
        self.skim = _decoder(keys, False, len(keys) - always, types)
        self.decoder = _decoder(keys, False)
        self.typed = True  # every row so far read by bare or skim: the types are known
        self.getters = [operator.attrgetter(f"f{i}") for i in range(len(keys))]
        self.columns: dict[str, list[Any] | None] = dict.fromkeys(keys)
        self.numbers: list[IntArray] | None = None  # None: row i is line i + 1 so far
        self.count = 0
        self.lines: IntArray | None = None  # once read; None: row i is line i + 1

    @property
    def kinds(self) -> dict[str, set[type]]:
        """The type of each typed key's values, when every row read held it with that type."""
        typed = self.types if self.typed and self.count else ()
        return {key: {kind} for key, kind in zip(self.keys, typed, strict=False)}

    def line(self, row: int) -> int:
        return row + 1 if self.lines is None else int(self.lines[row])

    def where(self, row: int) -> str:
        return f"{self.source}:{self.line(row)}"

    def chunk(self, data: bytes, first: int) -> int:
        """Read the lines ``first``, ``first + 1``, ... of ``data``; the line after them."""
        octets = np.frombuffer(data, dtype=np.uint8)
        breaks = np.flatnonzero(octets == ord("\n"))
        count = len(breaks) + 1
        decoded = self._decode(data, octets, breaks)
        if decoded is None:  # a blank line, two values on a line, a line too long or refused
            rows, lines, decoder = self._line_by_line(data.split(b"\n"), first)
        else:
            (rows, decoder), lines = decoded, np.arange(first, first + count)
        typed = decoder is self.bare or decoder is self.skim
        present = self._add(rows, typed)
        self.typed = self.typed and typed
        self._number(lines)
        if decoder is self.bare or decoder is self.only:
            self._check_repeats(data, octets, first, present, bare=decoder is self.bare)
        return first + count

    def _decode(
        self, data: bytes, octets: npt.NDArray[np.uint8], breaks: IntArray
    ) -> tuple[list[Any], msgspec.json.Decoder[Any]] | None:
        """The rows and the narrowest decoder that read them, when each line starts an object
        (so a line holding two values, or none, shows in the count of rows)."""
        longest = np.diff(breaks, prepend=-1, append=len(data)).max() - 1
        starts = octets[np.minimum(breaks + 1, len(octets) - 1)] == ord("{")
        if longest > self.max_line or data[:1] != b"{" or not starts.all():
            return None
        for decoder in (self.bare, self.only, self.skim, self.decoder):
            try:
                rows = decoder.decode_lines(data)
            except (msgspec.DecodeError, RecursionError):
                continue
            return (rows, decoder) if len(rows) == len(breaks) + 1 else None
        return None

    def _add(self, rows: list[Any], typed: bool) -> dict[str, int]:
        """Each key's values in ``rows`` onto its column (``typed``: only the keys always read,
        the typed ones in every row); how many rows have each key read."""
        getters = self.getters[: self.always] if typed else self.getters
        columns = [list(map(get, rows)) for get in getters]
        present: dict[str, int] = {}
        for i, (key, values) in enumerate(itertools.zip_longest(self.keys, columns)):
            if typed and i < len(self.types):
                present[key] = len(rows)
            else:
                present[key] = 0 if values is None else len(values) - values.count(UNSET)
            if present[key] and self.columns[key] is None:
                self.columns[key] = [UNSET] * self.count
            column = self.columns[key]
            if column is not None:
                column.extend(values if present[key] else [UNSET] * len(rows))
        self.count += len(rows)
        return present

    def _number(self, lines: IntArray) -> None:
        """Note the lines of a chunk's rows, unless row i is still line i + 1."""
        if self.numbers is None and (not len(lines) or lines[-1] == self.count):
            return
        if self.numbers is None:
            self.numbers = [np.arange(1, self.count - len(lines) + 1, dtype=np.int64)]
        self.numbers.append(lines.astype(np.int64))

    def _line_by_line(
        self, lines: list[bytes], first: int
    ) -> tuple[list[Any], IntArray, msgspec.json.Decoder[Any]]:
        """Each non-blank line decoded alone; a line msgspec refuses is read by the standard
        library (which reads NaN, or names what is wrong). The decoder returned is ``only``
        when every row holds the keys read and no other."""
        rows: list[Any] = []
        numbers: list[int] = []
        only = True
        for number, line in enumerate(lines, start=first):
            if not line.strip():
                continue
            where = f"{self.source}:{number}"
            if len(line) > self.max_line:
                raise UnreadableError(f"{where}: line longer than {self.max_line} bytes")
            try:
                row = self.decoder.decode(line)
                only = only and self._only(line)
            except (msgspec.DecodeError, RecursionError):
                record = self._record(line, where)
                if not isinstance(record, dict):
                    raise UnreadableError(
                        f"{where}: expected an object per item, got {show(record)}"
                    ) from None
                row = msgspec.convert(record, self.decoder.type)
                only = only and set(record) <= set(self.keys)
            rows.append(row)
            numbers.append(number)
        return rows, np.asarray(numbers, dtype=np.int64), self.only if only else self.decoder

    def _only(self, line: bytes) -> bool:
        """Whether the line holds the keys read and no other."""
        try:
            self.only.decode(line)
        except msgspec.DecodeError:
            return False
        return True

    def _check_repeats(
        self,
        chunk: bytes,
        octets: npt.NDArray[np.uint8],
        first: int,
        present: dict[str, int],
        *,
        bare: bool,
    ) -> None:
        """Refuse a row (holding the keys read and no other) that repeats one. Rows ``bare``
        read (the typed keys alone) repeat none when the chunk, holding no backslash, has two
        quotes per key and ``str`` value of each row: each string is two quotes. Otherwise each
        key's quoted name occurs in the chunk as often as rows have the key when none repeats
        it, unless a line spells a name with an escape; the lines left in doubt are read again
        by the standard library."""
        if bare and len(self.types) == self.always and b"\\" not in chunk:
            strings = self.always + self.types.count(str)
            if np.count_nonzero(octets == ord('"')) == 2 * strings * present[self.keys[0]]:
                return
        names = dict.fromkeys(key for key, n in present.items() if n)
        names.update(dict.fromkeys(part for p in self.paths if present[p[0]] for part in p))
        tokens = [msgspec.json.encode(key) for key in names]
        doubtful = [
            t
            for t, key in zip(tokens, names, strict=True)
            if chunk.count(t) not in (0, present.get(key))
        ]
        escaped = b"\\" in chunk and _ESCAPED_ASCII.search(chunk) is not None
        for i, line in enumerate(chunk.split(b"\n") if escaped or doubtful else ()):
            if (escaped and _ESCAPED_ASCII.search(line)) or (
                any(line.count(token) > 1 for token in doubtful)
                and (self.paths or not _once_each(line, tokens))
            ):
                self._record(line, f"{self.source}:{first + i}")

    def _record(self, line: bytes, where: str) -> Any:
        """One line read by the standard library; a key read that its object repeats (at the
        top, or along a dotted name's path), or a value read holding a number too long, is
        refused."""
        parse = _Parse()
        record = parse.decode(line.decode("utf-8"), where)  # the file is UTF-8: checked first
        if parse.long and isinstance(record, dict):
            values = _walk([record.get(key) for key in self.keys])
            long = next((node for node, _ in values if isinstance(node, _Long)), None)
            if long is not None:
                raise InputError(long_number(where, long.digits))
        objects: list[Any] = [(record, set(self.keys))]
        for path in self.paths:
            node = record
            for depth, part in enumerate(path[:-1]):
                node = node.get(part) if isinstance(node, dict) else None
                objects.append((node, {path[depth + 1]}))
        for node, keys in objects:
            for key in parse.of(node):
                if key in keys:
                    raise InputError(_duplicate_message(where, key))
        return record


def _once_each(line: bytes, tokens: list[bytes]) -> bool:
    """Whether each quoted name occurs at most once in the line outside its object's values
    (msgspec's raw spans of them): then the object repeats none of those keys."""
    try:
        values = b"\x00".join(_RAW_ROWS.decode(line).values())
    except (msgspec.DecodeError, RecursionError):
        return False
    return all(line.count(token) - values.count(token) <= 1 for token in tokens)
