"""Wilson score interval.

References: statsmodels ``proportion_confint(method="wilson")`` (test-only oracle) and the
closed form evaluated independently here with the stdlib.
"""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from evalbot.stats.intervals import ConfidenceInterval, wilson_interval


@pytest.mark.parametrize(
    ("k", "n", "cl"),
    [(280, 400, 0.95), (297, 400, 0.95), (0, 10, 0.95), (10, 10, 0.95), (1, 1, 0.9), (3, 7, 0.99)],
)
def test_matches_statsmodels(k: int, n: int, cl: float) -> None:
    # Oracle: statsmodels' Wilson interval.
    low, high = proportion_confint(k, n, alpha=1 - cl, method="wilson")
    ci = wilson_interval(k, n, confidence_level=cl)
    assert ci.low == pytest.approx(low, abs=1e-12)
    assert ci.high == pytest.approx(high, abs=1e-12)


def test_hand_worked_one_of_one() -> None:
    # Hand-worked: k = n = 1, z = 1.959964: low = 1 / (1 + z^2) = 0.2065...
    z = 1.959963984540054
    assert wilson_interval(1, 1).low == pytest.approx(1 / (1 + z * z), rel=1e-12)
    assert wilson_interval(1, 1).high == 1.0


def test_all_pass_and_all_fail_hit_the_bounds_exactly() -> None:
    assert wilson_interval(0, 50).low == 0.0
    assert wilson_interval(50, 50).high == 1.0


def test_returns_named_tuple() -> None:
    ci = wilson_interval(5, 10)
    assert isinstance(ci, ConfidenceInterval)
    low, high = ci
    assert (low, high) == (ci.low, ci.high)
    # Symmetric around 1/2 for k = n/2 (exact formula: center = 1/2).
    assert (low + high) / 2 == pytest.approx(0.5, abs=1e-15)


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_contains_estimate_and_stays_in_unit_interval(kn: tuple[int, int]) -> None:
    k, n = kn
    ci = wilson_interval(k, n)
    assert 0.0 <= ci.low <= k / n <= ci.high <= 1.0
    assert math.isfinite(ci.low)
    assert math.isfinite(ci.high)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"successes": 0, "n": 0}, "`n` must be an integer >= 1; got 0."),
        ({"successes": 5, "n": 4}, "`successes` must be at most `n` (4); got 5."),
        ({"successes": -1, "n": 4}, "`successes` must be an integer >= 0; got -1."),
        ({"successes": 1.5, "n": 4}, "`successes` must be an integer; got 1.5."),
        (
            {"successes": 1, "n": 4, "confidence_level": 1.0},
            "`confidence_level` must be in (0, 1); got 1.0.",
        ),
    ],
)
def test_input_validation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        wilson_interval(**kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message


# ---- per-item means with repeats (never "98.3 % [94.8, 101.8]") --------------------------


def wilson_reference(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's closed form at a real-valued n (written out independently)."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def test_mean_of_means_by_hand() -> None:
    from scipy.stats import t

    from evalbot.stats.intervals import mean_of_means_interval

    # 60 items, 2 repeats: 59 pass both, one passes once. p = 119/120; var(means, ddof=1) =
    # 60 * (1/120)^2 ... computed with numpy below; n_eff = p(1-p)/se^2, clipped to [60, 120].
    means = [1.0] * 59 + [0.5]
    p = sum(means) / 60
    var = sum((m - p) ** 2 for m in means) / 59 / 60
    n_eff = min(max(p * (1 - p) / var, 60), 120)
    expected = wilson_reference(p, n_eff, float(t.ppf(0.975, 59)))
    r = mean_of_means_interval(means, 2)
    assert r.effective_items == pytest.approx(n_eff)
    assert r.confidence_interval.low == pytest.approx(expected[0], rel=1e-12)
    assert r.confidence_interval.high == pytest.approx(expected[1], rel=1e-12)


@pytest.mark.parametrize(
    ("means", "repeats"),
    [
        ([1.0, 0.5], 2),  # the "75.0 % [-242.7, 392.7]": two items, two epochs
        ([1.0] * 30, 2),
        ([0.0] * 5, 3),
        ([0.5], 2),
        ([1.0, 1.0, 0.5, 1.0], 2),
    ],
)
def test_mean_of_means_stays_in_unit_interval(means: list[float], repeats: int) -> None:
    from evalbot.stats.intervals import mean_of_means_interval

    r = mean_of_means_interval(means, repeats)
    assert 0.0 <= r.confidence_interval.low <= r.statistic <= r.confidence_interval.high <= 1.0
    if r.statistic == 1.0:
        assert r.confidence_interval.high == 1.0
        # all pass: Wilson with n = items (not n * repeats): low = n / (n + q^2)
    if r.statistic == 0.0:
        assert r.confidence_interval.low == 0.0


def test_mean_of_means_validation() -> None:
    from evalbot.stats.intervals import mean_of_means_interval

    with pytest.raises(
        ValueError, match=re.escape("`means` must lie in [0, 1]; got 1.5 at index 1.")
    ):
        mean_of_means_interval([0.5, 1.5], 2)
    with pytest.raises(ValueError, match=re.escape("`repeats` must be an integer >= 1; got 0.")):
        mean_of_means_interval([0.5], 0)
