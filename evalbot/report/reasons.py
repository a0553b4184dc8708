"""Pure: the decision's reasons in words, once, each number in its unit.

:mod:`evalbot.plan.rules` returns reasons as data (a code, the observed value and the threshold, the
config key and flag); this module is the only place that turns them into sentences. A
difference is shown in the metric's unit (percentage points for pass rates, the score's own
unit otherwise); a p-value never as 0 (a bound says "<", an exact p-value below the float range
keeps its exponent). A refusal says which rule refused, with its config key, and what would
satisfy it.

Every sentence holds only numbers and labels evalbot formats itself (config keys, test names,
hexadecimal fingerprints and short commit shas), never text from a result file.
"""

from __future__ import annotations

from collections.abc import Callable

from evalbot.plan.rules.decision import Decision, PlannedSize
from evalbot.plan.rules.reasons import Reason
from evalbot.stats.pvalue import SMALLEST_NORMAL, PValue

__all__ = [
    "word_disclosure",
    "word_plan",
    "word_pvalue",
    "word_reason",
    "word_reasons",
]


# ---- numbers ----------------------------------------------------------------------------


def word_pvalue(p: PValue) -> str:
    """A p-value for sentences, four significant digits: ``"0.01609"``, ``"< 0.0002"`` (a
    bound), ``"1.472e-331"`` (exact, below the float range); never ``"0"``."""
    if p.bound == "upper":
        return p.format(2)
    if p.value >= SMALLEST_NORMAL:
        return f"{p.value:.4g}"
    return p.format(4)


def _p_is(p: PValue) -> str:
    text = word_pvalue(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def _alpha(value: float | str | None) -> str:
    return f"{float(value or 0.0):.4g}"


def _items(value: float | str | None) -> str:
    number = float(value or 0.0)
    return f"{int(number):,}" if number == int(number) else f"{number:,.4g}"


def _diff(value: float | str | None, unit: str | None, *, signed: bool = False) -> str:
    """A difference in its unit: ``"4.6 pp"`` or ``"0.049"`` (``signed``: ``"-5.6 pp"``)."""
    number = float(value or 0.0)
    sign = "+" if signed else ""
    if unit == "pp":
        return f"{number * 100:{sign}.1f} pp"
    return f"{number:{sign}.3f}"


def _share(value: float | str | int | None) -> str:
    return f"{float(value or 0.0) * 100:.1f} %"


def _text(value: float | int | str | None) -> str:
    return "" if value is None else str(value)


# ---- the reasons --------------------------------------------------------------------------


def _alpha_clause(r: Reason) -> str:
    looks = r.details.get("looks")
    level = r.details.get("alpha")
    if looks is None or level is None:
        return f"alpha = {_alpha(r.threshold)}"
    return (
        f"alpha = {_alpha(r.threshold)} ({_alpha(level)} / {looks} looks, policy.looks: bonferroni)"
    )


def _test(r: Reason) -> str:
    assert r.pvalue is not None
    test, p = _text(r.details.get("test")), r.pvalue
    if r.code == "unresolved":
        return (
            f"{test}: {_p_is(p)}, but {_alpha_clause(r)} is smaller than the "
            f"{_items(r.details.get('resamples'))} resamples can resolve: raise "
            "bootstrap.resamples (--resamples)"
        )
    if r.code == "significant":
        return f"{test}: {_p_is(p)} is at or below {_alpha_clause(r)}"
    return f"{test}: {_p_is(p)} is above {_alpha_clause(r)}"


def _powerless(r: Reason) -> str:
    assert r.pvalue is not None
    what, have, need = r.details.get("counted"), r.details.get("have"), r.details.get("needed")
    plural = str(what)
    return (
        f"powerless: with {_counted(have, plural)} the smallest p-value "
        f"{_text(r.details.get('test'))} can give is {word_pvalue(r.pvalue)}, above "
        f"{_alpha_clause(r)}, so no outcome could have been significant; at least "
        f"{_counted(need, plural)} {'is' if float(need or 0) == 1 else 'are'} needed"
    )


def _counted(value: float | str | None, plural: str) -> str:
    """``"1 discordant pair"``, ``"0 discordant pairs"``: the count and its noun, agreeing."""
    noun = plural.removesuffix("s") if float(value or 0.0) == 1 else plural
    return f"{_items(value)} {noun}"


def _tripwire(r: Reason) -> str:
    d = r.details
    mde = float(r.observed or 0.0)
    can = f"{_diff(mde, 'pp')} or more" if mde != float("inf") else "no change at all"
    text = (
        f"a {_items(d.get('items'))}-item eval is a tripwire, not a finding: with "
        f"{_share(d.get('discordant_rate'))} of items changing it can detect {can} (power "
        f"{float(d.get('power') or 0.0):g}), but policy.min_effect is {_diff(r.threshold, 'pp')}"
    )
    if d.get("items_needed") is not None:
        text += f"; about {_items(d.get('items_needed'))} items would detect it"
    return text


def _underpowered_gain(r: Reason) -> str:
    mde = float(r.threshold or 0.0)
    limit = _diff(mde, "pp") if mde != float("inf") else "unbounded change"
    return (
        f"the gain of {_diff(r.observed, 'pp', signed=True)} is significant but smaller than "
        f"the {limit} this eval can reliably detect (policy.min_effect "
        f"{_diff(r.details.get('min_effect'), 'pp')}): an underpowered eval cannot certify an "
        "improvement; run more items"
    )


def _sample_size(r: Reason) -> str:
    rule = "policy.sample_size" if r.rule == "policy.sample_size" else "computed from plan:"
    return (
        f"the plan pre-registered {_items(r.threshold)} items ({rule}), this eval has "
        f"{_items(r.observed)}: run the registered {_items(r.threshold)} items (a verdict on "
        "another sample size is refused)"
    )


def _sequential_cap(r: Reason) -> str:
    return (
        f"the eval has {_items(r.observed)} paired items, more than the "
        f"{_items(r.threshold)} the plan allows in sequential mode ({r.rule}): judge at most "
        f"{_items(r.threshold)} items"
    )


def _item_set(r: Reason) -> str:
    return (
        f"the eval's item set (sha256 {str(r.observed)[:12]}) is not the pre-registered one "
        f"({str(r.threshold)[:12]}, {r.rule}): run exactly the registered items (a verdict on "
        "other items is refused)"
    )


def _holdout_missing(r: Reason) -> str:
    return (
        f"{_items(r.observed)} of the {_items(r.threshold)} sealed holdout items are missing "
        f"from the results ({r.rule}, {r.flag}): run every holdout item (a verdict on part of "
        "the holdout is refused)"
    )


def _item_shopping(r: Reason) -> str:
    d = r.details
    if r.threshold is None:
        which = "items not on record"
    else:
        which = (
            f"another item set ({_items(d.get('earlier_items'))} items, {str(r.threshold)[:12]})"
        )
    return (
        f"commit {d.get('commit')} was already judged on {which}; choosing among item sets "
        "after seeing a verdict is refused: judge a new commit, or this one on the items it "
        "was first judged on"
    )


def _too_many_looks(r: Reason) -> str:
    return (
        f"this is look {_items(r.observed)} at this pull request, more than "
        f"policy.max_looks = {_items(r.threshold)}; a verdict is refused: re-runs of a judged "
        "commit are free, a new verdict needs a plan with more looks (policy.looks: "
        "bonferroni, or policy.mode: sequential) on the base branch"
    )


def _records_disagree(r: Reason) -> str:
    return (
        f"the records of this change's earlier looks disagree or are gone: "
        f"{r.details.get('findings')}; a verdict is refused and the check fails whatever the "
        "plan says (records that change or disappear are taken for tampering: a maintainer "
        "decides)"
    )


def _max_broken(r: Reason) -> str:
    rate = r.details.get("rate")
    shown = (
        _items(r.threshold)
        if rate is None
        else f"{float(rate) * 100:g}% of {_items(r.details.get('items'))} = {_items(r.threshold)}"
    )
    return f"gate: {_items(r.observed)} items broke, more than gate.max_broken = {shown}"


def _margin(r: Reason) -> str:
    confidence = float(r.details.get("confidence") or 0.95) * 100
    return (
        f"gate: the {confidence:g} % interval reaches {_diff(r.observed, r.unit, signed=True)}, "
        f"not above -gate.margin = {_diff(r.threshold, r.unit, signed=True)}: non-inferiority "
        "is not shown"
    )


def _dropped(r: Reason) -> str:
    d = r.details
    return (
        f"{_items(d.get('baseline_only'))} baseline-only and {_items(d.get('candidate_only'))} "
        f"candidate-only items were dropped ({r.rule}, {r.flag})"
    )


def not_evaluated_words(r: Reason) -> str:
    """The ``not_evaluated`` disclosure without its leading words (the comment's line)."""
    d = r.details
    sides = [
        f"{_items(count)} by the {side} only"
        for side, count in (
            ("baseline", d.get("baseline_only")),
            ("candidate", d.get("candidate_only")),
        )
        if count
    ]
    if d.get("both"):
        sides.append(f"{_items(d.get('both'))} by neither")
    what = (
        f"{_items(r.observed)} items (never run, skipped, cancelled or a harness error), "
        + " and ".join(sides)
    )
    if r.rule == "policy.errors: fail":
        return what + f"; counted as failures of the run that did not evaluate them ({r.rule})"
    return (
        what + f"; left out, so the comparison is over the {_items(d.get('compared'))} items "
        f"both runs evaluated ({r.rule}; {r.flag} fail counts them as failures, the "
        "leaderboard convention for full runs)"
    )


def _fixed_items_not_evaluated(r: Reason) -> str:
    d = r.details
    return (
        f"the plan fixes the item set ({r.rule}), but {_items(r.observed)} items were not "
        f"evaluated (the baseline did not evaluate {_items(d.get('baseline'))}, the candidate "
        f"{_items(d.get('candidate'))}): evaluate every item, or count those as failures with "
        f"policy.errors: fail ({r.flag} fail)"
    )


def _identical(r: Reason) -> str:
    same = r.details.get("same_source") == "yes"
    return (
        f"the two runs are identical item for item ({_items(r.observed)} items"
        + (", the same file" if same else "")
        + "): a file compared with itself, or a candidate that changed nothing the eval "
        "measures; p = 1 says nothing about the change"
    )


def _clusters(r: Reason) -> str:
    clusters = r.details.get("clusters")
    return (
        f"items share clusters ({_items(clusters)} clusters): the test and its interval take "
        "each cluster as one unit (the sign-flip test of the clusters' totals), since clustered "
        "items move together; McNemar's test, which counts items as independent, does not "
        "decide"
    )


def _clusters_sequential(r: Reason) -> str:
    clusters = r.details.get("clusters")
    return (
        f"sequential mode cannot account for clusters ({_items(clusters)} clusters): its test "
        "counts items as independent, and a cluster's items arrive over several looks; use "
        "policy.mode: fixed, which tests whole clusters"
    )


_WORDS: dict[str, Callable[[Reason], str]] = {
    "significant": _test,
    "not_significant": _test,
    "unresolved": _test,
    "underpowered_gain": _underpowered_gain,
    "tripwire": _tripwire,
    "powerless": _powerless,
    "sample_size": _sample_size,
    "sequential_cap": _sequential_cap,
    "item_set": _item_set,
    "fixed_items_not_evaluated": _fixed_items_not_evaluated,
    "holdout_unconfigured": lambda r: (
        "the holdout was requested (--holdout) but the plan has no readable holdout.ids_file: "
        "add one to the base branch's plan"
    ),
    "holdout_missing": _holdout_missing,
    "item_shopping": _item_shopping,
    "too_many_looks": _too_many_looks,
    "records_disagree": _records_disagree,
    "sequential_score": lambda r: (
        "policy.mode: sequential tests the discordant pairs of a pass/fail metric, but this "
        "metric is a score: use policy.mode: fixed"
    ),
    "gate_refused": lambda r: f"gate: a verdict the plan refused fails ({r.rule})",
    "gate_regression": lambda r: f"gate: a significant regression fails ({r.rule})",
    "gate_not_improvement": lambda r: (
        f"gate: anything but a significant improvement fails ({r.rule})"
    ),
    "gate_max_broken": _max_broken,
    "gate_margin": _margin,
    "bonferroni": lambda r: (
        f"every look is tested at alpha / max_looks = {_alpha(r.threshold)} / "
        f"{r.details.get('looks')} = {_alpha(r.observed)} ({r.rule})"
    ),
    "dropped_missing": _dropped,
    "filled_missing": lambda r: (
        f"{_items(r.observed)} items present on one side only were counted as failures of "
        f"the other ({r.rule}, {r.flag})"
    ),
    "not_evaluated": lambda r: f"not evaluated: {not_evaluated_words(r)}",
    "identical_runs": _identical,
    "state_ignored": lambda r: _text(r.details.get("why")),
    "items_file_unread": lambda r: f"`policy.items_file` ({r.details.get('file')}) was not read",
    "holdout_overused": lambda r: (
        f"the sealed holdout has now been used {_items(r.observed)} times, more than "
        f"holdout.max_uses = {_items(r.threshold)}: it no longer gives an unbiased check; "
        "refresh it"
    ),
    "clusters_mcnemar": _clusters,
    "clusters_sequential": _clusters_sequential,
}


def word_reason(reason: Reason) -> str:
    """One reason as a sentence (no final full stop)."""
    return _WORDS[reason.code](reason)


def word_reasons(reasons: list[Reason]) -> list[str]:
    return [word_reason(reason) for reason in reasons]


# ---- the plan and the looks ---------------------------------------------------------------


def word_plan(planned: PlannedSize | None) -> str | None:
    """How the planned size was computed (``plan:``); ``None`` for a size given as is."""
    if planned is None or planned.source != "plan":
        return None
    assert planned.fix_rate is not None and planned.break_rate is not None
    effect = (planned.fix_rate - planned.break_rate) * 100
    clustered = (
        f", times the design effect {planned.design_effect:g}"
        if planned.design_effect != 1.0
        else ""
    )
    return (
        f"{planned.items} items ({planned.discordant_pairs} discordant pairs expected) planned "
        f"to detect {effect:+.1f} pp (fix rate {planned.fix_rate:g}, break rate "
        f"{planned.break_rate:g}) with power {planned.power:g} at alpha {planned.alpha:.4g} "
        f"(exact power of McNemar's {planned.method} test: {planned.exact_power:.3f}"
        f"{clustered})"
    )


def word_disclosure(decision: Decision) -> str | None:
    """Re-runs and earlier looks, said plainly."""
    looks = decision.looks
    if looks.rerun_of is not None:
        earlier = looks.rerun_of
        p = f"p = {earlier.pvalue:.4g}" if earlier.pvalue > 0 else "p below the float range"
        said = (
            f"that run said {earlier.outcome.replace('_', ' ')} ({p})"
            if earlier.recorded
            else "that run's verdict is not on record yet"
        )
        commit = (decision.head_sha or "")[:7]
        return (
            f"re-run of look {looks.number} (commit {commit}, the same {decision.items} items): "
            f"not a new look; {said}"
        )
    if looks.earlier:
        shas = ", ".join(look.head_sha[:7] for look in looks.earlier[-5:])
        more = " (and more)" if len(looks.earlier) > 5 else ""
        return f"look {looks.number} at this pull request; earlier looks at {shas}{more}"
    return None
