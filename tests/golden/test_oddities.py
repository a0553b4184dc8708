"""Reports of real result files (and two written here), byte for byte, where the report once
read oddly: each golden beside a focused assertion of what must never come back. Rewrite the
goldens with ``pytest tests/golden --update-golden`` after reviewing the diff."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from evalbot.cli import main
from tests.golden.test_golden import check

HERE = Path(__file__).parent
REPO = HERE.parents[1]


def report(cwd: Path, *args: str) -> str:
    """``evalbot compare ARGS`` run in ``cwd`` (file names as given, so the golden is stable)."""
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        code = main(["compare", *args], out=out)
    assert code in (0, 1)
    return out.getvalue()


def write_pass_fail(folder: Path, cells: dict[str, int]) -> None:
    """baseline.jsonl and candidate.jsonl with these paired counts."""
    outcomes = {
        "both_pass": (True, True),
        "fixed": (False, True),
        "broken": (True, False),
        "both_fail": (False, False),
    }
    rows = [outcomes[cell] for cell, count in cells.items() for _ in range(count)]
    for side, name in ((0, "baseline.jsonl"), (1, "candidate.jsonl")):
        lines = (json.dumps({"id": f"q{i:04d}", "passed": r[side]}) for i, r in enumerate(rows))
        (folder / name).write_text("\n".join(lines) + "\n")


def test_one_item_gives_an_axis_within_100_pp(update_golden: bool) -> None:
    """inspect_ai's one-sample log (tests/data/README.md) compared with itself: Tango's interval
    is [-100, +100] pp, and the axis drawn under it stops there."""
    log = "tests/data/inspect_ai/log_formats.json"
    text = report(REPO, log, log)
    check(HERE / "one_item.txt", text, update_golden)
    (axis,) = [line for line in text.splitlines() if "━" in line]
    assert axis.split()[:2] == ["-100", "pp"] and axis.split()[-2:] == ["+100", "pp"]


def test_scores_too_few_to_bound_the_change(update_golden: bool, tmp_path: Path) -> None:
    """MLflow's `answer_length` on the 3 items both real runs share, and a one-item score log:
    the sign-flip test cannot reject any shift, so the interval is unbounded, said in words."""
    traces = (
        "tests/data/mlflow/baseline.search_traces.json",
        "tests/data/mlflow/candidate.search_traces.json",
    )
    text = report(REPO, *traces, "--scorer", "answer_length", "--missing", "drop")
    check(HERE / "unbounded_scores.txt", text, update_golden)
    first = text.splitlines()[0]
    assert first.startswith("No significant difference: ±0.000 [unbounded: too few items]  (")
    (tmp_path / "b.jsonl").write_text('{"id": "only", "score": 0.5}\n')
    (tmp_path / "c.jsonl").write_text('{"id": "only", "score": 0.73}\n')
    one = report(tmp_path, "b.jsonl", "c.jsonl").splitlines()
    assert one[0] == (
        "No significant difference: +0.230 [unbounded: too few items]  (exact sign-flip p = 1; "
        "gate pass)"
    )
    assert "∞" not in "\n".join(one)


def test_a_bound_near_zero_keeps_its_sign(update_golden: bool, tmp_path: Path) -> None:
    """1 fixed, 8 broken of 500: Tango's interval ends at -0.032 pp, which must read neither
    "-0.0" nor sit on the zero tick while the text says the interval excludes zero."""
    write_pass_fail(tmp_path, {"both_pass": 441, "fixed": 1, "broken": 8, "both_fail": 50})
    text = report(tmp_path, "baseline.jsonl", "candidate.jsonl")
    check(HERE / "bound_near_zero.txt", text, update_golden)
    first = text.splitlines()[0]
    assert first.startswith("Regression: -1.4 pp [-3.2, -0.03]  (McNemar (exact) p = 0.039;")
    assert "-0.0]" not in text and "the 95 % interval excludes zero" in text
    (axis,) = [line for line in text.splitlines() if "━" in line]
    assert "]┼" in axis and "╋" not in axis  # the bracket stops before the zero tick


def test_one_slice_is_no_table(update_golden: bool) -> None:
    """The two real JUnit reports hold one test suite (`pytest`), the whole eval: no "By
    slice" table of one row that repeats the verdict."""
    junit = "tests/data/junit/pytest.before.xml", "tests/data/junit/pytest.after.xml"
    markdown = report(REPO, *junit, "--format", "markdown")
    check(HERE / "one_slice.comment.md", markdown, update_golden)
    assert "By slice" not in markdown
    assert "By slice" not in report(REPO, *junit)
    assert json.loads(report(REPO, *junit, "--format", "json"))["slices"] == []


def test_no_cost_recorded_is_no_cost_line(update_golden: bool) -> None:
    """promptfoo writes `cost: 0` when a provider reports none (the real red-team output): no
    "Cost per solved task: 0 → 0" line, and no cost in the JSON."""
    redteam = "tests/data/promptfoo/promptfoo-action.redteam-output.json"
    text = report(REPO, redteam, redteam)
    check(HERE / "no_cost.txt", text, update_golden)
    assert "Cost" not in text
    assert json.loads(report(REPO, redteam, redteam, "--format", "json"))["cost_per_solved"] is None
    # a run that did record costs still gets its line
    sample = "tests/data/promptfoo/sample-export.json"
    assert "total cost 0.003981 → 0.003981" in report(REPO, sample, sample)


def test_powerless_is_said_plainly(update_golden: bool) -> None:
    """inspect_ai's two real arc_easy logs share 3 items: no outcome could be significant,
    which the verdict line says in those words."""
    logs = "tests/data/inspect_ai/data_arc_qwen.json", "tests/data/inspect_ai/data_arc_sonnet.json"
    markdown = report(REPO, *logs, "--missing", "drop", "--format", "markdown")
    check(HERE / "powerless.comment.md", markdown, update_golden)
    headline = markdown.splitlines()[0]
    assert "powerless" not in headline
    assert " · no outcome could be significant · " in headline
