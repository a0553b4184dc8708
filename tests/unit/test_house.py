"""The house rules that keep the code livable: pure layers do no IO, functions stay short, and
the independent oracles of the tests are installed (a missing test extra fails,
never skips)."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evalbot"

#: The layers that compute without touching the outside world (STYLE.md: data flows one way;
#: the shell, the action and the GitHub module do the IO and hand the data in).
PURE = [
    "compare/*.py",
    "formats/*.py",
    "github/events.py",
    "limits.py",
    "pairing/*.py",
    "plan/config.py",
    "plan/ledger.py",
    "plan/policy.py",
    "plan/rates.py",
    "plan/sizing.py",
    "report/*.py",
    "stats/*.py",
    "vocabulary.py",
]
#: Modules of those folders that do IO.
IMPURE = {"formats/archive.py", "formats/sources.py", "report/render.py", "report/sandbox.py"}

#: Modules whose import means IO: files, processes, sockets, HTTP, GitHub, the environment.
IO_MODULES = {
    "builtins",
    "ftplib",
    "glob",
    "github",
    "http",
    "importlib",
    "os",
    "pathlib",
    "requests",
    "shutil",
    "smtplib",
    "socket",
    "subprocess",
    "sys",
    "tempfile",
    "urllib.request",
    "urllib3",
}
#: evalbot's own modules that do IO (or import the ones that do).
IO_EVALBOT = {
    "evalbot.action",
    "evalbot.github.runner",
    "evalbot.cli",
    "evalbot.github.checks",
    "evalbot.github.client",
    "evalbot.github.download",
    "evalbot.github.errors",
    "evalbot.report.render",
    "evalbot.formats.sources",
    "evalbot.report.sandbox",
}
#: Builtins that reach the outside world when called.
IO_CALLS = {"open", "input", "print", "exec", "eval", "__import__", "breakpoint"}


def pure_modules() -> list[Path]:
    found = sorted(
        {path for pattern in PURE for path in PACKAGE.glob(pattern)}
        - {PACKAGE / name for name in IMPURE}
    )
    assert len(found) > 20  # the globs still match the tree
    return found


def _is_io(module: str) -> bool:
    parts = module.split(".")
    prefixes = {".".join(parts[: i + 1]) for i in range(len(parts))}
    return bool(prefixes & (IO_MODULES | IO_EVALBOT))


def io_uses(path: Path) -> list[str]:
    """Every import of an IO module and every call of an IO builtin in ``path``."""
    uses: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            # one group per imported module: ``import a, b``
            groups = [[alias.name] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative imports stay inside evalbot's pure packages
                continue
            # ``from a import b`` may import the module ``a.b``
            groups = [[node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in IO_CALLS:
                uses.append(f"calls {node.func.id}()")
            continue
        else:
            continue
        for group in groups:
            hit = next((module for module in group if _is_io(module)), None)
            if hit is not None:
                uses.append(f"imports {hit}")
    return uses


@pytest.mark.parametrize("path", pure_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_pure_layers_do_no_io(path: Path) -> None:
    assert io_uses(path) == []


def test_the_purity_check_sees_io(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os.path\nfrom subprocess import run\nfrom evalbot.github import client\n"
        "from urllib import request\nfrom urllib.parse import quote\nopen('x')\n"
    )
    assert io_uses(sample) == [
        "imports os.path",
        "imports subprocess",
        "imports evalbot.github.client",
        "imports urllib.request",
        "calls open()",
    ]


#: The HTTP libraries: only ``evalbot/github/`` talks to GitHub.
HTTP_LIBRARIES = ("github", "requests", "urllib3")


def _http_imports(path: Path) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        found += [n for n in names if n.split(".")[0] in HTTP_LIBRARIES]
    return found


def test_only_the_github_package_imports_the_http_libraries() -> None:
    """PyGithub, requests and urllib3 are imported by ``evalbot/github/`` and nowhere else
    in the package: every call to GitHub, every translated error, one place."""
    outside = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.parent != PACKAGE / "github" and (found := _http_imports(path))
    }
    inside = {name for path in (PACKAGE / "github").glob("*.py") for name in _http_imports(path)}
    assert outside == {}
    assert {name.split(".")[0] for name in inside} == set(HTTP_LIBRARIES)  # the check sees them


#: Lines a function's body may have (its docstring not counted) before it must be cut up or
#: say why it is not.
MAX_FUNCTION_LINES = 60
#: Functions over the limit, each with its reason. Remove an entry when the function is cut up.
LONG_FUNCTIONS: dict[str, str] = {}


def function_lengths(path: Path) -> dict[str, int]:
    """Every function and method of ``path`` (nested ones too, named ``outer.inner``) and the
    lines of its body, from its first statement after the docstring to its last line."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                body = child.body
                if ast.get_docstring(child, clean=False) is not None:
                    body = body[1:]
                end = child.end_lineno or child.lineno
                lengths[prefix + child.name] = end - body[0].lineno + 1 if body else 0
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return lengths


def test_the_length_count_reads_bodies(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        'def documented():\n    """A docstring\n    of three\n    lines."""\n    x = 1\n'
        "    return x\n\n\nclass Holder:\n    def method(self):\n        def inner():\n"
        "            pass\n\n        return inner\n\n\nasync def waits():\n    pass\n"
    )
    assert function_lengths(sample) == {
        "documented": 2,  # the docstring is not counted
        "Holder.method": 4,  # a nested function counts in its parent too
        "Holder.method.inner": 1,
        "waits": 1,
    }


def test_functions_stay_short() -> None:
    """No function in evalbot/ has a body over about 60 lines unless LONG_FUNCTIONS says why;
    an entry that is short now must go."""
    long = {
        f"{path.relative_to(PACKAGE)}:{name}": lines
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, lines in function_lengths(path).items()
        if lines > MAX_FUNCTION_LINES
    }
    unexplained = {name: lines for name, lines in long.items() if name not in LONG_FUNCTIONS}
    assert unexplained == {}, f"cut these up, or give a reason in LONG_FUNCTIONS: {unexplained}"
    stale = sorted(set(LONG_FUNCTIONS) - set(long))
    assert stale == [], f"short now: remove them from LONG_FUNCTIONS: {stale}"


def test_the_test_extra_is_installed() -> None:
    """Every package of the ``test`` extra is installed: the oracles (scipy, statsmodels,
    jsonschema, markdown-it-py) are imported by the tests without ``importorskip``, so a missing
    one would fail those tests; this says which."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [
        re.split(r"[^A-Za-z0-9._-]", spec, maxsplit=1)[0]
        for spec in project["optional-dependencies"]["test"]
    ]
    assert {"statsmodels", "jsonschema", "markdown-it-py", "hypothesis"} <= set(names)
    missing = []
    for name in names:
        try:
            importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
    assert missing == [], f"install the test extra: pip install -e '.[test]' (missing {missing})"


def test_no_test_skips_a_missing_oracle() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if "importorskip" in path.read_text(encoding="utf-8") and path != Path(__file__)
    ]
    assert offenders == []


def test_pre_commit_runs_what_ci_runs() -> None:
    """The pre-commit hooks are local (nothing fetched) and run CI's lint commands, no fewer."""
    import yaml

    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert [repo["repo"] for repo in config["repos"]] == ["local"]
    hooks = {
        hook["entry"].replace(" --force-exclude", "")
        for repo in config["repos"]
        for hook in repo["hooks"]
    }
    ci_lines = {line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()}
    ci_lint = {
        line.removesuffix(" .") for line in ci_lines if line.split(" ")[0] in ("ruff", "mypy")
    }
    assert ci_lint == {"ruff check", "ruff format --check", "mypy"}
    assert hooks == ci_lint


def test_every_no_cover_pragma_gives_its_reason() -> None:
    """``# pragma: no cover - why`` only: a line left unmeasured says why it cannot run."""
    bare = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if "pragma: no cover" in line and not re.search(r"pragma: no cover - \w", line)
    ]
    assert bare == []


# --- the size goal's count ----------------------------------------------------------------------

COUNTED = '''"""A module docstring,
on two lines."""

import os  # a comment after code


# a comment on its own line
def f(x):
    """A docstring."""
    text = """not a docstring:
    a string the code uses"""
    return (x,
            text)


class C:
    """A class docstring."""

    y = os.sep
'''


def test_code_lines_leave_out_docstrings_comments_and_blank_lines(tmp_path: Path) -> None:
    """Counted by hand: ``import os``, ``def f``, the two lines of ``text``, the two of
    ``return``, ``class C`` and ``y``: 8 a file; the script prints the total of the files."""
    (tmp_path / "a.py").write_text(COUNTED, encoding="utf-8")
    (tmp_path / "b.py").write_text(COUNTED, encoding="utf-8")
    script = PACKAGE.parent / "scripts" / "count_lines.py"
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert done.stdout == "16\n"
    listed = subprocess.run(
        [sys.executable, str(script), "-v", str(tmp_path / "a.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert listed.stdout == f"     8 {tmp_path / 'a.py'}\n8\n"
