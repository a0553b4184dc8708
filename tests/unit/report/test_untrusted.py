"""Untrusted text everywhere it can be printed: the hostile ids of the golden
scenario as slice names, scorer names, reasons, warnings, plan values, history rows, notes,
the config's path and diff, and messages; in the comment, the job summary, the check run, a
notice, the CLI's text and its stderr, annotations and log lines."""

from __future__ import annotations

import io
import subprocess
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from evalbot.cli import main
from evalbot.github.runner import ActionsEnv
from evalbot.report import text as md
from evalbot.report.docs import GLOSSARY_URL
from evalbot.report.render import (
    render_check,
    render_comment,
    render_markdown,
    render_notice,
    render_summary,
    render_text,
)
from evalbot.report.text import Markdown
from evalbot.report.view import HistoryRow, Row, SecondaryRow, View
from tests.golden.scenarios import HOSTILE_IDS, MARKER, SCENARIOS, STATE
from tests.inert import MD, assert_inert, assert_own_commands, assert_plain_lines, walk


def own_link(href: str) -> bool:
    """The links evalbot writes: items (report.item_url), runs and commits, and the footer's
    "terms" link to the glossary."""
    return href == GLOSSARY_URL or href.startswith(
        ("https://logs.example/", "https://github.com/acme/")
    )


@pytest.fixture(scope="module")
def view() -> View:
    """The hostile scenario with hostile text in every field that may hold input."""
    base = SCENARIOS["hostile"]().view()
    m = Markdown
    return replace(
        base,
        outcome=m("inconclusive"),
        headline=" ".join(HOSTILE_IDS),
        reasons=list(HOSTILE_IDS),
        gate_reasons=list(HOSTILE_IDS),
        warnings=list(HOSTILE_IDS),
        disclosure=" ".join(HOSTILE_IDS),
        secondary=[
            SecondaryRow(
                name=name,
                baseline=m("0.5"),
                candidate=m("0.6"),
                effect=m("+0.100 [0.010, 0.190]"),
                test=m("exact sign-flip"),
                pvalue=m("0.030"),
                adjusted_pvalue=m("0.060"),
                significant=False,
            )
            for name in HOSTILE_IDS
        ],
        plan=[Row(label=m("look"), value=name) for name in HOSTILE_IDS],
        history=[
            HistoryRow(label=h, outcome=h, effect=h, pvalue=h, commit=h, at=h) for h in HOSTILE_IDS
        ],
        config_path=HOSTILE_IDS[3],
        config_change="\n".join(HOSTILE_IDS),
        notes=tuple(md.format("Baseline: {} from {}.", h, md.code(h)) for h in HOSTILE_IDS),
    )


def tables(markdown: str) -> list[list[int]]:
    shapes: list[list[int]] = []
    for token in walk(MD.parse(markdown)):
        if token.type == "table_open":
            shapes.append([])
        elif token.type == "tr_open":
            shapes[-1].append(0)
        elif token.type in ("th_open", "td_open"):
            shapes[-1][-1] += 1
    return shapes


def test_the_comment_holds_no_markup_from_input(view: View) -> None:
    text = render_comment(view, marker=MARKER, state_block=STATE)
    assert_inert(text, own_links=own_link, own_markers=[MARKER, STATE])
    shapes = tables(text)
    assert len(shapes) >= 5  # 2x2, rates, slices, secondary, history
    for rows in shapes:
        assert len(set(rows)) == 1, rows  # no row gained or lost a cell


@pytest.mark.parametrize("render", [render_summary, render_markdown])
def test_the_summary_and_the_cli_markdown_hold_none_either(
    view: View, render: Callable[[View], str]
) -> None:
    assert_inert(render(view), own_links=own_link)


def test_the_check_run_title_is_one_printable_line_and_its_summary_inert(view: View) -> None:
    title, summary = render_check(view)
    assert_plain_lines(title)
    assert len(title) <= 200
    assert_inert(summary, own_links=own_link)


def test_the_cli_text_has_no_control_characters(view: View) -> None:
    text = render_text(view)
    assert_plain_lines(text)
    # each id is on a line of its own, its own line only
    assert text.count("\n") == render_text(replace(view, reasons=[])).count("\n") + len(HOSTILE_IDS)


@pytest.mark.parametrize("hostile", HOSTILE_IDS)
def test_a_notice_quoting_input_is_inert(hostile: str) -> None:
    message = md.format("The paired comparison is refused: {}. Run {}.", hostile, md.code(hostile))
    text = render_notice(
        Markdown("Baseline has another item set"),
        message,
        marker=MARKER,
        state_block=STATE,
        failed=True,
    )
    assert_inert(text, own_markers=[MARKER, STATE])
    assert text.startswith(MARKER + "\n### ❌ Baseline has another item set")
    # a plain str where Markdown is expected is escaped, not printed raw
    assert_inert(render_notice(hostile, hostile, marker=MARKER), own_markers=[MARKER])


def test_annotations_and_log_lines_are_one_line_each() -> None:
    stream = io.StringIO()
    env = ActionsEnv(None, None, stream)
    for hostile in HOSTILE_IDS:
        env.error(hostile, title=hostile)
        env.warning(md.format("refused: {}", hostile).plain, title="evalbot: x")
        env.info(f"evalbot: {hostile}")
    log = stream.getvalue()
    assert len(assert_own_commands(log)) == 2 * len(HOSTILE_IDS)
    assert log.count("\n") == 3 * len(HOSTILE_IDS)


def test_cli_errors_on_stderr_are_one_line_without_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "x\x1b[31m\nevalbot: forged line\r\u202e.jsonl"
    (tmp_path / "base.jsonl").write_text('{"id": "a", "passed": true}\n')
    code = main(["compare", str(tmp_path / "base.jsonl"), str(tmp_path / name)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("evalbot: error: ")
    assert_plain_lines(err)
    assert "forged line" in err  # the wording is kept, on the one line


def test_cli_errors_in_a_terminal_subprocess(
    tmp_path: Path, run_cli: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    rows = '{"id": "a\\u001b]0;title\\u0007\\nb", "passed": true}\n'
    (tmp_path / "base.jsonl").write_text(rows)
    (tmp_path / "cand.jsonl").write_text('{"id": "c", "passed": true}\n')
    result = run_cli("compare", "base.jsonl", "cand.jsonl", cwd=tmp_path)
    assert result.returncode == 2
    assert_plain_lines(result.stderr)
    assert result.stderr.count("\n") == 1
