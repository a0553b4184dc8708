"""Clustered items: cluster codes, the cluster-robust (CR1) standard error, design effects, and
a paired test of the mean difference valid at every number of clusters with its interval.

Items that share a context (a document, a repository, a conversation) move together: when a
change fixes one item of a cluster it tends to fix its neighbours, so ``n`` clustered items
carry the information of ``n / deff`` independent ones (the design effect, which ``plan`` and
the minimum detectable effect take as a multiplier of the items needed or a divisor of the
items available). McNemar's test and the item-level sign-flip test count such items as
independent evidence, so their p-values are too small; the cluster bootstrap's percentile
p-value rejects too often with few clusters (``tests/sim/test_clusters.py``). Here the unit of
the test is the cluster:

* up to :data:`CLUSTER_SIGN_FLIP_MAX` clusters, the **cluster sign-flip test**: under the
  null hypothesis that the two runs are exchangeable within each cluster (swapping the
  baseline and the candidate of a whole cluster changes nothing in distribution), each
  cluster's total of the per-item differences ``D_g`` is as likely to have either sign, so
  the distribution of ``sum(s_g D_g)`` over the ``2^G`` sign patterns is exact at every
  number of clusters ``G``. Enumerated up to 24 clusters, sampled (seeded,
  ``p = (1 + count) / (1 + B)``) above. With every cluster of one item, it *is* the exact
  McNemar test for pass/fail items (the sign test on the discordant pairs) and the item
  sign-flip test for scores. The interval inverts the same test: every shift ``delta`` for
  which ``D_g - n_g delta`` (``n_g`` the cluster's size) is not rejected;
* above that, the **cluster-robust t test**: the CR1 standard error
  (:func:`clustered_standard_error`) with ``G - 1`` degrees of freedom, and its t interval.

Either way the interval excludes 0 exactly when ``p <= 1 - confidence_level``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np
import numpy.typing as npt

from evalbot.stats._validation import (
    FloatArray,
    as_float_vector,
    as_number,
    as_pair,
    as_probability,
    as_resampling,
)
from evalbot.stats.intervals import t_interval
from evalbot.stats.paired_mean import (
    PairedMeanResult,
    _invert,
    _SignFlip,
    mean_result,
)
from evalbot.stats.pvalue import PValue, float_pvalue
from evalbot.vocabulary import CONFIDENCE, RESAMPLES


def cluster_codes(clusters: Sequence[str | None], n: int) -> npt.NDArray[np.int64]:
    """Integer cluster code per item; ``None`` puts an item in a cluster of its own."""
    if len(clusters) != n:
        raise ValueError(
            f"`clusters` must have one entry per item ({n}); got {len(clusters)} entries."
        )
    # codes in order of first appearance; each None is a key of its own
    seen: dict[object, int] = {}
    keys = (object() if label is None else label for label in clusters)
    return np.fromiter((seen.setdefault(key, len(seen)) for key in keys), np.int64, n)


def clustered_standard_error(
    baseline: FloatArray, candidate: FloatArray, clusters: Sequence[str | None]
) -> float:
    """Cluster-robust standard error of ``mean(candidate) - mean(baseline)``.

    With per-item differences ``d``, ``N`` items in ``G`` clusters, cluster sums ``D_g`` and
    sizes ``n_g``: ``SE = sqrt(G / (G - 1) * sum_g (D_g - n_g mean(d))^2) / N``, the CR1
    sandwich estimator of an intercept-only regression of ``d`` with clustered errors.
    ``None`` labels are clusters of one item, so with no shared labels this is the usual
    ``sd(d) / sqrt(N)``.

    References
    ----------
    .. [1] A. C. Cameron, D. L. Miller, "A practitioner's guide to cluster-robust
       inference", Journal of Human Resources 50 (2015), 317-372.
    .. [2] E. Miller, "Adding error bars to evals: a statistical approach to language model
       evaluations", arXiv:2411.00640 (2024), §2.2.

    Examples
    --------
    >>> from evalbot.stats.clusters import clustered_standard_error
    >>> round(clustered_standard_error([0, 0, 0, 0], [1, 1, 0, 0], ["a", "a", "b", "b"]), 6)
    0.5
    """
    base, cand, codes = _clustered_iv(baseline, candidate, clusters)
    g = int(codes.max()) + 1
    if g < 2:
        raise ValueError(
            f"`clusters` must contain at least 2 clusters for a clustered standard error; got {g}."
        )
    d = cand - base
    return _cr1(*_units(d, codes), float(d.mean()))


DesignMethod = Literal["configured", "estimated"]


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
    method: DesignMethod


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

    >>> from evalbot.stats.clusters import design_effect
    >>> round(design_effect(0.1, 10).design_effect, 6)
    1.9
    """
    rho = as_probability(intraclass_correlation, "intraclass_correlation", closed=True)
    if isinstance(cluster_size, int | float) and not isinstance(cluster_size, bool):
        sizes = np.array([float(cluster_size)])
        clusters = 0
    else:
        sizes = as_float_vector(cluster_size, "cluster_size")
        clusters = int(sizes.size)
    if sizes.size == 0 or not np.all(sizes >= 1.0) or not np.all(np.isfinite(sizes)):
        raise ValueError(f"`cluster_size` must be at least 1; got {cluster_size!r}.")
    m = _weighted_size(sizes)
    items = round(float(sizes.sum())) if clusters else 0
    return design_result(1.0 + (m - 1.0) * rho, rho, m, clusters, items, "configured")


def design_result(
    raw: float, rho: float, size: float, clusters: int, items: int, method: DesignMethod
) -> DesignEffectResult:
    """The design effect ``max(1, raw)`` with what it was computed from."""
    deff = max(1.0, raw)
    return DesignEffectResult(
        design_effect=deff,
        raw_design_effect=raw,
        intraclass_correlation=rho,
        cluster_size=size,
        clusters=clusters,
        items=items,
        effective_items=items / deff,
        method=method,
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

    >>> from evalbot.stats.clusters import estimate_design_effect
    >>> r = estimate_design_effect([0] * 8, [1, 1, 0, 0, 1, 1, 0, 0], list("aabbccdd"))
    >>> round(r.design_effect, 6), r.clusters, r.cluster_size
    (2.333333, 4, 2.0)
    """
    base, cand, codes = _clustered_iv(baseline, candidate, clusters)
    d = cand - base
    totals, sizes = _units(d, codes)
    g = int(sizes.size)
    n = int(d.size)
    m = _weighted_size(sizes)
    s2 = float(d.var(ddof=1)) if n > 1 else 0.0
    if g < 2 or s2 == 0.0:
        raw = 1.0
    else:
        se = _cr1(totals, sizes, float(d.mean()))
        raw = se * se / (s2 / n)
    rho = (raw - 1.0) / (m - 1.0) if m > 1.0 else math.nan
    return design_result(raw, rho, m, g, n, "estimated")


#: Up to this many clusters :func:`clustered_mean_test` uses the cluster sign-flip test, above
#: it the cluster-robust t (as :data:`evalbot.stats.paired_mean.SIGN_FLIP_MAX_ITEMS` for
#: items; ``tests/sim/test_clusters.py`` shows both at their sizes).
CLUSTER_SIGN_FLIP_MAX = 1000


@dataclass(frozen=True, kw_only=True)
class ClusteredMeanResult(PairedMeanResult):
    """:class:`PairedMeanResult` of a test whose units are clusters.

    ``standard_error`` is the cluster-robust (CR1) one (``nan`` with one cluster);
    ``n_clusters`` counts the clusters (an unlabelled item is a cluster of its own) and
    ``changed_clusters`` those whose total difference is not 0 (only they can be flipped:
    the smallest attainable p-value is ``2^(1 - changed_clusters)``). ``effect_size`` is
    ``d_z`` of the per-item differences, its interval assuming independent items (not for
    clustered inference).
    """

    n_clusters: int
    changed_clusters: int


def _clustered_iv(
    baseline: object, candidate: object, clusters: object
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.int64]]:
    """The paired values and every item's cluster code (``clusters`` is required)."""
    if clusters is None:
        raise ValueError("`clusters` must label every item; got None.")
    base, cand = as_pair(baseline, candidate)
    return base, cand, cluster_codes(cast("Sequence[str | None]", clusters), base.size)


def _units(d: FloatArray, codes: npt.NDArray[np.int64]) -> tuple[FloatArray, FloatArray]:
    """Each cluster's total of ``d`` and its size (float)."""
    return np.bincount(codes, weights=d).astype(np.float64), np.bincount(codes).astype(np.float64)


def _cr1(totals: FloatArray, sizes: FloatArray, mean: float) -> float:
    g = totals.size
    if g < 2:
        return math.nan
    resid = totals - sizes * mean
    return math.sqrt(g / (g - 1) * float(np.sum(resid**2))) / float(sizes.sum())


def clustered_mean_test(
    baseline: object,
    candidate: object,
    clusters: object,
    *,
    confidence_level: float = CONFIDENCE,
    n_resamples: int = RESAMPLES,
    seed: int = 0,
) -> ClusteredMeanResult:
    """The paired test of ``mean(candidate) - mean(baseline)`` whose units are clusters.

    Parameters
    ----------
    baseline, candidate : array_like of float, shape (n,)
        Per-item values of the two runs, aligned item by item (0/1 for pass/fail).
    clusters : sequence of str or None, shape (n,)
        Each item's cluster label; ``None`` is a cluster of one item.
    confidence_level : float, optional
        Level of the interval; its complement is the test's ``alpha``. Default 0.95.
    n_resamples : int, optional
        Sign patterns sampled when there are more than 24 clusters. Default 10,000.
    seed : int, optional
        Seed of the sampled sign patterns. Default 0.

    Returns
    -------
    ClusteredMeanResult
        ``method`` is ``"exact cluster sign-flip"``, ``"Monte Carlo cluster sign-flip"`` or
        ``"cluster-robust t"``.

    Notes
    -----
    With per-item differences ``d``, cluster totals ``D_g``, sizes ``n_g`` and ``N`` items,
    the statistic is ``|sum_g D_g| = N |mean(d)|`` and the p-value
    ``P(|sum s_g D_g| >= |sum D_g|)`` over the ``2^G`` sign patterns ``s`` (every pattern
    equally likely under the null). Above 24 clusters ``B`` patterns are drawn and
    ``p = (1 + count) / (1 + B)`` (Phipson & Smyth 2010). The interval is every ``delta``
    whose test of ``D_g - n_g delta`` does not reject, found by bisection; the p-value never
    increases as ``delta`` leaves ``mean(d)``, because no pattern's sum changes faster in
    ``delta`` than the observed one. With few clusters no shift is rejected (5 or fewer at
    95 %: ``2^(1 - 5) = 0.0625``) and the interval is ``(-inf, inf)``.

    Above :data:`CLUSTER_SIGN_FLIP_MAX` (1,000) clusters: ``T = mean(d) / SE_CR1`` against
    Student's t with ``G - 1`` degrees of freedom, interval ``mean(d) +- t SE_CR1``.

    References
    ----------
    .. [1] R. A. Fisher, *The Design of Experiments*, Oliver & Boyd (1935), §21.
    .. [2] B. Phipson, G. K. Smyth, "Permutation p-values should never be zero", Statistical
       Applications in Genetics and Molecular Biology 9 (2010), article 39.
    .. [3] V. Durkalski, Y. Palesch, S. Lipsitz, P. Rust, "Analysis of clustered matched-pair
       data", Statistics in Medicine 22 (2003), 2417-2428 (the clustered McNemar statistic
       this test replaces; ``tests/sim/test_clusters.py`` compares them).
    .. [4] A. C. Cameron, D. L. Miller, "A practitioner's guide to cluster-robust
       inference", Journal of Human Resources 50 (2015), 317-372.

    Examples
    --------
    Three clusters, every one improved: of the 8 sign patterns only all-plus and all-minus
    reach ``|sum D_g| = 4``, so ``p = 2/8``.

    >>> from evalbot.stats.clusters import clustered_mean_test
    >>> r = clustered_mean_test([0, 0, 0, 0, 1], [1, 1, 1, 1, 1], ["a", "a", "b", "c", "c"])
    >>> r.pvalue, r.method, r.n_clusters
    (0.25, 'exact cluster sign-flip', 3)
    """
    cl = as_probability(confidence_level, "confidence_level")
    b, s = as_resampling(n_resamples, seed)
    base, cand, codes = _clustered_iv(baseline, candidate, clusters)
    return clustered_test(base, cand, codes, cl, b, s)


def sign_flip_pvalue(
    baseline: object,
    candidate: object,
    clusters: Sequence[str | None] | None = None,
    *,
    shift: float = 0.0,
    n_resamples: int = RESAMPLES,
    seed: int = 0,
) -> float:
    """The p-value of the sign-flip test alone, for the shift ``shift`` (default 0): of the
    items, or with ``clusters`` of the clusters.

    The sign-flip test's interval (:func:`~evalbot.stats.paired_mean.paired_mean_test`'s up to
    1,000 items, :func:`clustered_mean_test`'s up to 1,000 clusters) is exactly the set of
    shifts whose p-value here exceeds ``1 - confidence_level`` (same sign patterns for the
    same ``seed``), so this is the cheap way to ask "is ``shift`` inside the interval?" (used
    by the coverage simulations).

    Examples
    --------
    >>> from evalbot.stats.clusters import sign_flip_pvalue
    >>> sign_flip_pvalue([0.0] * 8, [0.2, 0.3, 0.1, 0.2, 0.4, 0.1, 0.2, 0.2])
    0.0078125
    >>> sign_flip_pvalue([0, 0, 0, 0], [1, 1, 1, 0], ["a", "a", "b", "c"])
    0.5
    """
    b, s = as_resampling(n_resamples, seed)
    base, cand = as_pair(baseline, candidate)
    delta = as_number(shift, "shift", math.isfinite, "be finite")
    if clusters is None:
        return _SignFlip(cand - base, b, s).pvalue(delta)
    totals, sizes = _units(cand - base, cluster_codes(clusters, base.size))
    return _SignFlip(totals, b, s, sizes).pvalue(delta)


def clustered_test(
    base: FloatArray, cand: FloatArray, codes: npt.NDArray[np.int64], cl: float, b: int, s: int
) -> ClusteredMeanResult:
    """:func:`clustered_mean_test` on validated arrays and cluster codes."""
    d = cand - base
    totals, sizes = _units(d, codes)
    g = totals.size
    mean = float(d.mean())
    se = _cr1(totals, sizes, mean)
    method, detail, flip = _test(totals, sizes, mean, se, b, s)
    if flip is None:
        ci = t_interval(mean, se, g - 1, cl)
    else:
        ci = _invert(flip.pvalue, totals / sizes, 1.0 - cl, float(detail), centre=mean)
    found = mean_result(base, cand, cl, (method, detail, ci), se, flip)
    changed = int(np.count_nonzero(totals))
    return ClusteredMeanResult(**vars(found), n_clusters=g, changed_clusters=changed)


def clustered_pvalue(
    base: FloatArray, cand: FloatArray, codes: npt.NDArray[np.int64], b: int, s: int
) -> tuple[str, PValue]:
    """The method and p-value of :func:`clustered_test` alone, without its interval (the
    interval's search costs most of the time; a slice reports no interval)."""
    d = cand - base
    totals, sizes = _units(d, codes)
    mean = float(d.mean())
    method, detail, _ = _test(totals, sizes, mean, _cr1(totals, sizes, mean), b, s)
    return method, detail


def _test(
    totals: FloatArray, sizes: FloatArray, mean: float, se: float, b: int, s: int
) -> tuple[str, PValue, _SignFlip | None]:
    """The test of the clusters' totals: method, p-value, and the sign-flip (``None`` for the
    cluster-robust t, ``G - 1`` degrees of freedom) whose inversion gives the interval."""
    from scipy.special import stdtr

    g = totals.size
    if g > CLUSTER_SIGN_FLIP_MAX:
        # se = 0: every cluster's mean equal to the overall mean (the floor 2^(1 - g) of the
        # sign-flip is below any alpha)
        p = 1.0 if mean == 0.0 else 2.0 ** (1 - g)
        if se != 0.0 and math.isfinite(se):
            p = min(1.0, 2.0 * float(stdtr(g - 1, -abs(mean / se))))
        return "cluster-robust t", float_pvalue(p), None
    flip = _SignFlip(totals, b, s, sizes)
    return f"{flip.kind} cluster sign-flip", flip.null_pvalue(), flip
