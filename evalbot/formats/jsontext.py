"""Text and JSON as every parser reads them: UTF-8, and JSON whose objects repeat no key and
whose integers have at most :data:`evalbot.limits.MAX_NUMBER_DIGITS` digits.

A repeated key in a JSON object (``{"passed": false, "passed": true}``) is legal JSON that
parsers resolve differently (Python keeps the last value, others the first), so the same file
could give two different verdicts: it is refused with one line naming the file, the key and,
where it can be found, the line. Lines of JSONL name their line directly; for a whole document
the line (of the object holding the key or the number) is located by a slower, position-aware
parse that runs only on this error path (and only for documents up to :data:`LOCATE_LIMIT`
characters: larger ones name the file alone).

:class:`UnreadableError` marks the errors that mean "this file is not in the shape this format
reads" (not UTF-8, not JSON, not the expected structure): when the format was detected rather
than forced, :func:`evalbot.formats.parse_any` adds which formats were tried and how to
force one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from json.decoder import JSONObject  # type: ignore[attr-defined]
from json.scanner import py_make_scanner  # type: ignore[attr-defined]
from types import SimpleNamespace
from typing import Any, Final

from evalbot.errors import InputError
from evalbot.formats.builder import show
from evalbot.limits import MAX_NUMBER_DIGITS

#: Largest document whose duplicate key is located by line (the position-aware parse is slower).
LOCATE_LIMIT: Final = 32 * 1024 * 1024


class UnreadableError(InputError):
    """A file is not in the shape its format reads (not UTF-8, not JSON, wrong structure)."""


class _Nothing:
    """The absence of a parsed value (``None`` is a JSON value)."""

    def __repr__(self) -> str:
        return "NOTHING"


NOTHING: Final[Any] = _Nothing()


class _LocatedError(ValueError):
    """An error the position-aware parse (:func:`error_line`) locates by its object."""

    position: int | None = None


class DuplicateKeyError(_LocatedError):
    """A JSON object repeats a key."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    built = dict(pairs)
    if len(built) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return built


class LongNumberError(_LocatedError):
    """A JSON integer with more than :data:`evalbot.limits.MAX_NUMBER_DIGITS` digits."""

    def __init__(self, literal: str) -> None:
        super().__init__(literal[:20])
        self.digits = len(literal.lstrip("-"))

    def message(self, where: str) -> str:
        return (
            f"{where}: a number of {self.digits} digits (more than {MAX_NUMBER_DIGITS}): no "
            "result value is that long"
        )


def _int(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise LongNumberError(literal)
    return int(literal)


_DECODER: Final = json.JSONDecoder(object_pairs_hook=_object, parse_int=_int)


def decode_text(data: bytes, source: str) -> str:
    """UTF-8 text (a BOM is allowed); undecodable bytes are reported with their line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise UnreadableError(
            f"{source}:{line}: not valid UTF-8 (byte offset {error.start})"
        ) from None


def _duplicate_message(where: str, key: str, *, starts: bool = False) -> str:
    what = "the JSON object that starts on this line" if starts else "one JSON object"
    return f"{where}: duplicate key {show(key)} in {what} (refused: which one counts?)"


def error_line(text: str) -> int | None:
    """The line of the first object (in the order the C parser completes them) that repeats a
    key or holds a too long number, by a position-aware parse; ``None`` when the text is too
    large or too deep for it."""
    if len(text) > LOCATE_LIMIT:
        return None

    def parse_object(
        s_and_end: tuple[str, int],
        strict: bool,
        scan_once: Any,
        hook: Any,
        pairs_hook: Any,
        memo: Any,
    ) -> tuple[dict[str, Any], int]:
        try:
            result: tuple[dict[str, Any], int] = JSONObject(
                s_and_end, strict, scan_once, None, _object, memo
            )
        except _LocatedError as error:
            if error.position is None:
                error.position = s_and_end[1]
            raise
        return result

    context = SimpleNamespace(
        parse_object=parse_object,
        parse_array=json.decoder.JSONArray,  # type: ignore[attr-defined]
        parse_string=json.decoder.scanstring,  # type: ignore[attr-defined]
        strict=True,
        object_hook=None,
        object_pairs_hook=None,
        parse_float=float,
        parse_int=_int,
        parse_constant={
            "NaN": float("nan"),
            "Infinity": float("inf"),
            "-Infinity": float("-inf"),
        }.__getitem__,
        memo={},
    )
    scan = py_make_scanner(context)
    start = len(text) - len(text.lstrip())
    try:
        scan(text, start)
    except _LocatedError as error:
        return None if error.position is None else text.count("\n", 0, error.position) + 1
    except (ValueError, RecursionError, StopIteration):
        return None
    return None


def parse_json_document(text: str, source: str) -> Any:
    """A whole JSON document; an error names ``source`` and the line the parser stopped at."""
    try:
        return _DECODER.decode(text)
    except DuplicateKeyError as error:
        line = error_line(text)
        where = source if line is None else f"{source}:{line}"
        raise InputError(_duplicate_message(where, error.key, starts=line is not None)) from None
    except json.JSONDecodeError as error:
        raise UnreadableError(f"{source}:{error.lineno}: not valid JSON ({error.msg})") from None
    except LongNumberError as error:
        line = error_line(text)
        raise InputError(error.message(source if line is None else f"{source}:{line}")) from None
    except RecursionError:
        raise UnreadableError(f"{source}: JSON nested too deeply") from None


def parse_json_line(line: str, where: str) -> Any:
    """One line of JSON Lines; ``where`` already names the file and line."""
    try:
        return _DECODER.decode(line)
    except DuplicateKeyError as error:
        raise InputError(_duplicate_message(where, error.key)) from None
    except json.JSONDecodeError as error:
        raise UnreadableError(f"{where}: not valid JSON ({error.msg})") from None
    except LongNumberError as error:
        raise InputError(error.message(where)) from None
    except RecursionError:
        raise UnreadableError(f"{where}: JSON nested too deeply") from None


def parse_json_prefix(text: str, source: str, line: int | None) -> Any:
    """``text`` as exactly one JSON value, or :data:`NOTHING` when it is not one (invalid, too
    deep, or followed by more). A repeated key is an error even here: ``line`` is the line
    ``text`` starts on when it is one line of the file, ``None`` when it is the whole file."""
    try:
        return _DECODER.decode(text)
    except DuplicateKeyError as error:
        if line is None:
            found = error_line(text)
            where = source if found is None else f"{source}:{found}"
            message = _duplicate_message(where, error.key, starts=found is not None)
        else:
            message = _duplicate_message(f"{source}:{line}", error.key)
        raise InputError(message) from None
    except LongNumberError as error:
        if line is None:
            found = error_line(text)
            where = source if found is None else f"{source}:{found}"
        else:
            where = f"{source}:{line}"
        raise InputError(error.message(where)) from None
    except (json.JSONDecodeError, RecursionError):
        return NOTHING


def jsonl_records(text: str, source: str, max_line: int) -> Iterator[tuple[str, object]]:
    """(where, record) for each non-blank line of JSON Lines text; one-line errors."""
    # Lines end at "\n" only (JSON Lines): str.splitlines would also split at U+2028 and
    # other separators that are legal inside JSON strings.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        if len(line) > max_line:
            raise UnreadableError(f"{where}: line longer than {max_line} bytes")
        yield where, parse_json_line(line, where)
