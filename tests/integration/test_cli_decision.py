"""`evalbot compare` end to end (in process, through ``evalbot.cli.main``) for the decision's
edges: p-values never printed as 0, the rule at p == alpha, the effective alpha everywhere,
the test and the interval from one method (or said plainly when they differ), numeric scores
with the test valid at every n and d_z, sequential mode's p and confidence sequence, score
metrics in their own unit, powerless and identical runs, what a null verdict rules out, and
the design effect. Every expected number names its independent reference."""

from __future__ import annotations

import contextlib
import decimal
import io
import itertools
import json
import math
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evalbot.cli import main

#: "p = 0" as a claim (not "p = 0.016").
P_ZERO = re.compile(r"p = 0(?![.\d])")


def run(tmp: Path, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.chdir(tmp):
        code = main(list(args), out)
    return code, out.getvalue()


def write_rows(tmp: Path, name: str, rows: list[dict[str, Any]]) -> None:
    (tmp / name).write_text("".join(json.dumps(r) + "\n" for r in rows))


def write_cells(tmp: Path, cells: dict[str, int]) -> None:
    base, cand = [], []
    for cell, count in cells.items():
        for _ in range(count):
            item = f"item-{len(base):05d}"
            base.append({"id": item, "passed": cell in ("both_pass", "broken")})
            cand.append({"id": item, "passed": cell in ("both_pass", "fixed")})
    write_rows(tmp, "b.jsonl", base)
    write_rows(tmp, "c.jsonl", cand[::-1])


def compare(tmp: Path, *args: str) -> tuple[dict[str, Any], str, str]:
    """(JSON report, text, markdown) of b.jsonl vs c.jsonl."""
    code, out = run(tmp, "compare", "b.jsonl", "c.jsonl", "--format", "json", *args)
    assert code in (0, 1), out
    _, text = run(tmp, "compare", "b.jsonl", "c.jsonl", *args)
    _, markdown = run(tmp, "compare", "b.jsonl", "c.jsonl", "--format", "markdown", *args)
    return json.loads(out), text, markdown


def exact_mcnemar(fixed: int, broken: int) -> Fraction:
    """2 P(X <= min) for X ~ Bin(n, 1/2), in exact fractions (independent of evalbot)."""
    n, k = fixed + broken, min(fixed, broken)
    return min(Fraction(1), 2 * sum(Fraction(math.comb(n, i), 2**n) for i in range(k + 1)))


# ---- p-values are never 0 -------------------------------------------------------------------


def test_a_p_value_below_the_float_range_is_never_printed_as_zero(tmp_path: Path) -> None:
    # 1,100 fixed and none broken: exact p = 2 * 2^-1100 = 2^-1099, log10 = -1099 log10(2)
    write_cells(tmp_path, {"both_pass": 100, "fixed": 1100, "broken": 0, "both_fail": 100})
    report, text, markdown = compare(tmp_path)
    log10 = -1099 * math.log10(2)  # -330.832
    for block in (report["test"], report["mcnemar"]):
        assert block["pvalue"] > 0.0
        assert block["pvalue_kind"] == "below_float_range"
        assert block["pvalue"] == 2.0**-1022  # the smallest normal float, an upper bound
        assert block["pvalue_log10"] == pytest.approx(log10, abs=1e-9)
        assert block["pvalue_text"] == "1.472e-331"
    assert report["decision"]["pvalue"] > 0.0
    assert report["verdict"]["reasons"][0] == (
        "McNemar (exact): p = 1.472e-331 is at or below alpha = 0.05"
    )
    for output in (text, markdown, json.dumps(report)):
        assert not P_ZERO.search(output)
    assert "p < 0.0001" in markdown.splitlines()[0]


def test_a_bootstrap_p_with_no_resample_past_zero_is_a_bound(tmp_path: Path) -> None:
    # every changed item was fixed: no resample of the difference reaches 0, so the bootstrap
    # p-value is only known to be below its resolution 2/B = 2/2000 = 0.001
    write_cells(tmp_path, {"both_pass": 10, "fixed": 30, "broken": 0, "both_fail": 10})
    (tmp_path / "p.yml").write_text("test: bootstrap\nbootstrap: {resamples: 2000}\n")
    report, text, markdown = compare(tmp_path, "--config", "p.yml")
    test = report["test"]
    assert test["name"] == "paired bootstrap (percentile)"
    assert (test["pvalue"], test["pvalue_kind"]) == (0.001, "upper_bound")
    assert test["pvalue_resolution"] == 0.001 and test["pvalue_text"] == "< 0.001"
    assert report["verdict"]["outcome"] == "improvement"
    assert "paired bootstrap (percentile) p < 0.001" in markdown.splitlines()[0]
    assert "paired bootstrap (percentile): p < 0.001 is at or below alpha = 0.05" in text
    for output in (text, markdown, json.dumps(report)):
        assert not P_ZERO.search(output)


def test_the_action_output_and_check_title_never_say_zero() -> None:
    from evalbot.report.numbers import pvalue_output
    from evalbot.stats.mcnemar import mcnemar
    from evalbot.stats.pvalue import resampling_pvalue

    # 2^-1099 from its logarithm (reference: decimal arithmetic at 30 digits); a bootstrap
    # bound; an ordinary p-value unchanged (6 digits)
    with decimal.localcontext() as ctx:
        ctx.prec = 30
        reference = f"{decimal.Decimal(2) ** -1099:.5e}"  # 1.47243e-331
    assert pvalue_output(mcnemar(1100, 0).pvalue) == reference
    assert pvalue_output(resampling_pvalue(0.0, 10_000)) == "<0.0002"
    assert pvalue_output(mcnemar(31, 14).pvalue) == "0.0160944"
    # the check run's title from the same comparison
    from evalbot.compare import compute_comparison
    from evalbot.plan.config import Config
    from evalbot.plan.policy import evaluate
    from evalbot.report.render import render_check
    from evalbot.report.view import build_view
    from tests.golden.scenarios import paired_from_cells

    paired = paired_from_cells({"both_pass": 100, "fixed": 1100, "both_fail": 100})
    comparison = compute_comparison(paired, Config())
    title, summary = render_check(build_view(comparison, evaluate(comparison, Config())))
    assert title.startswith("✅ Improvement: +84.6 pp [") and ", p < 0.0001; gate pass" in title
    assert not P_ZERO.search(title + summary)


# ---- the rule at p == alpha -----------------------------------------------------------------


def test_a_p_value_equal_to_alpha_rejects(tmp_path: Path) -> None:
    # 9 fixed, 1 broken: exact p = 2 * 11/1024 = 22/1024 = 0.021484375 (STYLE.md), exactly
    # representable; with alpha = 22/1024 the test rejects (p <= alpha, as the stats and the
    # plan's power assume); a hair below it, it does not
    write_cells(tmp_path, {"both_pass": 20, "fixed": 9, "broken": 1, "both_fail": 10})
    assert exact_mcnemar(9, 1) == Fraction(22, 1024)
    (tmp_path / "eq.yml").write_text("alpha: 0.021484375\n")
    report, _, markdown = compare(tmp_path, "--config", "eq.yml")
    assert report["test"]["pvalue"] == 0.021484375 and report["test"]["rule"] == "p <= alpha"
    assert report["verdict"]["outcome"] == "improvement"
    assert "p = 0.021 is at or below alpha = 0.0214844" in markdown
    (tmp_path / "below.yml").write_text("alpha: 0.0214843\n")
    report, _, _ = compare(tmp_path, "--config", "below.yml")
    assert report["verdict"]["outcome"] == "no_significant_difference"


# ---- Bonferroni: the effective alpha everywhere ---------------------------------------------


def test_bonferroni_says_the_effective_alpha_everywhere(tmp_path: Path) -> None:
    # the worked example, p = 0.01609 (exact fractions below), judged at 0.05 / 4 = 0.0125
    write_cells(tmp_path, {"both_pass": 266, "fixed": 31, "broken": 14, "both_fail": 89})
    (tmp_path / "p.yml").write_text("policy: {max_looks: 4, looks: bonferroni}\n")
    report, text, markdown = compare(tmp_path, "--config", "p.yml")
    assert float(exact_mcnemar(31, 14)) == pytest.approx(report["test"]["pvalue"], rel=1e-12)
    assert report["verdict"]["outcome"] == "no_significant_difference"
    assert (report["test"]["alpha"], report["test"]["alpha_level"]) == (0.0125, 0.05)
    assert report["decision"]["effective_alpha"] == 0.0125
    assert report["power"]["alpha"] == 0.0125
    assert "p = 0.016 is above alpha = 0.0125 (0.05 / 4 looks)" in markdown
    assert "alpha = 0.05" not in markdown.replace("alpha = 0.0125 (0.05", "")
    assert "McNemar (exact): p = 0.01609 is above alpha = 0.0125 (0.05 / 4 looks" in text


def test_the_plan_is_sized_at_the_alpha_each_look_is_tested_at(tmp_path: Path) -> None:
    from tests.power_reference import scipy_power

    # fix 8 % / break 3 % with three Bonferroni looks: the size is the smallest n whose exact
    # power at alpha = 0.05 / 3 reaches 0.8 (scipy reference), not the 367 of alpha = 0.05
    (tmp_path / "p.yml").write_text(
        "plan: {fix_rate: 0.08, break_rate: 0.03}\npolicy: {max_looks: 3, looks: bonferroni}\n"
    )
    code, out = run(tmp_path, "plan", "--config", "p.yml", "--format", "json")
    assert code == 0, out
    plan = json.loads(out)
    items = plan["items"]
    assert plan["alpha"] == pytest.approx(0.05 / 3)
    assert (
        scipy_power(0.08, 0.03, items - 1, 0.05 / 3)
        < 0.8
        <= scipy_power(0.08, 0.03, items, 0.05 / 3)
    )
    assert items > 367
    # the policy registers the same size
    write_cells(tmp_path, {"both_pass": 100, "fixed": 10, "broken": 5, "both_fail": 252})
    report, _, _ = compare(tmp_path, "--config", "p.yml")
    assert report["decision"]["plan"]["items"] == items
    refusal = report["decision"]["violations"][0]
    assert (refusal["code"], refusal["observed"], refusal["threshold"]) == (
        "sample_size",
        367,
        items,
    )
    assert refusal["text"] == (
        f"the plan pre-registered {items} items (computed from plan:), this eval has 367: run "
        f"the registered {items} items (a verdict on another sample size is refused)"
    )


# ---- pass/fail: the test and the interval ---------------------------------------------------


def test_an_exact_rejection_whose_interval_touches_zero_is_said_plainly(tmp_path: Path) -> None:
    # 13 fixed, 4 broken of 67: exact p = 2 * 3214 / 2^17 = 0.04904 <= 0.05, but McNemar's
    # continuity-corrected statistic (9 - 1)^2 / 17 = 3.765 < 1.96^2 = 3.841, and Tango's
    # corrected interval excludes 0 exactly when that statistic exceeds z^2: it touches 0
    write_cells(tmp_path, {"both_pass": 30, "fixed": 13, "broken": 4, "both_fail": 20})
    assert exact_mcnemar(13, 4) == Fraction(2 * 3214, 2**17)
    report, _text, markdown = compare(tmp_path)
    low, high = report["difference"]["ci"]
    assert low < 0.0 < high and report["difference"]["interval"] == "tango-cc"
    assert report["verdict"]["outcome"] == "improvement"
    assert report["test"]["agreement"] == "test_only"
    assert report["decision"]["agreement"]["case"] == "test_only"
    assert "the interval excludes zero" not in markdown
    assert "still touches zero" in markdown and "the verdict follows the test" in markdown


# ---- numeric scores -------------------------------------------------------------------------


def test_scores_use_the_test_valid_at_every_n_with_d_z(tmp_path: Path) -> None:
    deltas = [0.3, 0.1, 0.25, -0.05, 0.2, 0.15, 0.35, 0.05, 0.4, 0.1]
    write_rows(tmp_path, "b.jsonl", [{"id": f"q{i}", "score": 0.2} for i in range(10)])
    write_rows(
        tmp_path, "c.jsonl", [{"id": f"q{i}", "score": 0.2 + d} for i, d in enumerate(deltas)]
    )
    report, text, markdown = compare(tmp_path)
    d = np.array([0.2 + x for x in deltas]) - 0.2
    # reference: the exact sign-flip p by enumerating all 2^10 sign patterns
    observed = abs(d.sum())
    count = sum(
        abs(np.dot(signs, np.abs(d))) >= observed - 1e-9
        for signs in itertools.product((1, -1), repeat=10)
    )
    assert report["test"]["name"] == "exact sign-flip"
    assert report["test"]["pvalue"] == pytest.approx(count / 1024, abs=1e-12)
    assert report["difference"]["method"] == "exact sign-flip"
    assert report["difference"]["interval"] == "sign-flip"
    assert report["difference"]["pvalue"] == report["test"]["pvalue"]
    # d_z = mean / sd (ddof = 1), by hand with numpy
    dz = float(d.mean() / d.std(ddof=1))
    assert report["difference"]["effect_size"]["d_z"] == pytest.approx(dz, rel=1e-12)
    assert f"d_z = {dz:+.2f}" in markdown and "Effect size" in text
    assert report["table"] is None and report["mcnemar"] is None


def test_score_metrics_speak_in_their_own_unit(tmp_path: Path) -> None:
    # a mean-score regression of 0.049 with gate.margin 0.02: the margin's words are in the
    # score's unit, never percentage points
    rng = np.random.default_rng(3)
    base = rng.uniform(0.2, 0.8, 60)
    cand = base - 0.049 + rng.normal(0, 0.02, 60)
    cand += -0.049 - float((cand - base).mean())  # the mean difference is exactly -0.049
    write_rows(tmp_path, "b.jsonl", [{"id": f"q{i}", "score": v} for i, v in enumerate(base)])
    write_rows(tmp_path, "c.jsonl", [{"id": f"q{i}", "score": v} for i, v in enumerate(cand)])
    (tmp_path / "m.yml").write_text("gate: {margin: 0.02}\n")
    report, text, markdown = compare(tmp_path, "--config", "m.yml")
    low = report["difference"]["ci"][0]
    reason = next(r for r in report["decision"]["reasons"] if r["code"] == "gate_margin")
    assert (reason["unit"], reason["observed"], reason["threshold"]) == ("score", low, -0.02)
    assert reason["text"] == (
        f"gate: the 95 % interval reaches {low:+.3f}, not above -gate.margin = -0.020: "
        "non-inferiority is not shown"
    )
    assert markdown.splitlines()[0].startswith("### ❌ Regression: -0.049 [")
    assert " pp" not in markdown and " pp" not in text


# ---- sequential mode ------------------------------------------------------------------------


def test_sequential_mode_reports_its_own_p_and_confidence_sequence(tmp_path: Path) -> None:
    # 10 fixed, 0 broken of 30: the mixture SPRT's always-valid p is 11/1024 (closed form
    # 2^n fixed! broken! / (n + 1)!), the exact McNemar p 2/1024
    write_cells(tmp_path, {"both_pass": 10, "fixed": 10, "broken": 0, "both_fail": 10})
    (tmp_path / "s.yml").write_text("policy: {mode: sequential}\n")
    report, _, markdown = compare(tmp_path, "--config", "s.yml")
    assert report["test"]["name"] == "mixture SPRT (always valid)"
    assert report["test"]["pvalue"] == pytest.approx(11 / 1024, rel=1e-12)
    assert report["decision"]["pvalue"] == pytest.approx(11 / 1024, rel=1e-12)
    assert report["mcnemar"]["pvalue"] == pytest.approx(2 / 1024, rel=1e-12)
    diff = report["difference"]
    assert diff["interval"] == "confidence-sequence"
    assert diff["method"] == "mixture confidence sequence (always valid)"
    assert diff["pvalue"] == report["test"]["pvalue"]
    # an always-valid interval is wider than the fixed-sample one on the same table
    from evalbot.stats.paired_proportions import paired_difference_interval

    fixed_ci = paired_difference_interval(10, 10, 0, 10).confidence_interval
    assert diff["ci"][0] < fixed_ci.low and diff["ci"][0] > 0
    assert report["test"]["agreement"] == "both_significant"
    assert "mixture SPRT (always valid) p = 0.011" in markdown.splitlines()[0]


# ---- what a verdict cannot say --------------------------------------------------------------


def test_a_null_verdict_says_what_it_rules_out(tmp_path: Path) -> None:
    write_cells(tmp_path, {"both_pass": 150, "fixed": 12, "broken": 8, "both_fail": 30})
    report, _text, markdown = compare(tmp_path)
    low, high = report["difference"]["ci"]
    ruled = report["decision"]["rules_out"]
    assert (ruled["below"], ruled["above"], ruled["confidence"], ruled["unit"]) == (
        low,
        high,
        0.95,
        "pp",
    )
    assert f"Effects outside [{low * 100:.1f}, +{high * 100:.1f}] pp are ruled out at 95 %" in (
        markdown
    )


def test_a_powerless_eval_is_called_so(tmp_path: Path) -> None:
    # 5 fixed, 0 broken: the smallest exact p with 5 discordant pairs is 2^(1-5) = 0.0625 > 0.05;
    # 6 pairs are the fewest that can reach 0.05 (2^-5 = 0.03125)
    write_cells(tmp_path, {"both_pass": 20, "fixed": 5, "broken": 0, "both_fail": 15})
    report, _, markdown = compare(tmp_path)
    assert report["verdict"]["outcome"] == "no_significant_difference"
    assert report["test"]["powerless"] and report["decision"]["power"]["powerless"]
    assert report["test"]["smallest_pvalue"] == 0.0625
    reason = next(r for r in report["decision"]["reasons"] if r["code"] == "powerless")
    assert reason["details"]["needed"] == 6 and reason["details"]["have"] == 5
    assert "· no outcome could be significant ·" in markdown.splitlines()[0]
    assert "at least 6 discordant pairs are needed" in markdown
    # 6 pairs all one way can reach alpha: not powerless
    write_cells(tmp_path, {"both_pass": 20, "fixed": 6, "broken": 0, "both_fail": 15})
    report, _, _ = compare(tmp_path)
    assert not report["test"]["powerless"] and report["verdict"]["outcome"] == "improvement"
    # one discordant pair: the noun agrees with its count
    write_cells(tmp_path, {"both_pass": 20, "fixed": 1, "broken": 0, "both_fail": 15})
    _, _, markdown = compare(tmp_path)
    assert "with 1 discordant pair the smallest p-value" in markdown


def test_a_file_compared_with_itself_is_flagged(tmp_path: Path) -> None:
    write_cells(tmp_path, {"both_pass": 30, "both_fail": 10})
    code, out = run(tmp_path, "compare", "b.jsonl", "b.jsonl", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["decision"]["identical"]
    warning = report["decision"]["warnings"][0]
    assert warning["code"] == "identical_runs" and warning["details"]["same_source"] == "yes"
    _, markdown = run(tmp_path, "compare", "b.jsonl", "b.jsonl", "--format", "markdown")
    assert "· identical runs" in markdown.splitlines()[0]
    assert "identical item for item" in markdown


def test_the_minimum_detectable_effect_accounts_for_clusters(tmp_path: Path) -> None:
    from tests.power_reference import scipy_power

    # 20 clusters of 10 items; within a cluster the items moved together (all fixed, all
    # broken or all unchanged), so 200 items carry about the information of 20
    pattern = ["fixed"] * 6 + ["broken"] * 2 + ["same"] * 12
    base, cand = [], []
    for g, kind in enumerate(pattern):
        for j in range(10):
            item = {"id": f"d{g:02d}-{j}", "cluster": f"doc{g}"}
            before = kind == "broken" or (kind == "same" and j % 2 == 0)
            after = kind == "fixed" or (kind == "same" and j % 2 == 0)
            base.append({**item, "passed": before})
            cand.append({**item, "passed": after})
    write_rows(tmp_path, "b.jsonl", base)
    write_rows(tmp_path, "c.jsonl", cand)
    report, _, markdown = compare(tmp_path)
    # reference design effect: CR1 variance over the iid variance of the mean difference,
    # by hand: differences +1 (60 items), -1 (20), 0 (120); cluster sums 10, -10, 0
    d = np.array([1.0] * 60 + [-1.0] * 20 + [0.0] * 120)
    sums = np.array([10.0] * 6 + [-10.0] * 2 + [0.0] * 12) - 10 * d.mean()
    cr1 = (20 / 19) * float(np.sum(sums**2)) / 200**2
    deff = cr1 / (d.var(ddof=1) / 200)
    power = report["power"]
    assert power["design_effect"] == pytest.approx(deff, rel=1e-9)
    assert power["design_effect_method"] == "estimated"
    # the MDE is the exact one for floor(200 / deff) independent items (scipy reference)
    n_eff = math.floor(200 / deff + 1e-9)
    psi, mde = power["discordant_rate"], power["minimum_detectable_effect"]
    share = (mde / psi + 1) / 2
    assert scipy_power(psi * share, psi * (1 - share), n_eff) == pytest.approx(0.8, abs=1e-9)
    assert f"design effect {deff:.3g}, estimated" in markdown
    # configured instead when the items carry no labels
    for rows in (base, cand):
        for row in rows:
            del row["cluster"]
    write_rows(tmp_path, "b.jsonl", base)
    write_rows(tmp_path, "c.jsonl", cand)
    (tmp_path / "d.yml").write_text(
        "plan: {fix_rate: 0.3, break_rate: 0.1, design_effect: 4}\npolicy: {sample_size: null}\n"
    )
    report, _, _ = compare(tmp_path, "--config", "d.yml")
    assert report["power"]["design_effect"] == 4.0
    assert report["power"]["design_effect_method"] == "configured"


# ---- secondary metrics resample clusters too --------------------------------------------------


def cluster_bootstrap_pvalue(d: np.ndarray, groups: np.ndarray, b: int, seed: int) -> float:
    """Reference: a percentile cluster bootstrap of the mean difference written here (whole
    clusters drawn with replacement, all of equal size), two-sided p = 2 min(P*(<= 0),
    P*(>= 0))."""
    labels = np.unique(groups)
    means = np.array([d[groups == g].mean() for g in labels])
    draws = np.random.default_rng(seed).integers(0, labels.size, size=(b, labels.size))
    boot = means[draws].mean(axis=1)
    return float(min(1.0, 2 * min(np.mean(boot <= 0), np.mean(boot >= 0))))


def clustered_secondary_rows() -> tuple[list[dict[str, Any]], list[dict[str, Any]], np.ndarray]:
    """200 items in 20 clusters of 10, two secondary metrics shifted per cluster."""
    rng = np.random.default_rng(13)
    groups = np.repeat(np.arange(20), 10)  # 20 clusters of 10 items
    shift = rng.normal(0.05, 0.3, 20)[groups]  # a shift shared within each cluster
    latency = shift + rng.normal(0.0, 0.01, 200)
    quality = rng.normal(0.0, 0.05, 20)[groups] + rng.normal(0.0, 0.01, 200)
    rows_b, rows_c = [], []
    for i in range(200):
        common = {"id": f"q{i:03d}", "cluster": f"doc{groups[i]}"}
        rows_b.append({**common, "passed": i % 3 == 0, "latency": 1.0, "quality": 0.5})
        rows_c.append(
            {
                **common,
                "passed": i % 4 == 0,
                "latency": 1.0 + latency[i],
                "quality": 0.5 + quality[i],
            }
        )
    return rows_b, rows_c, groups


def test_secondary_metrics_resample_clusters(tmp_path: Path) -> None:
    """Under ``test: bootstrap`` the Holm-adjusted p-values of secondary metrics come from a
    cluster bootstrap when items share clusters (before, the secondaries alone resampled items
    one by one, so their p-values came out far too small)."""
    from statsmodels.stats.multitest import multipletests

    rows_b, rows_c, groups = clustered_secondary_rows()
    write_rows(tmp_path, "b.jsonl", rows_b)
    write_rows(tmp_path, "c.jsonl", rows_c)
    (tmp_path / "p.yml").write_text("test: bootstrap\nsecondary_metrics: [latency, quality]\n")
    report, _, _ = compare(tmp_path, "--config", "p.yml")
    secondary = {m["metric"]: m for m in report["secondary"]}
    assert {m["interval"] for m in secondary.values()} == {"bootstrap"}
    d_latency = np.array([r["latency"] for r in rows_c]) - 1.0
    d_quality = np.array([r["quality"] for r in rows_c]) - 0.5
    for name, d in (("latency", d_latency), ("quality", d_quality)):
        reference = cluster_bootstrap_pvalue(d, groups, 40_000, seed=5)
        # Monte Carlo standard error of the difference of the two estimates (10,000 and
        # 40,000 resamples) is at most 2 sqrt(0.25 / 10,000) + 2 sqrt(0.25 / 40,000) = 0.015;
        # evalbot's p (the level at which its interpolated interval touches 0) and the tail
        # share differ by less than 1/B besides
        assert secondary[name]["pvalue"] == pytest.approx(reference, abs=0.045), name
    # resampling items one by one would have said p < 0.001 for latency: far from it
    assert secondary["latency"]["pvalue"] > 0.05
    # Holm over the reported p-values (statsmodels as the reference)
    names = sorted(secondary)
    adjusted = multipletests([secondary[n]["pvalue"] for n in names], method="holm")[1]
    for name, value in zip(names, adjusted, strict=True):
        assert secondary[name]["adjusted_pvalue"] == pytest.approx(value, rel=1e-12)
    # without the labels the same data resample items, and the p-value collapses
    for rows in (rows_b, rows_c):
        for row in rows:
            del row["cluster"]
    write_rows(tmp_path, "b.jsonl", rows_b)
    write_rows(tmp_path, "c.jsonl", rows_c)
    unclustered, _, _ = compare(tmp_path, "--config", "p.yml")
    items_p = {m["metric"]: m["pvalue"] for m in unclustered["secondary"]}
    assert items_p["latency"] < 0.01 < secondary["latency"]["pvalue"]


def cluster_sign_flip_reference(d: np.ndarray, groups: np.ndarray) -> float:
    """Reference: the exact two-sided cluster sign-flip p-value written here, every one of the
    2^G sign patterns of the clusters' totals enumerated (share with |sum| >= |observed|)."""
    totals = np.array([d[groups == g].sum() for g in np.unique(groups)])
    signs = 1 - 2 * ((np.arange(2**totals.size)[:, None] >> np.arange(totals.size)) & 1)
    sums = np.abs(signs @ totals)
    return float(np.mean(sums >= abs(totals.sum()) * (1 - 1e-9)))


def test_secondary_metrics_tested_like_a_primary_score(tmp_path: Path) -> None:
    """By default each secondary metric gets the test a primary score would: the cluster
    sign-flip when items share clusters (exact at 20 clusters), the item sign-flip without
    labels; JSON names the method and the interval, the comment and the text the test."""
    from statsmodels.stats.multitest import multipletests

    rows_b, rows_c, groups = clustered_secondary_rows()
    write_rows(tmp_path, "b.jsonl", rows_b)
    write_rows(tmp_path, "c.jsonl", rows_c)
    (tmp_path / "p.yml").write_text("secondary_metrics: [latency, quality]\n")
    report, text, markdown = compare(tmp_path, "--config", "p.yml")
    secondary = {m["metric"]: m for m in report["secondary"]}
    for name, base in (("latency", 1.0), ("quality", 0.5)):
        m = secondary[name]
        d = np.array([r[name] for r in rows_c]) - base
        assert m["method"] == "exact cluster sign-flip"
        assert m["interval"] == "cluster-sign-flip"
        assert (m["resamples"], m["seed"]) == (None, None)  # enumerated, nothing sampled
        assert m["pvalue"] == pytest.approx(cluster_sign_flip_reference(d, groups), rel=1e-9)
        assert m["pvalue_kind"] == "exact"
        assert m["estimate"] == pytest.approx(d.mean())
        # the interval inverts the same test: it excludes 0 exactly when p <= 0.05
        low, high = m["ci"]
        assert (m["pvalue"] <= 0.05) == (low > 0 or high < 0)
        assert m["confidence"] == 0.95
    names = sorted(secondary)
    adjusted = multipletests([secondary[n]["pvalue"] for n in names], method="holm")[1]
    for name, value in zip(names, adjusted, strict=True):
        assert secondary[name]["adjusted_pvalue"] == pytest.approx(value, rel=1e-12)
    assert "exact cluster sign-flip p" in text
    assert "| exact cluster sign-flip |" in markdown
    # without the labels: 200 items, the sampled item sign-flip with the plan's seed
    for rows in (rows_b, rows_c):
        for row in rows:
            del row["cluster"]
    write_rows(tmp_path, "b.jsonl", rows_b)
    write_rows(tmp_path, "c.jsonl", rows_c)
    unclustered, _, _ = compare(tmp_path, "--config", "p.yml")
    for m in unclustered["secondary"]:
        assert (m["method"], m["interval"]) == ("Monte Carlo sign-flip", "sign-flip")
        assert (m["resamples"], m["seed"]) == (10_000, 0)
