"""Pure: Comparison + Decision -> the ``--format json`` report (docs/cli.md), the decision as
JSON, and p-values with their precision. The keys of the public interface (``schema_version``,
``items``, ``metric``, ``baseline``, ``candidate``, ``difference``, ``table``, ``mcnemar``,
``policy``, ``verdict``) never change meaning; other keys are only added. JSON has no NaN or
infinity: an undefined or unbounded number is ``null``."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import Any, TypeVar

import msgspec

from evalbot import __version__
from evalbot.compare import records
from evalbot.compare.records import BothRuns, Comparison, RepeatsSide, Side, SliceResult
from evalbot.plan.policy import Decision, Reason
from evalbot.report.numbers import word_pvalue
from evalbot.report.words import word_disclosure, word_plan, word_reason, word_reasons
from evalbot.stats.bootstrap import BootstrapResult
from evalbot.stats.pvalue import PValue

SCHEMA_VERSION = 1

JSONObject = dict[str, Any]
T = TypeVar("T")


def _json(value: Any) -> Any:
    """``value`` as JSON holds it: a NaN or infinite number as ``None`` (undefined, or
    unbounded), a tuple as a list."""
    if isinstance(value, str):  # most values: the ids listed
        return value
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {key: _json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json(item) for item in value]
    return value


def pick(record: object, *names: str) -> JSONObject:
    """The fields ``names`` of ``record``, under their own names."""
    return {name: getattr(record, name) for name in names}


def _estimate(estimate: records.Estimate) -> JSONObject:
    """An estimate (``estimate``) and its interval (``ci``)."""
    return {"estimate": estimate.statistic, "ci": estimate.confidence_interval}


def _maybe(build: Callable[[T], JSONObject], value: T | None) -> JSONObject | None:
    """``build(value)``, or ``None`` (JSON's ``null``) when there is no ``value``."""
    return None if value is None else build(value)


def pvalue_json(p: PValue) -> JSONObject:
    """A p-value and its precision, never 0 for a positive p-value: ``pvalue`` (an upper bound
    when that is all the method knows), ``pvalue_kind`` (``exact``, ``upper_bound`` or
    ``below_float_range``), ``pvalue_log10`` (of the p-value or the bound),
    ``pvalue_resolution`` (the smallest p-value the method can give; ``null``: no floor) and
    ``pvalue_text`` (as the report words it)."""
    return {
        "pvalue": p.reportable,
        "pvalue_kind": p.kind,
        "pvalue_log10": p.log10,
        "pvalue_resolution": p.resolution,
        "pvalue_text": word_pvalue(p),
    }


def build_json(comparison: Comparison, decision: Decision) -> JSONObject:
    """The ``--format json`` report, its keys in this order."""
    report: JSONObject = _json(_report(comparison, decision))
    return report


def render_json(comparison: Comparison, decision: Decision) -> str:
    """The report as the CLI prints it: the standard library's text (ASCII, its spelling of
    floats) laid out with two-space indents by msgspec in C, the same bytes as
    ``json.dumps(report, indent=2)`` without its pure-Python indenting encoder."""
    return msgspec.json.format(json.dumps(build_json(comparison, decision)), indent=2) + "\n"


def _report(c: Comparison, decision: Decision) -> JSONObject:
    paired = c.paired
    return {
        "schema_version": SCHEMA_VERSION,
        "evalbot_version": __version__,
        **pick(c, "items", "metric"),
        "baseline": _side(c.baseline, paired.baseline_source, paired.epochs_baseline),
        "candidate": _side(c.candidate, paired.candidate_source, paired.epochs_candidate),
        "difference": _difference(c),
        "bootstrap": _bootstrap(c),
        "table": _table(c.table),
        "mcnemar": None
        if c.mcnemar is None
        else {
            **pick(c.mcnemar, "method", "statistic"),
            **pvalue_json(c.mcnemar.pvalue),
            "discordant": c.mcnemar.discordant,
        },
        "test": _test(c, decision),
        **pick(c, "fixed_ids", "broken_ids"),
        "pairing": _pairing(c),
        "not_evaluated": None
        if paired.not_evaluated is None
        else {
            **pick(paired.not_evaluated, "rule", "items", "baseline", "candidate", "both"),
            **pick(paired.not_evaluated, "baseline_ids", "candidate_ids"),
        },
        "policy": {"ok": decision.policy_ok, "violations": word_reasons(decision.violations)},
        "verdict": {
            **pick(decision, "outcome", "gate"),
            "reasons": word_reasons(decision.reasons),
            "conclusion": decision.conclusion,
            "warnings": word_reasons(decision.warnings),
        },
        "decision": _decision(decision, c),
        "churn": None
        if c.churn is None
        else pick(c.churn, "discordant", "net", "net_rate", "churn"),
        "unpaired": None
        if c.unpaired is None
        else {
            "method": "two-proportion z-test (pooled; ignores the pairing, for contrast only)",
            **pick(c.unpaired, "statistic", "pvalue", "standard_error"),
        },
        "slices": [_slice(s) for s in c.slices],
        "secondary": _secondary(c),
        "power": _maybe(_power, c.power),
        "repeats": {
            "baseline": _maybe(_repeats, c.repeats_baseline),
            "candidate": _maybe(_repeats, c.repeats_candidate),
        },
        "cost_per_solved": _maybe(_both_runs, c.cost),
        "f1": None
        if c.f1 is None
        else {
            "method": "micro F1 = 2 TP / (2 TP + FP + FN) on the summed per-item counts",
            **_both_runs(c.f1),
        },
    }


def _side(side: Side, source: str, epochs: int) -> JSONObject:
    return {
        **pick(side, "rate", "passed"),
        "ci": side.confidence_interval,
        "ci_method": side.interval_method,
        "source": source,
        "epochs": epochs,
    }


def _table(table: object | None) -> dict[str, int] | None:
    return None if table is None else pick(table, "both_pass", "fixed", "broken", "both_fail")


def _difference(c: Comparison) -> JSONObject:
    """The difference with the interval of its method (``interval``); ``pvalue`` is that of
    the test the interval inverts; ``resamples`` and ``seed`` are the plan's bootstrap
    settings (used when ``interval`` is ``bootstrap``)."""
    diff, size = c.difference, c.effect_size
    return {
        **_estimate(diff),
        **pick(c, "method", "interval"),
        "confidence": diff.confidence_level,
        **pick(c, "resamples", "seed"),
        "standard_error": diff.standard_error,
        **pvalue_json(diff.pvalue),
        "clusters": None if c.clusters is None else c.clusters.clusters,
        "clustered_standard_error": None if c.clusters is None else c.clusters.standard_error,
        "effect_size": None
        if size is None
        else {
            "d_z": size.statistic,
            "ci": size.confidence_interval,
            "confidence": size.confidence_level,
            "method": f"Cohen's d_z, {size.method} interval",
        },
    }


def _bootstrap(c: Comparison) -> JSONObject | None:
    """The paired bootstrap of the primary difference: the interval that decides with
    ``test: bootstrap`` (``decides``), otherwise shown beside the test's own."""
    boot = c.bootstrap
    if boot is None:
        return None
    return {
        **_estimate(boot),
        "confidence": boot.confidence_level,
        "method": records.describe(boot)[1],
        "resampled": boot.resampled,
        "units": boot.n_units,
        "resamples": boot.n_resamples,
        **pick(boot, "seed", "share_above_zero", "standard_error"),
        "decides": c.interval == "bootstrap",
    }


def _test(c: Comparison, decision: Decision) -> JSONObject:
    """The test that decided: its p-value against the effective alpha (``p <= alpha``)."""
    test, agreement = c.test_result, decision.agreement
    judged = c.alpha.judge(test.pvalue)
    return {
        "name": c.test,
        **pvalue_json(test.pvalue),
        "alpha": c.alpha.effective,
        "alpha_level": c.alpha.level,
        "rule": "p <= alpha",
        "significant": None if judged == "unresolved" else judged == "below",
        "smallest_pvalue": None
        if test.smallest_pvalue is None
        else test.smallest_pvalue.reportable,
        "powerless": decision.powerless,
        "agreement": None if agreement is None else agreement.case,
    }


def _pairing(c: Comparison) -> JSONObject:
    paired, skipped = c.paired, c.paired.not_evaluated
    return {
        "fingerprint": paired.fingerprint,
        "dropped_baseline_only": len(paired.dropped_baseline_only),
        "dropped_candidate_only": len(paired.dropped_candidate_only),
        **pick(paired, "filled_as_failures", "errors_baseline", "errors_candidate"),
        "dropped_errors": skipped.items if skipped and skipped.rule == "drop" else 0,
    }


def _slice(s: SliceResult) -> JSONObject:
    return {
        "slice": s.name,
        **pick(s, "items", "baseline_rate", "candidate_rate", "difference"),
        "table": _table(s.table),
        "test": s.test,
        "pvalue": s.pvalue.reportable,
        "pvalue_kind": s.pvalue.kind,
        "qvalue": s.qvalue,
    }


def _secondary(c: Comparison) -> list[JSONObject]:
    """Each secondary metric with the test a primary score would get (``method``, and the
    kind of interval that inverts it); ``resamples`` and ``seed`` only when it sampled."""
    return [
        {
            "metric": m.name,
            "baseline": m.difference.baseline_value,
            "candidate": m.difference.candidate_value,
            **_estimate(m.difference),
            **pick(m, "method", "interval"),
            "confidence": m.difference.confidence_level,
            "resamples": m.difference.n_resamples or None,
            "seed": m.difference.seed if m.difference.n_resamples else None,
            **pvalue_json(m.difference.pvalue),
            "adjusted_pvalue": m.adjusted_pvalue,
            "adjustment": "holm",
        }
        for m in c.secondary
    ]


def _power(power: records.PowerResult) -> JSONObject:
    design = power.design
    return {
        **pick(power, "method", "power", "alpha", "discordant_rate"),
        **pick(power, "minimum_detectable_effect", "items_needed"),
        "design_effect": None if design is None else design.design_effect,
        "design_effect_method": None if design is None else design.method,
        "intraclass_correlation": None if design is None else design.intraclass_correlation,
    }


def _repeats(rep: RepeatsSide) -> JSONObject:
    r, budget = rep.result, rep.budget
    return {
        **pick(r, "repeats", "flaky", "always_pass", "always_fail", "within_item_variance"),
        **pick(r, "between_item_variance", "intraclass_correlation", "majority_vote_accuracy"),
        "flaky_ids": rep.flaky_ids,
        "items": r.items,
        "pass_at_k": {str(k): value for k, value in rep.pass_at_k},
        "standard_error": rep.standard_error,
        "budget": None
        if budget is None
        else {
            "calls": budget.budget,
            **pick(budget, "items", "repeats", "standard_error"),
            "options": [
                {"items": n, "repeats": k, "standard_error": se} for n, k, se in budget.options
            ],
        },
    }


def _resampled_difference(diff: BootstrapResult) -> JSONObject:
    return {
        **_estimate(diff),
        "method": records.describe(diff)[1],
        "standard_error": diff.standard_error,
        **pvalue_json(diff.pvalue),
        "n_undefined": diff.n_undefined,
    }


def _both_runs(found: BothRuns[Any]) -> JSONObject:
    """Each run's measure (its fields, in order) and the bootstrap of their difference."""
    return {
        "baseline": asdict(found.baseline),
        "candidate": asdict(found.candidate),
        "difference": _maybe(_resampled_difference, found.difference),
    }


# ---- the decision ---------------------------------------------------------------------------


def reason_json(reason: Reason) -> JSONObject:
    """A reason as data with its words: ``code`` (a closed vocabulary), ``kind``, ``text``,
    ``observed`` and ``threshold`` in ``unit``, the config key (``rule``) and ``flag``."""
    return {
        **pick(reason, "code", "kind"),
        "text": word_reason(reason),
        **pick(reason, "observed", "threshold", "unit", "rule", "flag", "details"),
    }


def _decision(d: Decision, c: Comparison) -> JSONObject:
    """Everything in the Decision on this comparison."""
    agreement, planned = d.agreement, d.planned
    policy, plan = d.config.policy, d.config
    return {
        **pick(d, "outcome", "gate", "conclusion"),
        "reasons": [reason_json(r) for r in d.reasons],
        "violations": [reason_json(r) for r in d.violations],
        "policy_ok": d.policy_ok,
        "warnings": [reason_json(r) for r in d.warnings],
        "test": c.test,
        **pvalue_json(c.pvalue),
        "alpha": c.alpha.level,
        "effective_alpha": c.alpha.effective,
        "rule": "p <= alpha",
        "mode": policy.mode,
        "identical": c.identical,
        "agreement": None
        if agreement is None
        else pick(agreement, "case", "agree", "excludes_null", "levels_match"),
        "rules_out": _rules_out(d, c),
        "plan": {
            "items": None if planned is None else planned.items,
            "observed_items": c.items,
            "note": word_plan(planned),
            "source": None if planned is None else planned.source,
            "design_effect": None if planned is None else planned.design_effect,
            "items_sha256": policy.items_sha256,
            "observed_items_sha256": d.fingerprint,
        },
        "looks": {
            "head_sha": d.head_sha,
            "look": d.looks.number,
            "max_looks": policy.max_looks,
            "rerun": d.looks.rerun,
            "disclosure": word_disclosure(d, c.items),
        },
        "power": {
            "min_effect": policy.min_effect,
            "minimum_detectable_effect": d.minimum_detectable_effect,
            **pick(d, "underpowered", "powerless"),
            "note": next((word_reason(r) for r in d.reasons if r.code == "tripwire"), None),
        },
        "holdout": {
            "used": d.holdout,
            "uses": d.holdout_uses,
            "max_uses": None if plan.holdout is None else plan.holdout.max_uses,
        },
        "gate_details": {"margin": plan.gate.margin}
        | pick(d, "noninferior", "broken", "broken_limit"),
    }


def _rules_out(decision: Decision, comparison: Comparison) -> JSONObject | None:
    """For a null verdict: the effects outside the interval are ruled out at its level."""
    null = decision.outcome == "no_significant_difference"
    if not null or not comparison.finite:
        return None
    ci = comparison.difference.confidence_interval
    return {
        "below": ci.low,
        "above": ci.high,
        "confidence": comparison.difference.confidence_level,
        "unit": "pp" if comparison.metric == "pass_rate" else "score",
    }
