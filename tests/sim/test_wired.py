"""The wired path: false positives and coverage of what ``evalbot compare`` decides and shows.

The other simulations check the statistics one function at a time; these run the path a user
gets, ``compute_comparison`` then ``evaluate`` (the plan's defaults: McNemar's exact test with
Tango's continuity-corrected interval for pass/fail items; the sign-flip test, then the
paired t, with the interval that inverts it for numeric scores), so a wiring mistake (another
alpha, another interval, a p-value from one method beside an interval from another) shows
here. A false positive is a verdict of ``improvement`` or ``regression`` under no true
difference; coverage is the share of runs whose shown interval holds the true difference.

- Pass/fail: tables drawn from Multinomial(n, (fix, break, rest)); the decision depends on the
  table only, so each distinct table is compared once and weighted by how often it was drawn.
- Scores: per-item differences E1 - E2 (exponential noise, exchangeable under the null),
  shifted by 0.5 for coverage.
"""

from __future__ import annotations

import numpy as np
import pytest

from evalbot.compare import compute_comparison
from evalbot.compare.records import Comparison
from evalbot.formats.model import Paired
from evalbot.plan.config import BootstrapConfig, Config
from evalbot.plan.policy import evaluate
from tests.sim._common import ALPHA, reps, slack, table

SIZES = (10, 30, 100, 1000)
#: Discordance per size, so that each size sees a handful to a few dozen changed items.
DISCORDANCE = {10: 0.5, 30: 0.3, 100: 0.2, 1000: 0.03}


def binary_paired(n: int, fixed: int, broken: int) -> Paired:
    """A pass/fail run with the given table (both pass: half the unchanged items)."""
    same = n - fixed - broken
    base = np.array(
        [1.0] * (same // 2) + [0.0] * (same - same // 2) + [0.0] * fixed + [1.0] * broken
    )
    cand = np.array(
        [1.0] * (same // 2) + [0.0] * (same - same // 2) + [1.0] * fixed + [0.0] * broken
    )
    ids = [f"i{k:05d}" for k in range(n)]
    return Paired(
        ids=ids,
        baseline=base,
        candidate=cand,
        kind="binary",
        pass_fail=True,
        baseline_source="b",
        candidate_source="c",
        fingerprint="0" * 64,
    )


def decide(paired: Paired, config: Config) -> tuple[Comparison, bool]:
    comparison = compute_comparison(paired, config)
    decision = evaluate(comparison, config)
    return comparison, decision.outcome in ("improvement", "regression")


def binary_rates(n: int, fix: float, brk: float, draws: int, seed: int) -> tuple[float, float]:
    """(share of draws with a verdict, share whose interval holds fix - brk)."""
    rng = np.random.default_rng(seed)
    tables = rng.multinomial(n, [fix, brk, 1.0 - fix - brk], size=draws)[:, :2]
    found, counts = np.unique(tables, axis=0, return_counts=True)
    config = Config()
    truth = fix - brk
    significant = covered = 0.0
    for (b, c), count in zip(found.tolist(), counts.tolist(), strict=True):
        comparison, verdict = decide(binary_paired(n, b, c), config)
        ci = comparison.difference.confidence_interval
        significant += count * verdict
        covered += count * (ci.low <= truth <= ci.high)
        assert comparison.interval == "tango-cc"
    return significant / draws, covered / draws


def test_pass_fail_wired_false_positives_and_coverage() -> None:
    rows = []
    for n in SIZES:
        psi = DISCORDANCE[n]
        draws = reps(600)
        fp, _ = binary_rates(n, psi / 2, psi / 2, draws, seed=n)
        _, cover = binary_rates(n, 0.7 * psi, 0.3 * psi, draws, seed=n + 1)
        rows.append([n, psi, fp, cover, draws])
    table(
        "Pass/fail through compute_comparison + evaluate (McNemar exact, Tango-cc interval): "
        "false-positive rate under no difference, coverage at fix/break = 70/30 % of the "
        "changed items",
        ["items", "discordance", "false positives", "coverage", "draws"],
        rows,
    )
    for n, _, fp, cover, draws in rows:
        assert fp <= ALPHA + slack(ALPHA, draws), n
        if n >= 30:  # the corrected Tango interval keeps 95 % from 30 items (test_coverage)
            assert cover >= 0.95 - slack(0.95, draws), n


def score_paired(d: np.ndarray) -> Paired:
    n = d.size
    return Paired(
        ids=[f"i{k:05d}" for k in range(n)],
        baseline=np.zeros(n),
        candidate=d,
        kind="score",
        pass_fail=False,
        baseline_source="b",
        candidate_source="c",
        fingerprint="0" * 64,
    )


#: Datasets per size (the sampled sign-flip test costs O(B n) per dataset) and the sign
#: patterns it samples (any number keeps the sampled test valid).
SCORE_REPS = {10: 600, 30: 500, 100: 400, 1000: 300, 2000: 600}


def test_scores_wired_false_positives_and_coverage() -> None:
    """Under no difference: the share of verdicts, and the share of intervals that hold the
    true difference 0. Both the test and the interval are invariant to a shift of every
    difference, so this coverage is the coverage at any true shift; that it is exactly one
    minus the false-positive rate shows the interval is the test's own."""
    config = Config(bootstrap=BootstrapConfig(resamples=500, seed=0))
    rows = []
    for n, r in SCORE_REPS.items():
        r = reps(r)
        rng = np.random.default_rng(1000 + n)
        verdicts = covered = 0
        method = ""
        for _ in range(r):
            d = rng.exponential(size=n) - rng.exponential(size=n)
            comparison, verdict = decide(score_paired(d), config)
            method = comparison.test
            ci = comparison.difference.confidence_interval
            verdicts += verdict
            covered += ci.low <= 0.0 <= ci.high
        rows.append([n, method, verdicts / r, covered / r, r])
    table(
        "Numeric scores through compute_comparison + evaluate (exponential noise, no "
        "difference): false-positive rate, coverage of the true difference",
        ["items", "test", "false positives", "coverage", "datasets"],
        rows,
    )
    for n, method, fp, cover, r in rows:
        assert method == ("paired t" if n > 1000 else "exact sign-flip" if n <= 24 else
                          "Monte Carlo sign-flip")  # fmt: skip
        assert fp <= ALPHA + slack(ALPHA, r), n
        assert cover == pytest.approx(1.0 - fp, abs=1e-12), n
