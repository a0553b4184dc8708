"""Pure: Markdown evalbot wrote (:class:`Markdown`) and untrusted text (every other ``str``)
are two types; the constructors here are the only ways to put untrusted text into Markdown,
escaped, and :func:`plain` makes it one safe line of plain text. See docs/comment.md,
"Untrusted text"."""

from __future__ import annotations

import html as _html
import re
from collections.abc import Iterable
from typing import Any, LiteralString
from urllib.parse import quote, urlsplit

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character
_WORD_JOINER = "\u2060"
_BREAK_AFTER = re.compile(r"[@#:]")
_WWW = re.compile(r"(?i)(www)\.")
_GH_REFERENCE = re.compile(r"(?i)\b(gh-)(?=\d)")  # GitHub links GH-26 like #26
_BACKTICKS = re.compile(r"`+")
#: Characters left as they are when a URL is percent-encoded (RFC 3986 reserved ones and ``%``).
_URL_SAFE = ":/?#[]@!$&'*+,;=%~"


class Markdown(str):
    """Markdown that evalbot wrote, or untrusted text that one of this module's constructors
    made inert. ``plain`` is the same text for a plain-text channel."""

    plain: str

    def __new__(cls, markdown: str = "", *, plain: str | None = None) -> Markdown:
        self = super().__new__(cls, markdown)
        self.plain = str.__str__(self) if plain is None else plain
        return self

    def __repr__(self) -> str:
        return f"Markdown({str.__repr__(self)})"


#: The empty Markdown (a default for fields).
EMPTY = Markdown("")


def _defuse(text: str) -> str:
    """Non-printable characters as spaces, and a word joiner after ``@``, ``#``, ``:``,
    ``www`` and ``GH-`` so GitHub's mention, reference and autolink passes find nothing to
    link."""
    value = "".join(ch if ch.isprintable() else " " for ch in text)
    value = _WWW.sub(lambda m: m.group(1) + _WORD_JOINER + ".", value)
    value = _GH_REFERENCE.sub(lambda m: m.group(1) + _WORD_JOINER, value)
    return _BREAK_AFTER.sub(lambda m: m.group(0) + _WORD_JOINER, value)


def plain(text: object) -> str:
    """``text`` for a plain-text channel (a terminal, an annotation, a check run's title), as
    one line: every non-printable character (control characters such as newlines and terminal
    escapes, bidirectional overrides, zero-width characters) shown as ``?``. A
    :class:`Markdown` gives its :attr:`~Markdown.plain` text."""
    value = text.plain if isinstance(text, Markdown) else str(text)
    return "".join(ch if ch.isprintable() else "?" for ch in value)


def escape(text: object) -> Markdown:
    """Untrusted text as inert Markdown: no markup, no HTML, no mentions, no links.

    Every ASCII punctuation character is backslash-escaped (CommonMark allows this for all of
    them, so ``<``, ``&``, ``|`` and backticks lose their meaning, also inside table cells),
    non-printable characters become spaces, and an invisible word joiner follows ``@``, ``#``,
    ``:``, ``www`` and ``GH-`` so GitHub's mention, reference and autolink passes, which run on
    the rendered text, find nothing to link. A :class:`Markdown` (and a number) is returned as it
    is: escaping is done once.
    """
    if isinstance(text, Markdown):
        return text
    if isinstance(text, int | float):  # str(number) has no markup ("-1e-05", "inf", "True")
        return Markdown(str(text))
    value = str(text)
    return Markdown(_PUNCTUATION.sub(r"\\\1", _defuse(value)), plain=plain(value))


def html(text: object) -> Markdown:
    """Untrusted text inside raw HTML (a ``<summary>``, where Markdown is not parsed, so
    backslashes would show): ``&``, ``<``, ``>`` and quotes as entities, and the word joiners
    of :func:`escape`."""
    if isinstance(text, Markdown):
        return text
    value = str(text)
    # after the joiners: entities hold a ``#``
    return Markdown(_html.escape(_defuse(value), quote=True), plain=plain(value))


def _fence(value: str, least: int) -> str:
    """Backticks, at least ``least``, one more than the longest run of them in ``value``."""
    return "`" * max(least, 1 + max(map(len, _BACKTICKS.findall(value)), default=0))


def code(text: object) -> Markdown:
    """``text`` as inline code that its own backticks cannot close (not for table cells: a
    ``|`` there still splits the cell). Non-printable characters become spaces (a newline
    would end the paragraph), and ``<!--`` is broken with a word joiner so nothing in it can
    pose as one of evalbot's hidden markers."""
    value = "".join(ch if ch.isprintable() else " " for ch in str(text))
    value = value.replace("<!--", "<!" + _WORD_JOINER + "--")
    fence = _fence(value, 1)
    pad = " " if value.startswith("`") or value.endswith("`") or not value.strip() else ""
    return Markdown(f"{fence}{pad}{value}{pad}{fence}", plain=f"`{plain(text)}`")


def code_block(text: object, lang: str = "") -> Markdown:
    """A fenced code block that ``text`` cannot close (the fence outruns its backticks).

    Control characters other than newlines and tabs are shown as ``?`` (the block may be
    printed on a terminal); ``<!--`` is broken with a word joiner so no text in the block can
    pose as one of evalbot's hidden markers. ``lang`` is evalbot's own (``diff``, ``text``).
    """
    value = str(text).replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
    value = "".join(ch if ch.isprintable() or ch in "\n\t" else "?" for ch in value)
    value = value.replace("<!--", "<!" + _WORD_JOINER + "--")
    fence = _fence(value, 3)
    return Markdown(f"{fence}{lang}\n{value}\n{fence}", plain=plain(text))


def url(text: str | None) -> Markdown | None:
    """``text`` percent-encoded where Markdown would read a character (spaces, ``<``, ``>``,
    parentheses, backslashes), so it is always one inline link destination; ``None`` unless
    it is an http(s) URL."""
    if not text:
        return None
    quoted = quote(text, safe=_URL_SAFE)
    if urlsplit(quoted).scheme.lower() not in ("http", "https"):
        return None
    return Markdown(quoted)


def link(label: object, target: str | None) -> Markdown:
    """``[label](target)``, the label escaped; the label alone when ``target`` is not an
    http(s) URL."""
    text = escape(label)
    destination = url(target)
    if destination is None:
        return text
    return Markdown(f"[{text}]({destination})", plain=f"{text.plain} ({destination})")


def join(separator: object, parts: Iterable[object]) -> Markdown:
    """``parts`` joined with ``separator``; each one that is not Markdown is escaped."""
    sep = escape(separator)
    escaped = [escape(part) for part in parts]
    return Markdown(str(sep).join(escaped), plain=sep.plain.join(part.plain for part in escaped))


def format(template: LiteralString, /, *args: Any) -> Markdown:
    """``template.format(...)`` with every argument that is not Markdown escaped: the template
    is evalbot's own Markdown (a literal), the arguments may be anything."""
    escaped = [escape(a) for a in args]
    as_text = template.format(*(a.plain for a in escaped))
    return Markdown(template.format(*escaped), plain=as_text)


#: Characters of an item id shown before it is shortened (a link keeps the whole id).
MAX_ID_CHARS = 120


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
