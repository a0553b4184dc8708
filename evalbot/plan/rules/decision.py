"""Pure: the record of a decision (:class:`Decision`) and its parts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from evalbot.compare.records import Alpha
from evalbot.plan.ledger import Look
from evalbot.plan.rules.reasons import Reason
from evalbot.stats.agreement import Agreement
from evalbot.stats.pvalue import PValue
from evalbot.vocabulary import ALPHA, McNemarMethod, Mode

__all__ = ["Conclusion", "Decision", "Gate", "LookCount", "Outcome", "PlannedSize"]

Outcome = Literal["improvement", "regression", "no_significant_difference", "inconclusive"]
Gate = Literal["pass", "fail"]
Conclusion = Literal["success", "failure", "neutral"]


@dataclass(frozen=True, kw_only=True)
class PlannedSize:
    """The pre-registered item count: ``policy.sample_size`` as given, or computed from
    ``plan:`` (the smallest size whose exact power with the plan's McNemar test reaches the
    plan's power, at the alpha each look is tested at, times the design effect)."""

    items: int
    source: Literal["policy.sample_size", "plan"]
    discordant_pairs: int | None = None
    fix_rate: float | None = None
    break_rate: float | None = None
    power: float | None = None
    alpha: float | None = None
    exact_power: float | None = None
    method: McNemarMethod | None = None
    design_effect: float = 1.0


@dataclass(frozen=True, kw_only=True)
class LookCount:
    """Where this run stands among the looks at the pull request: its ``number`` (a re-run
    keeps the number of the look it repeats, ``rerun_of``), the ``earlier`` distinct looks, and
    the refusals that follow from them."""

    number: int = 1
    rerun_of: Look | None = None
    earlier: tuple[Look, ...] = ()
    violations: tuple[Reason, ...] = ()

    @property
    def rerun(self) -> bool:
        return self.rerun_of is not None


@dataclass(frozen=True, kw_only=True)
class Decision:
    """The verdict on one comparison and everything a report needs to explain it.

    ``reasons`` holds every reason in the order the report lists them (disclosures, the test,
    power, refusals, the gate); ``violations`` the refusals among them; ``warnings`` what the
    report shows as warnings. ``alpha`` is the comparison's :class:`~evalbot.compare.Alpha`,
    the one object holding the plan's and the effective alpha.
    """

    outcome: Outcome
    gate: Gate
    reasons: list[Reason]
    violations: list[Reason]
    conclusion: Conclusion = "success"  # the check run: failure = gate fail, neutral = inconclusive
    alpha: Alpha = field(default_factory=lambda: Alpha(level=ALPHA, effective=ALPHA))
    test: str = ""  # the test whose p-value decided
    pvalue: PValue | None = None  # the p-value that decided
    agreement: Agreement | None = None  # the test and the interval about zero
    mode: Mode = "fixed"
    items: int = 0
    planned: PlannedSize | None = None
    fingerprint: str = ""  # sha256 of the sorted item ids, as in policy.items_sha256
    planned_fingerprint: str | None = None
    head_sha: str | None = None
    tree: str | None = None  # the head commit's tree: the change judged
    looks: LookCount = field(default_factory=LookCount)
    max_looks: int | None = None
    min_effect: float | None = None
    minimum_detectable_effect: float | None = None  # at this size and discordance (inf: none)
    underpowered: bool = False
    powerless: bool = False  # no outcome of these items could have reached alpha
    identical: bool = False  # both runs gave every item the same value
    holdout: bool = False  # the analysis was restricted to the sealed holdout
    holdout_uses: int = 0  # uses of the holdout including this run
    holdout_max_uses: int | None = None
    margin: float | None = None
    noninferior: bool | None = None  # CI lower bound > -margin (None: no margin configured)
    broken: int = 0
    broken_limit: float | None = None  # gate.max_broken resolved to an item count
    warnings: list[Reason] = field(default_factory=list)

    @property
    def policy_ok(self) -> bool:
        return not self.violations

    @property
    def effective_alpha(self) -> float:
        return self.alpha.effective

    @property
    def planned_items(self) -> int | None:
        return None if self.planned is None else self.planned.items

    @property
    def look(self) -> int:
        return self.looks.number

    @property
    def rerun(self) -> bool:
        return self.looks.rerun

    def of_kind(self, *kinds: str) -> list[Reason]:
        """The reasons of these kinds, in order."""
        return [reason for reason in self.reasons if reason.kind in kinds]
