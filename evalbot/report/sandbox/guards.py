"""The limits of a user's template: time (a timer that stops any loop), output (checked while it
streams), memory (the address space, on Linux) and, counted by the sandbox, nested macros."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING, Any, cast

import jinja2

from evalbot import limits

if TYPE_CHECKING:
    from _typeshed import TraceFunction

try:
    import resource
except ImportError:  # pragma: no cover - not on Windows: no memory limit there
    resource = None  # type: ignore[assignment]

__all__ = ["Limits", "TemplateLimitError", "TemplateTimeout", "render_limited"]


@dataclass(frozen=True, kw_only=True)
class Limits:
    """What a user's template may use, each time it is rendered (the defaults are
    :mod:`evalbot.limits`')."""

    seconds: float = limits.TEMPLATE_SECONDS
    output_chars: int = limits.TEMPLATE_OUTPUT_CHARS
    memory_bytes: int = limits.TEMPLATE_MEMORY_BYTES  # beyond what the process had before
    macro_depth: int = limits.TEMPLATE_MACRO_DEPTH
    files: int = limits.TEMPLATE_FILES  # distinct files it may include or import
    file_chars: int = limits.TEMPLATE_FILE_CHARS


class TemplateLimitError(Exception):
    """A user's template went past one of its :class:`Limits` (the message says which)."""


class TemplateTimeout(BaseException):  # like KeyboardInterrupt
    """Raised inside a rendering that ran out of time. A ``BaseException``, so that no
    ``except Exception`` on the way can swallow it."""


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
                    raise TemplateLimitError(
                        f"the output passed {limits.output_chars:,} characters"
                    )
                chunks.append(chunk)
        finally:
            output.close()
        return "".join(chunks)

    with _memory_limit(limits.memory_bytes):
        return _with_deadline(limits.seconds, stream)


def _with_deadline(seconds: float, work: Callable[[], str]) -> str:
    """``work()``, interrupted by :class:`TemplateTimeout` after ``seconds``."""
    main = threading.current_thread() is threading.main_thread()
    if main and hasattr(signal, "setitimer") and signal.getitimer(signal.ITIMER_REAL)[0] == 0:
        return _with_alarm(seconds, work)
    return _with_trace(seconds, work)


#: After the deadline the timeout is raised again this often until the rendering ends: Python
#: ignores an exception raised in a finaliser or a weakref callback, and the next one lands.
_AGAIN = 0.25


def _with_alarm(seconds: float, work: Callable[[], str]) -> str:
    """On the main thread: ``SIGALRM`` after ``seconds``, then every :data:`_AGAIN` seconds;
    its handler raises :class:`TemplateTimeout` until the work is over."""
    armed = [True]

    def ring(signum: int, frame: object) -> None:
        if armed[0]:
            raise TemplateTimeout

    def disarm() -> None:
        armed[0] = False  # from here on a pending alarm is a no-op
        signal.setitimer(signal.ITIMER_REAL, 0)

    previous = signal.signal(signal.SIGALRM, ring)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds, _AGAIN)
        try:
            return work()
        finally:
            disarm()
    finally:
        disarm()  # again: the alarm may have gone off inside the first disarm()
        signal.signal(signal.SIGALRM, previous)


def _with_trace(seconds: float, work: Callable[[], str]) -> str:
    """Off the main thread (no signal can reach it): a trace function of this thread's own
    raises :class:`TemplateTimeout` from the rendering's next line once ``seconds`` have
    passed, and keeps raising it until the work is over (an exception raised inside a
    finaliser is ignored by Python; the next line gets another). Nothing runs in another
    thread, so nothing can land in this one after the work ends: the earlier tracer (e.g. a
    coverage tool's) is put back when the work is over."""
    deadline = time.monotonic() + seconds
    lines = 0

    def on_line(frame: FrameType, event: str, arg: object) -> TraceFunction:
        nonlocal lines
        lines += 1
        if lines % _LINES_PER_CHECK == 0 and time.monotonic() > deadline:
            raise TemplateTimeout
        return on_line

    def on_call(frame: FrameType, event: str, arg: object) -> TraceFunction:
        if time.monotonic() > deadline:
            raise TemplateTimeout
        return on_line

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        return work()
    finally:
        sys.settrace(previous)


#: Lines between two looks at the clock off the main thread (a look costs a system call).
_LINES_PER_CHECK = 256


def _address_space() -> int | None:
    """The process's virtual memory size in bytes (Linux), or ``None``."""
    if resource is None:  # pragma: no cover - Windows
        return None
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            pages = int(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * resource.getpagesize()


@contextlib.contextmanager
def _memory_limit(extra: int) -> Iterator[None]:
    """The address space capped at what the process uses now plus ``extra`` bytes, so an
    allocation past it raises ``MemoryError`` instead of exhausting the machine."""
    current = _address_space()
    if current is None or resource is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = current + extra
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
