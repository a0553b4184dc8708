"""Which parts of scipy evalbot needs: ``scipy.special`` and what it loads, nothing else.

The action's image keeps only ``scipy``'s top-level modules, ``scipy._lib`` and
``scipy.special`` (the Dockerfile deletes the other subpackages and calls every function
below in a smoke check). This pins that:

* every scipy import in evalbot's source is ``from scipy.special import <name>`` with a name
  in :data:`SPECIAL` (the Dockerfile's smoke check names the same functions);
* in a fresh interpreter, running the statistics surface (every docstring example of every
  evalbot module, the golden report scenarios, and calls that reach each function importing
  from scipy: BCa intervals, the paired t test, Cohen's d_z, the sequential test and
  confidence sequence, a score side's t interval) loads no scipy module outside
  ``scipy._lib`` and ``scipy.special`` (a later ``import scipy.stats`` or ``scipy.linalg``,
  here or inside a new scipy, fails this);
* the default pass/fail comparison loads no scipy at all.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: The scipy.special functions evalbot calls (kept equal to the Dockerfile's smoke check).
SPECIAL = {"ndtr", "ndtri", "stdtr", "stdtrit", "nctdtr", "nctdtrinc", "betaln"}
#: scipy's modules outside a subpackage that ``import scipy.special`` loads.
TOP_LEVEL = {
    "scipy",
    "scipy.__config__",
    "scipy.version",
    "scipy._distributor_init",
    "scipy._cyutility",
}

SURFACE = r"""
import doctest, importlib, io, json, pkgutil, sys
import numpy as np
import evalbot

for info in pkgutil.walk_packages(evalbot.__path__, "evalbot."):
    if info.name.endswith("__main__"):
        continue
    module = importlib.import_module(info.name)
    failures, _ = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert failures == 0, info.name

from tests.golden.scenarios import SCENARIOS
for make in SCENARIOS.values():
    make().view()

from evalbot import stats
from evalbot.compare.primary import side_score
rng = np.random.default_rng(0)
base = rng.normal(0.5, 0.2, 300)
cand = base + rng.normal(0.02, 0.1, 300)
stats.paired_bootstrap_mean(base, cand, method="bca", n_resamples=200)
stats.paired_bootstrap_mean(base > 0.5, cand > 0.5, method="bca", n_resamples=200)
for method in ("auto", "studentized", "sign-flip"):
    stats.paired_mean_test(base, cand, method=method, n_resamples=200)
stats.paired_mean_test(np.tile(base, 5), np.tile(cand, 5))
stats.studentized_mean_test(base, cand, skewness_correction=True)
stats.cohens_dz(base, cand)
stats.mixture_sprt(30, 12)
stats.sequential_pvalues([3, 9, 20], [1, 4, 8])
stats.confidence_sequence(30, 12, 200)
stats.confidence_sequence_path([3, 9, 20], [1, 4, 8], [40, 90, 200])
stats.mean_of_means_interval(rng.random(50), 5)
side_score(base, 0.95)
print(json.dumps(sorted(sys.modules)))
"""

PASS_FAIL = r"""
import io, json, sys
from evalbot.cli import main
for fmt in ("json", "text", "markdown"):
    assert main(["compare", sys.argv[1], sys.argv[2], "--format", fmt], io.StringIO()) in (0, 1)
print(json.dumps(sorted(sys.modules)))
"""


def run(code: str, *args: str) -> set[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("COV_CORE_", "COVERAGE_"))
    }
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
        env=env,
    )
    return set(json.loads(proc.stdout.splitlines()[-1]))


def scipy_imports() -> list[tuple[str, int, str, list[str]]]:
    found = []
    for path in sorted((REPO / "evalbot").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.split(".")[0] == "scipy"]
                found += [(str(path), node.lineno, name, []) for name in names]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "scipy":
                found.append(
                    (str(path), node.lineno, node.module or "", [a.name for a in node.names])
                )
    return found


def test_evalbot_imports_only_scipy_special() -> None:
    imports = scipy_imports()
    assert imports, "no scipy import found: drop scipy from the image and this test"
    for path, line, module, names in imports:
        assert module == "scipy.special", f"{path}:{line} imports {module}"
        assert set(names) <= SPECIAL, (
            f"{path}:{line} imports {names}: add them to SPECIAL and the Dockerfile"
        )


def test_dockerfile_smoke_check_names_the_same_functions() -> None:
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    match = re.search(r"from scipy\.special import ([\w, ]+)", dockerfile)
    assert match, "the Dockerfile's smoke check of scipy.special is missing"
    assert {name.strip() for name in match.group(1).split(",")} == SPECIAL


def test_the_statistics_surface_loads_only_scipy_special() -> None:
    modules = {m for m in run(SURFACE) if m.split(".")[0] == "scipy"}
    assert "scipy.special" in modules  # the surface does reach it
    outside = {
        m
        for m in modules
        if m not in TOP_LEVEL and not m.startswith(("scipy._lib", "scipy.special"))
    }
    assert outside == set()


def test_a_pass_fail_comparison_loads_no_scipy() -> None:
    pair = REPO / "bench" / "data" / "swebench-verified"
    modules = run(PASS_FAIL, str(pair / "baseline.jsonl"), str(pair / "candidate.jsonl"))
    assert {m for m in modules if m.split(".")[0] == "scipy"} == set()
