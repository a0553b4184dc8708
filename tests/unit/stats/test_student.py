"""Student's t quantile without scipy (evalbot.stats._student.t_quantile).

References: ``scipy.special.stdtrit`` (what it replaces) over degrees of freedom 1 to 10^7 and
levels 0.5 to 0.9999; closed forms for 1 and 2 degrees of freedom (Cauchy: tan(pi (p - 1/2));
df = 2: (2p - 1) / sqrt(2 p (1 - p))); the printed table value t(0.975, 10) = 2.228.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import stdtrit

from evalbot.stats._student import t_quantile

LEVELS = [0.5, 0.6, 0.68, 0.8, 0.9, 0.95, 0.975, 0.98, 0.99, 0.995, 0.998, 0.999, 0.9995, 0.9999]


def degrees() -> list[int]:
    logs = np.unique(np.logspace(np.log10(60), 7, 80).astype(int)).tolist()
    return [*range(1, 60), 1999, 2000, 2001, *logs]


def test_against_scipy_everywhere() -> None:
    worst = 0.0
    for df in degrees():
        for level in LEVELS:
            p = 0.5 + level / 2
            expected = float(stdtrit(df, p))
            got = t_quantile(df, p)
            worst = max(worst, abs(got - expected) / expected)
    # measured 9.4e-15 (df = 1885, level 0.5) over a denser grid when this was written
    assert worst < 5e-14


@pytest.mark.parametrize("p", [0.6, 0.975, 0.999995])
def test_closed_forms(p: float) -> None:
    # tan(pi (p - 1/2)) itself loses digits as p nears 1 (tan near pi/2): 1e-11 there
    assert t_quantile(1, p) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-11)
    assert t_quantile(1, p) == pytest.approx(float(stdtrit(1, p)), rel=1e-15)
    assert t_quantile(2, p) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-15)


def test_table_value_and_limits() -> None:
    assert round(t_quantile(10, 0.975), 3) == 2.228  # Student's t table, 10 df, two-sided 95 %
    assert t_quantile(5, 0.5) == 0.0
    # increasing in p, decreasing in df towards the normal quantile 1.959964
    assert t_quantile(30, 0.975) < t_quantile(30, 0.98)
    assert t_quantile(10**7, 0.975) == pytest.approx(1.959963984540054, rel=1e-6)
    assert t_quantile(3, 0.975) > t_quantile(4, 0.975) > t_quantile(2000, 0.975)
