"""`evalbot` as a user runs it: a subprocess, files on disk, exit codes, stdout/stderr."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from subprocess import CompletedProcess

import numpy as np
import pytest

Run = Callable[..., CompletedProcess[str]]


def write_pair(tmp: Path, cells: dict[str, int], *, shuffle: bool = True) -> tuple[Path, Path]:
    """Write baseline/candidate JSONL files with the given 2x2 cell counts."""
    base, cand = [], []
    number = 0
    for cell, count in cells.items():
        for _ in range(count):
            number += 1
            item = f"item-{number:05d}"
            base.append({"id": item, "passed": cell in ("both_pass", "broken")})
            cand.append({"id": item, "passed": cell in ("both_pass", "fixed")})
    if shuffle:
        cand.reverse()  # pairing must be by id, not row order
    b, c = tmp / "baseline.jsonl", tmp / "candidate.jsonl"
    b.write_text("".join(json.dumps(r) + "\n" for r in base))
    c.write_text("".join(json.dumps(r) + "\n" for r in cand))
    return b, c


def exact_mcnemar(fixed: int, broken: int) -> float:
    """Two-sided exact binomial p-value computed with exact fractions (independent of scipy)."""
    n, k = fixed + broken, min(fixed, broken)
    tail = sum(Fraction(math.comb(n, i), 2**n) for i in range(k + 1))
    return float(min(Fraction(1), 2 * tail))


WORKED = {"both_pass": 266, "fixed": 31, "broken": 14, "both_fail": 89}


def test_worked_example_json(run_cli: Run, tmp_path: Path) -> None:
    b, c = write_pair(tmp_path, WORKED)
    proc = run_cli("compare", str(b), str(c), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    for key in (
        "schema_version",
        "items",
        "metric",
        "baseline",
        "candidate",
        "difference",
        "table",
        "mcnemar",
        "policy",
        "verdict",
    ):
        assert key in report
    assert report["schema_version"] == 1
    assert report["items"] == 400
    assert report["metric"] == "pass_rate"
    assert report["table"] == WORKED
    assert report["baseline"]["passed"] == 280
    assert report["candidate"]["passed"] == 297
    assert report["baseline"]["rate"] == pytest.approx(0.70)
    assert report["candidate"]["rate"] == pytest.approx(0.7425)
    # exact McNemar: 2 * P(X <= 14), X ~ Bin(45, 1/2), from exact fractions
    assert report["mcnemar"]["method"] == "exact"
    assert report["mcnemar"]["discordant"] == 45
    assert report["mcnemar"]["pvalue"] == pytest.approx(exact_mcnemar(31, 14), rel=1e-12)
    # the interval of the difference: Tango's score interval with continuity correction,
    # against an independent construction (tango_cc_reference: the constrained maximum
    # likelihood by numerical optimisation, the ends by scanning)
    d = 17 / 400
    low, high = report["difference"]["ci"]
    assert report["difference"]["estimate"] == pytest.approx(d)
    assert report["difference"]["interval"] == "tango-cc"
    ref_low, ref_high = tango_cc_reference(31, 14, 400)
    assert low == pytest.approx(ref_low, abs=2e-5)
    assert high == pytest.approx(ref_high, abs=2e-5)
    # the plug-in standard error of a paired difference: sqrt((45/400 - d^2) / 400)
    se = math.sqrt((45 / 400 - d**2) / 400)
    assert report["difference"]["standard_error"] == pytest.approx(se, rel=1e-12)
    # the p-value of the test the interval inverts: McNemar's continuity-corrected
    # chi-squared, (|31 - 14| - 1)^2 / 45 = 256/45 on one degree of freedom
    assert report["difference"]["pvalue"] == pytest.approx(
        math.erfc(math.sqrt(256 / 45 / 2)), rel=1e-9
    )
    assert report["difference"]["resamples"] == 10000
    assert report["difference"]["seed"] == 0
    assert report["verdict"]["outcome"] == "improvement"
    assert report["verdict"]["gate"] == "pass"
    assert report["policy"] == {"ok": True, "violations": []}
    assert len(report["broken_ids"]) == 14


def tango_cc_reference(
    fixed: int, broken: int, n: int, z: float = 1.959963985
) -> tuple[float, float]:
    """Tango's 95 % score interval with continuity correction, built independently of evalbot:
    the broken rate under ``p_fixed - p_broken = delta`` by numerical maximisation of the
    multinomial likelihood (scipy.optimize), the accepted deltas by scanning a 0.001 grid, each
    end refined by root finding on the score."""
    from scipy.optimize import brentq, minimize_scalar

    def score(delta: float) -> float:
        def negloglik(q: float) -> float:
            cells = [(fixed, q + delta), (broken, q), (n - fixed - broken, 1 - 2 * q - delta)]
            return -sum(k * math.log(max(p, 1e-300)) for k, p in cells if k)

        bounds = (max(0.0, -delta), min(1.0, (1.0 - delta) / 2.0))
        q = minimize_scalar(negloglik, bounds=bounds, method="bounded", options={"xatol": 1e-12}).x
        gap = fixed - broken - n * delta
        corrected = math.copysign(max(abs(gap) - 1.0, 0.0), gap)
        return corrected / math.sqrt(n * (2 * q + delta * (1 - delta)))

    estimate = (fixed - broken) / n
    accepted = [x for x in np.arange(-0.999, 0.999, 1e-3) if abs(score(x)) <= z]
    low = brentq(lambda x: score(x) - z, min(accepted) - 1e-3, min(min(accepted), estimate))
    high = brentq(lambda x: score(x) + z, max(max(accepted), estimate), max(accepted) + 1e-3)
    return low, high


def test_output_is_reproducible_and_seed_matters(run_cli: Run, tmp_path: Path) -> None:
    b, c = write_pair(tmp_path, WORKED)
    first = run_cli("compare", str(b), str(c), "--format", "json")
    again = run_cli("compare", str(b), str(c), "--format", "json")
    other = run_cli(
        "compare",
        str(b),
        str(c),
        "--format",
        "json",
        "--seed",
        "1",
        "--resamples",
        "2000",
        "--confidence",
        "0.9",
    )
    assert first.stdout == again.stdout
    ci0 = json.loads(first.stdout)["difference"]
    ci1 = json.loads(other.stdout)["difference"]
    assert ci1["seed"] == 1 and ci1["resamples"] == 2000 and ci1["confidence"] == 0.9
    assert ci1["ci"] != ci0["ci"]
    assert ci1["ci"][1] - ci1["ci"][0] < ci0["ci"][1] - ci0["ci"][0]  # 90 % is narrower


def test_markdown_report(run_cli: Run, tmp_path: Path) -> None:
    b, c = write_pair(tmp_path, WORKED)
    proc = run_cli("compare", str(b), str(c), "--format", "markdown")
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.startswith("### ✅ Improvement: +4.2 pp [")
    assert "31 fixed" in proc.stdout and "14 broken" in proc.stdout
    assert "p = 0.0" in proc.stdout


def test_regression_fails_the_gate(run_cli: Run, tmp_path: Path) -> None:
    b, c = write_pair(tmp_path, {"both_pass": 266, "fixed": 14, "broken": 31, "both_fail": 89})
    proc = run_cli("compare", str(b), str(c), "--format", "json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["verdict"]["outcome"] == "regression"
    assert report["verdict"]["gate"] == "fail"


def test_no_discordant_pairs(run_cli: Run, tmp_path: Path) -> None:
    b, c = write_pair(tmp_path, {"both_pass": 30, "fixed": 0, "broken": 0, "both_fail": 10})
    proc = run_cli("compare", str(b), str(c), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["mcnemar"]["pvalue"] == 1.0
    # Tango-cc with no discordant pair, by hand: above 0 the constrained estimate of the
    # broken rate is 0, so |n d| - 1 = z sqrt(n d (1 - d)); n = 40, z = 1.959964:
    # (1600 + 40 z^2) d^2 - (80 + 40 z^2) d + 1 = 0, the larger root; symmetric below 0
    z2 = 1.959964**2
    a, b = 1600 + 40 * z2, -(80 + 40 * z2)
    upper = (-b + math.sqrt(b * b - 4 * a)) / (2 * a)  # 0.12882
    assert report["difference"]["ci"] == pytest.approx([-upper, upper], abs=1e-6)
    assert report["difference"]["estimate"] == 0.0
    assert report["verdict"]["outcome"] == "no_significant_difference"


def test_config_sample_size_makes_it_inconclusive(run_cli: Run, tmp_path: Path) -> None:
    b, c = write_pair(tmp_path, WORKED)
    (tmp_path / "plan.yml").write_text("policy:\n  sample_size: 500\n")
    proc = run_cli("compare", str(b), str(c), "--format", "json", "--config", "plan.yml")
    report = json.loads(proc.stdout)
    assert report["verdict"]["outcome"] == "inconclusive"
    assert report["policy"]["ok"] is False
    assert "pre-registered 500" in report["policy"]["violations"][0]


def test_max_broken_gate(run_cli: Run, tmp_path: Path) -> None:
    b, c = write_pair(tmp_path, WORKED)
    (tmp_path / ".evalbot.yml").write_text("gate:\n  max_broken: 10\n")
    proc = run_cli("compare", str(b), str(c), "--format", "json")  # picked up from the cwd
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["verdict"]["gate"] == "fail"


def test_text_is_default_and_example_runs(run_cli: Run) -> None:
    proc = run_cli("compare", "--example")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Improvement: +4.2 pp [")
    assert "400 paired items" in proc.stdout


def test_score_metric(run_cli: Run, tmp_path: Path) -> None:
    b, c = tmp_path / "b.csv", tmp_path / "c.csv"
    b.write_text("id,score\n" + "".join(f"q{i},{(i % 10) / 10}\n" for i in range(200)))
    c.write_text(
        "id,score\n" + "".join(f"q{i},{min(1, (i % 10) / 10 + 0.05)}\n" for i in range(200))
    )
    proc = run_cli("compare", str(b), str(c), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["metric"] == "mean_score"
    assert report["mcnemar"] is None
    assert report["difference"]["estimate"] == pytest.approx(0.05)
    assert report["verdict"]["outcome"] == "improvement"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["compare", "missing.jsonl", "c.jsonl"],
            "evalbot: error: missing.jsonl: no such file or directory",
        ),
        (
            ["compare", "b.jsonl", "bad.jsonl"],
            "evalbot: error: bad.jsonl:2: not valid JSON (Expecting property name enclosed in double quotes)",
        ),
        (["compare", "b.jsonl", "empty.jsonl"], "evalbot: error: empty.jsonl: no items"),
        (
            ["compare", "b.jsonl", "dup.jsonl"],
            "evalbot: error: dup.jsonl:2: duplicate item 'a' (first seen at dup.jsonl:1); repeats need an `epoch` field",
        ),
        (
            ["compare", "b.jsonl", "noid.jsonl"],
            "evalbot: error: noid.jsonl:1: missing `id` (fields: 'passed'); name the id field "
            "with --id-field NAME (config `fields: {id: NAME}`)",
        ),
        (
            ["compare", "b.jsonl", "yes.jsonl"],
            "evalbot: error: yes.jsonl:1: `passed` must be true/false or 0/1, got 'yes'",
        ),
        (
            ["compare", "b.jsonl", "other.jsonl"],
            "evalbot: error: other.jsonl: items differ from b.jsonl: 1 only in the baseline ('b'); "
            "1 only in the candidate ('z') (to allow this, add --missing drop or --missing fail, "
            "config `policy.missing`)",
        ),
        (
            ["compare", "b.jsonl", "emptydir"],
            "evalbot: error: emptydir: directory holds no result files (.jsonl, .ndjson, .json, .csv, .tsv, .eval, .xml, .zip)",
        ),
        (
            ["compare", "b.jsonl", "*.nothing"],
            "evalbot: error: *.nothing: no files match this pattern",
        ),
        (
            ["compare", "b.jsonl"],
            "evalbot: error: evalbot compare: BASELINE and CANDIDATE are required (or --example)",
        ),
        (
            ["compare", "b.jsonl", "b.jsonl", "--config", "nope.yml"],
            "evalbot: error: nope.yml: cannot read the config (No such file or directory)",
        ),
        (
            ["compare", "b.jsonl", "b.jsonl", "--resamples", "ten"],
            "evalbot: error: evalbot compare: argument --resamples: must be an integer, got 'ten' (see --help)",
        ),
        (
            ["plan", "--fix-rate", "0.05", "--break-rate", "0.05"],
            "evalbot: error: evalbot plan: --fix-rate equals --break-rate, so there is no difference to detect",
        ),
        (
            ["plan", "--fix-rate", "1.5", "--break-rate", "0.05"],
            "evalbot: error: evalbot plan: argument --fix-rate: must be strictly between 0 and 1, got 1.5 (see --help)",
        ),
        (["frobnicate"], None),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    run_cli: Run, tmp_path: Path, args: list[str], message: str | None
) -> None:
    (tmp_path / "b.jsonl").write_text('{"id": "a", "passed": true}\n{"id": "b", "passed": false}\n')
    (tmp_path / "bad.jsonl").write_text('{"id": "a", "passed": true}\n{"id": "b", passed: false}\n')
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "emptydir").mkdir()
    (tmp_path / "dup.jsonl").write_text(
        '{"id": "a", "passed": true}\n{"id": "a", "passed": false}\n'
    )
    (tmp_path / "noid.jsonl").write_text('{"passed": true}\n')
    (tmp_path / "yes.jsonl").write_text('{"id": "a", "passed": "yes"}\n')
    (tmp_path / "other.jsonl").write_text(
        '{"id": "a", "passed": true}\n{"id": "z", "passed": false}\n'
    )
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    if message is not None:
        assert lines[0] == message


@pytest.mark.parametrize(
    ("fix", "brk", "items", "normal_pairs", "normal_items"),
    [
        # The issue: 367 items for the exact test (tests/unit/stats/test_power.py recomputes
        # it with scipy.stats.binom sums at every n); the normal approximation, by hand:
        # p = .08/.11, d = (1.959964*.5 + 0.841621*sqrt(p(1-p)))^2 / (p-.5)^2 = 35.54 -> 36
        # pairs; 36/.11 = 327.3 -> 328 items.
        ("0.08", "0.03", 367, 36, 328),
        # p = .05/.09: d = 633.4 -> 634 pairs; 634/.09 = 7044.4 -> 7045 (approximation); the
        # exact test needs 7241.
        ("0.05", "0.04", 7241, 634, 7045),
    ],
)
def test_plan(
    run_cli: Run, fix: str, brk: str, items: int, normal_pairs: int, normal_items: int
) -> None:
    proc = run_cli("plan", "--fix-rate", fix, "--break-rate", brk, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["schema_version"] == 1
    assert result["items"] == items
    assert result["discordant_pairs"] == math.ceil(items * (float(fix) + float(brk)))
    assert result["target_power"] == 0.8
    assert result["power_reached"] >= 0.8
    assert result["normal_approximation"]["items"] == normal_items
    assert result["normal_approximation"]["discordant_pairs"] == normal_pairs
    assert result["normal_approximation"]["power_reached"] < 0.8
    text = run_cli("plan", "--fix-rate", fix, "--break-rate", brk)
    assert text.stdout.startswith(f"{items} items to detect")
    assert f"power {result['power_reached']:.3f} (target 0.8)" in text.stdout
    assert f"The normal approximation would say {normal_items} items" in text.stdout


def test_version_and_module_entry(run_cli_process: Run) -> None:
    """The real entry point, ``python -m evalbot``, as a process (the other CLI tests call
    ``evalbot.cli.main`` in process): version, a comparison, a gate failure, a usage error."""
    proc = run_cli_process("--version")
    assert proc.returncode == 0
    assert proc.stdout.startswith("evalbot ")
    example = run_cli_process("compare", "--example", "--format", "json")
    assert example.returncode == 0, example.stderr
    assert json.loads(example.stdout)["verdict"]["outcome"] == "improvement"
    bad = run_cli_process("compare", "missing.jsonl", "other.jsonl")
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr == "evalbot: error: missing.jsonl: no such file or directory\n"


def test_plan_reports_exact_and_simulated_power(run_cli: Run) -> None:
    proc = run_cli("plan", "--fix-rate", "0.08", "--break-rate", "0.03", "--format", "json")
    result = json.loads(proc.stdout)
    # the power reached is exact; the seeded simulation agrees within Monte Carlo error
    assert result["power_reached"] == result["exact_power"]
    assert abs(result["simulated_power"] - result["exact_power"]) < 4 * result["simulated_power_se"]
    assert (result["rule"], result["stable_items"], result["stays_above"]) == (
        "smallest",
        367,
        True,
    )


def test_plan_sawtooth_is_reported(run_cli: Run) -> None:
    # fix 0.9 / break 0.08: 10 items reach 0.8, 11 do not, 12 on do (recomputed with
    # scipy.stats.binom in tests/unit/stats/test_power.py)
    text = run_cli("plan", "--fix-rate", "0.9", "--break-rate", "0.08").stdout
    assert text.startswith("10 items to detect")
    assert "it dips below 0.8 again at some larger sizes (from 12 items on it stays above)" in text


def test_plan_minimum_detectable_effect(run_cli: Run) -> None:
    from statistics import NormalDist

    proc = run_cli("plan", "--items", "100", "--discordance", "0.1", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["schema_version"] == 1
    # The exact answer (checked against scipy.stats.binom sums in test_power.py): 8.84 pp.
    assert result["minimum_detectable_effect"] == pytest.approx(0.088417, abs=1e-6)
    assert result["power_reached"] == pytest.approx(0.8, abs=1e-9)
    # The normal approximation, an independent reference: bisection on
    # sqrt(D)(p - 1/2) = z_{.975}/2 + z_{.8} sqrt(p(1-p)), D = 100 * 0.1; effect 0.1 (2p - 1).
    z_a, z_b = NormalDist().inv_cdf(0.975), NormalDist().inv_cdf(0.8)
    lo, hi = 0.5, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if math.sqrt(10) * (mid - 0.5) - (z_a / 2 + z_b * math.sqrt(mid * (1 - mid))) < 0:
            lo = mid
        else:
            hi = mid
    normal = result["normal_approximation"]
    assert normal["minimum_detectable_effect"] == pytest.approx(0.1 * (2 * lo - 1), abs=1e-9)
    assert round(normal["power_reached"], 3) == 0.645  # the figure
    text = run_cli("plan", "--items", "100", "--discordance", "0.1")
    assert "McNemar's exact test detects a net change of 8.8 pp or more" in text.stdout
    assert "The normal approximation would say 7.8 pp" in text.stdout
    tiny = run_cli("plan", "--items", "10", "--discordance", "0.1", "--format", "json")
    assert json.loads(tiny.stdout)["detectable"] is False


def test_plan_needs_one_of_two_designs(run_cli: Run) -> None:
    proc = run_cli("plan", "--fix-rate", "0.1", "--items", "100")
    assert proc.returncode == 2
    assert proc.stderr == (
        "evalbot: error: evalbot plan: --fix-rate/--break-rate and --items exclude each "
        "other; give one\n"
    )


def test_secondary_metrics_with_holm(run_cli: Run, tmp_path: Path) -> None:
    base, cand = [], []
    for i in range(120):
        passed_b, passed_c = i % 3 != 0, i % 4 != 0
        base.append(
            {
                "id": f"q{i}",
                "passed": passed_b,
                "latency": 1.0 + (i % 5) / 10,
                "metrics": {"f1": (i % 7) / 7},
            }
        )
        cand.append(
            {
                "id": f"q{i}",
                "passed": passed_c,
                "latency": 0.8 + (i % 5) / 10,
                "metrics": {"f1": (i % 7) / 7},
            }
        )
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in base))
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in cand))
    (tmp_path / "p.yml").write_text("secondary_metrics: [latency, metrics.f1]\n")
    proc = run_cli("compare", "b.jsonl", "c.jsonl", "--config", "p.yml", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    secondary = {m["metric"]: m for m in json.loads(proc.stdout)["secondary"]}
    assert secondary["latency"]["estimate"] == pytest.approx(-0.2)  # every item 0.2 faster
    assert secondary["latency"]["baseline"] == pytest.approx(sum(r["latency"] for r in base) / 120)
    assert secondary["metrics.f1"]["estimate"] == 0.0
    # Holm over two p-values (hand-worked): the smaller is doubled, the larger kept, monotone
    ps = sorted((m["pvalue"], name) for name, m in secondary.items())
    first = min(1.0, 2 * ps[0][0])
    assert secondary[ps[0][1]]["adjusted_pvalue"] == pytest.approx(first)
    assert secondary[ps[1][1]]["adjusted_pvalue"] == pytest.approx(max(first, ps[1][0]))
    markdown = run_cli("compare", "b.jsonl", "c.jsonl", "--config", "p.yml", "--format", "markdown")
    assert "latency" in markdown.stdout


def test_secondary_metric_missing_is_a_clear_error(run_cli: Run, tmp_path: Path) -> None:
    (tmp_path / "b.jsonl").write_text('{"id": "a", "passed": true, "latency": 1}\n')
    (tmp_path / "c.jsonl").write_text('{"id": "a", "passed": true}\n')
    (tmp_path / "p.yml").write_text("secondary_metrics: [latency]\n")
    proc = run_cli("compare", "b.jsonl", "c.jsonl", "--config", "p.yml")
    assert proc.returncode == 2
    assert (
        proc.stderr == "evalbot: error: c.jsonl:1: item 'a' has no `latency` (a secondary metric)\n"
    )


def test_items_not_evaluated_are_left_out_or_failures(run_cli: Run, tmp_path: Path) -> None:
    base = [{"id": f"q{i}", "passed": True} for i in range(20)]
    cand = [{"id": f"q{i}", "passed": True} for i in range(20)]
    cand[3] = {"id": "q3", "passed": None, "error": "timeout"}
    cand[4] = {"id": "q4", "passed": None, "error": "exception"}
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in base))
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in cand))
    dropped = json.loads(run_cli("compare", "b.jsonl", "c.jsonl", "--format", "json").stdout)
    assert dropped["items"] == 18  # a harness error is not a failure by default
    assert dropped["table"]["broken"] == 0
    assert dropped["pairing"]["dropped_errors"] == 2
    assert dropped["not_evaluated"] == {
        "rule": "drop",
        "items": 2,
        "baseline": 0,
        "candidate": 2,
        "both": 0,
        "baseline_ids": [],
        "candidate_ids": ["q3", "q4"],
    }
    assert any("not evaluated" in r for r in dropped["verdict"]["reasons"])
    (tmp_path / "p.yml").write_text("policy: {errors: fail}\n")
    by_plan = run_cli("compare", "b.jsonl", "c.jsonl", "--config", "p.yml", "--format", "json")
    by_flag = run_cli("compare", "b.jsonl", "c.jsonl", "--errors", "fail", "--format", "json")
    for proc in (by_plan, by_flag):
        failed = json.loads(proc.stdout)
        assert failed["items"] == 20
        assert failed["table"]["broken"] == 2  # the leaderboard convention
        assert failed["pairing"]["errors_candidate"] == 2
        assert failed["not_evaluated"]["rule"] == "fail"


def test_format_in_and_item_links(run_cli: Run, tmp_path: Path) -> None:
    b, c = write_pair(tmp_path, {"both_pass": 5, "fixed": 0, "broken": 1, "both_fail": 0})
    (tmp_path / "baseline.txt").write_text(b.read_text())  # no telling suffix: the format is forced
    (tmp_path / "p.yml").write_text("report: {item_url: 'https://logs.example/run?id={id}'}\n")
    proc = run_cli(
        "compare",
        "baseline.txt",
        str(c),
        "--format-in",
        "jsonl",
        "--config",
        "p.yml",
        "--format",
        "markdown",
    )
    assert proc.returncode == 0, proc.stderr
    assert "(https://logs.example/run?id=item-00006)" in proc.stdout


def test_user_template(run_cli: Run, tmp_path: Path) -> None:
    b, c = write_pair(tmp_path, WORKED)
    (tmp_path / "mine.md.j2").write_text("Verdict: {{ v.outcome }} on {{ v.items }} items\n")
    (tmp_path / "p.yml").write_text("report: {template: mine.md.j2}\n")
    proc = run_cli("compare", str(b), str(c), "--config", "p.yml", "--format", "markdown")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Verdict: improvement on 400 items\n"
    (tmp_path / "mine.md.j2").write_text("{{ v.__class__.__mro__ }}\n")
    proc = run_cli("compare", str(b), str(c), "--config", "p.yml", "--format", "markdown")
    assert proc.returncode == 2
    assert "report template" in proc.stderr
