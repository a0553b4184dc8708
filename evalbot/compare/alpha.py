"""Pure: the significance level a run is judged at, in one object.

The plan gives ``alpha``; with ``policy.looks: bonferroni`` every look (the first included) is
tested at ``alpha / policy.max_looks``, and the plan's size is computed at that level too. The
sealed holdout is not part of the looks, so it keeps the plan's alpha. :class:`Alpha` carries
both numbers and the rule that compares a p-value with them; the comparison, the decision and
the report all read the same instance (``Comparison.alpha`` is ``Decision.alpha``).

The rule is the conventional one, **p <= alpha** (a p-value equal to alpha rejects), the same
as every function of :mod:`evalbot.stats` (``PValue.decide``, ``mcnemar_min_discordant``, the
exact power's critical counts), so that a plan sized for power at alpha is judged by the rule
its power was computed for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from evalbot.plan.config import Config
from evalbot.stats.pvalue import PValue

__all__ = ["Alpha", "plan_alpha"]

Significance = Literal["below", "not_below", "unresolved"]


@dataclass(frozen=True, kw_only=True)
class Alpha:
    """The plan's ``level`` and the ``effective`` alpha this run's tests are judged at.

    ``looks`` is the Bonferroni divisor (``policy.max_looks`` under ``policy.looks:
    bonferroni``), ``None`` when alpha is not corrected.
    """

    level: float
    effective: float
    looks: int | None = None

    @property
    def corrected(self) -> bool:
        return self.looks is not None and self.effective != self.level

    def judge(self, pvalue: PValue) -> Significance:
        """``"below"`` when ``p <= effective``, ``"not_below"`` when ``p > effective``,
        ``"unresolved"`` when only a bound at or above it is known (a bootstrap p of 0 with
        too few resamples for this alpha)."""
        return pvalue.decide(self.effective)

    def rejects(self, pvalue: PValue) -> bool:
        return self.judge(pvalue) == "below"


def plan_alpha(config: Config, *, holdout: bool = False) -> Alpha:
    """The alpha of a run under ``config``: corrected for the looks with ``policy.looks:
    bonferroni`` (not for the sealed holdout, which is not a look at the pull request)."""
    policy = config.policy
    if not holdout and policy.looks == "bonferroni" and policy.max_looks is not None:
        return Alpha(
            level=config.alpha,
            effective=config.alpha / policy.max_looks,
            looks=policy.max_looks,
        )
    return Alpha(level=config.alpha, effective=config.alpha)
