"""The fast paths of issue 12 prove their preconditions and refuse everything else.

Each fast path is fed the inputs it must refuse, and gives what the general path gives:
the JSONL reader (one record per line, known fields only, no repeated key, unique ids), the
pairing of two runs that list the same ids in the same order, and the vectorised pass@k,
slices and repeats grouping (checked against plain reference loops written here).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from typing import Any
from unittest import mock

import numpy as np
import pytest

from evalbot.compare import compute_slices
from evalbot.errors import InputError, PairingError
from evalbot.formats import fast_jsonl, jsonl_scan, parse_any
from evalbot.formats.fast_jsonl import parse_fast
from evalbot.formats.model import Paired, Results
from evalbot.formats.options import ReadOptions
from evalbot.pairing.pair import pair
from evalbot.pairing.per_item import group_rows
from evalbot.plan.config import Config
from evalbot.stats import pass_at_k

OPTIONS = ReadOptions(max_line_bytes=200)


def outcome(parse: Any) -> tuple[Any, ...]:
    """What a parser returns, in comparable form: the error message, or every column."""
    try:
        r: Results = parse()
    except InputError as error:
        return ("error", str(error))
    return (
        r.ids,
        r.scores.tolist(),
        r.kind,
        None if r.epochs is None else r.epochs.tolist(),
        r.slices,
        r.clusters,
        None if r.costs is None else [None if math.isnan(x) else x for x in r.costs.tolist()],
        None if r.errors is None else r.errors.tolist(),
        [r.location(i) for i in range(len(r))],
    )


def generic(data: bytes) -> tuple[Any, ...]:
    """What reading the file gives with the fast path switched off: the general path alone."""
    with mock.patch.object(fast_jsonl, "parse_fast", return_value=None):
        return outcome(lambda: parse_any("r.jsonl", data, OPTIONS))


REFUSED = {
    "repeated known key": b'{"id": "a", "passed": true, "passed": false}\n{"id": "b", "passed": true}\n',
    "repeated id key": b'{"id": "a", "id": "b", "passed": true}\n',
    "repeated key spelled with an escape": b'{"id": "a", "\\u0069d": "b", "passed": true}\n',
    "repeated optional key": b'{"id": "a", "passed": true, "slice": "s", "slice": "t"}\n',
    "repeated null key": b'{"id": "a", "passed": true, "slice": null, "slice": null}\n',
    "repeated unknown key": b'{"id": "a", "passed": true, "x": 1, "x": 2}\n',
    "unknown field": b'{"id": "a", "passed": true, "note": "hi"}\n',
    "blank line": b'{"id": "a", "passed": true}\n\n{"id": "b", "passed": false}\n',
    "blank line at the end": b'{"id": "a", "passed": true}\n\n',
    "whitespace line": b'{"id": "a", "passed": true}\n \n',
    "two records on one line": b'{"id": "a", "passed": true} {"id": "b", "passed": true}\n \n',
    "a record over two lines": b'{"id": "a",\n"passed": true}\n',
    "a line starting with a space": b' {"id": "a", "passed": true}\n',
    "over-long line": b'{"id": "' + b"x" * 300 + b'", "passed": true}\n',
    "repeated id": b'{"id": "a", "passed": true}\n{"id": "a", "passed": false}\n',
    "null outcome": b'{"id": "a", "passed": null}\n',
    "outcome 2": b'{"id": "a", "passed": 2}\n',
    "outcome as text": b'{"id": "a", "passed": "true"}\n',
    "NaN score": b'{"id": "a", "score": NaN}\n',
    "huge score": b'{"id": "a", "score": 1e400}\n',
    "huge cost": b'{"id": "a", "passed": true, "cost": 1e400}\n',
    "empty id": b'{"id": "", "passed": true}\n',
    "blank id": b'{"id": "  ", "passed": true}\n',
    "boolean id": b'{"id": true, "passed": true}\n',
    "invalid UTF-8": b'{"id": "a\xff", "passed": true}\n',
    "error as an object": b'{"id": "a", "passed": false, "error": {"kind": "timeout"}}\n',
    "not an object": b"[1, 2]\n",
    "epoch on some rows": b'{"id": "a", "passed": true, "epoch": 1}\n{"id": "b", "passed": true}\n',
    "negative epoch": b'{"id": "a", "passed": true, "epoch": -1}\n',
    # the epochs are counted for null and absent only when some row's is (the types say so)
    "null epoch on some rows": b'{"id": "a", "passed": true, "epoch": 1}\n{"id": "b", "passed": true, "epoch": null}\n',
    "epoch absent from a later row": b'{"id": "a", "passed": true, "epoch": 0}\n{"id": "a", "passed": true, "epoch": 1}\n{"id": "b", "passed": true}\n',
    "boolean epoch": b'{"id": "a", "passed": true, "epoch": true}\n{"id": "a", "passed": true, "epoch": 0}\n',
    "no metric": b'{"id": "a"}\n',
}


@pytest.mark.parametrize("data", REFUSED.values(), ids=REFUSED.keys())
def test_the_fast_jsonl_path_refuses_and_the_general_path_decides(data: bytes) -> None:
    assert parse_fast(data, source="r.jsonl", options=OPTIONS) is None
    assert outcome(lambda: parse_any("r.jsonl", data, OPTIONS)) == generic(data)


ACCEPTED = {
    "plain": b'{"id": "b", "passed": true}\n{"id": "a", "passed": false}\n',
    "no final newline": b'{"id": "a", "passed": true}\n{"id": "b", "passed": false}',
    "CRLF": b'{"id": "a", "passed": true}\r\n{"id": "b", "passed": false}\r\n',
    "BOM": b'\xef\xbb\xbf{"id": "a", "passed": true}\n',
    "integer ids": b'{"id": 2, "passed": true}\n{"id": 10, "passed": 0}\n',
    "mixed ids and 0/1 outcomes": b'{"id": 2, "passed": 1.0}\n{"id": "x", "passed": 0}\n',
    "escaped quote in an id": b'{"id": "a\\"b", "passed": true}\n{"id": "c", "passed": false}\n',
    "escaped backslash before a quote": b'{"id": "a\\\\", "passed": true}\n{"id": "\\\\\\"", "passed": true}\n',
    "non-ASCII ids, raw and escaped": '{"id": "é", "passed": true}\n{"id": "\\u00e8", "passed": true}\n'.encode(),
    "optional fields on a later row only": (
        b'{"id": "a", "passed": true}\n'
        b'{"id": "b", "passed": false, "error": "timeout", "slice": "s", "cost": 2}\n'
    ),
    "null and empty labels": b'{"id": "a", "passed": true, "slice": null, "cluster": ""}\n{"id": "b", "passed": true, "slice": 3, "cluster": "c"}\n',
    "epochs": b'{"id": "a", "epoch": 0, "passed": true}\n{"id": "a", "epoch": 1, "passed": false}\n',
    "null epoch on every row": b'{"id": "a", "epoch": null, "passed": true}\n{"id": "b", "epoch": null, "passed": false}\n',
    "passed as true/false, read as 1.0/0.0": b'{"id": "a", "passed": false}\n{"id": "b", "passed": true}\n{"id": "c", "passed": true}\n',
    "scores": b'{"id": "a", "score": 1}\n{"id": "b", "score": 0.25}\n{"id": "c", "score": -3e-7}\n',
    "values named like keys": b'{"id": "id", "passed": true, "slice": "passed"}\n',
}


@pytest.mark.parametrize("data", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_the_fast_jsonl_path_takes_clean_files_and_equals_the_general_path(data: bytes) -> None:
    assert parse_fast(data, source="r.jsonl", options=OPTIONS) is not None
    assert outcome(lambda: parse_any("r.jsonl", data, OPTIONS)) == generic(data)


def test_sorted_ids_are_flagged_only_when_strictly_increasing() -> None:
    rows = lambda ids: "".join(json.dumps({"id": i, "passed": True}) + "\n" for i in ids)  # noqa: E731
    sorted_run = parse_fast(rows(["a", "b", "c"]).encode(), source="r.jsonl", options=OPTIONS)
    shuffled = parse_fast(rows(["b", "a", "c"]).encode(), source="r.jsonl", options=OPTIONS)
    assert sorted_run is not None and sorted_run.ids_sorted and sorted_run.id_hashes is None
    assert shuffled is not None and not shuffled.ids_sorted and shuffled.id_hashes is not None


# --- pairing ------------------------------------------------------------------------------


def results(ids: list[str], values: list[float], **extra: Any) -> Results:
    return Results(
        source="r", ids=ids, scores=np.asarray(values, dtype=np.float64), kind="binary", **extra
    )


def reference_pair(
    base: Results, cand: Results, missing: str
) -> tuple[list[str], list[float], list[float], list[Any]]:
    """The pairing written as plain dictionaries: the reference the fast path must match."""
    b = dict(zip(base.ids, base.scores.tolist(), strict=True))
    c = dict(zip(cand.ids, cand.scores.tolist(), strict=True))
    bs = dict(zip(base.ids, base.slices or [None] * len(base), strict=True))
    cs = dict(zip(cand.ids, cand.slices or [None] * len(cand), strict=True))
    ids = sorted(set(b) | set(c)) if missing == "fail" else sorted(set(b) & set(c))
    labels = [cs.get(i) if cs.get(i) is not None else bs.get(i) for i in ids]
    return ids, [b.get(i, 0.0) for i in ids], [c.get(i, 0.0) for i in ids], labels


def check_pair(base: Results, cand: Results, missing: str = "error") -> Paired:
    paired = pair(base, cand, missing=missing)  # type: ignore[arg-type]
    ids, b, c, labels = reference_pair(base, cand, missing)
    assert paired.ids == ids
    assert paired.baseline.tolist() == b
    assert paired.candidate.tolist() == c
    if base.slices is not None or cand.slices is not None:
        assert paired.slices == labels
    expected = hashlib.sha256(("\n".join(ids) + "\n").encode()).hexdigest()
    assert paired.fingerprint == expected
    return paired


def test_pairing_the_same_order_skips_the_join_and_equals_the_reference() -> None:
    ids = [f"q{i:03d}" for i in range(50)]
    rng = random.Random(0)
    base = results(ids, [rng.random() < 0.5 for _ in ids], ids_sorted=True)
    cand = results(list(ids), [rng.random() < 0.5 for _ in ids], ids_sorted=True)
    check_pair(base, cand)
    unsorted = list(reversed(ids))  # the same order on both sides, not sorted: sorted here
    check_pair(
        results(unsorted, base.scores.tolist()), results(list(unsorted), cand.scores.tolist())
    )


@pytest.mark.parametrize("case", ["one swap", "one id differs", "one more row", "shuffled"])
@pytest.mark.parametrize("missing", ["error", "fail", "drop"])
def test_pairing_refuses_the_fast_path_when_the_order_or_the_ids_differ(
    case: str, missing: str
) -> None:
    rng = random.Random(1)
    ids = [f"q{i:03d}" for i in range(40)]
    cand_ids = list(ids)
    if case == "one swap":
        cand_ids[3], cand_ids[7] = cand_ids[7], cand_ids[3]
    elif case == "one id differs":
        cand_ids[5] = "zz-other"
    elif case == "one more row":
        cand_ids.append("q999")
    else:
        rng.shuffle(cand_ids)
    slices = [rng.choice(["s1", "s2", None]) for _ in ids]
    base = results(ids, [rng.random() < 0.5 for _ in ids], ids_sorted=True, slices=slices)
    cand = results(
        cand_ids,
        [rng.random() < 0.5 for _ in cand_ids],
        slices=[rng.choice(["s1", None]) for _ in cand_ids],
    )
    if missing == "error" and set(ids) != set(cand_ids):
        with pytest.raises(PairingError, match="items differ"):
            pair(base, cand, missing=missing)
        return
    check_pair(base, cand, missing)


def test_labels_from_one_side_only() -> None:
    ids = ["a", "b", "c"]
    base = results(ids, [1, 0, 1], slices=["x", None, "y"])
    cand = results(list(ids), [1, 1, 0])
    assert check_pair(base, cand).slices == ["x", None, "y"]
    assert check_pair(cand, base).slices == ["x", None, "y"]


# --- repeats, pass@k and slices -------------------------------------------------------------


@pytest.mark.parametrize(
    ("ids", "expected", "items"),
    [
        (["b", "a", "b", "c", "a", "b"], [0, 1, 0, 2, 1, 0], ["b", "a", "c"]),  # interleaved
        (["b", "b", "a", "a", "a", "c"], [0, 0, 1, 1, 1, 2], ["b", "a", "c"]),  # item by item
        (["a", "a", "b", "a"], [0, 0, 1, 0], ["a", "b"]),  # an item's rows in two runs
    ],
)
def test_grouping_rows_in_first_seen_order_and_exact_when_hashes_collide(
    ids: list[str], expected: list[int], items: list[str]
) -> None:
    for cached in (None, np.zeros(len(ids), dtype=np.int64)):  # every hash equal: a collision
        rows, got_items, _ = group_rows(ids, cached)
        assert rows.tolist() == expected
        assert got_items == items


def loop_pass_at_k(n: Any, c: Any, k: int) -> float:
    """Chen et al.'s unbiased estimator, item by item (the reference)."""
    counts = np.atleast_1d(np.asarray(c))
    samples = np.broadcast_to(np.asarray(n), counts.shape)
    total = 0.0
    for ni, ci in zip(samples.tolist(), counts.tolist(), strict=True):
        total += 1.0 - math.comb(ni - ci, k) / math.comb(ni, k)
    return total / counts.size


def test_vectorised_pass_at_k_is_the_loop_bit_for_bit() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        m, e = int(rng.integers(1, 3000)), int(rng.integers(1, 12))
        k = int(rng.integers(1, e + 1))
        n: Any = e if rng.random() < 0.5 else rng.integers(e, 40, m)
        c = (rng.random(m) * (np.asarray(n) + 1)).astype(np.int64)
        assert pass_at_k(n, c, k) == loop_pass_at_k(n, c, k)
    # Chen et al.'s example: n = 4 samples, 0, 1 and 4 correct, k = 2 -> (0 + 1/2 + 1) / 3
    assert pass_at_k(4, [0, 1, 4], 2) == 0.5


@pytest.mark.parametrize(
    ("n", "c", "k", "message"),
    [
        (4, [0, 5], 2, r"`n_correct\[1\]` must be at most `n_samples\[1\]` \(4\); got 5"),
        (4, [-1], 2, r"`n_correct\[0\]` must be an integer >= 0"),
        (1, [0], 2, r"`k` must be at most `n_samples\[0\]` \(1\); got 2"),
        (4, [1.0], 1, r"`n_correct\[0\]` must be an integer; got 1.0"),
        ([0, 4], [0, 1], 1, r"`n_samples\[0\]` must be an integer >= 1"),
    ],
)
def test_pass_at_k_refuses_bad_counts_naming_the_item(n: Any, c: Any, k: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pass_at_k(n, c, k)


def test_slices_grouped_with_arrays_equal_a_plain_grouping() -> None:
    rng = random.Random(3)
    n = 500
    names = [rng.choice(["b", "a", "c", None, "10", "2"]) for _ in range(n)]
    base = np.array([rng.random() < 0.6 for _ in range(n)], dtype=np.float64)
    cand = np.array([rng.random() < 0.7 for _ in range(n)], dtype=np.float64)
    paired = Paired(
        ids=[f"q{i:04d}" for i in range(n)],
        baseline=base,
        candidate=cand,
        kind="binary",
        baseline_source="b",
        candidate_source="c",
        slices=names,
    )
    got = compute_slices(paired, Config())
    expected_names = sorted(set(names), key=lambda s: (s is None, s or ""))
    assert [s.name for s in got] == expected_names
    for result in got:
        mask = np.array([name == result.name for name in names])
        assert result.items == int(mask.sum())
        assert result.baseline_rate == float(base[mask].mean())
        assert result.candidate_rate == float(cand[mask].mean())
        assert result.table is not None
        assert result.table.fixed == int(((cand == 1) & (base == 0) & mask).sum())


@pytest.mark.parametrize("chunk", [1, 16, 64])
def test_reading_in_chunks_changes_nothing(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files are scanned and decoded a few megabytes at a time; with tiny chunks every case
    above still gives the same answer (a later chunk's integer id or new field widens the
    whole file's decoding, a later chunk's repeated key still refuses it)."""
    monkeypatch.setattr(jsonl_scan, "_CHUNK", chunk)
    later = b"".join(b'{"id": "q%d", "passed": true}\n' % i for i in range(20))
    cases = {
        **ACCEPTED,
        "integer id in a later chunk": later + b'{"id": 7, "passed": false}\n',
        "new field in a later chunk": later + b'{"id": "z", "passed": false, "error": "x"}\n',
    }
    for data in cases.values():
        assert parse_fast(data, source="r.jsonl", options=OPTIONS) is not None
        assert outcome(lambda d=data: parse_any("r.jsonl", d, OPTIONS)) == generic(data)
    refused = {**REFUSED, "repeated key in a later chunk": later + REFUSED["repeated id key"]}
    for data in refused.values():
        assert parse_fast(data, source="r.jsonl", options=OPTIONS) is None


def test_line_lengths_are_checked_exactly() -> None:
    """check_lines refuses a file exactly when a line is longer than the limit (a brute-force
    table of line lengths and limits: the shortcut through stretches of half the limit, and
    the exact measurement it falls back to, both agree with max(lengths) <= limit)."""
    rng = random.Random(1)
    for _ in range(3000):
        limit = rng.randint(1, 20)
        lengths = [rng.randint(1, 25) for _ in range(rng.randint(1, 12))]
        body = b"\n".join(b"{" + b"x" * (length - 1) for length in lengths)
        try:
            accepted = jsonl_scan.check_lines(jsonl_scan.Body(body), limit) == len(lengths)
        except jsonl_scan.Unusual:
            accepted = False
        assert accepted == (max(lengths) <= limit), (lengths, limit)
