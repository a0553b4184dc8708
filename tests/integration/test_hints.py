"""Every hint a refusal gives, followed on real files, leads to a correct analysis or to a
refusal that says why not.

Each case runs ``evalbot compare`` in process on genuine third-party files (``tests/data``, see
its README), takes the flag the one-line refusal suggests ("add --missing drop", "e.g. --metric
exact_match"), runs the same command again with it, verbatim, and repeats until the command
gives a report. The report's paired table is checked against a count made here with ``json``
alone; a refusal that suggests nothing must say why. No hint may name a counter, an index or an
id as the outcome.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from pathlib import Path

import pytest

from evalbot.cli import main

DATA = Path(__file__).resolve().parent.parent / "data"
#: "add --passed-field correct" / "e.g. --scorer passed" / "(--errors fail)": a suggested flag.
SUGGESTED = re.compile(r"(?:add|e\.g\.|\() ?(--[a-z-]+ (?:'[^']*'|[^\s;,()]+))")
#: What a hint must never propose as the outcome.
COUNTERS = re.compile(r"--(passed|score)-field \S*(index|idx|_id|num_|count|trial)", re.I)


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["compare", *args, "--format", "json"], out=out)
    return code, out.getvalue(), err.getvalue()


def follow(*args: str, steps: int = 4) -> tuple[list[list[str]], dict[str, object] | str]:
    """The flags followed, and the final report (or the final refusal's line)."""
    followed: list[list[str]] = []
    argv = list(args)
    for _ in range(steps):
        code, out, err = run(*argv)
        if code in (0, 1):
            report: dict[str, object] = json.loads(out)
            if report["policy"]["violations"]:  # type: ignore[index]
                line = report["policy"]["violations"][0]  # type: ignore[index]
                found = SUGGESTED.search(line)
                if found is None:
                    return followed, line
            else:
                return followed, report
        else:
            assert code == 2 and len(err.splitlines()) == 1, err
            line = err
            found = SUGGESTED.search(line)
            assert not COUNTERS.search(line), line
            if found is None:
                return followed, line
        flag = shlex.split(found.group(1))
        followed.append(flag)
        argv += flag
    raise AssertionError(f"still refused after {steps} hints: {followed}")


def table(base: dict[str, int], cand: dict[str, int]) -> dict[str, int]:
    """The paired table over the ids both sides have (1 pass, 0 fail)."""
    both = base.keys() & cand.keys()
    return {
        "both_pass": sum(base[i] == cand[i] == 1 for i in both),
        "fixed": sum(base[i] == 0 and cand[i] == 1 for i in both),
        "broken": sum(base[i] == 1 and cand[i] == 0 for i in both),
        "both_fail": sum(base[i] == cand[i] == 0 for i in both),
    }


def helm(run_dir: str, metric: str) -> dict[str, int]:
    entries = json.loads((DATA / "helm" / run_dir / "per_instance_stats.json").read_text())
    return {
        e["instance_id"]: int(next(s["mean"] for s in e["stats"] if s["name"]["name"] == metric))
        for e in entries
    }


def inspect_log(name: str) -> dict[str, int]:
    log = json.loads((DATA / "inspect_ai" / name).read_text())
    return {
        str(s["id"]): int(next(iter(s["scores"].values()))["value"] == "C") for s in log["samples"]
    }


def mlflow(name: str, scorer: str) -> dict[str, int]:
    rows = json.loads((DATA / "mlflow" / name).read_text())
    return {
        r["tags"]["mlflow.eval.requestId"]: int(
            next(a for a in r["assessments"] if a["assessment_name"] == scorer)["feedback"]["value"]
        )
        for r in rows
    }


def test_helm_metric_hint() -> None:
    run_dir = str(DATA / "helm" / "mmlu_philosophy_gpt2")  # the directory, sidecars and all
    followed, report = follow(run_dir, run_dir)
    assert followed == [["--metric", "exact_match"]]
    assert isinstance(report, dict)
    counted = helm("mmlu_philosophy_gpt2", "exact_match")
    assert report["table"] == table(counted, counted)
    assert report["items"] == 10


def test_helm_read_as_plain_json_never_proposes_its_counters() -> None:
    path = str(DATA / "helm" / "mmlu_philosophy_gpt2" / "per_instance_stats.json")
    followed, refusal = follow(path, path, "--format-in", "json")
    assert followed == []
    assert isinstance(refusal, str)
    assert "name the compared field with --passed-field NAME" in refusal


def test_inspect_missing_items_hint() -> None:
    base, cand = DATA / "inspect_ai/data_arc_qwen.json", DATA / "inspect_ai/data_arc_sonnet.json"
    followed, report = follow(str(base), str(cand))
    assert followed == [["--missing", "drop"]]
    assert isinstance(report, dict)
    assert report["table"] == table(inspect_log(base.name), inspect_log(cand.name))


def test_mlflow_scorer_then_missing_hints() -> None:
    base, cand = (
        DATA / "mlflow/baseline.search_traces.json",
        DATA / "mlflow/candidate.search_traces.json",
    )
    followed, report = follow(str(base), str(cand))
    assert followed == [["--scorer", "passed"], ["--missing", "drop"]]
    assert isinstance(report, dict)
    assert report["table"] == table(mlflow(base.name, "passed"), mlflow(cand.name, "passed"))


def test_fixed_item_set_refusal_hint(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yml"
    plan.write_text("policy: {sample_size: 500}\n")
    first = DATA / "swebench/tdad_exp011_100_baseline.eval.json"
    rerun = DATA / "swebench/tdad_exp012d_32k_10inst.eval.json"
    followed, report = follow(str(first), str(rerun), "--config", str(plan))
    assert followed == [["--errors", "fail"]]
    assert isinstance(report, dict)
    resolved = [set(json.loads(p.read_text())["resolved_ids"]) for p in (first, rerun)]
    instances = json.loads(first.read_text())["total_instances"]
    assert report["table"] == {
        "both_pass": len(resolved[0] & resolved[1]),
        "fixed": len(resolved[1] - resolved[0]),
        "broken": len(resolved[0] - resolved[1]),
        "both_fail": instances - len(resolved[0] | resolved[1]),
    }


@pytest.mark.parametrize(
    ("path", "says"),
    [
        # a matrix of systems x instances: its columns are items, not outcomes
        ("swebench/swebench_verified_matrix.excerpt.csv", "a matrix with one column per item?"),
        # a sample that errored (no score): nothing was evaluated
        ("inspect_ai/data_cvebench_empty_choices.json", "no item was evaluated by both runs"),
    ],
)
def test_refusals_that_suggest_nothing_say_why(path: str, says: str) -> None:
    followed, refusal = follow(str(DATA / path), str(DATA / path))
    assert followed == []
    assert isinstance(refusal, str) and says in refusal


def test_outcome_then_id_hints_on_a_real_file_read_as_plain_jsonl() -> None:
    # lm-eval's samples file forced as evalbot's own format: the hints name its metric as the
    # outcome (never `doc_id`), then `doc_id` as the id, and the report is lm-eval's own.
    path = DATA / "lm_eval/samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
    followed, report = follow(str(path), str(path), "--format-in", "jsonl")
    assert followed == [["--passed-field", "exact_match"], ["--id-field", "doc_id"]]
    assert isinstance(report, dict)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    counted = {str(r["doc_id"]): int(r["exact_match"]) for r in rows}
    assert report["table"] == table(counted, counted)
