"""One mapping of the plan read with its dotted path: typed values, exact messages, typo hints.

A :class:`Reader` refuses unknown keys with a "did you mean" hint and reports a wrong type or
an out-of-range value with the key's dotted path (``policy.sample_size``) and the value given.
Rates are read by :func:`evalbot.plan.rates.parse_rate`, as the flags read them; files the plan
names (id lists) through a ``read_text`` callback, relative to the config file.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from evalbot.errors import ConfigError, InputError
from evalbot.formats.builder import show
from evalbot.formats.ids import parse_id_list
from evalbot.plan.rates import DIFFERENCE_HINT, parse_difference, parse_rate

__all__ = ["ReadText", "Reader"]

ReadText = Callable[[str], str]


def _hint(key: str, allowed: list[str], prefix: str) -> str:
    close = difflib.get_close_matches(key, allowed, n=1)
    return f"; did you mean `{prefix}{close[0]}`?" if close else f"; allowed: {', '.join(allowed)}"


_Choice = TypeVar("_Choice", bound=str)
_SHA256 = re.compile(r"[0-9a-f]{64}")


class Reader:
    """Reads one mapping of the YAML, tracking the dotted path for messages."""

    def __init__(self, source: str, data: Mapping[str, Any], path: str, allowed: list[str]):
        self.source, self.data, self.path = source, data, path
        for key in data:
            if not isinstance(key, str) or key not in allowed:
                hint = _hint(str(key), allowed, self.dotted(""))
                raise ConfigError(f"{source}: unknown key `{self.dotted(str(key))}`{hint}")

    def dotted(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def error(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.source}: `{self.dotted(key)}` {message}")

    def fail(self, key: str, expected: str) -> ConfigError:
        return self.error(key, f"must be {expected}, got {show(self.data[key])}")

    def given(self, key: str) -> bool:
        return key in self.data and self.data[key] is not None

    def integer(self, key: str, default: int | None, minimum: int) -> int | None:
        if not self.given(key):
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(key, f"an integer >= {minimum}")
        return value

    def prob(self, key: str, default: float, *, low: float = 0.0, high: float = 1.0) -> float:
        """A rate strictly between ``low`` and ``high``: a number (``0.05``) or a percentage
        (``5%``), read by :func:`evalbot.plan.rates.parse_rate` as the flags are."""
        if key not in self.data:
            return default
        expected = f"a number strictly between {low:g} and {high:g} (a fraction or a percentage)"
        try:
            value = parse_rate(self.data[key])
        except ValueError:
            raise self.fail(key, expected) from None
        if not low < value < high:
            raise self.fail(key, expected)
        return value

    def difference(self, key: str) -> float | None:
        """A signed difference in pass rate: ``3pp``, ``+3%``, ``0.03``; not 0."""
        if not self.given(key):
            return None
        expected = f"{DIFFERENCE_HINT} (not 0, under 100 pp)"
        try:
            value = parse_difference(self.data[key])
        except ValueError:
            raise self.fail(key, expected) from None
        if value == 0 or not -1.0 < value < 1.0:
            raise self.fail(key, expected)
        return value

    def optional_prob(self, key: str, *, low: float = 0.0, high: float = 1.0) -> float | None:
        return self.prob(key, 0.0, low=low, high=high) if self.given(key) else None

    def choice(self, key: str, choices: tuple[_Choice, ...]) -> _Choice:
        """One of ``choices`` (a vocabulary of :mod:`evalbot.vocabulary`; the first is the
        default)."""
        if key not in self.data:
            return choices[0]
        value = self.data[key]
        for choice in choices:
            if value == choice and isinstance(value, str):
                return choice
        raise self.fail(key, "one of " + ", ".join(choices))

    def text(self, key: str, default: str | None) -> str | None:
        if not self.given(key):
            return default
        value = self.data[key]
        if not isinstance(value, str) or not value:
            raise self.fail(key, "a non-empty string")
        return value

    def sha256(self, key: str) -> str | None:
        if not self.given(key):
            return None
        value = self.data[key]
        if not isinstance(value, str) or not _SHA256.fullmatch(value):
            raise self.fail(key, "64 lowercase hexadecimal digits (a sha256)")
        return value

    def count_or_rate(self, key: str) -> tuple[int | None, float | None]:
        """An item count (``10``) or a share of the items (``5%`` or ``0.05``)."""
        if not self.given(key):
            return None, None
        value = self.data[key]
        expected = "an integer >= 0 (items) or a rate such as 5% or 0.05"
        if isinstance(value, bool):
            raise self.fail(key, expected)
        if isinstance(value, int):
            if value < 0:
                raise self.fail(key, expected)
            return value, None
        if isinstance(value, float):
            if not 0.0 <= value < 1.0:
                raise self.fail(key, expected)
            return None, value
        if isinstance(value, str):
            try:
                rate = parse_rate(value) if value.strip().endswith("%") else -1.0
            except ValueError:
                rate = -1.0
            if 0.0 <= rate < 1.0:
                return None, rate
        raise self.fail(key, expected)

    def section(self, key: str, allowed: list[str]) -> Reader:
        value = self.data.get(key, {})
        if value is None:
            value = {}
        if not isinstance(value, Mapping):
            raise self.fail(key, "a mapping")
        return Reader(self.source, value, self.dotted(key), allowed)

    def ids_file(self, key: str, read_text: ReadText | None) -> tuple[str, ...] | None:
        """The item ids listed in the file named by ``key`` (one per line)."""
        name = self.text(key, None)
        if name is None or read_text is None:
            return None
        try:
            content = read_text(name)
        except FileNotFoundError:
            raise self.error(
                key, f"names {name!r}, which does not exist (read relative to the config file)"
            ) from None
        except UnicodeDecodeError:
            raise self.error(key, f"names {name!r}, which is not valid UTF-8") from None
        except OSError as error:
            raise self.error(key, f"names {name!r}, which cannot be read ({error})") from None
        try:
            return parse_id_list(content, source=f"{name} (`{self.dotted(key)}`)")
        except InputError as error:  # the file is part of the plan
            raise ConfigError(str(error)) from None
