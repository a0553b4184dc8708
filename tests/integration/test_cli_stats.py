"""`evalbot compare` with the analyses beyond the primary test: BCa intervals, clusters, cost per
solved task, F1 from per-item counts, repeats. Every expected number names its reference."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

import numpy as np
import pytest

Run = Callable[..., CompletedProcess[str]]


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def compare_json(run_cli: Run, *args: str) -> dict[str, Any]:
    proc = run_cli("compare", "b.jsonl", "c.jsonl", "--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


# ---- 1. BCa ----------------------------------------------------------------------------------


def skewed_scores(n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Scores whose per-item differences are right-skewed (a shifted exponential), so the BCa
    interval visibly differs from the percentile one; all distinct, so no ties."""
    base = np.array([round((i * 37 % 100) / 100, 6) for i in range(n)])
    cand = np.array(
        [round(base[i] - 0.06 + 0.1 * -math.log(1 - (i * 53 % n + 0.5) / n), 6) for i in range(n)]
    )
    return base, cand


def test_bca_interval_from_config_and_flag(run_cli: Run, tmp_path: Path) -> None:
    base, cand = skewed_scores()
    write_jsonl(tmp_path / "b.jsonl", [{"id": f"q{i}", "score": v} for i, v in enumerate(base)])
    write_jsonl(tmp_path / "c.jsonl", [{"id": f"q{i}", "score": v} for i, v in enumerate(cand)])
    percentile = compare_json(run_cli)["difference"]
    flag = compare_json(run_cli, "--ci-method", "bca")["difference"]
    (tmp_path / "p.yml").write_text("bootstrap: {method: bca}\n")
    config = compare_json(run_cli, "--config", "p.yml")["difference"]
    assert percentile["method"] == "paired bootstrap (percentile, resampling items)"
    assert flag["method"] == "paired bootstrap (bca, resampling items)"
    assert config == flag  # the config key and the flag are the same setting
    # the flag overrides the plan
    back = compare_json(run_cli, "--config", "p.yml", "--ci-method", "percentile")["difference"]
    assert back == percentile
    # Reference: scipy.stats.bootstrap(method="BCa") on the per-item differences (another
    # random stream, 10,000 resamples). Measured over seeds 1-3 its endpoints varied by
    # < 0.0006, and BCa moved both endpoints of this right-skewed sample up by ~0.001.
    scipy_stats = pytest.importorskip("scipy.stats")
    reference = scipy_stats.bootstrap(
        (cand - base,),
        np.mean,
        method="BCa",
        n_resamples=10_000,
        confidence_level=0.95,
        random_state=np.random.default_rng(1),
    ).confidence_interval
    assert flag["estimate"] == pytest.approx(float(np.mean(cand - base)), abs=1e-12)
    assert flag["ci"][0] == pytest.approx(reference.low, abs=0.0008)
    assert flag["ci"][1] == pytest.approx(reference.high, abs=0.0008)
    assert flag["ci"][0] > percentile["ci"][0] and flag["ci"][1] > percentile["ci"][1]
    bad = run_cli("compare", "b.jsonl", "c.jsonl", "--ci-method", "bc")
    assert bad.returncode == 2
    assert "argument --ci-method: invalid choice: 'bc'" in bad.stderr
