"""Pure: item ids as shown in lists, and the only links the report builds (http(s) only)."""

from __future__ import annotations

from urllib.parse import quote

from evalbot.report import text as md
from evalbot.report.records import ItemEntry
from evalbot.report.text import Markdown

__all__ = ["MAX_ID_CHARS", "item_entry", "item_link", "safe_url", "short_id"]

#: Characters of an item id shown before it is shortened (the link keeps the whole id).
MAX_ID_CHARS = 120


def item_entry(item_id: str, item_url: str | None) -> ItemEntry:
    """One id of a list: shortened past :data:`MAX_ID_CHARS`, linked through ``item_url``."""
    return ItemEntry(id=item_id, text=short_id(item_id), url=item_link(item_url, item_id))


def short_id(item_id: str, limit: int = MAX_ID_CHARS) -> str:
    """``item_id`` cut in the middle past ``limit`` characters, keeping its end (the part that
    tells items apart): two thirds of the room for the end, or more to keep a JUnit test's
    whole name after ``::`` while ten characters of the start still fit."""
    if len(item_id) <= limit:
        return item_id
    room = limit - 1
    tail = room * 2 // 3
    name = item_id.rsplit("::", 1)[-1] if "::" in item_id else ""
    if tail < len(name) + 2 <= room - 10:
        tail = len(name) + 2
    return item_id[: room - tail] + "…" + item_id[-tail:]


def item_link(template: str | None, item_id: str) -> Markdown | None:
    """``report.item_url`` with ``{id}`` replaced by the URL-quoted id; http(s) only.

    The whole URL is percent-encoded where Markdown would read a character (spaces, ``<``,
    ``>``, parentheses, backslashes), so it is always one inline link destination.
    """
    if not template:
        return None
    return md.url(template.replace("{id}", quote(item_id, safe="")))


def safe_url(url: str | None) -> Markdown | None:
    """``url`` percent-encoded as :func:`item_link` does; ``None`` unless it is http(s)."""
    return md.url(url)
