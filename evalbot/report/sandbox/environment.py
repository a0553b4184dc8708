"""The sandboxed jinja2 environment and its escaping: every ``{{ value }}`` that is not
:class:`~evalbot.report.text.Markdown` (or a number) is escaped when printed."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import jinja2
from jinja2.runtime import BlockReference, Context, Macro
from jinja2.sandbox import SandboxedEnvironment

from evalbot.report import text as md
from evalbot.report.numbers import p_clause
from evalbot.report.sandbox.files import BundledCodeCache
from evalbot.report.sandbox.guards import Limits, TemplateLimitError

__all__ = ["Mode", "Sandbox", "environment"]


Mode = Literal["markdown", "text"]


def _text_escape(value: object) -> md.Markdown:
    """Untrusted text for a plain-text rendering: control characters as ``?``."""
    if isinstance(value, md.Markdown):
        return value
    return md.Markdown(md.plain(value))


def _escaper(mode: Mode) -> Callable[[object], md.Markdown]:
    return md.escape if mode == "markdown" else _text_escape


def _finalizer(mode: Mode, most: int | None) -> Callable[[Any], Any]:
    """``finalize``: Markdown and numbers as they are, anything else escaped; a string over
    ``most`` characters is refused before it is escaped (an output limit, early)."""
    escape = _escaper(mode)

    def finalize(value: Any) -> Any:
        if isinstance(value, md.Markdown | int | float):  # numbers print as they are
            return value
        if most is not None and isinstance(value, str) and len(value) > most:
            raise TemplateLimitError(f"the output passed {most:,} characters")
        return escape(value)

    return finalize


def _filters(mode: Mode) -> dict[str, Callable[..., Any]]:
    escape = _escaper(mode)

    def p(value: object) -> md.Markdown:
        return md.Markdown(p_clause(escape(value)))

    @jinja2.pass_environment
    def join(
        env: jinja2.Environment, value: Any, d: object = "", attribute: str | None = None
    ) -> md.Markdown:
        if attribute is not None:
            value = map(jinja2.filters.make_attrgetter(env, attribute), value)
        sep = escape(d)
        return md.Markdown(str(sep).join(str(escape(item)) for item in value))

    filters: dict[str, Callable[..., Any]] = {
        "md": md.escape,
        "html": md.html,
        "codeblock": md.code_block,
        "plain": md.plain,
        "p": p,
        "join": join,
    }
    if mode == "text":
        filters["plain"] = _text_escape
        # plain text has no markup to break: filters that only move whitespace and characters
        # around keep their arguments' control characters out and their output as it is
        for name in ("wordwrap", "indent", "replace", "format", "center", "truncate", "trim"):
            filters[name] = _escaping(jinja2.filters.FILTERS[name], escape)
    return filters


def _escaping(
    function: Callable[..., Any], escape: Callable[[object], md.Markdown]
) -> Callable[..., Any]:
    """``function`` on its arguments escaped (strings that are not Markdown), its result
    trusted."""

    def clean(value: Any) -> Any:
        return escape(value) if isinstance(value, str) else value

    # jinja2's @pass_environment / @pass_eval_context: the first argument is jinja2's own
    marker = getattr(function, "jinja_pass_arg", None)
    passed = 1 if marker is not None else 0

    def wrapped(*args: Any, **kwargs: Any) -> md.Markdown:
        head, subject, rest = args[:passed], args[passed], args[passed + 1 :]
        out = function(*head, escape(subject), *map(clean, rest), **kwargs)
        return md.Markdown(str(out))

    if marker is not None:
        wrapped.jinja_pass_arg = marker  # type: ignore[attr-defined]
    return wrapped


class Sandbox(SandboxedEnvironment):
    """jinja2's sandbox with the escaping described in the module's docstring, macro calls
    that give Markdown (nested at most ``limits.macro_depth`` deep), and ``*``/``**``
    that refuse results too big to build."""

    # intercepted: computed at render time (never folded while compiling), sizes checked
    intercepted_binops = frozenset({"*", "**", "%", "+"})

    def __init__(self, *, limits: Limits | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.limits = limits or Limits()
        self._local = threading.local()  # the depth of macro calls, per rendering thread

    def call(
        __self,  # jinja2's own spelling, so that a keyword argument `self` passes
        __context: Context,
        __obj: Any,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        if not isinstance(__obj, Macro | BlockReference):
            return super().call(__context, __obj, *args, **kwargs)
        depth = getattr(__self._local, "depth", 0)
        if depth >= __self.limits.macro_depth:
            raise TemplateLimitError(
                f"macros nested deeper than {__self.limits.macro_depth} "
                "(a macro that calls itself without end?)"
            )
        __self._local.depth = depth + 1
        try:
            # the macro's text is the template's own Markdown, its values already escaped
            return md.Markdown(str(super().call(__context, __obj, *args, **kwargs)))
        finally:
            __self._local.depth = depth

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        most = self.limits.output_chars
        _check_size(operator, left, right, most)
        result = super().call_binop(context, operator, left, right)
        if isinstance(result, str | list | tuple) and len(result) > most:
            raise TemplateLimitError(f"{operator}: a value over {most:,} characters or items")
        return result

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        formatter = super().wrap_str_format(value)
        if formatter is None:
            return None
        wrapped = formatter

        def plain_str(*args: Any, **kwargs: Any) -> str:
            return str.__str__(wrapped(*args, **kwargs))  # never Markdown: escaped on output

        return plain_str


def _check_size(operator: str, left: Any, right: Any, most: int) -> None:
    """Refuse ``left * right`` or ``left ** right`` whose result would be huge (computed in C,
    where no time limit can stop it)."""
    ints = all(isinstance(x, int) for x in (left, right))
    if operator == "**" and ints and right > 0 and abs(left) > 1:
        if abs(left).bit_length() * right > 4096:
            raise TemplateLimitError(f"{operator}: a number too large to compute")
    elif operator == "*":
        if ints and abs(left).bit_length() + abs(right).bit_length() > 4096:
            raise TemplateLimitError(f"{operator}: a number too large to compute")
        for seq, times in ((left, right), (right, left)):
            sized = isinstance(seq, str | list | tuple) and isinstance(times, int)
            if sized and len(seq) * times > most:
                raise TemplateLimitError(f"{operator}: a sequence over {most:,} items")


def environment(
    mode: Mode,
    loader: jinja2.BaseLoader,
    *,
    limits: Limits | None = None,
    code_cache: Path | None = None,
) -> Sandbox:
    """The environment of evalbot's templates (``mode``: Markdown or plain text).
    ``code_cache``: a folder to keep the compiled templates in between runs
    (:class:`BundledCodeCache`; only for evalbot's own templates)."""
    env = Sandbox(
        limits=limits,
        loader=loader,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_finalizer(mode, None if limits is None else limits.output_chars),
    )
    env.filters.update(_filters(mode))
    env.globals.pop("lipsum", None)  # text for nothing, and as much as one asks for
    if code_cache is not None:
        env.bytecode_cache = BundledCodeCache(_fingerprint(env, mode), code_cache)
    return env


def _fingerprint(env: Sandbox, mode: Mode) -> str:
    """What a template's compiled code depends on besides its text and Python's version."""
    settings = (
        jinja2.__version__,
        f"{type(env).__module__}.{type(env).__qualname__}",
        mode,
        env.block_start_string,
        env.block_end_string,
        env.variable_start_string,
        env.variable_end_string,
        env.comment_start_string,
        env.comment_end_string,
        env.line_statement_prefix,
        env.line_comment_prefix,
        env.trim_blocks,
        env.lstrip_blocks,
        env.newline_sequence,
        env.keep_trailing_newline,
        env.autoescape,
        env.finalize is not None,
        env.optimized,
        sorted(env.extensions),
        sorted(env.intercepted_binops),
        sorted(env.intercepted_unops),
        env.is_async,
        env.policies.get("compiler.ascii_str"),
        # a filter's or test's name, and what jinja2 passes it first: both are compiled in
        sorted((n, str(getattr(f, "jinja_pass_arg", None))) for n, f in env.filters.items()),
        sorted((n, str(getattr(f, "jinja_pass_arg", None))) for n, f in env.tests.items()),
    )
    return repr(settings)
