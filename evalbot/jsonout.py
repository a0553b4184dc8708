"""``json.dumps(value, indent=2)``, byte for byte, encoded in C where that is proven equal.

The JSON report of a million-item comparison lists every fixed and broken id (hundreds of
thousands of strings); the standard library's indenting encoder runs in Python and takes a
noticeable share of the whole command. msgspec encodes and re-indents in C, but spells some
things differently from :func:`json.dumps`, so :func:`dumps_indented` first proves that the
value holds only what both spell alike and keeps the standard library for anything else:

- floats: msgspec writes ``1e16`` where Python writes ``1e+16``; every float is therefore
  written by Python's own ``float.__repr__`` (what ``json.dumps`` uses) and passed through as
  raw JSON, which the re-indenting copies verbatim. NaN and infinities (``json.dumps`` writes
  ``NaN``/``Infinity``, which are not JSON) go to the standard library.
- strings: msgspec writes non-ASCII characters (and DEL) as UTF-8; ``json.dumps`` escapes them
  (``ensure_ascii``) as ``\\uXXXX``, astral characters as a surrogate pair. The output is
  escaped the same way afterwards (such characters occur only inside strings).
- anything but ``dict`` (with ``str`` keys), ``list``, ``tuple``, ``str``, ``int`` within 64
  bits, ``bool``, ``None`` and ``float`` (subclasses of the last two are written as
  ``json.dumps`` writes them, by ``int``'s and ``float``'s own ``repr``), or a string msgspec
  cannot encode (a lone surrogate): the standard library.

tests/unit/test_jsonout.py checks equality with ``json.dumps`` on the real reports and on
generated values, including every case above.
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1
_NON_ASCII = re.compile(r"[^\x00-\x7e]")
_ENCODER = msgspec.json.Encoder()


class _Unusual(Exception):
    """Something ``json.dumps`` and msgspec might spell differently."""


def dumps_indented(value: Any) -> str:
    """Exactly ``json.dumps(value, indent=2)``."""
    try:
        prepared = _prepare(value)
        raw = msgspec.json.format(_ENCODER.encode(prepared), indent=2)
    except (_Unusual, msgspec.EncodeError, UnicodeEncodeError, OverflowError, TypeError):
        return json.dumps(value, indent=2)
    if raw.isascii() and b"\x7f" not in raw:
        return raw.decode("ascii")
    return _NON_ASCII.sub(_escape, raw.decode("utf-8"))


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}"


def _prepare(value: Any) -> Any:
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if isinstance(value, float):  # json.dumps writes float subclasses (numpy's) the same way
        if value - value != 0.0:  # NaN or an infinity
            raise _Unusual
        return msgspec.Raw(float.__repr__(value).encode("ascii"))
    if isinstance(value, int) and not isinstance(value, bool):
        if not _INT_MIN <= value <= _INT_MAX:
            raise _Unusual
        return int(value)
    if kind is list or kind is tuple:
        if value and set(map(type, value)) == {str}:
            return value
        return [_prepare(item) for item in value]
    if kind is dict:
        if not all(type(key) is str for key in value):
            raise _Unusual
        return {key: _prepare(item) for key, item in value.items()}
    raise _Unusual
