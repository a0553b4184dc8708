"""Slices of numeric scores without clusters: the false-positive rate of each slice's test
and of the BH q-values over the slices, through evalbot's own :func:`compute_slices`.

Slices are small where the percentile bootstrap's p-value rejects too often (about 10 % at
10 items, ``tests/sim/test_paired_mean.py``), so each score slice is tested by the primary's
test for scores. Nulls (no difference, exchangeable runs): exponential noise ``d = E1 - E2``
and 3-level scores (ties, zeros); each dataset has 8 slices of 10 items (exact sign-flip) and
4 of 40 (sampled sign patterns, 999 of them). The percentile bootstrap's p-value on the same
10-item slices (999 resamples; fewer datasets) is shown beside it for contrast.
"""

from __future__ import annotations

import numpy as np

from evalbot.compare.primary import plan_bootstrap
from evalbot.compare.slices import compute_slices
from evalbot.formats.model import Paired
from evalbot.plan.config import BootstrapConfig, Config
from tests.sim._common import ALPHA, reps, slack, table

LAYOUT = [(f"small{k}", 10) for k in range(8)] + [(f"mid{k}", 40) for k in range(4)]
CONFIG = Config(bootstrap=BootstrapConfig(resamples=999, seed=0))


def draw(rng: np.random.Generator, name: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    if name == "exponential":
        item = rng.normal(0.5, 0.2, n)
        return item + rng.exponential(size=n), item + rng.exponential(size=n)
    p = rng.beta(0.5, 0.5, n)
    return rng.binomial(2, p) / 2.0, rng.binomial(2, p) / 2.0


def dataset(rng: np.random.Generator, name: str) -> Paired:
    n = sum(size for _, size in LAYOUT)
    base, cand = draw(rng, name, n)
    labels: list[str | None] = [label for label, size in LAYOUT for _ in range(size)]
    return Paired(
        ids=[f"i{k:05d}" for k in range(n)],
        baseline=base,
        candidate=cand,
        kind="score",
        pass_fail=False,
        baseline_source="b",
        candidate_source="c",
        slices=labels,
    )


def test_score_slices_hold_their_level() -> None:
    rng = np.random.default_rng(20261201)
    rows = []
    for name in ("exponential", "3-level"):
        r = reps(1000)
        small = mid = anyq = 0
        for _ in range(r):
            found = compute_slices(dataset(rng, name), CONFIG)
            small += sum(row.pvalue <= ALPHA for row in found if row.items == 10)
            mid += sum(row.pvalue <= ALPHA for row in found if row.items == 40)
            anyq += any(row.qvalue <= ALPHA for row in found)
        boot_r = reps(200)
        boot = 0
        for _ in range(boot_r):
            base, cand = draw(rng, name, 10)
            boot += plan_bootstrap(base, cand, CONFIG, clusters=None).pvalue <= ALPHA
        rows.append([name, small / (8 * r), mid / (4 * r), anyq / r, boot / boot_r, r])
    table(
        "Score slices without clusters (sign-flip per slice): false-positive rate",
        ["null", "10 items", "40 items", "any q <= 0.05", "bootstrap, 10 items", "datasets"],
        rows,
    )
    for name, small, mid, anyq, _boot, r in rows:
        assert small <= ALPHA + slack(ALPHA, 8 * r), name
        assert mid <= ALPHA + slack(ALPHA, 4 * r), name
        assert anyq <= ALPHA + slack(ALPHA, r), name
