"""What a run prints while it runs: `[k/N] NAME` with the time so far and left, each result on one
line, an unstable result flagged on that line, and one closing line about what to do with them.

pyperf prints, per benchmark, its result and, for an unstable one, a warning of seven lines and more
(the same advice each time); it has no hook for its display, so the runner hides it (runner._quietly) and
prints these lines instead. The instability checks are pyperf's own (pyperf._cli.format_checks):
std dev at least 10% of the mean, the minimum or maximum at least 50% away from the mean, a raw
value (all loops of one value) under 1 ms. Its fourth, "not enough samples", is left out: it asks
for more processes than a first look (`--fast`, one process) ever has.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import pyperf

from serialbench.core.formatting import format_duration, format_percent, format_time

STD_DEV_LIMIT = 0.10  # of the mean
OUTLIER_LIMIT = 0.50  # of the mean, for the minimum and the maximum
SHORTEST_RAW_VALUE = 1e-3  # seconds


def instability(bench: pyperf.Benchmark) -> list[str]:
    """Why pyperf would call this result unstable, in a few words each; [] when it would not."""
    values = bench.get_values()
    if not values:
        return []
    mean = statistics.fmean(values)
    reasons = []
    if len(values) >= 2 and statistics.stdev(values) >= STD_DEV_LIMIT * mean:
        reasons.append(f"std dev {format_percent(statistics.stdev(values) / mean)} of the mean")
    for word, value in (("min", min(values)), ("max", max(values))):
        off = (value - mean) / mean
        if abs(off) >= OUTLIER_LIMIT:
            reasons.append(f"{word} {format_percent(abs(off))} {'above' if off > 0 else 'below'} the mean")
    raw = [value * run.get_total_loops() for run in bench.get_runs() for value in run.values]
    if raw and min(raw) < SHORTEST_RAW_VALUE:
        reasons.append(f"a value lasts only {format_time(min(raw))}")
    return reasons


def result_line(bench: pyperf.Benchmark) -> str:
    """`  median 6.45 us, std dev 2.5%`, and `unstable` with the reasons the line does not show yet."""
    values = bench.get_values()
    if not values:
        return "  no values"
    line = f"  median {format_time(statistics.median(values))}"
    if len(values) >= 2:
        line += f", std dev {format_percent(statistics.stdev(values) / statistics.fmean(values))}"
    else:
        line += ", 1 value"
    reasons = instability(bench)
    if not reasons:
        return line
    others = [reason for reason in reasons if not reason.startswith("std dev")]
    return line + "  unstable" + (f": {'; '.join(others)}" if others else "")


class Progress:
    """Counts the benchmarks of one run, its unstable results, and the time it has taken."""

    def __init__(self, total: int, clock: Callable[[], float] = time.monotonic):
        self.total = total
        self.clock = clock
        self.started = clock()
        self.unstable: list[str] = []

    def starting(self, index: int, name: str) -> str:
        """`[k/N] NAME`, and from the second benchmark on the time so far and an estimate of the rest."""
        line = f"[{index}/{self.total}] {name}"
        done = index - 1
        if done:
            elapsed = self.clock() - self.started
            left = elapsed / done * (self.total - done)
            line += f"  ({format_duration(elapsed)} so far, ~{format_duration(left)} left)"
        return line

    def finished(self, bench: pyperf.Benchmark) -> str:
        if instability(bench):
            self.unstable.append(bench.get_name())
        return result_line(bench)

    def closing(self) -> str | None:
        """One line for all unstable results: what they mean and what to do; None when there are none."""
        if not self.unstable:
            return None
        return (f"{len(self.unstable)} of {self.total} results unstable: rerun them (-b NAME) with more -p, -n or "
                "--min-time on a quieter machine; to tell whether a change helped, use "
                "'python -m serialbench compare', not two runs by eye")
