"""Pure: the outputs of ``evalbot plan`` (JSON, text, Markdown) from its results: one size, a
range of sizes over the discordance a baseline's pass rate allows, or the minimum detectable
effect.

:mod:`evalbot.plan_run` reads the inputs and computes the plan with :mod:`evalbot.stats`; this
module words it. File names (a pilot's, a run's) are the user's text: every output shows them
through a ``name`` function (the Markdown output's, :func:`_markdown_name`, escapes them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from evalbot.report import text as md
from evalbot.stats import DetectableEffectResult, SampleSizeResult

__all__ = [
    "PLAN_SCHEMA_VERSION",
    "PLAN_SIMULATIONS",
    "BaselineRate",
    "Discordance",
    "ItemsPlan",
    "RangeRow",
    "detectable_json",
    "detectable_markdown",
    "detectable_sentences",
    "items_json",
    "items_markdown",
    "items_sentences",
    "items_text",
]

#: Version of the ``plan --format json`` document.
PLAN_SCHEMA_VERSION = 1
#: Seeded simulations that check the exact power of a plan.
PLAN_SIMULATIONS = 10_000


@dataclass(frozen=True, kw_only=True)
class Discordance:
    """The share of items expected to change outcome, and where it came from."""

    rate: float
    source: str  # "given", "pilot", "baseline", "rates", "config"
    # for the text and Markdown outputs ("" when nothing to add): ``{name}`` fields stand for
    # the file names in ``paths``, shown as each output shows a name
    sentence: str = ""
    paths: dict[str, str] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)  # for the JSON output
    interval: tuple[float, float] | None = None  # a pilot's interval for the rate

    def describe(self, name: Callable[[str], str] = str) -> str:
        """The sentence with the file names shown by ``name``."""
        return self.sentence.format(**{key: name(path) for key, path in self.paths.items()})


@dataclass(frozen=True, kw_only=True)
class BaselineRate:
    """The baseline's pass rate a plan over a range of discordance starts from: given
    (``pass_rate``), one run (``baseline``), or an A/A pair (``noise_floor``: two runs of the
    same system, whose discordance ``noise`` is the noise floor)."""

    rate: float
    source: str
    items: int | None = None
    paths: dict[str, str] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)
    noise: Discordance | None = None


#: The assumption behind a row of the range: the least discordance the change allows
#: (|difference|), evenly between, the A/A pair's noise floor plus the change, independent runs.
Assumption = Literal["least", "between", "noise_floor", "independent"]


@dataclass(frozen=True, kw_only=True)
class RangeRow:
    assumption: Assumption
    result: SampleSizeResult


@dataclass(frozen=True, kw_only=True)
class ItemsPlan:
    """A plan: ``result`` the size it recommends; with a baseline's pass rate, ``rows`` the
    sizes over the range of discordance (``result`` is the noise floor's row, else the
    independent one)."""

    result: SampleSizeResult
    simulated: float
    discordance: Discordance
    at_interval: tuple[int, int] | None = None  # items needed at the interval's ends
    baseline_rate: BaselineRate | None = None
    rows: tuple[RangeRow, ...] = ()


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _power(value: float) -> str:
    return f"{value:.3f}" if math.isfinite(value) else "n/a (too large to sum)"


def items_json(plan: ItemsPlan) -> dict[str, object]:
    result, simulated, normal = plan.result, plan.simulated, plan.result.normal
    method = result.method
    return {
        "schema_version": PLAN_SCHEMA_VERSION,
        "items": result.items,
        "discordant_pairs": result.discordant_pairs,
        "fix_rate": result.fix_rate,
        "break_rate": result.break_rate,
        "discordant_rate": result.discordant_rate,
        "effect": result.fix_rate - result.break_rate,
        "difference": result.fix_rate - result.break_rate,
        "discordance": {
            "rate": plan.discordance.rate,
            "source": plan.discordance.source,
            **plan.discordance.detail,
            **(
                {"items_at_interval": list(plan.at_interval)}
                if plan.at_interval is not None
                else {}
            ),
        },
        "alpha": result.alpha,
        "power": result.power,
        "target_power": result.power,
        "power_reached": _finite(result.exact_power),
        "design_effect": result.design_effect,
        "unclustered_items": result.unclustered_items,
        "test": f"McNemar ({method})",
        "method": f"exact power of the {method} McNemar test; the smallest size whose power "
        "reaches the target",
        "rule": result.rule,
        "stable_items": result.stable_items,
        "stays_above": result.stays_above,
        "exact_power": _finite(result.exact_power),
        "exact_conditional_power": result.exact_conditional_power,
        "simulated_power": simulated,
        "simulated_power_se": math.sqrt(simulated * (1 - simulated) / PLAN_SIMULATIONS),
        "simulations": PLAN_SIMULATIONS,
        "simulation_seed": 0,
        "normal_approximation": {
            "items": normal.items,
            "discordant_pairs": normal.discordant_pairs,
            "power_reached": _finite(normal.exact_power),
            "rounding": "discordant pairs rounded up; items = ceil(discordant_pairs / "
            "discordant_rate)",
        },
        **_range_json(plan),
    }


def _range_json(plan: ItemsPlan) -> dict[str, object]:
    if plan.baseline_rate is None:
        return {}
    p0 = plan.baseline_rate.rate
    return {
        "pass_rate": p0,
        "expected_pass_rate": p0 + plan.result.fix_rate - plan.result.break_rate,
        "by_discordance": [
            {
                "assumption": row.assumption,
                "text": _assumption(row, plan),
                "discordance": row.result.discordant_rate,
                "fix_rate": row.result.fix_rate,
                "break_rate": row.result.break_rate,
                "items": row.result.items,
                "discordant_pairs": row.result.discordant_pairs,
                "power_reached": _finite(row.result.exact_power),
            }
            for row in plan.rows
        ],
    }


def _assumption(row: RangeRow, plan: ItemsPlan) -> str:
    """What a row of the range assumes, in words."""
    result = row.result
    if row.assumption == "least":
        return "least possible: no item moves against the change"
    if row.assumption == "independent":
        return "independent outcomes: the runs agree no more than chance (the most items)"
    if row.assumption == "noise_floor":
        noise = plan.baseline_rate.noise if plan.baseline_rate else None
        floor = noise.rate if noise else math.nan
        return f"the A/A pair's noise floor {floor * 100:.1f} % plus the change's own items"
    gain = result.fix_rate >= result.break_rate
    against = result.break_rate if gain else result.fix_rate
    return f"the change also {'breaks' if gain else 'fixes'} {against * 100:.1f} % of the items"


def items_sentences(plan: ItemsPlan, name: Callable[[str], str] = str) -> list[str]:
    """The plan in sentences, shared by the text and Markdown outputs; ``name`` shows a file
    name."""
    result, normal = plan.result, plan.result.normal
    effect = result.fix_rate - result.break_rate
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
        f"{result.items} items to detect {effect * 100:+.1f} pp (fix rate {result.fix_rate:g}, "
        f"break rate {result.break_rate:g}) with McNemar's {result.method} test at alpha "
        f"{result.alpha:g}, two-sided: power {_power(result.exact_power)} (target "
        f"{result.power:g}).",
        f"That is the smallest size whose exact power reaches the target; {steady}. "
        f"About {result.discordant_pairs} discordant pairs are expected.",
    ]
    if result.design_effect != 1.0:
        lines.append(
            f"Design effect {result.design_effect:g} (clustered items): "
            f"{result.unclustered_items} independent items' worth, times {result.design_effect:g}."
        )
    if plan.discordance.sentence:
        lines.append(plan.discordance.describe(name))
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


def _range_intro(plan: ItemsPlan) -> str:
    result, sizes = plan.result, [row.result.items for row in plan.rows]
    effect = result.fix_rate - result.break_rate
    p0 = plan.baseline_rate.rate if plan.baseline_rate else math.nan
    return (
        f"{min(sizes)} to {max(sizes)} items to detect {effect * 100:+.1f} pp from a pass rate "
        f"of {p0 * 100:.1f} % (to {(p0 + effect) * 100:.1f} %) with McNemar's {result.method} "
        f"test at alpha {result.alpha:g}, two-sided, power {result.power:g}, depending on the "
        "share of items whose outcome differs between the two runs (the discordance):"
    )


def _range_after(plan: ItemsPlan, name: Callable[[str], str]) -> str:
    noise = plan.baseline_rate.noise if plan.baseline_rate else None
    if noise is None:
        return (
            "One run cannot show the discordance. Runs of similar systems agree more than "
            "independent ones, so the last row is an upper bound, and the plan below takes it; "
            "two runs of the baseline system (--noise-floor RUN_A RUN_B) measure how many items "
            "change by chance alone, and a pilot of the change (--pilot) the discordance itself."
        )
    return f"{noise.describe(name)} The plan below takes the noise floor's row."


def _range_cells(row: RangeRow, plan: ItemsPlan) -> tuple[str, ...]:
    r = row.result
    return (
        f"{r.discordant_rate * 100:.1f} %",
        f"{r.fix_rate * 100:.1f} %",
        f"{r.break_rate * 100:.1f} %",
        str(r.items),
        _power(r.exact_power),
        _assumption(row, plan),
    )


RANGE_HEADER = ("discordance", "fix rate", "break rate", "items", "power", "assumption")


def items_text(plan: ItemsPlan) -> str:
    lines = items_sentences(plan)
    if plan.rows:
        rows = [RANGE_HEADER, *(_range_cells(row, plan) for row in plan.rows)]
        table = [
            "  "
            + "  ".join(
                cell.rjust(len(head) + 1) for cell, head in zip(row[:5], RANGE_HEADER, strict=False)
            )
            + "  "
            + row[5]
            for row in rows
        ]
        lines = [_range_intro(plan), "", *table, "", _range_after(plan, str), *lines]
    return "".join(line + "\n" for line in lines)


def _markdown_name(path: str) -> str:
    """A file name in Markdown: bold, its characters escaped (a path is the user's text)."""
    return f"**{md.escape(path)}**"


def _range_markdown(plan: ItemsPlan) -> str:
    sizes = [row.result.items for row in plan.rows]
    rows = [RANGE_HEADER, ("---:",) * 5 + ("---",), *(_range_cells(row, plan) for row in plan.rows)]
    table = "".join("| " + " | ".join(row) + " |\n" for row in rows)
    lines = [_range_after(plan, _markdown_name), *items_sentences(plan, _markdown_name)]
    body = "\n".join(f"- {line}" for line in lines)
    heading = f"{min(sizes)} to {max(sizes)} items"
    if plan.baseline_rate is not None and plan.baseline_rate.noise is not None:
        heading = f"{plan.result.items} items"
    return f"### Plan: **{heading}**\n\n{_range_intro(plan)}\n\n{table}\n{body}\n"


def items_markdown(plan: ItemsPlan) -> str:
    if plan.rows:
        return _range_markdown(plan)
    result = plan.result
    effect = result.fix_rate - result.break_rate
    first, *rest = items_sentences(plan, _markdown_name)
    rows = [
        ("difference to detect", f"{effect * 100:+.1f} pp"),
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


def detectable_json(result: DetectableEffectResult, found: Discordance) -> dict[str, object]:
    method = result.method
    return {
        "schema_version": PLAN_SCHEMA_VERSION,
        "items": result.items,
        "discordant_rate": result.discordant_rate,
        "discordance": {"rate": found.rate, "source": found.source, **found.detail},
        "alpha": result.alpha,
        "power": result.power,
        "target_power": result.power,
        "power_reached": _finite(result.exact_power),
        "design_effect": result.design_effect,
        "detectable": result.detectable,
        "minimum_detectable_effect": result.effect if result.detectable else None,
        "fix_rate": result.fix_rate if result.detectable else None,
        "break_rate": result.break_rate if result.detectable else None,
        "test": f"McNemar ({method})",
        "method": f"exact power of the {method} McNemar test, bisection on the fixed share of "
        "the discordant items",
        "normal_approximation": {
            "minimum_detectable_effect": _finite(result.normal_effect),
            "power_reached": _finite(result.normal_exact_power),
        },
    }


def detectable_sentences(
    result: DetectableEffectResult, found: Discordance, name: Callable[[str], str] = str
) -> list[str]:
    changing = (
        f"With {result.items} items and {result.discordant_rate * 100:g} % of them changing "
        "outcome, "
    )
    extra = [found.describe(name)] if found.sentence else []
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


def detectable_markdown(result: DetectableEffectResult, found: Discordance) -> str:
    lines = detectable_sentences(result, found, _markdown_name)
    return "### Plan: minimum detectable effect\n\n" + "".join(f"- {line}\n" for line in lines)
