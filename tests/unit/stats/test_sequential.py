"""The mixture SPRT: closed-form values, validation, and the running always-valid p-value."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from evalbot.stats.sequential import mixture_sprt, sequential_pvalues


def uniform_lr(fixed: int, broken: int) -> Fraction:
    """Beta(1, 1) mixture: 2**n * fixed! * broken! / (n + 1)!, in exact fractions."""
    n = fixed + broken
    return Fraction(2**n * math.factorial(fixed) * math.factorial(broken), math.factorial(n + 1))


@pytest.mark.parametrize(
    ("fixed", "broken"), [(0, 0), (1, 0), (9, 1), (10, 0), (31, 14), (14, 31), (100, 60)]
)
def test_uniform_mixture_closed_form(fixed: int, broken: int) -> None:
    result = mixture_sprt(fixed, broken)
    lr = uniform_lr(fixed, broken)
    assert result.statistic == pytest.approx(float(lr), rel=1e-10)
    assert result.pvalue == pytest.approx(min(1.0, float(1 / lr)), rel=1e-10)
    assert result.discordant == fixed + broken


def test_worked_values() -> None:
    # 10/0: LR = 1024/11; 9/1: LR = 1024/110 (see the docstring)
    assert mixture_sprt(10, 0).pvalue == pytest.approx(11 / 1024, rel=1e-12)
    assert mixture_sprt(9, 1).pvalue == pytest.approx(110 / 1024, rel=1e-12)
    assert mixture_sprt(0, 0).pvalue == 1.0


def test_symmetric_and_concentration() -> None:
    assert mixture_sprt(20, 5).pvalue == pytest.approx(mixture_sprt(5, 20).pvalue, rel=1e-12)
    # Beta(c, c) with c -> infinity puts all mass on 1/2: LR -> 1
    assert mixture_sprt(20, 5, concentration=1e6).pvalue == pytest.approx(1.0, abs=1e-3)
    # Jeffreys, checked against the beta function: 2**2 B(2.5, 0.5) / B(0.5, 0.5) = 4 * (3/8) = 1.5
    assert mixture_sprt(2, 0, concentration=0.5).statistic == pytest.approx(1.5, rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fixed": -1, "broken": 0}, "`fixed` must be an integer >= 0; got -1."),
        ({"fixed": 1.5, "broken": 0}, "`fixed` must be an integer; got 1.5."),
        (
            {"fixed": 1, "broken": 0, "concentration": 0},
            "`concentration` must be a positive number; got 0.",
        ),
        (
            {"fixed": 1, "broken": 0, "concentration": "x"},
            "`concentration` must be a number; got 'x'.",
        ),
    ],
)
def test_validation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(
        ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)") + "$"
    ):
        mixture_sprt(**kwargs)  # type: ignore[arg-type]


def test_running_minimum() -> None:
    p = sequential_pvalues([10, 10, 12], [0, 5, 12])
    assert p[0] == pytest.approx(11 / 1024)
    assert p[1] == p[0] and p[2] == p[0]  # evidence once seen is kept
    paths = sequential_pvalues(np.array([[1, 2], [0, 0]]), np.array([[0, 0], [1, 2]]))
    assert paths.shape == (2, 2)
    assert paths[0, 1] == pytest.approx(paths[1, 1])


@pytest.mark.parametrize(
    ("fixed", "broken"), [([1, 0], [0, 0]), ([1], [1, 2]), (3, 4), ([-1], [0])]
)
def test_paths_validation(fixed: object, broken: object) -> None:
    with pytest.raises(ValueError, match="`fixed` and `broken` must"):
        sequential_pvalues(fixed, broken)


# ---- the confidence sequence that matches the SPRT -------------------------------


def log_lr_against(fixed: int, broken: int, p0: float) -> float:
    """log of the uniform-mixture LR against p0: log(x! y! / (n + 1)!) - x log p0 - y log(1-p0)
    (the Beta(1, 1) integral in closed form, with math.lgamma)."""
    n = fixed + broken
    log_mix = math.lgamma(fixed + 1) + math.lgamma(broken + 1) - math.lgamma(n + 2)
    return log_mix - fixed * math.log(p0) - broken * math.log1p(-p0)


@pytest.mark.parametrize(("fixed", "broken"), [(10, 0), (9, 1), (30, 10), (5, 5), (3, 40)])
def test_split_interval_ends_solve_the_mixture(fixed: int, broken: int) -> None:
    from evalbot.stats.sequential import confidence_sequence

    r = confidence_sequence(fixed, broken, 1000)
    for end in r.split_interval:
        if 0.0 < end < 1.0:
            assert log_lr_against(fixed, broken, end) == pytest.approx(math.log(20), abs=1e-7)
    # inside: below the threshold; the SPRT's own 1/2 decides the same way
    mid = (r.split_interval.low + r.split_interval.high) / 2
    assert log_lr_against(fixed, broken, mid) < math.log(20)


def test_split_interval_excludes_half_exactly_when_the_sprt_rejects() -> None:
    from evalbot.stats.sequential import confidence_sequence

    for fixed in range(0, 40):
        for broken in range(0, 40):
            r = confidence_sequence(fixed, broken, 200)
            rejects = mixture_sprt(fixed, broken).pvalue <= 0.05
            split = r.split_interval
            assert (split.low > 0.5 or split.high < 0.5) == rejects, (fixed, broken)
            diff = r.confidence_interval
            assert (diff.low > 0 or diff.high < 0) == rejects, (fixed, broken)
            assert diff.low <= r.statistic <= diff.high


def test_difference_mapping_by_hand() -> None:
    from evalbot.stats.sequential import confidence_sequence

    # the corners of the product of the two intervals
    s = confidence_sequence(30, 10, 400)
    low, high = s.split_interval
    psi_low, psi_high = s.discordance_interval
    assert psi_low < 0.1 < psi_high
    assert s.confidence_interval.low == pytest.approx(psi_low * (2 * low - 1))
    assert s.confidence_interval.high == pytest.approx(psi_high * (2 * high - 1))
    # no discordant item: the difference is bounded by the discordance interval only
    z = confidence_sequence(0, 0, 50)
    assert z.confidence_interval.low == -z.discordance_interval.high


def test_the_running_intersection_agrees_with_the_running_p() -> None:
    from evalbot.stats.sequential import confidence_sequence

    fixed = [2, 5, 9, 12, 12, 15]
    broken = [1, 1, 2, 2, 6, 6]
    items = [20, 40, 60, 80, 100, 120]
    running_p = sequential_pvalues(fixed, broken)
    low, high = -math.inf, math.inf
    for x, y, n, p in zip(fixed, broken, items, running_p, strict=True):
        one = confidence_sequence(x, y, n).confidence_interval
        low, high = max(low, one.low), min(high, one.high)
        assert (low > 0 or high < 0) == (p <= 0.05)


def test_confidence_sequence_validation() -> None:
    from evalbot.stats.sequential import confidence_sequence

    with pytest.raises(ValueError, match=r"`fixed` \+ `broken` must be at most `items` \(3\)"):
        confidence_sequence(2, 2, 3)
    with pytest.raises(ValueError, match="`discordance_alpha` must be in"):
        confidence_sequence(2, 2, 30, discordance_alpha=0.0)


def test_sprt_pvalue_below_the_float_range() -> None:
    # 1,100 fixed, none broken: LR = 2^1100 * 1100! * 0! / 1101! = 2^1100 / 1101, so
    # log10 p = log10(1101) - 1100 log10(2) (closed form of the uniform mixture)
    r = mixture_sprt(1100, 0)
    assert r.pvalue == 0.0
    assert r.pvalue.log10 == pytest.approx(math.log10(1101) - 1100 * math.log10(2), rel=1e-12)
    assert r.statistic == math.inf
    small = mixture_sprt(9, 1)
    assert small.pvalue.log10 == pytest.approx(math.log10(110 / 1024), rel=1e-10)
