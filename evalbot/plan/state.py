"""Pure: the hidden block of evalbot's comment that holds the looks of its pull request.

The comment evalbot keeps on a pull request ends with one HTML comment that readers never see::

    <!-- evalbot-state:v1 eyJ2IjogMSwgImxvb2tzIjogW119 -->

whose payload is base64 (standard alphabet) of ``{"v": 1, "looks": [...], "holdout_uses": 0}``,
each look as :func:`evalbot.plan.ledger.look_json` writes it. The comment is one of a look's records
(:mod:`evalbot.plan.ledger` counts them with the check runs): it names the commits a force push took
out of the pull request.

Only evalbot's own comment is read, but people with write access can edit any comment, so
:func:`parse_state` trusts nothing: any malformed, oversized or inconsistent block gives an
empty state with ``warning`` set, never an exception. It runs in linear time on any input (no
regular expression that can backtrack over the untrusted text).
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import replace
from typing import Any

from evalbot.plan.ledger import (
    MAX_LOOKS,
    LookError,
    State,
    decode_payload,
    look_from_json,
    look_json,
)

__all__ = ["MARKER", "parse_state", "render_state", "state_json"]

MARKER = "evalbot-state:v1"
STATE_VERSION = 1
MAX_BLOCK_CHARS = 256 * 1024  # base64 characters; ~2,000 looks fit in far less
_OPEN = "<!--"
_CLOSE = "-->"
_BLOCK_PREFIX = "evalbot-state:"
_SPACES = re.compile(r"\s*")
_PAYLOAD = re.compile(r"[A-Za-z0-9+/=\s]*")  # one character class: linear


def _decode(payload: str) -> State:
    compact = "".join(payload.split())
    if len(compact) > MAX_BLOCK_CHARS:
        raise LookError("the block is too large")
    data = decode_payload(compact)
    if not isinstance(data, dict):
        raise LookError("the payload is not an object")
    if data.get("v") != STATE_VERSION or isinstance(data.get("v"), bool):
        raise LookError("unknown version")
    raw_looks, uses = data.get("looks"), data.get("holdout_uses", 0)
    if not isinstance(raw_looks, list):
        raise LookError("`looks` is missing or has the wrong type")
    if len(raw_looks) > MAX_LOOKS:
        raise LookError("too many looks")
    if not isinstance(uses, int) or isinstance(uses, bool):
        raise LookError("`holdout_uses` is missing or has the wrong type")
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
