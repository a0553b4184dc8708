"""Write two SWE-bench harness reports (tests/data/swebench/*.report.json) from the real matrix.

``tests/data/swebench/swebench_verified_matrix.excerpt.csv`` holds the real per-instance
outcomes of SWE-bench Verified systems (see tests/data/README.md). The harness's
``swebench/harness/reporting.py`` writes a run as one JSON report: keys in its order,
``json.dumps(indent=4)``, the id lists sorted. This writes the reports two of those systems'
runs would have given, so the README's quick start can compare SWE-bench files as the harness
writes them. Run: python scripts/make_swebench_reports.py

The tests build their SWE-bench reports with the same :func:`harness_report` and :func:`matrix`,
and check that the committed reports are what this script writes.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

FOLDER = Path(__file__).resolve().parent.parent / "tests" / "data" / "swebench"
MATRIX = FOLDER / "swebench_verified_matrix.excerpt.csv"
#: The matrix's system -> the report's file name (a clear difference: 33.6 % against 46.8 %).
SYSTEMS = {
    "20240620_sweagent_claude3.5sonnet": "sweagent_claude3.5sonnet.report.json",
    "20250520_openhands_devstral_small": "openhands_devstral_small.report.json",
}


def harness_report(outcomes: dict[str, int]) -> str:
    """swebench/harness/reporting.py's layout: keys in its order, json.dumps(indent=4)."""
    ids = sorted(outcomes)
    resolved = [i for i in ids if outcomes[i]]
    unresolved = [i for i in ids if not outcomes[i]]
    report = {
        "total_instances": len(ids),
        "submitted_instances": len(ids),
        "completed_instances": len(ids),
        "resolved_instances": len(resolved),
        "unresolved_instances": len(unresolved),
        "empty_patch_instances": 0,
        "error_instances": 0,
        "completed_ids": ids,
        "incomplete_ids": [],
        "empty_patch_ids": [],
        "submitted_ids": ids,
        "resolved_ids": resolved,
        "unresolved_ids": unresolved,
        "error_ids": [],
        "schema_version": 2,
    }
    return json.dumps(report, indent=4) + "\n"


def matrix() -> dict[str, dict[str, int]]:
    """The real per-instance outcomes (tests/data/README.md): system -> instance id -> 0 or 1,
    the ids in the matrix's order."""
    with MATRIX.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    ids = rows[0][1:]
    return {row[0]: dict(zip(ids, map(int, row[1:]), strict=True)) for row in rows[1:]}


def main() -> None:
    rows = matrix()
    for system, name in SYSTEMS.items():
        (FOLDER / name).write_text(harness_report(rows[system]), encoding="utf-8")


if __name__ == "__main__":
    main()
