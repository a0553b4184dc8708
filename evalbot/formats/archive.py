"""Read ZIP archives (``.zip`` shards, inspect_ai ``.eval`` logs) as untrusted input, in memory.

Nothing is extracted to disk. A member is refused when its path escapes the archive (``..``,
an absolute path, a drive letter), when it is a symlink or encrypted, and the archive is refused
when it holds too many members or expands beyond its budget.

One :class:`ArchiveBudget` covers everything read out of one artifact (or one file given on the
command line), nested archives included: an ``.eval`` log inside an artifact's zip spends from
the same budget as the zip itself, so nesting cannot multiply the limit. The budget counts
members (entries) and inflated bytes. Before :mod:`zipfile` parses a central directory, the
member count is read from the end-of-central-directory record (ZIP64 included) and the central
directory's entry signatures are counted (one C-level scan), so a zip with a million entries is
refused before a million ``ZipInfo`` objects are built. Declared sizes are checked first, and
the bytes actually inflated are counted while reading, because a zip bomb's header can lie.
Every refusal is one :class:`InputError` line naming the archive and the member.
"""

from __future__ import annotations

import io
import stat
import struct
import zlib
from typing import TYPE_CHECKING

from evalbot.errors import InputError
from evalbot.formats.builder import show
from evalbot.formats.model import ReadOptions

if TYPE_CHECKING:
    import zipfile

_CHUNK = 1 << 20
_EOCD = b"PK\x05\x06"
_EOCD_SIZE = 22
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_LOCATOR_SIZE = 20
_ZIP64_EOCD = b"PK\x06\x06"
_ZIP64_EOCD_SIZE = 56
_CENTRAL_ENTRY = b"PK\x01\x02"
_MAX_COMMENT = 0xFFFF


class ArchiveBudget:
    """What one artifact may cost, shared by every archive read out of it (nesting included).

    ``max_bytes`` bounds the bytes inflated (declared sizes are checked before reading, actual
    bytes while reading); ``max_members`` bounds the entries of all its archives together.
    ``why`` follows the byte limit in a refusal (where the limit comes from).
    """

    def __init__(self, *, max_bytes: int, max_members: int, why: str = "") -> None:
        self.max_bytes = max_bytes
        self.max_members = max_members
        self.why = why
        self.members = 0
        self.declared = 0
        self.inflated = 0

    def check_count(self, source: str, count: int) -> None:
        """Refuse ``count`` more members when the budget cannot take them."""
        if self.members + count > self.max_members:
            nested = " (with the archives read before it)" if self.members else ""
            raise InputError(
                f"{source}: archive holds {count} members{nested}, more than the limit of "
                f"{self.max_members}"
            )

    def spend(self, where: str, *, declared: int = 0, inflated: int = 0, at: str = "") -> None:
        """Count the bytes a member declares (before it is read) or inflates (while read)."""
        self.declared += declared
        self.inflated += inflated
        if max(self.declared, self.inflated) > self.max_bytes:
            raise InputError(
                f"{where}: archive expands to more than {self.max_bytes} bytes{self.why}{at}"
            )


def budget_of(options: ReadOptions) -> ArchiveBudget:
    """The budget ``options`` carries, or a fresh one of its limits."""
    return options.archive_budget or ArchiveBudget(
        max_bytes=options.max_archive_bytes, max_members=options.max_archive_members
    )


def is_zip(head: bytes) -> bool:
    """Whether bytes start like a ZIP archive (an empty archive included)."""
    return head.startswith((b"PK\x03\x04", b"PK\x05\x06"))


def _check_name(archive: str, name: str) -> None:
    normalized = name.replace("\\", "/")
    parts = normalized.split("/")
    if normalized.startswith("/") or (len(name) > 1 and name[1] == ":") or ".." in parts:
        raise InputError(f"{archive}: member {show(name)} has a path outside the archive")
    if "\x00" in name:
        raise InputError(f"{archive}: member {show(name)} has a NUL byte in its name")


def central_directory(data: bytes) -> tuple[int, int, int]:
    """(declared entry count, start, end) of the central directory, read from the end record
    (ZIP64's when present), or ``(0, 0, 0)`` when there is no end record (:mod:`zipfile` then
    reports the archive as invalid). Costs one backwards search over the last 64 KiB."""
    at = data.rfind(_EOCD, max(0, len(data) - _EOCD_SIZE - _MAX_COMMENT))
    if at < 0 or at + _EOCD_SIZE > len(data):
        return 0, 0, 0
    entries, size = struct.unpack_from("<HI", data, at + 10)
    end = at
    locator = at - _ZIP64_LOCATOR_SIZE
    if locator >= 0 and data.startswith(_ZIP64_LOCATOR, locator):
        # As zipfile reads it: the ZIP64 end record sits just before its locator.
        record_at = locator - _ZIP64_EOCD_SIZE
        if record_at >= 0 and data.startswith(_ZIP64_EOCD, record_at):
            entries, size = struct.unpack_from("<QQ", data, record_at + 32)
            end = record_at
    return entries, max(0, end - size), end


class Archive:
    """A ZIP archive opened from bytes, spending from the artifact's ``budget``;
    ``members`` lists the regular files, checked, sorted by name."""

    def __init__(self, data: bytes, *, source: str, budget: ArchiveBudget) -> None:
        self.source = source
        self.budget = budget
        declared, start, end = central_directory(data)
        budget.check_count(source, declared)
        # Every entry starts with this signature: counting them bounds what zipfile would build,
        # whatever the end record claims.
        budget.check_count(source, data.count(_CENTRAL_ENTRY, start, end))
        import zipfile  # here: only a ZIP input needs it (start-up time)

        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as error:
            raise InputError(f"{source}: not a valid ZIP archive ({error})") from None
        budget.check_count(source, len(infos))
        budget.members += len(infos)
        members: list[zipfile.ZipInfo] = []
        for info in infos:
            _check_name(source, info.filename)
            if stat.S_ISLNK(info.external_attr >> 16):
                raise InputError(f"{source}: member {show(info.filename)} is a symlink")
            if info.flag_bits & 0x1:
                raise InputError(f"{source}: member {show(info.filename)} is encrypted")
            if info.is_dir():
                continue
            at = f" (at member {show(info.filename)})"
            budget.spend(source, declared=info.file_size, at=at)
            members.append(info)
        self.members = sorted(members, key=lambda member: member.filename)

    def read(self, member: zipfile.ZipInfo) -> bytes:
        """A member's bytes; the inflated bytes are counted against the budget."""
        import zipfile  # loaded already, by __init__

        where = f"{self.source}: member {show(member.filename)}"
        out = bytearray()
        try:
            with self._zip.open(member) as stream:
                for chunk in iter(lambda: stream.read(_CHUNK), b""):
                    out += chunk
                    self.budget.spend(where, inflated=len(chunk))
                    if len(out) > member.file_size:
                        raise InputError(f"{where}: inflates beyond its declared size")
        except NotImplementedError as error:
            raise InputError(f"{where}: unsupported compression ({error})") from None
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as error:
            raise InputError(f"{where}: cannot be read ({error})") from None
        if len(out) != member.file_size:
            raise InputError(f"{where}: size differs from the declared size")
        return bytes(out)
