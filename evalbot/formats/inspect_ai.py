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

from collections.abc import Mapping
from typing import Any

from evalbot.errors import InputError
from evalbot.formats.archive import Archive, budget_of
from evalbot.formats.builder import (
    ResultsBuilder,
    an_object,
    parse_epoch,
    parse_error_flag,
    parse_item_id,
    show,
)
from evalbot.formats.jsontext import NOTHING, UnreadableError, decode_text, parse_json_document
from evalbot.formats.model import ReadOptions, Results
from evalbot.formats.probe import YES_NO, Probe, choose, how_to_choose, lookup, number_or_flag

NAME = "inspect"

_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
#: yes/no and true/false as text: a score of 1 or 0 (not a pass/fail outcome), as inspect's
#: ``value_to_float`` reads them.
_WORDS = {word: (value, False) for word, (value, _) in YES_NO.items()}


def sniff(probe: Probe) -> bool:
    if probe.kind == "zip" or probe.lowered.endswith(".eval"):
        return True
    log = probe.document
    return (
        isinstance(log, Mapping)
        and isinstance(log.get("eval"), Mapping)
        and ("samples" in log or "status" in log or "results" in log)
    )


def parse_probe(probe: Probe, options: ReadOptions) -> Results:
    """Parse a log: the ``.eval`` ZIP or the ``.json`` EvalLog."""
    source = probe.name
    if probe.kind == "zip" or probe.lowered.endswith(".eval"):
        log, samples = _eval_log(probe.data, source, options)
    else:
        log = probe.json()
        if not isinstance(log, Mapping):
            raise UnreadableError(f"{source}: expected an inspect_ai EvalLog object")
        listed = log.get("samples")
        if listed is not None and not isinstance(listed, list):
            raise InputError(f"{source}: `samples` must be a list, got {show(listed)}")
        samples = [(f"{source}: sample {n}", s) for n, s in enumerate(listed or [], start=1)]
    if not samples:
        raise InputError(
            f"{source}: log has no samples (status: {log.get('status') or 'unknown'}); "
            "was it written with --no-log-samples?"
        )
    scored = [s.get("scores") for _, s in samples if isinstance(s, Mapping)]
    names = list(
        dict.fromkeys(str(k) for scores in scored if isinstance(scores, Mapping) for k in scores)
    )
    scorer = _scorer(names, options.scorer, source)
    builder = ResultsBuilder(source)
    present: set[tuple[str, int]] = set()
    for where, record in samples:
        sample = an_object(record, where, "expected a sample object")
        item_id = parse_item_id(sample.get("id"), where)
        epoch = parse_epoch(sample.get("epoch", 1), where, strings=False)
        errored = parse_error_flag(sample.get("error"))
        found, value = _value(sample, scorer)
        present.add((item_id, epoch))
        if errored and (not found or value is None):
            builder.add(where, item_id, 0.0, epoch=epoch, error=True)
        elif not found and not names:
            raise InputError(
                f"{source}: log is not scored (no sample has scores); "
                "score it first, e.g. with `inspect score`"
            )
        elif not found:
            raise InputError(f"{where}: item {show(item_id)} has no score from scorer `{scorer}`")
        else:
            number, binary = to_float(value, where, scorer)
            builder.add(where, item_id, number, binary=binary, epoch=epoch, error=errored)
    for item_id, epoch in _unfinished(log, present, source):
        builder.add(f"{source}: eval.dataset.sample_ids", item_id, 0.0, epoch=epoch, error=True)
    return builder.build()


def _eval_log(
    data: bytes, source: str, options: ReadOptions
) -> tuple[Mapping[str, Any], list[tuple[str, Any]]]:
    """The header and the (where, sample) records of a ``.eval`` ZIP."""
    archive = Archive(data, source=source, budget=budget_of(options))
    header: Mapping[str, Any] = {}
    samples = []
    for member in archive.members:
        name = member.filename
        if name != "header.json" and not (name.startswith("samples/") and name.endswith(".json")):
            continue
        where = f"{source}!{name}"
        value = parse_json_document(decode_text(archive.read(member), where), where)
        if name != "header.json":
            samples.append((where, value))
        elif isinstance(value, Mapping):
            header = value
        else:
            raise UnreadableError(f"{where}: expected an object")
    return header, samples


def to_float(value: object, where: str, scorer: str) -> tuple[float, bool]:
    """(value, is_binary) for one score value, as inspect's ``value_to_float`` reads it."""
    if isinstance(value, str) and value in _LETTERS:
        return _LETTERS[value], value in ("C", "I")
    if isinstance(value, str) and value.strip().replace(".", "", 1).isdecimal():
        return float(value.strip()), False
    if isinstance(value, Mapping):
        keys = ", ".join(str(k) for k in list(value)[:6])
        choice = how_to_choose("scorer", f"{scorer}.{next(iter(value), '')}")
        raise InputError(f"{where}: score `{scorer}` holds several values ({keys}); {choice}")
    must = "C/I/P/N, a boolean or a number"
    return number_or_flag(value, where, f"score `{scorer}`", must=must, words=_WORDS)


def _scorer(names: list[str], wanted: str | None, source: str) -> str:
    """The scorer compared: the one asked for (``name.key`` for a key of a dict value), or the
    log's only one."""
    if wanted is not None and wanted.partition(".")[0] in names:
        return wanted
    unknown = "no scorer named {}; the log has {}"
    several = "log has several scorers ({})"
    return choose(names, wanted, source, "scorer", several=several, unknown=unknown)


def _value(sample: Mapping[str, Any], scorer: str) -> tuple[bool, object]:
    """Whether the sample has a value from ``scorer`` (``name.key``: a key of a dict value), and
    that value."""
    scores = sample.get("scores")
    scores = scores if isinstance(scores, Mapping) else {}
    head, _, key = scorer.partition(".")
    name = scorer if not key or scorer in scores else head
    score = scores.get(name, NOTHING)
    value = score.get("value") if isinstance(score, Mapping) else score
    if name != scorer:
        value = value.get(key, NOTHING) if isinstance(value, Mapping) else NOTHING
    return value is not NOTHING, value


def _unfinished(
    log: Mapping[str, Any], present: set[tuple[str, int]], source: str
) -> list[tuple[str, int]]:
    """The scheduled samples (id, epoch) a cancelled or failed log lacks: not evaluated."""
    scheduled = lookup(log, "eval.dataset.sample_ids")
    if log.get("status") not in ("cancelled", "error") or not isinstance(scheduled, list):
        return []
    epochs = lookup(log, "eval.config.epochs")
    count = epochs if isinstance(epochs, int) and not isinstance(epochs, bool) else 1
    where = f"{source}: eval.dataset.sample_ids"
    return [
        (item_id, epoch)
        for item_id in dict.fromkeys(parse_item_id(raw, where) for raw in scheduled)
        for epoch in range(1, max(count, 1) + 1)
        if (item_id, epoch) not in present
    ]
