"""Pure: Comparison + Decision -> the JSON report and the view-model the templates read.

Numbers are rounded and labelled here, once, so every rendering (comment, job summary, the CLI's
markdown and text) says the same thing.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlsplit

from evalbot import __version__
from evalbot.compare import Comparison, CostResult, CostSide, F1Result, F1Side, PairedTable
from evalbot.config import Config
from evalbot.policy import Decision, decision_json
from evalbot.stats import BootstrapResult

SCHEMA_VERSION = 1

OUTCOME_LABELS = {
    "improvement": ("✅", "Improvement"),
    "regression": ("❌", "Regression"),
    "no_significant_difference": ("➖", "No significant difference"),
    "inconclusive": ("⚠️", "Inconclusive"),
}


def _round(value: float, digits: int = 6) -> float:
    return float(round(value, digits))


def build_json(comparison: Comparison, decision: Decision) -> dict[str, Any]:
    """The ``--format json`` report (keys of INTERFACE.md, plus more)."""
    c = comparison
    diff = c.difference
    paired = c.paired
    report: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "evalbot_version": __version__,
        "items": c.items,
        "metric": c.metric,
        "baseline": {
            "rate": c.baseline.rate,
            "passed": c.baseline.passed,
            "ci": list(c.baseline.confidence_interval),
            "ci_method": c.baseline.interval_method,
            "source": paired.baseline_source,
            "epochs": paired.epochs_baseline,
        },
        "candidate": {
            "rate": c.candidate.rate,
            "passed": c.candidate.passed,
            "ci": list(c.candidate.confidence_interval),
            "ci_method": c.candidate.interval_method,
            "source": paired.candidate_source,
            "epochs": paired.epochs_candidate,
        },
        "difference": {
            "estimate": diff.statistic,
            "ci": list(diff.confidence_interval),
            "method": f"paired bootstrap ({diff.method}, resampling {diff.resampled})",
            "confidence": diff.confidence_level,
            "resamples": diff.n_resamples,
            "seed": diff.seed,
            "standard_error": diff.standard_error,
            "pvalue": diff.pvalue,
            "clusters": None if c.clusters is None else c.clusters.clusters,
            "clustered_standard_error": None if c.clusters is None else c.clusters.standard_error,
        },
        "table": None
        if c.table is None
        else {
            "both_pass": c.table.both_pass,
            "fixed": c.table.fixed,
            "broken": c.table.broken,
            "both_fail": c.table.both_fail,
        },
        "mcnemar": None
        if c.mcnemar is None
        else {
            "method": c.mcnemar.method,
            "statistic": c.mcnemar.statistic,
            "pvalue": c.mcnemar.pvalue,
            "discordant": c.mcnemar.discordant,
        },
        "test": {"name": c.test, "pvalue": c.pvalue, "alpha": c.alpha},
        "fixed_ids": c.fixed_ids,
        "broken_ids": c.broken_ids,
        "pairing": {
            "fingerprint": paired.fingerprint,
            "dropped_baseline_only": len(paired.dropped_baseline_only),
            "dropped_candidate_only": len(paired.dropped_candidate_only),
            "filled_as_failures": paired.filled_as_failures,
            "errors_baseline": paired.errors_baseline,
            "errors_candidate": paired.errors_candidate,
            "dropped_errors": paired.dropped_errors,
        },
        "policy": {"ok": decision.policy_ok, "violations": decision.violations},
        "verdict": {
            "outcome": decision.outcome,
            "gate": decision.gate,
            "reasons": decision.reasons,
        },
    }
    report["verdict"]["conclusion"] = decision.conclusion
    report["verdict"]["warnings"] = list(decision.warnings)
    report["decision"] = decision_json(decision)
    report["churn"] = None
    if c.churn is not None:
        report["churn"] = {
            "discordant": c.churn.discordant,
            "net": c.churn.net,
            "net_rate": c.churn.net_rate,
            "churn": c.churn.churn,
        }
    report["unpaired"] = None
    if c.unpaired is not None:
        report["unpaired"] = {
            "method": "two-proportion z-test (pooled; ignores the pairing, for contrast only)",
            "statistic": c.unpaired.statistic,
            "pvalue": c.unpaired.pvalue,
            "standard_error": c.unpaired.standard_error,
        }
    report["slices"] = [
        {
            "slice": s.name,
            "items": s.items,
            "baseline_rate": s.baseline_rate,
            "candidate_rate": s.candidate_rate,
            "difference": s.difference,
            "table": None if s.table is None else _table_json(s.table),
            "test": s.test,
            "pvalue": s.pvalue,
            "qvalue": s.qvalue,
        }
        for s in c.slices
    ]
    report["secondary"] = [
        {
            "metric": m.name,
            "baseline": m.baseline,
            "candidate": m.candidate,
            "estimate": m.difference.statistic,
            "ci": list(m.difference.confidence_interval),
            "pvalue": m.difference.pvalue,
            "adjusted_pvalue": m.adjusted_pvalue,
            "adjustment": "holm",
        }
        for m in c.secondary
    ]
    report["power"] = None
    if c.power is not None:
        report["power"] = {
            "method": "McNemar, normal approximation on the observed discordant rate",
            "power": c.power.power,
            "alpha": c.power.alpha,
            "discordant_rate": c.power.discordant_rate,
            "minimum_detectable_effect": c.power.minimum_detectable_effect,
            "items_needed": c.power.items_needed,
        }
    report["repeats"] = {
        side: None
        if rep is None
        else {
            "repeats": rep.result.repeats,
            "flaky": rep.result.flaky,
            "always_pass": rep.result.always_pass,
            "always_fail": rep.result.always_fail,
            "within_item_variance": _finite(rep.result.within_item_variance),
            "between_item_variance": _finite(rep.result.between_item_variance),
            "intraclass_correlation": _finite(rep.result.intraclass_correlation),
            "majority_vote_accuracy": _finite(rep.result.majority_vote_accuracy),
            "flaky_ids": rep.flaky_ids,
            "items": rep.result.items,
            "pass_at_k": {str(k): value for k, value in rep.pass_at_k},
            "standard_error": rep.standard_error,
            "budget": None
            if rep.budget is None
            else {
                "calls": rep.budget.budget,
                "items": rep.budget.items,
                "repeats": rep.budget.repeats,
                "standard_error": rep.budget.standard_error,
                "options": [
                    {"items": n, "repeats": k, "standard_error": se}
                    for n, k, se in rep.budget.options
                ],
            },
        }
        for side, rep in (("baseline", c.repeats_baseline), ("candidate", c.repeats_candidate))
    }
    report["cost_per_solved"] = None if c.cost is None else _cost_json(c.cost)
    report["f1"] = None if c.f1 is None else _f1_json(c.f1)
    return report


def _difference_json(diff: BootstrapResult | None) -> dict[str, Any] | None:
    if diff is None:
        return None
    return {
        "estimate": diff.statistic,
        "ci": list(diff.confidence_interval),
        "method": f"paired bootstrap ({diff.method}, resampling {diff.resampled})",
        "standard_error": diff.standard_error,
        "pvalue": diff.pvalue,
        "n_undefined": diff.n_undefined,
    }


def _cost_json(cost: CostResult) -> dict[str, Any]:
    def side(s: CostSide) -> dict[str, Any]:
        return {
            "total_cost": s.total_cost,
            "solved": s.solved,
            "cost_per_solved": s.cost_per_solved,
            "items_without_cost": s.items_without_cost,
        }

    return {
        "baseline": side(cost.baseline),
        "candidate": side(cost.candidate),
        "difference": _difference_json(cost.difference),
    }


def _f1_json(f1: F1Result) -> dict[str, Any]:
    def side(s: F1Side) -> dict[str, Any]:
        return {"f1": s.f1, "tp": s.tp, "fp": s.fp, "fn": s.fn}

    return {
        "method": "micro F1 = 2 TP / (2 TP + FP + FN) on the summed per-item counts",
        "baseline": side(f1.baseline),
        "candidate": side(f1.candidate),
        "difference": _difference_json(f1.difference),
    }


def _table_json(table: PairedTable) -> dict[str, int]:
    return {
        "both_pass": table.both_pass,
        "fixed": table.fixed,
        "broken": table.broken,
        "both_fail": table.both_fail,
    }


def _finite(value: float) -> float | None:
    """JSON has no NaN: an undefined statistic is ``null``."""
    return value if math.isfinite(value) else None


def format_pvalue(p: float) -> str:
    if p < 0.0001:
        return "< 0.0001"
    if p >= 0.9995:
        return "1"
    return f"{p:.4f}" if p < 0.01 else f"{p:.3f}"


def p_clause(pvalue: str) -> str:
    """ "p = 0.016" or "p < 0.0001" from a formatted p-value."""
    return f"p {pvalue}" if pvalue.startswith("<") else f"p = {pvalue}"


def format_effect(estimate: float, low: float, high: float, *, percent: bool) -> str:
    """ "+4.3 pp [1.0, 7.5]" for rates; "+0.043 [0.010, 0.075]" for scores."""
    if percent:
        return f"{_signed(estimate * 100, 1)} pp [{low * 100:.1f}, {high * 100:.1f}]"
    return f"{_signed(estimate, 3)} [{low:.3f}, {high:.3f}]"


def _signed(value: float, digits: int) -> str:
    text = f"{value:+.{digits}f}"
    # -0.0 reads as a regression that is not there
    return text.replace("-0." + "0" * digits, "±0." + "0" * digits).replace(
        "+0." + "0" * digits, "±0." + "0" * digits
    )


def format_time(at: str) -> str:
    """An ISO 8601 time as "2026-11-30 09:00 UTC" (other offsets converted); text that is not
    a time is returned as it is."""
    try:
        when = datetime.fromisoformat(at)
    except ValueError:
        return at
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return when.strftime("%Y-%m-%d %H:%M") + (" UTC" if when.tzinfo is not None else "")


def format_rate(rate: float, *, percent: bool) -> str:
    return f"{rate * 100:.1f} %" if percent else f"{rate:.3f}"


@dataclass(frozen=True, kw_only=True)
class ItemEntry:
    """One item id in a list: ``text`` is the id as shown (shortened when very long; the
    templates escape it), ``url`` the link built from ``report.item_url`` (None: no link)."""

    id: str
    text: str
    url: str | None = None


@dataclass(frozen=True, kw_only=True)
class ItemList:
    """A list of item ids; ``entries`` may hold fewer than ``total`` (the rest are counted)."""

    key: str
    title: str
    entries: list[ItemEntry]
    total: int

    @property
    def ids(self) -> list[str]:
        return [entry.id for entry in self.entries]

    @property
    def hidden(self) -> int:
        return self.total - len(self.entries)


@dataclass(frozen=True, kw_only=True)
class SliceRow:
    name: str
    items: int
    baseline: str
    candidate: str
    difference: str
    fixed: str
    broken: str
    pvalue: str
    qvalue: str
    significant: bool


@dataclass(frozen=True, kw_only=True)
class SecondaryRow:
    name: str
    baseline: str
    candidate: str
    effect: str
    pvalue: str
    adjusted_pvalue: str
    significant: bool


@dataclass(frozen=True, kw_only=True)
class RepeatsRow:
    side: str
    epochs: int
    flaky: str
    always_pass: int
    always_fail: int
    within_item_variance: str
    intraclass_correlation: str
    majority_vote: str


@dataclass(frozen=True, kw_only=True)
class Row:
    """A labelled line of the plan or provenance tables (values are trusted text)."""

    label: str
    value: str
    url: str | None = None


@dataclass(frozen=True, kw_only=True)
class Look:
    """An earlier verdict on the same pull request (the action reads them from its state)."""

    label: str
    outcome: str
    effect: str
    pvalue: str
    commit: str = ""
    url: str | None = None
    at: str = ""  # when, as format_time shows it ("" when unknown)


@dataclass(frozen=True, kw_only=True)
class Provenance:
    """Where the two runs came from; the action fills what it knows."""

    baseline_commit: str | None = None
    baseline_run_url: str | None = None
    candidate_commit: str | None = None
    candidate_run_url: str | None = None


@dataclass(frozen=True, kw_only=True)
class View:
    """What the templates read: every number already a string.

    Fields after ``interval_method`` are optional additions; templates test them before use,
    so a custom template written for an older view keeps working.
    """

    symbol: str
    outcome_label: str
    outcome: str
    effect: str
    pvalue: str
    test: str
    gate: str
    reasons: list[str]
    items: int
    metric: str
    baseline_rate: str
    baseline_ci: str
    baseline_passed: str
    candidate_rate: str
    candidate_ci: str
    candidate_passed: str
    table: dict[str, int] | None
    net: str
    churn: str
    lists: list[ItemList]
    fingerprint: str
    resamples: int
    seed: int
    confidence: str
    version: str
    interval_method: str
    # --- added beside the original fields -------------------------------------------------
    headline: str = ""
    explanation: str = ""
    gate_symbol: str = ""
    percent: bool = True
    unit: str = ""
    unpaired_pvalue: str | None = None
    unpaired_note: str = ""
    picture: str | None = None
    slices: list[SliceRow] = field(default_factory=list)
    secondary: list[SecondaryRow] = field(default_factory=list)
    repeats: list[RepeatsRow] = field(default_factory=list)
    flaky: ItemList | None = None
    power: list[str] = field(default_factory=list)
    plan: list[Row] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    conclusion: str | None = None  # the check run's conclusion when policy gives one
    config_change: str | None = None
    config_path: str = ".evalbot.yml"  # the config file the pull request changes
    provenance: list[Row] = field(default_factory=list)
    history: list[Look] = field(default_factory=list)
    alpha: str = ""
    fingerprint_full: str = ""
    dropped: str = ""
    gate_reasons: list[str] = field(default_factory=list)
    disclosure: str | None = None
    # trusted Markdown the caller wrote (the action: where the baseline came from, a missing
    # config); never text from a result file or a pull request
    notes: tuple[str, ...] = ()
    # one sentence each (numbers only, no text from a result file): clusters, cost per solved
    # task, micro F1, and per side with repeats pass@k and the budget advice
    clusters_note: str | None = None
    cost_note: str | None = None
    f1_note: str | None = None
    repeats_notes: list[str] = field(default_factory=list)


#: Characters of an item id shown before it is shortened (the link keeps the whole id).
MAX_ID_CHARS = 120


def _entry(item_id: str, item_url: str | None) -> ItemEntry:
    text = item_id if len(item_id) <= MAX_ID_CHARS else item_id[: MAX_ID_CHARS - 1] + "…"
    return ItemEntry(id=item_id, text=text, url=item_link(item_url, item_id))


def item_link(template: str | None, item_id: str) -> str | None:
    """``report.item_url`` with ``{id}`` replaced by the URL-quoted id; http(s) only.

    The whole URL is percent-encoded where Markdown would read a character (spaces, ``<``,
    ``>``, parentheses, backslashes), so it is always one inline link destination.
    """
    if not template:
        return None
    url = template.replace("{id}", quote(item_id, safe=""))
    url = quote(url, safe=":/?#[]@!$&'*+,;=%~")
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        return None
    return url


def _nice_step(span: float) -> float:
    raw = span / 4
    power = 10.0 ** math.floor(math.log10(raw))
    for mult in (1, 2, 2.5, 5, 10):
        if raw <= mult * power:
            return mult * power
    return 10 * power  # pragma: no cover - the loop always returns


def _axis_label(value: float, unit: str) -> str:
    text = f"{value:+g}" if value else "0"
    return f"{text}{unit}"


def interval_picture(
    estimate: float, low: float, high: float, *, unit: str = " pp", width: int = 51
) -> str:
    """The difference and its interval on a small scale with zero marked, in plain Unicode.

    ``-5 pp ───────┼────[━━━━●━━━━━]────── +10 pp`` with a second line labelling zero and the
    estimate. Values are in display units (percentage points for rates). Monospace only: it
    belongs in a code block, which e-mail notifications keep as it is.
    """
    values = [v for v in (estimate, low, high) if math.isfinite(v)]
    if len(values) < 3:
        return ""
    lo_v, hi_v = min(low, 0.0), max(high, 0.0)
    span = hi_v - lo_v
    if span <= 0:
        span = 1.0 if unit.strip() == "pp" else 0.01
    step = _nice_step(span)
    axis_lo = math.floor((lo_v - span * 0.1) / step) * step
    axis_hi = math.ceil((hi_v + span * 0.1) / step) * step
    if axis_lo == axis_hi:  # pragma: no cover - span > 0 keeps them apart
        axis_hi = axis_lo + step

    def col(value: float) -> int:
        return round((value - axis_lo) / (axis_hi - axis_lo) * (width - 1))

    bar = ["─"] * width
    c_lo, c_hi, c_est, c_zero = col(low), col(high), col(estimate), col(0.0)
    for c in range(c_lo, c_hi + 1):
        bar[c] = "━"
    if c_hi - c_lo >= 2:
        bar[c_lo], bar[c_hi] = "[", "]"
    bar[c_zero] = "╋" if c_lo <= c_zero <= c_hi else "┼"
    bar[c_est] = "●"
    left = _axis_label(axis_lo, unit)
    right = _axis_label(axis_hi, unit)
    indent = len(left) + 1
    line1 = f"{left} {''.join(bar)} {right}"
    labels = [" "] * (indent + width + 1 + len(right))

    def put(text: str, center: int) -> bool:
        start = max(0, min(center - len(text) // 2, len(labels) - len(text)))
        if any(ch != " " for ch in labels[max(0, start - 1) : start + len(text) + 1]):
            return False
        labels[start : start + len(text)] = list(text)
        return True

    put("0", indent + c_zero)
    digits = 1 if unit.strip() == "pp" else 3
    put(f"{estimate:+.{digits}f}", indent + c_est)
    return line1 + "\n" + "".join(labels).rstrip()


def _first(obj: object, *names: str) -> Any:
    """The first of ``names`` that ``obj`` has and is not None (Decision grows fields)."""
    for name in names:
        value = getattr(obj, name, None)
        if value is not None:
            return value
    return None


def _plain_why(decision: Decision) -> str:
    """Why a verdict was refused, in plain words (the policy's first violation)."""
    if decision.violations:
        return decision.violations[0]
    return "The analysis plan refused a verdict."


def build_view(
    comparison: Comparison,
    decision: Decision,
    *,
    max_ids: int = 1000,
    item_url: str | None = None,
    config: Config | None = None,
    config_change: str | None = None,
    config_path: str = ".evalbot.yml",
    provenance: Provenance | None = None,
    history: Sequence[Look] = (),
    notes: Sequence[str] = (),
) -> View:
    """The view-model of one comparison.

    ``max_ids`` caps the ids kept per list (renderings show fewer and count the rest);
    ``item_url`` is ``report.item_url`` (``{id}`` is replaced by the quoted id); ``config`` adds
    the plan's pre-registered settings; ``config_change`` is a unified diff of the config file
    (``config_path``, by default ``.evalbot.yml``) made by the pull request; ``provenance``,
    ``history`` and ``notes`` (trusted Markdown, shown beside the provenance) come from the
    action.
    """
    c = comparison
    percent = c.metric == "pass_rate"
    unit = " pp" if percent else ""
    scale = 100.0 if percent else 1.0
    ci = c.difference.confidence_interval
    symbol, label = OUTCOME_LABELS[decision.outcome]
    table = None
    net = churn_text = ""
    if c.table is not None:
        t = c.table
        table = {
            "both_pass": t.both_pass,
            "fixed": t.fixed,
            "broken": t.broken,
            "both_fail": t.both_fail,
        }
        net = f"{t.fixed - t.broken:+d} items"
        share = t.discordant / t.items * 100 if t.items else 0.0
        churn_text = f"{t.discordant} items changed ({share:.1f} %)"

    def interval(side_ci: tuple[float, float]) -> str:
        lo, hi = side_ci
        if percent:
            return f"[{lo * 100:.1f}, {hi * 100:.1f}]"
        return f"[{lo:.3f}, {hi:.3f}]"

    def number(value: float) -> str:
        return format_rate(value, percent=percent)

    if c.table is not None:
        broken_title = "Broken items (passed before, fail now)"
        fixed_title = "Fixed items (failed before, pass now)"
    elif percent:
        broken_title = "Items whose pass rate fell"
        fixed_title = "Items whose pass rate rose"
    else:
        broken_title = "Items that got worse"
        fixed_title = "Items that got better"
    lists = [
        ItemList(
            key="broken",
            title=broken_title,
            entries=[_entry(i, item_url) for i in c.broken_ids[:max_ids]],
            total=len(c.broken_ids),
        ),
        ItemList(
            key="fixed",
            title=fixed_title,
            entries=[_entry(i, item_url) for i in c.fixed_ids[:max_ids]],
            total=len(c.fixed_ids),
        ),
    ]
    effect = format_effect(c.difference.statistic, ci.low, ci.high, percent=percent)
    # the test that decided: policy may decide on another p-value (a sequential look)
    deciding_p = _first(decision, "pvalue")
    test = str(_first(decision, "test") or c.test)
    pvalue = format_pvalue(c.pvalue if deciding_p is None else float(deciding_p))
    confidence = f"{c.difference.confidence_level * 100:g} %"
    alpha = f"{c.alpha:g}"

    # the one line a reader acts on, and a sentence in plain words under it
    if decision.outcome == "inconclusive":
        headline = _plain_why(decision)
        explanation = (
            f"No verdict is given. For information only: the difference is {effect} "
            f"({test}, {p_clause(pvalue)})."
        )
    else:
        headline = f"{effect} · {test} {p_clause(pvalue)}"
        includes_zero = ci.low <= 0.0 <= ci.high
        where = "includes" if includes_zero else "excludes"
        if c.table is not None:
            t = c.table
            moved = (
                f"The candidate passes {abs(t.fixed - t.broken)} "
                f"{'more' if t.fixed >= t.broken else 'fewer'} of {t.items} items "
                f"({t.fixed} fixed, {t.broken} broken)"
            )
        else:
            change = effect.split(" [")[0]
            moved = f"The candidate's {c.metric.replace('_', ' ')} changed by {change}"
        if decision.outcome == "no_significant_difference":
            explanation = (
                f"{moved}; that is within noise: {p_clause(pvalue)} is not below "
                f"alpha = {alpha}, "
                f"and the {confidence} interval {where} zero."
            )
        else:
            explanation = (
                f"{moved}; {p_clause(pvalue)} is below alpha = {alpha} and the {confidence} "
                f"interval {where} zero."
            )

    unpaired_pvalue = None
    unpaired_note = ""
    if c.unpaired is not None:
        unpaired_pvalue = format_pvalue(c.unpaired.pvalue)
        unpaired_note = (
            f"Read as two unrelated samples (two-proportion z-test) the same rates give "
            f"{p_clause(unpaired_pvalue)}; pairing by item gives "
            f"{p_clause(format_pvalue(c.pvalue))}."
        )

    picture = interval_picture(
        c.difference.statistic * scale, ci.low * scale, ci.high * scale, unit=unit
    )

    slices = [
        SliceRow(
            name="(no slice)" if s.name is None else s.name,
            items=s.items,
            baseline=number(s.baseline_rate),
            candidate=number(s.candidate_rate),
            difference=f"{_signed(s.difference * scale, 1 if percent else 3)}{unit}",
            fixed="" if s.table is None else str(s.table.fixed),
            broken="" if s.table is None else str(s.table.broken),
            pvalue=format_pvalue(s.pvalue),
            qvalue=format_pvalue(s.qvalue),
            significant=s.qvalue < c.alpha,
        )
        for s in c.slices
    ]
    secondary = [
        SecondaryRow(
            name=m.name,
            baseline=f"{m.baseline:.4g}",
            candidate=f"{m.candidate:.4g}",
            effect=format_effect(
                m.difference.statistic,
                m.difference.confidence_interval.low,
                m.difference.confidence_interval.high,
                percent=False,
            ),
            pvalue=format_pvalue(m.difference.pvalue),
            adjusted_pvalue=format_pvalue(m.adjusted_pvalue),
            significant=m.adjusted_pvalue < c.alpha,
        )
        for m in c.secondary
    ]

    repeats: list[RepeatsRow] = []
    flaky: ItemList | None = None
    for side, rep in (("baseline", c.repeats_baseline), ("candidate", c.repeats_candidate)):
        if rep is None:
            continue
        r = rep.result
        repeats.append(
            RepeatsRow(
                side=side,
                epochs=r.repeats,
                flaky=f"{r.flaky} ({r.flaky_rate * 100:.1f} %)",
                always_pass=r.always_pass,
                always_fail=r.always_fail,
                within_item_variance=_maybe(r.within_item_variance, "{:.4f}"),
                intraclass_correlation=_maybe(r.intraclass_correlation, "{:.2f}"),
                majority_vote=_maybe(r.majority_vote_accuracy * scale, "{:.1f} %")
                if percent
                else _maybe(r.majority_vote_accuracy, "{:.3f}"),
            )
        )
        if side == "candidate" and rep.flaky_ids:
            flaky = ItemList(
                key="flaky",
                title="Flaky items on the candidate (passed some repeats, failed others)",
                entries=[_entry(i, item_url) for i in rep.flaky_ids[:max_ids]],
                total=len(rep.flaky_ids),
            )

    power: list[str] = []
    if c.power is not None:
        pw = c.power
        if pw.minimum_detectable_effect is not None:
            power.append(
                f"With {pw.items} items and {pw.discordant_rate * 100:.1f} % of them changing "
                f"outcome, this eval detects a net change of "
                f"{pw.minimum_detectable_effect * 100:.1f} pp or more with "
                f"{pw.power * 100:g} % power at alpha = {pw.alpha:g}."
            )
        elif pw.discordant_rate == 0:
            power.append("No item changed outcome, so the eval's sensitivity cannot be estimated.")
        else:
            power.append(
                f"With {pw.items} items and {pw.discordant_rate * 100:.1f} % of them changing "
                f"outcome, no net change is detectable with {pw.power * 100:g} % power."
            )
        if pw.items_needed is not None:
            power.append(
                f"To detect the observed change ({effect.split(' [')[0]}) with "
                f"{pw.power * 100:g} % power, about {pw.items_needed:,} items would be needed."
            )

    clusters_note = None
    if c.clusters is not None:
        cl = c.clusters
        clusters_note = (
            f"Items share clusters ({cl.labelled_items} labelled items in {cl.clusters:,} "
            "clusters): the bootstrap resamples whole clusters"
        )
        if cl.standard_error is not None:
            se = cl.standard_error * scale
            clusters_note += (
                f"; cluster-robust (CR1) standard error of the difference "
                f"{se:.{1 if percent else 3}f}{unit}"
            )
        clusters_note += "."
    cost_note = _cost_note(c.cost, confidence)
    f1_note = _f1_note(c.f1, confidence)
    repeats_notes = _repeats_notes(c, percent=percent)

    plan, warnings, disclosure = _plan_rows(decision, config, percent=percent)
    conclusion = _first(decision, "conclusion")

    prov: list[Row] = []
    if provenance is not None:
        for label_, commit, run in (
            ("baseline", provenance.baseline_commit, provenance.baseline_run_url),
            ("candidate", provenance.candidate_commit, provenance.candidate_run_url),
        ):
            if commit or run:
                sha = "".join(ch for ch in (commit or "") if ch in string.hexdigits)[:12]
                text = f"`{sha}`" if sha else "run"
                prov.append(Row(label=label_, value=text, url=_safe_url(run)))
    dropped = ""
    paired = c.paired
    if paired.dropped_baseline_only or paired.dropped_candidate_only:
        dropped = (
            f"{len(paired.dropped_baseline_only)} baseline-only and "
            f"{len(paired.dropped_candidate_only)} candidate-only items dropped"
        )

    return View(
        symbol=symbol,
        outcome_label=label,
        outcome=decision.outcome,
        effect=effect,
        pvalue=pvalue,
        test=test,
        gate=decision.gate,
        reasons=decision.reasons,
        items=c.items,
        metric=c.metric,
        baseline_rate=format_rate(c.baseline.rate, percent=percent),
        baseline_ci=interval(c.baseline.confidence_interval),
        baseline_passed="" if c.baseline.passed is None else f"{c.baseline.passed}/{c.items}",
        candidate_rate=format_rate(c.candidate.rate, percent=percent),
        candidate_ci=interval(c.candidate.confidence_interval),
        candidate_passed="" if c.candidate.passed is None else f"{c.candidate.passed}/{c.items}",
        table=table,
        net=net,
        churn=churn_text,
        lists=lists,
        fingerprint=c.paired.fingerprint[:12],
        resamples=c.difference.n_resamples,
        seed=c.difference.seed,
        confidence=confidence,
        version=__version__,
        interval_method=c.baseline.interval_method,
        headline=headline,
        explanation=explanation,
        gate_symbol="✅" if decision.gate == "pass" else "❌",
        percent=percent,
        unit=unit,
        unpaired_pvalue=unpaired_pvalue,
        unpaired_note=unpaired_note,
        picture=picture or None,
        slices=slices,
        secondary=secondary,
        repeats=repeats,
        flaky=flaky,
        power=power,
        plan=plan,
        warnings=warnings,
        conclusion=None if conclusion is None else str(conclusion),
        config_change=config_change or None,
        config_path=config_path,
        provenance=prov,
        history=list(history),
        alpha=alpha,
        fingerprint_full=c.paired.fingerprint,
        dropped=dropped,
        disclosure=disclosure,
        notes=tuple(notes),
        clusters_note=clusters_note,
        cost_note=cost_note,
        f1_note=f1_note,
        repeats_notes=repeats_notes,
        gate_reasons=[r for r in decision.reasons if r.startswith("gate")]
        if decision.gate == "fail"
        else [],
    )


def _difference_text(diff: BootstrapResult, confidence: str, digits: str = ".4g") -> str:
    ci = diff.confidence_interval
    text = (
        f"difference {diff.statistic:+{digits}} [{ci.low:{digits}}, {ci.high:{digits}}] "
        f"({confidence}, paired bootstrap, {diff.method}"
    )
    if diff.n_undefined:
        text += f"; {diff.n_undefined:,} resamples undefined and left out"
    return text + ")"


def _cost_note(cost: CostResult | None, confidence: str) -> str | None:
    if cost is None:
        return None
    b, c = cost.baseline, cost.candidate
    total = f"total cost {b.total_cost:.4g} → {c.total_cost:.4g}"
    missing = b.items_without_cost + c.items_without_cost
    if missing:
        total += f" ({b.items_without_cost} + {c.items_without_cost} items without a cost, as 0)"
    if b.solved is None:
        return f"**Cost:** {total}."
    per = (
        f"**Cost per solved task:** {_maybe_none(b.cost_per_solved)} → "
        f"{_maybe_none(c.cost_per_solved)}"
    )
    if cost.difference is not None:
        per += ", " + _difference_text(cost.difference, confidence)
    return f"{per}; {total}."


def _f1_note(f1: F1Result | None, confidence: str) -> str | None:
    if f1 is None:
        return None
    text = (
        f"**Micro F1** (from per-item TP/FP/FN): {_maybe_none(f1.baseline.f1, '.3f')} → "
        f"{_maybe_none(f1.candidate.f1, '.3f')}"
    )
    if f1.difference is not None:
        text += ", " + _difference_text(f1.difference, confidence, ".3f")
    return text + "."


def _maybe_none(value: float | None, digits: str = ".4g") -> str:
    return "—" if value is None else f"{value:{digits}}"


def _repeats_notes(c: Comparison, *, percent: bool) -> list[str]:
    notes: list[str] = []
    for side, rep in (("baseline", c.repeats_baseline), ("candidate", c.repeats_candidate)):
        if rep is None:
            continue
        n, k = rep.result.items, rep.result.repeats
        shown = [(kk, v) for kk, v in rep.pass_at_k if kk in (1, k) or kk == len(rep.pass_at_k)]
        text = f"{side}: " + ", ".join(f"pass@{kk} {v * 100:.1f} %" for kk, v in shown)
        if rep.standard_error is not None and rep.budget is not None:
            b = rep.budget

            def se(value: float) -> str:
                return f"{value * 100:.1f} pp" if percent else f"{value:.3f}"

            text += (
                f"; standard error of the mean with {n:,} items × {k} repeats "
                f"{se(rep.standard_error)}"
            )
            if (b.items, b.repeats) != (n, k):
                text += (
                    f"; the same {b.budget:,} calls on {b.items:,} distinct items × {b.repeats} "
                    f"repeat{'s' if b.repeats > 1 else ''} would give {se(b.standard_error)}"
                )
        notes.append(text + ".")
    return notes


def _plan_rows(
    decision: Decision, config: Config | None, *, percent: bool
) -> tuple[list[Row], list[str], str | None]:
    """The plan's state from the Decision (read defensively: policy adds fields over time)."""
    plan: list[Row] = []
    planned = _first(decision, "planned_items")
    if planned is None and config is not None:
        planned = config.policy.sample_size
    if planned is not None:
        note = _first(decision, "plan_note")
        plan.append(
            Row(label="pre-registered items", value=f"{planned:,}" + (f" ({note})" if note else ""))
        )
    mode = _first(decision, "mode")
    if mode == "sequential":
        plan.append(Row(label="mode", value="sequential"))
    look = _first(decision, "look", "looks")
    max_looks = _first(decision, "max_looks")
    if max_looks is None and config is not None:
        max_looks = config.policy.max_looks
    if look is not None and (max_looks is not None or look > 1):
        text = f"{look}" + (f" of {max_looks}" if max_looks is not None else "")
        plan.append(Row(label="look", value=text))
    elif max_looks is not None:
        plan.append(Row(label="looks allowed", value=f"{max_looks}"))
    alpha, effective = _first(decision, "alpha"), _first(decision, "effective_alpha")
    if alpha is not None and effective is not None and effective != alpha:
        plan.append(Row(label="alpha for this look", value=f"{effective:.4g} (of {alpha:g})"))
    if _first(decision, "holdout"):
        uses, most = _first(decision, "holdout_uses"), _first(decision, "holdout_max_uses")
        text = "this analysis uses the sealed holdout"
        if uses:
            text += f", use {uses}" + (f" of {most}" if most else "")
        plan.append(Row(label="sealed set", value=text))
    margin = _first(decision, "margin")
    if margin is not None:
        met = _first(decision, "noninferior")
        shown = f"{margin * 100:g} pp" if percent else f"{margin:g}"
        verdict = "" if met is None else (": met" if met else ": not met")
        plan.append(Row(label="non-inferiority margin", value=shown + verdict))
    status = _first(decision, "plan_status")
    if status is not None:
        plan.append(Row(label="plan status", value=str(status)))
    warnings = [str(w) for w in (_first(decision, "warnings") or [])]
    note = _first(decision, "power_note")
    if _first(decision, "underpowered") and note and str(note) not in warnings:
        warnings.append(str(note))
    disclosure = _first(decision, "disclosure")
    return plan, warnings, None if disclosure is None else str(disclosure)


def _maybe(value: float, fmt: str) -> str:
    return fmt.format(value) if math.isfinite(value) else "—"


def _safe_url(url: str | None) -> str | None:
    if not url:
        return None
    quoted = quote(url, safe=":/?#[]@!$&'*+,;=%~")
    return quoted if urlsplit(quoted).scheme.lower() in ("http", "https") else None
