"""What the harness parsers share: the choice of the one scorer, metric or filter compared among
those a run has, and a per-item value read as a pass/fail outcome or a score."""

from __future__ import annotations

import math
import shlex

from evalbot.errors import InputError
from evalbot.formats.builder import show


def how_to_choose(flag: str, example: str) -> str:
    """The end of a message that asks to choose: ``choose one, e.g. --scorer a (config
    `scorer:`)``."""
    return f"choose one, e.g. --{flag} {shlex.quote(example)} (config `{flag}:`)"


def choose(
    names: list[str], wanted: str | None, where: str, flag: str, *, several: str, unknown: str = ""
) -> str:
    """``wanted`` when it is one of ``names`` (or there are none), else the only name (``""``
    when there is none). ``several`` opens the message when there are several names (``{}``:
    the names), ``unknown`` the one for a name the run does not have (the name, then the
    names); each ends with how to choose (``--flag``, config ``flag:``)."""
    listed = ", ".join(names)
    if wanted is not None:
        if names and wanted not in names:
            raise InputError(
                f"{where}: {unknown.format(show(wanted), listed)} (choose one with --{flag} NAME, "
                f"config `{flag}:`)"
            )
        return wanted
    if len(names) > 1:
        raise InputError(f"{where}: {several.format(listed)}; {how_to_choose(flag, names[0])}")
    return names[0] if names else ""


def number_or_flag(value: object, where: str, label: str) -> tuple[float, bool] | None:
    """(value, whether it is a pass/fail outcome) of a boolean or a finite number, ``None`` for
    any other value; ``label`` names the field when a number is not finite."""
    if isinstance(value, bool):
        return float(value), True
    if not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer beyond the float range
        number = math.inf
    if not math.isfinite(number):
        raise InputError(f"{where}: {label} must be finite, got {show(value)}")
    return number, False
