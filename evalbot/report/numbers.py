"""Pure: numbers as the report shows them (p-values, effects, rates, times).

Every rendering (comment, job summary, the CLI's markdown and text, the action's history rows)
formats through these, so the same number always reads the same way. What they return is
evalbot's own text (:class:`~evalbot.report.text.Markdown`): numbers and units, never input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime

from evalbot.report.text import Markdown
from evalbot.stats.pvalue import PValue

__all__ = [
    "Scale",
    "format_effect",
    "format_end",
    "format_estimate",
    "format_pvalue",
    "format_rate",
    "format_time",
    "maybe",
    "maybe_none",
    "p_clause",
    "pvalue_output",
    "signed",
]


def format_pvalue(p: float | PValue) -> Markdown:
    """A p-value for tables and the verdict line: ``"0.016"``, ``"0.0021"``, ``"1"``, or a
    bound: ``"< 0.0001"`` below that, and for a p-value known only as a bound (a bootstrap p
    with no resample past zero: ``p < 2/B``) the bound rounded up, ``"< 0.0002"``. Never
    ``"0"``."""
    if isinstance(p, PValue):
        if p.bound == "upper":
            return Markdown("< " + _round_up(max(p.value, 0.0001)))
        p = p.value
    if p < 0.0001:
        return Markdown("< 0.0001")
    if p >= 0.9995:
        return Markdown("1")
    return Markdown(f"{p:.4f}" if p < 0.01 else f"{p:.3f}")


def pvalue_output(p: PValue) -> str:
    """The action's ``p-value`` output: the number to 6 significant digits (``0.0160907``;
    an exact p-value below the float range from its logarithm, ``1.47213e-331``), or for a
    p-value known only as a bound ``<`` and the bound (``<0.0002``). Never ``0``."""
    if p.bound == "upper":
        return f"<{p.value:.6g}"
    if p.kind == "below_float_range":
        return p.format(6)
    return f"{p.value:.6g}"


def _round_up(value: float) -> str:
    """``value`` to two significant digits, rounded up (so "< bound" stays true)."""
    exponent = math.floor(math.log10(value)) - 1
    step = 10.0**exponent
    shown = math.ceil(value / step - 1e-9) * step
    return f"{shown:.{max(0, -exponent)}f}"


def p_clause(pvalue: str) -> str:
    """ "p = 0.016" or "p < 0.0001" from a formatted p-value (Markdown when ``pvalue`` is)."""
    clause = f"p {pvalue}" if pvalue.startswith("<") else f"p = {pvalue}"
    return Markdown(clause) if isinstance(pvalue, Markdown) else clause


def format_estimate(estimate: float, *, percent: bool) -> Markdown:
    """ "+4.3 pp" for rates; "+0.043" for scores (the estimate of :func:`format_effect`)."""
    if percent:
        return Markdown(f"{signed(estimate * 100, 1)} pp")
    return signed(estimate, 3)


def format_end(value: float, *, percent: bool) -> Markdown:
    """An interval's end: "7.5" (percentage points) or "0.075"; "-∞" or "+∞" unbounded. An end
    that is not zero never reads as zero: it gets the digits that show its sign ("-0.04")."""
    if math.isinf(value):
        return Markdown("+∞" if value > 0 else "-∞")
    shown, digits = (value * 100.0, 1) if percent else (value, 3)
    text = f"{shown:.{digits}f}"
    if shown != 0.0 and float(text) == 0.0:
        more = min(digits + 6, -math.floor(math.log10(abs(shown))))
        text = f"{shown:.{more}f}"
    return Markdown(text)


def format_effect(estimate: float, low: float, high: float, *, percent: bool) -> Markdown:
    """ "+4.3 pp [1.0, 7.5]" for rates; "+0.043 [0.010, 0.075]" for scores; an unbounded end
    (a test that cannot reject any shift with this few items) is "-∞" or "+∞", and an interval
    unbounded both ways says so: "+0.230 [unbounded: too few items]"."""
    shown = format_estimate(estimate, percent=percent)
    if math.isinf(low) and math.isinf(high):
        return Markdown(f"{shown} [unbounded: too few items]")
    low_text, high_text = format_end(low, percent=percent), format_end(high, percent=percent)
    return Markdown(f"{shown} [{low_text}, {high_text}]")


def signed(value: float, digits: int) -> Markdown:
    """``value`` with its sign and ``digits`` decimals; a value that rounds to zero is "±0"."""
    text = f"{value:+.{digits}f}"
    # -0.0 reads as a regression that is not there
    return Markdown(
        text.replace("-0." + "0" * digits, "±0." + "0" * digits).replace(
            "+0." + "0" * digits, "±0." + "0" * digits
        )
    )


def format_time(at: str) -> str:
    """An ISO 8601 time as "2026-11-30 09:00 UTC" (other offsets converted), as Markdown;
    text that is not a time is returned as it is (a plain, untrusted ``str``)."""
    try:
        when = datetime.fromisoformat(at)
    except ValueError:
        return at
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return Markdown(when.strftime("%Y-%m-%d %H:%M") + (" UTC" if when.tzinfo is not None else ""))


def format_rate(rate: float, *, percent: bool) -> Markdown:
    return Markdown(f"{rate * 100:.1f} %" if percent else f"{rate:.3f}")


def maybe(value: float, fmt: str) -> Markdown:
    """``fmt`` applied to a finite ``value``; "—" for NaN or infinity (undefined)."""
    return Markdown(fmt.format(value) if math.isfinite(value) else "—")


def maybe_none(value: float | None, digits: str = ".4g") -> Markdown:
    """``value`` formatted with ``digits``; "—" for ``None`` (undefined)."""
    return Markdown("—" if value is None else f"{value:{digits}}")


@dataclass(frozen=True, kw_only=True)
class Scale:
    """How the comparison's numbers are shown: pass rates in percent and percentage points,
    mean scores as they are."""

    percent: bool

    @property
    def unit(self) -> Markdown:
        return Markdown(" pp" if self.percent else "")

    @property
    def factor(self) -> float:
        return 100.0 if self.percent else 1.0

    @property
    def digits(self) -> int:
        return 1 if self.percent else 3

    def rate(self, value: float) -> Markdown:
        return format_rate(value, percent=self.percent)

    def interval(self, side_ci: tuple[float, float]) -> Markdown:
        lo, hi = side_ci
        if self.percent:
            return Markdown(f"[{lo * 100:.1f}, {hi * 100:.1f}]")
        return Markdown(f"[{lo:.3f}, {hi:.3f}]")

    def end(self, value: float) -> Markdown:
        """An interval's end in display units (:func:`format_end`)."""
        return format_end(value, percent=self.percent)

    def difference(self, value: float) -> Markdown:
        """A difference in display units with its sign: "+4.0 pp", "-0.120"."""
        return Markdown(f"{signed(value * self.factor, self.digits)}{self.unit}")
