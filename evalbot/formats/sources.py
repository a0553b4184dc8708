"""Where results come from: a file, a directory, a glob, or a ``.zip`` of result files.

``load_results`` reads every file a spec names, parses each with its format (forced by
``format:`` or detected from the name and first bytes), and merges the shards into one
:class:`Results` (:func:`merge`). Archives are read in memory as untrusted input
(:mod:`.archive`). This is the IO edge of ``evalbot.formats``.
"""

from __future__ import annotations

import glob
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from evalbot.errors import InputError
from evalbot.formats import parse_any
from evalbot.formats.archive import Archive, budget_of
from evalbot.formats.builder import check_unique
from evalbot.formats.helm import SIDECARS
from evalbot.formats.ids import parse_id_list
from evalbot.formats.jsontext import CHUNK
from evalbot.formats.lm_eval import AGGREGATE
from evalbot.formats.model import ReadOptions, Results
from evalbot.formats.probe import Source, base_name, held

#: A file larger than this is not held whole unless its parser needs it so (JSON Lines are
#: read in pieces); the head holds a first line of :attr:`ReadOptions.max_line_bytes`.
HEAD: Final = 16 << 20
RESULT_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".eval", ".xml", ".zip")


def is_result_name(name: str) -> bool:
    """Whether a file in a directory or archive is read as results (lm-eval's aggregate
    ``results_<date>.json`` beside the samples files is not)."""
    return name.lower().endswith(RESULT_SUFFIXES) and not AGGREGATE.fullmatch(base_name(name))


def results_among(names: list[str]) -> list[str]:
    """The result files among a directory's or an archive's names: HELM's files beside a
    ``per_instance_stats.json`` (its run spec, scenario state, ...) are left out."""
    split = [(n, n.replace("\\", "/").rpartition("/")) for n in names]
    folders = {parts[0] for _, parts in split if parts[2].lower() == "per_instance_stats.json"}
    return [
        n
        for n, (folder, _, base) in split
        if is_result_name(n) and not (base.lower() in SIDECARS and folder in folders)
    ]


def expand(spec: str) -> list[Path]:
    """The files a spec names, sorted; a clear error when it names none."""
    if any(ch in spec for ch in "*?["):
        paths = [Path(p) for p in sorted(glob.glob(spec, recursive=True)) if Path(p).is_file()]
        if not paths:
            raise InputError(f"{spec}: no files match this pattern")
        return paths
    path = Path(spec)
    if path.is_dir():
        files = {str(p): p for p in path.rglob("*") if p.is_file()}
        paths = sorted(files[name] for name in results_among(list(files)))
        if not paths:
            raise InputError(
                f"{spec}: directory holds no result files ({', '.join(RESULT_SUFFIXES)})"
            )
        return paths
    if not path.exists():
        raise InputError(f"{spec}: no such file or directory")
    return [path]


@contextmanager
def _reading(path: Path) -> Iterator[None]:
    """Errors reading ``path`` as one line naming it."""
    try:
        yield
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})") from None


def read_bytes(path: Path) -> bytes:
    with _reading(path):
        return path.read_bytes()


class FileSource:
    """A file larger than :data:`HEAD` (see :class:`~evalbot.formats.probe.Source`): its head
    held, the rest read when a parser asks, whole or in pieces read into one buffer (no copy of
    the file in memory)."""

    def __init__(self, path: Path, head: bytes) -> None:
        self.path, self.head = path, head

    def whole(self) -> bytes:
        return read_bytes(self.path)

    def pieces(self) -> Iterator[memoryview]:
        """Pieces ending at line ends; each is valid until the next is asked for."""
        buffer, held = bytearray(CHUNK), 0
        with _reading(self.path), self.path.open("rb", buffering=0) as stream:
            while read := stream.readinto(memoryview(buffer)[held:]):
                held += read
                end = buffer.rfind(b"\n", 0, held)
                if end < 0 and held == len(buffer):  # a line longer than the buffer
                    buffer = buffer + bytes(len(buffer))  # a new one: the last piece is a view
                if end >= 0:
                    yield memoryview(buffer)[:end]
                    buffer[: held - end - 1] = buffer[end + 1 : held]
                    held -= end + 1
        if held:
            yield memoryview(buffer)[:held]


def read(path: Path) -> bytes | FileSource:
    """A file's bytes, or for a large regular file (not a pipe) its head and how to read it."""
    with _reading(path), path.open("rb") as stream:
        head = stream.read(HEAD + 1)
        if len(head) > HEAD and not path.is_file():
            return head + stream.read()
    return head if len(head) <= HEAD else FileSource(path, head[:HEAD])


def parse_file(name: str, data: bytes | Source, options: ReadOptions) -> list[Results]:
    """Parse one file's bytes with the format it is written in; a ``.zip`` (not an inspect
    ``.eval`` log) gives one shard per result file inside it. The file and every archive nested
    in it spend from one budget (a fresh one unless ``options`` carries one)."""
    if name.lower().endswith(".zip"):
        return parse_zip(name, held(data).whole(), options)
    return [parse_any(name, data, replace(options, archive_budget=budget_of(options)))]


def parse_zip(name: str, data: bytes, options: ReadOptions) -> list[Results]:
    """Every result file in a ZIP archive, each parsed as a shard (nested archives other than
    inspect ``.eval`` logs are refused). The archive and the ``.eval`` logs inside it share one
    budget of inflated bytes and entries (``max_archive_bytes``, ``max_archive_members``)."""
    budget = budget_of(options)
    options = replace(options, archive_budget=budget)
    archive = Archive(data, source=name, budget=budget)
    kept = set(results_among([m.filename for m in archive.members]))
    members = [m for m in archive.members if m.filename in kept]
    if not members:
        raise InputError(f"{name}: archive holds no result files ({', '.join(RESULT_SUFFIXES)})")
    options = replace(options, several_files=options.several_files or len(members) > 1)
    shards = []
    for member in members:
        inner = f"{name}!{member.filename}"
        if member.filename.lower().endswith(".zip"):
            raise InputError(f"{inner}: archives inside archives are not read")
        shards.append(parse_any(inner, archive.read(member), options))
    return shards


def load_ids(spec: str) -> tuple[str, ...]:
    """The ids named by the file of ``--all-ids FILE`` (relative to the current directory, as
    every flag's file; the plan's ``all_ids:`` is read relative to the config file by
    :func:`evalbot.plan.config.parse_config`)."""
    path = Path(spec)
    if not path.exists():
        raise InputError(
            f"{spec}: no such file (named by --all-ids, which is relative to the current directory)"
        )
    return parse_id_list(read_bytes(path), source=spec)


def load_results(spec: str, options: ReadOptions) -> Results:
    """Read and merge every shard a spec names."""
    if options.all_ids is not None and options.known_ids is None:
        options = replace(options, known_ids=load_ids(options.all_ids))
    paths = expand(spec)
    options = replace(options, several_files=options.several_files or len(paths) > 1)
    shards = [shard for path in paths for shard in parse_file(str(path), read(path), options)]
    return merge(shards)


def merge(shards: list[Results]) -> Results:
    """One ``Results`` from the shards of one run (several files, an archive's members): one
    kind of metric, epochs on every shard or none, and no (id, epoch) twice across them."""
    if len(shards) == 1:
        return shards[0]
    kinds = {s.kind: s.source for s in reversed(shards)}  # the first shard of each kind
    if len(kinds) > 1:
        raise InputError(
            f"{kinds['score']}: has a score metric but {kinds['binary']} has pass/fail; "
            "shards of one run must use one kind"
        )
    without = [s for s in shards if s.epochs is None]
    if without and len(without) < len(shards):
        raise InputError(f"{without[0].source}: rows have no `epoch` but other shards do")
    ids = [i for s in shards for i in s.ids]
    starts = np.cumsum([0, *map(len, shards)])

    def where(row: int) -> str:
        shard = int(np.searchsorted(starts, row, side="right")) - 1
        return shards[shard].location(row - int(starts[shard]))

    epochs = _column(shards, "epochs", np.int64, 0)
    return Results(
        source=", ".join(s.source for s in shards),
        ids=ids,
        scores=np.concatenate([s.scores for s in shards]),
        kind=shards[0].kind,
        epochs=epochs,
        slices=_column(shards, "slices", object, None),
        clusters=_column(shards, "clusters", object, None),
        costs=_column(shards, "costs", np.float64, np.nan),
        errors=_column(shards, "errors", np.bool_, False),
        metrics={
            name: np.concatenate([s.metrics.get(name, np.full(len(s), np.nan)) for s in shards])
            for name in dict.fromkeys(name for s in shards for name in s.metrics)
        },
        where=where,
        content_hashes=_column(shards, "content_hashes", object, None),
        id_hashes=check_unique(ids, epochs, where),
    )


def _column(shards: list[Results], name: str, dtype: npt.DTypeLike, fill: object) -> Any:
    """A column across the shards (``fill`` where a shard has none; a list of labels for
    ``object``), ``None`` when no shard has it."""
    columns = [getattr(s, name) for s in shards]
    if all(c is None for c in columns):
        return None
    joined = np.concatenate(
        [
            np.full(len(s), fill, dtype) if c is None else np.asarray(c, dtype)
            for s, c in zip(shards, columns, strict=True)
        ]
    )
    return joined.tolist() if dtype is object else joined
