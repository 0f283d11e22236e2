"""`python -m serialbench compare --instructions`: instructions per op, counted by valgrind's callgrind.

Each benchmark runs once per revision under callgrind with collection off. The worker prepares the
op (outside any count), warms it up, then calls it inside `sys.call_tracing`, whose C function
toggles collection (`--toggle-collect`) and dumps the count when it returns (`--dump-after`): a
first region of one call chooses how many calls make a region long enough, then regions of K and
2K calls; their difference over K is the count per op, free of start-up, imports and the region's
own fixed cost. What would make the count the process's rather than the op's is held still: hash
randomisation is pinned (PYTHONHASHSEED=0), malloc held in one regime (as for timing), the loop makes
no object a call, and what exists before counting starts is frozen (as the timing worker does), so
that a collection inside a region scans the op's own objects. Two runs of one revision agree
exactly. Code the op never runs still moves its count a little, through the heap it leaves behind
(where the op's blocks land, whether a realloc grows in place): beside a case module of 300 unrelated
functions, 47 rows at float32/1K moved by a median 0.2% and at most 1.6% (msgpack/packb, a
13,000-instruction op), hence the 2% default tolerance (verdicts/counts.py).

What the count can tell: a change in the work the CPU is asked to do (a Python-level loop more or
less, a copy avoided, a different library call), to a fraction of a percent, on any machine, at
any load. What it cannot: time spent waiting on memory (a 4 MB copy at 1M is a few hundred thousand
instructions but milliseconds of cache misses and page faults), system calls and page faults in
the kernel, how many instructions run per cycle (SIMD width, branch mispredictions), and code that
picks its implementation from the CPU: under valgrind, glibc and numpy see valgrind's virtual CPU
(no AVX-512), so their memcpy and loops may not be the ones that run natively.

`compare --cycles` runs the same regions with callgrind's cache simulation on, over a fixed cache
(CACHE: not the host's, which valgrind misreads on VMs, so that a figure means the same on every
machine), and weighs its events into estimated cycles as iai-callgrind does: an access that hits
L1 costs 1, one that misses L1 and hits the last level 5, one that goes to memory 35 (`cycles`).
A 4 MB copy then shows as its 131,072 line misses, not only its few hundred thousand instructions.
The simulation makes callgrind about twice as slow (msgpack/packb/float32/1M: 28 s against 13 s a
side, most of it the interpreter's start). It still cannot see page faults, the kernel, prefetchers
or the memory bandwidth another process takes: a model, repeatable to the count.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from serialbench.core.errors import UsageError
from serialbench.measure import callgrind_functions
from serialbench.measure.profiles import Function, Profile
from serialbench.sides.sides import Side

MARKER = "_PyEval_CallTracing"  # sys.call_tracing's C function; no serializer calls it
TARGET_INSTRUCTIONS = 20_000_000  # per counted region: a few tenths of a second under callgrind
MAX_CALLS = 1 << 14
# 32 KB 8-way L1s and a 32 MB 16-way last level (this project's reference VM, an AMD EPYC), 64 B lines.
CACHE = ("--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=33554432,16,64")
WEIGHTS = {"L1 hit": 1, "LL hit": 5, "memory": 35}  # iai-callgrind's



@dataclass(frozen=True)
class Count:
    name: str
    per_op: float | None  # instructions per call of the op (estimated cycles, with the cache simulation)
    calls: int = 0
    error: str = ""
    events: dict[str, float] | None = None  # callgrind's events per op: Ir, and the cache's when simulated
    profile: Profile | None = None  # per function, when asked for (compare --explain)


def require_valgrind() -> str:
    path = shutil.which("valgrind")
    if not path:
        raise UsageError("--instructions and --cycles need valgrind, which is not installed; "
                         "on Debian or Ubuntu: apt-get install valgrind")
    return path


def count_instructions(side: Side, name: str, calls: int | None = None, cycles: bool = False,
                       functions: bool = False) -> Count:
    """Instructions per op of one benchmark on one side (its serialbench, cases and environment);
    with `cycles`, estimated cycles per op from the cache simulation.

    `calls` per counted region defaults to what makes a region about TARGET_INSTRUCTIONS long; a
    comparison passes BASE's choice to HEAD, since allocator and GC work amortise differently over
    different numbers of calls (a few percent on a 1K op between 64 and 4096 calls).
    """
    valgrind = require_valgrind()
    with tempfile.TemporaryDirectory(prefix="serialbench-callgrind-") as tmp:
        out = os.path.join(tmp, "callgrind.out")
        request = {"name": name, "case_dirs": list(side.case_dirs),
                   "payloads": list(side.payloads), "out": out,
                   "target": TARGET_INSTRUCTIONS, "max_calls": MAX_CALLS, "calls": calls or 0}
        cmd = [valgrind, "--tool=callgrind", "--quiet", "--collect-atstart=no", f"--toggle-collect={MARKER}",
               f"--dump-after={MARKER}", f"--callgrind-out-file={out}", *(CACHE if cycles else ()),
               ]
        argv, env = side.command("callgrind_worker", request)
        done = subprocess.run([*cmd, *argv], cwd=side.root, env={**env, "PYTHONHASHSEED": "0"},
                              capture_output=True, text=True)
        if done.returncode != 0:
            lines = [line for line in done.stderr.splitlines() if line.strip()]
            return Count(name, None, error=lines[-1] if lines else f"valgrind exited with status {done.returncode}")
        dumps = {int(path.rsplit(".", 1)[1]): _summary(path) for path in _dumps(out)}
        if sorted(dumps) != [1, 2, 3]:
            return Count(name, None, error=f"callgrind dumped {len(dumps)} regions, not 3: is {MARKER} "
                                           "missing from this Python (an LTO build may inline it)?")
        used = json.loads(done.stdout.strip().splitlines()[-1])["calls"]
        events = {event: (dumps[3][event] - dumps[2][event]) / used for event in dumps[3]}
        if cycles:
            events["cycles"] = estimated_cycles(events)
        per_op = events["cycles" if cycles else "Ir"]
        profile = function_profile(f"{out}.2", f"{out}.3", used, cycles, per_op) if functions else None
        return Count(name, per_op, used, events=events, profile=profile)


def function_profile(first: str, second: str, used: int, cycles: bool, per_op: float) -> Profile:
    """Per function, own and inclusive instructions (or estimated cycles) per op: the second region's
    counts minus the first's, over the calls between them, as the op's own count is made."""
    names, before = callgrind_functions.read(first)
    _, after = callgrind_functions.read(second)
    zero = [0] * len(names)

    def cost(counts: list[int]) -> float:
        events = dict(zip(names, counts))
        return estimated_cycles(events) if cycles else events["Ir"]

    found = []
    for (where, function), (own, inclusive) in after.items():
        old_own, old_inclusive = before.get((where, function), (zero, zero))
        own_op = (cost(own) - cost(old_own)) / used
        inclusive_op = (cost(inclusive) - cost(old_inclusive)) / used
        if own_op or inclusive_op:
            found.append(Function(where, 0, function, own_op, inclusive_op))
    return Profile("cycles" if cycles else "instructions", per_op, tuple(found), used)


def estimated_cycles(events: dict[str, float]) -> float:
    """iai-callgrind's estimate: every access (instruction fetch, data read or write) costs by where it hits."""
    accesses = events["Ir"] + events["Dr"] + events["Dw"]
    l1_misses = events["I1mr"] + events["D1mr"] + events["D1mw"]
    ll_misses = events["ILmr"] + events["DLmr"] + events["DLmw"]
    return (WEIGHTS["L1 hit"] * (accesses - l1_misses) + WEIGHTS["LL hit"] * (l1_misses - ll_misses)
            + WEIGHTS["memory"] * ll_misses)


def _dumps(out: str) -> list[str]:
    directory, stem = os.path.split(out)
    return [os.path.join(directory, entry) for entry in os.listdir(directory)
            if entry.startswith(stem + ".") and entry.rsplit(".", 1)[1].isdigit()]


def _summary(path: str) -> dict[str, int]:
    """The region's totals by event: {"Ir": ...}, and Dr, Dw, I1mr, D1mr, D1mw, ILmr, DLmr, DLmw with the cache."""
    events = None
    with open(path) as profile:
        for line in profile:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:") and events:
                counts = [int(word) for word in line.split()[1:]]
                return dict(zip(events, counts + [0] * (len(events) - len(counts))))  # trailing zeros left out
    raise ValueError(f"{path}: no events and summary lines")


def count_pairs(sides: Sequence[Side], names: Sequence[str], workers: int,
                say: Callable[[str], None], cycles: bool = False, functions: bool = False) -> list[tuple[Count, ...]]:
    """Per benchmark, its count on each side (the first side chooses the calls), several at once;
    with `functions`, each count's per-function profile."""

    def count_everywhere(name: str) -> tuple[Count, ...]:
        first = count_instructions(sides[0], name, cycles=cycles, functions=functions)
        rest = [count_instructions(side, name, first.calls or None, cycles, functions) for side in sides[1:]]
        return (first, *rest)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
        results = []
        for index, counts in enumerate(pool.map(count_everywhere, names), start=1):
            results.append(counts)
            say(f"[{index}/{len(names)}] {names[index - 1]}")
        return results
