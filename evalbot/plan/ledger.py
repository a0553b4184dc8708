"""Pure: a look and its records in one place: what a look is, how a check run's digest and the
comment's state block hold it, and how the records are counted into the :class:`State` the
policy judges (records never cancel; where they disagree or are gone, a finding refuses the
verdict). docs/statistics.md explains the ledger; every parser here is linear and trusts nothing.
"""

from __future__ import annotations

import base64
import bisect
import json
import math
import re
import zlib
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from evalbot.limits import MAX_STATE_BLOCK_CHARS

DIGEST_MARKER = "evalbot-look:v1"
STATE_MARKER = "evalbot-state:v2"  # its JSON deflated (zlib); a v1 block's is not
VERSION = 1  # of both blocks' JSON
MAX_DIGEST_CHARS = 16 * 1024
MAX_BLOCK_CHARS = 256 * 1024  # base64 characters of a state block read
MAX_INFLATED = 4 * MAX_BLOCK_CHARS  # bytes a v2 block's JSON may inflate to (1,000 looks: ~0.6 MB)
MAX_LOOKS = 1_000  # a record keeps the newest looks beyond this
MAX_EFFECT = 1e15  # a score difference beyond this is taken for tampering
OUTCOMES = frozenset({"improvement", "regression", "no_significant_difference", "inconclusive"})
# tuples: `in` takes any JSON value (a set would hash it)
METRICS = ("pass_rate", "mean_score")
CONCLUSIONS = ("success", "failure", "neutral", "cancelled")
#: The item set of a look whose items are not on record: it matches no real fingerprint.
UNKNOWN_FINGERPRINT = "0" * 64
#: How a run without a readable record of its look is counted.
_NOT_ON_RECORD = "counted as a look on items not on record"
#: A run in progress for longer than this is taken for a job that was killed (GitHub-hosted
#: jobs are stopped after 6 hours) and no longer counts as a look.
STALE_AFTER = timedelta(hours=6)
_EPOCH = "1970-01-01T00:00:00Z"
_DIGEST = re.compile(r"<!-- " + re.escape(DIGEST_MARKER) + r" ([A-Za-z0-9+/=]+) -->")
SHA = re.compile(r"[0-9a-fA-F]{4,64}")
FINGERPRINT = re.compile(r"[0-9a-f]{64}")
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})")
_REF = re.compile(r"[^\x00-\x1f\x7f]{1,255}")
_STATE_OPENING = re.compile(r"<!--\s*evalbot-state:")
_CLOSE = "-->"
_BLOCK = re.compile(r"(v[12])(\s[A-Za-z0-9+/=\s]*)")  # the payload one character class: linear


# ---- a look -----------------------------------------------------------------------------------


def _key(kind: type, test: Callable[[Any], object], what: str, **default: Any) -> Any:
    """A key of a look's record, checked when read: of ``kind`` and passing ``test``, else it
    is refused as ``what`` it is (an optional key has a ``default`` and may be absent)."""
    return field(metadata={"check": (kind, test, what)}, **default)


@dataclass(frozen=True, kw_only=True)
class Look:
    """One verdict evalbot gave on a change. ``recorded`` is ``False`` for a look known only
    from a ticket (a run in progress, an unreadable record): its outcome, p-value and items are
    placeholders, never shown as results. The later fields are ``None`` in older records."""

    head_sha: str = _key(str, SHA.fullmatch, "is not a commit sha")
    fingerprint: str = _key(str, FINGERPRINT.fullmatch, "is not a sha256")
    items: int = _key(int, (0).__le__, "is negative")
    outcome: str = _key(str, OUTCOMES.__contains__, "is unknown")
    # ISO 8601 time of the run, e.g. "2026-11-30T09:00:00Z"
    at: str = _key(str, _TIME.fullmatch, "is not an ISO 8601 time")
    pvalue: float
    holdout: bool = False
    # the difference candidate - baseline and its interval ("pass_rate": fractions)
    metric: str | None = None
    effect: float | None = None
    effect_ci: tuple[float, float] | None = None
    recorded: bool = True
    # the head commit's tree: the change as judged
    tree: str | None = _key(str, SHA.fullmatch, "is malformed", default=None)
    # its number among the change's looks (a re-run keeps it)
    number: int | None = _key(int, (1).__le__, "is not positive", default=None)
    # the pull request it was given on
    pull: int | None = _key(int, (1).__le__, "is not positive", default=None)
    # the base it was judged against, and the plan read there
    base_ref: str | None = _key(str, _REF.fullmatch, "is malformed", default=None)
    base_sha: str | None = _key(str, SHA.fullmatch, "is malformed", default=None)
    # the git blob sha of the plan file (None: evalbot's defaults)
    plan: str | None = _key(str, SHA.fullmatch, "is malformed", default=None)
    # the workflow run whose results were judged
    run: int | None = _key(int, (1).__le__, "is not positive", default=None)
    # evalbot's comment it was published in
    comment: int | None = _key(int, (1).__le__, "is not positive", default=None)

    @property
    def change(self) -> str:
        """What makes two looks the same one: the tree judged (the commit, in older records)."""
        return self.tree or self.head_sha


#: The keys checked by their field's ``_key`` (type, test, what it is if not): every look has
#: the required ones; an optional one is ``None`` when absent.
_CHECKED = [item for item in fields(Look) if "check" in item.metadata]
_KEYS = {item.name: item.metadata["check"] for item in _CHECKED}
_REQUIRED = tuple(item.name for item in _CHECKED if item.default is MISSING)
_OPTIONAL = tuple(key for key in _KEYS if key not in _REQUIRED)


class LookError(ValueError):
    """A look (or a block holding looks) that cannot be what evalbot wrote."""


def _get(obj: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = obj.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise LookError(f"`{key}` is missing or has the wrong type")
    return value


def _checked(raw: dict[str, Any], keys: Collection[str]) -> dict[str, Any]:
    """These keys of a look, each checked by its row of :data:`_KEYS` (an optional one absent
    is ``None``; a commit sha in lower case)."""
    values = dict.fromkeys(keys)
    for key in keys:
        kind, test, what = _KEYS[key]
        if key in _OPTIONAL and raw.get(key) is None:
            continue
        if not test(value := _get(raw, key, kind)):
            raise LookError(f"`{key}` {what}")
        values[key] = value.lower() if test == SHA.fullmatch else value
    return values


def look_from_json(raw: object) -> Look:
    """A look from its JSON object; :class:`LookError` says what is wrong with it."""
    if not isinstance(raw, dict):
        raise LookError("a look is not an object")
    required = _checked(raw, _REQUIRED)
    pvalue = _get(raw, "pvalue", (int, float))
    # an int is 0 or 1 (float() of a huge int overflows); NaN fails every comparison
    if not (pvalue in (0, 1) or (isinstance(pvalue, float) and 0.0 <= pvalue <= 1.0)):
        raise LookError("`pvalue` is not in [0, 1]")
    # the flags, when absent: not a holdout look, and recorded
    flags = {k: _get({k: k == "recorded", **raw}, k, bool) for k in ("holdout", "recorded")}
    return Look(
        pvalue=float(pvalue),
        **required,
        **flags,
        **_effect(raw),
        **_checked(raw, _OPTIONAL),
    )


def _number(value: object, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LookError(f"`{key}` is not a number")
    # compared before float(), which overflows on a huge int; NaN fails every comparison
    if not abs(value) <= MAX_EFFECT:
        raise LookError(f"`{key}` is out of range")
    return float(value)


def _effect(raw: dict[str, Any]) -> dict[str, Any]:
    """The look's effect: all three keys or none of them (a record from before they existed)."""
    present = [key for key in ("metric", "effect", "effect_ci") if key in raw]
    if not present:
        return {}
    if len(present) < 3:
        raise LookError("`metric`, `effect` and `effect_ci` go together")
    if (metric := raw["metric"]) not in METRICS:
        raise LookError("`metric` is unknown")
    effect = _number(raw["effect"], "effect")
    ci = raw["effect_ci"]
    if not isinstance(ci, list) or len(ci) != 2:
        raise LookError("`effect_ci` is not a pair")
    low, high = _number(ci[0], "effect_ci"), _number(ci[1], "effect_ci")
    if low > high:
        raise LookError("`effect_ci` is reversed")
    if metric == "pass_rate" and not all(-1.0 <= x <= 1.0 for x in (effect, low, high)):
        raise LookError("`effect` of a pass rate is not in [-1, 1]")
    return {"metric": metric, "effect": effect, "effect_ci": (low, high)}


def look_json(look: Look) -> dict[str, Any]:
    """A look as the JSON object every record holds (a check run's digest, a comment's block)."""
    keys = (*_KEYS, "pvalue", "holdout")  # an optional key left out when None
    data = {key: value for key in keys if (value := getattr(look, key)) is not None}
    if not look.recorded:
        data["recorded"] = False
    if look.metric in METRICS and look.effect is not None and look.effect_ci is not None:
        values = [float(look.effect), *map(float, look.effect_ci)]
        if all(math.isfinite(value) and abs(value) <= MAX_EFFECT for value in values):
            data.update(metric=look.metric, effect=values[0], effect_ci=values[1:])
    return data


def _decode(compact: str, *, deflated: bool = False) -> dict[str, Any]:
    """The JSON object of this version in a base64 payload (of zlib data when ``deflated``);
    ``LookError`` for another value or version, or non-finite numbers."""

    def refuse(name: str) -> float:
        raise LookError(f"non-finite number {name}")

    raw = base64.b64decode(compact, validate=True)
    data = json.loads((_inflate(raw) if deflated else raw).decode("utf-8"), parse_constant=refuse)
    if not isinstance(data, dict):
        raise LookError("the payload is not an object")
    if data.get("v") != VERSION or isinstance(data.get("v"), bool):
        raise LookError("unknown version")
    return data


def _inflate(raw: bytes) -> bytes:
    """The zlib data ``raw`` inflated, never beyond :data:`MAX_INFLATED` bytes: an edited
    block cannot be a zip bomb."""
    inflater = zlib.decompressobj()
    try:
        text = inflater.decompress(raw, MAX_INFLATED)
    except zlib.error as error:
        raise LookError("the block is not zlib data") from error
    if not inflater.eof:
        too_large = inflater.unconsumed_tail or len(text) >= MAX_INFLATED
        raise LookError("the block is too large inflated" if too_large else "the block is cut")
    return text


def _encode(data: dict[str, Any], *, deflated: bool = False) -> str:
    """The base64 of ``data`` as compact JSON (deflated for the state block)."""
    text = json.dumps(data, separators=(",", ":"), sort_keys=True, allow_nan=False)
    raw = text.encode("utf-8")
    return base64.b64encode(zlib.compress(raw, 9) if deflated else raw).decode("ascii")


def distinct_looks(looks: Iterable[Look]) -> list[Look]:
    """One look per change, item set and kind (holdout or not), in order: a re-run is not a
    new look. The first record of each is kept; a placeholder yields to a recorded look."""
    kept: dict[tuple[str, str, bool], Look] = {}
    for look in looks:
        key = (look.change, look.fingerprint, look.holdout)
        if key not in kept or (look.recorded and not kept[key].recorded):
            kept[key] = look
    return list(kept.values())


@dataclass(frozen=True, kw_only=True)
class State:
    """The earlier looks at a change, as the policy reads them. ``warning`` says what was taken
    on trust or left out; ``findings`` say which records disagree or are gone (they refuse the
    verdict); ``most`` is the highest look number any record holds."""

    looks: tuple[Look, ...] = ()
    holdout_uses: int = 0
    warning: str | None = None
    findings: tuple[str, ...] = ()
    most: int = 0


def with_look(state: State, look: Look, *, holdout_use: bool = False) -> State:
    """The looks after one more run: the look appended, the holdout use counted if any."""
    return State(
        looks=(*state.looks, look)[-MAX_LOOKS:], holdout_uses=state.holdout_uses + holdout_use
    )


# ---- the comment's record: the state block ----------------------------------------------------
# The comment evalbot keeps on a pull request ends with one hidden line,
# ``<!-- evalbot-state:v2 BASE64 -->``, of ``{"v": 1, "looks": [...], "holdout_uses": 0}``
# deflated (a v1 block, still read, holds the JSON as it is): it names the commits a force push
# took out of the pull request. ``"left_out": n`` says the n oldest looks did not fit. People
# with write access can edit any comment, so a block that is malformed, oversized or
# inconsistent gives an empty state with ``warning`` set, never an exception.


def _decode_state(version: str, payload: str) -> State:
    compact = "".join(payload.split())
    if len(compact) > MAX_BLOCK_CHARS:
        raise LookError("the block is too large")
    data = _decode(compact, deflated=version == "v2")
    raw_looks = _get(data, "looks", list)
    if len(raw_looks) > MAX_LOOKS:
        raise LookError("too many looks")
    uses, left_out = (_get({key: 0, **data}, key, int) for key in ("holdout_uses", "left_out"))
    if uses < 0 or left_out < 0:
        raise LookError("`holdout_uses` is negative" if uses < 0 else "`left_out` is negative")
    left = f"the state block left out its {left_out} oldest looks to fit GitHub's size limit"
    looks = tuple(look_from_json(raw) for raw in raw_looks)
    return State(looks=looks, holdout_uses=uses, warning=left if left_out else None)


def parse_state(comment_body: str | None) -> State:
    """The state carried in a comment body; an empty state when there is none.

    Never raises on any input: a block that is malformed, oversized, of an unknown version or
    holds impossible values gives an empty state whose ``warning`` says so. When the body
    holds several blocks the first is used and a warning is set; a block that left out its
    oldest looks (they did not fit) gives the others and a warning.
    """
    if not isinstance(comment_body, str) or not comment_body:
        return State()
    if len(comment_body) > 4 * MAX_BLOCK_CHARS:
        return State(warning="the state block was ignored: the comment is too large")
    payloads = _state_blocks(comment_body)
    readable = [payload for payload in payloads if payload is not None]
    if not readable:
        unreadable = "the state block was ignored: unreadable or of another version"
        return State(warning=unreadable if payloads else None)
    try:
        state = _decode_state(*readable[0])
    except LookError as error:
        return State(warning=f"the state block was ignored: {error}")
    except (ValueError, RecursionError, MemoryError):
        # binascii.Error, UnicodeDecodeError and json.JSONDecodeError are ValueErrors
        return State(warning="the state block was ignored: it is not valid base64 JSON")
    if len(readable) > 1:
        return replace(state, warning="several state blocks were found; the first was used")
    return state


def _state_blocks(body: str) -> list[tuple[str, str] | None]:
    """Every ``<!-- evalbot-state:... -->`` in ``body``, in order: the version and payload of a
    v1 or v2 block, or ``None`` for one that is unreadable or of another version. Linear: one
    pass for the openings, each closing looked for once; a block that never closes ends it."""
    found: list[tuple[str, str] | None] = []
    at = 0
    for opening in _STATE_OPENING.finditer(body):
        if opening.start() < at:  # inside the block before
            continue
        end = body.find(_CLOSE, opening.end())
        if end < 0:
            found.append(None)
            break
        block = _BLOCK.fullmatch(body, opening.end(), end)
        found.append(None if block is None else (block[1], block[2]))
        at = end + len(_CLOSE)
    return found


def render_state(state: State, max_chars: int = MAX_STATE_BLOCK_CHARS) -> str:
    """The block to append to the comment body (one line, invisible when rendered), at most
    ``max_chars`` long: the newest looks that fit, and how many older ones were left out."""
    looks = [look_json(look) for look in state.looks[-MAX_LOOKS:]]

    def block(kept: int) -> str:
        data: dict[str, Any] = {"v": VERSION, "holdout_uses": state.holdout_uses}
        data["looks"] = looks[len(looks) - kept :]
        if kept < len(looks):
            data["left_out"] = len(looks) - kept
        return f"<!-- {STATE_MARKER} {_encode(data, deflated=True)} -->"

    if len(text := block(len(looks))) <= max_chars:
        return text
    # how many of the blocks of 0, 1, ... looks fit (the size grows with looks), bisected
    fit = bisect.bisect_right(range(len(looks)), max_chars, key=lambda kept: len(block(kept)))
    return block(max(fit - 1, 0))


# ---- a check run's record: the digest ---------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Digest:
    """What one run of evalbot declares in its check run: ``start`` (under way; ``look`` a
    :func:`placeholder` on the commit and the item set judged), ``look`` (the verdict ``look``,
    the check's ``conclusion``) or ``none`` (nothing compared; a bare placeholder)."""

    kind: Literal["start", "look", "none"]
    look: Look
    conclusion: str | None = None


#: The keys a digest of a kind other than ``look`` declares (and its ``holdout``).
_DECLARES = {"start": ("head_sha", "fingerprint", "items"), "none": ("head_sha",)}


def render_digest(digest: Digest) -> str:
    """The digest as the one-line hidden block a check run's ``output.text`` holds: the
    verdict's look whole, or the keys a ``start`` or ``none`` digest declares."""
    data = look_json(digest.look)
    if digest.kind in _DECLARES:
        data = {"holdout": digest.look.holdout, **{k: data[k] for k in _DECLARES[digest.kind]}}
    if digest.conclusion is not None:
        data["conclusion"] = digest.conclusion
    return f"<!-- {DIGEST_MARKER} {_encode({'v': VERSION, 'kind': digest.kind, **data})} -->"


def parse_digest(text: str | None) -> Digest | None:
    """The digest in a check run's ``output.text``; ``None`` when there is none or it is
    malformed (never an exception). The whole text must be the one block."""
    if not isinstance(text, str) or len(text) > MAX_DIGEST_CHARS:
        return None
    match = _DIGEST.fullmatch(text.strip())
    if match is None:
        return None
    try:
        data = _decode(match.group(1))
        kind, conclusion = data.get("kind"), data.pop("conclusion", None)
        if conclusion not in (None, *CONCLUSIONS) or kind not in ("look", "start", "none"):
            return None
        if kind == "look":
            look = look_from_json({k: v for k, v in data.items() if k not in ("v", "kind")})
            return Digest(kind=kind, look=look, conclusion=conclusion) if look.recorded else None
        holdout = _get(data, "holdout", bool)
        declared = _checked(data, _DECLARES[kind])
        return Digest(kind=kind, look=placeholder(holdout=holdout, **declared))
    except (ValueError, RecursionError, MemoryError):  # binascii.Error is a ValueError
        return None


# ---- the count ---------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Ticket:
    """One run of evalbot as the ledger shows it: a check run (or a commit status).

    ``digest`` is what the run declared (``None``: nothing readable); ``conclusion`` the
    conclusion the check run has now (compared with the one its digest recorded). ``opaque``
    marks records without details by design (commit statuses), ``holdout`` their kind (``None``
    with no digest: unknown, so it counts for both); ``tree`` is the commit's tree where known;
    ``source`` names the record in messages ("check run 123").
    """

    id: int
    sha: str
    running: bool
    started_at: datetime | None = None
    digest: Digest | None = None
    conclusion: str | None = None
    opaque: bool = False
    holdout: bool | None = None
    source: str = ""


def placeholder(
    head_sha: str,
    *,
    holdout: bool,
    fingerprint: str | None = None,
    items: int | None = None,
    at: datetime | None = None,
) -> Look:
    """A look known from a ticket only: its verdict is not on record (yet)."""
    return Look(
        head_sha=head_sha.lower(),
        items=items or 0,
        fingerprint=fingerprint or UNKNOWN_FINGERPRINT,
        pvalue=1.0,
        outcome="inconclusive",
        at=at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if at is not None else _EPOCH,
        holdout=holdout,
        recorded=False,
    )


def _ticket_looks(ticket: Ticket, *, holdout: bool, now: datetime, notes: _Notes) -> list[Look]:
    """The looks one earlier ticket stands for, for the analysis of kind ``holdout``."""
    digest, sha, run = ticket.digest, ticket.sha.lower(), f"{ticket.source} on {ticket.sha[:7]}"
    if ticket.holdout is not None and ticket.holdout != holdout:
        return []
    if digest is not None and digest.look.head_sha.lower() != sha:
        other = digest.look.head_sha[:7]
        notes.warnings.append(f"{run} records another commit ({other}): {_NOT_ON_RECORD}")
        digest = None
    if ticket.running and ticket.started_at is not None and now - ticket.started_at > STALE_AFTER:
        since = f"{ticket.started_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
        notes.warnings.append(
            f"{run} has been in progress since {since}: taken for a stopped run, not counted"
        )
        notes.stale.add(sha)
        return []
    if digest is None:
        if not ticket.opaque:
            record = "is in progress without" if ticket.running else "carries no"
            notes.warnings.append(f"{run} {record} readable record of its look: {_NOT_ON_RECORD}")
        return [placeholder(sha, holdout=holdout, at=ticket.started_at)]
    if digest.look.holdout != holdout or (digest.kind == "none" and not ticket.running):
        return []
    if digest.kind == "look" and not ticket.running:
        if digest.conclusion and ticket.conclusion and digest.conclusion != ticket.conclusion:
            notes.findings.append(
                f"{run} concluded {ticket.conclusion}, but its record says {digest.conclusion}"
            )
        return [digest.look]
    if not ticket.running:
        notes.warnings.append(f"{run} ended without a record of its verdict: counted")
    return [
        placeholder(
            sha,
            holdout=holdout,
            fingerprint=digest.look.fingerprint,
            items=digest.look.items,
            at=ticket.started_at,
        )
    ]


@dataclass
class _Notes:
    """The warnings and findings of one count, and the commits of runs taken for stopped."""

    warnings: list[str]
    findings: list[str]
    stale: set[str]


def _compare(claim: Look, looks: list[Look], nothing: str | None, notes: _Notes) -> None:
    """A comment's look beside the check runs of its commit: where they disagree, a finding."""
    short = claim.head_sha[:7]
    if nothing is not None and not any(look.recorded for look in looks):
        notes.findings.append(
            f"evalbot's comment records a verdict on {short} that {nothing} says compared nothing"
        )
    for look in looks:
        same = look.recorded and (look.fingerprint, look.at) == (claim.fingerprint, claim.at)
        if same and (look.outcome, look.pvalue) != (claim.outcome, claim.pvalue):
            notes.findings.append(
                f"evalbot's comment and a check run record different verdicts on {short} "
                f"({claim.outcome}, {look.outcome})"
            )


def _count_class(
    tickets: list[Ticket],
    claims: list[Look],
    *,
    holdout: bool,
    mine: int | None,
    now: datetime,
    notes: _Notes,
) -> list[tuple[tuple[int, int], Look]]:
    """The earlier looks of one kind, each with its sort key (its commit's first ticket)."""
    per_sha: dict[str, list[Look]] = {}
    first: dict[str, int] = {}
    nothing: dict[str, str] = {}  # commits a check run says nothing was compared on
    later: set[str] = set()
    for ticket in sorted(tickets, key=lambda t: t.id):
        sha = ticket.sha.lower()
        if mine is not None and ticket.id >= mine:
            later.add(sha)  # a later run (or this one): it counts this run, not the reverse
            continue
        first.setdefault(sha, ticket.id)
        found = _ticket_looks(ticket, holdout=holdout, now=now, notes=notes)
        per_sha.setdefault(sha, []).extend(found)
        digest = ticket.digest
        if not found and digest is not None and digest.kind == "none" and not ticket.running:
            nothing.setdefault(sha, ticket.source)
    ordered: list[tuple[tuple[int, int], Look]] = []
    for index, claim in enumerate(claims):
        sha = claim.head_sha.lower()
        if claim.holdout != holdout or not claim.recorded or (sha not in first and sha in later):
            continue  # another kind, a placeholder (its ticket decides), a later run's look
        if sha not in first:
            notes.warnings.append(
                f"evalbot's comment records a look at {sha[:7]} that no check run confirms: counted"
            )
            ordered.append(((index - len(claims), 0), claim))
            continue
        _compare(claim, per_sha[sha], nothing.get(sha), notes)
        per_sha[sha].append(claim)
    for sha, entries in per_sha.items():
        looks = distinct_looks(entries)
        on_record = any(look.recorded for look in looks)
        kept = [
            look
            for look in looks
            if look.recorded or not (on_record and look.fingerprint == UNKNOWN_FINGERPRINT)
        ]
        ordered += [((first[sha], n), look) for n, look in enumerate(kept)]
    return ordered


def count_looks(
    tickets: Iterable[Ticket],
    *,
    mine: int | None,
    claims: State,
    now: datetime,
    trees: Mapping[str, str] | None = None,
) -> State:
    """The earlier looks at a change as the policy reads them.

    GitHub numbers check runs in the order they are created, and each run creates its check
    run before it reads the earlier ones: the id is the run's **ticket**, a total order no
    comment edit and no race can change. A completed run whose digest records a verdict is a
    look on its commit; one that compared nothing is not; one without a readable digest is a
    look on items not on record (fail closed). A run in progress with a lower ticket is a look
    unless it started more than :data:`STALE_AFTER` ago; a higher ticket is a later run.
    Records never cancel: a look any record holds is counted; where two records disagree, or a
    look number on record is above the looks found (records are gone), that is a finding.

    ``tickets``: the runs of this comparison on the change's commits (this run's own included
    or not); ``mine``: this run's ticket (``None`` without one: then every listed run is
    earlier); ``claims``: the looks in evalbot's comments, every pull request's together, with
    their warning and findings; ``trees``: the tree of each commit where it is known (a look
    on a commit with the tree of another is the same look).
    """
    known = {sha.lower(): tree for sha, tree in (trees or {}).items()}

    def with_tree(look: Look) -> Look:
        return replace(look, tree=look.tree or known.get(look.head_sha.lower()))

    notes = _Notes([claims.warning] if claims.warning else [], list(claims.findings), set())
    listed, entries = list(tickets), []
    for holdout in (False, True):
        entries += _count_class(
            listed, list(claims.looks), holdout=holdout, mine=mine, now=now, notes=notes
        )
    entries.sort(key=lambda entry: entry[0])
    looks = tuple(distinct_looks(with_tree(look) for _, look in entries))
    regular = [look for look in looks if not look.holdout]
    most = max([look.number or 0 for look in regular], default=0)
    if most > len(regular) + len(notes.stale):
        notes.findings.append(
            f"a record holds look {most} of this change, {len(regular)} found: the records of "
            f"{most - len(regular)} are gone"
        )
    return State(
        looks=looks,
        holdout_uses=max(claims.holdout_uses, len({look.change for look in looks if look.holdout})),
        warning="; ".join(dict.fromkeys(notes.warnings)) or None,
        findings=tuple(dict.fromkeys(notes.findings)),
        most=most,
    )
