"""The shell: argv (and, for ``action``, the environment) in, an exit code out.

The ``compare``, ``plan`` and ``action`` commands and their flags; the only place errors become
exit codes (the table is in :mod:`evalbot.errors`); the action's IO adapters built. Only the
standard library loads before the arguments are parsed: each command imports what it needs
(``tests/integration/test_imports.py``).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, TypeVar

from evalbot import __version__
from evalbot.errors import (
    EXIT_BAD_INPUT,
    EXIT_GATE_FAILED,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    Cancelled,
    EvalbotError,
    UsageError,
)
from evalbot.limits import MAX_RESAMPLES
from evalbot.plan.rates import DIFFERENCE_HINT, RATE_HINT, parse_difference, parse_rate
from evalbot.report.docs import GLOSSARY_URL, README_URL
from evalbot.report.text import plain
from evalbot.vocabulary import BOOTSTRAP_METHODS, ERRORS_RULES, MISSING_RULES

if TYPE_CHECKING:
    from evalbot.compare.records import Comparison
    from evalbot.formats.model import Results
    from evalbot.plan.config import Config
    from evalbot.plan.ledger import State
    from evalbot.plan.policy import Decision, Sizing
    from evalbot.plan.sizing import BaselineRate, Discordance, Pair

T = TypeVar("T", int, float)

#: Said once on stderr when Markdown is written to a terminal (it is meant for PR comments).
MARKDOWN_IN_TERMINAL = (
    "evalbot: note: markdown is for PR comments and documents; use --format text in a terminal"
)

#: The end of every ``--help``: where the words used are explained.
EPILOG = (
    "Rates are fractions or percentages: 0.05 or 5%.\n"
    "The terms of the report (gate, churn, fixed, broken, discordant, Wilson, q-value, MDE, "
    f"look, holdout, power) are explained in the glossary: {GLOSSARY_URL}\n"
    f"Documentation: {README_URL}"
)

#: The field-name flags: ``--<role>-field NAME``, one per key of ``fields:``.
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

#: How the bundled example's files are named in the report (not their path in site-packages).
EXAMPLE_NAMES = ("example/baseline.jsonl", "example/candidate.jsonl")


# ---- the parser and the readers of flag values ---------------------------------------------------


class _Formatter(argparse.HelpFormatter):
    """argparse's help, wrapping each line of a description or epilog on its own, so the
    line breaks written in them stay."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(
            super(_Formatter, self)._fill_text(line, width, indent) if line.strip() else ""
            for line in text.splitlines()
        )


class Parser(argparse.ArgumentParser):
    """argparse, but a usage problem is one line and an ``EvalbotError`` (exit code 2), the
    help keeps the line breaks of descriptions and epilogs, and every help ends with
    :data:`EPILOG`."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        kwargs.setdefault("epilog", EPILOG)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see --help)")


def _reader(
    parse: Callable[[str], T], kind: str, *bounds: tuple[Callable[[T], bool], str]
) -> Callable[[str], T]:
    """A flag's value: ``parse(text)``, else it "must be ``kind``"; refused with the first of
    ``bounds`` (a test, what it asks) it fails (argparse names the flag)."""

    def read(text: str) -> T:
        try:
            value = parse(text)
        except ValueError as error:
            message = str(error)  # an ambiguous difference says why
            if not message.startswith("a difference"):
                message = f"must be {kind}, got {text!r}"
            raise argparse.ArgumentTypeError(message) from None
        for ok, bound in bounds:
            if not ok(value):
                shown = value if isinstance(value, int) else text  # 10,000 as 10000
                raise argparse.ArgumentTypeError(f"must be {bound}, got {shown}")
        return value

    return read


def rate_arg(*, low: float = 0.0, high: float = 1.0) -> Callable[[str], float]:
    """A rate strictly between ``low`` and ``high``: ``0.05`` or ``5%``."""
    within = (lambda v: low < v < high, f"strictly between {low:g} and {high:g}")
    return _reader(parse_rate, RATE_HINT, within)


def difference_arg() -> Callable[[str], float]:
    """A non-zero difference in pass rate: ``+3pp``, ``3%``, ``0.03`` (negative: a drop)."""
    within = (lambda v: v != 0 and -1 < v < 1, "a change between -100 pp and +100 pp other than 0")
    return _reader(parse_difference, DIFFERENCE_HINT, within)


def number_arg(*, minimum: float) -> Callable[[str], float]:
    """A finite number at least ``minimum``."""
    within = (lambda v: v >= minimum and v != float("inf"), f"a number >= {minimum:g}")
    return _reader(float, "a number", within)


def positive_int(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An integer (``10,000`` or ``10_000`` too) from ``minimum`` to ``maximum``."""
    return _reader(
        lambda text: int(text.replace(",", "").replace("_", "")),
        "an integer",
        (lambda v: v >= minimum, f">= {minimum}"),
        (lambda v: maximum is None or v <= maximum, f"<= {maximum or 0:,}"),
    )


def _field_name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("a field name must not be empty")
    return text


def _input_format(text: str) -> str:
    from evalbot.formats import resolve

    try:
        resolve(text)
    except EvalbotError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("format: ")) from None
    return text


# ---- the commands' flags -------------------------------------------------------------------------

#: A flag: its name, metavar, value and help. A tuple metavar takes that many values; the value
#: is its reader, its choices, or None: text, or with no metavar a switch.
Flag = tuple[str, str | tuple[str, str] | None, Callable[[str], object] | Sequence[str] | None, str]

COMPARE_FLAGS: tuple[Flag, ...] = (
    ("--example", None, None, "compare the bundled example runs (400 items)"),
    ("--config", "FILE", None,
     "the analysis plan (default: ./.evalbot.yml if present, else evalbot's defaults)"),
    ("--format", None, ("text", "markdown", "json"),
     "text for a terminal, markdown as the PR comment shows it, json for scripts (default: "
     "text)"),
    ("--resamples", "B", positive_int(100, MAX_RESAMPLES),
     f"paired bootstrap resamples, 100 to {MAX_RESAMPLES:,} (config bootstrap.resamples; "
     "default: 10000)"),
    ("--seed", "S", positive_int(0),
     "the bootstrap's random seed; the same seed gives the same output (config bootstrap.seed; "
     "default: 0)"),
    ("--confidence", "LEVEL", rate_arg(low=0.5),
     "confidence level of the intervals, e.g. 0.95 or 95%% (config bootstrap.confidence; "
     "default: 0.95)"),
    ("--ci-method", None, BOOTSTRAP_METHODS,
     "bootstrap interval: percentile or bias-corrected and accelerated (config "
     "bootstrap.method; default: percentile)"),
    ("--holdout", None, None,
     "analyse only the sealed holdout (holdout.ids_file); counts as one use"),
    ("--state-from", "FILE", None,
     "a file holding the earlier sticky comment (its hidden block lists earlier looks)"),
    ("--head-sha", "SHA", None,
     "the commit being judged (tells looks apart; with --state-from)"),
)  # fmt: skip

READING_FLAGS: tuple[Flag, ...] = (
    ("--format-in", "NAME", _input_format,
     "read both runs in this format instead of detecting it by structure (config format:): "
     "default, jsonl, json, csv, tsv, inspect, lm-eval, promptfoo, openai-evals, swebench, "
     "junit, mlflow (default: detected)"),
    *((f"--{role}-field", "NAME", _field_name,
       f"{meaning} (config fields.{role}; default: {role})") for role, meaning in FIELD_FLAGS),
    ("--metric", "NAME", None,
     "the compared field (default: passed, else score), or the lm-eval metric, the "
     "openai-evals `metrics` key, the HELM stat (exact_match, ...) (config metric:)"),
    ("--scorer", "NAME", None,
     "the inspect scorer (NAME.key for a dict value) or the MLflow assessment to compare "
     "(config scorer:; default: the only one)"),
    ("--filter", "NAME", None,
     "the lm-eval filter to read (strict-match, ...) (config filter:; default: the only one)"),
    ("--all-ids", "FILE", None,
     "resolved-id lists (SWE-bench): a file naming every instance id, one per line or a JSON "
     "list, relative to the current directory (config all_ids:, relative to the config file)"),
    ("--missing", None, MISSING_RULES,
     "items present on one side only: stop with an error, count them as failures of the side "
     "that lacks them, or drop them (config policy.missing; default: error)"),
    ("--errors", None, ERRORS_RULES,
     "items a run did not evaluate (never run, skipped, cancelled, a harness error): compare "
     "the items both runs evaluated, or count the others as failures (the leaderboard "
     "convention, for full runs) (config policy.errors; default: drop)"),
)  # fmt: skip

#: ``evalbot plan``'s flags, by group (None: the options group).
PLAN_FLAGS: dict[str | None, tuple[Flag, ...]] = {
    "what to detect": (
        ("--difference", "D", difference_arg(),
         "the net change in pass rate to detect: +3pp, 3pp, 3%% or 0.03 (a drop: "
         "--difference=-3pp)"),
        ("--fix-rate", "RATE", rate_arg(),
         "share of items the change fixes (baseline fails, candidate passes), e.g. 8%%"),
        ("--break-rate", "RATE", rate_arg(low=-1e-12),
         "share of items the change breaks (baseline passes, candidate fails), e.g. 3%%"),
        ("--items", "N", positive_int(1),
         "instead: the items you have; prints the minimum detectable effect (needs a "
         "discordance)"),
    ),
    "the share of items expected to change outcome, or the baseline's pass rate (with "
    "--difference or --items; give one)": (
        ("--discordance", "R", rate_arg(high=1.0000001),
         "share of items whose outcome differs between the two runs (fixed + broken), e.g. "
         "12%%; at least the difference"),
        ("--pilot", ("BASELINE", "CANDIDATE"), None,
         "two real runs on the same items (e.g. the current system and a prototype); their "
         "share of changed items is the discordance, with its 95%% interval"),
        ("--pass-rate", "P", rate_arg(low=-1e-12, high=1.0000001),
         "the baseline's pass rate, e.g. 85%%: with --difference, the items needed over every "
         "discordance the change allows, from the least (|difference|) to independent runs "
         "(the most items)"),
        ("--from-baseline", "FILE", None,
         "one run of the baseline: its pass rate, as --pass-rate"),
        ("--noise-floor", ("RUN_A", "RUN_B"), None,
         "two runs of the same (baseline) system, an A/A pair: their pass rate, and the share "
         "of items that changed by chance alone; the plan takes that noise floor plus the "
         "change"),
    ),
    "the test": (
        ("--alpha", "A", rate_arg(high=0.5),
         "two-sided significance level, e.g. 0.05 or 5%% (default: the config's alpha, "
         "divided by policy.max_looks under policy.looks: bonferroni; else 0.05)"),
        ("--power", "P", rate_arg(low=0.5),
         "target power, e.g. 0.8 or 80%% (default: the config's plan.power, else 0.8)"),
        ("--design-effect", "DEFF", number_arg(minimum=1.0),
         "variance inflation of clustered items (>= 1; Kish: 1 + (m - 1) ICC): the items "
         "needed are multiplied by it, the items available divided (config "
         "plan.design_effect; default: 1)"),
        ("--config", "FILE", None,
         "an .evalbot.yml: its plan: section when no rates are given, and its alpha, "
         "plan.power, mcnemar and plan.design_effect (default: none; flags override it)"),
    ),
    None: (
        ("--format", None, ("text", "markdown", "json"),
         "output: text for a terminal, markdown for a PR or a document, json for scripts "
         "(default: text)"),
    ),
}  # fmt: skip


def _add(group: argparse._ActionsContainer, flags: Sequence[Flag]) -> None:
    for name, metavar, value, text in flags:
        options: dict[str, Any] = {"help": text}
        if metavar is not None:
            options["metavar"] = metavar
        if isinstance(metavar, tuple):
            options["nargs"] = len(metavar)
        if callable(value):
            options["type"] = value
        elif value is not None:
            options["choices"] = value
        elif metavar is None:
            options["action"] = "store_true"
        group.add_argument(name, **options)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="evalbot",
        description="Is the change in your eval score real, or noise? Paired statistics "
        "for a baseline and a candidate eval run.",
    )
    parser.add_argument("--version", action="version", version=f"evalbot {__version__}")
    commands = parser.add_subparsers(
        dest="command", required=True, parser_class=Parser, metavar="COMMAND"
    )
    compare = commands.add_parser(
        "compare",
        help="compare a baseline run with a candidate run, item by item",
        description="Pair BASELINE and CANDIDATE by item id and report the paired statistics.",
    )
    for role, when in (("baseline", "before"), ("candidate", "after")):
        said = f"the run {when} the change: a file, directory, glob or .zip"
        compare.add_argument(role, nargs="?", metavar=role.upper(), help=said)
    _add(compare, COMPARE_FLAGS)
    plan = commands.add_parser(
        "plan",
        help="items needed to detect a change, or the change N items can detect",
        description="Size a paired McNemar comparison for the test evalbot runs (exact power). "
        "Say what to detect with --difference (and where the share of changing items comes "
        "from: --discordance or --pilot; or the baseline's pass rate: --pass-rate, "
        "--from-baseline or --noise-floor), or with --fix-rate and --break-rate; or give "
        "--items (and a discordance) for the minimum detectable effect.",
    )
    for title, flags in PLAN_FLAGS.items():
        _add(plan.add_argument_group(title) if title else plan, flags)
    for command, what in (
        (compare, "the result files"),
        (plan, "the pilot's and the baseline's files"),
    ):
        reading = command.add_argument_group(
            f"reading {what}",
            "Each overrides the plan's key of the same name (`fields:`, `metric:`, ...). A "
            "dotted field name reaches into nested objects (request.question_id).",
        )
        _add(reading, READING_FLAGS)
        command.set_defaults(format="text")
    commands.add_parser(
        "action",
        help="the GitHub Actions entrypoint (reads the runner's environment)",
        description="The GitHub Actions entrypoint: reads the inputs (INPUT_*) and the "
        "runner's GITHUB_* variables; see the README's \"The GitHub Action\".",
    )
    return parser


def load_config(path: str | None) -> Config:
    """The plan in ``path`` and the files it names (relative to it); ``None``: ``.evalbot.yml``
    here if there is one, else the defaults."""
    from evalbot.errors import ConfigError
    from evalbot.plan.config import Config, parse_config

    if path is None:
        if not Path(".evalbot.yml").is_file():
            return Config()
        path = ".evalbot.yml"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) else "not UTF-8"
        raise ConfigError(f"{path}: cannot read the config ({why})") from None
    folder = Path(path).parent
    return parse_config(
        text, path, read_text=lambda name: (folder / name).read_text(encoding="utf-8")
    )


def _read_runs(
    args: argparse.Namespace, config: Config, *paths: str
) -> tuple[Config, list[Results]]:
    """The runs at ``paths``, read under ``config`` with the reading flags applied (returned
    too)."""
    from evalbot.formats.sources import load_results
    from evalbot.plan.config import with_reading

    if args.format_in is not None:
        config = replace(config, format=args.format_in)
    if args.errors is not None:
        config = replace(config, policy=replace(config.policy, errors=args.errors))
    config = with_reading(
        config,
        fields={role: getattr(args, f"{role}_field") for role, _ in FIELD_FLAGS},
        metric=args.metric,
        scorer=args.scorer,
        filter=args.filter,
        all_ids=args.all_ids,
    )
    options = config.read_options()
    return config, [load_results(path, options) for path in paths]


# ---- compare -------------------------------------------------------------------------------------


def run_compare(args: argparse.Namespace, out: TextIO) -> int:
    from evalbot.plan.config import with_overrides
    from evalbot.plan.policy import decide, prepare

    if args.example:
        if args.baseline or args.candidate:
            raise UsageError("evalbot compare: give either --example or BASELINE CANDIDATE")
        # the package is installed as files (setuptools package-data), so its folder is a path
        folder = Path(__file__).resolve().parent / "data"
        args.baseline, args.candidate = (str(folder / name) for name in EXAMPLE_NAMES)
    if not args.baseline or not args.candidate:
        raise UsageError("evalbot compare: BASELINE and CANDIDATE are required (or --example)")
    config = with_overrides(
        load_config(args.config),
        resamples=args.resamples,
        seed=args.seed,
        confidence=args.confidence,
        method=args.ci_method,
    )
    config, runs = _read_runs(args, config, args.baseline, args.candidate)
    if args.example:
        runs = [replace(run, source=name) for run, name in zip(runs, EXAMPLE_NAMES, strict=True)]
    state = _earlier_state(args.state_from)
    paired = prepare(runs[0], runs[1], config, missing=args.missing, holdout=args.holdout)
    comparison, decision = decide(
        paired, config, holdout=args.holdout, state=state, head_sha=args.head_sha
    )
    if args.format == "json":
        from evalbot.report.json_report import render_json

        out.write(render_json(comparison, decision))
    else:
        out.write(_view(args.format, comparison, decision, config, runs))
    return EXIT_GATE_FAILED if decision.gate == "fail" else EXIT_OK


def _earlier_state(state_from: str | None) -> State | None:
    """The earlier looks, from the file holding the earlier sticky comment (``--state-from``)."""
    if not state_from:
        return None
    from evalbot.plan.ledger import parse_state

    try:
        return parse_state(Path(state_from).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{state_from}: cannot read the earlier comment ({error})") from None


def _view(
    form: str,
    comparison: Comparison,
    decision: Decision,
    config: Config,
    runs: Sequence[Results],
) -> str:
    """The report as Markdown (the comment, with the plan's template) or text."""
    from evalbot.report.render import render_markdown, render_text
    from evalbot.report.view import build_view, input_rows

    paired = comparison.paired
    inputs = input_rows(
        ("baseline", paired.baseline_source, len(set(runs[0].ids))),
        ("candidate", paired.candidate_source, len(set(runs[1].ids))),
    )
    view = build_view(comparison, decision, item_url=config.report.item_url, inputs=inputs)
    if form != "markdown":
        return render_text(view)
    template = config.report.template
    if template is not None:
        template = str(Path(config.source).parent / template)
    return render_markdown(view, template=template)


# ---- plan ----------------------------------------------------------------------------------------

#: The flags that say where the discordance comes from, or the baseline's pass rate.
SHARE_FLAGS = ("--discordance", "--pilot", "--from-baseline", "--pass-rate", "--noise-floor")
#: Those that give the baseline's pass rate, and with it a range of discordance.
RANGE_FLAGS = ("--pass-rate", "--from-baseline", "--noise-floor")


def run_plan(args: argparse.Namespace, out: TextIO) -> int:
    from evalbot.plan.config import Config
    from evalbot.plan.sizing import Discordance, plan_items, plan_range, split
    from evalbot.report.render import render_detectable, render_plan
    from evalbot.stats.power import mcnemar_minimum_detectable_effect

    _exclusive(args, ("--fix-rate", "--break-rate"), ("--difference",), ("--items",))
    # the rates give the discordance (their sum)
    _exclusive(args, ("--fix-rate", "--break-rate"), *((flag,) for flag in SHARE_FLAGS))
    config = load_config(args.config) if args.config is not None else Config()
    test = _test(args, config)
    rates = args.fix_rate is not None or args.break_rate is not None
    if args.items is not None:
        found = _share(args, config)
        assert isinstance(found, Discordance)  # a pass rate needs --difference
        result = mcnemar_minimum_detectable_effect(args.items, found.rate, **test)
        out.write(render_detectable(result, found, args.format))
        return EXIT_OK
    if args.difference is not None:
        found = _share(args, config)
        if isinstance(found, Discordance):
            plan = plan_items(test, *split(args.difference, found.rate), found)
        else:
            plan = plan_range(test, args.difference, found)
    elif rates:
        fix, brk = _check_rates(args.fix_rate, args.break_rate)
        plan = plan_items(test, fix, brk, Discordance(rate=fix + brk, source="rates"))
    else:
        if config.plan is None:
            where = f"{config.source} has no `plan:` section; " if args.config else ""
            raise UsageError(
                f"evalbot plan: {where}say what to detect: --difference 3pp with --discordance "
                "R, --pilot BASELINE CANDIDATE, --pass-rate P, --from-baseline FILE or "
                "--noise-floor RUN_A RUN_B; or --fix-rate and --break-rate; or --items N with a "
                "discordance (see --help)"
            )
        fix, brk = config.plan.fix_rate, config.plan.break_rate
        found = Discordance(rate=fix + brk, source="config", config=config.source)
        plan = plan_items(test, fix, brk, found)
    out.write(render_plan(plan, args.format))
    return EXIT_OK


def _given(args: argparse.Namespace, flag: str) -> bool:
    return getattr(args, flag.lstrip("-").replace("-", "_")) is not None


def _exclusive(args: argparse.Namespace, *groups: tuple[str, ...]) -> None:
    """At most one of ``groups`` (tuples of flag names) may be given."""
    given = [group for group in groups if any(_given(args, name) for name in group)]
    if len(given) > 1:
        names = " and ".join("/".join(group) for group in given)
        raise UsageError(f"evalbot plan: {names} exclude each other; give one")


def _test(args: argparse.Namespace, config: Config) -> Sizing:
    """The test the plan is sized for: the flags, else the config's."""
    from evalbot.compare.records import plan_alpha
    from evalbot.plan.policy import sizing

    plan, deff = config.plan, args.design_effect
    # the alpha every look is tested at: alpha / max_looks under policy.looks: bonferroni
    alpha = args.alpha if args.alpha is not None else plan_alpha(config).effective
    test = sizing(config, alpha, deff if deff is not None else plan.design_effect if plan else 1.0)
    return test if args.power is None else {**test, "power": args.power}


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


def _pair(args: argparse.Namespace, config: Config, paths: list[str], what: str) -> Pair:
    """Two runs read with the reading flags and paired: a pilot, or an A/A pair."""
    from evalbot.plan.sizing import observe_pair

    config, (one, other) = _read_runs(args, config, *paths)
    return observe_pair((paths[0], paths[1]), (one, other), config, missing=args.missing, what=what)


def _share(args: argparse.Namespace, config: Config) -> Discordance | BaselineRate:
    """The share of items expected to change outcome, or the baseline's pass rate (only with
    --difference), from the flag that gives it."""
    from evalbot.plan.sizing import BaselineRate, Discordance, noise_floor, one_run_rate

    given = next((flag for flag in RANGE_FLAGS if _given(args, flag)), None)
    if given is not None and args.difference is None:  # the discordance depends on the change
        raise UsageError(
            f"evalbot plan: {given} needs --difference (the discordance it allows depends on "
            "the change); with --items give --discordance or --pilot"
        )
    if args.discordance is not None:
        return Discordance(rate=args.discordance, source="given")
    if args.pilot is not None:
        pair = _pair(args, config, args.pilot, "pilot")
        return Discordance(rate=pair.rate, source="pilot", pair=pair, interval=pair.interval)
    if args.pass_rate is not None:
        return BaselineRate(rate=args.pass_rate, source="pass_rate")
    if args.from_baseline is not None:
        _, (run,) = _read_runs(args, config, args.from_baseline)
        return one_run_rate(args.from_baseline, run)
    if args.noise_floor is not None:
        return noise_floor(_pair(args, config, args.noise_floor, "A/A pair"))
    flag = "--difference" if args.difference is not None else "--items"
    raise UsageError(
        f"evalbot plan: {flag} needs the share of items expected to change outcome: "
        "--discordance R or --pilot BASELINE CANDIDATE (two real runs); or, with --difference, "
        "the baseline's pass rate: --pass-rate P, --from-baseline FILE (one run) or "
        "--noise-floor RUN_A RUN_B (two runs of the same system)"
    )


# ---- action and main -----------------------------------------------------------------------------


def run_action(args: argparse.Namespace, out: TextIO) -> int:
    """The GitHub Actions entrypoint: the runner's environment in, the real adapters built here."""
    from evalbot.action import run_action as action  # PyGithub loads only for the action
    from evalbot.github.client import GitHubClient
    from evalbot.github.runner import (
        ActionsEnv,
        LocalWorkspace,
        cancel_on_signals,
        drop_network_environment,
        parse_settings,
    )

    settings = parse_settings(os.environ)
    env = ActionsEnv(settings.output_path, settings.summary_path, out)
    if dropped := drop_network_environment(os.environ):
        env.info(f"evalbot ignores {', '.join(dropped)}: its requests go to GitHub directly")

    try:
        with cancel_on_signals():
            return action(
                settings,
                connect=GitHubClient,
                env=env,
                files=LocalWorkspace(settings.workspace, settings.event_path),
                clock=lambda: datetime.now(UTC),
            )
    except EvalbotError as error:
        # the action already published what it could (and masked the token first); the
        # annotation makes it visible
        env.error(str(error), title="evalbot")
        if "conclusion" not in env.outputs:
            env.set_output("conclusion", "failure")
        raise


def _is_terminal(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream: not a terminal
        return False


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run evalbot; returns the exit code (never raises for a user's mistake)."""
    out = out or sys.stdout
    try:
        args = build_parser().parse_args(argv)
        handler = {"compare": run_compare, "plan": run_plan, "action": run_action}[args.command]
        code = handler(args, out)
        if getattr(args, "format", None) == "markdown" and _is_terminal(out):
            print(MARKDOWN_IN_TERMINAL, file=sys.stderr)
        return code
    except EvalbotError as error:
        # the message quotes input: one line, control characters (terminal escapes) as "?"
        print(f"evalbot: error: {plain(str(error))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("evalbot: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Cancelled as cancelled:
        print(f"evalbot: stopped by {signal.Signals(cancelled.signum).name}", file=sys.stderr)
        return cancelled.exit_code
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
