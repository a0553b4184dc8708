"""Read ZIP archives (``.zip`` shards, inspect_ai ``.eval`` logs) as untrusted input, in memory.

Nothing is extracted to disk. A member is refused when its path escapes the archive (``..``,
an absolute path, a drive letter), when it is a symlink or encrypted, and the archive is refused
when it holds too many members or expands beyond ``max_bytes``: the declared sizes are checked
first, and the bytes actually inflated are counted while reading, because a zip bomb's header
can lie. Every refusal is one :class:`InputError` line naming the archive and the member.
"""

from __future__ import annotations

import io
import stat
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from evalbot.errors import InputError
from evalbot.results.builder import show

_CHUNK = 1 << 20


@dataclass(frozen=True, kw_only=True)
class Member:
    """One regular file inside an archive."""

    name: str
    info: zipfile.ZipInfo


def _is_zip_magic(head: bytes) -> bool:
    return head.startswith((b"PK\x03\x04", b"PK\x05\x06"))


def is_zip(head: bytes) -> bool:
    """Whether bytes start like a ZIP archive (an empty archive included)."""
    return _is_zip_magic(head)


def _check_name(archive: str, name: str) -> None:
    normalized = name.replace("\\", "/")
    parts = normalized.split("/")
    if normalized.startswith("/") or (len(name) > 1 and name[1] == ":") or ".." in parts:
        raise InputError(f"{archive}: member {show(name)} has a path outside the archive")
    if "\x00" in name:
        raise InputError(f"{archive}: member {show(name)} has a NUL byte in its name")


class Archive:
    """A ZIP archive opened from bytes; :meth:`members` lists the regular files, checked."""

    def __init__(self, data: bytes, *, source: str, max_bytes: int, max_members: int) -> None:
        self.source = source
        self.max_bytes = max_bytes
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as error:
            raise InputError(f"{source}: not a valid ZIP archive ({error})") from None
        if len(infos) > max_members:
            raise InputError(
                f"{source}: archive holds {len(infos)} members, more than the limit of "
                f"{max_members}"
            )
        self._members: list[Member] = []
        declared = 0
        for info in infos:
            _check_name(source, info.filename)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise InputError(f"{source}: member {show(info.filename)} is a symlink")
            if info.flag_bits & 0x1:
                raise InputError(f"{source}: member {show(info.filename)} is encrypted")
            if info.is_dir():
                continue
            declared += info.file_size
            if declared > max_bytes:
                raise InputError(
                    f"{source}: archive expands to more than {max_bytes} bytes "
                    f"(at member {show(info.filename)})"
                )
            self._members.append(Member(name=info.filename, info=info))
        self._read_total = 0

    def members(self) -> list[Member]:
        return list(self._members)

    def names(self) -> list[str]:
        return [m.name for m in self._members]

    def read(self, member: Member | str) -> bytes:
        """A member's bytes; the inflated bytes are counted against the archive's limit."""
        if isinstance(member, str):
            found = next((m for m in self._members if m.name == member), None)
            if found is None:
                raise InputError(f"{self.source}: has no member {show(member)}")
            member = found
        where = f"{self.source}: member {show(member.name)}"
        out = bytearray()
        try:
            with self._zip.open(member.info) as stream:
                for chunk in iter(lambda: stream.read(_CHUNK), b""):
                    out += chunk
                    self._read_total += len(chunk)
                    if self._read_total > self.max_bytes:
                        raise InputError(
                            f"{where}: archive expands to more than {self.max_bytes} bytes"
                        )
                    if len(out) > member.info.file_size:
                        raise InputError(f"{where}: inflates beyond its declared size")
        except InputError:
            raise
        except NotImplementedError as error:
            raise InputError(f"{where}: unsupported compression ({error})") from None
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as error:
            raise InputError(f"{where}: cannot be read ({error})") from None
        if len(out) != member.info.file_size:
            raise InputError(f"{where}: size differs from the declared size")
        return bytes(out)

    def iter_read(self, members: list[Member]) -> Iterator[tuple[Member, bytes]]:
        for member in members:
            yield member, self.read(member)
