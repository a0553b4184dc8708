"""Items a run did not evaluate (never run, skipped, cancelled, a harness error) under the plan's
``policy.errors`` rule: ``drop`` (the default) compares the items both runs evaluated, ``fail``
counts the others as failures of the run that lacks them (the leaderboard convention)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from evalbot.errors import PairingError
from evalbot.formats.model import BoolArray, NotEvaluated, Paired
from evalbot.pairing.subset import subset
from evalbot.vocabulary import ERRORS_RULES, ErrorsRule

ERRORS_CHOICES = ERRORS_RULES

#: Items named per side in the report.
EXAMPLES = 5


def apply_errors(paired: Paired, rule: ErrorsRule) -> Paired:
    """Items not evaluated under the plan's ``policy.errors`` rule, recorded in
    ``not_evaluated``.

    ``drop`` removes every item either run did not evaluate; ``fail`` keeps them as failures
    of the run that did not evaluate them (their value is already 0).
    """
    if rule not in ERRORS_CHOICES:
        raise ValueError(f"`rule` must be one of {ERRORS_CHOICES}, got {rule!r}")
    none = np.zeros(len(paired.ids), dtype=np.bool_)
    base = none if paired.baseline_errors is None else paired.baseline_errors
    cand = none if paired.candidate_errors is None else paired.candidate_errors
    either = base | cand
    if not either.any():
        return paired
    record = NotEvaluated(
        rule=rule,
        baseline=int(base.sum()),
        candidate=int(cand.sum()),
        both=int((base & cand).sum()),
        baseline_ids=_first(paired, base & ~cand),
        candidate_ids=_first(paired, cand & ~base),
    )
    if rule == "fail":
        return replace(paired, not_evaluated=record)
    if either.all():
        raise PairingError(
            f"{paired.candidate_source}: no item was evaluated by both runs "
            f"(the baseline did not evaluate {record.baseline}, the candidate "
            f"{record.candidate} of {len(paired.ids)}); nothing is left to compare "
            "(policy.errors: drop)"
        )
    kept = subset(paired, ~either)
    return replace(
        kept,
        baseline_errors=None,
        candidate_errors=None,
        errors_baseline=0,
        errors_candidate=0,
        not_evaluated=record,
    )


def _first(paired: Paired, flags: BoolArray) -> tuple[str, ...]:
    return tuple(paired.ids[int(i)] for i in np.flatnonzero(flags)[:EXAMPLES])
