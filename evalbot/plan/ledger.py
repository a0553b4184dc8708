"""Pure: the earlier looks at a pull request, counted from records that commenters cannot write.

Every run of evalbot on a pull request creates its check run (with a personal token: a commit
status) named after the comparison *before* it reads the earlier looks, declaring there the
commit and the item set it judges (:class:`evalbot.plan.state.Digest`). GitHub numbers check runs in
the order they are created, so the id is the run's **ticket**: a total order of runs that no
comment edit, and no race between parallel runs, can change. Only check runs created by the
App that evalbot runs as are tickets (only that App can write them); only statuses set by the
token's own user are.

:func:`count_looks` turns the tickets of the pull request's commits (and of the commits its
own comment says were looked at, which a force push removes from the pull request) into the
:class:`~evalbot.plan.state.State` the policy reads: the earlier looks in ticket order. The rules:

- a completed run whose digest records a verdict is a look on its commit;
- a completed run that compared nothing (``none``) is not a look;
- a completed run without a readable digest is a look on its commit, on items not on record
  (fail closed: a tampered or unreadable record never gives a look back);
- a run still in progress with a *lower* ticket is a look on its commit (it may be about to
  give a verdict), unless it started more than :data:`STALE_AFTER` ago (a job killed before it
  could finish; GitHub-hosted jobs end after 6 hours); a run with a higher ticket is later
  than this one and counts it, not the other way round;
- a look the comment records on a commit that has no ticket at all counts too (fail closed);
  on a commit that has tickets, the tickets decide.

The look number of this run is then the rank of its commit among the distinct commits looked
at, ordered by their first ticket (policy.py counts the state's distinct looks); a lower ticket
on the same commit makes this run a re-run of that look, and a different declared item set on
the same commit is "shopping" (refused by the policy).

Each check run carries its record in its ``output.text``, the **look digest**, a hidden block::

    <!-- evalbot-look:v1 eyJ2IjogMSwgImtpbmQiOiAibG9vayIsIC4uLn0= -->

base64 of ``{"v": 1, "kind": "look", ...}`` with the keys of a look in evalbot's comment state
(:mod:`evalbot.plan.state`) for a run that gave a verdict, ``{"v": 1, "kind": "start", "head_sha",
"holdout", "fingerprint", "items"}`` while it runs (it declares its commit and item set before
it reads the ledger), and ``{"v": 1, "kind": "none", "head_sha", "holdout"}`` for a run that
compared nothing (no baseline yet, an error). :func:`parse_digest` runs in linear time and never
raises.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from evalbot.plan.state import (
    FINGERPRINT,
    SHA,
    UNKNOWN_FINGERPRINT,
    Look,
    State,
    decode_payload,
    look_from_json,
    look_json,
)

__all__ = [
    "DIGEST_MARKER",
    "STALE_AFTER",
    "Digest",
    "Ticket",
    "count_looks",
    "parse_digest",
    "placeholder",
    "render_digest",
]

DIGEST_MARKER = "evalbot-look:v1"
DIGEST_VERSION = 1
MAX_DIGEST_CHARS = 16 * 1024
_DIGEST = re.compile(r"<!-- " + re.escape(DIGEST_MARKER) + r" ([A-Za-z0-9+/=]+) -->")

#: A run in progress for longer than this is taken for a job that was killed (GitHub-hosted
#: jobs are stopped after 6 hours) and no longer counts as a look.
STALE_AFTER = timedelta(hours=6)
_EPOCH = "1970-01-01T00:00:00Z"


# ---- the look digest of a check run -------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Digest:
    """What one run of evalbot declares in its check run (see the module's docstring).

    ``start``: the run is under way on ``head_sha``, judging ``fingerprint`` (``items`` items);
    ``look``: it gave the verdict ``look``; ``none``: it compared nothing.
    """

    kind: Literal["start", "look", "none"]
    head_sha: str
    holdout: bool = False
    fingerprint: str | None = None
    items: int | None = None
    look: Look | None = None

    @classmethod
    def of_look(cls, look: Look) -> Digest:
        """The record of the verdict ``look``."""
        return cls(
            kind="look",
            head_sha=look.head_sha,
            holdout=look.holdout,
            fingerprint=look.fingerprint,
            items=look.items,
            look=look,
        )


def render_digest(digest: Digest) -> str:
    """The digest as the one-line hidden block a check run's ``output.text`` holds."""
    data: dict[str, Any]
    if digest.kind == "look":
        assert digest.look is not None
        data = look_json(digest.look)
    else:
        data = {"head_sha": digest.head_sha.lower(), "holdout": digest.holdout}
        if digest.kind == "start":
            data["fingerprint"] = digest.fingerprint
            data["items"] = digest.items
    data = {"v": DIGEST_VERSION, "kind": digest.kind, **data}
    text = json.dumps(data, separators=(",", ":"), sort_keys=True, allow_nan=False)
    return f"<!-- {DIGEST_MARKER} {base64.b64encode(text.encode('utf-8')).decode('ascii')} -->"


def _field(data: dict[str, Any], key: str, kind: type) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ValueError(f"`{key}` is missing or has the wrong type")
    return value


def parse_digest(text: str | None) -> Digest | None:
    """The digest in a check run's ``output.text``; ``None`` when there is none or it is
    malformed (never an exception). The whole text must be the one block."""
    if not isinstance(text, str) or len(text) > MAX_DIGEST_CHARS:
        return None
    match = _DIGEST.fullmatch(text.strip())
    if match is None:
        return None
    try:
        data = decode_payload(match.group(1))
        version = data.get("v") if isinstance(data, dict) else None
        if version != DIGEST_VERSION or isinstance(version, bool):
            return None
        kind = data.get("kind")
        if kind == "look":
            look = look_from_json({k: v for k, v in data.items() if k not in ("v", "kind")})
            if not look.recorded:
                return None
            return Digest.of_look(look)
        if kind not in ("start", "none"):
            return None
        head_sha = _field(data, "head_sha", str)
        holdout = _field(data, "holdout", bool)
        if not SHA.fullmatch(head_sha):
            return None
        if kind == "none":
            return Digest(kind="none", head_sha=head_sha.lower(), holdout=holdout)
        fingerprint = _field(data, "fingerprint", str)
        items = _field(data, "items", int)
        if not FINGERPRINT.fullmatch(fingerprint) or items < 0:
            return None
        return Digest(
            kind="start",
            head_sha=head_sha.lower(),
            holdout=holdout,
            fingerprint=fingerprint,
            items=items,
        )
    except (ValueError, binascii.Error, RecursionError, MemoryError):
        return None


# ---- the tickets -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Ticket:
    """One run of evalbot as the ledger shows it: a check run (or a commit status).

    ``digest`` is what the run declared (``None``: nothing readable). ``opaque`` marks records
    that carry no details by design (commit statuses: the details are in evalbot's comment),
    so their missing digest is not a warning. ``holdout`` is the kind of analysis when the
    record says it elsewhere than in a digest (a status is taken to be of the run's own kind);
    ``None`` with no digest: unknown, so it counts for both. ``source`` names the record in
    messages ("check run 123").
    """

    id: int
    sha: str
    running: bool
    started_at: datetime | None = None
    digest: Digest | None = None
    opaque: bool = False
    holdout: bool | None = None
    source: str = ""


def placeholder(
    sha: str,
    *,
    holdout: bool,
    fingerprint: str | None = None,
    items: int | None = None,
    at: datetime | None = None,
) -> Look:
    """A look known from the ledger only: its verdict is not on record (yet)."""
    return Look(
        head_sha=sha.lower(),
        items=items or 0,
        fingerprint=fingerprint or UNKNOWN_FINGERPRINT,
        pvalue=1.0,
        outcome="inconclusive",
        at=at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if at is not None else _EPOCH,
        holdout=holdout,
        recorded=False,
    )


def _short(sha: str) -> str:
    return sha[:7]


def _ticket_looks(
    ticket: Ticket, *, holdout: bool, now: datetime, warnings: list[str]
) -> list[Look]:
    """The looks one earlier ticket stands for, for the analysis of kind ``holdout``."""
    digest = ticket.digest
    sha = ticket.sha.lower()
    if ticket.holdout is not None and ticket.holdout != holdout:
        return []
    if digest is not None and digest.head_sha.lower() != sha:
        warnings.append(
            f"{ticket.source} on {_short(sha)} records another commit "
            f"({_short(digest.head_sha)}): counted as a look on items not on record"
        )
        digest = None
    if ticket.running:
        return _running_looks(ticket, digest, holdout=holdout, now=now, warnings=warnings)
    return _finished_looks(ticket, digest, holdout=holdout, warnings=warnings)


def _running_looks(
    ticket: Ticket, digest: Digest | None, *, holdout: bool, now: datetime, warnings: list[str]
) -> list[Look]:
    """An earlier run still in progress: a look on its commit (it may be about to give a
    verdict), unless it has been going for longer than any job runs."""
    sha = ticket.sha.lower()
    if ticket.started_at is not None and now - ticket.started_at > STALE_AFTER:
        warnings.append(
            f"{ticket.source} on {_short(sha)} has been in progress since "
            f"{ticket.started_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC: taken for a run that "
            "was stopped, not counted"
        )
        return []
    if digest is not None and digest.kind == "start":
        if digest.holdout != holdout:
            return []
        return [
            placeholder(
                sha,
                holdout=holdout,
                fingerprint=digest.fingerprint,
                items=digest.items,
                at=ticket.started_at,
            )
        ]
    if digest is None and not ticket.opaque:
        warnings.append(
            f"{ticket.source} on {_short(sha)} is in progress without a readable record: "
            "counted as a look on items not on record"
        )
    return [placeholder(sha, holdout=holdout, at=ticket.started_at)]


def _finished_looks(
    ticket: Ticket, digest: Digest | None, *, holdout: bool, warnings: list[str]
) -> list[Look]:
    """A completed run: its recorded look, none, or (no readable record) an unknown one."""
    sha = ticket.sha.lower()
    if digest is None:
        if not ticket.opaque:
            warnings.append(
                f"{ticket.source} on {_short(sha)} carries no readable record of its look: "
                "counted as a look on items not on record"
            )
        return [placeholder(sha, holdout=holdout, at=ticket.started_at)]
    if digest.holdout != holdout or digest.kind == "none":
        return []
    if digest.kind == "look" and digest.look is not None:
        return [digest.look]
    # completed, yet still only its start: the run ended without writing its verdict's record
    warnings.append(
        f"{ticket.source} on {_short(sha)} ended without a record of its verdict: counted as a look"
    )
    return [
        placeholder(
            sha,
            holdout=holdout,
            fingerprint=digest.fingerprint,
            items=digest.items,
            at=ticket.started_at,
        )
    ]


def _count_class(
    tickets: list[Ticket],
    claims: list[Look],
    *,
    holdout: bool,
    mine: int | None,
    now: datetime,
    warnings: list[str],
) -> list[tuple[tuple[int, int], Look]]:
    """The earlier looks of one kind, each with its sort key (first ticket, then order)."""
    ticketed = {ticket.sha.lower() for ticket in tickets}
    per_sha: dict[str, list[tuple[int, Look]]] = {}
    for ticket in sorted(tickets, key=lambda t: t.id):
        if mine is not None and ticket.id >= mine:
            continue  # a later run (or this one): it counts this run, not the other way round
        for look in _ticket_looks(ticket, holdout=holdout, now=now, warnings=warnings):
            per_sha.setdefault(ticket.sha.lower(), []).append((ticket.id, look))
    claimed: dict[str, list[Look]] = {}
    for look in claims:
        if look.holdout == holdout and look.recorded:
            claimed.setdefault(look.head_sha.lower(), []).append(look)
    ordered: list[tuple[tuple[int, int], Look]] = []
    unconfirmed = [sha for sha in claimed if sha not in ticketed]
    for index, sha in enumerate(unconfirmed):
        warnings.append(
            f"evalbot's comment records a look at {_short(sha)} that no check run of evalbot "
            "confirms: counted"
        )
        for look in claimed[sha]:
            ordered.append(((-len(unconfirmed) + index, 0), look))
    for sha, entries in per_sha.items():
        first = entries[0][0]
        recorded = [look for _, look in entries if look.recorded]
        pending = [look for _, look in entries if not look.recorded]
        if not recorded and sha in claimed:
            # the ledger knows the commit was looked at, the comment knows the details
            recorded = claimed[sha]
            known = {look.fingerprint for look in recorded}
            pending = [
                look
                for look in pending
                if look.fingerprint != UNKNOWN_FINGERPRINT and look.fingerprint not in known
            ]
        looks = recorded + _distinct_pending(pending, recorded)
        ordered.extend(((first, n), look) for n, look in enumerate(looks))
    return ordered


def _distinct_pending(pending: list[Look], recorded: list[Look]) -> list[Look]:
    """Placeholders that add something: one per item set not already recorded."""
    seen = {look.fingerprint for look in recorded}
    kept: list[Look] = []
    for look in pending:
        if look.fingerprint in seen:
            continue
        if look.fingerprint == UNKNOWN_FINGERPRINT and recorded:
            continue  # a look on that commit is on record; an unknown one adds no commit
        seen.add(look.fingerprint)
        kept.append(look)
    return kept


def count_looks(
    tickets: Iterable[Ticket], *, mine: int | None, claims: State, now: datetime
) -> State:
    """The earlier looks at a pull request as the policy reads them (see the module's rules).

    ``tickets``: the runs of this comparison on the pull request's commits (this run's own
    included or not); ``mine``: this run's ticket (``None`` when it has none, say a read-only
    token: then every listed run is earlier); ``claims``: the state in evalbot's own comment.
    The result's ``warning`` joins everything the ledger had to take on trust or refuse.
    """
    listed = list(tickets)
    warnings: list[str] = [claims.warning] if claims.warning else []
    entries: list[tuple[tuple[int, int], Look]] = []
    for holdout in (False, True):
        entries += _count_class(
            listed, list(claims.looks), holdout=holdout, mine=mine, now=now, warnings=warnings
        )
    entries.sort(key=lambda entry: entry[0])
    looks = tuple(look for _, look in entries)
    holdout_shas = {look.head_sha for look in looks if look.holdout}
    uses = max(claims.holdout_uses, len(holdout_shas))
    unique = list(dict.fromkeys(warnings))
    return State(looks=looks, holdout_uses=uses, warning="; ".join(unique) if unique else None)
