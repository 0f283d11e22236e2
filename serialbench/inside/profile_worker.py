"""compare --explain's timing profile: prepare one benchmark, then call it under cProfile.

Run in a side's process (inside/start.py) after the session has decided, with the side's serialbench
first on PYTHONPATH (measure/profiles.py starts it). The op is built as the timing worker builds it
(the side's prepare), warmed up, then called for about `seconds` under cProfile (one profiled call
chooses how many), on the session's clock, a thread's CPU time, and timed without the profiler just
before and after. cProfile costs a fixed amount a call, most of an op of a few microseconds; that
cost is taken out of every function: its share of each call (calibrated on calls of functions that do
nothing, then scaled so that all of the profile's calls cost what the profiler added to the op) from
the callee's own time and the caller's, and from the inclusive time of every function above it. It
prints one JSON line: the calls, the seconds per op without the profiler (what the functions' times
are scaled to) and per function its file, first line, name, own and inclusive seconds per op and
calls per op. File names are made relative to the sys.path entry they were imported from
(site-packages, the side's root, the standard library), so that the same function has the same name
on both sides.
"""

import cProfile
import gc
import itertools
import json
import os
import pstats
import sys
import sysconfig

from . import side_api, timeloop

MAX_CALLS = 1 << 16
# The session's clock (inside/timeloop.py), a thread's CPU time, for the profiler too: on a shared
# machine, wall time would give a function the time another process held the core.
CLOCK = timeloop.CLOCK
# The profiler's own call, which pstats lists beside the op's functions
DISABLE = "<method 'disable' of '_lsprof.Profiler' objects>"


def calls(op, count):
    for _ in itertools.repeat(None, count):
        op()


def profiled(op, count: int) -> tuple[cProfile.Profile, float]:
    """The profile of `count` calls, and the seconds they took under it, both on CLOCK."""
    profiler = cProfile.Profile(CLOCK)
    started = CLOCK()
    profiler.enable()
    calls(op, count)
    profiler.disable()
    return profiler, CLOCK() - started


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


def nothing():
    pass


EMPTY: list = []
CALIBRATION = {False: (nothing, "nothing"), True: (EMPTY.clear, "<method 'clear' of 'list' objects>")}


def loop_of(call, count):
    def loop():
        for _ in itertools.repeat(None, count):
            call()
    return loop


def overhead(call, name: str, count: int = 5_000, repeats: int = 3) -> tuple[float, float]:
    """What cProfile adds to one call of `call` (a Python function that does nothing, or a C one that does
    next to nothing; pstats names it `name`): the part its own time takes (callee) and the part its
    caller's own time takes (caller), in seconds; the median of `repeats`."""
    callee, caller = [], []
    loop = loop_of(call, count)
    for _ in range(repeats):
        started = CLOCK()
        loop()
        plain = CLOCK() - started
        profiler, under = profiled(loop, 1)
        stats = pstats.Stats(profiler).stats
        own = next(entry[2] for key, entry in stats.items() if key[2] == name)
        callee.append(own / count)
        caller.append((under - plain) / count - own / count)
    callee.sort()
    caller.sort()
    return max(callee[repeats // 2], 0.0), max(caller[repeats // 2], 0.0)


def corrected(stats: dict, costs: dict[bool, tuple[float, float]]) -> tuple[dict, float]:
    """Each function's own and inclusive seconds less cProfile's cost (`costs`: C function or not ->
    (callee, caller) per call): its own calls' callee part, the caller part of the calls it makes, and
    in its inclusive time, the same of every call below it. And the cost of the whole profile."""
    own_cost = {key: entry[1] * costs[key[0] == "~"][0] for key, entry in stats.items()}
    made = {key: [] for key in stats}  # caller -> [(callee, calls)]
    for key, entry in stats.items():
        for caller, (calls_made, *_rest) in entry[4].items():
            if caller in made:
                own_cost[caller] += calls_made * costs[key[0] == "~"][1]
                made[caller].append((key, calls_made))
    below: dict = {}

    def inclusive_cost(key, path=()):
        if key not in below:
            if key in path:  # recursion: its calls are counted where the cycle started
                return 0.0
            total = own_cost[key]
            for callee, calls_made in made[key]:
                share = calls_made / stats[callee][1] if stats[callee][1] else 0.0
                total += share * inclusive_cost(callee, (*path, key))
            below[key] = total
        return below[key]

    fixed = {key: (max(entry[2] - own_cost[key], 0.0), max(entry[3] - inclusive_cost(key), 0.0))
             for key, entry in stats.items()}
    return fixed, sum(own_cost.values())


def plain(op, count: int) -> float:
    """Seconds per call of `count` calls without the profiler, on CLOCK."""
    started = CLOCK()
    calls(op, count)
    return (CLOCK() - started) / count


def main(request: dict) -> None:
    api = side_api.load_or_exit("profiled")
    benchmarks, cases = api.select_named(request["case_dirs"], [request["name"]], request["payloads"])
    bench = next(b for b in benchmarks if b.name == request["name"])
    op = api.prepare(bench, cases, False, None).op
    shares = {c_function: overhead(*CALIBRATION[c_function]) for c_function in (False, True)}
    warm = timeloop.warm_up(op)
    gc.collect()
    gc.freeze()  # as the timing worker does: a collection scans the op's objects, not the libraries'
    # The op without the profiler, before and after it, in the same process: what the profiler added
    # to each op is the difference, which the calls of the op share (below). An op of SLOW_CALL or more
    # (a JSON decoder at 1M, a second a call) is profiled once, its warm-up call its time without.
    if warm >= timeloop.SLOW_CALL:
        count, without = 1, warm
        profiler, seconds = profiled(op, count)
    else:
        _, one = profiled(op, 1)
        count = max(1, min(MAX_CALLS, int(request["seconds"] / max(one, 1e-9))))
        without = plain(op, max(1, count // 4))
        profiler, seconds = profiled(op, count)
        without = (without + plain(op, max(1, count // 4))) / 2
    stats = {key: entry for key, entry in pstats.Stats(profiler).stats.items() if key[2] != DISABLE}
    costs = per_call(stats, shares, seconds - without * count)
    fixed, _ = corrected(stats, costs)
    places = roots(request["case_dirs"])
    # The loop around the op (`calls`, this file) is left out: its time is what the profile attributes to
    # no function of the op.
    functions = [[relative(filename, places), line, name, fixed[key][0] / count, fixed[key][1] / count,
                  entry[1] / count]
                 for key, entry in stats.items() for filename, line, name in [key] if filename != __file__]
    print(json.dumps({"calls": count, "per_op": without, "profiled": seconds / count,
                      "overhead": {"python": costs[False], "c": costs[True]}, "functions": functions}))


def per_call(stats: dict, shares: dict[bool, tuple[float, float]], added: float) -> dict[bool, tuple[float, float]]:
    """cProfile's cost per call, (callee part, caller part) for a Python and for a C function: the
    calibrated costs (`shares`, of calls to functions that do nothing) scaled so that all the calls of
    the profile cost what the profiler added to the op (`added` seconds), which is more: cProfile's
    cost per call grows with the functions it has seen."""
    calls = {c_function: sum(entry[1] for key, entry in stats.items() if (key[0] == "~") == c_function)
             for c_function in (False, True)}
    calibrated = sum(calls[c] * sum(shares[c]) for c in (False, True))
    factor = max(added, 0.0) / calibrated if calibrated else 0.0
    return {c: (shares[c][0] * factor, shares[c][1] * factor) for c in (False, True)}
