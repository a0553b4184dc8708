"""Paired items cut down to some of them, every per-item column alike: the sealed holdout set
apart from the regular analysis, and the items a run did not evaluate under ``policy.errors``
(``drop``, the default, compares the items both runs evaluated; ``fail`` counts the others as
failures of the run that lacks them, the leaderboard convention)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import fields, replace
from typing import Any

import numpy as np

from evalbot.errors import PairingError
from evalbot.formats.model import BoolArray, NotEvaluated, Paired
from evalbot.pairing.fingerprint import fingerprint
from evalbot.vocabulary import ERRORS_RULES, ErrorsRule

#: Items named per side in the report.
EXAMPLES = 5


def subset(paired: Paired, keep: BoolArray) -> Paired:
    """The paired items where ``keep`` is true, every per-item column cut alike.

    The fingerprint is recomputed for the items kept (content hashes included).
    """
    n = len(paired.ids)
    if keep.shape != (n,):
        raise ValueError(f"`keep` must have one flag per item ({n}), got shape {keep.shape}")
    if keep.all():
        return paired
    positions = np.flatnonzero(keep).tolist()
    changes: dict[str, Any] = {}
    for spec in fields(paired):
        value = getattr(paired, spec.name)
        if spec.name.startswith("dropped_"):
            continue
        if isinstance(value, np.ndarray) and value.shape[:1] == (n,):
            changes[spec.name] = value[keep]
        elif isinstance(value, list) and len(value) == n:
            changes[spec.name] = [value[i] for i in positions]
        elif isinstance(value, dict):
            changes[spec.name] = {name: column[keep] for name, column in value.items()}
    changes["fingerprint"] = fingerprint(changes["ids"], changes.get("content_hashes"))
    return replace(paired, **changes)


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
    if not keep.any():
        raise PairingError(
            f"{paired.candidate_source}: every item is in the sealed holdout "
            f"({ids_file}); nothing is left for the regular analysis"
        )
    return subset(paired, keep)


def apply_errors(paired: Paired, rule: ErrorsRule) -> Paired:
    """Items not evaluated under the plan's ``policy.errors`` rule, recorded in
    ``not_evaluated``: ``drop`` removes every item either run did not evaluate; ``fail`` keeps
    them as failures of the run that did not evaluate them (their value is already 0).
    """
    if rule not in ERRORS_RULES:
        raise ValueError(f"`rule` must be one of {ERRORS_RULES}, got {rule!r}")
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
    return replace(
        subset(paired, ~either),
        baseline_errors=None,
        candidate_errors=None,
        errors_baseline=0,
        errors_candidate=0,
        not_evaluated=record,
    )


def _first(paired: Paired, flags: BoolArray) -> tuple[str, ...]:
    return tuple(paired.ids[int(i)] for i in np.flatnonzero(flags)[:EXAMPLES])
