"""Pure: Comparison + Decision -> the JSON report and the view-model the templates read.

Numbers are rounded and labelled here, once, so every rendering (comment, job summary, the CLI's
markdown and text) says the same thing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from evalbot import __version__
from evalbot.compare import Comparison
from evalbot.policy import Decision

SCHEMA_VERSION = 1

OUTCOME_LABELS = {
    "improvement": ("✅", "Improvement"),
    "regression": ("❌", "Regression"),
    "no_significant_difference": ("➖", "No significant difference"),
    "inconclusive": ("⚠️", "Inconclusive"),
}


def _round(value: float, digits: int = 6) -> float:
    return float(round(value, digits))


def build_json(comparison: Comparison, decision: Decision) -> dict[str, Any]:
    """The ``--format json`` report (keys of INTERFACE.md, plus more)."""
    c = comparison
    diff = c.difference
    paired = c.paired
    report: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "evalbot_version": __version__,
        "items": c.items,
        "metric": c.metric,
        "baseline": {
            "rate": c.baseline.rate,
            "passed": c.baseline.passed,
            "ci": list(c.baseline.confidence_interval),
            "ci_method": c.baseline.interval_method,
            "source": paired.baseline_source,
            "epochs": paired.epochs_baseline,
        },
        "candidate": {
            "rate": c.candidate.rate,
            "passed": c.candidate.passed,
            "ci": list(c.candidate.confidence_interval),
            "ci_method": c.candidate.interval_method,
            "source": paired.candidate_source,
            "epochs": paired.epochs_candidate,
        },
        "difference": {
            "estimate": diff.statistic,
            "ci": list(diff.confidence_interval),
            "method": f"paired bootstrap ({diff.method}, resampling {diff.resampled})",
            "confidence": diff.confidence_level,
            "resamples": diff.n_resamples,
            "seed": diff.seed,
            "standard_error": diff.standard_error,
            "pvalue": diff.pvalue,
        },
        "table": None
        if c.table is None
        else {
            "both_pass": c.table.both_pass,
            "fixed": c.table.fixed,
            "broken": c.table.broken,
            "both_fail": c.table.both_fail,
        },
        "mcnemar": None
        if c.mcnemar is None
        else {
            "method": c.mcnemar.method,
            "statistic": c.mcnemar.statistic,
            "pvalue": c.mcnemar.pvalue,
            "discordant": c.mcnemar.discordant,
        },
        "test": {"name": c.test, "pvalue": c.pvalue, "alpha": c.alpha},
        "fixed_ids": c.fixed_ids,
        "broken_ids": c.broken_ids,
        "pairing": {
            "fingerprint": paired.fingerprint,
            "dropped_baseline_only": len(paired.dropped_baseline_only),
            "dropped_candidate_only": len(paired.dropped_candidate_only),
            "filled_as_failures": paired.filled_as_failures,
        },
        "policy": {"ok": decision.policy_ok, "violations": decision.violations},
        "verdict": {
            "outcome": decision.outcome,
            "gate": decision.gate,
            "reasons": decision.reasons,
        },
    }
    return report


def format_pvalue(p: float) -> str:
    if p < 0.0001:
        return "< 0.0001"
    if p >= 0.9995:
        return "1"
    return f"{p:.4f}" if p < 0.01 else f"{p:.3f}"


def format_effect(estimate: float, low: float, high: float, *, percent: bool) -> str:
    """ "+4.3 pp [1.0, 7.5]" for rates; "+0.043 [0.010, 0.075]" for scores."""
    if percent:
        return f"{_signed(estimate * 100, 1)} pp [{low * 100:.1f}, {high * 100:.1f}]"
    return f"{_signed(estimate, 3)} [{low:.3f}, {high:.3f}]"


def _signed(value: float, digits: int) -> str:
    text = f"{value:+.{digits}f}"
    # -0.0 reads as a regression that is not there
    return text.replace("-0." + "0" * digits, "±0." + "0" * digits).replace(
        "+0." + "0" * digits, "±0." + "0" * digits
    )


def format_rate(rate: float, *, percent: bool) -> str:
    return f"{rate * 100:.1f} %" if percent else f"{rate:.3f}"


@dataclass(frozen=True, kw_only=True)
class ItemList:
    title: str
    ids: list[str]
    total: int


@dataclass(frozen=True, kw_only=True)
class View:
    """What the templates read: every number already a string."""

    symbol: str
    outcome_label: str
    outcome: str
    effect: str
    pvalue: str
    test: str
    gate: str
    reasons: list[str]
    items: int
    metric: str
    baseline_rate: str
    baseline_ci: str
    baseline_passed: str
    candidate_rate: str
    candidate_ci: str
    candidate_passed: str
    table: dict[str, int] | None
    net: str
    churn: str
    lists: list[ItemList]
    fingerprint: str
    resamples: int
    seed: int
    confidence: str
    version: str
    interval_method: str


def build_view(comparison: Comparison, decision: Decision, *, max_ids: int = 50) -> View:
    c = comparison
    percent = c.metric == "pass_rate"
    ci = c.difference.confidence_interval
    symbol, label = OUTCOME_LABELS[decision.outcome]
    table = None
    net = churn = ""
    if c.table is not None:
        t = c.table
        table = {
            "both_pass": t.both_pass,
            "fixed": t.fixed,
            "broken": t.broken,
            "both_fail": t.both_fail,
        }
        net = f"{t.fixed - t.broken:+d} items"
        churn = f"{t.discordant} items changed ({t.discordant / t.items * 100:.1f} %)"

    def interval(side_ci: tuple[float, float]) -> str:
        lo, hi = side_ci
        if percent:
            return f"[{lo * 100:.1f}, {hi * 100:.1f}]"
        return f"[{lo:.3f}, {hi:.3f}]"

    broken_title = "Broken items (passed before, fail now)" if percent else "Items that got worse"
    fixed_title = "Fixed items (failed before, pass now)" if percent else "Items that got better"
    lists = [
        ItemList(title=broken_title, ids=c.broken_ids[:max_ids], total=len(c.broken_ids)),
        ItemList(title=fixed_title, ids=c.fixed_ids[:max_ids], total=len(c.fixed_ids)),
    ]
    return View(
        symbol=symbol,
        outcome_label=label,
        outcome=decision.outcome,
        effect=format_effect(c.difference.statistic, ci.low, ci.high, percent=percent),
        pvalue=format_pvalue(c.pvalue),
        test=c.test,
        gate=decision.gate,
        reasons=decision.reasons,
        items=c.items,
        metric=c.metric,
        baseline_rate=format_rate(c.baseline.rate, percent=percent),
        baseline_ci=interval(c.baseline.confidence_interval),
        baseline_passed="" if c.baseline.passed is None else f"{c.baseline.passed}/{c.items}",
        candidate_rate=format_rate(c.candidate.rate, percent=percent),
        candidate_ci=interval(c.candidate.confidence_interval),
        candidate_passed="" if c.candidate.passed is None else f"{c.candidate.passed}/{c.items}",
        table=table,
        net=net,
        churn=churn,
        lists=lists,
        fingerprint=c.paired.fingerprint[:12],
        resamples=c.difference.n_resamples,
        seed=c.difference.seed,
        confidence=f"{c.difference.confidence_level * 100:g} %",
        version=__version__,
        interval_method=c.baseline.interval_method,
    )


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
