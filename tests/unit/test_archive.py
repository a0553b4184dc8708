"""Archives are untrusted: escaping paths, symlinks, encryption and zip bombs are refused."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from evalbot.errors import InputError
from evalbot.results.archive import Archive
from evalbot.results.options import ReadOptions
from evalbot.results.sources import load_results, merge, parse_zip

DATA = Path(__file__).resolve().parent.parent / "data"


def make_zip(members: dict[str, bytes], *, symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if name == symlink:
                info.external_attr = 0o120777 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def set_encrypted_flag(data: bytes) -> bytes:
    """Set bit 0 of the general-purpose flags in the local and central headers."""
    out = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = out.find(signature)
        (flags,) = struct.unpack_from("<H", out, at + offset)
        struct.pack_into("<H", out, at + offset, flags | 0x1)
    return bytes(out)


def lie_about_size(data: bytes, size: int) -> bytes:
    """Rewrite the uncompressed size in both headers (a zip bomb's trick)."""
    out = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = out.find(signature)
        struct.pack_into("<I", out, at + offset, size)
    return bytes(out)


ROW = b'{"id": "a", "passed": true}\n'


def open_and_read_all(data: bytes, max_bytes: int, max_members: int) -> None:
    archive = Archive(data, source="a.zip", max_bytes=max_bytes, max_members=max_members)
    for member in archive.members():
        archive.read(member)


def refusal(data: bytes, *, max_bytes: int = 1 << 20, max_members: int = 100) -> str:
    with pytest.raises(InputError) as caught:
        open_and_read_all(data, max_bytes, max_members)
    return str(caught.value)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            make_zip({"../evil.jsonl": ROW}),
            "a.zip: member '../evil.jsonl' has a path outside the archive",
        ),
        (
            make_zip({"/etc/evil.jsonl": ROW}),
            "a.zip: member '/etc/evil.jsonl' has a path outside the archive",
        ),
        (
            make_zip({"ok/../../evil.jsonl": ROW}),
            "a.zip: member 'ok/../../evil.jsonl' has a path outside the archive",
        ),
        (
            make_zip({"C:/evil.jsonl": ROW}),
            "a.zip: member 'C:/evil.jsonl' has a path outside the archive",
        ),
        (
            make_zip({"link.jsonl": b"/etc/passwd"}, symlink="link.jsonl"),
            "a.zip: member 'link.jsonl' is a symlink",
        ),
        (set_encrypted_flag(make_zip({"r.jsonl": ROW})), "a.zip: member 'r.jsonl' is encrypted"),
        (b"PK\x03\x04 not really", "a.zip: not a valid ZIP archive (File is not a zip file)"),
    ],
)
def test_hostile_members_are_refused(data: bytes, expected: str) -> None:
    assert refusal(data) == expected


def test_declared_size_over_the_limit() -> None:
    data = make_zip({"a.jsonl": ROW * 100, "b.jsonl": ROW * 100})
    assert refusal(data, max_bytes=4000) == (
        "a.zip: archive expands to more than 4000 bytes (at member 'b.jsonl')"
    )


def test_too_many_members() -> None:
    data = make_zip({f"{i}.jsonl": ROW for i in range(5)})
    assert refusal(data, max_members=4) == (
        "a.zip: archive holds 5 members, more than the limit of 4"
    )


def test_a_lying_size_header_is_caught_while_reading() -> None:
    bomb = make_zip({"r.jsonl": b"0" * 1_000_000})
    message = refusal(lie_about_size(bomb, 10), max_bytes=100)
    assert message.startswith("a.zip: member 'r.jsonl': ")


def test_zip_of_shards_is_merged(tmp_path: Path) -> None:
    data = make_zip(
        {
            "run/one.jsonl": ROW,
            "run/two.jsonl": b'{"id": "b", "passed": false}\n',
            "run/notes.txt": b"not results",
            "run/": b"",
        }
    )
    path = tmp_path / "artifact.zip"
    path.write_bytes(data)
    results = load_results(str(path), ReadOptions())
    assert results.ids == ["a", "b"]
    assert results.source == f"{path}!run/one.jsonl, {path}!run/two.jsonl"


def test_duplicates_across_shards_in_a_zip() -> None:
    data = make_zip({"one.jsonl": ROW, "two.jsonl": ROW})
    shards = parse_zip("a.zip", data, ReadOptions())
    assert len(shards) == 2
    with pytest.raises(InputError) as caught:
        merge(shards, "a.zip")
    assert str(caught.value) == (
        "a.zip!two.jsonl:1: duplicate item 'a' (first seen at a.zip!one.jsonl:1); repeats need "
        "an `epoch` field"
    )


def test_zip_holding_inspect_eval_logs() -> None:
    log = (DATA / "inspect_ai" / "log_streaming.eval").read_bytes()
    shards = parse_zip("logs.zip", make_zip({"logs/run.eval": log}), ReadOptions())
    assert len(shards[0]) == 4


def test_empty_and_nested_archives() -> None:
    with pytest.raises(InputError, match=r"^a\.zip: archive holds no result files"):
        parse_zip("a.zip", make_zip({"x.txt": b""}), ReadOptions())
    with pytest.raises(InputError, match=r"^a\.zip!in\.zip: archives inside archives"):
        parse_zip("a.zip", make_zip({"in.zip": make_zip({"r.jsonl": ROW})}), ReadOptions())


def test_inspect_eval_archive_limit() -> None:
    log = (DATA / "inspect_ai" / "log_streaming.eval").read_bytes()
    from evalbot.results.formats import parse_any

    with pytest.raises(InputError, match=r"^run\.eval: archive expands to more than 1000 bytes"):
        parse_any("run.eval", log, ReadOptions(max_archive_bytes=1000))
