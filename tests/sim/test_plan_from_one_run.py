"""``evalbot plan --pass-rate`` (or ``--from-baseline``) is conservative: the size it takes
without a measured discordance (the range's independent row) reaches the target power whenever
the runs' outcomes are positively associated, as runs of similar systems are.

For baseline pass rate p0, candidate p1 = p0 + D and correlation rho >= 0 between the two
outcomes of an item (from none to 90 % of the most the margins allow), P(both pass) = p0 p1 + rho sqrt(p0 (1 - p0) p1 (1 - p1)); then
fix = p1 - P(both pass), break = p0 - P(both pass). At the size planned for rho = 0 the exact
power of McNemar's exact test (``mcnemar_exact_power``) is computed for each rho, and checked by
seeded simulation; with rho = 0 it is the plan's own power, with rho > 0 it is higher.
"""

from __future__ import annotations

import math

import pytest

from evalbot.plan.sizing import independent_discordance
from evalbot.stats.power import mcnemar_exact_power, mcnemar_sample_size, simulate_mcnemar_power
from tests.sim._common import reps, slack, table

#: (p0, difference): a typical eval, a hard one, an easy one, and a drop.
CASES = [(0.70, 0.03), (0.30, 0.05), (0.90, 0.04), (0.60, -0.05)]
#: Association as a share of the most the margins allow (1: P(both pass) = min(p0, p1)).
SHARES = [0.0, 0.25, 0.5, 0.9]


def joint(p0: float, p1: float, share: float) -> tuple[float, float, float]:
    """(rho, fix, break) of two binary outcomes with margins p0, p1 and correlation rho, the
    ``share`` of the largest correlation those margins allow."""
    spread = math.sqrt(p0 * (1 - p0) * p1 * (1 - p1))
    rho = share * (min(p0, p1) - p0 * p1) / spread
    both = p0 * p1 + rho * spread
    return rho, p1 - both, p0 - both


def test_the_one_run_plan_holds_its_power_for_associated_runs() -> None:
    sims = reps(4_000)
    rows = []
    for p0, difference in CASES:
        p1 = p0 + difference
        rate = independent_discordance(p0, p1)
        _, fix0, brk0 = joint(p0, p1, 0.0)
        assert fix0 + brk0 == pytest.approx(rate, abs=1e-12)  # the same discordance
        plan = mcnemar_sample_size((rate + difference) / 2, (rate - difference) / 2)
        for share in SHARES:
            rho, fix, brk = joint(p0, p1, share)
            assert fix - brk == pytest.approx(difference)
            assert fix + brk <= rate + 1e-12  # associated runs disagree less
            exact = mcnemar_exact_power(fix, brk, plan.items)
            simulated = simulate_mcnemar_power(fix, brk, plan.items, n_simulations=sims, seed=7)
            rows.append([f"{p0:g} {difference:+g}", rho, plan.items, fix + brk, exact, simulated])
            assert fix >= -1e-12 and brk >= -1e-12
            assert exact >= plan.power - 1e-9
            assert simulated == pytest.approx(exact, abs=slack(exact, sims) + 1e-3)
    table(
        "plan --from-baseline (independent outcomes): exact and simulated power of the exact "
        f"test at the planned size when the runs' outcomes are correlated ({sims} simulations)",
        ["p0 difference", "rho", "items", "discordance", "exact power", "simulated"],
        rows,
    )
