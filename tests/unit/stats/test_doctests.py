"""Run the worked examples in the docstrings of every stats module."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import evalbot.stats

MODULES = sorted(m.name for m in pkgutil.iter_modules(evalbot.stats.__path__, "evalbot.stats."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert failures == 0


def test_stats_imports_no_io() -> None:
    # Stats stays pure: only numpy, scipy and the stdlib (and itself).
    import ast
    from pathlib import Path

    allowed = {
        "numpy",
        "scipy",
        "evalbot",
        "__future__",
        "math",
        "collections",
        "dataclasses",
        "typing",
        "operator",
        "fractions",
        "functools",
        "itertools",
        "statistics",
    }
    for path in Path(evalbot.stats.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                root = name.split(".")[0]
                assert root in allowed, f"{path.name} imports {name}"
                if root == "evalbot":
                    # its own modules, and the plan's defaults and vocabularies, which import
                    # nothing (evalbot/vocabulary.py: defined once, read everywhere)
                    assert name.startswith("evalbot.stats") or name == "evalbot.vocabulary", (
                        f"{path.name} imports {name}"
                    )
