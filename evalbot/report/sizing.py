"""Pure: ``evalbot plan --format json`` from what :mod:`evalbot.plan.sizing` computed (one size,
the sizes over a range of discordance, or the minimum detectable effect), and the words of a
range's rows; the text and Markdown outputs are the templates ``plan.j2`` and ``plan.md.j2``
(:func:`evalbot.report.render.render_plan`).
"""

from __future__ import annotations

import math

from evalbot.plan.sizing import (
    PILOT_CONFIDENCE,
    PLAN_SIMULATIONS,
    Assumption,
    Discordance,
    ItemsPlan,
    Pair,
)
from evalbot.report.json_report import pick
from evalbot.report.text import Markdown
from evalbot.stats.power import DetectableEffectResult, SampleSizeResult

#: Version of the ``plan --format json`` document.
PLAN_SCHEMA_VERSION = 1


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


# ---- JSON ---------------------------------------------------------------------------------------


def _pair_json(pair: Pair) -> dict[str, object]:
    return {
        **dict(zip(("baseline", "candidate"), pair.sources, strict=True)),
        **pick(pair.table, "items", "discordant", "fixed", "broken"),
        "interval": list(pair.interval),
        "confidence": PILOT_CONFIDENCE,
    }


def _discordance_json(found: Discordance, plan: ItemsPlan | None = None) -> dict[str, object]:
    """Where the discordance came from; with a plan, its range and its sizes at the ends."""
    detail: dict[str, object] = {"rate": found.rate, "source": found.source}
    if found.pair is not None:
        detail |= _pair_json(found.pair)
    if found.source == "config":
        detail["config"] = found.config
    span = plan.range if plan else None
    if span is not None:
        base = span.base
        detail["pass_rate"] = base.rate
        detail["expected_pass_rate"] = base.rate + span.difference
        detail["assumption"] = span.chosen
        if base.noise is not None:
            detail["noise_floor"] = {"rate": base.noise.rate, **_pair_json(base.noise)}
        if base.run is not None:
            detail["file"] = base.run[1]
    if plan is not None and plan.at_interval is not None:
        detail["items_at_interval"] = list(plan.at_interval)
    return detail


def _test_json(result: SampleSizeResult | DetectableEffectResult) -> dict[str, object]:
    return {
        **pick(result, "alpha", "power"),
        "target_power": result.power,
        "power_reached": _finite(result.exact_power),
        "design_effect": result.design_effect,
    }


def items_json(plan: ItemsPlan) -> dict[str, object]:
    result, simulated, normal = plan.result, plan.simulated, plan.result.normal
    effect = result.fix_rate - result.break_rate
    return {
        "schema_version": PLAN_SCHEMA_VERSION,
        **pick(result, "items", "discordant_pairs", "fix_rate", "break_rate", "discordant_rate"),
        "effect": effect,
        "difference": effect,
        "discordance": _discordance_json(plan.discordance, plan),
        **_test_json(result),
        "unclustered_items": result.unclustered_items,
        "test": f"McNemar ({result.method})",
        "method": f"exact power of the {result.method} McNemar test; the smallest size whose "
        "power reaches the target",
        **pick(result, "rule", "stable_items", "stays_above"),
        "exact_power": _finite(result.exact_power),
        "exact_conditional_power": result.exact_conditional_power,
        "simulated_power": simulated,
        "simulated_power_se": math.sqrt(simulated * (1 - simulated) / PLAN_SIMULATIONS),
        "simulations": PLAN_SIMULATIONS,
        "simulation_seed": 0,
        "normal_approximation": {
            **pick(normal, "items", "discordant_pairs"),
            "power_reached": _finite(normal.exact_power),
            "rounding": "discordant pairs rounded up; items = ceil(discordant_pairs / "
            "discordant_rate)",
        },
        **_range_json(plan),
    }


def _range_json(plan: ItemsPlan) -> dict[str, object]:
    if plan.range is None:
        return {}
    p0 = plan.range.base.rate
    return {
        "pass_rate": p0,
        "expected_pass_rate": p0 + plan.result.fix_rate - plan.result.break_rate,
        "by_discordance": [
            {
                "assumption": kind,
                "text": assumption(kind, size, plan),
                "discordance": size.discordant_rate,
                **pick(size, "fix_rate", "break_rate", "items", "discordant_pairs"),
                "power_reached": _finite(size.exact_power),
            }
            for kind, size in plan.range.rows
        ],
    }


def detectable_json(result: DetectableEffectResult, found: Discordance) -> dict[str, object]:
    detectable = result.detectable
    return {
        "schema_version": PLAN_SCHEMA_VERSION,
        **pick(result, "items", "discordant_rate"),
        "discordance": _discordance_json(found),
        **_test_json(result),
        "detectable": detectable,
        "minimum_detectable_effect": result.effect if detectable else None,
        "fix_rate": result.fix_rate if detectable else None,
        "break_rate": result.break_rate if detectable else None,
        "test": f"McNemar ({result.method})",
        "method": f"exact power of the {result.method} McNemar test, bisection on the fixed "
        "share of the discordant items",
        "normal_approximation": {
            "minimum_detectable_effect": _finite(result.normal_effect),
            "power_reached": _finite(result.normal_exact_power),
        },
    }


# ---- the words of a range's rows ---------------------------------------------------------


def assumption(kind: Assumption, size: SampleSizeResult, plan: ItemsPlan) -> Markdown:
    """What a row of the range (``size`` under the assumption ``kind``) assumes, in words
    (evalbot's own: numbers and fixed words)."""
    if kind == "least":
        return Markdown("least possible: no item moves against the change")
    if kind == "independent":
        return Markdown("independent outcomes: the runs agree no more than chance (the most items)")
    if kind == "noise_floor":
        noise = plan.range.base.noise if plan.range else None
        floor = noise.rate if noise else math.nan
        return Markdown(
            f"the A/A pair's noise floor {floor * 100:.1f} % plus the change's own items"
        )
    gain = size.fix_rate >= size.break_rate
    against = size.break_rate if gain else size.fix_rate
    return Markdown(
        f"the change also {'breaks' if gain else 'fixes'} {against * 100:.1f} % of the items"
    )
