"""The timed loop: `loops` iterations of `inner` calls of an op, on a given clock.

One definition for every way serialbench times an op: the runner's pyperf workers and compare's
lockstep workers. It imports nothing from serialbench, because compare's worker loads this file
by path beside another revision's serialbench (both sides of a comparison must run the same loop).
"""

from __future__ import annotations

import time

# Tiers cheap enough that a `for` loop's overhead would show: unroll ten calls per iteration.
UNROLLED_TIERS = {"1K": 10, "10K": 10}


def make_time_func(op, inner_loops: int, clock=time.perf_counter):
    """time_func(loops): `loops` iterations of `inner_loops` calls of op, in the clock's seconds."""
    if inner_loops == 10:
        def time_func(loops):
            range_it = range(loops)
            t0 = clock()
            for _ in range_it:
                op(); op(); op(); op(); op()  # noqa: E702 - unrolled, as pyperformance does
                op(); op(); op(); op(); op()  # noqa: E702
            return clock() - t0
    elif inner_loops == 1:
        def time_func(loops):
            range_it = range(loops)
            t0 = clock()
            for _ in range_it:
                op()
            return clock() - t0
    else:
        raise ValueError(f"inner_loops must be 1 or 10, not {inner_loops}")
    return time_func


def calibrated_loops(time_func, min_time: float, max_loops: int = 2 ** 32) -> int:
    """pyperf's loop calibration: double the loops until a value takes min_time."""
    loops = 1
    while time_func(loops) < min_time and loops * 2 <= max_loops:
        loops *= 2
    return loops
