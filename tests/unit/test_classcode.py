"""evalbot.classcode: the compiled code of dataclasses' generated methods kept between runs.

The classes must be exactly what :mod:`dataclasses` makes without the cache: each case below
imports evalbot's record modules in a fresh interpreter (a class is made once a process) and
fingerprints every generated method (its whole code object as :mod:`marshal` writes it, its
annotations and defaults), without the cache, with an empty one (which writes the file) and
with the file written (which compiles nothing).
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

from evalbot import classcode
from evalbot.classcode import ClassCodeCache

REPO = Path(__file__).resolve().parents[2]

PROBE = """
import dataclasses, hashlib, json, marshal, sys
from pathlib import Path
from evalbot import classcode
cache = classcode.install(Path(sys.argv[1]))
import evalbot.analysis, evalbot.plan.config, evalbot.report.render, evalbot.report, evalbot.plan.state
prints = {}
for name, module in sorted(sys.modules.items()):
    if not name.startswith("evalbot"):
        continue
    for value in list(vars(module).values()):
        if not (isinstance(value, type) and dataclasses.is_dataclass(value)):
            continue
        if value.__module__ != name:
            continue
        methods = {}
        for method in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
            function = value.__dict__.get(method)
            if function is None or not hasattr(function, "__code__"):
                methods[method] = repr(function)
                continue
            code = function.__code__
            if hasattr(function, "__wrapped__"):  # __repr__ is wrapped by reprlib's guard
                code = function.__wrapped__.__code__
            methods[method] = [
                hashlib.sha256(marshal.dumps(code)).hexdigest(),
                repr(function.__annotations__),
                repr(function.__defaults__),
                repr(function.__kwdefaults__),
                code.co_filename,
            ]
        prints[f"{name}.{value.__qualname__}"] = methods
print(json.dumps({"classes": prints, "new": cache._new, "known": len(cache._known)}))
"""


def probe(cache: Path, *, use: bool = True, write: bool = True) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COV_CORE_", "COVERAGE_"))}
    env["PYTHONPATH"] = str(REPO)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("EVALBOT_NO_CLASSCODE", None)
    if not use:
        env["EVALBOT_NO_CLASSCODE"] = "1"
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(cache)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=env,
    )
    result: dict[str, object] = json.loads(proc.stdout.splitlines()[-1])
    return result


def test_cached_classes_are_the_classes_dataclasses_makes(tmp_path: Path) -> None:
    cache = tmp_path / "classcode.marshal"
    plain = probe(cache, use=False)
    assert not cache.exists()  # not installed: nothing written
    cold = probe(cache)
    assert cold["new"] is True and cache.exists()
    warm = probe(cache)
    assert warm["new"] is False  # every text read back, none compiled
    classes = plain["classes"]
    assert isinstance(classes, dict) and len(classes) > 50  # the records of a compare
    assert cold["classes"] == classes
    assert warm["classes"] == classes
    # the generated __init__'s annotations are evaluated names, as without the cache (the
    # cache's own module has ``from __future__ import annotations``, which must not leak)
    assert any(
        "'return': None" in methods["__init__"][1]
        for methods in classes.values()
        if isinstance(methods["__init__"], list)
    )


def test_nothing_written_without_bytecode_writing(tmp_path: Path) -> None:
    cache = tmp_path / "classcode.marshal"
    probe(cache, write=False)
    assert not cache.exists()


def test_a_damaged_or_foreign_file_is_ignored_and_replaced(tmp_path: Path) -> None:
    cache = tmp_path / "classcode.marshal"
    for data in (
        b"",
        b"garbage",
        classcode._HEAD + b"\x00\x01 not marshal",
        classcode._HEAD + marshal.dumps(["a list"]),
        classcode._HEAD + marshal.dumps({"x = 1": "not code", 3: compile("x = 1", "s", "exec")}),
        b"evalbot-classcode-1\n" + b"\x00\x00\r\n" + b"\n" + marshal.dumps({}),  # other Python
    ):
        cache.write_bytes(data)
        assert ClassCodeCache(cache)._known == {}
        result = probe(cache)
        assert result["new"] is True
        assert ClassCodeCache(cache)._known  # rewritten whole
    reference = probe(tmp_path / "other.marshal", use=False)
    assert probe(cache)["classes"] == reference["classes"]


def test_each_text_runs_its_own_code(tmp_path: Path) -> None:
    cache = ClassCodeCache(tmp_path / "c.marshal")
    first: dict[str, object] = {}
    second: dict[str, object] = {}
    cache("x = 1", {}, first)
    cache("x = 2", {}, second)
    cache("x = 1", {}, second)
    assert first == {"x": 1} and second == {"x": 1}
    assert len(cache._known) == 2
    # a code object (not a text) is run as given, and not kept
    cache(compile("y = 3", "<s>", "exec"), {}, first)
    assert first["y"] == 3 and len(cache._known) == 2


def test_the_cache_does_not_lend_its_future_flags(tmp_path: Path) -> None:
    cache = ClassCodeCache(tmp_path / "c.marshal")
    names: dict[str, object] = {}
    cache("def f(a: int) -> None: pass", {}, names)
    function = names["f"]
    assert function.__annotations__ == {"a": int, "return": None}  # type: ignore[attr-defined]


def test_saving_writes_once_and_only_when_new(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "c.marshal"
    cache = ClassCodeCache(path)
    cache.save()
    assert not path.exists()  # nothing compiled
    cache("x = 1", {}, {})
    write = sys.dont_write_bytecode
    try:
        sys.dont_write_bytecode = False
        cache.save()
    finally:
        sys.dont_write_bytecode = write
    assert path.exists()
    again = ClassCodeCache(path)
    assert set(again._known) == {"x = 1"}
    assert list(path.parent.iterdir()) == [path]  # nothing left aside


def test_an_unwritable_place_is_left_alone(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    cache = ClassCodeCache(blocker / "c.marshal")  # its folder cannot be made
    cache("x = 1", {}, {})
    write = sys.dont_write_bytecode
    try:
        sys.dont_write_bytecode = False
        cache.save()  # silently not written
    finally:
        sys.dont_write_bytecode = write
    assert blocker.read_text() == "not a folder"
    assert list(tmp_path.iterdir()) == [blocker]
