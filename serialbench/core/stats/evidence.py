"""One benchmark's evidence and its verdict's numbers: the tests of a row at one look (against +-c,
c = SURE_FRACTION * theta, and the TOST against +-theta), its estimate and interval, the change it
could detect, and the name of a row measured at the threshold.

Paired (compare's rounds) from the signed-rank test, unpaired (two result files, one median per
worker process) from the rank-sum test (ranks.py): the same rule on both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from serialbench.core.stats.constants import MIN_EFFECT, POWER, SURE_FRACTION, Z95, threshold
from serialbench.core.stats.ranks import (
    paired_estimate,
    paired_interval,
    rank_counts,
    rank_sum_cdf,
    rank_sum_interval,
    rank_sum_p,
    signed_rank_cdf,
    signed_rank_p,
)


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


def finite_positive(values: Sequence[float], what: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise ValueError(f"{what}: timings must be positive numbers, got {list(values)}")
    return array


def round_estimate(base_values: Sequence[float], head_values: Sequence[float]) -> float:
    """One round's log change: the median over its cycles of log(HEAD/BASE), value i with value i."""
    if len(base_values) != len(head_values) or not len(base_values):
        raise ValueError(f"a round pairs values cycle by cycle: {len(base_values)} BASE, {len(head_values)} HEAD")
    base = finite_positive(base_values, "BASE")
    head = finite_positive(head_values, "HEAD")
    return float(np.median(np.log(head / base)))


def unpaired_evidence(base: Sequence[float], head: Sequence[float], min_effect: float = MIN_EFFECT) -> Evidence:
    """Two independent samples of times (one median per worker process): Mann-Whitney and the two-sample
    Hodges-Lehmann estimate (the median of log HEAD - log BASE over all pairs). A side whose runs all took
    the same time gets the p its ranks allow, never 0: 3 runs a side cannot go below 0.1."""
    b = np.log(finite_positive(base, "BASE"))
    h = np.log(finite_positive(head, "HEAD"))
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
