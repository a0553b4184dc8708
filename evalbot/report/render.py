"""Render the view-model to GitHub-flavoured Markdown or plain text with jinja2 templates.

Templates are package data (``evalbot/report/templates``) rendered in evalbot's sandbox
(:mod:`evalbot.report.sandbox`) with ``StrictUndefined``. Every ``{{ value }}`` that is not
:class:`~evalbot.report.text.Markdown` (evalbot's own text: numbers, labels) is untrusted and
escaped
on output, so an item id, a file name or a message cannot print raw. A user's template
(``report.template``) renders in the same sandbox with :class:`~evalbot.report.sandbox.Limits`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from jinja2.exceptions import SecurityError

from evalbot.errors import ConfigError
from evalbot.limits import MAX_CHECK_TEXT_CHARS as GITHUB_CHECK_SUMMARY_LIMIT
from evalbot.limits import MAX_COMMENT_CHARS as GITHUB_COMMENT_LIMIT
from evalbot.report import text as md
from evalbot.report.numbers import p_clause
from evalbot.report.records import HistoryRow, View
from evalbot.report.sandbox.environment import Sandbox, environment
from evalbot.report.sandbox.files import (
    BUNDLED_CODE,
    TemplateFolder,
    bundled_loader,
    prefetch,
    user_loader,
)
from evalbot.report.sandbox.guards import (
    Limits,
    TemplateLimitError,
    TemplateTimeout,
    render_limited,
)
from evalbot.report.text import Markdown

__all__ = [
    "TEMPLATE_LIMITS",
    "TemplateFolder",
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

#: Untrusted text as inert Markdown (:func:`evalbot.report.text.escape`), as the ``md`` filter does.
md_escape = md.escape

#: What a user's template may use each time it is rendered (README, "Your own template").
TEMPLATE_LIMITS = Limits()


@functools.cache
def _bundled(mode: str) -> Sandbox:
    return environment(
        "markdown" if mode == "markdown" else "text", bundled_loader(), code_cache=BUNDLED_CODE
    )


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
    mode = "markdown" if template.endswith(".md.j2") else "text"
    return _bundled(mode).get_template(template).render(v=view, **context)


@dataclass(frozen=True, kw_only=True)
class UserTemplate:
    """A user's template already read, e.g. by the action from the pull request's base commit;
    ``name`` (say ``.github/verdict.md.j2@1a2b3c4``) names it in messages, ``folder`` serves
    the files beside it that it may include (none when ``None``)."""

    name: str
    text: str
    folder: TemplateFolder | None = None


def _read_user(template: str | Path | UserTemplate) -> UserTemplate:
    if isinstance(template, UserTemplate):
        return template
    most = TEMPLATE_LIMITS.file_chars
    try:
        with Path(template).open(encoding="utf-8") as handle:
            text = handle.read(most + 1)
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) else "not UTF-8"
        raise ConfigError(f"{template}: cannot read the report template ({why})") from None
    folder = TemplateFolder.on_disk(Path(template).parent, limits=TEMPLATE_LIMITS)
    return UserTemplate(name=str(template), text=text, folder=folder)


def _render_user(template: str | Path | UserTemplate, view: View, **extra: Any) -> str:
    """A user's template (``report.template``) in the sandbox, within :data:`TEMPLATE_LIMITS`;
    it may include the files of its own folder and import the bundled macros. Every way it
    can fail is one :class:`ConfigError` line naming it.

    ``template`` is a path to read, or a :class:`UserTemplate` already read.
    """
    user = _read_user(template)
    path, limits = user.name, TEMPLATE_LIMITS
    if "marker" in extra:
        extra["marker"] = Markdown(extra["marker"])  # evalbot's own: <!-- evalbot:NAME -->
    why = ""
    try:
        if len(user.text) > limits.file_chars:
            raise TemplateLimitError(f"it is over {limits.file_chars:,} characters")
        env = environment("markdown", user_loader(user.folder), limits=limits)
        prefetch(env, user.text)
        return render_limited(env, user.text, {"v": view, **extra}, limits)
    except jinja2.TemplateSyntaxError as error:
        # in an included file: name it after the template
        where = f"{path}:" if error.name is None else f"{path}: {error.name}:"
        raise ConfigError(f"{where}{error.lineno}: report template: {error.message}") from None
    except TemplateTimeout:
        why = (
            f"it ran for more than {limits.seconds:g} s, the time limit of `report.template` "
            "(a loop without end?)"
        )
    except TemplateLimitError as error:
        why = f"{error}; that is a limit of `report.template`"
    except MemoryError:
        why = (
            f"it needed more than {limits.memory_bytes / 2**30:g} GiB of memory, the limit of "
            "`report.template`"
        )
    except RecursionError:
        why = "it nests too deep (a macro or an include that calls itself without end?)"
    except (jinja2.TemplateError, SecurityError) as error:
        why = str(error)
    except Exception as error:  # an error in the user's template, not in evalbot
        why = f"{type(error).__name__}: {error}"
    raise ConfigError(f"{path}: report template failed: {why}")


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


_FOREIGN_MARKER = re.compile(r"<!--(?=\s*evalbot)")


def _with_marker(body: str, marker: str, state_block: str) -> str:
    """``body`` with the comment's marker first (when it lacks it) and ``state_block`` last.

    Any other ``<!-- evalbot...`` in ``body`` (a user's template may write one) is broken with
    a word joiner: the only markers in evalbot's comment are its own.
    """
    parts = body.split(marker) if marker else [body]
    body = marker.join(_FOREIGN_MARKER.sub("<!\u2060--", part) for part in parts)
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
    failed: bool = False,
) -> str:
    """A sticky comment without a verdict (no baseline yet, an expired artifact, a refusal):
    ``title`` and ``message`` are printed as they are when they are :class:`Markdown` (build
    them with :mod:`evalbot.report.text`), escaped when they are any other string; the earlier looks
    and ``state_block`` stay as they were. ``failed``: the check fails (a refusal)."""
    tail = len(state_block) + len(marker) + 4
    body = (
        _bundled("markdown")
        .get_template("notice.md.j2")
        .render(
            title=title,
            message=message,
            symbol=Markdown("❌" if failed else "➖"),
            v={"history": list(history)},
        )
    )
    if len(body) + tail > max_chars:
        body = _cut(body, max_chars - tail)
    return _with_marker(body, marker, state_block)


def render_check(view: View) -> tuple[str, str]:
    """A check run's (title, summary): the verdict line (plain text, one line: GitHub shows a
    check run's title as it is), and the comment's report."""
    title = f"{view.symbol} {view.outcome_label}: " + md.plain(
        view.headline if view.outcome == "inconclusive" else view.effect
    )
    if view.outcome != "inconclusive":
        title += f", {p_clause(view.pvalue)}"
    title += f"; gate {view.gate}"
    if len(title) > 200:
        title = title[:199] + "…"
    summary = render_comment(view, marker="", max_chars=GITHUB_CHECK_SUMMARY_LIMIT)
    return title, summary.lstrip("\n")
