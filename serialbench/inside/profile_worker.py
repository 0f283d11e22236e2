"""compare --explain's timing profile: prepare one benchmark, then call it under cProfile.

Run in a side's process (inside/start.py) after the session has decided, with the side's serialbench
first on PYTHONPATH (measure/profiles.py starts it). The op is built as the timing worker builds it
(the side's prepare), warmed up, then called for about `seconds` under cProfile: one profiled call
chooses how many. It prints one JSON line: the calls, the wall seconds per op under the profiler
(what each function's share is scaled from), and per function its file, first line, name, own and
inclusive seconds per op and calls per op, as pstats has them. File names are made relative to the
sys.path entry they were imported from (site-packages, the side's root, the standard library), so
that the same function has the same name on both sides.
"""

import cProfile
import gc
import itertools
import json
import os
import pstats
import sys
import sysconfig
import time

from . import side_api, timeloop

MAX_CALLS = 1 << 16
# The profiler's own call, which pstats lists beside the op's functions
DISABLE = "<method 'disable' of '_lsprof.Profiler' objects>"


def calls(op, count):
    for _ in itertools.repeat(None, count):
        op()


def profiled(op, count: int) -> tuple[cProfile.Profile, float]:
    """The profile of `count` calls, and the wall seconds they took under it."""
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    calls(op, count)
    profiler.disable()
    return profiler, time.perf_counter() - started


def roots(case_dirs) -> list[str]:
    """Where this process imports from, longest first: a file's name is relative to the first that holds
    it (a --cases folder's files are named from the folder above it)."""
    places = [entry for entry in sys.path if entry and os.path.isdir(entry)]
    places += [sysconfig.get_paths()["stdlib"], *(os.path.dirname(os.path.abspath(d)) for d in case_dirs)]
    return sorted({os.path.abspath(place) + os.sep for place in places}, key=len, reverse=True)


def relative(filename: str, places: list[str]) -> str:
    if filename == "~":  # a C function: pstats' own mark
        return ""
    path = os.path.abspath(filename)
    return next((path[len(place):] for place in places if path.startswith(place)), filename)


def main(request: dict) -> None:
    api = side_api.load_or_exit("profiled")
    benchmarks, cases = api.select_named(request["case_dirs"], [request["name"]], request["payloads"])
    bench = next(b for b in benchmarks if b.name == request["name"])
    op = api.prepare(bench, cases, False, None).op
    timeloop.warm_up(op)
    gc.collect()
    gc.freeze()  # as the timing worker does: a collection scans the op's objects, not the libraries'
    _, one = profiled(op, 1)
    count = max(1, min(MAX_CALLS, int(request["seconds"] / max(one, 1e-9))))
    profiler, seconds = profiled(op, count)
    places = roots(request["case_dirs"])
    # The loop around the op (`calls`, this file) and the profiler's own call are left out: their time is
    # what the profile attributes to no function of the op.
    functions = [[relative(filename, places), line, name, own / count, inclusive / count, ncalls / count]
                 for (filename, line, name), (_, ncalls, own, inclusive, _) in pstats.Stats(profiler).stats.items()
                 if name != DISABLE and filename != __file__]
    print(json.dumps({"calls": count, "per_op": seconds / count, "functions": functions}))
