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
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

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
from evalbot.plan_inputs import from_one_run, from_pilot
from evalbot.report.sizing import (
    PLAN_SIMULATIONS,
    Discordance,
    ItemsPlan,
    detectable_json,
    detectable_markdown,
    detectable_sentences,
    items_json,
    items_markdown,
    items_text,
)
from evalbot.stats import (
    SampleSizeResult,
    mcnemar_minimum_detectable_effect,
    mcnemar_sample_size,
    simulate_mcnemar_power,
)

__all__ = ["add_plan", "run_plan"]


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
        help="the net change in pass rate to detect: +3pp, 3pp, 3%% or 0.03 (a drop: "
        "--difference=-3pp)",
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
        base, cand = args.pilot
        return from_pilot(base, cand, reading_config(s.config, args), missing=args.missing)
    if args.from_baseline is not None:
        if difference is None:
            raise UsageError(
                "evalbot plan: --from-baseline needs --difference (the discordance it assumes "
                "depends on the change); with --items give --discordance or --pilot"
            )
        return from_one_run(args.from_baseline, reading_config(s.config, args), difference)
    flag = "--difference" if difference is not None else "--items"
    raise UsageError(
        f"evalbot plan: {flag} needs the share of items expected to change outcome: "
        "--discordance R, --pilot BASELINE CANDIDATE (two real runs), or --from-baseline FILE "
        "(one run; conservative)"
    )


def _pp(value: float) -> str:
    return f"{value * 100:+.1f} pp"


# ---- items needed --------------------------------------------------------------------------------


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
    if args.format == "json":
        out.write(json.dumps(items_json(plan), indent=2) + "\n")
    elif args.format == "markdown":
        out.write(items_markdown(plan, _md_name))
    else:
        out.write(items_text(plan))
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
        out.write(detectable_markdown(result, found, _md_name))
    else:
        out.write("".join(line + "\n" for line in detectable_sentences(result, found)))
    return EXIT_OK
