"""The time of an op: the loop, the clock and the warm-up, one definition for every harness.

The run's pyperf workers, compare's lockstep workers and `check-harness`'s plain loop all time an
op this way, in the process state of measure/environment.py: after `prepare` (which calls the op
once or twice), WARM_UP_SECONDS of calls, then values of `loops` iterations of `inner` calls on
the calling thread's CPU clock. A thread's CPU clock leaves out the time a shared machine's other
tenants hold the core, and other threads (numpy's OpenBLAS thread spinning after import); an op
that hands work to other threads would be under-counted, and no serializer here does.
It imports nothing from serialbench, because compare's worker loads this file by path beside
another revision's serialbench (both sides of a comparison must run the same loop).
"""

from __future__ import annotations

import math
import time

CLOCK = time.thread_time
CLOCK_NAME = "thread_time"
# Tiers cheap enough that a `for` loop's overhead would show: unroll ten calls per iteration. Not for
# an op known to take UNROLL_BELOW or more a call (66 ops at 1K and 10K take 1-27 ms: JSON, KServe's
# decoder), whose loop overhead of about 20 ns an iteration is nothing: ten calls a value made each
# of their values ten times as long as a value needs to be, so compare fitted one pair a round of them.
UNROLLED_TIERS = {"1K": 10, "10K": 10}
UNROLL_BELOW = 100e-6
# Calls before the first value: enough for caches, the allocator's free lists and lazy imports to
# settle (a fresh 4 MB buffer took 25x as long on its first copy here, and 1.1-3.5x on the next
# ten); at least one call, and a slow op (a JSON decoder at 1M, seconds a call) stops after it.
WARM_UP_SECONDS = 0.02
# And every value starts warm. In compare the other side's op runs between two values, on the same
# CPU, and evicts this op's data (in the run, the memcpy floor's op does): here a 4 MB copy's first
# six calls after it took 770, 568, 343, 211, 169 and 150 us, where alone it took 160-176 us from
# the first call; a value of a few calls was mostly that transient. So before each value the worker
# calls the op REWARM_CALLS times, untimed: five calls cover the transient at 1M, and at the small
# tiers, whose data fits in the core's caches, they cost next to nothing (until issue 34 compare
# re-warmed for as long as a value lasts, 2 ms: in an A/A session alternating both ways round by
# round, the per-round spread was the same, and rounds took 14% less with five calls). An op slower
# than SLOW_CALL a call is not re-warmed (the transient is then a small share of it, and a call more
# would double a round). Between the two, the calls stop once they cover REWARM_SECONDS, at least one:
# the transient is a refill of the caches, about 2 ms over the 4 MB copy's first five calls, and an op
# of 2 ms a call touches all of its data in one call. Five calls of a 40 ms op had made each value cost
# six calls: in the reference's round, 279 s of the ops' calls, 154 s with this rule (issue 34). compare
# applies it to a warm value (measure/schedule.py: a cold one had cut its 4 MB copy's re-warm short).
REWARM_CALLS = 5
REWARM_SECONDS = 0.002
SLOW_CALL = 0.05
# An op of TIMED_FIRST_CALL or more a call is not called again for its value: the run times the call
# that prepares it (a JSON encoder or decoder at 1M, 0.5-7 s a call: a tenth of a round of all 864
# benchmarks went on calling them twice). Measured on this project's VM in fresh processes of six
# such ops (0.8-3 s a call, two processes each): the first call took 0.85-1.19x the second, and the
# third 0.69-1.15x the second, so the first call is as good as any other.
TIMED_FIRST_CALL = 0.5


def inner_loops(tier: str, per_call: float | None = None) -> int:
    """Calls per iteration of the timed loop for an op of this tier, given its seconds a call when
    known (prepare's own call, or the warm-up's)."""
    if per_call is not None and per_call >= UNROLL_BELOW:
        return 1
    return UNROLLED_TIERS.get(tier, 1)


def rewarm_calls(per_call: float) -> int:
    """Untimed calls before each value of an op of `per_call` seconds a call (none for a slow op)."""
    if per_call >= SLOW_CALL:
        return 0
    return max(1, min(REWARM_CALLS, math.ceil(REWARM_SECONDS / max(per_call, 1e-12))))


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
