"""Pure: item ids as shown in lists, and the only links the report builds (http(s) only)."""

from __future__ import annotations

from urllib.parse import quote

from evalbot import text as md
from evalbot.report.records import ItemEntry
from evalbot.text import Markdown

__all__ = ["MAX_ID_CHARS", "item_entry", "item_link", "safe_url"]

#: Characters of an item id shown before it is shortened (the link keeps the whole id).
MAX_ID_CHARS = 120


def item_entry(item_id: str, item_url: str | None) -> ItemEntry:
    """One id of a list: shortened past :data:`MAX_ID_CHARS`, linked through ``item_url``."""
    text = item_id if len(item_id) <= MAX_ID_CHARS else item_id[: MAX_ID_CHARS - 1] + "…"
    return ItemEntry(id=item_id, text=text, url=item_link(item_url, item_id))


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
