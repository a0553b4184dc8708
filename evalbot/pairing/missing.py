"""The missing-items rule: what happens to items present on one side only.

``error`` (the default) refuses, naming a few of them; ``fail`` keeps them as failures of the
side that lacks them (the candidate's extra items after the baseline's); ``drop`` keeps the
items both sides have and records what was dropped. Two runs with no item in common are refused
under every rule, with the likeliest reason.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

from evalbot.errors import PairingError
from evalbot.formats.builder import show
from evalbot.formats.model import Results
from evalbot.pairing.alignment import Alignment
from evalbot.pairing.join import Join
from evalbot.pairing.per_item import PerItem, objects
from evalbot.vocabulary import MISSING_RULES, Missing

MISSING_CHOICES = MISSING_RULES


def check_rule(missing: str) -> None:
    if missing not in MISSING_CHOICES:
        raise ValueError(f"`missing` must be one of {MISSING_CHOICES}, got {missing!r}")


def refuse_one_sided(join: Join, missing: Missing, baseline: Results, candidate: Results) -> None:
    """Under ``error``, items on one side only are refused with a few of them named."""
    if missing != "error" or not (join.base_only or join.cand_only):
        return
    parts = []
    if join.base_only:
        parts.append(f"{len(join.base_only)} only in the baseline ({preview(join.base_only)})")
    if join.cand_only:
        parts.append(f"{len(join.cand_only)} only in the candidate ({preview(join.cand_only)})")
    raise PairingError(
        f"{candidate.source}: items differ from {baseline.source}: "
        + "; ".join(parts)
        + " (to allow this, add --missing drop or --missing fail, config `policy.missing`)"
    )


def kept(base: PerItem, cand: PerItem, join: Join, missing: Missing) -> Alignment:
    """The paired items the rule keeps, in the baseline's order (``fail``: the candidate's
    extra items after them), each with its row on either side (-1: that side lacks it)."""
    if join.same_order:
        return Alignment(ids=base.ids, pos_base=join.in_base, pos_cand=join.in_base, identity=True)
    n_base = len(base.ids)
    # in_cand[i]: index in cand of the baseline's i-th item, or -1.
    in_cand = np.full(n_base, -1, dtype=np.int64)
    in_cand[join.in_base[join.cand_found]] = np.flatnonzero(join.cand_found)
    if missing == "fail":
        extra = np.flatnonzero(~join.cand_found)
        return Alignment(
            ids=[*base.ids, *objects(cand.ids)[extra].tolist()],
            pos_base=np.concatenate([np.arange(n_base), np.full(extra.size, -1)]),
            pos_cand=np.concatenate([in_cand, extra]).astype(np.int64),
            identity=False,
        )
    common = np.flatnonzero(join.hit)
    return Alignment(
        ids=base.ids if common.size == n_base else objects(base.ids)[common].tolist(),
        pos_base=common,
        pos_cand=in_cand[common],
        identity=False,
    )


def preview(ids: Sequence[str], limit: int = 3) -> str:
    """The first ``limit`` ids, quoted for a message, and ``...`` when there are more."""
    shown = ", ".join(show(ids[i]) for i in range(min(limit, len(ids))))
    return shown + (", ..." if len(ids) > limit else "")


def _suffixes(ids: Sequence[str]) -> set[str]:
    return {i.split("/", 1)[1] for i in ids if "/" in i}


def _prefixes(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(i.split("/", 1)[0] for i in ids if "/" in i))[:3]


def nothing_in_common(
    baseline: Results, candidate: Results, base_ids: Sequence[str], cand_ids: Sequence[str]
) -> str:
    """Why no item pairs, and what to do: the message when the two id sets are disjoint.

    It shows what the ids look like on each side and names the likeliest cause: ids that differ
    only before a ``/`` (another task, or a task prefix on one side only), only in case or
    surrounding spaces, or simply different ids (another eval, or the wrong id field).
    """
    base_set, cand_set = set(base_ids), set(cand_ids)
    look = (
        f"{candidate.source}: no item id in common with the baseline {baseline.source}: "
        f"baseline ids look like {preview(heapq.nsmallest(3, base_set))}, candidate ids like "
        f"{preview(heapq.nsmallest(3, cand_set))}"
    )
    if base_set & _suffixes(cand_ids) or cand_set & _suffixes(base_ids):
        prefixed = "candidate's" if base_set & _suffixes(cand_ids) else "baseline's"
        other = "baseline's" if prefixed == "candidate's" else "candidate's"
        why = (
            f"the {prefixed} ids carry a prefix before `/` that the {other} lack (lm-eval adds "
            "its task to each doc id when a run is read from several files); give both runs "
            "alike: one file each, or a directory of the same tasks each"
        )
    elif _suffixes(base_ids) & _suffixes(cand_ids):
        why = (
            f"the ids differ only before `/` ({', '.join(_prefixes(base_ids))} against "
            f"{', '.join(_prefixes(cand_ids))}): are these runs of the same task?"
        )
    elif {i.strip().lower() for i in base_set} & {i.strip().lower() for i in cand_set}:
        why = "the ids differ only in case or surrounding spaces: write them alike in both runs"
    else:
        why = (
            "are both runs of the same eval? Pairing is by item id, never by row order: name "
            "the field that holds the id with --id-field NAME (config `fields: {id: NAME}`), "
            "or force the format with --format-in NAME"
        )
    return f"{look}; {why}"
