"""Where ``evalbot plan`` takes its inputs from when the user does not give them: the share of
items expected to change outcome (the discordance) from two real runs (a pilot), and the
baseline's pass rate from one run or from two runs of the same system (an A/A pair, whose
discordance is the noise floor).

A pilot's discordance is observed: the share of its items that changed between the runs, with
a Wilson interval. One run shows no discordance at all: the plan then spans every discordance
a change of that size allows, from ``|difference|`` to :func:`independent_discordance`.
"""

from __future__ import annotations

from evalbot.analysis import prepare
from evalbot.errors import UsageError
from evalbot.formats.sources import load_results
from evalbot.plan.config import Config
from evalbot.report.sizing import BaselineRate, Discordance
from evalbot.stats import PairedTable, compute_paired_table, wilson_interval
from evalbot.vocabulary import Missing

__all__ = [
    "PILOT_CONFIDENCE",
    "from_noise_floor",
    "from_one_run",
    "from_pilot",
    "independent_discordance",
]

#: Confidence of the interval around a pilot's (or an A/A pair's) discordance.
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


def _read_pair(
    base_spec: str, cand_spec: str, config: Config, missing: Missing | None, what: str
) -> tuple[PairedTable, str, str]:
    """Two runs' paired table and their sources; ``what`` names the pair in refusals."""
    options = config.read_options()
    paired = prepare(
        load_results(base_spec, options),
        load_results(cand_spec, options),
        config,
        missing=missing,
    )
    if not paired.pass_fail or paired.kind != "binary":
        raise UsageError(
            f"evalbot plan: the {what} {base_spec} / {cand_spec} is not one pass/fail outcome "
            "per item on both sides (scores, or repeats), so it shows no share of changed "
            "items; give --discordance R"
        )
    table = compute_paired_table(paired.baseline, paired.candidate)
    if table.discordant == 0:
        raise UsageError(
            f"evalbot plan: no item changed outcome between the {what}'s {base_spec} and "
            f"{cand_spec} ({table.items} items), so it gives no discordance; give "
            "--discordance R"
        )
    return table, paired.baseline_source, paired.candidate_source


def _observed(
    table: PairedTable, base_source: str, cand_source: str
) -> tuple[dict[str, object], tuple[float, float], str]:
    """What a pair of runs shows: for the JSON output, its interval, and in words ("45 of 400
    items changed outcome between {baseline} and {candidate} (31 fixed, 14 broken; 95 % Wilson
    interval 8.5 to 14.7 %)", the names left as fields)."""
    ci = wilson_interval(table.discordant, table.items, confidence_level=PILOT_CONFIDENCE)
    detail: dict[str, object] = {
        "baseline": base_source,
        "candidate": cand_source,
        "items": table.items,
        "discordant": table.discordant,
        "fixed": table.fixed,
        "broken": table.broken,
        "interval": [ci.low, ci.high],
        "confidence": PILOT_CONFIDENCE,
    }
    words = (
        f"{table.discordant} of {table.items} items changed outcome between {{baseline}} and "
        f"{{candidate}} ({table.fixed} fixed, {table.broken} broken; "
        f"{PILOT_CONFIDENCE * 100:g} % Wilson interval {ci.low * 100:.1f} to "
        f"{ci.high * 100:.1f} %)"
    )
    return detail, (ci.low, ci.high), words


def from_pilot(
    base_spec: str, cand_spec: str, config: Config, *, missing: Missing | None = None
) -> Discordance:
    """The share of items that changed outcome between two real runs, with its Wilson
    interval; ``missing`` overrides ``policy.missing`` for items on one side only."""
    table, base_source, cand_source = _read_pair(base_spec, cand_spec, config, missing, "pilot")
    detail, interval, words = _observed(table, base_source, cand_source)
    rate = table.discordant / table.items
    return Discordance(
        rate=rate,
        source="pilot",
        sentence=f"Discordance {rate * 100:.1f} % from the pilot: {words}.",
        paths={"baseline": base_spec, "candidate": cand_spec},
        interval=interval,
        detail=detail,
    )


def from_noise_floor(
    a_spec: str, b_spec: str, config: Config, *, missing: Missing | None = None
) -> BaselineRate:
    """Two runs of the same system (an A/A pair): their pass rate (both runs' mean) and the
    share of items that changed outcome between them by chance alone, the noise floor."""
    table, a_source, b_source = _read_pair(a_spec, b_spec, config, missing, "A/A pair")
    detail, interval, words = _observed(table, a_source, b_source)
    rate = (table.baseline_passed + table.candidate_passed) / (2 * table.items)
    floor = table.discordant / table.items
    noise = Discordance(
        rate=floor,
        source="noise_floor",
        sentence=f"Noise floor {floor * 100:.1f} % from the A/A pair (two runs of the same "
        f"system): {words}.",
        paths={"baseline": a_spec, "candidate": b_spec},
        interval=interval,
        detail=detail,
    )
    return BaselineRate(rate=rate, source="noise_floor", items=table.items, noise=noise)


def from_one_run(spec: str, config: Config) -> BaselineRate:
    """The pass rate of one run of the baseline system."""
    run = load_results(spec, config.read_options())
    if run.kind != "binary" or run.epochs is not None:
        raise UsageError(
            f"evalbot plan: {spec} is not one pass/fail outcome per item (scores, "
            "or repeats); give --discordance R"
        )
    n = len(run)
    return BaselineRate(
        rate=float(run.scores.mean()) if n else 0.0,
        source="baseline",
        items=n,
        paths={"baseline": spec},
        detail={"file": run.source},
    )
