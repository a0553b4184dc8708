"""Render the view-model to GitHub-flavoured Markdown or plain text with jinja2 templates.

Templates are package data (``evalbot/templates``) rendered in a sandboxed environment with
``StrictUndefined``. Every string that came from a result file (item ids) goes through the
``md`` filter, which neutralises Markdown, HTML, @mentions and #references.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from jinja2.exceptions import SecurityError
from jinja2.sandbox import SandboxedEnvironment

from evalbot.errors import ConfigError
from evalbot.limits import MAX_CHECK_TEXT_CHARS as GITHUB_CHECK_SUMMARY_LIMIT
from evalbot.limits import MAX_COMMENT_CHARS as GITHUB_COMMENT_LIMIT
from evalbot.report import HistoryRow, View, p_clause

__all__ = [
    "UserTemplate",
    "md_escape",
    "render",
    "render_check",
    "render_comment",
    "render_markdown",
    "render_notice",
    "render_summary",
    "render_text",
]

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character
_WORD_JOINER = "\u2060"
_BREAK_AFTER = re.compile(r"[@#:]")
_WWW = re.compile(r"(?i)(www)\.")


def _defuse(text: object) -> str:
    """Control characters as spaces, and a word joiner after ``@``, ``#``, ``:`` and ``www``
    so GitHub's mention, reference and autolink passes find nothing to link."""
    value = "".join(ch if ch.isprintable() else " " for ch in str(text))
    value = _WWW.sub(lambda m: m.group(1) + _WORD_JOINER + ".", value)
    return _BREAK_AFTER.sub(lambda m: m.group(0) + _WORD_JOINER, value)


def md_escape(text: object) -> str:
    """Untrusted text as inert Markdown: no markup, no HTML, no mentions, no links.

    Every ASCII punctuation character is backslash-escaped (CommonMark allows this for all of
    them, so ``<``, ``&``, ``|`` and backticks lose their meaning, also inside table cells), and
    an invisible word joiner follows ``@``, ``#``, ``:`` and ``www`` so GitHub's mention,
    reference and autolink passes, which run on the rendered text, find nothing to link.
    """
    return _PUNCTUATION.sub(r"\\\1", _defuse(text))


def html_escape(text: object) -> str:
    """Untrusted text inside raw HTML (a ``<summary>``, where Markdown is not parsed, so
    backslashes would show): ``&``, ``<``, ``>`` and quotes as entities, and the word joiners
    of :func:`md_escape` so mentions, references and autolinks find nothing."""
    return html.escape(_defuse(text), quote=True)  # after the joiners: entities hold a ``#``


def plain_text(text: object) -> str:
    """Untrusted text for a terminal: control characters (escape sequences, newlines) shown
    as ``?`` so an item id cannot move the cursor, recolour or forge lines."""
    return "".join(ch if ch.isprintable() else "?" for ch in str(text))


def _codeblock(text: object, lang: str = "") -> str:
    """A fenced code block that ``text`` cannot close (the fence outruns its backticks).

    ``<!--`` is broken with a word joiner so no text in the block can pose as the hidden
    marker or state of the comment.
    """
    value = str(text).replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
    value = value.replace("<!--", "<!" + _WORD_JOINER + "--")
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{value}\n{fence}"


def _environment(loader: jinja2.BaseLoader | None = None) -> SandboxedEnvironment:
    env = SandboxedEnvironment(
        loader=loader or jinja2.FunctionLoader(_load_template),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["md"] = md_escape
    env.filters["html"] = html_escape
    env.filters["codeblock"] = _codeblock
    env.filters["plain"] = plain_text
    env.filters["p"] = p_clause
    return env


def _load_template(name: str) -> str | None:
    path = resources.files("evalbot") / "templates" / name
    if not path.is_file():
        return None
    return path.read_text(encoding="utf-8")


#: Item ids shown per list in a PR comment (the job summary shows all the view holds).
COMMENT_LIST_LIMIT = 50
#: Slices shown in a PR comment.
COMMENT_SLICE_LIMIT = 40
#: Job summaries may be up to 1 MiB; stay well inside it.
SUMMARY_LIMIT = 512 * 1024


def render(template: str, view: View, **extra: Any) -> str:
    """Render one of the bundled templates (``comment.md.j2``, ``text.j2``) with ``view``."""
    context: dict[str, Any] = {"limit": None, "slice_limit": None, "mode": "cli"}
    context.update(extra)
    return _environment().get_template(template).render(v=view, **context)


@dataclass(frozen=True, kw_only=True)
class UserTemplate:
    """A user's template already read, e.g. by the action from the pull request's base commit;
    ``name`` (say ``.github/verdict.md.j2@1a2b3c4``) names it in messages."""

    name: str
    text: str


def _render_user(template: str | Path | UserTemplate, view: View, **extra: Any) -> str:
    """A user's template (``report.template``), sandboxed; it may import the bundled macros.

    ``template`` is a path to read, or a :class:`UserTemplate` already read.
    """
    if isinstance(template, UserTemplate):
        path: str | Path = template.name
        text = template.text
    else:
        path = template
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise ConfigError(
                f"{path}: cannot read the report template ({error.strerror})"
            ) from None
    try:
        compiled = _environment().from_string(text)
        return compiled.render(v=view, **extra)
    except jinja2.TemplateSyntaxError as error:
        raise ConfigError(f"{path}:{error.lineno}: report template: {error.message}") from None
    except (jinja2.TemplateError, SecurityError) as error:
        raise ConfigError(f"{path}: report template failed: {error}") from None


TemplateSource = str | Path | UserTemplate


def render_markdown(view: View, *, template: TemplateSource | None = None) -> str:
    """The CLI's ``--format markdown``: the comment without marker or state.

    ``template`` is a user's own template (``report.template``), rendered sandboxed.
    """
    if template is not None:
        return _render_user(template, view, marker="", limit=COMMENT_LIST_LIMIT, mode="cli")
    return render("comment.md.j2", view, limit=COMMENT_LIST_LIMIT, mode="cli")


def render_text(view: View) -> str:
    return render("text.j2", view, limit=COMMENT_LIST_LIMIT)


def _with_marker(body: str, marker: str, state_block: str) -> str:
    if marker not in body:
        body = f"{marker}\n{body}"
    if state_block:
        body = body.rstrip("\n") + "\n\n" + state_block.rstrip("\n") + "\n"
    return body


def _cut(text: str, room: int) -> str:
    """``text`` cut at a line boundary to at most ``room`` characters, with a note."""
    note = (
        "\n\n… the report was cut here to fit GitHub's size limit; the job summary of the "
        "workflow run has all of it.\n"
    )
    if room <= len(note):
        return note.strip()[:room] if room > 0 else ""
    head = text[: room - len(note)]
    if "\n" in head:
        head = head[: head.rindex("\n")]
    # an open <details> or code fence would swallow the note: close what is open
    if head.count("```") % 2:
        head += "\n```"
    if head.count("<details>") > head.count("</details>"):
        head += "\n\n</details>"
    return (head + note)[:room]


def render_comment(
    view: View,
    *,
    marker: str,
    state_block: str = "",
    max_chars: int = GITHUB_COMMENT_LIMIT,
    template: TemplateSource | None = None,
) -> str:
    """The sticky PR comment: ``marker`` (kept even if a custom template omits it), the
    report, then ``state_block`` last. Long lists are cut with a count so the whole stays
    within ``max_chars`` (GitHub refuses comments over 65,536 characters)."""
    tail = len(state_block) + len(marker) + 4
    body = ""
    for limit in (COMMENT_LIST_LIMIT, 20, 10, 3, 0):
        extra = {"limit": limit, "slice_limit": min(limit, COMMENT_SLICE_LIMIT), "mode": "comment"}
        if template is not None:
            body = _render_user(template, view, marker=marker, **extra)
        else:
            body = render("comment.md.j2", view, **extra)
        if len(body) + tail <= max_chars:
            break
    else:
        body = _cut(body, max_chars - tail)
    return _with_marker(body, marker, state_block)


def render_summary(view: View, *, template: TemplateSource | None = None) -> str:
    """The job summary ($GITHUB_STEP_SUMMARY): everything the view holds."""
    extra = {"limit": None, "slice_limit": None, "mode": "summary"}
    if template is not None:
        body = _render_user(template, view, marker="", **extra)
    else:
        body = render("comment.md.j2", view, **extra)
    return body if len(body) <= SUMMARY_LIMIT else _cut(body, SUMMARY_LIMIT)


def render_notice(
    title: str,
    message: str,
    *,
    marker: str,
    state_block: str = "",
    history: Sequence[HistoryRow] = (),
    max_chars: int = GITHUB_COMMENT_LIMIT,
) -> str:
    """A sticky comment without a verdict (no baseline yet, an expired artifact): ``title``
    and ``message`` are trusted Markdown written by evalbot (never text from a result file);
    the earlier looks and ``state_block`` stay as they were."""
    tail = len(state_block) + len(marker) + 4
    body = (
        _environment()
        .get_template("notice.md.j2")
        .render(title=title, message=message, v={"history": list(history)})
    )
    if len(body) + tail > max_chars:
        body = _cut(body, max_chars - tail)
    return _with_marker(body, marker, state_block)


def render_check(view: View) -> tuple[str, str]:
    """A check run's (title, summary): the verdict line, and the comment's report."""
    title = f"{view.symbol} {view.outcome_label}: " + (
        view.headline if view.outcome == "inconclusive" else view.effect
    )
    if view.outcome != "inconclusive":
        title += f", {p_clause(view.pvalue)}"
    title += f"; gate {view.gate}"
    if len(title) > 200:
        title = title[:199] + "…"
    summary = render_comment(view, marker="", max_chars=GITHUB_CHECK_SUMMARY_LIMIT)
    return title, summary.lstrip("\n")
