"""The cluster sign-flip test and its interval (:func:`evalbot.stats.clusters.clustered_mean_test`),
against independent references: full enumeration written here, scipy's permutation test on
the cluster totals, McNemar's exact test (singleton clusters), evalbot's item sign-flip
(clusters of one item, scores) and statsmodels' cluster-robust OLS (above 1,000 clusters)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from evalbot.stats.clusters import (
    CLUSTER_SIGN_FLIP_MAX,
    clustered_mean_test,
    sign_flip_pvalue,
)
from evalbot.stats.mcnemar import mcnemar
from evalbot.stats.paired_mean import paired_mean_test


def enumerate_pvalue(totals: list[int]) -> Fraction:
    """P(|sum s_g D_g| >= |sum D_g|) over all 2^G sign patterns, in exact arithmetic."""
    observed = abs(sum(totals))
    hits = sum(
        abs(sum(s * t for s, t in zip(signs, totals, strict=True))) >= observed
        for signs in itertools.product((1, -1), repeat=len(totals))
    )
    return Fraction(hits, 2 ** len(totals))


def expand(clusters: list[tuple[int, int, int]]) -> tuple[list[float], list[float], list[str]]:
    """Items of clusters given as (fixed, broken, unchanged)."""
    base: list[float] = []
    cand: list[float] = []
    labels: list[str] = []
    for k, (fixed, broken, same) in enumerate(clusters):
        base += [0.0] * fixed + [1.0] * broken + [1.0] * same
        cand += [1.0] * fixed + [0.0] * broken + [1.0] * same
        labels += [f"c{k}"] * (fixed + broken + same)
    return base, cand, labels


def test_hand_worked_three_clusters() -> None:
    # totals 2, 1, -1 (sizes 3, 1, 2): of the 8 patterns +-2 +-1 +-1, six reach |sum| >= 2
    # (4, 2, 2 and their negatives): p = 6/8
    base, cand, labels = expand([(2, 0, 1), (1, 0, 0), (0, 1, 1)])
    r = clustered_mean_test(base, cand, labels)
    assert r.pvalue == 0.75 == float(enumerate_pvalue([2, 1, -1]))
    assert r.statistic == pytest.approx(2 / 6)  # (3 - 1) / 6 items
    assert (r.n_clusters, r.changed_clusters, r.method) == (3, 3, "exact cluster sign-flip")
    # three clusters cannot reject at 95 % (2/8 > 0.05): no shift is excluded
    assert r.confidence_interval == (-math.inf, math.inf)


@pytest.mark.parametrize("seed", range(4))
def test_matches_enumeration_and_scipy_permutation_test(seed: int) -> None:
    rng = np.random.default_rng(seed)
    shape = [(int(f), int(b), int(s)) for f, b, s in rng.integers(0, 4, size=(10, 3))]
    base, cand, labels = expand(shape)
    totals = [f - b for f, b, _ in shape]
    r = clustered_mean_test(base, cand, labels)
    assert r.pvalue == pytest.approx(float(enumerate_pvalue(totals)), abs=1e-15)
    # scipy: permute the two runs' cluster totals within each cluster (= flip D_g's sign)
    cand_t = np.array([f + s for f, _, s in shape], dtype=float)
    base_t = np.array([b + s for _, b, s in shape], dtype=float)
    ref = stats.permutation_test(
        (cand_t, base_t),
        lambda x, y, axis: np.sum(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=np.inf,
    )
    assert r.pvalue == pytest.approx(ref.pvalue, abs=1e-12)


def test_singleton_clusters_are_mcnemar_exact() -> None:
    # every item its own cluster: the sign test on the discordant pairs, i.e. McNemar exact
    for fixed, broken, same in [(9, 1, 5), (10, 0, 3), (5, 5, 0), (7, 2, 11)]:
        base, cand, _ = expand([(fixed, broken, same)])
        labels = [f"i{k}" for k in range(len(base))]
        r = clustered_mean_test(base, cand, labels)
        assert r.pvalue == pytest.approx(mcnemar(fixed, broken).pvalue, abs=1e-15)
    base, cand, _ = expand([(9, 1, 0)])
    p = clustered_mean_test(base, cand, [None] * 10).pvalue  # None: a cluster of one item
    assert p == 22 / 1024  # STYLE.md's worked value for McNemar exact 9/1


def test_singleton_clusters_are_the_item_sign_flip() -> None:
    rng = np.random.default_rng(5)
    for n in (12, 40):
        b, c = rng.normal(size=n), rng.normal(size=n) + 0.4
        mine = clustered_mean_test(b, c, [str(k) for k in range(n)], n_resamples=999, seed=3)
        theirs = paired_mean_test(b, c, n_resamples=999, seed=3, method="sign-flip")
        assert mine.pvalue == theirs.pvalue
        assert tuple(mine.confidence_interval) == pytest.approx(
            tuple(theirs.confidence_interval), rel=1e-9
        )


@pytest.mark.parametrize("g", [12, 60])
def test_the_interval_inverts_the_test(g: int) -> None:
    rng = np.random.default_rng(g)
    sizes = rng.integers(1, 8, size=g)
    labels = [f"c{k}" for k, s in enumerate(sizes) for _ in range(s)]
    u = np.repeat(rng.normal(size=g), sizes)
    d = u + rng.normal(size=labels.__len__()) + 0.8
    zeros = np.zeros(d.size)
    r = clustered_mean_test(zeros, d, labels, n_resamples=2000, seed=1)
    lo, hi = r.confidence_interval
    assert lo < r.statistic < hi
    width = hi - lo
    for end, outward in ((lo, -1.0), (hi, 1.0)):
        inside = sign_flip_pvalue(
            zeros, d, labels, shift=end - outward * 1e-6 * width, n_resamples=2000, seed=1
        )
        outside = sign_flip_pvalue(
            zeros, d, labels, shift=end + outward * 1e-6 * width, n_resamples=2000, seed=1
        )
        assert inside > 0.05 >= outside
    # 0 is outside exactly when the test rejects
    assert (lo > 0.0 or hi < 0.0) == (r.pvalue <= 0.05)


def test_few_clusters_cannot_reject() -> None:
    # five clusters, every one fixed: p = 2/32 = 0.0625 > 0.05
    base, cand, labels = expand([(2, 0, 0)] * 5)
    r = clustered_mean_test(base, cand, labels)
    assert r.pvalue == 2 / 32
    assert r.confidence_interval == (-math.inf, math.inf)
    # six: 2/64 rejects; every cluster's mean is 1, so the interval is that point
    base, cand, labels = expand([(2, 0, 0)] * 6)
    r = clustered_mean_test(base, cand, labels)
    assert r.pvalue == 2 / 64 and r.confidence_interval == (1.0, 1.0)


def test_cluster_robust_t_above_the_switch() -> None:
    import statsmodels.api as sm

    rng = np.random.default_rng(9)
    g = CLUSTER_SIGN_FLIP_MAX + 200
    sizes = rng.integers(1, 6, size=g)
    codes = np.repeat(np.arange(g), sizes)
    d = np.repeat(rng.normal(size=g), sizes) + rng.normal(size=codes.size) + 0.05
    r = clustered_mean_test(np.zeros(d.size), d, [f"c{k}" for k in codes])
    assert r.method == "cluster-robust t" and r.n_resamples == 0
    # statsmodels: intercept-only OLS, CR1 cluster covariance, t with G - 1 df
    fit = sm.OLS(d, np.ones((d.size, 1))).fit(
        cov_type="cluster", cov_kwds={"groups": codes, "df_correction": True}, use_t=True
    )
    assert r.standard_error == pytest.approx(float(fit.bse[0]), rel=1e-9)
    assert r.pvalue == pytest.approx(float(fit.pvalues[0]), rel=1e-9)
    assert tuple(r.confidence_interval) == pytest.approx(tuple(fit.conf_int(0.05)[0]), rel=1e-9)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"clusters": None}, "`clusters` must label every item; got None."),
        ({"clusters": ["a"]}, "`clusters` must have one entry per item (2); got 1 entries."),
        ({"clusters": ["a", "b"], "confidence_level": 1.5}, "`confidence_level`"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        clustered_mean_test([0, 1], [1, 1], **kwargs)  # type: ignore[arg-type]
