"""Pure: how sensitive this eval is (pass/fail items, the exact power of the McNemar test the
plan runs)."""

from __future__ import annotations

from evalbot.compare.records import PowerResult
from evalbot.stats import PairedTable, mcnemar_minimum_detectable_effect, mcnemar_sample_size

__all__ = ["REPORT_POWER", "compute_power"]

#: Power at which the report states the minimum detectable effect and the items needed.
REPORT_POWER = 0.8


def compute_power(
    table: PairedTable, *, alpha: float, pvalue: float, method: str = "exact"
) -> PowerResult | None:
    """The minimum detectable effect of this eval and, when not significant, items needed.

    Both by exact power of the McNemar test ``method`` (the plan's ``mcnemar:``), defined for
    every table: one item, every item changed, none changed.
    """
    n = table.items
    if n == 0:
        return None
    psi = table.discordant / n
    mde: float | None = None
    if psi > 0.0:
        found = mcnemar_minimum_detectable_effect(
            n, psi, alpha=alpha, power=REPORT_POWER, method=method
        )
        mde = found.effect if found.detectable else None
    needed: int | None = None
    if pvalue >= alpha and table.fixed != table.broken:
        needed = mcnemar_sample_size(
            table.fixed / n, table.broken / n, alpha=alpha, power=REPORT_POWER, method=method
        ).items
    return PowerResult(
        items=n,
        alpha=alpha,
        power=REPORT_POWER,
        discordant_rate=psi,
        minimum_detectable_effect=mde,
        items_needed=needed,
        method=f"exact power of the {method} McNemar test at the observed discordant rate",
    )
