"""Shards of one run (several files, an archive's members) merged into one :class:`Results`:
one kind of metric, epochs on every shard or none, and no (id, epoch) twice across them."""

from __future__ import annotations

import numpy as np

from evalbot.errors import InputError
from evalbot.formats.builder import check_unique
from evalbot.formats.model import BoolArray, FloatArray, IntArray, Results


def merge(shards: list[Results], spec: str) -> Results:
    """One ``Results`` from several shards; a repeated (id, epoch) across shards is an error."""
    if len(shards) == 1:
        return shards[0]
    _check_alike(shards)
    ids = [i for s in shards for i in s.ids]
    locations = [
        loc
        for s in shards
        for loc in (s.locations if s.locations is not None else map(s.location, range(len(s))))
    ]
    epochs = _epochs(shards)
    id_hashes = check_unique(ids, epochs, locations.__getitem__)
    return Results(
        source=", ".join(s.source for s in shards),
        ids=ids,
        scores=np.concatenate([s.scores for s in shards]),
        kind=shards[0].kind,
        epochs=epochs,
        slices=_labels(shards, "slices"),
        clusters=_labels(shards, "clusters"),
        costs=_floats(shards, "costs", np.nan),
        errors=_errors(shards),
        metrics=_metrics(shards),
        locations=locations,
        content_hashes=_labels(shards, "content_hashes"),
        id_hashes=id_hashes,
    )


def _check_alike(shards: list[Results]) -> None:
    """One kind of metric across the shards, and epochs on all of them or on none."""
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


def _epochs(shards: list[Results]) -> IntArray | None:
    if any(s.epochs is None for s in shards):
        return None
    return np.concatenate([s.epochs for s in shards if s.epochs is not None])


def _labels(shards: list[Results], name: str) -> list[str | None] | None:
    """A label column across the shards (``None`` rows where a shard has none)."""
    columns = [getattr(s, name) for s in shards]
    if all(c is None for c in columns):
        return None
    return [v for s, c in zip(shards, columns, strict=True) for v in (c or [None] * len(s))]


def _floats(shards: list[Results], name: str, fill: float) -> FloatArray | None:
    """A numeric column across the shards (``fill`` where a shard has none)."""
    columns = [getattr(s, name) for s in shards]
    if all(c is None for c in columns):
        return None
    return np.concatenate(
        [
            np.asarray(c, dtype=np.float64) if c is not None else np.full(len(s), fill)
            for s, c in zip(shards, columns, strict=True)
        ]
    )


def _errors(shards: list[Results]) -> BoolArray | None:
    errors = _floats(shards, "errors", 0.0)
    return None if errors is None else errors.astype(np.bool_)


def _metrics(shards: list[Results]) -> dict[str, FloatArray]:
    """Every shard's named metrics (NaN where a shard lacks one)."""
    names = list(dict.fromkeys(name for s in shards for name in s.metrics))
    return {
        name: np.concatenate([s.metrics.get(name, np.full(len(s), np.nan)) for s in shards])
        for name in names
    }
