"""Where the cost of a decided row moved: two per-function profiles of one benchmark, diffed.

A pure function of each side's profile (measure/profiles.py: cProfile seconds, or callgrind's
counts) and each side's measured cost per op (the session's median, or the count): per function,
its own and inclusive cost per op on BASE and HEAD, the change of its own cost, and whether it
appeared or vanished. pprof's `-diff_base` is the model: two profiles, one table of what grew and
shrank, in the profile's units. BASE and HEAD are a comparison's sides, or a sweep's or a bisection's
step's earlier and later side (`Pair`: what each command asks to explain, after its sessions decided).

The shares add up to the verdict's change. Each side's profile is scaled to that side's measured
cost per op (measured / the profile's own per-op cost: under cProfile, the op timed without the
profiler in the profiling process, on the session's clock; the profiler's own cost per call is
already out of every function, inside/profile_worker.py), so that its functions' own costs plus what
the profile attributes to no function (the loop around the op, and the error of taking the
profiler's cost out) are the measured cost. Then the functions' changes plus the unexplained change
are HEAD's measured cost minus BASE's, exactly. C code that a C function calls (numpy's loops, a
Cython extension's internals) is in the calling C function's own time; callgrind's counts name it.

Functions are matched across the sides by file and name (the n-th of that name in its file, by line,
for methods of one name in one file), not by line, so that a function that moved within its file
between two releases is the same function.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from serialbench.measure.profiles import Function, Profile
from serialbench.verdicts import vocabulary

NEW, GONE = "new", "gone"
# The interpreter's own frames under callgrind: the evaluation loop and frame handling, whose count
# is every Python-level line of the op; grouped as one row, as they are one function to a reader.
INTERPRETER = re.compile(r"_?PyEval_|_PyFrame_|_PyEvalFrame")
INTERPRETER_ROW = "interpreter (_PyEval_*, _PyFrame_*: the op's Python code)"


@dataclass(frozen=True)
class Moved:
    """One function on both sides, scaled to each side's measured cost per op (None: not on that side)."""

    label: str
    base_own: float | None
    head_own: float | None
    base_inclusive: float | None
    head_inclusive: float | None

    @property
    def change(self) -> float:
        return (self.head_own or 0.0) - (self.base_own or 0.0)

    @property
    def mark(self) -> str:
        """'new' (only HEAD runs it), 'gone' (only BASE), or ''."""
        if self.base_own is None:
            return NEW
        return GONE if self.head_own is None else ""


@dataclass(frozen=True)
class Explanation:
    """A decided row's change, by function. unit: 's', 'instructions' or 'cycles'; base and head: the
    measured cost per op; scales: what each side's profile was multiplied by; unattributed: each side's
    measured cost that no function holds."""

    name: str
    unit: str
    base: float
    head: float
    moved: tuple[Moved, ...]  # every function, the largest |change| first
    scales: tuple[float, float]
    unattributed: tuple[float, float]
    calls: tuple[int, int]  # calls of the op each profile covers

    @property
    def change(self) -> float:
        return self.head - self.base

    @property
    def unexplained(self) -> float:
        """The change no function's own cost carries: HEAD's unattributed cost minus BASE's."""
        return self.unattributed[1] - self.unattributed[0]

    def top(self, count: int) -> tuple[Moved, ...]:
        return self.moved[:count]

    def rest(self, count: int) -> float:
        """The change of the functions after the top `count`."""
        return sum(moved.change for moved in self.moved[count:])


def keyed(functions: Iterable[Function]) -> dict[tuple, Function]:
    """Each function by what matches it on the other side: (file, name, n-th of that name in the file by line)."""
    ordered = sorted(functions, key=lambda f: (f.file, f.name, f.line))
    found: dict[tuple, Function] = {}
    seen: dict[tuple[str, str], int] = {}
    for function in ordered:
        nth = seen.get((function.file, function.name), 0)
        seen[(function.file, function.name)] = nth + 1
        found[(function.file, function.name, nth)] = function
    return found


def group_interpreter(functions: Sequence[Function]) -> tuple[Function, ...]:
    """callgrind's functions with the interpreter's own frames summed into one row (no inclusive cost:
    the evaluation loop includes nearly everything)."""
    frames = [f for f in functions if INTERPRETER.match(f.name)]
    if not frames:
        return tuple(functions)
    rest = [f for f in functions if not INTERPRETER.match(f.name)]
    return (*rest, Function("", 0, INTERPRETER_ROW, sum(f.own for f in frames), None))


def _scaled(value: float | None, scale: float) -> float | None:
    return None if value is None else value * scale


def explain(name: str, base: Profile, head: Profile, base_measured: float, head_measured: float) -> Explanation:
    """The row's change by function: each profile scaled to its side's measured cost per op."""
    scales = tuple(measured / profile.per_op if profile.per_op > 0 else 0.0
                   for profile, measured in ((base, base_measured), (head, head_measured)))
    sides = (keyed(base.functions), keyed(head.functions))
    moved = []
    for key in dict.fromkeys([*sides[0], *sides[1]]):
        before, after = sides[0].get(key), sides[1].get(key)
        moved.append(Moved((after or before).label,
                           _scaled(before.own, scales[0]) if before else None,
                           _scaled(after.own, scales[1]) if after else None,
                           _scaled(before.inclusive, scales[0]) if before else None,
                           _scaled(after.inclusive, scales[1]) if after else None))
    moved.sort(key=lambda m: (-abs(m.change), m.label))
    attributed = tuple(sum(f.own for f in profile.functions) * scale for profile, scale in zip((base, head), scales))
    return Explanation(name, base.unit, base_measured, head_measured, tuple(moved), scales,
                       (base_measured - attributed[0], head_measured - attributed[1]), (base.calls, head.calls))


def decided(rows: Sequence) -> list:
    """The timed rows (verdicts/paired.Compared) a verdict decided: faster or slower."""
    return [row for row in rows if row.verdict.word in (vocabulary.FASTER, vocabulary.SLOWER)]


@dataclass(frozen=True)
class Pair:
    """A decided change to explain: one benchmark between two sides (sides/sides.Side, before and after),
    each side's measured cost per op, and the key its caller finds the explanation by."""

    key: Hashable
    name: str
    sides: tuple
    measured: tuple[float, float]


def explain_pairs(pairs: Sequence[Pair], workers: int) -> tuple[dict, dict[Hashable, str]]:
    """Each pair explained from a cProfile of each of its sides, made now, in fresh processes of the
    sides (a side and benchmark once, however many pairs share it); ({key: Explanation}, {key: why})
    for those that a side could not profile."""
    from serialbench.measure.profiles import profile_each

    profiles = profile_each([(side, pair.name) for pair in pairs for side in pair.sides], workers)
    found, not_explained = {}, {}
    for pair in pairs:
        before, after = (profiles[(side.label, pair.name)] for side in pair.sides)
        failing = [(side.label, profile.error) for side, profile in zip(pair.sides, (before, after)) if profile.error]
        if failing:
            not_explained[pair.key] = "{} could not be profiled: {}".format(*failing[0])
        else:
            found[pair.key] = explain(pair.name, before, after, *pair.measured)
    return found, not_explained


def decided_steps(rows: Sequence, sides: Mapping) -> list[Pair]:
    """A sweep's decided steps (verdicts/steps.SweepRow's faster or slower ones), each the pair of its two
    sides (`sides`: by label) with their medians, keyed (benchmark, before, after)."""
    return [Pair((row.name, step.before, step.after), row.name, (sides[step.before], sides[step.after]),
                 (row.median(step.before), row.median(step.after)))
            for row in rows for step in row.steps if step.changed]


def explain_after_session(pairs: Sequence[Pair], interrupted: bool, say: Callable[[str], None], what: str,
                          nothing: str) -> tuple[dict, dict] | None:
    """--explain after a session has decided (never while it times): the decided `pairs` explained, how long
    that took said; None, said in one line, when the session was interrupted or nothing was decided."""
    if interrupted:
        say("--explain: the session was interrupted; nothing explained")
        return None
    if not pairs:
        say(f"--explain: {nothing}; nothing to explain")
        return None
    started = time.monotonic()
    found = explain_pairs(pairs, os.cpu_count() or 1)
    say(f"--explain: {len(pairs)} {what} profiled on both sides in {time.monotonic() - started:.1f} s")
    return found


def explain_counted(rows: Sequence) -> dict[str, Explanation]:
    """Each counted row (verdicts/counts.Counted) that changed, explained from the per-function counts
    of the regions that counted it, the interpreter's own frames as one row."""
    found = {}
    for row in rows:
        if row.changed and row.profiles:
            before, after = (replace(profile, functions=group_interpreter(profile.functions))
                             for profile in row.profiles)
            found[row.name] = explain(row.name, before, after, row.base, row.head)
    return found
