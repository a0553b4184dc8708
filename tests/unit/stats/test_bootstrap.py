"""Paired bootstrap of a mean difference.

References: the analytic paired-difference interval d̄ ± z sd(d) / sqrt(n) (large-sample
agreement within Monte Carlo tolerance); ``scipy.stats.bootstrap(paired=True)`` as a
test-only oracle for the percentile and BCa intervals on continuous data; the exact
bootstrap distribution of a mean (its standard deviation is sd(d, ddof=0) / sqrt(n)); and
hand-worked degenerate cases.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from evalbot.stats import bootstrap as resampling_module
from evalbot.stats.bootstrap import BootstrapResult, paired_bootstrap
from evalbot.stats.intervals import ConfidenceInterval
from evalbot.stats.pvalue import PValue

BASE_400 = np.repeat([1.0, 0.0, 1.0, 0.0], [266, 31, 14, 89])
CAND_400 = np.repeat([1.0, 1.0, 0.0, 0.0], [266, 31, 14, 89])


def test_400_item_example_against_analytic_interval() -> None:
    res = paired_bootstrap(BASE_400, CAND_400, seed=0)
    # Hand-worked: (297 - 280) / 400.
    assert res.statistic == pytest.approx(0.0425, abs=1e-15)
    assert (res.baseline_value, res.candidate_value) == (0.70, 0.7425)
    d = CAND_400 - BASE_400
    # Analytic paired-difference interval, d̄ ± z * sd / sqrt(n) with sd(ddof=0), which is
    # the exact standard deviation of the bootstrap distribution of the mean.
    se = float(np.std(d)) / math.sqrt(400)
    z = float(stats.norm.ppf(0.975))
    assert res.standard_error == pytest.approx(se, rel=0.03)  # MC error of an SD, B=10^4: ~1%
    assert res.confidence_interval.low == pytest.approx(0.0425 - z * se, abs=0.004)
    assert res.confidence_interval.high == pytest.approx(0.0425 + z * se, abs=0.004)
    # The McNemar exact p for 31/14 is 0.0161; the bootstrap p is of the same order.
    assert 0.003 < res.pvalue < 0.04
    assert res.resampled == "items"
    assert res.n_units == 400


def test_result_echoes_inputs() -> None:
    res = paired_bootstrap(
        BASE_400, CAND_400, n_resamples=500, confidence_level=0.9, seed=7, method="bca"
    )
    assert (res.n_resamples, res.seed, res.confidence_level, res.method) == (500, 7, 0.9, "bca")
    assert isinstance(res.confidence_interval, ConfidenceInterval)
    for value in (res.statistic, res.standard_error, *res.confidence_interval):
        assert type(value) is float
    assert type(res.pvalue) is PValue  # a float that knows its resolution, not a numpy scalar


def test_reproducible_and_seed_dependent() -> None:
    a = paired_bootstrap(BASE_400, CAND_400, seed=3)
    b = paired_bootstrap(BASE_400, CAND_400, seed=3)
    c = paired_bootstrap(BASE_400, CAND_400, seed=4)
    assert a == b
    assert a.standard_error != c.standard_error


def test_pairing_matters() -> None:
    # Strongly correlated sides: the paired SE is far below the unpaired one,
    # sqrt(var(b)/n + var(c)/n); a resampler that drew the sides independently would match
    # the latter.
    rng = np.random.default_rng(0)
    base = rng.normal(0.0, 1.0, 300)
    cand = base + rng.normal(0.1, 0.1, 300)
    res = paired_bootstrap(base, cand, n_resamples=2000)
    unpaired = math.sqrt(base.var() / 300 + cand.var() / 300)
    assert res.standard_error < unpaired / 5
    assert res.standard_error == pytest.approx(np.std(cand - base) / math.sqrt(300), rel=0.05)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_against_scipy_bootstrap_continuous(method: str) -> None:
    # Oracle: scipy.stats.bootstrap(paired=True) on skewed continuous scores. Different
    # random streams, so agreement is within Monte Carlo error (B = 20,000 each).
    rng = np.random.default_rng(1)
    base = rng.exponential(1.0, 150)
    cand = base * rng.lognormal(0.1, 0.4, 150)

    def diff(b: np.ndarray, c: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.mean(c, axis=axis) - np.mean(b, axis=axis)

    ref = stats.bootstrap(
        (base, cand),
        diff,
        paired=True,
        n_resamples=20_000,
        method="BCa" if method == "bca" else "percentile",
        random_state=np.random.default_rng(99),
    )
    res = paired_bootstrap(base, cand, n_resamples=20_000, method=method)
    width = ref.confidence_interval.high - ref.confidence_interval.low
    assert res.confidence_interval.low == pytest.approx(
        ref.confidence_interval.low, abs=0.03 * width
    )
    assert res.confidence_interval.high == pytest.approx(
        ref.confidence_interval.high, abs=0.03 * width
    )
    assert res.standard_error == pytest.approx(ref.standard_error, rel=0.03)


def test_bca_shifts_interval_for_skewed_data() -> None:
    # A heavily right-skewed difference: BCa moves both ends right of the percentile ones
    # (Efron & Tibshirani 1993, ch. 14: BCa corrects for skewness).
    rng = np.random.default_rng(5)
    d = rng.lognormal(0.0, 1.2, 80)
    pct = paired_bootstrap(np.zeros(80), d, n_resamples=20_000)
    bca = paired_bootstrap(np.zeros(80), d, n_resamples=20_000, method="bca")
    assert bca.confidence_interval.low > pct.confidence_interval.low
    assert bca.confidence_interval.high > pct.confidence_interval.high


def test_multinomial_and_index_resamplers_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    # The multinomial counts of distinct rows have the same law as index resampling; force
    # the index path and compare the two distributions on the 400-item example.
    fast = paired_bootstrap(BASE_400, CAND_400, n_resamples=20_000, seed=1)
    monkeypatch.setattr(resampling_module, "_MULTINOMIAL_MAX_DISTINCT", 0)
    slow = paired_bootstrap(BASE_400, CAND_400, n_resamples=20_000, seed=1)
    assert fast != slow  # different paths really ran
    assert fast.standard_error == pytest.approx(slow.standard_error, rel=0.03)
    assert fast.confidence_interval.low == pytest.approx(slow.confidence_interval.low, abs=0.0026)
    assert fast.confidence_interval.high == pytest.approx(slow.confidence_interval.high, abs=0.0026)


def test_index_resampler_is_chunked(monkeypatch: pytest.MonkeyPatch) -> None:
    # Chunks of one resample must give the same law as larger chunks (bounded memory path).
    rng = np.random.default_rng(2)
    x = rng.normal(size=200)
    monkeypatch.setattr(resampling_module, "_CHUNK_INDICES", 200)
    res = paired_bootstrap(np.zeros(200), x, n_resamples=3000)
    assert res.standard_error == pytest.approx(np.std(x) / math.sqrt(200), rel=0.06)


def test_million_binary_items_are_fast() -> None:
    # Not a timing test (see bench/); it only guards that the multinomial path is taken.
    rng = np.random.default_rng(3)
    base = (rng.random(1_000_000) < 0.7).astype(float)
    cand = (rng.random(1_000_000) < 0.71).astype(float)
    res = paired_bootstrap(base, cand, n_resamples=10_000)
    d = cand - base
    assert res.standard_error == pytest.approx(np.std(d) / 1000.0, rel=0.03)


def test_share_above_zero_against_scipy_bootstrap_distribution() -> None:
    # Oracle: the share of scipy.stats.bootstrap's paired bootstrap distribution above 0 (a
    # different random stream: agreement within 3 Monte Carlo standard errors of each share).
    rng = np.random.default_rng(4)
    base = rng.normal(0.0, 1.0, 60)
    cand = base + rng.normal(0.15, 1.0, 60)

    def diff(b: np.ndarray, c: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.mean(c, axis=axis) - np.mean(b, axis=axis)

    ref = stats.bootstrap(
        (base, cand),
        diff,
        paired=True,
        n_resamples=20_000,
        method="percentile",
        random_state=np.random.default_rng(98),
    )
    expected = float(np.mean(ref.bootstrap_distribution > 0))
    res = paired_bootstrap(base, cand, n_resamples=20_000)
    assert 0.5 < expected < 0.99  # a share the check can tell apart from 0 and 1
    assert res.share_above_zero == pytest.approx(
        expected, abs=3 * math.sqrt(2 * expected * (1 - expected) / 20_000)
    )


def test_share_above_zero_of_the_400_item_example() -> None:
    # The bootstrap distribution of the mean of 400 differences in {-1, 0, 1} (31 +1, 14 -1)
    # is close to normal with mean 0.0425 and sd = sd(d, ddof=0) / 20: P(d* > 0) is about
    # Phi(0.0425 / sd), within the mass at exactly 0 (the normal density of the net count at
    # 0, phi(17 / 6.7) / 6.7, about 0.0024) and the Monte Carlo error (0.0008).
    d = CAND_400 - BASE_400
    sd = float(np.std(d)) / 20
    res = paired_bootstrap(BASE_400, CAND_400, seed=0)
    assert res.share_above_zero == pytest.approx(float(stats.norm.cdf(0.0425 / sd)), abs=0.006)


def test_max_draws_bounds_the_resamples_of_distinct_scores() -> None:
    rng = np.random.default_rng(6)
    base, cand = rng.random(1000), rng.random(1000)
    res = paired_bootstrap(base, cand, n_resamples=10_000, max_draws=250_000)
    assert res.n_resamples == 250  # 250,000 draws of 1,000 items
    assert res.standard_error == pytest.approx(np.std(cand - base) / math.sqrt(1000), rel=0.15)
    at_least_one = paired_bootstrap(base, cand, n_resamples=10_000, max_draws=10)
    assert at_least_one.n_resamples == 1


def test_max_draws_leaves_pass_fail_items_every_resample() -> None:
    # pass/fail items are resampled by their counts: the bound does not apply
    res = paired_bootstrap(BASE_400, CAND_400, n_resamples=10_000, max_draws=400)
    assert res.n_resamples == 10_000
    assert res == paired_bootstrap(BASE_400, CAND_400, n_resamples=10_000)


# ------------------------------------------------------------------- degenerate cases


def test_one_item() -> None:
    res = paired_bootstrap([0.0], [1.0])
    assert res.confidence_interval == (1.0, 1.0)
    assert res.standard_error == 0.0
    assert res.share_above_zero == 1.0  # every resample is the one item's +1
    assert paired_bootstrap([1.0], [1.0]).share_above_zero == 0.0
    assert res.pvalue == 1.0  # sign test with one unit: min(1, 2^0)


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_all_pass_or_all_fail_both_sides(value: float) -> None:
    res = paired_bootstrap(np.full(50, value), np.full(50, value), method="bca")
    assert res.statistic == 0.0
    assert res.confidence_interval == (0.0, 0.0)
    assert (res.standard_error, res.pvalue) == (0.0, 1.0)


def test_all_differences_equal_nonzero() -> None:
    # Every item fixed: CI = [d, d]; p = exact sign test 2 * (1/2)^10 = 2/1024 (hand-worked).
    res = paired_bootstrap(np.zeros(10), np.ones(10))
    assert res.confidence_interval == (1.0, 1.0)
    assert res.pvalue == 2 / 1024
    res = paired_bootstrap(np.full(7, 0.2), np.full(7, 0.45), method="bca")
    assert res.confidence_interval.low == res.confidence_interval.high == res.statistic


def test_no_discordant_pairs_mixed_outcomes() -> None:
    base = np.array([1.0, 1.0, 0.0, 0.0, 1.0])
    res = paired_bootstrap(base, base.copy())
    assert res.confidence_interval == (0.0, 0.0)
    assert res.pvalue == 1.0


# ------------------------------------------------------------------------- clusters


def test_cluster_bootstrap_matches_clustered_se() -> None:
    # 40 clusters of 10 items sharing a cluster effect: resampling clusters gives an SE close
    # to the cluster-robust SE sqrt(G/(G-1) sum_g (D_g - n_g d̄)^2) / N (computed inline).
    rng = np.random.default_rng(4)
    g, m = 40, 10
    labels = [f"c{i}" for i in range(g) for _ in range(m)]
    d = np.repeat(rng.normal(0.05, 0.3, g), m) + rng.normal(0, 0.1, g * m)
    res = paired_bootstrap(np.zeros(g * m), d, clusters=labels, n_resamples=20_000)
    dbar = d.mean()
    sums = d.reshape(g, m).sum(axis=1)
    ref = math.sqrt(g / (g - 1) * np.sum((sums - m * dbar) ** 2)) / (g * m)
    assert res.resampled == "clusters"
    assert res.n_units == g
    # Bootstrap SE lacks the G/(G-1) factor: compare with it removed (~1.3% apart here).
    assert res.standard_error == pytest.approx(ref * math.sqrt((g - 1) / g), rel=0.04)
    naive = paired_bootstrap(np.zeros(g * m), d, n_resamples=5000)
    assert res.standard_error > 2 * naive.standard_error  # clustering widens the interval


def test_none_clusters_are_singletons() -> None:
    # All-None clusters resample items: same law as no clusters (SE within MC error).
    with_none = paired_bootstrap(BASE_400, CAND_400, clusters=[None] * 400)
    plain = paired_bootstrap(BASE_400, CAND_400)
    assert with_none.resampled == "clusters"
    assert with_none.n_units == 400
    assert with_none.standard_error == pytest.approx(plain.standard_error, rel=0.04)


# ------------------------------------------------------------------------- properties


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=60),
    st.sampled_from(["percentile", "bca"]),
)
def test_properties_binary(pairs: list[tuple[int, int]], method: str) -> None:
    base = np.array([p[0] for p in pairs], dtype=float)
    cand = np.array([p[1] for p in pairs], dtype=float)
    res = paired_bootstrap(base, cand, n_resamples=300, method=method)
    assert isinstance(res, BootstrapResult)
    assert 0.0 <= res.pvalue <= 1.0
    assert -1.0 <= res.confidence_interval.low <= res.confidence_interval.high <= 1.0
    assert res.standard_error >= 0.0
    if method == "percentile":
        # The percentile interval and the p-value agree about zero (at resolution 1/B).
        excludes_zero = res.confidence_interval.low > 0 or res.confidence_interval.high < 0
        if excludes_zero and res.n_units > 1 and res.standard_error > 0:
            assert res.pvalue <= 0.05 + 2 / 300


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=2, max_size=40))
def test_percentile_ci_contains_estimate_for_symmetric_data(xs: list[float]) -> None:
    d = np.array(xs)
    res = paired_bootstrap(np.zeros(d.size), d, n_resamples=400)
    lo, hi = res.confidence_interval
    assert lo <= hi
    assert float(d.min()) - 1e-9 <= lo
    assert hi <= float(d.max()) + 1e-9


# ------------------------------------------------------------------ input validation


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"baseline": [], "candidate": []},
            "`baseline` must contain at least one item; got empty columns.",
        ),
        (
            {"baseline": [1.0, 0.0], "candidate": [1.0]},
            "All columns must have one value per paired item; got lengths "
            "baseline['value']: 2, candidate['value']: 1.",
        ),
        (
            {"baseline": [1.0, float("nan")], "candidate": [1.0, 1.0]},
            "`baseline` must be finite; got nan at index 1.",
        ),
        (
            {"baseline": [[1.0]], "candidate": [[1.0]]},
            "`baseline` must be one-dimensional; got an array of shape (1, 1).",
        ),
        (
            {"baseline": [1.0], "candidate": [1.0], "n_resamples": 0},
            "`n_resamples` must be an integer >= 1; got 0.",
        ),
        (
            {"baseline": [1.0], "candidate": [1.0], "method": "BCa"},
            "`method` must be one of 'percentile', 'bca'; got 'BCa'.",
        ),
        (
            {"baseline": [1.0], "candidate": [1.0], "seed": -1},
            "`seed` must be an integer >= 0; got -1.",
        ),
        (
            {"baseline": [1.0], "candidate": [1.0], "confidence_level": 95},
            "`confidence_level` must be in (0, 1); got 95.",
        ),
        (
            {"baseline": [1.0, 1.0], "candidate": [1.0, 1.0], "clusters": ["a"]},
            "`clusters` must have one entry per item (2); got 1 entries.",
        ),
    ],
)
def test_input_validation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        paired_bootstrap(**kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message


# ------------------------------------------------------------------ p-value = inverted interval


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-4, 6), min_size=3, max_size=50),
    st.sampled_from(["percentile", "bca"]),
    st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_pvalue_and_interval_agree_at_every_level(
    values: list[int], method: str, level: float
) -> None:
    # The interval at `level` excludes 0 exactly when p < 1 - level, for both methods (the BCa
    # p-value inverts the BCa interval, so the verdict never contradicts the interval shown).
    d = np.array(values, dtype=float) / 3
    res = paired_bootstrap(
        np.zeros(d.size), d, n_resamples=400, method=method, confidence_level=level
    )
    excludes = res.confidence_interval.low > 0 or res.confidence_interval.high < 0
    if res.standard_error > 0:
        assert excludes == (res.pvalue < 1 - level)


def test_percentile_pvalue_is_the_tail_share_up_to_interpolation() -> None:
    # The inverted p-value and 2 min(P*(d* <= 0), P*(d* >= 0)) differ by at most 2/(B-1).
    rng = np.random.default_rng(2)
    d = rng.normal(0.15, 1.0, size=80)
    res = paired_bootstrap(np.zeros(80), d, n_resamples=4000, seed=1)
    boot_share = None
    # the same resamples as the engine: the index resampler with seed 1
    rng = np.random.default_rng(1)
    idx = rng.integers(0, 80, size=(4000, 80), dtype=np.intp)
    boot = d[idx].sum(axis=1) / 80
    boot_share = 2 * min(np.mean(boot <= 0), np.mean(boot >= 0))
    assert res.pvalue == pytest.approx(boot_share, abs=2 / 3999)


def test_zero_pvalue_is_reported_as_a_bound() -> None:
    # Every resample of 400 items with 40 fixed and none broken is above 0.
    base = np.repeat([1.0, 0.0, 0.0], [200, 40, 160])
    cand = np.repeat([1.0, 1.0, 0.0], [200, 40, 160])
    res = paired_bootstrap(base, cand, n_resamples=10_000)
    assert res.pvalue.bound == "upper"
    assert res.pvalue.value == pytest.approx(2e-4)  # 2 / B
    assert res.pvalue.format() == "< 0.0002"


def test_bca_pvalue_inverts_the_bca_interval() -> None:
    # Recompute: the smallest alpha whose BCa interval (z0, a from the same bootstrap) excludes
    # 0, by a fine grid over alpha with the BCa level formula written out here.
    from scipy.special import ndtr, ndtri

    rng = np.random.default_rng(8)
    d = np.round(rng.exponential(1.0, size=40) - 0.7, 3)
    res = paired_bootstrap(np.zeros(40), d, n_resamples=3000, method="bca", seed=4)
    rng = np.random.default_rng(4)
    idx = rng.integers(0, 40, size=(3000, 40), dtype=np.intp)
    boot = np.sort(d[idx].mean(axis=1))
    obs = d.mean()
    prop = (np.sum(boot < obs) + 0.5 * np.sum(boot == obs)) / boot.size
    z0 = ndtri(prop)
    jack = (d.sum() - d) / 39
    dev = jack.mean() - jack
    acc = np.sum(dev**3) / (6 * np.sum(dev**2) ** 1.5)

    def excludes(alpha: float) -> bool:
        z = ndtri(alpha / 2)
        lo_level = ndtr(z0 + (z0 + z) / (1 - acc * (z0 + z)))
        hi_level = ndtr(z0 + (z0 - z) / (1 - acc * (z0 - z)))
        lo, hi = np.percentile(boot, [100 * lo_level, 100 * hi_level])
        return bool(lo > 0 or hi < 0)

    grid = np.linspace(1e-4, 1, 20_000)
    first = grid[np.argmax([excludes(a) for a in grid])]
    assert res.pvalue == pytest.approx(first, abs=1e-4)
