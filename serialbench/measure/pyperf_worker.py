"""The run's pyperf worker: the benchmark of task N, prepared, warmed up and timed.

pyperf re-executes `python -m serialbench` in each worker with `--worker --worker-task N` and
counts `bench_time_func` calls to find task N. So every process selects the same benchmarks in
the same order, and only the worker whose task it is builds the payload, imports the case's
libraries and checks the output. The op is timed as measure/timeloop.py defines it, in the state
of measure/environment.py, which the worker's environment carries (commands/run.py sets it).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import pyperf

from serialbench.catalog.registry import Benchmark, CaseFailed, benchmark_metadata, prepare
from serialbench.measure import timeloop

WORKER_FAILED = 3
MAX_LOOPS = 2 ** 32  # pyperf's


def never_called(loops):  # the main process only spawns workers
    raise AssertionError("time_func runs in workers only")


def run_worker(runner: pyperf.Runner, benchmarks: Sequence[Benchmark], cases, task: int,
               calibrate_loops: bool, state: dict) -> int:
    """Time benchmark number `task`; the others are only counted (pyperf finds its task by count)."""
    for index, bench in enumerate(benchmarks):
        if index != task:
            runner.bench_time_func(bench.name, never_called)  # counted and skipped by pyperf
            continue
        try:
            prepared = prepare(bench, cases)
        except CaseFailed as exc:
            print(f"serialbench: {exc}", file=sys.stderr, flush=True)
            return WORKER_FAILED
        inner_loops = timeloop.UNROLLED_TIERS.get(bench.tier, 1)
        timeloop.warm_up(prepared.op)
        metadata = {**benchmark_metadata(bench, prepared), **state, "serialbench_clock": timeloop.CLOCK_NAME}
        startup = process_age()  # process start to the first timed loop: the worker's own cost
        if startup is not None:
            metadata["serialbench_worker_startup_s"] = round(startup, 3)
        time_func = timeloop.make_time_func(prepared.op, inner_loops)
        if calibrate_loops:
            runner.args.loops = timeloop.calibrated_loops(time_func, runner.args.min_time, MAX_LOOPS)
        runner.bench_time_func(bench.name, time_func, inner_loops=inner_loops if inner_loops > 1 else None,
                               metadata=metadata)
    return 0


def process_age() -> float | None:
    """Seconds since this process started, from /proc (Linux); None elsewhere."""
    try:
        with open("/proc/self/stat") as stat:
            start_ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as uptime:
            uptime_s = float(uptime.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return uptime_s - start_ticks / os.sysconf("SC_CLK_TCK")
