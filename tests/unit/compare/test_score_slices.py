"""Slices of numeric scores without clusters: each slice is tested by the primary's test for
scores (the sign-flip test up to 1,000 items, the paired t above), not the percentile
bootstrap, whose p-value rejects too often at the small sizes slices have.

References: full enumeration of the ``2^n`` sign patterns of a slice's differences (exact
fractions, written here), scipy's ``ttest_rel`` above 1,000 items, and for sampled patterns
evalbot's own :func:`paired_mean_test` on the slice alone (the same patterns for the same
seed); ``tests/sim/test_score_slices.py`` simulates the false-positive rate."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import false_discovery_control, ttest_rel

from evalbot.compare.slices import compute_slices
from evalbot.formats.model import Paired
from evalbot.plan.config import BootstrapConfig, Config
from evalbot.stats.paired_mean import paired_mean_test


def scores(base: np.ndarray, cand: np.ndarray, slices: list[str | None]) -> Paired:
    return Paired(
        ids=[f"i{k:05d}" for k in range(base.size)],
        baseline=base,
        candidate=cand,
        kind="score",
        pass_fail=False,
        baseline_source="b",
        candidate_source="c",
        slices=slices,
    )


def enumerate_pvalue(d: list[float]) -> Fraction:
    """P(|sum(s_i |d_i|)| >= |sum(d)|) over every sign pattern, counted."""
    observed = abs(sum(d))
    hits = sum(
        abs(sum(s * abs(x) for s, x in zip(signs, d, strict=True))) >= observed - 1e-12
        for signs in itertools.product((1, -1), repeat=len(d))
    )
    return Fraction(hits, 2 ** len(d))


def test_small_score_slices_are_tested_by_enumeration() -> None:
    # slice "a": 8 items, 7 improved by 0.1-0.4 and one worse by 0.05 (hand-countable: only
    # the patterns flipping nothing but the 0.05, or its mirror images, reach the observed sum);
    # slice "b": 6 items, mixed
    da = [0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3, -0.05]
    db = [0.2, -0.1, 0.05, -0.3, 0.1, 0.15]
    d = np.array(da + db)
    base = np.full(d.size, 0.5)
    run = scores(base, base + d, ["a"] * 8 + ["b"] * 6)
    rows = {row.name: row for row in compute_slices(run, Config())}
    assert rows["a"].test == rows["b"].test == "exact sign-flip"
    assert rows["a"].pvalue == pytest.approx(float(enumerate_pvalue(da)), abs=1e-12)
    assert rows["b"].pvalue == pytest.approx(float(enumerate_pvalue(db)), abs=1e-12)
    assert enumerate_pvalue(da) == Fraction(4, 256)  # all-plus, the 0.05 flipped, and mirrors
    q = false_discovery_control([rows["a"].pvalue, rows["b"].pvalue])
    assert [rows["a"].qvalue, rows["b"].qvalue] == pytest.approx(list(q), abs=1e-12)


def test_sampled_and_t_slices_match_the_primary_test_on_the_slice() -> None:
    rng = np.random.default_rng(3)
    n_mid, n_big = 60, 1500  # sampled sign patterns; the paired t above 1,000 items
    base = rng.normal(0.5, 0.2, n_mid + n_big)
    cand = base + rng.normal(0.02, 0.2, base.size)
    config = Config(bootstrap=BootstrapConfig(resamples=2000, seed=5))
    run = scores(base, cand, ["mid"] * n_mid + ["big"] * n_big)
    rows = {row.name: row for row in compute_slices(run, config)}
    alone = paired_mean_test(base[:n_mid], cand[:n_mid], n_resamples=2000, seed=5)
    assert rows["mid"].test == alone.method == "Monte Carlo sign-flip"
    assert rows["mid"].pvalue == alone.pvalue
    assert rows["big"].test == "paired t"
    reference = ttest_rel(cand[n_mid:], base[n_mid:]).pvalue
    assert rows["big"].pvalue == pytest.approx(float(reference), rel=1e-9)


def test_the_bootstrap_still_decides_slices_when_the_plan_says_so() -> None:
    rng = np.random.default_rng(4)
    base = rng.normal(0.5, 0.2, 40)
    run = scores(base, base + rng.normal(0, 0.1, 40), ["a"] * 20 + ["b"] * 20)
    rows = compute_slices(run, Config(test="bootstrap"))
    assert {row.test for row in rows} == {"paired bootstrap (percentile)"}


def test_slices_grouped_with_arrays_equal_a_plain_grouping() -> None:
    rng = random.Random(3)
    n = 500
    names = [rng.choice(["b", "a", "c", None, "10", "2"]) for _ in range(n)]
    base = np.array([rng.random() < 0.6 for _ in range(n)], dtype=np.float64)
    cand = np.array([rng.random() < 0.7 for _ in range(n)], dtype=np.float64)
    paired = Paired(
        ids=[f"q{i:04d}" for i in range(n)],
        baseline=base,
        candidate=cand,
        kind="binary",
        baseline_source="b",
        candidate_source="c",
        slices=names,
    )
    got = compute_slices(paired, Config())
    expected_names = sorted(set(names), key=lambda s: (s is None, s or ""))
    assert [s.name for s in got] == expected_names
    for result in got:
        mask = np.array([name == result.name for name in names])
        assert result.items == int(mask.sum())
        assert result.baseline_rate == float(base[mask].mean())
        assert result.candidate_rate == float(cand[mask].mean())
        assert result.table is not None
        assert result.table.fixed == int(((cand == 1) & (base == 0) & mask).sum())
