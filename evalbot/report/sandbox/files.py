"""What a template can read: evalbot's bundled templates by name, and for a user's template the
files of its own folder (no absolute path, no ``..``, no symbolic link out of it) and evalbot's
``macros.md.j2``."""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import CodeType

import jinja2
import jinja2.meta
from jinja2.bccache import Bucket, BytecodeCache

from evalbot.report.sandbox.guards import Limits, TemplateLimitError

__all__ = [
    "BUNDLED_CODE",
    "BUNDLED_MACROS",
    "BundledCodeCache",
    "TemplateFolder",
    "bundled_loader",
    "prefetch",
    "user_loader",
]

#: The one bundled template a user's template may import.
BUNDLED_MACROS = "macros.md.j2"
_BUNDLED = frozenset({"comment.md.j2", "macros.md.j2", "notice.md.j2", "text.j2"})
#: The bundled templates' folder: package data of an installed (unpacked) evalbot, read as
#: files (``importlib.resources`` would load ``zipfile`` and more on every report).
BUNDLED_TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def _bundled_source(name: str) -> str | None:
    if name not in _BUNDLED:
        return None
    return (BUNDLED_TEMPLATES / name).read_text(encoding="utf-8")


def bundled_loader() -> jinja2.BaseLoader:
    """evalbot's own templates, by their bare names."""
    return jinja2.FunctionLoader(_bundled_source)


#: Where the compiled bundled templates are kept (beside the templates, as Python keeps a
#: module's compiled code in ``__pycache__`` beside it).
BUNDLED_CODE = BUNDLED_TEMPLATES / "__pycache__"


#: An entry starts with this, then the SHA-1 of the template's text (jinja2's checksum) and a
#: line break, then the code (:mod:`marshal`, whose format is Python's own: hence its magic).
_CODE_MAGIC = b"evalbot-jinja2-code\n" + importlib.util.MAGIC_NUMBER + b"\n"


class BundledCodeCache(BytecodeCache):
    """The compiled code of evalbot's own templates, kept between runs (issue 12: compiling
    them costs more than rendering). Only for the bundled templates: a user's template is
    compiled afresh each time.

    An entry is found by the template's name and everything its compiled code depends on
    besides its text: jinja2's version, the environment's class and its lexer and compiler
    settings (``fingerprint``). An entry is used only when it names the same template text
    (a SHA-1 of it) and Python's bytecode version, and holds readable code; otherwise the
    template is compiled afresh (no pickle: an entry holds only :mod:`marshal` data). Entries
    are written as Python writes ``.pyc`` files: not when ``sys.dont_write_bytecode`` is set
    (``PYTHONDONTWRITEBYTECODE``), and silently not where the folder cannot be written.
    """

    def __init__(self, fingerprint: str, folder: Path) -> None:
        self.fingerprint = fingerprint
        self.folder = folder

    def _path(self, bucket: Bucket) -> Path:
        key = hashlib.sha256(f"{self.fingerprint}|{bucket.key}".encode()).hexdigest()[:32]
        return self.folder / f"{key}.jinja2.cache"

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            data = self._path(bucket).read_bytes()
        except OSError:
            return
        head = _CODE_MAGIC + bucket.checksum.encode("ascii") + b"\n"
        if not data.startswith(head):
            return
        try:
            code = marshal.loads(data[len(head) :])
        except (EOFError, ValueError, TypeError):
            return
        if isinstance(code, CodeType):
            bucket.code = code

    def dump_bytecode(self, bucket: Bucket) -> None:
        if sys.dont_write_bytecode or bucket.code is None:
            return
        path = self._path(bucket)
        data = _CODE_MAGIC + bucket.checksum.encode("ascii") + b"\n" + marshal.dumps(bucket.code)
        aside: Path | None = None
        try:
            self.folder.mkdir(exist_ok=True)
            # written aside, then moved in whole: a reader never sees half an entry
            with tempfile.NamedTemporaryFile(
                "wb", dir=self.folder, prefix=path.name, suffix=".tmp", delete=False
            ) as handle:
                aside = Path(handle.name)
                handle.write(data)
            aside.chmod(0o644)  # readable by all, as Python's own .pyc files
            aside.replace(path)
        except OSError:
            if aside is not None:
                aside.unlink(missing_ok=True)


def _relative(name: str) -> str:
    """``name`` as a path inside the template's folder; refused when it is absolute, climbs
    out with ``..``, or is not a plain path."""
    if (
        not name
        or len(name) > 512
        or "\\" in name
        or name.startswith("/")
        or not name.isprintable()
    ):
        raise jinja2.TemplateNotFound(name, _outside(name))
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        raise jinja2.TemplateNotFound(name, _outside(name))
    return "/".join(parts)


def _outside(name: str) -> str:
    return (
        f"{name!r} is outside the template's folder (`report.template` may include and import "
        f"only files in its own folder, and evalbot's {BUNDLED_MACROS!r})"
    )


class TemplateFolder:
    """The files beside a user's template, read by ``read`` (a path relative to the folder,
    already checked; ``None`` when there is no such file), each at most once.

    In the action ``read`` asks GitHub for the file at the base commit; on the command line
    :meth:`on_disk` reads the folder, following no symbolic link out of it.
    """

    def __init__(self, read: Callable[[str], str | None], *, limits: Limits | None = None):
        self._read = read
        self._limits = limits or Limits()
        self._files: dict[str, str | None] = {}

    @classmethod
    def on_disk(cls, folder: str | Path, *, limits: Limits | None = None) -> TemplateFolder:
        root = Path(folder).resolve()
        most = (limits or Limits()).file_chars

        def read(relative: str) -> str | None:
            path = (root / relative).resolve()
            if not path.is_relative_to(root):
                raise jinja2.TemplateNotFound(
                    relative, f"{relative!r} is a symbolic link out of the template's folder"
                )
            if not path.is_file():
                return None
            with path.open(encoding="utf-8") as handle:
                return handle.read(most + 1)

        return cls(read, limits=limits)

    def source(self, name: str) -> str:
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
        return text


class _UserLoader(jinja2.BaseLoader):
    def __init__(self, folder: TemplateFolder | None) -> None:
        self._folder = folder

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        if template == BUNDLED_MACROS:
            source = _bundled_source(template)
            assert source is not None
            return source, None, lambda: True
        if self._folder is None:
            _relative(template)  # say "outside" for what would be outside anyway
            raise jinja2.TemplateNotFound(
                template, f"{template!r}: no such file in the template's folder"
            )
        return self._folder.source(template), None, lambda: True


def user_loader(folder: TemplateFolder | None) -> jinja2.BaseLoader:
    """A user's template's loader: evalbot's ``macros.md.j2``, then ``folder``'s files."""
    return _UserLoader(folder)


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
