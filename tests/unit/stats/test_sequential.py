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
