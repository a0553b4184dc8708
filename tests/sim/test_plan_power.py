"""The plan delivers its stated power: simulated power at the recommended size.

For each plan, 20,000 seeded simulations of (fixed, broken, unchanged) counts at the size
``mcnemar_sample_size`` recommends, each tested with evalbot's ``mcnemar`` decision rule
(critical counts checked against ``mcnemar`` in test_mcnemar_size.py): the simulated power
matches the exact power within Monte Carlo error and reaches the target; at the normal
approximation's size it does not.
"""

from __future__ import annotations

import pytest

from evalbot.stats.power import mcnemar_sample_size, simulate_mcnemar_power
from tests.sim._common import reps, slack, table

PLANS = [(0.08, 0.03, "exact"), (0.05, 0.04, "exact"), (0.2, 0.05, "exact"), (0.08, 0.03, "midp")]


def test_plans_reach_their_power() -> None:
    sims = reps(20_000)
    rows = []
    for fix, brk, method in PLANS:
        plan = mcnemar_sample_size(fix, brk, method=method)
        at_plan = simulate_mcnemar_power(fix, brk, plan.items, n_simulations=sims, method=method)
        at_normal = simulate_mcnemar_power(
            fix, brk, plan.normal.items, n_simulations=sims, method=method, seed=1
        )
        rows.append(
            [f"{fix:g}/{brk:g} {method}", plan.items, plan.exact_power, at_plan,
             plan.normal.items, plan.normal.exact_power, at_normal]
        )  # fmt: skip
        assert at_plan == pytest.approx(plan.exact_power, abs=slack(plan.exact_power, sims))
        assert at_plan >= plan.power - slack(plan.power, sims)
        assert plan.normal.exact_power < plan.power
    table(
        "Plans at power 0.8, alpha 0.05: exact and simulated power at the recommended size and "
        f"at the normal approximation's ({sims} simulations each)",
        ["fix/break test", "items", "exact", "simulated", "normal items", "exact", "simulated"],
        rows,
    )
