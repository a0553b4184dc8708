"""The plan as frozen records: :class:`Config` and one record per section of ``.evalbot.yml``.

Every field has the default a user gets without a config file (the defaults and closed choices
are :mod:`evalbot.vocabulary`'s).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evalbot.formats.options import FieldNames, ReadOptions
from evalbot.vocabulary import (
    ALPHA,
    BOOTSTRAP_METHODS,
    CONFIDENCE,
    ERRORS_RULES,
    FAIL_ON_CHOICES,
    LOOKS_RULES,
    MCNEMAR_METHODS,
    MISSING_RULES,
    MODES,
    ON_NO_BASELINE_CHOICES,
    ON_REFUSED_CHOICES,
    POWER,
    PRIMARY_TESTS,
    RESAMPLES,
    SEED,
    BootstrapMethod,
    ErrorsRule,
    FailOn,
    LooksRule,
    McNemarMethod,
    Missing,
    Mode,
    OnNoBaseline,
    OnRefused,
    PrimaryTest,
)

__all__ = [
    "BootstrapConfig",
    "Config",
    "F1Config",
    "GateConfig",
    "HoldoutConfig",
    "PlanConfig",
    "PolicyConfig",
    "ReportConfig",
]


@dataclass(frozen=True, kw_only=True)
class BootstrapConfig:
    resamples: int = RESAMPLES
    seed: int = SEED
    confidence: float = CONFIDENCE
    method: BootstrapMethod = BOOTSTRAP_METHODS[
        0
    ]  # percentile or bias-corrected and accelerated (BCa)


@dataclass(frozen=True, kw_only=True)
class F1Config:
    """``f1:`` the per-item fields holding true positives, false positives, false negatives."""

    tp: str = "tp"
    fp: str = "fp"
    fn: str = "fn"

    @property
    def columns(self) -> tuple[str, str, str]:
        return (self.tp, self.fp, self.fn)


@dataclass(frozen=True, kw_only=True)
class PlanConfig:
    """``plan:`` the effect the eval must be able to detect; the item count is computed from it.

    ``design_effect`` (>= 1) is the variance inflation of clustered items (Kish's
    ``1 + (m - 1) ICC``): the planned items are multiplied by it, and the report's minimum
    detectable effect divides the items by it when the results carry no cluster labels to
    estimate it from.
    """

    fix_rate: float
    break_rate: float
    power: float = POWER
    # variance inflation of clustered items (Kish: 1 + (m - 1) ICC): items needed times it
    design_effect: float = 1.0


@dataclass(frozen=True, kw_only=True)
class PolicyConfig:
    sample_size: int | None = None
    max_looks: int | None = None
    missing: Missing = MISSING_RULES[0]
    mode: Mode = MODES[0]
    looks: LooksRule = LOOKS_RULES[0]
    items_sha256: str | None = None
    items_file: str | None = None
    min_effect: float | None = None
    errors: ErrorsRule = ERRORS_RULES[0]


@dataclass(frozen=True, kw_only=True)
class ReportConfig:
    """``report:`` how the comment shows items: a link template and an optional own template."""

    item_url: str | None = None  # e.g. "https://logs.example/{id}"; the id is URL-quoted
    template: str | None = None  # a jinja2 template file replacing the bundled comment


@dataclass(frozen=True, kw_only=True)
class HoldoutConfig:
    """``holdout:`` a sealed set of item ids, analysed only on request and counted per use."""

    ids_file: str
    max_uses: int | None = None
    ids: tuple[str, ...] | None = None  # the ids read from ``ids_file`` (None: not read)


@dataclass(frozen=True, kw_only=True)
class GateConfig:
    fail_on: FailOn = FAIL_ON_CHOICES[0]
    max_broken: int | None = None  # an absolute item count
    max_broken_rate: float | None = None  # a share of the items (``5%`` or ``0.05``)
    margin: float | None = None  # non-inferiority margin, in the metric's units
    # a verdict the plan refused (an extra look, other items, another item count, a tampered
    # looks ledger): ``fail`` the check (the default) or leave it ``neutral``
    on_refused: OnRefused = ON_REFUSED_CHOICES[0]
    on_no_baseline: OnNoBaseline = ON_NO_BASELINE_CHOICES[0]


@dataclass(frozen=True, kw_only=True)
class Config:
    """The whole plan; every field has the default a user gets without a config file."""

    metric: str | None = None
    alpha: float = ALPHA
    mcnemar: McNemarMethod = MCNEMAR_METHODS[0]
    test: PrimaryTest = PRIMARY_TESTS[0]
    format: str | None = None
    scorer: str | None = None
    filter: str | None = None
    all_ids: str | None = None
    # the ids the ``all_ids`` file names, read relative to the config file (the action: at the
    # base commit); None when not read (no such key, or parsed without a reader)
    all_ids_list: tuple[str, ...] | None = None
    secondary_metrics: tuple[str, ...] = ()
    f1: F1Config | None = None
    fields: FieldNames = field(default_factory=FieldNames)
    bootstrap: BootstrapConfig = field(default_factory=BootstrapConfig)
    plan: PlanConfig | None = None
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    holdout: HoldoutConfig | None = None
    gate: GateConfig = field(default_factory=GateConfig)
    report: ReportConfig = field(default_factory=ReportConfig)
    source: str = "(defaults)"

    def read_options(self) -> ReadOptions:
        """How the result files are read under this plan."""
        return ReadOptions(
            fields=self.fields,
            metric=self.metric,
            format=self.format,
            scorer=self.scorer,
            filter=self.filter,
            all_ids=self.all_ids,
            known_ids=self.all_ids_list,
            secondary=self.secondary_metrics,
            columns=() if self.f1 is None else self.f1.columns,
        )
