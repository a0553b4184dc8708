"""``dumps_indented`` is ``json.dumps(value, indent=2)`` byte for byte (the ``--format json``
report), on real reports and on generated values, including every case msgspec spells
differently (float exponents, non-ASCII and DEL, astral characters, NaN, huge integers, keys
that are not strings, float subclasses)."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalbot.cli import main
from evalbot.jsonout import dumps_indented

REPO = Path(__file__).resolve().parents[2]

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinities included
    | st.floats(min_value=-1e-300, max_value=1e-300)
    | st.sampled_from([1e16, 1e22, 2.5e-7, 1e-05, 1.7976931348623157e308, 5e-324, -0.0])
    | st.text()
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=5)
        | st.tuples(children, children)
        | st.dictionaries(st.text(max_size=6), children, max_size=5)
        | st.lists(st.text(max_size=6), min_size=1, max_size=5)  # the all-strings shortcut
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=values)
def test_equals_the_standard_library_on_generated_values(value: Any) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2)


@pytest.mark.parametrize(
    "value",
    [
        {"a": 1e16, "b": [2.5e-07, 1e-05, 1e22, -0.0, 0.1]},
        {"e": "é ☃ \U0001f600 \x7f \x00 \u2028 \ud800"},  # non-ASCII, DEL, astral, a lone surrogate
        {"nan": math.nan, "inf": [math.inf, -math.inf]},
        {"big": 2**64, "small": -(2**63) - 1, "edge": [2**64 - 1, -(2**63)]},
        {1: "int key", 2.5: "float key", None: "none key", False: "bool key"},
        {"numpy": [np.float64(0.1), np.float64(1e16)]},
        {"empty": [[], {}, ()], "nested": [[[]]]},
        [],
        "plain",
        3,
    ],
)
def test_equals_the_standard_library_on_the_cases_msgspec_spells_differently(value: Any) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2)


def test_unsupported_values_fail_as_the_standard_library_does() -> None:
    with pytest.raises(TypeError):
        dumps_indented({"x": object()})
    with pytest.raises(TypeError):
        json.dumps({"x": object()}, indent=2)


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "--example", "--format", "json"],
        [
            "compare",
            str(REPO / "bench/data/swebench-verified/baseline.jsonl"),
            str(REPO / "bench/data/swebench-verified/candidate.jsonl"),
            "--format",
            "json",
        ],
    ],
)
def test_the_json_report_is_what_json_dumps_writes(argv: list[str]) -> None:
    out = io.StringIO()
    assert main(argv, out) in (0, 1)
    text = out.getvalue()
    assert text == json.dumps(json.loads(text), indent=2) + "\n"
