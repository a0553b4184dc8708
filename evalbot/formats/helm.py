"""Stanford HELM runs: ``per_instance_stats.json`` of a run directory.

A run directory (``benchmark_output/runs/<suite>/<run>/``) holds ``per_instance_stats.json``
beside ``run_spec.json``, ``scenario_state.json``, ``stats.json`` and more; only the first is
per item, and the others (:data:`SIDECARS`) are skipped when the directory is read (given alone,
each is refused with the file to give instead). ``per_instance_stats.json`` is a list of
``{"instance_id", "train_trial_index", "perturbation"?, "stats": [{"name": {"name", "split",
...}, "count", "sum", "mean", ...}]}``.

The item is the instance id, with its perturbation when it has one (``id147 (typos prob=0.1)``);
``train_trial_index`` is the repeat. The compared value is one stat's ``mean``, chosen with
``metric:`` (``exact_match``, ``quasi_exact_match``, ``f1_score``, ...): a run has many, so
without it the run is refused with its metrics listed (never HELM's counters such as
``num_prompt_tokens`` or ``train_trial_index``). 0/1 values are pass/fail, others a score. An
instance without the chosen stat (or with a count of 0) was not evaluated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from evalbot.errors import InputError
from evalbot.formats.builder import ResultsBuilder, parse_epoch, parse_item_id, parse_score, show
from evalbot.formats.model import ReadOptions, Results
from evalbot.formats.probe import Probe, first_object, how_to_choose

NAME = "helm"

#: Files of a run directory beside ``per_instance_stats.json``; none is per item.
SIDECARS = frozenset(
    {
        "run_spec.json",
        "scenario.json",
        "scenario_state.json",
        "stats.json",
        "instances.json",
        "display_predictions.json",
        "display_requests.json",
    }
)
#: HELM's bookkeeping stats: counts, costs, timings, finish reasons, not metrics of quality.
_BOOKKEEPING_PREFIXES = ("num_", "finish_reason_", "training_", "inference_")
_BOOKKEEPING = frozenset({"batch_size", "prompt_truncated", "logprob", "max_prob"})
#: The perturbation's fields that say what it is for, not which one it is.
_PERTURBATION_FLAGS = frozenset({"name", "robustness", "fairness", "computed_on"})


def _sidecar(document: object) -> bool:
    """``run_spec.json``, ``scenario_state.json`` or ``stats.json`` by their keys."""
    if isinstance(document, Mapping):
        return {"scenario_spec", "adapter_spec", "metric_specs"} <= document.keys() or (
            "request_states" in document and "adapter_spec" in document
        )
    first = first_object(document)
    return (
        isinstance(first.get("name"), Mapping) and "count" in first and "instance_id" not in first
    )


def sniff(probe: Probe) -> bool:
    first = first_object(probe.document)
    per_instance = "instance_id" in first and isinstance(first.get("stats"), list)
    return per_instance or _sidecar(probe.document)


def _stat_name(stat: object) -> str | None:
    name = stat.get("name") if isinstance(stat, Mapping) else None
    value = name.get("name") if isinstance(name, Mapping) else None
    return value if isinstance(value, str) else None


def _choose(entries: list[Any], source: str, metric: str | None) -> str:
    """The stat compared: the one asked for, or the run's only metric of quality (HELM's
    bookkeeping stats left out)."""
    stats = (e.get("stats") if isinstance(e, Mapping) else None for e in entries)
    found = dict.fromkeys(n for s in stats if isinstance(s, list) for n in map(_stat_name, s) if n)
    names = [n for n in found if not n.startswith(_BOOKKEEPING_PREFIXES) and n not in _BOOKKEEPING]
    listed = ", ".join(names) if names else "none"
    if metric is not None and metric != "passed":
        if metric not in found:
            raise InputError(
                f"{source}: no stat named {show(metric)} in this HELM run; its metrics: {listed}"
            )
        return metric
    if len(names) == 1:
        return names[0]
    example = "exact_match" if "exact_match" in names else (names[0] if names else "NAME")
    raise InputError(
        f"{source}: a HELM run has several metrics ({listed}); {how_to_choose('metric', example)}"
    )


def _item(entry: Mapping[str, Any], where: str) -> str:
    """The instance id, with its perturbation (name, then its parameters) when it has one."""
    item_id = parse_item_id(entry.get("instance_id"), where, "instance_id")
    perturbation = entry.get("perturbation")
    if perturbation is None:
        return item_id
    if not isinstance(perturbation, Mapping) or not isinstance(perturbation.get("name"), str):
        raise InputError(f"{where}: `perturbation` must be an object with a `name`")
    params = " ".join(
        f"{key}={json.dumps(value, ensure_ascii=False)}"
        for key, value in sorted(perturbation.items())
        if key not in _PERTURBATION_FLAGS
    )
    return f"{item_id} ({perturbation['name']}{' ' + params if params else ''})"


def _value(entry: Mapping[str, Any], metric: str, where: str) -> float | None:
    """The stat's mean, ``None`` when the instance has no such stat (not evaluated)."""
    found = [s for s in entry.get("stats", ()) if _stat_name(s) == metric]
    if len(found) > 1:
        raise InputError(f"{where}: stat `{metric}` appears {len(found)} times")
    if not found or not found[0].get("count"):
        return None
    stat = found[0]
    if "mean" in stat:
        return parse_score(stat["mean"], where, f"{metric}.mean", strings=False)
    total = parse_score(stat.get("sum"), where, f"{metric}.sum", strings=False)
    return total / parse_score(stat["count"], where, f"{metric}.count", strings=False)


def parse_probe(probe: Probe, options: ReadOptions) -> Results:
    """Results from a ``per_instance_stats.json``."""
    source, document = probe.name, probe.json()
    if _sidecar(document) or not isinstance(document, list):
        raise InputError(
            f"{source}: is not HELM's per-item output; give the run's per_instance_stats.json "
            "(or the run directory that holds it)"
        )
    metric = _choose(document, source, options.metric)
    rows: list[tuple[str, str, int, float | None]] = []
    for number, entry in enumerate(document, start=1):
        where = f"{source}: instance {number}"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("stats"), list):
            raise InputError(f"{where}: expected an object with a `stats` list, got {show(entry)}")
        trial = entry.get("train_trial_index", 0)
        trial = parse_epoch(trial, where, "train_trial_index", strings=False)
        rows.append((where, _item(entry, where), trial, _value(entry, metric, where)))
    if all(value is None for *_, value in rows):
        raise InputError(f"{source}: no instance has the stat `{metric}`")
    repeated = any(trial for _, _, trial, _ in rows)
    builder = ResultsBuilder(source)
    for where, item_id, trial, value in rows:
        builder.add(
            where,
            item_id,
            0.0 if value is None else value,
            binary=value in (None, 0.0, 1.0),
            epoch=trial if repeated else None,
            error=value is None,
        )
    return builder.build()
