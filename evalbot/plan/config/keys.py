"""The keys ``.evalbot.yml`` accepts, section by section, written once.

The readers refuse any other key (with a hint); a test keeps these lists and the JSON Schema
(``evalbot/schema/evalbot.schema.json``) in agreement.
"""

from __future__ import annotations

from evalbot.formats.options import FieldNames

__all__ = [
    "BOOTSTRAP_KEYS",
    "F1_KEYS",
    "FIELD_KEYS",
    "GATE_KEYS",
    "HOLDOUT_KEYS",
    "PLAN_KEYS",
    "POLICY_KEYS",
    "REPORT_KEYS",
    "TOP_KEYS",
]

#: ``fields:`` one key per role a field plays (``id``, ``passed``, ``score`` ...).
FIELD_KEYS = list(FieldNames.__dataclass_fields__)
TOP_KEYS = [
    "metric",
    "alpha",
    "test",
    "mcnemar",
    "format",
    "scorer",
    "filter",
    "all_ids",
    "secondary_metrics",
    "f1",
    "fields",
    "bootstrap",
    "plan",
    "policy",
    "holdout",
    "gate",
    "report",
]
REPORT_KEYS = ["item_url", "template"]
BOOTSTRAP_KEYS = ["resamples", "seed", "confidence", "method"]
F1_KEYS = ["tp", "fp", "fn"]
PLAN_KEYS = ["fix_rate", "break_rate", "difference", "discordance", "power", "design_effect"]
POLICY_KEYS = [
    "sample_size",
    "max_looks",
    "missing",
    "mode",
    "looks",
    "items_sha256",
    "items_file",
    "min_effect",
    "errors",
]
HOLDOUT_KEYS = ["ids_file", "max_uses"]
GATE_KEYS = ["fail_on", "max_broken", "margin", "on_refused", "on_no_baseline"]
