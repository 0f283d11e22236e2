"""Allocations per op, as Go's B/op and allocs/op: every allocation call while the op runs, counted
by memray, freed or not.

memray (`Tracker(trace_python_allocators=True)`) records each call of Python's allocators
(PyMem/PyObject malloc, calloc, realloc: objects, bytes, lists, numpy's small buffers) and of the
native ones that C extensions call (malloc, calloc, realloc, posix_memalign, aligned_alloc, mmap:
numpy's large buffers, protobuf's upb arenas, orjson's and ujson's output buffers), on every
thread. An allocation that one allocator makes inside another (pymalloc's arenas, a large object
that PyObject_Malloc hands to malloc) counts once. Not seen: memory reused without an allocator
call (CPython's float and tuple free lists, numpy's small-buffer cache, an arena that upb or a
library's own pool already holds), and memory the kernel maps in by page faults or that a C++
library allocates with a custom allocator.

Counting regions. Regions of K and 2K calls are recorded; their difference over K is the count per
op, free of the tracker's own start and stop. memray follows Python calls with a profile function
to know where each allocation comes from. Under a profile function CPython creates what the op
unprofiled does not: a frame object for every Python function called (3.11 creates them lazily),
a bound method for every C method called as `obj.method()`. Where an allocation comes from is not
needed here, so the regions run with the profile function removed: the counts are the op's own.
"""

from __future__ import annotations

import gc
import itertools
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

TARGET_ALLOCATIONS = 200_000  # per region: enough to average, few enough to read back in a second
TARGET_SECONDS = 0.2  # per region
MAX_CALLS = 1024


@dataclass(frozen=True)
class Allocations:
    bytes_per_op: float
    allocs_per_op: float
    calls: int  # K: calls in the shorter region

    def minus(self, overhead: Allocations) -> Allocations:
        return Allocations(self.bytes_per_op - overhead.bytes_per_op, self.allocs_per_op - overhead.allocs_per_op,
                           self.calls)


def available() -> str | None:
    """Why allocations cannot be counted here, or None."""
    try:
        import memray  # noqa: F401
    except ImportError:
        return "memray is not installed (pip install 'serialbench[memory]')"
    return None


def count(op, target: int = TARGET_ALLOCATIONS, seconds: float = TARGET_SECONDS) -> Allocations:
    """B/op and allocs/op of `op` (already warm)."""
    allocs_one, bytes_one, elapsed = _region(op, 1)
    calls = 1
    while (calls < MAX_CALLS and 2 * calls * max(allocs_one, 1) <= target
           and 2 * calls * elapsed <= seconds):
        calls *= 2
    allocs_k, bytes_k, _ = _region(op, calls)
    allocs_2k, bytes_2k, _ = _region(op, 2 * calls)
    return Allocations((bytes_2k - bytes_k) / calls, (allocs_2k - allocs_k) / calls, calls)


def _region(op, calls: int) -> tuple[int, int, float]:
    """(allocation calls, bytes allocated, seconds) of `calls` calls of `op` under memray."""
    import memray

    fd, path = tempfile.mkstemp(prefix="serialbench-memray-", suffix=".bin")
    os.close(fd)
    os.unlink(path)  # memray refuses to overwrite a file
    gc_was_enabled = gc.isenabled()
    gc.disable()  # a collection's frees and the objects it lets be reused would land in one region only
    try:
        with memray.Tracker(path, trace_python_allocators=True, follow_fork=False):
            sys.setprofile(None)  # memray's: its allocation hooks stay (see the module's docstring)
            threading.setprofile(None)  # threads the op starts
            start = time.perf_counter()
            for _ in itertools.repeat(None, calls):  # repeat(): the loop allocates nothing
                op()
            elapsed = time.perf_counter() - start
        allocs, allocated = totals(path)
    finally:
        if gc_was_enabled:
            gc.enable()
        if os.path.exists(path):
            os.unlink(path)
    return allocs, allocated, elapsed / calls


def totals(path: str) -> tuple[int, int]:
    """(allocation calls, bytes allocated) of a memray capture: memray's own `stats` reader, in C++,
    where this memray has it (a private function); else the same totals from the public FileReader,
    about a microsecond a record in Python (a region holds up to TARGET_ALLOCATIONS)."""
    try:
        from memray._memray import compute_statistics
    except ImportError:
        return totals_from_records(path)
    stats = compute_statistics(path)
    return stats.total_num_allocations, stats.total_memory_allocated


def totals_from_records(path: str) -> tuple[int, int]:
    """The totals through memray's public API: every record that is not a deallocation."""
    import memray

    freeing = {memray.AllocatorType.FREE, memray.AllocatorType.MUNMAP, memray.AllocatorType.PYMALLOC_FREE}
    allocs = allocated = 0
    for record in memray.FileReader(path).get_allocation_records():
        if record.allocator not in freeing:
            allocs += record.n_allocations
            allocated += record.size
    return allocs, allocated

