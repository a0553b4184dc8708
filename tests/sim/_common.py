"""Shared helpers of the simulations: how many repetitions, Monte Carlo slack, tables.

``EVALBOT_SIM_LONG=1`` multiplies every Monte Carlo repetition count by 10 (about ten minutes
on one core) for a tighter check; the default run takes about two minutes of CPU. Every table is
printed at the end of the pytest session and kept in ``TABLES`` (as Markdown in ``MARKDOWN``):
``tests/sim/conftest.py`` checks them against docs/validation.md, or writes them there.
"""

from __future__ import annotations

import math
import os

SCALE = 10 if os.environ.get("EVALBOT_SIM_LONG") else 1
ALPHA = 0.05
TABLES: list[str] = []
MARKDOWN: dict[str, str] = {}  # title -> the table as docs/validation.md holds it


def reps(n: int) -> int:
    """Monte Carlo repetitions, scaled by ``EVALBOT_SIM_LONG``."""
    return n * SCALE


def slack(rate: float, n: int, sigmas: float = 3.0) -> float:
    """``sigmas`` Monte Carlo standard errors of a rate estimated from ``n`` repetitions."""
    return sigmas * math.sqrt(rate * (1.0 - rate) / n)


def table(title: str, header: list[str], rows: list[list[object]]) -> str:
    """Format (and keep) a small text table; floats with 4 decimals."""

    def cell(x: object) -> str:
        return f"{x:.4f}" if isinstance(x, float) else str(x)

    body = [[cell(x) for x in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(header)]
    lines = [title, "  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in body]
    text = "\n".join(lines)
    TABLES.append(text)
    rule = "|" + "---|" * len(header)
    MARKDOWN[title] = "\n".join("| " + " | ".join(row) + " |" for row in [header, *body]).replace(
        "\n", "\n" + rule + "\n", 1
    )
    print("\n" + text)
    return text
