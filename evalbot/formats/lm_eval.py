"""lm-evaluation-harness ``--log_samples`` files (``samples_<task>_<date>.jsonl``): the item is the
``doc_id`` (``<task>/<doc_id>`` over several files), the value the row's metric, ``doc_hash``
its content hash. What is read and why: docs/formats.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from evalbot.errors import InputError
from evalbot.formats.builder import ResultsBuilder, parse_item_id, show
from evalbot.formats.jsontext import jsonl_records
from evalbot.formats.model import ReadOptions, Results
from evalbot.formats.probe import Probe, base_name, choose, number_or_flag

NAME = "lm-eval"

# Matched against a base name with fullmatch: one start position, so linear on hostile names.
_FILE = re.compile(r"samples_(?P<task>.+?)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.:\-]+)\.jsonl?")
#: Per-item metrics that lm-eval computes as 0/1 (accuracy-like); others are scores.
BINARY_METRICS = frozenset(
    {"acc", "acc_norm", "acc_mutual_info", "exact_match", "em", "exact", "is_greedy"}
)
#: The base name of the aggregate results file beside the samples: not per-item, skipped in
#: directories.
AGGREGATE = re.compile(r"results_\d{4}-\d{2}-\d{2}T[0-9.:\-]+\.json")


def task_of(source: str) -> str:
    """The task name in ``samples_<task>_<date>.jsonl``, or the file's stem."""
    base = base_name(source)
    match = _FILE.fullmatch(base)
    return match.group("task") if match else base.rsplit(".", 1)[0]


def _aggregate(probe: Probe) -> bool:
    """Whether a file is lm-eval's aggregate ``results_<date>.json`` (not per item), by its
    name or its keys."""
    document = probe.document
    return AGGREGATE.fullmatch(probe.base) is not None or (
        isinstance(document, Mapping)
        and isinstance(document.get("results"), Mapping)
        and "configs" in document
        and ("n-samples" in document or "versions" in document or "task_hashes" in document)
    )


def sniff(probe: Probe) -> bool:
    record = probe.record
    if _FILE.fullmatch(probe.base) or _aggregate(probe):
        return True
    if isinstance(record, Mapping) and "doc_id" in record:
        return "filter" in record or "doc_hash" in record or "metrics" in record
    return False


def parse_probe(probe: Probe, options: ReadOptions) -> Results:
    """Parse one lm-eval samples file."""
    source = probe.name
    if _aggregate(probe):
        raise InputError(
            f"{source}: is lm-eval's aggregate results file; use the per-item "
            "samples_<task>_<date>.jsonl written with --log_samples"
        )
    rows = list(jsonl_records(probe.text(), source, options.max_line_bytes, what="document"))
    filters = list(dict.fromkeys(_filter_of(r, w) for w, r in rows))
    several, unknown = "holds several filters ({})", "no rows with filter {}; the file has {}"
    chosen = choose(filters, options.filter, source, "filter", several=several, unknown=unknown)
    file_task = task_of(source)
    builder = ResultsBuilder(source)
    # `passed` (evalbot's own default name) means "the row's only metric".
    metric = None if options.metric == "passed" else options.metric
    for where, record in rows:
        if _filter_of(record, where) != chosen:
            continue
        names = _metric_names(record, where)
        if metric is None and not names:
            raise InputError(f"{where}: lists no metrics (its `metrics` list is empty)")
        if metric is None:
            metric = choose(names, None, where, "metric", several="lists metrics {}")
        item_id = _item_id(record, where, file_task, several_files=options.several_files)
        if metric not in record:
            raise InputError(f"{where}: item {show(item_id)} has no `{metric}`")
        number, binary = _value(record[metric], where, metric)
        doc_hash = record.get("doc_hash")
        if doc_hash is not None and not isinstance(doc_hash, str):
            raise InputError(f"{where}: `doc_hash` must be a string, got {show(doc_hash)}")
        others = ((name, record.get(name)) for name in names if name != metric)
        extra = {  # the row's other numeric metrics (JSON numbers: no bool)
            name: float(v) for name, v in others if type(v) in (int, float) and math.isfinite(v)
        }
        builder.add(where, item_id, number, binary=binary, content_hash=doc_hash, metrics=extra)
    return builder.build()


def _filter_of(record: Mapping[str, Any], where: str) -> str:
    value = record.get("filter", "none")
    if not isinstance(value, str):
        raise InputError(f"{where}: `filter` must be a string, got {show(value)}")
    return value


def _metric_names(record: Mapping[str, Any], where: str) -> list[str]:
    names = record.get("metrics")
    if names is None:
        raise InputError(f"{where}: missing `metrics` (the list of per-item metric names)")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise InputError(f"{where}: `metrics` must be a list of names, got {show(names)}")
    return names


def _value(value: object, where: str, metric: str) -> tuple[float, bool]:
    if isinstance(value, list | dict):
        raise InputError(
            f"{where}: `{metric}` is not a per-item number (lm-eval aggregates it over the "
            "task); choose another metric with --metric NAME (config `metric:`)"
        )
    number, flag = number_or_flag(value, where, f"`{metric}`")
    if metric in BINARY_METRICS and not flag:
        if number not in (0.0, 1.0):
            raise InputError(f"{where}: `{metric}` must be 0 or 1, got {show(value)}")
        return number, True
    return number, flag


def _item_id(record: Mapping[str, Any], where: str, file_task: str, *, several_files: bool) -> str:
    """``doc_id``, or ``<task>/<doc_id>`` when the run is read from several files."""
    doc_id = parse_item_id(record.get("doc_id"), where, "doc_id")
    task = record.get("task")
    if not isinstance(task, str) or not task:
        task = file_task
    return f"{task}/{doc_id}" if several_files else doc_id
