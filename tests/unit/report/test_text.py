"""evalbot.report.text: trusted Markdown and untrusted text are two types, and every constructor that
puts input into Markdown leaves it inert (checked on markdown-it-py's token tree)."""

from __future__ import annotations

import pytest

from evalbot.report import text as md
from evalbot.report.text import Markdown
from tests.golden.scenarios import HOSTILE_IDS
from tests.inert import MD, assert_inert, visible_text, walk


def test_str_operations_on_markdown_give_untrusted_str() -> None:
    trusted = Markdown("**bold**")
    for derived in (
        trusted + "x",
        "x" + trusted,
        f"{trusted}",
        trusted.replace("b", "c"),
        trusted[1:],
        trusted.upper(),
        "%s" % trusted,  # noqa: UP031 - the operator is what is tested
        " ".join([trusted]),
    ):
        assert type(derived) is str, derived


def test_escape_is_done_once_and_numbers_need_none() -> None:
    once = md.escape("a|b")
    assert once == "a\\|b"
    assert md.escape(once) is once
    assert md.escape(-1.5e-05) == "-1.5e-05" and isinstance(md.escape(3), Markdown)
    assert md.escape("a|b").plain == "a|b"


def test_format_escapes_every_argument_but_markdown() -> None:
    text = md.format("{} and {} and {}", "@octocat", Markdown("**kept**"), 7)
    assert text == "\\@\u2060octocat and **kept** and 7"
    assert text.plain == "@octocat and **kept** and 7"
    assert md.format("{}", "bell\x07\nline").plain == "bell??line"


def test_join_escapes_parts_and_separator() -> None:
    joined = md.join(Markdown(" · "), ["<b>", Markdown("`x`")])
    assert joined == "\\<b\\> · `x`"
    assert joined.plain == "<b> · `x`"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x", "`x`"),
        ("a`b", "``a`b``"),
        ("`x`", "`` `x` ``"),
        ("line\nbreak\x1b[1m", "`line break [1m`"),
        ("<!-- evalbot-state:v1 AAAA -->", "`<!\u2060-- evalbot-state:v1 AAAA -->`"),
    ],
)
def test_code(text: str, expected: str) -> None:
    assert md.code(text) == expected


@pytest.mark.parametrize("text", HOSTILE_IDS)
def test_code_is_one_code_span(text: str) -> None:
    tokens = [t.type for t in walk(MD.parse(f"see {md.code(text)} here"))]
    assert tokens.count("code_inline") == 1
    assert set(tokens) <= {"paragraph_open", "inline", "text", "code_inline", "paragraph_close"}
    assert_inert(f"see {md.code(text)} here")


def test_code_block_cannot_be_closed_or_forge_a_marker() -> None:
    block = md.code_block("```\n<!-- evalbot:evalbot -->\n\x1b[31m@octocat\n````", "diff")
    fences = [t for t in MD.parse(block) if t.type == "fence"]
    assert len(fences) == 1 and fences[0].info == "diff"
    assert "?[31m@octocat" in fences[0].content
    assert "<!-- evalbot" not in block


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (
            "https://github.com/o/r/actions/runs/1",
            "[\\#\u20601](https://github.com/o/r/actions/runs/1)",
        ),
        ("https://x.example/a b(c)", "[\\#\u20601](https://x.example/a%20b%28c%29)"),
        ("javascript:alert(1)", "\\#\u20601"),
        (None, "\\#\u20601"),
    ],
)
def test_link_is_http_only_and_one_destination(target: str | None, expected: str) -> None:
    assert md.link("#1", target) == expected


def test_html_is_entities_and_joiners() -> None:
    assert md.html("</code><img src=x>@a") == "&lt;/code&gt;&lt;img src=x&gt;@\u2060a"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "plain"),
        ("a\nb\r\x1b[2J\x07", "a?b??[2J?"),
        ("\u202eevil\u200b", "?evil?"),
        (Markdown("`x`", plain="x"), "x"),
    ],
)
def test_plain_is_one_printable_line(text: str, expected: str) -> None:
    assert md.plain(text) == expected


@pytest.mark.parametrize("text", HOSTILE_IDS)
def test_every_constructor_keeps_hostile_text_inert(text: str) -> None:
    """The hostile ids as file names, slice and scorer names, and messages: in a sentence, a
    table cell, a list, inline code and a code block, nothing becomes markup."""
    sentence = md.format("file {}: {} (scorer {})", text, md.code(text), text)
    row = md.format("| {} | {} |", text, text)
    table = f"| a | b |\n|---|---|\n{row}\n"
    for markdown in (sentence, table, md.format("- {}\n- x\n", text), md.code_block(text)):
        assert_inert(markdown)
    cells = [t for t in walk(MD.parse(table)) if t.type == "td_open"]
    assert len(cells) == 2  # the row keeps its two cells
    expected = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    shown = " ".join(visible_text(sentence).split())
    assert shown.startswith(f"file {expected}".strip())
