"""The jinja2 environment every template renders in: sandboxed and escaping (a ``{{ value }}``
that is not :class:`~evalbot.report.text.Markdown` or a number is escaped), and for a user's
template limited in what it reads (its own folder, the bundled macros), how long it runs, how
much it writes and allocates, and how deep it nests. See docs/comment.md, "Your own
template"."""

from __future__ import annotations

import contextlib
import hashlib
import math
import re
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Literal, cast

import jinja2
import jinja2.meta
from jinja2.runtime import BlockReference, Context, Macro
from jinja2.sandbox import SandboxedEnvironment

from evalbot import limits
from evalbot.report import text as md
from evalbot.report.numbers import p_clause

if TYPE_CHECKING:
    from _typeshed import TraceFunction

try:
    import resource
except ImportError:  # pragma: no cover - not on Windows: no memory limit there
    resource = None  # type: ignore[assignment]

Mode = Literal["markdown", "text"]
#: A format spec without fill character (whose character would be printed as it is).
_FORMAT_SPEC = re.compile(r"[<>^=]?[-+ ]?#?0?\d*[,_]?(\.\d+)?[bdeEfFgGnosxX%]?")

#: The one bundled template a user's template may import.
BUNDLED_MACROS = "macros.md.j2"
#: The bundled templates, package data read as files (``importlib.resources`` would load
#: ``zipfile`` and more on every report).
BUNDLED_TEMPLATES = Path(__file__).resolve().parent / "templates"
#: Where their compiled code is kept, as Python keeps a module's beside it.
BUNDLED_CODE = BUNDLED_TEMPLATES / "__pycache__"


@dataclass(frozen=True, kw_only=True)
class Limits:
    """What a user's template may use each time it is rendered (:mod:`evalbot.limits`)."""

    seconds: float = limits.TEMPLATE_SECONDS
    output_chars: int = limits.TEMPLATE_OUTPUT_CHARS
    memory_bytes: int = limits.TEMPLATE_MEMORY_BYTES  # beyond what the process had before
    macro_depth: int = limits.TEMPLATE_MACRO_DEPTH
    files: int = limits.TEMPLATE_FILES  # distinct files it may include or import
    file_chars: int = limits.TEMPLATE_FILE_CHARS


class TemplateLimitError(Exception):
    """A user's template went past one of its :class:`Limits` (the message says which)."""


def output_limit(most: int) -> TemplateLimitError:
    return TemplateLimitError(f"the output passed {most:,} characters")


class TemplateTimeout(BaseException):  # like KeyboardInterrupt: no `except Exception` eats it
    """Raised inside a rendering that ran out of time."""


# ---- escaping -------------------------------------------------------------------------------


def _text_escape(value: object) -> md.Markdown:
    """Untrusted text for a plain-text rendering: control characters as ``?``."""
    return value if isinstance(value, md.Markdown) else md.Markdown(md.plain(value))


def _finalizer(escape: Callable[[object], md.Markdown], most: int | None) -> Callable[[Any], Any]:
    """``finalize``: Markdown and numbers as they are, anything else escaped; a string over
    ``most`` characters is refused before it is escaped (the output limit, early)."""

    def finalize(value: Any) -> Any:
        if isinstance(value, md.Markdown | int | float):
            return value
        if most is not None and isinstance(value, str) and len(value) > most:
            raise output_limit(most)
        return escape(value)

    return finalize


def _filters(mode: Mode, escape: Callable[[object], md.Markdown]) -> dict[str, Callable[..., Any]]:
    """evalbot's filters (``md``, ``html``, ``codeblock``, ``plain``, ``p``, ``fmt``) and
    ``join``, which escapes each part; in plain text also the filters that only move characters
    around, on escaped arguments."""

    def fmt(value: Any, spec: str = "g") -> md.Markdown:
        """``value`` as the format spec ``spec`` says (``"+.1f"``, ``","``, ``">12"``; no fill
        character); only a number's or Markdown's result is trusted."""
        if not isinstance(spec, str) or not _FORMAT_SPEC.fullmatch(spec):
            raise ValueError(f"fmt: {spec!r} is not a format spec without a fill character")
        value = escape(value) if isinstance(value, str) else value
        shown = format(value, spec)
        return md.Markdown(shown) if isinstance(value, int | float | md.Markdown) else escape(shown)

    @jinja2.pass_environment
    def join(
        env: jinja2.Environment, value: Any, d: object = "", attribute: str | None = None
    ) -> md.Markdown:
        if attribute is not None:
            value = map(jinja2.filters.make_attrgetter(env, attribute), value)
        return md.Markdown(str(escape(d)).join(str(escape(item)) for item in value))

    filters: dict[str, Callable[..., Any]] = {
        "md": md.escape,
        "html": md.html,
        "codeblock": md.code_block,
        "plain": md.plain if mode == "markdown" else _text_escape,
        "p": lambda value: md.Markdown(p_clause(escape(value))),
        "fmt": fmt,
        "join": join,
    }
    if mode == "text":
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
        return md.Markdown(str(function(*head, escape(subject), *map(clean, rest), **kwargs)))

    if marker is not None:
        wrapped.jinja_pass_arg = marker  # type: ignore[attr-defined]
    return wrapped


class Sandbox(SandboxedEnvironment):
    """jinja2's sandbox whose macro calls give Markdown (nested at most
    ``limits.macro_depth`` deep), and whose ``*``, ``**``, ``%`` and ``+`` refuse results too
    big to build."""

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

        def plain_str(*args: Any, **kwargs: Any) -> str:
            return str.__str__(formatter(*args, **kwargs))  # never Markdown: escaped on output

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
    """The environment of evalbot's templates (``mode``: Markdown or plain text);
    ``code_cache``: a folder to keep compiled templates in (only for evalbot's own)."""
    escape = md.escape if mode == "markdown" else _text_escape
    env = Sandbox(
        limits=limits,
        loader=loader,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_finalizer(escape, None if limits is None else limits.output_chars),
    )
    env.filters.update(_filters(mode, escape))
    env.tests["finite"] = lambda value: isinstance(value, int | float) and math.isfinite(value)
    env.globals.pop("lipsum", None)  # text for nothing, and as much as one asks for
    if code_cache is not None:
        env.bytecode_cache = _KeptCode(code_cache, mode)
    return env


class _KeptCode(jinja2.FileSystemBytecodeCache):
    """jinja2's cache of compiled templates, kept as Python keeps ``.pyc`` files: not written
    under ``PYTHONDONTWRITEBYTECODE`` nor where the folder is read-only, a broken entry
    compiled afresh. jinja2 checks the template's text, its own version and Python's; the key
    adds this module's source and the mode, which set how a template compiles."""

    def __init__(self, folder: Path, mode: Mode) -> None:
        key = hashlib.sha256(Path(__file__).read_bytes() + mode.encode()).hexdigest()[:16]
        super().__init__(str(folder), f"%s-{key}.jinja2.cache")

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # an entry that cannot be read: compiled afresh
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if sys.dont_write_bytecode:
            return
        with contextlib.suppress(OSError):
            Path(self.directory).mkdir(exist_ok=True)
            super().dump_bytecode(bucket)


# ---- what a template reads -------------------------------------------------------------------


def _relative(name: str) -> str:
    """``name`` as a path inside the template's folder; refused when it is absolute, climbs
    out with ``..``, or is not a plain path."""
    parts = [part for part in name.split("/") if part not in ("", ".")]
    plain = name and len(name) <= 512 and "\\" not in name and name.isprintable()
    if not plain or name.startswith("/") or not parts or ".." in parts:
        raise jinja2.TemplateNotFound(
            name,
            f"{name!r} is outside the template's folder (`report.template` may include and "
            f"import only files in its own folder, and evalbot's {BUNDLED_MACROS!r})",
        )
    return "/".join(parts)


class TemplateFolder(jinja2.BaseLoader):
    """A user's template's loader: evalbot's ``macros.md.j2``, then the files beside the
    template, read by ``read`` (a path relative to the folder, already checked; ``None``: no
    such file), each at most once: in the action from GitHub at the base commit, on the
    command line from disk (:meth:`on_disk`)."""

    def __init__(self, read: Callable[[str], str | None], *, limits: Limits | None = None):
        self._read = read
        self._limits = limits or Limits()
        self._files: dict[str, str | None] = {}

    @classmethod
    def on_disk(cls, folder: str | Path, *, limits: Limits | None = None) -> TemplateFolder:
        """The folder on disk, following no symbolic link out of it."""
        root = Path(folder).resolve()
        chars = (limits or Limits()).file_chars

        def read(relative: str) -> str | None:
            path = (root / relative).resolve()
            if not path.is_relative_to(root):
                raise jinja2.TemplateNotFound(
                    relative, f"{relative!r} is a symbolic link out of the template's folder"
                )
            if not path.is_file():
                return None
            with path.open(encoding="utf-8") as handle:
                return handle.read(chars + 1)

        return cls(read, limits=limits)

    def get_source(
        self, environment: jinja2.Environment, name: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        if name == BUNDLED_MACROS:
            return (BUNDLED_TEMPLATES / name).read_text(encoding="utf-8"), None, lambda: True
        relative = _relative(name)
        if relative not in self._files:
            if len(self._files) >= self._limits.files:
                raise TemplateLimitError(f"more than {self._limits.files} files included")
            try:
                self._files[relative] = self._read(relative)
            except (OSError, UnicodeDecodeError) as error:
                raise jinja2.TemplateNotFound(name, f"{name!r} cannot be read ({error})") from None
        text = self._files[relative]
        if text is None:
            raise jinja2.TemplateNotFound(name, f"{name!r}: no such file in the template's folder")
        if len(text) > self._limits.file_chars:
            raise TemplateLimitError(
                f"{name!r} is over {self._limits.file_chars:,} characters, too long to include"
            )
        return text, None, lambda: True


def prefetch(env: jinja2.Environment, source: str) -> None:
    """Read the files ``source`` names literally (includes, imports, an extends), and the files
    they name, before the clock starts: reading them (from GitHub) is not the template's time.
    What cannot be read is left for the rendering to report, if it gets there."""
    loader = env.loader
    assert loader is not None
    queue, seen = [source], set()
    while queue:
        try:
            names = jinja2.meta.find_referenced_templates(env.parse(queue.pop()))
        except jinja2.TemplateSyntaxError:
            continue
        for name in names:
            if name is None or name in seen:
                continue
            seen.add(name)
            try:
                queue.append(loader.get_source(env, name)[0])
            except (jinja2.TemplateNotFound, TemplateLimitError):
                continue


# ---- the limits of a user's template ---------------------------------------------------------


def render_limited(
    env: jinja2.Environment, source: str, context: dict[str, Any], limits: Limits
) -> str:
    """``source`` compiled in ``env`` and rendered, both within ``limits`` (jinja2 computes
    constant expressions and filters while it compiles): :class:`TemplateTimeout` past the
    time, :class:`TemplateLimitError` past the output, ``MemoryError`` past the memory."""

    def stream() -> str:
        template = env.from_string(source)
        chunks: list[str] = []
        size = 0
        output = cast(Generator[str, None, None], template.generate(**context))
        try:
            for chunk in output:
                size += len(chunk)
                if size > limits.output_chars:
                    raise output_limit(limits.output_chars)
                chunks.append(chunk)
        finally:
            output.close()
        return "".join(chunks)

    with _memory_limit(limits.memory_bytes):
        return _with_trace(limits.seconds, stream)


#: Trace events (calls and lines) between two looks at the clock (a look costs a system call).
_EVENTS_PER_CHECK = 256


def _with_trace(seconds: float, work: Callable[[], str]) -> str:
    """``work()``, stopped by a trace function of this thread's own that raises
    :class:`TemplateTimeout` from the rendering's next call or line once ``seconds`` have passed
    (on any thread: no signal, no timer). Nothing runs in another thread, so nothing lands after
    the work ends; the earlier tracer (a coverage tool's) is put back."""
    deadline = time.monotonic() + seconds
    events = 0

    def trace(frame: FrameType, event: str, arg: object) -> TraceFunction:
        nonlocal events
        events += 1
        if events % _EVENTS_PER_CHECK == 0 and time.monotonic() > deadline:
            raise TemplateTimeout
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        return work()
    finally:
        sys.settrace(previous)


@contextlib.contextmanager
def _memory_limit(extra: int) -> Iterator[None]:
    """The address space capped at what the process uses now (Linux) plus ``extra`` bytes, so
    an allocation past it raises ``MemoryError`` instead of exhausting the machine."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            pages: int | None = int(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        pages = None
    if pages is None or resource is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = pages * resource.getpagesize() + extra
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft != resource.RLIM_INFINITY and soft <= cap:
        yield  # already as tight
        return
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
