"""Two speeds: whether one side's processes ran at one of two speeds far apart, whether the speeds of
the two sides straddle the threshold, and how many rounds pair a slow process with a fast one."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from serialbench.core.stats.constants import SPOILED, TWO_SPEED_GAP, TWO_SPEED_SEPARATION, TWO_SPEED_SHARE, threshold
from serialbench.core.stats.evidence import finite_positive


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
    t = finite_positive(times, "times")
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
