"""Design effects: how much clustered items inflate the variance of a paired comparison.

Items that share a context (a document, a repository, a conversation) are not independent:
``n`` clustered items carry the information of ``n / deff`` independent ones. ``plan`` and the
minimum detectable effect take the design effect as a multiplier on the items needed
(:func:`~evalbot.stats.power.mcnemar_sample_size`) or a divisor of the items available
(:func:`~evalbot.stats.power.mcnemar_minimum_detectable_effect`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from evalbot.stats._validation import as_float_vector
from evalbot.stats.clusters import cluster_codes, clustered_standard_error

__all__ = ["DesignEffectResult", "design_effect", "estimate_design_effect"]


@dataclass(frozen=True, kw_only=True)
class DesignEffectResult:
    """Result of :func:`design_effect` and :func:`estimate_design_effect`.

    Attributes
    ----------
    design_effect : float
        ``deff >= 1``: the variance of the mean difference relative to independent items
        (clipped at 1; a negative intraclass correlation is not planned on).
    raw_design_effect : float
        The estimate before clipping (``estimate_design_effect`` only; else equal).
    intraclass_correlation : float
        ``rho``; ``nan`` when every cluster has one item.
    cluster_size : float
        The size that enters ``1 + (m - 1) rho``: with unequal clusters the size-weighted
        mean ``sum(m_g^2) / sum(m_g)`` (Kish).
    clusters, items : int
        ``items`` is 0 when configured without items.
    effective_items : float
        ``items / design_effect``.
    method : {"configured", "estimated"}
    """

    design_effect: float
    raw_design_effect: float
    intraclass_correlation: float
    cluster_size: float
    clusters: int
    items: int
    effective_items: float
    method: Literal["configured", "estimated"]


def _weighted_size(sizes: Sequence[float] | np.ndarray) -> float:
    m = np.asarray(sizes, dtype=np.float64)
    return float(np.sum(m * m) / np.sum(m))


def design_effect(
    intraclass_correlation: float, cluster_size: float | Sequence[float]
) -> DesignEffectResult:
    """Kish's design effect ``1 + (m - 1) rho`` from a configured correlation and size.

    Parameters
    ----------
    intraclass_correlation : float
        ``rho`` in [0, 1]: the correlation of the per-item differences of two items in the
        same cluster.
    cluster_size : float or sequence of float
        Items per cluster (>= 1), or every cluster's size (then ``m`` is the size-weighted
        mean ``sum(m_g^2) / sum(m_g)``, which accounts for unequal clusters).

    References
    ----------
    .. [1] L. Kish, *Survey Sampling*, Wiley (1965), §5.4 (``deff = 1 + (m - 1) rho``).
    .. [2] S. M. Eldridge, D. Ashby, S. Kerry, "Sample size for cluster randomized trials:
       effect of coefficient of variation of cluster size and analysis method",
       International Journal of Epidemiology 35 (2006), 1292-1300.

    Examples
    --------
    Ten items per cluster with ``rho = 0.1``: each item counts for 1/1.9 of an independent one.

    >>> from evalbot.stats import design_effect
    >>> round(design_effect(0.1, 10).design_effect, 6)
    1.9
    """
    try:
        rho = float(intraclass_correlation)
    except (TypeError, ValueError):
        raise ValueError(
            f"`intraclass_correlation` must be a number; got {intraclass_correlation!r}."
        ) from None
    if not (math.isfinite(rho) and 0.0 <= rho <= 1.0):
        raise ValueError(
            f"`intraclass_correlation` must be in [0, 1]; got {intraclass_correlation!r}."
        )
    if isinstance(cluster_size, int | float) and not isinstance(cluster_size, bool):
        sizes = np.array([float(cluster_size)])
        clusters = 0
    else:
        sizes = as_float_vector(cluster_size, "cluster_size")
        clusters = int(sizes.size)
    if sizes.size == 0 or not np.all(sizes >= 1.0) or not np.all(np.isfinite(sizes)):
        raise ValueError(f"`cluster_size` must be at least 1; got {cluster_size!r}.")
    m = _weighted_size(sizes)
    deff = 1.0 + (m - 1.0) * rho
    items = round(float(sizes.sum())) if clusters else 0
    return DesignEffectResult(
        design_effect=deff,
        raw_design_effect=deff,
        intraclass_correlation=rho,
        cluster_size=m,
        clusters=clusters,
        items=items,
        effective_items=items / deff,
        method="configured",
    )


def estimate_design_effect(
    baseline: object, candidate: object, clusters: Sequence[str | None]
) -> DesignEffectResult:
    """The design effect of the paired differences, estimated from the data's clusters.

    ``deff = SE_CR1^2 / (s^2 / N)``: the squared cluster-robust (CR1) standard error of the
    mean difference (:func:`~evalbot.stats.clusters.clustered_standard_error`) over the
    squared standard error that treats the ``N`` items as independent, ``s`` the standard
    deviation of the per-item differences (ddof = 1). The intraclass correlation follows from
    Kish's formula, ``rho = (deff - 1) / (m - 1)`` with ``m`` the size-weighted mean cluster
    size. ``None`` labels are clusters of one item.

    When the differences do not vary (no item changed) the design effect is 1.

    Examples
    --------
    Four clusters of two items whose items moved together (differences 1, 1, 0, 0, 1, 1,
    0, 0): ``s^2 / N = (2/7) / 8 = 1/28``, the CR1 variance is ``(4/3) * 4 / 64 = 1/12``, so
    ``deff = 28/12 = 7/3``.

    >>> from evalbot.stats import estimate_design_effect
    >>> r = estimate_design_effect([0] * 8, [1, 1, 0, 0, 1, 1, 0, 0], list("aabbccdd"))
    >>> round(r.design_effect, 6), r.clusters, r.cluster_size
    (2.333333, 4, 2.0)
    """
    base = as_float_vector(baseline, "baseline")
    cand = as_float_vector(candidate, "candidate")
    if base.shape != cand.shape or base.size == 0:
        raise ValueError(
            "`baseline` and `candidate` must have the same, non-zero length; "
            f"got {base.size} and {cand.size}."
        )
    codes = cluster_codes(list(clusters), base.size)
    sizes = np.bincount(codes).astype(np.float64)
    g = int(sizes.size)
    d = cand - base
    n = int(d.size)
    m = _weighted_size(sizes)
    s2 = float(d.var(ddof=1)) if n > 1 else 0.0
    if g < 2 or s2 == 0.0:
        raw = 1.0
    else:
        se = clustered_standard_error(base, cand, list(clusters))
        raw = se * se / (s2 / n)
    rho = (raw - 1.0) / (m - 1.0) if m > 1.0 else math.nan
    deff = max(1.0, raw)
    return DesignEffectResult(
        design_effect=deff,
        raw_design_effect=raw,
        intraclass_correlation=rho,
        cluster_size=m,
        clusters=g,
        items=n,
        effective_items=n / deff,
        method="estimated",
    )
