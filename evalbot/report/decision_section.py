"""Pure: the decision as JSON (the report's ``decision`` section), p-values with their
precision, and the helpers that keep every number finite (JSON has no NaN or infinity)."""

from __future__ import annotations

import math
from typing import Any

from evalbot.compare import Comparison
from evalbot.plan.rules.decision import Decision
from evalbot.plan.rules.reasons import Reason
from evalbot.report.reasons import word_disclosure, word_plan, word_pvalue, word_reason
from evalbot.stats.pvalue import PValue

__all__ = ["decision_json", "finite", "finite_pair", "pvalue_json", "reason_json"]

JSONObject = dict[str, Any]


def finite(value: float | None) -> float | None:
    """``value``, or ``None`` when it is NaN or infinite (undefined, or unbounded)."""
    return None if value is None or not math.isfinite(value) else float(value)


def finite_pair(pair: tuple[float, float]) -> list[float | None]:
    return [finite(pair[0]), finite(pair[1])]


def pvalue_json(p: PValue, key: str = "pvalue") -> JSONObject:
    """A p-value and its precision, never 0 for a positive p-value.

    ``pvalue`` is the float (an upper bound when the p-value cannot be one: see ``_kind``);
    ``pvalue_kind`` is ``exact``, ``upper_bound`` (the method cannot resolve smaller p-values,
    e.g. a bootstrap p with no resample past zero is below 2/B) or ``below_float_range`` (the
    exact p-value is below the smallest normal float, which ``pvalue`` gives as a bound);
    ``pvalue_log10`` is the base-10 logarithm of the exact p-value, or of the bound;
    ``pvalue_resolution`` the smallest p-value the method can produce (``null``: no floor);
    ``pvalue_text`` the p-value as the report words it.
    """
    return {
        key: p.reportable,
        f"{key}_kind": p.kind,
        f"{key}_log10": finite(p.log10),
        f"{key}_resolution": p.resolution,
        f"{key}_text": word_pvalue(p),
    }


def _plain(value: object) -> object:
    if isinstance(value, float):
        return finite(value)
    return value


def reason_json(reason: Reason) -> JSONObject:
    """A reason as data with its words: ``code`` (a closed vocabulary), ``kind``, ``text``,
    ``observed`` and ``threshold`` in ``unit``, the config key (``rule``) and ``flag``."""
    return {
        "code": reason.code,
        "kind": reason.kind,
        "text": word_reason(reason),
        "observed": _plain(reason.observed),
        "threshold": _plain(reason.threshold),
        "unit": reason.unit,
        "rule": reason.rule,
        "flag": reason.flag,
        "details": {key: _plain(value) for key, value in reason.details.items()},
    }


def _rules_out(decision: Decision, comparison: Comparison | None) -> JSONObject | None:
    """For a null verdict: the effects outside the interval are ruled out at its level."""
    if comparison is None or decision.outcome != "no_significant_difference":
        return None
    difference = comparison.difference
    if not difference.finite:
        return None
    ci = difference.confidence_interval
    return {
        "below": ci.low,
        "above": ci.high,
        "confidence": difference.confidence_level,
        "unit": "pp" if comparison.metric == "pass_rate" else "score",
    }


def decision_json(decision: Decision, comparison: Comparison | None = None) -> JSONObject:
    """Everything in the Decision as JSON-ready values (non-finite numbers become null)."""
    d = decision
    agreement = d.agreement
    return {
        "outcome": d.outcome,
        "gate": d.gate,
        "conclusion": d.conclusion,
        "reasons": [reason_json(r) for r in d.reasons],
        "violations": [reason_json(r) for r in d.violations],
        "policy_ok": d.policy_ok,
        "warnings": [reason_json(r) for r in d.warnings],
        "test": d.test,
        **(pvalue_json(d.pvalue) if d.pvalue is not None else {"pvalue": None}),
        "alpha": d.alpha.level,
        "effective_alpha": d.alpha.effective,
        "rule": "p <= alpha",
        "mode": d.mode,
        "identical": d.identical,
        "agreement": None
        if agreement is None
        else {
            "case": agreement.case,
            "agree": agreement.agree,
            "excludes_null": agreement.excludes_null,
            "levels_match": agreement.levels_match,
        },
        "rules_out": _rules_out(d, comparison),
        "plan": {
            "items": d.planned_items,
            "observed_items": d.items,
            "note": word_plan(d.planned),
            "source": None if d.planned is None else d.planned.source,
            "design_effect": None if d.planned is None else d.planned.design_effect,
            "items_sha256": d.planned_fingerprint,
            "observed_items_sha256": d.fingerprint,
        },
        "looks": {
            "head_sha": d.head_sha,
            "look": d.look,
            "max_looks": d.max_looks,
            "rerun": d.rerun,
            "disclosure": word_disclosure(d),
        },
        "power": {
            "min_effect": d.min_effect,
            "minimum_detectable_effect": finite(d.minimum_detectable_effect),
            "underpowered": d.underpowered,
            "powerless": d.powerless,
            "note": next((word_reason(r) for r in d.reasons if r.code == "tripwire"), None),
        },
        "holdout": {"used": d.holdout, "uses": d.holdout_uses, "max_uses": d.holdout_max_uses},
        "gate_details": {
            "margin": d.margin,
            "noninferior": d.noninferior,
            "broken": d.broken,
            "broken_limit": d.broken_limit,
        },
    }
