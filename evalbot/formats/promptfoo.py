"""promptfoo ``eval -o results.json`` / ``export`` output: one row per test case, prompt and
provider; the item id built from the test case itself (never ``testIdx`` or the per-run ``id``).
What is read and why: docs/formats.md.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from evalbot.errors import InputError
from evalbot.formats.builder import ResultsBuilder, an_object, parse_score, show
from evalbot.formats.jsontext import UnreadableError
from evalbot.formats.model import ReadOptions, Results
from evalbot.formats.probe import Probe, first_object

NAME = "promptfoo"

ERROR_REASON = 2


def sniff(probe: Probe) -> bool:
    document = probe.document
    if not isinstance(document, Mapping):
        return False
    first = first_object(_results(document))
    return "evalId" in document or "promptIdx" in first or "testIdx" in first


def _results(document: Mapping[str, Any]) -> object:
    """The rows: ``results.results``, or ``results`` itself in older files."""
    results = document.get("results")
    return results.get("results") if isinstance(results, Mapping) else results


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _label(value: object) -> str | None:
    """A provider's or a prompt's non-empty ``label``."""
    label = value.get("label") if isinstance(value, Mapping) else None
    return label if isinstance(label, str) and label else None


def _provider(row: Mapping[str, Any]) -> str:
    provider = row.get("provider")
    if isinstance(provider, Mapping):
        ident = provider.get("id")
        return _label(provider) or (ident if isinstance(ident, str) else _canonical(ident))
    return provider if isinstance(provider, str) else ""


def _prompt(row: Mapping[str, Any]) -> str:
    prompt, prompt_id = row.get("prompt"), row.get("promptId")
    raw = prompt.get("raw") if isinstance(prompt, Mapping) else None
    return _label(prompt) or next((t for t in (raw, prompt_id) if isinstance(t, str)), "")


def test_key(row: Mapping[str, Any], where: str) -> str:
    """The stable part of the id: the test case's description and a hash of its vars."""
    case = row.get("testCase")
    case = case if isinstance(case, Mapping) else {}
    variables = case.get("vars", row.get("vars"))
    description = case.get("description", row.get("description"))
    if variables is None and description is None:
        raise InputError(f"{where}: row has neither `vars` nor a test `description` to key it by")
    if description is not None and not isinstance(description, str):
        raise InputError(f"{where}: test `description` must be a string, got {show(description)}")
    if description:
        name = f"{description} [{_digest({'vars': variables, 'description': description})}]"
    else:
        name = _named(variables)
    # a test of its own provider (a red-team strategy: iterative, crescendo, ...) is another test
    own = case.get("provider")
    return f"{name} [{_provider({'provider': own})}]" if own else name


def _digest(value: object) -> str:
    return hashlib.sha256(_canonical(value).encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _named(variables: object) -> str:
    """A test case named by its vars: ``name: value`` pairs in key order (strings as they are,
    anything else as JSON)."""
    if not isinstance(variables, Mapping) or not variables:
        return _canonical(variables)
    return ", ".join(
        f"{key}: {value if isinstance(value, str) else _canonical(value)}"
        for key, value in sorted(variables.items())
    )


def _value(row: Mapping[str, Any], where: str, metric: str) -> tuple[bool, float, bool]:
    """(present, value, whether it is pass/fail) of the compared field."""
    if metric == "success":
        value = row.get("success")
        if value is not None and not isinstance(value, bool):
            raise InputError(f"{where}: `success` must be true/false, got {show(value)}")
        return value is not None, float(value or False), True
    if metric == "score":
        value = row.get("score")
        present, field = value is not None, "score"
    else:
        named = row.get("namedScores")
        named = named if isinstance(named, Mapping) else {}
        present, value, field = metric in named, named.get(metric), f"namedScores.{metric}"
    return present, parse_score(value, where, field, strings=False) if present else 0.0, False


def _apart(
    keyed: list[tuple[str, str, Mapping[str, Any]]],
) -> list[tuple[str, str, Mapping[str, Any]]]:
    """Rows that share a key but are different test cases (other asserts, options, metadata)
    keyed apart by a digest of their test case; rows of one test case (``--repeat``) stay one
    item."""
    counts = Counter(key for _, key, _ in keyed)
    cases: dict[str, set[str]] = {}
    for _, key, row in keyed:
        if counts[key] > 1:
            cases.setdefault(key, set()).add(_digest(row.get("testCase")))
    return [
        (
            where,
            f"{key} [{_digest(row.get('testCase'))}]" if len(cases.get(key, ())) > 1 else key,
            row,
        )
        for where, key, row in keyed
    ]


def parse_probe(probe: Probe, options: ReadOptions) -> Results:
    """Results from promptfoo output."""
    source = probe.name
    document = probe.json()
    if not isinstance(document, Mapping):
        raise UnreadableError(f"{source}: expected a promptfoo results object")
    results = _results(document)
    if not isinstance(results, list):
        raise UnreadableError(
            f"{source}: no `results.results` list of rows (is this promptfoo output?)"
        )
    numbered = ((f"{source}: result {n}", row) for n, row in enumerate(results, start=1))
    rows = [(w, an_object(row, w, "expected an object per result")) for w, row in numbered]
    several_providers = len({_provider(r) for _, r in rows}) > 1
    several_prompts = len({_prompt(r) for _, r in rows}) > 1
    keyed = []
    for where, row in rows:
        key = test_key(row, where)
        key += f" | {_provider(row)}" if several_providers else ""
        key += f" | {_prompt(row)}" if several_prompts else ""
        keyed.append((where, key, row))
    # `passed` (evalbot's own name for a pass/fail outcome) means promptfoo's `success`.
    metric = "success" if options.metric in (None, "passed", "success") else options.metric
    builder = ResultsBuilder(source, repeats_in_order=True)
    for where, key, row in _apart(keyed):
        errored = row.get("failureReason") == ERROR_REASON
        present, value, binary = _value(row, where, metric)
        if not present and not errored:
            raise InputError(f"{where}: item {show(key)} has no `{metric}`")
        cost = row.get("cost")
        cost = None if cost is None else parse_score(cost, where, "cost", strings=False)
        builder.add(where, key, value, binary=binary, cost=cost, error=errored)
    return builder.build()
