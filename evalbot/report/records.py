"""Pure: the records the templates read. :class:`View` holds one comparison, every number
already a string; the small records are its rows and lists.

The view is part of the public contract of custom templates (``report.template``): fields are
added, never renamed or removed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "HistoryRow",
    "ItemEntry",
    "ItemList",
    "Provenance",
    "RepeatsRow",
    "Row",
    "SecondaryRow",
    "SliceRow",
    "View",
]


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
class HistoryRow:
    """An earlier verdict on the same pull request, as the history table shows it (the action
    builds these from the looks of :class:`evalbot.state.State`; every value is display text)."""

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
    history: list[HistoryRow] = field(default_factory=list)
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
