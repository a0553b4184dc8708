"""The shell: argv (and, for ``action``, the environment) in, an exit code out.

This is the only module that maps errors to exit codes (the table is in :mod:`evalbot.errors`):
0 the comparison ran and the gate passed, 1 the gate failed, 2 bad input / config / usage (one
line on stderr, never a traceback), 3 an internal error.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from evalbot import __version__
from evalbot.errors import (
    EXIT_BAD_INPUT,
    EXIT_GATE_FAILED,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EvalbotError,
    UsageError,
)
from evalbot.text import plain  # standard library only

if TYPE_CHECKING:
    from evalbot.config import Config
    from evalbot.stats import DetectableEffectResult, SampleSizeResult

# Start-up: argparse runs before anything heavy is imported, so ``--version``/``--help`` cost the
# standard library only; each command imports what it needs (numpy and the statistics for
# ``compare``, jinja2 only for the text/markdown reports, yaml only when a config file exists,
# PyGithub only for ``action``). tests/integration/test_imports.py pins this.

#: ``compare``'s field-name flags: ``--<role>-field NAME``, one per key of ``fields:``.
FIELD_FLAGS: tuple[tuple[str, str], ...] = (
    ("id", "the item id field"),
    ("passed", "the pass/fail outcome field (true/false, 0/1, pass/fail)"),
    ("score", "the numeric score field, compared when there is no pass/fail field"),
    ("epoch", "the repeat index field"),
    ("slice", "the stratum field"),
    ("cluster", "the field of items that share context"),
    ("cost", "the per-item cost field"),
    ("error", "the harness error field (only a non-empty, non-false value is an error)"),
)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage problem is one line and an ``EvalbotError`` (exit code 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see --help)")


def _probability(name: str, *, low: float = 0.0, high: float = 1.0) -> type[float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {text!r}") from None
        if not low < value < high:
            raise argparse.ArgumentTypeError(
                f"{name} must be strictly between {low:g} and {high:g}, got {text}"
            )
        return value

    return parse  # type: ignore[return-value]


def _positive_int(
    name: str, minimum: int, upper: int | Callable[[], int] | None = None
) -> type[int]:
    """An integer >= ``minimum`` (and <= ``upper``: a callable is asked only when the option
    is given, so a limit kept with the config costs no import at start-up)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be >= {minimum}, got {value}")
        maximum = upper() if callable(upper) else upper
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{name} must be <= {maximum:,}, got {value}")
        return value

    return parse  # type: ignore[return-value]


def _max_resamples() -> int:
    from evalbot.config import MAX_RESAMPLES

    return MAX_RESAMPLES


def _field_name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("a field name must not be empty")
    return text


def _input_format(text: str) -> str:
    from evalbot.results.formats import resolve

    try:
        resolve(text)
    except EvalbotError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("format: ")) from None
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="evalbot",
        description="Is the change in your eval score real, or noise? Paired statistics "
        "for a baseline and a candidate eval run.",
    )
    parser.add_argument("--version", action="version", version=f"evalbot {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _add_compare(commands)
    _add_plan(commands)
    commands.add_parser("action", help="the GitHub Actions entrypoint (reads the environment)")
    return parser


def _add_compare(commands: argparse._SubParsersAction[_Parser]) -> None:
    compare = commands.add_parser(
        "compare",
        help="compare a baseline run with a candidate run, item by item",
        description="Pair BASELINE and CANDIDATE by item id and report the paired statistics.",
    )
    compare.add_argument("baseline", nargs="?", help="file, directory, glob or .zip")
    compare.add_argument("candidate", nargs="?", help="file, directory, glob or .zip")
    compare.add_argument("--example", action="store_true", help="compare the bundled example runs")
    compare.add_argument("--config", help="analysis plan (default: ./.evalbot.yml if present)")
    compare.add_argument(
        "--format", choices=["markdown", "json", "text"], default="text", help="report format"
    )
    compare.add_argument(
        "--resamples", type=_positive_int("--resamples", 100, _max_resamples), metavar="B"
    )
    compare.add_argument("--seed", type=_positive_int("--seed", 0))
    compare.add_argument("--confidence", type=_probability("--confidence", low=0.5))
    compare.add_argument(
        "--ci-method",
        choices=["percentile", "bca"],
        help="bootstrap interval: percentile or BCa (overrides bootstrap.method)",
    )
    compare.add_argument(
        "--missing",
        choices=["error", "fail", "drop"],
        help="items present on one side only (overrides policy.missing)",
    )
    compare.add_argument(
        "--holdout",
        action="store_true",
        help="analyse only the sealed holdout (holdout.ids_file); counts as one use",
    )
    compare.add_argument(
        "--state-from",
        metavar="FILE",
        help="a file holding the earlier sticky comment (its hidden block lists earlier looks)",
    )
    compare.add_argument("--head-sha", help="the commit being judged (tells looks apart)")
    reading = compare.add_argument_group(
        "reading the result files",
        "Each overrides the plan's key of the same name (`fields:`, `metric:`, ...). A dotted "
        "field name reaches into nested objects (request.question_id).",
    )
    reading.add_argument(
        "--format-in",
        metavar="NAME",
        type=_input_format,
        help="read both runs in this format instead of detecting it by structure (config "
        "format:): default, jsonl, json, csv, tsv, inspect, lm-eval, promptfoo, openai-evals, "
        "swebench, junit, mlflow",
    )
    for role, meaning in FIELD_FLAGS:
        reading.add_argument(
            f"--{role}-field",
            metavar="NAME",
            type=_field_name,
            help=f"{meaning} (config fields.{role}; default: {role})",
        )
    reading.add_argument(
        "--metric",
        metavar="NAME",
        help="the compared field (default: passed, else score), or the lm-eval metric, or the "
        "openai-evals `metrics` key (config metric:)",
    )
    reading.add_argument(
        "--scorer",
        metavar="NAME",
        help="the inspect scorer (NAME.key for a dict value) or the MLflow assessment to "
        "compare (config scorer:)",
    )
    reading.add_argument(
        "--filter",
        metavar="NAME",
        help="the lm-eval filter to read (strict-match, ...) (config filter:)",
    )
    reading.add_argument(
        "--all-ids",
        metavar="FILE",
        help="resolved-id lists (SWE-bench): a file naming every instance id, one per line "
        "or a JSON list (config all_ids:)",
    )


def _add_plan(commands: argparse._SubParsersAction[_Parser]) -> None:
    plan = commands.add_parser(
        "plan",
        help="items needed to detect a change, or the change N items can detect",
        description="Design a paired McNemar comparison: give --fix-rate and --break-rate for "
        "the items (and discordant pairs) needed, or --items and --discordance for the minimum "
        "detectable effect.",
    )
    plan.add_argument("--fix-rate", type=_probability("--fix-rate"))
    plan.add_argument("--break-rate", type=_probability("--break-rate"))
    plan.add_argument("--items", type=_positive_int("--items", 1))
    plan.add_argument("--discordance", type=_probability("--discordance", high=1.0000001))
    plan.add_argument("--alpha", type=_probability("--alpha", high=0.5))
    plan.add_argument("--power", type=_probability("--power", low=0.5))
    plan.add_argument("--config", help="take the rates, alpha and power from the plan's `plan:`")
    plan.add_argument("--format", choices=["json", "text"], default="text")


def _example_paths() -> tuple[str, str]:
    # The package is installed as files (setuptools package-data), so its folder is a path.
    folder = Path(__file__).resolve().parent / "data" / "example"
    return str(folder / "baseline.jsonl"), str(folder / "candidate.jsonl")


def run_compare(args: argparse.Namespace, out: TextIO) -> int:
    from dataclasses import replace

    from evalbot.analysis import analyse
    from evalbot.config import load_config, with_overrides, with_reading
    from evalbot.results.sources import load_results
    from evalbot.state import parse_state

    if args.example:
        if args.baseline or args.candidate:
            raise UsageError("evalbot compare: give either --example or BASELINE CANDIDATE")
        args.baseline, args.candidate = _example_paths()
    if not args.baseline or not args.candidate:
        raise UsageError("evalbot compare: BASELINE and CANDIDATE are required (or --example)")
    config: Config = with_overrides(
        load_config(args.config),
        resamples=args.resamples,
        seed=args.seed,
        confidence=args.confidence,
        method=args.ci_method,
    )
    if args.format_in is not None:
        config = replace(config, format=args.format_in)
    config = with_reading(
        config,
        fields={role: getattr(args, f"{role}_field") for role, _ in FIELD_FLAGS},
        metric=args.metric,
        scorer=args.scorer,
        filter=args.filter,
        all_ids=args.all_ids,
    )
    options = config.read_options()
    baseline = load_results(args.baseline, options)
    candidate = load_results(args.candidate, options)
    state = None
    if args.state_from:
        try:
            state = parse_state(Path(args.state_from).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(
                f"{args.state_from}: cannot read the earlier comment ({error})"
            ) from None
    comparison, decision = analyse(
        baseline,
        candidate,
        config,
        missing=args.missing,
        holdout=args.holdout,
        state=state,
        head_sha=args.head_sha,
    )
    if args.format == "json":
        from evalbot.jsonout import dumps_indented
        from evalbot.report import build_json

        out.write(dumps_indented(build_json(comparison, decision)) + "\n")
        return EXIT_GATE_FAILED if decision.gate == "fail" else EXIT_OK
    from evalbot.render import render_markdown, render_text
    from evalbot.report import build_view

    view = build_view(comparison, decision, item_url=config.report.item_url, config=config)
    if args.format == "markdown":
        template = None
        if config.report.template is not None:
            template = str(Path(config.source).parent / config.report.template)
        out.write(render_markdown(view, template=template))
    else:
        out.write(render_text(view))
    return EXIT_GATE_FAILED if decision.gate == "fail" else EXIT_OK


def _plan_from_config(args: argparse.Namespace) -> str:
    """Fill the rates, alpha and power of ``evalbot plan`` from ``--config``; return the
    McNemar method the plan runs (``mcnemar:``, exact without a config)."""
    if args.config is None:
        args.alpha = 0.05 if args.alpha is None else args.alpha
        args.power = 0.8 if args.power is None else args.power
        return "exact"
    given = (args.fix_rate, args.break_rate, args.items, args.discordance)
    if any(value is not None for value in given):
        raise UsageError("evalbot plan: give either --config or --fix-rate/--break-rate")
    from evalbot.config import load_config

    config = load_config(args.config)
    if config.plan is None:
        raise UsageError(
            f"evalbot plan: {config.source} has no `plan:` section (fix_rate, break_rate, power)"
        )
    args.fix_rate, args.break_rate = config.plan.fix_rate, config.plan.break_rate
    args.alpha = config.alpha if args.alpha is None else args.alpha
    args.power = config.plan.power if args.power is None else args.power
    return config.mcnemar


#: Version of the ``plan --format json`` document.
PLAN_SCHEMA_VERSION = 1
#: Seeded simulations that check the exact power of a plan.
PLAN_SIMULATIONS = 10_000


def run_plan(args: argparse.Namespace, out: TextIO) -> int:
    method = _plan_from_config(args)
    rates = args.fix_rate is not None or args.break_rate is not None
    size = args.items is not None or args.discordance is not None
    if rates == size:
        raise UsageError(
            "evalbot plan: give --fix-rate and --break-rate (items needed), "
            "or --items and --discordance (minimum detectable effect)"
        )
    if size:
        return _plan_detectable(args, out, method)
    _check_rates(args)
    return _plan_items_needed(args, out, method)


def _check_rates(args: argparse.Namespace) -> None:
    if args.fix_rate is None or args.break_rate is None:
        raise UsageError("evalbot plan: --fix-rate and --break-rate go together")
    if args.fix_rate == args.break_rate:
        raise UsageError(
            "evalbot plan: --fix-rate equals --break-rate, so there is no difference to detect"
        )
    if args.fix_rate + args.break_rate > 1:
        raise UsageError("evalbot plan: --fix-rate + --break-rate cannot exceed 1")


def _plan_items_needed(args: argparse.Namespace, out: TextIO, method: str) -> int:
    from evalbot.stats import mcnemar_sample_size, simulate_mcnemar_power

    result = mcnemar_sample_size(
        args.fix_rate, args.break_rate, alpha=args.alpha, power=args.power, method=method
    )
    simulated = simulate_mcnemar_power(
        result.fix_rate,
        result.break_rate,
        result.items,
        alpha=result.alpha,
        n_simulations=PLAN_SIMULATIONS,
        seed=0,
        method=method,
    )
    if args.format == "json":
        out.write(json.dumps(_items_json(result, simulated), indent=2) + "\n")
    else:
        out.write(_items_text(result, simulated))
    return EXIT_OK


def _items_json(result: SampleSizeResult, simulated: float) -> dict[str, object]:
    method, normal = result.method, result.normal
    return {
        "schema_version": PLAN_SCHEMA_VERSION,
        "items": result.items,
        "discordant_pairs": result.discordant_pairs,
        "fix_rate": result.fix_rate,
        "break_rate": result.break_rate,
        "discordant_rate": result.discordant_rate,
        "effect": result.fix_rate - result.break_rate,
        "alpha": result.alpha,
        "power": result.power,
        "target_power": result.power,
        "power_reached": _finite(result.exact_power),
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


def _items_text(result: SampleSizeResult, simulated: float) -> str:
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
    normal = result.normal
    return (
        f"{result.items} items to detect {effect * 100:+.1f} pp (fix rate {result.fix_rate:g}, "
        f"break rate {result.break_rate:g}) with McNemar's {result.method} test at alpha "
        f"{result.alpha:g}, two-sided: power {_power(result.exact_power)} (target "
        f"{result.power:g}).\n"
        f"That is the smallest size whose exact power reaches the target; {steady}. "
        f"About {result.discordant_pairs} discordant pairs are expected.\n"
        f"Check: {PLAN_SIMULATIONS:,} seeded simulations give power {simulated:.3f}.\n"
        f"The normal approximation would say {normal.items} items "
        f"({normal.discordant_pairs} discordant pairs), where the test's exact power is "
        f"{_power(normal.exact_power)}.\n"
    )


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _power(value: float) -> str:
    return f"{value:.3f}" if math.isfinite(value) else "n/a (too large to sum)"


def _plan_detectable(args: argparse.Namespace, out: TextIO, method: str) -> int:
    if args.items is None or args.discordance is None:
        raise UsageError("evalbot plan: --items and --discordance go together")
    from evalbot.stats import mcnemar_minimum_detectable_effect

    result = mcnemar_minimum_detectable_effect(
        args.items, args.discordance, alpha=args.alpha, power=args.power, method=method
    )
    if args.format == "json":
        out.write(json.dumps(_detectable_json(result), indent=2) + "\n")
    else:
        out.write(_detectable_text(result))
    return EXIT_OK


def _detectable_json(result: DetectableEffectResult) -> dict[str, object]:
    method = result.method
    return {
        "schema_version": PLAN_SCHEMA_VERSION,
        "items": result.items,
        "discordant_rate": result.discordant_rate,
        "alpha": result.alpha,
        "power": result.power,
        "target_power": result.power,
        "power_reached": _finite(result.exact_power),
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


def _detectable_text(result: DetectableEffectResult) -> str:
    changing = (
        f"With {result.items} items and {result.discordant_rate * 100:g} % of them changing "
        "outcome, "
    )
    if not result.detectable:
        return (
            f"{changing}no change is detectable: even if every changed item were fixed, "
            f"McNemar's {result.method} test would not reach power {result.power:g} at alpha "
            f"{result.alpha:g}.\n"
        )
    text = (
        f"{changing}McNemar's {result.method} test detects a net change of "
        f"{result.effect * 100:.1f} pp or more (fix rate {result.fix_rate:.3f}, break rate "
        f"{result.break_rate:.3f}) with power {result.power:g} at alpha {result.alpha:g}, "
        "two-sided (exact power).\n"
    )
    if math.isfinite(result.normal_effect):
        text += (
            f"The normal approximation would say {result.normal_effect * 100:.1f} pp, where the "
            f"test's exact power is {result.normal_exact_power:.3f}.\n"
        )
    return text


def run_action(args: argparse.Namespace, out: TextIO) -> int:
    """The GitHub Actions entrypoint: the runner's environment in, the real adapters built here."""
    from evalbot.action import GitHubPort
    from evalbot.action import run_action as action  # PyGithub loads only for the action
    from evalbot.actions_env import ActionsEnv
    from evalbot.github_io import make_client
    from evalbot.settings import Settings, parse_settings
    from evalbot.workspace import LocalWorkspace

    settings = parse_settings(os.environ)
    env = ActionsEnv(settings.output_path, settings.summary_path, out)
    files = LocalWorkspace(settings.workspace, settings.event_path)

    def connect(s: Settings) -> GitHubPort:
        return make_client(
            s.api_url,
            s.token,
            s.repository,
            retries=s.retries,
            backoff=s.backoff,
            timeout=s.timeout,
            rate_limit_wait=60.0 if s.throttle else 0.0,
            seconds_between_requests=0.25 if s.throttle else None,
            seconds_between_writes=1.0 if s.throttle else None,
        )

    try:
        return action(
            settings,
            connect=connect,
            env=env,
            files=files,
            clock=lambda: datetime.now(UTC),
        )
    except EvalbotError as error:
        # the action already published what it could; the annotation makes it visible
        env.mask(settings.token)
        env.error(str(error), title="evalbot")
        if "conclusion" not in env.outputs:
            env.set_output("conclusion", "failure")
        raise


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run evalbot; returns the exit code (never raises for a user's mistake)."""
    out = out or sys.stdout
    try:
        args = build_parser().parse_args(argv)
        handler = {"compare": run_compare, "plan": run_plan, "action": run_action}[args.command]
        return handler(args, out)
    except EvalbotError as error:
        # the message quotes input: one line, control characters (terminal escapes) as "?"
        print(f"evalbot: error: {plain(str(error))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("evalbot: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except Exception as error:  # a bug of ours: one line, and the traceback only on request
        if os.environ.get("EVALBOT_DEBUG"):
            raise
        print(
            f"evalbot: internal error ({type(error).__name__}: {plain(str(error))}); "
            "please report it (set EVALBOT_DEBUG=1 for details)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
