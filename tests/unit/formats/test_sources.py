"""Files on disk: a large file is held as its head, JSON Lines read in pieces into one buffer;
every answer is the one of the file held whole."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalbot.errors import InputError
from evalbot.formats import sources
from evalbot.formats.model import ReadOptions
from evalbot.formats.sources import FileSource, is_result_name, load_results
from tests.unit.formats.test_jsontext import ACCEPTED, OPTIONS, REFUSED, columns, harness_rows

DATA = Path(__file__).resolve().parents[2] / "data"


def loaded(spec: str, options: ReadOptions = OPTIONS) -> Any:
    """What :func:`load_results` reads: the message, or the ids, scores, kind and metrics."""
    try:
        results = load_results(spec, options)
    except InputError as error:
        return str(error)
    return (results.ids, results.scores.tolist(), results.kind, len(results.metrics))


def small(monkeypatch: pytest.MonkeyPatch, head: int, chunk: int) -> None:
    monkeypatch.setattr(sources, "HEAD", head)
    monkeypatch.setattr(sources, "CHUNK", chunk)


def read_back(data: bytes) -> Any:
    """``data`` written to ``r.jsonl`` and read back: the message, or the columns and places."""
    Path("r.jsonl").write_bytes(data)
    try:
        return columns(load_results("r.jsonl", OPTIONS))
    except InputError as error:
        return str(error)


def counting_pieces(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times a file is read in pieces, and how many pieces each time."""
    counts: list[int] = []
    pieces = FileSource.pieces

    def counted(self: FileSource) -> Iterator[memoryview]:
        counts.append(0)
        for piece in pieces(self):
            counts[-1] += 1
            yield piece

    monkeypatch.setattr(FileSource, "pieces", counted)
    return counts


@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_json_lines_read_in_pieces_read_as_held(
    chunk: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every refused and accepted case of the reader, from a file whose head holds its first
    line and a byte more, read in a buffer smaller than a line: the same message (same line,
    same byte offset), the same columns and places."""
    monkeypatch.chdir(tmp_path)
    cases = [data for data, _ in [*REFUSED.values(), *ACCEPTED.values()]]
    cases = [data for data in cases if 0 <= data.find(b"\n") < len(data) - 2]
    held = [read_back(data) for data in cases]
    counts = counting_pieces(monkeypatch)
    monkeypatch.setattr(sources, "CHUNK", chunk)
    for data, expected in zip(cases, held, strict=True):
        monkeypatch.setattr(sources, "HEAD", data.find(b"\n") + 2)
        assert read_back(data) == expected, data
    assert len(counts) > len(cases) * 0.8  # most are read in pieces: a first line, then more
    assert sum(n > 1 for n in counts) > len(cases) // 3  # and many in several pieces


@pytest.mark.parametrize("head", [1, 40, 300])
def test_every_real_file_reads_the_same_from_its_head(
    head: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each genuine file in tests/data (every format, documents and archives), read with a
    head of a few bytes, gives what it gives held whole."""
    files = sorted(p for p in DATA.rglob("*") if p.is_file() and is_result_name(p.name))
    assert len(files) > 20
    held = {path: loaded(str(path), ReadOptions()) for path in files}
    small(monkeypatch, head=head, chunk=64)
    assert {path: loaded(str(path), ReadOptions()) for path in files} == held


def test_a_large_json_lines_file_is_never_held_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted: the file is read once in pieces (about its size over the buffer's), never
    whole, and the buffer is never grown when lines fit in it."""
    data = harness_rows(2000)
    (tmp_path / "r.jsonl").write_bytes(data)
    small(monkeypatch, head=1024, chunk=len(data) // 10)
    counts = counting_pieces(monkeypatch)
    monkeypatch.setattr(FileSource, "whole", None)  # never called
    results = load_results(str(tmp_path / "r.jsonl"), ReadOptions())
    assert len(results) == 2000 and results.ids[-1] == "q-01999"
    assert counts == [11]  # ten full buffers and the rest


def test_a_bad_row_in_a_large_file_names_its_fields(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error's hint reads the bad row again (here the whole file, read then)."""
    lines = [b'{"id": "q%d", "passed": true, "model": "m"}' % i for i in range(50)]
    lines[40] = b'{"id": "q40", "passed": "maybe", "model": "m"}'
    (tmp_path / "r.jsonl").write_bytes(b"\n".join(lines))
    held = loaded(str(tmp_path / "r.jsonl"))
    small(monkeypatch, head=16, chunk=64)
    assert loaded(str(tmp_path / "r.jsonl")) == held
    assert ":41:" in held and "maybe" in held


def test_a_pipe_larger_than_the_head_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pipe (``<(cat run.jsonl)``) cannot be read twice: it is read to its end at once."""
    data = harness_rows(300)
    pipe = tmp_path / "run.jsonl"
    os.mkfifo(pipe)
    small(monkeypatch, head=100, chunk=64)
    writer = threading.Thread(target=pipe.write_bytes, args=(data,))
    writer.start()
    read = sources.read(pipe)
    writer.join()
    assert read == data
