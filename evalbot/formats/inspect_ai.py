"""inspect_ai eval logs: the ``.json`` EvalLog and the zipped ``.eval`` log.

One row per sample record: item id ``samples[].id`` (int or string), repeat ``samples[].epoch``
(1-based). The compared value is ``samples[].scores[<scorer>].value``, mapped as inspect's own
``value_to_float`` maps it: ``"C"`` 1, ``"I"`` 0, ``"P"`` 0.5, ``"N"`` 0, booleans and numbers
as they are, and the strings "yes"/"true"/"no"/"false" or a numeral. Unlike inspect (which
warns and uses 0), anything else is an error. The run is binary when every value is ``C``/``I``
or a boolean, else a score. A sample with an ``error``, and in a log that did not finish
(``status`` ``cancelled`` or ``error``) every sample of ``eval.dataset.sample_ids`` it lacks,
was not evaluated (the ``errors`` column: ``policy.errors`` decides), which is not a failure.

A ``.eval`` file is a ZIP with ``header.json`` and ``samples/<id>_epoch_<n>.json``; it is read in
memory as an untrusted archive (:mod:`evalbot.formats.archive`). ``reductions.json`` (epoch
means) is not used: pairing averages epochs itself.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping
from typing import Any

from evalbot.errors import InputError
from evalbot.formats.archive import Archive, budget_of, is_zip
from evalbot.formats.builder import (
    ResultsBuilder,
    parse_epoch,
    parse_error_flag,
    parse_item_id,
    show,
)
from evalbot.formats.jsontext import (
    NOTHING,
    UnreadableError,
    decode_text,
    parse_json_document,
)
from evalbot.formats.model import Results
from evalbot.formats.options import ReadOptions
from evalbot.formats.probe import Probe

NAME = "inspect"

_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


def _is_log(document: object) -> bool:
    return (
        isinstance(document, Mapping)
        and isinstance(document.get("eval"), Mapping)
        and ("samples" in document or "status" in document or "results" in document)
    )


def sniff(probe: Probe) -> bool:
    if probe.kind == "zip" or probe.lowered.endswith(".eval"):
        return True
    return _is_log(probe.document)


def parse_probe(probe: Probe, options: ReadOptions) -> Results:
    """Parse a detected log, reusing the parsed ``.json`` document."""
    if probe.document is not NOTHING and not probe.lowered.endswith(".eval"):
        return parse_log(
            probe.document, _samples_of(probe.document, probe.name), probe.name, options
        )
    return parse(probe.data, source=probe.name, options=options)


def _load_json(data: bytes, where: str) -> Any:
    return parse_json_document(decode_text(data, where), where)


def _samples_of(log: object, source: str) -> list[tuple[str, Any]]:
    if not isinstance(log, Mapping):
        raise UnreadableError(f"{source}: expected an inspect_ai EvalLog object")
    samples = log.get("samples")
    if samples is None:
        samples = []
    if not isinstance(samples, list):
        raise InputError(f"{source}: `samples` must be a list, got {show(samples)}")
    return [(f"{source}: sample {n}", s) for n, s in enumerate(samples, start=1)]


def _samples_from_eval(
    data: bytes, source: str, options: ReadOptions
) -> tuple[Mapping[str, Any], list[tuple[str, Any]]]:
    archive = Archive(data, source=source, budget=budget_of(options))
    header: Mapping[str, Any] = {}
    if "header.json" in archive.names():
        loaded = _load_json(archive.read("header.json"), f"{source}!header.json")
        if not isinstance(loaded, Mapping):
            raise UnreadableError(f"{source}!header.json: expected an object")
        header = loaded
    members = [m for m in archive.members() if m.filename.startswith("samples/")]
    members = sorted((m for m in members if m.filename.endswith(".json")), key=lambda m: m.filename)
    return header, [
        (f"{source}!{m.filename}", _load_json(archive.read(m), f"{source}!{m.filename}"))
        for m in members
    ]


def to_float(value: object, where: str, scorer: str) -> tuple[float, bool]:
    """(value, is_binary) for one score value, as inspect's ``value_to_float`` reads it."""
    if isinstance(value, bool):
        return (1.0 if value else 0.0), True
    if isinstance(value, int | float):
        number = float(value)
        if not math.isfinite(number):
            raise InputError(f"{where}: score `{scorer}` must be finite, got {show(value)}")
        return number, False
    if isinstance(value, str):
        if value in ("C", "I"):
            return _LETTERS[value], True
        if value in _LETTERS:
            return _LETTERS[value], False
        lowered = value.strip().lower()
        if lowered in ("yes", "true"):
            return 1.0, False
        if lowered in ("no", "false"):
            return 0.0, False
        if lowered.replace(".", "", 1).isdecimal():
            return float(lowered), False
    if isinstance(value, Mapping):
        keys = ", ".join(str(k) for k in list(value)[:6])
        first = shlex.quote(f"{scorer}.{next(iter(value), '')}")
        raise InputError(
            f"{where}: score `{scorer}` holds several values ({keys}); choose one, e.g. "
            f"--scorer {first} (config `scorer:`)"
        )
    raise InputError(
        f"{where}: score `{scorer}` must be C/I/P/N, a boolean or a number, got {show(value)}"
    )


def _scorer_names(samples: list[tuple[str, Any]]) -> list[str]:
    names: dict[str, None] = {}
    for _, sample in samples:
        if isinstance(sample, Mapping) and isinstance(sample.get("scores"), Mapping):
            for key in sample["scores"]:
                names.setdefault(str(key), None)
    return list(names)


def _choose_scorer(source: str, samples: list[tuple[str, Any]], options: ReadOptions) -> str:
    names = _scorer_names(samples)
    if options.scorer is not None:
        base = options.scorer.split(".", 1)[0] if options.scorer not in names else options.scorer
        if names and base not in names:
            raise InputError(
                f"{source}: no scorer named {show(options.scorer)}; the log has "
                + ", ".join(names)
                + " (choose one with --scorer NAME, config `scorer:`)"
            )
        return options.scorer
    if not names:
        return ""
    if len(names) > 1:
        raise InputError(
            f"{source}: log has several scorers ({', '.join(names)}); choose one, e.g. "
            f"--scorer {shlex.quote(names[0])} (config `scorer:`)"
        )
    return names[0]


def _value(sample: Mapping[str, Any], scorer: str) -> tuple[bool, object]:
    scores = sample.get("scores")
    if not isinstance(scores, Mapping):
        return False, None
    if scorer in scores:
        score = scores[scorer]
        return True, score.get("value") if isinstance(score, Mapping) else score
    head, _, key = scorer.partition(".")
    if key and head in scores:
        score = scores[head]
        value = score.get("value") if isinstance(score, Mapping) else score
        if isinstance(value, Mapping) and key in value:
            return True, value[key]
    return False, None


def _get(value: object, *keys: str) -> Any:
    """``value[k1][k2]...``, ``None`` where a level is not an object or lacks the key."""
    for key in keys:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _unfinished(
    log: Mapping[str, Any], present: set[tuple[str, int]], source: str
) -> list[tuple[str, int]]:
    """The scheduled samples (id, epoch) a cancelled or failed log lacks: not evaluated."""
    scheduled = _get(log, "eval", "dataset", "sample_ids")
    if log.get("status") not in ("cancelled", "error") or not isinstance(scheduled, list):
        return []
    epochs = _get(log, "eval", "config", "epochs")
    count = epochs if isinstance(epochs, int) and not isinstance(epochs, bool) else 1
    where = f"{source}: eval.dataset.sample_ids"
    return [
        (item_id, epoch)
        for item_id in dict.fromkeys(parse_item_id(raw, where) for raw in scheduled)
        for epoch in range(1, max(count, 1) + 1)
        if (item_id, epoch) not in present
    ]


def parse(data: bytes, *, source: str, options: ReadOptions) -> Results:
    """Parse an inspect_ai log (``.eval`` ZIP or ``.json``)."""
    if is_zip(data[:4]) or source.lower().endswith(".eval"):
        log, samples = _samples_from_eval(data, source, options)
    else:
        log = _load_json(data, source)
        samples = _samples_of(log, source)
    return parse_log(log, samples, source, options)


def parse_log(
    log: Mapping[str, Any], samples: list[tuple[str, Any]], source: str, options: ReadOptions
) -> Results:
    """Results from a log's header and its (where, sample) records."""
    status = log.get("status") if isinstance(log, Mapping) else None
    if not samples:
        raise InputError(
            f"{source}: log has no samples (status: {status or 'unknown'}); "
            "was it written with --no-log-samples?"
        )
    scorer = _choose_scorer(source, samples, options)
    names = _scorer_names(samples)
    builder = ResultsBuilder(source)
    present: set[tuple[str, int]] = set()
    for where, sample in samples:
        if not isinstance(sample, Mapping):
            raise InputError(f"{where}: expected a sample object, got {show(sample)}")
        item_id = parse_item_id(sample.get("id"), where)
        epoch = parse_epoch(sample.get("epoch", 1), where, strings=False)
        errored = parse_error_flag(sample.get("error"))
        found, value = _value(sample, scorer) if scorer else (False, None)
        present.add((item_id, epoch))
        if errored and (not found or value is None):
            builder.add(where, item_id, 0.0, epoch=epoch, error=True)
            continue
        if not found:
            if not names:
                raise InputError(
                    f"{source}: log is not scored (no sample has scores); "
                    "score it first, e.g. with `inspect score`"
                )
            raise InputError(f"{where}: item {show(item_id)} has no score from scorer `{scorer}`")
        number, binary = to_float(value, where, scorer)
        builder.add(where, item_id, number, binary=binary, epoch=epoch, error=errored)
    for item_id, epoch in _unfinished(log, present, source):
        builder.add(f"{source}: eval.dataset.sample_ids", item_id, 0.0, epoch=epoch, error=True)
    return builder.build()
