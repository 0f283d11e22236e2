"""profile's measuring: one op's time per call as the harness times it, and cProfile's functions as
rows per op (own and total seconds, calls, a readable name)."""

from __future__ import annotations

import os
import pstats

from serialbench.inside import timeloop


def time_per_op(op, minimum_s: float = 0.2) -> float:
    """Seconds per call as the harness times it (inside/timeloop.py): warmed up, then doubling
    batches on the thread's CPU clock until one lasts `minimum_s`."""
    timeloop.warm_up(op)
    time_func = timeloop.make_time_func(op, 1)
    loops = timeloop.calibrated_loops(time_func, minimum_s)
    return time_func(loops) / loops


def profile_rows(stats: pstats.Stats, calls: int) -> list[dict]:
    """One dict per function: own and total seconds per op, calls per op, and a readable name."""
    rows = []
    for (filename, line, function), (_, ncalls, own, total, _callers) in stats.stats.items():
        if function == "<method 'disable' of '_lsprof.Profiler' objects>":
            continue
        rows.append({"own": own / calls, "total": total / calls, "calls": ncalls / calls,
                     "function": function_label(filename, line, function)})
    return rows


def function_label(filename: str, line: int, function: str) -> str:
    if filename == "~":  # a builtin: "<method 'join' of 'bytes' objects>", "<built-in method ...>"
        return function.strip("<>")
    for marker in ("site-packages" + os.sep, "dist-packages" + os.sep):
        if marker in filename:
            filename = filename.split(marker, 1)[1]
            break
    else:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
        if filename.startswith(root):
            filename = filename[len(root):]
        elif os.sep in filename and "/lib/python" in filename:
            filename = "stdlib/" + filename.split("/lib/python", 1)[1].split("/", 1)[-1]
    return f"{function} ({filename}:{line})"
