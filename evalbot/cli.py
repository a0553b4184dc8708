"""The shell: argv (and, for ``action``, the environment) in, an exit code out.

This is the only module that maps errors to exit codes (the table is in :mod:`evalbot.errors`):
0 the comparison ran and the gate passed, 1 the gate failed, 2 bad input / config / usage (one
line on stderr, never a traceback), 3 an internal error.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from evalbot import __version__
from evalbot.cli_args import (
    EPILOG,
    Parser,
    add_reading_flags,
    positive_int,
    rate_arg,
    reading_config,
)
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
from evalbot.plan_cli import add_plan
from evalbot.report.text import plain  # standard library only
from evalbot.vocabulary import BOOTSTRAP_METHODS  # standard library only

if TYPE_CHECKING:
    from evalbot.compare import Comparison
    from evalbot.formats.model import Results
    from evalbot.plan.config import Config
    from evalbot.plan.ledger import State
    from evalbot.plan.policy import Decision
    from evalbot.report.records import Inputs

# Start-up: argparse runs before anything heavy is imported, so ``--version``/``--help`` cost the
# standard library and evalbot's shell (this module, cli_args, plan_cli, rates, docs, limits,
# errors, text) only; each command imports what it needs (numpy and the statistics for
# ``compare``, jinja2 only for the text/markdown reports, yaml only when a config file exists,
# PyGithub only for ``action``). tests/integration/test_imports.py pins this.

#: Said once on stderr when Markdown is written to a terminal (it is meant for PR comments).
MARKDOWN_IN_TERMINAL = (
    "evalbot: note: markdown is for PR comments and documents; use --format text in a terminal"
)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="evalbot",
        description="Is the change in your eval score real, or noise? Paired statistics "
        "for a baseline and a candidate eval run.",
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"evalbot {__version__}")
    commands = parser.add_subparsers(
        dest="command", required=True, parser_class=Parser, metavar="COMMAND"
    )
    _add_compare(commands)
    add_plan(commands)
    commands.add_parser(
        "action",
        help="the GitHub Actions entrypoint (reads the runner's environment)",
        description="The GitHub Actions entrypoint: reads the inputs (INPUT_*) and the "
        "runner's GITHUB_* variables; see the README's \"The GitHub Action\".",
        epilog=EPILOG,
    )
    return parser


def _add_compare(commands: argparse._SubParsersAction[Parser]) -> None:
    compare = commands.add_parser(
        "compare",
        help="compare a baseline run with a candidate run, item by item",
        description="Pair BASELINE and CANDIDATE by item id and report the paired statistics.",
        epilog=EPILOG,
    )
    compare.add_argument(
        "baseline",
        nargs="?",
        metavar="BASELINE",
        help="the run before the change: a file, directory, glob or .zip",
    )
    compare.add_argument(
        "candidate",
        nargs="?",
        metavar="CANDIDATE",
        help="the run after the change: a file, directory, glob or .zip",
    )
    compare.add_argument(
        "--example", action="store_true", help="compare the bundled example runs (400 items)"
    )
    compare.add_argument(
        "--config",
        metavar="FILE",
        help="the analysis plan (default: ./.evalbot.yml if present, else evalbot's defaults)",
    )
    compare.add_argument(
        "--format",
        choices=["text", "markdown", "json"],
        default="text",
        help="text for a terminal, markdown as the PR comment shows it, json for scripts "
        "(default: text)",
    )
    _add_bootstrap_flags(compare)
    _add_looks_flags(compare)
    add_reading_flags(compare, what="the result files")


def _add_bootstrap_flags(compare: Parser) -> None:
    """The bootstrap's flags (the plan's ``bootstrap`` section)."""
    compare.add_argument(
        "--resamples",
        type=positive_int("--resamples", 100, MAX_RESAMPLES),
        metavar="B",
        help=f"paired bootstrap resamples, 100 to {MAX_RESAMPLES:,} (config "
        "bootstrap.resamples; default: 10000)",
    )
    compare.add_argument(
        "--seed",
        type=positive_int("--seed", 0),
        metavar="S",
        help="the bootstrap's random seed; the same seed gives the same output (config "
        "bootstrap.seed; default: 0)",
    )
    compare.add_argument(
        "--confidence",
        type=rate_arg("--confidence", low=0.5),
        metavar="LEVEL",
        help="confidence level of the intervals, e.g. 0.95 or 95%% (config "
        "bootstrap.confidence; default: 0.95)",
    )
    compare.add_argument(
        "--ci-method",
        choices=BOOTSTRAP_METHODS,
        help="bootstrap interval: percentile or bias-corrected and accelerated (config "
        "bootstrap.method; default: percentile)",
    )


def _add_looks_flags(compare: Parser) -> None:
    """The flags of the looks: the sealed holdout, the earlier comment and the commit judged."""
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
    compare.add_argument(
        "--head-sha",
        metavar="SHA",
        help="the commit being judged (tells looks apart; with --state-from)",
    )


def _example_paths() -> tuple[str, str]:
    # The package is installed as files (setuptools package-data), so its folder is a path.
    folder = Path(__file__).resolve().parent / "data" / "example"
    return str(folder / "baseline.jsonl"), str(folder / "candidate.jsonl")


#: How the bundled example's files are named in the report (not their path in site-packages).
EXAMPLE_NAMES = ("example/baseline.jsonl", "example/candidate.jsonl")


def _item_count(results: Results) -> int:
    return len(set(results.ids))


def run_compare(args: argparse.Namespace, out: TextIO) -> int:
    from dataclasses import replace

    from evalbot.analysis import analyse
    from evalbot.formats.sources import load_results

    if args.example:
        if args.baseline or args.candidate:
            raise UsageError("evalbot compare: give either --example or BASELINE CANDIDATE")
        args.baseline, args.candidate = _example_paths()
    if not args.baseline or not args.candidate:
        raise UsageError("evalbot compare: BASELINE and CANDIDATE are required (or --example)")
    config = _compare_config(args)
    options = config.read_options()
    baseline = load_results(args.baseline, options)
    candidate = load_results(args.candidate, options)
    if args.example:
        baseline = replace(baseline, source=EXAMPLE_NAMES[0])
        candidate = replace(candidate, source=EXAMPLE_NAMES[1])
    comparison, decision = analyse(
        baseline,
        candidate,
        config,
        missing=args.missing,
        holdout=args.holdout,
        state=_earlier_state(args.state_from),
        head_sha=args.head_sha,
    )
    if args.format == "json":
        from evalbot.report.json_report import build_json

        out.write(json.dumps(build_json(comparison, decision), indent=2) + "\n")
        return EXIT_GATE_FAILED if decision.gate == "fail" else EXIT_OK
    from evalbot.report.records import Inputs

    inputs = Inputs(
        baseline=comparison.paired.baseline_source,
        candidate=comparison.paired.candidate_source,
        baseline_items=_item_count(baseline),
        candidate_items=_item_count(candidate),
    )
    _write_view(args.format, comparison, decision, config, inputs, out)
    return EXIT_GATE_FAILED if decision.gate == "fail" else EXIT_OK


def _compare_config(args: argparse.Namespace) -> Config:
    """The plan (``--config``) with the bootstrap and reading flags over it."""
    from evalbot.plan.config import load_config, with_overrides

    config: Config = with_overrides(
        load_config(args.config),
        resamples=args.resamples,
        seed=args.seed,
        confidence=args.confidence,
        method=args.ci_method,
    )
    return reading_config(config, args)


def _earlier_state(state_from: str | None) -> State | None:
    """The earlier looks, from the file holding the earlier sticky comment (``--state-from``)."""
    if not state_from:
        return None
    from evalbot.plan.state import parse_state

    try:
        return parse_state(Path(state_from).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{state_from}: cannot read the earlier comment ({error})") from None


def _write_view(
    form: str,
    comparison: Comparison,
    decision: Decision,
    config: Config,
    inputs: Inputs,
    out: TextIO,
) -> None:
    """The report as Markdown (the comment, with the plan's template) or text."""
    from evalbot.report.render import render_markdown, render_text
    from evalbot.report.view import build_view

    view = build_view(
        comparison, decision, item_url=config.report.item_url, config=config, inputs=inputs
    )
    if form == "markdown":
        template = None
        if config.report.template is not None:
            template = str(Path(config.source).parent / config.report.template)
        out.write(render_markdown(view, template=template))
    else:
        out.write(render_text(view))


def run_plan(args: argparse.Namespace, out: TextIO) -> int:
    from evalbot.plan_run import run_plan as plan  # the statistics load only for ``plan``

    return plan(args, out)


def run_action(args: argparse.Namespace, out: TextIO) -> int:
    """The GitHub Actions entrypoint: the runner's environment in, the real adapters built here."""
    from evalbot.action import GitHubPort
    from evalbot.action import run_action as action  # PyGithub loads only for the action
    from evalbot.github.client import drop_network_environment, make_client
    from evalbot.github.runner import ActionsEnv, cancel_on_signals
    from evalbot.github.settings import Settings, parse_settings
    from evalbot.github.workspace import LocalWorkspace

    settings = parse_settings(os.environ)
    env = ActionsEnv(settings.output_path, settings.summary_path, out)
    dropped = drop_network_environment(os.environ)
    if dropped:
        env.info(f"evalbot ignores {', '.join(dropped)}: its requests go to GitHub directly")
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
        with cancel_on_signals():
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
