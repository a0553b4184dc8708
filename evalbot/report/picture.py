"""Pure: the difference and its interval drawn on a small scale with zero marked."""

from __future__ import annotations

import math

__all__ = ["interval_picture"]


def _nice_step(span: float) -> float:
    raw = span / 4
    power = 10.0 ** math.floor(math.log10(raw))
    for mult in (1, 2, 2.5, 5, 10):
        if raw <= mult * power:
            return mult * power
    return 10 * power  # pragma: no cover - the loop always returns (raw <= 10 * power)


def _axis_label(value: float, unit: str) -> str:
    text = f"{value:+g}" if value else "0"
    return f"{text}{unit}"


def _axis(low: float, high: float, unit: str) -> tuple[float, float]:
    """The ends of an axis that shows ``[low, high]`` and zero with a margin, on nice steps."""
    lo_v, hi_v = min(low, 0.0), max(high, 0.0)
    span = hi_v - lo_v
    if span <= 0:
        span = 1.0 if unit.strip() == "pp" else 0.01
    step = _nice_step(span)
    axis_lo = math.floor((lo_v - span * 0.1) / step) * step
    axis_hi = math.ceil((hi_v + span * 0.1) / step) * step
    if unit.strip() == "pp":  # a difference in pass rate lies within ±100 pp
        axis_lo, axis_hi = max(axis_lo, -100.0), min(axis_hi, 100.0)
    if axis_lo == axis_hi:  # pragma: no cover - span > 0 keeps them apart
        axis_hi = axis_lo + step
    return axis_lo, axis_hi


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


def interval_picture(
    estimate: float, low: float, high: float, *, unit: str = " pp", width: int = 51
) -> str:
    """The difference and its interval on a small scale with zero marked, in plain Unicode.

    ``-5 pp ───────┼────[━━━━●━━━━━]────── +10 pp`` with a second line labelling zero and the
    estimate. Values are in display units (percentage points for rates). Monospace only: it
    belongs in a code block, which e-mail notifications keep as it is.
    """
    values = [v for v in (estimate, low, high) if math.isfinite(v)]
    if len(values) < 3:
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
    left = _axis_label(axis_lo, unit)
    right = _axis_label(axis_hi, unit)
    indent = len(left) + 1
    line1 = f"{left} {''.join(bar)} {right}"
    digits = 1 if unit.strip() == "pp" else 3
    marks = [("0", indent + c_zero), (f"{estimate:+.{digits}f}", indent + c_est)]
    return line1 + "\n" + _labels(indent + width + 1 + len(right), marks)
