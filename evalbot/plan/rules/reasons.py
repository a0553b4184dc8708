"""Pure: the reasons of a decision, as data.

Every rule of the plan that speaks (a test, a refusal, the gate, a disclosure, a warning)
returns a :class:`Reason`: a code from a closed vocabulary, the observed value and the
threshold it was held against with their unit, and the config key and command-line flag the
rule comes from. The report words them (:mod:`evalbot.report.words`), once, in the metric's
unit; nothing here is English to be parsed again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

from evalbot.stats.pvalue import PValue

__all__ = ["KINDS", "REASON_CODES", "Kind", "Reason", "ReasonCode", "Unit"]

ReasonCode = Literal[
    # the primary test against alpha
    "significant",
    "not_significant",
    "unresolved",
    # what the eval can and cannot show
    "underpowered_gain",
    "tripwire",
    "powerless",
    # refusals: the plan was not followed, no verdict
    "sample_size",
    "sequential_cap",
    "item_set",
    "fixed_items_not_evaluated",
    "holdout_unconfigured",
    "holdout_missing",
    "item_shopping",
    "too_many_looks",
    "records_disagree",
    "sequential_score",
    "clusters_sequential",
    # the gate
    "gate_refused",
    "gate_regression",
    "gate_not_improvement",
    "gate_max_broken",
    "gate_margin",
    # disclosures: how the data were handled
    "bonferroni",
    "dropped_missing",
    "filled_missing",
    "not_evaluated",
    "clusters_mcnemar",
    # warnings
    "identical_runs",
    "state_ignored",
    "items_file_unread",
    "holdout_overused",
]
REASON_CODES: tuple[ReasonCode, ...] = get_args(ReasonCode)

#: What a reason is: the test's result, a limit of the eval's power, a refusal of the plan,
#: a condition of the gate, a disclosure, or a warning.
Kind = Literal["test", "power", "violation", "gate", "note", "warning"]

KINDS: dict[ReasonCode, Kind] = {
    "significant": "test",
    "not_significant": "test",
    "unresolved": "test",
    "underpowered_gain": "power",
    "tripwire": "power",
    "powerless": "power",
    "sample_size": "violation",
    "sequential_cap": "violation",
    "item_set": "violation",
    "fixed_items_not_evaluated": "violation",
    "holdout_unconfigured": "violation",
    "holdout_missing": "violation",
    "item_shopping": "violation",
    "too_many_looks": "violation",
    "records_disagree": "violation",
    "sequential_score": "violation",
    "clusters_sequential": "violation",
    "gate_refused": "gate",
    "gate_regression": "gate",
    "gate_not_improvement": "gate",
    "gate_max_broken": "gate",
    "gate_margin": "gate",
    "bonferroni": "note",
    "dropped_missing": "note",
    "filled_missing": "note",
    "not_evaluated": "note",
    "clusters_mcnemar": "note",
    "identical_runs": "warning",
    "state_ignored": "warning",
    "items_file_unread": "warning",
    "holdout_overused": "warning",
}

#: The unit of ``observed`` and ``threshold``: ``pp`` a difference in pass rate (a fraction,
#: shown in percentage points), ``score`` a difference in the metric's own unit, ``items``,
#: ``looks``, ``uses`` (of the sealed holdout), ``p`` a p-value or significance level,
#: ``share`` a fraction of the items, ``sha256`` an item-set fingerprint.
Unit = Literal["pp", "score", "items", "looks", "uses", "p", "share", "sha256"]

Detail = float | int | str | None


@dataclass(frozen=True, kw_only=True)
class Reason:
    """One reason of a decision.

    Attributes
    ----------
    code : ReasonCode
        What happened (a closed vocabulary; :data:`KINDS` gives its kind).
    observed, threshold
        The value seen and the limit it was held against, in ``unit`` (a p-value and the
        alpha it was judged at; the items the eval has and the items the plan registered).
    unit : Unit or None
    rule : str or None
        The config key the rule comes from (``policy.sample_size``), with its value where the
        key is a choice (``gate.fail_on: significant_regression``).
    flag : str or None
        The command-line flag that sets it, where there is one (``--missing``).
    pvalue : PValue or None
        The p-value with its precision, for the test's reasons.
    details : mapping
        Further numbers and labels a reason needs (the test's name, a commit's short sha, the
        items needed to satisfy a rule); plain values only.
    """

    code: ReasonCode
    observed: float | str | None = None
    threshold: float | str | None = None
    unit: Unit | None = None
    rule: str | None = None
    flag: str | None = None
    pvalue: PValue | None = None
    details: Mapping[str, Detail] = field(default_factory=dict)

    @property
    def kind(self) -> Kind:
        return KINDS[self.code]
