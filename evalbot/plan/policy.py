"""Pure: the plan + the comparison + the earlier looks -> a Decision (outcome, gate, reasons).

Outcomes: ``improvement`` / ``regression`` when the primary test is significant at the alpha
this look is judged at (``p <= alpha``), ``no_significant_difference`` otherwise,
``inconclusive`` when the plan refuses a verdict (the eval is not the pre-registered size or
item set, a look too many, a second look at the same commit on other items) or when an
underpowered eval shows a gain smaller than it can detect. The gate turns the outcome into
pass or fail according to ``gate.fail_on``, ``gate.max_broken`` and ``gate.margin``; a verdict
the plan refused fails it too unless ``gate.on_refused: neutral`` (GitHub counts a neutral
check as passing, so a refusal must not be a way past a required check). ``conclusion`` is the
check run's (success, failure, neutral).

:func:`evaluate` runs the rules of :mod:`evalbot.plan.rules` in order; each returns typed reasons
(a code, the observed value and the threshold with their unit, the config key and flag), which
the report words. Each rule is explained for readers in the README (the pre-registered plan).

The sequence the CLI and the action share: :func:`prepare` pairs two runs into the items the
plan analyses, :func:`decide` computes every statistic and decides (the action declares the
paired items in its check run between the two).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evalbot.compare import compute_comparison
from evalbot.compare.records import Comparison, plan_alpha
from evalbot.errors import ConfigError
from evalbot.formats.model import Paired, Results
from evalbot.pairing.fingerprint import fingerprint
from evalbot.pairing.pair import pair
from evalbot.pairing.subset import apply_errors, restrict_items
from evalbot.plan.config import Config
from evalbot.plan.ledger import Look, State, with_look
from evalbot.plan.rules.decision import Conclusion, Decision, Gate, LookCount, Outcome, PlannedSize
from evalbot.plan.rules.gate import judge_gate
from evalbot.plan.rules.looks import count_looks, holdout_uses
from evalbot.plan.rules.notes import disclosures, sequential_violations, warnings_of
from evalbot.plan.rules.plan import holdout_violations, plan_sample_size, size_violations
from evalbot.plan.rules.power import identical_reason, power_check, powerless_reason, test_reason
from evalbot.plan.rules.reasons import Reason
from evalbot.stats.agreement import Agreement, interval_agreement
from evalbot.vocabulary import Missing

__all__ = [
    "Conclusion",
    "Decision",
    "Gate",
    "Outcome",
    "PlannedSize",
    "analysed_items",
    "decide",
    "evaluate",
    "next_state",
    "plan_sample_size",
    "prepare",
]


def _agreement(comparison: Comparison) -> Agreement | None:
    """Whether the test's p-value and the interval shown say the same about zero."""
    difference = comparison.difference
    ci = difference.confidence_interval
    if math.isnan(ci.low) or math.isnan(ci.high):
        return None
    return interval_agreement(
        comparison.pvalue,
        comparison.alpha.effective,
        (ci.low, ci.high),
        confidence_level=difference.confidence_level,
    )


def _outcome(
    comparison: Comparison, config: Config, violations: list[Reason], reasons: list[Reason]
) -> tuple[Outcome, float | None, bool]:
    """The outcome, with the test's and power's reasons appended to ``reasons``; returns it,
    the minimum detectable effect (``policy.min_effect``) and whether the eval is
    underpowered for it."""
    power = power_check(comparison, config)
    mde = power.minimum_detectable_effect
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
            if power.underpowered and mde is not None and estimate < mde:
                outcome = "inconclusive"
                reasons.append(
                    Reason(
                        code="underpowered_gain",
                        observed=estimate,
                        threshold=mde,
                        unit="pp",
                        rule="policy.min_effect",
                        details={"min_effect": config.policy.min_effect},
                    )
                )
        elif test.code == "significant" and estimate < 0:
            outcome = "regression"
        else:
            outcome = "no_significant_difference"
        powerless = powerless_reason(comparison, config)
        if powerless is not None and outcome == "no_significant_difference":
            reasons.append(powerless)
    if power.tripwire is not None:
        reasons.append(power.tripwire)
    return outcome, mde, power.underpowered


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

    ``state`` holds the earlier looks at this pull request (from the sticky comment),
    ``head_sha`` the commit being judged and ``tree`` its tree, the change a re-run keeps
    (without a commit, looks cannot be told apart and only the
    state's warning is used), ``holdout`` that the comparison was restricted to the sealed
    holdout (see :func:`evalbot.pairing.subset.restrict_items`).
    """
    state = state or State()
    if comparison.alpha != plan_alpha(config, holdout=holdout):
        raise ValueError(
            "the comparison was computed at another alpha than this plan judges it at; "
            f"compute it with compute_comparison(paired, config, holdout={holdout})"
        )
    policy = config.policy
    head = head_sha.lower() if head_sha else None
    change = (tree or head).lower() if head else None
    found = _apply_plan(comparison, config, state, head=change, holdout=holdout)
    violations, looks, warnings = found.violations, found.looks, found.warnings
    reasons = disclosures(comparison)
    outcome, mde, underpowered = _outcome(comparison, config, violations, reasons)
    tampered = any(reason.code == "records_disagree" for reason in violations)
    gate = judge_gate(comparison, config, outcome, refused=bool(violations), tampered=tampered)
    reasons.extend(gate.reasons)
    # neutral only for an inconclusive result that is nobody's violation (an underpowered
    # gain), or for a refusal under ``gate.on_refused: neutral``
    conclusion: Conclusion = (
        "failure" if gate.gate == "fail" else "neutral" if outcome == "inconclusive" else "success"
    )
    return Decision(
        outcome=outcome,
        gate=gate.gate,
        reasons=reasons,
        violations=violations,
        conclusion=conclusion,
        alpha=comparison.alpha,
        test=comparison.test,
        pvalue=comparison.pvalue,
        agreement=_agreement(comparison),
        mode=policy.mode,
        items=comparison.items,
        planned=found.planned,
        fingerprint=found.ids_hash,
        planned_fingerprint=policy.items_sha256,
        head_sha=head,
        tree=tree.lower() if head and tree else None,
        looks=looks,
        max_looks=policy.max_looks,
        min_effect=policy.min_effect,
        minimum_detectable_effect=mde,
        underpowered=underpowered,
        powerless=any(r.code == "powerless" for r in reasons),
        identical=found.identical,
        holdout=holdout,
        holdout_uses=found.uses,
        holdout_max_uses=config.holdout.max_uses if config.holdout is not None else None,
        margin=config.gate.margin,
        noninferior=gate.noninferior,
        broken=gate.broken,
        broken_limit=gate.broken_limit,
        warnings=warnings,
    )


@dataclass(frozen=True, kw_only=True)
class _Findings:
    """What the plan's rules found before the outcome: the reasons a verdict is refused, the
    looks counted, the warnings, and the item set as judged."""

    planned: PlannedSize | None
    ids_hash: str
    violations: list[Reason]
    looks: LookCount
    warnings: list[Reason]
    identical: bool
    uses: int


def _apply_plan(
    comparison: Comparison, config: Config, state: State, *, head: str | None, holdout: bool
) -> _Findings:
    """The plan's rules on size, items and looks (the refusals), and its warnings."""
    paired = comparison.paired
    planned = plan_sample_size(config)
    # pairing already hashed these ids (with content hashes it hashed more: recompute then)
    ids_hash = paired.fingerprint
    if not ids_hash or paired.content_hashes is not None:
        ids_hash = fingerprint(paired.ids)
    violations = (
        holdout_violations(comparison, config)
        if holdout
        else size_violations(comparison, config, planned, ids_hash)
    )
    looks = count_looks(
        state,
        config,
        head=head,
        current=paired.fingerprint or ids_hash,
        items=comparison.items,
        holdout=holdout,
    )
    violations.extend(looks.violations)
    violations.extend(sequential_violations(comparison, config))
    warnings = warnings_of(comparison, config, state)
    identical = identical_reason(comparison)
    if identical is not None:
        warnings.insert(0, identical)
    uses, overused = holdout_uses(state, config, holdout=holdout, rerun=looks.rerun)
    if overused is not None:
        warnings.append(overused)
    return _Findings(
        planned=planned,
        ids_hash=ids_hash,
        violations=violations,
        looks=looks,
        warnings=warnings,
        identical=identical is not None,
        uses=uses,
    )


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
        items=decision.items,
        fingerprint=comparison.paired.fingerprint or decision.fingerprint,
        pvalue=1.0 if decision.pvalue is None else decision.pvalue.reportable,
        outcome=decision.outcome,
        at=at,
        holdout=decision.holdout,
        metric=comparison.metric if known else None,
        effect=effect[0] if known else None,
        effect_ci=(effect[1], effect[2]) if known else None,
        tree=decision.tree,
        number=None if decision.holdout else decision.look,
    )
    return with_look(state, look, holdout_use=decision.holdout and not decision.rerun)


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
