"""Resolved-id lists, such as SWE-bench's evaluation reports (the harness report, the older
``results.json``, per-instance reports): resolved is a pass, the instances a report says were
not evaluated go to the errors column. What is read and why: docs/formats.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalbot.errors import InputError
from evalbot.formats.builder import ResultsBuilder, show
from evalbot.formats.jsontext import UnreadableError
from evalbot.formats.model import ReadOptions, Results
from evalbot.formats.probe import Probe

NAME = "swebench"

RESOLVED_KEYS = ("resolved_ids", "resolved")
_ALL_IDS_HINT = "--all-ids FILE (config `all_ids: FILE`; one id per line, or a JSON list)"
#: The lists of instances the report did not evaluate.
NOT_EVALUATED_KEYS = ("incomplete_ids", "error_ids", "infra_failure_ids")


def sniff(probe: Probe) -> bool:
    """A JSON object with a ``resolved_ids``/``resolved`` list, wherever it sits among the keys,
    or an object of per-instance reports (``{"<id>": {"resolved": ...}}``)."""
    document = probe.document
    if not isinstance(document, Mapping) or not document:
        return False
    if any(isinstance(document.get(key), list) for key in RESOLVED_KEYS):
        return True
    first = next(iter(document.values()))
    return isinstance(first, Mapping) and "resolved" in first


def _ids(value: object, where: str) -> list[str]:
    if not isinstance(value, list):
        raise InputError(f"{where}: must be a list of instance ids, got {show(value)}")
    for number, item in enumerate(value, start=1):
        if not isinstance(item, str) or not item.strip():
            raise InputError(f"{where}: entry {number} must be an instance id, got {show(item)}")
    return value


def _outcomes(document: Mapping[str, Any], source: str) -> tuple[list[str], list[str], list[str]]:
    """(resolved ids, error ids, every id the report names)."""
    if document and all(isinstance(v, Mapping) and "resolved" in v for v in document.values()):
        for key, value in document.items():
            if not isinstance(value["resolved"], bool):
                raise InputError(
                    f"{source}: instance {show(key)}: `resolved` must be true/false, "
                    f"got {show(value['resolved'])}"
                )
        return [key for key, value in document.items() if value["resolved"]], [], list(document)
    found = next((k for k in RESOLVED_KEYS if k in document), None)
    if found is None:
        raise UnreadableError(f"{source}: no `resolved_ids` (or `resolved`) list")
    lists = {
        name: _ids(value, f"{source}: `{name}`")
        for name, value in document.items()
        if name in (found, *NOT_EVALUATED_KEYS)
        or (isinstance(value, list) and (name.endswith("_ids") or found == "resolved"))
    }
    errors = [i for k in NOT_EVALUATED_KEYS for i in lists.get(k, ())]
    return lists[found], errors, [i for ids in lists.values() for i in ids]


def parse_probe(probe: Probe, options: ReadOptions) -> Results:
    """Results from a resolved-id report."""
    source, document = probe.name, probe.json()
    if not isinstance(document, Mapping):
        raise UnreadableError(f"{source}: expected a JSON object with a `resolved_ids` list")
    resolved, errors, named = _outcomes(document, source)
    if options.known_ids is not None:
        universe = list(options.known_ids)
        known = set(universe)
        unsubmitted = document.get("incomplete_ids")
        never = set(unsubmitted) if isinstance(unsubmitted, list) else set()
        # an instance never submitted may lie outside a list of the instances of interest
        stray = [i for i in [*resolved, *errors] if i not in known and i not in never]
        if stray:
            raise InputError(
                f"{source}: instance {show(stray[0])} is not in the list of all ids "
                f"({options.all_ids or 'all_ids'}); is that list for this benchmark?"
            )
        submitted = document.get("submitted_ids")  # an instance not submitted: not evaluated
        if isinstance(submitted, list):
            errors = [*errors, *(known - set(_ids(submitted, f"{source}: `submitted_ids`")))]
    else:
        universe = list(dict.fromkeys(named))
        if not set(universe) - set(resolved) and not document.get("unresolved_ids") == []:
            raise InputError(
                f"{source}: lists only resolved instances, so the unresolved ones are unknown; "
                f"name every instance id with {_ALL_IDS_HINT}"
            )
        total = document.get("total_instances")
        if isinstance(total, int) and not isinstance(total, bool) and total > len(universe):
            raise InputError(
                f"{source}: names {len(universe)} instances but `total_instances` is {total}; "
                f"name every instance id with {_ALL_IDS_HINT}"
            )
    passed, errored = set(resolved), set(errors)
    builder = ResultsBuilder(source)
    for number, item_id in enumerate(universe, start=1):
        score = 1.0 if item_id in passed else 0.0
        builder.add(f"{source}: instance {number}", item_id, score, error=item_id in errored)
    return builder.build()
