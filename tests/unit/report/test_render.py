"""The comment as GitHub would parse it: hostile ids stay inert text, tables keep their shape.

Checks walk markdown-it-py's token tree (CommonMark + GFM tables), not the raw string.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from evalbot.errors import ConfigError
from evalbot.report.docs import GLOSSARY_URL
from evalbot.report.render import render_check, render_comment, render_markdown, render_summary
from evalbot.report.text import escape as md_escape
from evalbot.report.view import ItemEntry, View
from tests.golden.scenarios import HOSTILE_IDS, MARKER, SCENARIOS, STATE

JOINER = "\u2060"
MD = MarkdownIt("commonmark").enable("table")

#: The only HTML evalbot itself writes into a comment.
OWN_HTML = re.compile(
    r"<!-- evalbot:evalbot -->|<!-- evalbot-state \{\"looks\": 1\} -->"
    r"|<details><summary>[^<>]*(<code>[^<>]*</code>[^<>]*)?</summary>|</details>|<sub>|</sub>"
)


def walk(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        if token.children:
            yield from walk(token.children)


def visible(token: Token) -> str:
    """The text a reader sees in an inline token (word joiners are invisible)."""
    parts = []
    for child in walk(token.children or []):
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type == "softbreak":
            parts.append("\n")
    return "".join(parts).replace(JOINER, "")


@pytest.fixture(scope="module")
def hostile() -> tuple[View, str]:
    view = SCENARIOS["hostile"]().view()
    return view, render_comment(view, marker=MARKER, state_block=STATE)


def test_hostile_ids_add_no_html(hostile: tuple[View, str]) -> None:
    _, text = hostile
    html = [t.content for t in walk(MD.parse(text)) if t.type in ("html_block", "html_inline")]
    assert html, "the comment's own <details> and marker are HTML"
    for content in html:
        assert OWN_HTML.sub("", content).strip() == "", content


def test_hostile_ids_add_no_links(hostile: tuple[View, str]) -> None:
    view, text = hostile
    ids = {e.id for lst in view.lists for e in lst.entries}
    hrefs = [t.attrs["href"] for t in walk(MD.parse(text)) if t.type == "link_open"]
    # evalbot's own link, the footer's "terms" (the glossary), and one link per listed item
    assert hrefs.pop() == GLOSSARY_URL == view.glossary_url
    assert len(hrefs) == sum(len(lst.entries) for lst in view.lists)
    for href in hrefs:
        assert isinstance(href, str) and href.startswith("https://logs.example/")
        assert unquote(href.removeprefix("https://logs.example/")) in ids


def test_hostile_ids_read_back_verbatim(hostile: tuple[View, str]) -> None:
    """Each list item shows exactly its id (control characters as spaces, long ids cut)."""
    view, text = hostile
    tokens = MD.parse(text)
    shown = [
        visible(tokens[i + 2])
        for i, t in enumerate(tokens)
        if t.type == "list_item_open"
        and any(c.type == "link_open" for c in tokens[i + 2].children or [])
    ]
    expected = [
        "".join(ch if ch.isprintable() else " " for ch in e.text)
        for lst in view.lists
        for e in lst.entries
    ]
    assert shown == expected


def test_no_mentions_references_or_autolinks(hostile: tuple[View, str]) -> None:
    _, text = hostile
    for token in walk(MD.parse(text)):
        if token.type != "text":
            continue
        # GitHub links @user, #123, owner/repo#1, www. and scheme: in rendered text
        assert not re.search(r"@\w|#\d|www\.|\w:/", token.content), token.content


def test_marker_and_state_appear_once(hostile: tuple[View, str]) -> None:
    _, text = hostile
    assert text.count(MARKER) == 1 and text.startswith(MARKER)
    assert text.count("<!-- evalbot") == 2
    assert text.rstrip("\n").endswith(STATE)


def test_tables_keep_their_shape(hostile: tuple[View, str]) -> None:
    view, text = hostile
    tokens = MD.parse(text)
    tables: list[list[int]] = []
    for token in tokens:
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tr_open":
            tables[-1].append(0)
        elif token.type in ("th_open", "td_open"):
            tables[-1][-1] += 1
    assert len(tables) == 3  # 2x2, rates, slices
    for rows in tables:
        assert len(set(rows)) == 1, rows
    slice_rows = tables[2]
    assert len(slice_rows) == 1 + len(view.slices) and slice_rows[0] == 9
    cells = [visible(t) for t in tokens if t.type == "inline"]
    for row in view.slices:
        assert row.name in cells


@pytest.mark.parametrize("text", HOSTILE_IDS)
def test_md_escape_is_one_inert_paragraph(text: str) -> None:
    tokens = MD.parse(md_escape(text))
    kinds = [t.type for t in tokens]
    assert kinds in (["paragraph_open", "inline", "paragraph_close"], [])
    if kinds:
        children = [c.type for c in walk(tokens[1].children or [])]
        assert set(children) <= {"text", "softbreak"}
        expected = "".join(ch if ch.isprintable() else " " for ch in text).strip()
        assert visible(tokens[1]).strip() == expected


def test_escaped_pipe_and_backslash_in_a_cell() -> None:
    row = f"| {md_escape('a|b')} | {md_escape('back' + chr(92) + '|x')} | {md_escape('`x`')} |"
    tokens = MD.parse(f"| a | b | c |\n|---|---|---|\n{row}\n")
    cells = [visible(t) for t in tokens if t.type == "inline"]
    assert cells[3:] == ["a|b", "back\\|x", "`x`"]


def many(count: int, width: int) -> list[ItemEntry]:
    return [
        ItemEntry(id=f"{i:06d}" + "x" * width, text=f"{i:06d}" + "x" * width) for i in range(count)
    ]


def big_view() -> View:
    view = SCENARIOS["regression"]().view()
    lists = [replace(lst, entries=many(1000, 100), total=9000) for lst in view.lists]
    return replace(view, lists=lists)


def test_comment_fits_githubs_limit_with_counts() -> None:
    view = big_view()
    text = render_comment(view, marker=MARKER, state_block=STATE)
    assert len(text) <= 65_536
    assert text.startswith(MARKER) and text.rstrip().endswith(STATE)
    assert "- … and 8950 more" in text  # 50 shown of 9000
    summary = render_summary(view)
    assert "- … and 8000 more" in summary  # all 1000 the view holds, of 9000


def test_comment_shrinks_lists_then_cuts() -> None:
    view = big_view()
    text = render_comment(view, marker=MARKER, state_block=STATE, max_chars=6000)
    assert len(text) <= 6000
    counts = [int(n) for n in re.findall(r"- … and (\d+) more", text)]
    assert counts and min(counts) > 8950  # fewer than 50 per list
    tiny = render_comment(view, marker=MARKER, state_block=STATE, max_chars=1200)
    assert len(tiny) <= 1200 and MARKER in tiny and tiny.rstrip().endswith(STATE)
    assert "cut here to fit" in tiny
    assert tiny.count("<details>") == tiny.count("</details>")
    assert tiny.count("```") % 2 == 0


def test_check_run_title_and_summary() -> None:
    view = SCENARIOS["regression"]().view()
    title, summary = render_check(view)
    assert title == "❌ Regression: -8.9 pp [-11.5, -6.4], p < 0.0001; gate fail"
    assert MARKER not in summary and "<!--" not in summary
    assert summary.startswith("### ❌ Regression")
    title, summary = render_check(big_view())
    assert len(summary) <= 65_535


def test_user_template(tmp_path: Path) -> None:
    view = SCENARIOS["improvement"]().view()
    path = tmp_path / "mine.md.j2"
    path.write_text(
        "Verdict: {{ v.outcome_label }} {{ v.effect }}\n{{ v.lists[0].entries[0].text | md }}\n"
    )
    text = render_comment(view, marker=MARKER, template=path)
    assert text.startswith(MARKER + "\nVerdict: Improvement +4.2 pp")
    path.write_text('{% import "macros.md.j2" as m %}{{ marker }}\n{{ m.footer(v) }}')
    text = render_comment(view, marker=MARKER, template=path)
    assert text.count(MARKER) == 1 and "evalbot 0." in text


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("{{ v.effect ", "mine.md.j2:1: report template: unexpected end of template"),
        ("{{ v.__class__.__mro__ }}", "mine.md.j2: report template failed: "),
        ("{{ v.nope }}", "mine.md.j2: report template failed: "),
    ],
)
def test_user_template_errors(tmp_path: Path, source: str, message: str) -> None:
    path = tmp_path / "mine.md.j2"
    path.write_text(source)
    with pytest.raises(ConfigError) as error:
        render_comment(SCENARIOS["improvement"]().view(), marker=MARKER, template=path)
    assert str(error.value).startswith(str(tmp_path / message)) or str(error.value).startswith(
        str(tmp_path) + "/" + message
    )


def test_missing_user_template(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the report template"):
        render_comment(
            SCENARIOS["improvement"]().view(), marker=MARKER, template=tmp_path / "none.j2"
        )


def test_config_change_cannot_close_its_block() -> None:
    view = SCENARIOS["regression"]().view()
    view = replace(view, config_change="```\n<!-- evalbot:evalbot -->\n@octocat\n````")
    text = render_comment(view, marker=MARKER)
    assert text.count(MARKER) == 1
    fences = [t for t in MD.parse(text) if t.type == "fence"]
    diff = [t for t in fences if t.info == "diff"]
    assert len(diff) == 1 and "@octocat" in diff[0].content


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (".evalbot.yml", "<code>.evalbot.yml</code>"),
        ("ci/evals.yml", "<code>ci/evals.yml</code>"),
        # raw HTML is not Markdown: entities, not backslashes; the joiner stops the mention
        (
            "x</code></summary><img src=x>@octocat.yml",
            "<code>x&lt;/code&gt;&lt;/summary&gt;&lt;img src=x&gt;@\u2060octocat.yml</code>",
        ),
    ],
)
def test_config_change_names_the_real_config_file(path: str, shown: str) -> None:
    view = SCENARIOS["regression"]().view()
    view = replace(view, config_change="-alpha: 0.05\n+alpha: 0.5\n", config_path=path)
    text = render_comment(view, marker=MARKER)
    (line,) = [x for x in text.splitlines() if "changes the analysis plan" in x]
    assert f"the analysis plan ({shown}); the plan of the base branch applies" in line
    assert OWN_HTML.fullmatch(line)


def test_cli_markdown_has_no_marker() -> None:
    text = render_markdown(SCENARIOS["improvement"]().view())
    assert "<!--" not in text and text.startswith("### ✅ Improvement: +4.2 pp [")


def test_view_without_optional_fields_renders() -> None:
    """A view holding only the original fields (what a custom caller may build) renders."""
    full = SCENARIOS["improvement"]().view()
    bare = View(
        **{
            name: getattr(full, name)
            for name, f in View.__dataclass_fields__.items()
            if f.default is f.default_factory  # both MISSING: a required field
        }
    )
    text = render_comment(bare, marker=MARKER)
    assert text.startswith(MARKER + "\n### ✅ Improvement: +4.2 pp [")
