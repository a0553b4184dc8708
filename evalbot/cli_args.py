"""The command line's building blocks: the parser class, the value readers of flags, the flags
that say how result files are read (shared by ``compare`` and ``plan --pilot``), and the links
``--help`` ends with.

Every value reader raises :class:`argparse.ArgumentTypeError` with a message naming the flag;
rates go through :func:`evalbot.plan.rates.parse_rate`, so ``--alpha 5%`` and ``--alpha 0.05`` are
the same, as in ``.evalbot.yml``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, NoReturn

from evalbot.errors import EvalbotError, UsageError
from evalbot.plan.rates import DIFFERENCE_HINT, RATE_HINT, parse_difference, parse_rate
from evalbot.report.docs import GLOSSARY_URL, README_URL
from evalbot.vocabulary import ERRORS_RULES, MISSING_RULES

if TYPE_CHECKING:
    from evalbot.plan.config import Config

__all__ = [
    "EPILOG",
    "FIELD_FLAGS",
    "Parser",
    "add_reading_flags",
    "difference_arg",
    "number_arg",
    "positive_int",
    "rate_arg",
    "reading_config",
]

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

#: The end of every ``--help``: where the words used are explained.
EPILOG = (
    "Rates are fractions or percentages: 0.05 or 5%.\n"
    "The terms of the report (gate, churn, fixed, broken, discordant, Wilson, q-value, MDE, "
    f"look, holdout, power) are explained in the glossary: {GLOSSARY_URL}\n"
    f"Documentation: {README_URL}"
)


class _Formatter(argparse.HelpFormatter):
    """argparse's help, wrapping each line of a description or epilog on its own, so the
    line breaks written in them stay."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(
            super(_Formatter, self)._fill_text(line, width, indent) if line.strip() else ""
            for line in text.splitlines()
        )


class Parser(argparse.ArgumentParser):
    """argparse, but a usage problem is one line and an ``EvalbotError`` (exit code 2), and
    the help keeps the line breaks of descriptions and epilogs."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see --help)")


def rate_arg(name: str, *, low: float = 0.0, high: float = 1.0) -> Callable[[str], float]:
    """A rate strictly between ``low`` and ``high``: ``0.05`` or ``5%``."""

    def parse(text: str) -> float:
        try:
            value = parse_rate(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be {RATE_HINT}, got {text!r}") from None
        if not low < value < high:
            raise argparse.ArgumentTypeError(
                f"{name} must be strictly between {low:g} and {high:g}, got {text}"
            )
        return value

    return parse


def difference_arg(name: str) -> Callable[[str], float]:
    """A non-zero difference in pass rate: ``+3pp``, ``3%``, ``0.03`` (negative: a drop)."""

    def parse(text: str) -> float:
        try:
            value = parse_difference(text)
        except ValueError as error:
            message = str(error)
            if message.startswith("expected"):
                message = f"must be {DIFFERENCE_HINT}, got {text!r}"
            raise argparse.ArgumentTypeError(f"{name} {message}") from None
        if value == 0 or not -1 < value < 1:
            raise argparse.ArgumentTypeError(
                f"{name} must be a change between -100 pp and +100 pp other than 0, got {text}"
            )
        return value

    return parse


def number_arg(name: str, *, minimum: float) -> Callable[[str], float]:
    """A finite number at least ``minimum``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {text!r}") from None
        if not value >= minimum or value == float("inf"):
            raise argparse.ArgumentTypeError(f"{name} must be a number >= {minimum:g}, got {text}")
        return value

    return parse


def positive_int(name: str, minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text.replace(",", "").replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be >= {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{name} must be <= {maximum:,}, got {value}")
        return value

    return parse


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


def add_reading_flags(parser: argparse.ArgumentParser, *, what: str) -> None:
    """The flags that say how result files are read; ``what`` names the files in the group's
    title (``the result files``, ``the pilot's files``)."""
    reading = parser.add_argument_group(
        f"reading {what}",
        "Each overrides the plan's key of the same name (`fields:`, `metric:`, ...). A dotted "
        "field name reaches into nested objects (request.question_id).",
    )
    reading.add_argument(
        "--format-in",
        metavar="NAME",
        type=_input_format,
        help="read both runs in this format instead of detecting it by structure (config "
        "format:): default, jsonl, json, csv, tsv, inspect, lm-eval, promptfoo, openai-evals, "
        "swebench, junit, mlflow (default: detected)",
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
        help="the compared field (default: passed, else score), or the lm-eval metric, the "
        "openai-evals `metrics` key, the HELM stat (exact_match, ...) (config metric:)",
    )
    reading.add_argument(
        "--scorer",
        metavar="NAME",
        help="the inspect scorer (NAME.key for a dict value) or the MLflow assessment to "
        "compare (config scorer:; default: the only one)",
    )
    reading.add_argument(
        "--filter",
        metavar="NAME",
        help="the lm-eval filter to read (strict-match, ...) (config filter:; default: the "
        "only one)",
    )
    reading.add_argument(
        "--all-ids",
        metavar="FILE",
        help="resolved-id lists (SWE-bench): a file naming every instance id, one per line "
        "or a JSON list, relative to the current directory (config all_ids:, relative to the "
        "config file)",
    )
    reading.add_argument(
        "--missing",
        choices=MISSING_RULES,
        help="items present on one side only: stop with an error, count them as failures of "
        "the side that lacks them, or drop them (config policy.missing; default: error)",
    )
    reading.add_argument(
        "--errors",
        choices=ERRORS_RULES,
        help="items a run did not evaluate (never run, skipped, cancelled, a harness error): "
        "compare the items both runs evaluated, or count the others as failures (the "
        "leaderboard convention, for full runs) (config policy.errors; default: drop)",
    )


def reading_config(config: Config, args: argparse.Namespace) -> Config:
    """``config`` with the reading flags of :func:`add_reading_flags` applied."""
    from evalbot.plan.config import with_reading

    if args.format_in is not None:
        config = replace(config, format=args.format_in)
    if args.errors is not None:
        config = replace(config, policy=replace(config.policy, errors=args.errors))
    return with_reading(
        config,
        fields={role: getattr(args, f"{role}_field") for role, _ in FIELD_FLAGS},
        metric=args.metric,
        scorer=args.scorer,
        filter=args.filter,
        all_ids=args.all_ids,
    )


def check_exclusive(args: argparse.Namespace, command: str, *groups: tuple[str, ...]) -> None:
    """At most one of ``groups`` (tuples of flag names) may be given."""
    given = [group for group in groups if any(_given(args, name) for name in group)]
    if len(given) > 1:
        names = " and ".join("/".join(group) for group in given)
        raise UsageError(f"evalbot {command}: {names} exclude each other; give one")


def _given(args: argparse.Namespace, flag: str) -> bool:
    return getattr(args, flag.lstrip("-").replace("-", "_"), None) not in (None, False)
