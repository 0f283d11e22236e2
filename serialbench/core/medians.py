"""The run's precision: a distribution-free interval for the median over worker processes.

Each round of the run gives a benchmark one number, the median of the values one fresh process took.
Processes are independent draws of whatever shapes a process's speed (its heap and page layout, the
machine's state while it ran), so the k-th smallest and k-th largest of n such numbers bracket the
median of their distribution with probability 1 - 2 P(B <= k - 1), B ~ Binomial(n, 1/2), whatever
that distribution is (the sign test's interval; no normality, no symmetry, two speeds included). k is
the largest that keeps this coverage at or above the confidence asked: at 95%, 6 processes give the
range of all six (96.9%), 10 the 2nd to the 9th (97.9%), 20 the 6th to the 15th (95.9%).

A row has reached a precision P when its interval lies within +-P of its median. Looking after every
round and stopping a row once it has (a fixed-width sequential interval) can cost a little coverage
at the first looks; tests/test_medians.py measures it on simulated processes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

CONFIDENCE = 0.95


def coverage(n: int, k: int) -> float:
    """P(the k-th smallest <= median <= the k-th largest) of n independent draws; 0 for k < 1."""
    if k < 1 or 2 * k > n + 1:
        return 0.0
    # Exact in integers: scipy.stats.binom.cdf(k - 1, n, 0.5) gives the same to 1e-15, but importing
    # scipy.stats costs every command that reads a session's settings a second.
    below = sum(math.comb(n, i) for i in range(k)) / 2 ** n
    return 1.0 - 2.0 * below


def order_index(n: int, confidence: float = CONFIDENCE) -> int:
    """The largest k whose interval covers at the confidence (0: n is too small for any): the sign
    test's order statistic, for a run's processes here and for the benchmarks of two result files
    (core/stats/sign.py). coverage(n, k + 1), its tail summed as k grows."""
    k, below = 0, 0
    while 2 * (k + 1) <= n + 1:
        below += math.comb(n, k)
        if 1.0 - 2.0 * (below / 2 ** n) < confidence:
            break
        k += 1
    return k


def least_rounds(confidence: float = CONFIDENCE) -> int:
    """The fewest processes that give an interval at this confidence (6 at 95%)."""
    n = 1
    while not order_index(n, confidence):
        n += 1
    return n


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """The interval for the median of what the processes give; None with too few of them."""
    k = order_index(len(values), confidence)
    if not k:
        return None
    ordered = sorted(values)
    return ordered[k - 1], ordered[len(ordered) - k]


def half_width(middle: float, low: float, high: float) -> float:
    """How far the interval reaches from the middle, as a fraction of it, on its wider side: within
    +-P means low >= middle (1 - P) and high <= middle (1 + P)."""
    return max(1.0 - low / middle, high / middle - 1.0)
