"""The plan's rules as truth tables: (plan, observed results, earlier looks) -> decision.

Every comparison is made by the real pipeline (result files on disk -> load_results -> pair ->
analysed_items -> compute_comparison), never by a mock. Reference p-values: the worked example
(31 fixed, 14 broken of 400) has exact McNemar p = 2 P(X <= 14), X ~ Bin(45, 1/2) = 0.01609
(tests/integration/test_cli.py recomputes it with exact fractions).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from evalbot.compare import compute_comparison
from evalbot.compare.records import Comparison
from evalbot.errors import ConfigError
from evalbot.formats.model import ReadOptions
from evalbot.formats.sources import load_results
from evalbot.pairing.fingerprint import fingerprint
from evalbot.pairing.pair import pair
from evalbot.plan.config import Config, parse_config
from evalbot.plan.ledger import Look, State, parse_state, render_state
from evalbot.plan.policy import Decision, analysed_items, evaluate, next_state
from evalbot.report.json_report import build_json
from evalbot.report.words import word_disclosure, word_plan, word_reasons
from tests.power_reference import scipy_power

WORKED = {"both_pass": 266, "fixed": 31, "broken": 14, "both_fail": 89}  # p = 0.01609
REGRESS = {"both_pass": 266, "fixed": 14, "broken": 31, "both_fail": 89}
NULL = {"both_pass": 266, "fixed": 20, "broken": 20, "both_fail": 94}  # p = 1
SMALL_WIN = {"both_pass": 30, "fixed": 8, "broken": 1, "both_fail": 11}  # 50 items, p = 20/512
SMALL_BIG_WIN = {"both_pass": 30, "fixed": 9, "broken": 0, "both_fail": 11}  # p = 2/512
SMALL_LOSS = {"both_pass": 30, "fixed": 0, "broken": 9, "both_fail": 11}
PLANNED_367 = {"both_pass": 245, "fixed": 29, "broken": 9, "both_fail": 84}
TEN_NIL = {"both_pass": 30, "fixed": 10, "broken": 0, "both_fail": 10}  # SPRT p = 11/1024

FAST = "bootstrap: {resamples: 2000, seed: 1}\n"


def ids_for(cells: dict[str, int]) -> list[str]:
    return [f"item-{n:05d}" for n in range(1, sum(cells.values()) + 1)]


def build(
    tmp: Path,
    cells: dict[str, int],
    plan: str = "",
    *,
    files: dict[str, str] | None = None,
    holdout: bool = False,
) -> tuple[Comparison, Config]:
    """Write the two runs, parse the plan, and run the real pipeline."""
    base, cand = [], []
    number = 0
    for cell, count in cells.items():
        for _ in range(count):
            number += 1
            item = f"item-{number:05d}"
            base.append({"id": item, "passed": cell in ("both_pass", "broken")})
            cand.append({"id": item, "passed": cell in ("both_pass", "fixed")})
    (tmp / "baseline.jsonl").write_text("".join(json.dumps(r) + "\n" for r in base))
    (tmp / "candidate.jsonl").write_text("".join(json.dumps(r) + "\n" for r in cand[::-1]))
    files = files or {}
    config = parse_config(FAST + plan, "plan.yml", read_text=lambda name: files[name])
    options = ReadOptions(fields=config.fields, metric=config.metric, format=config.format)
    paired = pair(
        load_results(str(tmp / "baseline.jsonl"), options),
        load_results(str(tmp / "candidate.jsonl"), options),
        missing=config.policy.missing,
    )
    paired = analysed_items(paired, config, holdout=holdout)
    return compute_comparison(paired, config), config


@dataclass(frozen=True)
class Row:
    name: str
    cells: dict[str, int]
    plan: str
    outcome: str
    gate: str
    conclusion: str
    reason: str  # a substring of one of the reasons
    files: dict[str, str] = field(default_factory=dict)


WORKED_IDS = "\n".join(ids_for(WORKED)) + "\n"
OTHER_IDS = "\n".join([*ids_for(WORKED)[:-1], "item-99999"]) + "\n"

# -- rules 1-3: the plan's size and item set; rule 9: the gate --------------------------------
PLAN_TABLE = [
    Row(
        "no plan: improvement",
        WORKED,
        "",
        "improvement",
        "pass",
        "success",
        "McNemar (exact): p = 0.01609 is at or below alpha = 0.05",
    ),
    Row(
        "no plan: regression fails",
        REGRESS,
        "",
        "regression",
        "fail",
        "failure",
        "gate: a significant regression fails",
    ),
    Row(
        "no plan: no difference",
        NULL,
        "",
        "no_significant_difference",
        "pass",
        "success",
        "p = 1 is above alpha = 0.05",
    ),
    Row(
        "sample size as planned",
        WORKED,
        "policy: {sample_size: 400}",
        "improvement",
        "pass",
        "success",
        "p = 0.01609",
    ),
    Row(
        "sample size differs",
        WORKED,
        "policy: {sample_size: 500}",
        "inconclusive",
        "fail",
        "failure",
        "the plan pre-registered 500 items (policy.sample_size), this eval has 400: run the registered 500 items",
    ),
    Row(
        "sample size differs, refusal fails the gate",
        WORKED,
        "policy: {sample_size: 500}",
        "inconclusive",
        "fail",
        "failure",
        "gate: a verdict the plan refused fails (gate.on_refused: fail)",
    ),
    Row(
        "sample size differs, on_refused: neutral",
        WORKED,
        "policy: {sample_size: 500}\ngate: {on_refused: neutral}",
        "inconclusive",
        "pass",
        "neutral",
        "the plan pre-registered 500 items (policy.sample_size), this eval has 400: run the registered 500 items",
    ),
    Row(
        "planned from rates, size differs",
        WORKED,
        "plan: {fix_rate: 0.08, break_rate: 0.03}",
        "inconclusive",
        "fail",
        "failure",
        "pre-registered 367",
    ),
    Row(
        "planned from rates, size as planned",
        PLANNED_367,
        "plan: {fix_rate: 0.08, break_rate: 0.03}",
        "improvement",
        "pass",
        "success",
        "McNemar (exact)",
    ),
    Row(
        "registered items match",
        WORKED,
        "policy: {items_file: ids.txt}",
        "improvement",
        "pass",
        "success",
        "p = 0.01609",
        {"ids.txt": WORKED_IDS},
    ),
    Row(
        "registered items differ",
        WORKED,
        "policy: {items_file: ids.txt}",
        "inconclusive",
        "fail",
        "failure",
        "is not the pre-registered one",
        {"ids.txt": OTHER_IDS},
    ),
    Row(
        "registered hash matches",
        WORKED,
        f"policy: {{items_sha256: '{fingerprint(ids_for(WORKED))}'}}",
        "improvement",
        "pass",
        "success",
        "p = 0.01609",
    ),
    Row(
        "fail_on not_significant_improvement, null",
        NULL,
        "gate: {fail_on: not_significant_improvement}",
        "no_significant_difference",
        "fail",
        "failure",
        "anything but a significant improvement fails",
    ),
    Row(
        "fail_on not_significant_improvement, win",
        WORKED,
        "gate: {fail_on: not_significant_improvement}",
        "improvement",
        "pass",
        "success",
        "p = 0.01609",
    ),
    Row(
        "fail_on not_significant_improvement, inconclusive",
        WORKED,
        "policy: {sample_size: 500}\ngate: {fail_on: not_significant_improvement}",
        "inconclusive",
        "fail",
        "failure",
        "anything but a significant improvement fails",
    ),
    Row(
        "fail_on never, regression",
        REGRESS,
        "gate: {fail_on: never}",
        "regression",
        "pass",
        "success",
        "p = 0.01609",
    ),
    Row(
        "max_broken count exceeded",
        WORKED,
        "gate: {max_broken: 10}",
        "improvement",
        "fail",
        "failure",
        "14 items broke, more than gate.max_broken = 10",
    ),
    Row(
        "max_broken count kept",
        WORKED,
        "gate: {max_broken: 14}",
        "improvement",
        "pass",
        "success",
        "p = 0.01609",
    ),
    Row(
        "max_broken rate kept",
        WORKED,
        "gate: {max_broken: 5%}",
        "improvement",
        "pass",
        "success",
        "p = 0.01609",
    ),
    Row(
        "max_broken rate exceeded",
        WORKED,
        "gate: {max_broken: 3%}",
        "improvement",
        "fail",
        "failure",
        "14 items broke, more than gate.max_broken = 3% of 400 = 12",
    ),
    Row(
        "max_broken as a fraction",
        WORKED,
        "gate: {max_broken: 0.03}",
        "improvement",
        "fail",
        "failure",
        "more than gate.max_broken = 3% of 400 = 12",
    ),
    # NULL: the 95% CI of the difference is about 0 +- 3.1 pp (se = sqrt(40/400 / 400) = 1.6 pp)
    Row(
        "margin not shown",
        NULL,
        "gate: {margin: 0.02}",
        "no_significant_difference",
        "fail",
        "failure",
        "non-inferiority is not shown",
    ),
    Row(
        "margin shown",
        NULL,
        "gate: {margin: 0.05}",
        "no_significant_difference",
        "pass",
        "success",
        "p = 1",
    ),
    Row(
        "margin with fail_on never still gates",
        REGRESS,
        "gate: {fail_on: never, margin: 0.02}",
        "regression",
        "fail",
        "failure",
        "non-inferiority is not shown",
    ),
    Row(
        "test: bootstrap",
        WORKED,
        "test: bootstrap",
        "improvement",
        "pass",
        "success",
        "paired bootstrap",
    ),
]

# -- rule 5: sequential mode; rule 6: underpowered evals -----------------------------------
POWER_TABLE = [
    # 31/14: mixture LR = 2^45 31! 14! / 46! = 4.584 (exact fractions), always-valid p = 0.2182
    Row(
        "sequential: worked example not yet",
        WORKED,
        "policy: {mode: sequential}",
        "no_significant_difference",
        "pass",
        "success",
        "mixture SPRT (always valid): p = 0.2182 is above",
    ),
    Row(
        "sequential: 10 fixed 0 broken",
        TEN_NIL,
        "policy: {mode: sequential}",
        "improvement",
        "pass",
        "success",
        "mixture SPRT (always valid): p = 0.01074 is at or below",
    ),
    Row(
        "sequential: fewer items than the cap",
        TEN_NIL,
        "policy: {mode: sequential, sample_size: 100}",
        "improvement",
        "pass",
        "success",
        "p = 0.01074",
    ),
    Row(
        "sequential: more items than the cap",
        TEN_NIL,
        "policy: {mode: sequential, sample_size: 40}",
        "inconclusive",
        "fail",
        "failure",
        "more than the 40 the plan allows in sequential mode",
    ),
    # 50 items, 9 discordant: the MDE at power 0.8 is 14.7 pp; the observed +14 pp is below it
    Row(
        "tripwire: small win refused",
        SMALL_WIN,
        "policy: {min_effect: 0.02}",
        "inconclusive",
        "pass",
        "neutral",
        "an underpowered eval cannot certify an improvement",
    ),
    Row(
        "tripwire: note",
        SMALL_WIN,
        "policy: {min_effect: 0.02}",
        "inconclusive",
        "pass",
        "neutral",
        "a 50-item eval is a tripwire, not a finding",
    ),
    Row(
        "tripwire: big win stands",
        SMALL_BIG_WIN,
        "policy: {min_effect: 0.02}",
        "improvement",
        "pass",
        "success",
        "a 50-item eval is a tripwire, not a finding",
    ),
    Row(
        "tripwire: regression still caught",
        SMALL_LOSS,
        "policy: {min_effect: 0.02}",
        "regression",
        "fail",
        "failure",
        "a 50-item eval is a tripwire",
    ),
    Row(
        "no min_effect: small win stands",
        SMALL_WIN,
        "",
        "improvement",
        "pass",
        "success",
        "p = 0.03906",
    ),
    # 400 items with 45 discordant: MDE 4.6 pp > 2 pp, and the +4.25 pp gain is below it
    Row(
        "worked example underpowered for 2 pp",
        WORKED,
        "policy: {min_effect: 0.02}",
        "inconclusive",
        "pass",
        "neutral",
        "a 400-item eval is a tripwire",
    ),
    Row(
        "worked example powered for 5 pp",
        WORKED,
        "policy: {min_effect: 0.05}",
        "improvement",
        "pass",
        "success",
        "p = 0.01609",
    ),
]


@pytest.mark.parametrize("row", PLAN_TABLE + POWER_TABLE, ids=lambda r: r.name)
def test_truth_table(row: Row, tmp_path: Path) -> None:
    comparison, config = build(tmp_path, row.cells, row.plan, files=row.files)
    decision = evaluate(comparison, config)
    assert (decision.outcome, decision.gate, decision.conclusion) == (
        row.outcome,
        row.gate,
        row.conclusion,
    ), word_reasons(decision.reasons)
    words = word_reasons(decision.reasons)
    assert any(row.reason in reason for reason in words), words
    assert decision.policy_ok == (not decision.violations)
    json.dumps(build_json(comparison, decision)["decision"], allow_nan=False)  # always JSON-ready


def test_plan_note_and_numbers(tmp_path: Path) -> None:
    comparison, config = build(tmp_path, PLANNED_367, "plan: {fix_rate: 0.08, break_rate: 0.03}")
    decision = evaluate(comparison, config)
    # 367: the exact test's size for fix 8 % / break 3 % (tests/power_reference.py shows
    # 366 items fall short); 41 = ceil(367 * 0.11) discordant pairs expected
    assert decision.planned is not None and decision.planned.items == 367
    assert scipy_power(0.08, 0.03, 366) < 0.8 <= scipy_power(0.08, 0.03, 367)
    note = word_plan(decision.planned)
    assert note is not None and note.startswith(
        "367 items (41 discordant pairs expected) planned to detect +5.0 pp"
    )


def test_underpowered_fields(tmp_path: Path) -> None:
    comparison, config = build(tmp_path, SMALL_WIN, "policy: {min_effect: 0.02}")
    decision = evaluate(comparison, config)
    assert decision.underpowered
    # the exact MDE at 50 items, 9/50 discordant: the exact test's power at that split is 0.8
    # (scipy reference, tests/power_reference.py)
    mde = decision.minimum_detectable_effect
    assert mde is not None
    share = (mde / 0.18 + 1) / 2
    assert scipy_power(0.18 * share, 0.18 * (1 - share), 50) == pytest.approx(0.8, abs=1e-9)
    assert decision.config.policy.min_effect == 0.02
    assert decision.violations == []  # not a plan violation: a limit of the eval


# -- rule 4: looks -----------------------------------------------------------------------
SHA_A, SHA_B, SHA_C = "a" * 40, "b" * 40, "c" * 40
WORKED_FP = fingerprint(ids_for(WORKED))
OTHER_FP = "f" * 64


def look(sha: str, fp: str = WORKED_FP, *, holdout: bool = False) -> Look:
    return Look(
        head_sha=sha,
        items=400,
        fingerprint=fp,
        pvalue=0.2,
        outcome="no_significant_difference",
        at="2026-11-30T09:00:00Z",
        holdout=holdout,
    )


@dataclass(frozen=True)
class LookRow:
    name: str
    plan: str
    earlier: tuple[Look, ...]
    head: str
    outcome: str
    look: int
    rerun: bool
    text: str  # in the reasons or the disclosure


LOOK_TABLE = [
    LookRow("first look", "", (), SHA_A, "improvement", 1, False, "p = 0.01609"),
    LookRow(
        "second look, no limit",
        "",
        (look(SHA_A),),
        SHA_B,
        "improvement",
        2,
        False,
        "look 2 at this pull request; earlier looks at aaaaaaa",
    ),
    LookRow(
        "second look past max_looks",
        "policy: {max_looks: 1}",
        (look(SHA_A),),
        SHA_B,
        "inconclusive",
        2,
        False,
        "this is look 2 at this pull request, more than policy.max_looks = 1",
    ),
    LookRow(
        "re-run is not a look",
        "policy: {max_looks: 1}",
        (look(SHA_A),),
        SHA_A,
        "improvement",
        1,
        True,
        "re-run of look 1 (commit aaaaaaa, the same 400 items)",
    ),
    LookRow(
        "re-runs do not add up",
        "policy: {max_looks: 2}",
        (look(SHA_A), look(SHA_A), look(SHA_A)),
        SHA_B,
        "improvement",
        2,
        False,
        "look 2",
    ),
    LookRow(
        "same commit, other items",
        "",
        (look(SHA_A, OTHER_FP),),
        SHA_A,
        "inconclusive",
        2,
        False,
        "commit aaaaaaa was already judged on another item set",
    ),
    LookRow(
        "same commit, other items, even when correcting",
        "policy: {max_looks: 3, looks: bonferroni}",
        (look(SHA_A, OTHER_FP),),
        SHA_A,
        "inconclusive",
        2,
        False,
        "already judged on another item set",
    ),
    LookRow(
        "bonferroni over 2 looks: 0.016 < 0.025",
        "policy: {max_looks: 2, looks: bonferroni}",
        (look(SHA_A),),
        SHA_B,
        "improvement",
        2,
        False,
        "alpha / max_looks = 0.05 / 2 = 0.025",
    ),
    LookRow(
        "bonferroni over 4 looks: 0.016 >= 0.0125",
        "policy: {max_looks: 4, looks: bonferroni}",
        (),
        SHA_A,
        "no_significant_difference",
        1,
        False,
        "p = 0.01609 is above alpha = 0.0125 (0.05 / 4 looks, policy.looks: bonferroni)",
    ),
    LookRow(
        "bonferroni: past the budget",
        "policy: {max_looks: 2, looks: bonferroni}",
        (look(SHA_A), look(SHA_B)),
        SHA_C,
        "inconclusive",
        3,
        False,
        "more than policy.max_looks = 2",
    ),
    LookRow(
        "holdout looks are not main looks",
        "policy: {max_looks: 1}",
        (look(SHA_A, holdout=True),),
        SHA_B,
        "improvement",
        1,
        False,
        "p = 0.01609",
    ),
    LookRow(
        "sequential: looks are free",
        "policy: {mode: sequential}",
        (look(SHA_A), look(SHA_B)),
        SHA_C,
        "no_significant_difference",
        3,
        False,
        "look 3",
    ),
]


@pytest.mark.parametrize("row", LOOK_TABLE, ids=lambda r: r.name)
def test_looks_truth_table(row: LookRow, tmp_path: Path) -> None:
    comparison, config = build(tmp_path, WORKED, row.plan)
    decision = evaluate(comparison, config, state=State(looks=row.earlier), head_sha=row.head)
    assert decision.outcome == row.outcome, word_reasons(decision.reasons)
    assert (decision.looks.number, decision.looks.rerun) == (row.look, row.rerun)
    texts = [*word_reasons(decision.reasons), word_disclosure(decision, comparison.items) or ""]
    assert any(row.text in text for text in texts), texts


def test_state_round_trip_through_the_comment(tmp_path: Path) -> None:
    comparison, config = build(tmp_path, WORKED, "policy: {max_looks: 1}")
    first = evaluate(comparison, config, head_sha=SHA_A)
    state = next_state(State(), comparison, first, at="2026-11-30T09:00:00Z")
    body = "### ✅ Improvement\n\n...\n" + render_state(state) + "\n"
    again = evaluate(comparison, config, state=parse_state(body), head_sha=SHA_A)
    assert again.looks.rerun and again.outcome == "improvement"
    disclosure = word_disclosure(again, comparison.items)
    assert disclosure is not None and "that run said improvement (p = 0.01609)" in disclosure
    later = next_state(parse_state(body), comparison, again, at="2026-11-30T10:00:00Z")
    assert len(later.looks) == 2
    other = evaluate(comparison, config, state=later, head_sha=SHA_B)
    assert other.outcome == "inconclusive" and other.looks.number == 2


def test_tampered_state_is_a_warning(tmp_path: Path) -> None:
    comparison, config = build(tmp_path, WORKED, "policy: {max_looks: 1}")
    state = parse_state("<!-- evalbot-state:v1 bm90IGpzb24= -->")
    decision = evaluate(comparison, config, state=state, head_sha=SHA_A)
    assert decision.outcome == "improvement"
    assert word_reasons(decision.warnings) == [
        "the state block was ignored: it is not valid base64 JSON"
    ]
    assert [w.code for w in decision.warnings] == ["state_ignored"]


def test_no_head_sha_records_nothing(tmp_path: Path) -> None:
    comparison, config = build(tmp_path, WORKED)
    decision = evaluate(comparison, config)
    assert next_state(State(), comparison, decision, at="2026-11-30T09:00:00Z") == State()


# -- rule 7: the sealed holdout -----------------------------------------------------------
HOLDOUT_IDS = ids_for(WORKED)[-50:]  # the last 50 items: all both_fail
HOLDOUT_PLAN = "policy: {sample_size: 350}\nholdout: {ids_file: sealed.txt, max_uses: 2}"
SEALED = {"sealed.txt": "\n".join(HOLDOUT_IDS) + "\n"}


def test_holdout_is_excluded_from_the_regular_analysis(tmp_path: Path) -> None:
    comparison, config = build(tmp_path, WORKED, HOLDOUT_PLAN, files=SEALED)
    assert comparison.items == 350
    assert not set(HOLDOUT_IDS) & set(comparison.paired.ids)
    assert comparison.paired.fingerprint == fingerprint(ids_for(WORKED)[:-50])
    decision = evaluate(comparison, config)
    assert decision.outcome == "improvement" and not decision.holdout


@pytest.mark.parametrize(
    ("uses", "head", "earlier", "expected_uses", "warned"),
    [
        (0, SHA_A, (), 1, False),
        (2, SHA_A, (), 3, True),
        (2, SHA_A, (look(SHA_A, fingerprint(HOLDOUT_IDS), holdout=True),), 2, False),  # re-run
    ],
)
def test_holdout_uses(
    tmp_path: Path,
    uses: int,
    head: str,
    earlier: tuple[Look, ...],
    expected_uses: int,
    warned: bool,
) -> None:
    comparison, config = build(tmp_path, WORKED, HOLDOUT_PLAN, files=SEALED, holdout=True)
    assert comparison.items == 50
    state = State(looks=earlier, holdout_uses=uses)
    decision = evaluate(comparison, config, state=state, head_sha=head, holdout=True)
    assert decision.outcome == "no_significant_difference"  # sample_size is not the holdout's
    assert decision.holdout and decision.holdout_uses == expected_uses
    warnings = word_reasons(decision.warnings)
    assert any("more than holdout.max_uses = 2" in w for w in warnings) == warned
    after = next_state(state, comparison, decision, at="2026-11-30T09:00:00Z")
    assert after.holdout_uses == expected_uses


def test_holdout_with_missing_items_is_inconclusive(tmp_path: Path) -> None:
    files = {"sealed.txt": SEALED["sealed.txt"] + "item-99999\n"}
    comparison, config = build(tmp_path, WORKED, HOLDOUT_PLAN, files=files, holdout=True)
    decision = evaluate(comparison, config, holdout=True)
    assert decision.outcome == "inconclusive"
    assert word_reasons(decision.violations) == [
        "1 of the 51 sealed holdout items are missing from the results (holdout.ids_file, "
        "--holdout): run every holdout item (a verdict on part of the holdout is refused)"
    ]
    (reason,) = decision.violations
    assert (reason.code, reason.observed, reason.threshold, reason.unit) == (
        "holdout_missing",
        1,
        51,
        "items",
    )


def test_holdout_without_a_plan_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="the holdout was requested but the plan has no"):
        build(tmp_path, WORKED, "", holdout=True)


def test_decision_defaults_keep_old_constructors() -> None:
    old = Decision(outcome="improvement", gate="pass", reasons=[], violations=[])
    assert old.conclusion == "success" and old.policy_ok


# -- the decision is data ---------------------------------------------------------------------


def test_every_reason_code_has_a_kind_and_words() -> None:
    from evalbot.plan.policy import CODES
    from evalbot.report.words import _WORDS

    assert set(CODES) == set(_WORDS)  # each code's kind is its row's first entry


@pytest.mark.parametrize(
    ("cells", "plan", "code", "observed", "threshold", "unit", "rule"),
    [
        (
            WORKED,
            "policy: {sample_size: 500}",
            "sample_size",
            400,
            500,
            "items",
            "policy.sample_size",
        ),
        (
            WORKED,
            "plan: {fix_rate: 0.08, break_rate: 0.03}",
            "sample_size",
            400,
            367,
            "items",
            "plan",
        ),
        (
            TEN_NIL,
            "policy: {mode: sequential, sample_size: 40}",
            "sequential_cap",
            50,
            40,
            "items",
            "policy.sample_size",
        ),
        (WORKED, "gate: {max_broken: 10}", "gate_max_broken", 14, 10.0, "items", "gate.max_broken"),
        (WORKED, "gate: {max_broken: 3%}", "gate_max_broken", 14, 12.0, "items", "gate.max_broken"),
        (
            SMALL_WIN,
            "policy: {min_effect: 0.02}",
            "tripwire",
            None,
            0.02,
            "pp",
            "policy.min_effect",
        ),
        (
            WORKED,
            "policy: {max_looks: 4, looks: bonferroni}",
            "bonferroni",
            0.0125,
            0.05,
            "p",
            "policy.looks: bonferroni",
        ),
        (WORKED, "", "significant", None, 0.05, "p", "alpha"),
    ],
)
def test_reasons_carry_their_numbers(
    tmp_path: Path,
    cells: dict[str, int],
    plan: str,
    code: str,
    observed: float | None,
    threshold: float,
    unit: str,
    rule: str,
) -> None:
    comparison, config = build(tmp_path, cells, plan)
    decision = evaluate(comparison, config)
    reason = next(r for r in decision.reasons if r.code == code)
    if observed is not None:
        assert reason.observed == pytest.approx(observed)
    assert reason.threshold == pytest.approx(threshold)
    assert (reason.unit, reason.rule) == (unit, rule)
    assert not hasattr(decision, "alpha")  # the comparison alone holds alpha


def test_refusals_say_which_rule_refused_and_what_would_satisfy_it(tmp_path: Path) -> None:
    comparison, config = build(tmp_path, WORKED, "plan: {fix_rate: 0.08, break_rate: 0.03}")
    decision = evaluate(comparison, config)
    assert word_reasons(decision.violations) == [
        "the plan pre-registered 367 items (computed from plan:), this eval has 400: run the "
        "registered 367 items (a verdict on another sample size is refused)"
    ]
    later = evaluate(
        comparison,
        parse_config(FAST + "policy: {max_looks: 1}", "p.yml"),
        state=State(looks=(look(SHA_A),)),
        head_sha=SHA_B,
    )
    (refusal,) = later.violations
    assert (refusal.code, refusal.observed, refusal.threshold, refusal.rule) == (
        "too_many_looks",
        2,
        1,
        "policy.max_looks",
    )
    assert "re-runs of a judged commit are free" in word_reasons(later.violations)[0]


def test_an_underpowered_gain_says_why_in_the_headline(tmp_path: Path) -> None:
    from evalbot.report.view import build_view

    comparison, config = build(tmp_path, SMALL_WIN, "policy: {min_effect: 0.02}")
    decision = evaluate(comparison, config)
    view = build_view(comparison, decision)
    assert view.headline.startswith("the gain of +14.0 pp is significant but smaller than the ")
    assert "policy.min_effect 2.0 pp" in view.headline


def test_the_comparison_and_the_decision_judge_at_one_alpha(tmp_path: Path) -> None:
    """The sealed holdout is not a look: it keeps the plan's alpha under Bonferroni, and a
    comparison computed for the regular looks cannot be judged as the holdout's."""
    comparison, config = build(tmp_path, WORKED, "policy: {max_looks: 4, looks: bonferroni}")
    assert comparison.alpha.effective == 0.0125
    with pytest.raises(ValueError, match="holdout=True"):
        evaluate(comparison, config, holdout=True)
    holdout = compute_comparison(comparison.paired, config, holdout=True)
    assert holdout.alpha.effective == 0.05 and not holdout.alpha.corrected
