"""Pure: the looks at a change: which look this run is, whether it is a re-run, and the refusals
that follow (a look past ``policy.max_looks``, a change judged again on other items, records of
earlier looks that disagree or are gone); the sealed holdout's uses."""

from __future__ import annotations

from evalbot.plan.config import Config
from evalbot.plan.ledger import UNKNOWN_FINGERPRINT, Look, State, distinct_looks
from evalbot.plan.rules.decision import LookCount
from evalbot.plan.rules.reasons import Reason

__all__ = ["count_looks", "holdout_uses"]


def count_looks(
    state: State,
    config: Config,
    *,
    head: str | None,
    current: str,
    items: int,
    holdout: bool,
) -> LookCount:
    """This run among the earlier looks of the same kind (holdout or not) on record.

    ``head`` is the change judged (its tree, else its commit), ``current`` the item set's
    fingerprint. Without ``head`` looks cannot be told apart: every earlier look counts and
    none is a re-run. A look's number never falls below the highest one on record.
    """
    earlier = distinct_looks(look for look in state.looks if look.holdout == holdout)
    number = max(len(earlier), 0 if holdout else state.most) + 1
    violations: list[Reason] = []
    rerun_of: Look | None = None
    if state.findings:
        violations.append(
            Reason(code="records_disagree", details={"findings": "; ".join(state.findings)})
        )
    if head is not None:
        same_commit = [look for look in earlier if look.change == head]
        repeat = [look for look in same_commit if look.fingerprint == current]
        if repeat:
            rerun_of = repeat[0]
            number = rerun_of.number or earlier.index(rerun_of) + 1
        elif same_commit:
            other = same_commit[0]
            known = other.fingerprint != UNKNOWN_FINGERPRINT
            violations.append(
                Reason(
                    code="item_shopping",
                    observed=current,
                    threshold=other.fingerprint if known else None,
                    unit="sha256",
                    details={
                        "commit": other.head_sha[:7],
                        "items": items,
                        "earlier_items": other.items if known else None,
                    },
                )
            )
    policy = config.policy
    if not holdout and policy.max_looks is not None and number > policy.max_looks:
        violations.append(
            Reason(
                code="too_many_looks",
                observed=number,
                threshold=policy.max_looks,
                unit="looks",
                rule="policy.max_looks",
            )
        )
    return LookCount(
        number=number, rerun_of=rerun_of, earlier=tuple(earlier), violations=tuple(violations)
    )


def holdout_uses(
    state: State, config: Config, *, holdout: bool, rerun: bool
) -> tuple[int, Reason | None]:
    """The holdout's uses including this run, and a warning once they pass ``max_uses``."""
    uses = state.holdout_uses + (1 if holdout and not rerun else 0)
    most = config.holdout.max_uses if config.holdout is not None else None
    if holdout and most is not None and uses > most:
        return uses, Reason(
            code="holdout_overused",
            observed=uses,
            threshold=most,
            unit="uses",
            rule="holdout.max_uses",
        )
    return uses, None
