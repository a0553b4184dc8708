"""The plan with the command line's overrides: reading flags and bootstrap flags.

A flag given replaces the plan's value; a flag not given (``None``) leaves it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from evalbot.plan.config.records import Config
from evalbot.plan.config.sections import field_names

__all__ = ["with_overrides", "with_reading"]


def with_reading(
    config: Config,
    *,
    fields: Mapping[str, str | None] | None = None,
    **settings: str | None,
) -> Config:
    """The config with command-line reading overrides: field names (``--id-field`` ...) and
    ``metric``/``scorer``/``filter``/``all_ids``/``format``; ``None`` values are ignored."""
    given_fields = {k: v for k, v in (fields or {}).items() if v is not None}
    changes: dict[str, Any] = {k: v for k, v in settings.items() if v is not None}
    if "all_ids" in changes:  # the flag's file (relative to the cwd) replaces the plan's
        changes["all_ids_list"] = None
    if given_fields:
        changes["fields"] = field_names(given_fields, "command line", base=config.fields)
    return replace(config, **changes) if changes else config


def with_overrides(config: Config, **bootstrap: Any) -> Config:
    """The config with command-line bootstrap overrides (``None`` values are ignored)."""
    given = {k: v for k, v in bootstrap.items() if v is not None}
    if not given:
        return config
    return replace(config, bootstrap=replace(config.bootstrap, **given))
