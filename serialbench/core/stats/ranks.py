"""The rank tests, exact: Wilcoxon's signed-rank test on paired rounds and Mann-Whitney's rank-sum
test on two independent samples, each with its estimate (Hodges-Lehmann) and the interval that
inverts the test.

Paired: a test at d keeps the rounds in order of |x - d| and sets aside, of the n // 16 farthest from
d, those more than SPOILED away (constants.py): which rounds, depends only on the |x - d|, never on
their signs, so the test on the rest stays exact. Ties (and rounds exactly at d) count against the
tested direction; see rank_counts for why that is valid. tests/test_stats_library.py holds both tests
to scipy's.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from serialbench.core.stats.constants import SPOILED, set_aside

# --- exact null distributions ----------------------------------------------------------------------

@functools.cache
def signed_rank_cdf(n: int) -> np.ndarray:
    """P(W <= w), w = 0..n(n+1)/2, for W the sum of those ranks 1..n that get a + sign, each with
    probability 1/2: the signed-rank statistic under the null, without ties (for ties see rank_counts).
    Tail probabilities are read from the low end, where cumsum is accurate."""
    pmf = np.zeros(n * (n + 1) // 2 + 1)
    pmf[0] = 1.0
    for rank in range(1, n + 1):
        shifted = np.zeros_like(pmf)
        shifted[rank:] = pmf[:-rank]
        pmf = 0.5 * (pmf + shifted)
    return np.cumsum(pmf)


@functools.cache
def rank_sum_cdf(m: int, n: int) -> np.ndarray:
    """P(U <= u), u = 0..m*n, for Mann-Whitney's U of samples of m and n, without ties."""
    # p[a][b] is the distribution for sizes a, b: the largest value is in the first sample (prob a/(a+b))
    # and then beats all b of the other, or it is in the second and adds nothing.
    rows = [np.ones(1) for _ in range(n + 1)]  # a = 0: U = 0
    for a in range(1, m + 1):
        new = [np.ones(1)]  # b = 0
        for b in range(1, n + 1):
            pmf = np.zeros(a * b + 1)
            pmf[b:b + rows[b].size] += a / (a + b) * rows[b]
            pmf[:new[b - 1].size] += b / (a + b) * new[b - 1]
            new.append(pmf)
        rows = new
    return np.cumsum(rows[n])


def _upper_p(cdf: np.ndarray, w: np.ndarray) -> np.ndarray:
    """P(W >= w) for a statistic symmetric about the middle of its range."""
    return cdf[cdf.size - 1 - np.asarray(w, dtype=int)]


def _order_index(cdf: np.ndarray, a: np.ndarray) -> np.ndarray:
    """k: the interval at two-sided error a runs from the k-th smallest to the k-th largest
    average (0: no interval can be that sure with these rounds)."""
    return np.searchsorted(cdf, np.asarray(a, dtype=float) / 2 * (1 + 1e-9), side="right")


# --- paired: rounds, each one log(HEAD/BASE) -------------------------------------------------------

def rank_counts(x: np.ndarray, d: float | np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Signed-rank statistics of x - d over the rounds kept at d, row by row: W+ = #{i <= j: y_i + y_j > 0}
    and W- = #{i <= j: y_i + y_j < 0} (Walsh counts), and how many rounds are kept.

    With distinct nonzero |y| these are the usual rank sums. A tie or a zero counts against the tested
    direction (a pair whose average is exactly 0 counts for neither side), which can only raise the p of
    either one-sided test above that of the exact test with ties broken by round order: valid."""
    y = x - np.asarray(d, dtype=float).reshape(-1, 1)
    n = y.shape[1]
    g = set_aside(n)
    y = np.take_along_axis(y, np.argsort(np.abs(y), axis=1, kind="stable"), axis=1)  # ties: later round last
    magnitude = np.abs(y)
    keep = np.ones(y.shape, bool)
    if g:
        keep[:, n - g:] = magnitude[:, n - g:] <= SPOILED  # a prefix: the kept come first
    kept = keep.sum(axis=1)
    ranks = np.arange(1, n + 1) * keep
    w_plus, w_minus = (ranks * (y > 0)).sum(axis=1), (ranks * (y < 0)).sum(axis=1)
    tied = ((magnitude[:, 0] == 0) | np.any((np.diff(magnitude, axis=1) == 0) & keep[:, 1:], axis=1)) & (kept > 0)
    if tied.any():
        i, j = np.triu_indices(n)
        masked = np.where(keep[tied], y[tied], np.nan)
        sums = masked[:, i] + masked[:, j]
        w_plus[tied], w_minus[tied] = (sums > 0).sum(axis=1), (sums < 0).sum(axis=1)
    return w_plus, w_minus, kept


def signed_rank_p(x: np.ndarray, d: float | np.ndarray = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """One-sided exact p-values of each row of x: (against change <= d, against change >= d)."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    w_plus, w_minus, kept = rank_counts(x, d)
    up, down = np.empty(len(x)), np.empty(len(x))
    for count in np.unique(kept):
        rows = kept == count
        cdf = signed_rank_cdf(int(count))
        up[rows], down[rows] = _upper_p(cdf, w_plus[rows]), _upper_p(cdf, w_minus[rows])
    return up, down


# The interval that inverts the test. A test at d keeps the rounds in order of |x - d| and sets aside,
# of the last set_aside(n), those more than SPOILED from d. Sorted, the kept rounds are always a run
# xs[lo : n - hi] (lo + hi <= g): the set-aside rounds are the lowest and the highest. As d grows, lo
# never falls and hi never rises, so each run is kept over one stretch of d: lo(d) >= k exactly when
# d > P_k, hi(d) >= k exactly when d < Q_k.

def _kept_runs(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P, Q (rows, g + 2) of sorted rounds xs: the k-th lowest round is set aside above P_k (it is among
    the g farthest from d, from d > b_(k-1), and more than SPOILED below d), the k-th highest below Q_k."""
    n = xs.shape[1]
    g = set_aside(n)
    edges = [(xs[:, j] + xs[:, j + n - g]) / 2 for j in range(g)]  # where the j-th lowest turns farther
    inf = np.full(len(xs), np.inf)
    p = [-inf] + [np.maximum(edges[k - 1], xs[:, k - 1] + SPOILED) for k in range(1, g + 1)] + [inf]
    q = [inf] + [np.minimum(edges[g - k], xs[:, n - k] - SPOILED) for k in range(1, g + 1)] + [-inf]
    return np.column_stack(p), np.column_stack(q)


def _run_at(p: np.ndarray, q: np.ndarray, d: np.ndarray, side: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) of the run kept at d (side 0), just above d (+1) or just below it (-1)."""
    d = d[:, np.newaxis]
    inner_p, inner_q = p[:, 1:-1], q[:, 1:-1]
    lo = (inner_p <= d).sum(axis=1) if side > 0 else (inner_p < d).sum(axis=1)
    hi = (inner_q >= d).sum(axis=1) if side < 0 else (inner_q > d).sum(axis=1)
    return lo, hi


def _stretch(p: np.ndarray, q: np.ndarray, rows: np.ndarray, lo: np.ndarray, hi: np.ndarray):
    """The stretch of d over which run (lo, hi) is kept."""
    return np.maximum(p[rows, lo], q[rows, hi + 1]), np.minimum(p[rows, lo + 1], q[rows, hi])


def _walsh_limits(xs: np.ndarray, lo: np.ndarray, hi: np.ndarray, errors: Sequence[np.ndarray]):
    """For run (lo, hi) of each row: the median Walsh average and, per two-sided error a, the k-th
    smallest and k-th largest (the test on that run accepts exactly the d between them)."""
    n = xs.shape[1]
    middle = np.empty(len(xs))
    limits = [(np.empty(len(xs)), np.empty(len(xs))) for _ in errors]
    for a_lo, a_hi in set(zip(lo.tolist(), hi.tolist())):
        rows = np.nonzero((lo == a_lo) & (hi == a_hi))[0]
        kept = n - a_lo - a_hi
        run = xs[rows, a_lo:n - a_hi]
        i, j = np.triu_indices(kept)
        walsh = np.sort((run[:, i] + run[:, j]) / 2, axis=1)
        size = walsh.shape[1]
        middle[rows] = (walsh[:, (size - 1) // 2] + walsh[:, size // 2]) / 2
        cdf = signed_rank_cdf(kept)
        for (low, high), a in zip(limits, errors):
            k = np.broadcast_to(_order_index(cdf, np.broadcast_to(a, (len(xs),))[rows]), (len(rows),))
            at = np.arange(len(rows))
            low[rows] = np.where(k > 0, walsh[at, np.clip(k - 1, 0, size - 1)], -np.inf)
            high[rows] = np.where(k > 0, walsh[at, np.clip(size - k, 0, size - 1)], np.inf)
    return middle, limits


def paired_summary(x: np.ndarray, errors: Sequence[float | np.ndarray] = ()):
    """The Hodges-Lehmann estimate of each row, and its interval at each two-sided error in `errors`.

    The estimate is the median Walsh average of the rounds kept at the median round. The interval at a is
    the stretch of d around the estimate that the signed-rank test at d does not reject at a / 2 on either
    side: each run of kept rounds accepts the d between two of its Walsh averages, and the interval
    follows those pieces outward from the estimate's run while they touch. A d that the test rejects is
    never inside. Rarely, with a round far out, the test also accepts a separate stretch near that round;
    the judge widens a row's interval to any tested change that its test did not reject."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    xs = np.sort(x, axis=1)
    rows = np.arange(len(x))
    p, q = _kept_runs(xs)
    estimate, _ = _walsh_limits(xs, *_run_at(p, q, np.median(x, axis=1)), [])
    intervals = []
    for a in errors:
        a = np.broadcast_to(np.asarray(a, dtype=float), (len(x),))
        lo, hi = _run_at(p, q, estimate)
        _, [(low, high)] = _walsh_limits(xs, lo, hi, [a])
        start, stop = _stretch(p, q, rows, lo, hi)
        ends = [np.minimum(np.maximum(low, start), estimate), np.maximum(np.minimum(high, stop), estimate)]
        for side, end, edge in ((1, 1, stop), (-1, 0, start)):
            # while the piece reaches its stretch's edge, step into the next run if its piece starts there
            edge = edge.copy()
            going = (ends[end] == edge) & np.isfinite(edge)
            for _ in range(2 * set_aside(x.shape[1]) + 1):
                if not going.any():
                    break
                at = rows[going]
                lo, hi = _run_at(p[at], q[at], edge[at], side)
                _, [(low, high)] = _walsh_limits(xs[at], lo, hi, [a[at]])
                begins, finishes = _stretch(p[at], q[at], np.arange(len(at)), lo, hi)
                touch = (low <= edge[at]) & (edge[at] <= high)
                reach = np.minimum(high, finishes) if side > 0 else np.maximum(low, begins)
                ends[end][at] = np.where(touch, reach, ends[end][at])
                edge[at] = finishes if side > 0 else begins
                going[at] = touch & (ends[end][at] == edge[at]) & np.isfinite(edge[at])
        intervals.append((ends[0], ends[1]))
    return estimate, intervals


def paired_estimate(x: np.ndarray) -> np.ndarray:
    return paired_summary(x)[0]


def paired_interval(x: np.ndarray, a: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return paired_summary(x, [a])[1][0]


# --- unpaired: two independent samples of log times ------------------------------------------------

def rank_sum_p(base: np.ndarray, head: np.ndarray, d: float = 0.0) -> tuple[float, float]:
    """One-sided exact Mann-Whitney p-values of head - base against (change <= d, change >= d); ties
    count against the tested direction, as in rank_counts."""
    diffs = np.subtract.outer(head, base).ravel() - d
    cdf = rank_sum_cdf(len(base), len(head))
    return float(_upper_p(cdf, (diffs > 0).sum())), float(_upper_p(cdf, (diffs < 0).sum()))


def rank_sum_interval(base: np.ndarray, head: np.ndarray, a: float) -> tuple[float, float]:
    diffs = np.sort(np.subtract.outer(head, base).ravel())
    k = int(_order_index(rank_sum_cdf(len(base), len(head)), a))
    return (float(diffs[k - 1]), float(diffs[diffs.size - k])) if k > 0 else (-math.inf, math.inf)
