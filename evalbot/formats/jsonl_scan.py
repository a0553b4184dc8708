"""Byte-level scans of a JSONL file for :mod:`.fast_jsonl`: each proves one property of the
whole file with a C-level pass a few megabytes at a time, or raises :class:`Unusual` (the
generic path then reads the file and reports exactly)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

_BOM = b"\xef\xbb\xbf"


class Unusual(Exception):
    """Not the common flat case: let the generic path read (and judge) the file."""


class Body:
    """The file's records without a leading BOM or one trailing line break, as a window on
    its bytes: ``data[start:end]`` would copy a large file once more."""

    __slots__ = ("data", "end", "start")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.start = len(_BOM) if data.startswith(_BOM) else 0
        self.end = len(data) - 1 if data.endswith(b"\n") and len(data) > self.start else len(data)

    def __len__(self) -> int:
        return self.end - self.start

    def view(self) -> memoryview:
        return memoryview(self.data)[self.start : self.end]

    def octets(self) -> Any:
        return np.frombuffer(self.data, dtype=np.uint8, count=len(self), offset=self.start)

    def find(self, sub: bytes, at: int = 0, until: int | None = None) -> int:
        end = self.end if until is None else min(self.end, self.start + until)
        found = self.data.find(sub, self.start + at, end)
        return found - self.start if found >= 0 else -1

    def has(self, sub: bytes) -> bool:
        return self.data.find(sub, self.start, self.end) >= 0

    def count(self, sub: bytes) -> int:
        return self.data.count(sub, self.start, self.end)

    def startswith(self, prefix: bytes) -> bool:
        return self.data.startswith(prefix, self.start, self.end)

    def endswith(self, suffix: bytes) -> bool:
        return self.data.endswith(suffix, self.start, self.end)

    def isascii(self) -> bool:
        if self.start == 0:  # the one line break left out is ASCII too
            return self.data.isascii()
        return bytes(self.view()).isascii()


def first_record(body: Body) -> dict[str, Any]:
    end = body.find(b"\n")
    first = bytes(body.view()[: len(body) if end < 0 else end])
    try:
        record = json.loads(first)
    except (ValueError, RecursionError):
        raise Unusual from None
    if not isinstance(record, dict):
        raise Unusual
    return record


#: Bytes scanned or decoded at a time: bounds the temporaries (a flag per byte, the decoded
#: rows) to a few megabytes whatever the file's size.
_CHUNK = 8 << 20


def chunks(body: Body) -> list[tuple[int, int]]:
    """``(start, end)`` spans of about ``_CHUNK`` bytes that end at a line break (or the end)."""
    spans, start, size = [], 0, len(body)
    while start < size:
        end = body.find(b"\n", start + _CHUNK) if start + _CHUNK < size else -1
        end = size if end < 0 else end
        spans.append((start, end))
        start = end + 1
    return spans


def check_lines(body: Body, max_line: int) -> int:
    """The number of lines, once proven that each starts a record and none is too long:
    every line break is followed by ``{`` (counted a block at a time), and a line break lies
    in every stretch of half the longest line allowed (else the gaps between line breaks
    are measured, a block at a time)."""
    if not body.startswith(b"{") or body.endswith(b"\n"):
        raise Unusual
    size = len(body)
    octets = body.octets()
    lines = 1
    for start, end in _blocks(size):
        # a "{" after each byte (the body's last byte is no line break: it needs none)
        breaks = octets[start:end] == 10
        following = octets[start + 1 : end + 1] == 123
        found = int(np.count_nonzero(breaks))
        if int(np.count_nonzero(breaks[: following.size] & following)) != found:
            raise Unusual  # a blank line, or a line that does not start with a record
        lines += found
    half = max(1, (max_line + 1) // 2)
    if size <= max_line or all(
        body.find(b"\n", at, at + half) >= 0 for at in range(0, size - half, half)
    ):
        # a line break in every stretch of max_line / 2 bytes (bar the last, shorter one):
        # no two are further apart than max_line
        return lines
    last = -1  # the line break before the current line
    for start, end in _blocks(size):
        breaks = np.flatnonzero(octets[start:end] == 10) + start
        if not breaks.size:
            continue
        if int(np.diff(breaks, prepend=last).max()) - 1 > max_line:
            raise Unusual  # the generic path names the over-long line
        last = int(breaks[-1])
    if size - last - 1 > max_line:
        raise Unusual
    return lines


def _blocks(size: int) -> list[tuple[int, int]]:
    return [(start, min(start + _CHUNK, size)) for start in range(0, size, _CHUNK)]


def real_quotes(body: Body) -> int:
    """Quote marks that open or close a string (an escaped ``\\"`` is inside one)."""
    octets = body.octets()
    quotes = sum(int(np.count_nonzero(octets[a:b] == 34)) for a, b in _blocks(len(body)))
    if not body.has(b"\\"):
        return quotes
    if not body.has(b"\\\\"):
        return quotes - body.count(b'\\"')
    # Escapes pair up left to right inside a string, as replace() finds them: without the
    # escaped backslashes, every remaining backslash-quote is an escaped quote.
    return quotes - bytes(body.view()).replace(b"\\\\", b"").count(b'\\"')
