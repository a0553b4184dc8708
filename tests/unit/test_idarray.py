"""Compact ids (evalbot.formats.idarray): the same answers as lists of strings.

Every expectation is the list-of-strings behaviour it replaces, computed here on the same ids
(Python's own ``sorted``, ``hashlib`` over the joined text, the general JSONL path)."""

from __future__ import annotations

import hashlib
import random
from unittest import mock

import numpy as np
import pytest

from evalbot.formats import fast_jsonl, parse_any
from evalbot.formats.idarray import IdArray, compact_ids, distinct, exact_keys, id_column
from evalbot.formats.model import Results
from evalbot.formats.options import ReadOptions
from evalbot.pairing.fingerprint import fingerprint
from evalbot.pairing.join import locate, locate_exact
from evalbot.pairing.pair import pair
from evalbot.pairing.subset import subset

IDS = ["q-3", "q-10", "b", "a/b c", "z" * 20, "q-2"]


def packed(ids: list[str]) -> IdArray:
    found = compact_ids(ids)
    assert found is not None
    return found


def test_a_sequence_of_strings() -> None:
    ids = packed(IDS)
    assert len(ids) == 6 and ids.tolist() == IDS and list(ids) == IDS
    assert ids[0] == "q-3" and ids[-1] == "q-2" and isinstance(ids[1], str)
    assert ids[1:3].tolist() == ["q-10", "b"]
    assert ids[np.array([True, False, True, False, False, True])].tolist() == ["q-3", "b", "q-2"]
    assert ids[np.array([5, 0])].tolist() == ["q-2", "q-3"]
    assert ids == IDS and ids == packed(IDS) and ids != packed(IDS[::-1]) and ids != IDS[:-1]
    assert "b" in ids and "c" not in ids
    assert np.asarray(ids, dtype=object).tolist() == IDS
    assert id_column(ids)[np.array([1])].tolist() == ["q-10"]
    assert id_column(IDS)[np.array([1])].tolist() == ["q-10"]
    assert "n=6" in repr(ids)


@pytest.mark.parametrize(
    "ids",
    [
        [],  # nothing to hold
        ["é", "a"],  # beyond ASCII
        ["a\x00", "b"],  # a NUL would be taken for padding
        ["a\nb", "c"],  # a line break
        ["x" * 1000, *(f"{i}" for i in range(50))],  # one long id would widen every row
    ],
)
def test_refused_where_a_byte_array_would_not_hold_them(ids: list[str]) -> None:
    assert compact_ids(ids) is None


def test_sorting_and_order_are_those_of_strings() -> None:
    rng = random.Random(3)
    ids = [f"{rng.choice('aBz_-')}{rng.randrange(10 ** rng.randrange(1, 6))}" for _ in range(500)]
    ids = list(dict.fromkeys(ids))
    array = packed(ids)
    assert [ids[i] for i in array.argsort()] == sorted(ids)
    assert packed(sorted(ids)).is_sorted(strictly=True)
    assert not array.is_sorted()


@pytest.mark.parametrize("at", [0, 1, 500, 1023, 1024, 1025, 1026, 4000, 4998])
def test_is_sorted_finds_a_step_back_anywhere(at: int) -> None:
    # the first 1,025 rows are looked at first, then all: a step back before, at and after
    # that boundary is found, and so is a repeat where the order must be strict
    ids = [f"q-{i:05d}" for i in range(5000)]
    assert packed(ids).is_sorted(strictly=True) and packed(ids).is_sorted()
    back = ids.copy()
    back[at], back[at + 1] = back[at + 1], back[at]
    assert not packed(back).is_sorted() and not packed(back).is_sorted(strictly=True)
    repeat = ids.copy()
    repeat[at + 1] = repeat[at]
    assert packed(repeat).is_sorted() and not packed(repeat).is_sorted(strictly=True)


def test_hashes_do_not_depend_on_the_arrays_width() -> None:
    # "ab" is padded to 3 bytes in one array and to 20 in the other: the same hash
    narrow, wide = packed(["ab", "abc"]), packed(["ab", "z" * 20])
    assert narrow.array.dtype.itemsize != wide.array.dtype.itemsize
    assert narrow.hashes()[0] == wide.hashes()[0]
    assert len(set(packed(IDS).hashes().tolist())) == len(IDS)


def test_distinct_compares_ids_whose_hashes_agree() -> None:
    ids = packed(["a", "b", "c", "a"])
    assert not distinct(ids, ids.hashes())
    # every hash equal (a forced collision): only a real repeat counts
    assert distinct(packed(["a", "b", "c"]), np.zeros(3, dtype=np.int64))
    assert not distinct(ids, np.zeros(4, dtype=np.int64))
    assert not distinct(packed(["a", "b", "a"]), np.zeros(3, dtype=np.int64))


@pytest.mark.parametrize("ids", [IDS, sorted(IDS), [f"q-{i:07d}" for i in range(70_000)]])
def test_fingerprint_is_the_joined_texts_sha256(ids: list[str]) -> None:
    expected = hashlib.sha256(("\n".join(sorted(ids)) + "\n").encode()).hexdigest()
    assert fingerprint(packed(ids)) == fingerprint(ids) == expected
    ordered = packed(sorted(ids))
    assert fingerprint(ordered, ids_sorted=True) == expected


def results(ids: list[str], scores: list[float], source: str) -> Results:
    return Results(
        source=source,
        ids=packed(ids),
        scores=np.array(scores, dtype=np.float64),
        kind="binary",
        id_hashes=None,
    )


def as_lists(r: Results) -> Results:
    return Results(source=r.source, ids=list(r.ids), scores=r.scores, kind=r.kind)


@pytest.mark.parametrize("missing", ["error", "drop", "fail"])
def test_pairing_compact_ids_gives_what_lists_give(missing: str) -> None:
    rng = np.random.default_rng(5)
    base_ids = [f"item-{i}" for i in range(300)]
    cand_ids = [base_ids[i] for i in rng.permutation(300)]
    if missing != "error":
        cand_ids = [*cand_ids[:280], "extra-long-candidate-only-id", "x"]
    base = results(base_ids, rng.integers(0, 2, len(base_ids)).tolist(), "b.jsonl")
    cand = results(cand_ids, rng.integers(0, 2, len(cand_ids)).tolist(), "c.jsonl")
    compact = pair(base, cand, missing=missing)  # type: ignore[arg-type]
    plain = pair(as_lists(base), as_lists(cand), missing=missing)  # type: ignore[arg-type]
    assert isinstance(compact.ids, IdArray)
    assert compact.ids == plain.ids
    assert compact.baseline.tolist() == plain.baseline.tolist()
    assert compact.candidate.tolist() == plain.candidate.tolist()
    assert compact.fingerprint == plain.fingerprint
    assert compact.dropped_candidate_only == plain.dropped_candidate_only
    # one side compact, the other a list (another format): joined as strings, same answer
    mixed = pair(base, as_lists(cand), missing=missing)  # type: ignore[arg-type]
    assert mixed.ids == plain.ids and mixed.fingerprint == plain.fingerprint
    keep = np.arange(len(plain.ids)) % 3 == 0
    assert subset(compact, keep).ids == subset(plain, keep).ids
    assert subset(compact, keep).fingerprint == subset(plain, keep).fingerprint


def test_locate_checks_every_match_exactly() -> None:
    # ten bytes that no two ids share from the start: joined on hashes, not as numbers
    a, b, c, d = (letter * 10 for letter in "abcd")
    keys, queries = packed([a, b, c]), packed([c, d, a])
    assert exact_keys(keys, queries) is None
    assert locate(keys, queries).tolist() == [2, -1, 0]
    # hashes that claim "d" is "b": the exact comparison catches it and the dict join decides
    fake_keys = np.array([1, 2, 3], dtype=np.int64)
    fake_queries = np.array([3, 2, 1], dtype=np.int64)
    found = locate(keys, queries, key_hashes=fake_keys, query_hashes=fake_queries)
    assert found.tolist() == [2, -1, 0]


def numbered(prefix: str, numbers: list[int], digits: int = 0) -> IdArray:
    return packed([f"{prefix}{n:0{digits}d}" for n in numbers])


def test_exact_keys_are_equal_and_ordered_as_the_ids() -> None:
    rng = random.Random(5)
    # unpadded numbers (ids of 1 to 5 digits: NUL-padded to one width), a shared prefix
    # longer than the array's width less 8, and ids of 8 bytes that share nothing
    cases = [
        ("q-", [rng.randrange(10 ** rng.randrange(1, 6)) for _ in range(300)], 0),
        ("swe-bench/django__django-", [rng.randrange(10**6) for _ in range(300)], 6),
        ("", [rng.randrange(10**8) for _ in range(300)], 8),
    ]
    for prefix, numbers, digits in cases:
        left = numbered(prefix, numbers[:200], digits)
        right = numbered(prefix, numbers[100:], digits)
        found = exact_keys(left, right)
        assert found is not None
        ids = left.tolist() + right.tolist()
        values = found[0].tolist() + found[1].tolist()
        for i in range(0, len(ids), 7):
            for j in range(0, len(ids), 5):
                assert (values[i] == values[j]) == (ids[i] == ids[j])
                assert (values[i] < values[j]) == (ids[i] < ids[j])


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (["q-000000001", "q-100000002"], ["q-00000001"]),  # 9 bytes after "q-"
        (["a-000000001", "q-000000002"], ["q-000000001"]),  # 11 bytes, first not shared
        (["q-000000001"], ["q-100000002", "r-000000001"]),  # the other side differs
        (["a" * 9], ["a" * 8 + "b", "b" + "a" * 8]),
    ],
)
def test_exact_keys_refused_unless_at_most_8_bytes_differ(
    left: list[str], right: list[str]
) -> None:
    assert exact_keys(packed(left), packed(right)) is None


@pytest.mark.parametrize(
    ("keys", "queries"),
    [
        # a baseline in order, a shuffled candidate, ids on one side only
        ([f"q-{i:07d}" for i in range(50)], [f"q-{i:07d}" for i in range(60, 20, -1)]),
        # keys out of order, ids of several lengths (NUL padding), none in common
        (["q-10", "q-3", "q-200", "q-1"], ["q-1", "q-30", "q-10", "q-2000"]),
        (["q-1", "q-2"], ["q-3", "q-4"]),
        # widths 11 and 10: the narrower padded with NUL (8 bytes left after "q-0")
        (["q-000000001", "q-000000002"], ["q-00000001", "q-000000002", "q-0000002"]),
        # a repeated key: the dict join, as on the hashes' path
        (["q-5", "q-1", "q-5"], ["q-5", "q-1", "q-9"]),
    ],
)
def test_locate_on_exact_keys_is_the_dict_join(keys: list[str], queries: list[str]) -> None:
    left, right = packed(keys), packed(queries)
    assert exact_keys(left, right) is not None
    assert locate(left, right).tolist() == locate_exact(keys, queries).tolist()
    assert locate(keys, queries).tolist() == locate_exact(keys, queries).tolist()  # strings


OPTIONS = ReadOptions()


def general(data: bytes) -> Results:
    with mock.patch.object(fast_jsonl, "parse_fast", return_value=None):
        return parse_any("r.jsonl", data, OPTIONS)


@pytest.mark.parametrize(
    ("data", "compact"),
    [
        (b'{"id": "b", "passed": true}\n{"id": "a", "passed": false}\n', True),
        (b'{"id": "a", "passed": true}\n{"id": "b", "passed": false}\n', True),
        (b'{"id": "a\\"b", "passed": true}\n{"id": "c", "passed": false}\n', False),  # escape
        ('{"id": "é", "passed": true}\n{"id": "c", "passed": false}\n'.encode(), False),
        (
            b'{"id": "a", "epoch": 0, "passed": true}\n{"id": "a", "epoch": 1, "passed": true}\n',
            True,
        ),
        (b'{"id": 7, "passed": true}\n{"id": "c", "passed": false}\n', False),  # an integer id
    ],
)
def test_the_fast_path_packs_plain_ascii_ids(data: bytes, compact: bool) -> None:
    read = parse_any("r.jsonl", data, OPTIONS)
    assert isinstance(read.ids, IdArray) is compact
    assert read.ids == general(data).ids
    strictly = all(a < b for a, b in zip(list(read.ids), list(read.ids)[1:], strict=False))
    assert read.ids_sorted == (strictly and read.epochs is None)


def test_the_fast_path_refuses_a_repeated_compact_id() -> None:
    data = (
        b'{"id": "b", "passed": true}\n{"id": "a", "passed": false}\n{"id": "b", "passed": false}\n'
    )
    assert fast_jsonl.parse_fast(data, source="r.jsonl", options=OPTIONS) is None


@pytest.mark.parametrize(
    "rows",
    [
        # item by item (the usual layout), epoch by epoch, and shuffled
        [(f"i{i}", e) for i in range(40) for e in range(3)],
        [(f"i{i}", e) for e in range(3) for i in range(40)],
        random.Random(2).sample([(f"i{i}", e) for i in range(40) for e in range(3)], 120),
        # items with different numbers of epochs, and an item coming back after another
        [("a", 0), ("a", 1), ("b", 0), ("a", 2), ("c", 0), ("c", 1)],
    ],
)
def test_repeats_with_compact_ids_pair_as_strings_do(rows: list[tuple[str, int]]) -> None:
    rng = np.random.default_rng(len(rows))
    lines = [
        b'{"id": "%s", "epoch": %d, "passed": %s}' % (i.encode(), e, b"true" if p else b"false")
        for (i, e), p in zip(rows, rng.integers(0, 2, len(rows)), strict=True)
    ]
    data = b"\n".join(lines) + b"\n"
    fast, slow = parse_any("b.jsonl", data, OPTIONS), general(data)
    assert isinstance(fast.ids, IdArray) and not isinstance(slow.ids, IdArray)
    other = general(b"\n".join(reversed(lines)) + b"\n")
    compact, plain = pair(fast, other), pair(slow, other)
    assert compact.ids == plain.ids and compact.fingerprint == plain.fingerprint
    assert compact.baseline.tolist() == plain.baseline.tolist()
    assert compact.epochs_baseline == plain.epochs_baseline
    packed_other = parse_any("c.jsonl", b"\n".join(reversed(lines)) + b"\n", OPTIONS)
    both = pair(fast, packed_other)
    assert isinstance(both.ids, IdArray) and both.ids == plain.ids
    assert both.candidate.tolist() == plain.candidate.tolist()


def test_a_repeated_id_and_epoch_is_left_to_the_general_path() -> None:
    data = b'{"id": "a", "epoch": 0, "passed": true}\n{"id": "b", "epoch": 0, "passed": true}\n'
    assert fast_jsonl.parse_fast(data, source="r.jsonl", options=OPTIONS) is not None
    repeated = data + b'{"id": "a", "epoch": 0, "passed": false}\n'
    assert fast_jsonl.parse_fast(repeated, source="r.jsonl", options=OPTIONS) is None
