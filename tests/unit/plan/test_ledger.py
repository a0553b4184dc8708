"""The looks ledger: tickets in, the earlier looks the policy reads out; the comment's state
block round trips, and garbage or tampering never crashes its parser.

Each case is a small pull request history written out by hand, with the look number the
policy must then give (the rank of this run's commit among the distinct commits looked at,
ordered by their first ticket)."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import tracemalloc
import zlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalbot.limits import MAX_STATE_BLOCK_CHARS
from evalbot.plan.ledger import (
    DIGEST_MARKER,
    MAX_INFLATED,
    STALE_AFTER,
    STATE_MARKER,
    UNKNOWN_FINGERPRINT,
    Digest,
    Look,
    State,
    Ticket,
    count_looks,
    look_json,
    parse_digest,
    parse_state,
    placeholder,
    render_digest,
    render_state,
    with_look,
)

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
A, B, C, D = ("a" * 40, "b" * 40, "c" * 40, "d" * 40)
ITEMS = "1" * 64
OTHER_ITEMS = "2" * 64


def look(
    sha: str, *, outcome: str = "improvement", items: str = ITEMS, holdout: bool = False
) -> Look:
    return Look(
        head_sha=sha,
        items=400,
        fingerprint=items,
        pvalue=0.01,
        outcome=outcome,
        at="2026-03-01T10:00:00Z",
        holdout=holdout,
    )


def done(ticket: int, sha: str, **kw: object) -> Ticket:
    """A completed run that gave a verdict."""
    record = look(sha, **kw)  # type: ignore[arg-type]
    digest = Digest(kind="look", look=record)
    return Ticket(
        id=ticket, sha=sha, running=False, started_at=NOW, digest=digest, source=f"#{ticket}"
    )


def running(ticket: int, sha: str, *, items: str = ITEMS, age: timedelta = timedelta(0)) -> Ticket:
    digest = Digest(
        kind="start", look=placeholder(sha, holdout=False, fingerprint=items, items=400)
    )
    return Ticket(
        id=ticket, sha=sha, running=True, started_at=NOW - age, digest=digest, source=f"#{ticket}"
    )


def nothing(ticket: int, sha: str) -> Ticket:
    """A completed run that compared nothing (no baseline yet)."""
    digest = Digest(kind="none", look=placeholder(sha, holdout=False))
    return Ticket(
        id=ticket, sha=sha, running=False, started_at=NOW, digest=digest, source=f"#{ticket}"
    )


def unreadable(ticket: int, sha: str) -> Ticket:
    return Ticket(id=ticket, sha=sha, running=False, started_at=NOW, source=f"#{ticket}")


def earlier(tickets: list[Ticket], mine: int | None, claims: State | None = None) -> State:
    return count_looks(tickets, mine=mine, claims=claims or State(), now=NOW)


def commits(state: State, holdout: bool = False) -> list[str]:
    return [lk.head_sha[0] for lk in state.looks if lk.holdout == holdout]


def test_nothing_before_the_first_run() -> None:
    assert earlier([running(10, A)], mine=10) == State()


def test_completed_looks_in_ticket_order() -> None:
    state = earlier([done(30, B), done(10, A), running(40, C)], mine=40)
    assert commits(state) == ["a", "b"]  # this run on C: look 3
    assert all(lk.recorded for lk in state.looks)


def test_later_tickets_are_not_earlier_looks() -> None:
    """A run that took its ticket after this one is a later look, even if it finished first."""
    state = earlier([running(10, A), done(12, B), running(11, C)], mine=11)
    assert commits(state) == ["a"]  # this run on C: look 2; B (ticket 12) counts C, not v.v.


def test_an_earlier_run_still_in_progress_is_a_look() -> None:
    """Four parallel runs on A..D: each sees exactly the lower tickets, so only one is look 1."""
    tickets = [running(10, A), running(11, B), running(12, C), running(13, D)]
    numbers = [len(earlier(tickets, mine=t.id).looks) + 1 for t in tickets]
    assert numbers == [1, 2, 3, 4]
    placeholders = earlier(tickets, mine=13).looks
    assert not any(lk.recorded for lk in placeholders)
    assert {lk.fingerprint for lk in placeholders} == {ITEMS}
    assert {lk.items for lk in placeholders} == {400}  # the count its start declared


def test_a_stale_run_in_progress_is_not_counted_and_is_said() -> None:
    state = earlier(
        [running(10, A, age=STALE_AFTER + timedelta(minutes=1)), running(11, B)], mine=11
    )
    assert state.looks == ()
    assert state.warning is not None and "taken for a stopped run" in state.warning
    fresh = earlier(
        [running(10, A, age=STALE_AFTER - timedelta(minutes=1)), running(11, B)], mine=11
    )
    assert commits(fresh) == ["a"]


def test_a_run_that_compared_nothing_is_not_a_look() -> None:
    assert earlier([nothing(10, A), running(11, B)], mine=11).looks == ()


def test_a_record_that_cannot_be_read_counts_fail_closed() -> None:
    state = earlier([unreadable(10, A), running(11, B)], mine=11)
    assert commits(state) == ["a"]
    assert commits(state, holdout=True) == ["a"]  # of unknown kind: counts for both
    assert state.looks[0].fingerprint == UNKNOWN_FINGERPRINT
    assert (
        state.warning is not None and "#10 on aaaaaaa carries no readable record" in state.warning
    )


def test_a_record_naming_another_commit_is_taken_as_unreadable() -> None:
    ticket = replace(done(10, A), sha=B)
    state = earlier([ticket, running(11, C)], mine=11)
    assert commits(state) == ["b"]
    assert state.looks[0].fingerprint == UNKNOWN_FINGERPRINT
    assert state.warning is not None and "records another commit" in state.warning


def test_a_completed_run_with_only_its_start_counts() -> None:
    start = running(10, A)
    state = earlier([replace(start, running=False), running(11, B)], mine=11)
    assert commits(state) == ["a"]
    assert state.looks[0].fingerprint == ITEMS
    assert state.warning is not None and "ended without a record of its verdict" in state.warning


def test_re_runs_are_one_look() -> None:
    state = earlier([done(10, A), done(12, A), done(14, B), running(15, A)], mine=15)
    # this run on A: the policy finds A's look first and calls it a re-run of look 1
    assert commits(state) == ["a", "b"]


def test_an_amended_commit_with_the_same_tree_is_the_same_look() -> None:
    """A look at A and one at B, whose tree is A's (``git commit --amend`` without a change):
    one look, the change (the tree) judged twice."""
    trees = {A: "7" * 40, B: "7" * 40, C: "8" * 40}
    state = count_looks(
        [done(10, A), done(11, B), done(12, C)], mine=13, claims=State(), now=NOW, trees=trees
    )
    assert [(lk.head_sha[0], lk.change) for lk in state.looks] == [("a", "7" * 40), ("c", "8" * 40)]


def test_holdout_looks_are_their_own_count() -> None:
    state = earlier([done(10, A, holdout=True), done(11, B), running(12, C)], mine=12)
    assert commits(state) == ["b"]
    assert commits(state, holdout=True) == ["a"]
    assert state.holdout_uses == 1


def test_claims_without_any_ticket_count_and_are_said() -> None:
    """evalbot's comment records a look at A (force-pushed away, or from before the ledger),
    and A has no ticket: fail closed, it counts."""
    claims = State(looks=(look(A),), holdout_uses=0)
    state = earlier([running(11, B)], mine=11, claims=claims)
    assert commits(state) == ["a"]
    assert state.warning is not None and "that no check run confirms: counted" in state.warning


def test_records_never_cancel_a_look_and_their_disagreement_is_a_finding() -> None:
    """A's check run was rewritten to say it compared nothing, while evalbot's comment still
    holds the look: the look counts, and the disagreement is a finding. A claim on a later
    ticket's commit is not earlier."""
    claims = State(looks=(look(A), look(C)))
    state = earlier([nothing(10, A), running(11, B), done(12, C)], mine=11, claims=claims)
    assert state.looks == (look(A),)
    assert state.findings == (
        "evalbot's comment records a verdict on aaaaaaa that #10 says compared nothing",
    )


def test_a_comments_placeholder_is_no_record_of_a_verdict() -> None:
    """A run counted another one still in progress as a look not on record, and its comment
    says so; that run later compared nothing. Its ticket decides: no look, no finding."""
    pending = placeholder(A, holdout=False, fingerprint=ITEMS, items=400, at=NOW)
    state = earlier([nothing(10, A), running(12, B)], mine=12, claims=State(looks=(pending,)))
    assert (state.looks, state.findings) == ((), ())


def test_a_verdict_recorded_two_ways_is_a_finding() -> None:
    """The same look (same items, same time) with another outcome in the comment than in the
    check run: one of them was rewritten."""
    claims = State(looks=(look(A, outcome="regression"),))
    state = earlier([done(10, A), running(11, B)], mine=11, claims=claims)
    assert [lk.outcome for lk in state.looks] == ["improvement"]
    assert state.findings == (
        "evalbot's comment and a check run record different verdicts on aaaaaaa "
        "(regression, improvement)",
    )


def test_a_check_whose_conclusion_is_not_its_record_is_a_finding() -> None:
    """A workflow holding evalbot's token turned a failed check into success: the digest
    still records failure."""
    digest = Digest(kind="look", look=look(A, outcome="regression"), conclusion="failure")
    patched = Ticket(id=10, sha=A, running=False, digest=digest, conclusion="success", source="#10")
    state = earlier([patched, running(11, B)], mine=11)
    assert state.findings == ("#10 on aaaaaaa concluded success, but its record says failure",)
    honest = replace(patched, conclusion="failure")
    assert earlier([honest, running(11, B)], mine=11).findings == ()


def test_a_count_below_a_recorded_look_number_is_a_finding() -> None:
    """B's record says it was look 3: two earlier looks' records are gone (force-pushed away
    with the comment deleted), one is left. A run stopped long ago explains a missing look."""
    third = Ticket(
        id=12,
        sha=B,
        running=False,
        digest=Digest(kind="look", look=replace(look(B), number=3)),
        source="#12",
    )
    state = earlier([done(10, A), third, running(13, C)], mine=13)
    assert state.most == 3
    assert state.findings == (
        "a record holds look 3 of this change, 2 found: the records of 1 are gone",
    )
    stale = running(9, D, age=timedelta(hours=7))
    assert earlier([stale, done(10, A), third, running(13, C)], mine=13).findings == ()


def test_claims_give_the_details_the_ledger_lacks() -> None:
    """A status (personal token) says only that A was looked at; the comment says how."""
    opaque = Ticket(
        id=10, sha=A, running=False, started_at=NOW, opaque=True, holdout=False, source="status"
    )
    state = earlier([opaque, running(11, B)], mine=11, claims=State(looks=(look(A),)))
    assert state.looks == (look(A),)
    assert state.warning is None  # no details is what a status is, not a warning


def test_an_empty_claim_takes_nothing_away() -> None:
    state = earlier([done(10, A), running(11, B)], mine=11, claims=State(looks=(), holdout_uses=0))
    assert commits(state) == ["a"]


def test_holdout_uses_are_the_most_of_ledger_and_claims() -> None:
    claims = State(holdout_uses=5)
    assert earlier([done(10, A, holdout=True)], mine=11, claims=claims).holdout_uses == 5
    assert (
        earlier([done(10, A, holdout=True), done(11, B, holdout=True)], mine=12).holdout_uses == 2
    )


def test_without_a_ticket_of_its_own_every_run_listed_is_earlier() -> None:
    """A read-only token (a fork's pull_request job) cannot take a ticket."""
    assert commits(earlier([done(10, A), running(11, B)], mine=None)) == ["a", "b"]


def test_placeholders_show_when_they_started() -> None:
    assert placeholder(A, holdout=False, at=NOW).at == "2026-03-01T12:00:00Z"
    assert placeholder(A, holdout=False).at == "1970-01-01T00:00:00Z"


# ---- the look digest a check run carries ----

LOOK = look(A)
GOOD_LOOK = {
    "head_sha": A,
    "items": 400,
    "fingerprint": ITEMS,
    "pvalue": 0.01,
    "outcome": "improvement",
    "at": "2026-03-01T10:00:00Z",
    "holdout": False,
}


@pytest.mark.parametrize(
    "digest",
    [
        Digest(kind="none", look=placeholder(A, holdout=True)),
        Digest(kind="start", look=placeholder(A, holdout=False, fingerprint="cd" * 32, items=12)),
        Digest(
            kind="look",
            look=replace(LOOK, metric="pass_rate", effect=0.04, effect_ci=(0.01, 0.07)),
        ),
    ],
)
def test_digests_round_trip(digest: Digest) -> None:
    text = render_digest(digest)
    assert text.startswith(f"<!-- {DIGEST_MARKER} ") and "\n" not in text
    assert parse_digest(text) == digest
    assert parse_digest(f"\n{text}\n") == digest


def _digest(payload: object) -> str:
    return f"<!-- {DIGEST_MARKER} {base64.b64encode(json.dumps(payload).encode()).decode()} -->"


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "a check run's own text",
        "report text\n" + render_digest(Digest(kind="none", look=placeholder(A, holdout=False))),
        _digest({"v": 2, "kind": "none", "head_sha": A, "holdout": False}),
        _digest({"v": True, "kind": "none", "head_sha": A, "holdout": False}),
        _digest({"v": 1, "kind": "peek", "head_sha": A, "holdout": False}),
        _digest({"v": 1, "kind": "none", "head_sha": "zz", "holdout": False}),
        _digest({"v": 1, "kind": "none", "head_sha": A, "holdout": "no"}),
        _digest({"v": 1, "kind": "start", "head_sha": A, "holdout": False}),
        _digest({"v": 1, "kind": "look", **GOOD_LOOK, "pvalue": 7}),
        _digest({"v": 1, "kind": "look", **GOOD_LOOK, "recorded": False}),
        f"<!-- {DIGEST_MARKER} !!!! -->",
        f"<!-- {DIGEST_MARKER} " + "A" * 20_000 + " -->",
        f"<!-- {DIGEST_MARKER} " + base64.b64encode(b"[" * 5000).decode() + " -->",
    ],
)
def test_malformed_digests_read_as_none(text: str | None) -> None:
    assert parse_digest(text) is None


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_digest_text_is_safe(text: str) -> None:
    for candidate in (text, f"<!-- {DIGEST_MARKER} {text} -->"):
        parsed = parse_digest(candidate)
        assert parsed is None or isinstance(parsed, Digest)


# ---- the comment's state block ----------------------------------------------------------

LOOK = Look(
    head_sha="0123456789abcdef0123456789abcdef01234567",
    items=400,
    fingerprint="ab" * 32,
    pvalue=0.016,
    outcome="improvement",
    at="2026-11-30T09:00:00Z",
)


V1 = "evalbot-state:v1"  # a block of the JSON as it is, as evalbot wrote before v2


def block(payload: object) -> str:
    raw = json.dumps(payload).encode()
    return f"<!-- {V1} {base64.b64encode(raw).decode()} -->"


def v2_block(raw: bytes) -> str:
    return f"<!-- {STATE_MARKER} {base64.b64encode(raw).decode()} -->"


def json_of(text: str) -> object:
    """The JSON a v2 block holds."""
    return json.loads(zlib.decompress(base64.b64decode(text.split()[2])))


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
    assert text.startswith(f"<!-- {STATE_MARKER} ") and text.endswith(" -->") and "\n" not in text
    assert parse_state("comment text\n\n" + text + "\n") == state
    assert parse_state(text).holdout_uses == 1


EFFECT = {"metric": "pass_rate", "effect": 0.0425, "effect_ci": [0.01, 0.075]}


def test_effect_round_trips_and_is_written_beside_the_v1_fields() -> None:
    look = replace(LOOK, metric="pass_rate", effect=0.0425, effect_ci=(0.01, 0.075))
    text = render_state(with_look(State(), look))
    assert parse_state(text).looks == (look,)
    assert json_of(text) == good(**EFFECT)


def test_a_v1_look_without_effect_still_reads() -> None:
    (look,) = parse_state(block(good())).looks
    assert look == LOOK and look.effect is None and look.effect_ci is None


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_a_non_finite_effect_is_left_out(value: float) -> None:
    look = replace(LOOK, metric="mean_score", effect=value, effect_ci=(0.0, 1.0))
    data = json_of(render_state(with_look(State(), look)))
    assert data == good()


def test_format_is_deflated_base64_json() -> None:
    assert json_of(render_state(with_look(State(), LOOK))) == good()


@pytest.mark.parametrize("body", [None, "", "no block here", "<!-- evalbot:marker -->"])
def test_no_block_is_an_empty_state(body: str | None) -> None:
    assert parse_state(body) == State()


@pytest.mark.parametrize(
    ("body", "warning"),
    [
        (f"<!-- {STATE_MARKER} !!!! -->", "unreadable or of another version"),
        (f"<!-- {V1} bm90IGpzb24= -->", "not valid base64 JSON"),
        ("<!-- evalbot-state:v3 e30= -->", "unreadable or of another version"),
        (v2_block(b"not zlib"), "the block is not zlib data"),
        (v2_block(zlib.compress(b"not json")), "not valid base64 JSON"),
        (v2_block(zlib.compress(json.dumps(good()).encode())[:-8]), "the block is cut"),
        (v2_block(zlib.compress(json.dumps(good(head_sha="x")).encode())), "`head_sha` is not"),
        (v2_block(zlib.compress(json.dumps({**good(), "left_out": -1}).encode())), "`left_out`"),
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
        (block(good(items=True)), "`items` is missing or has the wrong type"),
        (block(good(pvalue=2)), "`pvalue` is not in [0, 1]"),
        (block(good(outcome="victory")), "`outcome` is unknown"),
        (block(good(effect=0.1)), "`metric`, `effect` and `effect_ci` go together"),
        (block(good(**{**EFFECT, "metric": "accuracy"})), "`metric` is unknown"),
        (block(good(**{**EFFECT, "metric": 3})), "`metric` is unknown"),
        (block(good(**{**EFFECT, "metric": ["pass_rate"]})), "`metric` is unknown"),
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
            f"<!-- {V1} "
            + base64.b64encode(
                json.dumps(good(**EFFECT)).replace("0.0425", "NaN").encode()
            ).decode()
            + " -->",
            "non-finite number NaN",
        ),
        (block(good(at="yesterday")), "`at` is not an ISO 8601 time"),
        (block(good(holdout="yes")), "`holdout` is missing or has the wrong type"),
        (block({"v": 1, "looks": [{}] * 1001}), "too many looks"),
        (
            f"<!-- {V1} " + base64.b64encode(b'{"v": 1, "looks": [], "x": NaN}').decode() + " -->",
            "non-finite number NaN",
        ),
        (
            f"<!-- {V1} " + base64.b64encode(b"[" * 50_000 + b"]" * 50_000).decode() + " -->",
            "not valid base64 JSON",  # nested too deeply
        ),
        (
            f"<!-- {STATE_MARKER} " + base64.b64encode(b" " * 300_000).decode() + " -->",
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
    state = parse_state(f"<!-- {V1} {payload} -->")
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
    assert isinstance(parse_state(f"<!-- {STATE_MARKER} {body} -->"), State)


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
        for version in (V1, STATE_MARKER):
            body = f"<!-- {version} {base64.b64encode(data).decode()} -->"
            assert isinstance(parse_state(body), State)
        assert isinstance(parse_state(v2_block(zlib.compress(data))), State)
    looks = {"v": 1, "looks": [value], "holdout_uses": 0}
    assert isinstance(parse_state(block(looks)), State)


# ---- hostile text (timed against a tenth of its size in bench/bench_hostile.py) ----


def hostile_bodies(n: int = 100_000) -> list[str]:
    """Comment bodies of about ``n`` characters built to make a scan quadratic."""
    return [
        f"<!-- {STATE_MARKER} " + " " * n,  # a block that never closes, padded with spaces
        f"<!-- {STATE_MARKER} " + " \t\n" * (n // 3 + 1) + "x -->",
        f"<!-- {STATE_MARKER}" + " A" * (n // 2),
        "<!--" * (n // 4),
        "<!-- " * (n // 5) + "evalbot-state:v1 ",
        f"<!-- {STATE_MARKER} A" * (n // 20) + " -->",
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
    assert json_of(text)["looks"][0]["recorded"] is False
    assert parse_state(block(good(recorded="no"))).warning == (
        "the state block was ignored: `recorded` is missing or has the wrong type"
    )


def test_a_v1_block_as_evalbot_wrote_it_is_still_read() -> None:
    full = replace(
        LOOK,
        metric="pass_rate",
        effect=0.0425,
        effect_ci=(0.01, 0.075),
        tree=B,
        number=2,
        pull=7,
        base_ref="main",
        base_sha=C,
        plan=D,
        run=11,
        comment=12,
        holdout=True,
    )
    data = {"v": 1, "looks": [look_json(LOOK), look_json(full)], "holdout_uses": 1}
    state = parse_state("### ✅ Improvement\n\n" + block(data) + "\n")
    assert state == State(looks=(LOOK, full), holdout_uses=1)


def test_a_block_that_inflates_too_far_is_refused_within_its_bound() -> None:
    """An edited comment's zip bomb: a few kilobytes of zlib data that would inflate to
    50 MB. Never more than ``MAX_INFLATED`` bytes are inflated."""
    bomb = zlib.compress(b'{"v": 1, "looks": [], "x": "' + b"A" * (50 * MAX_INFLATED), 9)
    body = v2_block(bomb)
    assert len(body) < MAX_INFLATED // 10
    tracemalloc.start()
    try:
        state = parse_state(body)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert state == State(warning="the state block was ignored: the block is too large inflated")
    assert peak < 4 * MAX_INFLATED


def many_looks(count: int) -> tuple[Look, ...]:
    """Looks on commits as random as real ones (they compress as real ones do)."""
    shas = [hashlib.sha256(str(n).encode()).hexdigest() for n in range(2 * count)]
    return tuple(
        replace(LOOK, head_sha=shas[2 * n][:40], tree=shas[2 * n + 1][:40], number=n + 1, run=n + 1)
        for n in range(count)
    )


@pytest.mark.parametrize("max_chars", [200, 2_000, 20_000])
def test_the_block_keeps_the_newest_looks_within_its_budget_and_says_so(max_chars: int) -> None:
    looks = many_looks(1_000)
    text = render_state(State(looks=looks, holdout_uses=3), max_chars)
    assert len(text) <= max_chars
    state = parse_state(text)
    kept = len(state.looks)
    assert state.looks == looks[1_000 - kept :] and state.holdout_uses == 3
    assert (kept > 0) == (max_chars > 200) and kept < 1_000
    assert state.warning == (
        f"the state block left out its {1_000 - kept} oldest looks to fit GitHub's size limit"
    )


def test_looks_that_fit_are_all_kept_without_a_warning() -> None:
    looks = many_looks(300)
    text = render_state(State(looks=looks))
    assert len(text) <= MAX_STATE_BLOCK_CHARS
    assert parse_state(text) == State(looks=looks)
