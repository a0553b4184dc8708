"""Pure: Comparison + Decision -> the ``--format json`` report.

The keys of INTERFACE.md (``schema_version``, ``items``, ``metric``, ``baseline``,
``candidate``, ``difference``, ``table``, ``mcnemar``, ``policy``, ``verdict``) never change
meaning; every other key is added beside them. Each section is built by one function below, in
the order the keys appear in the report.
"""

from __future__ import annotations

from typing import Any

from evalbot import __version__
from evalbot.compare import (
    Comparison,
    CostResult,
    CostSide,
    F1Result,
    F1Side,
    PairedTable,
    RepeatsSide,
    Side,
)
from evalbot.plan.policy import Decision
from evalbot.report.decision_section import decision_json, finite, finite_pair, pvalue_json
from evalbot.report.reasons import word_reasons
from evalbot.stats.bootstrap import BootstrapResult

__all__ = ["SCHEMA_VERSION", "build_json", "decision_json", "pvalue_json"]

SCHEMA_VERSION = 1

JSONObject = dict[str, Any]


def build_json(comparison: Comparison, decision: Decision) -> JSONObject:
    """The ``--format json`` report (keys of INTERFACE.md, plus more)."""
    c = comparison
    return {
        "schema_version": SCHEMA_VERSION,
        "evalbot_version": __version__,
        "items": c.items,
        "metric": c.metric,
        "baseline": _side_json(c.baseline, c.paired.baseline_source, c.paired.epochs_baseline),
        "candidate": _side_json(c.candidate, c.paired.candidate_source, c.paired.epochs_candidate),
        "difference": _primary_difference_json(c),
        "bootstrap": _bootstrap_json(c),
        "table": None if c.table is None else _table_json(c.table),
        "mcnemar": _mcnemar_json(c),
        "test": _test_json(c, decision),
        "fixed_ids": c.fixed_ids,
        "broken_ids": c.broken_ids,
        "pairing": _pairing_json(c),
        "not_evaluated": _not_evaluated_json(c),
        "policy": {"ok": decision.policy_ok, "violations": word_reasons(decision.violations)},
        "verdict": _verdict_json(decision),
        "decision": decision_json(decision, c),
        "churn": _churn_json(c),
        "unpaired": _unpaired_json(c),
        "slices": _slices_json(c),
        "secondary": _secondary_json(c),
        "power": _power_json(c),
        "repeats": {
            "baseline": _repeats_json(c.repeats_baseline),
            "candidate": _repeats_json(c.repeats_candidate),
        },
        "cost_per_solved": None if c.cost is None else _cost_json(c.cost),
        "f1": None if c.f1 is None else _f1_json(c.f1),
    }


def _side_json(side: Side, source: str, epochs: int) -> JSONObject:
    return {
        "rate": side.rate,
        "passed": side.passed,
        "ci": list(side.confidence_interval),
        "ci_method": side.interval_method,
        "source": source,
        "epochs": epochs,
    }


def _bootstrap_method(diff: BootstrapResult) -> str:
    return f"paired bootstrap ({diff.method}, resampling {diff.resampled})"


def _primary_difference_json(c: Comparison) -> JSONObject:
    """The difference with the interval of its method (``interval``); ``pvalue`` is the p-value
    of the test that interval inverts; ``resamples`` and ``seed`` are the plan's bootstrap
    settings (used here when ``interval`` is ``bootstrap``)."""
    diff = c.difference
    size = diff.effect_size
    return {
        "estimate": finite(diff.statistic),
        "ci": finite_pair(diff.confidence_interval),
        "method": diff.method,
        "interval": diff.interval,
        "confidence": diff.confidence_level,
        "resamples": c.resamples,
        "seed": c.seed,
        "standard_error": finite(diff.standard_error),
        **pvalue_json(diff.pvalue),
        "clusters": None if c.clusters is None else c.clusters.clusters,
        "clustered_standard_error": None if c.clusters is None else c.clusters.standard_error,
        "effect_size": None
        if size is None
        else {
            "d_z": finite(size.statistic),
            "ci": finite_pair(size.confidence_interval),
            "confidence": size.confidence_level,
            "method": f"Cohen's d_z, {size.method} interval",
        },
    }


def _bootstrap_json(c: Comparison) -> JSONObject | None:
    """The paired bootstrap of the primary difference: the interval that decides with
    ``test: bootstrap`` (``decides``), otherwise shown beside the test's own interval."""
    boot = c.bootstrap
    if boot is None:
        return None
    return {
        "estimate": finite(boot.statistic),
        "ci": finite_pair(boot.confidence_interval),
        "confidence": boot.confidence_level,
        "method": _bootstrap_method(boot),
        "resampled": boot.resampled,
        "units": boot.n_units,
        "resamples": boot.n_resamples,
        "seed": boot.seed,
        "share_above_zero": finite(boot.share_above_zero),
        "standard_error": finite(boot.standard_error),
        "decides": c.difference.interval == "bootstrap",
    }


def _test_json(c: Comparison, decision: Decision) -> JSONObject:
    """The test that decided: its p-value against the effective alpha (``p <= alpha``)."""
    test = c.test_result
    agreement = decision.agreement
    return {
        "name": c.test,
        **pvalue_json(test.pvalue),
        "alpha": c.alpha.effective,
        "alpha_level": c.alpha.level,
        "rule": "p <= alpha",
        "significant": c.alpha.judge(test.pvalue) == "below"
        if c.alpha.judge(test.pvalue) != "unresolved"
        else None,
        "smallest_pvalue": None
        if test.smallest_pvalue is None
        else test.smallest_pvalue.reportable,
        "powerless": decision.powerless,
        "agreement": None if agreement is None else agreement.case,
    }


def _table_json(table: PairedTable) -> dict[str, int]:
    return {
        "both_pass": table.both_pass,
        "fixed": table.fixed,
        "broken": table.broken,
        "both_fail": table.both_fail,
    }


def _mcnemar_json(c: Comparison) -> JSONObject | None:
    if c.mcnemar is None:
        return None
    return {
        "method": c.mcnemar.method,
        "statistic": c.mcnemar.statistic,
        **pvalue_json(c.mcnemar.pvalue),
        "discordant": c.mcnemar.discordant,
    }


def _pairing_json(c: Comparison) -> JSONObject:
    paired = c.paired
    skipped = paired.not_evaluated
    return {
        "fingerprint": paired.fingerprint,
        "dropped_baseline_only": len(paired.dropped_baseline_only),
        "dropped_candidate_only": len(paired.dropped_candidate_only),
        "filled_as_failures": paired.filled_as_failures,
        "errors_baseline": paired.errors_baseline,
        "errors_candidate": paired.errors_candidate,
        "dropped_errors": skipped.items if skipped and skipped.rule == "drop" else 0,
    }


def _not_evaluated_json(c: Comparison) -> JSONObject | None:
    """Items a run did not evaluate, and what ``policy.errors`` did with them."""
    skipped = c.paired.not_evaluated
    if skipped is None:
        return None
    return {
        "rule": skipped.rule,
        "items": skipped.items,
        "baseline": skipped.baseline,
        "candidate": skipped.candidate,
        "both": skipped.both,
        "baseline_ids": list(skipped.baseline_ids),
        "candidate_ids": list(skipped.candidate_ids),
    }


def _verdict_json(decision: Decision) -> JSONObject:
    return {
        "outcome": decision.outcome,
        "gate": decision.gate,
        "reasons": word_reasons(decision.reasons),
        "conclusion": decision.conclusion,
        "warnings": word_reasons(decision.warnings),
    }


def _churn_json(c: Comparison) -> JSONObject | None:
    if c.churn is None:
        return None
    return {
        "discordant": c.churn.discordant,
        "net": c.churn.net,
        "net_rate": c.churn.net_rate,
        "churn": c.churn.churn,
    }


def _unpaired_json(c: Comparison) -> JSONObject | None:
    if c.unpaired is None:
        return None
    return {
        "method": "two-proportion z-test (pooled; ignores the pairing, for contrast only)",
        "statistic": c.unpaired.statistic,
        "pvalue": c.unpaired.pvalue,
        "standard_error": c.unpaired.standard_error,
    }


def _slices_json(c: Comparison) -> list[JSONObject]:
    return [
        {
            "slice": s.name,
            "items": s.items,
            "baseline_rate": s.baseline_rate,
            "candidate_rate": s.candidate_rate,
            "difference": s.difference,
            "table": None if s.table is None else _table_json(s.table),
            "test": s.test,
            "pvalue": s.pvalue.reportable,
            "pvalue_kind": s.pvalue.kind,
            "qvalue": s.qvalue,
        }
        for s in c.slices
    ]


def _secondary_json(c: Comparison) -> list[JSONObject]:
    """Each secondary metric with the test a primary score would get: ``method`` names it,
    ``interval`` the kind of interval that inverts it (as the primary ``difference``);
    ``resamples`` and ``seed`` are set only when that test sampled."""
    return [
        {
            "metric": m.name,
            "baseline": m.baseline,
            "candidate": m.candidate,
            "estimate": finite(m.difference.statistic),
            "ci": finite_pair(m.difference.confidence_interval),
            "method": m.difference.method,
            "interval": m.difference.interval,
            "confidence": m.difference.confidence_level,
            "resamples": m.difference.n_resamples,
            "seed": m.difference.seed if m.difference.n_resamples else None,
            **pvalue_json(m.difference.pvalue),
            "adjusted_pvalue": m.adjusted_pvalue,
            "adjustment": "holm",
        }
        for m in c.secondary
    ]


def _power_json(c: Comparison) -> JSONObject | None:
    if c.power is None:
        return None
    design = c.power.design
    return {
        "method": c.power.method,
        "power": c.power.power,
        "alpha": c.power.alpha,
        "discordant_rate": c.power.discordant_rate,
        "minimum_detectable_effect": c.power.minimum_detectable_effect,
        "items_needed": c.power.items_needed,
        "design_effect": None if design is None else finite(design.design_effect),
        "design_effect_method": None if design is None else design.method,
        "intraclass_correlation": None if design is None else finite(design.intraclass_correlation),
    }


def _repeats_json(rep: RepeatsSide | None) -> JSONObject | None:
    if rep is None:
        return None
    r = rep.result
    return {
        "repeats": r.repeats,
        "flaky": r.flaky,
        "always_pass": r.always_pass,
        "always_fail": r.always_fail,
        "within_item_variance": finite(r.within_item_variance),
        "between_item_variance": finite(r.between_item_variance),
        "intraclass_correlation": finite(r.intraclass_correlation),
        "majority_vote_accuracy": finite(r.majority_vote_accuracy),
        "flaky_ids": rep.flaky_ids,
        "items": r.items,
        "pass_at_k": {str(k): value for k, value in rep.pass_at_k},
        "standard_error": rep.standard_error,
        "budget": _budget_json(rep),
    }


def _budget_json(rep: RepeatsSide) -> JSONObject | None:
    if rep.budget is None:
        return None
    return {
        "calls": rep.budget.budget,
        "items": rep.budget.items,
        "repeats": rep.budget.repeats,
        "standard_error": rep.budget.standard_error,
        "options": [
            {"items": n, "repeats": k, "standard_error": se} for n, k, se in rep.budget.options
        ],
    }


def _difference_json(diff: BootstrapResult | None) -> JSONObject | None:
    if diff is None:
        return None
    return {
        "estimate": diff.statistic,
        "ci": list(diff.confidence_interval),
        "method": _bootstrap_method(diff),
        "standard_error": diff.standard_error,
        **pvalue_json(diff.pvalue),
        "n_undefined": diff.n_undefined,
    }


def _cost_side_json(s: CostSide) -> JSONObject:
    return {
        "total_cost": s.total_cost,
        "solved": s.solved,
        "cost_per_solved": s.cost_per_solved,
        "items_without_cost": s.items_without_cost,
    }


def _cost_json(cost: CostResult) -> JSONObject:
    return {
        "baseline": _cost_side_json(cost.baseline),
        "candidate": _cost_side_json(cost.candidate),
        "difference": _difference_json(cost.difference),
    }


def _f1_side_json(s: F1Side) -> JSONObject:
    return {"f1": s.f1, "tp": s.tp, "fp": s.fp, "fn": s.fn}


def _f1_json(f1: F1Result) -> JSONObject:
    return {
        "method": "micro F1 = 2 TP / (2 TP + FP + FN) on the summed per-item counts",
        "baseline": _f1_side_json(f1.baseline),
        "candidate": _f1_side_json(f1.candidate),
        "difference": _difference_json(f1.difference),
    }
