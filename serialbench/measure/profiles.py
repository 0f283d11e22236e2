"""Per-function profiles of one benchmark on one side, for --explain (compare, sweep, bisect).

A profile is what one side spends per op in each function, in the profile's own unit: seconds under
cProfile (inside/profile_worker.py, run in a fresh process of the side after the session), or
instructions or estimated cycles from callgrind's per-function counts (measure/callgrind_functions.py,
from the regions --instructions and --cycles count). verdicts/explain.py diffs two of them.
"""

from __future__ import annotations

import concurrent.futures
import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from serialbench.sides.sides import Side

SECONDS = 0.3  # of profiled calls a side, on its CPU clock: the top movers of a 1K op repeat from run to run
WORKER_TIMEOUT_S = 600


@dataclass(frozen=True)
class Function:
    """One function of a profile. file: relative to where it was imported from ('' for a C function
    that cProfile names by itself, as '<built-in method ...>'); line: its first line (0 unknown)."""

    file: str
    line: int
    name: str
    own: float  # per op, in the profile's unit, in the function itself
    inclusive: float | None  # per op, with what it calls (None: not defined, as for a group)
    calls: float | None = None  # calls per op, where the profiler counts them

    @property
    def label(self) -> str:
        """As cProfile prints it: file:line(name), and {built-in method ...} for a C function; a function
        callgrind counted as callgrind_annotate names it: name [object]."""
        if not self.file:
            return "{" + self.name.strip("<>") + "}" if self.name.startswith("<") else self.name
        return f"{self.file}:{self.line}({self.name})" if self.line else f"{self.name} [{self.file}]"


@dataclass(frozen=True)
class Profile:
    """unit: 's' (cProfile), 'instructions' or 'cycles'. per_op: the op's cost as the profile measured
    it (under cProfile, its wall seconds per op, the profiler's own cost included). calls: the op's
    calls the profile covers. error: why the side could not be profiled ('' when it was)."""

    unit: str
    per_op: float
    functions: tuple[Function, ...] = ()
    calls: int = 0
    error: str = ""


def failed(unit: str, error: str) -> Profile:
    return Profile(unit, 0.0, error=error)


def profile_side(side: Side, name: str, seconds: float = SECONDS) -> Profile:
    """cProfile of about `seconds` of calls of one benchmark, in a fresh process of the side."""
    request = {"name": name, "case_dirs": list(side.case_dirs), "payloads": list(side.payloads), "seconds": seconds}
    argv, env = side.command("profile_worker", request)
    try:
        done = subprocess.run(argv, cwd=side.root, env=env, capture_output=True, text=True, timeout=WORKER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return failed("s", f"its profile took more than {WORKER_TIMEOUT_S} s")
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    if done.returncode != 0 or not done.stdout.strip():
        return failed("s", lines[-1] if lines else f"its profile worker exited with status {done.returncode}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    functions = tuple(Function(file, line, function, own, inclusive, calls)
                      for file, line, function, own, inclusive, calls in found["functions"])
    return Profile("s", found["per_op"], functions, found["calls"])


def profile_pairs(sides: Sequence[Side], names: Sequence[str], workers: int) -> list[tuple[Profile, ...]]:
    """Per benchmark, its profile on each side: one process a side and benchmark, `workers` at once."""
    found = profile_each([(side, name) for name in names for side in sides], workers)
    return [tuple(found[(side.label, name)] for side in sides) for name in names]


def profile_each(jobs: Sequence[tuple[Side, str]], workers: int) -> dict[tuple[str, str], Profile]:
    """Each (side, benchmark) profiled once, by (side's label, benchmark): a sweep's side that is the
    later side of one step and the earlier of the next is profiled once for both."""
    unique = list({(side.label, name): (side, name) for side, name in jobs}.values())
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
        found = list(pool.map(lambda job: profile_side(*job), unique))
    return {(side.label, name): profile for (side, name), profile in zip(unique, found)}
