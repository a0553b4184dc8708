"""Detection and every parser stay linear on hostile input (issue 10, "untrusted text").

Each input is about 100,000 characters built to trip a backtracking regular expression, a
recursive parser or a quadratic scan; each file name is as long. Every parse must end in
``Results`` or one ``InputError`` line, quickly. Time is bounded generously (seconds, where each
takes milliseconds): the point is the absence of quadratic or exponential blow-ups, which at this
size take minutes.
"""

from __future__ import annotations

import time

import pytest

from evalbot.errors import InputError
from evalbot.results.formats import FORMATS, detect, parse_any
from evalbot.results.model import Results
from evalbot.results.options import ReadOptions
from evalbot.results.sources import is_result_name

N = 100_000
BOUND = 3.0  # seconds for one parse; each takes milliseconds

HOSTILE: dict[str, bytes] = {
    "open brackets": b"[" * N,
    "open objects": b'{"a":' * (N // 5),
    "nested arrays in a record": b'{"id": "a", "passed": true, "x": ' + b"[" * N + b"]" * N + b"}",
    "backslashes": b'{"id": "' + b"\\" * N,
    "long string": b'{"id": "' + b"x" * N + b'", "passed": true}',
    "many keys": b"{" + b",".join(b'"k%d": 1' % i for i in range(N // 10)) + b"}",
    "repeated key": b"{" + b'"k": 1,' * (N // 7) + b'"k": 2}',
    "spaces": b" " * N + b"x",
    "newlines": b"\n" * N,
    "commas": b"id,passed\n" + b"," * N,
    "quotes": b'"' * N,
    "xml nesting": b"<a>" * (N // 3),
    "xml comment": b"<!--" + b"-" * N,
    "xml declaration": b'<?xml version="1.0" encoding' + b" " * N,
    "xml bang": (b"<!" + b" " * 1000) * (N // 1000),
    "digits": b"0" * N,
    "resolved ids": b'{"resolved_ids": [' + b'"a",' * (N // 4) + b'"a"]}',
    "inspect samples": b'{"eval": {}, "status": "x", "samples": [' + b"{}," * (N // 3) + b"{}]}",
    "mlflow rows": b"[" + b'{"trace_id": "t", "assessments": []},' * (N // 40) + b"{}]",
    "jsonl lines": b'{"id": 1, "passed": true}\n' * (N // 26),
    "lm-eval lines": b'{"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 1}\n' * (N // 60),
    "zip magic": b"PK\x05\x06" + b"\x00" * N,
}

NAMES = [
    "r.json",
    "r.jsonl",
    "r.csv",
    "r.xml",
    "r.eval",
    "samples_" * (N // 8) + "x.jsonl",
    "samples_a_" + "2024-01-01T" * (N // 11) + ".jsonl",
    "results_2024-01-01T" + "0." * (N // 2) + "json",
    "a/" * (N // 2) + "r.json",
    "x!" * (N // 2) + "r.jsonl",
]


def _parse(name: str, data: bytes, options: ReadOptions) -> float:
    started = time.perf_counter()
    message = ""
    try:
        assert isinstance(parse_any(name, data, options), Results)
    except InputError as error:
        message = str(error)
    assert "\n" not in message
    return time.perf_counter() - started


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_detection_and_every_forced_parser_are_fast(kind: str) -> None:
    data = HOSTILE[kind]
    options = ReadOptions(max_archive_bytes=1 << 20)
    started = time.perf_counter()
    message = "duplicate key"
    try:
        detect("r.json", data)
    except InputError as error:  # a repeated key is refused as soon as it is seen
        message = str(error)
    assert "duplicate key" in message
    assert time.perf_counter() - started < BOUND
    for name in ("r.json", "r.jsonl", "r.csv"):
        assert _parse(name, data, options) < BOUND, name
    for fmt in sorted(FORMATS):
        assert _parse("r.json", data, ReadOptions(format=fmt)) < BOUND, fmt


@pytest.mark.parametrize("name", NAMES, ids=range(len(NAMES)))
def test_hostile_names_are_fast(name: str) -> None:
    started = time.perf_counter()
    is_result_name(name)
    for data in (HOSTILE["jsonl lines"], HOSTILE["lm-eval lines"], b"[]", b"x"):
        detect(name, data)
        _parse(name, data, ReadOptions())
    assert time.perf_counter() - started < BOUND
