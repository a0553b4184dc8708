"""Items a run did not evaluate are not failures: real files of every harness, through the CLI.

Each test runs ``evalbot compare`` in process on genuine third-party files (``tests/data``, see
its README) and checks the paired table against a count made here by a separate, simple means
(sets of ids read with ``json``/``ElementTree``).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from evalbot.cli import main
from evalbot.report import text as md

DATA = Path(__file__).resolve().parent.parent / "data"
SWE = DATA / "swebench"
#: 100 instances submitted of 500; then 10 of those 100 (all unresolved or empty) re-run.
FIRST = SWE / "tdad_exp011_100_baseline.eval.json"
RERUN = SWE / "tdad_exp012d_32k_10inst.eval.json"


def compare(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    import contextlib

    with contextlib.redirect_stderr(err):
        code = main(["compare", *args], out=out)
    return code, out.getvalue(), err.getvalue()


def report(*args: str) -> dict[str, object]:
    code, out, err = compare(*args, "--format", "json")
    assert code in (0, 1), err
    result: dict[str, object] = json.loads(out)
    return result


def swebench_table(base: Path, cand: Path) -> dict[str, int]:
    """The 2x2 table over the instances both reports evaluated (completed or empty patch:
    submitted, not in error), counted with sets."""

    def evaluated(path: Path) -> tuple[set[str], set[str]]:
        d = json.loads(path.read_text())
        done = set(d["submitted_ids"]) - set(d["error_ids"])
        return done, set(d["resolved_ids"])

    done_b, pass_b = evaluated(base)
    done_c, pass_c = evaluated(cand)
    both = done_b & done_c
    return {
        "both_pass": len(both & pass_b & pass_c),
        "fixed": len((both & pass_c) - pass_b),
        "broken": len((both & pass_b) - pass_c),
        "both_fail": len(both - pass_b - pass_c),
    }


def test_swebench_rerun_of_a_subset_compares_the_items_both_evaluated() -> None:
    expected = swebench_table(FIRST, RERUN)
    assert expected == {"both_pass": 0, "fixed": 3, "broken": 0, "both_fail": 7}
    forward = report(str(FIRST), str(RERUN))
    assert forward["table"] == expected
    assert forward["items"] == 10
    backward = report(str(RERUN), str(FIRST))
    assert backward["table"] == {**expected, "fixed": 0, "broken": 3}


def test_swebench_report_names_the_items_not_evaluated() -> None:
    code, out, _ = compare(str(FIRST), str(RERUN), "--format", "markdown")
    assert code == 0
    first = json.loads(FIRST.read_text())
    rerun = json.loads(RERUN.read_text())
    only_first = sorted(set(first["submitted_ids"]) - set(rerun["submitted_ids"]))
    line = next(line for line in out.splitlines() if line.startswith("**Not evaluated:**"))
    assert line.startswith(
        f"**Not evaluated:** 490 items (never run, skipped, cancelled or a harness error), "
        f"{len(only_first)} by the candidate only and 400 by neither; left out, so the "
        "comparison is over the 10 items both runs evaluated (policy.errors: drop;"
    )
    assert f"`{only_first[0]}`, `{only_first[1]}`" in line
    assert "(90 in all)" in line
    skipped = report(str(FIRST), str(RERUN))["not_evaluated"]
    assert skipped == {
        "rule": "drop",
        "items": 490,
        "baseline": 400,
        "candidate": 490,
        "both": 400,
        "baseline_ids": [],
        "candidate_ids": only_first[:5],
    }


def test_the_leaderboard_convention_counts_them_as_failures() -> None:
    failed = report(str(FIRST), str(RERUN), "--errors", "fail")
    first = json.loads(FIRST.read_text())
    rerun = json.loads(RERUN.read_text())
    resolved_b, resolved_c = set(first["resolved_ids"]), set(rerun["resolved_ids"])
    assert failed["items"] == first["total_instances"] == 500
    assert failed["table"] == {
        "both_pass": len(resolved_b & resolved_c),
        "fixed": len(resolved_c - resolved_b),
        "broken": len(resolved_b - resolved_c),
        "both_fail": 500 - len(resolved_b | resolved_c),
    }


def test_a_plan_with_a_fixed_item_set_refuses_items_not_evaluated(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yml"
    plan.write_text("policy: {sample_size: 500}\n")
    refused = report(str(FIRST), str(RERUN), "--config", str(plan))
    assert refused["verdict"]["outcome"] == "inconclusive"  # type: ignore[index]
    assert refused["verdict"]["gate"] == "fail"  # type: ignore[index]
    assert refused["policy"]["violations"][0] == (  # type: ignore[index]
        "the plan fixes the item set (policy.sample_size), but 490 items were not evaluated "
        "(the baseline did not evaluate 400, the candidate 490): evaluate every item, or count "
        "those as failures with policy.errors: fail (--errors fail)"
    )
    counted = report(str(FIRST), str(RERUN), "--config", str(plan), "--errors", "fail")
    assert counted["policy"]["violations"] == []  # type: ignore[index]


def junit_outcomes(path: Path) -> dict[str, str]:
    """Each testcase's outcome (``classname::name``), read with ElementTree."""
    import xml.etree.ElementTree as ET

    found = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        tags = {child.tag for child in case}
        outcome = "skipped" if "skipped" in tags else "error" if "error" in tags else "pass"
        found[f"{case.get('classname')}::{case.get('name')}"] = (
            "fail" if "failure" in tags else outcome
        )
    return found


def test_junit_tests_skipped_on_one_side_are_not_evaluated() -> None:
    # horovod's test suite under gloo (17 skipped) and under MPI (1 skipped): the 16 tests gloo
    # skips are not "fixed" by MPI; neither run evaluated the 17th.
    gloo, mpi = (
        DATA / "junit/horovod.junit.gloo.standalone.xml",
        DATA / "junit/horovod.junit.mpi.standalone.xml",
    )
    base, cand = junit_outcomes(gloo), junit_outcomes(mpi)
    both = [k for k in base if base[k] in ("pass", "fail") and cand.get(k) in ("pass", "fail")]
    expected = {
        "both_pass": sum(base[k] == cand[k] == "pass" for k in both),
        "fixed": sum(base[k] == "fail" and cand[k] == "pass" for k in both),
        "broken": sum(base[k] == "pass" and cand[k] == "fail" for k in both),
        "both_fail": sum(base[k] == cand[k] == "fail" for k in both),
    }
    assert expected == {"both_pass": 80, "fixed": 0, "broken": 0, "both_fail": 0}
    result = report(str(gloo), str(mpi))
    assert result["table"] == expected
    skipped = result["not_evaluated"]
    assert skipped["baseline"] == 17 and skipped["candidate"] == 1 and skipped["both"] == 1  # type: ignore[index]
    only_gloo = sorted(k for k in base if base[k] == "skipped" and cand[k] != "skipped")
    assert skipped["baseline_ids"] == only_gloo[:5]  # type: ignore[index]


def test_inspect_samples_a_cancelled_log_lacks_are_not_evaluated(tmp_path: Path) -> None:
    # A real log of a cancelled eval (status "cancelled", 3 scheduled samples), and the same
    # log as it reads when the cancel came before sample 3 was written.
    real = DATA / "inspect_ai/2025-05-12T20-28-13-04-00_popularity.json"
    log = json.loads(real.read_text())
    assert log["status"] == "cancelled" and log["eval"]["dataset"]["sample_ids"] == [1, 2, 3]
    log["samples"] = [s for s in log["samples"] if s["id"] != 3]
    cut = tmp_path / "cancelled-early.json"
    cut.write_text(json.dumps(log))
    values = {s["id"]: s["scores"]["match"]["value"] for s in log["samples"]}
    result = report(str(real), str(cut))
    assert result["table"] == {
        "both_pass": sum(v == "C" for v in values.values()),
        "fixed": 0,
        "broken": 0,
        "both_fail": sum(v == "I" for v in values.values()),
    }
    assert result["not_evaluated"]["candidate_ids"] == ["3"]  # type: ignore[index]


def test_long_ids_are_shortened_in_the_middle_keeping_the_end(tmp_path: Path) -> None:
    # Real ids from evalbot's own pytest run (parametrized names up to 216 characters), and a
    # class name long enough that cutting the end would lose the test's name.
    long_class = "tests.integration.reports.test_container_dwell_time_analysis"
    name = "test_graph_with_many_containers_is_sorted_by_dwell_time"
    xml = (
        '<testsuite name="s">'
        f'<testcase classname="{long_class}.TestContainerDwellTimeAnalysisReport" name="{name}">'
        "<failure/></testcase></testsuite>"
    )
    (tmp_path / "after.xml").write_text(xml.replace("<failure/>", ""))
    (tmp_path / "before.xml").write_text(xml)
    code, out, _ = compare(
        str(tmp_path / "before.xml"), str(tmp_path / "after.xml"), "--format", "markdown"
    )
    assert code == 0
    shown = next(line for line in out.splitlines() if line.startswith("- tests"))
    assert "…" in shown
    assert shown.endswith(md.escape("::" + name))  # the whole test name
    code, out, _ = compare(
        str(DATA / "junit/pytest.before.xml"),
        str(DATA / "junit/pytest.after.xml"),
        "--format",
        "json",
    )
    fixed = json.loads(out)["fixed_ids"]
    code, out, _ = compare(
        str(DATA / "junit/pytest.before.xml"),
        str(DATA / "junit/pytest.after.xml"),
        "--format",
        "markdown",
    )
    lines = [line[2:] for line in out.splitlines() if line.startswith("- tests")]
    assert len(lines) == len(fixed) == 11
    for item_id, line in zip(fixed, lines, strict=True):
        if len(item_id) <= 120:
            assert line == md.escape(item_id)
        else:
            head, tail = line.split("…")
            assert md.escape(item_id).startswith(head) and md.escape(item_id).endswith(tail)
            assert len(md.escape(item_id[-79:])) <= len(tail)  # two thirds of the room: the end


def test_swebench_infra_failures_are_not_evaluated_ambiguous_ones_fail(tmp_path: Path) -> None:
    # The harness's current report (swebench/harness/reporting.py since SWE-bench PR #594) adds
    # `infra_failure_ids` and `ambiguous_failure_ids`, both drawn from the unresolved (or error)
    # instances. The real report above, with two of its unresolved instances so classified:
    written = json.loads(FIRST.read_text())
    unresolved = sorted(written["unresolved_ids"])
    infra, ambiguous = unresolved[0], unresolved[1]
    written |= {
        "infra_failure_instances": 1,
        "ambiguous_failure_instances": 1,
        "infra_failure_ids": [infra],
        "ambiguous_failure_ids": [ambiguous],
        "failure_reasons": {infra: "browser_launch_failed", ambiguous: "no_tests_collected"},
    }
    classified = tmp_path / "classified.json"
    classified.write_text(json.dumps(written, indent=4))
    result = report(str(FIRST), str(classified))
    assert result["not_evaluated"]["candidate_ids"] == [infra]  # type: ignore[index]
    assert result["items"] == 100 - 1  # the other 400 were never submitted by either run
    assert result["table"]["both_fail"] == 100 - 1 - len(written["resolved_ids"])  # type: ignore[index]


def test_all_ids_with_a_report_that_names_what_was_submitted(tmp_path: Path) -> None:
    # A list of every instance (here the 500 the reports name) with reports that say what was
    # submitted: the instances a run did not submit are not evaluated, as `incomplete_ids` says.
    first = json.loads(FIRST.read_text())
    every = sorted({i for key, ids in first.items() if key.endswith("_ids") for i in ids})
    ids = tmp_path / "verified.txt"
    ids.write_text("\n".join(every) + "\n")
    with_list = report(str(FIRST), str(RERUN), "--all-ids", str(ids))
    assert with_list["table"] == report(str(FIRST), str(RERUN))["table"]
    assert with_list["not_evaluated"]["items"] == 490  # type: ignore[index]
