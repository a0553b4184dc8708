"""Pure: the items an analysis reads, when a sealed holdout is set apart.

A plan's ``holdout:`` names ids kept out of every regular analysis and analysed alone on
request (the action's ``holdout: true``). :func:`restrict_items` takes the paired items to
either side of that line; :func:`evalbot.plan.policy.prepare` calls it with the ids the plan read.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from evalbot.errors import PairingError
from evalbot.formats.model import Paired
from evalbot.pairing.subset import subset

__all__ = ["restrict_items"]


def restrict_items(
    paired: Paired, sealed: Collection[str], *, holdout: bool, ids_file: str
) -> Paired:
    """Only the ``sealed`` items with ``holdout``, else every item but them; ``paired`` itself
    when nothing is cut. ``ids_file`` names the holdout's id file in messages.

    Raises :class:`PairingError` when the holdout is asked for and none of its ids are in the
    results, or when every item is sealed and nothing is left for the regular analysis.
    """
    members = set(sealed)
    keep = np.fromiter(((i in members) == holdout for i in paired.ids), bool, len(paired.ids))
    if holdout and not keep.any():
        raise PairingError(
            f"{paired.candidate_source}: none of the {len(members)} ids of "
            f"{ids_file} (the sealed holdout) are in the results"
        )
    if keep.all():
        return paired
    if not keep.any():
        raise PairingError(
            f"{paired.candidate_source}: every item is in the sealed holdout "
            f"({ids_file}); nothing is left for the regular analysis"
        )
    return subset(paired, keep)
