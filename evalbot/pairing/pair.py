"""Pair a baseline with a candidate item by item (never by row order): the story, each step in
its own module.

1. Each side is reduced to one value per item (:mod:`.per_item`: repeats averaged, so k samples
   of an item count as one item).
2. The two are joined by id (:mod:`.join`).
3. Items present on one side only are handled by ``missing`` (:mod:`.missing`): ``error`` (the
   default) refuses, ``fail`` counts them as failures of the side that lacks them, ``drop``
   analyses the intersection and records what was dropped.
4. The paired items are sorted by id and each side's columns gathered into that order
   (:mod:`.alignment`); labels are the candidate's, else the baseline's (:mod:`.labels`).

Harness errors stay apart from failures: ``Paired.baseline_errors``/``candidate_errors`` flag
the items, ``errors_baseline``/``errors_candidate`` count them. When a harness writes a content
hash per item (lm-eval's ``doc_hash``), an id whose hash differs between the two sides means the
runs did not see the same document, which is refused; the hashes also enter the fingerprint
(:mod:`.fingerprint`).
"""

from __future__ import annotations

import numpy as np

from evalbot.errors import PairingError
from evalbot.formats.model import BoolArray, Paired, Results
from evalbot.pairing import labels
from evalbot.pairing.alignment import Alignment, by_id
from evalbot.pairing.fingerprint import fingerprint
from evalbot.pairing.join import Join, join
from evalbot.pairing.missing import check_rule, kept, nothing_in_common, refuse_one_sided
from evalbot.pairing.per_item import PerItem, reduce_per_item
from evalbot.vocabulary import Missing


def pair(baseline: Results, candidate: Results, *, missing: Missing = "error") -> Paired:
    """Match the two runs by item id."""
    check_rule(missing)
    base, cand = reduce_per_item(baseline), reduce_per_item(candidate)
    joined = join(base, cand)
    if joined.nothing_in_common:
        raise PairingError(nothing_in_common(baseline, candidate, base.ids, cand.ids))
    refuse_one_sided(joined, missing, baseline, candidate)
    aligned = by_id(kept(base, cand, joined, missing))
    if baseline.kind != candidate.kind:
        raise PairingError(
            f"{candidate.source}: compares a {candidate.kind} metric but the baseline "
            f"{baseline.source} has a {baseline.kind} one"
        )
    if base.hashes is not None and cand.hashes is not None:
        labels.check_same_content(aligned, base.hashes, cand.hashes, baseline, candidate)
    return _paired(baseline, candidate, base, cand, aligned, joined, missing)


def _paired(
    baseline: Results,
    candidate: Results,
    base: PerItem,
    cand: PerItem,
    aligned: Alignment,
    joined: Join,
    missing: Missing,
) -> Paired:
    """The :class:`Paired` record: every column of both sides in the paired order."""
    hashes = labels.merged(aligned, base.hashes, cand.hashes)
    binary = (
        baseline.kind == "binary"
        and candidate.kind == "binary"
        and base.epochs == 1
        and cand.epochs == 1
    )
    baseline_errors = None if base.errors is None else aligned.baseline(base.errors) > 0
    candidate_errors = None if cand.errors is None else aligned.candidate(cand.errors) > 0
    base_only, cand_only = joined.base_only, joined.cand_only
    return Paired(
        ids=aligned.ids,
        baseline=aligned.baseline(base.values),
        candidate=aligned.candidate(cand.values),
        kind="binary" if binary else "score",
        pass_fail=baseline.kind == "binary",
        baseline_source=baseline.source,
        candidate_source=candidate.source,
        epochs_baseline=base.epochs,
        epochs_candidate=cand.epochs,
        slices=labels.merged(aligned, base.slices, cand.slices),
        clusters=labels.merged(aligned, base.clusters, cand.clusters),
        baseline_costs=None if base.costs is None else aligned.baseline(base.costs),
        candidate_costs=None if cand.costs is None else aligned.candidate(cand.costs),
        baseline_errors=baseline_errors,
        candidate_errors=candidate_errors,
        errors_baseline=_count(baseline_errors),
        errors_candidate=_count(candidate_errors),
        dropped_baseline_only=base_only if missing == "drop" else [],
        dropped_candidate_only=cand_only if missing == "drop" else [],
        filled_as_failures=len(base_only) + len(cand_only) if missing == "fail" else 0,
        fingerprint=fingerprint(aligned.ids, hashes, ids_sorted=True),
        content_hashes=hashes,
        baseline_metrics={name: aligned.baseline(c) for name, c in base.metrics.items()},
        candidate_metrics={name: aligned.candidate(c) for name, c in cand.metrics.items()},
    )


def _count(flags: BoolArray | None) -> int:
    return 0 if flags is None else int(np.count_nonzero(flags))
