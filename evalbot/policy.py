"""Pure: the plan + the comparison + the earlier looks -> a Decision (outcome, gate, reasons).

Outcomes: ``improvement`` / ``regression`` when the primary test is significant at the plan's
alpha, ``no_significant_difference`` otherwise, ``inconclusive`` when the plan refuses a verdict
(the eval is not the pre-registered size or item set, a look too many, a second look at the same
commit on other items) or when an underpowered eval shows a gain smaller than it can detect.
The gate turns the outcome into pass or fail according to ``gate.fail_on``, ``gate.max_broken``
and ``gate.margin``; a verdict the plan refused fails it too unless ``gate.on_refused: neutral``
(GitHub counts a neutral check as passing, so a refusal must not be a way past a required
check). ``conclusion`` is the check run's (success, failure, neutral).

Each rule is explained for readers in the README (the pre-registered plan).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from evalbot.compare import Comparison
from evalbot.config import Config
from evalbot.results.pairing import fingerprint
from evalbot.state import UNKNOWN_FINGERPRINT, Look, State, with_look

Outcome = Literal["improvement", "regression", "no_significant_difference", "inconclusive"]
Gate = Literal["pass", "fail"]
Conclusion = Literal["success", "failure", "neutral"]

DEFAULT_POWER = 0.8


@dataclass(frozen=True, kw_only=True)
class Decision:
    """The verdict on one comparison and everything a report needs to explain it.

    ``outcome``, ``gate``, ``reasons`` and ``violations`` are the historical core; the other
    fields have defaults so a Decision can still be built from those four alone.
    """

    outcome: Outcome
    gate: Gate
    reasons: list[str]
    violations: list[str]
    conclusion: Conclusion = "success"  # the check run: failure = gate fail, neutral = inconclusive
    test: str = ""  # the test whose p-value decided
    pvalue: float | None = None  # the p-value that decided (sequential when mode: sequential)
    alpha: float = 0.05  # the configured alpha
    effective_alpha: float = 0.05  # the alpha this look was tested at (after a looks correction)
    mode: Literal["fixed", "sequential"] = "fixed"
    items: int = 0
    planned_items: int | None = None
    plan_note: str | None = None  # how the planned size was computed (``plan:``)
    fingerprint: str = ""  # sha256 of the sorted item ids, as in policy.items_sha256
    planned_fingerprint: str | None = None
    head_sha: str | None = None
    look: int = 1  # this look's number at the pull request (a re-run keeps its number)
    max_looks: int | None = None
    rerun: bool = False
    disclosure: str | None = None  # re-runs and earlier looks, said plainly
    min_effect: float | None = None
    minimum_detectable_effect: float | None = None  # at this size and discordance (nan: none)
    underpowered: bool = False
    power_note: str | None = None  # "a 50-item eval is a tripwire, not a finding: ..."
    holdout: bool = False  # the analysis was restricted to the sealed holdout
    holdout_uses: int = 0  # uses of the holdout including this run
    holdout_max_uses: int | None = None
    margin: float | None = None
    noninferior: bool | None = None  # CI lower bound > -margin (None: no margin configured)
    broken: int = 0
    broken_limit: float | None = None  # gate.max_broken resolved to an item count
    warnings: list[str] = field(default_factory=list)

    @property
    def policy_ok(self) -> bool:
        return not self.violations


def plan_sample_size(config: Config) -> tuple[int | None, str | None]:
    """The pre-registered item count and, when computed from ``plan:``, how."""
    if config.policy.sample_size is not None:
        return config.policy.sample_size, None
    if config.plan is None:
        return None, None
    from evalbot.stats import mcnemar_sample_size

    plan = config.plan
    result = mcnemar_sample_size(
        plan.fix_rate,
        plan.break_rate,
        alpha=config.alpha,
        power=plan.power,
        method=config.mcnemar,
        design_effect=plan.design_effect,
    )
    note = (
        f"{result.items} items ({result.discordant_pairs} discordant pairs expected) planned to "
        f"detect {(plan.fix_rate - plan.break_rate) * 100:+.1f} pp (fix rate {plan.fix_rate:g}, "
        f"break rate {plan.break_rate:g}) with power {plan.power:g} at alpha {config.alpha:g} "
        f"(exact power of McNemar's {config.mcnemar} test: {result.exact_power:.3f})"
    )
    return result.items, note


def _distinct_looks(looks: list[Look]) -> list[Look]:
    """The first look of each (head sha, item set): re-runs are not new looks."""
    seen: dict[tuple[str, str], Look] = {}
    for look in looks:
        seen.setdefault((look.head_sha, look.fingerprint), look)
    return list(seen.values())


def _pp(value: float) -> str:
    return f"{value * 100:.1f} pp"


def evaluate(
    comparison: Comparison,
    config: Config,
    *,
    state: State | None = None,
    head_sha: str | None = None,
    holdout: bool = False,
) -> Decision:
    """Decide the verdict and the gate for one comparison under the plan.

    ``state`` holds the earlier looks at this pull request (from the sticky comment),
    ``head_sha`` the commit being judged (without it, looks cannot be told apart and only the
    state's warning is used), ``holdout`` that the comparison was restricted to the sealed
    holdout (see :func:`evalbot.results.restrict.restrict_items`).
    """
    state = state or State()
    policy = config.policy
    reasons: list[str] = []
    violations: list[str] = []
    warnings: list[str] = [state.warning] if state.warning else []
    paired = comparison.paired
    items = comparison.items
    head = head_sha.lower() if head_sha else None

    # -- the pre-registered size and item set (not for the holdout: it has its own ids) --
    planned, plan_note = plan_sample_size(config)
    # pairing already hashed these ids (with content hashes it hashed more: recompute then)
    ids_hash = paired.fingerprint
    if not ids_hash or paired.content_hashes is not None:
        ids_hash = fingerprint(paired.ids)
    planned_hash = policy.items_sha256
    if not holdout:
        if planned is not None:
            if policy.mode == "sequential" and items > planned:
                violations.append(
                    f"the eval has {items} paired items, more than the {planned} the plan "
                    "allows in sequential mode"
                )
            elif policy.mode == "fixed" and items != planned:
                violations.append(
                    f"the eval has {items} paired items but the plan pre-registered "
                    f"{planned}; a verdict on another sample size is refused"
                )
        if planned_hash is not None and ids_hash != planned_hash:
            violations.append(
                f"the eval's item set (sha256 {ids_hash[:12]}) is not the pre-registered one "
                f"({planned_hash[:12]}); a verdict on other items is refused"
            )
        elif planned_hash is None and policy.items_file is not None:
            warnings.append(f"`policy.items_file` ({policy.items_file}) was not read")
    else:
        section = config.holdout
        if section is None or section.ids is None:
            violations.append("the holdout was requested but the plan has none")
        elif set(section.ids) != set(paired.ids):
            missing = len(set(section.ids) - set(paired.ids))
            violations.append(
                f"{missing} of the {len(section.ids)} sealed holdout items are missing from "
                "the results; a verdict on part of the holdout is refused"
            )

    # -- pairing disclosures --
    if paired.dropped_baseline_only or paired.dropped_candidate_only:
        reasons.append(
            f"{len(paired.dropped_baseline_only)} baseline-only and "
            f"{len(paired.dropped_candidate_only)} candidate-only items were dropped "
            "(policy.missing: drop)"
        )
    if paired.filled_as_failures:
        reasons.append(
            f"{paired.filled_as_failures} items present on one side only were counted as "
            "failures of the other (policy.missing: fail)"
        )
    if paired.dropped_errors:
        reasons.append(
            f"{paired.dropped_errors} items with a harness error (timeout, exception) on either "
            "side were left out (policy.errors: drop)"
        )
    errored = [
        f"{count} in the {side}"
        for side, count in (
            ("baseline", paired.errors_baseline),
            ("candidate", paired.errors_candidate),
        )
        if count
    ]
    if errored:
        warnings.append(
            "harness errors (timeouts, exceptions), counted as failures of the side that "
            f"errored: {' and '.join(errored)} (policy.errors: fail; `drop` leaves them out)"
        )

    # -- looks --
    earlier = _distinct_looks([look for look in state.looks if look.holdout == holdout])
    look_number = len(earlier) + 1
    rerun = False
    disclosure: str | None = None
    current = paired.fingerprint or ids_hash
    if head is not None:
        same_commit = [look for look in earlier if look.head_sha == head]
        repeat = [look for look in same_commit if look.fingerprint == current]
        if repeat:
            rerun = True
            look_number = earlier.index(repeat[0]) + 1
            said = (
                f"that run said {repeat[0].outcome.replace('_', ' ')} (p = {repeat[0].pvalue:.4g})"
                if repeat[0].recorded
                else "that run's verdict is not on record yet"
            )
            disclosure = (
                f"re-run of look {look_number} (commit {head[:7]}, the same {items} items): "
                f"not a new look; {said}"
            )
        elif same_commit:
            other = same_commit[0]
            which = (
                "items not on record"
                if other.fingerprint == UNKNOWN_FINGERPRINT
                else f"another item set ({other.items} items, {other.fingerprint[:12]})"
            )
            violations.append(
                f"commit {head[:7]} was already judged on {which}; "
                "choosing among item sets after seeing a verdict is refused"
            )
    if not rerun and earlier:
        shas = ", ".join(look.head_sha[:7] for look in earlier[-5:])
        disclosure = f"look {look_number} at this pull request; earlier looks at {shas}" + (
            " (and more)" if len(earlier) > 5 else ""
        )
    effective_alpha = config.alpha
    if not holdout and policy.max_looks is not None:
        if look_number > policy.max_looks:
            violations.append(
                f"this is look {look_number} at this pull request, more than "
                f"policy.max_looks = {policy.max_looks}; a verdict is refused"
            )
        if policy.looks == "bonferroni":
            effective_alpha = config.alpha / policy.max_looks
            reasons.append(
                f"every look is tested at alpha / max_looks = {config.alpha:g} / "
                f"{policy.max_looks} = {effective_alpha:.4g} (policy.looks: bonferroni)"
            )

    # -- holdout uses --
    holdout_uses = state.holdout_uses + (1 if holdout and not rerun else 0)
    max_uses = config.holdout.max_uses if config.holdout is not None else None
    if holdout and max_uses is not None and holdout_uses > max_uses:
        warnings.append(
            f"the sealed holdout has now been used {holdout_uses} times, more than "
            f"holdout.max_uses = {max_uses}: it no longer gives an unbiased check; refresh it"
        )

    # -- the test --
    table = comparison.table
    test = comparison.test
    pvalue = comparison.pvalue
    if policy.mode == "sequential":
        if table is None:
            violations.append(
                "policy.mode: sequential tests the discordant pairs of a pass/fail metric, "
                "but this metric is a score"
            )
        else:
            from evalbot.stats.sequential import mixture_sprt

            pvalue = mixture_sprt(table.fixed, table.broken).pvalue
            test = "mixture SPRT (always valid)"
    estimate = comparison.difference.statistic
    significant = pvalue < effective_alpha

    # -- power --
    min_effect = policy.min_effect
    mde: float | None = None
    underpowered = False
    power_note: str | None = None
    if min_effect is not None and table is not None and items > 0:
        rate = table.discordant / items
        if rate == 0.0 and config.plan is not None:
            rate = min(1.0, config.plan.fix_rate + config.plan.break_rate)
        if rate > 0.0:
            from evalbot.stats import mcnemar_minimum_detectable_effect

            power = config.plan.power if config.plan is not None else DEFAULT_POWER
            found = mcnemar_minimum_detectable_effect(
                items, rate, alpha=effective_alpha, power=power, method=config.mcnemar
            )
            mde = found.effect if found.detectable else math.inf
            if mde > min_effect:
                underpowered = True
                can = f"{_pp(mde)} or more" if math.isfinite(mde) else "no change at all"
                power_note = (
                    f"a {items}-item eval is a tripwire, not a finding: with "
                    f"{rate * 100:.1f} % of items changing it can detect {can} "
                    f"(power {power:g}), but policy.min_effect is {_pp(min_effect)}"
                )

    outcome: Outcome
    comparison_text = "<" if significant else ">="
    test_reason = f"{test} p = {pvalue:.4g} {comparison_text} alpha = {effective_alpha:.4g}"
    if violations:
        outcome = "inconclusive"
        reasons.extend(violations)
    elif significant and estimate > 0:
        reasons.append(test_reason)
        if underpowered and mde is not None and estimate < mde:
            outcome = "inconclusive"
            reasons.append(
                f"the gain of {_pp(estimate)} is significant but smaller than the "
                f"{_pp(mde) if math.isfinite(mde) else 'unbounded'} this eval can reliably "
                "detect; an underpowered eval cannot certify an improvement"
            )
        else:
            outcome = "improvement"
    elif significant and estimate < 0:
        outcome = "regression"
        reasons.append(test_reason)
    else:
        outcome = "no_significant_difference"
        reasons.append(test_reason)
    if power_note:
        reasons.append(power_note)

    # -- the gate --
    gate: Gate = "pass"
    if violations and config.gate.on_refused == "fail":
        gate = "fail"
        reasons.append("gate: a verdict the plan refused fails (gate.on_refused)")
    fail_on = config.gate.fail_on
    if fail_on == "significant_regression" and outcome == "regression":
        gate = "fail"
        reasons.append("gate: a significant regression fails (gate.fail_on)")
    elif fail_on == "not_significant_improvement" and outcome != "improvement":
        gate = "fail"
        reasons.append("gate: anything but a significant improvement fails (gate.fail_on)")
    broken = len(comparison.broken_ids)
    limit: float | None = None
    if config.gate.max_broken is not None:
        limit = float(config.gate.max_broken)
        shown = str(config.gate.max_broken)
    elif config.gate.max_broken_rate is not None:
        limit = config.gate.max_broken_rate * items
        shown = f"{config.gate.max_broken_rate * 100:g}% of {items} = {limit:g}"
    if limit is not None and broken > limit:
        gate = "fail"
        reasons.append(f"gate: {broken} items broke, more than gate.max_broken = {shown}")
    margin = config.gate.margin
    noninferior: bool | None = None
    if margin is not None:
        low = comparison.difference.confidence_interval.low
        noninferior = low > -margin
        if not noninferior:
            gate = "fail"
            reasons.append(
                f"gate: the confidence interval reaches {low * 100:+.1f} pp, not above "
                f"-gate.margin = {-margin * 100:+.1f} pp: non-inferiority is not shown"
            )

    # neutral only for an inconclusive result that is nobody's violation (an underpowered
    # gain), or for a refusal under ``gate.on_refused: neutral``
    conclusion: Conclusion = (
        "failure" if gate == "fail" else "neutral" if outcome == "inconclusive" else "success"
    )
    return Decision(
        outcome=outcome,
        gate=gate,
        reasons=reasons,
        violations=violations,
        conclusion=conclusion,
        test=test,
        pvalue=pvalue,
        alpha=config.alpha,
        effective_alpha=effective_alpha,
        mode=policy.mode,
        items=items,
        planned_items=planned,
        plan_note=plan_note,
        fingerprint=ids_hash,
        planned_fingerprint=planned_hash,
        head_sha=head,
        look=look_number,
        max_looks=policy.max_looks,
        rerun=rerun,
        disclosure=disclosure,
        min_effect=min_effect,
        minimum_detectable_effect=mde,
        underpowered=underpowered,
        power_note=power_note,
        holdout=holdout,
        holdout_uses=holdout_uses,
        holdout_max_uses=max_uses,
        margin=margin,
        noninferior=noninferior,
        broken=broken,
        broken_limit=limit,
        warnings=warnings,
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
        pvalue=1.0 if decision.pvalue is None else float(decision.pvalue),
        outcome=decision.outcome,
        at=at,
        holdout=decision.holdout,
        metric=comparison.metric if known else None,
        effect=effect[0] if known else None,
        effect_ci=(effect[1], effect[2]) if known else None,
    )
    return with_look(state, look, holdout_use=decision.holdout and not decision.rerun)


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def decision_json(decision: Decision) -> dict[str, Any]:
    """Everything in the Decision as JSON-ready values (non-finite numbers become null)."""
    d = decision
    return {
        "outcome": d.outcome,
        "gate": d.gate,
        "conclusion": d.conclusion,
        "reasons": list(d.reasons),
        "violations": list(d.violations),
        "policy_ok": d.policy_ok,
        "warnings": list(d.warnings),
        "test": d.test,
        "pvalue": _finite(d.pvalue),
        "alpha": d.alpha,
        "effective_alpha": d.effective_alpha,
        "mode": d.mode,
        "plan": {
            "items": d.planned_items,
            "observed_items": d.items,
            "note": d.plan_note,
            "items_sha256": d.planned_fingerprint,
            "observed_items_sha256": d.fingerprint,
        },
        "looks": {
            "head_sha": d.head_sha,
            "look": d.look,
            "max_looks": d.max_looks,
            "rerun": d.rerun,
            "disclosure": d.disclosure,
        },
        "power": {
            "min_effect": d.min_effect,
            "minimum_detectable_effect": _finite(d.minimum_detectable_effect),
            "underpowered": d.underpowered,
            "note": d.power_note,
        },
        "holdout": {"used": d.holdout, "uses": d.holdout_uses, "max_uses": d.holdout_max_uses},
        "gate_details": {
            "margin": d.margin,
            "noninferior": d.noninferior,
            "broken": d.broken,
            "broken_limit": d.broken_limit,
        },
    }
