"""Pure: the hidden machine-readable block carried in the sticky comment.

The comment evalbot keeps on a pull request ends with one HTML comment that readers never see::

    <!-- evalbot-state:v1 eyJ2IjogMSwgImxvb2tzIjogW119 -->

whose payload is base64 (standard alphabet) of a JSON object::

    {"v": 1,
     "looks": [{"head_sha": "0123abc...", "items": 400, "fingerprint": "<sha256 hex>",
                "pvalue": 0.0161, "outcome": "improvement", "at": "2026-11-30T09:00:00Z",
                "holdout": false,
                "metric": "pass_rate", "effect": 0.0425, "effect_ci": [0.01, 0.075]}],
     "holdout_uses": 0}

``metric``, ``effect`` and ``effect_ci`` (the difference candidate − baseline and its
confidence interval, as fractions for ``pass_rate``) were added later within v1: a look without
them is still read, with ``effect`` ``None``, and a look whose effect is not finite omits them.

A look known only from the looks ledger, without its details (a run still in progress, a check
run without a readable record) carries ``"recorded": false`` and placeholder values.

The comment is a display cache and a list of the commits looked at (a force push removes them
from the pull request): the looks are counted from the check runs evalbot itself created, each
of which carries its look in the same JSON (:mod:`evalbot.plan.ledger`).

Only evalbot's own comment is read, but people with write access can edit any comment, so
:func:`parse_state` trusts nothing: any malformed, oversized or inconsistent block gives an
empty state with ``warning`` set, never an exception. Both parsers run in linear time on any
input (no regular expression that can backtrack over the untrusted text).
"""

from __future__ import annotations

import base64
import json
import math
import re
from dataclasses import dataclass, replace
from typing import Any

__all__ = [
    "MARKER",
    "UNKNOWN_FINGERPRINT",
    "Look",
    "LookError",
    "State",
    "decode_payload",
    "look_from_json",
    "look_json",
    "parse_state",
    "render_state",
    "state_json",
    "with_look",
]

MARKER = "evalbot-state:v1"
STATE_VERSION = 1
MAX_BLOCK_CHARS = 256 * 1024  # base64 characters; ~2,000 looks fit in far less
MAX_LOOKS = 1_000  # the oldest looks are forgotten beyond this
MAX_EFFECT = 1e15  # a score difference beyond this is taken for tampering
OUTCOMES = frozenset({"improvement", "regression", "no_significant_difference", "inconclusive"})
METRICS = frozenset({"pass_rate", "mean_score"})
#: The item set of a look whose items are not on record (its check run carries no readable
#: digest): it matches no real fingerprint, so judging that commit again counts as other items.
UNKNOWN_FINGERPRINT = "0" * 64

_OPEN = "<!--"
_CLOSE = "-->"
_BLOCK_PREFIX = "evalbot-state:"
_SPACES = re.compile(r"\s*")
_PAYLOAD = re.compile(r"[A-Za-z0-9+/=\s]*")  # one character class: linear
SHA = re.compile(r"[0-9a-fA-F]{4,64}")
FINGERPRINT = re.compile(r"[0-9a-f]{64}")
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})")


@dataclass(frozen=True, kw_only=True)
class Look:
    """One verdict evalbot gave on this pull request."""

    head_sha: str
    items: int
    fingerprint: str
    pvalue: float
    outcome: str
    at: str  # ISO 8601 time of the run, e.g. "2026-11-30T09:00:00Z"
    holdout: bool = False
    # the difference candidate - baseline and its confidence interval (None: an older block)
    metric: str | None = None  # "pass_rate" (fractions, shown in pp) or "mean_score"
    effect: float | None = None
    effect_ci: tuple[float, float] | None = None
    # False: known from the ledger only (a run in progress, a check run without a readable
    # digest); its outcome, p-value and item count are placeholders, never shown as results
    recorded: bool = True


@dataclass(frozen=True, kw_only=True)
class State:
    """Everything evalbot remembers about a pull request between runs."""

    looks: tuple[Look, ...] = ()
    holdout_uses: int = 0
    warning: str | None = None  # set when a block was present but unreadable (then ignored)


class LookError(ValueError):
    """A look (or a block holding looks) that cannot be what evalbot wrote."""


def _reject_constant(name: str) -> float:
    raise LookError(f"non-finite number {name}")


def _get(obj: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = obj.get(key)
    if isinstance(value, bool) and kind is not bool:
        raise LookError(f"`{key}` has the wrong type")
    if not isinstance(value, kind):
        raise LookError(f"`{key}` is missing or has the wrong type")
    return value


def look_from_json(raw: object) -> Look:
    """A look from its JSON object; :class:`LookError` says what is wrong with it."""
    if not isinstance(raw, dict):
        raise LookError("a look is not an object")
    head_sha = _get(raw, "head_sha", str)
    if not SHA.fullmatch(head_sha):
        raise LookError("`head_sha` is not a commit sha")
    fingerprint = _get(raw, "fingerprint", str)
    if not FINGERPRINT.fullmatch(fingerprint):
        raise LookError("`fingerprint` is not a sha256")
    items = _get(raw, "items", int)
    if items < 0:
        raise LookError("`items` is negative")
    pvalue = _get(raw, "pvalue", (int, float))
    if isinstance(pvalue, int) and pvalue not in (0, 1):  # float() of a huge int overflows
        raise LookError("`pvalue` is not in [0, 1]")
    pvalue = float(pvalue)
    if not (math.isfinite(pvalue) and 0.0 <= pvalue <= 1.0):
        raise LookError("`pvalue` is not in [0, 1]")
    outcome = _get(raw, "outcome", str)
    if outcome not in OUTCOMES:
        raise LookError("`outcome` is unknown")
    at = _get(raw, "at", str)
    if not _TIME.fullmatch(at):
        raise LookError("`at` is not an ISO 8601 time")
    holdout = raw.get("holdout", False)
    if not isinstance(holdout, bool):
        raise LookError("`holdout` is not a boolean")
    recorded = raw.get("recorded", True)
    if not isinstance(recorded, bool):
        raise LookError("`recorded` is not a boolean")
    metric, effect, effect_ci = _effect(raw)
    return Look(
        head_sha=head_sha.lower(),
        items=items,
        fingerprint=fingerprint,
        pvalue=pvalue,
        outcome=outcome,
        at=at,
        holdout=holdout,
        metric=metric,
        effect=effect,
        effect_ci=effect_ci,
        recorded=recorded,
    )


def _number(value: object, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LookError(f"`{key}` is not a number")
    if isinstance(value, int) and abs(value) > MAX_EFFECT:  # float() of a huge int overflows
        raise LookError(f"`{key}` is out of range")
    number = float(value)
    if not math.isfinite(number) or abs(number) > MAX_EFFECT:
        raise LookError(f"`{key}` is out of range")
    return number


def _effect(raw: dict[str, Any]) -> tuple[str | None, float | None, tuple[float, float] | None]:
    """The look's effect: all three keys or none of them (a block from before they existed)."""
    present = [key for key in ("metric", "effect", "effect_ci") if key in raw]
    if not present:
        return None, None, None
    if len(present) < 3:
        raise LookError("`metric`, `effect` and `effect_ci` go together")
    metric = _get(raw, "metric", str)
    if metric not in METRICS:
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
    return metric, effect, (low, high)


def decode_payload(compact: str) -> Any:
    """The JSON value in a base64 payload; non-finite numbers refused (``LookError``)."""
    return json.loads(
        base64.b64decode(compact, validate=True).decode("utf-8"),
        parse_constant=_reject_constant,
    )


def _decode(payload: str) -> State:
    compact = "".join(payload.split())
    if len(compact) > MAX_BLOCK_CHARS:
        raise LookError("the block is too large")
    data = decode_payload(compact)
    if not isinstance(data, dict):
        raise LookError("the payload is not an object")
    if data.get("v") != STATE_VERSION or isinstance(data.get("v"), bool):
        raise LookError("unknown version")
    raw_looks = _get(data, "looks", list)
    if len(raw_looks) > MAX_LOOKS:
        raise LookError("too many looks")
    uses = _get(data, "holdout_uses", int) if "holdout_uses" in data else 0
    if uses < 0:
        raise LookError("`holdout_uses` is negative")
    return State(looks=tuple(look_from_json(raw) for raw in raw_looks), holdout_uses=uses)


def parse_state(comment_body: str | None) -> State:
    """The state carried in a comment body; an empty state when there is none.

    Never raises on any input: a block that is malformed, oversized, of an unknown version or
    holds impossible values gives an empty state whose ``warning`` says so. When the body
    holds several blocks the first is used and a warning is set.
    """
    if not isinstance(comment_body, str) or not comment_body:
        return State()
    if len(comment_body) > 4 * MAX_BLOCK_CHARS:
        return State(warning="the state block was ignored: the comment is too large")
    payloads = _state_blocks(comment_body)
    readable = [payload for payload in payloads if payload is not None]
    if not readable:
        if payloads:
            return State(warning="the state block was ignored: unreadable or of another version")
        return State()
    try:
        state = _decode(readable[0])
    except LookError as error:
        return State(warning=f"the state block was ignored: {error}")
    except (ValueError, RecursionError, MemoryError):
        # binascii.Error, UnicodeDecodeError and json.JSONDecodeError are ValueErrors
        return State(warning="the state block was ignored: it is not valid base64 JSON")
    if len(readable) > 1:
        return replace(state, warning="several state blocks were found; the first was used")
    return state


def _state_blocks(body: str) -> list[str | None]:
    """Every ``<!-- evalbot-state:... -->`` in ``body``, in order: the payload of a v1 block, or
    ``None`` for one that is unreadable or of another version.

    One pass with :meth:`str.find`: each character is looked at a bounded number of times, so
    hostile input (a block that never closes, 100,000 spaces) costs linear time. A block that
    never closes ends the search.
    """
    found: list[str | None] = []
    at = 0
    while (start := body.find(_OPEN, at)) >= 0:
        spaces = _SPACES.match(body, start + len(_OPEN))
        name = spaces.end() if spaces is not None else start + len(_OPEN)
        if not body.startswith(_BLOCK_PREFIX, name):
            at = start + len(_OPEN)
            continue
        end = body.find(_CLOSE, name)
        if end < 0:
            found.append(None)
            break
        inner = body[name + len(_BLOCK_PREFIX) : end]
        version, payload = inner[:2], inner[2:]
        readable = (
            version == "v1" and payload[:1].isspace() and _PAYLOAD.fullmatch(payload) is not None
        )
        found.append(payload if readable else None)
        at = end + len(_CLOSE)
    return found


def look_json(look: Look) -> dict[str, Any]:
    """A look as the JSON object the state block (and a check run's digest) holds."""
    data: dict[str, Any] = {
        "head_sha": look.head_sha,
        "items": look.items,
        "fingerprint": look.fingerprint,
        "pvalue": look.pvalue,
        "outcome": look.outcome,
        "at": look.at,
        "holdout": look.holdout,
    }
    if not look.recorded:
        data["recorded"] = False
    if look.metric in METRICS and look.effect is not None and look.effect_ci is not None:
        values = (look.effect, *look.effect_ci)
        if all(math.isfinite(value) and abs(value) <= MAX_EFFECT for value in values):
            data["metric"] = look.metric
            data["effect"] = float(look.effect)
            data["effect_ci"] = [float(look.effect_ci[0]), float(look.effect_ci[1])]
    return data


def state_json(state: State) -> dict[str, Any]:
    """The JSON object inside the block (also handy for reports)."""
    return {
        "v": STATE_VERSION,
        "looks": [look_json(look) for look in state.looks[-MAX_LOOKS:]],
        "holdout_uses": state.holdout_uses,
    }


def render_state(state: State) -> str:
    """The block to append to the comment body (one line, invisible when rendered)."""
    text = json.dumps(state_json(state), separators=(",", ":"), sort_keys=True, allow_nan=False)
    payload = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f"<!-- {MARKER} {payload} -->"


def with_look(state: State, look: Look, *, holdout_use: bool = False) -> State:
    """The state after one more run: the look appended, the holdout use counted if any."""
    return State(
        looks=(*state.looks, look)[-MAX_LOOKS:],
        holdout_uses=state.holdout_uses + (1 if holdout_use else 0),
    )
