"""``.evalbot.yml``: the pre-registered analysis plan, parsed strictly into frozen objects.

Unknown keys are refused with a "did you mean" hint; wrong types and out-of-range values are
reported with their dotted path and the bad value. Only ``yaml.safe_load`` is ever used.

The accepted keys are also described by ``evalbot/schema/evalbot.schema.json``; a test keeps
the two in agreement. Files named by the plan (``all_ids``, ``policy.items_file``,
``holdout.ids_file``) are read through a ``read_text`` callback, relative to the config file, so
the same parser serves a local checkout and the pull request's base commit fetched from GitHub.

The package: :mod:`~evalbot.plan.config.records` (the frozen plan), :mod:`~evalbot.plan.config.keys`
(the keys each section accepts), :mod:`~evalbot.plan.config.strict_yaml` (the YAML, strictly),
:mod:`~evalbot.plan.config.reader` (one mapping read with its dotted path),
:mod:`~evalbot.plan.config.sections` (one reader per section), :mod:`~evalbot.plan.config.parse`
(the
whole document), :mod:`~evalbot.plan.config.files` (read from disk) and
:mod:`~evalbot.plan.config.overrides` (the command line's flags over the plan).
"""

from __future__ import annotations

from evalbot.limits import MAX_RESAMPLES
from evalbot.plan.config.files import file_reader, load_config
from evalbot.plan.config.keys import (
    BOOTSTRAP_KEYS,
    F1_KEYS,
    FIELD_KEYS,
    GATE_KEYS,
    HOLDOUT_KEYS,
    PLAN_KEYS,
    POLICY_KEYS,
    REPORT_KEYS,
    TOP_KEYS,
)
from evalbot.plan.config.overrides import with_overrides, with_reading
from evalbot.plan.config.parse import parse_config
from evalbot.plan.config.records import (
    BootstrapConfig,
    Config,
    F1Config,
    GateConfig,
    HoldoutConfig,
    PlanConfig,
    PolicyConfig,
    ReportConfig,
)
from evalbot.plan.config.sections import field_names
from evalbot.vocabulary import BOOTSTRAP_METHODS, BootstrapMethod

#: The old names of the bootstrap method's vocabulary (kept for importers); ``MAX_RESAMPLES``
#: is re-exported for the same reason.
CiMethod = BootstrapMethod
CI_METHODS = BOOTSTRAP_METHODS

__all__ = [
    "BOOTSTRAP_KEYS",
    "CI_METHODS",
    "F1_KEYS",
    "FIELD_KEYS",
    "GATE_KEYS",
    "HOLDOUT_KEYS",
    "MAX_RESAMPLES",
    "PLAN_KEYS",
    "POLICY_KEYS",
    "REPORT_KEYS",
    "TOP_KEYS",
    "BootstrapConfig",
    "CiMethod",
    "Config",
    "F1Config",
    "GateConfig",
    "HoldoutConfig",
    "PlanConfig",
    "PolicyConfig",
    "ReportConfig",
    "field_names",
    "file_reader",
    "load_config",
    "parse_config",
    "with_overrides",
    "with_reading",
]
