"""Parsers: bytes of one result file -> :class:`evalbot.results.model.Results`.

Each format module exposes ``parse(data: bytes, *, source: str, options: ReadOptions) -> Results``
and ``sniff(name: str, head: bytes) -> bool``. They are pure: no file access. :func:`detect`
picks a format from the file name and its first bytes (the harness-specific formats are tried
first, evalbot's own format last); ``format:`` in the config forces one by name (:func:`resolve`).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from evalbot.errors import InputError
from evalbot.results.builder import show
from evalbot.results.formats import (
    default,
    inspect_ai,
    junit,
    lm_eval,
    openai_evals,
    promptfoo,
    swebench,
)
from evalbot.results.model import Results
from evalbot.results.options import ReadOptions

Parse = Callable[..., Results]

#: How many leading bytes :func:`detect` looks at.
HEAD_BYTES = 8192


@dataclass(frozen=True, kw_only=True)
class Format:
    """A named parser and the test that recognises its files."""

    name: str
    parse: Callable[[bytes, str, ReadOptions], Results]
    sniff: Callable[[str, bytes], bool]


def _adapt(module_parse: Parse) -> Callable[[bytes, str, ReadOptions], Results]:
    def run(data: bytes, source: str, options: ReadOptions) -> Results:
        return module_parse(data, source=source, options=options)

    return run


def _default_kind(kind: str) -> Callable[[bytes, str, ReadOptions], Results]:
    def run(data: bytes, source: str, options: ReadOptions) -> Results:
        return default.parse(data, source=source, options=options, kind=kind)

    return run


def _never(name: str, head: bytes) -> bool:
    return False


#: Detection order: most specific first; ``default`` accepts anything.
DETECTED: tuple[Format, ...] = tuple(
    Format(name=module.NAME, parse=_adapt(module.parse), sniff=module.sniff)
    for module in (inspect_ai, lm_eval, promptfoo, openai_evals, swebench, junit, default)
)

FORMATS: dict[str, Format] = {f.name: f for f in DETECTED}
for _kind in ("jsonl", "json", "csv", "tsv"):
    FORMATS[_kind] = Format(name=_kind, parse=_default_kind(_kind), sniff=_never)

ALIASES: dict[str, str] = {
    "inspect_ai": "inspect",
    "inspect-ai": "inspect",
    "lm_eval": "lm-eval",
    "lm-evaluation-harness": "lm-eval",
    "lm_evaluation_harness": "lm-eval",
    "openai_evals": "openai-evals",
    "oaieval": "openai-evals",
    "swe-bench": "swebench",
    "swe_bench": "swebench",
    "resolved-ids": "swebench",
    "resolved": "swebench",
    "junit-xml": "junit",
    "xml": "junit",
    "evalbot": "default",
    "ndjson": "jsonl",
}


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


def detect(name: str, head: bytes) -> Format:
    """The first format whose ``sniff`` accepts this file name and these first bytes."""
    for candidate in DETECTED:
        if candidate.sniff(name, head):
            return candidate
    return FORMATS["default"]


def parse_any(name: str, data: bytes, options: ReadOptions) -> Results:
    """Parse one file's bytes with the forced or the detected format."""
    chosen = resolve(options.format) if options.format else detect(name, data[:HEAD_BYTES])
    return chosen.parse(data, name, options)
