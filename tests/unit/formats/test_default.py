"""The default per-item format: JSONL, JSON array, CSV, TSV; every bad input -> one exact line."""

from __future__ import annotations

import numpy as np
import pytest

from evalbot.errors import InputError
from evalbot.formats.default import parse
from evalbot.formats.model import FieldNames, ReadOptions

OPTIONS = ReadOptions()


def test_jsonl_binary() -> None:
    data = b'{"id": "a", "passed": true}\n\n{"id": 2, "passed": 0}\n'
    results = parse(data, source="r.jsonl", options=OPTIONS)
    assert results.ids == ["a", "2"]
    assert results.scores.tolist() == [1.0, 0.0]
    assert results.kind == "binary"
    assert results.epochs is None


def test_jsonl_scores_slices_clusters_costs_epochs() -> None:
    data = (
        b'{"id": "a", "score": 0.5, "epoch": 1, "slice": "math", "cluster": "c1", "cost": 0.1}\n'
        b'{"id": "a", "score": 0.25, "epoch": 2, "slice": "math", "cluster": "c1", "cost": 0.2}\n'
    )
    results = parse(data, source="r.jsonl", options=OPTIONS)
    assert results.kind == "score"
    assert results.scores.tolist() == [0.5, 0.25]
    assert results.epochs is not None and results.epochs.tolist() == [1, 2]
    assert results.slices == ["math", "math"]
    assert results.clusters == ["c1", "c1"]
    assert results.costs is not None and results.costs.tolist() == [0.1, 0.2]


def test_json_array_and_items_object() -> None:
    array = b'[{"id": "a", "passed": true}, {"id": "b", "passed": false}]'
    wrapped = b'{"items": [{"id": "a", "passed": true}, {"id": "b", "passed": false}]}'
    for data in (array, wrapped):
        results = parse(data, source="r.json", options=OPTIONS)
        assert results.ids == ["a", "b"]
        assert results.scores.tolist() == [1.0, 0.0]


def test_csv_and_tsv() -> None:
    csv_data = b"id,passed,slice\nq1,true,a\nq2,0,b\nq3,FALSE,\n"
    results = parse(csv_data, source="r.csv", options=OPTIONS)
    assert results.ids == ["q1", "q2", "q3"]
    assert results.scores.tolist() == [1.0, 0.0, 0.0]
    assert results.slices == ["a", "b", None]
    tsv_data = b"id\tscore\nq1\t0.75\nq2\t1e-1\n"
    results = parse(tsv_data, source="r.tsv", options=OPTIONS)
    assert results.scores.tolist() == [0.75, 0.1]
    assert results.kind == "score"


def test_nested_field_names() -> None:
    options = ReadOptions(fields=FieldNames(id="doc.key"), metric="metrics.exact_match")
    data = b'{"doc": {"key": "k1"}, "metrics": {"exact_match": 1.0}}\n'
    results = parse(data, source="r.jsonl", options=options)
    assert results.ids == ["k1"]
    assert results.scores.tolist() == [1.0]
    assert results.kind == "score"


def test_error_rows_are_kept_apart() -> None:
    data = b'{"id": "a", "passed": true}\n{"id": "b", "passed": null, "error": "timeout"}\n'
    results = parse(data, source="r.jsonl", options=OPTIONS)
    assert results.errors is not None
    assert results.errors.tolist() == [False, True]
    assert results.scores.tolist() == [1.0, 0.0]


def test_bom_is_accepted() -> None:
    results = parse(b'\xef\xbb\xbf{"id": "a", "passed": true}\n', source="r.jsonl", options=OPTIONS)
    assert results.ids == ["a"]


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("r.jsonl", b"", "r.jsonl: no items"),
        ("r.jsonl", b"\n  \n", "r.jsonl: no items"),
        ("r.csv", b"id,passed\n", "r.csv: no items"),
        (
            "r.jsonl",
            b'{"id": "a", "passed": true}\n{"id": "b", "passed": tru}\n',
            "r.jsonl:2: not valid JSON (Expecting value)",
        ),
        (
            "r.jsonl",
            b'{"passed": true}\n',
            "r.jsonl:1: missing `id` (fields: 'passed'); name the id field with --id-field NAME "
            "(config `fields: {id: NAME}`)",
        ),
        ("r.jsonl", b'{"id": "", "passed": true}\n', "r.jsonl:1: `id` is empty"),
        (
            "r.jsonl",
            b'{"id": 1.5, "passed": true}\n',
            "r.jsonl:1: `id` must be a string or an integer, got 1.5",
        ),
        (
            "r.jsonl",
            b'{"id": "a", "passed": "yes"}\n',
            "r.jsonl:1: `passed` must be true/false or 0/1, got 'yes'",
        ),
        (
            "r.jsonl",
            b'{"id": "a", "passed": 2}\n',
            "r.jsonl:1: `passed` must be true/false or 0/1, got 2",
        ),
        ("r.jsonl", b'{"id": "a", "score": NaN}\n', "r.jsonl:1: `score` must be finite, got nan"),
        (
            "r.jsonl",
            b'{"id": "a", "score": Infinity}\n',
            "r.jsonl:1: `score` must be finite, got inf",
        ),
        (
            "r.jsonl",
            b'{"id": "a", "score": "0.5"}\n',
            "r.jsonl:1: `score` must be a number, got '0.5'",
        ),
        (
            "r.jsonl",
            b'{"id": "a"}\n',
            "r.jsonl:1: neither `passed` nor `score` is present (fields: 'id'); name the "
            "compared field with --passed-field NAME (pass/fail) or --score-field NAME (a "
            "number), or `fields: {passed: NAME}` in the config",
        ),
        (
            "r.jsonl",
            b'{"id": "a", "passed": true}\n{"id": "b"}\n',
            "r.jsonl:2: item 'b' has no `passed`",
        ),
        (
            "r.jsonl",
            b'{"id": "a", "passed": true}\n{"id": "a", "passed": false}\n',
            "r.jsonl:2: duplicate item 'a' (first seen at r.jsonl:1); repeats need an `epoch` field",
        ),
        (
            "r.jsonl",
            b'{"id": "a", "passed": true, "epoch": 1}\n{"id": "a", "passed": false, "epoch": 1}\n',
            "r.jsonl:2: duplicate item 'a' epoch 1 (first seen at r.jsonl:1)",
        ),
        (
            "r.jsonl",
            b'{"id": "a", "passed": true, "epoch": 1}\n{"id": "b", "passed": false}\n',
            "r.jsonl:2: item 'b' has no `epoch` but other rows have one",
        ),
        (
            "r.jsonl",
            b'{"id": "a", "passed": true, "epoch": -1}\n',
            "r.jsonl:1: `epoch` must be a non-negative integer, got -1",
        ),
        (
            "r.jsonl",
            b'{"id": "a", "passed": true, "epoch": 10000000000000000000}\n',
            "r.jsonl:1: `epoch` must be a non-negative integer, got 10000000000000000000",
        ),
        (
            "r.csv",
            b"id,passed,epoch\nq1,true,10000000000000000000\n",
            "r.csv:2: `epoch` must be a non-negative integer, got '10000000000000000000'",
        ),
        (
            "r.jsonl",
            b'{"id": "a", "passed": true}\n[1, 2]\n',
            "r.jsonl:2: expected an object per item, got [1, 2]",
        ),
        (
            "r.jsonl",
            b'{"id": "a", "passed": true}\n{"id": "\xff", "passed": true}\n',
            "r.jsonl:2: not valid UTF-8 (byte offset 36)",
        ),
        (
            "r.jsonl",
            b'{"id": "a", "score": 1, "cost": "x"}\n',
            "r.jsonl:1: `cost` must be a number, got 'x'",
        ),
        (
            "r.jsonl",
            b'{"id": "a", "score": 0.5}\n{"id": "b", "score": true}\n',
            "r.jsonl:2: item 'b' has a binary metric but r.jsonl:1 has a score one; one file must use one kind",
        ),
        ("r.json", b'{"id": "a"', "r.json:1: not valid JSON (Expecting ',' delimiter)"),
        (
            "r.json",
            b'"just a string"',
            'r.json: expected a JSON array of items (or {"items": [...]})',
        ),
        ("r.csv", b"id,passed\nq1,true,extra\n", "r.csv:2: 3 fields but the header has 2"),
        (
            "r.csv",
            b"id,passed\nq1,maybe\n",
            "r.csv:2: `passed` must be true/false or 0/1, got 'maybe'",
        ),
        ("r.csv", b'id,passed\n"q1,true\n', "r.csv:2: malformed CSV (unexpected end of data)"),
    ],
)
def test_bad_input_names_file_and_line(name: str, data: bytes, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse(data, source=name, options=OPTIONS)
    assert str(caught.value) == message


def test_over_long_line_is_refused() -> None:
    options = ReadOptions(max_line_bytes=50)
    data = b'{"id": "a", "passed": true}\n{"id": "' + b"x" * 60 + b'", "passed": true}\n'
    with pytest.raises(InputError, match=r"^r\.jsonl:2: line longer than 50 bytes$"):
        parse(data, source="r.jsonl", options=options)


def test_deeply_nested_json_is_a_clean_error() -> None:
    data = b'{"id": "a", "passed": true, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    with pytest.raises(InputError, match=r"^r\.jsonl:1: "):
        parse(data, source="r.jsonl", options=OPTIONS)


def test_scores_are_float64_columns() -> None:
    results = parse(b'{"id": "a", "score": 1}\n', source="r.jsonl", options=OPTIONS)
    assert results.scores.dtype == np.float64


def test_jsonl_drops_each_column_once_read(monkeypatch: pytest.MonkeyPatch) -> None:
    import random
    import tracemalloc

    from evalbot.formats import jsontext

    monkeypatch.setattr(jsontext, "CHUNK", 1 << 16)  # many chunks: the columns dominate
    n = 200_000
    order = random.Random(0).sample(range(n), n)
    data = b"".join(b'{"id": "q-%07d", "passed": true}\n' % i for i in order)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        results = parse(data, source="r.jsonl", options=OPTIONS)
        held, peak = (m - before for m in tracemalloc.get_traced_memory())
    finally:
        tracemalloc.stop()
    # beyond the results: the ids' hashes sorted (8 bytes a row), not the outcomes' list too
    assert peak - held < 12 * n
    assert len(results.ids) == n
