"""Checks that untrusted text stayed text wherever evalbot printed it.

Markdown is parsed with markdown-it-py (CommonMark with GFM tables), as GitHub parses it, and
its token tree is walked: no image, no link but evalbot's own, no HTML but evalbot's own, no
@mention, #reference or bare URL left in the rendered text, and in the raw text no
``<!-- evalbot`` other than evalbot's own markers. Plain-text channels (annotations, log
lines, stderr, check run titles) carry no control character at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token

MD = MarkdownIt("commonmark").enable("table")
# every link the syntax makes is a link, whatever its scheme (markdown-it drops javascript:)
MD.validateLink = lambda url: True  # type: ignore[method-assign]
JOINER = "\u2060"

#: The HTML evalbot itself writes: the comment's marker, its state block, collapsed sections,
#: small print, and the code tag in the plan-change section's summary (the path escaped).
OWN_HTML = re.compile(
    r"(<!-- evalbot:[A-Za-z0-9._-]+ -->|<!-- evalbot-state:v2 [A-Za-z0-9+/=]+ -->"
    r"|<!-- evalbot-says:v1 [0-9a-f]{64} -->"
    r"|<!-- evalbot-state \{\"looks\": 1\} -->"
    r"|<details><summary>[^<>]*(<code>[^<>]*</code>[^<>]*)?</summary>|</details>|<sub>|</sub>"
    r"|\s)*"
)
#: What GitHub links in rendered text: @user, @org/team, #1, GH-1, owner/repo#1, www., scheme://
LINKABLE = re.compile(r"@\w|#\d|(?i:gh-\d)|www\.|\w:/")
BARE_URL = re.compile(r"https?://[^\s<>()]+")
#: Any hidden block that claims to be evalbot's (a marker, a state block, a look digest).
EVALBOT_BLOCK = re.compile(r"<!--\s*evalbot")


def walk(tokens: Iterable[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        if token.children:
            yield from walk(token.children)


def visible_text(markdown: str) -> str:
    """The text a reader sees (text and code), word joiners taken out."""
    parts = [
        t.content for t in walk(MD.parse(markdown)) if t.type in ("text", "code_inline", "fence")
    ]
    return " ".join(parts).replace(JOINER, "")


def assert_inert(
    markdown: str,
    *,
    own_links: Callable[[str], bool] = lambda href: False,
    own_markers: Iterable[str] = (),
) -> None:
    """``markdown`` holds no mention, link, image, HTML or marker that evalbot did not write.

    ``own_links`` says which link targets are evalbot's (its run and commit links, the
    item links built from ``report.item_url``); ``own_markers`` are the exact hidden blocks
    evalbot wrote (its marker and its state block), each expected once.
    """
    for token in walk(MD.parse(markdown)):
        assert token.type != "image", token
        if token.type == "link_open":
            href = token.attrs.get("href")
            assert isinstance(href, str) and own_links(href), href
        if token.type in ("html_block", "html_inline"):
            assert OWN_HTML.fullmatch(token.content), token.content
        if token.type == "text":
            # GitHub links a bare URL too: evalbot's own may stand, nothing else
            text = BARE_URL.sub(
                lambda m: "" if own_links(m.group(0)) else m.group(0), token.content
            )
            assert not LINKABLE.search(text), token.content
    markers = list(own_markers)
    found = [m.start() for m in EVALBOT_BLOCK.finditer(markdown)]
    assert len(found) == len(markers), [markdown[at : at + 80] for at in found]
    for marker in markers:
        assert markdown.count(marker) == 1, marker


def assert_plain_lines(text: str) -> None:
    """Every line of ``text`` (a log, stderr) is printable: no terminal escape, no carriage
    return, no bidirectional override."""
    for line in text.split("\n"):
        assert all(ch.isprintable() for ch in line), repr(line)


#: The workflow commands evalbot writes (a line starting ``::`` is a command to the runner).
OWN_COMMANDS = re.compile(r"::(add-mask|error|warning|notice)( title=[^:]*)?::")


def assert_own_commands(log: str) -> list[str]:
    """The workflow commands in ``log`` (the step's stdout), each one of evalbot's kinds,
    each on one line; returns them."""
    commands = [line for line in log.split("\n") if line.startswith("::")]
    for line in commands:
        assert OWN_COMMANDS.match(line), line
    # nothing else may start a command: no line holds a second "::command::" after a newline
    assert_plain_lines(log)
    return commands


def unescape(markdown: str) -> str:
    """Markdown with evalbot.report.text.escape's backslashes and word joiners taken out."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace(JOINER, "")
