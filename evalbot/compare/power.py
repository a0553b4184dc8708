"""Pure: how sensitive this eval is (pass/fail items, the exact power of the McNemar test the
plan runs, at the alpha this run is judged at, for the information its items carry: clustered
items count for ``items / design_effect``)."""

from __future__ import annotations

import math

from evalbot.compare.costs import has_clusters
from evalbot.compare.records import PowerResult
from evalbot.formats.model import Paired
from evalbot.plan.config import Config
from evalbot.stats.clusters import DesignEffectResult, estimate_design_effect
from evalbot.stats.power import mcnemar_minimum_detectable_effect, mcnemar_sample_size
from evalbot.stats.table import PairedTable
from evalbot.vocabulary import POWER

__all__ = ["REPORT_POWER", "compute_design", "compute_power"]

#: Power at which the report states the minimum detectable effect and the items needed.
REPORT_POWER = POWER


def compute_design(paired: Paired, config: Config) -> DesignEffectResult | None:
    """The design effect of the items: estimated from their ``cluster`` labels when they
    carry some, else the plan's ``plan.design_effect`` when it is above 1, else ``None``."""
    if has_clusters(paired) and paired.clusters is not None:
        return estimate_design_effect(paired.baseline, paired.candidate, paired.clusters)
    if config.plan is None or config.plan.design_effect <= 1.0:
        return None
    deff, n = config.plan.design_effect, len(paired)
    return DesignEffectResult(
        design_effect=deff,
        raw_design_effect=deff,
        intraclass_correlation=math.nan,
        cluster_size=math.nan,
        clusters=0,
        items=n,
        effective_items=n / deff,
        method="configured",
    )


def compute_power(
    table: PairedTable,
    *,
    alpha: float,
    significant: bool,
    method: str = "exact",
    design: DesignEffectResult | None = None,
    clusters: int | None = None,
) -> PowerResult | None:
    """The minimum detectable effect of this eval and, when not ``significant``, the items
    needed to detect the observed change.

    Both by exact power of the McNemar test ``method`` (the plan's ``mcnemar:``) at ``alpha``
    (the effective alpha), with ``design``'s design effect; defined for every table: one
    item, every item changed, none changed.

    ``clusters``: the test that decides takes this many clusters as its units (the cluster
    sign-flip test). Its power is approximated by McNemar's on ``items / design_effect``
    independent items (the design effect estimated from the same clusters); with so few
    clusters that even every cluster moving one way cannot reach ``alpha``
    (``2^(1 - clusters) > alpha``) no effect is detectable.
    """
    n = table.items
    if n == 0:
        return None
    deff = 1.0 if design is None else design.design_effect
    psi = table.discordant / n
    mde: float | None = None
    if psi > 0.0:
        found = mcnemar_minimum_detectable_effect(
            n, psi, alpha=alpha, power=REPORT_POWER, method=method, design_effect=deff
        )
        mde = found.effect if found.detectable else None
    if clusters is not None and 2.0 ** (1 - clusters) > alpha:
        mde = None
    needed: int | None = None
    if not significant and table.fixed != table.broken:
        needed = mcnemar_sample_size(
            table.fixed / n,
            table.broken / n,
            alpha=alpha,
            power=REPORT_POWER,
            method=method,
            design_effect=deff,
        ).items
    clustered = "" if design is None else f", design effect {deff:.3g} ({design.method})"
    if clusters is not None:
        clustered += f", approximating the cluster sign-flip test over {clusters:,} clusters"
    return PowerResult(
        items=n,
        alpha=alpha,
        power=REPORT_POWER,
        discordant_rate=psi,
        minimum_detectable_effect=mde,
        items_needed=needed,
        method=f"exact power of the {method} McNemar test at the observed discordant rate"
        + clustered,
        design=design,
    )
