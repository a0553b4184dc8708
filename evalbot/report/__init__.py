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
:class:`evalbot.plan.state.Look`)."""
