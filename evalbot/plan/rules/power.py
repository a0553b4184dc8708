"""Pure: the primary test against alpha, and what the eval could show at all: the smallest
change it can detect (``policy.min_effect``), whether any outcome of its items could have
reached alpha ("powerless"), and two runs that are the same item for item."""

from __future__ import annotations

import math
from dataclasses import dataclass

from evalbot.compare.records import Comparison, Significance
from evalbot.plan.config import Config
from evalbot.plan.rules.reasons import Reason, ReasonCode
from evalbot.stats.clusters import ClusteredMeanResult
from evalbot.stats.mcnemar import mcnemar_min_discordant
from evalbot.stats.power import mcnemar_minimum_detectable_effect, mcnemar_sample_size
from evalbot.stats.sequential import mixture_sprt
from evalbot.vocabulary import POWER

__all__ = ["Power", "identical_reason", "power_check", "powerless_reason", "test_reason"]

_TEST_CODES: dict[Significance, ReasonCode] = {
    "below": "significant",
    "not_below": "not_significant",
    "unresolved": "unresolved",
}


def test_reason(comparison: Comparison, config: Config) -> Reason:
    """The primary test's p-value against the effective alpha (``p <= alpha`` rejects)."""
    alpha = comparison.alpha
    p = comparison.pvalue
    judged = alpha.judge(p)
    details: dict[str, float | int | str | None] = {"test": comparison.test}
    if alpha.corrected:
        details.update(alpha=alpha.level, looks=alpha.looks)
    if judged == "unresolved":
        details["resamples"] = config.bootstrap.resamples
    return Reason(
        code=_TEST_CODES[judged],
        observed=p.reportable,
        threshold=alpha.effective,
        unit="p",
        rule="bootstrap.resamples" if judged == "unresolved" else "alpha",
        flag="--resamples" if judged == "unresolved" else None,
        pvalue=p,
        details=details,
    )


def _needed_for_alpha(comparison: Comparison, config: Config) -> tuple[str, int, int | None]:
    """(what counts, how many the eval has, how many the test needs to be able to reach
    alpha at all)."""
    alpha = comparison.alpha.effective
    table = comparison.table
    found = comparison.difference
    if isinstance(found, ClusteredMeanResult) and comparison.interval == "cluster-sign-flip":
        # the cluster sign-flip test's smallest p is 2^(1 - changed clusters)
        need = 1 + math.ceil(math.log2(1.0 / alpha) - 1e-12)
        return "changed clusters", found.changed_clusters, need
    if table is None:
        changed = int((comparison.paired.candidate != comparison.paired.baseline).sum())
        # the exact sign-flip test's smallest p is 2^(1 - changed)
        return "changed items", changed, 1 + math.ceil(math.log2(1.0 / alpha) - 1e-12)
    if config.policy.mode == "sequential":
        need = 1
        while mixture_sprt(need, 0).pvalue.decide(alpha) != "below":
            need += 1
        return "discordant pairs", table.discordant, need
    return (
        "discordant pairs",
        table.discordant,
        mcnemar_min_discordant(alpha, method=config.mcnemar),
    )


def powerless_reason(comparison: Comparison, config: Config) -> Reason | None:
    """Set when the test's smallest possible p-value on these items is above alpha: no
    outcome, however lopsided, could have been significant."""
    smallest = comparison.test_result.smallest_pvalue
    if smallest is None or comparison.alpha.rejects(smallest):
        return None
    what, have, need = _needed_for_alpha(comparison, config)
    return Reason(
        code="powerless",
        observed=smallest.reportable,
        threshold=comparison.alpha.effective,
        unit="p",
        rule="alpha",
        pvalue=smallest,
        details={"test": comparison.test, "counted": what, "have": have, "needed": need},
    )


def identical_reason(comparison: Comparison) -> Reason | None:
    """Both runs gave every item the same value: a file compared with itself?"""
    if not comparison.identical:
        return None
    paired = comparison.paired
    same = paired.baseline_source == paired.candidate_source
    return Reason(
        code="identical_runs",
        observed=comparison.items,
        unit="items",
        details={"same_source": "yes" if same else "no"},
    )


@dataclass(frozen=True, kw_only=True)
class Power:
    """``policy.min_effect`` against what this eval can detect."""

    minimum_detectable_effect: float | None = None  # inf: nothing is detectable
    underpowered: bool = False
    tripwire: Reason | None = None


def power_check(comparison: Comparison, config: Config) -> Power:
    """The exact minimum detectable effect at this size, the observed share of changed items
    (the plan's ``fix_rate + break_rate`` when none changed), the effective alpha, the plan's
    power and the items' design effect, against ``policy.min_effect``."""
    min_effect = config.policy.min_effect
    table = comparison.table
    items = comparison.items
    if min_effect is None or table is None or items == 0:
        return Power()
    rate = table.discordant / items
    if rate == 0.0 and config.plan is not None:
        rate = min(1.0, config.plan.fix_rate + config.plan.break_rate)
    if rate == 0.0:
        return Power()
    power = config.plan.power if config.plan is not None else POWER
    design = comparison.power.design if comparison.power is not None else None
    deff = 1.0 if design is None else design.design_effect
    alpha = comparison.alpha.effective
    found = mcnemar_minimum_detectable_effect(
        items, rate, alpha=alpha, power=power, method=config.mcnemar, design_effect=deff
    )
    mde = found.effect if found.detectable else math.inf
    if mde <= min_effect:
        return Power(minimum_detectable_effect=mde)
    needed: int | None = None
    if min_effect < rate:  # the split of the changed items that nets min_effect
        needed = mcnemar_sample_size(
            (rate + min_effect) / 2,
            (rate - min_effect) / 2,
            alpha=alpha,
            power=power,
            method=config.mcnemar,
            design_effect=deff,
        ).items
    tripwire = Reason(
        code="tripwire",
        observed=mde,
        threshold=min_effect,
        unit="pp",
        rule="policy.min_effect",
        details={
            "items": items,
            "discordant_rate": rate,
            "power": power,
            "items_needed": needed,
            "design_effect": deff,
        },
    )
    return Power(minimum_detectable_effect=mde, underpowered=True, tripwire=tripwire)
