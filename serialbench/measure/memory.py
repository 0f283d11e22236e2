"""Memory per op, measured in a worker of its own (commands/memory.py runs one per FORMAT/IMPL).

Per benchmark, with tracemalloc on and the garbage collector off, each call of the op records:
- peak: the most traced memory above the level before the call, while the call ran (the
  request's working memory, transient objects included: `tolist()` makes one Python float per
  element);
- retained: traced memory still held when the call returns, its result alive (the body itself,
  or next to nothing for a case that hands back views of its input).
tracemalloc sees Python's allocators and numpy's array buffers; memory a C library allocates on
its own (protobuf's arenas, rapidjson's buffers) is not seen. Like Go's B/op, the numbers are per
op; unlike it, they are not a total of everything allocated, which CPython does not count.
"""

from __future__ import annotations

import gc
import json
import statistics
import time
import tracemalloc

DEFAULT_CALLS = 5
TIME_BUDGET_S = 2.0  # per benchmark: a slow op stops after two calls once the budget is spent


def measure(op, calls: int = DEFAULT_CALLS, budget_s: float = TIME_BUDGET_S) -> dict:
    """{"peak_bytes", "retained_bytes", "calls"} of `op` (peak: the largest; retained: the median)."""
    op()  # first call outside the trace: lazy imports and first-use caches are not per-op costs
    gc.collect()
    gc_was_enabled = gc.isenabled()
    gc.disable()
    tracemalloc.start()
    peaks, retained = [], []
    try:
        deadline = time.perf_counter() + budget_s
        for done in range(1, calls + 1):
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            result = op()
            current, peak = tracemalloc.get_traced_memory()
            del result
            peaks.append(peak - before)
            retained.append(current - before)
            if done >= 2 and time.perf_counter() > deadline:
                break
    finally:
        tracemalloc.stop()
        if gc_was_enabled:
            gc.enable()
    return {"peak_bytes": max(peaks), "retained_bytes": int(statistics.median(retained)), "calls": len(peaks)}


def worker(names: list[str], case_dirs: list[str], calls: int) -> int:
    """Measure `names` (one FORMAT/IMPL) and print one JSON line per benchmark."""
    from serialbench.catalog.registry import CaseFailed, prepare, select

    tiers = ",".join(dict.fromkeys(name.split("/")[3] for name in names))
    inputs = ",".join(dict.fromkeys(name.split("/")[2] for name in names))
    benchmarks, cases = select(case_dirs, names, tiers, inputs)
    for bench in benchmarks:
        try:
            prepared = prepare(bench, cases)
            entry = {"name": bench.name, **measure(prepared.op, calls)}
        except CaseFailed as exc:
            entry = {"name": bench.name, "error": str(exc)}
        except MemoryError as exc:
            entry = {"name": bench.name, "error": f"MemoryError: {exc}"}
        print(json.dumps(entry), flush=True)
    return 0
