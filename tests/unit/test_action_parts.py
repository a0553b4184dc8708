"""The action's local parts: the artifact reader, the comment's history."""

from __future__ import annotations

import hashlib
import io
import stat
import zipfile
from dataclasses import replace
from typing import Any

import pytest

from evalbot.action import history_rows, load_results_from_zip
from evalbot.errors import InputError
from evalbot.formats.model import ReadOptions
from evalbot.github.client import fit
from evalbot.limits import MAX_COMMENT_CHARS
from evalbot.plan.ledger import Look, State, parse_state, render_state
from evalbot.report.render import render_notice

# ---- the artifact reader (results.sources.parse_zip with the action's limits) ----


def zip_of(*members: tuple[zipfile.ZipInfo | str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in members:
            archive.writestr(info, data)
    return buffer.getvalue()


def symlink(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def load(data: bytes, max_total: int = 100) -> list[str]:
    return load_results_from_zip(data, "art", ReadOptions(), max_total=max_total).ids


def test_artifact_shards_are_read_in_memory_in_name_order_and_merged() -> None:
    data = zip_of(
        ("b/2.jsonl", b'{"id": "b", "passed": true}\n'),
        ("a.jsonl", b'{"id": "a", "passed": false}\n'),
        ("dir/", b""),
        ("notes.txt", b"not results"),
    )
    results = load_results_from_zip(data, "art", ReadOptions(), max_total=1000)
    assert results.ids == ["a", "b"]
    assert results.source == "art!a.jsonl, art!b/2.jsonl"


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ((("../x.jsonl", b"1"),), "art: member '../x.jsonl' has a path outside the archive"),
        ((("/etc/x", b"1"),), "art: member '/etc/x' has a path outside the archive"),
        ((("C:/x", b"1"),), "art: member 'C:/x' has a path outside the archive"),
        (((symlink("link.jsonl"), b"/etc/passwd"),), "art: member 'link.jsonl' is a symlink"),
        (
            (("big.jsonl", b"0" * 1000),),
            "art: archive expands to more than 100 bytes (at member 'big.jsonl')",
        ),
        (
            (("a.jsonl", b"0" * 60), ("b.jsonl", b"0" * 60)),
            "art: archive expands to more than 100 bytes (at member 'b.jsonl')",
        ),
        (
            (("in.zip", b"PK\x05\x06" + b"\0" * 18),),
            "art!in.zip: archives inside archives are not read",
        ),
        ((("x.txt", b""),), "art: archive holds no result files"),
    ],
)
def test_hostile_zips_are_refused(
    members: tuple[tuple[zipfile.ZipInfo | str, bytes], ...], message: str
) -> None:
    with pytest.raises(InputError) as info:
        load(zip_of(*members))
    assert str(info.value).startswith(message)


def test_the_member_count_is_limited() -> None:
    data = zip_of(*((f"{i}.jsonl", b"") for i in range(10_001)))
    with pytest.raises(InputError, match=r"^art: archive holds 10001 members, more than the limit"):
        load(data, max_total=10**6)


def test_a_lying_size_header_is_caught_while_reading() -> None:
    data = bytearray(zip_of(("bomb.jsonl", b"0" * 5000)))
    # shrink the declared uncompressed size in the central directory (offset 24 of the entry)
    central = data.rfind(b"PK\x01\x02")
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    with pytest.raises(InputError, match=r"^art: member 'bomb\.jsonl': "):
        load(bytes(data))


def test_not_a_zip() -> None:
    with pytest.raises(InputError, match=r"^art: not a valid ZIP archive"):
        load(b"nope")


# ---- the comment's history ----


def look(sha: str, outcome: str, *, holdout: bool = False, **effect: Any) -> Look:
    return Look(
        head_sha=sha * 40,
        items=4,
        fingerprint="f" * 64,
        pvalue=0.03,
        outcome=outcome,
        at="2026-01-01T00:00:00Z",
        holdout=holdout,
        **effect,
    )


def test_history_rows_are_newest_first_and_linked() -> None:
    looks = [look("a", "regression"), look("b", "improvement", holdout=True)]
    rows = history_rows(looks, commit_url="https://github.com/o/r/commit/")
    assert [(r.label, r.outcome, r.pvalue, r.commit) for r in rows] == [
        ("2 (sealed holdout)", "✅ Improvement", "0.030", "bbbbbbb"),
        ("1", "❌ Regression", "0.030", "aaaaaaa"),
    ]
    assert rows[1].url == "https://github.com/o/r/commit/" + "a" * 40
    assert len(history_rows([look("c", "regression")] * 30)) == 20


def test_history_rows_show_each_looks_effect_and_time() -> None:
    looks = [
        # a block written before looks kept their effect
        replace(look("a", "regression"), at="2026-11-30T10:15:00+01:00"),
        look("b", "improvement", metric="pass_rate", effect=0.0425, effect_ci=(0.01, 0.075)),
        look("c", "regression", metric="mean_score", effect=-0.0432, effect_ci=(-0.07, -0.0151)),
    ]
    rows = history_rows(looks)
    # report.format_effect: pp with one decimal for pass rates, three decimals for scores
    assert [(r.label, r.effect, r.at) for r in rows] == [
        ("3", "-0.043 [-0.070, -0.015]", "2026-01-01 00:00 UTC"),
        ("2", "+4.2 pp [1.0, 7.5]", "2026-01-01 00:00 UTC"),
        ("1", "—", "2026-11-30 09:15 UTC"),
    ]


def test_a_notice_keeps_marker_earlier_looks_and_state() -> None:
    looks = (look("a", "regression"),)
    state = render_state(State(looks=looks))
    body = render_notice(
        "No baseline yet",
        "Nothing to compare with " + "x" * 100_000,
        marker="<!-- evalbot:e -->",
        state_block=state,
        history=history_rows(list(looks)),
        max_chars=65_536,
    )
    assert len(body) <= 65_536
    assert body.startswith("<!-- evalbot:e -->\n### ➖ No baseline yet\n")
    assert "cut here to fit" in body
    assert body.rstrip().endswith(state)
    short = render_notice(
        "No baseline yet",
        "Nothing.",
        marker="<!-- evalbot:e -->",
        history=history_rows(list(looks)),
    )
    assert "Earlier looks: 1" in short
    assert (
        "| 1 | ❌ Regression | — | 0\\.030 | aaaaaaa | 2026\\-01\\-01 00\\:\u206000 UTC |" in short
    )


def test_a_look_not_on_record_shows_no_result() -> None:
    from evalbot.plan.ledger import placeholder

    rows = history_rows([placeholder("c" * 40, holdout=False), look("a", "regression")])
    assert [(r.label, r.outcome, r.effect, r.pvalue, r.at) for r in rows] == [
        ("2", "❌ Regression", "—", "0.030", "2026-01-01 00:00 UTC"),
        ("1", "⏳ not on record", "—", "—", ""),
    ]


# ---- the comment's state block within GitHub's size limit ----


def realistic_look(n: int) -> Look:
    """Look ``n`` with every field a real record holds (shas and ids as random as real ones)."""
    hexes = [hashlib.sha256(f"{n}/{part}".encode()).hexdigest() for part in range(4)]
    return Look(
        head_sha=hexes[0][:40],
        tree=hexes[1][:40],
        items=400,
        fingerprint=hexes[2],
        pvalue=0.0123456789 + n / 1e6,
        outcome="regression",
        at=f"2026-11-{1 + n % 28:02d}T{n % 24:02d}:{n % 60:02d}:00Z",
        metric="pass_rate",
        effect=-0.0425 - n / 1e7,
        effect_ci=(-0.0751234 - n / 1e7, -0.0101234 + n / 1e7),
        number=n,
        pull=1234,
        base_ref="main",
        base_sha=hexes[3][:40],
        plan="b" * 40,
        run=12_345_678_901 + n,
        comment=2_345_678_901,
    )


@pytest.mark.parametrize("count", [1, 90, 150, 1_000])
def test_the_state_block_survives_the_comment_as_github_stores_it(count: int) -> None:
    """Many looks (a pull request force-pushed over and over): the comment stays within
    GitHub's limit and the next run reads every look back, or the newest with a warning."""
    looks = tuple(realistic_look(n) for n in range(1, count + 1))
    state = State(looks=looks, holdout_uses=2)
    body = render_notice(
        "No baseline yet",
        "Nothing to compare with.",
        marker="<!-- evalbot:e -->",
        state_block=render_state(state) + "\n<!-- evalbot-says:v1 " + "0" * 64 + " -->",
        history=history_rows(list(looks)),
        max_chars=MAX_COMMENT_CHARS,
    )
    stored = fit(body, MAX_COMMENT_CHARS, "comment")
    assert stored == body
    read = parse_state(stored)
    assert read.holdout_uses == 2
    kept = len(read.looks)
    assert read.looks == looks[count - kept :]
    if kept < count:
        assert read.warning == (
            f"the state block left out its {count - kept} oldest looks to fit GitHub's size limit"
        )
    else:
        assert read.warning is None
