"""Pure: the plan's registered size and items, and the refusals when an eval does not match
them (or, for the sealed holdout, does not contain all of it)."""

from __future__ import annotations

from evalbot.compare.records import Comparison, plan_alpha
from evalbot.plan.config import Config
from evalbot.plan.rules.decision import PlannedSize
from evalbot.plan.rules.reasons import Reason

__all__ = ["holdout_violations", "plan_sample_size", "size_violations"]


def plan_sample_size(config: Config) -> PlannedSize | None:
    """The pre-registered item count: ``policy.sample_size``, or computed from ``plan:`` by the
    exact power of the plan's McNemar test at the alpha every look is tested at (``alpha /
    max_looks`` under ``policy.looks: bonferroni``), times ``plan.design_effect``."""
    if config.policy.sample_size is not None:
        return PlannedSize(items=config.policy.sample_size, source="policy.sample_size")
    if config.plan is None:
        return None
    from evalbot.stats.power import mcnemar_sample_size

    plan = config.plan
    alpha = plan_alpha(config).effective
    result = mcnemar_sample_size(
        plan.fix_rate,
        plan.break_rate,
        alpha=alpha,
        power=plan.power,
        method=config.mcnemar,
        design_effect=plan.design_effect,
    )
    return PlannedSize(
        items=result.items,
        source="plan",
        discordant_pairs=result.discordant_pairs,
        fix_rate=plan.fix_rate,
        break_rate=plan.break_rate,
        power=plan.power,
        alpha=alpha,
        exact_power=result.exact_power,
        method=config.mcnemar,
        design_effect=plan.design_effect,
    )


def size_violations(
    comparison: Comparison, config: Config, planned: PlannedSize | None, ids_hash: str
) -> list[Reason]:
    """The regular (not holdout) eval against the registered size and item set."""
    policy = config.policy
    items = comparison.items
    found = _not_evaluated(comparison, config, planned)
    if planned is not None:
        rule = planned.source
        if policy.mode == "sequential" and items > planned.items:
            found.append(
                Reason(
                    code="sequential_cap",
                    observed=items,
                    threshold=planned.items,
                    unit="items",
                    rule=rule,
                )
            )
        elif policy.mode == "fixed" and items != planned.items:
            found.append(
                Reason(
                    code="sample_size",
                    observed=items,
                    threshold=planned.items,
                    unit="items",
                    rule=rule,
                )
            )
    registered = policy.items_sha256
    if registered is not None and ids_hash != registered:
        found.append(
            Reason(
                code="item_set",
                observed=ids_hash,
                threshold=registered,
                unit="sha256",
                rule="policy.items_file" if policy.items_file else "policy.items_sha256",
                details={"items": items},
            )
        )
    return found


def _not_evaluated(
    comparison: Comparison, config: Config, planned: PlannedSize | None
) -> list[Reason]:
    """A plan that fixes the item set refuses a comparison that left items out because a run
    did not evaluate them."""
    skipped = comparison.paired.not_evaluated
    fixed = planned is not None and config.policy.mode == "fixed"
    if skipped is None or skipped.rule != "drop" or not (fixed or config.policy.items_sha256):
        return []
    rule: str
    if fixed and planned is not None:
        rule = planned.source
    else:
        rule = "policy.items_file" if config.policy.items_file else "policy.items_sha256"
    return [
        Reason(
            code="fixed_items_not_evaluated",
            observed=skipped.items,
            unit="items",
            rule=rule,
            flag="--errors",
            details={"baseline": skipped.baseline, "candidate": skipped.candidate},
        )
    ]


def holdout_violations(comparison: Comparison, config: Config) -> list[Reason]:
    """The sealed holdout must be analysed whole."""
    section = config.holdout
    if section is None or section.ids is None:
        return [Reason(code="holdout_unconfigured", rule="holdout.ids_file", flag="--holdout")]
    present = set(comparison.paired.ids)
    if set(section.ids) == present:
        return []
    missing = len(set(section.ids) - present)
    return [
        Reason(
            code="holdout_missing",
            observed=missing,
            threshold=len(section.ids),
            unit="items",
            rule="holdout.ids_file",
            flag="--holdout",
        )
    ]
