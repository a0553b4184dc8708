"""Numbers as the report shows them, and the difference drawn on a scale."""

from __future__ import annotations

import math
import re

import pytest

from evalbot.report.numbers import format_effect, format_pvalue, interval_picture


@pytest.mark.parametrize(
    ("estimate", "low", "high"),
    [
        (4.25, 1.0, 7.5),
        (-3.1, -6.2, -0.4),
        (1.2, -2.0, 4.4),
        (0.0, 0.0, 0.0),
        (30, 25, 36),
        (-1.4, -3.207, -0.032),  # 1 fixed, 8 broken of 500: an end one column from zero
        (3.0, 0.02, 6.0),
        (0.0, -100.0, 100.0),  # one item: Tango's widest interval
    ],
)
def test_interval_picture_marks_zero_and_the_estimate(
    estimate: float, low: float, high: float
) -> None:
    bar, labels = interval_picture(estimate, low, high).split("\n")
    match = re.fullmatch(r"(\S+) pp (\S+) (\S+) pp", bar)
    assert match, bar
    left, axis, right = match.groups()
    start = match.start(2)
    lo, hi = float(left), float(right)

    def col(value: float) -> int:
        return start + round((value - lo) / (hi - lo) * (len(axis) - 1))

    assert lo <= min(low, 0) and hi >= max(high, 0)
    assert lo >= -100 and hi <= 100  # a difference in pass rate lies within ±100 pp
    if low > 0 or high < 0:  # the interval excludes zero, and so does its picture
        assert "╋" not in axis and "┼" in axis  # ┼: zero outside the interval, ╋: inside
    assert bar[col(estimate)] == "●"
    assert bar[col(0.0)] in "┼╋●"
    assert labels[col(0.0)] == "0" or bar[col(0.0)] == "●"
    assert axis.count("●") == 1
    if col(high) - col(low) >= 2:
        assert bar[col(low)] in "[●┼╋" and bar[col(high)] in "]●┼╋"
        inside = axis[axis.index("[") + 1 : axis.index("]")]
        assert set(inside) <= set("━●╋")


def test_interval_ends_never_read_as_a_zero_they_are_not() -> None:
    # 1 fixed, 8 broken of 500 (tests/golden/bound_near_zero.txt): Tango's upper end -0.032 pp
    assert format_effect(-0.014, -0.03207, -0.00032, percent=True) == "-1.4 pp [-3.2, -0.03]"
    assert format_effect(0.03, 0.00004, 0.06, percent=True) == "+3.0 pp [0.004, 6.0]"
    assert format_effect(0.01, -0.0002, 0.02, percent=False) == "+0.010 [-0.0002, 0.020]"
    assert format_effect(0.0, 0.0, 0.0, percent=True) == "±0.0 pp [0.0, 0.0]"  # zero is zero
    inf = math.inf
    assert format_effect(0.0, -inf, inf, percent=False) == "±0.000 [unbounded: too few items]"
    assert format_effect(0.1, -inf, 0.5, percent=False) == "+0.100 [-∞, 0.500]"


def test_format_pvalue() -> None:
    assert [format_pvalue(p) for p in (0.00001, 0.0161, 0.18, 0.9999, 0.05)] == [
        "< 0.0001",
        "0.016",
        "0.180",
        "1",
        "0.050",
    ]
