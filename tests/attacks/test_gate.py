"""Attacks on the gate: a verdict the plan refuses must fail the check, not pass it as neutral
(GitHub counts a neutral check as passing a required one)."""

from __future__ import annotations

import json

import pytest

from tests.attacks.helpers import RESAMPLES, latest_check, plain, plan
from tests.integration.action_harness import World, example


def regression_dropping_one_item() -> str:
    """The example baseline with 120 of its 280 passing items broken (-30 pp), one item left
    out."""
    rows = [json.loads(line) for line in example("baseline").splitlines() if line.strip()]
    broken = 0
    for row in rows:
        if row["passed"] and broken < 120:
            row["passed"] = False
            broken += 1
    assert broken == 120
    return "".join(json.dumps(row) + "\n" for row in rows[1:])


@pytest.mark.parametrize("missing", ["error", "drop"])
def test_a_30_point_regression_with_one_item_dropped_fails(world: World, missing: str) -> None:
    """The candidate is 30 points worse and leaves one item out. Unguarded, both ways end
    neutral with gate `pass`: with `policy.missing: drop` the sample size was refused
    (inconclusive), with `missing: error` the baseline "had another item set"."""
    plan(world, f"policy: {{sample_size: 400, missing: {missing}}}\n" + RESAMPLES)
    world.add_baseline_run()
    (world.workspace / "results" / "candidate.jsonl").write_text(regression_dropping_one_item())
    result = world.run()
    assert result.code == 1, result.stderr
    assert (result.outputs["gate"], result.outputs["conclusion"]) == ("fail", "failure")
    assert latest_check(world, world.pull.head_sha) == "failure"
    text = plain(result.summary)
    if missing == "drop":
        assert "the plan pre-registered 400 items (policy.sample_size), this eval has 399" in text
        assert "a verdict the plan refused fails (gate.on_refused: fail)" in text
    else:
        assert "Baseline has another item set" in text


def test_fail_on_not_significant_improvement_cannot_be_bypassed_by_a_violation(
    world: World,
) -> None:
    """`gate.fail_on: not_significant_improvement` demands a significant gain. Dropping one item
    from the candidate made the baseline "have another item set", which ended neutral with
    gate `pass`: no gain needed."""
    plan(world, "gate: {fail_on: not_significant_improvement}\n" + RESAMPLES)
    world.add_baseline_run()
    rows = example("candidate").splitlines(keepends=True)
    (world.workspace / "results" / "candidate.jsonl").write_text("".join(rows[1:]))
    result = world.run()
    assert result.code == 1, result.stderr
    assert (result.outputs["gate"], result.outputs["conclusion"]) == ("fail", "failure")
    assert latest_check(world, world.pull.head_sha) == "failure"


def test_other_registered_items_fail_the_check(world: World) -> None:
    """`policy.items_sha256` registers the item set; another set was inconclusive and neutral."""
    plan(world, "policy: {items_sha256: '" + "ab" * 32 + "'}\n" + RESAMPLES)
    world.add_baseline_run()
    result = world.run()
    assert result.outputs["verdict"] == "inconclusive", result.stderr
    assert result.code == 1
    assert latest_check(world, world.pull.head_sha) == "failure"
