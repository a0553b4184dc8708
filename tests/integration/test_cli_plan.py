"""``evalbot plan`` in the words a user has: the expected difference, and where the share of
changing items comes from (given, a pilot, one run); rates written as 0.05 or 5%; the three
outputs. Run in-process through :func:`evalbot.cli.main` on files written to disk and on the
bundled example (31 fixed, 14 broken, 280 of 400 passing in the baseline)."""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from statsmodels.stats.proportion import proportion_confint

from evalbot.cli import main
from tests.power_reference import scipy_power

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "evalbot" / "data" / "example"
BASE, CAND = str(EXAMPLE / "baseline.jsonl"), str(EXAMPLE / "candidate.jsonl")


@dataclass(frozen=True, kw_only=True)
class Ran:
    code: int
    out: str
    err: str

    def json(self) -> dict[str, Any]:
        assert self.code == 0, self.err
        data: dict[str, Any] = json.loads(self.out)
        return data

    def refusal(self) -> str:
        """The one line of a refusal (exit 2), without the ``evalbot: error: `` prefix."""
        assert self.code == 2, self.out
        (line,) = self.err.splitlines()
        return line.removeprefix("evalbot: error: ")


@pytest.fixture
def plan(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    def run(*args: str) -> Ran:
        capsys.readouterr()
        out = io.StringIO()
        code = main(["plan", *args], out=out)
        return Ran(code=code, out=out.getvalue(), err=capsys.readouterr().err)

    return run


# ---- the difference and the discordance -------------------------------------------------------


@pytest.mark.parametrize("spelling", ["+3 pp", "3pp", "3%", "0.03", "+0.03", "3 points"])
def test_every_spelling_of_three_points_is_one_plan(plan, spelling: str) -> None:  # type: ignore[no-untyped-def]
    report = plan("--difference", spelling, "--discordance", "12%", "--format", "json").json()
    # fix = (R + D) / 2 = (0.12 + 0.03) / 2, break = (R - D) / 2 = (0.12 - 0.03) / 2 (by hand)
    assert (report["fix_rate"], report["break_rate"]) == (0.075, 0.045)
    assert report["difference"] == pytest.approx(0.03)
    assert report["discordance"] == {"rate": 0.12, "source": "given"}
    by_rates = plan("--fix-rate", "0.075", "--break-rate", "0.045", "--format", "json").json()
    assert report["items"] == by_rates["items"] == 1096
    assert report["power_reached"] == by_rates["power_reached"] >= 0.8


def test_a_drop_is_planned_like_a_gain(plan) -> None:  # type: ignore[no-untyped-def]
    """The two-sided exact test is symmetric in fixed and broken: -3 pp needs what +3 pp does."""
    # `--difference=-3pp`: argparse reads a separate "-3pp" as a flag
    down = plan("--difference=-3pp", "--discordance", "0.12", "--format", "json").json()
    up = plan("--difference", "3pp", "--discordance", "0.12", "--format", "json").json()
    assert (down["fix_rate"], down["break_rate"]) == (0.045, 0.075)
    assert down["items"] == up["items"]
    assert plan("--difference=-3pp", "--discordance", "0.12").out.startswith(
        "1096 items to detect -3.0 pp (fix rate 0.045, break rate 0.075)"
    )


def test_the_same_difference_needs_very_different_sizes(plan) -> None:  # type: ignore[no-untyped-def]
    """The README: +3 pp needs 263 items when nothing breaks, 1,888 at 12 % fixed / 9 % broken."""
    sizes = [
        plan("--difference", "3pp", "--discordance", r, "--format", "json").json()["items"]
        for r in ("3%", "21%")
    ]
    assert sizes == [263, 1888]


def test_the_discordance_comes_from_a_pilot(plan) -> None:  # type: ignore[no-untyped-def]
    report = plan("--difference", "3pp", "--pilot", BASE, CAND, "--format", "json").json()
    found = report["discordance"]
    # the bundled example: 31 fixed and 14 broken of 400 (scripts/make_example_data.py)
    assert (found["items"], found["fixed"], found["broken"], found["discordant"]) == (
        400,
        31,
        14,
        45,
    )
    assert found["rate"] == 45 / 400
    assert (found["source"], found["baseline"], found["candidate"]) == ("pilot", BASE, CAND)
    # the interval, against statsmodels' Wilson interval
    low, high = proportion_confint(45, 400, alpha=0.05, method="wilson")
    assert found["interval"] == pytest.approx([low, high], abs=1e-12)
    assert report["fix_rate"] == pytest.approx((0.1125 + 0.03) / 2)
    assert report["break_rate"] == pytest.approx((0.1125 - 0.03) / 2)
    # the sizes at the interval's ends are the plans for those discordances
    ends = [
        plan("--difference", "3pp", "--discordance", repr(r), "--format", "json").json()["items"]
        for r in found["interval"]
    ]
    assert found["items_at_interval"] == ends
    assert ends[0] < report["items"] < ends[1]
    text = plan("--difference", "3pp", "--pilot", BASE, CAND).out
    assert (
        f"Discordance 11.2 % from the pilot: 45 of 400 items changed outcome between {BASE} "
        f"and {CAND} (31 fixed, 14 broken; 95 % Wilson interval {low * 100:.1f} to "
        f"{high * 100:.1f} %)."
    ) in text
    assert f"At the ends of that interval the plan needs {ends[0]} to {ends[1]} items." in text


def test_the_minimum_detectable_effect_takes_a_pilot(plan) -> None:  # type: ignore[no-untyped-def]
    pilot = plan("--items", "400", "--pilot", BASE, CAND, "--format", "json").json()
    given = plan("--items", "400", "--discordance", "0.1125", "--format", "json").json()
    assert pilot["minimum_detectable_effect"] == given["minimum_detectable_effect"]
    assert pilot["discordance"]["source"] == "pilot"
    assert given["discordance"] == {"rate": 0.1125, "source": "given"}


# ---- the baseline's pass rate: the range of discordance ----------------------------------------

#: Two of five identical runs of one system (tests/data/README.md): an A/A pair.
AA = REPO / "tests" / "data" / "aa_pair"
RUN_A, RUN_B = str(AA / "i0_run3.jsonl"), str(AA / "i0_run4.jsonl")


def smallest_by_scipy(row: dict[str, Any], *, every_smaller: bool = False) -> None:
    """A row's size is the smallest whose exact power reaches 0.8, by the independent sums of
    tests/power_reference.py (scipy.stats.binom): the size reaches it, the one below does not
    (with ``every_smaller``, no smaller size does)."""
    fix, brk, items = row["fix_rate"], row["break_rate"], row["items"]
    assert scipy_power(fix, brk, items) >= 0.8
    assert row["power_reached"] == pytest.approx(scipy_power(fix, brk, items), abs=1e-9)
    below = range(1, items) if every_smaller else [items - 1]
    assert all(scipy_power(fix, brk, n) < 0.8 for n in below)


def test_three_points_around_85_percent(plan) -> None:  # type: ignore[no-untyped-def]
    report = plan("--pass-rate", "85%", "--difference", "+3 pp", "--format", "json").json()
    rows = report["by_discordance"]
    assert [r["assumption"] for r in rows] == [
        "least",
        "between",
        "between",
        "between",
        "independent",
    ]
    # by hand: the least discordance is |D| = 0.03 (nothing breaks); independent runs with
    # pass rates 0.85 and 0.88 disagree on 0.85 * 0.12 + 0.88 * 0.15 = 0.234; evenly between
    assert [r["discordance"] for r in rows] == pytest.approx([0.03, 0.081, 0.132, 0.183, 0.234])
    for r in rows:  # fix and break rates from (R + D) / 2 and (R - D) / 2
        assert (r["fix_rate"], r["break_rate"]) == pytest.approx(
            ((r["discordance"] + 0.03) / 2, (r["discordance"] - 0.03) / 2), abs=1e-12
        )
        smallest_by_scipy(r, every_smaller=r["assumption"] == "least")
    assert [r["items"] for r in rows] == [263, 745, 1203, 1651, 2100]
    # the plan is the independent row (the upper bound for associated runs), as said
    assert (report["items"], report["discordance"]["source"]) == (2100, "pass_rate")
    assert (report["pass_rate"], report["expected_pass_rate"]) == (0.85, pytest.approx(0.88))
    text = plan("--pass-rate", "85%", "--difference", "3pp").out.splitlines()
    assert text[0] == (
        "263 to 2100 items to detect +3.0 pp from a pass rate of 85.0 % (to 88.0 %) with "
        "McNemar's exact test at alpha 0.05, two-sided, power 0.8, depending on the share of "
        "items whose outcome differs between the two runs (the discordance):"
    )
    assert text[1] == text[8] == ""  # the table stands apart
    words = [" ".join(line.split()) for line in text]  # the table's columns aligned
    assert words[2] == "discordance fix rate break rate items power assumption"
    assert (
        words[3] == "3.0 % 3.0 % 0.0 % 263 0.803 least possible: no item moves against the change"
    )
    assert words[7] == (
        "23.4 % 13.2 % 10.2 % 2100 0.800 independent outcomes: the runs agree no more than "
        "chance (the most items)"
    )
    assert text[9].startswith("One run cannot show the discordance.")
    assert text[10].startswith("2100 items to detect +3.0 pp (fix rate 0.132, break rate 0.102)")


def test_one_run_gives_its_pass_rate_and_the_range(plan) -> None:  # type: ignore[no-untyped-def]
    report = plan("--difference", "3pp", "--from-baseline", BASE, "--format", "json").json()
    found = report["discordance"]
    # the bundled baseline passes 280 of 400: p0 = 0.70, p1 = 0.73; independent runs disagree
    # on 0.70 * 0.27 + 0.73 * 0.30 = 0.408
    assert (found["pass_rate"], found["expected_pass_rate"]) == (0.7, pytest.approx(0.73))
    assert (found["source"], found["file"], found["assumption"]) == (
        "baseline",
        BASE,
        "independent",
    )
    rows = report["by_discordance"]
    assert [r["discordance"] for r in rows] == pytest.approx([0.03, 0.1245, 0.219, 0.3135, 0.408])
    assert rows[0]["items"] == 263  # the least discordance does not depend on the pass rate
    assert report["items"] == rows[-1]["items"] == 3619
    same = plan("--difference", "3pp", "--pass-rate", "70%", "--format", "json").json()
    assert same["by_discordance"] == rows
    text = plan("--difference", "3pp", "--from-baseline", BASE).out
    assert f"Pass rate 70.0 % from {BASE} (400 items)." in text


def test_an_aa_pair_measures_the_noise_floor(plan) -> None:  # type: ignore[no-untyped-def]
    report = plan("--difference", "3pp", "--noise-floor", RUN_A, RUN_B, "--format", "json").json()
    found = report["discordance"]
    noise = found["noise_floor"]
    # two identical runs of one system on 100 tasks: 77 and 76 resolved; 7 tasks changed (3
    # resolved only in the second, 4 only in the first), counted from the files by hand
    assert (noise["items"], noise["discordant"], noise["fixed"], noise["broken"]) == (100, 7, 3, 4)
    assert noise["rate"] == 0.07
    low, high = proportion_confint(7, 100, alpha=0.05, method="wilson")
    assert noise["interval"] == pytest.approx([low, high], abs=1e-12)
    assert found["pass_rate"] == 0.765  # (77 + 76) / 200
    rows = {r["assumption"]: r for r in report["by_discordance"]}
    # the noise floor plus the change's own items: 0.07 + 0.03
    assert rows["noise_floor"]["discordance"] == pytest.approx(0.10)
    smallest_by_scipy(rows["noise_floor"])
    assert report["items"] == rows["noise_floor"]["items"]
    assert found["assumption"] == "noise_floor"
    ends = [
        plan("--difference", "3pp", "--discordance", repr(r + 0.03), "--format", "json").json()[
            "items"
        ]
        for r in (low, high)
    ]
    assert found["items_at_interval"] == ends
    text = plan("--difference", "3pp", "--noise-floor", RUN_A, RUN_B).out
    assert (
        f"Noise floor 7.0 % from the A/A pair (two runs of the same system): 7 of 100 items "
        f"changed outcome between {RUN_A} and {RUN_B} (3 fixed, 4 broken; 95 % Wilson interval "
        f"{low * 100:.1f} to {high * 100:.1f} %). The plan below takes the noise floor's row."
    ) in text
    assert (
        f"At the ends of the noise floor's interval the plan needs {ends[0]} to {ends[1]} items."
        in text
    )


def test_the_range_in_markdown(plan) -> None:  # type: ignore[no-untyped-def]
    ran = plan("--pass-rate", "85%", "--difference", "3pp", "--format", "markdown")
    assert ran.out.startswith("### Plan: **263 to 2100 items**\n\n263 to 2100 items to detect")
    tokens = MarkdownIt("commonmark").enable("table").parse(ran.out)
    cells = [t.content for t in tokens if t.type == "inline"]
    assert cells[cells.index("assumption") + 1 : cells.index("assumption") + 7] == [
        "3.0 %",
        "3.0 %",
        "0.0 %",
        "263",
        "0.803",
        "least possible: no item moves against the change",
    ]
    noise = plan("--difference", "3pp", "--noise-floor", RUN_A, RUN_B, "--format", "markdown")
    items = plan("--difference", "3pp", "--noise-floor", RUN_A, RUN_B, "--format", "json").json()
    assert noise.out.startswith(f"### Plan: **{items['items']} items**")


# ---- rates written as percentages, and the config ------------------------------------------------


def test_six_percent_is_accepted_wherever_five_hundredths_is(plan, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    as_percent = plan(
        "--fix-rate",
        "8%",
        "--break-rate",
        "3%",
        "--alpha",
        "6%",
        "--power",
        "85%",
        "--format",
        "json",
    ).json()
    as_fraction = plan(
        "--fix-rate",
        "0.08",
        "--break-rate",
        "0.03",
        "--alpha",
        "0.06",
        "--power",
        "0.85",
        "--format",
        "json",
    ).json()
    assert as_percent == as_fraction
    assert (as_percent["alpha"], as_percent["target_power"]) == (0.06, 0.85)
    config = tmp_path / "plan.yml"
    config.write_text("alpha: 6%\nplan: {fix_rate: 8%, break_rate: 3%, power: 85%}\n")
    from_config = plan("--config", str(config), "--format", "json").json()
    assert from_config.pop("discordance") == {
        "rate": 0.11,
        "source": "config",
        "config": str(config),
    }
    assert as_fraction.pop("discordance") == {"rate": 0.11, "source": "rates"}
    assert from_config == as_fraction


def test_the_config_gives_the_difference_and_the_design_effect(plan, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = tmp_path / "plan.yml"
    config.write_text("plan: {difference: 3pp, discordance: 10%, design_effect: 1.5}\n")
    report = plan("--config", str(config), "--format", "json").json()
    plain = plan("--difference", "3pp", "--discordance", "10%", "--format", "json").json()
    assert (report["fix_rate"], report["break_rate"]) == (0.065, 0.035)
    # the design effect multiplies the size: ceil(920 * 1.5) = 1380
    assert (report["unclustered_items"], report["design_effect"]) == (plain["items"], 1.5)
    assert report["items"] == math.ceil(plain["items"] * 1.5) == 1380
    # the flag overrides the plan's design effect; the plan's rates stay
    flagged = plan("--config", str(config), "--design-effect", "2", "--format", "json").json()
    assert flagged["items"] == 2 * plain["items"]
    text = plan("--config", str(config)).out
    assert f"Design effect 1.5 (clustered items): {plain['items']} independent items'" in text
    assert f"Rates from {config} (its `plan:`)." in text


# ---- refusals name the flags --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--difference", "3pp"],
            "evalbot plan: --difference needs the share of items expected to change outcome: "
            "--discordance R or --pilot BASELINE CANDIDATE (two real runs); or, with "
            "--difference, the baseline's pass rate: --pass-rate P, --from-baseline FILE (one "
            "run) or --noise-floor RUN_A RUN_B (two runs of the same system)",
        ),
        (
            ["--difference", "3pp", "--discordance", "2%"],
            "evalbot plan: a net change of +3.0 pp needs a discordance of at least 3 %, got 2 %; "
            "give a larger one",
        ),
        (
            ["--difference", "3", "--discordance", "0.1"],
            "evalbot plan: argument --difference: a difference of '3' is "
            "ambiguous: write 3pp for 3 percentage points, or a fraction below 1 such as 0.03 "
            "(see --help)",
        ),
        (
            ["--difference", "0pp", "--discordance", "0.1"],
            "evalbot plan: argument --difference: must be a change between -100 pp "
            "and +100 pp other than 0, got 0pp (see --help)",
        ),
        (
            ["--fix-rate", "8%", "--break-rate", "3%", "--discordance", "0.2"],
            "evalbot plan: --fix-rate/--break-rate and --discordance exclude each other; give one",
        ),
        (
            ["--difference", "3pp", "--discordance", "0.2", "--pilot", "a", "b"],
            "evalbot plan: --discordance and --pilot exclude each other; give one",
        ),
        (
            ["--items", "100", "--from-baseline", "x.jsonl"],
            "evalbot plan: --from-baseline needs --difference (the discordance it allows "
            "depends on the change); with --items give --discordance or --pilot",
        ),
        (
            ["--items", "100", "--pass-rate", "85%"],
            "evalbot plan: --pass-rate needs --difference (the discordance it allows depends "
            "on the change); with --items give --discordance or --pilot",
        ),
        (
            ["--difference", "3pp", "--pass-rate", "98%"],
            "evalbot plan: a pass rate of 98.0 % moved by +3.0 pp would leave 0-100 %",
        ),
        (
            ["--difference", "3pp", "--pass-rate", "85%", "--discordance", "10%"],
            "evalbot plan: --discordance and --pass-rate exclude each other; give one",
        ),
        (  # a rate of 0 is given too
            ["--difference", "3pp", "--pass-rate", "0", "--discordance", "10%"],
            "evalbot plan: --discordance and --pass-rate exclude each other; give one",
        ),
        (
            ["--items", "100", "--pass-rate", "0%"],
            "evalbot plan: --pass-rate needs --difference (the discordance it allows depends "
            "on the change); with --items give --discordance or --pilot",
        ),
        (
            ["--difference", "3pp", "--pass-rate", "eighty"],
            "evalbot plan: argument --pass-rate: must be a rate such as 5% or 0.05, "
            "got 'eighty' (see --help)",
        ),
        (
            ["--alpha", "five"],
            "evalbot plan: argument --alpha: must be a rate such as 5% or 0.05, got "
            "'five' (see --help)",
        ),
        (
            [],
            "evalbot plan: say what to detect: --difference 3pp with --discordance R, --pilot "
            "BASELINE CANDIDATE, --pass-rate P, --from-baseline FILE or --noise-floor RUN_A "
            "RUN_B; or --fix-rate and --break-rate; or --items N with a discordance (see "
            "--help)",
        ),
    ],
)
def test_refusals_say_which_flag(plan, args: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    assert plan(*args).refusal() == message


def test_a_pilot_without_change_or_outcomes_is_refused(plan, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    same = plan("--difference", "3pp", "--pilot", BASE, BASE).refusal()
    assert same == (
        f"evalbot plan: no item changed outcome between the pilot's {BASE} and {BASE} (400 "
        "items); give --discordance R"
    )
    scores = tmp_path / "scores.jsonl"
    scores.write_text('{"id": "a", "score": 0.5}\n{"id": "b", "score": 0.25}\n')
    refused = plan("--difference", "3pp", "--pilot", str(scores), str(scores)).refusal()
    assert refused == (
        f"evalbot plan: the pilot {scores} / {scores} is not one pass/fail outcome per item "
        "(scores, or repeats); give --discordance R"
    )
    refused = plan("--difference", "3pp", "--from-baseline", str(scores)).refusal()
    assert refused.endswith(
        "is not one pass/fail outcome per item (scores, or repeats); give --discordance R"
    )


def test_the_pilot_is_read_with_the_reading_flags(plan, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A CSV whose outcome column is `correct`: the refusal names the flag, which then works."""
    b, c = tmp_path / "b.csv", tmp_path / "c.csv"
    b.write_text("id,correct\n" + "".join(f"q{i},{i % 2}\n" for i in range(40)))
    c.write_text("id,correct\n" + "".join(f"q{i},{int(i % 4 != 0)}\n" for i in range(40)))
    refused = plan("--difference", "5pp", "--pilot", str(b), str(c)).refusal()
    assert "--passed-field correct" in refused
    report = plan(
        "--difference",
        "5pp",
        "--pilot",
        str(b),
        str(c),
        "--passed-field",
        "correct",
        "--format",
        "json",
    ).json()
    # i odd passes in b; i % 4 != 0 passes in c: fixed are i = 2, 6, 10, ... (10 of 40), broken
    # none (odd i are never multiples of 4)
    found = report["discordance"]
    assert (found["fixed"], found["broken"], found["items"]) == (10, 0, 40)


# ---- markdown ------------------------------------------------------------------------------------


def test_markdown_plan(plan) -> None:  # type: ignore[no-untyped-def]
    ran = plan("--difference", "3pp", "--pilot", BASE, CAND, "--format", "markdown")
    assert ran.code == 0, ran.err
    assert ran.out.startswith("### Plan: **1031 items**\n\n1031 items to detect +3.0 pp")
    tokens = MarkdownIt("commonmark").enable("table").parse(ran.out)
    cells = [t.content for t in tokens if t.type == "inline"]
    assert "difference to detect" in cells and "+3.0 pp" in cells
    assert "11.2 % (pilot)" in cells
    # the file names are the user's text: escaped, and shown as written once rendered
    html = MarkdownIt("commonmark").enable("table").render(ran.out)
    assert f"<strong>{BASE}</strong>" in html
    mde = plan("--items", "100", "--discordance", "10%", "--format", "markdown")
    assert mde.out.startswith("### Plan: minimum detectable effect\n\n- With 100 items")
