"""Pure: a paired baseline/candidate -> every statistic of the comparison (no files read, no
verdict decided: that is :mod:`evalbot.plan.policy`). :mod:`.records` holds the Comparison and
its parts, :mod:`.primary` the primary metric (sides, the test that decides and the interval
shown, the bootstrap beside it, power, repeats, clusters), :mod:`.slices` the per-slice tests,
:mod:`.secondary` secondary metrics, cost per solved task and micro F1."""

from __future__ import annotations

from dataclasses import replace

from evalbot.compare.primary import compute_primary
from evalbot.compare.records import Comparison, plan_alpha
from evalbot.compare.secondary import compute_cost, compute_f1, compute_secondary, secondary_columns
from evalbot.compare.slices import compute_slices
from evalbot.formats.model import Paired
from evalbot.plan.config import Config


def compute_comparison(paired: Paired, config: Config, *, holdout: bool = False) -> Comparison:
    """Every statistic of a paired comparison under the plan's settings, judged at the alpha
    of this run (corrected for the looks unless it is the sealed ``holdout``)."""
    return replace(
        compute_primary(paired, config, plan_alpha(config, holdout=holdout)),
        slices=compute_slices(paired, config),
        cost=compute_cost(paired, config),
        f1=compute_f1(paired, config),
        secondary=compute_secondary(
            secondary_columns(paired, config), config, clusters=paired.clusters
        ),
    )
