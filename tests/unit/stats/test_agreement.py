"""Test/interval agreement: every case, with hand-worked inputs."""

from __future__ import annotations

import pytest

from evalbot.stats.agreement import interval_agreement
from evalbot.stats.mcnemar import mcnemar
from evalbot.stats.paired_proportions import tango_interval
from evalbot.stats.pvalue import resampling_pvalue


@pytest.mark.parametrize(
    ("pvalue", "interval", "case", "direction"),
    [
        (0.01, (0.02, 0.1), "both_significant", "up"),
        (0.01, (-0.1, -0.02), "both_significant", "down"),
        (0.30, (-0.05, 0.1), "neither", "none"),
        (0.0625, (0.131, 1.0), "interval_only", "up"),  # 5 of 5 fixed: exact p vs Tango
        (0.04, (-0.01, 0.1), "test_only", "none"),
        (0.05, (0.0, 0.1), "test_only", "none"),  # p == alpha rejects (non-strict); 0 inside
    ],
)
def test_cases(pvalue: float, interval: tuple[float, float], case: str, direction: str) -> None:
    a = interval_agreement(pvalue, 0.05, interval)
    assert (a.case, a.direction) == (case, direction)
    assert a.agree == (case in ("both_significant", "neither"))


def test_strict_rule_of_the_policy() -> None:
    # evalbot's policy rejects when p < alpha: p == alpha is then not significant
    assert interval_agreement(0.05, 0.05, (0.0, 0.1), strict=True).case == "neither"


def test_five_of_five_fixed() -> None:
    # exact McNemar p = 2/32 = 0.0625; Tango's 95 % interval for 5/0/5 is [0.131, 1]
    a = interval_agreement(mcnemar(5, 0).pvalue, 0.05, tango_interval(5, 0, 5).confidence_interval)
    assert (a.agree, a.case, a.significant, a.excludes_null) == (
        False,
        "interval_only",
        False,
        True,
    )


def test_unresolved_bound_and_levels() -> None:
    bound = resampling_pvalue(0.0, 1_000)  # p < 0.002
    assert interval_agreement(bound, 0.001, (0.1, 0.2)).case == "unresolved"
    assert interval_agreement(bound, 0.05, (0.1, 0.2)).case == "both_significant"
    a = interval_agreement(0.2, 0.05, (-1.0, 1.0), confidence_level=0.9)
    assert not a.levels_match
    assert interval_agreement(0.2, 0.05, (-1.0, 1.0)).levels_match


def test_validation() -> None:
    with pytest.raises(ValueError, match=r"`alpha` must be in \(0, 1\); got 1.5."):
        interval_agreement(0.1, 1.5, (0.0, 1.0))
    with pytest.raises(ValueError, match="`confidence_interval` must be"):
        interval_agreement(0.1, 0.05, (1.0, 0.0))
