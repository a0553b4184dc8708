"""Parsers: bytes of one result file -> :class:`evalbot.formats.model.Results`.

Each format module exposes ``sniff(probe: Probe) -> bool`` and ``parse_probe(probe, options) ->
Results``, pure; a :class:`.probe.Probe` holds the file and what detection learnt of it.

:func:`detect` picks a format by the file's *structure* (the keys of the JSON document or of the
first JSON line, XML, ZIP), never by a window of bytes; harness formats are tried first,
evalbot's own format last. ``format:`` in the config or ``--format-in NAME`` forces one by name
(:func:`resolve`). When a detected file cannot be read, the message says which formats were
tried and how to force one.
"""

from __future__ import annotations

import difflib
import gc
from types import ModuleType
from typing import NamedTuple

from evalbot.errors import InputError
from evalbot.formats import (
    default,
    helm,
    inspect_ai,
    junit,
    lm_eval,
    mlflow,
    openai_evals,
    promptfoo,
    swebench,
)
from evalbot.formats.builder import show
from evalbot.formats.jsontext import UnreadableError
from evalbot.formats.model import ReadOptions, Results
from evalbot.formats.probe import Probe, Source

#: How to force a format, as every "could not read" message says it.
FORCE_HINT = "--format-in NAME (config `format: NAME`)"


class Format(NamedTuple):
    """A named parser; ``kind`` reads evalbot's own format as jsonl, json, csv or tsv."""

    name: str
    module: ModuleType
    kind: str | None = None

    def parse(self, probe: Probe, options: ReadOptions) -> Results:
        result: Results = self.module.parse_probe(probe, options)
        return result


#: Detection order: most specific first; ``default`` accepts anything.
DETECTED: tuple[Format, ...] = tuple(
    Format(module.NAME, module)
    for module in (
        inspect_ai,
        lm_eval,
        promptfoo,
        openai_evals,
        swebench,
        mlflow,
        helm,
        junit,
        default,
    )
)
HARNESS_NAMES: tuple[str, ...] = tuple(f.name for f in DETECTED if f.module is not default)

FORMATS: dict[str, Format] = {f.name: f for f in DETECTED}
FORMATS.update({kind: Format(kind, default, kind) for kind in ("jsonl", "json", "csv", "tsv")})

#: Other names of each format.
_OTHER_NAMES = {
    "inspect": ("inspect_ai", "inspect-ai"),
    "lm-eval": ("lm_eval", "lm-evaluation-harness", "lm_evaluation_harness"),
    "openai-evals": ("openai_evals", "oaieval"),
    "swebench": ("swe-bench", "swe_bench", "resolved-ids", "resolved"),
    "junit": ("junit-xml", "xml"),
    "mlflow": ("mlflow-genai", "mlflow_genai"),
    "helm": ("crfm-helm",),
    "default": ("evalbot",),
    "jsonl": ("ndjson",),
}
ALIASES: dict[str, str] = {alias: name for name, names in _OTHER_NAMES.items() for alias in names}


def resolve(name: str) -> Format:
    """The format called ``name`` (or an alias); an error with a hint for a typo."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key in FORMATS:
        return FORMATS[key]
    known = sorted(FORMATS)
    close = difflib.get_close_matches(key, [*known, *ALIASES], n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise InputError(f"format: unknown format {show(name)} (known: {', '.join(known)}){hint}")


def detect_probe(probe: Probe) -> Format:
    """The first format whose ``sniff`` recognises this file's structure."""
    return next(f for f in DETECTED if f.module.sniff(probe))


def detect(name: str, data: bytes) -> Format:
    """The format of a file, from its name and its structure (the whole file is looked at)."""
    return detect_probe(Probe(name, data))


def tried_hint(chosen: str) -> str:
    """What a "could not read" message adds when the format was detected, not forced."""
    if chosen == "default":
        return (
            f"; not recognised as any of {', '.join(HARNESS_NAMES)}, so it was read as "
            f"evalbot's own format; if it is one of those, force it with {FORCE_HINT}"
        )
    return f"; read as {chosen} (detected); if it is another format, force it with {FORCE_HINT}"


def _starts_with_an_item(probe: Probe) -> bool:
    """Whether a file read as evalbot's own format starts with an item object, as detection
    saw it: then a "could not read" error is not a question of format (a broken line 2 of a
    JSONL file), and does not say which formats were tried."""
    if probe.kind == "jsonl":
        return isinstance(probe.record, dict)
    items = probe.document
    if isinstance(items, dict):
        items = items.get("items")
    return isinstance(items, list) and bool(items) and isinstance(items[0], dict)


def parse_any(name: str, data: bytes | Source, options: ReadOptions) -> Results:
    """Parse one file's bytes with the forced or the detected format.

    The garbage collector is paused meanwhile: parsed JSON values hold no reference cycle (what
    a parse builds is freed by reference counting), and each collection while parsed objects
    pile up walks them again (a 2,000-row MLflow export ran 66).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse_any(name, data, options)
    finally:
        if enabled:
            gc.enable()


def _parse_any(name: str, data: bytes | Source, options: ReadOptions) -> Results:
    if options.format:
        forced = resolve(options.format)
        if forced.module is default:
            return default.parse(data, source=name, options=options, kind=forced.kind)
        return forced.parse(Probe(name, data), options)
    probe = Probe(name, data)
    chosen = detect_probe(probe)
    try:
        return chosen.parse(probe, options)
    except UnreadableError as error:
        if chosen.module is default and _starts_with_an_item(probe):
            raise
        raise UnreadableError(f"{error}{tried_hint(chosen.name)}") from None
