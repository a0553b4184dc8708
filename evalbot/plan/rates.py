"""Pure: one reader of rates and differences, for command-line flags and ``.evalbot.yml`` alike.

A **rate** (alpha, power, confidence, a fix or break rate, a share of items) is written as a
fraction or a percentage: ``0.05``, ``5%`` and ``5 %`` are the same rate. A **difference** in
a pass rate (the change a plan should detect, a margin) may carry a sign and be written in
percentage points: ``+3 pp``, ``3pp``, ``3%``, ``0.03`` and ``+0.03`` are the same difference.
A bare number of 1 or more is refused for a difference: ``3`` could mean 3 points or 300 %.

Both readers take a number as YAML gives it (an ``int``/``float``) or text as a flag gives it,
run in time linear in the text, and raise :class:`ValueError` with a message that quotes the
value and shows how to write it; the callers name the flag or the key and check the range.
"""

from __future__ import annotations

import math
import re

__all__ = ["DIFFERENCE_HINT", "RATE_HINT", "parse_difference", "parse_rate"]

#: How a rate is written, for messages.
RATE_HINT = "a rate such as 5% or 0.05"
#: How a difference is written, for messages.
DIFFERENCE_HINT = "a difference such as +3pp, 3%, or 0.03"

# a plain decimal number (no exponent sign tricks beyond the usual), then an optional unit
_NUMBER = r"[+\-\u2212]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+\-]?\d+)?"
_RATE = re.compile(rf"\s*({_NUMBER})\s*(%?)\s*")
_DIFFERENCE = re.compile(rf"\s*({_NUMBER})\s*(%|pp|p\.p\.|points?)?\s*", re.IGNORECASE)
#: Longest text looked at: a rate is a handful of characters, and a message quotes the value.
_MAX_CHARS = 64


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_CHARS else text[: _MAX_CHARS - 4] + "...'"


def _number(text: str) -> float:
    return float(text.replace("\u2212", "-"))


def parse_rate(value: object) -> float:
    """A rate as a fraction: ``0.05``, ``"0.05"``, ``"5%"`` and ``"5 %"`` all give 0.05.

    >>> parse_rate("6%"), parse_rate(0.8), parse_rate(" 2.5 % ")
    (0.06, 0.8, 0.025)
    """
    if isinstance(value, bool):
        raise ValueError(f"expected {RATE_HINT}, got {_show(value)}")
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and len(value) <= _MAX_CHARS:
        match = _RATE.fullmatch(value)
        if match is None:
            raise ValueError(f"expected {RATE_HINT}, got {_show(value)}")
        number = _number(match.group(1))
        if match.group(2):
            number = _tidy(number / 100.0)
    else:
        raise ValueError(f"expected {RATE_HINT}, got {_show(value)}")
    if not math.isfinite(number):
        raise ValueError(f"expected {RATE_HINT}, got {_show(value)}")
    return number


def parse_difference(value: object) -> float:
    """A signed difference in pass rate as a fraction: ``"+3 pp"``, ``"3pp"``, ``"3%"`` and
    ``"0.03"`` all give 0.03, ``"-2pp"`` gives -0.02.

    A bare number must be below 1 in size (a fraction); ``3`` is refused, since it could mean
    3 points or 300 %.

    >>> parse_difference("+3 pp"), parse_difference("3%"), parse_difference("-0.02")
    (0.03, 0.03, -0.02)
    """
    if isinstance(value, bool):
        raise ValueError(f"expected {DIFFERENCE_HINT}, got {_show(value)}")
    unit = ""
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and len(value) <= _MAX_CHARS:
        match = _DIFFERENCE.fullmatch(value)
        if match is None:
            raise ValueError(f"expected {DIFFERENCE_HINT}, got {_show(value)}")
        number, unit = _number(match.group(1)), (match.group(2) or "").lower()
    else:
        raise ValueError(f"expected {DIFFERENCE_HINT}, got {_show(value)}")
    if not math.isfinite(number):
        raise ValueError(f"expected {DIFFERENCE_HINT}, got {_show(value)}")
    if unit:
        return _tidy(number / 100.0)
    if abs(number) >= 1.0:
        raise ValueError(
            f"a difference of {_show(value)} is ambiguous: write {number:g}pp for "
            f"{number:g} percentage points, or a fraction below 1 such as {number / 100:g}"
        )
    return number


def _tidy(number: float) -> float:
    """``6 / 100`` is 0.06000000000000001 in binary; round away that last-digit noise so
    ``6%`` and ``0.06`` are the same float (12 significant digits are far beyond any rate)."""
    return float(f"{number:.12g}")
