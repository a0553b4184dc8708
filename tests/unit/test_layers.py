"""Data flows one way: a module imports only from its own layer or from lower ones.

The data flow is files -> results -> paired items -> stats -> policy (rules) -> report ->
render -> GitHub; the plan, the earlier looks and the sequence the commands share sit where
their inputs allow, and the action and the shell, which build and hand in every IO adapter,
sit on top. Following a parameter from ``cli.py`` to the output therefore never climbs back
up a layer: a call can only go down, to what the caller imports.

:data:`LAYERS` is written once, lowest first, with the reason for each; every module of
``evalbot/`` is in exactly one layer. Every import counts, the lazy ones inside functions and
those under ``TYPE_CHECKING`` included.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evalbot"


@dataclass(frozen=True)
class Layer:
    name: str
    modules: tuple[str, ...]  # globs relative to evalbot/
    reason: str


#: The layers, lowest first.
LAYERS = (
    Layer(
        "foundation",
        (
            "__init__.py",
            "errors.py",
            "vocabulary.py",
            "limits.py",
            "report/text.py",
            "plan/__init__.py",
            "plan/rates.py",
            "report/docs.py",
        ),
        "the words every layer shares (errors and exit codes, the plan's defaults and choices, "
        "size limits, Markdown and its escaping, rates, the README's URLs); they know no data",
    ),
    Layer(
        "results",
        (
            "pairing/__init__.py",
            "formats/model.py",
            "formats/builder.py",
            "formats/archive.py",
            "formats/ids.py",
            "formats/sources.py",
            "formats/*.py",
        ),
        "files -> Results, one run as read by one parser per harness: it knows no plan, "
        "no statistic and no decision",
    ),
    Layer(
        "paired",
        (
            "pairing/fingerprint.py",
            "pairing/pair.py",
            "pairing/subset.py",
        ),
        "two runs -> Paired items by id, and the sealed holdout set apart",
    ),
    Layer(
        "stats",
        ("stats/*.py",),
        "pure math on arrays: it knows neither files, nor results, nor the plan",
    ),
    Layer(
        "plan",
        ("plan/config.py",),
        "the plan (.evalbot.yml) as read: it says how results are read (field names, formats, "
        "id lists, the items' fingerprint), so it sits above them, and configures every later "
        "layer",
    ),
    Layer(
        "compare",
        ("compare/*.py",),
        "Paired + the plan -> Comparison, computed with stats",
    ),
    Layer(
        "looks",
        ("plan/ledger.py",),
        "a look and its records (a check run's digest, the comment's block), counted: what the "
        "policy judges a new look against",
    ),
    Layer(
        "policy",
        ("plan/policy.py",),
        "the plan applied: two runs -> the items it analyses -> Comparison -> Decision (with "
        "the earlier looks), one rule at a time",
    ),
    Layer(
        "sizing",
        ("plan/sizing.py",),
        "evalbot plan: the items a comparison needs, from the plan and the runs it pairs",
    ),
    Layer(
        "report",
        ("report/*.py",),
        "Comparison + Decision -> the JSON report and the View, in words and numbers",
    ),
    Layer(
        "render",
        ("report/render.py", "report/sandbox.py"),
        "the View -> Markdown and text (jinja2, sandboxed)",
    ),
    Layer(
        "github",
        ("github/*.py",),
        "where the input comes from and the output goes: GitHub's API, the event, the "
        "baseline search, the check runs (read back as the looks' tickets), the runner's "
        "settings, files, outputs and job summary",
    ),
    Layer(
        "action",
        ("action.py",),
        "one Actions run: its story and its outcomes, every IO adapter handed in",
    ),
    Layer(
        "shell",
        ("cli.py", "__main__.py"),
        "the commands: argv in, exit code out; they read the files and build the IO adapters",
    ),
)

#: Imports that climb a layer, each with its reason (none today). Key: "importer -> imported".
UPWARD: dict[str, str] = {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_map() -> dict[str, int]:
    """Each module of evalbot/ -> the index of its layer in :data:`LAYERS`: a module named
    exactly takes that layer; a glob claims the modules of its folder named nowhere exactly."""
    found: dict[str, int] = {}
    twice: list[str] = []
    for globs in (False, True):
        for index, layer in enumerate(LAYERS):
            for pattern in layer.modules:
                if ("*" in pattern) != globs:
                    continue
                for path in PACKAGE.glob(pattern):
                    name = module_name(path)
                    if name in found and not globs:
                        twice.append(name)
                    found.setdefault(name, index)
    assert twice == [], f"in two layers: {twice}"
    return found


def imports_of(source: str, name: str, modules: set[str], *, package: bool = False) -> set[str]:
    """The evalbot modules that the module ``name`` (a ``package``'s ``__init__``) imports in
    ``source``, anywhere in it: ``from a import b`` is ``a.b`` when that is a module, a name
    inside a module is that module."""
    here = name.split(".") if package else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                start = here[: len(here) - node.level + 1]
                base = ".".join([*start, base] if base else start)
            subs = [f"{base}.{alias.name}" for alias in node.names]
            names = [sub for sub in subs if sub in modules]
            if len(names) < len(subs):  # some names are not modules: they are base's
                names.append(base)
        else:
            continue
        for imported in names:
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported:
                found.add(imported)
    found.discard(name)
    return found


def imports_of_file(path: Path, modules: set[str]) -> set[str]:
    return imports_of(
        path.read_text(encoding="utf-8"),
        module_name(path),
        modules,
        package=path.name == "__init__.py",
    )


def test_every_module_is_in_one_layer() -> None:
    placed = layer_map()
    modules = {module_name(path) for path in PACKAGE.rglob("*.py")}
    assert sorted(modules - set(placed)) == [], "give these modules a layer in LAYERS"
    assert all(layer.reason for layer in LAYERS)


def test_the_import_reader_sees_every_import() -> None:
    source = (
        "from evalbot.report import text as md\n"
        "from evalbot.report.numbers import format_pvalue\n"
        "from . import records\n"
        "from .. import errors\n"
        "from ..stats import mcnemar\n"
        "import evalbot.plan.policy\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from evalbot.plan.config import Config\n"
        "def later():\n"
        "    from evalbot.github import GitHubClient\n"
    )
    modules = {
        "evalbot",
        "evalbot.plan.config",
        "evalbot.errors",
        "evalbot.github",
        "evalbot.plan.policy",
        "evalbot.report",
        "evalbot.report.numbers",
        "evalbot.report.records",
        "evalbot.report.view",
        "evalbot.stats",
        "evalbot.stats.mcnemar",
        "evalbot.report.text",
    }
    assert imports_of(source, "evalbot.report.view", modules) == {
        "evalbot.plan.config",
        "evalbot.errors",
        "evalbot.github",
        "evalbot.plan.policy",
        "evalbot.report.numbers",
        "evalbot.report.records",
        "evalbot.stats.mcnemar",
        "evalbot.report.text",
    }
    # in a package's __init__, ``.`` is the package itself
    assert imports_of("from .numbers import x\n", "evalbot.report", modules, package=True) == {
        "evalbot.report.numbers"
    }


def test_imports_never_climb_a_layer() -> None:
    placed = layer_map()
    modules = set(placed)
    upward: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = module_name(path)
        for imported in sorted(imports_of_file(path, modules)):
            if placed[imported] > placed[importer]:
                key = f"{importer} -> {imported}"
                upward[key] = (
                    f"{LAYERS[placed[importer]].name} imports {LAYERS[placed[imported]].name}"
                )
    unexplained = {key: why for key, why in upward.items() if key not in UPWARD}
    assert unexplained == {}, "an import climbs a layer: move the name down, or say why"
    assert sorted(set(UPWARD) - set(upward)) == []  # an entry fixed since: remove it


def test_the_layers_follow_the_data_flow() -> None:
    """The data flow's stages in the order the README and CONTRIBUTING give them."""
    order = [layer.name for layer in LAYERS]
    flow = ["results", "paired", "stats", "policy", "report", "render", "github"]
    assert [name for name in order if name in flow] == flow
    assert order[0] == "foundation" and order[-1] == "shell"
