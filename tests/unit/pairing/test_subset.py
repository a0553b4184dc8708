"""The sealed holdout set apart from the paired items (evalbot.pairing.subset), and the plan's
side of it (evalbot.plan.policy.analysed_items): which items each analysis reads, exact messages."""

from __future__ import annotations

import pytest

from evalbot.errors import ConfigError, PairingError
from evalbot.formats.default import parse
from evalbot.formats.model import Paired, ReadOptions, Results
from evalbot.pairing.fingerprint import fingerprint
from evalbot.pairing.pair import pair
from evalbot.pairing.subset import restrict_items
from evalbot.plan.config import parse_config
from evalbot.plan.policy import analysed_items

IDS = ["a", "b", "c", "d", "e"]
BASE = [True, False, True, False, True]
CAND = [True, True, False, False, True]


def paired() -> Paired:
    def run(outcomes: list[bool], source: str) -> Results:
        rows = (
            f'{{"id": "{i}", "passed": {str(p).lower()}}}'
            for i, p in zip(IDS, outcomes, strict=True)
        )
        return parse("\n".join(rows).encode(), source=source, options=ReadOptions())

    return pair(run(BASE, "base.jsonl"), run(CAND, "cand.jsonl"))


def test_the_regular_analysis_reads_every_item_but_the_sealed_ones() -> None:
    kept = restrict_items(paired(), ["b", "d", "zz"], holdout=False, ids_file="h.txt")
    assert kept.ids == ["a", "c", "e"]
    # every per-item column is cut alike: a, c, e of the runs above
    assert kept.baseline.tolist() == [1.0, 1.0, 1.0]
    assert kept.candidate.tolist() == [1.0, 0.0, 1.0]
    assert kept.fingerprint == fingerprint(["a", "c", "e"])


def test_the_holdout_analysis_reads_only_the_sealed_items() -> None:
    kept = restrict_items(paired(), ["d", "b", "zz"], holdout=True, ids_file="h.txt")
    assert kept.ids == ["b", "d"]
    assert kept.baseline.tolist() == [0.0, 0.0]
    assert kept.candidate.tolist() == [1.0, 0.0]


def test_nothing_sealed_present_leaves_the_items_as_they_are() -> None:
    whole = paired()
    assert restrict_items(whole, ["x", "y"], holdout=False, ids_file="h.txt") is whole


def test_a_holdout_absent_from_the_results_is_refused() -> None:
    with pytest.raises(PairingError) as caught:
        restrict_items(paired(), ["x", "y", "y"], holdout=True, ids_file="evals/h.txt")
    assert str(caught.value) == (
        "cand.jsonl: none of the 2 ids of evals/h.txt (the sealed holdout) are in the results"
    )


def test_results_that_are_all_holdout_leave_nothing_for_the_regular_analysis() -> None:
    with pytest.raises(PairingError) as caught:
        restrict_items(paired(), IDS, holdout=False, ids_file="evals/h.txt")
    assert str(caught.value) == (
        "cand.jsonl: every item is in the sealed holdout (evals/h.txt); nothing is left for "
        "the regular analysis"
    )


def test_the_plan_decides_which_ids_are_sealed() -> None:
    files = {"h.txt": "b\nd\n"}
    config = parse_config("holdout: {ids_file: h.txt}\n", "plan.yml", read_text=files.__getitem__)
    assert analysed_items(paired(), config, holdout=False).ids == ["a", "c", "e"]
    assert analysed_items(paired(), config, holdout=True).ids == ["b", "d"]
    without = parse_config("alpha: 0.05\n", "plan.yml")
    assert analysed_items(paired(), without, holdout=False).ids == IDS
    with pytest.raises(ConfigError) as caught:
        analysed_items(paired(), without, holdout=True)
    assert str(caught.value) == (
        "plan.yml: the holdout was requested but the plan has no readable `holdout.ids_file`"
    )
