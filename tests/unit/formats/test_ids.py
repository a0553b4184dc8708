"""The one reader of id lists (``all_ids``, ``policy.items_file``, ``holdout.ids_file``):
a table of (file content, ids or the exact message)."""

from __future__ import annotations

import pytest

from evalbot.errors import ConfigError, InputError
from evalbot.formats.ids import parse_id_list
from evalbot.plan.config import parse_config


@pytest.mark.parametrize(
    ("content", "ids"),
    [
        ("a\nb\nc\n", ("a", "b", "c")),
        ("  a \r\n\n\tb\n", ("a", "b")),  # white space around ids, blank lines, CRLF
        ('["x", "y"]', ("x", "y")),
        ('[{"instance_id": "x"}, "y"]', ("x", "y")),
        ('{"instance_id": "x"}\n{"instance_id": "y"}\n', ("x", "y")),
        ("#1\n@octocat\n", ("#1", "@octocat")),  # no comment syntax: every line is an id
        ("a\u2028b\n", ("a\u2028b",)),  # lines end at \n only, as in JSON Lines
        (b"\xef\xbb\xbfa\nb\n", ("a", "b")),  # bytes with a UTF-8 BOM
    ],
)
def test_accepted_shapes(content: str | bytes, ids: tuple[str, ...]) -> None:
    assert parse_id_list(content, source="ids.txt") == ids


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "ids.txt: lists no item ids (one id per line)"),
        ("\n  \n", "ids.txt: lists no item ids (one id per line)"),
        ("[]", "ids.txt: lists no item ids (one id per line)"),
        ("a\nb\na\n", "ids.txt:3: item id 'a' repeats line 1"),
        ('["a", "b", "b"]', "ids.txt: entry 3: item id 'b' repeats entry 2"),
        ('["a", 3]', "ids.txt: entry 2: expected an item id, got 3"),
        ('[{"id": "a"}]', "ids.txt: entry 1: has no `instance_id`"),
        ('a\n{"instance_id": 1}\n', "ids.txt:2: has no `instance_id`"),
        (
            "a\n{oops\n",
            "ids.txt:2: not valid JSON (Expecting property name enclosed in double quotes)",
        ),
        ("[1,", "ids.txt:1: not valid JSON (Expecting value)"),
        (b"a\n\xff\n", "ids.txt:2: not valid UTF-8 (byte offset 2)"),
    ],
)
def test_refused_with_one_line(content: str | bytes, message: str) -> None:
    with pytest.raises(InputError) as raised:
        parse_id_list(content, source="ids.txt")
    assert str(raised.value) == message


def test_the_plan_reads_id_files_with_the_same_reader_as_config_errors() -> None:
    import hashlib

    files = {"items.json": '["b", "a"]', "dup.txt": "a\nb\na\n"}
    config = parse_config(
        "policy: {items_file: items.json}", "c.yml", read_text=lambda name: files[name]
    )
    # the fingerprint of the sorted ids, each followed by "\n", computed here with hashlib
    assert config.policy.items_sha256 == hashlib.sha256(b"a\nb\n").hexdigest()
    with pytest.raises(ConfigError) as raised:
        parse_config("policy: {items_file: dup.txt}", "c.yml", read_text=lambda name: files[name])
    assert str(raised.value) == "dup.txt (`policy.items_file`):3: item id 'a' repeats line 1"
