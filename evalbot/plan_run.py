"""``evalbot plan`` at work: the inputs read (flags, config, a pilot, one run or an A/A pair),
the size (or the sizes over a range of discordance, or the minimum detectable effect) computed
with :mod:`evalbot.stats` (exact power of the test evalbot runs), and the three outputs written
(text, Markdown, JSON). The flags are :mod:`evalbot.plan_cli`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TextIO

from evalbot.cli_args import check_exclusive, reading_config
from evalbot.compare.alpha import plan_alpha
from evalbot.errors import EXIT_OK, UsageError
from evalbot.plan.config import Config, load_config
from evalbot.plan.sizing import (
    from_noise_floor,
    from_one_run,
    from_pilot,
    independent_discordance,
)
from evalbot.report.sizing import (
    PLAN_SIMULATIONS,
    Assumption,
    BaselineRate,
    Discordance,
    ItemsPlan,
    RangeRow,
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
from evalbot.vocabulary import POWER

__all__ = ["run_plan"]


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
        # the alpha every look is tested at: alpha / max_looks under policy.looks: bonferroni
        alpha=args.alpha if args.alpha is not None else plan_alpha(config).effective,
        power=args.power if args.power is not None else (plan.power if plan else POWER),
        method=config.mcnemar,
        design_effect=args.design_effect
        if args.design_effect is not None
        else (plan.design_effect if plan else 1.0),
        config=config,
    )


def run_plan(args: argparse.Namespace, out: TextIO) -> int:
    check_exclusive(args, "plan", ("--fix-rate", "--break-rate"), ("--difference",), ("--items",))
    check_exclusive(
        args,
        "plan",
        ("--discordance",),
        ("--pilot",),
        ("--from-baseline",),
        ("--pass-rate",),
        ("--noise-floor",),
    )
    s = _settings(args)
    rates = args.fix_rate is not None or args.break_rate is not None
    if rates and _discordance_given(args):
        raise UsageError(
            "evalbot plan: --fix-rate and --break-rate already give the discordance (their "
            "sum); use --difference with --discordance, --pilot, --pass-rate, --from-baseline "
            "or --noise-floor instead"
        )
    if args.items is not None:
        return _write_detectable(args, out, s, _discordance(args, s, difference=None))
    if args.difference is not None:
        base = _baseline_rate(args, s)
        if base is not None:
            return _write(args, out, _range_plan(s, args.difference, base))
        found = _discordance(args, s, difference=args.difference)
        fix, brk = _split(args.difference, found.rate)
        return _write(args, out, _items_plan(s, fix, brk, found))
    if rates:
        fix, brk = _check_rates(args.fix_rate, args.break_rate)
        return _write(args, out, _items_plan(s, fix, brk, _from_rates(fix, brk)))
    if s.config.plan is None:
        where = f"{s.config.source} has no `plan:` section; " if args.config else ""
        raise UsageError(
            f"evalbot plan: {where}say what to detect: --difference 3pp with --discordance R, "
            "--pilot BASELINE CANDIDATE, --pass-rate P, --from-baseline FILE or --noise-floor "
            "RUN_A RUN_B; or --fix-rate and --break-rate; or --items N with a discordance (see "
            "--help)"
        )
    plan = s.config.plan
    found = Discordance(
        rate=plan.fix_rate + plan.break_rate,
        source="config",
        sentence="Rates from {config} (its `plan:`).",
        paths={"config": s.config.source},
        detail={"config": s.config.source},
    )
    return _write(args, out, _items_plan(s, plan.fix_rate, plan.break_rate, found))


#: The flags that give the baseline's pass rate, and with it a range of discordance.
RANGE_FLAGS = ("--pass-rate", "--from-baseline", "--noise-floor")


def _discordance_given(args: argparse.Namespace) -> bool:
    sources = (args.discordance, args.pilot, args.from_baseline, args.pass_rate, args.noise_floor)
    return any(x is not None for x in sources)


def _baseline_rate(args: argparse.Namespace, s: Settings) -> BaselineRate | None:
    """The baseline's pass rate, when a flag gives it (else the discordance is given)."""
    if args.pass_rate is not None:
        return BaselineRate(rate=args.pass_rate, source="pass_rate")
    if args.from_baseline is not None:
        return from_one_run(args.from_baseline, reading_config(s.config, args))
    if args.noise_floor is not None:
        a, b = args.noise_floor
        return from_noise_floor(a, b, reading_config(s.config, args), missing=args.missing)
    return None


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
    given = next((flag for flag in RANGE_FLAGS if getattr(args, flag[2:].replace("-", "_"))), None)
    if given is not None:  # with --items: the discordance a pass rate allows depends on the change
        raise UsageError(
            f"evalbot plan: {given} needs --difference (the discordance it allows depends on "
            "the change); with --items give --discordance or --pilot"
        )
    flag = "--difference" if difference is not None else "--items"
    raise UsageError(
        f"evalbot plan: {flag} needs the share of items expected to change outcome: "
        "--discordance R or --pilot BASELINE CANDIDATE (two real runs); or, with --difference, "
        "the baseline's pass rate: --pass-rate P, --from-baseline FILE (one run) or "
        "--noise-floor RUN_A RUN_B (two runs of the same system)"
    )


def _pp(value: float) -> str:
    return f"{value * 100:+.1f} pp"


# ---- items needed --------------------------------------------------------------------------------


def _items_plan(s: Settings, fix: float, brk: float, found: Discordance) -> ItemsPlan:
    """The size for these fix and break rates, checked by simulation; with a pilot's
    interval, the sizes at its ends."""
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
    return ItemsPlan(result=result, simulated=simulated, discordance=found, at_interval=at_interval)


def _range_rates(
    difference: float, p0: float, noise: Discordance | None
) -> list[tuple[Assumption, float]]:
    """The discordances a change of ``difference`` from pass rate ``p0`` allows, by assumption:
    the least (``|difference|``), three evenly between, the independent case, and the A/A
    pair's noise floor plus the change; one row per discordance, by size."""
    least = abs(difference)
    independent = independent_discordance(p0, p0 + difference)
    named: list[tuple[Assumption, float]] = [("independent", independent), ("least", least)]
    if noise is not None:
        named.insert(0, ("noise_floor", min(1.0, noise.rate + least)))
    between: list[tuple[Assumption, float]] = [
        ("between", least + k * (independent - least) / 4) for k in (1, 2, 3)
    ]
    rows: dict[float, tuple[Assumption, float]] = {}
    for assumption, rate in named + between:  # a named row wins over an equal one
        rows.setdefault(round(rate, 12), (assumption, rate))
    return sorted(rows.values(), key=lambda row: row[1])


def _range_plan(s: Settings, difference: float, base: BaselineRate) -> ItemsPlan:
    """The sizes over the range of discordance from the baseline's pass rate; the plan is the
    noise floor's row when an A/A pair measured it, else the independent (largest) one."""
    p0, p1 = base.rate, base.rate + difference
    if not 0.0 <= p1 <= 1.0:
        raise UsageError(
            f"evalbot plan: a pass rate of {p0 * 100:.1f} % moved by {_pp(difference)} would "
            "leave 0-100 %"
        )
    size = _sizer(s)
    rows = tuple(
        RangeRow(assumption=assumption, result=size(*_split(difference, rate)))
        for assumption, rate in _range_rates(difference, p0, base.noise)
    )
    chosen = next((r for r in rows if r.assumption == "noise_floor"), rows[-1])
    detail: dict[str, object] = {
        "pass_rate": p0,
        "expected_pass_rate": p1,
        "assumption": chosen.assumption,
    }
    sentence = f"Pass rate {p0 * 100:.1f} % from {{baseline}} ({base.items} items)."
    if base.noise is not None:
        detail["noise_floor"] = {"rate": base.noise.rate, **base.noise.detail}
        sentence = f"Pass rate {p0 * 100:.1f} % from the A/A pair (both runs' mean)."
    found = Discordance(
        rate=chosen.result.discordant_rate,
        source=base.source,
        sentence=sentence if base.source != "pass_rate" else "",
        paths=base.paths,
        detail={**detail, **base.detail},
        interval=None
        if base.noise is None or base.noise.interval is None
        else (base.noise.interval[0] + abs(difference), base.noise.interval[1] + abs(difference)),
    )
    plan = _items_plan(s, chosen.result.fix_rate, chosen.result.break_rate, found)
    return replace(plan, baseline_rate=base, rows=rows)


def _write(args: argparse.Namespace, out: TextIO, plan: ItemsPlan) -> int:
    if args.format == "json":
        out.write(json.dumps(items_json(plan), indent=2) + "\n")
    elif args.format == "markdown":
        out.write(items_markdown(plan))
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
        out.write(detectable_markdown(result, found))
    else:
        out.write("".join(line + "\n" for line in detectable_sentences(result, found)))
    return EXIT_OK
