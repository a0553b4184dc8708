"""Render the view-model to GitHub-flavoured Markdown or plain text with jinja2 templates.

Templates are package data (``evalbot/templates``) rendered in a sandboxed environment with
``StrictUndefined``. Every string that came from a result file (item ids) goes through the
``md`` filter, which neutralises Markdown, HTML, @mentions and #references.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from evalbot.report import View

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character
_WORD_JOINER = "\u2060"
_BREAK_AFTER = re.compile(r"[@#:]")
_WWW = re.compile(r"(?i)(www)\.")


def md_escape(text: object) -> str:
    """Untrusted text as inert Markdown: no markup, no HTML, no mentions, no links.

    Every ASCII punctuation character is backslash-escaped (CommonMark allows this for all of
    them, so ``<``, ``&``, ``|`` and backticks lose their meaning, also inside table cells), and
    an invisible word joiner follows ``@``, ``#``, ``:`` and ``www`` so GitHub's mention,
    reference and autolink passes, which run on the rendered text, find nothing to link.
    """
    value = "".join(ch if ch.isprintable() else " " for ch in str(text))
    value = _WWW.sub(lambda m: m.group(1) + _WORD_JOINER + ".", value)
    value = _BREAK_AFTER.sub(lambda m: m.group(0) + _WORD_JOINER, value)
    return _PUNCTUATION.sub(r"\\\1", value)


def _environment() -> SandboxedEnvironment:
    env = SandboxedEnvironment(
        loader=jinja2.FunctionLoader(_load_template),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["md"] = md_escape
    return env


def _load_template(name: str) -> str:
    return (resources.files("evalbot") / "templates" / name).read_text(encoding="utf-8")


def render(template: str, view: View, **extra: Any) -> str:
    """Render one of the bundled templates (``comment.md.j2``, ``text.j2``) with ``view``."""
    return _environment().get_template(template).render(v=view, **extra)


def render_markdown(view: View) -> str:
    return render("comment.md.j2", view)


def render_text(view: View) -> str:
    return render("text.j2", view)
