"""Whole-process benchmarks: each figure a ratio against a reference run in turn with it.

Run from the repository root (the checkout's code is what runs: ``PYTHONPATH`` is set to it)::

    python bench/bench_speed.py                       # every case (about 3-4 minutes on 2 cores)
    python bench/bench_speed.py --case startup --case compare500 --runs 9
    python bench/bench_speed.py --list                # the cases and their goals

Every measurement is a whole process (interpreter start, imports, reading, statistics, report),
timed from outside: the command and its reference run alternately (A B A B ...) after one
warm-up pair (which also writes the compiled code an installed evalbot has: the runs are made
without ``PYTHONDONTWRITEBYTECODE``), so a machine that slows down slows both; each pair gives
one ratio A/B and the median of those ratios is the figure. Peak memory is the child's own
peak resident set size (``wait4``'s ``ru_maxrss``). Data files are generated into a temporary
directory from a fixed seed, except the 500-item pair, which is real
(``bench/data/swebench-verified``: two systems' SWE-bench Verified outcomes).

Cases and goals (the reference is in brackets):

- ``startup``: ``evalbot --version`` and ``evalbot --help`` [``python -c pass``] <= 3
- ``compare500``: ``evalbot compare`` of the real 500-item pair as text, markdown and json
  [``python -c "import numpy"``] <= 4
- ``million``: 2 x 1,000,000 items, pass/fail, ``--format json``, the candidate in the same
  order and shuffled [the stdlib ``json.loads`` of every line of the same two files] <= 0.3
- ``peak3m``: 2 x 3,000,000 items, shuffled: peak memory < 500 MiB (and the ratio, as above)
- ``repeats``: 100,000 items x 5 epochs per side [stdlib parse of the same files] <= 0.5
- ``slices``: 2 x 1,000,000 items in 20 slices [stdlib parse of the same files] <= 0.5
- ``continuous``: 2 x 1,000,000 float scores [the pass/fail compare of 2 x 1M] <= 2 (one pair,
  no warm-up, by default: while the continuous interval is the O(B x N) bootstrap, a run takes
  minutes)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
REAL_PAIR = ROOT / "bench" / "data" / "swebench-verified"

#: The reference program for "the stdlib-json parse of the same files".
STDLIB_PARSE = (
    "import json, sys\n"
    "for path in sys.argv[1:]:\n"
    "    with open(path, 'rb') as stream:\n"
    "        for line in stream:\n"
    "            json.loads(line)\n"
)

#: The floor of any reader on the libraries evalbot must use: the imports every comparison
#: needs, msgspec's typed decoding of both files and each side's two columns, nothing else.
FLOOR = (
    "import sys, msgspec, numpy, scipy.special\n"
    "class Row(msgspec.Struct):\n"
    "    id: str\n"
    "    passed: bool\n"
    "decoder = msgspec.json.Decoder(Row)\n"
    "for path in sys.argv[1:]:\n"
    "    with open(path, 'rb') as stream:\n"
    "        rows = decoder.decode_lines(stream.read())\n"
    "    ids, passed = [row.id for row in rows], [row.passed for row in rows]\n"
)


@dataclass(frozen=True, kw_only=True)
class Run:
    wall: float
    cpu: float
    peak_mib: float
    code: int


@dataclass(frozen=True, kw_only=True)
class Figure:
    name: str
    command: str
    reference: str
    goal: str
    wall: float
    reference_wall: float
    ratio: float
    ratio_min: float
    ratio_max: float
    peak_mib: float
    reference_peak_mib: float
    runs: int


def run_once(argv: Sequence[str], *, cwd: Path, env: dict[str, str]) -> Run:
    """One whole process, timed from outside; its own peak RSS from ``wait4``."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        list(argv), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}:\n{err.decode()}")
    return Run(
        wall=wall,
        cpu=usage.ru_utime + usage.ru_stime,
        peak_mib=usage.ru_maxrss / 1024,
        code=proc.returncode,
    )


def compare_pair(
    name: str,
    goal: str,
    command: Sequence[str],
    reference: Sequence[str],
    *,
    runs: int,
    cwd: Path,
    env: dict[str, str],
    show: Callable[[Sequence[str]], str],
    warmup: bool = True,
) -> Figure:
    """A and B in turn, one warm-up pair first; the median of the per-pair ratios."""
    if warmup:
        run_once(command, cwd=cwd, env=env)
        run_once(reference, cwd=cwd, env=env)
    ours: list[Run] = []
    theirs: list[Run] = []
    for _ in range(runs):
        ours.append(run_once(command, cwd=cwd, env=env))
        theirs.append(run_once(reference, cwd=cwd, env=env))
    ratios = [a.wall / b.wall for a, b in zip(ours, theirs, strict=True)]
    figure = Figure(
        name=name,
        command=show(command),
        reference=show(reference),
        goal=goal,
        wall=statistics.median(r.wall for r in ours),
        reference_wall=statistics.median(r.wall for r in theirs),
        ratio=statistics.median(ratios),
        ratio_min=min(ratios),
        ratio_max=max(ratios),
        peak_mib=max(r.peak_mib for r in ours),
        reference_peak_mib=max(r.peak_mib for r in theirs),
        runs=runs,
    )
    print(
        f"{name:<28} {figure.ratio:6.3f}x  [{figure.ratio_min:.3f}, {figure.ratio_max:.3f}]  "
        f"{figure.wall:8.3f} s vs {figure.reference_wall:8.3f} s  peak {figure.peak_mib:6.0f} MiB"
        f"  (goal {goal})",
        flush=True,
    )
    return figure


# ----------------------------------------------------------------------------- data


def write_jsonl(path: Path, lines: Sequence[str]) -> Path:
    with path.open("w", encoding="utf-8") as stream:
        stream.write("\n".join(lines))
        stream.write("\n")
    return path


def pass_fail_runs(
    folder: Path, items: int, *, shuffled: bool, seed: int = 0, tag: str = ""
) -> tuple[Path, Path]:
    """``{"id": "q-0000001", "passed": true}`` per line; the candidate's rows in the same order
    as the baseline's (sorted ids) or shuffled."""
    rng = np.random.default_rng(seed)
    ids = [f"q-{i:07d}" for i in range(items)]
    base = rng.random(items) < 0.70
    cand = np.where(rng.random(items) < 0.9, base, ~base)
    order = rng.permutation(items) if shuffled else np.arange(items)
    word = {True: "true", False: "false"}
    baseline = write_jsonl(
        folder / f"baseline{tag}.jsonl",
        [f'{{"id": "{i}", "passed": {word[bool(p)]}}}' for i, p in zip(ids, base, strict=True)],
    )
    candidate = write_jsonl(
        folder / f"candidate{tag}{'-shuffled' if shuffled else ''}.jsonl",
        [f'{{"id": "{ids[k]}", "passed": {word[bool(cand[k])]}}}' for k in order.tolist()],
    )
    return baseline, candidate


def score_runs(folder: Path, items: int, seed: int = 1) -> tuple[Path, Path]:
    """Continuous scores in [0, 1] (a shared per-item difficulty plus noise), same order."""
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(2, 2, items)
    base = np.clip(difficulty + rng.normal(0, 0.1, items), 0, 1).round(4)
    cand = np.clip(difficulty + 0.002 + rng.normal(0, 0.1, items), 0, 1).round(4)
    ids = [f"q-{i:07d}" for i in range(items)]
    baseline = write_jsonl(
        folder / "baseline-score.jsonl",
        [f'{{"id": "{i}", "score": {s!r}}}' for i, s in zip(ids, base.tolist(), strict=True)],
    )
    candidate = write_jsonl(
        folder / "candidate-score.jsonl",
        [f'{{"id": "{i}", "score": {s!r}}}' for i, s in zip(ids, cand.tolist(), strict=True)],
    )
    return baseline, candidate


def repeat_runs(folder: Path, items: int, epochs: int, seed: int = 2) -> tuple[Path, Path]:
    """``{"id", "epoch", "passed"}`` rows, item by item, each item ``epochs`` times."""
    rng = np.random.default_rng(seed)
    rate = rng.beta(2, 1.5, items)
    paths = []
    for side, shift in (("baseline", 0.0), ("candidate", 0.01)):
        passed = rng.random((items, epochs)) < np.clip(rate + shift, 0, 1)[:, None]
        lines = [
            f'{{"id": "q-{i:06d}", "epoch": {e}, "passed": {"true" if passed[i, e] else "false"}}}'
            for i in range(items)
            for e in range(epochs)
        ]
        paths.append(write_jsonl(folder / f"{side}-repeats.jsonl", lines))
    return paths[0], paths[1]


def slice_runs(folder: Path, items: int, slices: int, seed: int = 3) -> tuple[Path, Path]:
    """Pass/fail rows with a ``slice`` label out of ``slices`` names, same order."""
    rng = np.random.default_rng(seed)
    names = [f"topic-{k:02d}" for k in range(slices)]
    label = rng.integers(0, slices, items)
    base = rng.random(items) < 0.70
    cand = np.where(rng.random(items) < 0.9, base, ~base)
    paths = []
    for side, values in (("baseline", base), ("candidate", cand)):
        lines = [
            f'{{"id": "q-{i:07d}", "passed": {"true" if v else "false"}, "slice": "{names[s]}"}}'
            for i, (v, s) in enumerate(zip(values.tolist(), label.tolist(), strict=True))
        ]
        paths.append(write_jsonl(folder / f"{side}-slices.jsonl", lines))
    return paths[0], paths[1]


# ----------------------------------------------------------------------------- cases


WRITERS: dict[str, Callable[[Path], object]] = {
    "same": lambda folder: pass_fail_runs(folder, ITEMS, shuffled=False),
    "shuffled": lambda folder: pass_fail_runs(folder, ITEMS, shuffled=True),
    "3m": lambda folder: pass_fail_runs(folder, 3_000_000, shuffled=True, tag="-3m"),
    "repeats": lambda folder: repeat_runs(folder, 100_000, 5),
    "slices": lambda folder: slice_runs(folder, 1_000_000, 20),
    "scores": lambda folder: score_runs(folder, 1_000_000),
    "pass-fail": lambda folder: pass_fail_runs(folder, 1_000_000, shuffled=False, tag="-pf"),
}
ITEMS = 1_000_000


def write(kind: str, folder: Path, items: int) -> None:
    """Write one case's files in a child process: the benchmark process stays small, and
    a child's peak memory (``ru_maxrss``) starts from its parent's at ``exec``."""
    subprocess.run(
        [sys.executable, __file__, "--write", kind, str(folder), "--items", str(items)],
        check=True,
    )


def evalbot_argv() -> list[str]:
    """The installed console script beside this interpreter when there is one, else -m."""
    script = Path(sys.executable).parent / "evalbot"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "evalbot"]


CASES = ("startup", "compare500", "million", "peak3m", "repeats", "slices", "continuous")


class Bench:
    """The cases, each a method, sharing the data folder, the environment and the figures."""

    def __init__(self, args: argparse.Namespace, folder: Path) -> None:
        self.args = args
        self.folder = folder
        self.env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.env.pop("EVALBOT_DEBUG", None)
        # Python's default: compiled code is kept (``__pycache__``, and evalbot's compiled
        # templates), as for an installed evalbot (pip byte-compiles on install; the image is
        # byte-compiled when built). A PYTHONDONTWRITEBYTECODE=1 in the environment would make
        # every run compile all of evalbot anew, which no installed copy does.
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.py = sys.executable
        self.evalbot = evalbot_argv()
        self.figures: list[Figure] = []

    def show(self, command: Sequence[str]) -> str:
        names = {self.py: "python", str(Path(self.py).parent / "evalbot"): "evalbot"}
        names[STDLIB_PARSE] = "<stdlib json.loads per line>"
        names[FLOOR] = "<imports, msgspec decoding, columns>"
        return " ".join(
            names.get(word, Path(word).name if os.sep in word else word) for word in command
        )

    def pair(
        self,
        name: str,
        goal: str,
        a: Sequence[str],
        b: Sequence[str],
        runs: int,
        warmup: bool = True,
    ) -> None:
        self.figures.append(
            compare_pair(
                name, goal, a, b, runs=runs, cwd=self.folder, env=self.env, show=self.show,
                warmup=warmup,
            )
        )  # fmt: skip

    def against_stdlib(self, name: str, goal: str, base: Path, cand: Path, runs: int) -> None:
        self.pair(
            name,
            goal,
            [*self.evalbot, "compare", str(base), str(cand), "--format", "json"],
            [self.py, "-c", STDLIB_PARSE, str(base), str(cand)],
            runs,
        )

    def startup(self) -> None:
        for flag in ("--version", "--help"):
            self.pair(flag, "<= 3", [*self.evalbot, flag], [self.py, "-c", "pass"], self.args.runs)

    def compare500(self) -> None:
        base, cand = REAL_PAIR / "baseline.jsonl", REAL_PAIR / "candidate.jsonl"
        for fmt in ("text", "markdown", "json"):
            self.pair(
                f"compare 500 ({fmt})",
                "<= 4",
                [*self.evalbot, "compare", str(base), str(cand), "--format", fmt],
                [self.py, "-c", "import numpy"],
                self.args.runs,
            )

    def million(self) -> None:
        for shuffled in (False, True):
            write("shuffled" if shuffled else "same", self.folder, self.args.items)
            cand = self.folder / f"candidate{'-shuffled' if shuffled else ''}.jsonl"
            label = "shuffled" if shuffled else "same order"
            self.against_stdlib(
                f"2 x {self.args.items:,} ({label})",
                "<= 0.3",
                self.folder / "baseline.jsonl",
                cand,
                self.args.big_runs,
            )
            cand.unlink()

    def peak3m(self) -> None:
        write("3m", self.folder, self.args.items)
        base = self.folder / "baseline-3m.jsonl"
        cand = self.folder / "candidate-3m-shuffled.jsonl"
        self.against_stdlib("2 x 3,000,000 (shuffled)", "peak < 500 MiB", base, cand, 1)
        base.unlink()
        cand.unlink()

    def repeats(self) -> None:
        write("repeats", self.folder, self.args.items)
        base, cand = (self.folder / f"{side}-repeats.jsonl" for side in ("baseline", "candidate"))
        self.against_stdlib("repeats 100,000 x 5", "<= 0.5", base, cand, self.args.big_runs)

    def slices(self) -> None:
        write("slices", self.folder, self.args.items)
        base, cand = (self.folder / f"{side}-slices.jsonl" for side in ("baseline", "candidate"))
        self.against_stdlib("slices 1,000,000 x 20", "<= 0.5", base, cand, self.args.big_runs)

    def continuous(self) -> None:
        write("scores", self.folder, self.args.items)
        write("pass-fail", self.folder, self.args.items)
        base, cand = (self.folder / f"{side}-score.jsonl" for side in ("baseline", "candidate"))
        pf_base, pf_cand = (self.folder / f"{side}-pf.jsonl" for side in ("baseline", "candidate"))
        self.pair(
            "continuous 2 x 1,000,000",
            "<= 2",
            [*self.evalbot, "compare", str(base), str(cand), "--format", "json"],
            [*self.evalbot, "compare", str(pf_base), str(pf_cand), "--format", "json"],
            self.args.continuous_runs,
            warmup=False,  # minutes per run while the bootstrap is O(B x N)
        )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=CASES, help="run only these")
    parser.add_argument("--runs", type=int, default=7, help="pairs for the small cases")
    parser.add_argument("--big-runs", type=int, default=3, help="pairs for the large cases")
    parser.add_argument("--continuous-runs", type=int, default=3, help="pairs (continuous)")
    parser.add_argument("--items", type=int, default=1_000_000, help="items per side (million)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--write", nargs=2, metavar=("CASE", "FOLDER"), help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def print_table(figures: list[Figure]) -> None:
    print(
        "| case | command | reference | ratio (median) | min-max | time | ref. time "
        "| peak MiB | goal |"
    )
    print("|---|---|---|---:|---|---:|---:|---:|---|")
    for f in figures:
        print(
            f"| {f.name} | `{f.command}` | `{f.reference}` | **{f.ratio:.2f}** | "
            f"{f.ratio_min:.2f}-{f.ratio_max:.2f} | {f.wall:.3f} s | {f.reference_wall:.3f} s | "
            f"{f.peak_mib:.0f} | {f.goal} |"
        )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.write:
        global ITEMS
        ITEMS = args.items
        WRITERS[args.write[0]](Path(args.write[1]))
        return 0
    if args.list:
        print(__doc__)
        return 0
    started = time.perf_counter()
    print(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="evalbot-bench-") as tmp:
        bench = Bench(args, Path(tmp))
        for case in args.case or CASES:
            getattr(bench, case)()
    print(f"total {time.perf_counter() - started:.0f} s")
    print()
    print_table(bench.figures)
    if args.json is not None:
        args.json.write_text(json.dumps([f.__dict__ for f in bench.figures], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
