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


def test_one_run_gives_the_conservative_discordance_of_independent_outcomes(plan) -> None:  # type: ignore[no-untyped-def]
    report = plan("--difference", "3pp", "--from-baseline", BASE, "--format", "json").json()
    found = report["discordance"]
    # p0 = 280 / 400 = 0.70, p1 = 0.73: p0 (1 - p1) + p1 (1 - p0) = 0.189 + 0.219 = 0.408
    assert (found["pass_rate"], found["expected_pass_rate"]) == (0.7, pytest.approx(0.73))
    assert found["rate"] == pytest.approx(0.408, abs=1e-12)
    assert found["source"] == "baseline"
    # more items than the pilot asks for: the example's runs agree far more than independent ones
    pilot = plan("--difference", "3pp", "--pilot", BASE, CAND, "--format", "json").json()
    assert report["items"] > 3 * pilot["items"]
    text = plan("--difference", "3pp", "--from-baseline", BASE).out
    assert "as if the two runs' outcomes were independent" in text
    assert "so this plan is conservative" in text


def test_the_minimum_detectable_effect_takes_a_pilot(plan) -> None:  # type: ignore[no-untyped-def]
    pilot = plan("--items", "400", "--pilot", BASE, CAND, "--format", "json").json()
    given = plan("--items", "400", "--discordance", "0.1125", "--format", "json").json()
    assert pilot["minimum_detectable_effect"] == given["minimum_detectable_effect"]
    assert pilot["discordance"]["source"] == "pilot"
    assert given["discordance"] == {"rate": 0.1125, "source": "given"}


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
            "--discordance R, --pilot BASELINE CANDIDATE (two real runs), or --from-baseline "
            "FILE (one run; conservative)",
        ),
        (
            ["--difference", "3pp", "--discordance", "2%"],
            "evalbot plan: a net change of +3.0 pp needs at least 3 % of the items to change "
            "outcome, but the discordance is 2 %; give a larger --discordance (a pilot shows it)",
        ),
        (
            ["--difference", "3", "--discordance", "0.1"],
            "evalbot plan: argument --difference: --difference a difference of '3' is "
            "ambiguous: write 3pp for 3 percentage points, or a fraction below 1 such as 0.03 "
            "(see --help)",
        ),
        (
            ["--difference", "0pp", "--discordance", "0.1"],
            "evalbot plan: argument --difference: --difference must be a change between -100 pp "
            "and +100 pp other than 0, got 0pp (see --help)",
        ),
        (
            ["--fix-rate", "8%", "--break-rate", "3%", "--discordance", "0.2"],
            "evalbot plan: --fix-rate and --break-rate already give the discordance (their "
            "sum); use --difference with --discordance, --pilot or --from-baseline instead",
        ),
        (
            ["--difference", "3pp", "--discordance", "0.2", "--pilot", "a", "b"],
            "evalbot plan: --discordance and --pilot exclude each other; give one",
        ),
        (
            ["--items", "100", "--from-baseline", "x.jsonl"],
            "evalbot plan: --from-baseline needs --difference (the discordance it assumes "
            "depends on the change); with --items give --discordance or --pilot",
        ),
        (
            ["--alpha", "five"],
            "evalbot plan: argument --alpha: --alpha must be a rate such as 5% or 0.05, got "
            "'five' (see --help)",
        ),
        (
            [],
            "evalbot plan: say what to detect: --difference 3pp with --discordance R, --pilot "
            "BASELINE CANDIDATE or --from-baseline FILE; or --fix-rate and --break-rate; or "
            "--items N with a discordance (see --help)",
        ),
    ],
)
def test_refusals_say_which_flag(plan, args: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    assert plan(*args).refusal() == message


def test_a_pilot_without_change_or_outcomes_is_refused(plan, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    same = plan("--difference", "3pp", "--pilot", BASE, BASE).refusal()
    assert same == (
        f"evalbot plan: no item changed outcome between the pilot's {BASE} and {BASE} (400 "
        "items), so it gives no discordance; give --discordance R"
    )
    scores = tmp_path / "scores.jsonl"
    scores.write_text('{"id": "a", "score": 0.5}\n{"id": "b", "score": 0.25}\n')
    refused = plan("--difference", "3pp", "--pilot", str(scores), str(scores)).refusal()
    assert "is not one pass/fail outcome per item on both sides" in refused
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
