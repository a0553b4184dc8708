"""One file as every parser sees it, and what the harness parsers share in reading it.

:class:`Probe`: what format detection learns about a file, once and in linear time (its kind by
the first significant byte: zip, xml, json document, jsonl, text; for JSON, the parsed document
or first record that each format's ``sniff`` tests), and its text. :func:`choose` picks the one
scorer, metric or filter compared among those a run has; :func:`number_or_flag` reads a
per-item value as a pass/fail outcome or a score.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final, Literal, Protocol

from evalbot.errors import InputError
from evalbot.formats.archive import is_zip
from evalbot.formats.builder import show
from evalbot.formats.jsontext import (
    BOM,
    NOTHING,
    chunks,
    decode_text,
    parse_json_document,
    parse_json_prefix,
)

Kind = Literal["zip", "xml", "json", "jsonl", "text"]

#: yes/no and true/false as text, read as a pass/fail outcome.
YES_NO: Final = {"yes": (1.0, True), "true": (1.0, True), "no": (0.0, True), "false": (0.0, True)}
SIGNIFICANT: Final = re.compile(rb"[^ \t\r\n]")
JSONL_SUFFIXES: Final = (".jsonl", ".ndjson")


def base_name(name: str) -> str:
    """The last component of a path or an archive member (``a.zip!dir/f.jsonl`` -> ``f.jsonl``)."""
    return name.replace("\\", "/").rsplit("!", 1)[-1].rsplit("/", 1)[-1]


class Source(Protocol):
    """A file too large to hold whole unless a parser needs it so: its first bytes (its first
    line included, when that is a valid line), the whole file, and the file in pieces ending at
    line ends (as :func:`.jsontext.chunks` gives them of bytes held)."""

    head: bytes

    def whole(self) -> bytes: ...

    def pieces(self) -> Iterator[memoryview]: ...


class Held:
    """A file's bytes held whole, as a :class:`Source`."""

    def __init__(self, data: bytes) -> None:
        self.head = data

    def whole(self) -> bytes:
        return self.head

    def pieces(self) -> Iterator[memoryview]:
        return chunks(self.head)


def held(data: bytes | Source) -> Source:
    """``data`` as a :class:`Source`: bytes are held whole."""
    return Held(data) if isinstance(data, bytes) else data


class Probe:
    """One file as detection sees it (see the module docstring).

    Attributes
    ----------
    name, base, lowered
        The file name as given, its last component, and the name lower-cased.
    source
        The :class:`Source` reading the file (:class:`Held` once it is read whole).
    kind
        ``zip``, ``xml``, ``json``, ``jsonl`` or ``text``.
    document
        The parsed value when ``kind == "json"`` and it parsed, else :data:`NOTHING`.
    record
        The first record's parsed value when ``kind == "jsonl"`` and it parsed, else
        :data:`NOTHING`.
    """

    def __init__(self, name: str, data: bytes | Source) -> None:
        self.name = name
        self.base = base_name(name)
        self.lowered = name.lower()
        self.source = held(data)
        self.document: Any = NOTHING
        self.record: Any = NOTHING
        self.kind: Kind = self._classify(self.source.head)

    @property
    def data(self) -> bytes:
        """The whole file (read now when only its head was, and held from then on)."""
        if not isinstance(self.source, Held):
            self.source = Held(self.source.whole())
        return self.source.head

    def text(self) -> str:
        """The file as UTF-8 text."""
        return decode_text(self.data, self.name)

    def json(self) -> Any:
        """The JSON document; parsed here when detection could not (its error is the file's)."""
        if self.document is NOTHING:
            return parse_json_document(self.text(), self.name)
        return self.document

    def _classify(self, data: bytes) -> Kind:
        if is_zip(data):
            return "zip"
        start_at = len(BOM) if data.startswith(BOM) else 0
        found = SIGNIFICANT.search(data, start_at)
        start = len(data) if found is None else found.start()
        line_end = data.find(b"\n", start)
        rest = None if line_end < 0 else SIGNIFICANT.search(data, line_end)
        if rest is None and not isinstance(self.source, Held):
            return self._classify(self.data)  # the first line, or what follows it, not all held
        first = data[start : start + 1]  # empty: only blanks
        if first == b"<":
            return "xml"
        if first not in (b"{", b"["):
            return "text"
        end = len(data) if line_end < 0 else line_end
        line = data.count(b"\n", 0, start) + 1
        value, repeat = parse_json_prefix(memoryview(data)[start:end], self.name, line)
        if self.lowered.endswith(JSONL_SUFFIXES) or (value is not NOTHING and rest is not None):
            self.record = value  # a repeated key of JSON Lines is the reader's to judge
            return "jsonl"
        if value is NOTHING:
            # A value spread over several lines (pretty-printed JSON): parse the whole text, once.
            value, repeat = parse_json_prefix(memoryview(self.data)[start_at:], self.name, None)
        if repeat is not None:
            raise InputError(repeat)
        self.document = value
        return "json"


def lookup(
    record: Mapping[str, Any], dotted: str, opened: Callable[[Any, str], Any] | None = None
) -> Any:
    """``record[dotted]``, or the nested value for ``a.b.c``; :data:`NOTHING` when absent.
    ``opened(value, part)`` reads a value before ``part`` is looked up in it."""
    if dotted in record:
        return record[dotted]
    value: Any = record
    for part in dotted.split("."):
        value = value if opened is None else opened(value, part)
        if not isinstance(value, Mapping) or part not in value:
            return NOTHING
        value = value[part]
    return value


def first_object(value: object) -> Mapping[str, Any]:
    """The first entry of a list when it is an object, else an empty object."""
    first = value[0] if isinstance(value, list) and value else None
    return first if isinstance(first, Mapping) else {}


def how_to_choose(flag: str, example: str) -> str:
    """The end of a message that asks to choose: ``choose one, e.g. --scorer a (config
    `scorer:`)``."""
    return f"choose one, e.g. --{flag} {shlex.quote(example)} (config `{flag}:`)"


def choose(
    names: list[str], wanted: str | None, where: str, flag: str, *, several: str, unknown: str = ""
) -> str:
    """``wanted`` when it is one of ``names`` (or there are none), else the only name (``""``
    when there is none). ``several`` opens the message when there are several names (``{}``:
    the names), ``unknown`` the one for a name the run does not have (the name, then the
    names); each ends with how to choose (``--flag``, config ``flag:``)."""
    listed = ", ".join(names)
    if wanted is not None:
        if names and wanted not in names:
            raise InputError(
                f"{where}: {unknown.format(show(wanted), listed)} (choose one with --{flag} NAME, "
                f"config `{flag}:`)"
            )
        return wanted
    if len(names) > 1:
        raise InputError(f"{where}: {several.format(listed)}; {how_to_choose(flag, names[0])}")
    return names[0] if names else ""


def number_or_flag(
    value: object,
    where: str,
    label: str,
    *,
    must: str = "a number",
    words: Mapping[str, tuple[float, bool]] | None = None,
) -> tuple[float, bool]:
    """(value, whether it is a pass/fail outcome) of a boolean, a finite number or one of the
    harness's ``words`` (matched stripped and lowercased); any other value is refused: ``label``
    (the field) must be ``must``."""
    if isinstance(value, bool):
        return float(value), True
    if isinstance(value, str) and words and value.strip().lower() in words:
        return words[value.strip().lower()]
    if not isinstance(value, int | float):
        raise InputError(f"{where}: {label} must be {must}, got {show(value)}")
    number = float(value)  # the JSON reader refuses integers beyond the float range
    if not math.isfinite(number):
        raise InputError(f"{where}: {label} must be finite, got {show(value)}")
    return number, False
