"""Synthetic comparisons the report is tested and pictured with (no files, no network).

Each scenario builds a :class:`Paired` directly, then runs the real ``compute_comparison``,
``evaluate`` and ``build_view``, so goldens and screenshots show what users get.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from evalbot.compare import compute_comparison
from evalbot.compare.records import Comparison
from evalbot.formats.model import Paired
from evalbot.pairing.fingerprint import fingerprint
from evalbot.plan.config import BootstrapConfig, Config, F1Config, GateConfig, PolicyConfig
from evalbot.plan.policy import Decision, evaluate
from evalbot.report.text import Markdown, url
from evalbot.report.view import HistoryRow, Row, View, build_view, provenance_rows

MARKER = "<!-- evalbot:evalbot -->"
STATE = '<!-- evalbot-state {"looks": 1} -->'

HOSTILE_IDS = [
    "@octocat",
    "#1",
    "owner/repo#2",
    "<script>alert(1)</script>",
    "](javascript:alert(1))",
    "[click](https://evil.example)",
    "a|b|c",
    "`code` ``double``",
    "line\nbreak\r\nhere",
    "<!-- evalbot:evalbot -->",
    "<!-- evalbot-state {} -->",
    "www.evil.example",
    "https://evil.example/x",
    "user@example.com",
    "**bold** _em_ ~~strike~~",
    "<img src=x onerror=alert(1)>",
    "&lt;entity&gt; &#64;octocat",
    "back\\slash\\|pipe",
    "x" * 500,
    "  leading and trailing  ",
    "- list",
    "# heading",
    "> quote",
    "</details>",
    "GH-12",
    # what a fork puts in ids, file and zip member names, slice and scorer names
    "<!-- evalbot-state:v1 eyJ2IjogMSwgImxvb2tzIjogW119 -->",
    "<!-- evalbot-look:v1 eyJ2IjogMX0= -->",
    "@org/team",
    "![img](https://evil.example/x.png)",
    "<https://evil.example>",
    "[ref]: https://evil.example",
    "\x1b[31mred\x1b[0m\x07",
    "\u202eevil\u202c \u200bzero-width",
    "::error::forged",
    "tab\tand\x00nul",
]


@dataclass(frozen=True)
class Scenario:
    name: str
    paired: Paired
    config: Config
    item_url: str | None = None
    config_change: str | None = None
    provenance: Sequence[Row] = ()
    history: Sequence[HistoryRow] = field(default_factory=tuple)
    notes: Sequence[Markdown] = field(default_factory=tuple)

    def comparison(self) -> tuple[Comparison, Decision]:
        comparison = compute_comparison(self.paired, self.config)
        return comparison, evaluate(comparison, self.config)

    def view(self) -> View:
        comparison, decision = self.comparison()
        return build_view(
            comparison,
            decision,
            item_url=self.item_url,
            config_change=self.config_change,
            provenance=self.provenance,
            history=self.history,
            notes=self.notes,
        )


def paired_from_cells(
    cells: dict[str, int],
    *,
    ids: Sequence[str] | None = None,
    slices: Sequence[str] | None = None,
    seed: int = 0,
) -> Paired:
    """A binary paired run with the given 2x2 counts; cells are spread over ``slices``."""
    base: list[float] = []
    cand: list[float] = []
    for cell in ("both_pass", "fixed", "broken", "both_fail"):
        for _ in range(cells.get(cell, 0)):
            base.append(1.0 if cell in ("both_pass", "broken") else 0.0)
            cand.append(1.0 if cell in ("both_pass", "fixed") else 0.0)
    n = len(base)
    order = np.random.default_rng(seed).permutation(n)
    names = list(ids) if ids is not None else [f"task-{i:04d}" for i in range(n)]
    names = [names[i % len(names)] + ("" if i < len(names) else f"-{i}") for i in range(n)]
    labels: list[str | None] = [slices[i % len(slices)] if slices else None for i in range(n)]
    rows = sorted(zip(names, labels, order.tolist(), strict=True))
    return Paired(
        ids=[r[0] for r in rows],
        baseline=np.array([base[r[2]] for r in rows]),
        candidate=np.array([cand[r[2]] for r in rows]),
        kind="binary",
        pass_fail=True,
        baseline_source="baseline.jsonl",
        candidate_source="candidate.jsonl",
        slices=[r[1] for r in rows] if slices else None,
        fingerprint=fingerprint([r[0] for r in rows]),
    )


def paired_repeats(items: int, epochs: int, *, seed: int = 0) -> Paired:
    """Pass/fail items sampled ``epochs`` times on both sides (values are pass rates)."""
    rng = np.random.default_rng(seed)
    p_item = rng.beta(0.6, 0.4, size=items)
    base = rng.binomial(epochs, p_item) / epochs
    cand = rng.binomial(epochs, np.clip(p_item + 0.05, 0, 1)) / epochs
    ids = [f"prob-{i:03d}" for i in range(items)]
    return Paired(
        ids=ids,
        baseline=base.astype(np.float64),
        candidate=cand.astype(np.float64),
        kind="score",
        pass_fail=True,
        baseline_source="baseline/",
        candidate_source="candidate/",
        epochs_baseline=epochs,
        epochs_candidate=epochs,
        fingerprint=fingerprint(ids),
    )


def _config(**policy: object) -> Config:
    gate = policy.pop("gate", GateConfig())
    return Config(
        bootstrap=BootstrapConfig(resamples=2000, seed=0),
        policy=PolicyConfig(**policy),  # type: ignore[arg-type]
        gate=gate,  # type: ignore[arg-type]
    )


WORKED = {"both_pass": 266, "fixed": 31, "broken": 14, "both_fail": 89}
SLICES = ["arithmetic", "code", "reading", "trivia"]


def improvement() -> Scenario:
    return Scenario(
        name="improvement",
        paired=paired_from_cells(WORKED, slices=SLICES),
        config=_config(sample_size=400, max_looks=2),
        item_url="https://logs.example/runs/{id}",
        provenance=provenance_rows(
            (
                "baseline",
                "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
                "https://github.com/acme/evals/actions/runs/101",
            ),
            (
                "candidate",
                "9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c",
                "https://github.com/acme/evals/actions/runs/102",
            ),
        ),
        history=(
            HistoryRow(
                label="look 1",
                outcome="No significant difference",
                effect="+2.1 pp [-1.2, 5.4]",
                pvalue="0.214",
                commit="1a2b3c4d5e6f",
                url=url("https://github.com/acme/evals/actions/runs/99"),
                at="2026-11-29 17:40 UTC",
            ),
        ),
        notes=(
            Markdown(
                "Baseline: artifact `evals` from run [101](https://github.com/acme/evals/actions/"
                "runs/101) of `main` at `3f2a9c1`, 2 commits behind the base commit `5d4c3b2`."
            ),
        ),
    )


REPOS = ["django", "sympy", "astropy", "requests", "flask"]


def regression() -> Scenario:
    cells = {"both_pass": 610, "fixed": 38, "broken": 127, "both_fail": 225}
    return Scenario(
        name="regression",
        paired=paired_from_cells(
            cells,
            ids=[f"{REPOS[i % 5]}__{REPOS[i % 5]}-{11000 + i}" for i in range(1000)],
            slices=REPOS,
            seed=3,
        ),
        config=_config(gate=GateConfig(max_broken=25)),
        item_url="https://logs.example/{id}",
        config_change=(
            "--- a/.evalbot.yml\n+++ b/.evalbot.yml\n@@ -3,4 +3,4 @@\n gate:\n"
            "-  max_broken: 25\n+  max_broken: 200\n"
        ),
    )


def inconclusive() -> Scenario:
    return Scenario(
        name="inconclusive",
        paired=paired_from_cells(WORKED, seed=1),
        config=_config(sample_size=500),
    )


def no_difference() -> Scenario:
    cells = {"both_pass": 150, "fixed": 12, "broken": 8, "both_fail": 30}
    return Scenario(name="no_difference", paired=paired_from_cells(cells, seed=2), config=_config())


def repeats() -> Scenario:
    return Scenario(name="repeats", paired=paired_repeats(120, 5), config=_config())


def hostile() -> Scenario:
    cells = {"both_pass": 10, "fixed": 12, "broken": 13, "both_fail": 5}
    return Scenario(
        name="hostile",
        paired=paired_from_cells(cells, ids=HOSTILE_IDS, slices=HOSTILE_IDS[:6], seed=4),
        config=_config(),
        item_url="https://logs.example/{id}",
    )


def costs_clusters_f1() -> Scenario:
    """Items in clusters, with a cost and per-item TP/FP/FN counts on both sides."""
    rng = np.random.default_rng(7)
    base = paired_from_cells({"both_pass": 70, "fixed": 14, "broken": 6, "both_fail": 30}, seed=3)
    n = len(base.ids)
    tp_b, tp_c = rng.integers(0, 5, n).astype(np.float64), rng.integers(1, 6, n).astype(np.float64)
    fp_b, fp_c = rng.integers(0, 3, n).astype(np.float64), rng.integers(0, 2, n).astype(np.float64)
    fn_b, fn_c = rng.integers(0, 3, n).astype(np.float64), rng.integers(0, 3, n).astype(np.float64)
    paired = replace(
        base,
        clusters=[f"doc-{i // 4:03d}" for i in range(n)],
        baseline_costs=np.round(rng.uniform(0.01, 0.05, n), 4),
        candidate_costs=np.round(rng.uniform(0.02, 0.06, n), 4),
        baseline_metrics={"tp": tp_b, "fp": fp_b, "fn": fn_b},
        candidate_metrics={"tp": tp_c, "fp": fp_c, "fn": fn_c},
    )
    return Scenario(
        name="costs_clusters_f1", paired=paired, config=replace(_config(), f1=F1Config())
    )


SCENARIOS: dict[str, Callable[[], Scenario]] = {
    "improvement": improvement,
    "regression": regression,
    "inconclusive": inconclusive,
    "no_difference": no_difference,
    "repeats": repeats,
    "hostile": hostile,
    "costs_clusters_f1": costs_clusters_f1,
}
