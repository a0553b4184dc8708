"""``evalbot plan``: how many items a paired comparison needs, or what N items can detect.

The inputs, in the words a user has:

- ``--difference 3pp`` (the net change to detect) and where the **discordance** (the share of
  items expected to change outcome) comes from: ``--discordance R``, a pilot
  (``--pilot BASELINE CANDIDATE``: the share of items that changed between two real runs), or
  one run alone (``--from-baseline FILE``: the share two runs with this pass rate would
  disagree on if their outcomes were independent, an upper bound for runs of similar systems,
  so the plan is conservative); fix and break rates follow as ``(R ± D) / 2``;
- or the rates themselves, ``--fix-rate`` and ``--break-rate``;
- or ``--items N`` with a discordance source: the minimum detectable effect;
- or ``--config``: the plan's ``plan:`` section (its alpha, power, McNemar variant and design
  effect are used with the flags too).

The sizing itself is :mod:`evalbot.stats` (exact power of the test evalbot runs); this module
reads the inputs and writes the three outputs (text, Markdown, JSON).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from evalbot.cli_args import (
    EPILOG,
    Parser,
    add_reading_flags,
    check_exclusive,
    difference_arg,
    number_arg,
    positive_int,
    rate_arg,
    reading_config,
)
from evalbot.config import Config, load_config
from evalbot.errors import EXIT_OK, UsageError
from evalbot.stats import (
    DetectableEffectResult,
    SampleSizeResult,
    compute_paired_table,
    mcnemar_minimum_detectable_effect,
    mcnemar_sample_size,
    simulate_mcnemar_power,
    wilson_interval,
)

__all__ = ["PLAN_SCHEMA_VERSION", "PLAN_SIMULATIONS", "add_plan", "run_plan"]

#: Version of the ``plan --format json`` document.
PLAN_SCHEMA_VERSION = 1
#: Seeded simulations that check the exact power of a plan.
PLAN_SIMULATIONS = 10_000
#: Confidence of the interval around a pilot's discordance.
PILOT_CONFIDENCE = 0.95


def add_plan(commands: argparse._SubParsersAction[Parser]) -> None:
    plan = commands.add_parser(
        "plan",
        help="items needed to detect a change, or the change N items can detect",
        description="Size a paired McNemar comparison for the test evalbot runs (exact power). "
        "Say what to detect with --difference (and where the share of changing items comes "
        "from: --discordance, --pilot or --from-baseline), or with --fix-rate and "
        "--break-rate; or give --items (and a discordance) for the minimum detectable effect.",
        epilog=EPILOG,
    )
    what = plan.add_argument_group("what to detect")
    what.add_argument(
        "--difference",
        metavar="D",
        type=difference_arg("--difference"),
        help="the net change in pass rate to detect: +3pp, 3pp, 3%% or 0.03 (a drop: -3pp)",
    )
    what.add_argument(
        "--fix-rate",
        metavar="RATE",
        type=rate_arg("--fix-rate"),
        help="share of items the change fixes (baseline fails, candidate passes), e.g. 8%%",
    )
    what.add_argument(
        "--break-rate",
        metavar="RATE",
        type=rate_arg("--break-rate", low=-1e-12),
        help="share of items the change breaks (baseline passes, candidate fails), e.g. 3%%",
    )
    what.add_argument(
        "--items",
        metavar="N",
        type=positive_int("--items", 1),
        help="instead: the items you have; prints the minimum detectable effect (needs a "
        "discordance)",
    )
    share = plan.add_argument_group(
        "the share of items expected to change outcome (with --difference or --items; give one)"
    )
    share.add_argument(
        "--discordance",
        metavar="R",
        type=rate_arg("--discordance", high=1.0000001),
        help="share of items whose outcome differs between the two runs (fixed + broken), "
        "e.g. 12%%; at least the difference",
    )
    share.add_argument(
        "--pilot",
        nargs=2,
        metavar=("BASELINE", "CANDIDATE"),
        help="two real runs on the same items (e.g. the current system and a prototype); "
        "their share of changed items is the discordance, with its 95%% interval",
    )
    share.add_argument(
        "--from-baseline",
        metavar="FILE",
        help="only one run: the discordance two runs with its pass rate would have if their "
        "outcomes were independent; runs of similar systems agree more, so the plan is "
        "conservative (more items than a pilot would ask for)",
    )
    test = plan.add_argument_group("the test")
    test.add_argument(
        "--alpha",
        metavar="A",
        type=rate_arg("--alpha", high=0.5),
        help="two-sided significance level, e.g. 0.05 or 5%% (default: the config's alpha, "
        "else 0.05)",
    )
    test.add_argument(
        "--power",
        metavar="P",
        type=rate_arg("--power", low=0.5),
        help="target power, e.g. 0.8 or 80%% (default: the config's plan.power, else 0.8)",
    )
    test.add_argument(
        "--design-effect",
        metavar="DEFF",
        type=number_arg("--design-effect", minimum=1.0),
        help="variance inflation of clustered items (>= 1; Kish: 1 + (m - 1) ICC): the items "
        "needed are multiplied by it, the items available divided (config plan.design_effect; "
        "default: 1)",
    )
    test.add_argument(
        "--config",
        metavar="FILE",
        help="an .evalbot.yml: its plan: section when no rates are given, and its alpha, "
        "plan.power, mcnemar and plan.design_effect (default: none; flags override it)",
    )
    plan.add_argument(
        "--format",
        choices=["text", "markdown", "json"],
        default="text",
        help="output: text for a terminal, markdown for a PR or a document, json for "
        "scripts (default: text)",
    )
    add_reading_flags(plan, what="the pilot's and the baseline's files")


# ---- the inputs ----------------------------------------------------------------------------------


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
class Settings:
    """Everything ``plan`` computes with, whatever the flags were."""

    alpha: float
    power: float
    method: str
    design_effect: float
    config: Config


def _settings(args: argparse.Namespace) -> Settings:
    config = load_config(args.config) if args.config is not None else Config()
    plan = config.plan
    return Settings(
        alpha=args.alpha if args.alpha is not None else config.alpha,
        power=args.power if args.power is not None else (plan.power if plan else 0.8),
        method=config.mcnemar,
        design_effect=args.design_effect
        if args.design_effect is not None
        else (plan.design_effect if plan else 1.0),
        config=config,
    )


def run_plan(args: argparse.Namespace, out: TextIO) -> int:
    check_exclusive(args, "plan", ("--fix-rate", "--break-rate"), ("--difference",), ("--items",))
    check_exclusive(args, "plan", ("--discordance",), ("--pilot",), ("--from-baseline",))
    s = _settings(args)
    rates = args.fix_rate is not None or args.break_rate is not None
    if rates and _discordance_given(args):
        raise UsageError(
            "evalbot plan: --fix-rate and --break-rate already give the discordance (their "
            "sum); use --difference with --discordance, --pilot or --from-baseline instead"
        )
    if args.items is not None:
        return _write_detectable(args, out, s, _discordance(args, s, difference=None))
    if args.difference is not None:
        found = _discordance(args, s, difference=args.difference)
        fix, brk = _split(args.difference, found.rate)
        return _write_items(args, out, s, fix, brk, found)
    if rates:
        fix, brk = _check_rates(args.fix_rate, args.break_rate)
        return _write_items(args, out, s, fix, brk, _from_rates(fix, brk))
    if s.config.plan is None:
        where = f"{s.config.source} has no `plan:` section; " if args.config else ""
        raise UsageError(
            f"evalbot plan: {where}say what to detect: --difference 3pp with --discordance R, "
            "--pilot BASELINE CANDIDATE or --from-baseline FILE; or --fix-rate and "
            "--break-rate; or --items N with a discordance (see --help)"
        )
    plan = s.config.plan
    found = Discordance(
        rate=plan.fix_rate + plan.break_rate,
        source="config",
        sentence="Rates from {config} (its `plan:`).",
        paths={"config": s.config.source},
        detail={"config": s.config.source},
    )
    return _write_items(args, out, s, plan.fix_rate, plan.break_rate, found)


def _discordance_given(args: argparse.Namespace) -> bool:
    return any(x is not None for x in (args.discordance, args.pilot, args.from_baseline))


def _check_rates(fix: float | None, brk: float | None) -> tuple[float, float]:
    if fix is None or brk is None:
        raise UsageError("evalbot plan: --fix-rate and --break-rate go together")
    if fix == brk:
        raise UsageError(
            "evalbot plan: --fix-rate equals --break-rate, so there is no difference to detect"
        )
    if fix + brk > 1:
        raise UsageError("evalbot plan: --fix-rate + --break-rate cannot exceed 1")
    return fix, brk


def _from_rates(fix: float, brk: float) -> Discordance:
    return Discordance(rate=fix + brk, source="rates")


def _split(difference: float, discordance: float) -> tuple[float, float]:
    """Fix and break rates from the net difference and the discordance: ``(R ± D) / 2``."""
    if discordance < abs(difference) - 1e-12:
        raise UsageError(
            f"evalbot plan: a net change of {_pp(difference)} needs at least "
            f"{abs(difference) * 100:g} % of the items to change outcome, but the discordance "
            f"is {discordance * 100:.3g} %; give a larger --discordance (a pilot shows it)"
        )
    fix = (discordance + difference) / 2
    brk = max(0.0, (discordance - difference) / 2)
    return float(f"{fix:.12g}"), float(f"{brk:.12g}")


def _discordance(args: argparse.Namespace, s: Settings, *, difference: float | None) -> Discordance:
    if args.discordance is not None:
        return Discordance(rate=args.discordance, source="given")
    if args.pilot is not None:
        return _pilot(args, s)
    if args.from_baseline is not None:
        if difference is None:
            raise UsageError(
                "evalbot plan: --from-baseline needs --difference (the discordance it assumes "
                "depends on the change); with --items give --discordance or --pilot"
            )
        return _from_baseline(args, s, difference)
    flag = "--difference" if difference is not None else "--items"
    raise UsageError(
        f"evalbot plan: {flag} needs the share of items expected to change outcome: "
        "--discordance R, --pilot BASELINE CANDIDATE (two real runs), or --from-baseline FILE "
        "(one run; conservative)"
    )


def _pilot(args: argparse.Namespace, s: Settings) -> Discordance:
    from evalbot.analysis import prepare
    from evalbot.results.sources import load_results

    config = reading_config(s.config, args)
    options = config.read_options()
    base_spec, cand_spec = args.pilot
    paired = prepare(
        load_results(base_spec, options),
        load_results(cand_spec, options),
        config,
        missing=args.missing,
    )
    if not paired.pass_fail or paired.kind != "binary":
        raise UsageError(
            f"evalbot plan: the pilot {base_spec} / {cand_spec} is not one pass/fail outcome "
            "per item on both sides (scores, or repeats), so it shows no share of changed "
            "items; give --discordance R"
        )
    table = compute_paired_table(paired.baseline, paired.candidate)
    n, d = table.items, table.discordant
    if d == 0:
        raise UsageError(
            f"evalbot plan: no item changed outcome between the pilot's {base_spec} and "
            f"{cand_spec} ({n} items), so it gives no discordance; give --discordance R"
        )
    ci = wilson_interval(d, n, confidence_level=PILOT_CONFIDENCE)
    sentence = (
        f"Discordance {d / n * 100:.1f} % from the pilot: {d} of {n} items changed outcome "
        f"between {{baseline}} and {{candidate}} ({table.fixed} fixed, {table.broken} broken; "
        f"{PILOT_CONFIDENCE * 100:g} % Wilson interval {ci.low * 100:.1f} to "
        f"{ci.high * 100:.1f} %)."
    )
    return Discordance(
        rate=d / n,
        source="pilot",
        sentence=sentence,
        paths={"baseline": base_spec, "candidate": cand_spec},
        interval=(ci.low, ci.high),
        detail={
            "baseline": paired.baseline_source,
            "candidate": paired.candidate_source,
            "items": n,
            "discordant": d,
            "fixed": table.fixed,
            "broken": table.broken,
            "interval": [ci.low, ci.high],
            "confidence": PILOT_CONFIDENCE,
        },
    )


def _from_baseline(args: argparse.Namespace, s: Settings, difference: float) -> Discordance:
    from evalbot.results.sources import load_results

    config = reading_config(s.config, args)
    run = load_results(args.from_baseline, config.read_options())
    if run.kind != "binary" or run.epochs is not None:
        raise UsageError(
            f"evalbot plan: {args.from_baseline} is not one pass/fail outcome per item (scores, "
            "or repeats); give --discordance R"
        )
    n = len(run)
    p0 = float(run.scores.mean()) if n else 0.0
    p1 = p0 + difference
    if not 0.0 <= p1 <= 1.0:
        raise UsageError(
            f"evalbot plan: {args.from_baseline} passes {p0 * 100:.1f} %, so a change of "
            f"{_pp(difference)} would leave the pass rate outside 0-100 %"
        )
    rate = p0 * (1 - p1) + p1 * (1 - p0)
    sentence = (
        f"Discordance {rate * 100:.1f} %, assumed from {{baseline}} alone (pass rate "
        f"{p0 * 100:.1f} % over {n} items, {(p0 + difference) * 100:.1f} % expected after the "
        "change) as if the two runs' outcomes were independent. One run cannot show how often "
        "outcomes change; runs of similar systems agree more than independent ones, so this "
        "plan is conservative. Two runs (--pilot BASELINE CANDIDATE) give a tighter plan."
    )
    return Discordance(
        rate=rate,
        source="baseline",
        sentence=sentence,
        paths={"baseline": args.from_baseline},
        detail={
            "file": run.source,
            "items": n,
            "pass_rate": p0,
            "expected_pass_rate": p1,
            "assumption": "independent outcomes (an upper bound when the runs agree more "
            "than chance)",
        },
    )


def _pp(value: float) -> str:
    return f"{value * 100:+.1f} pp"


# ---- items needed --------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ItemsPlan:
    result: SampleSizeResult
    simulated: float
    discordance: Discordance
    at_interval: tuple[int, int] | None = None  # items needed at the pilot interval's ends


def _write_items(
    args: argparse.Namespace,
    out: TextIO,
    s: Settings,
    fix: float,
    brk: float,
    found: Discordance,
) -> int:
    size = _sizer(s)
    result = size(fix, brk)
    simulated = simulate_mcnemar_power(
        result.fix_rate,
        result.break_rate,
        result.unclustered_items,
        alpha=result.alpha,
        n_simulations=PLAN_SIMULATIONS,
        seed=0,
        method=s.method,
    )
    at_interval = None
    if found.interval is not None:
        effect = fix - brk
        low, high = found.interval
        if low >= abs(effect):
            at_interval = (size(*_split(effect, low)).items, size(*_split(effect, high)).items)
    plan = ItemsPlan(result=result, simulated=simulated, discordance=found, at_interval=at_interval)
    writer = {"json": _items_json_text, "markdown": _items_markdown, "text": _items_text}
    out.write(writer[args.format](plan))
    return EXIT_OK


def _sizer(s: Settings) -> Callable[[float, float], SampleSizeResult]:
    def size(fix: float, brk: float) -> SampleSizeResult:
        return mcnemar_sample_size(
            fix,
            brk,
            alpha=s.alpha,
            power=s.power,
            method=s.method,
            design_effect=s.design_effect,
        )

    return size


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
    }


def _items_json_text(plan: ItemsPlan) -> str:
    return json.dumps(items_json(plan), indent=2) + "\n"


def _items_sentences(plan: ItemsPlan, name: Callable[[str], str] = str) -> list[str]:
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
        lines.append(f"At the ends of that interval the plan needs {low} to {high} items.")
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


def _items_text(plan: ItemsPlan) -> str:
    return "".join(line + "\n" for line in _items_sentences(plan))


def _items_markdown(plan: ItemsPlan) -> str:
    result = plan.result
    effect = result.fix_rate - result.break_rate
    first, *rest = _items_sentences(plan, _md_name)
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


def _md_name(path: str) -> str:
    """A file name in Markdown: its characters escaped (a path is the user's text)."""
    from evalbot.render import md_escape

    return f"**{md_escape(path)}**"


# ---- the minimum detectable effect ------------------------------------------------------------


def _write_detectable(
    args: argparse.Namespace, out: TextIO, s: Settings, found: Discordance
) -> int:
    result = mcnemar_minimum_detectable_effect(
        args.items,
        found.rate,
        alpha=s.alpha,
        power=s.power,
        method=s.method,
        design_effect=s.design_effect,
    )
    if args.format == "json":
        out.write(json.dumps(detectable_json(result, found), indent=2) + "\n")
    elif args.format == "markdown":
        lines = _detectable_sentences(result, found, _md_name)
        out.write(
            "### Plan: minimum detectable effect\n\n" + "".join(f"- {line}\n" for line in lines)
        )
    else:
        out.write("".join(line + "\n" for line in _detectable_sentences(result, found)))
    return EXIT_OK


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


def _detectable_sentences(
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
