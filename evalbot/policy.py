"""Pure: the plan + the comparison -> a Decision (outcome, gate, reasons).

Outcomes: ``improvement`` / ``regression`` when the primary test is significant at the plan's
alpha, ``no_significant_difference`` otherwise, ``inconclusive`` when the plan refuses a verdict
(for instance the eval is not the pre-registered size). The gate turns the outcome into pass or
fail according to ``gate.fail_on`` and ``gate.max_broken``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from evalbot.compare import Comparison
from evalbot.config import Config

Outcome = Literal["improvement", "regression", "no_significant_difference", "inconclusive"]
Gate = Literal["pass", "fail"]


@dataclass(frozen=True, kw_only=True)
class Decision:
    outcome: Outcome
    gate: Gate
    reasons: list[str]
    violations: list[str]

    @property
    def policy_ok(self) -> bool:
        return not self.violations


def evaluate(comparison: Comparison, config: Config) -> Decision:
    """Decide the verdict and the gate for one comparison under the plan."""
    reasons: list[str] = []
    violations: list[str] = []
    paired = comparison.paired
    planned = config.policy.sample_size
    if planned is not None and comparison.items != planned:
        violations.append(
            f"the eval has {comparison.items} paired items but the plan pre-registered "
            f"{planned}; a verdict on another sample size is refused"
        )
    if paired.dropped_baseline_only or paired.dropped_candidate_only:
        reasons.append(
            f"{len(paired.dropped_baseline_only)} baseline-only and "
            f"{len(paired.dropped_candidate_only)} candidate-only items were dropped "
            "(policy.missing: drop)"
        )
    if paired.filled_as_failures:
        reasons.append(
            f"{paired.filled_as_failures} items present on one side only were counted as "
            "failures of the other (policy.missing: fail)"
        )

    pvalue = comparison.pvalue
    significant = pvalue < config.alpha
    estimate = comparison.difference.statistic
    outcome: Outcome
    if violations:
        outcome = "inconclusive"
        reasons.extend(violations)
    elif significant and estimate > 0:
        outcome = "improvement"
        reasons.append(f"{comparison.test} p = {pvalue:.4g} < alpha = {config.alpha:g}")
    elif significant and estimate < 0:
        outcome = "regression"
        reasons.append(f"{comparison.test} p = {pvalue:.4g} < alpha = {config.alpha:g}")
    else:
        outcome = "no_significant_difference"
        reasons.append(f"{comparison.test} p = {pvalue:.4g} >= alpha = {config.alpha:g}")

    gate: Gate = "pass"
    fail_on = config.gate.fail_on
    if fail_on == "significant_regression" and outcome == "regression":
        gate = "fail"
        reasons.append("gate: a significant regression fails (gate.fail_on)")
    elif fail_on == "not_significant_improvement" and outcome != "improvement":
        gate = "fail"
        reasons.append("gate: anything but a significant improvement fails (gate.fail_on)")
    limit = config.gate.max_broken
    broken = len(comparison.broken_ids)
    if limit is not None and broken > limit:
        gate = "fail"
        reasons.append(f"gate: {broken} items broke, more than gate.max_broken = {limit}")
    return Decision(outcome=outcome, gate=gate, reasons=reasons, violations=violations)
