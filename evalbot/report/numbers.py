"""Pure: every number as the report shows it (p-values, effects, rates, counts, times) and the
difference drawn on a scale. What these return is evalbot's own text: numbers and units."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime

from evalbot.report.text import Markdown
from evalbot.stats.pvalue import SMALLEST_NORMAL, PValue


def format_pvalue(p: float | PValue) -> Markdown:
    """A p-value for tables and the verdict line: ``"0.016"``, ``"0.0021"``, ``"1"``, or a
    bound: ``"< 0.0001"`` below that, and for a p-value known only as a bound the bound
    rounded up (``"< 0.0002"``). Never ``"0"``."""
    if isinstance(p, PValue):
        if p.bound == "upper":
            return Markdown("< " + _round_up(max(p.value, 0.0001)))
        p = p.value
    if p < 0.0001:
        return Markdown("< 0.0001")
    if p >= 0.9995:
        return Markdown("1")
    return Markdown(f"{p:.4f}" if p < 0.01 else f"{p:.3f}")


def word_pvalue(p: PValue) -> str:
    """A p-value for sentences, four significant digits: ``"0.01609"``, ``"< 0.0002"`` (a
    bound), ``"1.472e-331"`` (exact, below the float range); never ``"0"``."""
    if p.bound == "upper":
        return p.format(2)
    if p.value >= SMALLEST_NORMAL:
        return f"{p.value:.4g}"
    return p.format(4)


def pvalue_output(p: PValue) -> str:
    """The action's ``p-value`` output: 6 significant digits (``0.0160907``, ``1.47213e-331``
    below the float range), or ``<`` and the bound (``<0.0002``). Never ``0``."""
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


def format_effect(estimate: float, low: float, high: float, *, percent: bool) -> Markdown:
    """ "+4.3 pp [1.0, 7.5]" for rates; "+0.043 [0.010, 0.075]" for scores; an interval
    unbounded both ways says so: "+0.230 [unbounded: too few items]"."""
    scale = PERCENT if percent else SCORES
    if math.isinf(low) and math.isinf(high):
        return Markdown(f"{scale.difference(estimate)} [unbounded: too few items]")
    return Markdown(f"{scale.difference(estimate)} [{scale.end(low)}, {scale.end(high)}]")


def signed(value: float, digits: int) -> Markdown:
    """``value`` with its sign and ``digits`` decimals; a value that rounds to zero is "±0"
    (-0.0 reads as a regression that is not there)."""
    text = f"{value:+.{digits}f}"
    return Markdown("±" + text[1:] if float(text) == 0.0 else text)


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


def maybe(value: float | None, fmt: str = "{:.4g}") -> Markdown:
    """``fmt`` applied to a finite ``value``; "—" for None, NaN or infinity (undefined)."""
    return Markdown("—" if value is None or not math.isfinite(value) else fmt.format(value))


def plural(n: float, noun: str) -> str:
    """``noun`` (a plural) agreeing with ``n``: "item" for 1 or -1, else "items"."""
    return noun.removesuffix("s") if abs(n) == 1 else noun


def count(n: float | str | None, noun: str) -> str:
    """``"1 item"``, ``"2,000 items"``: a count given as data (a float, a numeric string)
    and its noun, agreeing."""
    return f"{number_text(n)} {plural(float(n or 0.0), noun)}"


def number_text(value: float | str | None) -> str:
    """A count or amount given as data: ``"1,000"``, ``"2.5"``."""
    number = float(value or 0.0)
    return f"{int(number):,}" if number == int(number) else f"{number:,.4g}"


def alpha_text(value: float | str | None) -> str:
    return f"{float(value or 0.0):.4g}"


def share_text(value: float | str | int | None) -> str:
    """A share as a percentage: ``"12.5 %"``."""
    return f"{float(value or 0.0) * 100:.1f} %"


@dataclass(frozen=True)
class Scale:
    """How a comparison's numbers are shown: pass rates in percent and percentage points
    (:data:`PERCENT`), mean scores as they are (:data:`SCORES`)."""

    percent: bool
    unit: Markdown  # " pp" or ""
    factor: float  # 100 or 1
    digits: int  # decimals of a difference

    def rate(self, value: float) -> Markdown:
        return Markdown(f"{value * 100:.1f} %" if self.percent else f"{value:.3f}")

    def interval(self, ci: tuple[float, float]) -> Markdown:
        """A side's interval: "[70.1, 74.3]" or "[0.701, 0.743]"."""
        low, high = (f"{end * self.factor:.{self.digits}f}" for end in ci)
        return Markdown(f"[{low}, {high}]")

    def signed_interval(self, ci: tuple[float, float]) -> str:
        """A difference's interval with signs: "[-1.0, +7.5] pp"."""
        low, high = (signed(end * self.factor, self.digits) for end in ci)
        return f"[{low}, {high}]{self.unit}"

    def end(self, value: float) -> Markdown:
        """An interval's end: "7.5" (percentage points) or "0.075"; "-∞" or "+∞" unbounded. An
        end that is not zero never reads as zero: it gets the digits that show its sign
        ("-0.04")."""
        if math.isinf(value):
            return Markdown("+∞" if value > 0 else "-∞")
        shown, digits = value * self.factor, self.digits
        text = f"{shown:.{digits}f}"
        if shown != 0.0 and float(text) == 0.0:
            more = min(digits + 6, -math.floor(math.log10(abs(shown))))
            text = f"{shown:.{more}f}"
        return Markdown(text)

    def difference(self, value: float) -> Markdown:
        """A difference with its sign: "+4.0 pp", "-0.120", "±0.0 pp"."""
        return Markdown(f"{signed(value * self.factor, self.digits)}{self.unit}")

    def amount(self, value: float | str | None, sign: str = "") -> str:
        """A difference without "±": "4.6 pp", "0.049" (``sign="+"``: "+4.6 pp")."""
        return f"{float(value or 0.0) * self.factor:{sign}.{self.digits}f}{self.unit}"


PERCENT = Scale(True, Markdown(" pp"), 100.0, 1)
SCORES = Scale(False, Markdown(""), 1.0, 3)


def interval_picture(
    estimate: float, low: float, high: float, *, unit: str = " pp", width: int = 51
) -> str:
    """The difference and its interval on a small scale with zero marked, in plain Unicode
    (monospace: it belongs in a code block), values in display units::

        -5 pp ───────┼────[━━━━●━━━━━]────── +10 pp
                     0         +2.1

    "" when a value is not finite.
    """
    if not all(math.isfinite(v) for v in (estimate, low, high)):
        return ""
    axis_lo, axis_hi = _axis(low, high, unit)

    def col(value: float) -> int:
        return round((value - axis_lo) / (axis_hi - axis_lo) * (width - 1))

    bar = ["─"] * width
    c_lo, c_hi, c_est, c_zero = col(low), col(high), col(estimate), col(0.0)
    # an interval that excludes zero is drawn beside the zero tick, never over it
    if low > 0.0:
        c_lo = max(c_lo, c_zero + 1)
        c_hi = max(c_hi, c_lo)
    if high < 0.0:
        c_hi = min(c_hi, c_zero - 1)
        c_lo = min(c_lo, c_hi)
    c_est = min(max(c_est, c_lo), c_hi)
    for c in range(c_lo, c_hi + 1):
        bar[c] = "━"
    if c_hi - c_lo >= 2:
        bar[c_lo], bar[c_hi] = "[", "]"
    bar[c_zero] = "╋" if c_lo <= c_zero <= c_hi else "┼"
    bar[c_est] = "●"
    left, right = _axis_label(axis_lo, unit), _axis_label(axis_hi, unit)
    indent = len(left) + 1
    digits = 1 if unit.strip() == "pp" else 3
    marks = [("0", indent + c_zero), (f"{estimate:+.{digits}f}", indent + c_est)]
    labels = _labels(indent + width + 1 + len(right), marks)
    return f"{left} {''.join(bar)} {right}\n{labels}"


def _axis(low: float, high: float, unit: str) -> tuple[float, float]:
    """The ends of an axis that shows ``[low, high]`` and zero with a margin, on nice steps
    (a difference in pass rate stays within ±100 pp)."""
    lo_v, hi_v = min(low, 0.0), max(high, 0.0)
    span = hi_v - lo_v
    if span <= 0:
        span = 1.0 if unit.strip() == "pp" else 0.01
    raw = span / 4
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(mult * power for mult in (1, 2, 2.5, 5, 10) if raw <= mult * power)
    axis_lo = math.floor((lo_v - span * 0.1) / step) * step
    axis_hi = math.ceil((hi_v + span * 0.1) / step) * step
    if unit.strip() == "pp":
        axis_lo, axis_hi = max(axis_lo, -100.0), min(axis_hi, 100.0)
    return axis_lo, axis_hi


def _axis_label(value: float, unit: str) -> str:
    return f"{f'{value:+g}' if value else '0'}{unit}"


def _labels(width: int, marks: list[tuple[str, int]]) -> str:
    """A line of ``width`` characters with each text centred on its column, unless it would
    touch an earlier one (then it is left out)."""
    labels = [" "] * width
    for text, center in marks:
        start = max(0, min(center - len(text) // 2, len(labels) - len(text)))
        if any(ch != " " for ch in labels[max(0, start - 1) : start + len(text) + 1]):
            continue
        labels[start : start + len(text)] = list(text)
    return "".join(labels).rstrip()
