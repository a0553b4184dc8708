"""Comparison + Decision -> the JSON report (:mod:`.json_report`) and the View
(:mod:`.view`), in the report's numbers (:mod:`.numbers`) and words (:mod:`.words`), rendered
by :mod:`.render` in :mod:`.sandbox`; :mod:`.text` keeps evalbot's Markdown apart from
untrusted text."""
