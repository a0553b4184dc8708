"""Slices of items that share clusters: each slice is tested like the primary metric on its
own items (:func:`evalbot.compare.slices.compute_slices`).

References: full enumeration of the sign patterns of the slice's units (exact fractions),
scipy's ``permutation_test`` (``permutation_type="samples"`` flips the sign of each unit's
total) and scipy's ``false_discovery_control`` for the BH q-values; for sampled patterns,
evalbot's own :func:`clustered_mean_test` on the slice alone (the same patterns)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import false_discovery_control, permutation_test

from evalbot.compare.primary import plan_bootstrap
from evalbot.compare.slices import compute_slices
from evalbot.formats.model import Paired
from evalbot.plan.config import BootstrapConfig, Config
from evalbot.stats.clusters import clustered_mean_test
from evalbot.stats.mcnemar import mcnemar


def paired(
    base: list[float],
    cand: list[float],
    slices: list[str | None],
    clusters: list[str | None] | None,
    kind: str = "binary",
) -> Paired:
    return Paired(
        ids=[f"i{k:04d}" for k in range(len(base))],
        baseline=np.array(base, dtype=np.float64),
        candidate=np.array(cand, dtype=np.float64),
        kind=kind,  # type: ignore[arg-type]
        pass_fail=kind == "binary",
        baseline_source="b",
        candidate_source="c",
        slices=slices,
        clusters=clusters,
    )


def enumerate_pvalue(totals: list[float]) -> Fraction:
    observed = abs(sum(totals))
    hits = sum(
        abs(sum(s * t for s, t in zip(signs, totals, strict=True))) >= observed - 1e-12
        for signs in itertools.product((1, -1), repeat=len(totals))
    )
    return Fraction(hits, 2 ** len(totals))


# Slice "x": clusters a (4 fixed), b (3 fixed, 1 broken), c (2 broken), s (2 fixed) and two
# unlabelled items (1 fixed, 1 unchanged); slice "y": the other 3 items of s (all broken),
# d and f (4 fixed each), e (4 unchanged). Cluster s spans both slices: in each it is one unit made of
# its items there.
ROWS: Sequence[tuple[str, str | None, float, float]] = (
    [("x", "a", 0, 1)] * 4
    + [("x", "b", 0, 1)] * 3
    + [("x", "b", 1, 0)]
    + [("x", "c", 1, 0)] * 2
    + [("x", "s", 0, 1)] * 2
    + [("x", None, 0, 1), ("x", None, 1, 1)]
    + [("y", "s", 1, 0)] * 3
    + [("y", "d", 0, 1)] * 4
    + [("y", "e", 1, 1)] * 4
    + [("y", "f", 0, 1)] * 4
)


def rows_paired(*, labelled: bool = True) -> Paired:
    return paired(
        [r[2] for r in ROWS],
        [r[3] for r in ROWS],
        [r[0] for r in ROWS],
        [r[1] for r in ROWS] if labelled else None,
    )


def test_each_slice_is_the_cluster_test_of_its_units() -> None:
    found = {s.name: s for s in compute_slices(rows_paired(), Config())}
    # units of x: a +4, b +2, c -2, s +2, the two unlabelled items +1 and 0
    x_units = [4.0, 2.0, -2.0, 2.0, 1.0, 0.0]
    # units of y: s -3, d +4, e 0, f +4
    y_units = [-3.0, 4.0, 0.0, 4.0]
    px, py = enumerate_pvalue(x_units), enumerate_pvalue(y_units)
    # by hand: x sums 4a + 2t + e (t = the sum of three signs): |sum| >= 7 for t = 3 (both e)
    # and t = 1, e = +1 with a = +1, and the mirror images, 10 of 32 sign patterns of the
    # non-zero units; y: +-(4 + 4 - 3) and +-(4 + 4 + 3) reach 5, 4 of 8
    assert (px, py) == (Fraction(10, 32), Fraction(4, 8))
    assert found["x"].test == found["y"].test == "exact cluster sign-flip"
    assert found["x"].pvalue == pytest.approx(float(px), abs=1e-15)
    assert found["y"].pvalue == pytest.approx(float(py), abs=1e-15)
    # scipy flips each unit's sign (2^6 and 2^3 patterns: exact)
    for name, units in (("x", x_units), ("y", y_units)):
        ref = permutation_test(
            (np.array(units),),
            np.sum,
            permutation_type="samples",
            alternative="two-sided",
            n_resamples=np.inf,
        )
        assert found[name].pvalue == pytest.approx(ref.pvalue, abs=1e-12)
    q = false_discovery_control([float(px), float(py)])
    assert [found["x"].qvalue, found["y"].qvalue] == pytest.approx(list(q), abs=1e-12)
    # the table is still the slice's pass/fail table
    table = found["x"].table
    assert table is not None and (table.fixed, table.broken) == (10, 3)
    # without clusters McNemar decides a slice, and is far smaller on x (10 fixed, 3 broken)
    plain = {s.name: s for s in compute_slices(rows_paired(labelled=False), Config())}
    assert plain["x"].test == "McNemar (exact)"
    assert plain["x"].pvalue == pytest.approx(mcnemar(10, 3).pvalue, abs=1e-15)


def test_sampled_patterns_are_the_primary_tests_on_the_slice() -> None:
    """Over 24 units per slice the patterns are sampled; the slice's p-value is exactly what
    :func:`clustered_mean_test` finds on the slice's items alone (same numbering of units,
    same patterns), for pass/fail items and for scores."""
    rng = np.random.default_rng(5)
    n = 600
    clusters: list[str | None] = [f"c{k}" for k in rng.integers(0, 90, n)]
    clusters[::17] = [None] * len(clusters[::17])
    slices: list[str | None] = [["p", "q", None][k] for k in rng.integers(0, 3, n)]
    config = Config(bootstrap=BootstrapConfig(resamples=499, seed=7))
    for kind in ("binary", "score"):
        if kind == "binary":
            base = rng.integers(0, 2, n).astype(float)
            cand = np.where(rng.random(n) < 0.2, 1 - base, base)
        else:
            base = rng.normal(size=n)
            cand = base + rng.normal(0.05, 1.0, n)
        run = paired(base.tolist(), cand.tolist(), slices, clusters, kind)
        for s in compute_slices(run, config):
            idx = [i for i, name in enumerate(slices) if name == s.name]
            ref = clustered_mean_test(
                base[idx],
                cand[idx],
                [clusters[i] for i in idx],
                n_resamples=499,
                seed=7,
            )
            assert s.test == ref.method == "Monte Carlo cluster sign-flip"
            assert s.pvalue == ref.pvalue
            assert s.items == len(idx)


def test_test_bootstrap_slices_resample_the_slices_clusters() -> None:
    run = rows_paired()
    config = Config(test="bootstrap", bootstrap=BootstrapConfig(resamples=999, seed=3))
    for s in compute_slices(run, config):
        idx = [i for i, r in enumerate(ROWS) if r[0] == s.name]
        ref = plan_bootstrap(
            run.baseline[idx], run.candidate[idx], config, clusters=[ROWS[i][1] for i in idx]
        )
        assert s.test == f"paired bootstrap ({ref.method})"
        assert s.pvalue == ref.pvalue
