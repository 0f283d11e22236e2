"""The time of an op: the loop, the clock and the warm-up, one definition for every harness.

The timing workers (inside/worker.py) and `check-harness`'s plain loop all time an op this way, in
the process state of sides/environment.py: after `prepare` (which calls the op once or twice) and
a warm-up, values of `loops` iterations of `inner` calls on the calling thread's CPU clock. A
thread's CPU clock leaves out the time a shared machine's other tenants hold the core, and other
threads (numpy's OpenBLAS thread spinning after import); an op that hands work to other threads
would be under-counted, and no serializer here does.
It imports nothing from serialbench, because it runs in a side's process beside another revision's
serialbench (inside/start.py; both sides of a comparison must run the same loop).
"""

from __future__ import annotations

import time

CLOCK = time.thread_time
CLOCK_NAME = "thread_time"
# Tiers cheap enough that a `for` loop's overhead would show: unroll ten calls per iteration. Not for
# an op known to take UNROLL_BELOW or more a call (JSON and KServe's decoder take 1-27 ms at 1K and
# 10K), whose loop overhead of about 20 ns an iteration is nothing, and whose values would otherwise
# last ten calls where one fills a value.
UNROLLED_TIERS = {"1K": 10, "10K": 10}
UNROLL_BELOW = 100e-6
# Calls before the first value: enough for caches, the allocator's free lists and lazy imports to
# settle (a fresh 4 MB buffer took 25x as long on its first copy here, and 1.1-3.5x on the next
# ten); at least one call, and a slow op (a JSON decoder at 1M, seconds a call) stops after it.
WARM_UP_SECONDS = 0.02
# Before each value of a cycle, untimed calls bring back the op's data, which the other lane's op
# evicted: at most REWARM_CALLS, until they cover REWARM_SECONDS (measure/plan.rewarm_calls).
REWARM_CALLS = 5
REWARM_SECONDS = 0.002
# An op of SLOW_CALL or more a call takes one value a round, warm from prepare's own call.
SLOW_CALL = 0.05
# An op of TIMED_FIRST_CALL or more a call is not called again for its value: the call that prepares
# it is timed and is its value (a JSON encoder or decoder at 1M, 0.5-7 s a call). In fresh processes
# of six such ops (0.8-3 s a call) the first call took 0.85-1.19x the second, and the third 0.69-1.15x
# the second: the first call is as good as any other.
TIMED_FIRST_CALL = 0.5


def timed_by_its_first_call(first_call: float | None) -> bool:
    """Whether an op whose first call took `first_call` seconds (None: not timed) is timed by that
    call alone (TIMED_FIRST_CALL): the worker does not call it again, and its plan says so."""
    return first_call is not None and first_call >= TIMED_FIRST_CALL


def inner_loops(tier: str, per_call: float | None = None) -> int:
    """Calls per iteration of the timed loop for an op of this tier, given its seconds a call when
    known (prepare's own call, or the warm-up's)."""
    if per_call is not None and per_call >= UNROLL_BELOW:
        return 1
    return UNROLLED_TIERS.get(tier, 1)


def warm_up(op, seconds: float = WARM_UP_SECONDS, clock=CLOCK) -> float:
    """Call op until `seconds` of calls have passed (at least once); the seconds per call."""
    calls, started = 0, clock()
    while True:
        op()
        calls += 1
        elapsed = clock() - started
        if elapsed >= seconds:
            return elapsed / calls


def make_time_func(op, inner_loops: int, clock=CLOCK):
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
