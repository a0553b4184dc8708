"""Item ids held compactly: one numpy array of ASCII bytes instead of a Python string each.

Three million ids of nine characters take 216 MB as Python strings (64 bytes per object and
8 per list slot) and 27 MB as a fixed-width byte array. The fast JSONL path builds an
:class:`IdArray` when a file is ASCII with no escape anywhere (every id is then its bytes in
the file: no NUL, no line break, no other code point), the ids are not much longer than
their mean (a fixed width must not multiply one long id by every row), and rows are items
(no epochs). Everything else keeps ``list[str]``; both are ``Sequence[str]``.

Pairing, the fingerprint and the fixed/broken lists work on the arrays directly: a 64-bit
polynomial hash of each row for the join (every match then compared exactly), numpy's
byte-wise comparison and sort (ASCII byte order is code-point order, as ``str`` sorts), and
a join of the sorted ids into the fingerprint's text a block of rows at a time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
UIntArray = npt.NDArray[np.uint64]

#: Ids are decoded (iteration, ``tolist``) and joined (fingerprint) this many at a time.
_BLOCK = 1 << 16
#: Rows :meth:`IdArray.is_sorted` looks at before the rest.
_FIRST_ROWS = 1024


class IdArray(Sequence[str]):
    """A read-only sequence of ids backed by a numpy ``S`` (NUL-padded ASCII) array.

    Indexing with an integer gives a ``str``; with a slice, a boolean mask or an index
    array, another ``IdArray``. ``==`` with another ``IdArray`` is one array comparison.
    """

    __slots__ = ("array",)

    def __init__(self, array: npt.NDArray[np.bytes_]) -> None:
        self.array = array

    def __len__(self) -> int:
        return int(self.array.shape[0])

    @overload
    def __getitem__(self, key: int) -> str: ...

    @overload
    def __getitem__(self, key: slice | npt.NDArray[Any]) -> IdArray: ...

    def __getitem__(self, key: int | slice | npt.NDArray[Any]) -> str | IdArray:
        if isinstance(key, int | np.integer):
            return bytes(self.array[key]).decode("ascii")
        return IdArray(self.array[key])

    def __iter__(self) -> Iterator[str]:
        for start in range(0, len(self), _BLOCK):
            yield from self._decoded(start, start + _BLOCK)

    def _decoded(self, start: int, stop: int) -> list[str]:
        # bytes objects (padding stripped) joined, decoded and split again: three C calls
        # (no id holds a line break)
        picked: list[bytes] = self.array[start:stop].tolist()
        if not picked:
            return []
        return b"\n".join(picked).decode("ascii").split("\n")

    def tolist(self) -> list[str]:
        return self._decoded(0, len(self))

    def __array__(self, dtype: Any = None, copy: Any = None) -> npt.NDArray[Any]:
        """An object array of ``str`` (what ``np.asarray(ids, dtype=object)`` gives a list)."""
        out = np.empty(len(self), dtype=object)
        out[:] = self.tolist()
        return out if dtype is None else out.astype(dtype)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IdArray):
            return len(self) == len(other) and bool(np.array_equal(self.array, other.array))
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return len(self) == len(other) and self.tolist() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(repr(i) for i in self._decoded(0, 3))
        return f"IdArray([{shown}{', ...' if len(self) > 3 else ''}], n={len(self)})"

    def is_sorted(self, *, strictly: bool = False) -> bool:
        """Whether the ids are in order (``strictly``: increasing). The first rows are
        looked at first: a shuffled million is refused there, without comparing them all."""
        a = self.array
        for rows in (a[: _FIRST_ROWS + 1], a):
            if not ((rows[1:] > rows[:-1]) if strictly else (rows[1:] >= rows[:-1])).all():
                return False
        return True

    def argsort(self) -> IntArray:
        return np.argsort(self.array, kind="stable").astype(np.int64)

    def hashes(self) -> IntArray:
        """A 64-bit hash of each id (``sum byte_j P^j`` modulo 2^64, then mixed); equal ids
        hash alike whatever the arrays' widths (the NUL padding adds nothing)."""
        n = len(self)
        width = self.array.dtype.itemsize
        octets = self.array.view(np.uint8).reshape(n, width)
        h = np.zeros(n, dtype=np.uint64)
        power = 1
        with np.errstate(over="ignore"):
            for column in range(width):  # sum of byte_j P^j: trailing NULs add 0
                h += octets[:, column].astype(np.uint64) * np.uint64(power)
                power = power * 0x100000001B3 % (1 << 64)
            h ^= h >> np.uint64(29)
            h *= np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(32)
        return h.view(np.int64)

    def join_digest(self, order: IntArray | None = None) -> str:
        """sha256 of the ids (in ``order``), each followed by a line break: the fingerprint's
        text of sorted ids without building it whole."""
        digest = hashlib.sha256()
        width = self.array.dtype.itemsize
        for start in range(0, len(self), _BLOCK):
            block = (
                self.array[start : start + _BLOCK]
                if order is None
                else self.array[order[start : start + _BLOCK]]
            )
            rows = len(block)
            grid = np.zeros((rows, width + 1), dtype=np.uint8)
            grid[:, :width] = block.view(np.uint8).reshape(rows, width)
            if (grid[:, width - 1] != 0).all():  # no padding: every id fills the width
                grid[:, width] = 10
                digest.update(grid.tobytes())
                continue
            lengths = np.strings.str_len(block)
            grid[np.arange(rows), lengths] = 10
            keep = np.arange(width + 1)[None, :] <= lengths[:, None]
            digest.update(grid[keep].tobytes())
        return digest.hexdigest()


#: ASCII characters for which ``str.isspace`` is true (a blank id is refused).
_SPACE = bytes([9, 10, 11, 12, 13, 28, 29, 30, 31, 32])


def compact_ids(ids: list[str], *, checked: bool = False) -> IdArray | None:
    """``ids`` as an :class:`IdArray` when that is safe and smaller, else ``None``.

    ``checked`` says the caller proved every id ASCII without NUL (the fast path: an ASCII
    file with no backslash); otherwise it is checked here. Refused when the longest id is
    more than twice as long as the ids are on average plus 16 (a fixed width would multiply
    it by every row), and when an id is empty or blank (the general path names those).
    """
    n = len(ids)
    if n == 0:
        return None
    text = "\n".join(ids)
    if not checked and (not text.isascii() or "\x00" in text or text.count("\n") != n - 1):
        return None
    encoded = text.encode("ascii")
    if len(encoded.translate(None, _SPACE)) < len(encoded) - (n - 1) and _any_blank(ids):
        return None  # white space besides the separators: a blank id is possible
    octets = np.frombuffer(encoded, dtype=np.uint8)
    width = (octets.size + 1) // n - 1
    if (octets.size + 1) % n == 0 and width > 0 and (octets[width :: width + 1] == 10).all():
        # every id as long as the others (ids numbered with zero padding, or hashes)
        rows = np.append(octets, np.uint8(10)).reshape(n, width + 1)[:, :width]
        return IdArray(np.ascontiguousarray(rows).view(f"S{width}").reshape(n))
    if not all(ids):
        return None
    array = np.array(ids, dtype=np.bytes_)
    total = octets.size - (n - 1)
    if array.dtype.itemsize * n > 2 * total + 16 * n:
        return None
    return IdArray(array)


def _any_blank(ids: list[str]) -> bool:
    return not all(ids) or any(map(str.isspace, ids))


def concat(parts: Sequence[IdArray]) -> IdArray:
    return IdArray(np.concatenate([p.array for p in parts]))


def exact_keys(left: IdArray, right: IdArray) -> tuple[UIntArray, UIntArray] | None:
    """Both arrays' ids as 64-bit unsigned integers, equal exactly where the ids are equal and
    ordered as they are, when that is possible: past the bytes every id of both begins with
    (``q-0`` of ``q-0000001``) at most 8 are left of the wider array's width, read as one
    big-endian number (the NUL padding of shorter ids reads as zeros, as numpy compares
    them). ``None`` otherwise (the caller joins on hashes)."""
    if not len(left) or not len(right):
        return None
    width = max(left.array.dtype.itemsize, right.array.dtype.itemsize)
    sides = [
        side.array.astype(f"S{width}", copy=False).view(np.uint8).reshape(len(side), width)
        for side in (left, right)
    ]
    first = sides[0][0]
    start = 0
    while width - start > 8:  # a leading byte shared by every id of both is left out
        if not all((octets[:, start] == first[start]).all() for octets in sides):
            return None
        start += 1
    keys: list[UIntArray] = []
    for octets in sides:
        # the last byte is the lowest: written straight into a little-endian number's bytes
        key = np.zeros(len(octets), dtype="<u8")
        key.view(np.uint8).reshape(len(octets), 8)[:, : width - start] = octets[:, start:][:, ::-1]
        keys.append(key.astype(np.uint64, copy=False))
    return keys[0], keys[1]


def unique_order(ids: IdArray, hashes: IntArray) -> IntArray | None:
    """The ``argsort`` of ``hashes`` when no id repeats (distinct hashes prove it; rows whose
    hashes agree are compared), else ``None``."""
    order = np.argsort(hashes)
    ordered = hashes[order]
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    if not same.size:
        return order.astype(np.int64, copy=False)
    # equal ids hash alike, so only rows sharing a hash can repeat: compare those exactly
    rows = np.unique(np.concatenate((order[same], order[same + 1])))
    if int(np.unique(ids.array[rows]).size) != int(rows.size):
        return None
    return order.astype(np.int64, copy=False)


def unique_pairs(ids: IdArray, epochs: IntArray) -> bool:
    """No (id, epoch) repeats: the ids' hashes mixed with the epochs, sorted; rows whose
    keys agree are compared exactly (ids and epochs)."""
    with np.errstate(over="ignore"):
        keys = ids.hashes().view(np.uint64) ^ (
            epochs.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        )
    order = np.argsort(keys)
    ordered = keys[order]
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    if not same.size:
        return True
    rows = np.unique(np.concatenate((order[same], order[same + 1])))
    by_key = np.lexsort((epochs[rows], ids.array[rows]))
    picked_ids, picked_epochs = ids.array[rows][by_key], epochs[rows][by_key]
    repeats = (picked_ids[1:] == picked_ids[:-1]) & (picked_epochs[1:] == picked_epochs[:-1])
    return not bool(repeats.any())


def distinct(ids: IdArray, hashes: IntArray) -> bool:
    """No id repeats (see :func:`unique_order`)."""
    return unique_order(ids, hashes) is not None


def id_column(ids: Sequence[str]) -> IdArray | npt.NDArray[np.object_]:
    """``ids`` indexable by a mask or positions, with ``.tolist()``: compact ids as they are
    (nothing decoded but what is picked), a list as an object array."""
    if isinstance(ids, IdArray):
        return ids
    out = np.empty(len(ids), dtype=object)
    out[:] = ids
    return out
