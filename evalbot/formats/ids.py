"""Pure: a list of item ids, the one reader for every file that names ids.

Used for the file of ``--all-ids`` (:func:`evalbot.formats.sources.load_ids`) and for the plan's
``all_ids``, ``policy.items_file`` and ``holdout.ids_file`` (:mod:`evalbot.plan.config`). Accepted:

- plain text, one id per line (surrounding white space and blank lines are ignored);
- a JSON list of ids, or of objects with an ``instance_id`` (SWE-bench's dataset shape);
- JSON Lines objects with an ``instance_id``, one per line.

A repeated id is an error naming both places; so is a file that names no id.
"""

from __future__ import annotations

from collections.abc import Mapping

from evalbot.errors import InputError
from evalbot.formats.builder import show
from evalbot.formats.jsontext import decode_text, parse_json_document, parse_json_line

__all__ = ["parse_id_list"]


def parse_id_list(data: bytes | str, *, source: str) -> tuple[str, ...]:
    """The ids ``data`` names, in order; ``source`` names the file in messages.

    Raises :class:`InputError` for text that is not UTF-8, malformed JSON, an entry without an
    id, a repeated id, or no id at all.
    """
    text = data if isinstance(data, str) else decode_text(data, source)
    if text.strip().startswith("["):
        found, kind = _from_json_list(text, source), "entry"
    else:
        found, kind = _from_lines(text, source), "line"
    seen: dict[str, int] = {}  # each id (in order) and where it is
    for item, number in found:
        if item in seen:
            where = f"{source}:{number}" if kind == "line" else f"{source}: entry {number}"
            raise InputError(f"{where}: item id {show(item)} repeats {kind} {seen[item]}")
        seen[item] = number
    if not seen:
        raise InputError(f"{source}: lists no item ids (one id per line)")
    return tuple(seen)


def _from_json_list(text: str, source: str) -> list[tuple[str, int]]:
    """(id, entry number) of each entry of a JSON list."""
    document = parse_json_document(text, source)  # a list: the text starts with "["
    return [
        (_instance_id(entry, f"{source}: entry {number}"), number)
        for number, entry in enumerate(document, start=1)
    ]


def _from_lines(text: str, source: str) -> list[tuple[str, int]]:
    """(id, line number) of each non-blank line: the line itself, or a JSON object's
    ``instance_id`` when the line starts with ``{``."""
    found: list[tuple[str, int]] = []
    # Lines end at "\n" only, as in JSON Lines (str.splitlines would also split inside ids)
    for number, line in enumerate(text.split("\n"), start=1):
        item = line.strip()
        if not item:
            continue
        if item.startswith("{"):
            where = f"{source}:{number}"
            item = _instance_id(parse_json_line(item, where), where)
        found.append((item, number))
    return found


def _instance_id(entry: object, where: str) -> str:
    if isinstance(entry, str) and entry.strip():
        return entry
    if isinstance(entry, Mapping):
        value = entry.get("instance_id")
        if isinstance(value, str) and value.strip():
            return value
        raise InputError(f"{where}: has no `instance_id`")
    raise InputError(f"{where}: expected an item id, got {show(entry)}")
