"""Archives are untrusted: escaping paths, symlinks, encryption and zip bombs are refused."""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path

import pytest

from evalbot.errors import InputError
from evalbot.formats.archive import Archive, ArchiveBudget
from evalbot.formats.model import ReadOptions
from evalbot.formats.sources import load_results, merge, parse_zip

DATA = Path(__file__).resolve().parents[2] / "data"


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
    budget = ArchiveBudget(max_bytes=max_bytes, max_members=max_members)
    archive = Archive(data, source="a.zip", budget=budget)
    for member in archive.members:
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
        merge(shards)
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
    from evalbot.formats import parse_any

    with pytest.raises(InputError, match=r"^run\.eval: archive expands to more than 1000 bytes"):
        parse_any("run.eval", log, ReadOptions(max_archive_bytes=1000))


# --- one budget for the whole artifact, nested archives included ----------------------------------


def eval_log(padding: int, samples: int = 1) -> bytes:
    """An inspect `.eval` whose samples are padded with spaces (which deflate to almost nothing)."""
    members = {
        "header.json": b'{"version": 2, "status": "success", "eval": {"task": "t"}}',
    }
    for number in range(1, samples + 1):
        sample = {"id": number, "epoch": 1, "scores": {"m": {"value": "C"}}}
        members[f"samples/{number}_epoch_1.json"] = json.dumps(sample).encode() + b" " * padding
    return make_zip(members)


def test_nested_eval_logs_share_the_artifacts_byte_budget() -> None:
    log = eval_log(300_000)
    assert len(log) < 2_000  # 300 KB of padding deflates to a few hundred bytes
    artifact = make_zip({f"run{i}.eval": log for i in range(5)})
    options = ReadOptions(max_archive_bytes=1_000_000)
    # Each log alone is well within the limit ...
    assert len(parse_zip("one.zip", make_zip({"run0.eval": log}), options)) == 1
    # ... but five of them inflate about 1.5 MB together (the old reader gave each nested log
    # the whole limit again).
    with pytest.raises(InputError) as caught:
        parse_zip("art.zip", artifact, options)
    assert str(caught.value).startswith("art.zip!run3.eval: ")
    assert "archive expands to more than 1000000 bytes" in str(caught.value)


def test_nested_eval_logs_share_the_artifacts_entry_budget() -> None:
    log = eval_log(0, samples=40)  # 41 entries
    artifact = make_zip({f"run{i}.eval": log for i in range(3)})
    options = ReadOptions(max_archive_members=100)
    assert len(parse_zip("art.zip", make_zip({"run0.eval": log}), options)) == 1
    with pytest.raises(InputError) as caught:
        parse_zip("art.zip", artifact, options)
    # 3 entries of the artifact + 41 + 41, then 41 more would be 126
    assert str(caught.value) == (
        "art.zip!run2.eval: archive holds 41 members (with the archives read before it), more "
        "than the limit of 100"
    )


def test_each_file_on_the_command_line_gets_its_own_budget(tmp_path: Path) -> None:
    log = eval_log(300_000)
    for i in range(3):
        (tmp_path / f"run{i}.eval").write_bytes(log)
    for i in range(3):  # each file ~300 KB inflated, under the 400 KB limit on its own
        results = load_results(
            str(tmp_path / f"run{i}.eval"), ReadOptions(max_archive_bytes=400_000)
        )
        assert len(results) == 1


def central_directory_zip(
    entries: int, *, declared: int | None = None, corrupt_last: bool = False
) -> bytes:
    """A ZIP of ``entries`` empty stored files, written by hand (zipfile would take seconds):
    one local header and a central directory whose entries all point at it. ``declared``
    overrides the count in the end records; ``corrupt_last`` breaks the last entry's
    signature, so a reader that parsed the whole directory would fail there."""
    name = b"a"
    local = (
        struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0) + name
    )
    entry = (
        struct.pack(
            "<4sHHHHHHIIIHHHHHII",
            b"PK\x01\x02",
            20,
            20,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            len(name),
            0,
            0,
            0,
            0,
            0,
            0,
        )
        + name
    )
    directory = bytearray(entry * entries)
    if corrupt_last:
        directory[-len(entry) : -len(entry) + 4] = b"XXXX"
    count = entries if declared is None else declared
    offset = len(local)
    zip64_at = offset + len(directory)
    zip64 = struct.pack(
        "<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, len(directory), offset
    )
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, zip64_at, 1)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return local + bytes(directory) + zip64 + locator + end


def test_hand_written_zip_is_a_valid_zip() -> None:
    data = central_directory_zip(3)
    assert len(zipfile.ZipFile(io.BytesIO(data)).infolist()) == 3


def test_a_million_entry_zip_is_refused_before_its_directory_is_parsed() -> None:
    data = central_directory_zip(1_000_000, corrupt_last=True)
    # Had zipfile parsed the directory, it would stop at the broken last entry ("Bad magic
    # number for central directory") after building 999,999 entries; the count comes first.
    assert refusal(data, max_members=100_000) == (
        "a.zip: archive holds 1000000 members, more than the limit of 100000"
    )


def test_an_end_record_that_understates_the_count_is_caught() -> None:
    data = central_directory_zip(500, declared=2)
    assert refusal(data, max_members=100) == (
        "a.zip: archive holds 500 members, more than the limit of 100"
    )
