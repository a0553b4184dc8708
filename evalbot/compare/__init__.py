"""Pure: a paired baseline/candidate -> every statistic of the comparison.

This is where the pieces of :mod:`evalbot.stats` meet the paired data. Nothing here reads files
or decides a verdict (that is :mod:`evalbot.plan.policy`).

- :mod:`.records`: the frozen result records (:class:`Comparison` and its parts);
- :mod:`.alpha`: the alpha a run is judged at (one object, looks correction included);
- :mod:`.primary`: each side's rate and interval, the primary test and the difference's
  interval from the same method (McNemar with Tango's interval, the test valid at every n for
  scores, the sequential test with its confidence sequence, or the bootstrap);
- :mod:`.slices`: per-slice tests with BH q-values; :mod:`.secondary`: Holm-adjusted
  secondary metrics; :mod:`.power`: the minimum detectable effect;
- :mod:`.costs`: clusters, cost per solved task, micro F1; :mod:`.repeats`: repeated samples;
- :mod:`.bootstrap`: the paired bootstrap under the plan's settings.
"""

from __future__ import annotations

from dataclasses import replace

from evalbot.compare.alpha import Alpha, plan_alpha
from evalbot.compare.costs import compute_clusters, compute_cost, compute_f1, has_clusters
from evalbot.compare.power import REPORT_POWER, compute_power
from evalbot.compare.primary import compute_primary
from evalbot.compare.records import (
    ClusterResult,
    Comparison,
    CostResult,
    CostSide,
    Difference,
    F1Result,
    F1Side,
    PowerResult,
    RepeatsSide,
    SecondaryResult,
    Side,
    SliceResult,
    TestResult,
)
from evalbot.compare.repeats import MAX_PASS_AT_K
from evalbot.compare.secondary import compute_secondary, secondary_columns
from evalbot.compare.slices import compute_slices
from evalbot.formats.model import Paired
from evalbot.plan.config import Config
from evalbot.stats.table import PairedTable

__all__ = [
    "MAX_PASS_AT_K",
    "REPORT_POWER",
    "Alpha",
    "ClusterResult",
    "Comparison",
    "CostResult",
    "CostSide",
    "Difference",
    "F1Result",
    "F1Side",
    "PairedTable",
    "PowerResult",
    "RepeatsSide",
    "SecondaryResult",
    "Side",
    "SliceResult",
    "TestResult",
    "compute_clusters",
    "compute_comparison",
    "compute_cost",
    "compute_f1",
    "compute_power",
    "compute_secondary",
    "compute_slices",
    "has_clusters",
    "plan_alpha",
]


def compute_comparison(paired: Paired, config: Config, *, holdout: bool = False) -> Comparison:
    """Every statistic of a paired comparison under the plan's settings, judged at the alpha
    of this run (corrected for the looks unless it is the sealed ``holdout``)."""
    comparison = compute_primary(paired, config, plan_alpha(config, holdout=holdout))
    comparison = replace(
        comparison,
        clusters=compute_clusters(paired, comparison.difference),
        cost=compute_cost(paired, config),
        f1=None if config.f1 is None else compute_f1(paired, config),
    )
    if not config.secondary_metrics:
        return comparison
    return replace(
        comparison,
        secondary=compute_secondary(
            secondary_columns(paired, config), config, clusters=paired.clusters
        ),
    )
