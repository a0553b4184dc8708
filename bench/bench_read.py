"""Reading benchmarks: ``evalbot compare`` against the stdlib-json parse of the same files.

Run from the repository root (the checkout's code is what runs)::

    python bench/bench_read.py                      # every case (about 10 minutes on 2 cores)
    python bench/bench_read.py --case harness --runs 3

Each figure is whole processes timed from outside, the command and its reference in turn
(A B A B ..., after a warm-up pair), the median of the per-pair ratios; peak memory is the
command's own peak resident set (``bench_speed.run_once``). The reference is the standard
library's ``json.loads`` of every line of both files, nothing else.

- ``harness``: 2 x 400,000 rows shaped like real harness output, the candidate shuffled:
  each row one of the real rows of ``tests/data`` (inspect samples flattened into one row,
  lm-eval sample lines, promptfoo result rows), its strings cut to 120 characters and its
  lists to 4 items, with a unique ``id`` in its middle and a ``passed`` outcome (a dozen
  fields: text, messages, nested objects). Goal <= 0.3, peak < 1 GiB.
- ``pairs``: 2 x 1,000,000 ``{"id": "q-0000001", "passed": true}`` rows, the candidate in the
  same order and shuffled. Goal <= 0.3. Beside them, the floor of any reader built on the
  libraries evalbot must use: a program that only imports what every comparison needs
  (numpy, scipy.special, msgspec), decodes both files with msgspec into typed rows and makes
  each side's id and outcome lists (``FLOOR``; no pairing, statistics or report).
- ``extra``: 2 x 1,000,000 such rows with one more field, constant (``"model": "m"``), the
  candidate in the same order: real rows carry more than the fields read. Goal <= 0.3.
  (``--code DIR`` runs the evalbot package found in ``DIR`` instead, to compare two versions.)
- ``ten-million``: 2 x 5,000,000 such rows (10 million rows read), shuffled: peak < 1 GiB.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_speed import FLOOR, ROOT, STDLIB_PARSE, Bench, pass_fail_runs, print_table

DATA = ROOT / "tests" / "data"
TEXT, ITEMS_KEPT = 120, 4


def _cut(value: Any) -> Any:
    """A real value, smaller: strings to ``TEXT`` characters, lists to ``ITEMS_KEPT`` items."""
    if isinstance(value, str):
        return value[:TEXT]
    if isinstance(value, list):
        return [_cut(item) for item in value[:ITEMS_KEPT]]
    if isinstance(value, dict):
        return {key: _cut(item) for key, item in value.items()}
    return value


def _inspect_rows() -> list[dict[str, Any]]:
    """Each inspect sample flattened into one row: its fields but the transcript, its first
    score's value as the outcome."""
    samples: list[dict[str, Any]] = []
    for path in sorted((DATA / "inspect_ai").glob("*.json")):
        samples += json.loads(path.read_text()).get("samples") or []
    for path in sorted((DATA / "inspect_ai").glob("*.eval")):
        with zipfile.ZipFile(path) as archive:
            samples += [
                json.loads(archive.read(name))
                for name in sorted(archive.namelist())
                if name.startswith("samples/")
            ]
    rows = []
    for sample in samples:
        scores = sample.get("scores") or {}
        value = next(iter(scores.values()), {}).get("value") if scores else None
        kept = ("input", "choices", "target", "messages", "output", "metadata", "model_usage")
        row = {key: _cut(sample[key]) for key in (*kept, "total_time", "uuid") if key in sample}
        rows.append({**row, "passed": value in ("C", 1, 1.0, True)})
    return rows


def _lm_eval_rows() -> list[dict[str, Any]]:
    rows = []
    for path in sorted((DATA / "lm_eval").glob("samples_*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            rows.append({**_cut(record), "passed": bool(record.get("exact_match"))})
    return rows


def _promptfoo_rows() -> list[dict[str, Any]]:
    document = json.loads((DATA / "promptfoo" / "sample-export.json").read_text())
    return [
        {**_cut({k: v for k, v in row.items() if k != "id"}), "error": None}
        | {"passed": bool(row.get("success"))}
        for row in document["results"]["results"]
    ]


def harness_runs(folder: Path, items: int, seed: int = 0) -> tuple[Path, Path]:
    """Two runs of ``items`` rows, each a real row of one of the three harnesses in turn."""
    groups = [_inspect_rows(), _lm_eval_rows(), _promptfoo_rows()]
    rng = random.Random(seed)
    order = list(range(items))
    rng.shuffle(order)
    paths = []
    for name, rows in (("baseline", range(items)), ("candidate", order)):
        path = folder / f"{name}-harness.jsonl"
        with path.open("w", encoding="utf-8") as stream:
            for i in rows:
                group = groups[i % 3]
                row = dict(group[(i // 3) % len(group)])
                if name == "candidate" and rng.random() < 0.1:
                    row["passed"] = not row["passed"]
                keys = list(row)
                keys.insert(len(keys) // 2, "id")
                row["id"] = f"item-{i:07d}"
                stream.write(json.dumps({key: row[key] for key in keys}) + "\n")
        paths.append(path)
    return paths[0], paths[1]


def extra_field_runs(folder: Path, items: int) -> tuple[Path, Path]:
    """The pass/fail rows, same order, each with ``"model": "m"`` after its outcome."""
    paths = pass_fail_runs(folder, items, shuffled=False, tag="-extra")
    for path in paths:
        path.write_text(path.read_text().replace("}\n", ', "model": "m"}\n'))
    return paths


WRITERS = {
    "harness": lambda folder, items: harness_runs(folder, items),
    "same": lambda folder, items: pass_fail_runs(folder, items, shuffled=False),
    "shuffled": lambda folder, items: pass_fail_runs(folder, items, shuffled=True),
    "5m": lambda folder, items: pass_fail_runs(folder, items, shuffled=True, tag="-5m"),
    "extra": extra_field_runs,
}
CASES = ("harness", "pairs", "extra", "ten_million")


def write(kind: str, folder: Path, items: int) -> None:
    """Write a case's files in a child process: a child's peak memory starts from its parent's."""
    import subprocess

    subprocess.run(
        [sys.executable, __file__, "--write", kind, str(folder), "--items", str(items)], check=True
    )


class ReadBench(Bench):
    def harness(self) -> None:
        write("harness", self.folder, self.args.harness_items)
        base, cand = (self.folder / f"{side}-harness.jsonl" for side in ("baseline", "candidate"))
        name = f"harness rows 2 x {self.args.harness_items:,} (shuffled)"
        self.against_stdlib(name, "<= 0.3, peak < 1 GiB", base, cand, self.args.runs)
        base.unlink()
        cand.unlink()

    def pairs(self) -> None:
        for shuffled in (False, True):
            write("shuffled" if shuffled else "same", self.folder, self.args.items)
            cand = self.folder / f"candidate{'-shuffled' if shuffled else ''}.jsonl"
            label = "shuffled" if shuffled else "same order"
            base = self.folder / "baseline.jsonl"
            name = f"2 x {self.args.items:,} (id, passed; {label})"
            self.against_stdlib(name, "<= 0.3", base, cand, self.args.runs)
            if not shuffled:
                self.pair(
                    f"floor: imports, decoding, columns (2 x {self.args.items:,})",
                    "reported",
                    [self.py, "-c", FLOOR, str(base), str(cand)],
                    [self.py, "-c", STDLIB_PARSE, str(base), str(cand)],
                    self.args.runs,
                )
            cand.unlink()

    def extra(self) -> None:
        write("extra", self.folder, self.args.items)
        base, cand = (self.folder / f"{side}-extra.jsonl" for side in ("baseline", "candidate"))
        name = f"2 x {self.args.items:,} (id, passed, model; same order)"
        self.against_stdlib(name, "<= 0.3", base, cand, self.args.runs)
        base.unlink()
        cand.unlink()

    def ten_million(self) -> None:
        write("5m", self.folder, 5_000_000)
        base = self.folder / "baseline-5m.jsonl"
        cand = self.folder / "candidate-5m-shuffled.jsonl"
        self.against_stdlib("2 x 5,000,000 (shuffled)", "peak < 1 GiB", base, cand, 1)
        base.unlink()
        cand.unlink()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=CASES, help="run only these")
    parser.add_argument("--runs", type=int, default=3, help="pairs per case")
    parser.add_argument("--items", type=int, default=1_000_000, help="rows per side (pairs)")
    parser.add_argument("--harness-items", type=int, default=400_000, help="rows per side")
    parser.add_argument("--code", type=Path, help="the folder holding the evalbot package run")
    parser.add_argument("--write", nargs=2, metavar=("CASE", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        WRITERS[args.write[0]](Path(args.write[1]), args.items)
        return 0
    with tempfile.TemporaryDirectory(prefix="evalbot-bench-") as tmp:
        bench = ReadBench(args, Path(tmp))
        if args.code is not None:
            bench.env["PYTHONPATH"] = str(args.code.resolve())
        print(f"reference: {bench.show([sys.executable, '-c', STDLIB_PARSE])}", flush=True)
        for case in args.case or CASES:
            getattr(bench, case)()
    print()
    print_table(bench.figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
