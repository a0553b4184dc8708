"""Paired bootstrap of general metrics (F1, ratio of sums) and the clustered SE.

References: ``scipy.stats.bootstrap(paired=True)`` with the metric written directly on
resampled per-item arrays (test-only oracle; agreement within Monte Carlo error);
statsmodels OLS with ``cov_type="cluster"`` for the clustered standard error; exact
probabilities worked by hand for undefined resamples.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from evalbot.stats.bootstrap import (
    Metric,
    f1_metric,
    mean_metric,
    paired_bootstrap,
    ratio_metric,
)
from evalbot.stats.clusters import clustered_standard_error


def f1_data(n: int, seed: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    gold = rng.integers(1, 5, n).astype(float)  # gold entities per item
    tp_b = rng.binomial(gold.astype(int), 0.6).astype(float)
    tp_c = np.minimum(gold, tp_b + rng.binomial(1, 0.3, n)).astype(float)
    fp_b = rng.poisson(0.5, n).astype(float)
    fp_c = rng.poisson(0.4, n).astype(float)
    base = {"tp": tp_b, "fp": fp_b, "fn": gold - tp_b}
    cand = {"tp": tp_c, "fp": fp_c, "fn": gold - tp_c}
    return base, cand


def test_f1_observed_value_hand_worked() -> None:
    # Totals: baseline TP=3, FP=1, FN=2 -> 6/9; candidate TP=4, FP=1, FN=1 -> 8/10.
    base = {"tp": [1, 2, 0], "fp": [0, 1, 0], "fn": [1, 0, 1]}
    cand = {"tp": [2, 2, 0], "fp": [0, 0, 1], "fn": [0, 0, 1]}
    res = paired_bootstrap(base, cand, metric="f1", n_resamples=200)
    assert res.baseline_value == pytest.approx(6 / 9)
    assert res.candidate_value == pytest.approx(8 / 10)
    assert res.statistic == pytest.approx(0.8 - 6 / 9)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_f1_against_scipy(method: str) -> None:
    base, cand = f1_data(300, 0)

    def f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, axis: int) -> np.ndarray:
        t, p, n = tp.sum(axis=axis), fp.sum(axis=axis), fn.sum(axis=axis)
        return 2 * t / (2 * t + p + n)

    def diff(tb, fb, nb, tc, fc, nc, axis=-1):  # type: ignore[no-untyped-def]
        return f1(tc, fc, nc, axis) - f1(tb, fb, nb, axis)

    ref = stats.bootstrap(
        (base["tp"], base["fp"], base["fn"], cand["tp"], cand["fp"], cand["fn"]),
        diff,
        paired=True,
        n_resamples=10_000,
        method="BCa" if method == "bca" else "percentile",
        random_state=np.random.default_rng(7),
    )
    res = paired_bootstrap(base, cand, metric=f1_metric(), n_resamples=10_000, method=method)
    width = ref.confidence_interval.high - ref.confidence_interval.low
    assert res.confidence_interval.low == pytest.approx(
        ref.confidence_interval.low, abs=0.04 * width
    )
    assert res.confidence_interval.high == pytest.approx(
        ref.confidence_interval.high, abs=0.04 * width
    )
    assert res.standard_error == pytest.approx(ref.standard_error, rel=0.04)


def test_ratio_cost_per_solved_against_scipy() -> None:
    rng = np.random.default_rng(2)
    n = 250
    solved_b = (rng.random(n) < 0.5).astype(float)
    solved_c = np.maximum(solved_b, rng.random(n) < 0.15).astype(float)
    cost_b = rng.gamma(2.0, 0.5, n)
    cost_c = cost_b * rng.lognormal(0.2, 0.2, n)
    base = {"cost": cost_b, "solved": solved_b}
    cand = {"cost": cost_c, "solved": solved_c}

    def diff(cb, sb, cc, sc, axis=-1):  # type: ignore[no-untyped-def]
        return cc.sum(axis=axis) / sc.sum(axis=axis) - cb.sum(axis=axis) / sb.sum(axis=axis)

    ref = stats.bootstrap(
        (cost_b, solved_b, cost_c, solved_c),
        diff,
        paired=True,
        n_resamples=10_000,
        method="percentile",
        random_state=np.random.default_rng(8),
    )
    res = paired_bootstrap(base, cand, metric=ratio_metric("cost", "solved"))
    assert res.statistic == pytest.approx(
        cost_c.sum() / solved_c.sum() - cost_b.sum() / solved_b.sum()
    )
    assert res.standard_error == pytest.approx(ref.standard_error, rel=0.04)
    width = ref.confidence_interval.high - ref.confidence_interval.low
    assert res.confidence_interval.low == pytest.approx(
        ref.confidence_interval.low, abs=0.04 * width
    )


def test_undefined_resamples_are_counted() -> None:
    # 3 items, one solved on each side: a resample has no solved item with probability
    # (2/3)^3 = 8/27 (hand-worked); those resamples are undefined and dropped.
    base = {"cost": [1.0, 1.0, 1.0], "solved": [1.0, 0.0, 0.0]}
    cand = {"cost": [2.0, 1.0, 1.0], "solved": [1.0, 0.0, 0.0]}
    res = paired_bootstrap(base, cand, metric=ratio_metric("cost", "solved"), n_resamples=20_000)
    se = math.sqrt(8 / 27 * 19 / 27 / 20_000)
    assert res.n_undefined / 20_000 == pytest.approx(8 / 27, abs=5 * se)
    assert math.isfinite(res.confidence_interval.low)


def test_metric_undefined_on_observed_data_raises() -> None:
    base = {"cost": [1.0, 1.0], "solved": [0.0, 0.0]}
    cand = {"cost": [1.0, 1.0], "solved": [1.0, 0.0]}
    message = (
        "The metric 'cost/solved' is undefined on the baseline (inf); "
        "e.g. a ratio whose denominator sums to 0."
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        paired_bootstrap(base, cand, metric=ratio_metric("cost", "solved"))


def test_mean_metric_delegates_to_the_mean_bootstrap() -> None:
    base = np.repeat([1.0, 0.0, 1.0, 0.0], [266, 31, 14, 89])
    cand = np.repeat([1.0, 1.0, 0.0, 0.0], [266, 31, 14, 89])
    a = paired_bootstrap(base, cand)
    b = paired_bootstrap({"passed": base}, {"passed": cand}, metric=mean_metric("passed"))
    c = paired_bootstrap({"value": base}, {"value": cand}, metric="mean")
    assert a == b == c


def test_custom_metric_equals_mean_in_law() -> None:
    # A non-additive Metric computing the same mean goes through the general engine; its
    # bootstrap SE must match the mean bootstrap's (same law, different path).
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=400), rng.normal(0.1, 1, 400)
    custom = Metric(name="m", columns=("value",), function=lambda m: m["value"] * 1.0)
    a = paired_bootstrap({"value": x}, {"value": y}, metric=custom, n_resamples=5000)
    b = paired_bootstrap(x, y, n_resamples=5000)
    assert a.statistic == pytest.approx(b.statistic)
    assert a.standard_error == pytest.approx(b.standard_error, rel=0.05)


def test_all_identical_items_general_metric_is_degenerate() -> None:
    base = {"tp": [1.0] * 5, "fp": [1.0] * 5, "fn": [0.0] * 5}
    cand = {"tp": [1.0] * 5, "fp": [0.0] * 5, "fn": [0.0] * 5}
    res = paired_bootstrap(base, cand, metric="f1", method="bca")
    # F1 2/3 -> 1 on every resample: CI [1/3, 1/3]; sign test p = 2 * 2^-5 = 1/16.
    assert res.confidence_interval.low == res.confidence_interval.high == res.statistic
    assert res.pvalue == 1 / 16


def test_cluster_bootstrap_of_ratio() -> None:
    rng = np.random.default_rng(9)
    g, m = 30, 8
    labels = [f"g{i}" for i in range(g) for _ in range(m)]
    effect = np.repeat(rng.normal(0, 1, g), m)
    base = {"cost": np.exp(effect + rng.normal(0, 0.1, g * m)), "solved": np.ones(g * m)}
    cand = {"cost": base["cost"] * 1.1, "solved": np.ones(g * m)}
    res = paired_bootstrap(base, cand, metric=ratio_metric("cost", "solved"), clusters=labels)
    naive = paired_bootstrap(base, cand, metric=ratio_metric("cost", "solved"))
    assert res.resampled == "clusters"
    assert res.n_units == g
    assert res.standard_error > 1.5 * naive.standard_error


# ------------------------------------------------------------------ clustered SE


def test_clustered_se_against_statsmodels() -> None:
    rng = np.random.default_rng(11)
    sizes = rng.integers(1, 12, 35)
    labels = [f"c{i}" for i, s in enumerate(sizes) for _ in range(s)]
    codes = np.repeat(np.arange(35), sizes)
    d = np.repeat(rng.normal(0, 0.4, 35), sizes) + rng.normal(0.05, 0.3, sizes.sum())
    base = rng.random(d.size)
    ols = sm.OLS(d, np.ones((d.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": codes})
    # statsmodels' CR1 factor is G/(G-1) * (N-1)/(N-K); with K = 1 the second term is 1.
    assert clustered_standard_error(base, base + d, labels) == pytest.approx(ols.bse[0], rel=1e-10)


def test_clustered_se_singletons_is_plain_se() -> None:
    # No shared labels: sqrt(N/(N-1) * sum (d - d̄)^2) / N = sd(d, ddof=1) / sqrt(N).
    rng = np.random.default_rng(12)
    d = rng.normal(size=50)
    se = clustered_standard_error(np.zeros(50), d, [None] * 50)
    assert se == pytest.approx(np.std(d, ddof=1) / math.sqrt(50), rel=1e-12)


# --------------------------------------------------------------- input validation


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"baseline": {"tp": [1]}, "candidate": {"tp": [1]}, "metric": "f1"},
            "`baseline` lacks column(s) ['fp', 'fn'] needed by the metric; it has ['tp'].",
        ),
        (
            {"baseline": [1.0], "candidate": [1.0], "metric": "f2"},
            "`metric` must be a Metric or one of 'mean', 'f1'; got 'f2'.",
        ),
        (
            {"baseline": [1.0], "candidate": [1.0], "metric": f1_metric()},
            "`baseline` must be a mapping of column name to values for a metric on "
            "columns ['tp', 'fp', 'fn']; got list.",
        ),
        (
            {
                "baseline": {"cost": [1.0, 2.0], "solved": [1.0]},
                "candidate": {"cost": [1.0, 2.0], "solved": [1.0, 1.0]},
                "metric": ratio_metric("cost", "solved"),
            },
            "All columns must have one value per paired item; got lengths baseline['cost']: 2, "
            "baseline['solved']: 1, candidate['cost']: 2, candidate['solved']: 2.",
        ),
    ],
)
def test_input_validation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        paired_bootstrap(**kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_clustered_se_needs_two_clusters() -> None:
    message = "`clusters` must contain at least 2 clusters for a clustered standard error; got 1."
    with pytest.raises(ValueError, match=re.escape(message)):
        clustered_standard_error([0.0, 1.0], [1.0, 1.0], ["a", "a"])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(*[st.integers(0, 3)] * 6), min_size=1, max_size=25),
    st.sampled_from(["percentile", "bca"]),
    st.booleans(),
)
def test_f1_never_warns_and_stays_valid(
    rows: list[tuple[int, ...]], method: str, clustered: bool
) -> None:
    # Small integer TP/FP/FN with many zeros: resamples and jackknife values can be 0/0.
    # pytest turns warnings into errors, so a leaked numpy warning fails this test.
    arr = np.array(rows, dtype=float)
    base = {"tp": arr[:, 0], "fp": arr[:, 1], "fn": arr[:, 2]}
    cand = {"tp": arr[:, 3], "fp": arr[:, 4], "fn": arr[:, 5]}
    clusters = [f"c{i % 3}" for i in range(len(rows))] if clustered else None
    kwargs = {"metric": "f1", "n_resamples": 200, "method": method, "clusters": clusters}
    undefined = any(2 * s["tp"].sum() + s["fp"].sum() + s["fn"].sum() == 0 for s in (base, cand))
    if undefined:  # F1 is 0/0 on one side of the observed data
        with pytest.raises(ValueError, match="is undefined on the"):
            paired_bootstrap(base, cand, **kwargs)  # type: ignore[arg-type]
        return
    res = paired_bootstrap(base, cand, **kwargs)  # type: ignore[arg-type]
    assert 0.0 <= res.pvalue <= 1.0
    assert -1.0 <= res.confidence_interval.low <= res.confidence_interval.high <= 1.0
    assert 0 <= res.n_undefined <= 200
