"""OpenAI evals (``oaieval``) record logs: JSONL of a ``spec`` line, a ``final_report`` line and
events ``{run_id, event_id, sample_id, type, data, ...}``.

The item id is ``sample_id`` (e.g. ``test-match.s1.2``). By default the compared value is
``data.correct`` of ``match`` events (binary); ``metric: <name>`` compares ``data.<name>`` of
``metrics`` events instead (a score, or binary when every value is a boolean). A sample with
several such events (several completions) gets epochs 1, 2, ... in event order. A record file
without events (only ``spec``/``final_report``) has nothing per item and is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalbot.errors import InputError
from evalbot.formats.builder import (
    ResultsBuilder,
    epochs_in_order,
    parse_item_id,
    parse_score,
    show,
)
from evalbot.formats.jsontext import NOTHING, UnreadableError, decode_text, jsonl_records
from evalbot.formats.model import MetricKind, Results
from evalbot.formats.options import ReadOptions
from evalbot.formats.probe import Probe

NAME = "openai-evals"


def sniff(probe: Probe) -> bool:
    first = probe.record if probe.record is not NOTHING else probe.document
    if not isinstance(first, Mapping):
        return False
    return "spec" in first or ("sample_id" in first and "event_id" in first)


def parse(data: bytes, *, source: str, options: ReadOptions) -> Results:
    """Parse an OpenAI evals record log."""
    text = decode_text(data, source)
    # `passed` (evalbot's own name for a pass/fail outcome) means `match` events' `correct`.
    metric = None if options.metric in (None, "passed", "correct") else options.metric
    events = _events(text, source, options.max_line_bytes, metric)
    rows = [_row(where, event, metric) for where, event in events]
    kind: MetricKind = "binary" if all(r[3] for r in rows) else "score"
    epochs = epochs_in_order([item_id for _, item_id, _, _ in rows])
    builder = ResultsBuilder(source)
    for (where, item_id, value, _), epoch in zip(rows, epochs, strict=True):
        builder.add(where=where, item_id=item_id, score=value, kind=kind, epoch=epoch)
    return builder.build()


def _events(
    text: str, source: str, max_line: int, metric: str | None
) -> list[tuple[str, Mapping[str, Any]]]:
    """The events that carry the compared value: ``match`` events, or ``metrics`` events for
    ``metric``; a log without them is refused, naming the events it has."""
    event_type = "match" if metric is None else "metrics"
    events: list[tuple[str, Mapping[str, Any]]] = []
    types: dict[str, None] = {}
    for where, record in jsonl_records(text, source, max_line):
        if not isinstance(record, Mapping):
            raise UnreadableError(f"{where}: expected an object per line, got {show(record)}")
        if "spec" in record or "final_report" in record:
            continue
        event = record.get("type")
        if not isinstance(event, str):
            raise InputError(f"{where}: event has no `type`")
        types.setdefault(event, None)
        if event == event_type:
            events.append((where, record))
    if events:
        return events
    if not types:
        raise InputError(
            f"{source}: record log has no events (only spec/final_report), so no per-item "
            "results; rerun oaieval with --record_path"
        )
    wanted = "`match` events" if metric is None else f"`metrics` events (for `{metric}`)"
    raise InputError(
        f"{source}: no {wanted}; the log has {', '.join(types)} events"
        + (
            "; compare a key of `metrics` events with --metric NAME (config `metric:`)"
            if metric is None
            else ""
        )
    )


def _row(where: str, event: Mapping[str, Any], metric: str | None) -> tuple[str, str, float, bool]:
    """(where, item id, value, whether it is a pass/fail outcome) of one event."""
    item_id = parse_item_id(event.get("sample_id"), where, "sample_id")
    data_ = event.get("data")
    if not isinstance(data_, Mapping):
        raise InputError(f"{where}: `data` must be an object, got {show(data_)}")
    field = "correct" if metric is None else metric
    if field not in data_:
        raise InputError(f"{where}: item {show(item_id)} has no `data.{field}`")
    value = data_[field]
    if isinstance(value, bool):
        return where, item_id, 1.0 if value else 0.0, True
    if metric is None:
        raise InputError(f"{where}: `data.correct` must be true/false, got {show(value)}")
    return where, item_id, parse_score(value, where, f"data.{field}", strings=False), False
