"""Detection and every parser stay linear on hostile input (untrusted text).

Each input is about 100,000 characters built to trip a backtracking regular expression, a
recursive parser or a quadratic scan; each file name is as long. Every parse must end in
``Results`` or one ``InputError`` line. Their time is measured in ``bench/bench_hostile.py``
(against the same inputs at a tenth of the size), not asserted here.
"""

from __future__ import annotations

import pytest

from evalbot.errors import InputError
from evalbot.formats import FORMATS, detect, parse_any
from evalbot.formats.model import ReadOptions, Results
from evalbot.formats.sources import is_result_name

N = 100_000


def hostile(n: int = N) -> dict[str, bytes]:
    """Inputs of about ``n`` bytes each."""
    return {
        "open brackets": b"[" * n,
        "open objects": b'{"a":' * (n // 5),
        "nested arrays in a record": b'{"id": "a", "passed": true, "x": '
        + b"[" * n
        + b"]" * n
        + b"}",
        "backslashes": b'{"id": "' + b"\\" * n,
        "long string": b'{"id": "' + b"x" * n + b'", "passed": true}',
        "many keys": b"{" + b",".join(b'"k%d": 1' % i for i in range(n // 10)) + b"}",
        "repeated key": b"{" + b'"k": 1,' * (n // 7) + b'"k": 2}',
        "spaces": b" " * n + b"x",
        "newlines": b"\n" * n,
        "commas": b"id,passed\n" + b"," * n,
        "quotes": b'"' * n,
        "xml nesting": b"<a>" * (n // 3),
        "xml comment": b"<!--" + b"-" * n,
        "xml declaration": b'<?xml version="1.0" encoding' + b" " * n,
        "xml bang": (b"<!" + b" " * 1000) * (n // 1000),
        "digits": b"0" * n,
        "resolved ids": b'{"resolved_ids": [' + b'"a",' * (n // 4) + b'"a"]}',
        "inspect samples": b'{"eval": {}, "status": "x", "samples": ['
        + b"{}," * (n // 3)
        + b"{}]}",
        "mlflow rows": b"[" + b'{"trace_id": "t", "assessments": []},' * (n // 40) + b"{}]",
        "jsonl lines": b'{"id": 1, "passed": true}\n' * (n // 26),
        "lm-eval lines": b'{"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 1}\n'
        * (n // 60),
        "zip magic": b"PK\x05\x06" + b"\x00" * n,
    }


HOSTILE = hostile()


def hostile_names(n: int = N) -> list[str]:
    """File names of about ``n`` characters each (and short ones)."""
    return [
        "r.json",
        "r.jsonl",
        "r.csv",
        "r.xml",
        "r.eval",
        "samples_" * (n // 8) + "x.jsonl",
        "samples_a_" + "2024-01-01T" * (n // 11) + ".jsonl",
        "results_2024-01-01T" + "0." * (n // 2) + "json",
        "a/" * (n // 2) + "r.json",
        "x!" * (n // 2) + "r.jsonl",
    ]


NAMES = hostile_names()


def parse(name: str, data: bytes, options: ReadOptions) -> None:
    message = ""
    try:
        assert isinstance(parse_any(name, data, options), Results)
    except InputError as error:
        message = str(error)
    assert "\n" not in message


def read_every_way(data: bytes) -> None:
    """``data`` detected, then read as each kind of file and by each forced parser."""
    options = ReadOptions(max_archive_bytes=1 << 20)
    message = "duplicate key"
    try:
        detect("r.json", data)
    except InputError as error:  # a repeated key is refused as soon as it is seen
        message = str(error)
    assert "duplicate key" in message
    for name in ("r.json", "r.jsonl", "r.csv"):
        parse(name, data, options)
    for fmt in sorted(FORMATS):
        parse("r.json", data, ReadOptions(format=fmt))


def read_named(name: str, rows: tuple[bytes, ...]) -> None:
    """Files called ``name`` holding each of ``rows``, recognised, detected and read."""
    is_result_name(name)
    for data in rows:
        detect(name, data)
        parse(name, data, ReadOptions())


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_detection_and_every_forced_parser_end_in_one_line(kind: str) -> None:
    read_every_way(HOSTILE[kind])


ROWS = (HOSTILE["jsonl lines"], HOSTILE["lm-eval lines"], b"[]", b"x")


@pytest.mark.parametrize("name", NAMES, ids=range(len(NAMES)))
def test_hostile_names_end_in_one_line(name: str) -> None:
    read_named(name, ROWS)
