"""Pure: Comparison + Decision -> the JSON report and the view-model the templates read.

- :mod:`.json_report`: the ``--format json`` report (:func:`build_json`); its ``decision``
  section and p-values with their precision: :mod:`.decision_section`;
- :mod:`.reasons`: the decision's reasons in words, once; :mod:`.verdict`: the verdict line;
- :mod:`.view`: the :class:`View` of one comparison (:func:`build_view`) and its verdict line;
- :mod:`.tables`: the view's tables and lists; :mod:`.plan`: the plan's rows;
  :mod:`.notes`: one-sentence notes (clusters, cost, F1, repeats);
- :mod:`.records`: the frozen records the templates read;
- :mod:`.numbers`: number formatting (p-values, effects, rates, times);
- :mod:`.picture`: the interval drawn on a scale; :mod:`.links`: item ids and their links.

Every name that was importable from the single ``report.py`` module is importable from here,
but ``Look``: the row of an earlier look is :class:`HistoryRow` (the look itself is
:class:`evalbot.state.Look`).
"""

from __future__ import annotations

from evalbot.report.json_report import SCHEMA_VERSION, build_json, decision_json, pvalue_json
from evalbot.report.links import MAX_ID_CHARS, item_link
from evalbot.report.numbers import (
    format_effect,
    format_estimate,
    format_pvalue,
    format_rate,
    format_time,
    p_clause,
    pvalue_output,
)
from evalbot.report.picture import interval_picture
from evalbot.report.records import (
    HistoryRow,
    InputRow,
    Inputs,
    ItemEntry,
    ItemList,
    Provenance,
    RepeatsRow,
    Row,
    SecondaryRow,
    SliceRow,
    View,
)
from evalbot.report.view import OUTCOME_LABELS, build_view

__all__ = [
    "MAX_ID_CHARS",
    "OUTCOME_LABELS",
    "SCHEMA_VERSION",
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
    "build_json",
    "build_view",
    "decision_json",
    "format_effect",
    "format_estimate",
    "format_pvalue",
    "format_rate",
    "format_time",
    "interval_picture",
    "item_link",
    "p_clause",
    "pvalue_json",
    "pvalue_output",
]
