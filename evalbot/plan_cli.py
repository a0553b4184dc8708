"""``evalbot plan``: how many items a paired comparison needs, or what N items can detect.

The inputs, in the words a user has:

- ``--difference 3pp`` (the net change to detect) and where the **discordance** (the share of
  items expected to change outcome) comes from: ``--discordance R``, or a pilot
  (``--pilot BASELINE CANDIDATE``: the share of items that changed between two real runs); fix
  and break rates follow as ``(R ± D) / 2``;
- or ``--difference`` with the baseline's pass rate (``--pass-rate 85%``, one run
  ``--from-baseline FILE``, or an A/A pair ``--noise-floor RUN_A RUN_B``): the items needed
  over every discordance the change allows, from ``|D|`` to independent runs (the A/A pair's
  noise floor plus the change among them);
- or the rates themselves, ``--fix-rate`` and ``--break-rate``;
- or ``--items N`` with a discordance source: the minimum detectable effect;
- or ``--config``: the plan's ``plan:`` section (its alpha, power, McNemar variant and design
  effect are used with the flags too).

The sizing itself is :mod:`evalbot.stats` (exact power of the test evalbot runs); this module
defines the command's flags; :mod:`evalbot.plan_run` reads the inputs and writes the three
outputs (text, Markdown, JSON), imported only when ``plan`` runs (``--help`` stays light).
"""

from __future__ import annotations

import argparse

from evalbot.cli_args import (
    EPILOG,
    Parser,
    add_reading_flags,
    difference_arg,
    number_arg,
    positive_int,
    rate_arg,
)

__all__ = ["add_plan"]


def add_plan(commands: argparse._SubParsersAction[Parser]) -> None:
    plan = commands.add_parser(
        "plan",
        help="items needed to detect a change, or the change N items can detect",
        description="Size a paired McNemar comparison for the test evalbot runs (exact power). "
        "Say what to detect with --difference (and where the share of changing items comes "
        "from: --discordance or --pilot; or the baseline's pass rate: --pass-rate, "
        "--from-baseline or --noise-floor), or with --fix-rate and --break-rate; or give "
        "--items (and a discordance) for the minimum detectable effect.",
        epilog=EPILOG,
    )
    _add_what(plan)
    _add_share(plan)
    _add_test(plan)
    plan.add_argument(
        "--format",
        choices=["text", "markdown", "json"],
        default="text",
        help="output: text for a terminal, markdown for a PR or a document, json for "
        "scripts (default: text)",
    )
    add_reading_flags(plan, what="the pilot's and the baseline's files")


def _add_what(plan: Parser) -> None:
    """What to detect: a net difference, fix and break rates, or the items one has."""
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


def _add_share(plan: Parser) -> None:
    """Where the share of items expected to change outcome comes from."""
    share = plan.add_argument_group(
        "the share of items expected to change outcome, or the baseline's pass rate (with "
        "--difference or --items; give one)"
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
        "--pass-rate",
        metavar="P",
        type=rate_arg("--pass-rate", low=-1e-12, high=1.0000001),
        help="the baseline's pass rate, e.g. 85%%: with --difference, the items needed over "
        "every discordance the change allows, from the least (|difference|) to independent "
        "runs (the most items)",
    )
    share.add_argument(
        "--from-baseline",
        metavar="FILE",
        help="one run of the baseline: its pass rate, as --pass-rate",
    )
    share.add_argument(
        "--noise-floor",
        nargs=2,
        metavar=("RUN_A", "RUN_B"),
        help="two runs of the same (baseline) system, an A/A pair: their pass rate, and the "
        "share of items that changed by chance alone; the plan takes that noise floor plus "
        "the change",
    )


def _add_test(plan: Parser) -> None:
    """The test's alpha and power, the design effect and the plan they may come from."""
    test = plan.add_argument_group("the test")
    test.add_argument(
        "--alpha",
        metavar="A",
        type=rate_arg("--alpha", high=0.5),
        help="two-sided significance level, e.g. 0.05 or 5%% (default: the config's alpha, "
        "divided by policy.max_looks under policy.looks: bonferroni; else 0.05)",
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
