"""Pure: every sentence of the report, once: the decision's reasons (the rules return them as
data), the verdict line and the sentence under it, and the notes beside the numbers.

A sentence holds only numbers and labels evalbot formats itself (config keys, test names,
hexadecimal fingerprints, short commit shas), never text from a result file; a difference is
in the metric's unit and a p-value never reads 0. See docs/comment.md."""

from __future__ import annotations

import math
import string
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from evalbot.compare.records import BothRuns, Comparison, CostSide, F1Side, RepeatsSide
from evalbot.plan.policy import Decision, PlannedSize, Reason
from evalbot.report import text as md
from evalbot.report.numbers import (
    PERCENT,
    SCORES,
    Scale,
    alpha_text,
    count,
    format_effect,
    format_pvalue,
    maybe,
    number_text,
    p_clause,
    plural,
    share_text,
    word_pvalue,
)
from evalbot.report.text import EMPTY, Markdown, short_id
from evalbot.stats.bootstrap import BootstrapResult
from evalbot.stats.paired_mean import EffectSizeResult, PairedMeanResult

# ---- the reasons ----------------------------------------------------------------------------


def _alpha_clause(r: Reason) -> str:
    looks, level = r.details.get("looks"), r.details.get("alpha")
    shown = f"alpha = {alpha_text(r.threshold)}"
    if looks is None or level is None:
        return shown
    return f"{shown} ({alpha_text(level)} / {looks} looks, policy.looks: bonferroni)"


def _judged_on(r: Reason) -> str:
    """The item set the commit was judged on before (``item_shopping``)."""
    if r.threshold is None:
        return "items not on record"
    earlier = count(r.details.get("earlier_items"), "items")
    return f"another item set ({earlier}, {str(r.threshold)[:12]})"


def _broken_limit(r: Reason) -> str:
    """``gate.max_broken`` in items, and the share of the items it is when given as one."""
    rate, limit = r.details.get("rate"), number_text(r.threshold)
    if rate is None:
        return limit
    return f"{float(rate) * 100:g}% of {number_text(r.details.get('items'))} = {limit}"


def not_evaluated_words(r: Reason) -> str:
    """The ``not_evaluated`` disclosure without its leading words (the comment's line)."""
    d = r.details
    sides = [
        f"{number_text(n)} by the {side} only"
        for side in ("baseline", "candidate")
        if (n := d.get(f"{side}_only"))
    ]
    if d.get("both"):
        sides.append(f"{number_text(d.get('both'))} by neither")
    what = (
        f"{count(r.observed, 'items')} (never run, skipped, cancelled or a harness error), "
        + " and ".join(sides)
    )
    if r.rule == "policy.errors: fail":
        return what + f"; counted as failures of the run that did not evaluate them ({r.rule})"
    return (
        f"{what}; left out, so the comparison is over the {count(d.get('compared'), 'items')} "
        f"both runs evaluated ({r.rule}; {r.flag} fail counts them as failures, the "
        "leaderboard convention for full runs)"
    )


#: How a value of a reason reads in :data:`_WORDS`' sentences (``{observed:n}``); none: ``str``;
#: a spec not named here is the noun of a count (``{have:{counted}}``: "3 discordant pairs").
_SPECS: dict[str, Callable[[Any], str]] = {
    "": str,
    "n": number_text,
    "alpha": alpha_text,
    "alpha_clause": _alpha_clause,
    "judged_on": _judged_on,
    "broken_limit": _broken_limit,
    "p": lambda p: p_clause(word_pvalue(p)),
    "pvalue": word_pvalue,
    "are": lambda n: "is" if float(n or 0) == 1 else "are",
    "sha": lambda value: str(value)[:12],
    "text": lambda value: "" if value is None else str(value),
    "pp": PERCENT.amount,
    "+pp": lambda value: PERCENT.amount(value, "+"),
    "+score": lambda value: SCORES.amount(value, "+"),
    "confidence": lambda level: f"{float(level or 0.95) * 100:g} %",
    "not_evaluated": not_evaluated_words,
    "mde": lambda value: (
        "unbounded change" if float(value or 0.0) == math.inf else PERCENT.amount(value)
    ),
    "plan": lambda rule: rule if rule == "policy.sample_size" else "computed from plan:",
    "same": lambda same: ", the same file" if same == "yes" else "",
    "share": share_text,
    "g": lambda value: f"{float(value or 0.0):g}",
    "detects": lambda mde: (
        "no change at all" if float(mde or 0.0) == math.inf else f"{PERCENT.amount(mde)} or more"
    ),
    "needed": lambda n: "" if n is None else f"; about {number_text(n)} items would detect it",
}


class _Fill(string.Formatter):
    def format_field(self, value: Any, format_spec: str) -> str:
        spec = _SPECS.get(format_spec)
        return count(value, format_spec) if spec is None else spec(value)


#: Each reason code's sentence: a format string of its ``observed``, ``threshold``, ``unit``,
#: ``rule``, ``flag`` and details (a missing one is ``None``), and of the ``reason`` itself.
_WORDS: dict[str, str] = {
    "significant": "{test:text}: {reason.pvalue:p} is at or below {reason:alpha_clause}",
    "not_significant": "{test:text}: {reason.pvalue:p} is above {reason:alpha_clause}",
    "unresolved": "{test:text}: {reason.pvalue:p}, but {reason:alpha_clause} is smaller than the "
    "{resamples:n} resamples can resolve: raise bootstrap.resamples (--resamples)",
    "underpowered_gain": "the gain of {observed:+pp} is significant but smaller than the "
    "{threshold:mde} this eval can reliably detect (policy.min_effect {min_effect:pp}): an "
    "underpowered eval cannot certify an improvement; run more items",
    "tripwire": "a {items:n}-item eval is a tripwire, not a finding: with {discordant_rate:share} "
    "of items changing it can detect {observed:detects} (power {power:g}), but policy.min_effect "
    "is {threshold:pp}{items_needed:needed}",
    "powerless": "powerless: with {have:{counted}} the smallest p-value {test:text} can give is "
    "{reason.pvalue:pvalue}, above {reason:alpha_clause}, so no outcome could have been "
    "significant; at least {needed:{counted}} {needed:are} needed",
    "sample_size": "the plan pre-registered {threshold:items} ({rule:plan}), this eval has "
    "{observed:n}: run the registered {threshold:items} (a verdict on another sample size is "
    "refused)",
    "sequential_cap": "the eval has {observed:n} paired items, more than the {threshold:n} the "
    "plan allows in sequential mode ({rule}): judge at most {threshold:items}",
    "item_set": "the eval's item set (sha256 {observed:sha}) is not the pre-registered one "
    "({threshold:sha}, {rule}): run exactly the registered items (a verdict on other items is "
    "refused)",
    "fixed_items_not_evaluated": "the plan fixes the item set ({rule}), but {observed:n} items "
    "were not evaluated (the baseline did not evaluate {baseline:n}, the candidate "
    "{candidate:n}): evaluate every item, or count those as failures with policy.errors: fail "
    "({flag} fail)",
    "holdout_unconfigured": "the holdout was requested (--holdout) but the plan has no readable "
    "holdout.ids_file: add one to the base branch's plan",
    "holdout_missing": "{observed:n} of the {threshold:n} sealed holdout items are missing from "
    "the results ({rule}, {flag}): run every holdout item (a verdict on part of the holdout is "
    "refused)",
    "item_shopping": "commit {commit} was already judged on {reason:judged_on}; choosing among "
    "item sets after seeing a verdict is refused: judge a new commit, or this one on the items "
    "it was first judged on",
    "too_many_looks": "this is look {observed:n} at this pull request, more than "
    "policy.max_looks = {threshold:n}; a verdict is refused: re-runs of a judged commit are "
    "free, a new verdict needs a plan with more looks (policy.looks: bonferroni, or policy.mode: "
    "sequential) on the base branch",
    "records_disagree": "the records of this change's earlier looks disagree or are gone: "
    "{findings}; a verdict is refused and the check fails whatever the plan says (records that "
    "change or disappear are taken for tampering: a maintainer decides)",
    "sequential_score": "policy.mode: sequential tests the discordant pairs of a pass/fail "
    "metric, but this metric is a score: use policy.mode: fixed",
    "gate_refused": "gate: a verdict the plan refused fails ({rule})",
    "gate_regression": "gate: a significant regression fails ({rule})",
    "gate_not_improvement": "gate: anything but a significant improvement fails ({rule})",
    "gate_max_broken": "gate: {observed:items} broke, more than gate.max_broken = "
    "{reason:broken_limit}",
    "gate_margin": "gate: the {confidence:confidence} interval reaches {observed:+{unit}}, not "
    "above -gate.margin = {threshold:+{unit}}: non-inferiority is not shown",
    "bonferroni": "every look is tested at alpha / max_looks = {threshold:alpha} / {looks} = "
    "{observed:alpha} ({rule})",
    "dropped_missing": "{baseline_only:n} baseline-only and {candidate_only:n} candidate-only "
    "items were dropped ({rule}, {flag})",
    "filled_missing": "{observed:n} items present on one side only were counted as failures of "
    "the other ({rule}, {flag})",
    "not_evaluated": "not evaluated: {reason:not_evaluated}",
    "identical_runs": "the two runs are identical item for item ({observed:items}"
    "{same_source:same}): a file compared with itself, or a candidate that changed nothing the "
    "eval measures; p = 1 says nothing about the change",
    "state_ignored": "{why:text}",
    "items_file_unread": "`policy.items_file` ({file}) was not read",
    "holdout_overused": "the sealed holdout has now been used {observed:n} times, more than "
    "holdout.max_uses = {threshold:n}: it no longer gives an unbiased check; refresh it",
    "clusters_mcnemar": "items share clusters ({clusters:n} clusters): the test and its interval "
    "take each cluster as one unit (the sign-flip test of the clusters' totals), since clustered "
    "items move together; McNemar's test, which counts items as independent, does not decide",
    "clusters_sequential": "sequential mode cannot account for clusters ({clusters:n} clusters): "
    "its test counts items as independent, and a cluster's items arrive over several looks; use "
    "policy.mode: fixed, which tests whole clusters",
}


def word_reason(reason: Reason) -> str:
    """One reason as a sentence (no final full stop)."""
    fields: dict[str, object] = {"observed": reason.observed, "threshold": reason.threshold}
    fields |= {"unit": reason.unit, "rule": reason.rule, "flag": reason.flag, "reason": reason}
    values = defaultdict(lambda: None, reason.details, **fields)
    return _Fill().vformat(_WORDS[reason.code], (), values)


def word_reasons(reasons: list[Reason]) -> list[str]:
    return [word_reason(reason) for reason in reasons]


def word_plan(planned: PlannedSize | None) -> str | None:
    """How the planned size was computed (``plan:``); ``None`` for a size given as is."""
    if planned is None or planned.result is None:
        return None
    r = planned.result
    effect = (r.fix_rate - r.break_rate) * 100
    clustered = f", times the design effect {r.design_effect:g}" if r.design_effect != 1.0 else ""
    return (
        f"{planned.items} {plural(planned.items, 'items')} ({r.discordant_pairs} "
        f"discordant pairs expected) planned to detect {effect:+.1f} pp (fix rate "
        f"{r.fix_rate:g}, break rate {r.break_rate:g}) with power "
        f"{r.power:g} at alpha {r.alpha:.4g} (exact power of McNemar's "
        f"{r.method} test: {r.exact_power:.3f}{clustered})"
    )


def word_disclosure(decision: Decision, items: int) -> str | None:
    """Re-runs and earlier looks at ``items`` items, said plainly."""
    looks = decision.looks
    if looks.rerun_of is not None:
        earlier = looks.rerun_of
        p = f"p = {earlier.pvalue:.4g}" if earlier.pvalue > 0 else "p below the float range"
        said = (
            f"that run said {earlier.outcome.replace('_', ' ')} ({p})"
            if earlier.recorded
            else "that run's verdict is not on record yet"
        )
        return (
            f"re-run of look {looks.number} (commit {(decision.head_sha or '')[:7]}, the same "
            f"{items} {plural(items, 'items')}): not a new look; {said}"
        )
    if looks.earlier:
        shas = ", ".join(look.head_sha[:7] for look in looks.earlier[-5:])
        more = " (and more)" if len(looks.earlier) > 5 else ""
        return f"look {looks.number} at this pull request; earlier looks at {shas}{more}"
    return None


# ---- the verdict line -------------------------------------------------------------------------


def verdict_words(c: Comparison, decision: Decision, scale: Scale) -> dict[str, Any]:
    """The View's verdict fields: the effect, the deciding test and its p-value, the
    confidence and alpha, the headline, and the sentence under it (which never contradicts
    the numbers: the test judged ``p <= alpha``, the interval's agreement with it)."""
    ci = c.difference.confidence_interval
    effect = format_effect(c.difference.statistic, ci.low, ci.high, percent=scale.percent)
    test, pvalue, alpha = Markdown(c.test), format_pvalue(c.pvalue), c.alpha  # evalbot's own
    words = {
        "effect": effect,
        "pvalue": pvalue,
        "test": test,
        "confidence": Markdown(f"{c.difference.confidence_level * 100:g} %"),
        "alpha": Markdown(
            f"{alpha.effective:.4g} ({alpha.level:g} / {alpha.looks} looks)"
            if alpha.corrected
            else f"{alpha.effective:g}"
        ),
    }
    if decision.outcome == "inconclusive":
        # a refusal's headline is a reason, which may quote input: a plain str
        return words | {
            "headline": _refused(decision),
            "explanation": Markdown(
                f"No verdict is given. For information only: the difference is {effect} "
                f"({test}, {p_clause(pvalue)})."
            ),
        }
    flags = {"no outcome could be significant": decision.powerless, "identical runs": c.identical}
    return words | {
        "headline": Markdown(
            f"{effect} · {test} {p_clause(pvalue)}"
            + "".join(f" · {flag}" for flag, present in flags.items() if present)
        ),
        "explanation": Markdown(_explanation(c, decision, scale, words)),
    }


def _explanation(c: Comparison, decision: Decision, scale: Scale, words: dict[str, Any]) -> str:
    p, alpha, confidence = p_clause(words["pvalue"]), words["alpha"], words["confidence"]
    moved = _what_moved(c, scale.difference(c.difference.statistic))
    if c.identical:
        return (
            f"{moved}: the two runs are identical item for item, so there is no change to "
            "test (a file compared with itself?)."
        )
    if c.alpha.judge(c.pvalue) == "unresolved":
        return (
            f"{moved}; {p} cannot be told apart from alpha = {alpha} with "
            f"{c.resamples:,} resamples: raise bootstrap.resamples (--resamples)."
        )
    about = _about_interval(c, decision, confidence, scale)
    if decision.outcome != "no_significant_difference":
        return f"{moved}; {p} is at or below alpha = {alpha}{about}."
    ci = c.difference.confidence_interval
    rules_out = (
        f" Effects outside {scale.signed_interval(ci)} are ruled out at {confidence}."
        if c.finite
        else " No effect is ruled out: the interval is unbounded."
    )
    powerless = next((r for r in decision.reasons if r.code == "powerless"), None)
    could_not = (
        ""
        if powerless is None
        else " This eval could not have found a difference: "
        f"{word_reason(powerless).removeprefix('powerless: ')}."
    )
    return (
        f"{moved}; that is within noise: {p} is above alpha = {alpha}{about}.{rules_out}{could_not}"
    )


def _about_interval(c: Comparison, decision: Decision, confidence: str, scale: Scale) -> str:
    """What the interval says about zero, in agreement with the test (or why not)."""
    ci = c.difference.confidence_interval
    where = "includes" if ci.low <= 0.0 <= ci.high else "excludes"
    agreement = decision.agreement
    if agreement is None:
        return ""
    if not agreement.levels_match:
        level = f"{(1.0 - c.alpha.effective) * 100:.4g} %"
        return f"; the {confidence} interval {where} zero (it is not at the test's level, {level})"
    differ = f"{c.method} and {c.test} differ at this boundary"
    if agreement.case == "test_only":
        return (
            f", but the {confidence} interval {scale.signed_interval(ci)} still touches "
            f"zero: {differ} (rare), and the verdict follows the test"
        )
    if agreement.case == "interval_only":
        return (
            f", although the {confidence} interval {scale.signed_interval(ci)} excludes "
            f"zero: {differ}, and the verdict follows the test"
        )
    return f", and the {confidence} interval {where} zero"


def _what_moved(c: Comparison, change: str) -> str:
    """How many more or fewer items pass (pass/fail), or how the metric changed (scores)."""
    if c.table is None:
        return f"The candidate's {c.metric.replace('_', ' ')} changed by {change}"
    t = c.table
    return (
        f"The candidate passes {abs(t.fixed - t.broken)} "
        f"{'more' if t.fixed >= t.broken else 'fewer'} of {t.items} {plural(t.items, 'items')} "
        f"({t.fixed} fixed, {t.broken} broken)"
    )


def _refused(decision: Decision) -> str:
    """Why a verdict was refused: the first refusal, or the underpowered gain."""
    gain = [r for r in decision.reasons if r.code == "underpowered_gain"]
    first = decision.violations[:1] or gain[:1]
    return word_reason(first[0]) if first else "The analysis plan refused a verdict."


# ---- the notes beside the numbers ------------------------------------------------------------


def unpaired_note(c: Comparison) -> Markdown:
    """The unpaired test's p-value contrasted with the paired one."""
    if c.unpaired is None:
        return EMPTY
    return Markdown(
        f"Read as two unrelated samples (two-proportion z-test) the same rates give "
        f"{p_clause(format_pvalue(c.unpaired.pvalue))}; pairing by item gives "
        f"{p_clause(format_pvalue(c.pvalue))}."
    )


def power_note(c: Comparison, scale: Scale) -> Markdown | None:
    """What this eval can detect and, when the result is not significant, the items needed to
    detect the observed change."""
    pw = c.power
    if pw is None:
        return None
    items = f"{pw.items} {plural(pw.items, 'items')}"
    if pw.design is not None and pw.design.design_effect > 1.0:
        items += (
            f" (design effect {pw.design.design_effect:.3g}, {pw.design.method}: as informative "
            f"as {pw.design.effective_items:,.0f} independent items)"
        )
    with_power = f"{pw.power * 100:g} % power"
    changing = f"With {items} and {share_text(pw.discordant_rate)} of them changing outcome"
    if pw.minimum_detectable_effect is not None:
        line = (
            f"{changing}, this eval detects a net change of "
            f"{PERCENT.amount(pw.minimum_detectable_effect)} or more with {with_power} at "
            f"alpha = {pw.alpha:.4g}."
        )
    elif pw.discordant_rate == 0:
        line = "No item changed outcome, so the eval's sensitivity cannot be estimated."
    else:
        line = f"{changing}, no net change is detectable with {with_power}."
    if pw.items_needed is not None:
        change = scale.difference(c.difference.statistic)
        needed = f"{pw.items_needed:,} items would be needed"
        line += f" To detect the observed change ({change}) with {with_power}, about {needed}."
    return Markdown(line)


def difference_method(c: Comparison) -> Markdown:
    """How the difference's interval was made, for the footer."""
    diff = c.difference
    if c.interval == "bootstrap":
        return Markdown(f"{c.method}, {c.resamples:,} resamples, seed {c.seed}")
    if isinstance(diff, PairedMeanResult) and diff.n_resamples:
        return Markdown(f"{c.method}, {diff.n_resamples:,} sign patterns, seed {diff.seed}")
    return Markdown(c.method)


def bootstrap_note(c: Comparison, scale: Scale) -> Markdown | None:
    """The paired bootstrap beside the interval that decides (``None`` when it is that
    interval, ``test: bootstrap``)."""
    boot = c.bootstrap
    if boot is None or c.interval == "bootstrap":
        return None
    resamples = f"{boot.n_resamples:,} resamples"
    if boot.n_resamples < c.resamples:
        resamples = f"{boot.n_resamples:,} of {c.resamples:,} resamples (draws bounded)"
    effect = format_effect(boot.statistic, *boot.confidence_interval, percent=scale.percent)
    return Markdown(
        f"**Paired bootstrap** ({boot.method}, resampling {boot.resampled}, {resamples}, seed "
        f"{boot.seed}): {effect}, {boot.share_above_zero * 100:.1f} % of resamples above zero; "
        f"for comparison only (the verdict's interval: {c.method})."
    )


def effect_size_note(size: EffectSizeResult) -> Markdown:
    """Cohen's d_z beside a difference of numeric scores."""
    if not math.isfinite(size.statistic):
        return Markdown("**Effect size:** d_z is undefined (the per-item differences do not vary).")
    ci = size.confidence_interval
    interval = (
        f" [{ci.low:+.2f}, {ci.high:+.2f}] ({size.confidence_level * 100:g} %, {size.method})"
        if math.isfinite(ci.low) and math.isfinite(ci.high)
        else ""
    )
    return Markdown(
        f"**Effect size:** d_z = {size.statistic:+.2f}{interval}: the mean difference over the "
        "standard deviation of the per-item differences (0.2 small, 0.5 medium, 0.8 large)."
    )


def clusters_note(c: Comparison, scale: Scale) -> Markdown | None:
    """What the clusters change: the primary test's unit and the CR1 standard error."""
    clusters = c.clusters
    if clusters is None:
        return None
    unit = (
        "the bootstrap resamples whole clusters"
        if c.interval == "bootstrap"
        else "the test and its interval take each cluster as one unit, and any bootstrap "
        "resamples whole clusters"
    )
    note = (
        f"Items share clusters ({clusters.labelled_items} labelled items in "
        f"{clusters.clusters:,} clusters): {unit}"
    )
    if clusters.standard_error is not None:
        note += (
            "; cluster-robust (CR1) standard error of the difference "
            f"{scale.amount(clusters.standard_error)}"
        )
    return Markdown(note + ".")


def _difference_text(diff: BootstrapResult, confidence: str, digits: str = ".4g") -> str:
    ci = diff.confidence_interval
    text = (
        f"difference {diff.statistic:+{digits}} [{ci.low:{digits}}, {ci.high:{digits}}] "
        f"({confidence}, paired bootstrap, {diff.method}"
    )
    if diff.n_undefined:
        text += f"; {diff.n_undefined:,} resamples undefined and left out"
    return text + ")"


def cost_note(cost: BothRuns[CostSide], confidence: str) -> Markdown:
    """Each run's total cost and, when something was solved, the cost per solved task."""
    b, k = cost.baseline, cost.candidate
    total = f"total cost {b.total_cost:.4g} → {k.total_cost:.4g}"
    if b.items_without_cost + k.items_without_cost:
        total += f" ({b.items_without_cost} + {k.items_without_cost} items without a cost, as 0)"
    if b.solved is None:
        return Markdown(f"**Cost:** {total}.")
    per = f"**Cost per solved task:** {maybe(b.cost_per_solved)} → {maybe(k.cost_per_solved)}"
    if cost.difference is not None:
        per += ", " + _difference_text(cost.difference, confidence)
    return Markdown(f"{per}; {total}.")


def f1_note(f1: BothRuns[F1Side], confidence: str) -> Markdown:
    """Each run's micro F1 and the bootstrap of its difference."""
    text = (
        f"**Micro F1** (from per-item TP/FP/FN): {maybe(f1.baseline.f1, '{:.3f}')} → "
        f"{maybe(f1.candidate.f1, '{:.3f}')}"
    )
    if f1.difference is not None:
        text += ", " + _difference_text(f1.difference, confidence, ".3f")
    return Markdown(text + ".")


def repeats_note(side: str, rep: RepeatsSide, scale: Scale) -> Markdown:
    """A side with repeats: pass@k, the standard error and the budget's advice."""
    n, k = rep.result.items, rep.result.repeats
    shown = [(kk, v) for kk, v in rep.pass_at_k if kk in (1, k) or kk == len(rep.pass_at_k)]
    text = f"{side}: " + ", ".join(f"pass@{kk} {v * 100:.1f} %" for kk, v in shown)
    if rep.standard_error is not None and rep.budget is not None:
        b = rep.budget
        text += (
            f"; standard error of the mean with {n:,} items × {k} repeats "
            f"{scale.amount(rep.standard_error)}"
        )
        if (b.items, b.repeats) != (n, k):
            text += (
                f"; the same {b.budget:,} calls on {b.items:,} distinct items × {b.repeats} "
                f"repeat{'s' if b.repeats > 1 else ''} would give {scale.amount(b.standard_error)}"
            )
    return Markdown(text + ".")


def not_evaluated_line(c: Comparison, decision: Decision) -> Markdown | None:
    """The items a run did not evaluate, in words, with the first few of each side's (ids
    shortened, as inline code)."""
    skipped = c.paired.not_evaluated
    reason = next((r for r in decision.reasons if r.code == "not_evaluated"), None)
    if skipped is None or reason is None:
        return None
    parts = [Markdown(f"**Not evaluated:** {not_evaluated_words(reason)}.")]
    for side, ids, n in (
        ("baseline", skipped.baseline_ids, skipped.baseline - skipped.both),
        ("candidate", skipped.candidate_ids, skipped.candidate - skipped.both),
    ):
        if ids:
            more = Markdown(f", … ({n:,} in all)") if n > len(ids) else EMPTY
            shown = md.join(Markdown(", "), (md.code(short_id(i)) for i in ids))
            parts.append(md.format("Not evaluated by the {} only: {}{}.", side, shown, more))
    return md.join(Markdown(" "), parts)
