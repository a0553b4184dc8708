"""Pure: the verdict line and the sentence under it, from the decision's data.

The sentence never contradicts the numbers beside it: the test is judged ``p <= alpha`` at the
alpha this look is tested at (Bonferroni included), and what it says about the interval comes
from :func:`evalbot.stats.agreement.interval_agreement` (the interval excludes zero, touches it
although the exact test rejects, or is at another level than the test). A null verdict says what it
rules out; a powerless eval and two identical runs are said plainly.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalbot.compare import Comparison
from evalbot.plan.policy import Decision
from evalbot.report.numbers import (
    Scale,
    format_effect,
    format_estimate,
    format_pvalue,
    p_clause,
    signed,
)
from evalbot.report.reasons import word_reason
from evalbot.report.text import Markdown

__all__ = ["Verdict", "alpha_text", "verdict_text"]


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """The verdict line's parts: the effect, the deciding test, and a sentence under it."""

    effect: Markdown  # "+4.2 pp [1.0, 7.5]"
    change: Markdown  # the estimate alone: "+4.2 pp"
    pvalue: Markdown
    test: Markdown
    confidence: Markdown  # "95 %"
    alpha: Markdown
    headline: str  # a refused verdict's: a reason, which may quote input; else Markdown
    explanation: Markdown


def alpha_text(decision: Decision) -> Markdown:
    """``"0.05"``, or with the looks correction ``"0.0125 (0.05 / 4 looks)"``."""
    alpha = decision.alpha
    if not alpha.corrected:
        return Markdown(f"{alpha.effective:g}")
    return Markdown(f"{alpha.effective:.4g} ({alpha.level:g} / {alpha.looks} looks)")


def _interval(low: float, high: float, scale: Scale) -> str:
    f, digits = scale.factor, scale.digits
    return f"[{signed(low * f, digits)}, {signed(high * f, digits)}]{scale.unit}"


def _about_interval(c: Comparison, decision: Decision, confidence: str, scale: Scale) -> str:
    """What the interval says about zero, in agreement with the test (or why not)."""
    ci = c.difference.confidence_interval
    where = "includes" if ci.low <= 0.0 <= ci.high else "excludes"
    agreement = decision.agreement
    if agreement is None:
        return ""
    if not agreement.levels_match:
        level = f"{(1.0 - decision.alpha.effective) * 100:.4g} %"
        return f"; the {confidence} interval {where} zero (it is not at the test's level, {level})"
    if agreement.case == "test_only":
        return (
            f", but the {confidence} interval {_interval(ci.low, ci.high, scale)} still touches "
            f"zero: {c.difference.method} and {c.test} differ at this boundary (rare), and the "
            "verdict follows the test"
        )
    if agreement.case == "interval_only":
        return (
            f", although the {confidence} interval {_interval(ci.low, ci.high, scale)} excludes "
            f"zero: {c.difference.method} and {c.test} differ at this boundary, and the verdict "
            "follows the test"
        )
    return f", and the {confidence} interval {where} zero"


def _rules_out(c: Comparison, confidence: str, scale: Scale) -> str:
    if not c.difference.finite:
        return " No effect is ruled out: the interval is unbounded."
    ci = c.difference.confidence_interval
    return f" Effects outside {_interval(ci.low, ci.high, scale)} are ruled out at {confidence}."


def _powerless(decision: Decision) -> str:
    reason = next((r for r in decision.reasons if r.code == "powerless"), None)
    if reason is None:
        return ""
    words = word_reason(reason).removeprefix("powerless: ")
    return f" This eval could not have found a difference: {words}."


def _what_moved(c: Comparison, change: str) -> str:
    """How many more or fewer items pass (pass/fail), or how the metric changed (scores)."""
    if c.table is None:
        return f"The candidate's {c.metric.replace('_', ' ')} changed by {change}"
    t = c.table
    return (
        f"The candidate passes {abs(t.fixed - t.broken)} "
        f"{'more' if t.fixed >= t.broken else 'fewer'} of {t.items} items "
        f"({t.fixed} fixed, {t.broken} broken)"
    )


def _headline_flags(decision: Decision) -> str:
    flags = [
        text
        for text, present in (
            ("no outcome could be significant", decision.powerless),
            ("identical runs", decision.identical),
        )
        if present
    ]
    return "".join(f" · {flag}" for flag in flags)


def _refused(decision: Decision) -> str:
    """Why a verdict was refused, in plain words: the first refusal, or the underpowered gain."""
    first = (
        decision.violations[:1]
        or [r for r in decision.reasons if r.code == "underpowered_gain"][:1]
    )
    return word_reason(first[0]) if first else "The analysis plan refused a verdict."


def verdict_text(c: Comparison, decision: Decision, scale: Scale) -> Verdict:
    """The verdict line: the effect, the test that decided, and a sentence in plain words."""
    ci = c.difference.confidence_interval
    effect = format_effect(c.difference.statistic, ci.low, ci.high, percent=scale.percent)
    change = format_estimate(c.difference.statistic, percent=scale.percent)
    # the test's name is evalbot's own label (McNemar, the sequential test, sign-flip, ...)
    test = Markdown(decision.test or c.test)
    pvalue = format_pvalue(decision.pvalue if decision.pvalue is not None else c.pvalue)
    confidence = Markdown(f"{c.difference.confidence_level * 100:g} %")
    alpha = alpha_text(decision)
    judged = c.alpha.judge(c.pvalue)
    # every sentence below is made of numbers and evalbot's labels, except a refusal's
    # headline (a reason, which may quote input: a plain str, escaped when printed)
    headline: str
    explanation: str
    if decision.outcome == "inconclusive":
        headline = _refused(decision)
        explanation = (
            f"No verdict is given. For information only: the difference is {effect} "
            f"({test}, {p_clause(pvalue)})."
        )
    else:
        headline = Markdown(f"{effect} · {test} {p_clause(pvalue)}{_headline_flags(decision)}")
        moved = _what_moved(c, change)
        if decision.identical:
            explanation = (
                f"{moved}: the two runs are identical item for item, so there is no change to "
                "test (a file compared with itself?)."
            )
        elif judged == "unresolved":
            explanation = (
                f"{moved}; {p_clause(pvalue)} cannot be told apart from alpha = {alpha} with "
                f"{c.resamples:,} resamples: raise bootstrap.resamples (--resamples)."
            )
        elif decision.outcome == "no_significant_difference":
            explanation = (
                f"{moved}; that is within noise: {p_clause(pvalue)} is above alpha = {alpha}"
                f"{_about_interval(c, decision, confidence, scale)}."
                f"{_rules_out(c, confidence, scale)}{_powerless(decision)}"
            )
        else:
            explanation = (
                f"{moved}; {p_clause(pvalue)} is at or below alpha = {alpha}"
                f"{_about_interval(c, decision, confidence, scale)}."
            )
    return Verdict(
        effect=effect,
        change=change,
        pvalue=pvalue,
        test=test,
        confidence=confidence,
        alpha=alpha,
        headline=headline,
        explanation=Markdown(explanation),
    )
