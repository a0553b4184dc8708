"""Reading results through the command line: every hint leads to a command that works.

Each test writes files to disk and runs ``evalbot compare`` in-process through
:func:`evalbot.cli.main`; a refused file's message is parsed for the flag it suggests, and the
same command is run again with that flag, verbatim. Real third-party files come from
``tests/data`` (see its README).
"""

from __future__ import annotations

import io
import json
import math
import re
import shlex
import shutil
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest

from evalbot.cli import main
from scripts.make_swebench_reports import SYSTEMS, harness_report, matrix

DATA = Path(__file__).resolve().parent.parent / "data"
LM_NAME = "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"


@dataclass(frozen=True, kw_only=True)
class Ran:
    code: int
    out: str
    err: str

    def report(self) -> dict[str, object]:
        assert self.code in (0, 1), self.err
        report: dict[str, object] = json.loads(self.out)
        return report


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    def run(*args: str) -> Ran:
        capsys.readouterr()
        out = io.StringIO()
        code = main(list(args), out=out)
        return Ran(code=code, out=out.getvalue(), err=capsys.readouterr().err)

    return run


#: "add --passed-field correct" / "e.g. --scorer passed": the flag a message suggests.
SUGGESTED = re.compile(r"(?:add|e\.g\.) (--[a-z-]+ (?:'[^']*'|[^\s;,()]+))")


def suggestion(ran: Ran) -> list[str]:
    """The flag (and its value) a one-line refusal suggests, as shell words."""
    assert ran.code == 2, ran
    lines = ran.err.splitlines()
    assert len(lines) == 1, ran.err
    found = SUGGESTED.search(lines[0])
    assert found, lines[0]
    return shlex.split(found.group(1))


def exact_mcnemar(fixed: int, broken: int) -> float:
    """Two-sided exact binomial p-value with exact fractions (independent of scipy)."""
    n, k = fixed + broken, min(fixed, broken)
    tail = sum(Fraction(math.comb(n, i), 2**n) for i in range(k + 1))
    return float(min(Fraction(1), 2 * tail))


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


# --- field names: CSV files whose outcome column is not called `passed` -------------------------


def _csv(tmp: Path, name: str, header: str, rows: list[str]) -> str:
    return write(tmp / name, header + "\n" + "\n".join(rows) + "\n")


@pytest.mark.parametrize(
    ("column", "yes", "no", "flag"),
    [
        ("correct", "true", "false", ["--passed-field", "correct"]),
        ("result", "pass", "fail", ["--passed-field", "result"]),
        ("is correct", "1", "0", ["--passed-field", "is correct"]),
    ],
)
def test_outcome_column_hint_is_followed_verbatim(
    cli, tmp_path: Path, column: str, yes: str, no: str, flag: list[str]
) -> None:
    header = f"id,question,{column}"
    # 12 items: both pass 6, fixed 4, broken 1, both fail 1 (counted by construction)
    cells = ["pp"] * 6 + ["fp"] * 4 + ["pf"] + ["ff"]
    base = [f"q{i},text,{yes if c[0] == 'p' else no}" for i, c in enumerate(cells)]
    cand = [f"q{i},text,{yes if c[1] == 'p' else no}" for i, c in enumerate(cells)]
    b = _csv(tmp_path, "baseline.csv", header, base)
    c = _csv(tmp_path, "candidate.csv", header, cand)
    refused = cli("compare", b, c, "--format", "json")
    assert suggestion(refused) == flag
    report = cli("compare", b, c, "--format", "json", *suggestion(refused)).report()
    assert report["table"] == {"both_pass": 6, "fixed": 4, "broken": 1, "both_fail": 1}


def test_metric_key_now_reads_true_false_words(cli, tmp_path: Path) -> None:
    """`metric: correct` used to fail with "`correct` must be a number, got 'true'"."""
    b = _csv(tmp_path, "b.csv", "id,correct", ["a,true", "b,false"])
    c = _csv(tmp_path, "c.csv", "id,correct", ["a,true", "b,true"])
    config = write(tmp_path / "plan.yml", "metric: correct\n")
    report = cli("compare", b, c, "--config", config, "--format", "json").report()
    assert report["table"] == {"both_pass": 1, "fixed": 1, "broken": 0, "both_fail": 0}
    assert cli("compare", b, c, "--metric", "correct", "--format", "json").report() == report


def test_score_and_id_hints_are_followed_verbatim(cli, tmp_path: Path) -> None:
    b = _csv(tmp_path, "b.csv", "question_id,f1", ["a,0.5", "b,0.25", "c,0.75"])
    c = _csv(tmp_path, "c.csv", "question_id,f1", ["a,0.75", "b,0.5", "c,0.75"])
    first = cli("compare", b, c, "--format", "json")
    assert suggestion(first) == ["--score-field", "f1"]
    second = cli("compare", b, c, "--format", "json", *suggestion(first))
    assert suggestion(second) == ["--id-field", "question_id"]
    report = cli(
        "compare", b, c, "--format", "json", *suggestion(first), *suggestion(second)
    ).report()
    assert report["items"] == 3
    assert report["metric"] == "mean_score"
    # mean difference by hand: (0.25 + 0.25 + 0) / 3
    assert math.isclose(report["difference"]["estimate"], 0.5 / 3)  # type: ignore[index]


def test_field_flags_are_checked(cli, tmp_path: Path) -> None:
    b = _csv(tmp_path, "b.csv", "id,x", ["a,1"])
    ran = cli("compare", b, b, "--passed-field", "x", "--score-field", "x")
    assert ran.code == 2
    assert ran.err == (
        "evalbot: error: command line: `passed` and `score` both name 'x'; give each its own\n"
    )
    assert cli("compare", b, b, "--id-field", " ").code == 2


# --- the same for the harness formats -------------------------------------------------------


def test_inspect_scorer_hint(cli, tmp_path: Path) -> None:
    samples = [
        {"id": i, "epoch": 1, "scores": {"a": {"value": v}, "b": {"value": 0.5}}}
        for i, v in enumerate("CCI")
    ]
    log = {"version": 2, "status": "success", "eval": {"task": "t"}, "samples": samples}
    path = write(tmp_path / "log.json", json.dumps(log))
    refused = cli("compare", path, path, "--format", "json")
    assert suggestion(refused) == ["--scorer", "a"]
    assert (
        cli("compare", path, path, "--format", "json", *suggestion(refused)).report()["items"] == 3
    )


def test_lm_eval_filter_and_metric_hints(cli, tmp_path: Path) -> None:
    rows = [
        {"doc_id": 0, "filter": f, "metrics": ["exact_match", "f1"], "exact_match": 1.0, "f1": 0.5}
        for f in ("strict-match", "flexible-extract")
    ]
    path = write(tmp_path / "baseline.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    first = cli("compare", path, path, "--format", "json")
    assert suggestion(first) == ["--filter", "strict-match"]
    second = cli("compare", path, path, "--format", "json", *suggestion(first))
    assert suggestion(second) == ["--metric", "exact_match"]
    report = cli("compare", path, path, "--format", "json", *suggestion(first), *suggestion(second))
    assert report.report()["items"] == 1


def test_swebench_all_ids_hint(cli, tmp_path: Path) -> None:
    report = write(tmp_path / "results.json", '{"resolved": ["x"]}')
    refused = cli("compare", report, report)
    assert refused.code == 2
    assert "name every instance id with --all-ids FILE" in refused.err
    ids = write(tmp_path / "ids.txt", "x\ny\nz\n")
    ran = cli("compare", report, report, "--all-ids", ids, "--format", "json")
    assert ran.report()["items"] == 3


# --- real files end to end ---------------------------------------------------------------------


def test_real_swebench_reports_compare_without_a_flag(cli, tmp_path: Path) -> None:
    rows = matrix()
    a, b = rows["20250224_tools_claude-3-7-sonnet"], rows["20250316_augment_agent_v0"]
    ids = list(a)
    base = write(tmp_path / "claude-3-7.run1.json", harness_report(a))
    cand = write(tmp_path / "augment.run1.json", harness_report(b))
    report = cli("compare", base, cand, "--format", "json").report()
    # Counted here from the matrix, and equal to realdata's pairs/README reference table
    # (286 / 41 / 30 / 143, exact McNemar p = 0.235098).
    table = {
        "both_pass": sum(a[i] and b[i] for i in ids),
        "fixed": sum(b[i] and not a[i] for i in ids),
        "broken": sum(a[i] and not b[i] for i in ids),
        "both_fail": sum(not a[i] and not b[i] for i in ids),
    }
    assert table == {"both_pass": 286, "fixed": 41, "broken": 30, "both_fail": 143}
    assert report["table"] == table
    pvalue = report["mcnemar"]["pvalue"]  # type: ignore[index]
    assert math.isclose(pvalue, exact_mcnemar(41, 30), rel_tol=1e-9)
    assert round(pvalue, 6) == 0.235098


def test_real_mlflow_runs_pair_through_the_cli(cli, tmp_path: Path) -> None:
    base = str(DATA / "mlflow" / "baseline.search_traces.json")
    cand = str(DATA / "mlflow" / "candidate.search_traces.json")
    first = cli("compare", base, cand, "--format", "json")
    assert suggestion(first) == ["--scorer", "passed"]
    second = cli("compare", base, cand, "--format", "json", *suggestion(first))
    # The two runs are the first 40 lines of two differently ordered files: 3 ids in common.
    assert "37 only in the baseline" in second.err
    assert suggestion(second) == ["--missing", "drop"]
    args = ["compare", base, cand, "--format", "json", *suggestion(first), *suggestion(second)]
    by_hash = cli(*args).report()
    by_question = cli(*args, "--id-field", "request.question_id").report()
    # The table counted by hand from the two exports, by request.question_id.
    values = {}
    for side, path in (("b", base), ("c", cand)):
        for row in json.loads(Path(path).read_text()):
            (feedback,) = [a for a in row["assessments"] if a["assessment_name"] == "passed"]
            values.setdefault(row["request"]["question_id"], {})[side] = feedback["feedback"][
                "value"
            ]
    common = {k: v for k, v in values.items() if len(v) == 2}
    assert sorted(common) == ["code-0034", "read-0017", "triv-0039"]
    table = {
        "both_pass": sum(v["b"] and v["c"] for v in common.values()),
        "fixed": sum(v["c"] and not v["b"] for v in common.values()),
        "broken": sum(v["b"] and not v["c"] for v in common.values()),
        "both_fail": sum(not v["b"] and not v["c"] for v in common.values()),
    }
    assert table == {"both_pass": 2, "fixed": 1, "broken": 0, "both_fail": 0}
    assert by_hash["table"] == by_question["table"] == table
    assert by_question["fixed_ids"] == ["code-0034"]


def test_renamed_lm_eval_files_pair(cli, tmp_path: Path) -> None:
    real = (DATA / "lm_eval" / LM_NAME).read_text().splitlines()
    rows = [json.loads(line) for line in real]
    for row in rows[:3]:  # the candidate solves docs 0-2 (all 10 are 0.0 in the real file)
        row["exact_match"] = 1.0
    base = tmp_path / "baseline.jsonl"
    shutil.copy(DATA / "lm_eval" / LM_NAME, base)
    cand = write(tmp_path / "candidate.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    report = cli("compare", str(base), cand, "--format", "json").report()
    assert report["items"] == 10
    assert report["table"] == {"both_pass": 0, "fixed": 3, "broken": 0, "both_fail": 7}
    # The original name pairs with the renamed copy too.
    original = str(DATA / "lm_eval" / LM_NAME)
    assert cli("compare", original, cand, "--format", "json").report()["table"] == report["table"]


def test_when_nothing_pairs_the_message_says_why(cli, tmp_path: Path) -> None:
    row = json.dumps({"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 1.0})
    for side, tasks in (("base", ("arc", "boolq")), ("cand", ("mmlu", "piqa"))):
        (tmp_path / side).mkdir()
        for task in tasks:
            write(tmp_path / side / f"samples_{task}_2024-01-01T00-00-00.jsonl", row + "\n")
    ran = cli("compare", str(tmp_path / "base"), str(tmp_path / "cand"))
    assert ran.code == 2
    sources = f"{tmp_path}/cand/samples_mmlu_2024-01-01T00-00-00.jsonl, "
    assert ran.err.startswith(f"evalbot: error: {sources}")
    assert ran.err.endswith(
        ": baseline ids look like 'arc/0', 'boolq/0', candidate ids like 'mmlu/0', 'piqa/0'; "
        "the ids differ only before `/` (arc, boolq against mmlu, piqa): are these runs of the "
        "same task?\n"
    )
    a = write(tmp_path / "a.jsonl", '{"id": "x-1", "passed": true}\n')
    b = write(tmp_path / "b.jsonl", '{"id": "y-1", "passed": true}\n')
    for missing in ("error", "drop", "fail"):
        other = cli("compare", a, b, "--missing", missing)
        assert other.err == (
            f"evalbot: error: {b}: no item id in common with the baseline {a}: baseline ids "
            "look like 'x-1', candidate ids like 'y-1'; are both runs of the same eval? Pairing "
            "is by item id, never by row order: name the field that holds the id with "
            "--id-field NAME (config `fields: {id: NAME}`), or force the format with "
            "--format-in NAME\n"
        )


# --- harness errors: only a truthy error value is one ---------------------------------------------


@pytest.mark.parametrize(
    ("name", "base", "cand"),
    [
        (
            "r.jsonl",
            "".join(
                json.dumps({"id": f"q{i}", "passed": True, "error": None}) + "\n" for i in range(30)
            ),
            "".join(
                json.dumps({"id": f"q{i}", "passed": True, "error": [0, False, "", "false"][i % 4]})
                + "\n"
                for i in range(30)
            ),
        ),
        (
            "r.csv",
            "id,passed,error\n" + "".join(f"q{i},true,\n" for i in range(30)),
            "id,passed,error\n"
            + "".join(f"q{i},true,{['0', 'false', 'FALSE', 'no'][i % 4]}\n" for i in range(30)),
        ),
    ],
)
def test_error_zero_or_false_is_not_a_harness_error(
    cli, tmp_path: Path, name: str, base: str, cand: str
) -> None:
    b = write(tmp_path / f"base-{name}", base)
    c = write(tmp_path / f"cand-{name}", cand)
    report = cli("compare", b, c, "--format", "json").report()
    # Read as errors (the old rule) these 30 passes became failures: a "significant regression"
    # of 30 broken items, p = 2/2^30.
    assert report["pairing"]["errors_candidate"] == 0  # type: ignore[index]
    assert report["table"] == {"both_pass": 30, "fixed": 0, "broken": 0, "both_fail": 0}
    assert report["verdict"]["outcome"] == "no_significant_difference"  # type: ignore[index]
    # A real error still is one (two items: one errored, one did not).
    rows = [
        {"id": "q0", "passed": True, "error": "timeout"},
        {"id": "q1", "passed": True, "error": 0},
    ]
    errored = write(tmp_path / "errored.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    clean = write(
        tmp_path / "clean.jsonl", "".join(json.dumps({**r, "error": 0}) + "\n" for r in rows)
    )
    skipped = cli("compare", clean, errored, "--format", "json").report()["not_evaluated"]
    assert skipped["candidate"] == 1  # type: ignore[index]
    assert skipped["candidate_ids"] == ["q0"]  # type: ignore[index]


def test_resamples_has_an_upper_bound(cli, tmp_path: Path) -> None:
    b = write(tmp_path / "b.jsonl", '{"id": "a", "passed": true}\n')
    ran = cli("compare", b, b, "--resamples", "2000000")
    assert ran.code == 2
    assert ran.err == (
        "evalbot: error: evalbot compare: argument --resamples: must be <= "
        "1,000,000, got 2000000 (see --help)\n"
    )


def test_the_committed_swebench_reports_are_the_matrix_rows() -> None:
    """tests/data/swebench/*.report.json (the README's quick start) hold exactly the harness
    reports of two real matrix rows (written by scripts/make_swebench_reports.py)."""
    rows = matrix()
    assert sorted(SYSTEMS.values()) == [
        "openhands_devstral_small.report.json",
        "sweagent_claude3.5sonnet.report.json",
    ]
    for system, name in SYSTEMS.items():
        assert (DATA / "swebench" / name).read_text() == harness_report(rows[system])


def test_all_ids_in_the_plan_is_relative_to_the_config_file(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One rule for files the plan names: beside the config (as in the action, at the base
    commit); the --all-ids flag is relative to the current directory, as flags are."""
    (tmp_path / "evals").mkdir()
    write(tmp_path / "evals" / "plan.yml", "all_ids: ids.txt\n")
    write(tmp_path / "evals" / "ids.txt", "x\ny\nz\nw\n")
    write(tmp_path / "evals" / "base.json", '{"resolved": ["x"]}')
    write(tmp_path / "evals" / "cand.json", '{"resolved": ["x", "y"]}')
    monkeypatch.chdir(tmp_path)  # the plan is in evals/, the cwd is not
    args = ["compare", "evals/base.json", "evals/cand.json", "--format", "json"]
    report = cli(*args, "--config", "evals/plan.yml").report()
    assert report["items"] == 4
    assert report["table"] == {"both_pass": 1, "fixed": 1, "broken": 0, "both_fail": 2}
    # the flag replaces the plan's file, relative to the cwd
    write(tmp_path / "three.txt", "x\ny\nz\n")
    flagged = cli(*args, "--config", "evals/plan.yml", "--all-ids", "three.txt").report()
    assert flagged["items"] == 3
    missing = cli(*args, "--all-ids", "evals/nope.txt")
    assert missing.code == 2
    assert missing.err.strip() == (
        "evalbot: error: evals/nope.txt: no such file (named by --all-ids, which is relative "
        "to the current directory)"
    )
    write(tmp_path / "evals" / "gone.yml", "all_ids: gone.txt\n")
    gone = cli(*args, "--config", "evals/gone.yml")
    assert gone.err.strip() == (
        "evalbot: error: evals/gone.yml: `all_ids` names 'gone.txt', which does not exist "
        "(read relative to the config file)"
    )


def test_compare_reads_rates_as_percentages(cli, tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "evalbot" / "data" / "example"
    b, c = str(example / "baseline.jsonl"), str(example / "candidate.jsonl")
    percent = cli("compare", b, c, "--confidence", "90%", "--format", "json").report()
    fraction = cli("compare", b, c, "--confidence", "0.9", "--format", "json").report()
    assert percent == fraction
    assert percent["difference"]["confidence"] == 0.9
    config = write(tmp_path / "plan.yml", "alpha: 6%\nbootstrap: {confidence: 90%}\n")
    planned = cli("compare", b, c, "--config", config, "--format", "json").report()
    assert planned["test"]["alpha"] == 0.06
    assert planned["difference"]["ci"] == fraction["difference"]["ci"]
