"""MLflow GenAI evaluation traces (``mlflow.genai.evaluate``; ``search_traces`` written with
pandas ``to_json``): one row per evaluated row, the item MLflow's own ``mlflow.eval.requestId``,
the value one assessment by name. What is read and why: docs/formats.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from evalbot.errors import InputError
from evalbot.formats.builder import ResultsBuilder, an_object, parse_item_id, show
from evalbot.formats.jsontext import NOTHING, UnreadableError, jsonl_records, parse_json_line
from evalbot.formats.model import FieldNames, ReadOptions, Results
from evalbot.formats.probe import YES_NO, Probe, choose, first_object, lookup, number_or_flag

NAME = "mlflow"

REQUEST_ID_TAG = "mlflow.eval.requestId"
_DEFAULT_ID = FieldNames().id


def _is_trace(record: object) -> bool:
    return isinstance(record, Mapping) and "trace_id" in record and "assessments" in record


def sniff(probe: Probe) -> bool:
    return _is_trace(probe.record) or _is_trace(first_object(probe.document))


def parse_probe(probe: Probe, options: ReadOptions) -> Results:
    """Parse an exported evaluation run: a JSON array of trace records, or JSON Lines."""
    source = probe.name
    text = probe.text()
    first = text.lstrip()[:1]
    records: Iterable[tuple[str, object]]
    if first == "[":
        records = ((f"{source}: row {n}", r) for n, r in enumerate(probe.json(), start=1))
    elif first == "{":
        records = jsonl_records(text, source, options.max_line_bytes)
    else:
        raise UnreadableError(
            f"{source}: expected the JSON export of mlflow.search_traces (a JSON array of "
            "trace records, or one record per line)"
        )
    rows: list[tuple[str, Mapping[str, Any], list[Any]]] = []
    for where, record in records:
        trace = an_object(record, where, "expected a trace record object", UnreadableError)
        rows.append((where, trace, _feedbacks(trace, where)))
    if not rows:
        raise InputError(f"{source}: no items")
    scorer = _scorer(source, rows, options.scorer or options.metric)
    builder = ResultsBuilder(source, repeats_in_order=True)
    for where, record, feedbacks in rows:  # the app's or the scorer's error: a harness error
        item_id = _item_id(record, where, options.fields)
        chosen = [a for name, a in feedbacks if name == scorer]
        if len(chosen) > 1:
            raise InputError(
                f"{where}: item {show(item_id)} has {len(chosen)} valid `{scorer}` assessments; "
                "which one counts? (mark the others invalid in MLflow)"
            )
        feedback = chosen[0].get("feedback") if chosen else None
        if feedback is not None and not isinstance(feedback, Mapping):
            raise InputError(f"{where}: `feedback` must be an object, got {show(feedback)}")
        value = feedback.get("value") if feedback else None
        if record.get("state") == "ERROR" or (feedback and feedback.get("error")):
            builder.add(where, item_id, 0.0, error=True)
        elif not chosen:
            raise InputError(f"{where}: item {show(item_id)} has no `{scorer}` assessment")
        elif value is None:
            raise InputError(
                f"{where}: item {show(item_id)}: assessment `{scorer}` has no value and no error"
            )
        else:
            number, binary = _value(value, where, scorer)
            builder.add(where, item_id, number, binary=binary)
    return builder.build()


def _json_field(value: object, where: str, name: str) -> object:
    """A field pandas may have written as a JSON string (``request``, ``assessments``)."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        return parse_json_line(value, f"{where}: `{name}`")
    return value


def _item_id(record: Mapping[str, Any], where: str, names: FieldNames) -> str:
    if names.id != _DEFAULT_ID or names.id in record:
        value = lookup(record, names.id, lambda value, part: _json_field(value, where, part))
        if value is NOTHING or value is None:
            raise InputError(
                f"{where}: no `{names.id}` (the id field); the record has "
                + ", ".join(show(k, 30) for k in list(record)[:8])
            )
        return parse_item_id(value, where, names.id)
    tags = _json_field(record.get("tags"), where, "tags")
    if isinstance(tags, Mapping):
        tagged = tags.get(REQUEST_ID_TAG)
        if isinstance(tagged, str) and tagged.strip():
            return tagged
    request = _json_field(record.get("request"), where, "request")
    if request is not None:  # MLflow's own id of a row without one: sha256 of str(inputs)
        return hashlib.sha256(str(request).encode("utf-8", "surrogatepass")).hexdigest()
    raise InputError(
        f"{where}: no `{REQUEST_ID_TAG}` tag and no `request` to key the row by; name the id "
        "field with --id-field NAME (config `fields: {id: NAME}`)"
    )


def _feedbacks(record: Mapping[str, Any], where: str) -> list[tuple[str, Mapping[str, Any]]]:
    """The row's valid feedback assessments, each with its name."""
    if "trace_id" not in record and "assessments" not in record:
        raise UnreadableError(
            f"{where}: not a trace record (no `trace_id`, no `assessments`); export the "
            'run with mlflow.search_traces(run_id=...).to_json(orient="records")'
        )
    assessments = _json_field(record.get("assessments"), where, "assessments")
    if assessments is None:
        return []
    if not isinstance(assessments, list):
        raise InputError(f"{where}: `assessments` must be a list, got {show(assessments)}")
    out: list[tuple[str, Mapping[str, Any]]] = []
    for item in assessments:
        assessment = an_object(item, where, "an assessment must be an object")
        if assessment.get("valid") is False or "feedback" not in assessment:
            continue
        name = assessment.get("assessment_name", assessment.get("name"))
        if not isinstance(name, str) or not name:
            raise InputError(f"{where}: an assessment has no `assessment_name`")
        out.append((name, assessment))
    return out


def _value(value: object, where: str, scorer: str) -> tuple[float, bool]:
    """(value, is_binary) of one feedback value."""
    must = "a boolean, yes/no or a number"
    return number_or_flag(value, where, f"assessment `{scorer}`", must=must, words=YES_NO)


def _scorer(
    source: str, rows: list[tuple[str, Mapping[str, Any], list[Any]]], wanted: str | None
) -> str:
    names: list[str] = list(dict.fromkeys(n for _, _, feedbacks in rows for n, _ in feedbacks))
    if not names and wanted is None:
        raise InputError(
            f"{source}: no row has a feedback assessment; was the run made with scorers "
            "(mlflow.genai.evaluate(..., scorers=[...]))?"
        )
    several, unknown = "the run has several scorers ({})", "no assessment named {}; the run has {}"
    return choose(names, wanted, source, "scorer", several=several, unknown=unknown)
