"""Paired items cut down to some of them, every per-item column alike (the sealed holdout set
apart, the errors rule's ``drop``)."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

import numpy as np

from evalbot.formats.model import BoolArray, Paired
from evalbot.pairing.fingerprint import fingerprint


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
        column = isinstance(value, np.ndarray) and value.shape[:1] == (n,)
        if column:
            changes[spec.name] = value[keep]
        elif isinstance(value, list) and len(value) == n:
            changes[spec.name] = [value[i] for i in positions]
        elif isinstance(value, dict):
            changes[spec.name] = {name: column[keep] for name, column in value.items()}
    changes["fingerprint"] = fingerprint(changes["ids"], changes.get("content_hashes"))
    return replace(paired, **changes)
