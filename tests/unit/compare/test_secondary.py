"""Secondary metrics are tested like a primary score: the paired test valid at every n (exact
sign-flip, sampled sign-flip, paired t), the cluster sign-flip when items share clusters, the
paired bootstrap only under ``test: bootstrap``; each interval comes from the same test, and
Holm adjusts the p-values over the secondaries. Every expected number is computed here
independently of evalbot (hand enumeration, scipy, statsmodels)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from evalbot.compare.secondary import compute_cost, compute_f1, compute_secondary
from evalbot.errors import InputError
from evalbot.formats.model import Paired
from evalbot.plan.config import BootstrapConfig, Config, F1Config

FloatArray = np.ndarray


def enumerated_sign_flip(units: list[int]) -> Fraction:
    """Two-sided sign-flip p-value by enumerating every sign pattern of integer ``units``:
    the share of patterns with ``|sum(s u)| >= |sum(u)|`` (exact fractions)."""
    observed = abs(sum(units))
    hits = sum(
        abs(sum(s * u for s, u in zip(signs, units, strict=True))) >= observed
        for signs in itertools.product((1, -1), repeat=len(units))
    )
    return Fraction(hits, 2 ** len(units))


def test_tiny_secondary_is_the_exact_sign_flip() -> None:
    # differences 3, 1, 2, 4, -1 (say milliseconds): |sum| = 9 of a total |d| of 11, so a
    # pattern reaches 9 when the flipped |d| sum to at most 1 ({}, {1}, {-1}) or at least 10
    # (their complements): 6 of 32 patterns, p = 3/16 (worked by hand, enumerated below)
    base = np.array([10.0, 20.0, 30.0, 40.0, 50.0])
    d = [3, 1, 2, 4, -1]
    cand = base + np.array(d, dtype=float)
    assert enumerated_sign_flip(d) == Fraction(3, 16)
    (found,) = compute_secondary({"latency": (base, cand)}, Config(), clusters=None)
    diff = found.difference
    assert found.method == "exact sign-flip"
    assert found.interval == "sign-flip"
    assert diff.n_resamples == 0 and diff.seed is None  # nothing sampled
    assert diff.statistic == pytest.approx(9 / 5)
    assert found.difference.pvalue.value == pytest.approx(3 / 16, rel=1e-12)
    assert found.difference.pvalue.kind == "exact"
    # one secondary: Holm leaves it as it is
    assert found.adjusted_pvalue == pytest.approx(3 / 16, rel=1e-12)
    # the interval inverts the same test: p = 0.1875 > 0.05, so it holds 0
    assert diff.confidence_interval.low < 0 < diff.confidence_interval.high
    assert (found.difference.baseline_value, found.difference.candidate_value) == (
        pytest.approx(30.0),
        pytest.approx(31.8),
    )


def test_tiny_secondary_all_one_way_reaches_the_floor() -> None:
    # 6 items all 1 faster: only the all-plus and all-minus patterns reach |sum| = 6,
    # p = 2 / 64 = 1/32 <= 0.05, so the interval from the same test excludes 0
    base = np.zeros(6)
    cand = base + 1.0
    assert enumerated_sign_flip([1] * 6) == Fraction(1, 32)
    (found,) = compute_secondary({"x": (base, cand)}, Config(), clusters=None)
    assert found.difference.pvalue.value == pytest.approx(1 / 32, rel=1e-12)
    assert found.difference.confidence_interval.low > 0


def test_large_secondary_is_the_paired_t() -> None:
    from scipy import stats

    rng = np.random.default_rng(11)
    n = 1500  # above the sign-flip's 1,000 items
    base = rng.normal(1.0, 0.3, n)
    cand = base + rng.normal(0.02, 0.25, n)
    (found,) = compute_secondary({"quality": (base, cand)}, Config(), clusters=None)
    diff = found.difference
    assert found.method == "paired t"
    assert found.interval == "t"
    reference = stats.ttest_rel(cand, base)
    assert found.difference.pvalue.value == pytest.approx(reference.pvalue, rel=1e-9)
    # the t interval: mean +- t_{n-1, 0.975} sd / sqrt(n) (scipy's quantile)
    d = cand - base
    half = stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n)
    assert diff.confidence_interval.low == pytest.approx(d.mean() - half, rel=1e-9)
    assert diff.confidence_interval.high == pytest.approx(d.mean() + half, rel=1e-9)


def test_clustered_secondary_is_the_cluster_sign_flip() -> None:
    # 6 clusters of 2 items; the cluster totals of the differences are 4, 2, 3, 1, 5, -2, so
    # the exact cluster sign-flip p enumerates the 64 sign patterns of those totals
    labels: list[str | None] = [f"doc{g}" for g in range(6) for _ in range(2)]
    d = [2, 2, 1, 1, 1, 2, 0, 1, 3, 2, -1, -1]
    totals = [4, 2, 3, 1, 5, -2]
    assert [d[2 * g] + d[2 * g + 1] for g in range(6)] == totals
    base = np.arange(12, dtype=float)
    cand = base + np.array(d, dtype=float)
    (found,) = compute_secondary({"m": (base, cand)}, Config(), clusters=labels)
    expected = enumerated_sign_flip(totals)
    assert found.difference.method == "exact cluster sign-flip"
    assert found.interval == "cluster-sign-flip"
    assert found.difference.pvalue.value == pytest.approx(float(expected), rel=1e-12)
    # the items' own sign-flip would treat the 12 items as independent: a smaller p
    (items,) = compute_secondary({"m": (base, cand)}, Config(), clusters=None)
    assert items.difference.pvalue.value < found.difference.pvalue.value


def test_holm_over_the_tests_p_values() -> None:
    from statsmodels.stats.multitest import multipletests

    base = np.zeros(8)
    metrics = {
        "a": (base, base + np.array([1.0, 2, 3, 4, 5, 6, 7, 8])),  # all up: p = 2/256
        "b": (base, base + np.array([1.0, -2, 3, -4, 5, -6, 7, 1])),
        "c": (base, base + np.array([3.0, 1, 2, 4, -1, 2, 2, -3])),
    }
    found = {r.name: r for r in compute_secondary(metrics, Config(), clusters=None)}
    names = sorted(found)
    raw = [
        float(enumerated_sign_flip([int(x) for x in metrics[n][1] - metrics[n][0]])) for n in names
    ]
    assert raw[0] == pytest.approx(2 / 256)
    for name, p in zip(names, raw, strict=True):
        assert found[name].difference.pvalue.value == pytest.approx(p, rel=1e-12)
    adjusted = multipletests(raw, method="holm")[1]
    for name, value in zip(names, adjusted, strict=True):
        assert found[name].adjusted_pvalue == pytest.approx(value, rel=1e-12)


def test_bootstrap_only_under_test_bootstrap() -> None:
    rng = np.random.default_rng(5)
    base = rng.normal(0, 1, 40)
    cand = base + rng.normal(0.1, 1, 40)
    config = Config(test="bootstrap", bootstrap=BootstrapConfig(resamples=999, seed=3))
    (found,) = compute_secondary({"m": (base, cand)}, config, clusters=None)
    diff = found.difference
    assert found.interval == "bootstrap"
    assert found.method.startswith("paired bootstrap (percentile")
    assert (diff.n_resamples, diff.seed) == (999, 3)
    # the default plan tests the same values with the sampled sign-flip (40 items)
    (default,) = compute_secondary({"m": (base, cand)}, Config(), clusters=None)
    assert default.difference.method == "Monte Carlo sign-flip"
    assert default.difference.n_resamples == 10_000


def _paired(**columns: Any) -> Paired:
    return Paired(
        ids=["a", "b"],
        baseline=np.array([1.0, 0.0]),
        candidate=np.array([1.0, 1.0]),
        kind="binary",
        pass_fail=True,
        baseline_source="base.jsonl",
        candidate_source="cand.jsonl",
        **columns,
    )


F1_COUNTS = {"tp": np.array([1.0, 1.0]), "fp": np.array([0.0, 1.0]), "fn": np.array([1.0, 0.0])}


@pytest.mark.parametrize(
    ("compute", "columns", "message"),
    [
        (
            compute_cost,
            {"baseline_costs": np.array([-0.5, 1.0]), "candidate_costs": np.array([1.0, 1.0])},
            "base.jsonl: item 'a' has a negative `cost` (-0.5); it must be >= 0",
        ),
        (
            compute_cost,
            {"baseline_costs": np.array([1.0, 1.0]), "candidate_costs": np.array([1.0, -2.0])},
            "cand.jsonl: item 'b' has a negative `cost` (-2.0); it must be >= 0",
        ),
        (
            compute_f1,
            {
                "baseline_metrics": F1_COUNTS,
                "candidate_metrics": {**F1_COUNTS, "fp": np.array([0.0, -1.0])},
            },
            "cand.jsonl: item 'b' has a negative `fp` (-1.0); it must be >= 0",
        ),
        (
            compute_f1,
            {"baseline_metrics": {"tp": F1_COUNTS["tp"]}, "candidate_metrics": F1_COUNTS},
            "base.jsonl: the F1 count `fp` was not read from the baseline; `f1:` counts are "
            "read from evalbot's own JSONL/JSON/CSV format",
        ),
        (
            compute_f1,
            {
                "baseline_metrics": {**F1_COUNTS, "tp": np.array([1.0, np.nan])},
                "candidate_metrics": F1_COUNTS,
            },
            "base.jsonl: the F1 count `tp` is missing for some items",
        ),
    ],
)
def test_refused_columns(
    compute: Callable[[Paired, Config], object], columns: dict[str, Any], message: str
) -> None:
    config = Config(f1=F1Config())
    with pytest.raises(InputError) as raised:
        compute(_paired(**columns), config)
    assert str(raised.value) == message
