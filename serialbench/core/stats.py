"""The one verdict engine: HEAD against BASE, for compare's paired rounds and for two independent runs.

Paired (one compare session): a round is a pair of worker processes, one per side, and its evidence is
the median over its cycles of log(HEAD/BASE). Rounds are independent; where the change is d, BASE and
HEAD*exp(-d) are exchangeable within a round, so each round's x - d is as likely to come out with
either sign. Every test here is Wilcoxon's signed-rank test of x - d with its exact null distribution:
valid whatever the shape of the noise. Its companions come from the same test:
- the estimate is the Hodges-Lehmann median of the Walsh averages (x_i + x_j) / 2;
- the interval at level 1 - a is the stretch of d around the estimate that the test does not reject
  at a, so a row's interval lies above d exactly when the test at d rejects (paired_summary).
Spoiled rounds: a worker stuck in a slow regime for its whole life (5-7x here) puts one round far out.
One such round of 16, against the change, put the exact p of the other 15 out of reach of the
correction across 80 benchmarks. So a test at d sets aside, of its n // 16 rounds farthest from d,
those more than 2x (SPOILED) from d: which rounds, depends only on the |x - d|, never on their signs,
so the test on the rest stays exact; on clean rounds nothing is set aside and nothing is lost.

Unpaired (two independent runs, `report BASE NEW`): each worker process gives its median; the same
three pieces come from the Mann-Whitney test (exact), the two-sample Hodges-Lehmann estimate and the
interval that inverts the test.

Verdicts, with theta the minimum effect and c = theta / 2 (judge.py applies them to a table):
- "slower" / "faster": the estimate is beyond +theta (-theta) and the interval, at the level that the
  correction across the table gives the row, lies wholly beyond +c (-c);
- "no change": the interval at the TOST's level lies wholly inside +-theta;
- "two speeds": a side's processes ran at one of two speeds far apart and the rounds mix them;
- "at the threshold": none of these, but the interval is narrower than theta and holds +theta or
  -theta: the change is measured, and it sits at the minimum effect (a name, not a decision: such a
  row would otherwise be "too noisy to tell", and nothing flagged or called "no change" depends on it);
- "too noisy to tell" otherwise.
So a change below theta is never flagged, and a flag is proof that the change is at least theta / 2:
a uniform change of theta / 2 or less gives any flag in at most ALPHA of sessions.

Ties (and rounds exactly at d) count against the tested direction; see rank_counts for why that is valid.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

ALPHA = 0.05  # any false flag in a table (A/A: in at most 5% of sessions); false "no change" per benchmark
MIN_EFFECT = 0.02  # a change smaller than this is never "slower" or "faster"
SURE_FRACTION = 0.5  # a flag needs the interval wholly beyond this fraction of the minimum effect
POWER = 0.8  # "detectable": the change flagged this often
Z95 = float(ndtri(0.975))  # the normal quantile of a two-sided 95% interval
SPOILED = math.log(2)  # a round more than 2x from the tested change is a spoiled process, not noise
# Two speeds: cluster medians at least TWO_SPEED_GAP apart (and at most SPOILED: beyond that the slow ones
# are spoiled processes, for the set-aside), each cluster at least this share of the rounds, their means
# at least TWO_SPEED_SEPARATION within-cluster standard deviations apart.
TWO_SPEED_GAP = math.log(1.15)
TWO_SPEED_SHARE = 0.2
TWO_SPEED_SEPARATION = 5.0


def threshold(min_effect: float) -> float:
    """The minimum effect in log space, where changes are estimated."""
    return math.log1p(min_effect)


def at_threshold(low, high, min_effect: float):
    """Whether an interval (log bounds) that no other word fits is "at the threshold": narrower than
    the minimum effect and holding +theta or -theta. Works on arrays.

    Such a row was measured well (its whole interval is narrower than the change that counts) and
    sits where the rule cannot put it on either side of theta: its change is about the minimum
    effect. Only the name differs from "too noisy to tell": no flag and no "no change" depend on
    it, so the error rates are those of the other words alone. In simulation a row that no other word fits and
    whose interval is that narrow always holds +-theta (an interval inside +-theta would pass the
    TOST first); the second condition keeps the word true should one not."""
    theta = threshold(min_effect)
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    holds = ((low <= theta) & (theta <= high)) | ((low <= -theta) & (-theta <= high))
    return (high - low < theta) & holds


def set_aside(n: int) -> int:
    """At most how many of n rounds a test leaves out: of the farthest from the change it tests, those
    more than SPOILED away."""
    return n // 16


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


# --- evidence at one look --------------------------------------------------------------------------

def paired_tests(x: np.ndarray, min_effect: float = MIN_EFFECT):
    """The tests of each row of x (rounds as columns): (p_change, direction, p_equivalent), p_change before
    the estimate's rule (see paired_batch)."""
    theta = threshold(min_effect)
    c = SURE_FRACTION * theta
    up, _ = signed_rank_p(x, c)
    _, down = signed_rank_p(x, -c)
    _, below = signed_rank_p(x, theta)
    above, _ = signed_rank_p(x, -theta)
    return np.minimum(1.0, 2 * np.minimum(up, down)), np.where(up <= down, 1, -1), np.maximum(below, above)


def paired_batch(x: np.ndarray, min_effect: float = MIN_EFFECT):
    """Evidence of each row of x (rounds as columns): (estimate, p_change, direction, p_equivalent).

    p_change: two-sided p against "|change| <= c" (c = SURE_FRACTION * theta), set to 1 where the
    estimate falls short of theta on the side the test points to (direction: +1 HEAD slower, -1 faster).
    p_equivalent: TOST's p against "|change| >= theta"."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    p, direction, p_equivalent = paired_tests(x, min_effect)
    estimate = paired_estimate(x)
    return estimate, np.where(direction * estimate >= threshold(min_effect), p, 1.0), direction, p_equivalent


def include_accepted(x: np.ndarray, low: np.ndarray, high: np.ndarray, a: np.ndarray, c: float):
    """Widen each row's interval to +-c wherever the test at that point rejects neither side at a / 2.
    Such a point is rarely outside the stretch around the estimate (a round far out can make the test
    accept a separate stretch); shown, it keeps a row that is not flagged from reading as flagged."""
    for tested in (c, -c):
        up, down = signed_rank_p(x, tested)
        accepted = (up > a / 2) & (down > a / 2)
        low, high = np.where(accepted, np.minimum(low, tested), low), np.where(accepted, np.maximum(high, tested), high)
    return low, high


@dataclass(frozen=True)
class Evidence:
    """One benchmark's evidence, judged against a minimum effect; log space (see paired_batch)."""

    estimate: float
    p_change: float
    direction: int
    p_equivalent: float
    rounds: int  # paired: rounds; unpaired: the smaller side's runs
    min_effect: float
    sample: tuple[float, ...]  # paired: the round estimates; unpaired: BASE's log times
    head: tuple[float, ...] | None = None  # unpaired: HEAD's log times

    def accepts(self, d: float, a: float) -> bool:
        """Whether the test at d rejects neither side at a / 2."""
        if self.head is None:
            up, down = (float(v[0]) for v in signed_rank_p(np.array([self.sample]), d))
        else:
            up, down = rank_sum_p(np.array(self.sample), np.array(self.head), d)
        return up > a / 2 and down > a / 2

    def interval(self, confidence: float, flagged: bool = True) -> tuple[float, float]:
        """The interval at this confidence, from the same test as the p-values; with flagged=False also
        reaching any of +-c that the test accepts (include_accepted)."""
        if self.rounds < 2:
            return -math.inf, math.inf
        if self.head is None:
            low, high = (float(v[0]) for v in paired_interval(np.array([self.sample]), 1 - confidence))
        else:
            low, high = rank_sum_interval(np.array(self.sample), np.array(self.head), 1 - confidence)
        if not flagged:
            c = SURE_FRACTION * threshold(self.min_effect)
            for tested in (c, -c):
                if self.accepts(tested, 1 - confidence):
                    low, high = min(low, tested), max(high, tested)
        return low, high

    def best_p(self) -> float:
        """The smallest two-sided p these rounds (or runs) could give: no row is flagged above it."""
        if self.head is None:
            kept = int(rank_counts(np.array([self.sample]), SURE_FRACTION * threshold(self.min_effect))[2][0])
            return 2 * float(signed_rank_cdf(kept)[0])
        return 2 * float(rank_sum_cdf(len(self.sample), len(self.head))[0])


def paired_evidence(estimates: Sequence[float], min_effect: float = MIN_EFFECT) -> Evidence:
    """The evidence of one benchmark's round estimates (log(HEAD/BASE) per round)."""
    values = np.asarray(estimates, dtype=float)
    if values.size < 2 or not np.all(np.isfinite(values)):
        middle = float(np.median(values)) if values.size and np.all(np.isfinite(values)) else math.nan
        return Evidence(middle, 1.0, 1, 1.0, values.size, min_effect, tuple(values))
    estimate, p, direction, p_equivalent = paired_batch(values[np.newaxis], min_effect)
    return Evidence(float(estimate[0]), float(p[0]), int(direction[0]), float(p_equivalent[0]), values.size,
                    min_effect, tuple(values))


def _finite_positive(values: Sequence[float], what: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise ValueError(f"{what}: timings must be positive numbers, got {list(values)}")
    return array


def round_estimate(base_values: Sequence[float], head_values: Sequence[float]) -> float:
    """One round's log change: the median over its cycles of log(HEAD/BASE), value i with value i."""
    if len(base_values) != len(head_values) or not len(base_values):
        raise ValueError(f"a round pairs values cycle by cycle: {len(base_values)} BASE, {len(head_values)} HEAD")
    base = _finite_positive(base_values, "BASE")
    head = _finite_positive(head_values, "HEAD")
    return float(np.median(np.log(head / base)))


def unpaired_evidence(base: Sequence[float], head: Sequence[float], min_effect: float = MIN_EFFECT) -> Evidence:
    """Two independent samples of times (one median per worker process): Mann-Whitney and the two-sample
    Hodges-Lehmann estimate (the median of log HEAD - log BASE over all pairs). A side whose runs all took
    the same time gets the p its ranks allow, never 0: 3 runs a side cannot go below 0.1."""
    b = np.log(_finite_positive(base, "BASE"))
    h = np.log(_finite_positive(head, "HEAD"))
    if not b.size or not h.size:
        return Evidence(math.nan, 1.0, 1, 1.0, 0, min_effect, tuple(b), tuple(h))
    theta = threshold(min_effect)
    c = SURE_FRACTION * theta
    estimate = float(np.median(np.subtract.outer(h, b)))
    up, down = rank_sum_p(b, h, c)[0], rank_sum_p(b, h, -c)[1]
    direction = 1 if up <= down else -1
    p = min(1.0, 2 * min(up, down)) if direction * estimate >= theta else 1.0
    p_equivalent = max(rank_sum_p(b, h, theta)[1], rank_sum_p(b, h, -theta)[0])
    return Evidence(estimate, p, direction, p_equivalent, min(b.size, h.size), min_effect, tuple(b), tuple(h))


# --- error control ---------------------------------------------------------------------------------

def benjamini_hochberg(p_values, q: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini-Hochberg along the last axis (one table per row): (rejected, how many rejected).

    scipy's `false_discovery_control(p) <= q` flags the same p-values but one exactly on BH's line
    (p == q j / m), where its m p / j can round above q (tests/test_stats.py): the rule as BH wrote it,
    p_(j) <= q j / m, is kept."""
    p = np.asarray(p_values, dtype=float)
    m = p.shape[-1]
    ordered = np.sort(p, axis=-1)
    under = ordered <= q * np.arange(1, m + 1) / max(m, 1)
    count = np.where(under.any(axis=-1), m - np.argmax(under[..., ::-1], axis=-1), 0)
    cutoff = np.take_along_axis(ordered, np.maximum(count - 1, 0)[..., np.newaxis], axis=-1)
    return (p <= cutoff) & (count[..., np.newaxis] > 0), count


def can_flag(rounds: int, share: float, table_size: int, alpha: float = ALPHA) -> bool:
    """Whether a look at this many rounds could flag a lone changed benchmark of its table (BH's level
    for it is alpha * share / table_size); the smallest two-sided p of n rounds is 2^(1 - n)."""
    return 2 * float(signed_rank_cdf(rounds)[0]) <= alpha * share / max(table_size, 1)


def look_shares(looks: Sequence[int], table_size: int,
                alpha: float = ALPHA) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Each look's share of alpha: (for the change test, for the equivalence test). They depend only on
    the schedule and the table's size, never on data.

    Change: half to the first look that could flag a lone changed benchmark, the rest split equally over
    the later ones; a look that could not (8 rounds in a table of 80: the smallest p, 1/128, is far above
    0.05 / 80) spends nothing. Equivalence: shares growing 1:2:3:4, so that the last look, which decides
    what is left, keeps most, and the first still confirms a quiet benchmark (eight rounds inside
    +-theta give p = 2^-8, within alpha * 0.1; the doubling shares used before, 0.045 at 8 rounds,
    could not). tests/test_stats.py checks the error rates the shares give on simulated sessions."""
    count = len(looks)
    if count == 0:
        return (), ()
    equivalence = tuple((index + 1) / (count * (count + 1) / 2) for index in range(count))
    first = count - 1
    for index in range(count):
        if can_flag(looks[index], 0.5 if index < count - 1 else 1.0, table_size, alpha):
            first = index
            break
    later = count - 1 - first
    change = tuple(0.0 if i < first else 1.0 if not later else 0.5 if i == first else 0.5 / later
                   for i in range(count))
    return change, equivalence


def share_at(shares: Sequence[float], look_index: int, final: bool) -> float:
    """The share a look spends: its own, or, when it is the session's last (time is up, or interrupted),
    its own and every later look's, which will never be taken. The shares spent over a benchmark's
    looks add up to at most 1 (weighted Bonferroni over looks)."""
    return sum(shares[look_index:]) if final else shares[look_index]


def is_equivalent(p_equivalent, estimate, share: float, min_effect: float, alpha: float = ALPHA):
    """No change: TOST at alpha * share, with the estimate inside +-theta (so that the interval shown,
    which holds the estimate and excludes +-theta, lies inside); works on arrays."""
    return (np.asarray(p_equivalent) <= alpha * share) & (np.abs(estimate) < threshold(min_effect))


# --- the row's verdict -----------------------------------------------------------------------------

def fraction(log_change: float) -> float:
    if math.isnan(log_change):
        return math.nan
    if log_change == math.inf:
        return math.inf
    if log_change == -math.inf:
        return -1.0
    return math.expm1(log_change)


def detectable_change(half_width, half_width95, rounds, min_effect: float, power: float = POWER):
    """The change (a fraction) flagged with `power` by a test whose interval at the row's level has this
    half-width (log): the interval must clear c, the estimate theta, each with the margin `power` needs.
    That margin covers the estimate's spread (from the 95% half-width) and the spread of the half-width
    itself, which is estimated from the same rounds (relative standard deviation 1 / sqrt(2 (n - 1)));
    without the latter, 16 rounds in a table of 80 were flagged 73% of the time at the change claimed."""
    theta = threshold(min_effect)
    se = np.asarray(half_width95) / Z95
    half_width = np.asarray(half_width)
    margin = float(ndtri(power)) * np.sqrt(se ** 2 + half_width ** 2 / (2 * np.maximum(np.asarray(rounds) - 1, 1)))
    return np.expm1(np.maximum(SURE_FRACTION * theta + half_width + margin, theta + float(ndtri(power)) * se))


def detectable(evidence: Evidence, a: float, power: float = POWER) -> float | None:
    """detectable_change of one row at two-sided error a; None where no change could be flagged at a."""
    if evidence.rounds < 2 or evidence.best_p() > a:
        return None
    low95, high95 = evidence.interval(0.95)
    low, high = evidence.interval(1 - a)
    value = float(detectable_change((high - low) / 2, (high95 - low95) / 2, evidence.rounds, evidence.min_effect,
                                    power))
    return value if math.isfinite(value) else None


# --- two speeds ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Modes:
    """One side's two speeds: the median time of each and which rounds (or runs) were slow."""

    fast: float
    slow: float
    slow_rounds: tuple[int, ...]

    @property
    def ratio(self) -> float:
        return self.slow / self.fast


def two_speeds_batch(times: np.ndarray, share: float | None = None, separation: float | None = None):
    """two_speeds for each row of times (rows, rounds): (found, split, order): how many of the sorted
    rounds are fast, and the rounds in order of time. Every split is scored at once from prefix sums."""
    share = TWO_SPEED_SHARE if share is None else share
    separation = TWO_SPEED_SEPARATION if separation is None else separation
    t = np.log(np.atleast_2d(np.asarray(times, dtype=float)))
    rows, n = t.shape
    order = np.argsort(t, axis=1, kind="stable")
    ts = np.take_along_axis(t, order, axis=1)
    least = max(3, math.ceil(share * n))
    splits = np.arange(least, n - least + 1)
    if n < 8 or not splits.size:
        return np.zeros(rows, bool), np.zeros(rows, int), order
    sums = np.concatenate([np.zeros((rows, 1)), np.cumsum(ts, axis=1)], axis=1)
    squares = np.concatenate([np.zeros((rows, 1)), np.cumsum(ts ** 2, axis=1)], axis=1)
    low_n, high_n = splits, n - splits
    low_sum, high_sum = sums[:, splits], sums[:, n:] - sums[:, splits]
    within = (squares[:, splits] - low_sum ** 2 / low_n) \
        + (squares[:, n:] - squares[:, splits] - high_sum ** 2 / high_n)
    spread = np.sqrt(np.maximum(within, 0) / (n - 2))
    distance = (high_sum / high_n - low_sum / low_n) / np.maximum(spread, 1e-12)
    apart = (ts[:, splits + (high_n - 1) // 2] + ts[:, splits + high_n // 2]) / 2 \
        - (ts[:, (splits - 1) // 2] + ts[:, splits // 2]) / 2
    ok = (apart >= TWO_SPEED_GAP) & (apart <= SPOILED) & (distance >= separation)
    best = np.argmax(np.where(ok, distance, -np.inf), axis=1)
    return ok.any(axis=1), splits[best], order


def two_speeds(times: Sequence[float]) -> Modes | None:
    """Whether one side's per-round times (each round's median: one process each) fall in two clusters:
    each holding at least TWO_SPEED_SHARE of the rounds (and 3), their medians between TWO_SPEED_GAP and
    SPOILED apart, their means TWO_SPEED_SEPARATION within-cluster standard deviations apart. Unimodal
    noise, heavy-tailed or drifting, rarely looks so (tests/test_stats.py simulates it). Fewer than 8
    rounds: None."""
    t = _finite_positive(times, "times")
    found, split, order = two_speeds_batch(t[np.newaxis])
    if not found[0]:
        return None
    ts = np.sort(t)
    return Modes(float(np.median(ts[:split[0]])), float(np.median(ts[split[0]:])),
                 tuple(sorted(int(i) for i in order[0, split[0]:])))


def speeds_apart(times: tuple[Sequence[float], Sequence[float]], modes: tuple[Modes | None, Modes | None],
                 min_effect: float) -> int:
    """+1 when every speed of HEAD is past the threshold above every speed of BASE, -1 when below, 0
    when the speeds straddle it. A side's speeds are its two modes, or the median of its rounds when
    it ran at one speed. Past the threshold from every speed, no mix of the rounds could make the
    change smaller than the minimum effect: the row is judged as any other (two speeds only withhold
    a verdict that the mix could decide)."""
    speeds = [(m.fast, m.slow) if m else (float(np.median(np.asarray(t, float))),) for m, t in zip(modes, times)]
    ratios = [math.log(h / b) for b in speeds[0] for h in speeds[1]]
    theta = threshold(min_effect)
    return 1 if min(ratios) > theta else -1 if max(ratios) < -theta else 0


def mixed_rounds(base: Modes | None, head: Modes | None, rounds: int,
                 times: tuple[Sequence[float], Sequence[float]] | None = None) -> int:
    """How many of the rounds pair a slow process with a fast one. Two speeds on both sides in the same
    rounds (the machine slowed down for a while) cancel in the ratio and do not count. With the rounds'
    times, a round counts only when its own HEAD/BASE shows the gap (at least half of the slow side's
    two speeds apart, in the slow side's direction): the machine's drift over a session can split one
    side's times into clusters that the other side's noise hides, and then the ratio shows nothing.
    The gap is measured from the rounds' usual ratio (their median), not from 1: under a real change
    every round's HEAD/BASE sits away from 1."""
    slow_base = set(base.slow_rounds) if base else set()
    slow_head = set(head.slow_rounds) if head else set()
    if times is not None:
        ratios = np.log(np.asarray(times[1][:rounds], float) / np.asarray(times[0][:rounds], float))
        ratios -= np.median(ratios)
    count = 0
    for r in range(rounds):
        if (r in slow_base) == (r in slow_head):
            continue
        if times is not None:
            if r in slow_base and ratios[r] > -math.log(base.ratio) / 2:
                continue
            if r in slow_head and ratios[r] < math.log(head.ratio) / 2:
                continue
        count += 1
    return count
