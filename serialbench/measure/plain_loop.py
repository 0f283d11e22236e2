"""The plainest honest timing of an op: a fresh process, `prepare`, the warm-up, a loop on the clock.

`check-harness` runs it beside the run's workers and compare's lockstep workers: the three
share the loop, clock, warm-up and process state (timeloop.py, environment.py) and nothing else,
so where they disagree, one harness adds something of its own. One process per benchmark, started
as `python -m serialbench worker plain NAME` (serialbench/workers.py), with the workers' environment.
"""

from __future__ import annotations

import json
import statistics

from serialbench.catalog.registry import CaseFailed, prepare, select
from serialbench.inside import timeloop

VALUES = 5
PLAIN_MIN_TIME = 0.02  # seconds per value: ten of the run's values


def time_op(name: str, case_dirs=(), values: int = VALUES, min_time: float = PLAIN_MIN_TIME) -> dict:
    """{"name", "median" (seconds per op), "values", "loops"}, or {"name", "error"}."""
    _, _, kind, tier = name.split("/")
    benchmarks, cases = select(case_dirs, [name], tier, kind)
    try:
        prepared = prepare(next(b for b in benchmarks if b.name == name), cases)
    except CaseFailed as exc:
        return {"name": name, "error": str(exc)}
    inner = timeloop.inner_loops(tier, timeloop.warm_up(prepared.op))
    time_func = timeloop.make_time_func(prepared.op, inner)
    loops = timeloop.calibrated_loops(time_func, min_time)
    taken = [time_func(loops) / (loops * inner) for _ in range(values)]
    return {"name": name, "median": statistics.median(taken), "values": taken, "loops": loops}


def worker(name: str, case_dirs=()) -> int:
    print(json.dumps(time_op(name, case_dirs)), flush=True)
    return 0
