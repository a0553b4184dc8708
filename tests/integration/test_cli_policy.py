"""The plan's command-line wiring: `plan --config`, `--holdout`, `--state-from`/`--head-sha`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

from evalbot.plan.ledger import parse_state
from tests.integration.test_cli import WORKED, write_pair

Run = Callable[..., CompletedProcess[str]]


def test_plan_from_config(run_cli: Run, tmp_path: Path) -> None:
    (tmp_path / "c.yml").write_text("plan: {fix_rate: 0.08, break_rate: 0.03}\n")
    proc = run_cli("plan", "--config", "c.yml", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["items"] == 367  # the exact test's size (test_power.py)
    (tmp_path / "m.yml").write_text("mcnemar: midp\nplan: {fix_rate: 0.08, break_rate: 0.03}\n")
    midp = json.loads(run_cli("plan", "--config", "m.yml", "--format", "json").stdout)
    assert (midp["test"], midp["items"]) == ("McNemar (midp)", 335)
    # flags override the plan's rates; the plan's test (mid-p) stays
    flags = run_cli("plan", "--config", "m.yml", "--fix-rate", "8%", "--break-rate", "3%")
    assert flags.stdout.startswith("335 items to detect +5.0 pp"), flags.stderr
    bad = run_cli("plan", "--config", "c.yml", "--fix-rate", "0.1")
    assert bad.returncode == 2
    assert "--fix-rate and --break-rate go together" in bad.stderr
    (tmp_path / "d.yml").write_text("alpha: 0.05\n")
    none = run_cli("plan", "--config", "d.yml")
    assert (
        none.returncode == 2 and "d.yml has no `plan:` section; say what to detect" in none.stderr
    )


def test_holdout_and_looks(run_cli: Run, tmp_path: Path) -> None:
    b, c = write_pair(tmp_path, WORKED)
    ids = [f"item-{n:05d}" for n in range(351, 401)]
    (tmp_path / "sealed.txt").write_text("\n".join(ids) + "\n")
    (tmp_path / "c.yml").write_text(
        "policy: {max_looks: 1}\nholdout: {ids_file: sealed.txt, max_uses: 1}\n"
    )
    regular = run_cli("compare", str(b), str(c), "--config", "c.yml", "--format", "json")
    assert regular.returncode == 0, regular.stderr
    assert json.loads(regular.stdout)["items"] == 350
    sealed = run_cli(
        "compare", str(b), str(c), "--config", "c.yml", "--format", "json", "--holdout"
    )
    assert json.loads(sealed.stdout)["items"] == 50
    missing = run_cli("compare", str(b), str(c), "--holdout")
    assert missing.returncode == 2
    assert "the holdout was requested but the plan has no" in missing.stderr
    (tmp_path / "comment.md").write_text("<!-- evalbot-state:v1 e30= -->")  # '{}': bad version
    looked = run_cli(
        "compare", str(b), str(c), "--config", "c.yml", "--format", "json",
        "--state-from", "comment.md", "--head-sha", "a" * 40,
    )  # fmt: skip
    assert looked.returncode == 0, looked.stderr
    assert parse_state("<!-- evalbot-state:v1 e30= -->").warning is not None
