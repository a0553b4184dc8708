"""Pure: item ids as shown in lists, and the only links the report builds (http(s) only)."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

from evalbot.report.records import ItemEntry

__all__ = ["MAX_ID_CHARS", "item_entry", "item_link", "safe_url"]

#: Characters of an item id shown before it is shortened (the link keeps the whole id).
MAX_ID_CHARS = 120

#: Characters left as they are when a URL is percent-encoded (RFC 3986 reserved ones and ``%``).
_URL_SAFE = ":/?#[]@!$&'*+,;=%~"


def item_entry(item_id: str, item_url: str | None) -> ItemEntry:
    """One id of a list: shortened past :data:`MAX_ID_CHARS`, linked through ``item_url``."""
    text = item_id if len(item_id) <= MAX_ID_CHARS else item_id[: MAX_ID_CHARS - 1] + "…"
    return ItemEntry(id=item_id, text=text, url=item_link(item_url, item_id))


def item_link(template: str | None, item_id: str) -> str | None:
    """``report.item_url`` with ``{id}`` replaced by the URL-quoted id; http(s) only.

    The whole URL is percent-encoded where Markdown would read a character (spaces, ``<``,
    ``>``, parentheses, backslashes), so it is always one inline link destination.
    """
    if not template:
        return None
    url = template.replace("{id}", quote(item_id, safe=""))
    url = quote(url, safe=_URL_SAFE)
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        return None
    return url


def safe_url(url: str | None) -> str | None:
    """``url`` percent-encoded as :func:`item_link` does; ``None`` unless it is http(s)."""
    if not url:
        return None
    quoted = quote(url, safe=_URL_SAFE)
    return quoted if urlsplit(quoted).scheme.lower() in ("http", "https") else None
