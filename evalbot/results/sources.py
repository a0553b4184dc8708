"""Where results come from: a file, a directory, a glob (and, later, archives).

``load_results`` reads every file a spec names, parses each with its format, and merges the
shards into one :class:`Results`. This is the IO edge of ``evalbot.results``.
"""

from __future__ import annotations

import glob
from pathlib import Path

import numpy as np

from evalbot.errors import InputError
from evalbot.results.builder import check_unique
from evalbot.results.formats import default
from evalbot.results.model import FloatArray, Results
from evalbot.results.options import ReadOptions

RESULT_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".tsv")


def expand(spec: str) -> list[Path]:
    """The files a spec names, sorted; a clear error when it names none."""
    if any(ch in spec for ch in "*?["):
        paths = [Path(p) for p in sorted(glob.glob(spec, recursive=True)) if Path(p).is_file()]
        if not paths:
            raise InputError(f"{spec}: no files match this pattern")
        return paths
    path = Path(spec)
    if path.is_dir():
        paths = sorted(
            p for p in path.rglob("*") if p.is_file() and p.name.lower().endswith(RESULT_SUFFIXES)
        )
        if not paths:
            raise InputError(
                f"{spec}: directory holds no result files ({', '.join(RESULT_SUFFIXES)})"
            )
        return paths
    if not path.exists():
        raise InputError(f"{spec}: no such file or directory")
    return [path]


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})") from None


def parse_file(name: str, data: bytes, options: ReadOptions) -> Results:
    """Parse one file's bytes with the format it is written in."""
    return default.parse(data, source=name, options=options)


def load_results(spec: str, options: ReadOptions) -> Results:
    """Read and merge every shard a spec names."""
    shards = [parse_file(str(path), read_bytes(path), options) for path in expand(spec)]
    return merge(shards, spec)


def merge(shards: list[Results], spec: str) -> Results:
    """One ``Results`` from several shards; a repeated (id, epoch) across shards is an error."""
    if len(shards) == 1:
        return shards[0]
    kinds = {s.kind for s in shards}
    if len(kinds) > 1:
        first = next(s for s in shards if s.kind == "binary")
        other = next(s for s in shards if s.kind == "score")
        raise InputError(
            f"{other.source}: has a score metric but {first.source} has pass/fail; "
            "shards of one run must use one kind"
        )
    with_epochs = [s.epochs is not None for s in shards]
    if any(with_epochs) and not all(with_epochs):
        bad = shards[with_epochs.index(False)]
        raise InputError(f"{bad.source}: rows have no `epoch` but other shards do")
    ids = [i for s in shards for i in s.ids]
    locations = [loc for s in shards for loc in (s.locations or [s.source] * len(s))]
    epochs = (
        np.concatenate([s.epochs for s in shards if s.epochs is not None])
        if all(with_epochs)
        else None
    )
    check_unique(ids, epochs, locations)

    def labels(name: str) -> list[str | None] | None:
        columns = [getattr(s, name) for s in shards]
        if all(c is None for c in columns):
            return None
        return [v for s, c in zip(shards, columns, strict=True) for v in (c or [None] * len(s))]

    def floats(name: str, fill: float) -> FloatArray | None:
        columns = [getattr(s, name) for s in shards]
        if all(c is None for c in columns):
            return None
        return np.concatenate(
            [
                c if c is not None else np.full(len(s), fill)
                for s, c in zip(shards, columns, strict=True)
            ]
        )

    errors = floats("errors", 0.0)
    return Results(
        source=", ".join(s.source for s in shards),
        ids=ids,
        scores=np.concatenate([s.scores for s in shards]),
        kind=shards[0].kind,
        epochs=epochs,
        slices=labels("slices"),
        clusters=labels("clusters"),
        costs=floats("costs", np.nan),
        errors=None if errors is None else errors.astype(np.bool_),
        locations=locations,
        content_hashes=labels("content_hashes"),
    )
