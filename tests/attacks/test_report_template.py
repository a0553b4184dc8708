"""Attacks through ``report.template``, the plan's own layout of the comment (read at the base
commit): reading files outside its folder, running forever, writing or using 10 GB, calling
itself, printing the runs' untrusted ids through ``fmt`` and ``join``. A loader serving any
path would post the token in the comment (``/proc/self/environ``); unbounded time, output or
memory would hang or kill the job; recursion would be an internal error. Each ends in a failing
check that says what to fix, and nothing is posted; the ids are posted, inert."""

from __future__ import annotations

import json

import pytest

from tests.attacks.helpers import PAYLOAD, RESAMPLES, assert_every_output_inert
from tests.fakegithub.plugin import APP_TOKEN
from tests.inert import unescape
from tests.integration.action_harness import StepResult, World, example

FOLDER = ".github/evalbot"


def with_template(world: World, source: str, **files: str) -> None:
    """A base commit whose plan names ``FOLDER/comment.md.j2`` (and more files beside it)."""
    tree = {
        ".evalbot.yml": f"report: {{template: {FOLDER}/comment.md.j2}}\n" + RESAMPLES,
        f"{FOLDER}/comment.md.j2": source,
        **{f"{FOLDER}/{name}": text for name, text in files.items()},
    }
    world.base = world.repo.add_commit(parents=[world.base], files=tree, branch="main")
    world.pull.base_sha = world.base
    world.add_baseline_run()


def assert_refused_with(world: World, result: StepResult, says: str) -> None:
    """Exit 2, a failing check whose summary says what to fix, no comment, no token."""
    assert result.code == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert world.repo.comments_on(world.pull.number) == []
    (check,) = world.repo.check_runs_for(world.pull.head_sha)
    assert (check.status, check.conclusion) == ("completed", "failure")
    for text in (check.output["summary"], result.summary):
        shown = unescape(text)
        assert f"{FOLDER}/comment.md.j2@{world.base[:7]}: report template failed: " in shown
        assert says in shown
    log = "\n".join(line for line in result.stdout.splitlines() if "::add-mask::" not in line)
    for text in (check.output["summary"], result.summary, log, result.stderr):
        assert APP_TOKEN not in text
    assert result.outputs["conclusion"] == "failure"


def test_the_template_includes_files_of_its_own_folder_at_the_base_commit(world: World) -> None:
    with_template(
        world,
        '{% import "macros.md.j2" as m %}{% include "parts/head.md.j2" %}\n{{ m.footer(v) }}\n',
        **{"parts/head.md.j2": "Our verdict: {{ v.outcome_label }}, {{ v.effect }}"},
    )
    result = world.run()
    assert result.code == 0, result.stderr
    (body,) = world.ours()
    assert "Our verdict: Improvement, +" in body
    assert "evalbot 0." in body


@pytest.mark.parametrize(
    "path",
    ["../../../../../../../../../../../../proc/self/environ", "/proc/self/environ"],
)
def test_an_include_outside_the_templates_folder_reads_nothing(world: World, path: str) -> None:
    """The process's environment holds the token (``INPUT_GITHUB-TOKEN``). A loader that joins
    any name to its own folder and reads it would show the token in the comment."""
    with_template(world, f'{{% include "{path}" %}}')
    result = world.run()
    assert_refused_with(world, result, f"'{path}' is outside the template's folder")


def test_a_template_that_never_ends_is_stopped(world: World) -> None:
    """10^10 iterations without output or calls: unchecked, the step would run until the job's
    six-hour timeout, with the check in progress."""
    loop = "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}"
    with_template(world, loop)
    result = world.spawn().wait(timeout=90)
    assert_refused_with(
        world, result, "it ran for more than 10 s (a loop without end?); that is a limit of"
    )


def test_a_template_writing_10_gb_is_stopped(world: World) -> None:
    """10^10 lines of output: stopped as the output passes the limit, long before memory
    runs out."""
    lines = "{% for i in range(99999) %}{% for j in range(99999) %}{{ i }} {{ j }}\n"
    with_template(world, lines + "{% endfor %}{% endfor %}")
    result = world.spawn().wait(timeout=90)
    assert_refused_with(world, result, "the output passed 1,048,576 characters")


def test_a_template_using_10_gb_of_memory_is_stopped(world: World) -> None:
    """A string doubled 45 times in a namespace (``~`` cannot be intercepted): stopped by the
    memory limit with MemoryError at 1 GiB, not by the machine's."""
    doubling = (
        '{% set ns = namespace(s="x") %}{% for i in range(45) %}{% set ns.s = ns.s ~ ns.s %}'
        "{% endfor %}{{ ns.s | length }}"
    )
    with_template(world, doubling)
    result = world.spawn().wait(timeout=90)
    assert_refused_with(
        world, result, "it needed more than 1 GiB of memory; that is a limit of `report.template`"
    )


def test_a_template_calling_itself_fails_with_what_to_fix(world: World) -> None:
    """Unguarded: RecursionError, an internal error (exit 3) that blames evalbot."""
    with_template(world, "{% macro r() %}{{ r() }}{% endmacro %}{{ r() }}")
    result = world.run()
    assert_refused_with(world, result, "macros nested deeper than 100")


def test_ids_printed_through_fmt_and_join_stay_inert(world: World) -> None:
    """Item ids come from the runs' artifacts. A template printing them padded by ``fmt`` or
    joined by ``join`` would, unguarded, post a forged state block, a team mention, an image
    and a script link in evalbot's comment."""
    hostile = PAYLOAD.splitlines()[0]
    renamed = {"arit-0040": f"{hostile} broken", "code-0010": f"{hostile} fixed"}
    for side in ("baseline", "candidate"):
        text = example(side)
        for old, new in renamed.items():
            text = text.replace(json.dumps(old), json.dumps(new))
        if side == "candidate":
            (world.workspace / "results" / "candidate.jsonl").write_text(text)
        else:
            baseline = text
    template = (
        "{% for l in v.lists %}{{ l.title | fmt('') }}: "
        "{{ l.entries | map(attribute='id') | join(', ') }}\n"
        "{% for e in l.entries %}- {{ e.id | fmt('>120') }} {{ e.id | fmt('^9') }}\n"
        "{% endfor %}{% endfor %}{{ v.effect | fmt('') }}\n"
    )
    with_template(world, template)
    world.add_baseline_run(files={"results/baseline.jsonl": baseline})
    result = world.run()
    assert result.code == 0, result.stderr
    (body,) = world.ours()
    shown = unescape(body)
    for new in renamed.values():
        assert shown.count(new) == 3  # once joined, twice through fmt
    assert_every_output_inert(world, result)


def test_fmt_with_a_fill_character_fails_with_what_to_fix(world: World) -> None:
    """A fill character would let the template print any character it likes around a value;
    only a spec without one is taken."""
    with_template(world, "{{ v.effect | fmt('@>40') }}")
    result = world.run()
    assert_refused_with(world, result, "'@>40' is not a format spec without a fill character")
