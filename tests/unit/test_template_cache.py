"""The compiled bundled templates kept between runs (:class:`evalbot.report.sandbox.BundledCodeCache`).

Rendering from a kept entry gives the same bytes as compiling afresh; an entry is used only for
the same template text, jinja2, environment and Python; a broken entry, a folder that cannot be
written and ``PYTHONDONTWRITEBYTECODE`` each fall back to compiling, without an error.
"""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jinja2
import pytest

from evalbot.report.render import render
from evalbot.report.sandbox.environment import Sandbox, _fingerprint, environment
from evalbot.report.sandbox.files import _CODE_MAGIC, BUNDLED_CODE, BundledCodeCache, bundled_loader
from tests.golden.scenarios import SCENARIOS

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = ("text.j2", "comment.md.j2")
#: What :func:`evalbot.report.render.render` passes besides the view.
CONTEXT: dict[str, Any] = {"limit": None, "slice_limit": None, "mode": "cli"}


def mode_of(template: str) -> Any:
    return "markdown" if template.endswith(".md.j2") else "text"


def cached(template: str, folder: Path) -> Sandbox:
    return environment(mode_of(template), bundled_loader(), code_cache=folder)


def refuse_compiling(env: Sandbox) -> None:
    def compile_again(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("compiled although a kept entry was there")

    env.compile = compile_again  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def writes_bytecode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # Python's default


@pytest.mark.parametrize("template", TEMPLATES)
def test_a_kept_entry_renders_the_same_bytes_without_compiling(
    template: str, tmp_path: Path
) -> None:
    views = [make().view() for make in SCENARIOS.values()]
    fresh = environment(mode_of(template), bundled_loader())  # no cache at all
    expected = [fresh.get_template(template).render(v=view, **CONTEXT) for view in views]

    first = cached(template, tmp_path)
    assert [first.get_template(template).render(v=v, **CONTEXT) for v in views] == expected
    assert list(tmp_path.glob("*.jinja2.cache"))  # written on the first compile

    again = cached(template, tmp_path)  # a new environment: as in the next run
    refuse_compiling(again)
    assert [again.get_template(template).render(v=v, **CONTEXT) for v in views] == expected


def test_an_entry_serves_only_its_own_environment_and_text(tmp_path: Path) -> None:
    view = next(iter(SCENARIOS.values()))().view()
    kept = cached("text.j2", tmp_path).get_template("text.j2").render(v=view, **CONTEXT)

    # the same name and text compiled under other settings (here trim_blocks, which changes
    # the output): another entry, never the first one's code
    def loose(cache: bool) -> str:
        env = Sandbox(loader=bundled_loader(), undefined=jinja2.StrictUndefined)
        env.filters.update(environment("text", bundled_loader()).filters)
        if cache:
            env.bytecode_cache = BundledCodeCache(_fingerprint(env, "text"), tmp_path)
        return env.get_template("text.j2").render(v=view, **CONTEXT)

    assert loose(cache=True) == loose(cache=False) != kept
    assert len(list(tmp_path.glob("*.jinja2.cache"))) == 2
    # the mode is part of the entry's key too
    plain = environment("text", bundled_loader())
    assert _fingerprint(plain, "markdown") != _fingerprint(plain, "text")

    # another text under the same name: jinja2 checks the text's checksum and compiles afresh
    changed = environment(
        "text", jinja2.DictLoader({"text.j2": "changed {{ 1 + 1 }}\n"}), code_cache=tmp_path
    )
    assert changed.get_template("text.j2").render() == "changed 2\n"


def test_a_broken_entry_is_compiled_afresh(tmp_path: Path) -> None:
    view = next(iter(SCENARIOS.values()))().view()
    expected = (
        environment("text", bundled_loader()).get_template("text.j2").render(v=view, **CONTEXT)
    )
    cached("text.j2", tmp_path).get_template("text.j2")
    (entry,) = tmp_path.glob("*.jinja2.cache")
    whole = entry.read_bytes()
    head = whole[: whole.index(b"\n", len(_CODE_MAGIC)) + 1]  # the magic and the checksum
    others = (whole[:40], whole[:-9], b"", b"not an entry at all", head + marshal.dumps(1))
    for broken in others:
        entry.write_bytes(broken)
        assert (
            cached("text.j2", tmp_path).get_template("text.j2").render(v=view, **CONTEXT)
            == expected
        )


def test_a_folder_that_cannot_be_written_only_costs_the_compile(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder\n", encoding="utf-8")
    env = cached("text.j2", blocked / "cache")
    view = next(iter(SCENARIOS.values()))().view()
    assert env.get_template("text.j2").render(v=view, **CONTEXT)
    assert not (blocked / "cache").exists()


def test_dont_write_bytecode_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cached("text.j2", tmp_path).get_template("text.j2")
    assert list(tmp_path.iterdir()) == []


def test_an_entry_is_readable_by_all_and_leaves_nothing_aside(tmp_path: Path) -> None:
    cached("text.j2", tmp_path).get_template("text.j2")
    (entry,) = tmp_path.iterdir()  # no temporary file left beside it
    assert entry.name.endswith(".jinja2.cache")
    assert entry.stat().st_mode & 0o777 == 0o644


def test_the_cli_keeps_its_templates_beside_them() -> None:
    # a real run in a fresh interpreter, with Python's default of writing compiled code
    assert BUNDLED_CODE == REPO / "evalbot" / "report" / "templates" / "__pycache__"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)
    code = (
        "import io; from evalbot.cli import main; "
        "main(['compare', '--example', '--format', 'text'], io.StringIO())"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)
    assert list(BUNDLED_CODE.glob("*.jinja2.cache"))
    # and the bundled render reads them
    assert render("text.j2", next(iter(SCENARIOS.values()))().view())
