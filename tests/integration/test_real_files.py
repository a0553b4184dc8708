"""Real files of every supported harness give the paired table an independent count gives.

Each case compares two genuine files (``tests/data``, see its README; a run with itself where
only one run of that harness is at hand) through ``evalbot compare`` in process, and counts the
table here by a separate, simple means: the file read with ``json``, ``csv``, ``zipfile`` or
``ElementTree``, each item's pass/fail taken from the field the harness documents, the items
both runs evaluated paired with sets.
"""

from __future__ import annotations

import contextlib
import io
import json
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from evalbot.cli import main

DATA = Path(__file__).resolve().parent.parent / "data"
#: item id -> 1 (pass), 0 (fail) or None (not evaluated)
Outcomes = dict[str, int | None]


def inspect_outcomes(path: Path) -> Outcomes:
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as archive:
            samples = [
                json.loads(archive.read(n))
                for n in archive.namelist()
                if n.startswith("samples/") and n.endswith(".json")
            ]
    else:
        samples = json.loads(path.read_text())["samples"]
    found: Outcomes = {}
    for s in samples:
        value = None if s.get("error") else next(iter(s["scores"].values()))["value"]
        found[str(s["id"])] = None if value is None else int(value == "C")
    return found


def lm_eval_outcomes(path: Path) -> Outcomes:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return {str(r["doc_id"]): int(r["exact_match"]) for r in rows}


def promptfoo_outcomes(path: Path) -> Outcomes:
    rows = json.loads(path.read_text())["results"]["results"]
    return {  # one item per test case and target provider
        json.dumps([r["testCase"], r["provider"]], sort_keys=True): None
        if r.get("failureReason") == 2
        else int(r["success"])
        for r in rows
    }


def openai_evals_outcomes(path: Path) -> Outcomes:
    events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {e["sample_id"]: int(e["data"]["correct"]) for e in events if e.get("type") == "match"}


def junit_outcomes(path: Path) -> Outcomes:
    found: Outcomes = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        tags = {child.tag for child in case}
        key = f"{case.get('classname')}::{case.get('name')}"
        found[key] = None if tags & {"skipped", "error"} else int("failure" not in tags)
    return found


def swebench_outcomes(path: Path) -> Outcomes:
    d = json.loads(path.read_text())
    skipped = {
        *d.get("incomplete_ids", ()),
        *d.get("error_ids", ()),
        *d.get("infra_failure_ids", ()),
    }
    every = {i for key, ids in d.items() if key.endswith("_ids") for i in ids}
    return {i: None if i in skipped else int(i in d["resolved_ids"]) for i in every}


def mlflow_outcomes(path: Path) -> Outcomes:
    found: Outcomes = {}
    for r in json.loads(path.read_text()):
        passed = next(a for a in r["assessments"] if a["assessment_name"] == "passed")
        found[r["tags"]["mlflow.eval.requestId"]] = int(passed["feedback"]["value"])
    return found


def helm_outcomes(path: Path) -> Outcomes:
    entries = json.loads((path / "per_instance_stats.json").read_text())
    return {
        e["instance_id"]: int(
            next(s["mean"] for s in e["stats"] if s["name"]["name"] == "exact_match")
        )
        for e in entries
    }


CASES: list[tuple[str, str, str, tuple[str, ...], Callable[[Path], Outcomes]]] = [
    (
        "inspect",
        "inspect_ai/data_arc_qwen.json",
        "inspect_ai/data_arc_sonnet.json",
        ("--missing", "drop"),
        inspect_outcomes,
    ),
    (
        "inspect",
        "inspect_ai/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval",
        "inspect_ai/2025-05-12T20-28-13-04-00_popularity.json",
        ("--missing", "drop"),
        inspect_outcomes,
    ),
    ("inspect", "inspect_ai/log_formats.json", "inspect_ai/log_formats.eval", (), inspect_outcomes),
    (
        "lm-eval",
        "lm_eval/samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl",
        "lm_eval/samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl",
        (),
        lm_eval_outcomes,
    ),
    (
        "promptfoo",
        "promptfoo/sample-export.json",
        "promptfoo/sample-export.json",
        (),
        promptfoo_outcomes,
    ),
    (
        "promptfoo",
        "promptfoo/promptfoo-action.redteam-output.json",
        "promptfoo/promptfoo-action.redteam-output.json",
        (),
        promptfoo_outcomes,
    ),
    (
        "openai-evals",
        "openai_evals/230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl",
        "openai_evals/230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl",
        (),
        openai_evals_outcomes,
    ),
    ("junit", "junit/pytest.before.xml", "junit/pytest.after.xml", (), junit_outcomes),
    (
        "junit",
        "junit/horovod.junit.gloo.standalone.xml",
        "junit/horovod.junit.mpi.standalone.xml",
        (),
        junit_outcomes,
    ),
    (
        "swebench",
        "swebench/sweagent_claude3.5sonnet.report.json",
        "swebench/openhands_devstral_small.report.json",
        (),
        swebench_outcomes,
    ),
    (
        "swebench",
        "swebench/tdad_exp011_100_baseline.eval.json",
        "swebench/tdad_exp012d_32k_10inst.eval.json",
        (),
        swebench_outcomes,
    ),
    (
        "mlflow",
        "mlflow/baseline.search_traces.json",
        "mlflow/candidate.search_traces.json",
        ("--scorer", "passed", "--missing", "drop"),
        mlflow_outcomes,
    ),
    (
        "helm",
        "helm/mmlu_philosophy_gpt2",
        "helm/mmlu_philosophy_gpt2",
        ("--metric", "exact_match"),
        helm_outcomes,
    ),
    (
        "helm",
        "helm/hellaswag_pythia-1b",
        "helm/hellaswag_pythia-1b",
        ("--metric", "exact_match"),
        helm_outcomes,
    ),
]


def counted(base: Outcomes, cand: Outcomes) -> dict[str, int]:
    both = {i for i in base.keys() & cand.keys() if base[i] is not None and cand[i] is not None}
    return {
        "both_pass": sum(base[i] == cand[i] == 1 for i in both),
        "fixed": sum(base[i] == 0 and cand[i] == 1 for i in both),
        "broken": sum(base[i] == 1 and cand[i] == 0 for i in both),
        "both_fail": sum(base[i] == cand[i] == 0 for i in both),
    }


@pytest.mark.parametrize(
    ("harness", "base", "cand", "flags", "outcomes"), CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES]
)
def test_real_files_give_the_independent_table(
    harness: str, base: str, cand: str, flags: tuple[str, ...], outcomes: Callable[[Path], Outcomes]
) -> None:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(
            ["compare", str(DATA / base), str(DATA / cand), *flags, "--format", "json"], out=out
        )
    assert code in (0, 1), err.getvalue()
    report = json.loads(out.getvalue())
    expected = counted(outcomes(DATA / base), outcomes(DATA / cand))
    assert report["table"] == expected
    assert report["items"] == sum(expected.values()) > 0
