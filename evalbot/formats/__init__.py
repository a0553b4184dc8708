"""Parsers: bytes of one result file -> :class:`evalbot.formats.model.Results`.

Each format module exposes ``sniff(probe: Probe) -> bool`` and ``parse(data: bytes, *, source,
options) -> Results`` or, for a file of one JSON document, ``parse_document(document, *, source,
options)``; ``parse_probe(probe, options)`` may reuse what detection parsed. They are pure.

:func:`detect` picks a format by the file's *structure* (:class:`.probe.Probe`: the keys of the
JSON document or of the first JSON line, XML, ZIP), never by a window of bytes; harness formats
are tried first, evalbot's own format last. ``format:`` in the config or ``--format-in NAME``
forces one by name (:func:`resolve`). When a detected file cannot be read, the message says which
formats were tried and how to force one.
"""

from __future__ import annotations

import difflib
import gc
from dataclasses import dataclass
from types import ModuleType

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
from evalbot.formats.jsontext import NOTHING, UnreadableError, decode_text, parse_json_document
from evalbot.formats.model import Results
from evalbot.formats.options import ReadOptions
from evalbot.formats.probe import Probe

#: How to force a format, as every "could not read" message says it.
FORCE_HINT = "--format-in NAME (config `format: NAME`)"


@dataclass(frozen=True, kw_only=True)
class Format:
    """A named parser and the structural test that recognises its files."""

    name: str
    module: ModuleType
    kind: str | None = None  # evalbot's own format read as this kind (jsonl, json, csv, tsv)

    def sniff(self, probe: Probe) -> bool:
        return self.kind is None and bool(self.module.sniff(probe))

    def parse(self, data: bytes, source: str, options: ReadOptions) -> Results:
        """The file's bytes parsed (a module without ``parse`` reads one JSON document)."""
        module = self.module
        if self.kind is not None:
            return default.parse(data, source=source, options=options, kind=self.kind)
        if hasattr(module, "parse"):
            result: Results = module.parse(data, source=source, options=options)
            return result
        document = parse_json_document(decode_text(data, source), source)
        return self.document(document, source, options)

    def document(self, document: object, source: str, options: ReadOptions) -> Results:
        result: Results = self.module.parse_document(document, source=source, options=options)
        return result

    def parse_probe(self, probe: Probe, options: ReadOptions) -> Results:
        """A detected file parsed, reusing what detection parsed."""
        if self.kind is not None:
            return self.parse(probe.data, probe.name, options)
        if hasattr(self.module, "parse_probe"):
            result: Results = self.module.parse_probe(probe, options)
            return result
        if hasattr(self.module, "parse_document") and probe.document is not NOTHING:
            return self.document(probe.document, probe.name, options)
        return self.parse(probe.data, probe.name, options)


#: Detection order: most specific first; ``default`` accepts anything.
DETECTED: tuple[Format, ...] = tuple(
    Format(name=module.NAME, module=module)
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
HARNESS_NAMES: tuple[str, ...] = tuple(f.name for f in DETECTED if f.name != "default")

FORMATS: dict[str, Format] = {f.name: f for f in DETECTED}
FORMATS.update(
    {kind: Format(name=kind, module=default, kind=kind) for kind in ("jsonl", "json", "csv", "tsv")}
)

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
    for candidate in DETECTED:
        if candidate.sniff(probe):
            return candidate
    return FORMATS["default"]  # pragma: no cover - default.sniff accepts everything


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


def _first_item(probe: Probe) -> object:
    """The first record of a file read as evalbot's own format, as detection saw it."""
    if probe.kind == "jsonl":
        return probe.record
    document = probe.document
    if isinstance(document, dict) and isinstance(document.get("items"), list):
        document = document["items"]
    return document[0] if isinstance(document, list) and document else None


def _format_in_doubt(probe: Probe, chosen: str) -> bool:
    """Whether a "could not read" error should say which formats were tried: always for a
    detected harness format; for evalbot's own format, unless the file does start with an item
    object (a broken line 2 of a JSONL file is not a question of format)."""
    return chosen != "default" or not isinstance(_first_item(probe), dict)


def parse_any(name: str, data: bytes, options: ReadOptions) -> Results:
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


def _parse_any(name: str, data: bytes, options: ReadOptions) -> Results:
    if options.format:
        return resolve(options.format).parse(data, name, options)
    probe = Probe(name, data)
    chosen = detect_probe(probe)
    try:
        return chosen.parse_probe(probe, options)
    except UnreadableError as error:
        if not _format_in_doubt(probe, chosen.name):
            raise
        raise UnreadableError(f"{error}{tried_hint(chosen.name)}") from None
