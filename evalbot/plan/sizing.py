"""``evalbot plan``'s computing: how many items a paired comparison needs, or what N items can
detect, by the exact power of the test evalbot runs (:mod:`evalbot.stats`); and the inputs it
takes from files (a pilot, one run of the baseline, an A/A pair). Its outputs are
:mod:`evalbot.report.sizing`; docs/planning.md explains the method.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from evalbot.errors import UsageError
from evalbot.formats.model import Results
from evalbot.plan import rates
from evalbot.plan.config import Config
from evalbot.plan.policy import Sizing, prepare
from evalbot.stats.intervals import wilson_interval
from evalbot.stats.power import SampleSizeResult, mcnemar_sample_size, simulate_mcnemar_power
from evalbot.stats.table import PairedTable, compute_paired_table
from evalbot.vocabulary import Missing

#: Confidence of the interval around a pilot's (or an A/A pair's) discordance.
PILOT_CONFIDENCE = 0.95
#: Seeded simulations that check the exact power of a plan.
PLAN_SIMULATIONS = 10_000

#: The assumption behind a row of the range: the least discordance the change allows
#: (|difference|), evenly between, the A/A pair's noise floor plus the change, independent runs.
Assumption = Literal["least", "between", "noise_floor", "independent"]


@dataclass(frozen=True, kw_only=True)
class Pair:
    """Two runs on the same items (a pilot, or an A/A pair): their paired counts, and the
    Wilson interval of the share of items that changed outcome."""

    paths: tuple[str, str]  # as the user wrote them
    sources: tuple[str, str]  # as read
    table: PairedTable
    interval: tuple[float, float]

    @property
    def rate(self) -> float:
        return self.table.discordant / self.table.items


@dataclass(frozen=True, kw_only=True)
class Discordance:
    """The share of items expected to change outcome, and where it came from: ``given``,
    ``rates``, ``config`` (the file ``config``), a ``pilot`` (``pair``), or a baseline's pass
    rate (``pass_rate``, ``baseline``, ``noise_floor``)."""

    rate: float
    source: str
    pair: Pair | None = None
    config: str = ""
    interval: tuple[float, float] | None = None


@dataclass(frozen=True, kw_only=True)
class BaselineRate:
    """The baseline's pass rate a range of discordance starts from: given (``pass_rate``),
    one run (``baseline``: ``run`` its path as given and as read), or an A/A pair
    (``noise_floor``: two runs of the same system, whose discordance is the noise floor)."""

    rate: float
    source: str
    items: int | None = None
    run: tuple[str, str] | None = None
    noise: Pair | None = None


@dataclass(frozen=True, kw_only=True)
class Range:
    """The sizes over the discordance a change of ``difference`` allows from ``base``, each
    row a size with the assumption that gives its discordance; ``chosen`` the row the plan
    takes (the noise floor's, else the independent one)."""

    base: BaselineRate
    difference: float
    rows: tuple[tuple[Assumption, SampleSizeResult], ...]
    chosen: Assumption


@dataclass(frozen=True, kw_only=True)
class ItemsPlan:
    """A plan: ``result`` the size it recommends, checked by ``simulated`` power; with a
    discordance's interval, the items needed at its ends; with a baseline's pass rate, the
    sizes over the range of discordance."""

    result: SampleSizeResult
    simulated: float
    discordance: Discordance
    at_interval: tuple[int, int] | None = None
    range: Range | None = None


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


def split(difference: float, discordance: float) -> tuple[float, float]:
    """Fix and break rates from the net difference and the discordance: ``(R ± D) / 2``."""
    if discordance < abs(difference) - 1e-12:
        raise UsageError(
            f"evalbot plan: a net change of {difference * 100:+.1f} pp needs a discordance of at "
            f"least {abs(difference) * 100:g} %, got {discordance * 100:.3g} %; give a larger one"
        )
    return rates.split(difference, discordance)


def plan_items(test: Sizing, fix: float, brk: float, found: Discordance) -> ItemsPlan:
    """The size for these fix and break rates, checked by simulation; with an interval of
    the discordance, the sizes at its ends."""
    result = mcnemar_sample_size(fix, brk, **test)
    simulated = simulate_mcnemar_power(
        fix,
        brk,
        result.unclustered_items,
        alpha=test["alpha"],
        n_simulations=PLAN_SIMULATIONS,
        seed=0,
        method=test["method"],
    )
    at_interval = None
    if found.interval is not None and found.interval[0] >= abs(fix - brk):
        low, high = (mcnemar_sample_size(*split(fix - brk, end), **test) for end in found.interval)
        at_interval = (low.items, high.items)
    return ItemsPlan(result=result, simulated=simulated, discordance=found, at_interval=at_interval)


def range_rates(difference: float, p0: float, noise: Pair | None) -> list[tuple[Assumption, float]]:
    """The discordances a change of ``difference`` from pass rate ``p0`` allows, by assumption:
    the least (``|difference|``), three evenly between, the independent case, and the A/A
    pair's noise floor plus the change; one row per discordance, by size."""
    least = abs(difference)
    independent = independent_discordance(p0, p0 + difference)
    assumed: list[tuple[Assumption, float]] = [("independent", independent), ("least", least)]
    if noise is not None:
        assumed.insert(0, ("noise_floor", min(1.0, noise.rate + least)))
    assumed += [("between", least + k * (independent - least) / 4) for k in (1, 2, 3)]
    rows: dict[float, tuple[Assumption, float]] = {}
    for assumption, rate in assumed:  # a named assumption wins over an equal "between"
        rows.setdefault(round(rate, 12), (assumption, rate))
    return sorted(rows.values(), key=lambda row: row[1])


def plan_range(test: Sizing, difference: float, base: BaselineRate) -> ItemsPlan:
    """The sizes over the range of discordance from the baseline's pass rate; the plan is the
    noise floor's row when an A/A pair measured it, else the independent (largest) one."""
    if not 0.0 <= base.rate + difference <= 1.0:
        raise UsageError(
            f"evalbot plan: a pass rate of {base.rate * 100:.1f} % moved by "
            f"{difference * 100:+.1f} pp would leave 0-100 %"
        )
    rows = tuple(
        (assumption, mcnemar_sample_size(*split(difference, rate), **test))
        for assumption, rate in range_rates(difference, base.rate, base.noise)
    )
    chosen, size = next((row for row in rows if row[0] == "noise_floor"), rows[-1])
    interval = None
    if base.noise is not None:
        low, high = base.noise.interval
        interval = (low + abs(difference), high + abs(difference))
    found = Discordance(rate=size.discordant_rate, source=base.source, interval=interval)
    plan = plan_items(test, size.fix_rate, size.break_rate, found)
    return replace(plan, range=Range(base=base, difference=difference, rows=rows, chosen=chosen))


def observe_pair(
    paths: tuple[str, str],
    runs: tuple[Results, Results],
    config: Config,
    *,
    missing: Missing | None,
    what: str,
) -> Pair:
    """Two runs (read from ``paths``) paired under ``config``, ``missing`` over its
    ``policy.missing``: the items that changed outcome. ``what`` names the pair in refusals
    (the ``pilot``, the ``A/A pair``)."""
    paired = prepare(*runs, config, missing=missing)
    if not paired.pass_fail or paired.kind != "binary":
        raise _not_pass_fail(f"the {what} {paths[0]} / {paths[1]}")
    table = compute_paired_table(paired.baseline, paired.candidate)
    if table.discordant == 0:
        raise UsageError(
            f"evalbot plan: no item changed outcome between the {what}'s {paths[0]} and "
            f"{paths[1]} ({table.items} items); give --discordance R"
        )
    ci = wilson_interval(table.discordant, table.items, confidence_level=PILOT_CONFIDENCE)
    sources = (paired.baseline_source, paired.candidate_source)
    return Pair(paths=paths, sources=sources, table=table, interval=(ci.low, ci.high))


def _not_pass_fail(what: str) -> UsageError:
    """The refusal of runs that show no share of changed items (scores, or repeats)."""
    return UsageError(
        f"evalbot plan: {what} is not one pass/fail outcome per item (scores, or repeats); "
        "give --discordance R"
    )


def noise_floor(pair: Pair) -> BaselineRate:
    """An A/A pair's pass rate (both runs' mean), with its discordance as the noise floor."""
    table = pair.table
    rate = (table.baseline_passed + table.candidate_passed) / (2 * table.items)
    return BaselineRate(rate=rate, source="noise_floor", items=table.items, noise=pair)


def one_run_rate(spec: str, run: Results) -> BaselineRate:
    """The pass rate of one run of the baseline system, read from ``spec``."""
    if run.kind != "binary" or run.epochs is not None:
        raise _not_pass_fail(spec)
    rate, n = float(run.scores.mean()) if len(run) else 0.0, len(run)
    return BaselineRate(rate=rate, source="baseline", items=n, run=(spec, run.source))
