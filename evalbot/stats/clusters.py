"""Clusters of items: labels as codes, and the cluster-robust standard error.

Items that share a context (a document, a repository, a conversation) are not independent.
The paired bootstrap resamples whole clusters (:mod:`evalbot.stats.bootstrap`), the design
effect compares the clustered variance with the independent one (:mod:`evalbot.stats.design`);
both read the labels as :func:`cluster_codes`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

import numpy as np
import numpy.typing as npt

from evalbot.stats._paired_common import pair_iv
from evalbot.stats._validation import FloatArray

__all__ = ["cluster_codes", "clustered_standard_error", "paired_values_iv"]


def cluster_codes(clusters: Sequence[str | None], n: int) -> npt.NDArray[np.int64]:
    """Integer cluster code per item; ``None`` puts an item in a cluster of its own."""
    if len(clusters) != n:
        raise ValueError(
            f"`clusters` must have one entry per item ({n}); got {len(clusters)} entries."
        )
    codes = np.empty(n, dtype=np.int64)
    seen: dict[str, int] = {}
    next_code = 0
    for i, label in enumerate(clusters):
        if label is None:
            codes[i] = next_code
            next_code += 1
        else:
            code = seen.get(label)
            if code is None:
                code = seen[label] = next_code
                next_code += 1
            codes[i] = code
    return codes


def paired_values_iv(
    baseline: object, candidate: object, clusters: object
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.int64] | None]:
    """Two aligned, non-empty vectors of per-item values and, when ``clusters`` is given, the
    items' cluster codes (:func:`cluster_codes`)."""
    base, cand = pair_iv(baseline, candidate)
    codes = None
    if clusters is not None:
        codes = cluster_codes(cast(Sequence["str | None"], clusters), base.size)
    return base, cand, codes


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
    >>> from evalbot.stats import clustered_standard_error
    >>> round(clustered_standard_error([0, 0, 0, 0], [1, 1, 0, 0], ["a", "a", "b", "b"]), 6)
    0.5
    """
    base, cand, codes = paired_values_iv(baseline, candidate, clusters)
    if codes is None:  # pragma: no cover - clusters is required here
        raise ValueError("`clusters` is required.")
    g = int(codes.max()) + 1
    if g < 2:
        raise ValueError(
            f"`clusters` must contain at least 2 clusters for a clustered standard error; got {g}."
        )
    d = cand - base
    n = d.size
    resid = np.bincount(codes, weights=d) - np.bincount(codes).astype(np.float64) * d.mean()
    return float(math.sqrt(g / (g - 1) * float(np.sum(resid**2))) / n)
