"""Normal and chi-squared(1) functions from the standard library.

``scipy.special`` costs about half a second to import, which every CLI start and every
container start would pay for three scalar functions; ``statistics.NormalDist.inv_cdf``
(Wichura's AS 241, about 1e-16 relative error) and ``math.erfc`` are exact enough.
"""

from __future__ import annotations

import math
from statistics import NormalDist

_STANDARD = NormalDist()


def normal_quantile(p: float) -> float:
    """The standard normal quantile (scipy's ``ndtri``)."""
    return _STANDARD.inv_cdf(p)


def normal_sf(x: float) -> float:
    """The standard normal survival function ``P(Z > x)``, accurate far into the tail."""
    return 0.5 * math.erfc(x / math.sqrt(2.0))


def chi2_1_sf(x: float) -> float:
    """The chi-squared survival function on one degree of freedom: ``P(Z^2 > x)``."""
    return math.erfc(math.sqrt(x / 2.0))
