"""Design effects: Kish's formula by hand, and the estimate against statsmodels' clustered
standard error (OLS on a constant with cov_type="cluster")."""

from __future__ import annotations

import re

import numpy as np
import pytest

from evalbot.stats.clusters import design_effect, estimate_design_effect
from evalbot.stats.power import mcnemar_sample_size


def test_kish_by_hand() -> None:
    assert design_effect(0.1, 10).design_effect == pytest.approx(1.9)  # 1 + 9 * 0.1
    assert design_effect(0.0, 50).design_effect == 1.0
    # unequal sizes 2, 4, 6: m = (4 + 16 + 36) / 12 = 14/3; deff = 1 + (11/3) * 0.3 = 2.1
    r = design_effect(0.3, [2, 4, 6])
    assert r.cluster_size == pytest.approx(14 / 3)
    assert r.design_effect == pytest.approx(2.1)
    assert (r.clusters, r.items) == (3, 12)
    assert r.effective_items == pytest.approx(12 / 2.1)


def test_estimate_against_statsmodels() -> None:
    import statsmodels.api as sm

    rng = np.random.default_rng(4)
    sizes = rng.integers(1, 8, size=40)
    labels = np.repeat(np.arange(40), sizes)
    shared = rng.normal(0, 1, size=40)[labels]
    d = np.round(shared + rng.normal(0, 1, size=labels.size), 3)
    base = np.zeros(labels.size)
    fit = sm.OLS(d, np.ones(labels.size)).fit(
        cov_type="cluster", cov_kwds={"groups": labels, "use_correction": False}
    )
    # statsmodels' cluster covariance without its small-sample correction is
    # sum_g (D_g - n_g mean)^2 / N^2; CR1 multiplies by G / (G - 1).
    cr1 = float(fit.bse[0]) ** 2 * 40 / 39
    iid = float(np.var(d, ddof=1)) / d.size
    r = estimate_design_effect(base, d, [str(x) for x in labels])
    assert r.raw_design_effect == pytest.approx(cr1 / iid, rel=1e-10)
    m = float(np.sum(sizes**2) / np.sum(sizes))
    assert r.intraclass_correlation == pytest.approx((cr1 / iid - 1) / (m - 1), rel=1e-10)
    assert r.clusters == 40 and r.items == labels.size


def test_estimate_edges() -> None:
    same = estimate_design_effect([0, 0, 0], [1, 1, 1], ["a", "a", "b"])
    assert same.design_effect == 1.0  # differences do not vary
    singletons = estimate_design_effect([0, 0, 0, 0], [1, 0, 1, 0], [None, None, None, None])
    # every item its own cluster: CR1 = G/(G-1) * sum (d - mean)^2 / N^2 = s^2 / N exactly
    assert singletons.raw_design_effect == pytest.approx(1.0)


def test_plan_uses_it() -> None:
    deff = design_effect(0.05, 11).design_effect  # 1.5
    assert mcnemar_sample_size(0.08, 0.03, design_effect=deff).items == 551  # ceil(367 * 1.5)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((1.5, 10), "`intraclass_correlation` must be in [0, 1]; got 1.5."),
        ((0.1, 0.5), "`cluster_size` must be at least 1; got 0.5."),
    ],
)
def test_validation(args: tuple[float, float], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        design_effect(*args)
    assert str(info.value) == message
