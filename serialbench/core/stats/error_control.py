"""Error control across a table and over looks: Benjamini-Hochberg across the benchmarks of a table,
each look's share of alpha (weighted Bonferroni over looks), and the TOST's "no change" at a share.
verdicts/judge.py explains why together they hold the table's error rate."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from serialbench.core.stats.constants import ALPHA, threshold
from serialbench.core.stats.ranks import signed_rank_cdf


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
