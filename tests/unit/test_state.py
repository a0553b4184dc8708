"""The hidden state block: round trips, and garbage or tampering never crashes the parser."""

from __future__ import annotations

import base64
import json
import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalbot.plan.ledger import UNKNOWN_FINGERPRINT, Look, State, with_look
from evalbot.plan.state import MARKER, parse_state, render_state

LOOK = Look(
    head_sha="0123456789abcdef0123456789abcdef01234567",
    items=400,
    fingerprint="ab" * 32,
    pvalue=0.016,
    outcome="improvement",
    at="2026-11-30T09:00:00Z",
)


def block(payload: object) -> str:
    raw = json.dumps(payload).encode()
    return f"<!-- {MARKER} {base64.b64encode(raw).decode()} -->"


def good(**changes: object) -> dict[str, object]:
    look = {
        "head_sha": LOOK.head_sha,
        "items": 400,
        "fingerprint": LOOK.fingerprint,
        "pvalue": 0.016,
        "outcome": "improvement",
        "at": "2026-11-30T09:00:00Z",
        "holdout": False,
    }
    look.update(changes)
    return {"v": 1, "looks": [look], "holdout_uses": 0}


def test_round_trip() -> None:
    state = with_look(with_look(State(), LOOK), LOOK, holdout_use=True)
    text = render_state(state)
    assert text.startswith(f"<!-- {MARKER} ") and text.endswith(" -->") and "\n" not in text
    assert parse_state("comment text\n\n" + text + "\n") == state
    assert parse_state(text).holdout_uses == 1


EFFECT = {"metric": "pass_rate", "effect": 0.0425, "effect_ci": [0.01, 0.075]}


def test_effect_round_trips_and_is_written_beside_the_v1_fields() -> None:
    look = replace(LOOK, metric="pass_rate", effect=0.0425, effect_ci=(0.01, 0.075))
    text = render_state(with_look(State(), look))
    assert parse_state(text).looks == (look,)
    assert json.loads(base64.b64decode(text.split()[2])) == good(**EFFECT)


def test_a_v1_look_without_effect_still_reads() -> None:
    (look,) = parse_state(block(good())).looks
    assert look == LOOK and look.effect is None and look.effect_ci is None


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_a_non_finite_effect_is_left_out(value: float) -> None:
    look = replace(LOOK, metric="mean_score", effect=value, effect_ci=(0.0, 1.0))
    data = json.loads(base64.b64decode(render_state(with_look(State(), look)).split()[2]))
    assert data == good()


def test_format_is_base64_json() -> None:
    payload = render_state(with_look(State(), LOOK)).split()[2]
    data = json.loads(base64.b64decode(payload))
    assert data == good()


@pytest.mark.parametrize("body", [None, "", "no block here", "<!-- evalbot:marker -->"])
def test_no_block_is_an_empty_state(body: str | None) -> None:
    assert parse_state(body) == State()


@pytest.mark.parametrize(
    ("body", "warning"),
    [
        (f"<!-- {MARKER} !!!! -->", "unreadable or of another version"),
        (f"<!-- {MARKER} bm90IGpzb24= -->", "not valid base64 JSON"),
        ("<!-- evalbot-state:v2 e30= -->", "unreadable or of another version"),
        (block([1, 2]), "the payload is not an object"),
        (block({"v": 2, "looks": []}), "unknown version"),
        (block({"v": True, "looks": []}), "unknown version"),
        (block({"v": 1}), "`looks` is missing"),
        (block({"v": 1, "looks": [], "holdout_uses": -1}), "`holdout_uses` is negative"),
        (block({"v": 1, "looks": [], "holdout_uses": 1.5}), "`holdout_uses` is missing or has"),
        (block({"v": 1, "looks": [7]}), "a look is not an object"),
        (block(good(head_sha="not a sha")), "`head_sha` is not a commit sha"),
        (block(good(fingerprint="x")), "`fingerprint` is not a sha256"),
        (block(good(items=-3)), "`items` is negative"),
        (block(good(items=True)), "`items` has the wrong type"),
        (block(good(pvalue=2)), "`pvalue` is not in [0, 1]"),
        (block(good(outcome="victory")), "`outcome` is unknown"),
        (block(good(effect=0.1)), "`metric`, `effect` and `effect_ci` go together"),
        (block(good(**{**EFFECT, "metric": "accuracy"})), "`metric` is unknown"),
        (block(good(**{**EFFECT, "metric": 3})), "`metric` is missing or has the wrong type"),
        (block(good(**{**EFFECT, "effect": "big"})), "`effect` is not a number"),
        (block(good(**{**EFFECT, "effect": True})), "`effect` is not a number"),
        (block(good(**{**EFFECT, "effect": 1e300})), "`effect` is out of range"),
        (block(good(**{**EFFECT, "effect": 10**400})), "`effect` is out of range"),
        (block(good(pvalue=10**400)), "`pvalue` is not in [0, 1]"),
        (block(good(**{**EFFECT, "effect_ci": [0.1]})), "`effect_ci` is not a pair"),
        (block(good(**{**EFFECT, "effect_ci": {"low": 0}})), "`effect_ci` is not a pair"),
        (block(good(**{**EFFECT, "effect_ci": [0.2, 0.1]})), "`effect_ci` is reversed"),
        (block(good(**{**EFFECT, "effect_ci": [0.1, None]})), "`effect_ci` is not a number"),
        (block(good(**{**EFFECT, "effect": 1.5})), "`effect` of a pass rate is not in [-1, 1]"),
        (
            "<!-- "
            + MARKER
            + " "
            + base64.b64encode(
                json.dumps(good(**EFFECT)).replace("0.0425", "NaN").encode()
            ).decode()
            + " -->",
            "non-finite number NaN",
        ),
        (block(good(at="yesterday")), "`at` is not an ISO 8601 time"),
        (block(good(holdout="yes")), "`holdout` is not a boolean"),
        (block({"v": 1, "looks": [{}] * 1001}), "too many looks"),
        (
            f"<!-- {MARKER} "
            + base64.b64encode(b'{"v": 1, "looks": [], "x": NaN}').decode()
            + " -->",
            "non-finite number NaN",
        ),
        (
            f"<!-- {MARKER} " + base64.b64encode(b"[" * 50_000 + b"]" * 50_000).decode() + " -->",
            "not valid base64 JSON",  # nested too deeply
        ),
        (
            f"<!-- {MARKER} " + base64.b64encode(b" " * 300_000).decode() + " -->",
            "too large",
        ),
        ("x" * 2_000_000, "the comment is too large"),
    ],
)
def test_garbage_gives_empty_state_and_warning(body: str, warning: str) -> None:
    state = parse_state(body)
    assert state.looks == () and state.holdout_uses == 0
    assert state.warning is not None and warning in state.warning


def test_deep_nesting_within_the_size_limit() -> None:
    payload = base64.b64encode(b"[" * 60_000 + b"]" * 60_000).decode()
    state = parse_state(f"<!-- {MARKER} {payload} -->")
    assert state.warning is not None


def test_several_blocks_use_the_first_and_warn() -> None:
    first = render_state(with_look(State(), LOOK))
    state = parse_state(first + "\n" + render_state(State()))
    assert state.looks == (LOOK,)
    assert state.warning == "several state blocks were found; the first was used"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_is_safe(body: str) -> None:
    assert isinstance(parse_state(body), State)
    assert isinstance(parse_state(f"<!-- {MARKER} {body} -->"), State)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values, st.binary(max_size=200))
def test_any_payload_is_safe(value: object, raw: bytes) -> None:
    for data in (json.dumps(value).encode(), raw):
        body = f"<!-- {MARKER} {base64.b64encode(data).decode()} -->"
        assert isinstance(parse_state(body), State)
    looks = {"v": 1, "looks": [value], "holdout_uses": 0}
    assert isinstance(parse_state(block(looks)), State)


# ---- hostile text (timed against a tenth of its size in bench/bench_hostile.py) ----


def hostile_bodies(n: int = 100_000) -> list[str]:
    """Comment bodies of about ``n`` characters built to make a scan quadratic."""
    return [
        f"<!-- {MARKER} " + " " * n,  # a block that never closes, padded with spaces
        f"<!-- {MARKER} " + " \t\n" * (n // 3 + 1) + "x -->",
        f"<!-- {MARKER}" + " A" * (n // 2),
        "<!--" * (n // 4),
        "<!-- " * (n // 5) + "evalbot-state:v1 ",
        f"<!-- {MARKER} A" * (n // 20) + " -->",
        "<!--" + " " * (n - 10) + "evalbot-state:v1 AAAA -->",
    ]


HOSTILE = hostile_bodies()


@pytest.mark.parametrize("body", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_gives_an_empty_state(body: str) -> None:
    assert len(body) >= 99_000
    assert parse_state(body).looks == ()


def test_a_long_payload_is_still_read() -> None:
    text = render_state(with_look(State(), LOOK))
    padded = text.replace(" -->", " " * 50_000 + "-->")
    assert parse_state(padded).looks == (LOOK,)


def test_other_html_comments_before_the_block_are_skipped() -> None:
    text = render_state(with_look(State(), LOOK))
    assert parse_state("<!-- x -->\n<!-- evalbot:evalbot -->\n" + text).looks == (LOOK,)


def test_a_look_known_only_from_the_ledger_round_trips() -> None:
    placeholder = replace(LOOK, recorded=False, fingerprint=UNKNOWN_FINGERPRINT)
    text = render_state(with_look(State(), placeholder))
    assert parse_state(text).looks == (placeholder,)
    assert json.loads(base64.b64decode(text.split()[2]))["looks"][0]["recorded"] is False
    assert parse_state(block(good(recorded="no"))).warning == (
        "the state block was ignored: `recorded` is not a boolean"
    )
