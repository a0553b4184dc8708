"""Harness errors (timeouts, exceptions) under the plan's ``policy.errors`` rule: ``fail``
keeps them as failures, ``drop`` removes the items that errored."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from evalbot.errors import PairingError
from evalbot.results.model import Paired
from evalbot.results.subset import subset
from evalbot.vocabulary import ERRORS_RULES, ErrorsRule

ERRORS_CHOICES = ERRORS_RULES


def apply_errors(paired: Paired, rule: ErrorsRule) -> Paired:
    """Harness errors (timeouts, exceptions) under the plan's ``policy.errors`` rule.

    ``fail`` (the default) keeps an errored item as a failure of the side that errored (its
    value is already 0); ``drop`` removes every item that errored on either side from the
    analysis and counts them in ``dropped_errors``.
    """
    if rule not in ERRORS_CHOICES:
        raise ValueError(f"`rule` must be one of {ERRORS_CHOICES}, got {rule!r}")
    if rule == "fail" or (paired.baseline_errors is None and paired.candidate_errors is None):
        return paired
    errored = np.zeros(len(paired.ids), dtype=np.bool_)
    for flags in (paired.baseline_errors, paired.candidate_errors):
        if flags is not None:
            errored |= flags
    if errored.all():
        raise PairingError(
            f"{paired.candidate_source}: every item errored on at least one side; "
            "nothing is left to compare (policy.errors: drop)"
        )
    kept = subset(paired, ~errored)
    return replace(kept, dropped_errors=int(errored.sum()), errors_baseline=0, errors_candidate=0)
