"""Pairing by id, repeats averaged per item, and the three `missing` policies."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import numpy as np
import pytest

from evalbot.errors import InputError, PairingError
from evalbot.formats.default import parse
from evalbot.formats.model import Paired, ReadOptions, Results
from evalbot.formats.sources import merge
from evalbot.pairing.fingerprint import fingerprint
from evalbot.pairing.pair import group_rows, pair


def results(text: str, source: str = "r.jsonl") -> Results:
    return parse(text.encode(), source=source, options=ReadOptions())


BASE = results(
    '{"id": "a", "passed": true}\n{"id": "b", "passed": false}\n{"id": "c", "passed": true}\n',
    "base.jsonl",
)


def test_pairs_by_id_not_row_order() -> None:
    cand = results(
        '{"id": "c", "passed": false}\n{"id": "a", "passed": true}\n{"id": "b", "passed": true}\n',
        "cand.jsonl",
    )
    paired = pair(BASE, cand)
    assert paired.ids == ["a", "b", "c"]
    assert paired.baseline.tolist() == [1.0, 0.0, 1.0]
    assert paired.candidate.tolist() == [1.0, 1.0, 0.0]
    assert paired.kind == "binary"


def test_missing_error_lists_counts_and_first_ids() -> None:
    cand = results('{"id": "a", "passed": true}\n{"id": "z", "passed": true}\n', "cand.jsonl")
    with pytest.raises(PairingError) as caught:
        pair(BASE, cand)
    assert str(caught.value) == (
        "cand.jsonl: items differ from base.jsonl: 2 only in the baseline ('b', 'c'); "
        "1 only in the candidate ('z') (to allow this, add --missing drop or --missing fail, "
        "config `policy.missing`)"
    )


def test_missing_drop_and_fail() -> None:
    cand = results('{"id": "a", "passed": true}\n{"id": "z", "passed": true}\n', "cand.jsonl")
    dropped = pair(BASE, cand, missing="drop")
    assert dropped.ids == ["a"]
    assert dropped.dropped_baseline_only == ["b", "c"]
    assert dropped.dropped_candidate_only == ["z"]
    failed = pair(BASE, cand, missing="fail")
    assert failed.ids == ["a", "b", "c", "z"]
    assert failed.baseline.tolist() == [1.0, 0.0, 1.0, 0.0]
    assert failed.candidate.tolist() == [1.0, 0.0, 0.0, 1.0]
    assert failed.filled_as_failures == 3


def test_no_common_items() -> None:
    cand = results('{"id": "z", "passed": true}\n', "cand.jsonl")
    with pytest.raises(PairingError, match="no item id in common"):
        pair(BASE, cand, missing="drop")


def test_repeats_are_averaged_per_item() -> None:
    base = results(
        "\n".join(
            f'{{"id": "{i}", "epoch": {e}, "passed": {str(p).lower()}}}'
            for i, e, p in [("a", 1, True), ("a", 2, False), ("b", 1, True), ("b", 2, True)]
        )
    )
    cand = results('{"id": "a", "passed": true}\n{"id": "b", "passed": false}\n')
    paired = pair(base, cand)
    assert paired.baseline.tolist() == [0.5, 1.0]
    assert paired.kind == "score"
    assert paired.pass_fail
    assert paired.epochs_baseline == 2
    assert len(paired) == 2  # repeats never become extra items


def test_kind_mismatch_between_sides() -> None:
    cand = results(
        '{"id": "a", "score": 0.5}\n{"id": "b", "score": 1}\n{"id": "c", "score": 0}\n',
        "cand.jsonl",
    )
    with pytest.raises(PairingError, match="compares a score metric but the baseline"):
        pair(BASE, cand)


def test_fingerprint_is_sha256_of_sorted_ids() -> None:
    expected = hashlib.sha256(b"a\nb\nc\n").hexdigest()
    assert fingerprint(["c", "a", "b"]) == expected
    assert pair(BASE, BASE).fingerprint == expected


def test_merge_shards_and_refuse_duplicates_across_shards() -> None:
    one = results('{"id": "a", "passed": true}\n', "s1.jsonl")
    two = results('{"id": "b", "passed": false}\n', "s2.jsonl")
    merged = merge([one, two])
    assert merged.ids == ["a", "b"]
    duplicate = r"^s2\.jsonl:1: duplicate item 'a' \(first seen at s1\.jsonl:1\)"
    with pytest.raises(InputError, match=duplicate):
        merge([one, results('{"id": "a", "passed": true}\n', "s2.jsonl")])


def test_merge_distinct_epochs_across_shards() -> None:
    one = results('{"id": "a", "passed": true, "epoch": 1}\n', "s1.jsonl")
    two = results('{"id": "a", "passed": false, "epoch": 2}\n', "s2.jsonl")
    merged = merge([one, two])
    assert merged.epochs is not None
    assert merged.epochs.tolist() == [1, 2]


def test_errors_are_kept_apart_and_counted() -> None:
    base = results(
        '{"id": "a", "passed": true}\n{"id": "b", "passed": null, "error": "timeout"}\n'
        '{"id": "c", "passed": true}\n',
        "base.jsonl",
    )
    paired = pair(base, BASE)
    assert paired.baseline_errors is not None
    assert paired.baseline_errors.tolist() == [False, True, False]
    assert paired.errors_baseline == 1
    assert paired.errors_candidate == 0
    assert paired.candidate_errors is None


def test_fingerprint_includes_content_hashes() -> None:
    assert fingerprint(["b", "a"], ["hb", None]) == hashlib.sha256(b"a\t\nb\thb\n").hexdigest()
    assert fingerprint(["b", "a"], [None, None]) == fingerprint(["a", "b"])


def test_output_is_sorted_whatever_the_row_order() -> None:
    ids = [f"q{i}" for i in (5, 3, 9, 1, 7)]
    base = results("\n".join(f'{{"id": "{i}", "passed": true}}' for i in ids), "base.jsonl")
    cand = results(
        "\n".join(f'{{"id": "{i}", "passed": false}}' for i in reversed(ids)), "cand.jsonl"
    )
    paired = pair(base, cand)
    assert paired.ids == sorted(ids)
    assert paired.baseline.tolist() == [1.0] * 5
    assert paired.candidate.tolist() == [0.0] * 5


def test_locate_matches_an_exact_dict_join() -> None:
    from evalbot.pairing.pair import locate, locate_exact

    keys = ["a", "b", "c", "é", "\U0001f600"]
    queries = ["c", "z", "a", "\U0001f600", ""]
    assert locate(keys, queries).tolist() == locate_exact(keys, queries).tolist()
    assert locate(keys, queries).tolist() == [2, -1, 0, 4, -1]
    assert locate([], ["a"]).tolist() == [-1]


# --- against pairing written as plain dictionaries -------------------------------------------


def columns(ids: list[str], values: list[float], **extra: Any) -> Results:
    return Results(
        source="r", ids=ids, scores=np.asarray(values, dtype=np.float64), kind="binary", **extra
    )


def reference_pair(
    base: Results, cand: Results, missing: str
) -> tuple[list[str], list[float], list[float], list[Any]]:
    """The pairing written as plain dictionaries: the reference."""
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
    base = columns(ids, [rng.random() < 0.5 for _ in ids])
    cand = columns(list(ids), [rng.random() < 0.5 for _ in ids])
    check_pair(base, cand)
    unsorted = list(reversed(ids))  # the same order on both sides, not sorted: sorted here
    check_pair(
        columns(unsorted, base.scores.tolist()), columns(list(unsorted), cand.scores.tolist())
    )


@pytest.mark.parametrize("case", ["one swap", "one id differs", "one more row", "shuffled"])
@pytest.mark.parametrize("missing", ["error", "fail", "drop"])
def test_pairing_when_the_order_or_the_ids_differ_equals_the_reference(
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
    base = columns(ids, [rng.random() < 0.5 for _ in ids], slices=slices)
    cand = columns(
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
    base = columns(ids, [1, 0, 1], slices=["x", None, "y"])
    cand = columns(list(ids), [1, 1, 0])
    assert check_pair(base, cand).slices == ["x", None, "y"]
    assert check_pair(cand, base).slices == ["x", None, "y"]


@pytest.mark.parametrize(
    ("ids", "expected", "items"),
    [
        (["b", "a", "b", "c", "a", "b"], [0, 1, 0, 2, 1, 0], ["b", "a", "c"]),  # interleaved
        (["b", "b", "a", "a", "a", "c"], [0, 0, 1, 1, 1, 2], ["b", "a", "c"]),  # item by item
        (["a", "a", "b", "a"], [0, 0, 1, 0], ["a", "b"]),  # an item's rows in two runs
    ],
)
def test_grouping_rows_in_first_seen_order(
    ids: list[str], expected: list[int], items: list[str]
) -> None:
    rows, first = group_rows(ids)
    assert rows.tolist() == expected
    assert [ids[row] for row in first] == items


def test_locate_holds_a_few_bytes_a_row_and_leaves_one_copy_of_each_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import random
    import tracemalloc

    from evalbot.pairing import pair
    from evalbot.pairing.pair import locate

    n = 100_000
    monkeypatch.setattr(pair, "_BLOCK", n // 16)  # many blocks, as at millions of ids
    keys = [f"q-{i:07d}" for i in range(n)]
    queries = [f"q-{i:07d}" for i in random.Random(0).sample(range(n), n)]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        found = locate(keys, queries)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    # the hashes, the keys' order and the positions, no order of all queries, no object or list
    # of every id
    assert peak < 32 * n
    assert all(queries[i] is keys[k] for i, k in enumerate(found.tolist()))


def test_locate_checks_every_match_exactly() -> None:
    from evalbot.pairing.pair import locate

    keys, queries = ["a", "b", "c"], ["c", "d", "a"]
    # hashes that claim "d" is "b": the comparison of the matched strings catches it, and the
    # dict join decides
    fake_keys = np.array([1, 2, 3], dtype=np.int64)
    fake_queries = np.array([3, 2, 1], dtype=np.int64)
    found = locate(keys, queries, key_hashes=fake_keys, query_hashes=fake_queries)
    assert found.tolist() == [2, -1, 0]
    # two keys sharing a hash: the dict join
    same = np.zeros(3, dtype=np.int64)
    assert locate(keys, queries, key_hashes=same).tolist() == [2, -1, 0]
