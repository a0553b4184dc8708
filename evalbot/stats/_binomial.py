"""Binomial probabilities with numpy alone, accurate to a few units in the last place.

The power line sums binomial tails over thousands of counts on every comparison; importing
``scipy.special`` for them costs more than the rest of a 500-item run, and its incomplete-beta
tails lose accuracy with size (about 1e-12 relative at 2,000 trials, 5e-10 at a million: its
prefactor is a difference of log-gammas). Here:

* :func:`log_pmf` is Loader's saddle-point form, ``stirlerr(n) - stirlerr(k) - stirlerr(n - k)
  - bd0(k, np) - bd0(n - k, nq) - log(2 pi k (n - k) / n) / 2``: every term is small or
  computed without cancellation, so the probability is accurate to a few ulp at every size;
* :func:`cdf` sums the terms of the smaller side downward from ``k`` (each a ratio of the one
  before, restarted from :func:`log_pmf` every chunk) until the rest is below 2^-60 of the
  sum; the other side is one minus that sum, which is at least about 1/2;
* :func:`path_cdf` gives ``P(Bin(d, p) <= k_d)`` along a run of consecutive ``d`` whose ``k_d``
  grows by 0 or 1 (a critical count, the test's boundary) in O(length): each value is the one
  before plus one binomial term (``F(k, d + 1) = F(k, d) - p f(k; d)`` and ``F(k + 1, d + 1) =
  F(k, d) + q f(k + 1; d)``), restarted from :func:`cdf` every 256 counts; a value whose
  rounding bound exceeds 2e-14 of itself (a tail that falls steeply, where the direct sum is
  short) is computed directly instead.

References
----------
.. [1] C. Loader, "Fast and accurate computation of binomial probabilities" (2000).
.. [2] M. Abramowitz, I. Stegun, *Handbook of Mathematical Functions*, 6.1.37 (Stirling's
   series) and 26.5.24 (binomial tails as incomplete beta functions).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_LN_2PI = math.log(2.0 * math.pi)
_ULP = 2.0**-53
#: Direct sums stop once the terms left are below this share of the sum.
_TINY = 2.0**-60
#: Restart the path recurrence from a direct sum every ``_RUNS`` runs of ``_SUB`` counts
#: (1,024: no value is more than 64 roundings deep) ...
_SUB = 32
_RUNS = 32
#: ... and recompute directly any value whose rounding bound exceeds this share of it.
_PATH_TOL = 1e-13
#: Relative error allowed for one term ``exp(log_pmf)`` in the rounding bound: a few ulp of
#: the log (which can reach hundreds in a far tail) plus the exponential's own.
_TERM_ERR = 8.0 * _ULP

#: ``stirlerr(n) = log(n!) - (n + 1/2) log(n) + n - log(2 pi) / 2`` for n = 0..15 (0 for n = 0
#: by convention), from 50-digit decimal arithmetic on the exact factorials (recomputed in
#: tests/unit/stats/test_binomial.py).
_STIRLERR_SMALL = np.array(
    [
        0.0,
        0.08106146679532726,
        0.0413406959554093,
        0.02767792568499834,
        0.020790672103765093,
        0.016644691189821193,
        0.013876128823070748,
        0.01189670994589177,
        0.010411265261972096,
        0.009255462182712733,
        0.00833056343336287,
        0.007573675487951841,
        0.00694284010720953,
        0.006408994188004207,
        0.0059513701127588475,
        0.005554733551962801,
    ]
)
# Stirling's series (A&S 6.1.37, Bernoulli numbers B_2j / (2j (2j - 1))), times n:
# 1/12 - 1/(360 n^2) + 1/(1260 n^4) - 1/(1680 n^6) + 1/(1188 n^8) - 691/(360360 n^10)
# + 1/(156 n^12); the next term is below 3e-20 from n = 16.
_S0, _S1, _S2, _S3, _S4, _S5, _S6 = (
    1 / 12,
    1 / 360,
    1 / 1260,
    1 / 1680,
    1 / 1188,
    691 / 360360,
    1 / 156,
)


def stirlerr(n: IntArray) -> FloatArray:
    """``log(n!) - log(sqrt(2 pi n) (n / e)^n)`` element-wise for integers ``n >= 0``."""
    n = np.asarray(n, dtype=np.int64)
    out = np.empty(n.shape, dtype=np.float64)
    small = n <= 15
    if small.any():
        out[small] = _STIRLERR_SMALL[n[small]]
        big = ~small
        x = n[big].astype(np.float64)
    else:
        big = None
        x = n.astype(np.float64)
    xx = x * x
    values = (_S0 - (_S1 - (_S2 - (_S3 - (_S4 - (_S5 - _S6 / xx) / xx) / xx) / xx) / xx) / xx) / x
    if big is None:
        return values
    out[big] = values
    return out


def bd0(x: FloatArray, m: FloatArray) -> FloatArray:
    """``x log(x / m) + m - x`` (the deviance term) without cancellation for ``x`` near ``m``:
    a series in ``v = (x - m) / (x + m)`` when ``|x - m| < (x + m) / 10`` (Loader)."""
    x, m = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(m, dtype=np.float64))
    diff = x - m
    total = x + m
    near = np.abs(diff) < 0.1 * total
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x > 0.0, x * np.log(x / m), 0.0) + m - x
    if near.any():
        d = diff[near]
        v = d / total[near]
        s = d * v
        ej = 2.0 * x[near] * v
        v2 = v * v
        j = 3.0
        while True:
            ej = ej * v2
            s_next = s + ej / j
            if np.array_equal(s_next, s):
                break
            s = s_next
            j += 2.0
        out[near] = s
    return out


_SPLIT = 134217729.0  # 2^27 + 1: Veltkamp's splitting constant


def _product(n: FloatArray, p: float, remainder: float) -> tuple[FloatArray, FloatArray]:
    """``(m, e)`` with ``m + e = n (p + remainder)`` to about ``u^2`` relative: ``n p`` as a float
    and what its rounding lost (Dekker's product; ``n`` is an integer below 2^26 or so, which
    the error term tolerates well beyond)."""
    t = _SPLIT * p
    high = t - (t - p)
    low = p - high
    m = n * p
    return m, ((n * high - m) + n * low) + n * remainder


def _bd0_at(x: FloatArray, m: FloatArray, e: FloatArray) -> FloatArray:
    """``bd0(x, m + e)`` for a small correction ``e`` of the mean: ``bd0(x, m) + e (1 - x / m)``
    (the rounding of ``n p`` alone would cost ``|x - np| / np`` ulp of ``np`` in the log)."""
    return bd0(x, m) + e * (1.0 - x / m)


def log_pmf(k: IntArray, n: IntArray, p: float, q: float | None = None) -> FloatArray:
    """``log P(Bin(n, p) = k)`` element-wise (``-inf`` outside ``0..n``); ``q`` is ``1 - p``
    (given when the caller holds it exactly, as for the other side of a tail)."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.int64), np.asarray(n, dtype=np.int64))
    if q is None:
        q = 1.0 - p
    out = np.full(k.shape, -np.inf)
    if p == 0.0 or q == 0.0:
        out[(k == (0 if p == 0.0 else n)) & (n >= 0)] = 0.0
        return out
    inside = (k > 0) & (k < n)
    every = bool(inside.all())
    kk = k if every else k[inside]
    nn = n if every else n[inside]
    kf = kk.astype(np.float64)
    nf = nn.astype(np.float64)
    # The smaller of p and q is exact as given; the other may be 1 minus it rounded: carry the
    # remainder (exact by Sterbenz's lemma) into its mean.
    mean_p, err_p = _product(nf, p, -((p - 1.0) + q) if p > q else 0.0)
    mean_q, err_q = _product(nf, q, -((q - 1.0) + p) if q > p else 0.0)
    values = (
        stirlerr(nn)
        - stirlerr(kk)
        - stirlerr(nn - kk)
        - _bd0_at(kf, mean_p, err_p)
        - _bd0_at(nf - kf, mean_q, err_q)
        - 0.5 * (_LN_2PI + np.log(kf) + np.log(nf - kf) - np.log(nf))
    )
    if every:
        return values
    out[inside] = values
    log_q = math.log1p(-p) if p < 0.5 else math.log(q)
    log_p = math.log(p)
    zero = (k == 0) & (n >= 0)
    out[zero] = n[zero] * log_q
    full = (k == n) & (n > 0)
    out[full] = n[full] * log_p
    return out


def _lower_sum(k: IntArray, n: IntArray, p: float, q: float) -> FloatArray:
    """``P(Bin(n, p) <= k)`` for ``0 <= k < (n + 1) p``, where every term below ``k`` is
    smaller than the one above it: the sum of the terms downward from ``k`` relative to the
    term at ``k``, in runs of at most 256 (each restarted from :func:`log_pmf`), until the
    rest is below 2^-60 of the sum. The runs per round double, up to 64."""
    top = log_pmf(k, n, p, q)
    total = np.ones(k.shape, dtype=np.float64)
    alive = np.arange(k.size)
    head = k.copy()  # the next run starts below this count ...
    start = np.ones(k.size, dtype=np.float64)  # ... whose term, over the term at k, is this
    width, runs = 32, 1
    while alive.size:
        nn = n[alive][:, None, None]
        heads = head[alive][:, None] - width * np.arange(runs, dtype=np.int64)[None, :]
        starts = np.empty(heads.shape, dtype=np.float64)
        starts[:, 0] = start[alive]
        if runs > 1:
            lower = heads[:, 1:]
            starts[:, 1:] = np.exp(
                log_pmf(lower, np.broadcast_to(n[alive][:, None], lower.shape), p, q)
                - top[alive][:, None]
            )
        i = heads[:, :, None] - np.arange(width, dtype=np.int64)[None, None, :]  # t_{i-1}/t_i
        ratio = np.where(i >= 1, (i * q) / (np.maximum(nn - i + 1, 1) * p), 0.0)
        terms = starts[:, :, None] * np.cumprod(ratio, axis=2)
        total[alive] += terms.sum(axis=(1, 2))
        last, last_ratio = terms[:, -1, -1], ratio[:, -1, -1]
        # the rest is at most last * r / (1 - r): the ratios only shrink further down
        done = (i[:, -1, -1] <= 1) | (last * last_ratio < _TINY * (1.0 - last_ratio) * total[alive])
        alive = alive[~done]
        if alive.size:
            nxt = head[alive] - width * runs
            head[alive] = nxt
            start[alive] = np.exp(log_pmf(nxt, n[alive], p, q) - top[alive])
        if width < 256:
            width *= 2
        else:
            runs = min(2 * runs, 64)
    return np.exp(top) * total


def cdf(k: IntArray, n: IntArray, p: float) -> FloatArray:
    """``P(Bin(n, p) <= k)`` element-wise, relative error a few ulp on the smaller side (the
    larger side, at least about 1/2, to a few ulp absolute)."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.int64), np.asarray(n, dtype=np.int64))
    q = 1.0 - p
    out = np.where(k >= n, 1.0, 0.0)
    rest = (k >= 0) & (k < n)
    if p == 0.0:
        out[rest] = 1.0
        return out
    if p == 1.0 or not rest.any():
        return out
    lower = rest & (k < (n + 1) * p)
    upper = rest & ~lower
    if lower.any():
        out[lower] = _lower_sum(k[lower], n[lower], p, q)
    if upper.any():
        # P(X <= k) = 1 - P(n - X <= n - k - 1), n - X ~ Bin(n, q), and n - k - 1 < (n + 1) q
        out[upper] = 1.0 - _lower_sum(n[upper] - k[upper] - 1, n[upper], q, p)
    return out


def sf(k: IntArray, n: IntArray, p: float) -> FloatArray:
    """``P(Bin(n, p) > k)`` element-wise (as :func:`cdf` of ``n - X ~ Bin(n, 1 - p)``)."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.int64), np.asarray(n, dtype=np.int64))
    return cdf(n - k - 1, n, 1.0 - p)


def path_cdf(d: IntArray, k: IntArray, p: float) -> FloatArray:
    """``P(Bin(d_j, p) <= k_j)`` for consecutive ``d_j`` (``d_{j+1} = d_j + 1``); O(length)
    when every ``k_{j+1} - k_j`` is 0 or 1, as for a critical count (else each directly)."""
    return path_tails(d, k, p)[0]


def path_tails(d: IntArray, k: IntArray, p: float) -> tuple[FloatArray, FloatArray]:
    """``(P(Bin(d_j, p) <= k_j), P(Bin(d_j - 1, p) = k_j))`` along consecutive ``d_j``.

    The second is the term that carries the first from ``d_j - 1`` to ``d_j`` (whether
    ``k`` stayed or grew by one), and ``-d_j`` times the first's derivative in ``p``.
    """
    d = np.asarray(d, dtype=np.int64)
    k = np.asarray(k, dtype=np.int64)
    width = d.size
    q = 1.0 - p
    terms = np.exp(log_pmf(k, d - 1, p, q))
    if (
        width <= 64
        or p in (0.0, 1.0)
        or int(d[0]) < 0
        or int(d[-1]) - int(d[0]) != width - 1
        or not np.array_equal(np.diff(d), np.ones(width - 1, dtype=np.int64))
    ):
        return cdf(k, d, p), terms
    step = np.diff(k)
    stay = step == 0
    if not bool((stay | (step == 1)).all()):
        return cdf(k, d, p), terms
    # from j - 1 to j: the same k loses p f(k; d_{j-1}); k + 1 gains q f(k + 1; d_{j-1})
    increments = np.where(stay, -p, q) * terms[1:]
    result, bad = _recurrence(d, k, p, increments, _RUNS)
    if bad.size > width // 16:  # a tail that swings a lot: restart it 8 times as often
        result, bad = _recurrence(d, k, p, increments, _RUNS // 8)
    if bad.size:
        result[bad] = cdf(k[bad], d[bad], p)
    return np.clip(result, 0.0, 1.0), terms


def _recurrence(
    d: IntArray, k: IntArray, p: float, increments: FloatArray, runs: int
) -> tuple[FloatArray, IntArray]:
    """The path's values from a direct sum every ``runs * _SUB`` counts and the increments
    between, and the positions whose rounding bound exceeds ``_PATH_TOL`` of their value."""
    width = d.size
    block = runs * _SUB
    blocks = -(-width // block)
    values = np.zeros(blocks * block, dtype=np.float64)
    values[1:width] = increments
    anchors = np.arange(0, width, block)
    values[anchors] = cdf(k[anchors], d[anchors], p)
    result, bound = _block_sums(values.reshape(blocks, runs, _SUB))
    result, bound = result[:width], bound[:width]
    return result, np.flatnonzero(bound > _PATH_TOL * result)


def _block_sums(grid: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Running sums within each block (``grid[block, run, position]``: sums of runs, so at
    most ``runs + _SUB`` roundings deep), flattened, with a bound on their rounding error
    (each partial sum rounded once, each value a few ulp off)."""
    inner = np.cumsum(grid, axis=2)
    totals = inner[:, :, -1]
    before = np.cumsum(totals, axis=1) - totals  # the runs before each run, in its block
    out = inner + before[:, :, None]
    error = np.cumsum(np.abs(inner) * _ULP + np.abs(grid) * _TERM_ERR, axis=2)
    run_error = np.cumsum(np.abs(before) * _ULP + error[:, :, -1], axis=1) - error[:, :, -1]
    bound = error + run_error[:, :, None] + np.abs(out) * _ULP
    return out.ravel(), bound.ravel()
