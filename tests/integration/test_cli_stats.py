"""`evalbot compare` with the analyses beyond the primary test: BCa intervals, clusters, cost per
solved task, F1 from per-item counts, repeats. Every expected number names its reference."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

import numpy as np
import pytest

Run = Callable[..., CompletedProcess[str]]


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def compare_json(run_cli: Run, *args: str) -> dict[str, Any]:
    proc = run_cli("compare", "b.jsonl", "c.jsonl", "--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


# ---- 0. the paired bootstrap beside the interval that decides --------------------------------


def test_the_paired_bootstrap_is_reported_beside_tango(run_cli: Run) -> None:
    report = json.loads(run_cli("compare", "--example", "--format", "json").stdout)
    boot = report["bootstrap"]
    assert report["difference"]["interval"] == "tango-cc"  # Tango's interval decides
    assert boot["decides"] is False
    assert (boot["method"], boot["resampled"], boot["units"]) == (
        "paired bootstrap (percentile, resampling items)",
        "items",
        400,
    )
    assert (boot["resamples"], boot["seed"], boot["confidence"]) == (10_000, 0, 0.95)
    assert boot["estimate"] == pytest.approx(17 / 400, abs=1e-15)  # (31 - 14) / 400
    # Reference: scipy.stats.bootstrap(paired=True, percentile) on the example's 400 items
    # (266 both pass, 31 fixed, 14 broken, 89 both fail), another random stream: the ends
    # agree within Monte Carlo error and the grid of 1/400 the resampled means live on.
    import scipy.stats as scipy_stats  # an oracle: fails, never skips, when missing

    base = np.repeat([1.0, 0.0, 1.0, 0.0], [266, 31, 14, 89])
    cand = np.repeat([1.0, 1.0, 0.0, 0.0], [266, 31, 14, 89])
    ref = scipy_stats.bootstrap(
        (base, cand),
        lambda b, c, axis=-1: np.mean(c, axis=axis) - np.mean(b, axis=axis),
        paired=True,
        n_resamples=10_000,
        method="percentile",
        random_state=np.random.default_rng(5),
    )
    assert boot["ci"][0] == pytest.approx(ref.confidence_interval.low, abs=0.0051)
    assert boot["ci"][1] == pytest.approx(ref.confidence_interval.high, abs=0.0051)
    above = float(np.mean(ref.bootstrap_distribution > 0))
    assert boot["share_above_zero"] == pytest.approx(above, abs=0.004)  # 3 MC SEs of both
    assert boot["standard_error"] == pytest.approx(ref.standard_error, rel=0.03)
    line = (
        f"Paired bootstrap (percentile, resampling items, 10,000 resamples, seed 0): +4.2 pp "
        f"[{boot['ci'][0] * 100:.1f}, {boot['ci'][1] * 100:.1f}], "
        f"{boot['share_above_zero'] * 100:.1f} % of resamples above zero; for comparison only "
        "(the verdict's interval: Tango score interval, continuity-corrected)."
    )
    assert f"- {line}" in run_cli("compare", "--example").stdout.splitlines()
    markdown = run_cli("compare", "--example", "--format", "markdown").stdout
    details = markdown.split("<details><summary>Why this verdict</summary>", 1)[1]
    bold = line.replace("Paired bootstrap", "**Paired bootstrap**", 1)
    assert f"- {bold}" in details.split("</details>", 1)[0].splitlines()


def test_the_bootstrap_follows_the_plan_and_decides_only_when_asked(
    run_cli: Run, tmp_path: Path
) -> None:
    flags = run_cli("compare", "--example", "--format", "json", "--resamples", "2000")
    flags_boot = json.loads(flags.stdout)["bootstrap"]
    assert (flags_boot["resamples"], flags_boot["seed"]) == (2000, 0)
    seeded = run_cli("compare", "--example", "--format", "json", "--seed", "3")
    assert json.loads(seeded.stdout)["bootstrap"]["seed"] == 3
    (tmp_path / "t.yml").write_text("test: bootstrap\n")
    decided = json.loads(
        run_cli("compare", "--example", "--format", "json", "--config", "t.yml").stdout
    )
    assert decided["bootstrap"]["decides"] is True
    assert decided["difference"]["ci"] == decided["bootstrap"]["ci"]  # one bootstrap, not two
    text = run_cli("compare", "--example", "--config", "t.yml").stdout
    assert "Paired bootstrap (" not in text  # no line beside itself


def test_the_bootstrap_beside_scores_and_clusters(run_cli: Run, tmp_path: Path) -> None:
    base, cand = skewed_scores()
    write_jsonl(tmp_path / "b.jsonl", [{"id": f"q{i}", "score": v} for i, v in enumerate(base)])
    write_jsonl(tmp_path / "c.jsonl", [{"id": f"q{i}", "score": v} for i, v in enumerate(cand)])
    scores = compare_json(run_cli)
    assert scores["difference"]["interval"] == "sign-flip"
    assert scores["bootstrap"]["resamples"] == 10_000  # 200 items: far below the bound
    assert scores["bootstrap"]["estimate"] == pytest.approx(float(np.mean(cand - base)))
    # 8 clusters of 5 items: the bootstrap resamples whole clusters
    rows = [(f"q{i:02d}", i % 3 == 0, i % 2 == 0, f"doc{i // 5}") for i in range(40)]
    write_jsonl(tmp_path / "b.jsonl", [{"id": i, "passed": b, "cluster": g} for i, b, _, g in rows])
    write_jsonl(tmp_path / "c.jsonl", [{"id": i, "passed": c, "cluster": g} for i, _, c, g in rows])
    clustered = compare_json(run_cli)["bootstrap"]
    assert (clustered["resampled"], clustered["units"]) == ("clusters", 8)
    assert clustered["method"] == "paired bootstrap (percentile, resampling clusters)"


# ---- 1. BCa ----------------------------------------------------------------------------------


def skewed_scores(n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Scores whose per-item differences are right-skewed (a shifted exponential), so the BCa
    interval visibly differs from the percentile one; all distinct, so no ties."""
    base = np.array([round((i * 37 % 100) / 100, 6) for i in range(n)])
    cand = np.array(
        [round(base[i] - 0.06 + 0.1 * -math.log(1 - (i * 53 % n + 0.5) / n), 6) for i in range(n)]
    )
    return base, cand


def test_bca_interval_from_config_and_flag(run_cli: Run, tmp_path: Path) -> None:
    base, cand = skewed_scores()
    write_jsonl(tmp_path / "b.jsonl", [{"id": f"q{i}", "score": v} for i, v in enumerate(base)])
    write_jsonl(tmp_path / "c.jsonl", [{"id": f"q{i}", "score": v} for i, v in enumerate(cand)])
    # scores are compared by the test valid at every n unless the plan asks for the bootstrap
    assert compare_json(run_cli)["difference"]["interval"] == "sign-flip"
    (tmp_path / "t.yml").write_text("test: bootstrap\n")
    percentile_report = compare_json(run_cli, "--config", "t.yml")
    percentile = percentile_report["difference"]
    flag_report = compare_json(run_cli, "--config", "t.yml", "--ci-method", "bca")
    flag = flag_report["difference"]
    (tmp_path / "p.yml").write_text("test: bootstrap\nbootstrap: {method: bca}\n")
    config = compare_json(run_cli, "--config", "p.yml")["difference"]
    assert percentile["method"] == "paired bootstrap (percentile, resampling items)"
    assert flag["method"] == "paired bootstrap (bca, resampling items)"
    assert config == flag  # the config key and the flag are the same setting
    # the flag overrides the plan
    back = compare_json(run_cli, "--config", "p.yml", "--ci-method", "percentile")["difference"]
    assert back == percentile
    # the BCa p-value decides with the BCa interval: one method, so they agree
    assert flag_report["test"]["name"] == "paired bootstrap (bca)"
    assert flag_report["test"]["pvalue"] == flag["pvalue"]
    assert percentile_report["test"]["pvalue"] == percentile["pvalue"]
    assert flag_report["test"]["agreement"] in ("both_significant", "neither")
    # Reference: scipy.stats.bootstrap(method="BCa") on the per-item differences (another
    # random stream, 10,000 resamples). Measured over seeds 1-3 its endpoints varied by
    # < 0.0006, and BCa moved both endpoints of this right-skewed sample up by ~0.001.
    import scipy.stats as scipy_stats  # an oracle: fails, never skips, when missing

    reference = scipy_stats.bootstrap(
        (cand - base,),
        np.mean,
        method="BCa",
        n_resamples=10_000,
        confidence_level=0.95,
        random_state=np.random.default_rng(1),
    ).confidence_interval
    assert flag["estimate"] == pytest.approx(float(np.mean(cand - base)), abs=1e-12)
    assert flag["ci"][0] == pytest.approx(reference.low, abs=0.0008)
    assert flag["ci"][1] == pytest.approx(reference.high, abs=0.0008)
    assert flag["ci"][0] > percentile["ci"][0] and flag["ci"][1] > percentile["ci"][1]
    bad = run_cli("compare", "b.jsonl", "c.jsonl", "--ci-method", "bc")
    assert bad.returncode == 2
    assert "argument --ci-method: invalid choice: 'bc'" in bad.stderr


# ---- 2. clusters -----------------------------------------------------------------------------


def test_clusters_standard_error_and_count(run_cli: Run, tmp_path: Path) -> None:
    # 8 clusters ("doc0".."doc7") of 5 items; item i passes on the baseline when i % 3 == 0 and
    # on the candidate when i % 2 == 0, so the per-item differences vary within clusters.
    n = 40
    base = np.array([float(i % 3 == 0) for i in range(n)])
    cand = np.array([float(i % 2 == 0) for i in range(n)])
    labels = [f"doc{i // 5}" for i in range(n)]
    write_jsonl(
        tmp_path / "b.jsonl",
        [{"id": f"q{i:02d}", "passed": bool(base[i]), "cluster": labels[i]} for i in range(n)],
    )
    write_jsonl(
        tmp_path / "c.jsonl",
        [{"id": f"q{i:02d}", "passed": bool(cand[i]), "cluster": labels[i]} for i in range(n)],
    )
    report = compare_json(run_cli)
    diff = report["difference"]
    assert diff["method"] == "exact cluster sign-flip"
    assert diff["interval"] == "cluster-sign-flip"
    assert diff["clusters"] == 8
    # Reference 1: the CR1 formula by numpy on the same data,
    # sqrt(G/(G-1) * sum_g (D_g - n_g mean(d))^2) / N
    d = cand - base
    sums = np.array([d[g * 5 : g * 5 + 5].sum() for g in range(8)])
    cr1 = math.sqrt(8 / 7 * float(np.sum((sums - 5 * d.mean()) ** 2))) / n
    assert diff["clustered_standard_error"] == pytest.approx(cr1, rel=1e-12)
    # the cluster test's own standard error is the same CR1
    assert diff["standard_error"] == pytest.approx(cr1, rel=1e-12)
    # Reference 2: statsmodels OLS of d on a constant with cluster-robust errors; its default
    # small-sample factor G/(G-1) * (N-1)/(N-K) is CR1's G/(G-1) for K = 1 regressor.
    import statsmodels.api as sm  # an oracle: fails, never skips, when missing

    groups = np.repeat(np.arange(8), 5)
    fit = sm.OLS(d, np.ones((n, 1))).fit(cov_type="cluster", cov_kwds={"groups": groups})
    assert diff["clustered_standard_error"] == pytest.approx(float(fit.bse[0]), rel=1e-9)
    markdown = run_cli("compare", "b.jsonl", "c.jsonl", "--format", "markdown").stdout
    assert (
        "Items share clusters (40 labelled items in 8 clusters): the test and its interval take "
        "each cluster as one unit, and any bootstrap resamples whole clusters; cluster-robust "
        f"(CR1) standard error of the difference {cr1 * 100:.1f} pp."
    ) in markdown
    # without labels there is nothing to report
    write_jsonl(
        tmp_path / "b.jsonl", [{"id": f"q{i:02d}", "passed": bool(base[i])} for i in range(n)]
    )
    write_jsonl(
        tmp_path / "c.jsonl", [{"id": f"q{i:02d}", "passed": bool(cand[i])} for i in range(n)]
    )
    plain = compare_json(run_cli)["difference"]
    assert plain["clusters"] is None and plain["clustered_standard_error"] is None


# ---- 3. cost per solved task ------------------------------------------------------------------


def test_cost_per_solved_task(run_cli: Run, tmp_path: Path) -> None:
    # 60 items. Baseline: passes i % 2 == 0 (30 solved), cost 1.0 + (i % 5) / 10.
    # Candidate: passes i % 3 != 0 (40 solved), cost 0.8 + (i % 5) / 10.
    n = 60
    b_pass = [i % 2 == 0 for i in range(n)]
    c_pass = [i % 3 != 0 for i in range(n)]
    b_cost = [1.0 + (i % 5) / 10 for i in range(n)]
    c_cost = [0.8 + (i % 5) / 10 for i in range(n)]
    write_jsonl(
        tmp_path / "b.jsonl",
        [{"id": f"q{i}", "passed": b_pass[i], "cost": b_cost[i]} for i in range(n)],
    )
    write_jsonl(
        tmp_path / "c.jsonl",
        [{"id": f"q{i}", "passed": c_pass[i], "cost": c_cost[i]} for i in range(n)],
    )
    cost = compare_json(run_cli)["cost_per_solved"]
    # Hand-worked: sum over i of (i % 5) / 10 is 12 cycles x 1.0 = 12; so the baseline total is
    # 60 + 12 = 72 and the candidate's 48 + 12 = 60; cost per solved 72/30 = 2.4, 60/40 = 1.5.
    assert cost["baseline"] == {
        "total_cost": pytest.approx(72.0),
        "solved": 30.0,
        "cost_per_solved": pytest.approx(2.4),
        "items_without_cost": 0,
    }
    assert cost["candidate"]["total_cost"] == pytest.approx(60.0)
    assert cost["candidate"]["cost_per_solved"] == pytest.approx(1.5)
    diff = cost["difference"]
    assert diff["estimate"] == pytest.approx(1.5 - 2.4)
    assert diff["method"] == "paired bootstrap (percentile, resampling items)"
    assert diff["n_undefined"] == 0  # 30 solved items: no resample solves none
    # Reference interval: a direct numpy paired bootstrap of the ratio of sums (own random
    # stream, 10,000 resamples of item indices), percentile endpoints; Monte Carlo tolerance.
    rng = np.random.default_rng(12345)
    idx = rng.integers(0, n, size=(10_000, n))
    bc, bp = np.array(b_cost), np.array(b_pass, dtype=float)
    cc, cp = np.array(c_cost), np.array(c_pass, dtype=float)
    boot = cc[idx].sum(1) / cp[idx].sum(1) - bc[idx].sum(1) / bp[idx].sum(1)
    low, high = np.percentile(boot, [2.5, 97.5])
    assert diff["ci"][0] == pytest.approx(low, abs=0.04)
    assert diff["ci"][1] == pytest.approx(high, abs=0.04)
    assert diff["standard_error"] == pytest.approx(float(boot.std(ddof=1)), rel=0.05)
    markdown = run_cli("compare", "b.jsonl", "c.jsonl", "--format", "markdown").stdout
    line = next(x for x in markdown.splitlines() if x.startswith("**Cost per solved task:**"))
    assert line.startswith("**Cost per solved task:** 2.4 → 1.5, difference -0.9 [")
    assert line.endswith("; total cost 72 → 60.")
    # one side solves nothing: no ratio and no interval, the totals stay
    write_jsonl(
        tmp_path / "b.jsonl",
        [{"id": f"q{i}", "passed": False, "cost": b_cost[i]} for i in range(n)],
    )
    none_solved = compare_json(run_cli)["cost_per_solved"]
    assert none_solved["baseline"]["cost_per_solved"] is None
    assert none_solved["difference"] is None
    assert none_solved["candidate"]["cost_per_solved"] == pytest.approx(1.5)
    # without costs: null
    write_jsonl(tmp_path / "b.jsonl", [{"id": f"q{i}", "passed": b_pass[i]} for i in range(n)])
    assert compare_json(run_cli)["cost_per_solved"] is None


# ---- 4. F1 from per-item counts ---------------------------------------------------------------


def test_f1_from_counts(run_cli: Run, tmp_path: Path) -> None:
    # 50 items with entity counts; the candidate finds one more true positive on every 5th item
    # (turning a false negative into a true positive) and adds a false positive on every 10th.
    n = 50
    b = [{"tp": 2 + i % 3, "fp": i % 2, "fn": 1 + i % 4} for i in range(n)]
    c = [
        {
            "tp": r["tp"] + (i % 5 == 0),
            "fp": r["fp"] + (i % 10 == 0),
            "fn": r["fn"] - (i % 5 == 0),
        }
        for i, r in enumerate(b)
    ]
    write_jsonl(
        tmp_path / "b.jsonl",
        [{"id": f"q{i}", "passed": True, "counts": b[i]} for i in range(n)],
    )
    write_jsonl(
        tmp_path / "c.jsonl",
        [{"id": f"q{i}", "passed": True, "counts": c[i]} for i in range(n)],
    )
    (tmp_path / "p.yml").write_text("f1: {tp: counts.tp, fp: counts.fp, fn: counts.fn}\n")
    f1 = compare_json(run_cli, "--config", "p.yml")["f1"]
    # Reference: the totals summed in plain Python (and by hand below), then micro
    # F1 = 2 TP / (2 TP + FP + FN) per side.
    tb, fpb, fnb = (sum(r[k] for r in b) for k in ("tp", "fp", "fn"))
    tc, fpc, fnc = (sum(r[k] for r in c) for k in ("tp", "fp", "fn"))
    # tp: 50*2 + 16*(0+1+2) + (0+1); fp: 25 odd i; fn: 50 + 12*(0+1+2+3) + (0+1)
    assert (tb, fpb, fnb) == (149, 25, 123)
    assert (tc, fpc, fnc) == (159, 30, 113)  # +10 tp, +5 fp, -10 fn
    f1_b, f1_c = 2 * tb / (2 * tb + fpb + fnb), 2 * tc / (2 * tc + fpc + fnc)
    assert f1["baseline"] == {"f1": pytest.approx(f1_b), "tp": 149.0, "fp": 25.0, "fn": 123.0}
    assert f1["candidate"]["f1"] == pytest.approx(f1_c)
    assert f1["difference"]["estimate"] == pytest.approx(f1_c - f1_b)
    # Reference interval: numpy paired bootstrap of micro F1 over items (own random stream).
    rng = np.random.default_rng(2024)
    idx = rng.integers(0, n, size=(10_000, n))

    def micro(rows: list[dict[str, int]]) -> np.ndarray:
        tp, fp, fn = (
            np.array([r[k] for r in rows], dtype=float)[idx].sum(1) for k in ("tp", "fp", "fn")
        )
        return 2 * tp / (2 * tp + fp + fn)

    boot = micro(c) - micro(b)
    low, high = np.percentile(boot, [2.5, 97.5])
    assert f1["difference"]["ci"][0] == pytest.approx(low, abs=0.003)
    assert f1["difference"]["ci"][1] == pytest.approx(high, abs=0.003)
    assert f1["difference"]["n_undefined"] == 0
    markdown = run_cli("compare", "b.jsonl", "c.jsonl", "--config", "p.yml", "--format", "markdown")
    assert f"**Micro F1** (from per-item TP/FP/FN): {f1_b:.3f} → {f1_c:.3f}, difference " in (
        markdown.stdout
    )
    # a count missing from an item is one clear line
    write_jsonl(tmp_path / "c.jsonl", [{"id": f"q{i}", "passed": True} for i in range(n)])
    proc = run_cli("compare", "b.jsonl", "c.jsonl", "--config", "p.yml")
    assert proc.returncode == 2
    assert proc.stderr == (
        "evalbot: error: c.jsonl:1: item 'q0' has no `counts.tp` (a count for `f1`)\n"
    )


# ---- 5. repeats ------------------------------------------------------------------------------


def test_repeats_pass_at_k_standard_error_and_budget(run_cli: Run, tmp_path: Path) -> None:
    # 30 items x 4 epochs. Item i passes c_i = i % 5 of its 4 repeats (capped at 4) on the
    # baseline, and one more (capped) on the candidate.
    n, k = 30, 4
    correct_b = [min(i % 5, k) for i in range(n)]
    correct_c = [min(c + 1, k) for c in correct_b]
    for name, correct in (("b.jsonl", correct_b), ("c.jsonl", correct_c)):
        write_jsonl(
            tmp_path / name,
            [
                {"id": f"q{i}", "epoch": e, "passed": e < correct[i]}
                for i in range(n)
                for e in range(k)
            ],
        )
    repeats = compare_json(run_cli)["repeats"]
    side = repeats["baseline"]
    assert side["repeats"] == 4 and side["items"] == 30
    # pass@k, unbiased (Chen et al.): mean over items of 1 - C(k - c, j) / C(k, j), by math.comb
    for j in range(1, k + 1):
        expected = sum(1 - math.comb(k - c, j) / math.comb(k, j) for c in correct_b) / n
        assert side["pass_at_k"][str(j)] == pytest.approx(expected, rel=1e-12)
    assert side["pass_at_k"]["1"] == pytest.approx(sum(correct_b) / (n * k))  # = mean pass rate
    assert list(side["pass_at_k"]) == ["1", "2", "3", "4"]  # k = 1 .. min(epochs, 10)
    # Variance components by numpy on the item x repeat matrix: w = mean per-item variance
    # (ddof=1), sigma_b^2 = var(item means, ddof=1) - w / k; SE = sqrt((sigma_b^2 + w/k) / n).
    matrix = np.array([[float(e < c) for e in range(k)] for c in correct_b])
    w = float(matrix.var(axis=1, ddof=1).mean())
    var_means = float(matrix.mean(axis=1).var(ddof=1))
    sb = max(0.0, var_means - w / k)
    assert side["within_item_variance"] == pytest.approx(w)
    assert side["standard_error"] == pytest.approx(math.sqrt((sb + w / k) / n))
    # here sigma_b^2 > 0, so that SE equals the plain sd(item means) / sqrt(n)
    assert side["standard_error"] == pytest.approx(math.sqrt(var_means / n))
    # Budget: the same n k = 120 calls on 120 distinct items of one repeat minimise
    # sigma_b^2 / n' + w / (n' k'); SE = sqrt((sigma_b^2 + w) / 120).
    budget = side["budget"]
    assert (budget["calls"], budget["items"], budget["repeats"]) == (120, 120, 1)
    assert budget["standard_error"] == pytest.approx(math.sqrt((sb + w) / 120))
    assert [(o["items"], o["repeats"]) for o in budget["options"]] == [
        (120 // r, r) for r in range(1, 11)
    ]
    assert budget["options"][3]["standard_error"] == pytest.approx(side["standard_error"])
    assert repeats["candidate"]["pass_at_k"]["1"] == pytest.approx(sum(correct_c) / (n * k))
    markdown = run_cli("compare", "b.jsonl", "c.jsonl", "--format", "markdown").stdout
    line = next(x for x in markdown.splitlines() if x.startswith("**pass@k and budget.**"))
    p1, p4 = side["pass_at_k"]["1"], side["pass_at_k"]["4"]
    assert f"baseline: pass@1 {p1 * 100:.1f} %, pass@4 {p4 * 100:.1f} %; " in line
    assert (
        f"the same 120 calls on 120 distinct items × 1 repeat would give "
        f"{budget['standard_error'] * 100:.1f} pp." in line
    )
    # one sample per item: no repeats section
    write_jsonl(tmp_path / "b.jsonl", [{"id": f"q{i}", "passed": True} for i in range(n)])
    write_jsonl(tmp_path / "c.jsonl", [{"id": f"q{i}", "passed": i % 2 == 0} for i in range(n)])
    assert compare_json(run_cli)["repeats"] == {"baseline": None, "candidate": None}


# ---- tiny evals never crash ---------------------------------------------


@pytest.mark.parametrize(
    ("baseline", "candidate", "fixed", "broken"),
    [
        ([False], [True], 1, 0),  # one item, false -> true: fix rate 1.0
        ([True] * 5, [False] * 5, 0, 5),  # five items, all broken: break rate 1.0
        ([True], [True], 0, 0),  # one item, unchanged
        ([True, False, True], [False, True, False], 1, 2),  # every item discordant
    ],
)
def test_tiny_evals_give_a_verdict(
    run_cli: Run,
    tmp_path: Path,
    baseline: list[bool],
    candidate: list[bool],
    fixed: int,
    broken: int,
) -> None:
    write_jsonl(
        tmp_path / "b.jsonl", [{"id": f"q{i}", "passed": v} for i, v in enumerate(baseline)]
    )
    write_jsonl(
        tmp_path / "c.jsonl", [{"id": f"q{i}", "passed": v} for i, v in enumerate(candidate)]
    )
    report = compare_json(run_cli)
    assert (report["table"]["fixed"], report["table"]["broken"]) == (fixed, broken)
    # exact McNemar p = min(1, 2 P(X <= min)) for X ~ Bin(d, 1/2), by hand: 2/2 for 1/0,
    # 2/32 for 0/5, 1 for 0/0 and for 1/2 (2 * 4/8)
    assert report["mcnemar"]["pvalue"] == (0.0625 if broken == 5 else 1.0)
    assert report["verdict"]["outcome"] == "no_significant_difference"
    # with every item changed the eval is powerless: nothing is detectable with 80 % power
    assert report["power"]["minimum_detectable_effect"] is None
    if min(fixed, broken) == 0 and fixed != broken:
        # every item moved one way: 2^(1-d) <= 0.05 first at d = 6, so 6 items
        assert report["power"]["items_needed"] == 6
    text = run_cli("compare", "b.jsonl", "c.jsonl")
    assert text.returncode == 0, text.stderr
    assert "Traceback" not in text.stderr


def test_repeats_side_interval_stays_in_unit_interval(run_cli: Run, tmp_path: Path) -> None:
    # Two items, two epochs: per-item pass rates 1.0 and 0.5 (the issue's "75.0 %
    # [-242.7, 392.7]" from a t interval). The interval is Wilson with the effective number of
    # trials (evalbot.stats.intervals.mean_of_means_interval, checked by hand in test_intervals.py).
    rows_b = [{"id": i, "epoch": e, "passed": True} for i in ("a", "b") for e in (1, 2)]
    rows_c = [
        {"id": "a", "epoch": 1, "passed": True},
        {"id": "a", "epoch": 2, "passed": True},
        {"id": "b", "epoch": 1, "passed": True},
        {"id": "b", "epoch": 2, "passed": False},
    ]
    write_jsonl(tmp_path / "b.jsonl", rows_b)
    write_jsonl(tmp_path / "c.jsonl", rows_c)
    report = compare_json(run_cli)
    from evalbot.stats.intervals import mean_of_means_interval

    low, high = report["candidate"]["ci"]
    assert 0.0 <= low <= report["candidate"]["rate"] == 0.75 <= high <= 1.0
    expected = mean_of_means_interval([1.0, 0.5], 2).confidence_interval
    assert (low, high) == pytest.approx(tuple(expected))
    assert report["candidate"]["ci_method"] == "wilson (effective n)"
    assert report["baseline"]["ci"][1] == 1.0
