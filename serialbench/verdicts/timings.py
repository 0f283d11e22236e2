"""A benchmark of a run, judged by its processes: the median time with its interval, the multiple of
the memcpy floor as a paired ratio with its interval, two speeds, and whether it reached a precision.

The run (commands/run.py) gives each benchmark one process per round; each run of its pyperf entry
is one process. The time is the median over the processes of each one's median value, with the
distribution-free interval of core/medians.py. The multiple of the floor comes from the floor's
values taken in the same process, alternated with the benchmark's milliseconds apart: each run
records the median over its cycles of log(benchmark / floor) as `serialbench_floor_ratio`, and over
the runs the multiple is the Hodges-Lehmann estimate with the signed-rank interval, the estimate and
interval that compare gives HEAD/BASE (core/stats/ranks.py). A file without that metadata (a pyperf run,
a compare session's side) gets the ratio of the two medians, without an interval.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyperf

from serialbench.core import medians, stats
from serialbench.measure.session import FLOOR_RATIO, Run
from serialbench.results.files import Result, ResultFile, median_of


@dataclass(frozen=True)
class Timing:
    """One benchmark's figures over its processes; times in seconds per op, intervals at `confidence`."""

    rounds: int  # processes that gave values
    median: float
    low: float | None  # None: too few processes for an interval at this confidence
    high: float | None
    multiple: float | None = None  # paired, from the floor ratios of its runs; None without them
    multiple_low: float | None = None
    multiple_high: float | None = None
    modes: stats.Modes | None = None  # two speeds: the processes ran at one of two speeds

    @property
    def width(self) -> float:
        """The time interval's half-width as a fraction of the median (inf without an interval)."""
        return math.inf if self.low is None else medians.half_width(self.median, self.low, self.high)

    @property
    def multiple_width(self) -> float | None:
        """The multiple's half-width as a fraction of it; None where the file has no paired ratios."""
        if self.multiple is None:
            return None
        if self.multiple_low is None or not math.isfinite(self.multiple_low) or not math.isfinite(self.multiple_high):
            return math.inf
        return medians.half_width(self.multiple, self.multiple_low, self.multiple_high)

    def reached(self, target: float) -> bool:
        """Whether the time, and the multiple where there is one, are known within +-target."""
        multiple = self.multiple_width
        return self.width <= target and (multiple is None or multiple <= target)


@dataclass(frozen=True)
class Multiple:
    """A benchmark's multiple of the memcpy floor, with its interval where the run paired them."""

    value: float
    low: float | None = None
    high: float | None = None

    @property
    def width(self) -> float | None:
        """The half-width as a fraction of the multiple (inf: too few rounds; None: no interval)."""
        if self.low is None:
            return None
        if not math.isfinite(self.low) or not math.isfinite(self.high):
            return math.inf
        return medians.half_width(self.value, self.low, self.high)


def floor_multiple(results: ResultFile, result: Result, found: Timing | None) -> Multiple | None:
    """The one definition of a benchmark's multiple of the floor, that every view prints: the paired
    multiple from the rounds with its interval where the run took it (`found`, its Timing), else the
    ratio of its median to the floor's median in the same file. None for an op that copies no tensor
    (Case.no_copy: a multiple of a copy it never makes would read as beating memcpy), or where the file
    has no floor of its input and tier."""
    if found is None or not result.copies:
        return None
    if found.multiple is not None:
        return Multiple(found.multiple, found.multiple_low, found.multiple_high)
    floor = results.floor(result)
    return Multiple(found.median / floor.median) if floor is not None and floor.median else None


def run_medians(bench: pyperf.Benchmark) -> list[float]:
    """Each process's (run's) median value; runs without values (calibration) left out."""
    return [statistics.median(run.values) for run in bench.get_runs() if run.values]


def floor_ratios(metadata: Sequence[Mapping]) -> list[float] | None:
    """Each run's log(benchmark / floor) from its metadata, or None when a run lacks one."""
    found = [data.get(FLOOR_RATIO) for data in metadata]
    if not found or any(not isinstance(value, int | float) or not value > 0 for value in found):
        return None
    return [math.log(value) for value in found]


def timing(bench: pyperf.Benchmark, confidence: float = medians.CONFIDENCE) -> Timing | None:
    """A result file's benchmark as a Timing; None when it has no values. Its median is the one that
    `report` shows (results/files.median_of: over the rounds in a file of rounds, else pyperf's)."""
    runs = [run for run in bench.get_runs() if run.values]
    return timing_from([statistics.median(run.values) for run in runs],
                       floor_ratios([run.get_metadata() for run in runs]), confidence, median_of(bench))


def session_timing(runs: Sequence[Run], confidence: float = medians.CONFIDENCE) -> Timing | None:
    """A run's benchmark while it runs (measure/engine.py's runs) as a Timing."""
    runs = [run for run in runs if run.values]
    return timing_from([statistics.median(run.values) for run in runs], floor_ratios([run.metadata for run in runs]),
                       confidence)


def timing_from(per_process: Sequence[float], log_ratios: Sequence[float] | None,
                confidence: float = medians.CONFIDENCE, middle: float | None = None) -> Timing | None:
    """The Timing of one median per process and, where the run paired them, each one's log(op / floor);
    `middle` the median to show (by default the median of the processes')."""
    if not per_process:
        return None
    interval = medians.median_interval(per_process, confidence)
    low, high = interval if interval else (None, None)
    modes = stats.two_speeds(per_process) if len(per_process) >= 8 else None
    middle = statistics.median(per_process) if middle is None else middle
    if log_ratios is None:
        return Timing(len(per_process), middle, low, high, modes=modes)
    multiple, multiple_low, multiple_high = paired_multiple(log_ratios, confidence)
    return Timing(len(per_process), middle, low, high, multiple, multiple_low, multiple_high, modes)


def paired_multiple(log_ratios: Sequence[float], confidence: float = medians.CONFIDENCE
                    ) -> tuple[float, float, float]:
    """The Hodges-Lehmann estimate of the ratio and its signed-rank interval (inf: too few rounds)."""
    x = np.asarray(log_ratios, dtype=float)[np.newaxis]
    estimate, [(low, high)] = stats.paired_summary(x, [1 - confidence])
    return math.exp(float(estimate[0])), math.exp(float(low[0])), math.exp(float(high[0]))
