"""Pure: what the decision discloses (items dropped or filled, items not evaluated, the looks
correction) and warns about (an unreadable state block, a registered items file not read,
the units of the clustered test)."""

from __future__ import annotations

from evalbot.compare.primary import has_clusters
from evalbot.compare.records import Comparison
from evalbot.plan.config import Config
from evalbot.plan.ledger import State
from evalbot.plan.rules.reasons import Reason
from evalbot.stats.clusters import ClusteredMeanResult

__all__ = ["disclosures", "sequential_violations", "warnings_of"]


def disclosures(comparison: Comparison) -> list[Reason]:
    """How pairing handled items on one side only and items a run did not evaluate, and the
    alpha every look is tested at under ``policy.looks: bonferroni``."""
    paired = comparison.paired
    found: list[Reason] = []
    alpha = comparison.alpha
    if alpha.corrected:
        found.append(
            Reason(
                code="bonferroni",
                observed=alpha.effective,
                threshold=alpha.level,
                unit="p",
                rule="policy.looks: bonferroni",
                details={"looks": alpha.looks},
            )
        )
    if paired.dropped_baseline_only or paired.dropped_candidate_only:
        found.append(
            Reason(
                code="dropped_missing",
                observed=len(paired.dropped_baseline_only) + len(paired.dropped_candidate_only),
                unit="items",
                rule="policy.missing: drop",
                flag="--missing",
                details={
                    "baseline_only": len(paired.dropped_baseline_only),
                    "candidate_only": len(paired.dropped_candidate_only),
                },
            )
        )
    if paired.filled_as_failures:
        found.append(
            Reason(
                code="filled_missing",
                observed=paired.filled_as_failures,
                unit="items",
                rule="policy.missing: fail",
                flag="--missing",
            )
        )
    skipped = paired.not_evaluated
    if skipped is not None:
        found.append(
            Reason(
                code="not_evaluated",
                observed=skipped.items,
                unit="items",
                rule=f"policy.errors: {skipped.rule}",
                flag="--errors",
                details={
                    "baseline_only": skipped.baseline - skipped.both,
                    "candidate_only": skipped.candidate - skipped.both,
                    "both": skipped.both,
                    "compared": len(paired.ids),
                },
            )
        )
    if comparison.table is not None and isinstance(comparison.difference, ClusteredMeanResult):
        clusters = comparison.clusters.clusters if comparison.clusters is not None else None
        found.append(Reason(code="clusters_mcnemar", rule="test", details={"clusters": clusters}))
    return found


def warnings_of(comparison: Comparison, config: Config, state: State) -> list[Reason]:
    """What the report shows as warnings, in order."""
    found: list[Reason] = []
    if state.warning:
        found.append(Reason(code="state_ignored", details={"why": state.warning}))
    policy = config.policy
    if policy.items_sha256 is None and policy.items_file is not None:
        found.append(
            Reason(
                code="items_file_unread",
                rule="policy.items_file",
                details={"file": policy.items_file},
            )
        )
    return found


def sequential_violations(comparison: Comparison, config: Config) -> list[Reason]:
    """``policy.mode: sequential`` refuses a score metric (its test is on discordant pairs)
    and items that share clusters: the mixture SPRT needs units that arrive once and for all,
    while a cluster's items arrive over several looks (README, "Clustered items")."""
    if config.policy.mode != "sequential":
        return []
    if comparison.table is None:
        return [Reason(code="sequential_score", rule="policy.mode: sequential")]
    if has_clusters(comparison.paired.clusters):
        clusters = comparison.clusters.clusters if comparison.clusters is not None else None
        return [
            Reason(
                code="clusters_sequential",
                rule="policy.mode: sequential",
                details={"clusters": clusters},
            )
        ]
    return []
