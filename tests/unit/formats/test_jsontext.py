"""The one JSON reader (evalbot.formats.jsontext) as evalbot's own JSON Lines use it.

Each input is a table row with its exact outcome: the message, or the columns read. Work is
bounded by counts: how many calls decode the file, and how many lines the standard library reads
again, never by time.
"""

from __future__ import annotations

import gc
import json
import math
import random
from typing import Any

import pytest

from evalbot.errors import InputError
from evalbot.formats import jsontext
from evalbot.formats.default import parse
from evalbot.formats.model import ReadOptions, Results

OPTIONS = ReadOptions(max_line_bytes=200)


def outcome(data: bytes) -> Any:
    """The message, or the columns read (ids, scores, kind, epochs, slices, clusters, costs,
    errors) and each row's place."""
    try:
        r: Results = parse(data, source="r.jsonl", options=OPTIONS)
    except InputError as error:
        return str(error)
    return columns(r)


def columns(r: Results) -> Any:
    """The columns and places of ``outcome``."""
    return (
        list(r.ids),
        r.scores.tolist(),
        r.kind,
        None if r.epochs is None else r.epochs.tolist(),
        r.slices,
        r.clusters,
        None if r.costs is None else [None if math.isnan(x) else x for x in r.costs.tolist()],
        None if r.errors is None else r.errors.tolist(),
        [r.location(i) for i in range(len(r))],
    )


def repeated(key: str, line: int = 1) -> str:
    return f"r.jsonl:{line}: duplicate key {key!r} in one JSON object (refused: which one counts?)"


REFUSED = {
    "repeated outcome": (
        b'{"id": "a", "passed": true, "passed": false}\n{"id": "b", "passed": true}\n',
        repeated("passed"),
    ),
    "repeated id": (b'{"id": "a", "id": "b", "passed": true}\n', repeated("id")),
    "repeated outcome beside an id holding a quote": (
        b'{"id": "a\\"", "passed": true}\n{"id": "b", "passed": true, "passed": false}\n',
        repeated("passed", 2),
    ),
    "repeated id spelled with an escape": (
        b'{"id": "a", "\\u0069d": "b", "passed": true}\n',
        repeated("id"),
    ),
    "repeated optional key": (
        b'{"id": "a", "passed": true, "slice": "s", "slice": "t"}\n',
        repeated("slice"),
    ),
    "repeated null key": (
        b'{"id": "a", "passed": true, "slice": null, "slice": null}\n',
        repeated("slice"),
    ),
    "repeated key beside nested keys of that name": (
        b'{"id": "a", "passed": true, "error": null}\n'
        b'{"error": [{"id": 2}], "id": "b", "slice": "id", "id": "c", "passed": true}\n',
        repeated("id", 2),
    ),
    "repeated key in a line msgspec refuses": (
        b'{"id": "a", "score": 1, "x": NaN, "score": 2}\n',
        "r.jsonl:1: duplicate key 'score' in one JSON object (refused: which one counts?)",
    ),
    "two records on one line": (
        b'{"id": "a", "passed": true} {"id": "b", "passed": true}\n \n',
        "r.jsonl:1: not valid JSON (Extra data)",
    ),
    "a record over two lines": (
        b'{"id": "a",\n"passed": true}\n',
        "r.jsonl:1: not valid JSON (Expecting property name enclosed in double quotes)",
    ),
    "over-long line": (
        b'{"id": "' + b"x" * 300 + b'", "passed": true}\n',
        "r.jsonl:1: line longer than 200 bytes",
    ),
    "repeated item": (
        b'{"id": "a", "passed": true}\n{"id": "a", "passed": false}\n',
        "r.jsonl:2: duplicate item 'a' (first seen at r.jsonl:1); repeats need an `epoch` field",
    ),
    "null outcome": (
        b'{"id": "a", "passed": null}\n',
        "r.jsonl:1: `passed` must be true/false or 0/1, got None",
    ),
    "outcome 2": (
        b'{"id": "a", "passed": 2}\n',
        "r.jsonl:1: `passed` must be true/false or 0/1, got 2",
    ),
    "outcome as text": (
        b'{"id": "a", "passed": "true"}\n',
        "r.jsonl:1: `passed` must be true/false or 0/1, got 'true'",
    ),
    "NaN score": (b'{"id": "a", "score": NaN}\n', "r.jsonl:1: `score` must be finite, got nan"),
    "huge score": (b'{"id": "a", "score": 1e400}\n', "r.jsonl:1: `score` must be finite, got inf"),
    "huge cost": (
        b'{"id": "a", "passed": true, "cost": 1e400}\n',
        "r.jsonl:1: `cost` must be finite, got inf",
    ),
    "NaN cost": (
        b'{"id": "a", "passed": true, "cost": 1}\n{"id": "b", "passed": true, "cost": NaN}\n',
        "r.jsonl:2: `cost` must be finite, got nan",
    ),
    "a 150-digit score": (
        b'{"id": "a", "score": 0.5}\n{"id": "b", "score": 1' + b"0" * 149 + b"}\n",
        "r.jsonl:2: a number of 150 digits (more than 100): no result value is that long",
    ),
    "a 150-digit cost in a line msgspec refuses": (
        b'{"id": "a", "score": 0.5, "x": NaN, "cost": -1' + b"0" * 149 + b"}\n",
        "r.jsonl:1: a number of 150 digits (more than 100): no result value is that long",
    ),
    "empty id": (b'{"id": "", "passed": true}\n', "r.jsonl:1: `id` is empty"),
    "blank id": (b'{"id": "  ", "passed": true}\n', "r.jsonl:1: `id` is empty"),
    "boolean id": (
        b'{"id": true, "passed": true}\n',
        "r.jsonl:1: `id` must be a string or an integer, got True",
    ),
    "invalid UTF-8": (
        b'{"id": "a", "passed": true}\n{"id": "b", "passed": true, "x": "\xff"}\n',
        "r.jsonl:2: not valid UTF-8 (byte offset 62)",
    ),
    "not an object": (b"[1, 2]\n", "r.jsonl:1: expected an object per item, got [1, 2]"),
    "epoch on some rows": (
        b'{"id": "a", "passed": true, "epoch": 1}\n{"id": "b", "passed": true}\n',
        "r.jsonl:2: item 'b' has no `epoch` but other rows have one",
    ),
    "negative epoch": (
        b'{"id": "a", "passed": true, "epoch": -1}\n',
        "r.jsonl:1: `epoch` must be a non-negative integer, got -1",
    ),
    "null epoch on some rows": (
        b'{"id": "a", "passed": true, "epoch": 1}\n{"id": "b", "passed": true, "epoch": null}\n',
        "r.jsonl:2: item 'b' has no `epoch` but other rows have one",
    ),
    "boolean epoch": (
        b'{"id": "a", "passed": true, "epoch": true}\n{"id": "a", "passed": true, "epoch": 0}\n',
        "r.jsonl:1: `epoch` must be a non-negative integer, got True",
    ),
    "no metric": (
        b'{"id": "a"}\n',
        "r.jsonl:1: neither `passed` nor `score` is present (fields: 'id'); name the compared "
        "field with --passed-field NAME (pass/fail) or --score-field NAME (a number), or "
        "`fields: {passed: NAME}` in the config",
    ),
}

#: (ids, scores, kind, epochs, slices, clusters, costs, errors, places)
A, B = "r.jsonl:1", "r.jsonl:2"
ACCEPTED: dict[str, tuple[bytes, Any]] = {
    "plain": (
        b'{"id": "b", "passed": true}\n{"id": "a", "passed": false}\n',
        (["b", "a"], [1.0, 0.0], "binary", None, None, None, None, None, [A, B]),
    ),
    "no final newline, CRLF, BOM": (
        b'\xef\xbb\xbf{"id": "a", "passed": true}\r\n{"id": "b", "passed": false}',
        (["a", "b"], [1.0, 0.0], "binary", None, None, None, None, None, [A, B]),
    ),
    "a repeated key not read": (
        b'{"id": "a", "passed": true, "x": 1, "x": 2}\n',
        (["a"], [1.0], "binary", None, None, None, None, None, [A]),
    ),
    "a long number in a field not read": (
        b'{"id": "a", "passed": true, "x": 1' + b"0" * 149 + b', "y": NaN}\n',
        (["a"], [1.0], "binary", None, None, None, None, None, [A]),
    ),
    "a repeated key in a row with fields not read: the last value counts": (
        b'{"id": "a", "passed": true, "m": {"id": 1}}\n'
        b'{"m": [{"id": 2}], "id": "b", "x": "id", "id": "c", "p\\u0061ssed": false}\n',
        (["a", "c"], [1.0, 0.0], "binary", None, None, None, None, None, [A, B]),
    ),
    "a key repeated inside a value not read": (
        b'{"id": "a", "passed": true, "m": {"x": 1, "x": 2, "id": 3, "id": 4}}\n',
        (["a"], [1.0], "binary", None, None, None, None, None, [A]),
    ),
    "blank lines": (
        b'\n{"id": "a", "passed": true}\n \n{"id": "b", "passed": false}\n\n',
        (["a", "b"], [1.0, 0.0], "binary", None, None, None, None, None, [B, "r.jsonl:4"]),
    ),
    "a line starting with a space": (
        b' {"id": "a", "passed": true}\n',
        (["a"], [1.0], "binary", None, None, None, None, None, [A]),
    ),
    "integer ids, 0/1 outcomes": (
        b'{"id": 2, "passed": 1.0}\n{"id": "x", "passed": 0}\n',
        (["2", "x"], [1.0, 0.0], "binary", None, None, None, None, None, [A, B]),
    ),
    "escapes in ids": (
        b'{"id": "a\\"b", "passed": true}\n{"id": "\\\\\\"\\u00e9", "passed": true}\n',
        (['a"b', '\\"é'], [1.0, 1.0], "binary", None, None, None, None, None, [A, B]),
    ),
    "optional fields on a later row only": (
        b'{"id": "a", "passed": true}\n'
        b'{"id": "b", "passed": false, "error": "timeout", "slice": "s", "cost": 2}\n',
        (
            ["a", "b"],
            [1.0, 0.0],
            "binary",
            None,
            [None, "s"],
            None,
            [None, 2.0],
            [False, True],
            [A, B],
        ),
    ),
    "null and empty labels": (
        b'{"id": "a", "passed": true, "slice": null, "cluster": ""}\n'
        b'{"id": "b", "passed": true, "slice": 3, "cluster": "c"}\n',
        (["a", "b"], [1.0, 1.0], "binary", None, [None, "3"], [None, "c"], None, None, [A, B]),
    ),
    "epochs": (
        b'{"id": "a", "epoch": 0, "passed": true}\n{"id": "a", "epoch": 1, "passed": false}\n',
        (["a", "a"], [1.0, 0.0], "binary", [0, 1], None, None, None, None, [A, B]),
    ),
    "null epoch on every row": (
        b'{"id": "a", "epoch": null, "passed": true}\n{"id": "b", "epoch": null, "passed": 0}\n',
        (["a", "b"], [1.0, 0.0], "binary", None, None, None, None, None, [A, B]),
    ),
    "scores, NaN in a field not read": (
        b'{"id": "a", "score": 1, "x": NaN}\n{"id": "b", "score": -3e-7, "x": Infinity}\n',
        (["a", "b"], [1.0, -3e-7], "score", None, None, None, None, None, [A, B]),
    ),
    "values and nested keys named like keys": (
        b'{"m": {"id": 1, "passed": 2}, "id": "id", "passed": true, "slice": "passed"}\n',
        (["id"], [1.0], "binary", None, ["passed"], None, None, None, [A]),
    ),
    "an error object, its row's outcome 0": (
        b'{"id": "a", "passed": true, "error": {"kind": "timeout"}}\n',
        (["a"], [0.0], "binary", None, None, None, None, [True], [A]),
    ),
}


@pytest.mark.parametrize(("data", "message"), REFUSED.values(), ids=REFUSED.keys())
def test_refused_with_one_line_naming_the_line(data: bytes, message: str) -> None:
    assert outcome(data) == message


@pytest.mark.parametrize(("data", "expected"), ACCEPTED.values(), ids=ACCEPTED.keys())
def test_accepted_and_read_exactly(data: bytes, expected: Any) -> None:
    assert outcome(data) == expected


def test_a_number_too_long_to_be_a_value_is_one_line() -> None:
    data = b'{"id": "a", "score": 1' + b"0" * 5000 + b"}\n"
    with pytest.raises(InputError) as caught:
        parse(data, source="r.jsonl", options=ReadOptions())
    assert str(caught.value) == (
        "r.jsonl:1: a number of 5001 digits (more than 100): no result value is that long"
    )


@pytest.mark.parametrize("chunk", [1, 16, 64])
def test_reading_in_chunks_changes_nothing(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files are decoded a few megabytes at a time; with tiny chunks every case above gives the
    same answer, and a key repeated in a later chunk is still refused."""
    monkeypatch.setattr(jsontext, "CHUNK", chunk)
    later = b"".join(b'{"id": "q%d", "passed": true}\n' % i for i in range(20))
    for data, expected in [*REFUSED.values(), *ACCEPTED.values()]:
        assert outcome(data) == expected
    assert outcome(later + b'{"id": "z", "id": "y", "passed": true}\n') == repeated("id", 21)


def test_line_lengths_are_checked_exactly() -> None:
    """A file is refused exactly when a line is longer than the limit (a brute-force table of
    line lengths and limits)."""
    rng = random.Random(1)
    for _ in range(2000):
        limit = rng.randint(8, 30)
        lengths = [rng.randint(8, 35) for _ in range(rng.randint(1, 12))]
        lines = [b'{"k": "' + b"x" * (n - 9) + b'"}' for n in lengths]
        try:
            data = b"\n".join(lines)
            jsontext.read_rows(jsontext.chunks(data), source="r", keys=["k"], max_line=limit)
            accepted = True
        except InputError:
            accepted = False
        assert accepted == (max(lengths) <= limit), (lengths, limit)


# --- work, counted ------------------------------------------------------------------------------


class Counted:
    """A msgspec decoder that counts the calls that decode and the rows they decode."""

    def __init__(self, decoder: Any) -> None:
        self.decoder, self.type = decoder, decoder.type
        self.calls = self.rows = 0

    def decode_lines(self, data: Any) -> Any:
        rows = self.decoder.decode_lines(data)
        self.calls += 1
        self.rows += len(rows)
        return rows

    def decode(self, data: Any) -> Any:
        row = self.decoder.decode(data)
        self.calls += 1
        self.rows += 1
        return row


def counting(monkeypatch: pytest.MonkeyPatch) -> tuple[list[Counted], list[str]]:
    """The decoders made, and every text the standard library parses again."""
    made: list[Counted] = []
    reparsed: list[str] = []
    original, decode = jsontext._decoder, jsontext._Parse.decode

    def make(
        keys: tuple[str, ...], only: bool, lacks: int = 0, types: tuple[type, ...] = ()
    ) -> Counted:
        made.append(Counted(original(keys, only, lacks, types)))
        return made[-1]

    def spy(self: Any, text: str, where: str, *, lines: bool = False) -> Any:
        reparsed.append(where)
        return decode(self, text, where, lines=lines)

    monkeypatch.setattr(jsontext, "_decoder", make)
    monkeypatch.setattr(jsontext._Parse, "decode", spy)
    return made, reparsed


def harness_rows(n: int) -> bytes:
    """Rows shaped like harness output: text, nested objects whose keys are named like the
    ones read (``id`` in every message), the id not first."""
    rows = [
        {
            "input": f'question {i} with "quotes" and\nlines',
            "messages": [{"id": f"m{i}", "role": "user", "content": "é" * 3}],
            "output": {"model": "m", "choices": [{"id": 0, "passed": "no"}]},
            "id": f"q-{i:05d}",
            "metadata": {"passed": None, "epoch": 3},
            "passed": i % 3 == 0,
            "error": None,
        }
        for i in range(n)
    ]
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def test_flat_rows_are_decoded_once_a_chunk_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    made, reparsed = counting(monkeypatch)
    data = b"".join(b'{"id": "q%d", "passed": true}\n' % i for i in range(3000))
    monkeypatch.setattr(jsontext, "CHUNK", len(data) // 3)
    assert len(parse(data, source="r.jsonl", options=ReadOptions())) == 3000
    # the keys always read and no other: the first decoder tried reads them
    assert [(d.calls, d.rows) for d in made] == [(3, 3000), (0, 0), (0, 0), (0, 0)]
    assert reparsed == []


@pytest.mark.parametrize(
    ("second", "kinds"),
    [
        (b'{"id": "b", "passed": false}', {"id": {str}, "passed": {bool}}),
        (b'{"id": 2, "passed": false}', {}),  # another type: every value's type is looked at
        (b'{"id": "b", "passed": 1}', {}),
        (b'{"id": "b"}', {}),  # a row lacking a typed key
    ],
)
def test_typed_keys_are_known_only_when_every_row_holds_them_with_their_type(
    second: bytes, kinds: dict[str, set[type]]
) -> None:
    data = b'{"id": "a", "passed": true}\n' + second
    rows = jsontext.read_rows(
        jsontext.chunks(data),
        source="r.jsonl",
        keys=["id", "passed"],
        types=[str, bool],
        max_line=100,
    )
    assert rows.kinds == kinds
    assert rows.columns["id"] == ["a", json.loads(second).get("id", jsontext.UNSET)]


def test_rows_without_the_optional_keys_are_read_for_the_keys_always_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made, reparsed = counting(monkeypatch)
    lines = [b'{"id": "q%04d", "passed": true, "model": "m"}\n' % i for i in range(3000)]
    lines[2500] = b'{"id": "q2500", "passed": true, "model": "m", "score": 0.5}\n'
    data = b"".join(lines)
    monkeypatch.setattr(jsontext, "CHUNK", len(data) // 3)
    rows = jsontext.read_rows(
        jsontext.chunks(data),
        source="r.jsonl",
        keys=["id", "passed"],
        optional=["score"],
        max_line=100,
    )
    # a field not read, no optional key: the decoder refusing those reads the chunk, and only
    # the columns of the keys always read are taken from its rows
    assert [d.calls for d in made] == [0, 0, 2, 1] and sum(d.rows for d in made) == 3000
    score = rows.columns["score"]
    assert score is not None and score.count(0.5) == 1 and score[2500] == 0.5
    assert reparsed == []


def test_a_file_is_decoded_once_a_chunk_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    made, reparsed = counting(monkeypatch)
    data = harness_rows(3000)
    monkeypatch.setattr(jsontext, "CHUNK", len(data) // 4)
    results = parse(data, source="r.jsonl", options=ReadOptions())
    assert len(results) == 3000 and results.location(2999) == "r.jsonl:3000"
    assert results.where.__self__.lines is None  # row i is line i + 1: no line numbers kept
    assert sum(d.rows for d in made) == 3000  # each row decoded once
    assert sum(d.calls for d in made) == 4  # one call a chunk
    assert reparsed == []  # nested keys named like the ones read: no line read again


def test_only_the_line_that_repeats_a_key_is_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    made, reparsed = counting(monkeypatch)
    lines = [b'{"id": "q%d", "passed": true, "slice": "id"}' % i for i in range(1000)]
    lines[700] = b'{"id": "q700", "passed": true, "slice": "id", "id": "x"}'
    with pytest.raises(InputError) as caught:
        parse(b"\n".join(lines), source="r.jsonl", options=ReadOptions())
    assert str(caught.value) == repeated("id", 701)
    assert reparsed == ["r.jsonl:701"]
    assert sum(d.rows for d in made) == 1000


def test_escapes_that_could_spell_a_key_send_their_lines_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # rows of the keys read only: their names are counted, so a line with an escape that could
    # spell one is read again, and only that line
    _, reparsed = counting(monkeypatch)
    lines = [b'{"id": "q%d", "passed": true}' % i for i in range(100)]
    lines[5] = b'{"id": "q5", "p\\u0061ssed": true}'
    lines[7] = b'{"id": "q7", "passed": true, "p\\u0061ssed": false}'
    with pytest.raises(InputError) as caught:
        parse(b"\n".join(lines), source="r.jsonl", options=ReadOptions())
    assert str(caught.value) == repeated("passed", 8)
    assert reparsed == ["r.jsonl:6", "r.jsonl:8"]


def test_reading_leaves_nothing_for_the_garbage_collector() -> None:
    """No reference cycle keeps a reader (and the file it holds) alive once it has returned."""
    data = harness_rows(200)
    gc.collect()
    gc.disable()
    try:
        assert len(parse(data, source="r.jsonl", options=ReadOptions())) == 200
        assert gc.collect() == 0
    finally:
        gc.enable()
