"""One reader of rates and differences (evalbot.plan.rates): every spelling, every refusal."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalbot.plan.rates import parse_difference, parse_rate


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.05", 0.05),
        (".05", 0.05),
        ("5%", 0.05),
        ("5 %", 0.05),
        (" 5% ", 0.05),
        ("6%", 0.06),  # 6 / 100 is 0.06000000000000001 in binary; the reader gives 0.06
        ("2.5%", 0.025),
        ("80%", 0.8),
        ("99.9%", 0.999),
        (0.05, 0.05),
        (1, 1.0),  # the callers check the range
        ("5e-2", 0.05),
    ],
)
def test_rates(text: object, value: float) -> None:
    assert parse_rate(text) == value


@pytest.mark.parametrize(
    "text", ["", "%", "5%%", "five", "0.05.1", "nan", "inf", "1e999", True, None, [0.05], "5 pp"]
)
def test_what_is_not_a_rate(text: object) -> None:
    with pytest.raises(ValueError, match=r"^expected a rate such as 5% or 0\.05, got "):
        parse_rate(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("+3 pp", 0.03),
        ("3pp", 0.03),
        ("3 pp", 0.03),
        ("3PP", 0.03),
        ("3%", 0.03),
        ("+3%", 0.03),
        ("0.03", 0.03),
        ("+0.03", 0.03),
        ("-2pp", -0.02),
        ("\u22122 pp", -0.02),  # a typographic minus
        ("3 points", 0.03),
        ("2.5 p.p.", 0.025),
        (-0.02, -0.02),
    ],
)
def test_differences(text: object, value: float) -> None:
    assert parse_difference(text) == value


def test_a_bare_number_of_one_or_more_is_ambiguous() -> None:
    with pytest.raises(ValueError, match="ambiguous") as caught:
        parse_difference("3")
    assert str(caught.value) == (
        "a difference of '3' is ambiguous: write 3pp for 3 percentage points, or a fraction "
        "below 1 such as 0.03"
    )
    with pytest.raises(ValueError, match="ambiguous"):
        parse_difference(3)


@pytest.mark.parametrize("text", ["", "pp", "3 ppp", "3 %%", "x3pp", False, "+", "3pp pp"])
def test_what_is_not_a_difference(text: object) -> None:
    with pytest.raises(ValueError, match=r"^expected a difference such as \+3pp, 3%, or 0\.03"):
        parse_difference(text)


def test_long_text_is_refused_unread() -> None:
    """The readers look at 64 characters at most; a message quotes a value cut short."""
    for parse in (parse_rate, parse_difference):
        with pytest.raises(ValueError, match=r"^expected ") as caught:
            parse("5" * 100_000 + "%")
        assert len(str(caught.value)) < 200


@given(st.integers(min_value=0, max_value=9999))
def test_a_percentage_is_its_fraction(hundredths: int) -> None:
    """``N%`` and ``N/100`` are the same float, for every percentage with two decimals."""
    percent = f"{hundredths / 100:g}"
    fraction = float(f"{hundredths / 10_000:.12g}")
    assert parse_rate(f"{percent}%") == fraction
    assert parse_difference(f"{percent}pp") == fraction
    assert parse_difference(f"-{percent}%") == -fraction
