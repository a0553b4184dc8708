"""Pure: the outputs of ``evalbot plan`` (JSON, text, Markdown) from what
:mod:`evalbot.plan.sizing` computed: one size, the sizes over a range of discordance, or the
minimum detectable effect. File names are the user's text: every output shows them through a
``name`` function (the Markdown output's, :func:`_markdown_name`, escapes them).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

from evalbot.plan.sizing import (
    PILOT_CONFIDENCE,
    PLAN_SIMULATIONS,
    Discordance,
    ItemsPlan,
    Pair,
    RangeRow,
    pp,
)
from evalbot.report import text as md
from evalbot.stats.power import DetectableEffectResult, SampleSizeResult

#: Version of the ``plan --format json`` document.
PLAN_SCHEMA_VERSION = 1

Name = Callable[[str], str]


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _power(value: float) -> str:
    return f"{value:.3f}" if math.isfinite(value) else "n/a (too large to sum)"


def _markdown_name(path: str) -> str:
    """A file name in Markdown: bold, its characters escaped (a path is the user's text)."""
    return f"**{md.escape(path)}**"


def render_plan(plan: ItemsPlan, form: str) -> str:
    """The plan as ``form`` (json, markdown or text)."""
    if form == "json":
        return json.dumps(items_json(plan), indent=2) + "\n"
    return items_markdown(plan) if form == "markdown" else items_text(plan)


def render_detectable(result: DetectableEffectResult, found: Discordance, form: str) -> str:
    """The minimum detectable effect as ``form`` (json, markdown or text)."""
    if form == "json":
        return json.dumps(detectable_json(result, found), indent=2) + "\n"
    if form == "markdown":
        lines = detectable_sentences(result, found, _markdown_name)
        return "### Plan: minimum detectable effect\n\n" + "".join(f"- {x}\n" for x in lines)
    return "".join(line + "\n" for line in detectable_sentences(result, found))


# ---- JSON ---------------------------------------------------------------------------------------


def _echo(result: object, *names: str) -> dict[str, object]:
    """The fields ``names`` of a result, as the JSON echoes them."""
    return {name: getattr(result, name) for name in names}


def _pair_json(pair: Pair) -> dict[str, object]:
    return {
        **dict(zip(("baseline", "candidate"), pair.sources, strict=True)),
        **_echo(pair.table, "items", "discordant", "fixed", "broken"),
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
        **_echo(result, "alpha", "power"),
        "target_power": result.power,
        "power_reached": _finite(result.exact_power),
        "design_effect": result.design_effect,
    }


def items_json(plan: ItemsPlan) -> dict[str, object]:
    result, simulated, normal = plan.result, plan.simulated, plan.result.normal
    effect = result.fix_rate - result.break_rate
    return {
        "schema_version": PLAN_SCHEMA_VERSION,
        **_echo(result, "items", "discordant_pairs", "fix_rate", "break_rate", "discordant_rate"),
        "effect": effect,
        "difference": effect,
        "discordance": _discordance_json(plan.discordance, plan),
        **_test_json(result),
        "unclustered_items": result.unclustered_items,
        "test": f"McNemar ({result.method})",
        "method": f"exact power of the {result.method} McNemar test; the smallest size whose "
        "power reaches the target",
        **_echo(result, "rule", "stable_items", "stays_above"),
        "exact_power": _finite(result.exact_power),
        "exact_conditional_power": result.exact_conditional_power,
        "simulated_power": simulated,
        "simulated_power_se": math.sqrt(simulated * (1 - simulated) / PLAN_SIMULATIONS),
        "simulations": PLAN_SIMULATIONS,
        "simulation_seed": 0,
        "normal_approximation": {
            **_echo(normal, "items", "discordant_pairs"),
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
                "assumption": row.assumption,
                "text": _assumption(row, plan),
                "discordance": row.result.discordant_rate,
                **_echo(row.result, "fix_rate", "break_rate", "items", "discordant_pairs"),
                "power_reached": _finite(row.result.exact_power),
            }
            for row in plan.range.rows
        ],
    }


def detectable_json(result: DetectableEffectResult, found: Discordance) -> dict[str, object]:
    detectable = result.detectable
    return {
        "schema_version": PLAN_SCHEMA_VERSION,
        **_echo(result, "items", "discordant_rate"),
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


# ---- words --------------------------------------------------------------------------------------


def _changed(pair: Pair, name: Name) -> str:
    """What a pair of runs shows, in words."""
    table, (low, high) = pair.table, pair.interval
    return (
        f"{table.discordant} of {table.items} items changed outcome between "
        f"{name(pair.paths[0])} and {name(pair.paths[1])} ({table.fixed} fixed, "
        f"{table.broken} broken; {PILOT_CONFIDENCE * 100:g} % Wilson interval "
        f"{low * 100:.1f} to {high * 100:.1f} %)"
    )


def _source_sentence(found: Discordance, plan: ItemsPlan | None, name: Name) -> str | None:
    """Where the discordance (or the pass rate) came from, when there is something to say."""
    if found.pair is not None:
        return f"Discordance {found.rate * 100:.1f} % from the pilot: {_changed(found.pair, name)}."
    if found.source == "config":
        return f"Rates from {name(found.config)} (its `plan:`)."
    base = plan.range.base if plan and plan.range else None
    if base is None or base.source == "pass_rate":
        return None
    if base.run is None:
        return f"Pass rate {base.rate * 100:.1f} % from the A/A pair (both runs' mean)."
    return f"Pass rate {base.rate * 100:.1f} % from {name(base.run[0])} ({base.items} items)."


def _assumption(row: RangeRow, plan: ItemsPlan) -> str:
    """What a row of the range assumes, in words."""
    result = row.result
    if row.assumption == "least":
        return "least possible: no item moves against the change"
    if row.assumption == "independent":
        return "independent outcomes: the runs agree no more than chance (the most items)"
    if row.assumption == "noise_floor":
        noise = plan.range.base.noise if plan.range else None
        floor = noise.rate if noise else math.nan
        return f"the A/A pair's noise floor {floor * 100:.1f} % plus the change's own items"
    gain = result.fix_rate >= result.break_rate
    against = result.break_rate if gain else result.fix_rate
    return f"the change also {'breaks' if gain else 'fixes'} {against * 100:.1f} % of the items"


def items_sentences(plan: ItemsPlan, name: Name = str) -> list[str]:
    """The plan in sentences, shared by the text and Markdown outputs."""
    result, normal = plan.result, plan.result.normal
    if result.stays_above:
        steady = f"it stays at or above {result.power:g} for every larger size"
    elif result.stable_items is not None:
        steady = (
            f"it dips below {result.power:g} again at some larger sizes (from "
            f"{result.stable_items} items on it stays above)"
        )
    else:
        steady = f"found by bisection on the exact power ({result.rule})"
    lines = [
        f"{result.items} items to detect {pp(result.fix_rate - result.break_rate)} (fix rate "
        f"{result.fix_rate:g}, break rate {result.break_rate:g}) with McNemar's "
        f"{result.method} test at alpha {result.alpha:g}, two-sided: power "
        f"{_power(result.exact_power)} (target {result.power:g}).",
        f"That is the smallest size whose exact power reaches the target; {steady}. "
        f"About {result.discordant_pairs} discordant pairs are expected.",
    ]
    if result.design_effect != 1.0:
        lines.append(
            f"Design effect {result.design_effect:g} (clustered items): "
            f"{result.unclustered_items} independent items' worth, times {result.design_effect:g}."
        )
    source = _source_sentence(plan.discordance, plan, name)
    lines += [source] if source else []
    if plan.at_interval is not None:
        low, high = plan.at_interval
        which = "the noise floor's" if plan.discordance.source == "noise_floor" else "that"
        lines.append(f"At the ends of {which} interval the plan needs {low} to {high} items.")
    elif plan.discordance.interval is not None:
        lines.append(
            "The interval's lower end is below the difference, so the plan's size at its ends "
            "is not given; a larger pilot narrows it."
        )
    lines += [
        f"Check: {PLAN_SIMULATIONS:,} seeded simulations give power {plan.simulated:.3f}.",
        f"The normal approximation would say {normal.items} items "
        f"({normal.discordant_pairs} discordant pairs), where the test's exact power is "
        f"{_power(normal.exact_power)}.",
    ]
    return lines


def detectable_sentences(
    result: DetectableEffectResult, found: Discordance, name: Name = str
) -> list[str]:
    changing = (
        f"With {result.items} items and {result.discordant_rate * 100:g} % of them changing "
        "outcome, "
    )
    source = _source_sentence(found, None, name)
    extra = [source] if source else []
    if result.design_effect != 1.0:
        extra.append(
            f"Design effect {result.design_effect:g}: the {result.items} items count as "
            f"{math.floor(result.items / result.design_effect)} independent ones."
        )
    if not result.detectable:
        return [
            f"{changing}no change is detectable: even if every changed item were fixed, "
            f"McNemar's {result.method} test would not reach power {result.power:g} at alpha "
            f"{result.alpha:g}.",
            *extra,
        ]
    lines = [
        f"{changing}McNemar's {result.method} test detects a net change of "
        f"{result.effect * 100:.1f} pp or more (fix rate {result.fix_rate:.3f}, break rate "
        f"{result.break_rate:.3f}) with power {result.power:g} at alpha {result.alpha:g}, "
        "two-sided (exact power).",
        *extra,
    ]
    if math.isfinite(result.normal_effect):
        lines.append(
            f"The normal approximation would say {result.normal_effect * 100:.1f} pp, where the "
            f"test's exact power is {result.normal_exact_power:.3f}."
        )
    return lines


# ---- the range's table, text and Markdown -------------------------------------------------------

RANGE_HEADER = ("discordance", "fix rate", "break rate", "items", "power", "assumption")


def _span(plan: ItemsPlan) -> str:
    sizes = [row.result.items for row in plan.range.rows] if plan.range else []
    return f"{min(sizes)} to {max(sizes)} items"


def _range_intro(plan: ItemsPlan) -> str:
    assert plan.range is not None
    result, p0 = plan.result, plan.range.base.rate
    effect = result.fix_rate - result.break_rate
    return (
        f"{_span(plan)} to detect {pp(effect)} from a pass rate "
        f"of {p0 * 100:.1f} % (to {(p0 + effect) * 100:.1f} %) with McNemar's {result.method} "
        f"test at alpha {result.alpha:g}, two-sided, power {result.power:g}, depending on the "
        "share of items whose outcome differs between the two runs (the discordance):"
    )


def _range_after(plan: ItemsPlan, name: Name) -> str:
    noise = plan.range.base.noise if plan.range else None
    if noise is None:
        return (
            "One run cannot show the discordance. Runs of similar systems agree more than "
            "independent ones, so the last row is an upper bound, and the plan below takes it; "
            "two runs of the baseline system (--noise-floor RUN_A RUN_B) measure how many items "
            "change by chance alone, and a pilot of the change (--pilot) the discordance itself."
        )
    return (
        f"Noise floor {noise.rate * 100:.1f} % from the A/A pair (two runs of the same "
        f"system): {_changed(noise, name)}. The plan below takes the noise floor's row."
    )


def _range_cells(plan: ItemsPlan) -> list[tuple[str, ...]]:
    rows = plan.range.rows if plan.range else ()
    return [
        (
            f"{row.result.discordant_rate * 100:.1f} %",
            f"{row.result.fix_rate * 100:.1f} %",
            f"{row.result.break_rate * 100:.1f} %",
            str(row.result.items),
            _power(row.result.exact_power),
            _assumption(row, plan),
        )
        for row in rows
    ]


def items_text(plan: ItemsPlan) -> str:
    lines = items_sentences(plan)
    if plan.range is not None:
        widths = [len(head) + 1 for head in RANGE_HEADER[:5]]
        rows = [RANGE_HEADER, *_range_cells(plan)]
        table = ["  " + "  ".join(map(str.rjust, row[:5], widths)) + "  " + row[5] for row in rows]
        lines = [_range_intro(plan), "", *table, "", _range_after(plan, str), *lines]
    return "".join(line + "\n" for line in lines)


def items_markdown(plan: ItemsPlan) -> str:
    result = plan.result
    if plan.range is not None:
        rows = [RANGE_HEADER, ("---:",) * 5 + ("---",), *_range_cells(plan)]
        table = "".join("| " + " | ".join(row) + " |\n" for row in rows)
        lines = [_range_after(plan, _markdown_name), *items_sentences(plan, _markdown_name)]
        heading = f"{result.items} items" if plan.range.base.noise else _span(plan)
        body = "\n".join(f"- {line}" for line in lines)
        return f"### Plan: **{heading}**\n\n{_range_intro(plan)}\n\n{table}\n{body}\n"
    first, *rest = items_sentences(plan, _markdown_name)
    rows = [
        ("difference to detect", pp(result.fix_rate - result.break_rate)),
        ("fix rate / break rate", f"{result.fix_rate:g} / {result.break_rate:g}"),
        ("discordance", f"{result.discordant_rate * 100:.3g} % ({plan.discordance.source})"),
        ("test", f"McNemar ({result.method}), alpha {result.alpha:g}, two-sided"),
        ("power", f"{_power(result.exact_power)} reached (target {result.power:g})"),
        ("discordant pairs expected", str(result.discordant_pairs)),
        ("design effect", f"{result.design_effect:g}"),
    ]
    table = "| | |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in rows)
    body = "\n".join(f"- {line}" for line in rest)
    return f"### Plan: **{result.items} items**\n\n{first}\n\n{table}\n{body}\n"
