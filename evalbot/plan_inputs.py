"""Where ``evalbot plan`` takes the share of items expected to change outcome (the
discordance) from, when the user does not give it: two real runs (a pilot), or one run.

A pilot's discordance is observed: the share of its items that changed between the runs, with
a Wilson interval. One run shows no discordance at all; :func:`from_one_run` assumes the two
runs' outcomes independent, which is an upper bound whenever they agree more than chance (as
runs of similar systems do), so the plan it gives is conservative, and says so.
"""

from __future__ import annotations

from evalbot.analysis import prepare
from evalbot.config import Config
from evalbot.errors import UsageError
from evalbot.report.sizing import Discordance
from evalbot.results.sources import load_results
from evalbot.stats import compute_paired_table, wilson_interval
from evalbot.vocabulary import Missing

__all__ = ["PILOT_CONFIDENCE", "from_one_run", "from_pilot", "independent_discordance"]

#: Confidence of the interval around a pilot's discordance.
PILOT_CONFIDENCE = 0.95


def independent_discordance(p0: float, p1: float) -> float:
    """The share of items on which two runs with pass rates ``p0`` and ``p1`` disagree when
    their outcomes are independent: ``p0 (1 - p1) + p1 (1 - p0)``.

    For any two runs with these pass rates the discordance is ``p0 + p1 - 2 P(both pass)``;
    when their outcomes are positively associated, ``P(both pass) >= p0 p1``, so it is at most
    this value.

    >>> round(independent_discordance(0.7, 0.73), 6)
    0.408
    """
    return p0 * (1 - p1) + p1 * (1 - p0)


def from_pilot(
    base_spec: str, cand_spec: str, config: Config, *, missing: Missing | None = None
) -> Discordance:
    """The share of items that changed outcome between two real runs, with its Wilson
    interval; ``missing`` overrides ``policy.missing`` for items on one side only."""
    options = config.read_options()
    paired = prepare(
        load_results(base_spec, options),
        load_results(cand_spec, options),
        config,
        missing=missing,
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


def from_one_run(spec: str, config: Config, difference: float) -> Discordance:
    """The discordance two runs with this run's pass rate, and that rate moved by
    ``difference``, would have if their outcomes were independent (see
    :func:`independent_discordance`)."""
    run = load_results(spec, config.read_options())
    if run.kind != "binary" or run.epochs is not None:
        raise UsageError(
            f"evalbot plan: {spec} is not one pass/fail outcome per item (scores, "
            "or repeats); give --discordance R"
        )
    n = len(run)
    p0 = float(run.scores.mean()) if n else 0.0
    p1 = p0 + difference
    if not 0.0 <= p1 <= 1.0:
        raise UsageError(
            f"evalbot plan: {spec} passes {p0 * 100:.1f} %, so a change of "
            f"{f'{difference * 100:+.1f} pp'} would leave the pass rate outside 0-100 %"
        )
    rate = independent_discordance(p0, p1)
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
        paths={"baseline": spec},
        detail={
            "file": run.source,
            "items": n,
            "pass_rate": p0,
            "expected_pass_rate": p1,
            "assumption": "independent outcomes (an upper bound when the runs agree more "
            "than chance)",
        },
    )
