"""A user's template (``report.template``): what it prints raw (only Markdown), what it can
read (its own folder and the bundled macros), and the limits that stop it (time, output,
memory, nesting), each failure one ConfigError line naming the template."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import jinja2
import pytest

from evalbot.errors import ConfigError
from evalbot.report import render as render_module
from evalbot.report.render import UserTemplate, render_comment, render_markdown
from evalbot.report.sandbox import (
    BUNDLED_CODE,
    BUNDLED_TEMPLATES,
    Limits,
    Sandbox,
    TemplateFolder,
    TemplateLimitError,
    TemplateTimeout,
    environment,
    render_limited,
)
from tests.golden.scenarios import MARKER, SCENARIOS
from tests.inert import assert_inert

VIEW = SCENARIOS["hostile"]().view()
#: Small limits; time enough that only the tests of the time limit (``TIMED``) meet it.
SMALL = Limits(seconds=600, output_chars=100_000, memory_bytes=256 << 20, macro_depth=20)
TIMED = replace(SMALL, seconds=0.5)


def render(source: str, limits: Limits = SMALL, **context: Any) -> str:
    env = environment("markdown", TemplateFolder(lambda relative: None), limits=limits)
    return render_limited(env, source, {"v": VIEW, **context}, limits)


def user(tmp_path: Path, source: str, **files: str) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    path = tmp_path / "mine.md.j2"
    path.write_text(source)
    return path


def failure(template: Path | UserTemplate) -> str:
    with pytest.raises(ConfigError) as error:
        render_markdown(VIEW, template=template)
    message = str(error.value)
    assert "\n" not in message
    return message


# ---- what prints raw ----------------------------------------------------------------------


def test_input_is_escaped_without_the_md_filter() -> None:
    ids = [e.id for lst in VIEW.lists for e in lst.entries]
    out = render(
        "{% for lst in v.lists %}{% for e in lst.entries %}- {{ e.id }}\n{% endfor %}"
        "{% endfor %}{% for s in v.slices %}| {{ s.name }} |\n{% endfor %}"
    )
    assert_inert(out)
    assert out.count("\n- ") + 1 >= len(ids)


def test_evalbots_markdown_and_macros_print_as_they_are() -> None:
    out = render('{% import "macros.md.j2" as m %}{{ v.effect }}|{{ m.footer(v) }}|{{ 7 }}')
    assert out.startswith(f"{VIEW.effect}|<sub>")
    assert "`" + VIEW.fingerprint + "`" in out


@pytest.mark.parametrize(
    "source",
    [
        '{{ "<img src=x>" }}',
        '{{ "<img src=x>" | safe }}',
        '{{ "{}".format("<img src=x>") }}',
        '{{ v.effect.format("<img src=x>") ~ "<img src=x>" }}',
        '{{ ["<img src=x>"] | join(" ") }}',
        '{{ "<img src=x>" | replace("x", "y") }}',
        "{% set t %}{{ '<img src=x>' }}{% endset %}{{ t }}",
        '{{ "<img src=x>" | fmt(">20") }}',
        '{{ v.lists[0] | fmt("") }}',
    ],
)
def test_no_way_to_print_a_string_raw(source: str) -> None:
    assert_inert(render(source))


def test_fmt_formats_numbers_and_refuses_a_fill_character() -> None:
    assert render('{{ 0.0412 | fmt("+.1%") }}|{{ 1234 | fmt(",") }}|{{ 3 | fmt(">3") }}') == (
        "+4.1%|1,234|  3"
    )
    with pytest.raises(ValueError, match="not a format spec without a fill character"):
        render('{{ 3 | fmt("@>9") }}')


def test_join_keeps_markdown_and_escapes_the_rest() -> None:
    assert render('{{ [v.effect, "@a"] | join(" · ") }}') == f"{VIEW.effect} · \\@\u2060a"


def test_a_users_marker_block_is_broken_and_the_real_marker_kept(tmp_path: Path) -> None:
    path = user(
        tmp_path,
        "{{ marker }}\n<!-- evalbot-state:v1 eyJ2IjogMX0= -->\n<!--evalbot:other -->\n",
    )
    text = render_comment(VIEW, marker=MARKER, template=path)
    assert text.startswith(MARKER + "\n")
    assert_inert(text, own_markers=[MARKER])


# ---- what it can read ----------------------------------------------------------------------


def test_it_includes_its_own_folder_and_the_bundled_macros(tmp_path: Path) -> None:
    path = user(
        tmp_path,
        '{% import "macros.md.j2" as m %}{% include "part.j2" %}|'
        '{% include "./parts/deep.j2" %}|{{ m.footer(v) | length > 0 }}',
        **{"part.j2": "part {{ v.items }}", "parts/deep.j2": "deep"},
    )
    assert render_markdown(VIEW, template=path) == f"part {VIEW.items}|deep|True"


@pytest.mark.parametrize(
    "name",
    [
        "../secret.j2",
        "parts/../../secret.j2",
        "/etc/hostname",
        "../../proc/self/environ",
        "/proc/self/environ",
        "..\\\\secret.j2",  # the template says ..\\secret.j2: a backslash
        "comment.md.j2",  # a bundled template other than the macros: not served
    ],
)
def test_it_reads_nothing_outside_its_folder(tmp_path: Path, name: str) -> None:
    (tmp_path / "secret.j2").write_text("SECRET")
    folder = tmp_path / "t"
    folder.mkdir()
    message = failure(user(folder, f'{{% include "{name}" %}}'))
    assert message.startswith(f"{folder / 'mine.md.j2'}: report template failed: ")
    assert "SECRET" not in message
    assert "outside the template's folder" in message or "no such file" in message


def test_a_symbolic_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "secret.j2").write_text("SECRET")
    folder = tmp_path / "t"
    folder.mkdir()
    os.symlink(tmp_path / "secret.j2", folder / "link.j2")
    os.symlink(folder / "inside.j2", folder / "alias.j2")
    (folder / "inside.j2").write_text("inside")
    assert render_markdown(VIEW, template=user(folder, '{% include "alias.j2" %}')) == "inside"
    message = failure(user(folder, '{% include "link.j2" %}'))
    assert "symbolic link out of the template's folder" in message


def test_the_action_reads_the_folder_through_its_reader() -> None:
    asked: list[str] = []

    def read(relative: str) -> str | None:
        asked.append(relative)
        return {"part.j2": "part", "sub/x.j2": "x"}.get(relative)

    template = UserTemplate(
        name=".github/t.md.j2@abc1234",
        text='{% include "part.j2" %}{% include "sub/./x.j2" %}{% include "../y.j2" %}',
        folder=TemplateFolder(read),
    )
    message = failure(template)
    assert message.startswith(".github/t.md.j2@abc1234: report template failed: '../y.j2' is ")
    assert asked == ["part.j2", "sub/x.j2"]  # read once each (before the clock), never ../y.j2


def test_a_syntax_error_in_an_included_file_names_both(tmp_path: Path) -> None:
    path = user(tmp_path, '{% include "part.j2" %}', **{"part.j2": "ok\n{{ v.effect "})
    assert failure(path) == (
        f"{path}: part.j2:2: report template: unexpected end of template, expected 'end of "
        "print statement'."
    )


def test_without_a_folder_only_the_macros_are_served() -> None:
    template = UserTemplate(name="t@1", text='{% include "x.j2" %}')
    assert "no such file in the template's folder" in failure(template)


# ---- the limits ----------------------------------------------------------------------------


LOOP = "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}"


def test_a_loop_without_output_is_stopped_on_the_main_thread() -> None:
    before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(TemplateTimeout):
        render(LOOP, TIMED)
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_loop_over_a_list_is_stopped_off_the_main_thread() -> None:
    """No call in the loop (so no sandbox hook runs): the thread's own tracer stops it."""
    source = (
        "{% set x = range(99999) | list %}{% for i in x %}{% for j in x %}{% endfor %}{% endfor %}"
    )
    caught: list[BaseException] = []

    def work() -> None:
        try:
            render(source, TIMED)
        except BaseException as error:
            caught.append(error)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(600)  # against a hang, not a budget: the limit is 0.5 s
    assert not thread.is_alive()
    assert [type(e) for e in caught] == [TemplateTimeout]
    assert render("{{ 1 + 1 }}") == "2"  # nothing pending is left behind


def test_a_quick_rendering_leaves_no_timer_behind() -> None:
    before = signal.getsignal(signal.SIGALRM)
    for _ in range(20):
        assert render("{{ v.items }}", SMALL) == str(VIEW.items)
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert signal.getsignal(signal.SIGALRM) is before
    # off the main thread: the tracer is the thread's own and is taken back with the rendering
    traces: list[bool] = []

    def quick() -> None:
        before = sys.gettrace()  # a coverage tool's tracer of this thread, or None
        render("{{ 1 }}")
        traces.append(sys.gettrace() is before)

    threads = [threading.Thread(target=quick) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert traces == [True] * 5


@pytest.mark.parametrize(
    "source",
    [
        "{% for i in range(99999) %}{% for j in range(99999) %}0123456789{% endfor %}{% endfor %}",
        '{{ "x" * 10000000000 }}',
        '{{ "%0999999999d" % 1 }}',
        '{{ ["x"] * 10000000000 }}',
        "{{ 2 ** 100000 }}",
    ],
)
def test_output_past_the_limit_is_stopped(source: str) -> None:
    with pytest.raises((TemplateLimitError, MemoryError)):
        render(source)


def test_memory_past_the_limit_is_stopped() -> None:
    doubling = (
        '{% set ns = namespace(s="x") %}{% for i in range(45) %}{% set ns.s = ns.s ~ ns.s %}'
        "{% endfor %}{{ ns.s | length }}"
    )
    with pytest.raises(MemoryError):
        render(doubling)
    assert render("{{ v.items }}") == str(VIEW.items)  # the limit is lifted afterwards


def test_a_macro_calling_itself_is_stopped() -> None:
    with pytest.raises(TemplateLimitError, match="macros nested deeper than 20"):
        render("{% macro r() %}{{ r() }}{% endmacro %}{{ r() }}")


@pytest.mark.parametrize(
    ("source", "files", "says"),
    [
        (
            LOOP,
            {},
            "ran for more than 0.5 s (a loop without end?); that is a limit of `report.template`",
        ),
        (
            "{% macro r() %}{{ r() }}{% endmacro %}{{ r() }}",
            {},
            "macros nested deeper than 100",
        ),
        ('{% include "self.j2" %}', {"self.j2": '{% include "self.j2" %}'}, "nests too deep"),
        ('{{ "x" * 10000000000 }}', {}, "a sequence over 1,048,576 items"),
        ("{{ v.items + 'x' }}", {}, "TypeError: unsupported operand"),
        ("{{ lipsum(10) }}", {}, "'lipsum' is undefined"),
    ],
)
def test_each_failure_is_one_line_naming_the_template(
    tmp_path: Path, source: str, files: dict[str, str], says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seconds = 0.5 if source == LOOP else 600  # the others stop long before
    monkeypatch.setattr(render_module, "TEMPLATE_LIMITS", Limits(seconds=seconds))
    message = failure(user(tmp_path, source, **files))
    assert message.startswith(f"{tmp_path / 'mine.md.j2'}: report template failed: ")
    assert says in message


def test_macros_made_by_the_template_are_markdown() -> None:
    env = environment("markdown", TemplateFolder(lambda relative: None), limits=SMALL)
    out = render_limited(env, "{% macro b(x) %}**{{ x }}**{% endmacro %}{{ b('@a') }}", {}, SMALL)
    assert out == "**\\@\u2060a**"
    assert isinstance(render("{% macro b() %}x{% endmacro %}{% set y = b() %}{{ y }}"), str)


# ---- the bundled templates' compiled code, kept beside them ----------------------------------

TEMPLATES = ("text.j2", "comment.md.j2")
#: What :func:`evalbot.report.render.render` passes besides the view.
CONTEXT: dict[str, Any] = {"limit": None, "slice_limit": None, "mode": "cli"}


def _mode(template: str) -> Any:
    return "markdown" if template.endswith(".md.j2") else "text"


def _kept(template: str, folder: Path) -> Sandbox:
    return environment(
        _mode(template), jinja2.FileSystemLoader(BUNDLED_TEMPLATES), code_cache=folder
    )


def _fresh(template: str) -> str:
    env = environment(
        _mode(template), jinja2.FileSystemLoader(BUNDLED_TEMPLATES)
    )  # no cache at all
    return env.get_template(template).render(v=VIEW, **CONTEXT)


@pytest.fixture
def writes_bytecode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # Python's default


@pytest.mark.usefixtures("writes_bytecode")
@pytest.mark.parametrize("template", TEMPLATES)
def test_a_kept_entry_renders_the_same_bytes_without_compiling(
    template: str, tmp_path: Path
) -> None:
    views = [make().view() for make in SCENARIOS.values()]
    fresh = environment(_mode(template), jinja2.FileSystemLoader(BUNDLED_TEMPLATES))
    expected = [fresh.get_template(template).render(v=view, **CONTEXT) for view in views]
    first = _kept(template, tmp_path)
    assert [first.get_template(template).render(v=v, **CONTEXT) for v in views] == expected
    assert list(tmp_path.glob("*.jinja2.cache"))  # written on the first compile

    again = _kept(template, tmp_path)  # a new environment: as in the next run

    def compile_again(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("compiled although a kept entry was there")

    again.compile = compile_again  # type: ignore[method-assign]
    assert [again.get_template(template).render(v=v, **CONTEXT) for v in views] == expected


@pytest.mark.usefixtures("writes_bytecode")
def test_an_entry_serves_only_its_own_mode_and_text(tmp_path: Path) -> None:
    # the same name compiled for Markdown and for text: two entries (the key names the mode)
    for mode in ("markdown", "text"):
        environment(
            mode, jinja2.FileSystemLoader(BUNDLED_TEMPLATES), code_cache=tmp_path
        ).get_template("text.j2")
    assert len(list(tmp_path.glob("*.jinja2.cache"))) == 2
    # another text under the same name: jinja2 checks the text's checksum and compiles afresh
    changed = jinja2.DictLoader({"text.j2": "changed {{ 1 + 1 }}\n"})
    env = environment("text", changed, code_cache=tmp_path)
    assert env.get_template("text.j2").render() == "changed 2\n"


@pytest.mark.usefixtures("writes_bytecode")
def test_a_broken_entry_is_compiled_afresh(tmp_path: Path) -> None:
    _kept("text.j2", tmp_path).get_template("text.j2")
    (entry,) = tmp_path.glob("*.jinja2.cache")
    whole = entry.read_bytes()
    for broken in (whole[:40], whole[:-9], b"", b"not an entry at all", whole[:20] + b"\x80"):
        entry.write_bytes(broken)
        env = _kept("text.j2", tmp_path)
        assert env.get_template("text.j2").render(v=VIEW, **CONTEXT) == _fresh("text.j2")


@pytest.mark.usefixtures("writes_bytecode")
def test_a_folder_that_cannot_be_written_only_costs_the_compile(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder\n", encoding="utf-8")
    env = _kept("text.j2", blocked / "cache")
    assert env.get_template("text.j2").render(v=VIEW, **CONTEXT) == _fresh("text.j2")
    assert not (blocked / "cache").exists()


def test_dont_write_bytecode_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    _kept("text.j2", tmp_path).get_template("text.j2")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.usefixtures("writes_bytecode")
def test_an_entry_leaves_nothing_aside(tmp_path: Path) -> None:
    _kept("text.j2", tmp_path).get_template("text.j2")
    (entry,) = tmp_path.iterdir()  # no temporary file left beside it
    assert entry.name.endswith(".jinja2.cache")


def test_the_cli_keeps_its_templates_beside_them() -> None:
    # a real run in a fresh interpreter, with Python's default of writing compiled code
    repo = Path(__file__).resolve().parents[3]
    assert repo / "evalbot" / "report" / "templates" / "__pycache__" == BUNDLED_CODE
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(repo)
    code = (
        "import io; from evalbot.cli import main; "
        "main(['compare', '--example', '--format', 'text'], io.StringIO())"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)
    assert list(BUNDLED_CODE.glob("*.jinja2.cache"))
    assert render_module.render("text.j2", VIEW)  # the bundled render reads them
