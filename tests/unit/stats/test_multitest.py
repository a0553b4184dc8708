"""BH q-values and Holm adjustment.

Oracle: ``statsmodels.stats.multitest.multipletests`` (methods "fdr_bh" and "holm"), plus
hand-worked small cases.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from evalbot.stats.multitest import benjamini_hochberg, holm

pvalue_lists = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40)


def test_hand_worked() -> None:
    # Sorted 0.01, 0.03, 0.04, 0.20 with m = 4: BH raw m p / i = 0.04, 0.06, 0.0533, 0.2;
    # the running minimum from the top gives 0.04, 0.0533, 0.0533, 0.2.
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.20]).tolist() == pytest.approx(
        [0.04, 0.16 / 3, 0.16 / 3, 0.2]
    )
    # Holm: 3 * 0.01, max(0.03, 2 * 0.03), max(0.06, 1 * 0.04) = 0.03, 0.06, 0.06.
    assert holm([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])


@given(pvalue_lists)
def test_bh_against_statsmodels(ps: list[float]) -> None:
    ref = multipletests(ps, method="fdr_bh")[1]
    np.testing.assert_allclose(benjamini_hochberg(ps), ref, rtol=1e-12, atol=1e-15)


@settings(max_examples=30)  # statsmodels' holm takes ~0.1 s per call
@given(pvalue_lists)
def test_holm_against_statsmodels(ps: list[float]) -> None:
    ref = multipletests(ps, method="holm")[1]
    np.testing.assert_allclose(holm(ps), ref, rtol=1e-12, atol=1e-15)


@given(pvalue_lists)
def test_properties(ps: list[float]) -> None:
    p = np.array(ps)
    q = benjamini_hochberg(p)
    h = holm(p)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(q[order]) >= 0)  # q monotone in p
    assert np.all(np.diff(h[order]) >= 0)
    assert np.all(q >= p - 1e-15)
    assert np.all(q <= h + 1e-12)  # Holm is at least as strict as BH
    assert np.all((q >= 0) & (q <= 1) & (h >= 0) & (h <= 1))


def test_empty() -> None:
    assert benjamini_hochberg([]).size == 0
    assert holm([]).size == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: benjamini_hochberg([0.1, 1.5]),
            "`pvalues` must lie in [0, 1]; got 1.5 at index 1.",
        ),
        (lambda: holm([[0.1]]), "`pvalues` must be one-dimensional; got an array of shape (1, 1)."),
        (
            lambda: benjamini_hochberg([float("nan")]),
            "`pvalues` must lie in [0, 1]; got nan at index 0.",
        ),
    ],
)
def test_input_validation(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        call()  # type: ignore[operator]
    assert str(info.value) == message
