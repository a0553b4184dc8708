"""The View -> GitHub-flavoured Markdown (the comment, the check run, the job summary, the
CLI's ``--format markdown``) or plain text, with the bundled templates or a user's own
(``report.template``) in :mod:`evalbot.report.sandbox`, cut to what GitHub accepts; and the
outputs of ``evalbot plan``."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from jinja2.exceptions import SecurityError

from evalbot.errors import ConfigError
from evalbot.limits import MAX_CHECK_TEXT_CHARS, MAX_COMMENT_CHARS
from evalbot.plan.sizing import PILOT_CONFIDENCE, PLAN_SIMULATIONS, Discordance, ItemsPlan
from evalbot.report import sandbox, sizing
from evalbot.report import text as md
from evalbot.report.numbers import p_clause
from evalbot.report.text import Markdown
from evalbot.report.view import HistoryRow, View
from evalbot.stats.power import DetectableEffectResult

#: What a user's template may use each time it is rendered (docs/comment.md).
TEMPLATE_LIMITS = sandbox.Limits()
#: Item ids shown per list in a PR comment (the job summary shows all the view holds).
COMMENT_LIST_LIMIT = 50
#: Slices shown in a PR comment.
COMMENT_SLICE_LIMIT = 40
#: Job summaries may be up to 1 MiB; stay well inside it.
SUMMARY_LIMIT = 512 * 1024

#: How a message about a user's template past one of its limits ends.
_A_LIMIT = "; that is a limit of `report.template`"
_FOREIGN_MARKER = re.compile(r"<!--(?=\s*evalbot)")
_BUNDLED_LOADER = jinja2.FileSystemLoader(sandbox.BUNDLED_TEMPLATES)


@functools.cache
def _bundled(mode: sandbox.Mode) -> sandbox.Sandbox:
    return sandbox.environment(mode, _BUNDLED_LOADER, code_cache=sandbox.BUNDLED_CODE)


def render(template: str, view: View, **extra: Any) -> str:
    """One of the bundled templates (``comment.md.j2``, ``text.j2``) with ``view``."""
    context: dict[str, Any] = {"limit": None, "slice_limit": None, "mode": "cli", **extra}
    mode: sandbox.Mode = "markdown" if template.endswith(".md.j2") else "text"
    return _bundled(mode).get_template(template).render(v=view, **context)


@dataclass(frozen=True, kw_only=True)
class UserTemplate:
    """A user's template already read (the action reads it at the base commit): ``name``
    (``.github/verdict.md.j2@1a2b3c4``) names it in messages, ``folder`` serves the files
    beside it that it may include (none when ``None``)."""

    name: str
    text: str
    folder: sandbox.TemplateFolder | None = None


TemplateSource = str | Path | UserTemplate


def _read_user(template: TemplateSource) -> UserTemplate:
    if isinstance(template, UserTemplate):
        return template
    try:
        with Path(template).open(encoding="utf-8") as handle:
            text = handle.read(TEMPLATE_LIMITS.file_chars + 1)
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) else "not UTF-8"
        raise ConfigError(f"{template}: cannot read the report template ({why})") from None
    folder = sandbox.TemplateFolder.on_disk(Path(template).parent, limits=TEMPLATE_LIMITS)
    return UserTemplate(name=str(template), text=text, folder=folder)


def _render_user(template: TemplateSource, view: View, **extra: Any) -> str:
    """A user's template in the sandbox, within :data:`TEMPLATE_LIMITS`; every way it can
    fail is one :class:`ConfigError` line naming it."""
    user, limits = _read_user(template), TEMPLATE_LIMITS
    if "marker" in extra:
        extra["marker"] = Markdown(extra["marker"])  # evalbot's own: <!-- evalbot:NAME -->
    try:
        if len(user.text) > limits.file_chars:
            raise sandbox.TemplateLimitError(f"it is over {limits.file_chars:,} characters")
        folder = user.folder or sandbox.TemplateFolder(lambda relative: None)  # no files
        env = sandbox.environment("markdown", folder, limits=limits)
        sandbox.prefetch(env, user.text)
        return sandbox.render_limited(env, user.text, {"v": view, **extra}, limits)
    except jinja2.TemplateSyntaxError as error:
        # in an included file: name it after the template
        where = f"{user.name}:" if error.name is None else f"{user.name}: {error.name}:"
        raise ConfigError(f"{where}{error.lineno}: report template: {error.message}") from None
    except sandbox.TemplateTimeout:
        why = f"it ran for more than {limits.seconds:g} s (a loop without end?){_A_LIMIT}"
    except sandbox.TemplateLimitError as error:
        why = f"{error}{_A_LIMIT}"
    except MemoryError:
        why = f"it needed more than {limits.memory_bytes / 2**30:g} GiB of memory{_A_LIMIT}"
    except RecursionError:
        why = "it nests too deep (a macro or an include that calls itself without end?)"
    except (jinja2.TemplateError, SecurityError) as error:
        why = str(error)
    except Exception as error:  # an error in the user's template, not in evalbot
        why = f"{type(error).__name__}: {error}"
    raise ConfigError(f"{user.name}: report template failed: {why}")


def _body(view: View, template: TemplateSource | None, marker: str, **extra: Any) -> str:
    if template is not None:
        return _render_user(template, view, marker=marker, **extra)
    return render("comment.md.j2", view, **extra)


def render_markdown(view: View, *, template: TemplateSource | None = None) -> str:
    """The CLI's ``--format markdown``: the comment without marker or state."""
    return _body(view, template, "", limit=COMMENT_LIST_LIMIT, mode="cli")


def render_text(view: View) -> str:
    return render("text.j2", view, limit=COMMENT_LIST_LIMIT)


def _with_marker(body: str, marker: str, state_block: str) -> str:
    """``body`` with the comment's marker first (when it lacks it) and ``state_block`` last;
    any other ``<!-- evalbot...`` in it (a user's template may write one) is broken with a word
    joiner: the only markers in evalbot's comment are its own."""
    parts = body.split(marker) if marker else [body]
    body = marker.join(_FOREIGN_MARKER.sub("<!\u2060--", part) for part in parts)
    if marker not in body:
        body = f"{marker}\n{body}"
    if state_block:
        body = body.rstrip("\n") + "\n\n" + state_block.rstrip("\n") + "\n"
    return body


def _cut(text: str, room: int) -> str:
    """``text`` cut at a line boundary to at most ``room`` characters, with a note (as it is
    when it fits)."""
    if len(text) <= room:
        return text
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
    max_chars: int = MAX_COMMENT_CHARS,
    template: TemplateSource | None = None,
) -> str:
    """The sticky PR comment: ``marker`` (kept even if a custom template omits it), the
    report, then ``state_block``. Long lists are cut with a count so the whole stays within
    ``max_chars`` (GitHub refuses comments over 65,536 characters)."""
    tail = len(state_block) + len(marker) + 4
    for limit in (COMMENT_LIST_LIMIT, 20, 10, 3, 0):
        slices = min(limit, COMMENT_SLICE_LIMIT)
        body = _body(view, template, marker, limit=limit, slice_limit=slices, mode="comment")
        if len(body) + tail <= max_chars:
            break
    return _with_marker(_cut(body, max_chars - tail), marker, state_block)


def render_summary(view: View, *, template: TemplateSource | None = None) -> str:
    """The job summary ($GITHUB_STEP_SUMMARY): everything the view holds."""
    body = _body(view, template, "", limit=None, slice_limit=None, mode="summary")
    return _cut(body, SUMMARY_LIMIT)


def render_notice(
    title: str,
    message: str,
    *,
    marker: str,
    state_block: str = "",
    history: Sequence[HistoryRow] = (),
    max_chars: int = MAX_COMMENT_CHARS,
    failed: bool = False,
) -> str:
    """A sticky comment without a verdict (no baseline yet, an expired artifact, a refusal):
    ``title`` and ``message`` are printed as they are when they are :class:`Markdown`, escaped
    otherwise; the earlier looks and ``state_block`` stay. ``failed``: the check fails."""
    tail = len(state_block) + len(marker) + 4
    template = _bundled("markdown").get_template("notice.md.j2")
    symbol = Markdown("❌" if failed else "➖")
    body = template.render(title=title, message=message, symbol=symbol, v={"history": history})
    return _with_marker(_cut(body, max_chars - tail), marker, state_block)


def render_check(view: View) -> tuple[str, str]:
    """A check run's (title, summary): the verdict line as one line of plain text (GitHub
    shows a title as it is), and the comment's report."""
    said = f"{view.effect}, {p_clause(view.pvalue)}"
    if view.outcome == "inconclusive":
        said = view.headline  # the reason: input
    title = f"{view.symbol} {view.outcome_label}: {md.plain(said)}; gate {view.gate}"
    if len(title) > 200:
        title = title[:199] + "…"
    summary = render_comment(view, marker="", max_chars=MAX_CHECK_TEXT_CHARS)
    return title, summary.lstrip("\n")


def render_plan(plan: ItemsPlan, form: str) -> str:
    """``evalbot plan`` as ``form`` (json, markdown or text)."""
    return _render_plan(form, functools.partial(sizing.items_json, plan), plan=plan)


def render_detectable(result: DetectableEffectResult, found: Discordance, form: str) -> str:
    """The minimum detectable effect as ``form`` (json, markdown or text)."""
    document = functools.partial(sizing.detectable_json, result, found)
    return _render_plan(form, document, plan=None, result=result, found=found)


def _render_plan(form: str, document: Callable[[], dict[str, object]], **context: Any) -> str:
    """``document()`` as JSON, or the plan's template with ``context``."""
    if form == "json":
        return json.dumps(document(), indent=2) + "\n"
    mode: sandbox.Mode = "markdown" if form == "markdown" else "text"
    template = _bundled(mode).get_template("plan.md.j2" if mode == "markdown" else "plan.j2")
    return template.render(
        markdown=mode == "markdown",
        confidence=PILOT_CONFIDENCE,
        simulations=PLAN_SIMULATIONS,
        assumption=sizing.assumption,
        **context,
    )
