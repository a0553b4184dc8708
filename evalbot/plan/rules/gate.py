"""Pure: the gate: ``gate.on_refused``, ``gate.fail_on``, ``gate.max_broken`` and
``gate.margin`` turn the outcome into pass or fail, each failing condition a reason."""

from __future__ import annotations

from dataclasses import dataclass

from evalbot.compare.records import Comparison
from evalbot.plan.config import Config
from evalbot.plan.rules.decision import Gate, Outcome
from evalbot.plan.rules.reasons import Reason, Unit

__all__ = ["GateResult", "judge_gate"]


@dataclass(frozen=True, kw_only=True)
class GateResult:
    gate: Gate
    reasons: tuple[Reason, ...]
    broken: int
    broken_limit: float | None
    noninferior: bool | None


def judge_gate(
    comparison: Comparison,
    config: Config,
    outcome: Outcome,
    *,
    refused: bool,
    tampered: bool = False,
) -> GateResult:
    """Every configured condition must pass; each one that fails is a reason. A refusal fails
    under ``gate.on_refused: fail``, and always when the records of the looks were tampered
    with (``tampered``)."""
    gate = config.gate
    unit: Unit = "pp" if comparison.metric == "pass_rate" else "score"
    reasons: list[Reason] = []
    if tampered:
        reasons.append(Reason(code="gate_refused", rule="the records of the looks disagree"))
    elif refused and gate.on_refused == "fail":
        reasons.append(Reason(code="gate_refused", rule="gate.on_refused: fail"))
    if gate.fail_on == "significant_regression" and outcome == "regression":
        reasons.append(Reason(code="gate_regression", rule="gate.fail_on: significant_regression"))
    elif gate.fail_on == "not_significant_improvement" and outcome != "improvement":
        reasons.append(
            Reason(code="gate_not_improvement", rule="gate.fail_on: not_significant_improvement")
        )
    broken = len(comparison.broken_ids)
    limit: float | None = None
    if gate.max_broken is not None:
        limit = float(gate.max_broken)
    elif gate.max_broken_rate is not None:
        limit = gate.max_broken_rate * comparison.items
    if limit is not None and broken > limit:
        reasons.append(
            Reason(
                code="gate_max_broken",
                observed=broken,
                threshold=limit,
                unit="items",
                rule="gate.max_broken",
                details={"rate": gate.max_broken_rate, "items": comparison.items},
            )
        )
    noninferior: bool | None = None
    if gate.margin is not None:
        difference = comparison.difference
        low = difference.confidence_interval.low
        noninferior = low > -gate.margin
        if not noninferior:
            reasons.append(
                Reason(
                    code="gate_margin",
                    observed=low,
                    threshold=-gate.margin,
                    unit=unit,
                    rule="gate.margin",
                    details={"confidence": difference.confidence_level},
                )
            )
    return GateResult(
        gate="fail" if reasons else "pass",
        reasons=tuple(reasons),
        broken=broken,
        broken_limit=limit,
        noninferior=noninferior,
    )
