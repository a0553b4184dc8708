"""Repeats: variance components, budget advice, pass@k, majority vote.

References: hand-worked matrices; ``scipy.stats.f_oneway`` (one-way ANOVA F = MSB / MSW,
which ties the two components together); a seeded Beta-Bernoulli simulation with known
sigma_b^2 and E[p(1-p)]; brute-force enumeration of k-subsets and Chen et al.'s numpy
formula for pass@k.
"""

from __future__ import annotations

import itertools
import math
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import f_oneway

from evalbot.stats.repeats import (
    allocate_budget,
    analyze_repeats,
    majority_vote_accuracy,
    pass_at_k,
    repeats_standard_error,
)


def test_hand_worked() -> None:
    r = analyze_repeats([[1, 1, 1, 1], [0, 0, 0, 0], [1, 0, 1, 0]])
    # Per-item means 1, 0, 1/2 -> mean 1/2; sample variances 0, 0, 1/3 -> w = 1/9.
    assert r.mean == 0.5
    assert r.within_item_variance == pytest.approx(1 / 9)
    # var(means, ddof=1) = 1/4; sigma_b^2 = 1/4 - (1/9)/4 = 2/9.
    assert r.between_item_variance == pytest.approx(2 / 9)
    assert r.standard_error == pytest.approx(math.sqrt(0.25 / 3))
    assert (r.always_pass, r.always_fail, r.flaky) == (1, 1, 1)
    assert r.flaky_rate == pytest.approx(1 / 3)
    assert r.majority_vote_accuracy == pytest.approx((1 + 0 + 0.5) / 3)  # tie counts 1/2
    assert r.intraclass_correlation == pytest.approx((2 / 9) / (2 / 9 + 1 / 9))


def test_against_one_way_anova() -> None:
    # F = MSB / MSW with MSB = k var(means) and MSW = w (balanced design).
    rng = np.random.default_rng(0)
    x = rng.normal(rng.normal(0, 1, (40, 1)), 0.7, (40, 6))
    r = analyze_repeats(x)
    f = f_oneway(*x).statistic
    assert 6 * (r.between_item_variance + r.within_item_variance / 6) / r.within_item_variance == (
        pytest.approx(f, rel=1e-10)
    )
    assert not r.binary
    assert math.isnan(r.majority_vote_accuracy)


def test_beta_bernoulli_simulation_recovers_components() -> None:
    # Item pass rates pi ~ Beta(2, 3): E = 0.4, Var = 6 / (25 * 6) = 0.04,
    # E[pi(1-pi)] = 0.4 - (0.04 + 0.16) = 0.2 (exact Beta moments).
    rng = np.random.default_rng(1)
    pi = rng.beta(2, 3, 20_000)
    x = (rng.random((20_000, 5)) < pi[:, None]).astype(float)
    r = analyze_repeats(x)
    assert r.binary
    assert r.between_item_variance == pytest.approx(0.04, abs=0.003)
    assert r.within_item_variance == pytest.approx(0.2, abs=0.003)
    assert r.mean == pytest.approx(0.4, abs=0.01)


def test_repeats_are_not_items() -> None:
    # Strong item effects: the SE from per-item means is much larger than the naive SE that
    # treats the n k samples as independent items.
    rng = np.random.default_rng(2)
    pi = rng.beta(0.5, 0.5, 200)
    x = (rng.random((200, 10)) < pi[:, None]).astype(float)
    r = analyze_repeats(x)
    naive = np.std(x, ddof=1) / math.sqrt(x.size)
    assert r.standard_error > 2 * naive
    assert r.standard_error == pytest.approx(np.std(x.mean(axis=1), ddof=1) / math.sqrt(200))


def test_one_repeat_cannot_separate_components() -> None:
    r = analyze_repeats([[1.0], [0.0], [1.0]])
    assert math.isnan(r.within_item_variance)
    assert math.isnan(r.between_item_variance)
    assert r.flaky == 0


def test_standard_error_formula_and_budget() -> None:
    # sqrt((0.16 + 0.09 / 4) / 100), evaluated by hand = sqrt(0.001825).
    assert repeats_standard_error(0.16, 0.09, 100, 4) == pytest.approx(math.sqrt(0.001825))
    # Budget 1000 with unlimited items: k = 1 on 1000 items.
    a = allocate_budget(0.16, 0.09, 1000)
    assert (a.items, a.repeats) == (1000, 1)
    assert a.standard_error == pytest.approx(math.sqrt(0.25 / 1000))
    # Only 250 items: 4 repeats each.
    a = allocate_budget(0.16, 0.09, 1000, available_items=250)
    assert (a.items, a.repeats) == (250, 4)
    assert min(o[2] for o in a.options) == pytest.approx(a.standard_error)


@given(st.floats(0.0, 1.0), st.floats(0.0, 0.25), st.integers(1, 5000), st.integers(1, 20))
def test_fixed_budget_more_items_beat_more_repeats(sb: float, w: float, n: int, k: int) -> None:
    # Same budget B = 2 n k: (2n items, k repeats) vs (n items, 2k repeats). The variance is
    # (sigma_b^2 k + w) / B, increasing in k, so the first is never worse.
    wide = repeats_standard_error(sb, w, 2 * n, k)
    deep = repeats_standard_error(sb, w, n, 2 * k)
    assert wide <= deep * (1 + 1e-12)
    assert wide**2 == pytest.approx((sb * k + w) / (2 * n * k), rel=1e-9, abs=1e-300)


def brute_pass_at_k(n: int, c: int, k: int) -> float:
    """Definition: share of k-subsets of the n samples that contain a passing one."""
    samples = [1] * c + [0] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(samples[i] for i in s) for s in subsets) / len(subsets)


def chen_numpy(n: int, c: int, k: int) -> float:
    """Chen et al. (2021), Fig. 3 numerically stable estimator."""
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


@pytest.mark.parametrize(("n", "c", "k"), [(5, 0, 1), (5, 2, 2), (6, 3, 3), (8, 1, 5), (7, 7, 3)])
def test_pass_at_k_against_enumeration(n: int, c: int, k: int) -> None:
    assert pass_at_k(n, [c], k) == pytest.approx(brute_pass_at_k(n, c, k), rel=1e-12)


def test_pass_at_k_against_chen_and_k1_is_mean() -> None:
    rng = np.random.default_rng(3)
    c = rng.integers(0, 201, 50)
    ref = np.mean([chen_numpy(200, int(ci), 10) for ci in c])
    assert pass_at_k(200, c, 10) == pytest.approx(ref, rel=1e-10)
    assert pass_at_k(200, c, 1) == pytest.approx(np.mean(c / 200), rel=1e-12)


def test_majority_vote() -> None:
    assert majority_vote_accuracy([[1, 1, 0], [0, 0, 1], [1, 0, 1]]) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="0/1 outcomes"):
        majority_vote_accuracy([[0.5, 1.0]])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: analyze_repeats([1, 0, 1]),
            "`values` must be two-dimensional (items x repeats); got an array of shape (3,).",
        ),
        (
            lambda: pass_at_k(3, [1, 2], 4),
            "`k` must be at most `n_samples[0]` (3); got 4.",
        ),
        (
            lambda: pass_at_k(3, [4], 1),
            "`n_correct[0]` must be at most `n_samples[0]` (3); got 4.",
        ),
        (
            lambda: allocate_budget(-0.1, 0.1, 10),
            "`between_variance` must be finite and >= 0; got -0.1.",
        ),
    ],
)
def test_input_validation(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        call()  # type: ignore[operator]
    assert str(info.value) == message


def loop_pass_at_k(n: Any, c: Any, k: int) -> float:
    """Chen et al.'s unbiased estimator, item by item (the reference)."""
    counts = np.atleast_1d(np.asarray(c))
    samples = np.broadcast_to(np.asarray(n), counts.shape)
    total = 0.0
    for ni, ci in zip(samples.tolist(), counts.tolist(), strict=True):
        total += 1.0 - math.comb(ni - ci, k) / math.comb(ni, k)
    return total / counts.size


def test_vectorised_pass_at_k_is_the_loop_bit_for_bit() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        m, e = int(rng.integers(1, 3000)), int(rng.integers(1, 12))
        k = int(rng.integers(1, e + 1))
        n: Any = e if rng.random() < 0.5 else rng.integers(e, 40, m)
        c = (rng.random(m) * (np.asarray(n) + 1)).astype(np.int64)
        assert pass_at_k(n, c, k) == loop_pass_at_k(n, c, k)
    # Chen et al.'s example: n = 4 samples, 0, 1 and 4 correct, k = 2 -> (0 + 1/2 + 1) / 3
    assert pass_at_k(4, [0, 1, 4], 2) == 0.5


@pytest.mark.parametrize(
    ("n", "c", "k", "message"),
    [
        (4, [0, 5], 2, r"`n_correct\[1\]` must be at most `n_samples\[1\]` \(4\); got 5"),
        (4, [-1], 2, r"`n_correct\[0\]` must be an integer >= 0"),
        (1, [0], 2, r"`k` must be at most `n_samples\[0\]` \(1\); got 2"),
        (4, [1.0], 1, r"`n_correct\[0\]` must be an integer; got 1.0"),
        ([0, 4], [0, 1], 1, r"`n_samples\[0\]` must be an integer >= 1"),
    ],
)
def test_pass_at_k_refuses_bad_counts_naming_the_item(n: Any, c: Any, k: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pass_at_k(n, c, k)
