"""Harness formats: real third-party files (tests/data, see its README) and exact messages."""

from __future__ import annotations

import gc
import hashlib
import json
from pathlib import Path

import pytest

from evalbot import formats
from evalbot.errors import InputError, PairingError
from evalbot.formats import detect, parse_any, resolve
from evalbot.formats.model import FieldNames, ReadOptions, Results
from evalbot.formats.sources import load_results
from evalbot.pairing.pair import pair
from scripts.make_swebench_reports import harness_report, matrix

DATA = Path(__file__).resolve().parents[2] / "data"
OPTIONS = ReadOptions()


def load(relative: str, options: ReadOptions = OPTIONS) -> object:
    path = DATA / relative
    return parse_any(path.name, path.read_bytes(), options)


def parse_bytes(name: str, data: bytes, options: ReadOptions = OPTIONS) -> object:
    return parse_any(name, data, options)


def message(name: str, data: bytes, options: ReadOptions = OPTIONS) -> str:
    with pytest.raises(InputError) as caught:
        parse_any(name, data, options)
    return str(caught.value)


# --- detection -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("inspect_ai/data_arc_qwen.json", "inspect"),
        ("inspect_ai/log_streaming.eval", "inspect"),
        ("lm_eval/samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl", "lm-eval"),
        ("lm_eval/results_2026-01-21T03-44-18.458309.json", "lm-eval"),
        ("promptfoo/sample-export.json", "promptfoo"),
        (
            "openai_evals/230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl",
            "openai-evals",
        ),
        ("openai_evals/self_prompting.oriprompt.log", "openai-evals"),
    ],
)
def test_detection_of_real_files(relative: str, expected: str) -> None:
    path = DATA / relative
    assert detect(path.name, path.read_bytes()).name == expected


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("inspect_ai/data_arc_qwen.json", "inspect"),
        ("inspect_ai/log_formats.json", "inspect"),
        ("lm_eval/samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl", "lm-eval"),
        ("lm_eval/results_2026-01-21T03-44-18.458309.json", "lm-eval"),
        ("promptfoo/sample-export.json", "promptfoo"),
        (
            "openai_evals/230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl",
            "openai-evals",
        ),
        ("mlflow/baseline.search_traces.json", "mlflow"),
    ],
)
def test_detection_is_by_structure_not_by_name(relative: str, expected: str) -> None:
    data = (DATA / relative).read_bytes()
    suffix = ".jsonl" if relative.endswith(".jsonl") else ".json"
    assert detect("baseline" + suffix, data).name == expected
    assert detect("no-extension", data).name == expected


def test_detection_of_written_formats() -> None:
    assert detect("report.xml", b'<?xml version="1.0"?><testsuites>').name == "junit"
    assert detect("results.json", b'{"resolved_ids": ["a"]}').name == "swebench"
    assert detect("r.jsonl", b'{"id": "a", "passed": true}').name == "default"


def test_resolve_names_aliases_and_typos() -> None:
    assert resolve("inspect_ai").name == "inspect"
    assert resolve("SWE-bench").name == "swebench"
    assert resolve("csv").name == "csv"
    with pytest.raises(InputError) as caught:
        resolve("promptfo")
    assert str(caught.value) == (
        "format: unknown format 'promptfo' (known: csv, default, helm, inspect, json, jsonl, junit, "
        "lm-eval, mlflow, openai-evals, promptfoo, swebench, tsv); did you mean 'promptfoo'?"
    )


# --- inspect_ai ------------------------------------------------------------------------------


def test_inspect_json_and_eval_of_the_same_run_agree() -> None:
    as_json = load("inspect_ai/log_formats.json")
    as_eval = load("inspect_ai/log_formats.eval")
    for results in (as_json, as_eval):
        assert results.ids == ["1"]  # type: ignore[attr-defined]
        assert results.scores.tolist() == [0.0]  # type: ignore[attr-defined]
        assert results.kind == "binary"  # type: ignore[attr-defined]


def test_inspect_epochs_are_repeats_of_one_item() -> None:
    results = load("inspect_ai/log_streaming.eval")
    rows = sorted(
        zip(results.ids, results.epochs.tolist(), results.scores.tolist(), strict=True)  # type: ignore[attr-defined]
    )
    # I/C/C/C per README section B1; reductions.json gives means 0.5 and 1.0.
    assert rows == [("1", 1, 0.0), ("1", 2, 1.0), ("2", 1, 1.0), ("2", 2, 1.0)]
    paired = pair(results, results)  # type: ignore[arg-type]
    assert paired.baseline.tolist() == [0.5, 1.0]
    assert paired.epochs_baseline == 2


def test_inspect_natural_pair_with_partly_overlapping_ids() -> None:
    qwen = load("inspect_ai/data_arc_qwen.json")
    sonnet = load("inspect_ai/data_arc_sonnet.json")
    assert qwen.scores.tolist() == [1.0, 0.0, 0.0]  # type: ignore[attr-defined]
    assert sonnet.scores.tolist() == [1.0] * 5  # type: ignore[attr-defined]
    paired = pair(qwen, sonnet, missing="drop")  # type: ignore[arg-type]
    assert paired.ids == ["1", "2", "3"]
    assert paired.dropped_candidate_only == ["4", "5"]


def test_inspect_scored_eval_has_ten_samples_at_accuracy_08() -> None:
    results = load("inspect_ai/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval")
    assert len(results) == 10  # type: ignore[arg-type]
    assert results.scores.mean() == 0.8  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        (
            "inspect_ai/2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval",
            "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval: log is not scored "
            "(no sample has scores); score it first, e.g. with `inspect score`",
        ),
        (
            "inspect_ai/log_tool_call_error.json",
            "log_tool_call_error.json: log is not scored (no sample has scores); score it first, "
            "e.g. with `inspect score`",
        ),
    ],
)
def test_inspect_unscored_logs_are_refused(relative: str, expected: str) -> None:
    path = DATA / relative
    assert message(path.name, path.read_bytes()) == expected


def _log(*samples: dict[str, object]) -> bytes:
    return json.dumps(
        {"version": 2, "status": "success", "eval": {"task": "t"}, "samples": list(samples)}
    ).encode()


def _sample(id_: object, scores: object, epoch: int = 1, **extra: object) -> dict[str, object]:
    return {"id": id_, "epoch": epoch, "scores": scores, **extra}


def test_inspect_value_mapping_and_kinds() -> None:
    letters = _log(
        *(_sample(i, {"m": {"value": v}}) for i, v in enumerate(["C", "I", "P", "N"], 1))
    )
    results = parse_bytes("log.json", letters)
    assert results.scores.tolist() == [1.0, 0.0, 0.5, 0.0]  # type: ignore[attr-defined]
    assert results.kind == "score"  # type: ignore[attr-defined]
    booleans = _log(_sample(1, {"m": {"value": True}}), _sample(2, {"m": {"value": "I"}}))
    assert parse_bytes("log.json", booleans).kind == "binary"  # type: ignore[attr-defined]


def test_inspect_scorer_choice_and_errors_column() -> None:
    data = _log(
        _sample(1, {"a": {"value": "C"}, "b": {"value": 0.25}}),
        _sample(2, None, error={"message": "boom"}),
    )
    assert message("log.json", data) == (
        "log.json: log has several scorers (a, b); choose one, e.g. --scorer a (config `scorer:`)"
    )
    results = parse_bytes("log.json", data, ReadOptions(scorer="b"))
    assert results.scores.tolist() == [0.25, 0.0]  # type: ignore[attr-defined]
    assert results.errors.tolist() == [False, True]  # type: ignore[attr-defined]
    assert message("log.json", data, ReadOptions(scorer="c")) == (
        "log.json: no scorer named 'c'; the log has a, b (choose one with --scorer NAME, "
        "config `scorer:`)"
    )
    nested = _log(_sample(1, {"m": {"value": {"acc": 1, "f1": 0.5}}}))
    assert message("log.json", nested) == (
        "log.json: sample 1: score `m` holds several values (acc, f1); choose one, e.g. "
        "--scorer m.acc (config `scorer:`)"
    )
    picked = parse_bytes("log.json", nested, ReadOptions(scorer="m.f1"))
    assert picked.scores.tolist() == [0.5]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            _log(),
            "log.json: log has no samples (status: success); was it written with --no-log-samples?",
        ),
        (
            _log(_sample(1, {"m": {"value": "X"}})),
            "log.json: sample 1: score `m` must be C/I/P/N, a boolean or a number, got 'X'",
        ),
        (
            _log(_sample(1, {"m": {"value": "C"}}), _sample(2, {"n": {"value": "C"}})),
            "log.json: log has several scorers (m, n); choose one, e.g. --scorer m "
            "(config `scorer:`)",
        ),
        (
            _log(_sample(1, {"m": {"value": "C"}}), _sample(2, {})),
            "log.json: sample 2: item '2' has no score from scorer `m`",
        ),
        (
            _log(_sample(1, {"m": {"value": "C"}}), _sample(1, {"m": {"value": "C"}})),
            "log.json: sample 2: duplicate item '1' epoch 1 (first seen at log.json: sample 1)",
        ),
        (_log(_sample(None, {"m": {"value": "C"}})), "log.json: sample 1: missing `id`"),
        (
            _log(_sample(1, {"m": {"value": "C"}}, epoch=-1)),
            "log.json: sample 1: `epoch` must be a non-negative integer, got -1",
        ),
        (
            b'{"version": 2, "status": "success", "eval": {}, "samples": 3}',
            "log.json: `samples` must be a list, got 3",
        ),
        (
            b'{"version": 2, "status": "success", "eval": {',
            "log.json:1: not valid JSON (Expecting property name enclosed in double quotes)",
        ),
    ],
)
def test_inspect_bad_input(data: bytes, expected: str) -> None:
    assert message("log.json", data, ReadOptions(format="inspect")) == expected


# --- lm-evaluation-harness -------------------------------------------------------------------

LM_NAME = "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"


def test_lm_eval_real_samples() -> None:
    results = load(f"lm_eval/{LM_NAME}")
    # One file is one task: the ids are the bare doc ids (so a renamed copy pairs with it).
    assert results.ids[:2] == ["0", "1"]  # type: ignore[attr-defined]
    assert results.kind == "binary"  # type: ignore[attr-defined]
    assert results.scores.tolist() == [0.0] * 10  # type: ignore[attr-defined]
    assert results.content_hashes[0] == (  # type: ignore[attr-defined]
        "7193b975fe3f4bf6159e1031c2f9c6ac8ee72053be21c4cdc5cc87b55924c050"
    )


def test_lm_eval_aggregate_file_is_refused_and_skipped_in_directories(tmp_path: Path) -> None:
    path = DATA / "lm_eval" / "results_2026-01-21T03-44-18.458309.json"
    assert message(path.name, path.read_bytes()) == (
        "results_2026-01-21T03-44-18.458309.json: is lm-eval's aggregate results file; use "
        "the per-item samples_<task>_<date>.jsonl written with --log_samples"
    )
    results = load_results(str(DATA / "lm_eval"), OPTIONS)
    assert len(results) == 10


def _lm_row(doc_id: int, filter_: str = "none", **metrics: object) -> str:
    metrics = metrics or {"acc": 1.0}
    row = {"doc_id": doc_id, "filter": filter_, "metrics": list(metrics), "doc_hash": f"h{doc_id}"}
    return json.dumps({**row, **metrics})


def test_lm_eval_filters_metrics_and_content_hash_check() -> None:
    two_filters = "\n".join(
        [_lm_row(0, "strict-match"), _lm_row(0, "flexible-extract", acc=0.0)]
    ).encode()
    name = "samples_gsm8k_2024-01-01T00-00-00.000000.jsonl"
    assert message(name, two_filters) == (
        f"{name}: holds several filters (strict-match, flexible-extract); choose one, e.g. "
        "--filter strict-match (config `filter:`)"
    )
    chosen = parse_bytes(name, two_filters, ReadOptions(filter="flexible-extract"))
    assert chosen.ids == ["0"]  # type: ignore[attr-defined]
    assert chosen.scores.tolist() == [0.0]  # type: ignore[attr-defined]
    several = _lm_row(0, acc=1.0, f1=0.5).encode()
    assert message(name, several) == (
        f"{name}:1: lists metrics acc, f1; choose one, e.g. --metric acc (config `metric:`)"
    )
    scored = parse_bytes(name, several, ReadOptions(metric="f1"))
    assert scored.kind == "score"  # type: ignore[attr-defined]
    assert scored.metrics["acc"].tolist() == [1.0]  # type: ignore[attr-defined]
    base = parse_bytes(name, _lm_row(0).encode())
    other = json.loads(_lm_row(0))
    other["doc_hash"] = "different"
    cand = parse_bytes("c/" + name, json.dumps(other).encode())
    with pytest.raises(PairingError) as caught:
        pair(base, cand)  # type: ignore[arg-type]
    assert str(caught.value) == (
        f"c/{name}: item '0' has content hash different but h0 in the baseline {name}; "
        "the two runs did not see the same document"
    )


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            b'{"doc_id": 0, "filter": "none", "exact_match": 1}\n',
            "s.jsonl:1: missing `metrics` (the list of per-item metric names)",
        ),
        (
            b'{"doc_id": 0, "filter": "none", "metrics": ["acc"]}\n',
            "s.jsonl:1: item '0' has no `acc`",
        ),
        (
            b'{"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 0.5}\n',
            "s.jsonl:1: `acc` must be 0 or 1, got 0.5",
        ),
        (
            b'{"doc_id": 0, "filter": "none", "metrics": ["f1"], "f1": [["a"], ["b"]]}\n',
            "s.jsonl:1: `f1` is not a per-item number (lm-eval aggregates it over the task); "
            "choose another metric with --metric NAME (config `metric:`)",
        ),
        (
            b'{"doc_id": true, "filter": "none", "metrics": ["acc"], "acc": 1}\n',
            "s.jsonl:1: `doc_id` must be a string or an integer, got True",
        ),
        (
            b'{"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": NaN}\n',
            "s.jsonl:1: `acc` must be finite, got nan",
        ),
        (b"\n", "s.jsonl: no items"),
    ],
)
def test_lm_eval_bad_input(data: bytes, expected: str) -> None:
    assert message("s.jsonl", data, ReadOptions(format="lm-eval")) == expected


# --- promptfoo -------------------------------------------------------------------------------


def test_promptfoo_real_export_keys_are_stable() -> None:
    path = DATA / "promptfoo" / "sample-export.json"
    results = parse_bytes(path.name, path.read_bytes())
    assert results.kind == "binary"  # type: ignore[attr-defined]
    assert results.scores.tolist() == [0.0] * 4  # type: ignore[attr-defined]
    assert all(" | openai:gpt-5" in i for i in results.ids)  # type: ignore[attr-defined]
    # no test has a description: each is named by its vars, not by a hash
    document = json.loads(path.read_bytes())
    expected = sorted(
        f"riddle: {row['testCase']['vars']['riddle']} | {row['provider']['id']}"
        for row in document["results"]["results"]
    )
    assert sorted(results.ids) == expected  # type: ignore[attr-defined]
    # The key ignores the per-run uuid and testIdx: shuffle rows and renumber, same ids.
    document = json.loads(path.read_bytes())
    rows = document["results"]["results"]
    for row in rows:
        row["id"] = "another-uuid"
        row["testIdx"] = 99 - row["testIdx"]
    document["results"]["results"] = rows[::-1]
    again = parse_bytes(path.name, json.dumps(document).encode())
    assert sorted(again.ids) == sorted(results.ids)  # type: ignore[attr-defined]
    scores = parse_bytes(path.name, path.read_bytes(), ReadOptions(metric="score"))
    assert scores.kind == "score"  # type: ignore[attr-defined]
    assert scores.costs is not None  # type: ignore[attr-defined]


def test_promptfoo_red_team_strategies_are_tests_of_their_own() -> None:
    # Six tests of two prompts: each prompt alone, then under the iterative and the crescendo
    # strategy (a test-level provider). Same vars, different tests: six items, no repeats.
    path = DATA / "promptfoo" / "promptfoo-action.redteam-output.json"
    document = json.loads(path.read_bytes())
    results = parse_bytes(path.name, path.read_bytes())
    assert len(set(results.ids)) == len(results.ids) == 6  # type: ignore[attr-defined]
    assert results.epochs is None  # type: ignore[attr-defined]
    metrics = document["results"]["prompts"][0]["metrics"]
    assert results.scores.sum() == metrics["testPassCount"] == 4  # type: ignore[attr-defined]
    assert sum(i.endswith("[promptfoo:redteam:crescendo]") for i in results.ids) == 2  # type: ignore[attr-defined]


def test_promptfoo_same_vars_other_asserts_are_two_tests() -> None:
    rows = [
        {**_row("a", True), "testCase": {"vars": {"riddle": "a"}, "assert": [{"type": t}]}}
        for t in ("contains", "equals")
    ]
    results = parse_bytes("out.json", _promptfoo(*rows, rows[1]))
    ids = results.ids  # type: ignore[attr-defined]
    assert ids[0] != ids[1] and ids[1] == ids[2]  # the third row repeats the second test
    assert all(i.startswith("riddle: a [") for i in ids)
    assert results.epochs.tolist() == [1, 1, 2]  # type: ignore[attr-defined]


def _promptfoo(*rows: dict[str, object]) -> bytes:
    return json.dumps({"evalId": "e", "results": {"version": 3, "results": list(rows)}}).encode()


def _row(riddle: str, success: bool, **extra: object) -> dict[str, object]:
    return {
        "vars": {"riddle": riddle},
        "provider": {"id": "p"},
        "success": success,
        "score": 1.0 if success else 0.0,
        **extra,
    }


def test_promptfoo_errors_repeats_and_named_scores() -> None:
    data = _promptfoo(
        _row("a", True, namedScores={"tone": 0.5}),
        _row("b", False, failureReason=2, error="timeout"),
        _row("a", False, namedScores={"tone": 0.25}),
    )
    results = parse_bytes("out.json", data)
    assert results.errors.tolist() == [False, True, False]  # type: ignore[attr-defined]
    assert results.epochs.tolist() == [1, 1, 2]  # type: ignore[attr-defined]
    assert results.ids[0] == results.ids[2]  # type: ignore[attr-defined]
    tone = parse_bytes(
        "out.json",
        _promptfoo(_row("a", True, namedScores={"tone": 0.5})),
        ReadOptions(metric="tone"),
    )
    assert tone.scores.tolist() == [0.5]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            b'{"evalId": "e", "results": {"results": 3}}',
            "out.json: no `results.results` list of rows (is this promptfoo output?); read as "
            "promptfoo (detected); if it is another format, force it with --format-in NAME "
            "(config `format: NAME`)",
        ),
        (
            _promptfoo({"provider": {"id": "p"}, "success": True}),
            "out.json: result 1: row has neither `vars` nor a test `description` to key it by",
        ),
        (
            _promptfoo({"vars": {}, "success": "yes"}),
            "out.json: result 1: `success` must be true/false, got 'yes'",
        ),
        (_promptfoo({"vars": {}}), "out.json: result 1: item '{}' has no `success`"),
        (_promptfoo(), "out.json: no items"),
        (_promptfoo(7), "out.json: result 1: expected an object per result, got 7"),
    ],
)
def test_promptfoo_bad_input(data: bytes, expected: str) -> None:
    assert message("out.json", data) == expected


# --- OpenAI evals ----------------------------------------------------------------------------


def test_openai_evals_match_events() -> None:
    results = load("openai_evals/230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl")
    assert results.ids == ["test-match.s1.2", "test-match.s1.1", "test-match.s1.0"]  # type: ignore[attr-defined]
    assert results.scores.tolist() == [0.0, 1.0, 0.0]  # type: ignore[attr-defined]
    assert results.kind == "binary"  # type: ignore[attr-defined]


def test_openai_evals_sample_never_graded_is_not_evaluated() -> None:
    path = DATA / "openai_evals" / "230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    graded = [line for line in lines if b'"test-match.s1.1"' in line and b'"match"' in line]
    results = parse_any(path.name, b"".join(x for x in lines if x not in graded), ReadOptions())
    assert len(graded) == 1
    assert results.ids == ["test-match.s1.2", "test-match.s1.0", "test-match.s1.1"]
    assert results.scores.tolist() == [0.0, 0.0, 0.0]
    assert results.errors is not None and results.errors.tolist() == [False, False, True]


def test_openai_evals_record_without_events_is_refused() -> None:
    path = DATA / "openai_evals" / "self_prompting.oriprompt.log"
    assert message(path.name, path.read_bytes()) == (
        "self_prompting.oriprompt.log: record log has no events (only spec/final_report), so "
        "no per-item results; rerun oaieval with --record_path"
    )


@pytest.mark.parametrize(
    ("data", "options", "expected"),
    [
        (
            b'{"spec": {}}\n{"sample_id": "s.1", "type": "sampling", "data": {}}\n',
            OPTIONS,
            "log.jsonl: no `match` events; the log has sampling events; compare a key of "
            "`metrics` events with --metric NAME (config `metric:`)",
        ),
        (
            b'{"spec": {}}\n{"sample_id": "s.1", "type": "match", "data": {"correct": 1}}\n',
            OPTIONS,
            "log.jsonl:2: `data.correct` must be true/false, got 1",
        ),
        (
            b'{"spec": {}}\n{"sample_id": "s.1", "type": "match", "data": {}}\n',
            OPTIONS,
            "log.jsonl:2: item 's.1' has no `data.correct`",
        ),
        (
            b'{"spec": {}}\n{"type": "match", "data": {"correct": true}}\n',
            OPTIONS,
            "log.jsonl:2: missing `sample_id`",
        ),
        (
            b'{"spec": {}}\n{"sample_id": "s.1", "type": "metrics", "data": {"f": "x"}}\n',
            ReadOptions(metric="f"),
            "log.jsonl:2: `data.f` must be a number, got 'x'",
        ),
    ],
)
def test_openai_evals_bad_input(data: bytes, options: ReadOptions, expected: str) -> None:
    assert message("log.jsonl", data, options) == expected


def test_openai_evals_metrics_events_and_repeats() -> None:
    data = (
        b'{"spec": {}}\n'
        b'{"sample_id": "s.1", "type": "metrics", "data": {"f": 0.5}}\n'
        b'{"sample_id": "s.1", "type": "metrics", "data": {"f": 1}}\n'
    )
    results = parse_bytes("log.jsonl", data, ReadOptions(metric="f"))
    assert results.epochs.tolist() == [1, 2]  # type: ignore[attr-defined]
    assert results.kind == "score"  # type: ignore[attr-defined]


# --- JUnit XML -------------------------------------------------------------------------------

JUNIT = b"""<?xml version="1.0" encoding="utf-8"?>
<testsuites>
  <testsuite name="unit" tests="5">
    <testcase classname="tests.test_a" name="test_pass" time="0.1"/>
    <testcase classname="tests.test_a" name="test_fail"><failure message="x"/></testcase>
    <testcase classname="tests.test_a" name="test_error"><error message="y"/></testcase>
    <testcase classname="tests.test_a" name="test_skip"><skipped/></testcase>
    <testcase name="bare"/>
  </testsuite>
</testsuites>
"""


def test_junit_outcomes() -> None:
    results = parse_bytes("report.xml", JUNIT)
    assert results.ids == [  # type: ignore[attr-defined]
        "tests.test_a::test_pass",
        "tests.test_a::test_fail",
        "tests.test_a::test_error",
        "tests.test_a::test_skip",
        "bare",
    ]
    assert results.scores.tolist() == [1.0, 0.0, 0.0, 0.0, 1.0]  # type: ignore[attr-defined]
    # an error and a skip: not evaluated
    errors = [False, False, True, True, False]
    assert results.errors.tolist() == errors  # type: ignore[attr-defined]
    assert results.slices == ["unit"] * 5  # type: ignore[attr-defined]
    single = b'<testsuite name="s"><testcase classname="c" name="n"/></testsuite>'
    assert parse_bytes("r.xml", single).ids == ["c::n"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">]>\n<testsuites/>',
            "r.xml:2: XML with a DTD or entity declaration is refused (<!DOCTYPE)",
        ),
        (
            b'<testsuites><!ENTITY x SYSTEM "file:///etc/passwd"></testsuites>',
            "r.xml:1: XML with a DTD or entity declaration is refused (<!ENTITY)",
        ),
        (
            b'<?xml version="1.0" encoding="UTF-16"?><testsuites/>',
            "r.xml: XML declares encoding 'UTF-16'; only UTF-8 is read",
        ),
        (b"<testsuites>\n<testsuite>\n</testsuites>", "r.xml:3: not valid XML (mismatched tag)"),
        (b"<html/>", "r.xml: root element is <'html'>, not <testsuites>"),
        (
            b'<testsuite><testcase classname="c"/></testsuite>',
            "r.xml: testcase 1: <testcase> has no `name`",
        ),
        (
            b'<testsuite><testcase name="a"/><testcase name="a"/></testsuite>',
            "r.xml: testcase 2: duplicate item 'a' (first seen at r.xml: testcase 1); repeats "
            "need an `epoch` field",
        ),
        (b"<testsuites/>", "r.xml: no items"),
    ],
)
def test_junit_bad_input(data: bytes, expected: str) -> None:
    assert message("r.xml", data, ReadOptions(format="junit")) == expected


def test_junit_nested_too_deep_is_refused() -> None:
    real = (DATA / "junit" / "horovod.junit.gloo.standalone.xml").read_bytes()
    head, _, body = real.partition(b"<testsuite ")
    body, _, tail = body.rpartition(b"</testsuites>")
    for depth, refused in ((190, False), (250, True)):
        nested = b"<testsuite>" * depth + b"<testsuite " + body + b"</testsuite>" * depth
        nested = head + nested + b"</testsuites>" + tail
        if refused:
            assert message("r.xml", nested) == "r.xml: XML nested deeper than 200 elements"
        else:
            assert len(parse_any("r.xml", nested, OPTIONS)) == len(
                parse_any("r.xml", real, OPTIONS)
            )


# --- resolved-id lists (SWE-bench) -----------------------------------------------------------


def test_swebench_report_with_all_ids() -> None:
    report = json.dumps(
        {
            "resolved_ids": ["a__b-1"],
            "unresolved_ids": ["a__b-2"],
            "error_ids": ["a__b-3"],
            "submitted_ids": ["a__b-1", "a__b-2", "a__b-3"],
        }
    ).encode()
    results = parse_bytes("results.json", report)
    assert results.ids == ["a__b-1", "a__b-2", "a__b-3"]  # type: ignore[attr-defined]
    assert results.scores.tolist() == [1.0, 0.0, 0.0]  # type: ignore[attr-defined]
    assert results.errors.tolist() == [False, False, True]  # type: ignore[attr-defined]
    old = b'{"resolved": ["x"]}'
    assert message("results.json", old) == (
        "results.json: lists only resolved instances, so the unresolved ones are unknown; "
        "name every instance id with --all-ids FILE (config `all_ids: FILE`; one id per line, "
        "or a JSON list)"
    )
    full = parse_bytes("results.json", old, ReadOptions(known_ids=("x", "y", "z")))
    assert full.scores.tolist() == [1.0, 0.0, 0.0]  # type: ignore[attr-defined]
    assert message("results.json", old, ReadOptions(known_ids=("y",), all_ids="ids.txt")) == (
        "results.json: instance 'x' is not in the list of all ids (ids.txt); is that list for "
        "this benchmark?"
    )
    per_instance = b'{"x": {"resolved": true}, "y": {"resolved": false}}'
    forced = parse_bytes("report.json", per_instance, ReadOptions(format="swebench"))
    assert forced.scores.tolist() == [1.0, 0.0]  # type: ignore[attr-defined]


def test_swebench_all_ids_file(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text('{"resolved": ["x"]}')
    (tmp_path / "ids.jsonl").write_text('{"instance_id": "x"}\n{"instance_id": "y"}\n')
    results = load_results(
        str(tmp_path / "results.json"), ReadOptions(all_ids=str(tmp_path / "ids.jsonl"))
    )
    assert results.ids == ["x", "y"]
    (tmp_path / "ids.txt").write_text("x\ny\nx\n")
    with pytest.raises(InputError, match=r"ids\.txt:3: item id 'x' repeats line 1$"):
        load_results(str(tmp_path / "results.json"), ReadOptions(all_ids=str(tmp_path / "ids.txt")))
    total = b'{"resolved_ids": ["x"], "unresolved_ids": ["y"], "total_instances": 300}'
    assert message("results.json", total) == (
        "results.json: names 2 instances but `total_instances` is 300; name every instance id "
        "with --all-ids FILE (config `all_ids: FILE`; one id per line, or a JSON list)"
    )


def test_names_decide_xml_and_eval() -> None:
    assert message("page.xml", b"<html/>") == (
        "page.xml: root element is <'html'>, not <testsuites>; read as junit (detected); "
        "if it is another format, force it with --format-in NAME (config `format: NAME`)"
    )
    assert message("run.eval", b'{"not": "a zip"}') == (
        "run.eval: not a valid ZIP archive (File is not a zip file)"
    )


def test_metric_passed_means_each_harness_default_outcome() -> None:
    passed = ReadOptions(metric="passed")
    promptfoo = DATA / "promptfoo" / "sample-export.json"
    assert parse_bytes(promptfoo.name, promptfoo.read_bytes(), passed).kind == "binary"  # type: ignore[attr-defined]
    assert (
        len(
            load(
                "openai_evals/230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl", passed
            )
        )
        == 3
    )  # type: ignore[arg-type]
    assert len(load(f"lm_eval/{LM_NAME}", passed)) == 10  # type: ignore[arg-type]


def test_directory_of_two_copies_of_one_inspect_run_is_refused(tmp_path: Path) -> None:
    for name in ("log_formats.json", "log_formats.eval"):
        (tmp_path / name).write_bytes((DATA / "inspect_ai" / name).read_bytes())
    with pytest.raises(InputError) as caught:
        load_results(str(tmp_path), OPTIONS)
    assert str(caught.value) == (
        f"{tmp_path}/log_formats.json: sample 1: duplicate item '1' epoch 1 "
        f"(first seen at {tmp_path}/log_formats.eval!samples/1_epoch_1.json)"
    )
    # Two different runs over overlapping ids are not shards of one run either.
    with pytest.raises(InputError, match=r"data_arc_sonnet\.json: sample 1: duplicate item '1'"):
        load_results(str(DATA / "inspect_ai" / "data_arc_*.json"), OPTIONS)


# --- SWE-bench reports in the harness's real layout --------------------------------------------


def test_real_layout_swebench_report_is_detected_by_structure() -> None:
    # A report as swebench/harness/reporting.py writes it: keys in its order, indent=4.
    data = harness_report(matrix()["20250224_tools_claude-3-7-sonnet"]).encode()
    # The old detector looked at the first 8,192 bytes (and swebench's sniff at 4,000 of
    # them); in a real report `resolved_ids` comes far later.
    assert data.index(b'"resolved_ids"') > 30_000
    for name in ("sweagent.run1.json", "report", "candidate.json"):
        assert detect(name, data).name == "swebench"
    results = parse_bytes("sweagent.run1.json", data)
    assert len(results) == 500  # type: ignore[arg-type]
    # 316 resolved / 500: the row sum, equal to the published 63.2 % (realdata pairs README).
    assert results.scores.sum() == 316  # type: ignore[attr-defined]


def test_unreadable_file_names_the_formats_tried_and_the_flag() -> None:
    assert message("report.json", b'{"resolved_count": 3, "ids": ["a"]}') == (
        'report.json: expected a JSON array of items (or {"items": [...]}); not recognised as '
        "any of inspect, lm-eval, promptfoo, openai-evals, swebench, mlflow, helm, junit, so it was "
        "read as evalbot's own format; if it is one of those, force it with --format-in NAME "
        "(config `format: NAME`)"
    )
    assert message("r.txt", b"garbage line\nx,y\n") == (
        "r.txt:2: 2 fields but the header has 1; not recognised as any of inspect, lm-eval, "
        "promptfoo, openai-evals, swebench, mlflow, helm, junit, so it was read as evalbot's own "
        "format; if it is one of those, force it with --format-in NAME (config `format: NAME`)"
    )


# --- lm-eval: ids that survive renaming ----------------------------------------------------------


def test_lm_eval_renamed_file_is_detected_and_pairs_with_the_original(tmp_path: Path) -> None:
    original = DATA / "lm_eval" / LM_NAME
    renamed = tmp_path / "candidate.jsonl"
    renamed.write_bytes(original.read_bytes())
    assert detect(renamed.name, renamed.read_bytes()).name == "lm-eval"
    base = load_results(str(original), OPTIONS)
    cand = load_results(str(renamed), OPTIONS)
    assert cand.ids == base.ids == [str(i) for i in range(10)]
    paired = pair(base, cand)
    assert len(paired) == 10  # the 10 rows of the real file (README, section B2)


def test_lm_eval_several_files_qualify_ids_by_task(tmp_path: Path) -> None:
    (tmp_path / "samples_arc_easy_2024-01-01T00-00-00.jsonl").write_text(_lm_row(0) + "\n")
    # The row's own `task` wins over the file name (a renamed file of task boolq).
    row = json.loads(_lm_row(0))
    row["task"] = "boolq"
    (tmp_path / "renamed.jsonl").write_text(json.dumps(row) + "\n")
    results = load_results(str(tmp_path), OPTIONS)
    assert sorted(results.ids) == ["arc_easy/0", "boolq/0"]
    # a third file without a task in its rows or its name keys by its stem
    (tmp_path / "other.jsonl").write_text(_lm_row(1) + "\n")
    assert sorted(load_results(str(tmp_path), OPTIONS).ids) == ["arc_easy/0", "boolq/0", "other/1"]


# --- MLflow GenAI evaluation runs ------------------------------------------------------------

MLFLOW = DATA / "mlflow"


def _trace(
    request: object,
    *assessments: dict[str, object],
    state: str = "OK",
    tag: str | None = None,
) -> dict[str, object]:
    tags = {} if tag is None else {"mlflow.eval.requestId": tag}
    return {
        "trace_id": "tr-x",
        "state": state,
        "request": request,
        "tags": tags,
        "assessments": list(assessments),
    }


def _feedback(name: str, value: object = None, **extra: object) -> dict[str, object]:
    return {"assessment_name": name, "feedback": {"value": value}, **extra}


def test_no_garbage_collection_runs_while_a_file_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A collection walks every parsed object still alive: the real run, 25 times over. The
    collections are counted inside parse_any (the one pending when the collector is switched
    back on afterwards walks nothing parsed), and the collector is on again after it."""
    rows = json.loads((MLFLOW / "baseline.search_traces.json").read_text())
    many = [
        {**row, "tags": {**row["tags"], "mlflow.eval.requestId": f"{copy}-{number}"}}
        for copy in range(25)
        for number, row in enumerate(rows)
    ]
    data = json.dumps(many).encode()
    collections: list[int] = []
    inner = formats._parse_any

    def note(phase: str, info: dict[str, int]) -> None:
        collections.append(info["generation"])

    def counted(name: str, data: bytes, options: ReadOptions) -> Results:
        gc.callbacks.append(note)
        try:
            return inner(name, data, options)
        finally:
            gc.callbacks.remove(note)

    monkeypatch.setattr(formats, "_parse_any", counted)
    results = parse_any("run.json", data, ReadOptions(scorer="passed"))
    assert len(results) == 1000
    assert collections == []
    assert gc.isenabled()


def test_mlflow_real_runs_ids_values_and_scorers() -> None:
    rows = json.loads((MLFLOW / "baseline.search_traces.json").read_text())
    assert message("baseline.json", json.dumps(rows).encode()) == (
        "baseline.json: the run has several scorers (passed, answer_length); choose one, "
        "e.g. --scorer passed (config `scorer:`)"
    )
    results = load("mlflow/baseline.search_traces.json", ReadOptions(scorer="passed"))
    assert len(results) == 40  # type: ignore[arg-type]
    assert results.kind == "binary"  # type: ignore[attr-defined]
    # The default id is MLflow's own `mlflow.eval.requestId`, sha256(str(inputs)) here.
    first = rows[0]
    assert results.ids[0] == first["tags"]["mlflow.eval.requestId"]  # type: ignore[attr-defined]
    expected_id = hashlib.sha256(str(first["request"]).encode()).hexdigest()
    assert results.ids[0] == expected_id  # type: ignore[attr-defined]
    # Pass/fail counted by hand from the file: 26 of the 40 `passed` feedbacks are true.
    passed = sum(
        a["feedback"]["value"]
        for r in rows
        for a in r["assessments"]
        if a["assessment_name"] == "passed"
    )
    assert passed == 26
    assert results.scores.sum() == 26  # type: ignore[attr-defined]
    lengths = load("mlflow/baseline.search_traces.json", ReadOptions(scorer="answer_length"))
    assert lengths.kind == "score"  # type: ignore[attr-defined]
    by_question = load(
        "mlflow/baseline.search_traces.json",
        ReadOptions(scorer="passed", fields=FieldNames(id="request.question_id")),
    )
    assert by_question.ids[:2] == ["arit-0040", "triv-0039"]  # type: ignore[attr-defined]


def test_mlflow_harness_errors_judges_and_validity() -> None:
    data = json.dumps(
        [
            _trace({"q": 1}, _feedback("ok", "yes"), _feedback("ok", "no", valid=False)),
            _trace({"q": 2}, _feedback("ok", "No")),
            # the application failed: a harness error, whatever the scorer said
            _trace({"q": 3}, _feedback("ok", "no"), state="ERROR"),
            # the scorer failed
            _trace(
                {"q": 4},
                {"assessment_name": "ok", "feedback": {"error": {"error_code": "TIMEOUT"}}},
            ),
            _trace({"q": 5}, _feedback("ok", True), {"assessment_name": "gold", "expectation": {}}),
        ]
    ).encode()
    results = parse_bytes("run.json", data)
    assert results.kind == "binary"  # type: ignore[attr-defined]
    assert results.scores.tolist() == [1.0, 0.0, 0.0, 0.0, 1.0]  # type: ignore[attr-defined]
    assert results.errors.tolist() == [False, False, True, True, False]  # type: ignore[attr-defined]
    assert results.ids[0] == hashlib.sha256(b"{'q': 1}").hexdigest()  # type: ignore[attr-defined]
    as_lines = b"\n".join(json.dumps(row).encode() for row in json.loads(data))
    assert parse_bytes("run.jsonl", as_lines).scores.tolist() == [1.0, 0.0, 0.0, 0.0, 1.0]  # type: ignore[attr-defined]


Q1 = hashlib.sha256(b"{'q': 1}").hexdigest()  # MLflow's id for inputs {"q": 1}


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (
            [_trace({"q": 1}, _feedback("ok", True), _feedback("ok", False))],
            f"run.json: row 1: item '{Q1[:36]}... has 2 valid `ok` assessments; which one "
            "counts? (mark the others invalid in MLflow)",
        ),
        (
            [_trace({"q": 1}, _feedback("ok", "maybe"))],
            "run.json: row 1: assessment `ok` must be a boolean, yes/no or a number, got 'maybe'",
        ),
        (
            [_trace({"q": 1}, _feedback("ok", True)), _trace({"q": 2}, _feedback("other", 1))],
            "run.json: the run has several scorers (ok, other); choose one, e.g. --scorer ok "
            "(config `scorer:`)",
        ),
        (
            [_trace({"q": 1}, _feedback("ok", True)), _trace({"q": 2}, tag="t-2")],
            "run.json: row 2: item 't-2' has no `ok` assessment",
        ),
        (
            [_trace({"q": 1})],
            "run.json: no row has a feedback assessment; was the run made with scorers "
            "(mlflow.genai.evaluate(..., scorers=[...]))?",
        ),
        (
            [_trace({"q": 1}, _feedback("ok", None))],
            f"run.json: row 1: item '{Q1[:36]}...: assessment `ok` has no value and no error",
        ),
        (
            [{"trace_id": "t"}, 3],
            "run.json: row 2: expected a trace record object, got 3",
        ),
    ],
)
def test_mlflow_bad_input(rows: list[object], expected: str) -> None:
    assert message("run.json", json.dumps(rows).encode(), ReadOptions(format="mlflow")) == expected


def test_mlflow_same_inputs_twice_are_repeats() -> None:
    rows = [_trace({"q": 1}, _feedback("ok", True)), _trace({"q": 1}, _feedback("ok", False))]
    results = parse_bytes("run.json", json.dumps(rows).encode())
    assert results.ids == [Q1, Q1]  # type: ignore[attr-defined]
    assert results.epochs.tolist() == [1, 2]  # type: ignore[attr-defined]


def test_mlflow_id_field_and_missing_id() -> None:
    data = json.dumps([_trace({"question_id": "a"}, _feedback("ok", True))]).encode()
    options = ReadOptions(fields=FieldNames(id="request.question_id"))
    assert parse_bytes("run.json", data, options).ids == ["a"]  # type: ignore[attr-defined]
    assert message("run.json", data, ReadOptions(fields=FieldNames(id="request.qid"))) == (
        "run.json: row 1: no `request.qid` (the id field); the record has 'trace_id', "
        "'state', 'request', 'tags', 'assessments'"
    )


# --- HELM ------------------------------------------------------------------------------------

HELM_RUNS = ("mmlu_philosophy_gpt2", "hellaswag_pythia-1b", "narrative_qa_gpt2")


def _helm_means(run: str, metric: str) -> dict[str, float]:
    """Each instance's mean of ``metric``, read with json alone."""
    entries = json.loads((DATA / "helm" / run / "per_instance_stats.json").read_text())
    return {
        e["instance_id"]: next(s["mean"] for s in e["stats"] if s["name"]["name"] == metric)
        for e in entries
    }


@pytest.mark.parametrize("run", HELM_RUNS)
def test_helm_real_runs(run: str) -> None:
    path = DATA / "helm" / run / "per_instance_stats.json"
    assert detect(path.name, path.read_bytes()).name == "helm"
    for metric, kind in (("exact_match", "binary"), ("num_prompt_tokens", "score")):
        results = parse_bytes(path.name, path.read_bytes(), ReadOptions(metric=metric))
        assert results.kind == kind  # type: ignore[attr-defined]
        got = dict(zip(results.ids, results.scores.tolist(), strict=True))  # type: ignore[attr-defined]
        assert got == _helm_means(run, metric)
        assert results.epochs is None and results.errors is None  # type: ignore[attr-defined]
    for sidecar in ("run_spec.json", "scenario_state.json"):
        side = DATA / "helm" / run / sidecar
        assert detect(side.name, side.read_bytes()).name == "helm"
        assert message(sidecar, side.read_bytes()) == (
            f"{sidecar}: is not HELM's per-item output; give the run's per_instance_stats.json "
            "(or the run directory that holds it)"
        )


def test_helm_asks_for_a_metric_and_lists_only_metrics() -> None:
    path = DATA / "helm" / "narrative_qa_gpt2" / "per_instance_stats.json"
    data = path.read_bytes()
    assert message("p.json", data) == (
        "p.json: a HELM run has several metrics (exact_match, quasi_exact_match, f1_score, "
        "rouge_l, bleu_1, bleu_4); choose one, e.g. --metric exact_match (config `metric:`)"
    )
    assert message("p.json", data, ReadOptions(metric="f1")) == (
        "p.json: no stat named 'f1' in this HELM run; its metrics: exact_match, "
        "quasi_exact_match, f1_score, rouge_l, bleu_1, bleu_4"
    )
    f1 = parse_bytes("p.json", data, ReadOptions(metric="f1_score"))
    assert f1.kind == "score"  # type: ignore[attr-defined]


def test_helm_perturbations_trials_and_instances_not_evaluated() -> None:
    def entry(trial: int, value: float | None, perturbation: object = None) -> dict[str, object]:
        stats = [{"name": {"name": "num_references"}, "count": 1, "mean": 4}]
        if value is not None:
            stats.append({"name": {"name": "exact_match"}, "count": 1, "mean": value})
        found: dict[str, object] = {
            "instance_id": "id7",
            "train_trial_index": trial,
            "stats": stats,
        }
        if perturbation is not None:
            found["perturbation"] = perturbation
        return found

    typos = {"name": "typos", "robustness": True, "fairness": False, "prob": 0.1}
    data = json.dumps(
        [entry(0, 1), entry(1, 0), entry(0, 1, typos), entry(1, None, typos)]
    ).encode()
    results = parse_bytes("per_instance_stats.json", data)
    assert results.ids == ["id7", "id7", "id7 (typos prob=0.1)", "id7 (typos prob=0.1)"]  # type: ignore[attr-defined]
    assert results.epochs.tolist() == [0, 1, 0, 1]  # type: ignore[attr-defined]
    assert results.errors.tolist() == [False, False, False, True]  # type: ignore[attr-defined]
    bad = json.dumps([{**entry(0, 1), "train_trial_index": -1}]).encode()
    assert message("p.json", bad) == (
        "p.json: instance 1: `train_trial_index` must be a non-negative integer, got -1"
    )


# --- duplicate keys ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        (
            "r.jsonl",
            b'{"id": "a", "passed": true}\n{"id": "b", "passed": false, "passed": true}\n',
            "r.jsonl:2: duplicate key 'passed' in one JSON object (refused: which one counts?)",
        ),
        (
            "r.json",
            b'[\n  {"id": "a", "passed": true},\n  {"id": "b",\n   "id": "c", "passed": true}\n]',
            "r.json:3: duplicate key 'id' in the JSON object that starts on this line "
            "(refused: which one counts?)",
        ),
        (
            "results.json",
            b'{\n "resolved_ids": ["a"],\n "unresolved_ids": ["b"],\n "resolved_ids": ["b"]\n}',
            "results.json:1: duplicate key 'resolved_ids' in the JSON object that starts on "
            "this line (refused: which one counts?)",
        ),
        (
            "r.csv",
            b"id,passed,score,passed\na,true,1,false\n",
            "r.csv:1: column 'passed' appears twice in the header (columns 2 and 4); refused: "
            "which one counts?",
        ),
    ],
)
def test_duplicate_keys_and_columns_are_refused(name: str, data: bytes, expected: str) -> None:
    assert message(name, data) == expected
    # forced formats read through the same parser
    forced = {"r.jsonl": "jsonl", "r.json": "json", "results.json": "swebench", "r.csv": "csv"}
    assert message(name, data, ReadOptions(format=forced[name])) == expected


def test_duplicate_key_in_the_line_detection_reads() -> None:
    data = b'{"id": "a", "id": "b", "passed": true}\n{"id": "c", "passed": true}\n'
    assert message("lines.json", data) == (
        "lines.json:1: duplicate key 'id' in one JSON object (refused: which one counts?)"
    )


def test_a_duplicate_key_in_a_document_msgspec_cannot_read_is_named_without_its_line() -> None:
    # The line is found from msgspec's spans of the object's path; it reads no NaN.
    data = b'[\n {"id": "a", "passed": true, "passed": false, "x": NaN}\n]'
    assert message("r.json", data) == (
        "r.json: duplicate key 'passed' in one JSON object (refused: which one counts?)"
    )
