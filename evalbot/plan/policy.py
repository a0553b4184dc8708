"""Pure: the plan applied: two runs -> the items it analyses -> Comparison -> a Decision.

The rules are small steps, each returning typed reasons (:class:`Reason`: a code, the observed
value and the threshold with their unit, the config key and flag), which the report words
once (:mod:`evalbot.report.words`). :func:`evaluate` runs them in order: the registered size
and items, the looks, the test against alpha and what the eval could show, the gate. A refusal
is ``inconclusive`` and fails the check unless ``gate.on_refused: neutral`` (GitHub counts a
neutral check as passing). docs/plan.md explains each rule.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from evalbot.compare import compute_comparison
from evalbot.compare.primary import has_clusters
from evalbot.compare.records import Comparison, plan_alpha
from evalbot.errors import ConfigError
from evalbot.formats.model import Paired, Results
from evalbot.pairing.fingerprint import fingerprint
from evalbot.pairing.pair import pair
from evalbot.pairing.subset import apply_errors, restrict_items
from evalbot.plan.config import Config
from evalbot.plan.ledger import UNKNOWN_FINGERPRINT, Look, State, distinct_looks, with_look
from evalbot.stats.agreement import Agreement, interval_agreement
from evalbot.stats.clusters import ClusteredMeanResult
from evalbot.stats.mcnemar import mcnemar_min_discordant
from evalbot.stats.power import (
    SampleSizeResult,
    mcnemar_minimum_detectable_effect,
    mcnemar_sample_size,
)
from evalbot.stats.pvalue import PValue
from evalbot.stats.sequential import mixture_sprt
from evalbot.vocabulary import POWER, Missing

# ---- reasons -------------------------------------------------------------------------------

Kind = Literal["test", "power", "violation", "gate", "note", "warning"]
#: The unit of ``observed`` and ``threshold``: ``pp`` a difference in pass rate (a fraction),
#: ``score`` one in the metric's own unit, ``p`` a p-value or level, ``share`` a fraction of
#: the items, ``sha256`` an item set's fingerprint.
Unit = Literal["pp", "score", "items", "looks", "uses", "p", "share", "sha256"]
#: A reason's code: one of :data:`CODES`.
ReasonCode = str

#: Every reason's code, its kind (the test's result, a limit of the eval's power, a refusal of
#: the plan: no verdict, a condition of the gate, a disclosure of how the data were handled, a
#: warning), and the unit, config key and flag of its reasons where a reason gives none.
CODES: dict[ReasonCode, tuple[Kind, Unit | None, str | None, str | None]] = {
    "significant": ("test", "p", "alpha", None),
    "not_significant": ("test", "p", "alpha", None),
    "unresolved": ("test", "p", "bootstrap.resamples", "--resamples"),
    "underpowered_gain": ("power", "pp", "policy.min_effect", None),
    "tripwire": ("power", "pp", "policy.min_effect", None),
    "powerless": ("power", "p", "alpha", None),
    "sample_size": ("violation", "items", None, None),
    "sequential_cap": ("violation", "items", None, None),
    "item_set": ("violation", "sha256", None, None),
    "fixed_items_not_evaluated": ("violation", "items", None, "--errors"),
    "holdout_unconfigured": ("violation", None, "holdout.ids_file", "--holdout"),
    "holdout_missing": ("violation", "items", "holdout.ids_file", "--holdout"),
    "item_shopping": ("violation", "sha256", None, None),
    "too_many_looks": ("violation", "looks", "policy.max_looks", None),
    "records_disagree": ("violation", None, None, None),
    "sequential_score": ("violation", None, "policy.mode: sequential", None),
    "clusters_sequential": ("violation", None, "policy.mode: sequential", None),
    "gate_refused": ("gate", None, None, None),
    "gate_regression": ("gate", None, "gate.fail_on: significant_regression", None),
    "gate_not_improvement": ("gate", None, "gate.fail_on: not_significant_improvement", None),
    "gate_max_broken": ("gate", "items", "gate.max_broken", None),
    "gate_margin": ("gate", None, "gate.margin", None),
    "bonferroni": ("note", "p", "policy.looks: bonferroni", None),
    "dropped_missing": ("note", "items", "policy.missing: drop", "--missing"),
    "filled_missing": ("note", "items", "policy.missing: fail", "--missing"),
    "not_evaluated": ("note", "items", None, "--errors"),
    "clusters_mcnemar": ("note", None, "test", None),
    "identical_runs": ("warning", "items", None, None),
    "state_ignored": ("warning", None, None, None),
    "items_file_unread": ("warning", None, "policy.items_file", None),
    "holdout_overused": ("warning", "uses", "holdout.max_uses", None),
}


@dataclass(frozen=True, kw_only=True)
class Reason:
    """One reason of a decision: its ``code``, the value ``observed`` and the ``threshold`` it
    was held against in ``unit``, the config key (``rule``, with its value where the key is a
    choice: ``gate.fail_on: significant_regression``) and command-line ``flag`` it comes from
    (those not given are the code's usual ones, :data:`CODES`), the test's ``pvalue``, and
    plain ``details`` (a test's name, a short sha, items needed)."""

    code: ReasonCode
    observed: float | str | None = None
    threshold: float | str | None = None
    unit: Unit | None = None
    rule: str | None = None
    flag: str | None = None
    pvalue: PValue | None = None
    details: Mapping[str, float | int | str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown reason code {self.code!r}")
        for name, value in zip(("unit", "rule", "flag"), CODES[self.code][1:], strict=True):
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)

    @property
    def kind(self) -> Kind:
        return CODES[self.code][0]


# ---- the decision --------------------------------------------------------------------------

Outcome = Literal["improvement", "regression", "no_significant_difference", "inconclusive"]
Gate = Literal["pass", "fail"]
Conclusion = Literal["success", "failure", "neutral"]


@dataclass(frozen=True, kw_only=True)
class PlannedSize:
    """The pre-registered item count: ``policy.sample_size`` as given, or computed from
    ``plan:`` (``result``: the smallest size whose exact power with the plan's McNemar test
    reaches the plan's power, at the alpha each look is tested at, times the design effect)."""

    items: int
    source: Literal["policy.sample_size", "plan"]
    result: SampleSizeResult | None = None

    @property
    def design_effect(self) -> float:
        return 1.0 if self.result is None else self.result.design_effect


@dataclass(frozen=True, kw_only=True)
class LookCount:
    """Where this run stands among the looks at the change: its ``number`` (a re-run keeps the
    number of the look it repeats, ``rerun_of``) and the ``earlier`` distinct looks."""

    number: int = 1
    rerun_of: Look | None = None
    earlier: tuple[Look, ...] = ()

    @property
    def rerun(self) -> bool:
        return self.rerun_of is not None


@dataclass(frozen=True, kw_only=True)
class Decision:
    """The verdict on one comparison and everything a report needs to explain it.

    ``reasons`` holds every reason in the order the report lists them (disclosures, the test,
    power, refusals, the gate); ``violations`` the refusals among them; ``warnings`` what the
    report shows as warnings. What the comparison holds (its items, test, p-value and
    alpha) the report reads from the comparison.
    """

    outcome: Outcome
    gate: Gate
    reasons: list[Reason]
    violations: list[Reason]
    agreement: Agreement | None = None  # the test and the interval about zero
    planned: PlannedSize | None = None
    fingerprint: str = ""  # sha256 of the sorted item ids, as in policy.items_sha256
    head_sha: str | None = None
    tree: str | None = None  # the head commit's tree: the change judged
    looks: LookCount = field(default_factory=LookCount)
    minimum_detectable_effect: float | None = None  # at this size and discordance (inf: none)
    underpowered: bool = False
    holdout: bool = False  # the analysis was restricted to the sealed holdout
    holdout_uses: int = 0  # uses of the holdout including this run
    noninferior: bool | None = None  # CI lower bound > -margin (None: no margin configured)
    broken: int = 0
    broken_limit: float | None = None  # gate.max_broken resolved to an item count
    warnings: list[Reason] = field(default_factory=list)
    config: Config = field(default_factory=Config)  # the plan it was judged under

    @property
    def conclusion(self) -> Conclusion:
        """The check run's: ``failure`` when the gate fails, ``neutral`` for an inconclusive
        result that is nobody's violation (an underpowered gain) or a refusal under
        ``gate.on_refused: neutral``."""
        if self.gate == "fail":
            return "failure"
        return "neutral" if self.outcome == "inconclusive" else "success"

    @property
    def powerless(self) -> bool:
        """No outcome of these items could have reached alpha."""
        return any(reason.code == "powerless" for reason in self.reasons)

    @property
    def policy_ok(self) -> bool:
        return not self.violations

    def of_kind(self, *kinds: str) -> list[Reason]:
        """The reasons of these kinds, in order."""
        return [reason for reason in self.reasons if reason.kind in kinds]


# ---- the registered size and items ---------------------------------------------------------


class Sizing(TypedDict):
    """The test a plan is sized for: McNemar's ``method`` at ``alpha`` with ``power``; the
    keywords of :func:`~evalbot.stats.power.mcnemar_sample_size` and its minimum detectable
    effect."""

    alpha: float
    power: float
    method: str
    design_effect: float


def sizing(config: Config, alpha: float, design_effect: float) -> Sizing:
    """The plan's McNemar test (its power, else the default) at ``alpha`` and ``design_effect``."""
    power = config.plan.power if config.plan is not None else POWER
    return Sizing(alpha=alpha, power=power, method=config.mcnemar, design_effect=design_effect)


def plan_sample_size(config: Config) -> PlannedSize | None:
    """The pre-registered item count: ``policy.sample_size``, or computed from ``plan:`` by the
    exact power of the plan's McNemar test at the alpha every look is tested at, times
    ``plan.design_effect``."""
    if config.policy.sample_size is not None:
        return PlannedSize(items=config.policy.sample_size, source="policy.sample_size")
    if (plan := config.plan) is None:
        return None
    test = sizing(config, plan_alpha(config).effective, plan.design_effect)
    result = mcnemar_sample_size(plan.fix_rate, plan.break_rate, **test)
    return PlannedSize(items=result.items, source="plan", result=result)


def _reason(
    code: ReasonCode,
    observed: float | str | None = None,
    threshold: float | str | None = None,
    *,
    rule: str | None = None,
    **details: float | int | str | None,
) -> Reason:
    """A reason of ``code``, its ``details`` given as keywords."""
    return Reason(code=code, observed=observed, threshold=threshold, rule=rule, details=details)


def size_violations(
    comparison: Comparison, config: Config, planned: PlannedSize | None, ids_hash: str
) -> Iterator[Reason]:
    """The regular (not holdout) eval against the registered size and item set; a plan that
    fixes the items also refuses one that left out items a run did not evaluate."""
    policy, items, skipped = config.policy, comparison.items, comparison.paired.not_evaluated
    items_rule = "policy.items_file" if policy.items_file else "policy.items_sha256"
    fixed = planned is not None and policy.mode == "fixed"
    if skipped is not None and skipped.rule == "drop" and (fixed or policy.items_sha256):
        rule = planned.source if fixed and planned is not None else items_rule
        yield _reason(
            "fixed_items_not_evaluated",
            skipped.items,
            rule=rule,
            baseline=skipped.baseline,
            candidate=skipped.candidate,
        )
    sequential = policy.mode == "sequential"
    if planned is not None and (items > planned.items if sequential else items != planned.items):
        code = "sequential_cap" if sequential else "sample_size"
        yield _reason(code, items, planned.items, rule=planned.source)
    if (registered := policy.items_sha256) is not None and ids_hash != registered:
        yield _reason("item_set", ids_hash, registered, rule=items_rule, items=items)


def holdout_violations(comparison: Comparison, config: Config) -> Iterator[Reason]:
    """The sealed holdout must be analysed whole."""
    section = config.holdout
    if section is None or section.ids is None:
        yield Reason(code="holdout_unconfigured")
    elif set(section.ids) != (present := set(comparison.paired.ids)):
        missing = len(set(section.ids) - present)
        yield Reason(code="holdout_missing", observed=missing, threshold=len(section.ids))


def sequential_violations(comparison: Comparison, config: Config) -> Iterator[Reason]:
    """``policy.mode: sequential`` refuses a score metric (its test is on discordant pairs) and
    items that share clusters (a cluster's items would arrive over several looks)."""
    if config.policy.mode != "sequential":
        return
    if comparison.table is None:
        yield Reason(code="sequential_score")
    elif has_clusters(comparison.paired.clusters):
        clusters = comparison.clusters.clusters if comparison.clusters is not None else None
        yield _reason("clusters_sequential", clusters=clusters)


# ---- the looks -----------------------------------------------------------------------------


def count_this_look(
    state: State, config: Config, *, head: str | None, current: str, items: int, holdout: bool
) -> tuple[LookCount, list[Reason]]:
    """This run among the earlier looks of the same kind (holdout or not) on record, and the
    refusals that follow from them.

    ``head`` is the change judged (its tree, else its commit), ``current`` the item set's
    fingerprint. Without ``head`` looks cannot be told apart: every earlier look counts and
    none is a re-run. A look's number never falls below the highest one on record.
    """
    earlier = distinct_looks(look for look in state.looks if look.holdout == holdout)
    number = max(len(earlier), 0 if holdout else state.most) + 1
    violations: list[Reason] = []
    if state.findings:
        violations.append(_reason("records_disagree", findings="; ".join(state.findings)))
    same_change = [look for look in earlier if head is not None and look.change == head]
    rerun_of = next((look for look in same_change if look.fingerprint == current), None)
    if rerun_of is not None:
        number = rerun_of.number or earlier.index(rerun_of) + 1
    elif same_change:
        other = same_change[0]
        known = other.fingerprint != UNKNOWN_FINGERPRINT
        violations.append(
            _reason(
                "item_shopping",
                current,
                other.fingerprint if known else None,
                commit=other.head_sha[:7],
                items=items,
                earlier_items=other.items if known else None,
            )
        )
    most = config.policy.max_looks
    if not holdout and most is not None and number > most:
        violations.append(Reason(code="too_many_looks", observed=number, threshold=most))
    return LookCount(number=number, rerun_of=rerun_of, earlier=tuple(earlier)), violations


# ---- the test and what the eval could show -------------------------------------------------


def test_reason(comparison: Comparison, config: Config) -> Reason:
    """The primary test's p-value against the effective alpha (``p <= alpha`` rejects): its
    code is ``significant``, ``not_significant`` or ``unresolved``."""
    alpha, p = comparison.alpha, comparison.pvalue
    judged = alpha.judge(p)
    code = {"below": "significant", "not_below": "not_significant"}.get(judged, judged)
    details: dict[str, float | int | str | None] = {"test": comparison.test}
    if alpha.corrected:
        details.update(alpha=alpha.level, looks=alpha.looks)
    if judged == "unresolved":
        details["resamples"] = config.bootstrap.resamples
    return Reason(
        code=code, observed=p.reportable, threshold=alpha.effective, pvalue=p, details=details
    )


def _needed_for_alpha(comparison: Comparison, config: Config) -> tuple[str, int, int]:
    """(what counts, how many the eval has, how many the test needs to reach alpha at all)."""
    alpha, table = comparison.alpha.effective, comparison.table
    # the exact sign-flip tests' smallest p is 2^(1 - changed items or clusters)
    flips = 1 + math.ceil(math.log2(1.0 / alpha) - 1e-12)
    found = comparison.difference
    if isinstance(found, ClusteredMeanResult) and comparison.interval == "cluster-sign-flip":
        return "changed clusters", found.changed_clusters, flips
    if table is None:
        paired = comparison.paired
        return "changed items", int((paired.candidate != paired.baseline).sum()), flips
    if config.policy.mode == "sequential":
        need = 1
        while mixture_sprt(need, 0).pvalue.decide(alpha) != "below":
            need += 1
    else:
        need = mcnemar_min_discordant(alpha, method=config.mcnemar)
    return "discordant pairs", table.discordant, need


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
        pvalue=smallest,
        details={"test": comparison.test, "counted": what, "have": have, "needed": need},
    )


def power_check(comparison: Comparison, config: Config) -> tuple[float | None, Reason | None]:
    """``policy.min_effect`` against what this eval can detect: the exact minimum detectable
    effect (inf: nothing is) at this size, the observed share of changed items (the plan's
    ``fix_rate + break_rate`` when none changed), the effective alpha, the plan's power and the
    items' design effect; and the tripwire when it is above ``min_effect``."""
    min_effect, table, items = config.policy.min_effect, comparison.table, comparison.items
    if min_effect is None or table is None or items == 0:
        return None, None
    rate = table.discordant / items
    if rate == 0.0 and config.plan is not None:
        rate = min(1.0, config.plan.fix_rate + config.plan.break_rate)
    if rate == 0.0:
        return None, None
    design = comparison.power.design if comparison.power is not None else None
    deff = 1.0 if design is None else design.design_effect
    test = sizing(config, comparison.alpha.effective, deff)
    found = mcnemar_minimum_detectable_effect(items, rate, **test)
    mde = found.effect if found.detectable else math.inf
    if mde <= min_effect:
        return mde, None
    needed: int | None = None
    if min_effect < rate:  # the split of the changed items that nets min_effect
        needed = mcnemar_sample_size((rate + min_effect) / 2, (rate - min_effect) / 2, **test).items
    return mde, _reason(
        "tripwire",
        mde,
        min_effect,
        items=items,
        discordant_rate=rate,
        power=test["power"],
        items_needed=needed,
        design_effect=deff,
    )


# ---- the gate ------------------------------------------------------------------------------


def judge_gate(
    comparison: Comparison, config: Config, outcome: Outcome, violations: list[Reason]
) -> tuple[list[Reason], float | None, bool | None]:
    """``gate.on_refused``, ``gate.fail_on``, ``gate.max_broken`` and ``gate.margin``: each
    condition that fails is a reason (the gate fails with any); with ``gate.max_broken`` as an
    item count (a share of the items times the items) and whether the interval's lower bound
    is above ``-gate.margin`` (None: not set). A refusal fails under ``gate.on_refused: fail``,
    and always when the records of the looks disagree."""
    gate, reasons = config.gate, []
    if any(reason.code == "records_disagree" for reason in violations):
        reasons.append(Reason(code="gate_refused", rule="the records of the looks disagree"))
    elif violations and gate.on_refused == "fail":
        reasons.append(Reason(code="gate_refused", rule="gate.on_refused: fail"))
    if gate.fail_on == "significant_regression" and outcome == "regression":
        reasons.append(Reason(code="gate_regression"))
    elif gate.fail_on == "not_significant_improvement" and outcome != "improvement":
        reasons.append(Reason(code="gate_not_improvement"))
    broken, rate, items = len(comparison.broken_ids), gate.max_broken_rate, comparison.items
    limit = None if rate is None else rate * items  # gate.max_broken as an item count
    limit = limit if gate.max_broken is None else float(gate.max_broken)
    if limit is not None and broken > limit:
        reasons.append(_reason("gate_max_broken", broken, limit, rate=rate, items=items))
    low, margin = comparison.difference.confidence_interval.low, gate.margin
    noninferior = None if margin is None else low > -margin
    if margin is not None and not noninferior:
        unit: Unit = "pp" if comparison.metric == "pass_rate" else "score"
        details = {"confidence": comparison.difference.confidence_level}
        reasons.append(
            Reason(code="gate_margin", observed=low, threshold=-margin, unit=unit, details=details)
        )
    return reasons, limit, noninferior


# ---- disclosures and warnings --------------------------------------------------------------


def disclosures(comparison: Comparison) -> Iterator[Reason]:
    """The alpha every look is tested at under ``policy.looks: bonferroni``, how pairing
    handled items on one side only and items a run did not evaluate, and the units of the
    clustered test."""
    paired, alpha = comparison.paired, comparison.alpha
    if alpha.corrected:
        yield _reason("bonferroni", alpha.effective, alpha.level, looks=alpha.looks)
    baseline, candidate = len(paired.dropped_baseline_only), len(paired.dropped_candidate_only)
    if baseline or candidate:
        yield _reason(
            "dropped_missing",
            baseline + candidate,
            baseline_only=baseline,
            candidate_only=candidate,
        )
    if paired.filled_as_failures:
        yield Reason(code="filled_missing", observed=paired.filled_as_failures)
    if (skipped := paired.not_evaluated) is not None:
        yield _reason(
            "not_evaluated",
            skipped.items,
            rule=f"policy.errors: {skipped.rule}",
            baseline_only=skipped.baseline - skipped.both,
            candidate_only=skipped.candidate - skipped.both,
            both=skipped.both,
            compared=len(paired.ids),
        )
    if comparison.table is not None and isinstance(comparison.difference, ClusteredMeanResult):
        clusters = comparison.clusters.clusters if comparison.clusters is not None else None
        yield _reason("clusters_mcnemar", clusters=clusters)


def warnings_of(
    comparison: Comparison, config: Config, state: State, holdout_uses: int | None
) -> Iterator[Reason]:
    """What the report shows as warnings, in order: identical runs, an unreadable state, a
    registered items file that was not read, the holdout's uses (including this run's,
    ``None`` for a regular run) once they pass ``holdout.max_uses``."""
    paired = comparison.paired
    if comparison.identical:  # a file compared with itself?
        same = "yes" if paired.baseline_source == paired.candidate_source else "no"
        yield _reason("identical_runs", comparison.items, same_source=same)
    if state.warning:
        yield _reason("state_ignored", why=state.warning)
    if config.policy.items_sha256 is None and config.policy.items_file is not None:
        yield _reason("items_file_unread", file=config.policy.items_file)
    most = config.holdout.max_uses if config.holdout is not None else None
    if holdout_uses is not None and most is not None and holdout_uses > most:
        yield Reason(code="holdout_overused", observed=holdout_uses, threshold=most)


# ---- the decision, rule by rule ------------------------------------------------------------


def evaluate(
    comparison: Comparison,
    config: Config,
    *,
    state: State | None = None,
    head_sha: str | None = None,
    tree: str | None = None,
    holdout: bool = False,
) -> Decision:
    """Decide the verdict and the gate for one comparison under the plan.

    ``state`` holds the earlier looks at this change, ``head_sha`` the commit judged and
    ``tree`` its tree, the change a re-run keeps (without a commit, looks cannot be told apart
    and only the state's warning is used), ``holdout`` that the comparison was restricted to
    the sealed holdout (:func:`analysed_items`).
    """
    state = state or State()
    if comparison.alpha != plan_alpha(config, holdout=holdout):
        raise ValueError(f"compute the comparison under this plan (holdout={holdout})")
    head = head_sha.lower() if head_sha else None
    tree = tree.lower() if head and tree else None
    planned, ids_hash = plan_sample_size(config), _item_set(comparison.paired)
    if holdout:
        violations = list(holdout_violations(comparison, config))
    else:
        violations = list(size_violations(comparison, config, planned, ids_hash))
    current = comparison.paired.fingerprint or ids_hash
    looks, refused = count_this_look(
        state, config, head=tree or head, current=current, items=comparison.items, holdout=holdout
    )
    violations += [*refused, *sequential_violations(comparison, config)]
    uses = state.holdout_uses + (1 if holdout and not looks.rerun else 0)
    warnings = list(warnings_of(comparison, config, state, uses if holdout else None))
    reasons = list(disclosures(comparison))
    outcome, mde, underpowered = _outcome(comparison, config, violations, reasons)
    gate, limit, noninferior = judge_gate(comparison, config, outcome, violations)
    reasons.extend(gate)
    return Decision(
        outcome=outcome,
        gate="fail" if gate else "pass",
        reasons=reasons,
        violations=violations,
        agreement=_agreement(comparison),
        planned=planned,
        fingerprint=ids_hash,
        head_sha=head,
        tree=tree,
        looks=looks,
        minimum_detectable_effect=mde,
        underpowered=underpowered,
        holdout=holdout,
        holdout_uses=uses,
        noninferior=noninferior,
        broken=len(comparison.broken_ids),
        broken_limit=limit,
        warnings=warnings,
        config=config,
    )


def _item_set(paired: Paired) -> str:
    """The fingerprint of the item set judged: pairing's, unless content hashes made it more."""
    if not paired.fingerprint or paired.content_hashes is not None:
        return fingerprint(paired.ids)
    return paired.fingerprint


def _agreement(comparison: Comparison) -> Agreement | None:
    """Whether the test's p-value and the interval shown say the same about zero."""
    ci = comparison.difference.confidence_interval
    if math.isnan(ci.low) or math.isnan(ci.high):
        return None
    return interval_agreement(
        comparison.pvalue,
        comparison.alpha.effective,
        (ci.low, ci.high),
        confidence_level=comparison.difference.confidence_level,
    )


def _outcome(
    comparison: Comparison, config: Config, violations: list[Reason], reasons: list[Reason]
) -> tuple[Outcome, float | None, bool]:
    """The outcome, with the test's and power's reasons appended to ``reasons``; returns it,
    the minimum detectable effect (``policy.min_effect``) and whether the eval is
    underpowered for it."""
    mde, tripwire = power_check(comparison, config)
    outcome: Outcome
    if violations:
        outcome = "inconclusive"
        reasons.extend(violations)
    else:
        test = test_reason(comparison, config)
        reasons.append(test)
        estimate = comparison.difference.statistic
        if test.code == "significant" and estimate > 0:
            outcome = "improvement"
            if tripwire is not None and mde is not None and estimate < mde:
                outcome = "inconclusive"
                min_effect = config.policy.min_effect
                reasons.append(_reason("underpowered_gain", estimate, mde, min_effect=min_effect))
        elif test.code == "significant" and estimate < 0:
            outcome = "regression"
        else:
            outcome = "no_significant_difference"
            if (powerless := powerless_reason(comparison, config)) is not None:
                reasons.append(powerless)
    if tripwire is not None:
        reasons.append(tripwire)
    return outcome, mde, tripwire is not None


def next_state(state: State, comparison: Comparison, decision: Decision, *, at: str) -> State:
    """The state to carry in the sticky comment after this run (``at``: ISO 8601 time).

    Without a head sha nothing is recorded: looks cannot be told apart without one.
    """
    if decision.head_sha is None:
        return state
    ci = comparison.difference.confidence_interval
    effect = (float(comparison.difference.statistic), float(ci.low), float(ci.high))
    known = all(math.isfinite(value) for value in effect)  # else unknown: JSON has no NaN
    look = Look(
        head_sha=decision.head_sha,
        items=comparison.items,
        fingerprint=comparison.paired.fingerprint or decision.fingerprint,
        pvalue=comparison.pvalue.reportable,
        outcome=decision.outcome,
        at=at,
        holdout=decision.holdout,
        metric=comparison.metric if known else None,
        effect=effect[0] if known else None,
        effect_ci=(effect[1], effect[2]) if known else None,
        tree=decision.tree,
        number=None if decision.holdout else decision.looks.number,
    )
    return with_look(state, look, holdout_use=decision.holdout and not decision.looks.rerun)


def prepare(
    baseline: Results,
    candidate: Results,
    config: Config,
    *,
    missing: Missing | None = None,
    holdout: bool = False,
) -> Paired:
    """The items the plan analyses, paired: ``missing`` overrides ``policy.missing``."""
    paired = pair(baseline, candidate, missing=missing or config.policy.missing)
    paired = apply_errors(paired, config.policy.errors)
    return analysed_items(paired, config, holdout=holdout)


def analysed_items(paired: Paired, config: Config, *, holdout: bool) -> Paired:
    """The items the plan analyses: only the sealed holdout with ``holdout``, else all but it.

    Without a ``holdout:`` section this is ``paired`` itself. Raises ``ConfigError`` when the
    holdout is requested but not configured, ``PairingError`` when none of its ids are present.
    """
    section = config.holdout
    if section is None or section.ids is None:
        if holdout:
            raise ConfigError(
                f"{config.source}: the holdout was requested but the plan has no readable "
                "`holdout.ids_file`"
            )
        return paired
    return restrict_items(paired, section.ids, holdout=holdout, ids_file=section.ids_file)


def decide(
    paired: Paired,
    config: Config,
    *,
    holdout: bool = False,
    state: State | None = None,
    head_sha: str | None = None,
    tree: str | None = None,
) -> tuple[Comparison, Decision]:
    """Every statistic of ``paired``, and the plan's decision given the earlier looks."""
    comparison = compute_comparison(paired, config, holdout=holdout)
    decision = evaluate(
        comparison, config, state=state, head_sha=head_sha, tree=tree, holdout=holdout
    )
    return comparison, decision
