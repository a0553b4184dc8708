"""Paired table, churn and the unpaired two-proportion z-test.

References: hand counts; statsmodels ``proportions_ztest`` (pooled, two-sided) as oracle;
the brief's "p about 0.18" for 280/400 vs 297/400.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from statsmodels.stats.proportion import proportions_ztest

from evalbot.stats.mcnemar import mcnemar
from evalbot.stats.table import churn, compute_paired_table, two_proportion_ztest


def test_paired_table_400_item_example() -> None:
    base = np.repeat([1, 0, 1, 0], [266, 31, 14, 89])
    cand = np.repeat([1, 1, 0, 0], [266, 31, 14, 89])
    t = compute_paired_table(base, cand)
    assert (t.both_pass, t.fixed, t.broken, t.both_fail) == (266, 31, 14, 89)
    assert (t.items, t.discordant, t.baseline_passed, t.candidate_passed) == (400, 45, 280, 297)


def test_paired_table_rejects_non_binary() -> None:
    message = "`candidate` must hold 0/1 outcomes; got 0.5 at index 1."
    with pytest.raises(ValueError, match=re.escape(message)):
        compute_paired_table([1, 0], [1, 0.5])


def test_churn_net_zero() -> None:
    r = churn(31, 31, 400)
    assert (r.net, r.discordant, r.net_rate) == (0, 62, 0.0)
    assert r.churn == 62 / 400  # hand-worked


def test_churn_validation() -> None:
    message = "`fixed` + `broken` must be at most `items` (10); got 6 + 5 = 11."
    with pytest.raises(ValueError, match=re.escape(message)):
        churn(6, 5, 10)


def test_unpaired_400_item_example_against_statsmodels() -> None:
    r = two_proportion_ztest(280, 400, 297, 400)
    z, p = proportions_ztest([297, 280], [400, 400])  # pooled, two-sided by default
    assert r.statistic == pytest.approx(z, rel=1e-12)
    assert r.pvalue == pytest.approx(p, rel=1e-12)
    assert round(r.pvalue, 2) == 0.18  # the brief's contrast value
    # What pairing bought: the same data are significant under McNemar (exact p = 0.0161).
    assert mcnemar(31, 14).pvalue < 0.05 < r.pvalue


@pytest.mark.parametrize(
    ("kb", "nb", "kc", "nc"), [(10, 50, 20, 60), (0, 10, 3, 12), (99, 100, 100, 100)]
)
def test_unpaired_against_statsmodels(kb: int, nb: int, kc: int, nc: int) -> None:
    z, p = proportions_ztest([kc, kb], [nc, nb])
    r = two_proportion_ztest(kb, nb, kc, nc)
    assert r.statistic == pytest.approx(z, rel=1e-12)
    assert r.pvalue == pytest.approx(p, rel=1e-12)


def test_unpaired_degenerate_all_pass() -> None:
    r = two_proportion_ztest(10, 10, 20, 20)
    assert (r.statistic, r.pvalue, r.standard_error) == (0.0, 1.0, 0.0)


def test_unpaired_validation() -> None:
    message = "`candidate_passed` must be at most `candidate_n` (4); got 5."
    with pytest.raises(ValueError, match=re.escape(message)):
        two_proportion_ztest(1, 4, 5, 4)
