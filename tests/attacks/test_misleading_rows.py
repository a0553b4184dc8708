"""Rows that read one way to a person and another to evalbot, run end to end against the fake
GitHub: a candidate row repeating a key (which value counts?) is refused naming its line,
whichever way the reader proves the other rows clean; scores whose differences barely vary
give a verdict, with d_z undefined or taken from the noncentral t's expansion, and never
start cdflib's search that runs for hours."""

from __future__ import annotations

import json
import random

import pytest

from tests.attacks.helpers import RESAMPLES, plain, plan
from tests.integration.action_harness import World

PLAIN = "".join(f'{{"id": "q{i}", "passed": {"true" if i % 2 else "false"}}}\n' for i in range(20))


@pytest.mark.parametrize(
    "first",
    [
        '{"id": "q0", "passed": false}',  # no backslash in the file: the quotes clear other rows
        '{"id": "q\\u0030", "passed": false}',  # "q0" with an escape: the keys are counted
    ],
)
def test_a_row_repeating_its_outcome_fails_the_check_naming_the_line(
    world: World, first: str
) -> None:
    plan(world, RESAMPLES)
    world.add_baseline_run(files={"b.jsonl": PLAIN})
    lines = PLAIN.splitlines()
    lines[0], lines[3] = first, '{"id": "q3", "passed": false, "passed": true}'
    (world.workspace / "results" / "candidate.jsonl").write_text("\n".join(lines) + "\n")
    result = world.run()
    assert result.code == 2 and "Traceback" not in result.stderr
    (check,) = world.repo.check_runs_for(world.pull.head_sha)
    assert (check.status, check.conclusion) == ("completed", "failure")
    message = "candidate.jsonl:4: duplicate key 'passed' in one JSON object"
    assert message in plain(check.output["summary"]) and message in plain(result.summary)
    assert not world.repo.comments_on(world.pull.number)


def scores(shift: float, noise: float) -> tuple[str, str]:
    rng = random.Random(7)
    base = [rng.random() * 0.5 for _ in range(12)]
    cand = [b + shift + noise * rng.gauss(0.0, 1.0) for b in base]
    write = "".join
    return (
        write(json.dumps({"id": f"q{i}", "score": v}) + "\n" for i, v in enumerate(base)),
        write(json.dumps({"id": f"q{i}", "score": v}) + "\n" for i, v in enumerate(cand)),
    )


@pytest.mark.parametrize(
    ("noise", "said"),
    [(0.0, "d_z is undefined"), (1e-7, "d_z = +")],  # a constant shift; one varying by 1e-7
)
def test_scores_barely_varying_give_a_verdict_without_cdflib_search(
    world: World, monkeypatch: pytest.MonkeyPatch, noise: float, said: str
) -> None:
    import scipy.special

    def refused(*args: object) -> None:
        raise AssertionError("cdflib's noncentral-t search at |t| = 1e6 runs for hours")

    monkeypatch.setattr(scipy.special, "nctdtr", refused)
    monkeypatch.setattr(scipy.special, "nctdtrinc", refused)
    baseline, candidate = scores(0.3, noise)
    plan(world, RESAMPLES)
    world.add_baseline_run(files={"b.jsonl": baseline})
    (world.workspace / "results" / "candidate.jsonl").write_text(candidate)
    result = world.run()
    assert result.code == 0, result.stderr
    assert result.outputs["verdict"] == "improvement"
    (check,) = world.repo.check_runs_for(world.pull.head_sha)
    assert check.conclusion == "success"
    assert said in plain(result.summary)
