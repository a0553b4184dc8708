"""Write the bundled example (evalbot/data/example/): a 400-item eval with a real improvement.

The two runs reproduce the worked example used across the docs and tests: 266 items pass in
both, 31 are fixed, 14 are broken, 89 fail in both (baseline 280/400 = 70 %, candidate
297/400 = 74.25 %). Rows are written in different orders on the two sides, since evalbot pairs
by id, never by row order. Run: python scripts/make_example_data.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

SLICES = ["arithmetic", "reading", "code", "trivia"]
OUT = Path(__file__).resolve().parent.parent / "evalbot" / "data" / "example"


def main() -> None:
    rng = random.Random(20261130)
    cells = ["both_pass"] * 266 + ["fixed"] * 31 + ["broken"] * 14 + ["both_fail"] * 89
    rng.shuffle(cells)
    baseline, candidate = [], []
    for number, cell in enumerate(cells, start=1):
        slice_ = SLICES[number % len(SLICES)]
        item_id = f"{slice_[:4]}-{number:04d}"
        base_pass = cell in ("both_pass", "broken")
        cand_pass = cell in ("both_pass", "fixed")
        baseline.append({"id": item_id, "passed": base_pass, "slice": slice_})
        candidate.append({"id": item_id, "passed": cand_pass, "slice": slice_})
    rng.shuffle(candidate)
    OUT.mkdir(parents=True, exist_ok=True)
    for name, rows in (("baseline.jsonl", baseline), ("candidate.jsonl", candidate)):
        with open(OUT / name, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
