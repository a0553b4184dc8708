"""OpenAI evals (``oaieval``) record logs: JSONL of a ``spec`` line, a ``final_report`` line and
events ``{run_id, event_id, sample_id, type, data, ...}``.

The item id is ``sample_id`` (e.g. ``test-match.s1.2``). By default the compared value is
``data.correct`` of ``match`` events (binary); ``metric: <name>`` compares ``data.<name>`` of
``metrics`` events instead (a score, or binary when every value is a boolean). A sample with
several such events (several completions) gets epochs 1, 2, ... in event order; a sample with
events but none of those (sampled, never graded) was not evaluated. A record file without events
(only ``spec``/``final_report``) has nothing per item and is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalbot.errors import InputError
from evalbot.formats.builder import ResultsBuilder, an_object, parse_item_id, show
from evalbot.formats.jsontext import NOTHING, jsonl_records
from evalbot.formats.model import ReadOptions, Results
from evalbot.formats.probe import Probe, number_or_flag

NAME = "openai-evals"


def sniff(probe: Probe) -> bool:
    first = probe.record if probe.record is not NOTHING else probe.document
    if not isinstance(first, Mapping):
        return False
    return "spec" in first or ("sample_id" in first and "event_id" in first)


def parse_probe(probe: Probe, options: ReadOptions) -> Results:
    """Parse an OpenAI evals record log."""
    # `passed` (evalbot's own name for a pass/fail outcome) means `match` events' `correct`.
    metric = None if options.metric in (None, "passed", "correct") else options.metric
    events, samples = _events(probe.text(), probe.name, options.max_line_bytes, metric)
    builder = ResultsBuilder(probe.name, repeats_in_order=True)
    for where, event in events:
        item_id, value, binary = _row(where, event, metric)
        builder.add(where, item_id, value, binary=binary)
        samples.pop(item_id, None)
    for item_id, where in samples.items():  # sampled, never graded: not evaluated
        builder.add(where, item_id, 0.0, error=True)
    return builder.build()


def _events(
    text: str, source: str, max_line: int, metric: str | None
) -> tuple[list[tuple[str, Mapping[str, Any]]], dict[str, str]]:
    """The events that carry the compared value (``match`` events, or ``metrics`` events for
    ``metric``), and where each sample named by an event first appears; a log without such
    events is refused, naming the events it has."""
    event_type = "match" if metric is None else "metrics"
    events: list[tuple[str, Mapping[str, Any]]] = []
    samples: dict[str, str] = {}
    types: dict[str, None] = {}
    for where, record in jsonl_records(text, source, max_line, what="line"):
        if "spec" in record or "final_report" in record:
            continue
        event = record.get("type")
        if not isinstance(event, str):
            raise InputError(f"{where}: event has no `type`")
        types.setdefault(event, None)
        sample = record.get("sample_id")
        if isinstance(sample, str) and sample.strip():
            samples.setdefault(sample, where)
        if event == event_type:
            events.append((where, record))
    if events:
        return events, samples
    if not types:
        raise InputError(
            f"{source}: record log has no events (only spec/final_report), so no per-item "
            "results; rerun oaieval with --record_path"
        )
    wanted = "`match` events" if metric is None else f"`metrics` events (for `{metric}`)"
    hint = "; compare a key of `metrics` events with --metric NAME (config `metric:`)"
    hint = hint if metric is None else ""
    raise InputError(f"{source}: no {wanted}; the log has {', '.join(types)} events{hint}")


def _row(where: str, event: Mapping[str, Any], metric: str | None) -> tuple[str, float, bool]:
    """(item id, value, whether it is a pass/fail outcome) of one event."""
    item_id = parse_item_id(event.get("sample_id"), where, "sample_id")
    data_ = an_object(event.get("data"), where, "`data` must be an object")
    field = "correct" if metric is None else metric
    if field not in data_:
        raise InputError(f"{where}: item {show(item_id)} has no `data.{field}`")
    value = data_[field]
    if metric is None and not isinstance(value, bool):
        raise InputError(f"{where}: `data.correct` must be true/false, got {show(value)}")
    return item_id, *number_or_flag(value, where, f"`data.{field}`")
