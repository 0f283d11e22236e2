"""Memory per op, measured in a worker of its own (commands/memory.py runs one per FORMAT/IMPL).

Per benchmark, allocations per op: B/op and allocs/op, every allocation call of one op, native ones
included (inside/allocations.py, memray), less the harness's own, counted the same way on
baseline/noop in the same worker. Then, with tracemalloc on and the garbage collector off, each
call of the op records:
- peak: the most traced memory above the level before the call, while the call ran (the
  request's working memory, transient objects included: `tolist()` makes one Python float per
  element);
- retained: traced memory still held when the call returns, its result alive (the body itself,
  or next to nothing for a case that hands back views of its input).
tracemalloc sees Python's allocators and numpy's array buffers; memory a C library allocates on
its own (protobuf's arenas, orjson's buffers) is not in peak and retained, only in B/op.
"""

from __future__ import annotations

import gc
import json
import statistics
import time
import tracemalloc
from collections.abc import Sequence

from serialbench.inside import allocations

NOOP = ("baseline", "noop")  # the harness's own allocations per op
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


def worker(names: list[str], case_dirs: list[str], calls: int, payloads: Sequence[str] = ()) -> int:
    """Measure `names` (one FORMAT/IMPL) and print one JSON line per benchmark, after a line with
    the harness's allocations per op (baseline/noop), which each benchmark's have had taken off.
    A name whose INPUT is not a built-in kind is one of `payloads` (--payload arguments)."""
    from serialbench.catalog.registry import Benchmark, CaseFailed, find_case, prepare, select_named

    benchmarks, cases = select_named(case_dirs, names, payloads)
    overhead = None
    if allocations.available() is None:
        noop = prepare(Benchmark(find_case(cases, *NOOP), "float32", "1K"), cases).op
        noop()
        overhead = allocations.count(noop)
        print(json.dumps({"overhead": _per_op(overhead)}), flush=True)
    for bench in benchmarks:
        try:
            prepared = prepare(bench, cases)
            entry = {"name": bench.name, **measure(prepared.op, calls)}
            if overhead is not None:
                entry.update(_per_op(allocations.count(prepared.op).minus(overhead)))
        except CaseFailed as exc:
            entry = {"name": bench.name, "error": str(exc)}
        except MemoryError as exc:
            entry = {"name": bench.name, "error": f"MemoryError: {exc}"}
        print(json.dumps(entry), flush=True)
    return 0


def _per_op(counted: allocations.Allocations) -> dict:
    return {"bytes_per_op": round(counted.bytes_per_op, 1), "allocs_per_op": round(counted.allocs_per_op, 2),
            "alloc_calls": counted.calls}
