"""The compiled code of the methods :mod:`dataclasses` generates, kept between runs (issue 12).

On Python 3.11 :func:`dataclasses.dataclass` writes each class's ``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, ``__setattr__`` and ``__delattr__`` as source text and compiles each
with its own ``exec``: about 1 ms a frozen record class, and a ``compare`` loads about 90 of
them, a third of a small run's own time. :func:`install` gives the ``dataclasses`` module an
``exec`` of its own that compiles a text only when it has not seen it before: the code of
every text it compiled is kept in one file beside evalbot's compiled modules and read back
on the next run, as Python keeps a module's ``.pyc``.

Nothing else changes: a text is compiled exactly as ``exec`` compiles it (no inherited
``__future__`` flag, the file name ``<string>``), and the code object runs with the same
globals and namespace as before, so the classes are what ``dataclasses`` makes without it.
The cache is keyed by the whole text (an entry is never used for another text) and is read
only when it was written by the same Python bytecode version; a file that cannot be read as
such is ignored and replaced. It is written as Python writes ``.pyc`` files: once, when the
process ends, only when something new was compiled, not when ``sys.dont_write_bytecode`` is
set (``PYTHONDONTWRITEBYTECODE``), silently not where the folder cannot be written, and
atomically (written aside, then renamed). Only :mod:`marshal` data, no pickle.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import importlib.util
import marshal
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import CodeType
from typing import Any

__all__ = ["ClassCodeCache", "install"]

#: The file's first bytes: what the entries were compiled by, and this format's version.
_HEAD = b"evalbot-classcode-1\n" + importlib.util.MAGIC_NUMBER + b"\n"
#: Entries kept at most (a text is about 200 bytes and its code about 400): beyond it the
#: file keeps only what the run that writes it compiled or used.
MAX_ENTRIES = 4096

_FOLDER = Path(__file__).resolve().parent / "__pycache__"
_NAME = f"classcode.{sys.implementation.cache_tag}.marshal"


class ClassCodeCache:
    """``exec`` for :mod:`dataclasses`, compiling each source text once across runs (above).

    ``path``: the cache file. Call the instance as ``exec``; :meth:`save` writes the file
    when something new was compiled.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._known: dict[str, CodeType] = _read(path)
        self._used: dict[str, CodeType] = {}
        self._new = False

    def __call__(
        self,
        source: Any,
        globals: dict[str, Any] | None = None,
        locals: Mapping[str, object] | None = None,
        /,
    ) -> None:
        if not isinstance(source, str):  # code objects and anything else: as ever
            builtins.exec(source, globals, locals)
            return
        code = self._known.get(source)
        if code is None:
            # flags=0, dont_inherit=True: what ``exec`` of this text in dataclasses.py compiles
            # (that module has no ``from __future__``; this one has, and must not lend it)
            code = compile(source, "<string>", "exec", 0, True)
            self._known[source] = code
            self._new = True
        self._used[source] = code
        builtins.exec(code, globals, locals)

    def save(self) -> None:
        """Write the cache file when this run compiled a text it did not have (above)."""
        if not self._new or sys.dont_write_bytecode:
            return
        import tempfile  # only when writing

        entries = self._known if len(self._known) <= MAX_ENTRIES else self._used
        data = _HEAD + marshal.dumps(entries)
        folder = self.path.parent
        aside: Path | None = None
        try:
            folder.mkdir(exist_ok=True)
            with tempfile.NamedTemporaryFile(
                "wb", dir=folder, prefix=self.path.name, suffix=".tmp", delete=False
            ) as handle:
                aside = Path(handle.name)
                handle.write(data)
            aside.chmod(0o644)  # readable by all, as Python's own .pyc files
            aside.replace(self.path)
            self._new = False
        except OSError:
            if aside is not None:
                aside.unlink(missing_ok=True)


def _read(path: Path) -> dict[str, CodeType]:
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if not data.startswith(_HEAD):
        return {}
    try:
        entries = marshal.loads(data[len(_HEAD) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(entries, dict):
        return {}
    return {
        text: code
        for text, code in entries.items()
        if isinstance(text, str) and isinstance(code, CodeType)
    }


_installed: ClassCodeCache | None = None


def install(path: Path | None = None) -> ClassCodeCache:
    """Give :mod:`dataclasses` the caching ``exec`` (once a process; the same cache after),
    saved when the process ends. ``EVALBOT_NO_CLASSCODE=1`` leaves ``dataclasses`` as it is
    (the cache is then made but not used)."""
    global _installed
    if _installed is None:
        cache = ClassCodeCache(path or _FOLDER / _NAME)
        if os.environ.get("EVALBOT_NO_CLASSCODE") != "1":
            dataclasses.exec = cache  # type: ignore[attr-defined]
            atexit.register(cache.save)
        _installed = cache
    return _installed
