"""Metrics of per-column means, the statistics the paired bootstrap compares.

A :class:`Metric` is any function of per-item column means: the mean (a pass rate or a mean
score), a ratio of sums (cost per solved task) or micro-averaged F1 from per-item counts. A
resample is then fully described by how often each unit was drawn, so the bootstrap engine
(:mod:`evalbot.stats.resampling`) needs only column totals per resample.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy.typing as npt

from evalbot.stats._validation import FloatArray

__all__ = ["NAMED_METRICS", "ColumnsLike", "Metric", "f1_metric", "mean_metric", "ratio_metric"]


@dataclass(frozen=True, kw_only=True)
class Metric:
    """A metric that is a function of per-item column means.

    Attributes
    ----------
    name : str
        Label for reports (``"mean"``, ``"f1"``, ``"cost/solved"`` ...).
    columns : tuple of str
        Per-item columns the metric reads, on each side.
    function : callable
        ``function(means)`` where ``means`` maps each column to an array of column means
        (one per resample); returns the metric per resample. Must be vectorised and may
        return ``nan``/``inf`` where undefined (such resamples are counted and dropped).
        Any function of column means is allowed; that covers means, ratios of sums and
        micro-averaged F1, but not medians or quantiles.
    additive : bool
        True only for the plain mean of a single column: the difference is then the mean of
        per-item differences, which lets the resampler work on fewer distinct rows.
    """

    name: str
    columns: tuple[str, ...]
    function: Callable[[Mapping[str, FloatArray]], FloatArray]
    additive: bool = False


def mean_metric(column: str = "value") -> Metric:
    """The mean of ``column`` (pass rate for 0/1 values, mean score otherwise)."""
    return Metric(name="mean", columns=(column,), function=lambda m: m[column], additive=True)


def ratio_metric(numerator: str, denominator: str, *, name: str | None = None) -> Metric:
    """``sum(numerator) / sum(denominator)``, e.g. cost per solved task = ``cost / solved``."""
    return Metric(
        name=name or f"{numerator}/{denominator}",
        columns=(numerator, denominator),
        function=lambda m: m[numerator] / m[denominator],
    )


def f1_metric(tp: str = "tp", fp: str = "fp", fn: str = "fn") -> Metric:
    """Micro-averaged F1 from per-item counts: ``2 TP / (2 TP + FP + FN)`` on the totals."""
    return Metric(
        name="f1",
        columns=(tp, fp, fn),
        function=lambda m: 2.0 * m[tp] / (2.0 * m[tp] + m[fp] + m[fn]),
    )


NAMED_METRICS: dict[str, Callable[[], Metric]] = {
    "mean": mean_metric,
    "f1": f1_metric,
}

ColumnsLike = Mapping[str, npt.ArrayLike] | npt.ArrayLike
