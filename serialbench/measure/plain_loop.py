"""The plainest honest timing of an op: a fresh process, `prepare`, the warm-up, a loop on the clock.

`check-harness` runs it beside the run's workers and compare's lockstep workers: the three
share the loop, clock, warm-up and process state (timeloop.py, environment.py) and nothing else,
so where they disagree, one harness adds something of its own. One process per benchmark, started
as `python -m serialbench worker plain NAME` (serialbench/workers.py) by `plain_medians`, in a side's
serialbench with the workers' environment.
"""

from __future__ import annotations

import json
import statistics
import subprocess
from collections.abc import Callable, Sequence

from serialbench.catalog.registry import CaseFailed, prepare, select
from serialbench.core.formatting import last_line
from serialbench.inside import timeloop
from serialbench.sides.sides import Side

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


def plain_medians(side: Side, names: Sequence[str], processes: int,
                  say: Callable[[str], None]) -> dict[str, list[float]]:
    """Each of `processes` fresh processes' median, per benchmark, each process a plain loop run by the
    serialbench of `side`; a benchmark whose process fails is said and left at the medians it has."""
    medians = {}
    for name in names:
        found = []
        for _ in range(processes):
            argv, env = side.serialbench("worker", "plain", name)
            done = subprocess.run(argv, env=env, capture_output=True, text=True)
            try:
                answer = json.loads(done.stdout.strip().splitlines()[-1])
            except (IndexError, ValueError):
                answer = {"error": last_line(done.stderr) or f"exit status {done.returncode}"}
            if "error" in answer:
                say(f"{name}: plain loop failed: {answer['error']}")
                break
            found.append(answer["median"])
        if found:
            medians[name] = found
    return medians
