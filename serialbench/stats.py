"""Verdicts on interleaved A/B timings that say only what the data supports.

The samples come in rounds: in each round one worker process of BASE and one of HEAD ran the same
benchmark back to back (the order alternating between rounds). Each worker contributes one number,
the fastest of its values: on a shared machine noise only ever adds time (another process, an
interrupt, a frequency dip), so a worker's fastest value is its least disturbed one (Chen and
Revels, "Robust benchmarking in noisy environments", 2016). The rounds give paired ratios
HEAD/BASE; the change is their median, with the sign test's exact confidence interval (order
statistics of the ratios). That interval assumes nothing about the shape of the noise, not even
symmetry, and a round spoiled by a burst of load does not move it; pairing within a round cancels
the drift of the machine over minutes. (The Hodges-Lehmann interval is narrower on clean data, but
with ten rounds a single spoiled one stretches it to the size of the spoil.)

A verdict needs both: "slower" when the interval lies above zero and the estimate is at least the
minimum effect; "no change" when the whole interval lies within +-minimum effect; "too noisy to
tell" otherwise. With fewer than 6 rounds no 95% interval exists, so nothing is claimed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from statistics import NormalDist

import numpy as np

CONFIDENCE = 0.95
MIN_EFFECT = 0.02  # below a 2% change, call it "no change"
Z_POWER_80 = 0.8416  # one-sided normal quantile of 80% power

FASTER, SLOWER, NO_CHANGE, TOO_NOISY = "faster", "slower", "no change", "too noisy to tell"


@dataclass(frozen=True)
class Verdict:
    """HEAD against BASE. Changes are fractions: +0.05 means HEAD takes 5% longer."""

    change: float  # median over the rounds of HEAD/BASE - 1
    low: float  # confidence interval of the change; -inf/inf when the rounds are too few
    high: float
    detectable: float  # the smallest change this run flags 4 times in 5 (inf when none)
    verdict: str
    rounds: int


def worker_statistic(values: Sequence[float]) -> float:
    """The one number a worker contributes: its fastest value."""
    return min(values)


def median_interval(differences: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """(median, low, high): the median and its distribution-free interval from the sign test.

    The interval runs from the k-th smallest to the k-th largest difference, k as large as the
    binomial tails allow; so one spoiled round on either side moves it not at all (from 10 rounds).
    """
    d = np.sort(np.asarray(differences, dtype=float))
    n = len(d)
    if n == 0:
        return math.nan, -math.inf, math.inf
    median = float(np.median(d))
    k = _order_statistic(n, 1 - confidence)
    if k is None:
        return median, -math.inf, math.inf
    return median, float(d[k - 1]), float(d[n - k])


@cache
def _order_statistic(n: int, alpha: float) -> int | None:
    """The largest k with 2 * P(Binomial(n, 1/2) <= k - 1) <= alpha, or None when even k=1 fails."""
    best, tail = None, 0
    for k in range(1, n // 2 + 1):
        tail += math.comb(n, k - 1)
        if 2 * tail / 2**n > alpha:
            break
        best = k
    return best


def compare_rounds(
    base: Sequence[float],
    head: Sequence[float],
    min_effect: float = MIN_EFFECT,
    confidence: float = CONFIDENCE,
) -> Verdict:
    """The verdict on paired per-round timings (base[i] and head[i] ran in the same round)."""
    if len(base) != len(head):
        raise ValueError(f"paired samples differ in length: {len(base)} BASE, {len(head)} HEAD")
    base_arr, head_arr = np.asarray(base, dtype=float), np.asarray(head, dtype=float)
    if np.any(base_arr <= 0) or np.any(head_arr <= 0):
        raise ValueError("timings must be positive")
    log_ratios = np.log(head_arr / base_arr)
    estimate, low, high = median_interval(log_ratios, confidence)
    threshold = math.log1p(min_effect)
    if low > 0 and estimate >= threshold:
        verdict = SLOWER
    elif high < 0 and estimate <= -threshold:
        verdict = FASTER
    elif -threshold <= low and high <= threshold:
        verdict = NO_CHANGE
    else:
        verdict = TOO_NOISY
    return Verdict(
        change=math.expm1(estimate),
        low=math.expm1(low),
        high=math.expm1(high),
        detectable=_detectable(low, high, threshold, confidence),
        verdict=verdict,
        rounds=len(base_arr),
    )


def _detectable(low: float, high: float, threshold: float, confidence: float) -> float:
    """The change that would be flagged with 80% power, given the interval's width in this run.

    A flag needs the interval to clear zero and the estimate to clear the minimum effect; with the
    standard error read off the interval's half-width, the smaller true change that does both four
    times in five is max(z * se, threshold) + z_power * se.
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return math.inf
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    se = (high - low) / (2 * z)
    return math.expm1(max(z * se, threshold) + Z_POWER_80 * se)
