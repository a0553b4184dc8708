"""Numbers too long to be a value: one line naming the file and the line, exit 2.

A 400-digit score overflowed ``float()`` and a 5,000-digit integer passed Python's 4,300-digit
conversion limit (``int()`` raises ValueError), in a results file or in ``.evalbot.yml``: both
ended as an internal error (exit 3) with the check saying "a bug of evalbot". Any integer of
more than 100 digits is now refused where it is read.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.attacks.helpers import RESAMPLES, plain, plan
from tests.integration.action_harness import World

Cli = Callable[..., subprocess.CompletedProcess[str]]
D400, D5000 = "9" * 400, "7" * 5000
BASELINE = '{"id": "a", "score": 0.5}\n{"id": "b", "score": 0.25}\n'


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "c.jsonl",
            f'{{"id": "a", "score": {D400}}}\n{{"id": "b", "score": 0.25}}\n',
            "c.jsonl:1: a number of 400 digits (more than 100): no result value is that long",
        ),
        (
            "c.jsonl",
            f'{{"id": "a", "score": 0.5}}\n{{"id": "b", "score": 0.25, "cost": {D5000}}}\n',
            "c.jsonl:2: a number of 5000 digits (more than 100): no result value is that long",
        ),
        (
            "c.jsonl",
            f'{{"id": {D5000}, "score": 0.5}}\n{{"id": "b", "score": 0.25}}\n',
            "c.jsonl:1: a number of 5000 digits (more than 100): no result value is that long",
        ),
        (
            # the same digits in a string on the line before: the number's own object is named
            "c.json",
            f'[\n {{"id": "{D5000}", "score": 0.5}},\n {{"id": "b", "score": {D5000}}}\n]\n',
            "c.json:3: a number of 5000 digits (more than 100): no result value is that long",
        ),
        (
            "c.csv",
            f"id,score,epoch\na,0.5,{D5000}\nb,0.25,1\n",
            "c.csv:2: `epoch` must be a non-negative integer, got '77777777777777777777777777777",
        ),
        (
            "c.csv",
            "id,score,epoch\na,0.5,²\nb,0.25,1\n",
            "c.csv:2: `epoch` must be a non-negative integer, got '²'",
        ),
    ],
)
def test_a_long_number_in_the_results_is_one_line(
    run_cli: Cli, tmp_path: Path, name: str, text: str, message: str
) -> None:
    (tmp_path / "b.jsonl").write_text(BASELINE)
    (tmp_path / name).write_text(text)
    result = run_cli("compare", "b.jsonl", name)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"evalbot: error: {message}")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (f"policy:\n  sample_size: {D5000}\n", "c.yml:2: a number of 5000 digits (more than 100)"),
        (f"policy:\n  sample_size: {D400}\n", "c.yml:2: a number of 400 digits (more than 100)"),
        (f"alpha: {D400}\n", "c.yml:1: a number of 400 digits (more than 100)"),
        (f"gate:\n  max_broken: -{D400}\n", "c.yml:2: a number of 400 digits (more than 100)"),
    ],
)
def test_a_long_number_in_the_plan_is_one_line(
    run_cli: Cli, tmp_path: Path, config: str, message: str
) -> None:
    (tmp_path / "b.jsonl").write_text(BASELINE)
    (tmp_path / "c.yml").write_text(config)
    result = run_cli("compare", "b.jsonl", "b.jsonl", "--config", "c.yml")
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"evalbot: error: {message}: no setting takes one that long\n"


def assert_refused(world: World, code: int, summary: str, message: str) -> None:
    assert code == 2
    (check,) = world.repo.check_runs_for(world.pull.head_sha)
    assert (check.status, check.conclusion) == ("completed", "failure")
    assert message in plain(check.output["summary"])
    assert message in plain(summary)
    assert "internal error" not in summary


def test_a_400_digit_score_in_the_candidate_fails_the_check_saying_where(world: World) -> None:
    plan(world, RESAMPLES)
    world.add_baseline_run(files={"b.jsonl": BASELINE})
    (world.workspace / "results" / "candidate.jsonl").write_text(
        f'{{"id": "a", "score": 0.5}}\n{{"id": "b", "score": {D400}}}\n'
    )
    result = world.run()
    assert "Traceback" not in result.stderr
    message = "/results/candidate.jsonl:2: a number of 400 digits (more than 100)"
    assert_refused(world, result.code, result.summary, message)


def test_a_5000_digit_sample_size_in_the_plan_fails_the_check_saying_where(world: World) -> None:
    plan(world, f"policy:\n  sample_size: {D5000}\n" + RESAMPLES)
    world.add_baseline_run()
    result = world.run()
    assert "Traceback" not in result.stderr
    message = f".evalbot.yml@{world.base[:7]}:2: a number of 5000 digits (more than 100)"
    assert_refused(world, result.code, result.summary, message)
