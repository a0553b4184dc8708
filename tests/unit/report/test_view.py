"""The view-model and the JSON report: every number checked against an independent source."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest

from evalbot.compare import compute_comparison
from evalbot.formats.model import Paired
from evalbot.pairing.fingerprint import fingerprint
from evalbot.plan.config import Config
from evalbot.plan.policy import evaluate
from evalbot.report.json_report import build_json
from evalbot.report.view import build_view, input_rows, item_link, provenance_rows
from tests.golden.scenarios import SCENARIOS, paired_from_cells, paired_repeats
from tests.power_reference import scipy_power

Z = NormalDist()


def is_finite_report(report: dict[str, Any]) -> bool:
    """True when no float in the report is NaN or infinite (JSON cannot carry them)."""

    def walk(value: Any) -> bool:
        if isinstance(value, float):
            return math.isfinite(value)
        if isinstance(value, dict):
            return all(walk(v) for v in value.values())
        if isinstance(value, list):
            return all(walk(v) for v in value)
        return True

    return walk(report)


def exact_mcnemar(fixed: int, broken: int) -> float:
    """2 P(X <= min) for X ~ Bin(n, 1/2), in exact fractions (independent of scipy)."""
    n, k = fixed + broken, min(fixed, broken)
    if n == 0:
        return 1.0
    return float(min(Fraction(1), 2 * sum(Fraction(math.comb(n, i), 2**n) for i in range(k + 1))))


def test_json_keeps_the_contract_and_adds_beside() -> None:
    comparison, decision = SCENARIOS["improvement"]().comparison()
    report = build_json(comparison, decision)
    for key in ("schema_version", "items", "metric", "baseline", "candidate", "difference"):
        assert key in report
    for key in ("table", "mcnemar", "policy", "verdict"):
        assert key in report
    assert report["table"] == {"both_pass": 266, "fixed": 31, "broken": 14, "both_fail": 89}
    assert report["churn"] == {"discordant": 45, "net": 17, "net_rate": 0.0425, "churn": 0.1125}
    # unpaired pooled z-test by hand: 280/400 vs 297/400
    pooled = 577 / 800
    z = (297 / 400 - 280 / 400) / math.sqrt(pooled * (1 - pooled) * (2 / 400))
    assert report["unpaired"]["statistic"] == pytest.approx(z, rel=1e-12)
    assert report["unpaired"]["pvalue"] == pytest.approx(2 * Z.cdf(-z), rel=1e-9)
    assert report["repeats"] == {"baseline": None, "candidate": None}
    assert report["secondary"] == []
    assert is_finite_report(report)
    json.dumps(report, allow_nan=False)


def test_slices_pvalues_and_bh_qvalues() -> None:
    comparison, decision = SCENARIOS["improvement"]().comparison()
    rows = build_json(comparison, decision)["slices"]
    assert [r["slice"] for r in rows] == ["arithmetic", "code", "reading", "trivia"]
    assert sum(r["items"] for r in rows) == 400
    assert sum(r["table"]["fixed"] for r in rows) == 31
    p = [exact_mcnemar(r["table"]["fixed"], r["table"]["broken"]) for r in rows]
    assert [r["pvalue"] for r in rows] == pytest.approx(p, rel=1e-12)
    # Benjamini-Hochberg by hand: q_(i) = min over j >= i of m p_(j) / j
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    q = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p[i] * m / rank)
        q[i] = running
    assert [r["qvalue"] for r in rows] == pytest.approx(q, rel=1e-12)


def test_power_minimum_detectable_effect_is_exact() -> None:
    # The exact power of the exact McNemar test at the reported split is 0.8 (reference:
    # scipy.stats.binom sums, tests/power_reference.py); a split 0.002 smaller falls short.
    comparison, decision = SCENARIOS["improvement"]().comparison()
    power = build_json(comparison, decision)["power"]
    psi = power["discordant_rate"]
    assert psi == 45 / 400 and power["items_needed"] is None
    share = (power["minimum_detectable_effect"] / psi + 1) / 2
    assert scipy_power(psi * share, psi * (1 - share), 400) == pytest.approx(0.8, abs=1e-9)
    smaller = share - 0.001 / psi
    assert scipy_power(psi * smaller, psi * (1 - smaller), 400) < 0.8
    assert (
        power["method"] == "exact power of the exact McNemar test at the observed discordant rate"
    )


def test_power_items_needed_when_not_significant() -> None:
    comparison, decision = SCENARIOS["no_difference"]().comparison()
    power = build_json(comparison, decision)["power"]
    # 12 fixed, 8 broken of 200: rates 0.06 / 0.04. The exact test's power (scipy reference)
    # first reaches 0.8 at 2043 items (the normal approximation said 1940, where it is lower).
    assert power["items_needed"] == 2043
    assert scipy_power(0.06, 0.04, 2042) < 0.8 <= scipy_power(0.06, 0.04, 2043)
    assert scipy_power(0.06, 0.04, 1940) < 0.8
    view = SCENARIOS["no_difference"]().view()
    assert "about 2,043 items would be needed" in view.power


def test_repeats_and_flaky_items() -> None:
    paired = paired_repeats(120, 5)
    comparison = compute_comparison(paired, Config())
    rep = comparison.repeats_candidate
    assert rep is not None
    flaky = [i for i, v in zip(paired.ids, paired.candidate, strict=True) if 0 < v < 1]
    assert rep.flaky_ids == flaky and rep.result.flaky == len(flaky)
    assert rep.result.repeats == 5
    assert rep.result.mean == pytest.approx(float(paired.candidate.mean()))
    # within-item variance of k Bernoulli draws with s passes: s (k - s) / (k (k - 1))
    s = np.rint(paired.candidate * 5)
    assert rep.result.within_item_variance == pytest.approx(float(np.mean(s * (5 - s) / 20)))
    report = build_json(comparison, evaluate(comparison, Config()))
    assert report["repeats"]["candidate"]["flaky"] == len(flaky)
    assert report["unpaired"] is None and report["power"] is None


def test_inconclusive_says_why_in_words() -> None:
    view = SCENARIOS["inconclusive"]().view()
    assert view.outcome == "inconclusive"
    assert view.headline == (
        "the plan pre-registered 500 items (policy.sample_size), this eval has 400: run the "
        "registered 500 items (a verdict on another sample size is refused)"
    )
    assert view.explanation.startswith("No verdict is given.")
    assert view.plan[0].label == "pre-registered items" and view.plan[0].value == "500"


def test_gate_reasons_shown_when_the_gate_fails() -> None:
    view = SCENARIOS["regression"]().view()
    assert view.gate == "fail"
    assert any("gate.max_broken = 25" in r for r in view.gate_reasons)
    assert SCENARIOS["improvement"]().view().gate_reasons == []


@pytest.mark.parametrize(
    ("template", "item", "expected"),
    [
        ("https://logs.example/{id}", "a/b c#1", "https://logs.example/a%2Fb%20c%231"),
        ("https://logs.example/x?id={id}&v=1", "@me", "https://logs.example/x?id=%40me&v=1"),
        (
            "https://logs.example/{id}",
            "](javascript:x)",
            "https://logs.example/%5D%28javascript%3Ax%29",
        ),
        ("https://l.example/my logs/({id})", "q", "https://l.example/my%20logs/%28q%29"),
        ("javascript:alert('{id}')", "q", None),
        ("data:text/html,{id}", "q", None),
        ("//logs.example/{id}", "q", None),
        (None, "q", None),
    ],
)
def test_item_link(template: str | None, item: str, expected: str | None) -> None:
    assert item_link(template, item) == expected


def test_long_ids_are_shortened_in_text_not_in_links() -> None:
    long = "a" * 100 + "z" * 200
    paired = paired_from_cells({"fixed": 1, "both_pass": 1}, ids=["z", long])
    comparison = compute_comparison(paired, Config())
    view = build_view(comparison, evaluate(comparison, Config()), item_url="https://l.example/{id}")
    entry = view.lists[1].entries[0]  # the fixed items (the broken ones first)
    # cut in the middle: a third of the room for the start, the rest for the end
    assert entry.text == "a" * 40 + "…" + "z" * 79
    assert entry.url == "https://l.example/" + long


def test_the_bootstrap_beside_distinct_scores_draws_a_bounded_count() -> None:
    # 12,500 distinct scores: 3 x 10^7 draws in all are 2,400 resamples of 12,500 items (counts,
    # not clocks); pass/fail items of the same number keep all 10,000 (resampled by counts)
    n = 12_500
    rng = np.random.default_rng(8)
    ids = [f"q{i:05d}" for i in range(n)]
    base = rng.random(n)
    scores = Paired(
        ids=ids,
        baseline=base,
        candidate=base + rng.normal(0.01, 0.1, n),
        kind="score",
        pass_fail=False,
        baseline_source="b",
        candidate_source="c",
        fingerprint=fingerprint(ids),
    )
    comparison = compute_comparison(scores, Config())
    boot = comparison.bootstrap
    assert boot is not None and boot.n_resamples == 30_000_000 // n == 2_400
    view = build_view(comparison, evaluate(comparison, Config()))
    assert view.bootstrap_note is not None
    assert "2,400 of 10,000 resamples (draws bounded)" in view.bootstrap_note
    cells = {"both_pass": 6000, "fixed": 400, "broken": 300, "both_fail": 5800}
    binary = compute_comparison(paired_from_cells(cells), Config()).bootstrap
    assert binary is not None and binary.n_resamples == 10_000


def test_policy_fields_are_rendered_when_present() -> None:
    """Every part of the Decision the report reads, set at once: the plan rows, the looks, the
    effective alpha, the holdout, the margin, and warnings worded from their data (a reason's
    free text, here a state warning, is escaped like any untrusted text)."""
    from dataclasses import replace

    from evalbot.compare.records import Alpha
    from evalbot.plan.config import GateConfig, HoldoutConfig, PolicyConfig
    from evalbot.plan.ledger import Look
    from evalbot.plan.policy import LookCount, PlannedSize, Reason
    from evalbot.report.render import render_comment
    from evalbot.stats.power import mcnemar_sample_size

    scenario = SCENARIOS["improvement"]()
    comparison, plain = scenario.comparison()
    comparison = replace(comparison, alpha=Alpha(level=0.05, effective=0.025, looks=2))
    earlier = Look(
        head_sha="a" * 40,
        items=400,
        fingerprint="f" * 64,
        pvalue=0.2,
        outcome="no_significant_difference",
        at="2026-11-30T09:00:00Z",
    )
    decision = replace(
        plain,
        planned=PlannedSize(
            items=400,
            source="plan",
            result=replace(
                mcnemar_sample_size(0.08, 0.03, alpha=0.025, power=0.8, method="exact"),
                items=400,
                discordant_pairs=44,
                exact_power=0.81234,
            ),
        ),
        looks=LookCount(number=2, earlier=(earlier,)),
        holdout=True,
        holdout_uses=2,
        config=replace(
            plain.config,
            policy=PolicyConfig(mode="sequential", max_looks=3),
            holdout=HoldoutConfig(ids_file="holdout.txt", max_uses=5),
            gate=GateConfig(margin=0.02),
        ),
        noninferior=True,
        reasons=[
            *plain.reasons,
            Reason(
                code="tripwire",
                observed=0.06,
                threshold=0.02,
                unit="pp",
                rule="policy.min_effect",
                details={"items": 40, "discordant_rate": 0.2, "power": 0.8},
            ),
        ],
        warnings=[Reason(code="state_ignored", details={"why": "<b>slice</b> #3 @octocat"})],
    )
    view = build_view(comparison, decision)
    rows = {row.label: row.value for row in view.plan}
    assert rows == {
        "pre-registered items": "400 (400 items (44 discordant pairs expected) planned to "
        "detect +5.0 pp (fix rate 0.08, break rate 0.03) with power 0.8 at alpha 0.025 (exact "
        "power of McNemar's exact test: 0.812))",
        "mode": "sequential",
        "look": "2 of 3",
        "alpha for this look": "0.025 (of 0.05, policy.looks: bonferroni)",
        "sealed set": "this analysis uses the sealed holdout, use 2 of 5",
        "non-inferiority margin": "2 pp: met",
    }
    assert view.disclosure == "look 2 at this pull request; earlier looks at aaaaaaa"
    assert view.alpha == "0.025 (0.05 / 2 looks)"
    assert view.warnings == [
        "<b>slice</b> #3 @octocat",
        "a 40-item eval is a tripwire, not a finding: with 20.0 % of items changing it can "
        "detect 6.0 pp or more (power 0.8), but policy.min_effect is 2.0 pp",
    ]
    text = render_comment(view, marker="<!-- m -->")
    assert "<b>" not in text and "@octocat" not in text  # escaped, mention broken
    assert "> [!WARNING]" in text and "tripwire" in text


def test_provenance_keeps_hex_digits_and_web_links_and_drops_a_run_with_neither() -> None:
    rows = provenance_rows(
        ("baseline", "abc`; rm 0123456789abcdef", "javascript:alert(1)"),
        ("candidate", None, None),
        ("other", None, "https://runs.example/1"),
    )
    assert [(row.label, row.value, row.url) for row in rows] == [
        ("baseline", "`abc012345678`", None),
        ("other", "run", "https://runs.example/1"),
    ]


def test_input_rows_count_each_files_items() -> None:
    rows = input_rows(("baseline", "a.jsonl", 1), ("candidate", "b.jsonl", 1234))
    assert [(row.label, row.value, row.note) for row in rows] == [
        ("baseline", "a.jsonl", "1 item"),
        ("candidate", "b.jsonl", "1,234 items"),
    ]
