"""Pure: the records the templates read. :class:`View` holds one comparison, every number
already a string; the small records are its rows and lists.

The view is part of the public contract of custom templates (``report.template``): fields are
added, never renamed or removed.

The types say what may be printed as it is. A field typed :class:`~evalbot.report.text.Markdown` is
evalbot's own text (a number, a label, a sentence of numbers). A field typed ``str`` may hold
input (an item id, a slice or scorer name, a reason that quotes a file), and the templates
escape it whenever it is printed; at run time such a field may still hold ``Markdown`` (say the
headline of a verdict that was not refused), which is then printed as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evalbot.report.text import EMPTY, Markdown

__all__ = [
    "HistoryRow",
    "InputRow",
    "Inputs",
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
    url: Markdown | None = None


@dataclass(frozen=True, kw_only=True)
class ItemList:
    """A list of item ids; ``entries`` may hold fewer than ``total`` (the rest are counted)."""

    key: str
    title: Markdown
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
    name: str  # the results' slice label: input
    items: int
    baseline: Markdown
    candidate: Markdown
    difference: Markdown
    fixed: Markdown
    broken: Markdown
    pvalue: Markdown
    qvalue: Markdown
    significant: bool


@dataclass(frozen=True, kw_only=True)
class SecondaryRow:
    name: str  # the results' metric or scorer name: input
    baseline: Markdown
    candidate: Markdown
    effect: Markdown
    test: Markdown  # the test's name (a fixed vocabulary of method names)
    pvalue: Markdown
    adjusted_pvalue: Markdown
    significant: bool


@dataclass(frozen=True, kw_only=True)
class RepeatsRow:
    side: Markdown
    epochs: int
    flaky: Markdown
    always_pass: int
    always_fail: int
    within_item_variance: Markdown
    intraclass_correlation: Markdown
    majority_vote: Markdown


@dataclass(frozen=True, kw_only=True)
class Row:
    """A labelled line of the plan or provenance tables: the plan's values may quote the
    policy's text (escaped), the provenance's are evalbot's Markdown (a commit as code)."""

    label: Markdown
    value: str
    url: Markdown | None = None


@dataclass(frozen=True, kw_only=True)
class HistoryRow:
    """An earlier verdict on the same pull request, as the history table shows it (the action
    builds these from the looks of :class:`evalbot.plan.state.State`; every value is display text,
    escaped when printed: the looks come from records that may be tampered with)."""

    label: str
    outcome: str
    effect: str
    pvalue: str
    commit: str = ""
    url: Markdown | None = None
    at: str = ""  # when, as format_time shows it ("" when unknown)


@dataclass(frozen=True, kw_only=True)
class Provenance:
    """Where the two runs came from; the action fills what it knows."""

    baseline_commit: str | None = None
    baseline_run_url: str | None = None
    candidate_commit: str | None = None
    candidate_run_url: str | None = None


@dataclass(frozen=True, kw_only=True)
class Inputs:
    """The files (or runs) the CLI compared, as given: which was the baseline, which the
    candidate, and how many items each held, so swapped arguments show."""

    baseline: str
    candidate: str
    baseline_items: int | None = None
    candidate_items: int | None = None


@dataclass(frozen=True, kw_only=True)
class InputRow:
    """One side of :class:`Inputs` as the templates show it: ``source`` is untrusted text (a
    path, escaped on output); ``side`` and ``items`` ("400 items", "" when unknown) are
    evalbot's."""

    side: Markdown
    source: str
    items: Markdown = EMPTY


@dataclass(frozen=True, kw_only=True)
class View:
    """What the templates read: every number already a string.

    Fields after ``interval_method`` are optional additions; templates test them before use,
    so a custom template written for an older view keeps working.
    """

    symbol: Markdown
    outcome_label: Markdown
    outcome: Markdown
    effect: Markdown
    pvalue: Markdown
    test: Markdown
    gate: Markdown
    reasons: list[str]  # the policy's reasons, which may quote input
    items: int
    metric: Markdown
    baseline_rate: Markdown
    baseline_ci: Markdown
    baseline_passed: Markdown
    candidate_rate: Markdown
    candidate_ci: Markdown
    candidate_passed: Markdown
    table: dict[str, int] | None
    net: Markdown
    churn: Markdown
    lists: list[ItemList]
    fingerprint: Markdown
    resamples: int
    seed: int
    confidence: Markdown
    version: Markdown
    interval_method: Markdown
    # --- added beside the original fields -------------------------------------------------
    headline: str = ""  # a refused verdict's headline is the policy's reason: input
    explanation: Markdown = EMPTY
    gate_symbol: Markdown = EMPTY
    percent: bool = True
    unit: Markdown = EMPTY
    unpaired_pvalue: Markdown | None = None
    unpaired_note: Markdown = EMPTY
    picture: Markdown | None = None
    slices: list[SliceRow] = field(default_factory=list)
    # what a slice's p-value tests when items share clusters (None otherwise)
    slice_units: Markdown | None = None
    secondary: list[SecondaryRow] = field(default_factory=list)
    repeats: list[RepeatsRow] = field(default_factory=list)
    flaky: ItemList | None = None
    power: list[Markdown] = field(default_factory=list)
    plan: list[Row] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    conclusion: str | None = None  # the check run's conclusion when policy gives one
    config_change: str | None = None  # the pull request's diff: input
    config_path: str = ".evalbot.yml"  # the config file the pull request changes
    provenance: list[Row] = field(default_factory=list)
    history: list[HistoryRow] = field(default_factory=list)
    alpha: Markdown = EMPTY
    fingerprint_full: Markdown = EMPTY
    gate_reasons: list[str] = field(default_factory=list)
    disclosure: str | None = None
    # Markdown the caller wrote (the action: where the baseline came from, a missing config),
    # built with evalbot.report.text so that what it quotes is escaped
    notes: tuple[Markdown, ...] = ()
    # one sentence each (numbers only, no text from a result file): clusters, cost per solved
    # task, micro F1, and per side with repeats pass@k and the budget advice
    clusters_note: Markdown | None = None
    cost_note: Markdown | None = None
    f1_note: Markdown | None = None
    repeats_notes: list[Markdown] = field(default_factory=list)
    # the compared files, baseline then candidate (the CLI; the action names its runs in the
    # notes and the provenance instead)
    inputs: list[InputRow] = field(default_factory=list)
    # where the words of the report are explained (evalbot's own URL)
    glossary_url: Markdown = EMPTY
    # Cohen's d_z beside a difference of numeric scores (numbers only); how the difference's
    # interval was made ("Tango score interval, continuity-corrected", "paired bootstrap
    # (percentile, resampling items), 10,000 resamples, seed 0", "exact sign-flip", ...)
    effect_size_note: Markdown | None = None
    bootstrap_note: Markdown | None = None
    difference_method: Markdown = EMPTY
    # the items a run did not evaluate, what the plan did with them, and the first few ids
    not_evaluated: Markdown | None = None
