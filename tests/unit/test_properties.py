"""Property tests: every parser turns any bytes into Results or one InputError, never another
exception; valid records of every format round-trip; JSON Lines (msgspec) read as the same
records in a JSON array (the standard library).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import zipfile
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalbot.errors import InputError
from evalbot.formats import FORMATS, parse_any
from evalbot.formats.ids import parse_id_list
from evalbot.formats.model import ReadOptions, Results
from evalbot.formats.sources import parse_zip
from evalbot.pairing.pair import pair

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OPTIONS = ReadOptions(max_archive_bytes=1 << 20, max_line_bytes=1 << 16)
NAMES = [
    "r.jsonl",
    "r.json",
    "r.csv",
    "r.tsv",
    "log.eval",
    "report.xml",
    "results.json",
    "samples_t_2024-01-01T00-00-00.jsonl",
    "out.json",
    "a.zip",
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
known_keys = st.sampled_from(
    [
        "id",
        "passed",
        "score",
        "epoch",
        "slice",
        "cluster",
        "cost",
        "error",
        "samples",
        "scores",
        "value",
        "results",
        "doc_id",
        "filter",
        "metrics",
        "acc",
        "resolved_ids",
        "resolved",
        "sample_id",
        "type",
        "data",
        "correct",
        "success",
        "vars",
        "evalId",
        "spec",
        "status",
        "eval",
        "trace_id",
        "assessments",
        "assessment_name",
        "feedback",
        "valid",
        "state",
        "request",
        "version",
    ]
)
structured = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats() | st.sampled_from(["C", "I", "a"]),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(known_keys, children, max_size=6)
    ),
    max_leaves=20,
)


def accepts_or_refuses(name: str, data: bytes, options: ReadOptions = OPTIONS) -> None:
    try:
        if name.endswith(".zip"):
            shards = parse_zip(name, data, options)
            assert all(isinstance(s, Results) for s in shards)
        else:
            assert isinstance(parse_any(name, data, options), Results)
    except InputError as error:
        message = str(error)
    else:
        return
    assert "\n" not in message


@SETTINGS
@given(name=st.sampled_from(NAMES), data=st.binary(max_size=300))
def test_random_bytes_give_results_or_input_error(name: str, data: bytes) -> None:
    accepts_or_refuses(name, data)


@SETTINGS
@given(fmt=st.sampled_from(sorted(FORMATS)), data=st.binary(max_size=300))
def test_random_bytes_for_every_forced_format(fmt: str, data: bytes) -> None:
    accepts_or_refuses("x.json", data, ReadOptions(format=fmt))


@SETTINGS
@given(name=st.sampled_from(NAMES), value=structured, lines=st.integers(1, 3))
def test_random_json_documents(name: str, value: Any, lines: int) -> None:
    text = "\n".join(json.dumps(value) for _ in range(lines))
    accepts_or_refuses(name, text.encode())


@SETTINGS
@given(fmt=st.sampled_from(sorted(FORMATS)), value=structured)
def test_random_json_for_every_forced_format(fmt: str, value: Any) -> None:
    accepts_or_refuses("x.json", json.dumps(value).encode(), ReadOptions(format=fmt))


@SETTINGS
@given(
    members=st.dictionaries(
        st.text(min_size=1, max_size=12).filter(lambda s: "\x00" not in s),
        st.binary(max_size=60),
        max_size=4,
    )
)
def test_random_zip_members(members: dict[str, bytes]) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    accepts_or_refuses("a.zip", buffer.getvalue())
    accepts_or_refuses("log.eval", buffer.getvalue())


@SETTINGS
@given(data=st.binary(max_size=200))
def test_random_id_lists(data: bytes) -> None:
    with contextlib.suppress(InputError):
        assert all(isinstance(i, str) for i in parse_id_list(data, source="ids.txt"))


# --- round trips -----------------------------------------------------------------------------

ids = st.one_of(
    st.text(min_size=1, max_size=10).filter(lambda s: s.strip() != ""),
    st.integers(0, 10**6),
)
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@st.composite
def default_records(draw: st.DrawFn) -> list[dict[str, Any]]:
    keys = draw(st.lists(ids, min_size=1, max_size=25, unique_by=str))
    binary = draw(st.booleans())
    with_epoch = draw(st.booleans())
    records = []
    for key in keys:
        record: dict[str, Any] = {"id": key}
        record["passed" if binary else "score"] = draw(st.booleans() if binary else finite)
        if with_epoch:
            record["epoch"] = draw(st.integers(0, 5))
        for field in ("slice", "cluster"):
            if draw(st.booleans()):
                record[field] = draw(st.none() | st.text(max_size=5) | st.integers(0, 9))
        if draw(st.booleans()):
            record["cost"] = draw(st.none() | finite)
        if draw(st.integers(0, 5)) == 0:
            record["error"] = draw(st.sampled_from(["timeout", "", None, {"x": 1}, []]))
        if draw(st.booleans()):
            record["extra"] = draw(json_values)
        records.append(record)
    return records


def same(a: Results, b: Results) -> None:
    assert a.ids == b.ids
    assert a.kind == b.kind
    np.testing.assert_array_equal(a.scores, b.scores)
    for name in ("epochs", "costs", "errors"):
        left, right = getattr(a, name), getattr(b, name)
        assert (left is None) == (right is None), name
        if left is not None:
            np.testing.assert_array_equal(left, right)
    assert a.slices == b.slices
    assert a.clusters == b.clusters


def _read(name: str, data: bytes) -> Results | str:
    """The results, or the message with each place named alike ("item 3")."""
    try:
        return parse_any(name, data, OPTIONS)
    except InputError as error:
        return re.sub(r"r\.jsonl:(\d+)|r\.json: item (\d+)", r"item \1\2", str(error))


@SETTINGS
@given(records=default_records(), crlf=st.booleans(), ascii_only=st.booleans())
def test_default_jsonl_round_trips_and_reads_as_a_json_array(
    records: list[dict[str, Any]], crlf: bool, ascii_only: bool
) -> None:
    newline = "\r\n" if crlf else "\n"
    text = newline.join(json.dumps(r, ensure_ascii=ascii_only) for r in records) + newline
    data = text.encode("utf-8", "surrogatepass")
    as_array = json.dumps(records, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    parsed, array = _read("r.jsonl", data), _read("r.json", as_array)
    if isinstance(parsed, str) or isinstance(array, str):
        assert parsed == array  # the same refusal, at the same item
        return
    same(parsed, array)
    assert [parsed.location(i) for i in range(len(parsed))] == [
        f"r.jsonl:{i + 1}" for i in range(len(records))
    ]
    metric = "passed" if "passed" in records[0] else "score"
    for row, record in enumerate(records):
        assert parsed.ids[row] == str(record["id"])
        errored = parsed.errors is not None and bool(parsed.errors[row])
        expected = 0.0 if errored else float(record[metric])
        assert parsed.scores[row] == expected


outcomes = st.dictionaries(
    st.text("abcdefghij-_.", min_size=1, max_size=8), st.booleans(), min_size=1, max_size=12
)


def _inspect(items: dict[str, bool]) -> bytes:
    samples = [
        {"id": k, "epoch": 1, "scores": {"m": {"value": "C" if v else "I"}}}
        for k, v in items.items()
    ]
    return json.dumps({"version": 2, "status": "success", "eval": {}, "samples": samples}).encode()


def _lm_eval(items: dict[str, bool]) -> bytes:
    return "".join(
        json.dumps(
            {
                "doc_id": k,
                "filter": "none",
                "metrics": ["acc"],
                "acc": float(v),
                "doc_hash": f"h-{k}",
            }
        )
        + "\n"
        for k, v in items.items()
    ).encode()


def _openai(items: dict[str, bool]) -> bytes:
    lines = [json.dumps({"spec": {}})]
    lines += [
        json.dumps({"sample_id": k, "type": "match", "data": {"correct": v}})
        for k, v in items.items()
    ]
    return "\n".join(lines).encode()


def _junit(items: dict[str, bool]) -> bytes:
    from xml.sax.saxutils import quoteattr

    cases = "".join(
        f'<testcase classname="c" name={quoteattr(k)}>{"" if v else "<failure/>"}</testcase>'
        for k, v in items.items()
    )
    return f'<testsuites><testsuite name="s">{cases}</testsuite></testsuites>'.encode()


def _swebench(items: dict[str, bool]) -> bytes:
    return json.dumps(
        {
            "resolved_ids": [k for k, v in items.items() if v],
            "unresolved_ids": [k for k, v in items.items() if not v],
        }
    ).encode()


def _promptfoo(items: dict[str, bool]) -> bytes:
    rows = [
        {
            "vars": {"q": k},
            "description": k,
            "provider": {"id": "p"},
            "success": v,
            "score": float(v),
        }
        for k, v in items.items()
    ]
    return json.dumps({"evalId": "e", "results": {"version": 3, "results": rows}}).encode()


def _mlflow(items: dict[str, bool]) -> bytes:
    rows = [
        {
            "trace_id": f"tr-{n}",
            "state": "OK",
            "request": {"q": k},
            "tags": {"mlflow.eval.requestId": k},
            "assessments": [
                {"assessment_name": "ok", "feedback": {"value": v}, "valid": True},
                {"assessment_name": "gold", "expectation": {"value": "x"}},
            ],
        }
        for n, (k, v) in enumerate(items.items())
    ]
    return json.dumps(rows).encode()


def _helm(items: dict[str, bool]) -> bytes:
    stat = {"name": {"name": "num_prompt_tokens", "split": "test"}, "count": 1, "mean": 7}
    return json.dumps(
        [
            {
                "instance_id": k,
                "train_trial_index": 0,
                "stats": [
                    stat,
                    {"name": {"name": "exact_match", "split": "test"}, "count": 1, "mean": int(v)},
                ],
            }
            for k, v in items.items()
        ]
    ).encode()


WRITERS = {
    "helm": ("per_instance_stats.json", _helm, lambda k: k),
    "inspect": ("log.json", _inspect, lambda k: k),
    "lm-eval": ("samples_t_2024-01-01T00-00-00.jsonl", _lm_eval, lambda k: k),
    "mlflow": ("traces.json", _mlflow, lambda k: k),
    "openai-evals": ("log.jsonl", _openai, lambda k: k),
    "junit": ("report.xml", _junit, lambda k: f"c::{k}"),
    "swebench": ("results.json", _swebench, lambda k: k),
    "promptfoo": ("out.json", _promptfoo, None),
}


@pytest.mark.parametrize("fmt", sorted(WRITERS))
@SETTINGS
@given(items=outcomes)
def test_harness_round_trip(fmt: str, items: dict[str, bool]) -> None:
    name, write, to_id = WRITERS[fmt]
    results = parse_any(name, write(items), OPTIONS)
    assert results.kind == "binary"
    got = dict(zip(results.ids, results.scores.tolist(), strict=True))
    if to_id is None:  # promptfoo: "<description> [<hash of vars and description>]"
        got = {i.split(" [", 1)[0]: v for i, v in got.items()}
        to_id = str
    assert got == {to_id(k): float(v) for k, v in items.items()}
    paired = pair(results, results)
    assert len(paired) == len(items)
    assert math.isclose(paired.baseline.sum(), sum(items.values()))
