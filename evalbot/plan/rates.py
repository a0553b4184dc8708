"""Pure: one reader of rates and differences, for command-line flags and ``.evalbot.yml`` alike.

A rate (alpha, power, a fix rate, a share of items) is a fraction or a percentage: ``0.05``,
``5%``. A difference in pass rate may carry a sign and be in percentage points: ``+3 pp``,
``3%``, ``0.03``; a bare ``3`` is refused (3 points or 300 %?). Standard library only: the
shell's ``--help`` loads it.
"""

from __future__ import annotations

import math
import re

#: How a rate is written (``0.05``, ``5%``, ``5 %``), for messages.
RATE_HINT = "a rate such as 5% or 0.05"
#: How a signed difference in pass rate is written (``+3 pp``, ``3%``, ``0.03``), for messages.
DIFFERENCE_HINT = "a difference such as +3pp, 3%, or 0.03"
_NUMBER = r"[+\-\u2212]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+\-]?\d+)?"
_RATE = re.compile(rf"\s*({_NUMBER})\s*(%?)\s*")
_DIFFERENCE = re.compile(rf"\s*({_NUMBER})\s*(%|pp|p\.p\.|points?)?\s*", re.IGNORECASE)
_MAX_CHARS = 64  # a rate is a handful of characters, and a message quotes the value


def _quote(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_CHARS else text[: _MAX_CHARS - 4] + "...'"


def _tidy(number: float) -> float:
    """``6 / 100`` is 0.06000000000000001: 12 significant digits make ``6%`` equal ``0.06``."""
    return float(f"{number:.12g}")


def _read_number(value: object, pattern: re.Pattern[str], hint: str) -> tuple[float, str]:
    """A YAML number or a flag's text as (number, its unit in lower case); ``ValueError``
    quoting the value otherwise. Linear in the text, whose length is bounded."""
    number, unit = math.nan, ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str) and len(value) <= _MAX_CHARS:
        match = pattern.fullmatch(value)
        if match is not None:
            number = float(match.group(1).replace("\u2212", "-"))
            unit = (match.group(2) or "").lower()
    if not math.isfinite(number):
        raise ValueError(f"expected {hint}, got {_quote(value)}")
    return number, unit


def parse_rate(value: object) -> float:
    """A rate as a fraction: ``0.05``, ``"0.05"``, ``"5%"`` and ``"5 %"`` all give 0.05.

    >>> parse_rate("6%"), parse_rate(0.8), parse_rate(" 2.5 % ")
    (0.06, 0.8, 0.025)
    """
    number, unit = _read_number(value, _RATE, RATE_HINT)
    return _tidy(number / 100.0) if unit else number


def parse_difference(value: object) -> float:
    """A signed difference in pass rate as a fraction: ``"+3 pp"``, ``"3pp"``, ``"3%"`` and
    ``"0.03"`` all give 0.03. A bare number must be below 1 in size: ``3`` could mean 3
    points or 300 %.

    >>> parse_difference("+3 pp"), parse_difference("3%"), parse_difference("-0.02")
    (0.03, 0.03, -0.02)
    """
    number, unit = _read_number(value, _DIFFERENCE, DIFFERENCE_HINT)
    if unit:
        return _tidy(number / 100.0)
    if abs(number) >= 1.0:
        raise ValueError(
            f"a difference of {_quote(value)} is ambiguous: write {number:g}pp for "
            f"{number:g} percentage points, or a fraction below 1 such as {number / 100:g}"
        )
    return number


def split(difference: float, discordance: float) -> tuple[float, float]:
    """Fix and break rates from the net difference and the discordance: ``(D ± R) / 2``."""
    return _tidy((discordance + difference) / 2), _tidy(max(0.0, (discordance - difference) / 2))
